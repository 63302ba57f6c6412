// Device selection and CUDA error conversion.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "blast_cuda.h"

extern "C" int BlastCudaError(const char *file, int line, const char *func, int status,
                              const char *call, const char *what) {
  return BlastErrorRaise(file, line, func, BLAST_ERR_CUDA, "%s failed: %s (CUDA error %d)", call,
                         what, status);
}

extern "C" int BlastCudaSelectDevice(int node_rank, BlastGpuInfo *info) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  BlastCheck(err == cudaSuccess && count > 0, BLAST_ERR_UNSUPPORTED,
             "no usable CUDA device (%s); run with [gpu] backend = cpu, or check "
             "CUDA_VISIBLE_DEVICES and the driver",
             err == cudaSuccess ? "0 devices visible" : cudaGetErrorString(err));
  int dev = node_rank % count;
  BlastCallCuda(cudaSetDevice(dev));
  cudaDeviceProp prop;
  BlastCallCuda(cudaGetDeviceProperties(&prop, dev));
  memset(info, 0, sizeof *info);
  info->device = dev;
  info->count = count;
  snprintf(info->name, sizeof info->name, "%s", prop.name);
  info->sm_major = prop.major;
  info->sm_minor = prop.minor;
  info->multiprocessors = prop.multiProcessorCount;
  info->memory_gib = (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
  return 0;
}

extern "C" int BlastCudaDeviceCount(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver / no device" status
    return 0;
  }
  return count;
}
