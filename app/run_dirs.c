// The folders of a run (directory policy): the output folder, the checkpoint folder and the
// dumps' folder, checked before the setup and created, locked and marked after it
// (outdir.h), and the checkpoints of earlier runs removed.
#define _POSIX_C_SOURCE 200809L  // readdir

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "blast.h"
#include "blast_mpi.h"
#include "run.h"

// How the checkpoint folder relates to the output folder, by what both resolve to (symbolic
// links, "..", "./", trailing slashes): rank 0 looks, every rank gets the answer or the error.
static int CheckpointDirPlace(MPI_Comm comm, const BlastConfig *cfg, int *same, int *inside) {
  int rank, r[2] = {0, 0};
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastCall(BlastShareRootResult(
      comm, rank ? 0 : BlastDirSame(cfg->checkpoint_dir, cfg->output_dir, &r[0], &r[1])));
  BlastCallMPI(MPI_Bcast(r, 2, MPI_INT, 0, comm));
  *same = r[0], *inside = r[1];
  return 0;
}

// Checkpoints left in `dir` by an earlier run (names as BlastCheckpointStepOf reads them).
// `after` >= 0: count only those of later steps; `remove_them`: delete them. Rank 0 looks; the
// outcome is shared.
static int OldCheckpoints(MPI_Comm comm, const char *dir, int after, int remove_them, int *count) {
  int rank;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  int res[2] = {0, 0};  // count, errno of a failed removal
  if (!rank) {
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
      const int step = BlastCheckpointStepOf(de->d_name);
      if (step < 0 || (after >= 0 && step <= after)) continue;
      res[0]++;
      if (remove_them) {
        char path[BLAST_PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (remove(path) != 0 && !res[1]) res[1] = errno;
      }
    }
    if (d) closedir(d);
  }
  BlastCallMPI(MPI_Bcast(res, 2, MPI_INT, 0, comm));
  if (res[1]) {
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_IO,
                    "cannot remove the earlier checkpoints in %s: %s", dir, strerror(res[1]));
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_IO;
  }
  *count = res[0];
  return 0;
}

int RunCheckDirs(RunPlan *p) {
  const BlastConfig *cfg = p->cfg;
  // Before the expensive setup: an unusable or foreign output directory costs seconds, not
  // a run. A restart may continue the directories of the run it continues.
  p->chk_on =
      cfg->checkpoint_steps > 0 || cfg->checkpoint_wall_interval > 0 || cfg->checkpoint_at_end;
  int chk_same_dir = 0;
  BlastCall(CheckpointDirPlace(p->comm, cfg, &chk_same_dir, &p->chk_inside));
  p->chk_apart = !chk_same_dir;
  // A checkpoint folder inside the output folder is held through the output folder's lock
  // and marker (and checked again under it); one elsewhere gets its own.
  p->chk_own_dir = p->chk_on && p->chk_apart && !p->chk_inside;
  const char *cont = p->restart ? p->run_id : NULL;
  p->viz_on = cfg->viz_refine > 0 && (cfg->viz_steps > 0 || cfg->viz_dt > 0);
  snprintf(p->viz_dir, sizeof p->viz_dir, "%s/viz", cfg->output_dir);
  BlastCall(BlastOutdirCheck(p->comm, cfg->output_dir, NULL, "[output] dir", cfg->output_overwrite,
                             cont));
  if (p->chk_apart)  // even without checkpointing: its files must not be another run's
    BlastCall(BlastOutdirCheck(p->comm, cfg->checkpoint_dir, p->chk_inside ? cfg->output_dir : NULL,
                               "[checkpoint] dir", cfg->output_overwrite, cont));
  if (p->viz_on)  // the dumps' folder: owned and locked as the others
    BlastCall(BlastOutdirCheck(p->comm, p->viz_dir, cfg->output_dir, "[output] dir (dumps)",
                               cfg->output_overwrite, cont));
  return 0;
}

int RunOpenDirs(RunPlan *p, RunState *rs) {
  const BlastConfig *cfg = p->cfg;
  const int rank = p->rank;
  // Output directories only once the input is known to be good: bad input writes nothing.
  // Each is locked for the run's lifetime and marked as this run's.
  int replaced = 0, same_run = 0, nsubs = 0;
  char note[2048] = "";
  // The folders inside the output folder that the run writes: held through its lock, checked
  // again under it (a run that got there in between, a crashed run's checkpoints or dumps).
  BlastOutdirSub subs[2];
  if (p->chk_on && p->chk_inside)
    subs[nsubs++] = (BlastOutdirSub){cfg->checkpoint_dir, "[checkpoint] dir"};
  if (p->viz_on) subs[nsubs++] = (BlastOutdirSub){p->viz_dir, "[output] dir (dumps)"};
  BlastCall(BlastOutdirPrepare(p->comm, cfg->output_dir, NULL, subs, nsubs, "[output] dir",
                               cfg->output_overwrite, p->run_id, p->restart, &rs->lock_out,
                               &replaced, &same_run, note, sizeof note));
  if (!rank && note[0]) printf("  note: %s\n", note);
  p->out_same = same_run;
  if (!rank && replaced && !same_run)
    printf("  (removed the earlier results in %s: [output] overwrite = true)\n", cfg->output_dir);
  int chk_same = same_run;
  if (p->chk_own_dir) {
    BlastCall(BlastOutdirPrepare(p->comm, cfg->checkpoint_dir, NULL, NULL, 0, "[checkpoint] dir",
                                 cfg->output_overwrite, p->run_id, p->restart, &rs->lock_chk, NULL,
                                 &chk_same, note, sizeof note));
    if (!rank && note[0]) printf("  note: %s\n", note);
  }
  // Checkpoints of an earlier run (replaced with overwrite), or of steps beyond the one a
  // restart continues from in its own run's directory (they belong to a run being redone).
  int removed = 0;
  const int after = p->restart && chk_same ? p->restart_steps : -1;
  if (p->chk_on) BlastCall(OldCheckpoints(p->comm, cfg->checkpoint_dir, after, 1, &removed));
  if (!rank && removed)
    printf("  (removed %d checkpoint(s) %s in %s)\n", removed,
           after >= 0 ? "of later steps than the restart" : "of the earlier run",
           cfg->checkpoint_dir);
  return 0;
}
