// Partial assembly: the quadrature-data update of a zone (solver/pa_kernels.h
// BlastPaZoneQData: J, Gv, J0, the stress, dt estimate, rows -F_z 1 and b = F_z^T v) and,
// with the stress kept, b from the stored stress (BlastPaZoneForceT).
// Kernel bodies only: launched from gpu/ops_pa.cu; a kernel is defined in exactly one
// translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_PA_QDATA_CUH
#define BLAST_GPU_KERNELS_PA_QDATA_CUH

#include <limits.h>
#include <math.h>

#include "context.h"
#include "pa_kernels.h"

enum { kPaQThreads = 128 };

typedef struct {
  DevData d;
  BlastPaBasis pb;  // device pointers
  int n;            // zones [0, n)
  const double *x, *v, *e;
  double *ws;  // per-thread scratch of wsz doubles
  int wsz;
  double *blk_dt, *blk_det;
  int *blk_zone;
} PaQArgs;

// E-vector of zone z of the L-vector u (component-major, as GatherZone of the CPU backend).
__device__ __forceinline__ void PaGatherZone(const DevData &d, int z, const double *u, double *uz) {
  for (int c = 0; c < d.dim; c++)
    for (int a = 0; a < d.nd; a++)
      uz[c * d.nd + a] = u[(size_t)c * d.nl + d.edof[(size_t)z * d.nd + a]];
}

