// One run of blast_gpu as the sequence of its steps (run.h), and its first step: the run's
// identity.
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_select.h"
#include "blast.h"
#include "blast_mpi.h"
#include "signals.h"

void RunStateFree(RunState *rs) {
  BlastOutdirRelease(&rs->lock_chk);
  BlastOutdirRelease(&rs->lock_out);
  BlastVizDestroy(&rs->viz);
  BlastHistoryDestroy(&rs->history);
  free(rs->deck_text);
  rs->deck_text = NULL;
  BlastEnergyDestroy(&rs->meter);
  BlastHydroDestroy(&rs->h);
  BlastMeshDestroy(&rs->mesh);
}

int BlastRun(int argc, char **argv, BlastConfig *cfg, RunState *rs) {
  RunPlan p;
  memset(&p, 0, sizeof p);
  p.comm = MPI_COMM_WORLD;
  p.cfg = cfg;
  BlastCallMPI(MPI_Comm_rank(p.comm, &p.rank));
  BlastCall(RunIdentify(&p));
  BlastCall(RunCheckDirs(&p));
  BlastCall(BlastSignalsInstall());
  BlastCall(RunSetup(&p, rs));
  BlastCall(RunOpenDirs(&p, rs));
  BlastCall(RunBanner(&p, rs));
  BlastCall(RunStartViz(&p, rs));
  BlastCall(RunStartHistory(&p, rs));
  p.setup = MPI_Wtime() - p.wall0;
  RunLoopEnd end;
  BlastCall(RunTimeLoop(&p, rs, &end));
  BlastCall(RunReport(argc, argv, &p, rs, &end));
  BlastCall(RunRelease(&p, rs));
  return 0;
}

// A restart must have something left to do, as the run that wrote the checkpoint would
// have: t_final after its time, and max_steps (the run ends with attempt max_steps + 1)
// not already used up. The header is the same on every rank: so is the error.
static int CheckContinuation(const BlastConfig *cfg, const BlastCheckpointHeader *from) {
  int ierr = 0;
  if (!(cfg->t_final > from->t))
    ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                           "[time] t_final = %.17g is not after the time of checkpoint %s (t = "
                           "%.17g, step %d): nothing is left to run. Raise [time] t_final (on the "
                           "command line: time.t_final=<t>) to continue the run",
                           cfg->t_final, cfg->checkpoint_restart, from->t, from->steps);
  else if (cfg->max_steps >= 0 && from->step_attempts > cfg->max_steps)
    ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                           "[time] max_steps = %d, but checkpoint %s has already made %d step "
                           "attempts (a run ends with attempt max_steps + 1): nothing is left to "
                           "run. Raise [time] max_steps to at least %d (or -1: unlimited) to "
                           "continue the run",
                           cfg->max_steps, cfg->checkpoint_restart, from->step_attempts,
                           from->step_attempts);
  if (ierr) BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
  return ierr;
}

int RunIdentify(RunPlan *p) {
  BlastConfig *cfg = p->cfg;
  BlastRunOptionsFromEnvironment(cfg);
  p->restart = cfg->checkpoint_restart[0] != 0;
  if (p->restart) {
    BlastCall(BlastShareRootResult(
        p->comm, p->rank ? 0 : BlastCheckpointPeek(cfg->checkpoint_restart, &p->from)));
    BlastCallMPI(MPI_Bcast(&p->from, (int)sizeof p->from, MPI_BYTE, 0, p->comm));
    BlastCall(CheckContinuation(cfg, &p->from));
    snprintf(p->run_id, sizeof p->run_id, "%s", p->from.run_id);
  } else {
    if (!p->rank) BlastCall(BlastRunIdNew(p->run_id));
    BlastCallMPI(MPI_Bcast(p->run_id, (int)sizeof p->run_id, MPI_CHAR, 0, p->comm));
  }
  return 0;
}
