// Partial assembly: the momentum mass action zone by zone (sum factorisation with the 1D
// table B, hydro/pa_kernels.h BlastPaMassZone) and the gather of the zone values into the
// owned rows in double-double.
// Kernel bodies only: launched from backends/cuda/mode_partial.cu; a kernel is defined in
// exactly one translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_PA_MASS_CUH
#define BLAST_GPU_KERNELS_PA_MASS_CUH

#include "context.h"
#include "dot_block.cuh"
#include "pdl.cuh"
#include "pa_kernels.h"

// Arguments of the mass kernels: zones pa_zones[k0, k0 + n), components of x and of the
// zone values E ([c * es + z * nd + a]) in mask. gate (k_pa_mass3, k_pa_mass3l and the row
// gather; NULL: none): the kernel returns at once where *gate != 0 (CudaCtx.mass_gate).
typedef struct {
  int k0, n, ncomp, zpb;
  unsigned mask;
  size_t st, es;
  const double *x;
  double *E;
  const int *gate;
} PaMassArgs;

// Doubles per component and zone of a stage buffer of k_pa_mass: the largest stage of
// BlastPaInterp/BlastPaInterpT (D^dim, Q^dim, D^2 Q, D Q^2).
__host__ __device__ static inline int PaMassStage(int dim, int D, int Q) {
  int m = 1, n = 1;
  for (int g = 0; g < dim; g++) m *= D, n *= Q;
  if (n > m) m = n;
  if (dim >= 2 && D * Q > m) m = D * Q;
  if (dim == 3 && D * D * Q > m) m = D * D * Q;
  if (dim == 3 && D * Q * Q > m) m = D * Q * Q;
  return m;
}

// One stage of a sum-factorised contraction for every (zone, component) of the block:
// out[(o M + m) Ni + i] = sum_k T[m tm + k tk] in[(o K + k) Ni + i], k ascending from 0.0
// (the loops of BlastPaInterp/BlastPaInterpT are all of this form). A thread per entry.
template <int K>
__device__ __forceinline__ void PaStage(int nzc, int stride, const double *in, double *out, int O,
                                        int M, int Kr, int Ni, const double *T, int tm, int tk) {
  const int kk = K ? K : Kr, per = O * M * Ni;
  for (int idx = threadIdx.x; idx < nzc * per; idx += blockDim.x) {
    const int zc = idx / per, r = idx - zc * per;
    const int i = r % Ni, om = r / Ni, m = om % M, o = om / M;
    const double *src = in + (size_t)zc * stride + (size_t)o * kk * Ni + i;
    const double *t = T + m * tm;
    double s = 0.0;
#pragma unroll
    for (int k = 0; k < kk; k++) s += t[k * tk] * src[k * Ni];
    out[(size_t)zc * stride + r] = s;
  }
}

