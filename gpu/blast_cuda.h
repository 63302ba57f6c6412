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
  int device;  ///< CUDA device ordinal
  int count;   ///< visible devices
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

/// Sizes that determine the device memory of one rank (from BlastHydroData).
typedef struct {
  int dim, nz, nqp, h1_nd, l2_nd, h1_nl, h1_nown, h1_next;
  long long mv_nnz;  ///< non-zeros of the owned rows of the scalar H1 mass matrix
  long long mv_sell_nnz;  ///< its stored entries in sliced ELLPACK, padding included (0: mv_nnz)
  int cusparse;           ///< `[gpu] spmv = cusparse`: CSR copies for cuSPARSE instead
  long long ess;     ///< constrained owned dofs, all components
  int halo_send[2], halo_recv[2];
  int tg_source;
} BlastCudaMemorySizes;

/// Fixed allowance per rank (bytes): cudaMalloc's 2 MiB rounding of ~70 buffers and the
/// cuBLAS/cuSPARSE handles' workspaces.
#define BLAST_CUDA_MEMORY_FIXED (192.0 * 1048576.0)

void BlastCudaMemorySizesOf(const BlastHydroData *hd, BlastCudaMemorySizes *s);
/// The mass matrix's sliced-ELLPACK window (sell.h): BLAST_SELL_SIGMA if set (0 or a
/// positive multiple of 32, else BLAST_ERR_INPUT), else BLAST_SELL_SIGMA_DEFAULT.
int BlastCudaSellSigma(int *sigma);
/// Estimated device bytes of one rank: the backend's data and the front end's state,
/// Runge-Kutta and PCG vectors (not the CUDA context, not the hybrid's staging buffer).
size_t BlastCudaMemoryEstimate(const BlastCudaMemorySizes *s);

/// A GPU whose ranks need more memory than it has free (summed over the ranks on it).
typedef struct {
  int device;  ///< CUDA device ordinal
  char gpu_name[256];
  int ranks;  ///< ranks using this GPU
  int dim;
  long long zones;     ///< zones of those ranks
  double need;         ///< estimated bytes, summed over those ranks
  double free, total;  ///< cudaMemGetInfo before any of them allocated
} BlastCudaShortfall;

/// The error message: what is needed and free, and the layouts that fit (more GPUs with
/// fewer ranks per GPU, or a smaller mesh).
void BlastCudaMemoryAdvice(char *msg, size_t n, const BlastCudaShortfall *m);

/// Name of the last kernel launched (for errors that surface later), and whether every
/// launch is followed by a synchronization so that errors name their kernel exactly
/// (environment BLAST_CUDA_SYNC=1; slow, for debugging).
extern const char *blast_cuda_last_kernel;
extern int blast_cuda_sync;

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
#define BlastCallCuda(...)                                                                \
  do {                                                                                    \
    cudaError_t blast_cerr_ = (__VA_ARGS__);                                              \
    if (blast_cerr_ != cudaSuccess)                                                       \
      return BlastCudaError(__FILE__, __LINE__, __func__, (int)blast_cerr_, #__VA_ARGS__, \
                            cudaGetErrorString(blast_cerr_));                             \
  } while (0)
/// Check the last kernel launch (and, with BLAST_CUDA_SYNC=1, its execution); names the
/// kernel, and remembers it for errors of its execution found by later calls.
#define BlastCheckKernel(name)                                                              \
  do {                                                                                      \
    cudaError_t blast_cerr_ = cudaGetLastError();                                           \
    if (blast_cerr_ != cudaSuccess)                                                         \
      return BlastCudaError(__FILE__, __LINE__, __func__, (int)blast_cerr_,                 \
                            "launch of kernel " name, cudaGetErrorString(blast_cerr_));     \
    blast_cuda_last_kernel = name;                                                          \
    if (blast_cuda_sync && (blast_cerr_ = cudaDeviceSynchronize()) != cudaSuccess)          \
      return BlastCudaError(__FILE__, __LINE__, __func__, (int)blast_cerr_, "kernel " name, \
                            cudaGetErrorString(blast_cerr_));                               \
  } while (0)
#endif

#endif  // BLAST_CUDA_H
