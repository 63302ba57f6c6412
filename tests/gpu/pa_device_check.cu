// Standalone device check of the partial-assembly kernels (needs nvcc and a GPU, no MPI):
// on structured hex meshes of order p (D = p + 1, Q = 2p, L = p), runs k_pa_mass,
// k_pa_mass_gather, k_pa_qdata3 (specialised and run-time sizes) and k_pa_qdata on the
// device and compares every output bit for bit with the reference functions of
// hydro/pa_kernels.h computed on the host; then times the kernels at benchmark sizes.
//   nvcc -O3 -arch=sm_90 --fmad=false -std=c++17 -Igpu -Isolver -Ibase \
//        tests/gpu/pa_device_check.cu -o pa_device_check && ./pa_device_check [quick]
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "context.h"
#include "kernels/pa_mass.cuh"
#include "kernels/pa_qdata.cuh"

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); \
      exit(2);                                                                                \
    }                                                                                         \
  } while (0)

template <typename T>
static T *Dev(const std::vector<T> &h) {
  T *p;
  CK(cudaMalloc(&p, (h.size() ? h.size() : 1) * sizeof(T)));
  if (h.size()) CK(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}
template <typename T>
static std::vector<T> Host(const T *d, size_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

static unsigned long long g_rng = 88172645463325252ull;
static double R() {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (double)(g_rng >> 11) * 0x1p-53 * 2.0 - 1.0;
}

struct Mesh {
  int p, n, D, Q, L, nd, nq, ne, nz, nl;
  std::vector<double> B, G, LB, qw, x0;
  std::vector<int> edof, toff, tidx;
};

static Mesh Build(int p, int n) {
  Mesh m;
  m.p = p, m.n = n, m.D = p + 1, m.Q = 2 * p, m.L = p;
  const int D = m.D, Q = m.Q, L = m.L, N = p * n + 1;
  m.nd = D * D * D, m.nq = Q * Q * Q, m.ne = L * L * L, m.nz = n * n * n, m.nl = N * N * N;
  std::vector<double> nodes(D), pts(Q), w1(Q);
  for (int a = 0; a < D; a++) nodes[a] = (double)a / (D - 1);
  for (int q = 0; q < Q; q++) pts[q] = (q + 0.5) / Q, w1[q] = 1.0 / Q;
  m.B.resize(Q * D), m.G.resize(Q * D), m.LB.resize(Q * L), m.qw.resize(m.nq);
  for (int q = 0; q < Q; q++)
    for (int a = 0; a < D; a++) {
      double val = 1.0, der = 0.0;
      for (int j = 0; j < D; j++) {
        if (j == a) continue;
        double prod = 1.0 / (nodes[a] - nodes[j]);
        for (int k = 0; k < D; k++)
          if (k != a && k != j) prod *= (pts[q] - nodes[k]) / (nodes[a] - nodes[k]);
        der += prod, val *= (pts[q] - nodes[j]) / (nodes[a] - nodes[j]);
      }
      m.B[q * D + a] = val, m.G[q * D + a] = der;
    }
  for (int q = 0; q < Q; q++)  // Bernstein of degree L - 1
    for (int a = 0; a < L; a++) {
      double c = 1.0;
      for (int k = 0; k < a; k++) c = c * (L - 1 - k) / (k + 1);
      m.LB[q * L + a] = c * pow(pts[q], a) * pow(1.0 - pts[q], L - 1 - a);
    }
  for (int q = 0; q < m.nq; q++) m.qw[q] = w1[q % Q] * w1[(q / Q) % Q] * w1[q / (Q * Q)];
  m.edof.resize((size_t)m.nz * m.nd);
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        const size_t z = (size_t)(k * n + j) * n + i;
        for (int a = 0; a < m.nd; a++) {
          const int a1 = a % D, a2 = (a / D) % D, a3 = a / (D * D);
          m.edof[z * m.nd + a] = (p * i + a1) + N * ((p * j + a2) + N * (p * k + a3));
        }
      }
  m.x0.resize(3 * (size_t)m.nl);
  for (int l = 0; l < m.nl; l++) {
    const int c[3] = {l % N, (l / N) % N, l / (N * N)};
    for (int g = 0; g < 3; g++) m.x0[(size_t)g * m.nl + l] = (double)c[g] / (p * n);
  }
  // owned dof -> E-indices z * nd + a, ascending (the mass_toff/mass_tidx order)
  m.toff.assign(m.nl + 1, 0);
  for (size_t k = 0; k < m.edof.size(); k++) m.toff[m.edof[k] + 1]++;
  for (int l = 0; l < m.nl; l++) m.toff[l + 1] += m.toff[l];
  m.tidx.resize(m.edof.size());
  std::vector<int> pos(m.toff.begin(), m.toff.end() - 1);
  for (size_t k = 0; k < m.edof.size(); k++) m.tidx[pos[m.edof[k]]++] = (int)k;
  return m;
}

typedef void (*MassK)(DevData, PaMassArgs);
typedef void (*QK)(PaQArgs);
static MassK MassPick(int p, bool runtime) {
  if (runtime) return k_pa_mass<3, 0, 0>;
  return p == 1   ? k_pa_mass<3, 2, 2>
         : p == 2 ? k_pa_mass<3, 3, 4>
         : p == 3 ? k_pa_mass<3, 4, 6>
                  : k_pa_mass<3, 5, 8>;
}
static QK QPick(int p, bool runtime) {
  if (runtime) return k_pa_qdata3<0, 0, 0, 0, 1>;
  return p == 1   ? PaQ3Kernel<2, 2, 1>()
         : p == 2 ? PaQ3Kernel<3, 4, 2>()
         : p == 3 ? PaQ3Kernel<4, 6, 3>()
                  : PaQ3Kernel<5, 8, 4>();
}

struct Run {
  Mesh m;
  DevData d;
  BlastPaBasis pb;
  std::vector<double> x, v, e, R0, qm;
  std::vector<int> zmat;
  double *dx, *dv, *de, *blk_dt, *blk_det, *dE, *dy;
  int *blk_zone;
  int zpb;
  size_t msmem, qsmem;
};

static void Setup(Run &r, int p, int n, int tg, int keep) {
  r.m = Build(p, n);
  Mesh &m = r.m;
  const size_t nz = m.nz, nq = m.nq, nl = m.nl;
  r.x.resize(3 * nl), r.v.resize(3 * nl), r.e.resize(nz * m.ne), r.R0.resize(nz * nq),
      r.qm.resize(nz * nq), r.zmat.assign(nz, 0);
  const double h = 1.0 / (p * n);
  for (size_t i = 0; i < r.x.size(); i++) r.x[i] = m.x0[i] + 0.05 * h * R();
  for (auto &t : r.v) t = 0.1 * R();
  for (auto &t : r.e) t = 1.0 + 0.5 * R();
  for (size_t i = 0; i < r.R0.size(); i++) r.R0[i] = m.qw[i % nq] * h * h * h * (1.2 + 0.1 * R());
  for (size_t i = 0; i < r.qm.size(); i++) r.qm[i] = m.qw[i % nq] * (1.0 + 0.1 * R());
  DevData &d = r.d;
  memset(&d, 0, sizeof d);
  d.dim = 3, d.nz = m.nz, d.nqp = m.nq, d.nd = m.nd, d.ne = m.ne, d.nl = m.nl, d.nown = m.nl,
  d.next = m.nl;
  d.rows = 3 * m.nd, d.tg_source = tg, d.pa = 1, d.keep_stress = keep, d.nz_ext = m.nz;
  d.D = m.D, d.Q = m.Q, d.L = m.L, d.nzint = m.nz;
  d.qpar.dim = 3, d.qpar.order_k = p, d.qpar.visc = 1, d.qpar.vort = tg, d.qpar.h0 = h,
  d.qpar.cfl = 0.5;
  d.edof = Dev(m.edof), d.qw = Dev(m.qw), d.R0 = Dev(r.R0), d.zone_mat = Dev(r.zmat);
  const std::vector<BlastMaterial> mats(1, BlastMaterialIdealGas(1.4));
  d.mats = Dev(mats);
  d.B1 = Dev(m.B), d.G1 = Dev(m.G), d.L1 = Dev(m.LB), d.x0 = Dev(m.x0), d.qmass = Dev(r.qm);
  d.mtoff = Dev(m.toff), d.mtidx = Dev(m.tidx);
  std::vector<int> zones(nz);
  for (size_t k = 0; k < nz; k++) zones[k] = (int)k;
  d.zones = Dev(zones);
  CK(cudaMalloc(&d.rE, nz * 3 * m.nd * sizeof(double)));
  CK(cudaMalloc(&d.b, nz * m.ne * sizeof(double)));
  CK(cudaMalloc(&d.tg, nz * m.ne * sizeof(double)));
  if (keep) CK(cudaMalloc(&d.S, nz * nq * 9 * sizeof(double)));
  r.dx = Dev(r.x), r.dv = Dev(r.v), r.de = Dev(r.e);
  const size_t nblk = nz > 64 ? nz : 64;  // k_pa_qdata: 64 blocks (Check)
  CK(cudaMalloc(&r.blk_dt, nblk * sizeof(double)));
  CK(cudaMalloc(&r.blk_det, nblk * sizeof(double)));
  CK(cudaMalloc(&r.blk_zone, nblk * sizeof(int)));
  CK(cudaMalloc(&r.dy, 3 * nl * sizeof(double)));
  memset(&r.pb, 0, sizeof r.pb);
  r.pb.dim = 3, r.pb.D = m.D, r.pb.Q = m.Q, r.pb.L = m.L, r.pb.nd = m.nd, r.pb.nq = m.nq,
  r.pb.ne = m.ne;
  r.pb.qpar = d.qpar, r.pb.tg_source = tg;
  const size_t stage = 2 * 3 * (size_t)PaMassStage(3, m.D, m.Q) * sizeof(double);
  r.zpb = (int)((32 * 1024) / stage);
  r.zpb = r.zpb < 1 ? 1 : r.zpb > 32 ? 32 : r.zpb;
  r.msmem = (size_t)m.Q * m.D * sizeof(double) + r.zpb * stage;
  r.qsmem = (size_t)PaQ3Doubles(m.D, m.Q, m.L, 0) * sizeof(double);  // fits both
  for (int rt = 0; rt < 2; rt++) {
    CK(cudaFuncSetAttribute((const void *)MassPick(p, rt),
                            cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    CK(cudaFuncSetAttribute((const void *)QPick(p, rt), cudaFuncAttributeMaxDynamicSharedMemorySize,
                            200 * 1024));
  }
}

static void Free(Run &r) {
  DevData &d = r.d;
  void *ps[] = {d.edof,  d.qw,    d.R0,    d.zone_mat, d.mats,  d.B1,      d.G1,       d.L1, d.x0,
                d.qmass, d.mtoff, d.mtidx, d.zones,  d.rE,      d.b,        d.tg, d.S,
                r.dx,    r.dv,    r.de,    r.blk_dt, r.blk_det, r.blk_zone, r.dy};
  for (void *p : ps) cudaFree(p);
}

static PaQArgs QArgs(Run &r) {
  PaQArgs a;
  memset(&a, 0, sizeof a);
  a.d = r.d, a.n = r.m.nz, a.x = r.dx, a.v = r.dv, a.e = r.de;
  a.pb = r.pb, a.pb.B = r.d.B1, a.pb.G = r.d.G1, a.pb.LB = r.d.L1, a.pb.qw = r.d.qw;
  a.blk_dt = r.blk_dt, a.blk_det = r.blk_det, a.blk_zone = r.blk_zone;
  return a;
}

static void MassLaunch(Run &r, bool rt, int ncomp, unsigned mask) {
  PaMassArgs a;
  a.k0 = 0, a.n = r.m.nz, a.ncomp = ncomp, a.zpb = r.zpb, a.mask = mask;
  a.st = r.m.nl, a.es = (size_t)r.m.nz * r.m.nd, a.x = r.dx, a.E = r.d.rE;
  const size_t smem =
      (size_t)(r.m.Q * r.m.D + 2 * r.zpb * ncomp * PaMassStage(3, r.m.D, r.m.Q)) * sizeof(double);
  MassPick(r.m.p, rt)<<<(a.n + r.zpb - 1) / r.zpb, 256, smem>>>(r.d, a);
  CK(cudaGetLastError());
}
static void GatherLaunch(Run &r, int ncomp, unsigned mask, int *rows) {
  const size_t n = (size_t)r.m.nl * ncomp;
  k_pa_mass_gather<<<(unsigned)((n + 255) / 256 < 65535 ? (n + 255) / 256 : 65535), 256>>>(
      r.d, rows, 0, r.m.nl, ncomp, mask, r.m.nl, (size_t)r.m.nz * r.m.nd, r.d.rE, r.dy);
  CK(cudaGetLastError());
}

static int Same(const char *what, const double *a, const double *b, size_t n) {
  size_t nd = 0, first = 0;
  for (size_t i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], 8) && !(a[i] != a[i] && b[i] != b[i])) {
      if (!nd) first = i;
      nd++;
    }
  printf("  %s %-44s %zu of %zu differ%s", nd ? "FAIL" : "PASS", what, nd, n, nd ? "" : "\n");
  if (nd) printf(" (first %zu: %.17g vs %.17g)\n", first, a[first], b[first]);
  return nd != 0;
}

static int Check(int p, int n, int tg, int keep) {
  Run r;
  Setup(r, p, n, tg, keep);
  Mesh &m = r.m;
  printf("check Q%d n %d^3 (%d zones) tg %d keep %d\n", p, n, m.nz, tg, keep);
  int bad = 0;
  const size_t nz = m.nz, nd = m.nd, nq = m.nq, es = nz * nd;
  // mass action and gather
  std::vector<int> rows(m.nl);
  for (int i = 0; i < m.nl; i++) rows[i] = i;
  int *drows = Dev(rows);
  for (int rt = 0; rt < 2; rt++)
    for (unsigned mask : {7u, 5u}) {
      CK(cudaMemset(r.d.rE, 0, 3 * es * sizeof(double)));
      MassLaunch(r, rt, 3, mask);
      GatherLaunch(r, 3, mask, drows);
      CK(cudaDeviceSynchronize());
      std::vector<double> E = Host(r.d.rE, 3 * es), y = Host(r.dy, 3 * (size_t)m.nl);
      std::vector<double> Er(3 * es, 0.0), xz(3 * nd), ws(nq + BLAST_PA_CONTRACT_WS(16)), yr = y;
      for (size_t z = 0; z < nz; z++) {
        for (int c = 0; c < 3; c++)
          for (size_t a = 0; a < nd; a++)
            xz[c * nd + a] = r.x[(size_t)c * m.nl + m.edof[z * nd + a]];
        BlastPaMassZone(3, m.D, m.Q, m.B.data(), &r.qm[z * nq], 3, mask, xz.data(), nd, &Er[z * nd],
                        es, ws.data());
      }
      for (int i = 0; i < m.nl; i++)
        for (int c = 0; c < 3; c++) {
          if (!((mask >> c) & 1u)) continue;
          BlastDD acc = {0.0, 0.0};
          for (int t = m.toff[i]; t < m.toff[i + 1]; t++) BlastDDAdd(&acc, Er[c * es + m.tidx[t]]);
          BlastDDNormalize(&acc);
          yr[(size_t)c * m.nl + i] = acc.hi;
        }
      char what[96];
      snprintf(what, sizeof what, "k_pa_mass%s mask %u: zone values", rt ? "<0,0>" : "", mask);
      bad += Same(what, E.data(), Er.data(), E.size());
      snprintf(what, sizeof what, "k_pa_mass_gather mask %u: rows", mask);
      bad += Same(what, y.data(), yr.data(), y.size());
    }
  cudaFree(drows);
  // quadrature data: host reference
  std::vector<double> rE(nz * 3 * nd), b(nz * m.ne, 0.0), tgv(nz * m.ne, 0.0), S(nz * nq * 9, 0.0),
      Sl(nq * 9);
  std::vector<double> rdt(nz), rdet(nz);
  std::vector<int> rzone(nz);
  BlastPaBasis pb = r.pb;
  pb.B = m.B.data(), pb.G = m.G.data(), pb.LB = m.LB.data(), pb.qw = m.qw.data();
  {
    std::vector<double> ws(BlastPaZoneWorkspace(&pb) + 16), xz(3 * nd), vz(3 * nd), x0z(3 * nd);
    for (size_t z = 0; z < nz; z++) {
      for (int c = 0; c < 3; c++)
        for (size_t a = 0; a < nd; a++) {
          const size_t l = (size_t)c * m.nl + m.edof[z * nd + a];
          xz[c * nd + a] = r.x[l], vz[c * nd + a] = r.v[l], x0z[c * nd + a] = m.x0[l];
        }
      double dt = HUGE_VAL, tdet = 0.0;
      int tz = -1;
      const BlastMaterial mat14 = BlastMaterialIdealGas(1.4);
      BlastPaZoneQData(&pb, (int)z, xz.data(), vz.data(), x0z.data(), &r.e[z * m.ne], &r.R0[z * nq],
                       &mat14, keep ? &S[z * nq * 9] : Sl.data(), &rE[z * 3 * nd],
                       keep ? NULL : &b[z * m.ne], tg ? &tgv[z * m.ne] : NULL, ws.data(), &dt, &tz,
                       &tdet);
      rdt[z] = dt, rdet[z] = tz < 0 ? 0.0 : tdet, rzone[z] = tz < 0 ? INT_MAX : tz;
    }
  }
  for (int variant = 0; variant < 3; variant++) {  // specialised, run-time sizes, thread per zone
    CK(cudaMemset(r.d.b, 0, nz * m.ne * sizeof(double)));
    CK(cudaMemset(r.d.tg, 0, nz * m.ne * sizeof(double)));
    PaQArgs a = QArgs(r);
    std::vector<double> ws;
    int nblk = m.nz;
    if (variant < 2) {
      QPick(p, variant == 1)<<<m.nz, variant == 1 ? 256 : PaQ3Threads(m.nq), r.qsmem>>>(a);
    } else {
      BlastPaZoneWorkspace(&pb);
      a.wsz = 3 * 3 * m.nd + m.ne + m.nq * 9 + BlastPaZoneWorkspace(&pb) + 16;
      const int nt = 128 * 64;
      CK(cudaMalloc(&a.ws, (size_t)nt * a.wsz * sizeof(double)));
      nblk = nt / kPaQThreads;
      k_pa_qdata<<<nblk, kPaQThreads>>>(a);
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (a.ws) cudaFree(a.ws);
    const char *vn[] = {"k_pa_qdata3", "k_pa_qdata3<0,0,0>", "k_pa_qdata"};
    char what[96];
    std::vector<double> g = Host(r.d.rE, nz * 3 * nd);
    snprintf(what, sizeof what, "%s: rows -F_z 1", vn[variant]);
    bad += Same(what, g.data(), rE.data(), g.size());
    if (!keep) {
      g = Host(r.d.b, nz * m.ne);
      snprintf(what, sizeof what, "%s: b = F_z^T v (+ tg)", vn[variant]);
      bad += Same(what, g.data(), b.data(), g.size());
    } else {
      g = Host(r.d.S, nz * nq * 9);
      snprintf(what, sizeof what, "%s: stress", vn[variant]);
      bad += Same(what, g.data(), S.data(), g.size());
    }
    if (tg) {
      g = Host(r.d.tg, nz * m.ne);
      snprintf(what, sizeof what, "%s: source", vn[variant]);
      bad += Same(what, g.data(), tgv.data(), g.size());
    }
    // block results reduced on the host as k_reduce_min does
    std::vector<double> bdt = Host(r.blk_dt, nblk), bdet = Host(r.blk_det, nblk);
    std::vector<int> bz = Host(r.blk_zone, nblk);
    double dmin = HUGE_VAL, ddet = 0.0, hmin = HUGE_VAL, hdet = 0.0;
    int zmin = INT_MAX, hz = INT_MAX;
    for (int i = 0; i < nblk; i++) {
      if (bdt[i] < dmin) dmin = bdt[i];
      if (bz[i] < zmin) zmin = bz[i], ddet = bdet[i];
    }
    for (size_t z = 0; z < nz; z++) {
      if (rdt[z] < hmin) hmin = rdt[z];
      if (rzone[z] < hz) hz = rzone[z], hdet = rdet[z];
    }
    const double got[3] = {dmin, (double)zmin, ddet}, ref[3] = {hmin, (double)hz, hdet};
    snprintf(what, sizeof what, "%s: (dt, tangled zone, det)", vn[variant]);
    bad += Same(what, got, ref, 3);
  }
  Free(r);
  return bad;
}

static void Time(int p, int n) {
  Run r;
  Setup(r, p, n, 0, 0);
  std::vector<int> rows(r.m.nl);
  for (int i = 0; i < r.m.nl; i++) rows[i] = i;
  int *drows = Dev(rows);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  float ms;
  const int reps = 10;
  MassLaunch(r, false, 3, 7u);
  cudaEventRecord(e0);
  for (int i = 0; i < reps; i++) MassLaunch(r, false, 3, 7u);
  cudaEventRecord(e1), cudaEventSynchronize(e1), cudaEventElapsedTime(&ms, e0, e1);
  const double tm = ms / reps;
  GatherLaunch(r, 3, 7u, drows);
  cudaEventRecord(e0);
  for (int i = 0; i < reps; i++) GatherLaunch(r, 3, 7u, drows);
  cudaEventRecord(e1), cudaEventSynchronize(e1), cudaEventElapsedTime(&ms, e0, e1);
  const double tgth = ms / reps;
  PaQArgs a = QArgs(r);
  QPick(p, false)<<<r.m.nz, PaQ3Threads(r.m.nq), r.qsmem>>>(a);
  cudaEventRecord(e0);
  for (int i = 0; i < 3; i++) QPick(p, false)<<<r.m.nz, PaQ3Threads(r.m.nq), r.qsmem>>>(a);
  cudaEventRecord(e1), cudaEventSynchronize(e1), cudaEventElapsedTime(&ms, e0, e1);
  CK(cudaGetLastError());
  const double tq = ms / 3;
  // the composed kernel (a thread per zone, BlastPaZoneQData) with the thread count the
  // backend gives it (memory.c BlastCudaPaScratch: at most 65536, 1 GiB of scratch)
  BlastPaBasis pb = r.pb;
  a.wsz = 3 * 3 * r.m.nd + r.m.ne + r.m.nq * 9 + BlastPaZoneWorkspace(&pb) + 16;
  long long nt = (long long)(1073741824.0 / (8.0 * a.wsz)) / 128 * 128;
  const long long need = ((long long)r.m.nz + 127) / 128 * 128;
  nt = nt > 65536 ? 65536 : nt, nt = nt > need ? need : nt, nt = nt < 128 ? 128 : nt;
  CK(cudaMalloc(&a.ws, (size_t)nt * a.wsz * sizeof(double)));
  k_pa_qdata<<<(int)(nt / kPaQThreads), kPaQThreads>>>(a);
  cudaEventRecord(e0);
  for (int i = 0; i < 3; i++) k_pa_qdata<<<(int)(nt / kPaQThreads), kPaQThreads>>>(a);
  cudaEventRecord(e1), cudaEventSynchronize(e1), cudaEventElapsedTime(&ms, e0, e1);
  CK(cudaGetLastError());
  cudaFree(a.ws);
  const double tz = ms / 3;
  const double nz = r.m.nz;
  printf(
      "time Q%d %d^3 = %d zones (zpb %d, mass smem %zu B, qdata smem %zu B): k_pa_mass(3 comp) "
      "%.3f ms "
      "(%.1f ns/zone), k_pa_mass_gather %.3f ms, mass action total %.3f ms; k_pa_qdata3 %.3f ms "
      "(%.1f ns/zone), the composed k_pa_qdata (%lld threads) %.3f ms: fused %.1fx\n",
      p, n, r.m.nz, r.zpb, r.msmem, r.qsmem, tm, 1e6 * tm / nz, tgth, tm + tgth, tq, 1e6 * tq / nz,
      nt, tz, tz / tq);
  cudaFree(drows);
  Free(r);
}

int main(int argc, char **argv) {
  int dev = 0;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  printf("device %s\n", prop.name);
  int bad = 0;
  bad += Check(1, 5, 1, 0);
  bad += Check(2, 6, 0, 0);
  bad += Check(2, 5, 1, 0);
  bad += Check(2, 4, 1, 1);
  bad += Check(3, 4, 0, 0);
  bad += Check(3, 3, 1, 1);
  bad += Check(4, 3, 0, 0);
  printf("partial-assembly device check: %d failures: %s\n", bad, bad ? "FAIL" : "PASS");
  fflush(stdout);
  if (argc > 1 && !strcmp(argv[1], "quick")) return bad != 0;
  Time(2, 64);
  Time(2, 128);
  Time(3, 64);
  Time(4, 64);
  Time(4, 100);
  return bad != 0;
}
