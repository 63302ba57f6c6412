// Partial assembly: the quadrature-data update of a zone (hydro/pa_kernels.h
// BlastPaZoneQData: J, Gv, J0, the stress, dt estimate, rows -F_z 1 and b = F_z^T v) and,
// with the stress kept, b from the stored stress (BlastPaZoneForceT).
// Kernel bodies only: launched from backends/cuda/mode_partial.cu; a kernel is defined in
// exactly one translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_PA_QDATA_CUH
#define BLAST_GPU_KERNELS_PA_QDATA_CUH

#include <limits.h>
#include <math.h>

#include "context.h"
#include "dt_reduce.cuh"
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
    BlastPaZoneQData(&p.pb, z, xz, vz, x0z, ez, &d.R0[(size_t)z * nqp], &d.mats[d.zone_mat[z]], Sz,
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
// output entry (contractions) or per point (the stress). It stays separate from the
// composed kernel k_pa_qdata (a thread per zone running BlastPaZoneQData itself) for
// speed: on an H100 (tests/gpu/pa_device_check.cu, which also checks both against
// hydro/pa_kernels.h bit for bit; the conformance test checks the backend's against the
// CPU's), Q2 64^3 7.53 against 91.4 ms (12.1x), Q2 128^3 60.3 against 702 ms, Q3 64^3 29.7
// against 337 ms (11.3x), Q4 64^3 59.3 against 1,734 ms (29.2x).

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

// Doubles of shared memory of k_pa_qdata3 (one zone); reg: the gradients at the points
// are kept in registers (the specialised kernels), only the stress in shared memory.
__host__ __device__ static inline int PaQ3Doubles(int D, int Q, int L, int reg) {
  const int M = D > L ? D : L, nq = Q * Q * Q, nd = D * D * D, ne = L * L * L;
  return 9 * nd + ne + 2 * Q * D + Q * L + (reg ? 9 : 30) * nq + 3 * nq + 9 * M * Q * Q +
         6 * M * M * Q;
}

// Threads of k_pa_qdata3: a power of two from 64 to 512, one per point where possible.
__host__ __device__ constexpr int PaQ3Threads(int nq) {
  return nq <= 64 ? 64 : nq <= 128 ? 128 : nq <= 256 ? 256 : 512;
}

// One warp's (dt minimum, lowest tangled zone with its worst det) into lane 0.
__device__ __forceinline__ void PaQ3WarpReduce(double &m, double &dd, int &zz) {
  for (int off = 16; off > 0; off >>= 1) {
    const double om = __shfl_down_sync(0xffffffffu, m, off);
    const double od = __shfl_down_sync(0xffffffffu, dd, off);
    const int oz = __shfl_down_sync(0xffffffffu, zz, off);
    if (om < m) m = om;
    if (oz < zz || (oz == zz && oz != INT_MAX && BlastDetWorse(od, dd))) zz = oz, dd = od;
  }
}

// The block's dt minimum and tangled report (one zone: the worst det) into thread 0's
// values: warp shuffles, then the first warp over the warps' results. The minimum does
// not depend on the order, and the det comparison is the one of the serial path.
__device__ __forceinline__ void PaQ3BlockReduce(double *dtmin, double *tdet, int *tz) {
  __shared__ double wd[16], wdet[16];
  __shared__ int wz[16];
  double m = *dtmin, dd = *tdet;
  int zz = *tz;
  PaQ3WarpReduce(m, dd, zz);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  if (lane == 0) wd[warp] = m, wdet[warp] = dd, wz[warp] = zz;
  __syncthreads();
  if (warp == 0) {
    m = lane < nw ? wd[lane] : HUGE_VAL, dd = lane < nw ? wdet[lane] : 0.0;
    zz = lane < nw ? wz[lane] : INT_MAX;
    PaQ3WarpReduce(m, dd, zz);
  }
  *dtmin = m, *tdet = dd, *tz = zz;
}

// The last stage of the gradient of one field at point q = m Q^2 + i, component c:
// g[c + 3 g] = sum_k T_g[m D + k] in_g[c sB + k Q^2 + i] (k ascending from 0.0) with
// (T_g, in_g) = (B, gb), (B, bg), (G, bb): the entries PaC writes in the shared path.
template <int D, int Q>
__device__ __forceinline__ void PaQ3PointGrad(int q, const double *Bs, const double *Gs,
                                              const double *bb, const double *gb, const double *bg,
                                              int sB, double *g, double *Xq) {
  const int m = q / (Q * Q), i = q - m * (Q * Q);
#pragma unroll
  for (int c = 0; c < 3; c++) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, sx = 0.0;
#pragma unroll
    for (int k = 0; k < D; k++) {
      const int at = c * sB + k * (Q * Q) + i;
      s0 += Bs[m * D + k] * gb[at];
      s1 += Bs[m * D + k] * bg[at];
      s2 += Gs[m * D + k] * bb[at];
      if (Xq) sx += Bs[m * D + k] * bb[at];
    }
    g[c * 3 + 0] = s0, g[c * 3 + 1] = s1, g[c * 3 + 2] = s2;
    if (Xq) Xq[c] = sx;
  }
}

