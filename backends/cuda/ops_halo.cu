// The backend table's halo group: halo entries packed into and out of host buffers
// through the device staging buffer.
#include "context.h"
#include "kernels/halo.cuh"

extern "C" int BlastCudaHaloPack(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *x, double *buf) {
  CudaCtx *c = (CudaCtx *)ctx;
  const DevHalo *h = &c->halo[which];
  const int n = reverse ? h->nrecv : h->nsend;
  if (!n) return 0;
  k_pack<<<GridFor((size_t)n * ncomp), 256, 0, c->stream>>>(n, ncomp, stride, reverse ? h->recv_idx : h->send_idx, x,
                                                          c->dbuf);
  BlastCheckKernel(c->sync, "k_pack");
  BlastCallCuda(cudaMemcpyAsync(buf, c->dbuf, (size_t)n * ncomp * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  return 0;
}

extern "C" int BlastCudaHaloUnpack(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *buf, double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  const DevHalo *h = &c->halo[which];
  const int n = reverse ? h->nsend : h->nrecv;
  if (!n) return 0;
  BlastCallCuda(cudaMemcpyAsync(c->dbuf, buf, (size_t)n * ncomp * sizeof(double), cudaMemcpyHostToDevice, c->stream));
  if (!reverse) {
    k_unpack_set<<<GridFor((size_t)n * ncomp), 256, 0, c->stream>>>(n, ncomp, stride, h->recv_idx, c->dbuf, x);
    BlastCheckKernel(c->sync, "k_unpack_set");
  } else {
    k_unpack_add<<<GridFor((size_t)h->ntarget * ncomp), 256, 0, c->stream>>>(*h, ncomp, stride, c->dbuf, x, 0);
    BlastCheckKernel(c->sync, "k_unpack_add");
  }
  return 0;
}

extern "C" int BlastCudaHaloUnpackDD(void *ctx, int which, int ndd, size_t stride, const double *buf, double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  const DevHalo *h = &c->halo[which];
  if (!h->nsend) return 0;
  BlastCallCuda(cudaMemcpyAsync(c->dbuf, buf, (size_t)h->nsend * 2 * ndd * sizeof(double), cudaMemcpyHostToDevice,
                                c->stream));
  k_unpack_add<<<GridFor((size_t)h->ntarget * ndd), 256, 0, c->stream>>>(*h, ndd, stride, c->dbuf, x, 1);
  BlastCheckKernel(c->sync, "k_unpack_add(dd)");
  return 0;
}
