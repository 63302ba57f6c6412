// Host emulation of the partial-assembly kernels of the CUDA backend (gpu/kernels/pa_mass.cuh,
// gpu/kernels/pa_qdata.cuh): the kernel bodies compiled as host C++ with one thread per
// block, so that every block-strided loop covers all of its entries in one thread and every
// __syncthreads() holds trivially. Their outputs must equal the single-source reference
// functions of solver/pa_kernels.h bit for bit (BlastPaMassZone, BlastPaZoneQData): this
// checks the stage decomposition (which thread computes which entry from which inputs, in
// which order) on machines without a GPU; the GPU part of tests/backend checks the real
// device with the same bits. No contraction into FMA (-ffp-contract=off), as the device
// build (--fmad=false).
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

static dim3 emu_tid, emu_bid, emu_bdim, emu_gdim;
#define threadIdx emu_tid
#define blockIdx  emu_bid
#define blockDim  emu_bdim
#define gridDim   emu_gdim
static void __syncthreads() {}
static void __syncwarp() {}  // k_pa_mass3l is not emulated (its phases need all threads)
// one thread: a lane beyond the warp's threads gives the caller's own value
template <class T>
static T __shfl_down_sync(unsigned, T v, int) {
  return v;
}
static double __dmul_rn(double a, double b) {  // -ffp-contract=off: rounded once
  return a * b;
}
double sm[1 << 20];  // the dynamic shared memory of a block
#define BLAST_CUDA_CHECKS 1
#include "blast_cuda.h"
#define __launch_bounds__(...)
#define __global__
#define __device__
#define __shared__
#define __forceinline__ inline
#include "context.h"
#include "kernels/pa_mass.cuh"
#include "kernels/pa_qdata.cuh"

static double R() {
  return (double)rand() / RAND_MAX * 2 - 1;
}

template <int DIM, int DT, int QT>
static int TestMass(int D, int Q, int nzext, int ncomp, unsigned mask, int zpb) {
  DevData d;
  memset(&d, 0, sizeof d);
  int nd = 1, nq = 1;
  for (int g = 0; g < DIM; g++) nd *= D, nq *= Q;
  d.dim = DIM, d.D = D, d.Q = Q, d.nd = nd, d.nqp = nq, d.nz_ext = nzext;
  const int next = nzext * nd / 2 + 5;
  std::vector<double> B(Q * D), qm((size_t)nzext * nq), x(3 * (size_t)next),
      E(3 * (size_t)nzext * nd, -1.0), Er(E);
  std::vector<int> edof((size_t)nzext * nd), zones(nzext);
  for (auto &v : B) v = R();
  for (auto &v : qm) v = R();
  for (auto &v : x) v = R() * 1e3;
  for (auto &v : edof) v = rand() % next;
  for (int k = 0; k < nzext; k++) zones[k] = (k * 7) % nzext;  // a permutation when gcd = 1
  d.B1 = B.data(), d.qmass = qm.data(), d.edof = edof.data(), d.zones = zones.data();
  PaMassArgs a;
  a.k0 = 1, a.n = nzext - 1, a.ncomp = ncomp, a.zpb = zpb, a.mask = mask;
  a.st = next, a.es = (size_t)nzext * nd, a.x = x.data(), a.E = E.data();
  emu_bdim = dim3(1), emu_gdim = dim3((a.n + zpb - 1) / zpb), emu_tid = dim3(0);
  for (unsigned b = 0; b < emu_gdim.x; b++) emu_bid = dim3(b), k_pa_mass<DIM, DT, QT>(d, a);
  std::vector<double> xz(3 * nd), ws(nq + BLAST_PA_CONTRACT_WS(16));
  for (int k = 1; k < nzext; k++) {
    const int z = zones[k];
    for (int c = 0; c < ncomp; c++)
      for (int j = 0; j < nd; j++) xz[c * nd + j] = x[c * next + edof[z * nd + j]];
    BlastPaMassZone(DIM, D, Q, B.data(), &qm[(size_t)z * nq], ncomp, mask, xz.data(), nd,
                    &Er[(size_t)z * nd], a.es, ws.data());
  }
  const int bad = memcmp(E.data(), Er.data(), E.size() * sizeof(double)) != 0;
  printf("%s dim %d D %d Q %d (T %d %d) ncomp %d mask %u zpb %d\n", bad ? "FAIL" : "ok  ", DIM, D,
         Q, DT, QT, ncomp, mask, zpb);
  return bad;
}

