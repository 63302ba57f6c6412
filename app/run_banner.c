// What rank 0 says before the first step: the banner, a warning for an unstable CFL
// number, the backend's memory, and where a restart continues from.
#define _POSIX_C_SOURCE 200809L  // stat

#include <stdio.h>
#include <sys/stat.h>

#include "blast.h"
#ifdef BLAST_HAVE_CUDA
#include "blast_cuda.h"
#endif
#include "blast_mpi.h"
#include "report.h"
#include "run.h"

// A CFL number above the integrator's stable range: what to expect, and where the run stops.
static void WarnUnstableCfl(const BlastConfig *cfg) {
  printf(
      "  warning: [time] cfl = %g is above the range in which %s is stable (up to %g, "
      "docs/robustness.md): expect repeated steps and a growing energy error; the run "
      "stops (exit 3) if the total energy changes by more than [time] "
      "max_energy_change = %g of its initial value\n\n",
      cfg->cfl, BlastOdeName(cfg->ode_solver), BlastCflStableMax(cfg->ode_solver),
      cfg->max_energy_change);
}

// The backend's memory (both backends): data, state, Runge-Kutta and PCG vectors, summed
// over the ranks.
static int PrintBackendMemory(const RunPlan *p, BlastHydro h, const BlastHydroShape *shape) {
  const BlastBackendOps *bops;
  void *bctx;
  BlastHydroGetBackend(h, &bops, &bctx);
  double used = 0.0, all;
  const char *where = "host";
#ifdef BLAST_HAVE_CUDA
  if (bops == &blast_backend_cuda) used = (double)BlastCudaMemoryUsed(bctx), where = "GPU";
#endif
  if (bops == &blast_backend_cpu) used = (double)BlastCpuMemoryUsed(bctx);
  BlastCallMPI(MPI_Reduce(&used, &all, 1, MPI_DOUBLE, MPI_SUM, 0, p->comm));
  if (!p->rank && used > 0.0)
    printf(
        "  memory         %.2f GiB of %s memory for the backend's data and vectors, %.2f KB "
        "per zone\n\n",
        all / 1073741824.0, where, all / 1024.0 / (double)shape->zones);
  return 0;
}

// The checkpoint a restart continued from, how fast it was read, and what the restart
// changes.
static void PrintRestart(const RunPlan *p) {
  const BlastConfig *cfg = p->cfg;
  struct stat st;
  const double mb = stat(cfg->checkpoint_restart, &st) == 0 ? (double)st.st_size / 1e6 : 0.0;
  printf("  restarted from %s: step %d, t = %.9g (%.3g MB read and checked in %.3f s, %.0f MB/s)\n",
         cfg->checkpoint_restart, p->restart_steps, p->t_start, mb, p->read_seconds,
         p->read_seconds > 0 ? mb / p->read_seconds : 0.0);
  if (p->changes[0])
    printf(
        "  note: this restart changes %s: its results will differ from the run that wrote "
        "the checkpoint, had it gone on\n",
        p->changes);
  printf("\n");
}

int RunBanner(RunPlan *p, RunState *rs) {
  const BlastConfig *cfg = p->cfg;
  BlastHydro h = rs->h;
  BlastHydroShape shape = BlastHydroGetShape(h);
  BlastHydroGetInitial(h, &p->dt0, &p->energy0);
  BlastCall(BlastHydroENorm(h, &p->e_norm0));
  if (!p->rank)
    BlastReportBanner(stdout, cfg, h, &shape, p->backend, p->dt0, p->e_norm0, p->energy0);
  if (!p->rank && cfg->cfl > BlastCflStableMax(cfg->ode_solver)) WarnUnstableCfl(cfg);
  BlastCall(PrintBackendMemory(p, h, &shape));
  BlastHydroGetProgress(h, &p->t_start, NULL, NULL, NULL);
  if (!p->rank && p->restart) PrintRestart(p);
  return 0;
}
