// blast_gpu entry point: MPI/OpenMP start-up, command line, mesh, the run, reports, and
// the error exit policy.
#include <errno.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "blast.h"
#ifdef BLAST_HAVE_CUDA
#include "blast_cuda.h"
#endif
#include "blast_mpi.h"
#include "cli.h"
#include "diagnostics.h"
#include "energy.h"
#include "hydro.h"
#include "meshio.h"
#include "outdir.h"
#include "report.h"

// What a run holds. Run() frees it on success; Finish() on the error paths, so that a
// failed run also ends with every object freed (clean under LeakSanitizer and valgrind).
typedef struct {
  BlastMesh mesh;
  BlastHydro h;
  BlastEnergy meter;
} RunState;

// Free what an interrupted run holds (errors of the frees are not reported: the run's own
// error has been printed already).
static void RunStateFree(RunState *rs) {
  BlastEnergyDestroy(&rs->meter);
  BlastHydroDestroy(&rs->h);
  BlastMeshDestroy(&rs->mesh);
}

// Report an error according to how far it is known across ranks, and end the process.
static int Finish(int ierr, RunState *rs) {
  if (!ierr) {
    MPI_Finalize();
    return 0;
  }
  int rank = BlastErrorGetRank();
  switch (BlastErrorCollective()) {
    case BLAST_COLLECTIVE_SAME:
      if (!rank) BlastErrorPrint();
      break;
    case BLAST_COLLECTIVE_OWN: BlastErrorPrint(); break;
    case BLAST_COLLECTIVE_PASSIVE: break;
    case BLAST_COLLECTIVE_NONE:
    default:
      // Only this rank knows: the others may be waiting in a collective. End the job.
      BlastErrorPrint();
      fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, BlastExitCode(ierr));
      return BlastExitCode(ierr);
  }
  // Every rank stops here together: freeing is safe (and local).
  RunStateFree(rs);
  MPI_Finalize();
  return BlastExitCode(ierr);
}

// Fault injection for testing failure handling (documented in docs/robustness.md):
// BLAST_FAULT_INJECT="<rank>:setup" or "<rank>:step:<n>" makes that rank alone fail there.
typedef struct {
  int rank, step;  // step -1: at setup
} FaultPlan;

static FaultPlan ParseFault(void) {
  FaultPlan f = {-1, -1};
  const char *env = getenv("BLAST_FAULT_INJECT");
  if (!env) return f;
  int r, n;
  if (sscanf(env, "%d:step:%d", &r, &n) == 2)
    f.rank = r, f.step = n;
  else if (sscanf(env, "%d:setup", &r) == 1)
    f.rank = r;
  return f;
}

static int InjectFault(const char *where) {
  BlastError(BLAST_ERR_INTERNAL, "injected fault (BLAST_FAULT_INJECT) during %s on this rank only",
             where);
}

typedef struct {
  BlastProgress *progress;
  FaultPlan fault;
  int rank;
} StepHook;

static int OnStep(void *user, const BlastStepInfo *info) {
  StepHook *hook = user;
  if (hook->fault.rank == hook->rank && hook->fault.step == info->step && !info->rejected)
    BlastCall(InjectFault("a time step"));
  return BlastReportStep(hook->progress, info);
}

// The backend table for this rank: CUDA when built with it, asked for (or auto) and a
// device is visible (device = node-local rank modulo devices), else the CPU. `desc`
// describes the choice for the banner.
static int SelectBackend(MPI_Comm comm, const BlastConfig *cfg, const BlastBackendOps **ops,
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
  opt.verbose = rank == 0;
  BlastCudaSetOptions(&opt);
  *ops = &blast_backend_cuda;
  const int per_gpu = (node_size + ndev - 1) / ndev;
  snprintf(desc, ndesc, "cuda on %s (sm_%d%d, %.0f GiB), %d of %d node GPUs, up to %d ranks per GPU",
           info.name, info.sm_major, info.sm_minor, info.memory_gib, ndev < node_size ? ndev : node_size,
           ndev, per_gpu);
#else
  (void)comm;
  BlastCheck(cfg->gpu_backend != BLAST_GPU_CUDA, BLAST_ERR_UNSUPPORTED,
             "[gpu] backend = cuda, but this build of blast_gpu has no CUDA backend (rebuild "
             "with the CUDA toolkit installed, -DBLAST_ENABLE_CUDA=ON)");
#endif
  return 0;
}

// The serial mesh: read or generated, then refined refine_serial times. Every rank builds
// it (it is small by construction: parallel refinement makes the large meshes).
static int BuildMesh(const BlastConfig *cfg, BlastMesh *mesh) {
  BlastMesh m0 = NULL;
  if (cfg->mesh_file[0])
    BlastCall(BlastMeshRead(cfg->mesh_file, &m0));
  else
    BlastCall(BlastMeshCreateBox(cfg->dim, cfg->elements, cfg->size, &m0));
  if (cfg->refine_serial > 0) {
    BlastCall(BlastMeshRefine(m0, cfg->refine_serial, mesh));
    BlastCall(BlastMeshDestroy(&m0));
  } else {
    *mesh = m0;
  }
  return 0;
}