// y = B^T (qm .* (B x)) of the block's zones, all components at once: stage buffers P and R
// in shared memory (zpb zones x ncomp components x PaMassStage doubles each), a thread per
// entry of each stage. DT, QT: D and Q at compile time (0: at run time).
template <int DIM, int DT, int QT>
__global__ void __launch_bounds__(256) k_pa_mass(DevData d, PaMassArgs a) {
  extern __shared__ double sm[];
  const int D = DT ? DT : d.D, Q = QT ? QT : d.Q, nd = d.nd, nq = d.nqp, nc = a.ncomp;
  const int M = PaMassStage(DIM, D, Q);
  const int kz0 = a.k0 + blockIdx.x * a.zpb;
  int nzb = a.n - blockIdx.x * a.zpb;
  nzb = nzb < a.zpb ? nzb : a.zpb;
  const int nzc = nzb * nc;
  double *Bs = sm, *P = Bs + Q * D, *R = P + (size_t)a.zpb * nc * M;
  for (int i = threadIdx.x; i < Q * D; i += blockDim.x) Bs[i] = d.B1[i];
  for (int idx = threadIdx.x; idx < nzc * nd; idx += blockDim.x) {
    const int zc = idx / nd, j = idx - zc * nd, zl = zc / nc, c = zc - zl * nc;
    const int z = d.zones[kz0 + zl];
    P[(size_t)zc * M + j] = (a.mask >> c) & 1u ? a.x[c * a.st + d.edof[(size_t)z * nd + j]] : 0.0;
  }
  __syncthreads();
  // Interp: x (a1), y (a2), z (a3) contractions; the point values times qm; InterpT: z
  // (q3), y (q2), x (q1). In the middle form: K the contracted length, Ni the faster index.
  if (DIM == 1) {
    PaStage<DT>(nzc, M, P, R, 1, Q, D, 1, Bs, D, 1);
  } else if (DIM == 2) {
    PaStage<DT>(nzc, M, P, R, D, Q, D, 1, Bs, D, 1);  // t1[a2][q1]
    __syncthreads();
    PaStage<DT>(nzc, M, R, P, 1, Q, D, Q, Bs, D, 1);  // w[q2][q1]
  } else {
    PaStage<DT>(nzc, M, P, R, D * D, Q, D, 1, Bs, D, 1);  // t1[a3][a2][q1]
    __syncthreads();
    PaStage<DT>(nzc, M, R, P, D, Q, D, Q, Bs, D, 1);  // t2[a3][q2][q1]
    __syncthreads();
    PaStage<DT>(nzc, M, P, R, 1, Q, D, Q * Q, Bs, D, 1);  // w[q3][q2][q1]
  }
  __syncthreads();
  double *W = DIM == 2 ? P : R;  // the point values
  for (int idx = threadIdx.x; idx < nzc * nq; idx += blockDim.x) {
    const int zc = idx / nq, q = idx - zc * nq, z = d.zones[kz0 + zc / nc];
    W[(size_t)zc * M + q] = W[(size_t)zc * M + q] * d.qmass[(size_t)z * nq + q];
  }
  __syncthreads();
  double *U;  // the node values
  if (DIM == 1) {
    PaStage<QT>(nzc, M, R, P, 1, D, Q, 1, Bs, 1, D);
    U = P;
  } else if (DIM == 2) {
    PaStage<QT>(nzc, M, P, R, 1, D, Q, Q, Bs, 1, D);  // s1[a2][q1]
    __syncthreads();
    PaStage<QT>(nzc, M, R, P, D, D, Q, 1, Bs, 1, D);  // u[a2][a1]
    U = P;
  } else {
    PaStage<QT>(nzc, M, R, P, 1, D, Q, Q * Q, Bs, 1, D);  // s2[a3][q2][q1]
    __syncthreads();
    PaStage<QT>(nzc, M, P, R, D, D, Q, Q, Bs, 1, D);  // s1[a3][a2][q1]
    __syncthreads();
    PaStage<QT>(nzc, M, R, P, D * D, D, Q, 1, Bs, 1, D);  // u[a3][a2][a1]
    U = P;
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < nzc * nd; idx += blockDim.x) {
    const int zc = idx / nd, j = idx - zc * nd, zl = zc / nc, c = zc - zl * nc;
    if (!((a.mask >> c) & 1u)) continue;
    const int z = d.zones[kz0 + zl];
    a.E[c * a.es + (size_t)z * nd + j] = U[(size_t)zc * M + j];
  }
}

// Fallback for stages too large for shared memory: a thread per zone calling
// BlastPaMassZone with a global scratch of wsz doubles per thread.
__global__ void k_pa_mass_generic(DevData d, PaMassArgs a, double *ws_all, int wsz) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
  double *xz = ws_all + (size_t)tid * wsz, *mws = xz + a.ncomp * d.nd;
  for (int k = tid; k < a.n; k += nt) {
    const int z = d.zones[a.k0 + k];
    for (int c = 0; c < a.ncomp; c++)
      if ((a.mask >> c) & 1u)
        for (int j = 0; j < d.nd; j++)
          xz[c * d.nd + j] = a.x[c * a.st + d.edof[(size_t)z * d.nd + j]];
    BlastPaMassZone(d.dim, d.D, d.Q, d.B1, &d.qmass[(size_t)z * d.nqp], a.ncomp, a.mask, xz, d.nd,
                    &a.E[(size_t)z * d.nd], a.es, mws);
  }
}

