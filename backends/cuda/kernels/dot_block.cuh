// The double-double block reduction shared by the dot kernels (vector.cuh, mass.cuh).
// A device function only, no kernel: any number of translation units may include it.
#ifndef BLAST_GPU_KERNELS_DOT_BLOCK_CUH
#define BLAST_GPU_KERNELS_DOT_BLOCK_CUH

#include "context.h"

// The block's double-double sum of its threads' pairs into dst[0], dst[1] (a fixed tree,
// so the result depends on the block size only; blockDim.x <= kDotThreads, a power of 2).
__device__ __forceinline__ void DotBlockSum(BlastDD acc, double *dst) {
  __shared__ double sh[2 * kDotThreads];
  BlastDDNormalize(&acc);
  sh[2 * threadIdx.x] = acc.hi, sh[2 * threadIdx.x + 1] = acc.lo;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      BlastDD a = {sh[2 * threadIdx.x], sh[2 * threadIdx.x + 1]};
      BlastDDAddDD(&a, sh[2 * (threadIdx.x + s)], sh[2 * (threadIdx.x + s) + 1]);
      BlastDDNormalize(&a);
      sh[2 * threadIdx.x] = a.hi, sh[2 * threadIdx.x + 1] = a.lo;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) dst[0] = sh[0], dst[1] = sh[1];
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

#endif  // BLAST_GPU_KERNELS_DOT_BLOCK_CUH
