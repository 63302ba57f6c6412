/// @file history.h
/// @brief The time history of a run, `<output dir>/history.csv` (`[output] history_steps`):
/// one line at the start, every N accepted steps and at the end, with the totals, the mesh
/// quality and the values at the `[probe.NAME]` points (columns in docs/visualization.md).
///
/// Rank 0 writes; every call is collective (the values are reductions). A restart that
/// continues its run's directory keeps the lines of the steps before its checkpoint and
/// drops the later ones (they belong to the steps being redone), rewriting the file under a
/// temporary name; a file whose columns differ (other probes) is kept aside under
/// history_to_step<N>.csv. A new run never finds one: the output directory check treats
/// history.csv as an earlier run's result (refused unless [output] overwrite).
#ifndef BLAST_HISTORY_H
#define BLAST_HISTORY_H

#include <mpi.h>
#include <stdio.h>

#include "config.h"
#include "hydro.h"

typedef struct BlastHistory_private *BlastHistory;

/// Check the [probe.NAME] points (setup, before anything is written): dim coordinates each,
/// inside the initial mesh. BLAST_ERR_INPUT naming the section and its deck line, the same
/// on every rank. Collective.
int BlastHistoryCheckProbes(BlastHydro h, const BlastConfig *cfg);

/// Open history.csv in cfg->output_dir (history_steps > 0; else *hist = NULL) and write
/// the line of the current state. `restart_steps` > 0 with `same_run`: continue the file
/// of the run being restarted (lines of steps >= restart_steps dropped). `note` (rank 0):
/// what happened to an earlier file, "" if nothing. Collective.
int BlastHistoryOpen(MPI_Comm comm, BlastHydro h, const BlastConfig *cfg, int restart_steps,
                     int same_run, BlastHistory *hist, char *note, size_t nnote);

/// After accepted step `step` (t, dt as the progress line has them): the line if the step
/// is a multiple of history_steps or `last`. Collective (NULL: nothing).
int BlastHistoryStep(BlastHistory hist, int step, double t, double dt, int last);

/// The line of the current state unless one was written at this step; then close the file
/// (synced). Collective (NULL: nothing).
int BlastHistoryFinish(BlastHistory *hist);

/// Free without writing (error paths; NULL allowed).
void BlastHistoryDestroy(BlastHistory *hist);

/// The path of the file (rank 0; "" elsewhere).
const char *BlastHistoryPath(BlastHistory hist);

#endif  // BLAST_HISTORY_H
