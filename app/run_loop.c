// The time loop of a run: BlastHydroRun with a step hook that prints the progress, writes
// the dumps and decides the checkpoints (steps, wall interval, signals), the checkpoints
// written between the steps, and the energy meter around it all.
#define _POSIX_C_SOURCE 200809L  // stat

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blast.h"
#include "blast_git.h"  // BLAST_GIT, generated at build time (cmake/git_version.cmake)
#include "blast_mpi.h"
#include "report.h"
#include "run.h"
#include "signals.h"

enum { kNoteLen = 2 * BLAST_PATH_MAX + 256 };

// What the step hook reads and decides.
typedef struct {
  BlastProgress *progress;
  BlastFaultPlan fault;
  int rank;
  MPI_Comm comm;
  const BlastConfig *cfg;
  BlastHydro h;
  BlastViz viz;
  BlastHistory history;  // history.csv, or NULL
  double viz_next_t;     // the next multiple of viz_dt to dump at
  RunCheckpoints *chk;
  int chk_due;  // this accepted step asked for a checkpoint (and stopped BlastHydroRun)
  int signal;   // the signal that stops the run (0: none)
  int last;     // the step was the run's last
} StepHook;

// The first multiple of viz_dt above t (t itself excluded), without a loop: the quotient
// is rounded at most one unit low, so n needs at most two corrections. The deck check of
// [output] viz_dt (viz_dt >= t_final * 2^-48, io/deck_schema.c) keeps n below 2^49, where
// n + 1 is exact and n * viz_dt grows with n; should it still not pass t, t_final (the
// run's last dump) is returned, never a value that would dump at every step.
static double NextVizTime(double t, double viz_dt, double t_final) {
  double n = floor(t / viz_dt) + 1.0;
  if (n * viz_dt <= t) n += 1.0;
  if (n * viz_dt <= t) n += 1.0;
  const double next = n * viz_dt;
  return next > t && isfinite(next) ? next : fmax(t_final, t);
}

// The step callback: fault hook, progress line; after an accepted step the dump when due
// and the checkpoint decision (which stops BlastHydroRun so that TimeLoop writes it).
static int OnStep(void *user, const BlastStepInfo *info) {
  StepHook *hook = user;
  const BlastConfig *cfg = hook->cfg;
  BlastCall(BlastFaultInjectStep(&hook->fault, hook->rank, hook->h, info));
  BlastCall(BlastReportStep(hook->progress, info));
  if (info->rejected) return 0;
  hook->last = info->last;
  // Visualization (t and step are the same on every rank: the decision is collective).
  if (hook->viz) {
    int due = info->last;
    if (cfg->viz_steps > 0 && info->step % cfg->viz_steps == 0) due = 1;
    if (cfg->viz_dt > 0 && info->t >= hook->viz_next_t) {
      due = 1;
      hook->viz_next_t = NextVizTime(info->t, cfg->viz_dt, cfg->t_final);
    }
    if (due) BlastCall(BlastVizWrite(hook->viz, info->step, info->t));
  }
  BlastCall(BlastHistoryStep(hook->history, info->step, info->t, info->dt, info->last));
  // Checkpoint triggers. Signals and wall time differ between ranks: one reduction makes
  // the decision the same everywhere.
  int local[2] = {BlastSignalPending(), 0}, any[2];
  if (cfg->checkpoint_wall_interval > 0 &&
      MPI_Wtime() - hook->chk->wall_last >= cfg->checkpoint_wall_interval)
    local[1] = 1;
  BlastCallMPI(MPI_Allreduce(local, any, 2, MPI_INT, MPI_MAX, hook->comm));
  int due = any[1] || (cfg->checkpoint_steps > 0 && info->step % cfg->checkpoint_steps == 0);
  if (any[0]) hook->signal = any[0], due = 1;
  if (due) {
    hook->chk_due = 1;
    BlastHydroRequestStop(hook->h);
  }
  return 0;
}

// Write a checkpoint of h's current state into [checkpoint] dir (keeping the newest
// [checkpoint] keep) and say so on rank 0.
static int WriteCheckpoint(MPI_Comm comm, RunState *rs, const BlastConfig *cfg, RunCheckpoints *chk,
                           const char *why) {
  int rank, steps;
  double t;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastHydroGetProgress(rs->h, &t, NULL, &steps, NULL);
  // The CPU+GPU split differs between ranks; the file holds one value (attributes are
  // collective): the mean, where a restarted auto search starts on every rank.
  BlastBalanceInfo b;
  BlastHydroGetBalance(rs->h, &b);
  int nranks;
  BlastCallMPI(MPI_Comm_size(comm, &nranks));
  double fraction = b.active ? b.gpu_fraction : 1.0, fsum;
  BlastCallMPI(MPI_Allreduce(&fraction, &fsum, 1, MPI_DOUBLE, MPI_SUM, comm));
  const double t0 = MPI_Wtime();
  BlastCall(BlastCheckpointWrite(comm, rs->h, cfg, steps, fsum / nranks, cfg->checkpoint_dir,
                                 cfg->checkpoint_keep, rs->deck_text,
                                 BLAST_VERSION " (" BLAST_GIT ")", chk->run_id, chk->kill_at_step,
                                 chk->path, sizeof chk->path));
  const double dt = MPI_Wtime() - t0;
  chk->seconds += dt;
  chk->count++;
  chk->last_step = steps;
  chk->wall_last = MPI_Wtime();
  if (!rank) {
    struct stat st;
    const double mb = stat(chk->path, &st) == 0 ? (double)st.st_size / 1e6 : 0.0;
    printf("  checkpoint (%s) at step %d, t = %.9g: %s (%.3g MB in %.3f s, %.0f MB/s)\n", why,
           steps, t, chk->path, mb, dt, dt > 0 ? mb / dt : 0.0);
    fflush(stdout);
  }
  return 0;
}

