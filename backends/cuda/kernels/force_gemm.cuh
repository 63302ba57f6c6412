// Kernel 7 of the BLAST GPU paper: the zone force matrices F_z = A_z B^T.
// Kernel bodies only: launched from backends/cuda/ops_zone.cu; a kernel is defined in exactly one
// translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_FORCE_GEMM_CUH
#define BLAST_GPU_KERNELS_FORCE_GEMM_CUH

#include "context.h"

// One point of k_force_gemm: A = S g for the thread's node (S from shared memory, g its
// basis gradient), then acc += A b^T over its JT columns of B.
template <int DIM, int JT>
__device__ __forceinline__ void GemmPoint(const double2 *S2, const double2 *L2, const double *Gq,
                                          int nd, double (&acc)[DIM][JT]) {
  constexpr int SP = SStride(DIM);
  double Sq[SP], g[DIM], A[DIM], b[JT];
#pragma unroll
  for (int i = 0; i < SP / 2; i++) {
    const double2 v = S2[i];
    Sq[2 * i] = v.x, Sq[2 * i + 1] = v.y;
  }
#pragma unroll
  for (int h = 0; h < DIM; h++) g[h] = __ldg(&Gq[h * nd]);
#pragma unroll
  for (int k = 0; k < JT / 2; k++) {
    const double2 v = __ldg(&L2[k]);
    b[2 * k] = v.x, b[2 * k + 1] = v.y;
  }
#pragma unroll
  for (int c = 0; c < DIM; c++) {
    double s = 0.0;
#pragma unroll
    for (int h = 0; h < DIM; h++) s += Sq[c + DIM * h] * g[h];
    A[c] = s;
  }
#pragma unroll
  for (int k = 0; k < JT; k++)
#pragma unroll
    for (int c = 0; c < DIM; c++) acc[c][k] += A[c] * b[k];
}

// F_z columns [j0, j0 + JT) of node a's DIM rows.
template <int DIM, int JT>
__device__ __forceinline__ void GemmStore(const DevData &d, size_t z, int a, int j0,
                                          const double (&acc)[DIM][JT]) {
  const int rows = DIM * d.nd;
  double *F = d.F + z * rows * d.ne;
#pragma unroll
  for (int k = 0; k < JT; k++)
    if (j0 + k < d.ne)
#pragma unroll
      for (int c = 0; c < DIM; c++) F[(size_t)(j0 + k) * rows + c * d.nd + a] = acc[c][k];
}

// Kernel 7: F_z = A_z B^T with A_z[(c,a)][q] = sum_g S_q[c,g] G_q[a,g] and B = L2B. One
// thread per (zone, node a, block of JT columns) builds the DIM rows of A for its node at
// each point in registers, so that every G and B value loaded serves DIM x JT products;
// as on the CPU, each A entry sums over g and each F entry over the points in ascending
// order (the same bits). A block first copies the S of all its zones' points to shared
// memory, by all threads at once (a stream of independent loads instead of one dependent
// load per point and thread); k_force_gemm_chunks does so qc points at a time, where that
// does not fit. This kernel keeps its code inline rather than sharing k_force_gemm_chunks'
// helpers: with GemmPoint for the point loop the compiler scheduled it differently and it
// took 1.77 ms instead of 1.30 (H200, 3D Q2-Q1, 110 592 zones; Q3-Q2 at 32 768 zones 11.8
// instead of 9.1 ms), with a shared item-range helper and GemmStore 1.66 ms (9.9 ms).
template <int DIM, int JT, bool MIX = false>
__global__ void __launch_bounds__(256) k_force_gemm(DevData d, int qc) {
  (void)qc;  // the chunked kernel's argument
  extern __shared__ double2 ssm[];
  constexpr int SP = SStride(DIM);
  const int nd = d.nd, ne = d.ne, nqp = d.nqp, nch = (ne + JT - 1) / JT, ncp = nch * JT;
  // S of the block's zones, copied to shared memory by all threads at once (a stream of
  // independent loads instead of one dependent load per point and thread)
  const size_t per_zone = (size_t)nd * nch, nitem = (size_t)d.nz * per_zone;
  const size_t item0 = (size_t)blockIdx.x * blockDim.x, item = item0 + threadIdx.x;
  const size_t zfirst = item0 / per_zone;
  const size_t zlast = ((item0 + blockDim.x < nitem ? item0 + blockDim.x : nitem) - 1) / per_zone;
  const size_t n2 = (zlast - zfirst + 1) * nqp * (SP / 2);
  const double2 *src = (const double2 *)(d.S + zfirst * nqp * SP);
  for (size_t i = threadIdx.x; i < n2; i += blockDim.x) ssm[i] = __ldg(&src[i]);
  __syncthreads();
  if (item >= nitem) return;
  const int a = (int)(item % nd);
  const size_t zc = item / nd, z = zc / nch;
  const int j0 = (int)(zc % nch) * JT;
  double acc[DIM][JT];
#pragma unroll
  for (int c = 0; c < DIM; c++)
#pragma unroll
    for (int k = 0; k < JT; k++) acc[c][k] = 0.0;
  const double2 *S2 = ssm + (z - zfirst) * nqp * (SP / 2);
  const size_t sl = MIX ? DevSlot(d, z) : 0;  // mixed meshes (MIX): the zone's tables
  const double2 *L2 = (const double2 *)(d.L2Bp + sl * nqp * ncp + j0);
  const double *Gq = d.Gn + sl * nqp * DIM * nd + a;
#pragma unroll 2
  for (int q = 0; q < nqp; q++, S2 += SP / 2, L2 += ncp / 2, Gq += DIM * nd) {
    double Sq[SP], g[DIM], A[DIM], b[JT];
#pragma unroll
    for (int i = 0; i < SP / 2; i++) {
      const double2 v = S2[i];
      Sq[2 * i] = v.x, Sq[2 * i + 1] = v.y;
    }
#pragma unroll
    for (int h = 0; h < DIM; h++) g[h] = __ldg(&Gq[h * nd]);
#pragma unroll
    for (int k = 0; k < JT / 2; k++) {
      const double2 v = __ldg(&L2[k]);
      b[2 * k] = v.x, b[2 * k + 1] = v.y;
    }
#pragma unroll
    for (int c = 0; c < DIM; c++) {
      double s = 0.0;
#pragma unroll
      for (int h = 0; h < DIM; h++) s += Sq[c + DIM * h] * g[h];
      A[c] = s;
    }
#pragma unroll
    for (int k = 0; k < JT; k++)
#pragma unroll
      for (int c = 0; c < DIM; c++) acc[c][k] += A[c] * b[k];
  }
  const int rows = DIM * nd;
  double *F = d.F + z * rows * ne;
#pragma unroll
  for (int k = 0; k < JT; k++)
    if (j0 + k < ne)
#pragma unroll
      for (int c = 0; c < DIM; c++) F[(size_t)(j0 + k) * rows + c * nd + a] = acc[c][k];
}