// 3D: a block per zone, the stages of BlastPaZoneQData in shared memory with a thread per
// output entry (contractions) or per point (the stress). It stays separate from the
// composed kernel k_pa_qdata (a thread per zone running BlastPaZoneQData itself) for
// speed: on an H100 (tests/gpu/pa_device_check.cu, which also checks both against
// hydro/pa_kernels.h bit for bit; the conformance test checks the backend's against the
// CPU's), Q2 64^3 7.53 against 91.4 ms (12.1x), Q2 128^3 60.3 against 702 ms, Q3 64^3 29.7
// against 337 ms (11.3x), Q4 64^3 59.3 against 1,734 ms (29.2x). The specialised kernels (D_ > 0,
// T_ threads, at least one per point) keep each point's gradients in registers from the
// last contraction to the stress; the generic one stores them in shared memory. MINB_:
// blocks per SM the register allocation is made for (occupancy against spills).
template <int D_, int Q_, int L_, int T_, int MINB_>
__global__ void __launch_bounds__(T_ ? T_ : 256, MINB_) k_pa_qdata3(PaQArgs p) {
  constexpr bool REG = D_ > 0 && T_ >= Q_ * Q_ * Q_;
  extern __shared__ double sm[];
  const DevData &d = p.d;
  const int D = D_ ? D_ : d.D, Q = Q_ ? Q_ : d.Q, L = L_ ? L_ : d.L;
  const int M = D > L ? D : L, nq = Q * Q * Q, nd = D * D * D, ne = L * L * L, rows = 3 * nd;
  const int z = blockIdx.x;
  double *u = sm, *ez = u + 9 * nd, *Bs = ez + ne, *Gs = Bs + Q * D, *Ls = Gs + Q * D;
  // REG: S [9 nq], eq, tq, src; else grad [27 nq] (S overwrites the x0 part), X [3 nq], ...
  double *grad = Ls + Q * L, *X = grad + 27 * nq, *eq = REG ? grad + 9 * nq : X + 3 * nq;
  double *tq = eq + nq, *src = tq + nq;
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
  // 1. gradients of x, v, x0 (fields f), components c: grad[f][c*3 + g][q], or this
  // thread's point's gr[f][c + 3 g] (REG)
  const int sA = M * M * Q, sB = M * Q * Q;
  double *bx = s2, *gx = s2 + 3 * sA, *bb = s1, *gb = s1 + 3 * sB, *bg = s1 + 6 * sB;
  double gr[3][9], Xr[3];
  const int qme = threadIdx.x;  // REG: the point of this thread
#pragma unroll
  for (int f = 0; f < 3; f++) {  // unrolled: gr[f] in registers
    const double *uf = u + f * rows;
    double *gf = grad + f * 9 * nq;
    PaC<D_>(3, D * D, Q, D, 1, D, 1, Bs, uf, NULL, NULL, nd, bx, sA);
    PaC<D_>(3, D * D, Q, D, 1, D, 1, Gs, uf, NULL, NULL, nd, gx, sA);
    __syncthreads();
    PaC<D_>(3, D, Q, D, Q, D, 1, Bs, bx, NULL, NULL, sA, bb, sB);
    PaC<D_>(3, D, Q, D, Q, D, 1, Bs, gx, NULL, NULL, sA, gb, sB);
    PaC<D_>(3, D, Q, D, Q, D, 1, Gs, bx, NULL, NULL, sA, bg, sB);
    __syncthreads();
    if constexpr (REG) {
      if (qme < nq) {
        double g9[9];
        PaQ3PointGrad<D_, Q_>(qme, Bs, Gs, bb, gb, bg, sB, g9, f == 0 && tg ? Xr : NULL);
#pragma unroll
        for (int c = 0; c < 3; c++)
#pragma unroll
          for (int g = 0; g < 3; g++) gr[f][c + 3 * g] = g9[c * 3 + g];
      }
    } else {
      PaC<D_>(3, 1, Q, D, Q * Q, D, 1, Bs, gb, NULL, NULL, sB, gf, 3 * nq);
      PaC<D_>(3, 1, Q, D, Q * Q, D, 1, Bs, bg, NULL, NULL, sB, gf + nq, 3 * nq);
      PaC<D_>(3, 1, Q, D, Q * Q, D, 1, Gs, bb, NULL, NULL, sB, gf + 2 * nq, 3 * nq);
      if (f == 0 && tg) PaC<D_>(3, 1, Q, D, Q * Q, D, 1, Bs, bb, NULL, NULL, sB, X, nq);
    }
    __syncthreads();
  }
  // 2. e at the points (L table)
  PaC<L_>(1, L * L, Q, L, 1, L, 1, Ls, ez, NULL, NULL, 0, s2, 0);
  __syncthreads();
  PaC<L_>(1, L, Q, L, Q, L, 1, Ls, s2, NULL, NULL, 0, s1, 0);
  __syncthreads();
  PaC<L_>(1, 1, Q, L, Q * Q, L, 1, Ls, s1, NULL, NULL, 0, eq, 0);
  __syncthreads();
  // 3. the stress per point: S[i][q] (REG: its own region; else over the x0 gradient at
  // its own point)
  double dtmin = HUGE_VAL, tdet = 0.0;
  int tz = -1;  // BlastQPointReport's "none"; INT_MAX in the block reduction
  double *S = REG ? grad : grad + 18 * nq;
  const BlastMaterial *mat = &d.mats[d.zone_mat[z]];
  for (int q = threadIdx.x; q < nq; q += blockDim.x) {
    double J[9], Gv[9], J0[9], Sq[9], Xq[3], dtq;
    if constexpr (REG) {
#pragma unroll
      for (int i = 0; i < 9; i++) J[i] = gr[0][i], Gv[i] = gr[1][i], J0[i] = gr[2][i];
#pragma unroll
      for (int c = 0; c < 3; c++) Xq[c] = Xr[c];
    } else {
      for (int c = 0; c < 3; c++)
        for (int g = 0; g < 3; g++) {
          const int i = (c * 3 + g) * nq + q;
          J[c + 3 * g] = grad[i], Gv[c + 3 * g] = grad[9 * nq + i],
                    J0[c + 3 * g] = grad[18 * nq + i];
        }
      if (tg)
        for (int c = 0; c < 3; c++) Xq[c] = X[c * nq + q];
    }
    const size_t zq = (size_t)z * nq + q;
    const double det =
        BlastPaPointStress(3, &d.qpar, mat, J, Gv, J0, d.R0[zq], d.qw[q], eq[q], Sq, &dtq);
    BlastQPointReport(z, det, dtq, &dtmin, &tz, &tdet);
    if (tg) src[q] = d.qw[q] * det * BlastTaylorGreenQ(Xq);
    if (!keep) tq[q] = BlastPointWork(3, Sq, Gv);
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
  if (tz < 0) tz = INT_MAX;
  PaQ3BlockReduce(&dtmin, &tdet, &tz);
  if (threadIdx.x == 0)
    p.blk_dt[blockIdx.x] = dtmin, p.blk_zone[blockIdx.x] = tz, p.blk_det[blockIdx.x] = tdet;
}

// The specialised k_pa_qdata3 for (D, Q, L) with its registers capped at R per thread
// through the blocks per SM it is compiled for: occupancy against spills, measured on an
// H100 with BLAST_GPU_PROFILE=1 (3D Sedov, 19 steps; docs/performance.md), k_qdata_force
// ms per call at Q2 64^3: 11.53 uncapped, 7.62 at 128, 7.30 at 96, 7.40 at 80, 7.76 at
// 64; Q3 48^3: 18.15, 11.39, 11.39, 10.36, 10.10; Q4 32^3 (512 threads): 7.27 at 128,
// 7.24 at 64.
template <int D, int Q, int L>
static void (*PaQ3Kernel())(PaQArgs) {
  constexpr int T = PaQ3Threads(Q * Q * Q), R = D <= 3 ? 96 : D == 4 ? 64 : 128;
  constexpr int B = 65536 / (T * R);
  return k_pa_qdata3<D, Q, L, T, (B > 1 ? B : 1)>;
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
  BlastBlockMinReduce(m, zz, dd, sd, sz, sdet);
  if (threadIdx.x == 0)
    odt[blockIdx.x] = sd[0], ozone[blockIdx.x] = sz[0], odet[blockIdx.x] = sdet[0];
}

#endif  // BLAST_GPU_KERNELS_PA_QDATA_CUH
