// Vector kernels: set, axpby, waxpby and the double-double dot product.
// Kernel bodies only: launched from backends/cuda/ops_vec.cu; a kernel is defined in exactly one
// translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_VECTOR_CUH
#define BLAST_GPU_KERNELS_VECTOR_CUH

#include "context.h"
#include "dot_block.cuh"

__global__ void k_set(size_t n, double a, double *x) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x[i] = a;
}
__global__ void k_axpby(size_t n, double a, const double *x, double b, double *y) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    y[i] = __dadd_rn(__dmul_rn(a, x[i]), __dmul_rn(b, y[i]));
}
__global__ void k_waxpby(size_t n, double a, const double *x, double b, const double *y, double *w) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    w[i] = __dadd_rn(__dmul_rn(a, x[i]), __dmul_rn(b, y[i]));
}

// Double-double dot: every thread accumulates a fixed strided subset, blocks reduce in a
// fixed tree; the host combines the block pairs in order. The products are rounded as on
// the CPU (__dmul_rn: no fused multiply-add).
__global__ void k_dot_dd(size_t n, const double *x, const double *y, double *part) {
  BlastDD acc = {0.0, 0.0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    BlastDDAdd(&acc, __dmul_rn(x[i], y[i]));
  DotBlockSum(acc, &part[2 * blockIdx.x]);
}

#endif  // BLAST_GPU_KERNELS_VECTOR_CUH