// y[c * st + i] for the owned rows i = rows[r], r in [r0, r1): the sum of its zones' values
// in the order of mtoff/mtidx, in double-double, rounded once (as the CPU backend).
__global__ void k_pa_mass_gather(DevData d, const int *rows, int r0, int r1, int ncomp,
                                 unsigned mask, size_t st, size_t es, const double *E, double *y) {
  const size_t n = (size_t)(r1 - r0) * ncomp;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < n;
       t += (size_t)gridDim.x * blockDim.x) {
    const int r = r0 + (int)(t / ncomp), c = (int)(t % ncomp);
    if (!((mask >> c) & 1u)) continue;
    const int i = rows[r];
    const double *Ec = E + c * es;
    BlastDD acc = {0.0, 0.0};
    for (int k = d.mtoff[i]; k < d.mtoff[i + 1]; k++) BlastDDAdd(&acc, Ec[d.mtidx[k]]);
    BlastDDNormalize(&acc);
    y[c * st + i] = acc.hi;
  }
}

// 3D, D <= Q at compile time: NZ zones per block, a Q x Q thread plane per zone
// (threadIdx.x = q1 or a1, threadIdx.y = q2 or a2), the third direction in registers:
// stage 1 (a1 -> q1) in shared memory, stages 2 and 3 and the transpose of 3 in the
// registers of the thread that owns (q1, q2), the transposes of 2 and 1 in shared memory.
// Every entry is the sum of BlastPaInterp/BlastPaInterpT over the same terms in the same
// order (the same bits), for each active component in turn. MINB: blocks per SM the
// registers are allocated for. SE: the zone values collected in shared memory and written
// in full sectors after the last component (else stored from the registers).
// The 1D table by value (kernel parameter space): an entry whose index is the same for
// every thread (the third direction's loops, unrolled) is then an operand from the constant
// bank instead of a shared-memory load (the kernel is bound by the shared-memory pipe).
enum { kPaMassBMax = 40 };  // Q D of the specialised pairs (Q5: 8 x 5)
typedef struct {
  double v[kPaMassBMax];
} PaMassB;

