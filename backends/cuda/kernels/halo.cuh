// Halo packing into and out of the device staging buffer.
// Kernel bodies only: launched from backends/cuda/ops_halo.cu; a kernel is defined in exactly one
// translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_HALO_CUH
#define BLAST_GPU_KERNELS_HALO_CUH

#include "context.h"

__global__ void k_pack(int n, int ncomp, size_t stride, const int *idx, const double *x, double *buf) {
  const size_t total = (size_t)n * ncomp;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const size_t c = i / n, k = i % n;
    buf[i] = x[c * stride + idx[k]];
  }
}

__global__ void k_unpack_set(int n, int ncomp, size_t stride, const int *idx, const double *buf, double *x) {
  const size_t total = (size_t)n * ncomp;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const size_t c = i / n, k = i % n;
    x[c * stride + idx[k]] = buf[i];
  }
}

// Reverse unpack: each distinct target adds its buffer entries in list order.
__global__ void k_unpack_add(DevHalo h, int ncomp, size_t stride, const double *buf, double *x, int dd) {
  const size_t total = (size_t)h.ntarget * ncomp;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const int c = (int)(i / h.ntarget), k = (int)(i % h.ntarget), tgt = h.target[k];
    if (dd) {
      double *xh = &x[c * stride + tgt], *xl = &x[(ncomp + c) * stride + tgt];
      BlastDD acc = {*xh, *xl};
      for (int p = h.toff[k]; p < h.toff[k + 1]; p++) {  // normalised after each term, as the CPU
        BlastDDAddDD(&acc, buf[(size_t)c * h.nsend + h.tpos[p]], buf[(size_t)(ncomp + c) * h.nsend + h.tpos[p]]);
        BlastDDNormalize(&acc);
      }
      *xh = acc.hi, *xl = acc.lo;
    } else {
      double s = x[c * stride + tgt];
      for (int p = h.toff[k]; p < h.toff[k + 1]; p++) s += buf[(size_t)c * h.nsend + h.tpos[p]];
      x[c * stride + tgt] = s;
    }
  }
}

// The device-to-device transport's pack: block row y is route y; its entries go straight
// into the neighbour's area (on this GPU or a peer's), made visible to the other process
// before the kernel's completion is reported.
__global__ void k_peer_pack(const DevRoute *routes, const int *idx, int ncomp, size_t stride,
                            const double *x, int parity) {
  const DevRoute r = routes[blockIdx.y];
  double *dst = r.dst + parity * r.half;
  const size_t total = (size_t)r.cnt * ncomp;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    const size_t c = i / r.cnt, k = i % r.cnt;
    dst[c * r.rtotal + k] = x[c * stride + idx[r.off + k]];
  }
  __threadfence_system();
}

#endif  // BLAST_GPU_KERNELS_HALO_CUH