template <int DIM, int JT, bool MIX = false>
__global__ void __launch_bounds__(256) k_force_gemm_chunks(DevData d, int qc) {
  extern __shared__ double2 ssm[];
  constexpr int SP = SStride(DIM);
  const int nd = d.nd, ne = d.ne, nqp = d.nqp, nch = (ne + JT - 1) / JT, ncp = nch * JT;
  const size_t per_zone = (size_t)nd * nch, nitem = (size_t)d.nz * per_zone;
  const size_t item0 = (size_t)blockIdx.x * blockDim.x, item = item0 + threadIdx.x;
  const size_t zfirst = item0 / per_zone;
  const size_t zlast = ((item0 + blockDim.x < nitem ? item0 + blockDim.x : nitem) - 1) / per_zone;
  const bool active = item < nitem;
  const int a = (int)(item % nd);
  const size_t zc = item / nd, z = active ? zc / nch : zfirst;
  const int j0 = active ? (int)(zc % nch) * JT : 0;
  double acc[DIM][JT];
#pragma unroll
  for (int c = 0; c < DIM; c++)
#pragma unroll
    for (int k = 0; k < JT; k++) acc[c][k] = 0.0;
  const size_t sl = MIX ? DevSlot(d, z) : 0;  // mixed meshes (MIX): the zone's tables
  const double2 *L2 = (const double2 *)(d.L2Bp + sl * nqp * ncp + j0);
  const double *Gq = d.Gn + sl * nqp * DIM * nd + a;
  for (int q0 = 0; q0 < nqp; q0 += qc) {  // zone zi of the block at ssm + zi * qc * SP/2
    const int nq = qc < nqp - q0 ? qc : nqp - q0, row2 = nq * (SP / 2);
    const size_t n2 = (zlast - zfirst + 1) * (size_t)row2;
    __syncthreads();  // the previous chunk is used up
    for (size_t i = threadIdx.x; i < n2; i += blockDim.x) {
      const size_t zi = i / row2, r = i % row2;
      ssm[zi * qc * (SP / 2) + r] =
          __ldg((const double2 *)(d.S + ((zfirst + zi) * nqp + q0) * SP) + r);
    }
    __syncthreads();
    if (!active) continue;
    const double2 *S2 = ssm + (z - zfirst) * qc * (SP / 2);
    for (int q = 0; q < nq; q++, S2 += SP / 2, L2 += ncp / 2, Gq += DIM * nd)
      GemmPoint<DIM, JT>(S2, L2, Gq, nd, acc);
  }
  if (active) GemmStore<DIM, JT>(d, z, a, j0, acc);
}

#endif  // BLAST_GPU_KERNELS_FORCE_GEMM_CUH
