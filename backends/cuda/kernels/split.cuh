// CPU+GPU hybrid: E-vectors of the host zones.
// Kernel bodies only: launched from backends/cuda/ops_split.cu; a kernel is defined in exactly one
// translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_SPLIT_CUH
#define BLAST_GPU_KERNELS_SPLIT_CUH

#include "context.h"

// out[(z - z0) * rows + c * nd + a] = u[c * nl + edof[z][a]] for z in [z0, z0 + n).
__global__ void k_gather_zones(DevData d, int z0, int n, const double *u, double *out) {
  const size_t tot = (size_t)n * d.rows;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < tot; i += (size_t)gridDim.x * blockDim.x) {
    const size_t k = i / d.rows;
    const int r = (int)(i % d.rows), c = r / d.nd, a = r % d.nd;
    out[i] = u[(size_t)c * d.nl + d.edof[(size_t)(z0 + k) * d.nd + a]];
  }
}

#endif  // BLAST_GPU_KERNELS_SPLIT_CUH
