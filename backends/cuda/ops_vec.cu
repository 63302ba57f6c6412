// The backend table's vec group: device and pinned memory, copies, whole-vector kernels.
#include "context.h"
#include "kernels/vector.cuh"

extern "C" int BlastCudaAlloc(void *ctx, size_t n, double **p) {
  BlastCallCuda(cudaMalloc((void **)p, (n ? n : 1) * sizeof(double)));
  BlastCallCuda(cudaMemsetAsync(*p, 0, (n ? n : 1) * sizeof(double), ((CudaCtx *)ctx)->stream));
  return 0;
}
extern "C" int BlastCudaFree(void *ctx, double **p) {
  BlastCallCuda(cudaFree(*p));
  *p = NULL;
  return 0;
}
extern "C" int BlastCudaHostAlloc(void *ctx, size_t n, double **p) {
  BlastCallCuda(cudaMallocHost((void **)p, (n ? n : 1) * sizeof(double)));
  return 0;
}
extern "C" int BlastCudaHostFree(void *ctx, double **p) {
  BlastCallCuda(cudaFreeHost(*p));
  *p = NULL;
  return 0;
}
extern "C" int BlastCudaToHost(void *ctx, size_t n, const double *src, double *dst) {
  CudaCtx *c = (CudaCtx *)ctx;
  BlastCallCuda(cudaMemcpyAsync(dst, src, n * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  return 0;
}
extern "C" int BlastCudaFromHost(void *ctx, size_t n, const double *src, double *dst) {
  CudaCtx *c = (CudaCtx *)ctx;
  BlastCallCuda(cudaMemcpyAsync(dst, src, n * sizeof(double), cudaMemcpyHostToDevice, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  return 0;
}
extern "C" int BlastCudaCopy(void *ctx, size_t n, const double *src, double *dst) {
  if (n && src != dst)
    BlastCallCuda(cudaMemcpyAsync(dst, src, n * sizeof(double), cudaMemcpyDeviceToDevice, ((CudaCtx *)ctx)->stream));
  return 0;
}

extern "C" int BlastCudaSet(void *ctx, size_t n, double a, double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  k_set<<<GridFor(n), 256, 0, c->stream>>>(n, a, x);
  BlastCheckKernel(c->sync, "k_set");
  return 0;
}
extern "C" int BlastCudaAxpby(void *ctx, size_t n, double a, const double *x, double b, double *y) {
  CudaCtx *c = (CudaCtx *)ctx;
  ProfBegin(c);
  k_axpby<<<GridFor(n), 256, 0, c->stream>>>(n, a, x, b, y);
  BlastCheckKernel(c->sync, "k_axpby");
  ProfEnd(c, P_VEC, 24.0 * n, 3.0 * n);
  return 0;
}
extern "C" int BlastCudaWaxpby(void *ctx, size_t n, double a, const double *x, double b,
                               const double *y, double *w) {
  CudaCtx *c = (CudaCtx *)ctx;
  ProfBegin(c);
  k_waxpby<<<GridFor(n), 256, 0, c->stream>>>(n, a, x, b, y, w);
  BlastCheckKernel(c->sync, "k_waxpby");
  ProfEnd(c, P_VEC, 24.0 * n, 3.0 * n);
  return 0;
}

extern "C" int BlastCudaDot(void *ctx, size_t n, const double *x, const double *y, double *result) {
  CudaCtx *c = (CudaCtx *)ctx;
  ProfBegin(c);
  k_dot_dd<<<kDotBlocks, kDotThreads, 0, c->stream>>>(n, x, y, c->dot_part);
  BlastCheckKernel(c->sync, "k_dot_dd");
  ProfEnd(c, P_DOT, 16.0 * n, 2.0 * n);
  BlastCallCuda(cudaMemcpyAsync(c->dot_host, c->dot_part, 2 * kDotBlocks * sizeof(double), cudaMemcpyDeviceToHost,
                                c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  BlastDD acc = {0.0, 0.0};
  for (int k = 0; k < kDotBlocks; k++) BlastDDAddDD(&acc, c->dot_host[2 * k], c->dot_host[2 * k + 1]);
  BlastDDNormalize(&acc);
  result[0] = acc.hi, result[1] = acc.lo;
  return 0;
}
