/// @file blast_cuda.h
/// @brief CUDA, cuBLAS and cuSPARSE status checks (C and CUDA code) and the C interface
/// of the CUDA backend.
#ifndef BLAST_CUDA_H
#define BLAST_CUDA_H

#include "backend.h"
#include "blast.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Information about the GPU a rank uses.
typedef struct {
  int device;         ///< CUDA device ordinal
  int count;          ///< visible devices
  char name[256];
  int sm_major, sm_minor, multiprocessors;
  double memory_gib;  ///< total device memory
} BlastGpuInfo;

/// Select the device for this rank (node-local rank modulo visible devices) and report it.
/// Returns BLAST_ERR_UNSUPPORTED with a clear message if no device is usable.
int BlastCudaSelectDevice(int node_rank, BlastGpuInfo *info);

/// Number of visible CUDA devices (0 when none or no driver), without raising errors.
int BlastCudaDeviceCount(void);

/// The CUDA backend table, and its options (set before the backend's `create`).
extern const BlastBackendOps blast_backend_cuda;
void BlastCudaSetOptions(const BlastGpuOptions *opt);
/// Device memory taken by the backend's data (bytes, measured at creation).
size_t BlastCudaMemoryUsed(void);

#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__) || defined(BLAST_CUDA_CHECKS)
#include <cuda_runtime.h>
#ifdef __cplusplus
extern "C"
#endif
    int
    BlastCudaError(const char *file, int line, const char *func, int status, const char *call,
                   const char *what);
/// Checked CUDA runtime call; the message names the call and CUDA's error string.
#define BlastCallCuda(...)                                                                 \
  do {                                                                                     \
    cudaError_t blast_cerr_ = (__VA_ARGS__);                                               \
    if (blast_cerr_ != cudaSuccess)                                                        \
      return BlastCudaError(__FILE__, __LINE__, __func__, (int)blast_cerr_, #__VA_ARGS__,  \
                            cudaGetErrorString(blast_cerr_));                              \
  } while (0)
/// Check the last kernel launch (and, with sync, its execution); names the kernel.
#define BlastCheckKernel(name)                                                            \
  do {                                                                                    \
    cudaError_t blast_cerr_ = cudaGetLastError();                                         \
    if (blast_cerr_ != cudaSuccess)                                                       \
      return BlastCudaError(__FILE__, __LINE__, __func__, (int)blast_cerr_, "kernel " name, \
                            cudaGetErrorString(blast_cerr_));                             \
  } while (0)
#endif

#endif  // BLAST_CUDA_H