template <int DT, int QT, int LT>
static int TestQData(int D, int Q, int L, int nz, int tg, int keep, double pert) {
  DevData d;
  memset(&d, 0, sizeof d);
  const int nd = D * D * D, nq = Q * Q * Q, ne = L * L * L, rows = 3 * nd;
  const int nl = nz * nd / 2 + 3;
  d.dim = 3, d.nz = nz, d.nqp = nq, d.nd = nd, d.ne = ne, d.nl = nl, d.rows = rows;
  d.D = D, d.Q = Q, d.L = L, d.tg_source = tg, d.keep_stress = keep, d.pa = 1;
  d.qpar.dim = 3, d.qpar.order_k = D - 1, d.qpar.visc = 1, d.qpar.vort = tg, d.qpar.h0 = 0.1,
  d.qpar.cfl = 0.5;
  std::vector<double> B(Q * D), G(Q * D), LB(Q * L), qw(nq), x(3 * nl), v(3 * nl), x0(3 * nl),
      e(nz * ne), R0(nz * nq);
  std::vector<int> zmat(nz, 0);
  const BlastMaterial mats[1] = {BlastMaterialIdealGas(1.4)};
  std::vector<int> edof(nz * nd);
  std::vector<double> nodes(D), pts(Q);
  for (int a = 0; a < D; a++) nodes[a] = (double)a / (D - 1);
  for (int q = 0; q < Q; q++) pts[q] = (q + 0.5) / Q;
  for (int q = 0; q < Q; q++)
    for (int a = 0; a < D; a++) {
      double val = 1.0, der = 0.0;
      for (int j = 0; j < D; j++) {
        if (j == a) continue;
        double prod = 1.0 / (nodes[a] - nodes[j]);
        for (int k = 0; k < D; k++)
          if (k != a && k != j) prod *= (pts[q] - nodes[k]) / (nodes[a] - nodes[k]);
        der += prod;
        val *= (pts[q] - nodes[j]) / (nodes[a] - nodes[j]);
      }
      B[q * D + a] = val, G[q * D + a] = der;
    }
  for (auto &t : LB) t = R();
  for (auto &t : qw) t = fabs(R()) + 0.1;
  for (auto &t : x0) t = R();
  std::vector<int> own(nz * nd);
  for (size_t i = 0; i < x.size(); i++) x[i] = x0[i] + pert * R();
  for (auto &t : v) t = R();
  for (auto &t : e) t = fabs(R()) + 0.5;
  for (auto &t : R0) t = fabs(R()) + 0.2;
  for (int z = 0; z < nz; z++)
    for (int a = 0; a < nd; a++) {
      const int l = (z * nd + a) % nl;  // distinct dofs within a zone (nl > nd)
      edof[z * nd + a] = l;
      const int i[3] = {a % D, (a / D) % D, a / (D * D)};
      for (int c = 0; c < 3; c++) x0[c * nl + l] = nodes[i[c]] + 0.3 * z;
    }
  for (size_t i = 0; i < x.size(); i++) x[i] = x0[i] + pert * R();
  std::vector<double> rE(rows * nz, 7.0), b(nz * ne, 7.0), tgv(nz * ne, 7.0), S(nz * nq * 9, 7.0);
  std::vector<double> rE2 = rE, b2 = b, tg2 = tgv, S2 = S;
  d.B1 = B.data(), d.G1 = G.data(), d.L1 = LB.data(), d.qw = qw.data(), d.x0 = x0.data();
  d.R0 = R0.data(), d.zone_mat = zmat.data(), d.edof = edof.data();
  d.mats = (BlastMaterial *)mats;
  d.rE = rE.data(), d.b = b.data(), d.tg = tgv.data(), d.S = S.data();
  PaQArgs p;
  memset(&p, 0, sizeof p);
  std::vector<double> bdt(nz), bdet(nz);
  std::vector<int> bz(nz);
  p.d = d, p.n = nz, p.x = x.data(), p.v = v.data(), p.e = e.data();
  p.blk_dt = bdt.data(), p.blk_det = bdet.data(), p.blk_zone = bz.data();
  emu_bdim = dim3(1), emu_gdim = dim3(nz), emu_tid = dim3(0);
  for (int z = 0; z < nz; z++)
    emu_bid = dim3(z), k_pa_qdata3<DT, QT, LT, 0, 1>(p);  // shared-memory gradients
  // reference
  BlastPaBasis pb;
  memset(&pb, 0, sizeof pb);
  pb.dim = 3, pb.D = D, pb.Q = Q, pb.L = L, pb.nd = nd, pb.nq = nq, pb.ne = ne;
  pb.B = B.data(), pb.G = G.data(), pb.LB = LB.data(), pb.qw = qw.data(), pb.qpar = d.qpar,
  pb.tg_source = tg;
  std::vector<double> ws(BlastPaZoneWorkspace(&pb) + 10), xz(rows), vz(rows), x0z(rows), Sl(nq * 9);
  int bad = 0;
  for (int z = 0; z < nz; z++) {
    for (int c = 0; c < 3; c++)
      for (int a = 0; a < nd; a++) {
        const int l = edof[z * nd + a];
        xz[c * nd + a] = x[c * nl + l], vz[c * nd + a] = v[c * nl + l],
                    x0z[c * nd + a] = x0[c * nl + l];
      }
    double dt = HUGE_VAL, tdet = 0.0;
    int tz = -1;
    BlastPaZoneQData(&pb, z, xz.data(), vz.data(), x0z.data(), &e[z * ne], &R0[z * nq], &mats[zmat[z]],
                     keep ? &S2[(size_t)z * nq * 9] : Sl.data(), &rE2[z * rows],
                     keep ? NULL : &b2[z * ne], tg ? &tg2[z * ne] : NULL, ws.data(), &dt, &tz,
                     &tdet);
    const int tzz = tz < 0 ? INT_MAX : tz;
    if (memcmp(&dt, &bdt[z], 8) || tzz != bz[z] || (tz >= 0 && memcmp(&tdet, &bdet[z], 8))) {
      if (bad < 3)
        printf("  zone %d: dt %.17g / %.17g, tangled %d / %d det %g / %g\n", z, dt, bdt[z], tzz,
               bz[z], tdet, bdet[z]);
      bad++;
    }
  }
  int tangled = 0;
  for (int z = 0; z < nz; z++) tangled += bz[z] != INT_MAX;
  bad += memcmp(rE.data(), rE2.data(), rE.size() * 8) != 0;
  bad += 10 * (memcmp(b.data(), b2.data(), b.size() * 8) != 0);
  bad += 100 * (memcmp(tgv.data(), tg2.data(), tgv.size() * 8) != 0);
  bad += 1000 * (memcmp(S.data(), S2.data(), S.size() * 8) != 0);
  printf("%s D %d Q %d L %d (T %d %d %d) tg %d keep %d: %d of %d zones tangled, code %d\n",
         bad ? "FAIL" : "ok  ", D, Q, L, DT, QT, LT, tg, keep, tangled, nz, bad);
  return bad != 0;
}

