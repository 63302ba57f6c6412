// The double-double block reductions of the dot kernels (vector.cuh, mass.cuh, pa_mass.cuh,
// pcg.cuh, halo.cuh). Device functions only, no kernel: any number of translation units include it.
#ifndef BLAST_GPU_KERNELS_DOT_BLOCK_CUH
#define BLAST_GPU_KERNELS_DOT_BLOCK_CUH

#include "context.h"

// The block's fixed tree over its threads' double-double pairs v[c], c < nc <= NC: each
// pair renormalised, then at strides s = blockDim.x / 2, ..., 1 thread t < s adds thread
// t + s's pair and renormalises, so the sums depend on the block size only (blockDim.x <=
// kDotThreads, a power of 2). The strides of 64 and more go through shared memory, the
// rest in the first warp by shuffles: the same pairs in the same operations as an
// all-shared tree, with 4 barriers instead of 9. Thread 0's v[c] holds the sums. All
// threads of the block call it; its shared memory is free again on return.
template <int NC>
__device__ __forceinline__ void DotTree(BlastDD v[NC], int nc) {
  __shared__ double sh[NC][2 * kDotThreads];
  const int t = threadIdx.x;
  int s = blockDim.x / 2;
#pragma unroll
  for (int c = 0; c < NC; c++)
    if (c < nc) BlastDDNormalize(&v[c]);
  if (s >= 32) {
#pragma unroll
    for (int c = 0; c < NC; c++)
      if (c < nc) sh[c][2 * t] = v[c].hi, sh[c][2 * t + 1] = v[c].lo;
    __syncthreads();
    for (; s > 32; s >>= 1) {
      if (t < s)
#pragma unroll
        for (int c = 0; c < NC; c++)
          if (c < nc) {
            BlastDD a = {sh[c][2 * t], sh[c][2 * t + 1]};
            BlastDDAddDD(&a, sh[c][2 * (t + s)], sh[c][2 * (t + s) + 1]);
            BlastDDNormalize(&a);
            sh[c][2 * t] = a.hi, sh[c][2 * t + 1] = a.lo;
          }
      __syncthreads();
    }
    if (t < 32)  // stride 32: the first warp takes its entries and those 32 above
#pragma unroll
      for (int c = 0; c < NC; c++)
        if (c < nc) {
          v[c].hi = sh[c][2 * t], v[c].lo = sh[c][2 * t + 1];
          BlastDDAddDD(&v[c], sh[c][2 * (t + 32)], sh[c][2 * (t + 32) + 1]);
          BlastDDNormalize(&v[c]);
        }
    s = 16;
  }
  if (t < 32) {
    // lanes past the block (blockDim.x < 32) give undefined values to lanes t >= s only,
    // whose results no later stride reads
    const unsigned lanes = blockDim.x >= 32 ? 0xffffffffu : (1u << blockDim.x) - 1u;
    for (; s > 0; s >>= 1)
#pragma unroll
      for (int c = 0; c < NC; c++)
        if (c < nc) {
          const double hi = __shfl_down_sync(lanes, v[c].hi, s);
          const double lo = __shfl_down_sync(lanes, v[c].lo, s);
          BlastDDAddDD(&v[c], hi, lo);
          BlastDDNormalize(&v[c]);
        }
  }
  __syncthreads();
}

// The block's double-double sum of its threads' pairs (DotTree) into dst[0], dst[1]
// (thread 0 writes them).
__device__ __forceinline__ void DotBlockSum(BlastDD acc, double *dst) {
  DotTree<1>(&acc, 1);
  if (threadIdx.x == 0) dst[0] = acc.hi, dst[1] = acc.lo;
}

// The block pairs of a dot, nslots of component c (stride apart), folded into one pair
// dst[0], dst[1] (zeros if not active): thread t sums slots t, t + blockDim.x, ... in
// turn, then DotBlockSum.
__device__ __forceinline__ void DotFoldComp(const double *part, int stride, int nslots, int c,
                                            bool active, double *dst) {
  BlastDD acc = {0.0, 0.0};
  if (active)
    for (int s = threadIdx.x; s < nslots; s += blockDim.x)
      BlastDDAddDD(&acc, part[2 * ((size_t)c * stride + s)],
                   part[2 * ((size_t)c * stride + s) + 1]);
  DotBlockSum(acc, dst);
}

// The block pairs of components c < nc in `active` (sl: nslots each, stride apart) folded
// as DotFoldComp folds each (the same additions in the same order), the trees in one
// (DotTree<3>): thread 0's acc[c] holds component c's pair, zeros outside active. All
// threads of the block call it.
__device__ __forceinline__ void DotFoldTree3(const DotSlots &sl, int nc, unsigned active,
                                             BlastDD acc[3]) {
#pragma unroll
  for (int c = 0; c < 3; c++) {
    acc[c].hi = acc[c].lo = 0.0;
    if (c < nc && ((active >> c) & 1u))
      for (int s = threadIdx.x; s < sl.nslots; s += blockDim.x)
        BlastDDAddDD(&acc[c], sl.part[2 * ((size_t)c * sl.stride + s)],
                     sl.part[2 * ((size_t)c * sl.stride + s) + 1]);
  }
  DotTree<3>(acc, nc);
}

// DotFoldComp for many slots per thread (k_dot_fold: a block per component folds the
// product's block pairs, tens of thousands of them on a large mesh): the same additions in
// the same order, so the same pair, with the loads of a thread's next A slots in flight
// while it adds the current A (its additions form one dependent chain; loading each slot
// only when its turn comes left the fold waiting on memory, 57 us of 1.76 ms per CG
// iteration at 1,048,576 zones on an H200). Kept apart from DotFoldComp, which
// k_pcg_update's head inlines for a few slots under its register cap (kPcgUpdateMinBlocks):
// the 4 A doubles in flight would spill there.
template <int A>
__device__ __forceinline__ void DotFoldCompAhead(const double *part, int stride, int nslots, int c,
                                                 bool active, double *dst) {
  BlastDD acc = {0.0, 0.0};
  const int t = threadIdx.x, step = blockDim.x;
  const int m = active && t < nslots ? (nslots - t + step - 1) / step : 0;  // slots t + j step
  const double *p = part + 2 * (size_t)c * stride;
  double cur[2 * A], nxt[2 * A];
#pragma unroll
  for (int k = 0; k < A; k++) {
    const size_t at = 2 * ((size_t)t + (size_t)k * step);
    cur[2 * k] = k < m ? p[at] : 0.0, cur[2 * k + 1] = k < m ? p[at + 1] : 0.0;
  }
  for (int j = 0; j < m; j += A) {
#pragma unroll
    for (int k = 0; k < A; k++) {
      const size_t at = 2 * ((size_t)t + (size_t)(j + A + k) * step);
      nxt[2 * k] = j + A + k < m ? p[at] : 0.0, nxt[2 * k + 1] = j + A + k < m ? p[at + 1] : 0.0;
    }
#pragma unroll
    for (int k = 0; k < A; k++)
      if (j + k < m) BlastDDAddDD(&acc, cur[2 * k], cur[2 * k + 1]);
#pragma unroll
    for (int k = 0; k < 2 * A; k++) cur[k] = nxt[k];
  }
  DotBlockSum(acc, dst);
}

#endif  // BLAST_GPU_KERNELS_DOT_BLOCK_CUH
