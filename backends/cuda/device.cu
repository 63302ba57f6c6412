// Device selection and CUDA error conversion.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "blast_cuda.h"

// The last kernel launched in this process (blast_cuda.h says why it is a global).
extern "C" {
const char *blast_cuda_last_kernel = NULL;
}

// Errors of a kernel's execution: reported by whichever call synchronizes next.
static int IsExecutionError(int status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorECCUncorrectable:
      return 1;
    default:
      return 0;
  }
}

extern "C" int BlastCudaError(const char *file, int line, const char *func, int status,
                              const char *call, const char *what) {
  if (status == cudaErrorMemoryAllocation) {
    size_t fr = 0, tot = 0;
    if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) fr = tot = 0, cudaGetLastError();
    return BlastErrorRaise(file, line, func, BLAST_ERR_MEM,
                           "%s failed: %s (CUDA error %d): the GPU has %.2f GiB free of %.2f "
                           "GiB; use fewer ranks per GPU with more GPUs, or a smaller mesh "
                           "(nvidia-smi shows what else holds GPU memory)",
                           call, what, status, fr / 1073741824.0, tot / 1073741824.0);
  }
  if (IsExecutionError(status) && strncmp(call, "kernel ", 7) != 0 && blast_cuda_last_kernel)
    return BlastErrorRaise(file, line, func, BLAST_ERR_CUDA,
                           "%s failed: %s (CUDA error %d), raised by a kernel that ran before "
                           "this call, most likely the last one launched: %s (rerun with "
                           "BLAST_CUDA_SYNC=1 to check every kernel as it ends)",
                           call, what, status, blast_cuda_last_kernel);
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
