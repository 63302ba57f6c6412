/// @file run.h
/// @brief One run of blast_gpu as the sequence of its steps, and what the steps hand on.
///
/// BlastRun (run.c) calls, in this order:
///   RunIdentify         run.c         environment options; the run's id (a restart's header
///                                     read and checked first)
///   RunCheckDirs        run_dirs.c    the output folders checked before the expensive setup
///   BlastSignalsInstall signals.c     the stop signals
///   RunSetup            run_setup.c   mesh, backend, solver, the resolved deck, the restart read
///   RunOpenDirs         run_dirs.c    the folders created, locked, marked; old checkpoints removed
///   RunBanner           run_banner.c  banner, warnings, memory, where a restart continues from
///   RunStartViz         run_loop.c    the first dump
///   RunStartHistory     run_loop.c    history.csv opened (continued by a restart), its first line
///   RunTimeLoop         run_loop.c    the time steps with their viz, checkpoint, energy hooks
///   RunReport           run_finish.c  summary (printed, summary.json), how to continue
///   RunRelease          run_finish.c  the objects freed, the GPU profile printed
/// Each step is collective on the run's communicator and returns an error code (0: done)
/// that main.c reports; the objects the run holds are in RunState, which main.c frees
/// after an error.
#ifndef BLAST_RUN_H
#define BLAST_RUN_H

#include <mpi.h>

#include "backend.h"
#include "checkpoint.h"
#include "config.h"
#include "energy.h"
#include "fault.h"
#include "history.h"
#include "hydro.h"
#include "mesh.h"
#include "outdir.h"
#include "viz.h"

/// What a run holds. BlastRun frees it on success; RunStateFree on the error paths, so that
/// a failed run also ends with every object freed (clean under LeakSanitizer and valgrind).
typedef struct {
  BlastMesh mesh;
  BlastHydro h;
  BlastEnergy meter;
  BlastViz viz;
  BlastHistory history;                // history.csv ([output] history_steps), or NULL
  char *deck_text;                     // the resolved deck, stored in checkpoints
  BlastOutdirLock lock_out, lock_chk;  // held by rank 0 while the run writes
} RunState;

/// Free what an interrupted run holds (errors of the frees are not reported: the run's own
/// error has been printed already).
void RunStateFree(RunState *rs);

/// Run the deck `cfg` (the command line's, which the run completes: mesh dimension,
/// environment options); argc and argv are the command line, for the command that
/// continues a stopped run. Collective on MPI_COMM_WORLD.
int BlastRun(int argc, char **argv, BlastConfig *cfg, RunState *rs);

/// What the steps decide and hand on (no resources: those are in RunState).
typedef struct {
  MPI_Comm comm;
  int rank;
  BlastConfig *cfg;
  // the run (RunIdentify)
  int restart;                    // continuing from cfg->checkpoint_restart
  BlastCheckpointHeader from;     // that checkpoint's header (restart only)
  char run_id[BLAST_RUN_ID_LEN];  // a restart keeps the id of the run it continues
  // its folders (RunCheckDirs)
  int chk_on;       // some checkpoint trigger is set (steps, wall_interval, at_end)
  int chk_apart;    // the checkpoint folder is not the output folder
  int chk_inside;   // it is inside the output folder
  int chk_own_dir;  // it is checkpointed, apart and outside: locked and marked on its own
  int viz_on;       // dumps are written (into viz_dir)
  int out_same;     // the output folder already was this run's (a restart continues it)
  char viz_dir[BLAST_PATH_MAX + 8], viz_series[BLAST_PATH_MAX + 32];
  // the setup (RunSetup)
  double wall0;                             // MPI_Wtime at the start of the setup
  double mesh_seconds, mesh_cpu, mesh_rss;  // building the mesh: wall, CPU, peak RSS after
  const BlastBackendOps *ops;
  char backend[400];  // the backend, described for the banner
  BlastFaultPlan fault;
  int restart_steps;    // accepted steps in the checkpoint read (0 without a restart)
  double read_seconds;  // reading and checking it
  char changes[1024];   // what the restart changes against the run that wrote it
  // the start of the time loop (RunBanner, and BlastRun: setup)
  double dt0, energy0, e_norm0, t_start, setup;
} RunPlan;

/// Checkpoint bookkeeping of a run (run_loop.c).
typedef struct {
  int on;            // some checkpoint trigger is set (steps, wall_interval, at_end)
  int count;         // written by this run
  int last_step;     // accepted steps of the newest one (-1: none written by this run)
  double seconds;    // wall time spent writing
  double wall_last;  // MPI_Wtime of the newest one (or of the start of the run)
  char path[BLAST_PATH_MAX + 32];
  const char *run_id;  // the run the checkpoints belong to
  int kill_at_step;    // test hook BLAST_TEST_KILL_IN_CHECKPOINT (-1: none)
} RunCheckpoints;

/// How the time loop ended (RunTimeLoop), for the summary.
typedef struct {
  RunCheckpoints chk;
  int signal;                // the signal that stopped the run (0: none)
  int last;                  // the last accepted step was the run's last
  BlastEnergyReport energy;  // of the time steps
} RunLoopEnd;

/// Environment options into p->cfg, and the run's id: a new one, or for a restart the id
/// of the run that wrote the checkpoint, whose header is read and checked now, so that a
/// bad checkpoint or an impossible continuation costs seconds, not a setup.
int RunIdentify(RunPlan *p);
/// Check the output, checkpoint and dump folders before the expensive setup (they are
/// created only by RunOpenDirs, once the input is known to be good).
int RunCheckDirs(RunPlan *p);
/// Mesh, backend and solver; the resolved deck; with a restart, the checkpoint's state.
int RunSetup(RunPlan *p, RunState *rs);
/// Create, lock and mark the run's folders; remove the checkpoints that are not this run's.
int RunOpenDirs(RunPlan *p, RunState *rs);
/// The initial state into p; the banner and what rank 0 says before the first step.
int RunBanner(RunPlan *p, RunState *rs);
/// The dump of the initial (or restarted) state, when dumps are on.
int RunStartViz(RunPlan *p, RunState *rs);
/// history.csv opened (a restart continues its run's) and the line of the starting state.
int RunStartHistory(RunPlan *p, RunState *rs);
/// The time steps, with the dumps, checkpoints and energy meter; `end` says how it ended.
int RunTimeLoop(RunPlan *p, RunState *rs, RunLoopEnd *end);
/// The summary: printed and written to summary.json by rank 0, with the command that
/// continues a run a signal stopped.
int RunReport(int argc, char **argv, RunPlan *p, RunState *rs, const RunLoopEnd *end);
/// Free the run's objects and release its folders; print the GPU tuning and profile.
int RunRelease(RunPlan *p, RunState *rs);

#endif  // BLAST_RUN_H
