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

/// The CUDA backend table, and its options (set before the backend's `create`, which
/// copies them into its context: later calls do not change a context already created).
extern const BlastBackendOps blast_backend_cuda;
void BlastCudaSetOptions(const BlastGpuOptions *opt);
/// Device memory taken by the backend's data (bytes, measured at creation) of the context
/// `ctx` (BlastHydroGetBackend), 0 for NULL.
size_t BlastCudaMemoryUsed(const void *ctx);

/// Entries of the kernel profile (BlastGpuOptions.profile).
enum { BLAST_GPU_PROFILE_KERNELS = 11 };

/// Per-kernel totals of one context's profile (BlastGpuOptions.profile; zero when off):
/// events around every kernel, with modeled bytes and flops.
typedef struct {
  int on;  ///< the profile was taken
  int n;   ///< entries in kernel[]
  struct {
    const char *name;     ///< "k_qdata_force (1-6)", ..., "halo pack/unpack"
    long long calls;      ///< 0: not run (not printed)
    double ms;            ///< total time
    double bytes, flops;  ///< modeled totals
  } kernel[BLAST_GPU_PROFILE_KERNELS];
  size_t mem_in_use;    ///< device bytes lost since creation, at the first update (0: none yet)
  size_t mem_estimate;  ///< BlastCudaMemoryEstimate of this rank
} BlastGpuProfile;

/// The profile of context `ctx` so far (read it before the backend is destroyed).
void BlastCudaGetProfile(const void *ctx, BlastGpuProfile *prof);

/// Kernels whose launch parameters the backend tunes on the run's first calls.
typedef enum {
  BLAST_GPU_TUNED_QDATA = 0,  ///< k_qdata_force's shape and k_force_gemm's block
  BLAST_GPU_TUNED_SPMM = 1    ///< the mass-matrix kernel's variant
} BlastGpuTunedKernel;

/// One tuning decision: the fastest candidate, and its time.
typedef struct {
  BlastGpuTunedKernel kernel;
  /// BLAST_GPU_TUNED_QDATA: zones per block, threads per zone, register cap of
  /// k_qdata_force; threads per block of k_force_gemm; 1 if k_qdata_force is the one
  /// compiled for the zone sizes (triangles and tetrahedra), 0 the run-time-sized one.
  int zones_per_block, threads_per_zone, registers, gemm_threads, sizes_compiled;
  /// BLAST_GPU_TUNED_SPMM: threads per block, least blocks per SM, unroll.
  int threads, min_blocks, unroll;
  double ms;
} BlastGpuTuneDecision;

/// The tuning decisions taken by a context in this run, in the order they were taken
/// (none when `[gpu] autotune = off`, when the quadrature kernel's shape came from the
/// cache, or before tuning has ended). Each candidate's time is traced as it is measured
/// through BlastLog (BLAST_LOG_TRACE) when BlastGpuOptions.verbose > 1.
typedef struct {
  int n;
  BlastGpuTuneDecision decision[2];
} BlastGpuAutotune;

/// The tuning decisions of context `ctx` so far.
void BlastCudaGetAutotune(const void *ctx, BlastGpuAutotune *tune);

/// Sizes that determine the device memory of one rank (from BlastHydroData).
typedef struct {
  int dim, nz, nqp, h1_nd, l2_nd, h1_nl, h1_nown, h1_next;
  long long mv_nnz;       ///< non-zeros of the owned rows of the scalar H1 mass matrix
  long long mv_sell_nnz;  ///< its stored entries in sliced ELLPACK, padding included (0: mv_nnz)
  int cusparse;           ///< `[gpu] spmv = cusparse`: CSR copies for cuSPARSE instead
  long long ess;          ///< constrained owned dofs, all components
  int halo_send[2], halo_recv[2];
  int tg_source;
  int nslot;            ///< table slots: 2 on meshes of triangles and quadrilaterals, else 1
  int pa;               ///< partial assembly: no F, J0^{-1}, mass matrix; the sizes below
  int nz_ext;           ///< zones incl. halo zones
  int pa_keep_stress;   ///< the stress kept per point
  long long mass_nidx;  ///< entries of mass_tidx
  double pa_scratch;    ///< bytes of the generic kernels' scratch (BlastCudaPaScratch)
} BlastCudaMemorySizes;

/// The partial path's generic kernels (a thread per zone): the threads and the scratch
/// doubles per thread (the CPU backend's workspace of a zone), within 1 GiB in all; no
/// threads (0) where the shared-memory kernels cover every use (3D, no kept stress).
void BlastCudaPaScratch(const BlastHydroData *hd, int *threads, int *wsz);

/// Fixed allowance per rank (bytes): cudaMalloc's 2 MiB rounding of ~70 buffers and the
/// cuBLAS/cuSPARSE handles' workspaces.
#define BLAST_CUDA_MEMORY_FIXED (192.0 * 1048576.0)

/// The sizes of the data hd with the options opt (its SpMV path and sliced-ELLPACK window;
/// NULL: the defaults).
void BlastCudaMemorySizesOf(const BlastHydroData *hd, const BlastGpuOptions *opt,
                            BlastCudaMemorySizes *s);
/// The mass matrix's sliced-ELLPACK window (sell.h) from the text of BLAST_SELL_SIGMA
/// (the application reads it): 0 or a positive multiple of 32, else BLAST_ERR_INPUT;
/// BLAST_SELL_SIGMA_DEFAULT when text is NULL or empty.
int BlastCudaSellSigmaParse(const char *text, int *sigma);
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

/// Name of the last kernel launched in this process (for errors that surface later).
/// One of the two globals of gpu/ (the other: the options BlastCudaSetOptions keeps for
/// the next `create`, backends/cuda/setup.cu). A kernel's execution error is sticky in the
/// process's CUDA context of the device and surfaces at whichever CUDA call synchronizes
/// next, also in code with no backend context at hand (uploads, frees, device selection,
/// other backend contexts on the same device), where BlastCallCuda reports it: the record
/// belongs to the process, not to a backend context. Written by BlastCheckKernel (and by
/// test_cuda_errors, which checks the message).
extern const char *blast_cuda_last_kernel;

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
/// Check the last kernel launch (and, when `sync` is nonzero, its execution: the
/// context's BlastGpuOptions.sync, BLAST_CUDA_SYNC=1); names the kernel, and remembers it
/// for errors of its execution found by later calls.
#define BlastCheckKernel(sync, name)                                                        \
  do {                                                                                      \
    cudaError_t blast_cerr_ = cudaGetLastError();                                           \
    if (blast_cerr_ != cudaSuccess)                                                         \
      return BlastCudaError(__FILE__, __LINE__, __func__, (int)blast_cerr_,                 \
                            "launch of kernel " name, cudaGetErrorString(blast_cerr_));     \
    blast_cuda_last_kernel = name;                                                          \
    if ((sync) && (blast_cerr_ = cudaDeviceSynchronize()) != cudaSuccess)                   \
      return BlastCudaError(__FILE__, __LINE__, __func__, (int)blast_cerr_, "kernel " name, \
                            cudaGetErrorString(blast_cerr_));                               \
  } while (0)
#endif

#endif  // BLAST_CUDA_H
