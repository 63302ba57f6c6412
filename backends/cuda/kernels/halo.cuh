// Halo packing into and out of the device staging buffer.
// Kernel bodies only: launched from backends/cuda/ops_halo.cu; a kernel is defined in exactly one
// translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_HALO_CUH
#define BLAST_GPU_KERNELS_HALO_CUH

#include "context.h"
#include "dot_block.cuh"
#include "peer_mail.cuh"

__global__ void k_pack(int n, int ncomp, size_t stride, const int *idx, const double *x, double *buf) {
  const size_t total = (size_t)n * ncomp;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const size_t c = i / n, k = i % n;
    buf[i] = x[c * stride + idx[k]];
  }
}

// The grid's share of a forward unpack: ghost idx[k] of component c set from buf.
__device__ __forceinline__ void UnpackSet(int n, int ncomp, size_t stride, const int *idx,
                                          const double *buf, double *x) {
  const size_t total = (size_t)n * ncomp;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    const size_t c = i / n, k = i % n;
    x[c * stride + idx[k]] = buf[i];
  }
}

__global__ void k_unpack_set(int n, int ncomp, size_t stride, const int *idx, const double *buf,
                             double *x) {
  UnpackSet(n, ncomp, stride, idx, buf, x);
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

// The block's share of route r's entries written into half `parity` of the neighbour's
// area (on this GPU or a peer's).
__device__ __forceinline__ void PeerPackRoute(const DevRoute &r, const int *idx, int ncomp,
                                              size_t stride, const double *x, int parity) {
  double *dst = r.dst + parity * r.half;
  const size_t total = (size_t)r.cnt * ncomp;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    const size_t c = i / r.cnt, k = i % r.cnt;
    dst[c * r.rtotal + k] = x[c * stride + idx[r.off + k]];
  }
}

// The device-to-device transport's pack: block row y is route y; its entries go straight
// into the neighbour's area. No fence: the neighbour reads them only after this rank's
// host has seen the kernel complete (an event after it), and a kernel's writes are
// performed, for every process and device, once its completion is reported.
__global__ void k_peer_pack(const DevRoute *routes, const int *idx, int ncomp, size_t stride,
                            const double *x, int parity) {
  PeerPackRoute(routes[blockIdx.y], idx, ncomp, stride, x, parity);
}

// The resident solve's ghost columns (PeerSolveHaloBegin): k_peer_pack's writes into the
// neighbours' second pair of halves, half seq[0] % 2 (block rows past nroute write
// nothing), then, once every block's writes are fenced, the last block to finish posts
// seq[0] + 1 as this rank's flag in every neighbour's mailbox (mail[i][me]). seq: the
// exchanges so far, on the device (k_peer_unpack_wait counts them), so that a graph can
// replay the launch; count: 0 between launches.
__global__ void k_peer_pack_post(const DevRoute *routes, int nroute, const int *idx, int ncomp,
                                 size_t stride, const double *x, const unsigned long long *seq,
                                 unsigned long long *const *mail, int npeer, int me,
                                 unsigned *count) {
  __shared__ int last;
  const unsigned long long k = *seq;
  if ((int)blockIdx.y < nroute)
    PeerPackRoute(routes[blockIdx.y], idx, ncomp, stride, x, (int)(k & 1u));
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x * gridDim.y - 1u;
  __syncthreads();
  if (!last) return;
  __threadfence_system();
  if (threadIdx.x == 0) *count = 0u;
  for (int i = threadIdx.x; i < npeer; i += blockDim.x)
    *(volatile unsigned long long *)&mail[i][me] = k + 1;
}

// The resident solve's ghost columns arriving (PeerSolveHaloEnd): every block waits until
// each neighbour in ranks (npeer of them) has posted exchange seq[0] + 1 in flag[rank] of
// this rank's mailbox, then sets its share of the n ghost entries (ncomp components) from
// half seq[0] % 2 of the area's second pair (halves: its first half; the second lies
// `half` doubles after it); the last block to finish counts the exchange (seq[0] + 1). count: 0 between launches.
__global__ void k_peer_unpack_wait(const unsigned long long *flag, const int *ranks, int npeer,
                                   unsigned long long *seq, unsigned *count, int n, int ncomp,
                                   size_t stride, const int *idx, const double *halves,
                                   size_t half, double *x) {
  __shared__ int last;
  const unsigned long long k = *seq;
  for (int i = threadIdx.x; i < npeer; i += blockDim.x) PeerAwait(flag + ranks[i], k + 1);
  __syncthreads();
  UnpackSet(n, ncomp, stride, idx, halves + (k & 1u) * half, x);
  __threadfence();  // this block's read of seq before its count
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x - 1u;
  __syncthreads();
  if (!last) return;
  __threadfence();
  if (threadIdx.x == 0) *count = 0u, *seq = k + 1;
}

// A dot's fold and post in one launch (PeerSolveDotPost): block c folds component c's
// block pairs into mine[2c], mine[2c + 1] as k_dot_fold does (the same tree: the same
// bits), then the last block to finish posts mine (kPcgRankPairs doubles) to every other
// rank (PeerDotPost, gather *seq; the kernel that reads the gather counts it). count: 0
// between launches.
__global__ void k_peer_fold_post(const double *part, int stride, int nslots, unsigned mask,
                                 double *mine, unsigned long long *const *mail, int npeer, int me,
                                 const unsigned long long *seq, unsigned *count) {
  __shared__ int last;
  const int c = blockIdx.x;
  DotFoldCompAhead<8>(part, stride, nslots, c, (mask >> c) & 1u, &mine[2 * c]);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x - 1u;
  __syncthreads();
  if (!last) return;
  __threadfence();
  if (threadIdx.x == 0) *count = 0u;
  PeerDotPost(mail, npeer, me, *seq, mine);
}

#endif  // BLAST_GPU_KERNELS_HALO_CUH