template <int D, int Q, int NZ, int MINB, bool SE>
__global__ void __launch_bounds__(Q *Q *NZ, MINB) k_pa_mass3(DevData d, PaMassArgs a, PaMassB Bc) {
  static_assert(Q * D <= kPaMassBMax, "the table fits PaMassB");
  static_assert(D <= Q, "a thread plane of Q x Q covers the D x D node plane");
  __shared__ double Bs[Q * D];
  __shared__ double su[NZ][D * D * D], st1[NZ][D * D * Q], ss2[NZ][D * Q * Q];
  __shared__ double se[SE ? NZ : 1][SE ? 3 * D * D * D : 1];  // SE: the zone values
  const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  const int tid = (tz * Q + ty) * Q + tx;
  for (int i = tid; i < Q * D; i += Q * Q * NZ) Bs[i] = d.B1[i];
  const int kz = blockIdx.x * NZ + tz;
  const bool active = kz < a.n;
  const int z = active ? d.zones[a.k0 + kz] : 0;
  const int *dof = d.edof + (size_t)z * (D * D * D);
  const double *qm = d.qmass + (size_t)z * (Q * Q * Q);
  double *u = su[tz], *t1 = st1[tz], *s2 = ss2[tz];
  PdlEnter();  // x and the gate: written by the kernels before
  if (a.gate && *a.gate) return;
  for (int c = 0; c < a.ncomp; c++) {
    if (!((a.mask >> c) & 1u)) continue;  // uniform over the block
    const double *xc = a.x + c * a.st;
    if (active && tx < D && ty < D)
#pragma unroll
      for (int a3 = 0; a3 < D; a3++) u[(a3 * D + ty) * D + tx] = xc[dof[(a3 * D + ty) * D + tx]];
    __syncthreads();
    if (ty < D)  // t1[(a3 D + a2) Q + q1] = sum_a1 B[q1][a1] u[(a3 D + a2) D + a1]
#pragma unroll
      for (int a3 = 0; a3 < D; a3++) {
        double s = 0.0;
#pragma unroll
        for (int a1 = 0; a1 < D; a1++) s += Bs[tx * D + a1] * u[(a3 * D + ty) * D + a1];
        t1[(a3 * D + ty) * Q + tx] = s;
      }
    __syncthreads();
    double r2[D], w[Q];
#pragma unroll
    for (int a3 = 0; a3 < D; a3++) {  // t2[(a3 Q + q2) Q + q1], summed over a2
      double s = 0.0;
#pragma unroll
      for (int a2 = 0; a2 < D; a2++) s += Bs[ty * D + a2] * t1[(a3 * D + a2) * Q + tx];
      r2[a3] = s;
    }
#pragma unroll
    for (int q3 = 0; q3 < Q; q3++) {  // w at (q1, q2, q3), summed over a3, times qm
      double s = 0.0;
#pragma unroll
      for (int a3 = 0; a3 < D; a3++) s += Bc.v[q3 * D + a3] * r2[a3];
      w[q3] = s * (active ? qm[(q3 * Q + ty) * Q + tx] : 0.0);
    }
#pragma unroll
    for (int a3 = 0; a3 < D; a3++) {  // s2[(a3 Q + q2) Q + q1] = sum_q3 B[q3][a3] w
      double s = 0.0;
#pragma unroll
      for (int q3 = 0; q3 < Q; q3++) s += Bc.v[q3 * D + a3] * w[q3];
      s2[(a3 * Q + ty) * Q + tx] = s;
    }
    __syncthreads();
    if (ty < D)  // s1[(a3 D + a2) Q + q1] = sum_q2 B[q2][a2] s2[(a3 Q + q2) Q + q1] (in t1)
#pragma unroll
      for (int a3 = 0; a3 < D; a3++) {
        double s = 0.0;
#pragma unroll
        for (int q2 = 0; q2 < Q; q2++) s += Bs[q2 * D + ty] * s2[(a3 * Q + q2) * Q + tx];
        t1[(a3 * D + ty) * Q + tx] = s;
      }
    __syncthreads();
    if (active && tx < D && ty < D) {  // u[(a3 D + a2) D + a1] = sum_q1 B[q1][a1] s1[...]
      // component-interleaved, E[3 (z nd + a) + c] (a row's gather then reads the
      // components of an entry from one sector); SE: collected in shared memory first
      double *Ez = SE ? se[SE ? tz : 0] + c : a.E + 3 * (size_t)z * (D * D * D) + c;
#pragma unroll
      for (int a3 = 0; a3 < D; a3++) {
        double s = 0.0;
#pragma unroll
        for (int q1 = 0; q1 < Q; q1++) s += Bs[q1 * D + tx] * t1[(a3 * D + ty) * Q + q1];
        Ez[3 * ((a3 * D + ty) * D + tx)] = s;
      }
    }
    __syncthreads();  // u, t1 and s2 are reused by the next component
  }
  // SE: the block's zone values in full sectors (stored per component from the registers,
  // each store fills an eighth of a sector: the L2 can be the limit)
  const unsigned on = a.mask & ((1u << a.ncomp) - 1u);
  for (int i = tid; SE && i < NZ * 3 * D * D * D; i += Q * Q * NZ) {
    const int zl = i / (3 * D * D * D), j = i - zl * (3 * D * D * D);
    const int kzl = blockIdx.x * NZ + zl;
    if (kzl < a.n && ((on >> (j % 3)) & 1u))
      a.E[(size_t)3 * (D * D * D) * d.zones[a.k0 + kzl] + j] = se[SE ? zl : 0][SE ? j : 0];
  }
}