// A thread per zone (zones strided over the grid, each thread ascending, so that its first
// tangled zone is its lowest), then the block minimum of the dt estimate and the lowest
// tangled zone with its det, as k_qdata_force.
__global__ void __launch_bounds__(kPaQThreads) k_pa_qdata(PaQArgs p) {
  __shared__ double rd[kPaQThreads], rdet[kPaQThreads];
  __shared__ int rz[kPaQThreads];
  const DevData &d = p.d;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
  const int rows = d.rows, ne = d.ne, nqp = d.nqp, d2 = d.dim * d.dim;
  double *xz = p.ws + (size_t)tid * p.wsz, *vz = xz + rows, *x0z = vz + rows, *ez = x0z + rows;
  double *Sl = ez + ne, *kws = Sl + (size_t)nqp * d2;
  double dtmin = HUGE_VAL, tdet = 0.0;
  int tz = -1;
  for (int z = tid; z < p.n; z += nt) {
    PaGatherZone(d, z, p.x, xz);
    PaGatherZone(d, z, p.v, vz);
    PaGatherZone(d, z, d.x0, x0z);
    for (int i = 0; i < ne; i++) ez[i] = p.e[(size_t)z * ne + i];
    double *Sz = d.keep_stress ? &d.S[(size_t)z * nqp * d2] : Sl;
    BlastPaZoneQData(&p.pb, z, xz, vz, x0z, ez, &d.R0[(size_t)z * nqp], d.gamma[z], Sz,
                     &d.rE[(size_t)z * rows], d.keep_stress ? NULL : &d.b[(size_t)z * ne],
                     d.tg_source ? &d.tg[(size_t)z * ne] : NULL, kws, &dtmin, &tz, &tdet);
  }
  rd[threadIdx.x] = dtmin, rdet[threadIdx.x] = tdet, rz[threadIdx.x] = tz < 0 ? INT_MAX : tz;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      if (rd[threadIdx.x + s] < rd[threadIdx.x]) rd[threadIdx.x] = rd[threadIdx.x + s];
      if (rz[threadIdx.x + s] < rz[threadIdx.x])  // a zone is on one thread: no ties
        rz[threadIdx.x] = rz[threadIdx.x + s], rdet[threadIdx.x] = rdet[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    p.blk_dt[blockIdx.x] = rd[0], p.blk_zone[blockIdx.x] = rz[0], p.blk_det[blockIdx.x] = rdet[0];
}

// b_z = F_z^T v_z (+ source) from the kept stress, a thread per zone.
__global__ void __launch_bounds__(kPaQThreads) k_pa_force_t(PaQArgs p) {
  const DevData &d = p.d;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
  const int ne = d.ne, nqp = d.nqp, d2 = d.dim * d.dim;
  double *vz = p.ws + (size_t)tid * p.wsz, *kws = vz + d.rows;
  for (int z = tid; z < p.n; z += nt) {
    PaGatherZone(d, z, p.v, vz);
    BlastPaZoneForceT(&p.pb, &d.S[(size_t)z * nqp * d2], vz,
                      d.tg_source ? &d.tg[(size_t)z * ne] : NULL, &d.b[(size_t)z * ne], kws);
  }
}

// ---------------------------------------------------------------------------------------
// 3D: a block per zone, the stages of BlastPaZoneQData in shared memory with a thread per
// output entry (contractions) or per point (the stress).

// nb independent contractions of a stage (batch b reads in + b si, writes out + b so):
// out[(o M + m) Ni + i] = sum_k T1[m tm + k tk] in1[(o K + k) Ni + i], k ascending from 0.0,
// or with a second table and input each term is (T1 in1 + T2 in2), the expression shape
// of BlastPaGradT. Every thread of the block takes entries in steps of blockDim.x.
template <int KT>
__device__ __forceinline__ void PaC(int nb, int O, int M, int Kr, int Ni, int tm, int tk,
                                    const double *T1, const double *in1, const double *T2,
                                    const double *in2, int si, double *out, int so,
                                    double sign = 1.0) {
  const int K = KT ? KT : Kr, per = O * M * Ni;
  for (int idx = threadIdx.x; idx < nb * per; idx += blockDim.x) {
    const int b = idx / per, r = idx - b * per;
    const int i = r % Ni, om = r / Ni, m = om % M, o = om / M;
    const int base = b * si + o * K * Ni + i;
    const double *t1 = T1 + m * tm;
    double s = 0.0;
    if (!T2) {
#pragma unroll
      for (int k = 0; k < K; k++) s += t1[k * tk] * in1[base + k * Ni];
    } else {
      const double *t2 = T2 + m * tm;
#pragma unroll
      for (int k = 0; k < K; k++)
        s += t1[k * tk] * in1[base + k * Ni] + t2[k * tk] * in2[base + k * Ni];
    }
    out[b * so + r] = sign == 1.0 ? s : -s;
  }
}

// Doubles of shared memory of k_pa_qdata3 (one zone).
__host__ __device__ static inline int PaQ3Doubles(int D, int Q, int L) {
  const int M = D > L ? D : L, nq = Q * Q * Q, nd = D * D * D, ne = L * L * L;
  return 9 * nd + ne + 2 * Q * D + Q * L + 27 * nq + 3 * nq + 3 * nq + 9 * M * Q * Q +
         6 * M * M * Q;
}

template <int D_, int Q_, int L_>
__global__ void __launch_bounds__(256) k_pa_qdata3(PaQArgs p) {
  extern __shared__ double sm[];
  __shared__ double rd[256], rdet[256];
  __shared__ int rz[256];
  const DevData &d = p.d;
  const int D = D_ ? D_ : d.D, Q = Q_ ? Q_ : d.Q, L = L_ ? L_ : d.L;
  const int M = D > L ? D : L, nq = Q * Q * Q, nd = D * D * D, ne = L * L * L, rows = 3 * nd;
  const int z = blockIdx.x;
  double *u = sm, *ez = u + 9 * nd, *Bs = ez + ne, *Gs = Bs + Q * D, *Ls = Gs + Q * D;
  double *grad = Ls + Q * L, *X = grad + 27 * nq, *eq = X + 3 * nq, *tq = eq + nq, *src = tq + nq;
  double *s1 = src + nq, *s2 = s1 + 9 * M * Q * Q;  // [3][3][M Q Q], [2][3][M M Q]
  const bool tg = d.tg_source != 0, keep = d.keep_stress != 0;
  for (int i = threadIdx.x; i < Q * D; i += blockDim.x) Bs[i] = d.B1[i], Gs[i] = d.G1[i];
  for (int i = threadIdx.x; i < Q * L; i += blockDim.x) Ls[i] = d.L1[i];
  for (int i = threadIdx.x; i < 9 * nd; i += blockDim.x) {
    const int f = i / rows, r = i - f * rows, c = r / nd, a = r - c * nd;
    const double *src_f = f == 0 ? p.x : f == 1 ? p.v : d.x0;
    u[i] = src_f[(size_t)c * d.nl + d.edof[(size_t)z * nd + a]];
  }
  for (int i = threadIdx.x; i < ne; i += blockDim.x) ez[i] = p.e[(size_t)z * ne + i];
  __syncthreads();
  // 1. gradients of x, v, x0 (fields f), components c: grad[f][c*3 + g][q]
  const int sA = M * M * Q, sB = M * Q * Q;
  double *bx = s2, *gx = s2 + 3 * sA, *bb = s1, *gb = s1 + 3 * sB, *bg = s1 + 6 * sB;
  for (int f = 0; f < 3; f++) {
    const double *uf = u + f * rows;
    double *gf = grad + f * 9 * nq;
    PaC<D_>(3, D * D, Q, D, 1, D, 1, Bs, uf, NULL, NULL, nd, bx, sA);
    PaC<D_>(3, D * D, Q, D, 1, D, 1, Gs, uf, NULL, NULL, nd, gx, sA);
    __syncthreads();
    PaC<D_>(3, D, Q, D, Q, D, 1, Bs, bx, NULL, NULL, sA, bb, sB);
    PaC<D_>(3, D, Q, D, Q, D, 1, Bs, gx, NULL, NULL, sA, gb, sB);
    PaC<D_>(3, D, Q, D, Q, D, 1, Gs, bx, NULL, NULL, sA, bg, sB);
    __syncthreads();
    PaC<D_>(3, 1, Q, D, Q * Q, D, 1, Bs, gb, NULL, NULL, sB, gf, 3 * nq);
    PaC<D_>(3, 1, Q, D, Q * Q, D, 1, Bs, bg, NULL, NULL, sB, gf + nq, 3 * nq);
    PaC<D_>(3, 1, Q, D, Q * Q, D, 1, Gs, bb, NULL, NULL, sB, gf + 2 * nq, 3 * nq);
    if (f == 0 && tg) PaC<D_>(3, 1, Q, D, Q * Q, D, 1, Bs, bb, NULL, NULL, sB, X, nq);
    __syncthreads();
  }
  // 2. e at the points (L table)
  PaC<L_>(1, L * L, Q, L, 1, L, 1, Ls, ez, NULL, NULL, 0, s2, 0);
  __syncthreads();
  PaC<L_>(1, L, Q, L, Q, L, 1, Ls, s2, NULL, NULL, 0, s1, 0);
  __syncthreads();
  PaC<L_>(1, 1, Q, L, Q * Q, L, 1, Ls, s1, NULL, NULL, 0, eq, 0);
  __syncthreads();
  // 3. the stress per point (overwrites the x0 gradient at its own point: S[i][q])
  double dtmin = HUGE_VAL, tdet = 0.0;
  int tz = INT_MAX;
  double *S = grad + 18 * nq;
  for (int q = threadIdx.x; q < nq; q += blockDim.x) {
    double J[9], Gv[9], J0[9], Sq[9], dtq;
#pragma unroll
    for (int i = 0; i < 9; i++) J[i] = 0.0, Gv[i] = 0.0, J0[i] = 0.0;
    for (int c = 0; c < 3; c++)
      for (int g = 0; g < 3; g++) {
        const int i = (c * 3 + g) * nq + q;
        J[c + 3 * g] = grad[i], Gv[c + 3 * g] = grad[9 * nq + i], J0[c + 3 * g] = grad[18 * nq + i];
      }
    const size_t zq = (size_t)z * nq + q;
    const double det =
        BlastPaPointStress(3, &d.qpar, J, Gv, J0, d.R0[zq], d.qw[q], eq[q], d.gamma[z], Sq, &dtq);
    if (!(det > 0.0)) {
      dtmin = 0.0;
      if (tz == INT_MAX || BlastDetWorse(det, tdet)) tz = z, tdet = det;
    } else if (dtq < dtmin) {
      dtmin = dtq;
    }
    if (tg) {
      double Xq[3];
      for (int c = 0; c < 3; c++) Xq[c] = X[c * nq + q];
      src[q] = d.qw[q] * det * BlastTaylorGreenQ(Xq);
    }
    if (!keep) tq[q] = BlastPaPointWork(3, Sq, Gv);
#pragma unroll
    for (int i = 0; i < 9; i++) S[i * nq + q] = Sq[i];
    if (keep)
      for (int i = 0; i < 9; i++) d.S[zq * 9 + i] = Sq[i];
  }
  __syncthreads();
  // 4. rE = -F_z 1: GradT of d_g = S[c + 3 g] per component c (z, then y, then x)
  double *t0 = s1, *t1 = s1 + 3 * sB, *t2 = s1 + 6 * sB, *p0 = s2, *p12 = s2 + 3 * sA;
  PaC<Q_>(3, 1, D, Q, Q * Q, 1, D, Bs, S, NULL, NULL, nq, t0, sB);
  PaC<Q_>(3, 1, D, Q, Q * Q, 1, D, Bs, S + 3 * nq, NULL, NULL, nq, t1, sB);
  PaC<Q_>(3, 1, D, Q, Q * Q, 1, D, Gs, S + 6 * nq, NULL, NULL, nq, t2, sB);
  __syncthreads();
  PaC<Q_>(3, D, D, Q, Q, 1, D, Bs, t0, NULL, NULL, sB, p0, sA);
  PaC<Q_>(3, D, D, Q, Q, 1, D, Gs, t1, Bs, t2, sB, p12, sA);
  __syncthreads();
  PaC<Q_>(3, D * D, D, Q, 1, 1, D, Gs, p0, Bs, p12, sA, &d.rE[(size_t)z * rows], nd, -1.0);
  // 5. b = LB^T t (+ tg = LB^T src): batch 0 the work (unless kept), batch 1 the source
  __syncthreads();
  if (!keep || tg) {
    const int b0 = keep ? 1 : 0, nbt = tg ? 2 - b0 : 1;
    const double *w0 = keep ? src : tq;  // tq and src are adjacent: batch stride nq
    double *v1 = s1, *v2 = s2;
    PaC<Q_>(nbt, 1, L, Q, Q * Q, 1, L, Ls, w0, NULL, NULL, nq, v1, sB);
    __syncthreads();
    PaC<Q_>(nbt, L, L, Q, Q, 1, L, Ls, v1, NULL, NULL, sB, v2, sA);
    __syncthreads();
    PaC<Q_>(nbt, L * L, L, Q, 1, 1, L, Ls, v2, NULL, NULL, sA, s1 + 3 * sB, ne);
    __syncthreads();
    const double *ub = s1 + 3 * sB, *utg = ub + (keep ? 0 : ne);
    for (int j = threadIdx.x; j < ne; j += blockDim.x) {
      if (tg) d.tg[(size_t)z * ne + j] = utg[j];
      if (!keep) d.b[(size_t)z * ne + j] = tg ? ub[j] + utg[j] : ub[j];
    }
  }
  // the block's dt minimum and its tangled report (one zone: the worst det)
  rd[threadIdx.x] = dtmin, rdet[threadIdx.x] = tdet, rz[threadIdx.x] = tz;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      if (rd[threadIdx.x + s] < rd[threadIdx.x]) rd[threadIdx.x] = rd[threadIdx.x + s];
      const int zs = rz[threadIdx.x + s];
      if (zs < rz[threadIdx.x] || (zs == rz[threadIdx.x] && zs != INT_MAX &&
                                   BlastDetWorse(rdet[threadIdx.x + s], rdet[threadIdx.x])))
        rz[threadIdx.x] = zs, rdet[threadIdx.x] = rdet[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    p.blk_dt[blockIdx.x] = rd[0], p.blk_zone[blockIdx.x] = rz[0], p.blk_det[blockIdx.x] = rdet[0];
}

// First level of the reduction of k_pa_qdata3's per-zone block results (a million and more
// of them, too many for k_reduce_min's single block): block b of 256 threads reduces
// entries [b kPaRedSpan, (b + 1) kPaRedSpan) into out entry b, as k_reduce_min (a zone is
// in one entry: no ties).
enum { kPaRedSpan = 2048 };
__global__ void __launch_bounds__(256)
    k_pa_reduce_blocks(int n, const double *dt, const int *zone, const double *det, double *odt,
                       int *ozone, double *odet) {
  __shared__ double sd[256], sdet[256];
  __shared__ int sz[256];
  double m = HUGE_VAL, dd = 0.0;
  int zz = INT_MAX;
  const int i0 = blockIdx.x * kPaRedSpan, i1 = i0 + kPaRedSpan < n ? i0 + kPaRedSpan : n;
  for (int i = i0 + threadIdx.x; i < i1; i += blockDim.x) {
    if (dt[i] < m) m = dt[i];
    if (zone[i] < zz) zz = zone[i], dd = det[i];
  }
  sd[threadIdx.x] = m, sz[threadIdx.x] = zz, sdet[threadIdx.x] = dd;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      if (sd[threadIdx.x + s] < sd[threadIdx.x]) sd[threadIdx.x] = sd[threadIdx.x + s];
      if (sz[threadIdx.x + s] < sz[threadIdx.x])
        sz[threadIdx.x] = sz[threadIdx.x + s], sdet[threadIdx.x] = sdet[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    odt[blockIdx.x] = sd[0], ozone[blockIdx.x] = sz[0], odet[blockIdx.x] = sdet[0];
}

#endif  // BLAST_GPU_KERNELS_PA_QDATA_CUH