// The time loop: BlastHydroRun, stopped by OnStep whenever a checkpoint is due, which is
// written here (after the step is complete), then continued unless a signal stopped it.
static int TimeLoop(MPI_Comm comm, RunState *rs, const BlastConfig *cfg, StepHook *hook) {
  for (;;) {
    hook->chk_due = 0;
    BlastCall(BlastHydroRun(rs->h, OnStep, hook));
    if (!hook->chk_due) break;  // the run reached its end
    BlastCall(WriteCheckpoint(comm, rs, cfg, hook->chk,
                              hook->signal ? BlastSignalName(hook->signal) : "periodic"));
    if (hook->signal || hook->last) break;
  }
  int steps;
  BlastHydroGetProgress(rs->h, NULL, NULL, &steps, NULL);
  if (!hook->signal && cfg->checkpoint_at_end && hook->chk->last_step != steps)
    BlastCall(WriteCheckpoint(comm, rs, cfg, hook->chk, "end of run"));
  return 0;
}

// Write the checkpoint of the last good state after a numerical failure that every rank
// saw (the hydro object then holds the last accepted state), keeping the failure's error.
static void CheckpointAfterFailure(MPI_Comm comm, RunState *rs, const BlastConfig *cfg,
                                   RunCheckpoints *chk, int rank) {
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
  if (WriteCheckpoint(comm, rs, cfg, chk, "last good state before the failure")) {
    if (!rank)
      fprintf(stderr, "blast_gpu: the final checkpoint failed too: %s\n", BlastErrorMessage());
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC, "%s", msg);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
  }
}

int RunStartViz(RunPlan *p, RunState *rs) {
  if (!p->viz_on) return 0;
  snprintf(p->viz_series, sizeof p->viz_series, "%s/%s", p->viz_dir,
           p->cfg->viz_format & BLAST_VIZ_XDMF ? "blast.xdmf" : "blast.pvd");
  BlastCall(BlastVizCreateWith(p->comm, rs->h, p->viz_dir, p->cfg->viz_refine, p->cfg->viz_format,
                               &rs->viz));
  BlastCall(BlastVizWrite(rs->viz, p->restart_steps, p->t_start));
  return 0;
}

int RunStartHistory(RunPlan *p, RunState *rs) {
  char note[kNoteLen];
  BlastCall(BlastHistoryOpen(p->comm, rs->h, p->cfg, p->restart_steps, p->out_same, &rs->history,
                             note, sizeof note));
  if (!p->rank && note[0]) printf("  note: %s\n", note);
  return 0;
}

int RunTimeLoop(RunPlan *p, RunState *rs, RunLoopEnd *end) {
  const BlastConfig *cfg = p->cfg;
  memset(end, 0, sizeof *end);
  RunCheckpoints *chk = &end->chk;
  chk->on = p->chk_on;
  chk->run_id = p->run_id;
  chk->last_step = -1;
  chk->wall_last = MPI_Wtime();
  // Test hook (docs/checkpoint.md): BLAST_TEST_KILL_IN_CHECKPOINT=<step> makes this process
  // SIGKILL itself in the middle of writing the checkpoint of that step.
  const char *kill_env = getenv("BLAST_TEST_KILL_IN_CHECKPOINT");
  chk->kill_at_step = kill_env ? atoi(kill_env) : -1;
  BlastProgress progress = {p->rank, MPI_Wtime(), cfg->t_final, p->t_start, p->energy0,
                            rs->h,   0,           stdout};
  const double viz_next =
      cfg->viz_dt > 0 ? NextVizTime(p->t_start, cfg->viz_dt, cfg->t_final) : 0.0;
  StepHook hook = {&progress,   p->fault, p->rank, p->comm, cfg, rs->h, rs->viz,
                   rs->history, viz_next, chk,     0,       0,   0};
  // Energy of the time steps: GPUs (NVML) when this rank runs on one, CPUs (RAPL) always.
  BlastCall(BlastEnergyStart(p->comm, strcmp(p->ops->name, "cpu") != 0, NULL, &rs->meter));
  const int ierr = TimeLoop(p->comm, rs, cfg, &hook);
  if (ierr == BLAST_ERR_NUMERIC && BlastErrorCollective() == BLAST_COLLECTIVE_SAME && chk->on)
    CheckpointAfterFailure(p->comm, rs, cfg, chk, p->rank);
  BlastCall(ierr);
  BlastCall(BlastHistoryFinish(&rs->history));  // the line of the last state, the file closed
  end->signal = hook.signal;
  end->last = hook.last;
  BlastCall(BlastEnergyStop(rs->meter, &end->energy));
  BlastCall(BlastEnergyDestroy(&rs->meter));
  return 0;
}