// 3D, 32 % Q == 0 at compile time: a thread per (zone, q1), so a zone's Q threads lie in
// one warp and need no block barrier. Stage 1 (a1 -> q1) reads the zone's nodal values
// from shared memory; stages 2 and 3, the point values times qm and the transposes of 3
// and 2 stay in the thread's registers, the third direction streamed (s2 summed over q3 in
// ascending order as it goes: the same terms in the same order); the transpose of stage 1
// (q1 -> a1) reads the thread rows back from shared memory, a thread per (zone, a3, a2)
// line. The zone's values of all components are collected in shared memory and leave in
// full sectors (E[3 (z nd + a) + c] is contiguous per zone): written per component from
// the registers, the interleaved stores would each fill an eighth of a sector, and the L2
// is the limit then (k_pa_mass3). The next component's nodal values are loaded while the
// current one is computed. Shared-memory strides are 4 mod 16 doubles, so the 4 zones of a
// half-warp at Q = 4 fall on distinct banks; the thread's Q^2 values of qm are loaded once
// into registers. Each sum starts from its first product where BlastPaMassZone adds it to
// 0.0 (14 % fewer FP64 instructions: 164 additions per thread and component, not 231;
// the kernel 23.8 -> 23.0 us at 32,768 Q2 zones on an H200): 0.0 + p is p but for p = -0.0,
// so a zone value can differ from BlastPaMassZone's only in the sign of a zero, and a
// row's double-double sum from +0.0 (the gather) is the same. So the rows have the bits
// of BlastPaMassZone and its gather. NZ zones per block of NZ Q threads; MINB: blocks per
// SM the registers are allocated for.
__host__ __device__ constexpr int PaMassPad(int n) {
  return n + ((4 - n % 16) + 16) % 16;
}
template <int D, int Q, int NZ, int MINB>
__global__ void __launch_bounds__(Q *NZ, MINB) k_pa_mass3l(DevData d, PaMassArgs a, PaMassB Bc) {
  static_assert(Q * D <= kPaMassBMax, "the table fits PaMassB");
  static_assert(32 % Q == 0, "a zone's threads lie in one warp");
  constexpr int ND = D * D * D, NL = D * D, KU = (ND + Q - 1) / Q, KL = (NL + Q - 1) / Q;
  constexpr int SU = PaMassPad(ND), SS = PaMassPad(Q * NL), SE = PaMassPad(3 * ND);
  __shared__ double su[NZ * SU], ss[NZ * SS], se[NZ * SE];
  const int zl = threadIdx.x / Q, q1 = threadIdx.x - zl * Q;
  const int kz = blockIdx.x * NZ + zl;
  const bool act = kz < a.n;
  const int z = act ? d.zones[a.k0 + kz] : 0;
  const double *qm = d.qmass + (size_t)z * (Q * Q * Q) + q1;
  double *u = su + zl * SU, *s1 = ss + zl * SS, *ez = se + zl * SE;
  double b1[D];  // B[q1][a1]; the other stages' entries come from the table by value
#pragma unroll
  for (int a1 = 0; a1 < D; a1++) b1[a1] = act ? d.B1[q1 * D + a1] : 0.0;
  double qr[Q * Q];  // the thread's qm, loaded once for every component
#pragma unroll
  for (int i = 0; i < Q * Q; i++) qr[i] = act ? qm[i * Q] : 0.0;
  int jd[KU];  // the thread's share of the zone's nodes (their dofs; -1: none)
#pragma unroll
  for (int k = 0; k < KU; k++) {
    const int j = q1 + k * Q;
    jd[k] = act && j < ND ? d.edof[(size_t)z * ND + j] : -1;
  }
  PdlEnter();  // x and the gate: written by the kernels before
  if (a.gate && *a.gate) return;
  unsigned rem = a.mask & ((1u << a.ncomp) - 1u);  // uniform over the block
  int c = 0;
  while (c < 3 && !((rem >> c) & 1u)) c++;
  double xr[KU];  // the nodal values of component c, loaded while c - 1 is computed
  const double *xc = a.x + c * a.st;
#pragma unroll
  for (int k = 0; k < KU; k++) xr[k] = jd[k] >= 0 ? xc[jd[k]] : 0.0;
  while (c < 3) {
#pragma unroll
    for (int k = 0; k < KU; k++)
      if (jd[k] >= 0) u[q1 + k * Q] = xr[k];
    __syncwarp();
    rem &= ~(1u << c);
    int cn = c + 1;
    while (cn < 3 && !((rem >> cn) & 1u)) cn++;
    if (cn < 3) {
      const double *xn = a.x + cn * a.st;
#pragma unroll
      for (int k = 0; k < KU; k++) xr[k] = jd[k] >= 0 ? xn[jd[k]] : 0.0;
    }
    if (act) {
      double t2[D * Q], s2[D * Q];
      {
        double t1[NL];  // t1[a3][a2] at q1 = sum_a1 B[q1][a1] u[(a3 D + a2) D + a1]
#pragma unroll
        for (int l = 0; l < NL; l++) {
          double s = b1[0] * u[l * D];
#pragma unroll
          for (int a1 = 1; a1 < D; a1++) s += b1[a1] * u[l * D + a1];
          t1[l] = s;
        }
#pragma unroll
        for (int a3 = 0; a3 < D; a3++)  // t2[a3][q2] = sum_a2 B[q2][a2] t1[a3][a2]
#pragma unroll
          for (int q2 = 0; q2 < Q; q2++) {
            double s = Bc.v[q2 * D] * t1[a3 * D];
#pragma unroll
            for (int a2 = 1; a2 < D; a2++) s += Bc.v[q2 * D + a2] * t1[a3 * D + a2];
            t2[a3 * Q + q2] = s;
          }
      }
#pragma unroll
      for (int q3 = 0; q3 < Q; q3++)
#pragma unroll
        for (int q2 = 0; q2 < Q; q2++) {  // w at (q1, q2, q3) times qm, into s2[a3][q2]
          double s = Bc.v[q3 * D] * t2[q2];
#pragma unroll
          for (int a3 = 1; a3 < D; a3++) s += Bc.v[q3 * D + a3] * t2[a3 * Q + q2];
          const double w = s * qr[q3 * Q + q2];
#pragma unroll
          for (int a3 = 0; a3 < D; a3++)
            s2[a3 * Q + q2] = q3 ? s2[a3 * Q + q2] + Bc.v[q3 * D + a3] * w : Bc.v[a3] * w;
        }
#pragma unroll
      for (int a3 = 0; a3 < D; a3++)  // s1[q1][a3][a2] = sum_q2 B[q2][a2] s2[a3][q2]
#pragma unroll
        for (int a2 = 0; a2 < D; a2++) {
          double s = Bc.v[a2] * s2[a3 * Q];
#pragma unroll
          for (int q2 = 1; q2 < Q; q2++) s += Bc.v[q2 * D + a2] * s2[a3 * Q + q2];
          s1[q1 * NL + a3 * D + a2] = s;
        }
    }
    __syncwarp();
    if (act) {
      // u[(a3 D + a2) D + a1] = sum_q1 B[q1][a1] s1[q1][a3][a2], a line (a3, a2) per
      // thread, into ez[3 a + c] (component-interleaved, as E)
#pragma unroll
      for (int k = 0; k < KL; k++) {
        const int l = q1 + k * Q;
        if (l >= NL) break;
        double v[Q];
#pragma unroll
        for (int q = 0; q < Q; q++) v[q] = s1[q * NL + l];
        double *El = ez + 3 * l * D + c;
#pragma unroll
        for (int a1 = 0; a1 < D; a1++) {
          double s = Bc.v[a1] * v[0];
#pragma unroll
          for (int q = 1; q < Q; q++) s += Bc.v[q * D + a1] * v[q];
          El[3 * a1] = s;
        }
      }
    }
    __syncwarp();  // u and s1 are reused by the next component
    c = cn;
  }
  if (act) {  // the zone's values in full sectors: E[3 (z nd + a) + c] = ez[3 a + c]
    double *Ez = a.E + (size_t)3 * ND * z;
    const unsigned on = a.mask & ((1u << a.ncomp) - 1u);
    if (on == 7u) {
      for (int i = q1; i < 3 * ND; i += Q) Ez[i] = ez[i];
    } else {
      for (int i = q1; i < 3 * ND; i += Q)
        if ((on >> (i % 3)) & 1u) Ez[i] = ez[i];
    }
  }
}