static int Run(int argc, char **argv, RunState *rs) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastConfig cfg;
  BlastCliAction action;
  memset(&cfg, 0, sizeof cfg);
  BlastCall(BlastCliParse(comm, argc, argv, &cfg, &action));
  if (action == BLAST_CLI_EXIT) return 0;
  // Before the expensive setup: an unusable output directory costs seconds, not a run.
  BlastCall(BlastOutdirCheck(comm, cfg.output_dir, cfg.output_overwrite));
  const double wall0 = MPI_Wtime();
  if (!rank) printf("blast_gpu %s (%s)\n", BLAST_VERSION, BLAST_GIT);

  BlastCallAgree(comm, 1, BuildMesh(&cfg, &rs->mesh));
  const BlastBackendOps *ops = NULL;
  char backend[400];
  BlastCallAgree(comm, 1, SelectBackend(comm, &cfg, &ops, backend, sizeof backend));
  // CPU-only runs use OpenMP on all zones: there is nothing to share them with.
  if (ops == &blast_backend_cpu) cfg.balance_mode = BLAST_BALANCE_OFF;
  BlastCallAgree(comm, 0, BlastHydroCreate(&cfg, rs->mesh, comm, ops, &rs->h));
  BlastHydro h = rs->h;
  const FaultPlan fault = ParseFault();
  if (fault.rank == rank && fault.step < 0) BlastCall(InjectFault("setup"));
  // Output directory only once the input is known to be good: bad input writes nothing.
  int replaced = 0;
  BlastCall(BlastOutdirPrepare(comm, cfg.output_dir, cfg.output_overwrite, &replaced));
  if (!rank && replaced)
    printf("  (removed the earlier results in %s: [output] overwrite = true)\n", cfg.output_dir);

  BlastHydroShape shape = BlastHydroGetShape(h);
  double dt0, energy0, e_norm0;
  BlastHydroGetInitial(h, &dt0, &energy0);
  BlastCall(BlastHydroENorm(h, &e_norm0));
  if (!rank) BlastReportBanner(stdout, &cfg, &shape, backend, dt0, e_norm0, energy0);
#ifdef BLAST_HAVE_CUDA
  if (ops == &blast_backend_cuda) {
    double used = (double)BlastCudaMemoryUsed(), all;
    BlastCallMPI(MPI_Reduce(&used, &all, 1, MPI_DOUBLE, MPI_SUM, 0, comm));
    if (!rank)
      printf("  GPU memory     %.2f GiB for the backend's data, %.2f KB per zone\n\n",
             all / 1073741824.0, all / 1024.0 / (double)shape.zones);
  }
#endif
  const double setup = MPI_Wtime() - wall0;

  BlastProgress progress = {rank, MPI_Wtime(), cfg.t_final, energy0, h, 0, stdout};
  StepHook hook = {&progress, fault, rank};
  // Energy of the time steps: GPUs (NVML) when this rank runs on one, CPUs (RAPL) always.
  BlastEnergyReport energy;
  BlastCall(BlastEnergyStart(comm, strcmp(ops->name, "cpu") != 0, NULL, &rs->meter));
  BlastCall(BlastHydroRun(h, OnStep, &hook));
  BlastCall(BlastEnergyStop(rs->meter, &energy));
  BlastCall(BlastEnergyDestroy(&rs->meter));

  BlastRunSummary sum;
  BlastCall(BlastReportCollect(comm, h, MPI_Wtime() - wall0, setup, ops->name, &sum));
  sum.dt0 = dt0, sum.e_norm0 = e_norm0, sum.hw_energy = energy;
  if (cfg.exact_error) BlastCall(BlastDiagnosticsExactErrors(h, &sum.sedov_density_l2,
                                                              &sum.vel_err_linf, &sum.vel_err_l1,
                                                              &sum.vel_err_l2));
  if (!rank) {
    BlastReportSummary(stdout, &sum);
    BlastCall(BlastReportWriteJson(cfg.output_dir, &cfg, &sum));
    printf("\n  summary written to %s/summary.json\n", cfg.output_dir);
  }
  BlastCall(BlastHydroDestroy(&rs->h));
  BlastCall(BlastMeshDestroy(&rs->mesh));
  return 0;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "blast_gpu: MPI_Init_thread failed\n");
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  BlastErrorSetRank(rank);
  RunState rs = {NULL, NULL, NULL};
  return Finish(Run(argc, argv, &rs), &rs);
}