int main() {
  int bad = 0;

  bad += TestMass<3, 3, 4>(3, 4, 37, 3, 7u, 8);
  bad += TestMass<3, 3, 4>(3, 4, 37, 3, 5u, 3);
  bad += TestMass<3, 2, 2>(2, 2, 20, 2, 3u, 5);
  bad += TestMass<3, 4, 6>(4, 6, 11, 3, 7u, 2);
  bad += TestMass<3, 5, 8>(5, 8, 5, 3, 6u, 1);
  bad += TestMass<3, 0, 0>(4, 5, 9, 3, 7u, 2);
  bad += TestMass<3, 0, 0>(6, 7, 4, 1, 1u, 1);
  bad += TestMass<2, 3, 4>(3, 4, 40, 2, 3u, 7);
  bad += TestMass<2, 0, 0>(5, 7, 23, 3, 7u, 4);
  bad += TestMass<1, 0, 0>(4, 6, 23, 3, 5u, 4);

  bad += TestQData<3, 4, 2>(3, 4, 2, 9, 0, 0, 0.01);
  bad += TestQData<3, 4, 2>(3, 4, 2, 9, 1, 0, 0.01);
  bad += TestQData<3, 4, 2>(3, 4, 2, 9, 1, 1, 0.01);
  bad += TestQData<3, 4, 2>(3, 4, 2, 9, 0, 1, 0.5);
  bad += TestQData<2, 2, 1>(2, 2, 1, 9, 1, 0, 0.01);
  bad += TestQData<4, 6, 3>(4, 6, 3, 4, 1, 0, 0.01);
  bad += TestQData<5, 8, 4>(5, 8, 4, 2, 0, 0, 0.01);
  bad += TestQData<0, 0, 0>(3, 5, 3, 4, 1, 1, 0.01);
  bad += TestQData<0, 0, 0>(4, 4, 2, 4, 0, 0, 0.01);
  printf("partial-assembly kernel emulation: %d failures: %s\n", bad, bad ? "FAIL" : "PASS");
  return bad != 0;
}
