// Measured ceilings of the GPU for the roofline: device-to-device copy bandwidth (bytes
// read + written) and FP64 DGEMM rate through cuBLAS. Prints medians of repeated runs.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                       \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

static int Cmp(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

__global__ void fill(size_t n, double *x, double v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x[i] = v + 1e-9 * (double)(i % 1000);
}

int main(void) {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  const size_t n = (size_t)1 << 28;  // 2 GiB per buffer
  double *a, *b;
  CK(cudaMalloc(&a, n * 8));
  CK(cudaMalloc(&b, n * 8));
  fill<<<1024, 256>>>(n, a, 1.0);
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  float t[21];
  for (int r = 0; r < 21; r++) {
    CK(cudaEventRecord(e0));
    CK(cudaMemcpy(b, a, n * 8, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&t[r], e0, e1));
  }
  qsort(t, 21, sizeof(float), Cmp);
  printf("copy bandwidth (read+write): %.1f GB/s (median of 21)\n", 2.0 * n * 8 / (t[10] * 1e-3) * 1e-9);
  CK(cudaFree(a));
  CK(cudaFree(b));
  const int m = 8192;
  double *A, *B, *C;
  CK(cudaMalloc(&A, (size_t)m * m * 8));
  CK(cudaMalloc(&B, (size_t)m * m * 8));
  CK(cudaMalloc(&C, (size_t)m * m * 8));
  fill<<<1024, 256>>>((size_t)m * m, A, 0.5);
  fill<<<1024, 256>>>((size_t)m * m, B, 0.25);
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  const double one = 1.0, zero = 0.0;
  for (int r = 0; r < 11; r++) {
    CK(cudaEventRecord(e0));
    if (cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, A, m, B, m, &zero, C, m) != CUBLAS_STATUS_SUCCESS)
      return 1;
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&t[r], e0, e1));
  }
  qsort(t, 11, sizeof(float), Cmp);
  printf("DGEMM %d^3: %.1f GFLOP/s (median of 11)\n", m, 2.0 * m * (double)m * m / (t[5] * 1e-3) * 1e-9);
  cublasDestroy(h);
  return 0;
}