// All components of one owned row per thread (the zone list read once), from the
// component-interleaved values of k_pa_mass3 (E[3 e + c]): y[c st + i] = the
// double-double sum of its zones' values in mtoff/mtidx order, rounded once.
// DOT (mass.mult_dot): also the double-double sums of x_c[i] y_c[i] over the rows written,
// per component, each thread's in row order, then its block's by a fixed tree (DotTree,
// backends/cuda/kernels/dot_block.cuh) into part[2 (c pstride + slot0 + blockIdx.x)] (+1):
// launched with GridFor(rows) blocks of kDotThreads, the pairs do not depend on the device.
template <bool DOT>
__global__ void k_pa_mass_gather_rows(DevData d, const int *rows, int r0, int r1, int ncomp,
                                      unsigned mask, size_t st, const double *E, double *y,
                                      const double *x, double *part, int pstride, int slot0,
                                      const int *gate) {
  const int step = gridDim.x * blockDim.x;
  int r = r0 + blockIdx.x * blockDim.x + threadIdx.x, i = 0, k0 = 0, k1 = 0;
  if (r < r1) i = rows[r], k0 = d.mtoff[i], k1 = d.mtoff[i + 1];  // maps: set up once
  PdlEnter();
  if (gate && *gate) return;
  BlastDD dot[3] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
  for (; r < r1; r += step) {
    if (r >= r0 + step) i = rows[r], k0 = d.mtoff[i], k1 = d.mtoff[i + 1];
    BlastDD acc[3] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
    for (int k = k0; k < k1; k++) {
      const size_t e = (size_t)d.mtidx[k];
#pragma unroll
      for (int c = 0; c < 3; c++)
        if (c < ncomp && ((mask >> c) & 1u)) BlastDDAdd(&acc[c], E[3 * e + c]);
    }
#pragma unroll
    for (int c = 0; c < 3; c++)
      if (c < ncomp && ((mask >> c) & 1u)) {
        BlastDDNormalize(&acc[c]);
        y[c * st + i] = acc[c].hi;
        if (DOT) BlastDDAdd(&dot[c], __dmul_rn(x[c * st + i], acc[c].hi));
      }
  }
  if (!DOT) return;
  // the block's pairs, all components in one tree (kDotThreads threads); thread 0 writes
  // them (inactive components: zeros)
  DotTree<3>(dot, ncomp);
  if (threadIdx.x == 0)
#pragma unroll
    for (int c = 0; c < 3; c++)
      if (c < ncomp) {
        const size_t o = 2 * ((size_t)c * pstride + slot0 + blockIdx.x);
        part[o] = dot[c].hi, part[o + 1] = dot[c].lo;
      }
}

#endif  // BLAST_GPU_KERNELS_PA_MASS_CUH
