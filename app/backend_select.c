// The backend of each rank and the environment's part of the run-time options
// (backend_select.h).
#define _POSIX_C_SOURCE 200809L  // mkdir

#include "backend_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blast.h"
#ifdef BLAST_HAVE_CUDA
#include "blast_cuda.h"
#endif
#include "blast_mpi.h"
#include "memory.h"

void BlastRunOptionsFromEnvironment(BlastConfig *cfg) {
  const char *mem = getenv("BLAST_MEMORY_CHECK");
  BlastMemorySetChecks(!(mem && !strcmp(mem, "0")));
  const char *trace = getenv("BLAST_BALANCE_TRACE");
  cfg->balance_trace = trace && atoi(trace) > 0;
}

#ifdef BLAST_HAVE_CUDA
// The environment's part of the GPU options, read here only (the libraries take options):
// BLAST_GPU_PROFILE=1, BLAST_CUDA_SYNC=1, BLAST_GPU_RESIDENT_SHARED=1, BLAST_GPU_PDL=0,
// BLAST_SELL_SIGMA, and the autotuning cache, $XDG_CACHE_HOME/blast_gpu_autotune.txt or
// else ~/.cache/blast_gpu_autotune.txt.
static int GpuEnvOptions(const BlastConfig *cfg, BlastGpuOptions *opt) {
  const char *prof = getenv("BLAST_GPU_PROFILE"), *sync = getenv("BLAST_CUDA_SYNC");
  const char *shared = getenv("BLAST_GPU_RESIDENT_SHARED"), *pdl = getenv("BLAST_GPU_PDL");
  opt->profile = prof && atoi(prof) > 0;
  opt->sync = sync && atoi(sync) > 0;
  opt->resident_shared = shared && atoi(shared) > 0;
  opt->pdl_off = pdl && !strcmp(pdl, "0");
  BlastCall(BlastCudaSellSigmaParse(getenv("BLAST_SELL_SIGMA"), &opt->sell_sigma));
  opt->sell_sigma_set = 1;
  if (cfg->gpu_autotune == BLAST_AUTOTUNE_OFF) return 0;  // no cache read or written
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (xdg && xdg[0]) {
    snprintf(opt->cache_path, sizeof opt->cache_path, "%s/blast_gpu_autotune.txt", xdg);
  } else {
    char dir[400];
    snprintf(dir, sizeof dir, "%s/.cache", home ? home : ".");
    mkdir(dir, 0755);  // best effort; a missing cache only costs tuning time
    snprintf(opt->cache_path, sizeof opt->cache_path, "%s/blast_gpu_autotune.txt", dir);
  }
  return 0;
}
#endif

int BlastBackendSelect(MPI_Comm comm, const BlastConfig *cfg, const BlastBackendOps **ops,
                       char *desc, size_t ndesc) {
  *ops = &blast_backend_cpu;
  snprintf(desc, ndesc, "cpu");
#ifdef BLAST_HAVE_CUDA
  if (cfg->gpu_backend == BLAST_GPU_CPU) return 0;
  MPI_Comm node;
  int node_rank, node_size, rank;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  BlastCallMPI(MPI_Comm_rank(node, &node_rank));
  BlastCallMPI(MPI_Comm_size(node, &node_size));
  BlastCallMPI(MPI_Comm_free(&node));
  const int ndev = BlastCudaDeviceCount();
  if (ndev == 0) {
    BlastCheck(cfg->gpu_backend != BLAST_GPU_CUDA, BLAST_ERR_UNSUPPORTED,
               "[gpu] backend = cuda, but no CUDA device is visible on this node (check "
               "CUDA_VISIBLE_DEVICES and the driver, or use [gpu] backend = cpu)");
    return 0;
  }
  BlastGpuInfo info;
  BlastCall(BlastCudaSelectDevice(node_rank, &info));
  BlastGpuOptions opt;
  memset(&opt, 0, sizeof opt);
  opt.autotune = cfg->gpu_autotune;
  opt.spmv_cusparse = cfg->gpu_spmv;
  opt.graphs_off = cfg->gpu_graphs;
  // BLAST_AUTOTUNE_TRACE=1 also prints each candidate's time (rank 0).
  const char *trace = getenv("BLAST_AUTOTUNE_TRACE");
  opt.verbose = rank == 0 ? (trace && trace[0] == '1' ? 2 : 1) : 0;
  BlastCall(GpuEnvOptions(cfg, &opt));
  BlastCudaSetOptions(&opt);
  *ops = &blast_backend_cuda;
  const int per_gpu = (node_size + ndev - 1) / ndev;
  snprintf(desc, ndesc,
           "cuda on %s (sm_%d%d, %.0f GiB), %d of %d node GPUs, up to %d ranks per GPU", info.name,
           info.sm_major, info.sm_minor, info.memory_gib, ndev < node_size ? ndev : node_size, ndev,
           per_gpu);
#else
  (void)comm;
  BlastCheck(cfg->gpu_backend != BLAST_GPU_CUDA, BLAST_ERR_UNSUPPORTED,
             "[gpu] backend = cuda, but this build of blast_gpu has no CUDA backend (rebuild "
             "with the CUDA toolkit installed, -DBLAST_ENABLE_CUDA=ON)");
#endif
  return 0;
}
