// blast_gpu entry point: MPI/OpenMP start-up, command line, mesh, the run, reports, and
// the error exit policy.
#define _POSIX_C_SOURCE 200809L  // sigaction, open_memstream, readdir

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "blast.h"
#ifdef BLAST_HAVE_CUDA
#include "blast_cuda.h"
#endif
#include "blast_git.h"  // BLAST_GIT, generated at build time (cmake/git_version.cmake)
#include "blast_mpi.h"
#include "checkpoint.h"
#include "cli.h"
#include "deck.h"
#include "diagnostics.h"
#include "fault.h"
#include "energy.h"
#include "hydro.h"
#include "memory.h"
#include "meshio.h"
#include "outdir.h"
#include "report.h"
#include "viz.h"

// What a run holds. Run() frees it on success; Finish() on the error paths, so that a
// failed run also ends with every object freed (clean under LeakSanitizer and valgrind).
typedef struct {
  BlastMesh mesh;
  BlastHydro h;
  BlastEnergy meter;
  BlastViz viz;
  char *deck_text;                     // the resolved deck, stored in checkpoints
  BlastOutdirLock lock_out, lock_chk;  // held by rank 0 while the run writes
} RunState;

// Free what an interrupted run holds (errors of the frees are not reported: the run's own
// error has been printed already).
static void RunStateFree(RunState *rs) {
  BlastOutdirRelease(&rs->lock_chk);
  BlastOutdirRelease(&rs->lock_out);
  BlastVizDestroy(&rs->viz);
  free(rs->deck_text);
  rs->deck_text = NULL;
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
    case BLAST_COLLECTIVE_OWN:
      BlastErrorPrint();
      break;
    case BLAST_COLLECTIVE_PASSIVE:
      break;
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

// Signals: SIGTERM and SIGUSR1 (what batch systems send ahead of the time limit), SIGINT
// (Ctrl-C) and SIGHUP (the terminal went away) ask for a checkpoint and a clean stop after
// the current step; the handler only sets a flag. SIGPIPE is ignored: a closed stdout pipe
// (`blast_gpu ... | head -3`) makes writes to stdout fail, which the run survives, instead
// of killing the process.
static volatile sig_atomic_t g_signal = 0;
static void OnSignal(int sig) {
  g_signal = sig;
}

static const int kStopSignals[] = {SIGTERM, SIGUSR1, SIGINT, SIGHUP};

static int InstallSignals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof kStopSignals / sizeof *kStopSignals; i++)
    BlastCheck(sigaction(kStopSignals[i], &sa, NULL) == 0, BLAST_ERR_INTERNAL,
               "cannot install the handler of signal %d: %s", kStopSignals[i], strerror(errno));
  struct sigaction ign;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  BlastCheck(sigaction(SIGPIPE, &ign, NULL) == 0, BLAST_ERR_INTERNAL, "cannot ignore SIGPIPE: %s",
             strerror(errno));
  return 0;
}

static const char *SignalName(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

// Checkpoint bookkeeping of a run.
typedef struct {
  int on;            // some checkpoint trigger is set (steps, wall_interval, at_end)
  int count;         // written by this run
  int last_step;     // accepted steps of the newest one (-1: none written by this run)
  double seconds;    // wall time spent writing
  double wall_last;  // MPI_Wtime of the newest one (or of the start of the run)
  char path[BLAST_PATH_MAX + 32];
  const char *run_id;  // the run the checkpoints belong to
  int kill_at_step;    // test hook BLAST_TEST_KILL_IN_CHECKPOINT (-1: none)
} Checkpoints;

typedef struct {
  BlastProgress *progress;
  BlastFaultPlan fault;
  int rank;
  MPI_Comm comm;
  const BlastConfig *cfg;
  BlastHydro h;
  BlastViz viz;
  double viz_next_t;  // the next multiple of viz_dt to dump at
  Checkpoints *chk;
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
  // Checkpoint triggers. Signals and wall time differ between ranks: one reduction makes
  // the decision the same everywhere.
  int local[2] = {(int)g_signal, 0}, any[2];
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
static int WriteCheckpoint(MPI_Comm comm, RunState *rs, const BlastConfig *cfg, Checkpoints *chk,
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
                              hook->signal ? SignalName(hook->signal) : "periodic"));
    if (hook->signal || hook->last) break;
  }
  int steps;
  BlastHydroGetProgress(rs->h, NULL, NULL, &steps, NULL);
  if (!hook->signal && cfg->checkpoint_at_end && hook->chk->last_step != steps)
    BlastCall(WriteCheckpoint(comm, rs, cfg, hook->chk, "end of run"));
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

// The resolved deck as text (stored in checkpoints).
static int DeckText(const BlastConfig *cfg, char **text) {
  size_t len = 0;
  FILE *f = open_memstream(text, &len);
  BlastCheck(f, BLAST_ERR_MEM, "open_memstream failed: %s", strerror(errno));
  const int ierr = BlastDeckWrite(cfg, f);
  fclose(f);
  BlastCall(ierr);
  return 0;
}

#ifdef BLAST_HAVE_CUDA
// The environment's part of the GPU options, read here only (the libraries take options):
// BLAST_GPU_PROFILE=1, BLAST_CUDA_SYNC=1, BLAST_SELL_SIGMA, and the autotuning cache,
// $XDG_CACHE_HOME/blast_gpu_autotune.txt or else ~/.cache/blast_gpu_autotune.txt.
static int GpuEnvOptions(const BlastConfig *cfg, BlastGpuOptions *opt) {
  const char *prof = getenv("BLAST_GPU_PROFILE"), *sync = getenv("BLAST_CUDA_SYNC");
  opt->profile = prof && atoi(prof) > 0;
  opt->sync = sync && atoi(sync) > 0;
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

// The serial mesh: read or generated, then refined refine_serial times. Every rank builds
// it (it is small by construction: parallel refinement makes the large meshes).
static int BuildMesh(const BlastConfig *cfg, BlastMesh *mesh) {
  BlastMesh m0 = NULL;
  if (cfg->mesh_file[0])
    BlastCall(BlastMeshRead(cfg->mesh_file, &m0));
  else
    BlastCall(BlastMeshCreateBox(cfg->dim, cfg->elements, cfg->size, &m0));
  if (cfg->refine_serial > 0) {
    const int ierr = BlastMeshRefine(m0, cfg->refine_serial, mesh);
    BlastMeshDestroy(&m0);
    if (ierr == BLAST_ERR_INPUT) {  // name the mesh the refinement came from
      char msg[1536];
      snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
      BlastError(BLAST_ERR_INPUT, "%s, refined %d times ([mesh] refine_serial): %s",
                 cfg->mesh_file[0] ? cfg->mesh_file : "the generated box mesh", cfg->refine_serial,
                 msg);
    }
    BlastCall(ierr);
  } else {
    *mesh = m0;
  }
  return 0;
}

// Write the checkpoint of the last good state after a numerical failure that every rank
// saw (the hydro object then holds the last accepted state), keeping the failure's error.
static void CheckpointAfterFailure(MPI_Comm comm, RunState *rs, const BlastConfig *cfg,
                                   Checkpoints *chk, int rank) {
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
  if (WriteCheckpoint(comm, rs, cfg, chk, "last good state before the failure")) {
    if (!rank)
      fprintf(stderr, "blast_gpu: the final checkpoint failed too: %s\n", BlastErrorMessage());
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC, "%s", msg);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
  }
}

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

// The run-time options that come from the environment, not the deck (the library layers
// never read it; BLAST_ERROR_TRACE is read first thing in main): BLAST_MEMORY_CHECK=0 turns the host memory checks off,
// BLAST_BALANCE_TRACE=1 traces the CPU+GPU balancer's decisions.
static void RunOptionsFromEnvironment(BlastConfig *cfg) {
  const char *mem = getenv("BLAST_MEMORY_CHECK");
  BlastMemorySetChecks(!(mem && !strcmp(mem, "0")));
  const char *trace = getenv("BLAST_BALANCE_TRACE");
  cfg->balance_trace = trace && atoi(trace) > 0;
}

// A word for a POSIX shell: as is when it holds only safe characters, else single-quoted.
static void PrintShellWord(const char *w) {
  if (w[0] &&
      strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,:/@%") ==
          strlen(w)) {
    fputs(w, stdout);
    return;
  }
  putchar('\'');
  for (const char *c = w; *c; c++) c[0] == '\'' ? fputs("'\\''", stdout) : putchar(*c);
  putchar('\'');
}

// The command that continues this run from `checkpoint`: the deck, the run's own
// overrides (they set the mesh and the method, which a restart must repeat) without any
// earlier restart, then --restart.
static void PrintRestartCommand(int argc, char **argv, const char *deck, const char *checkpoint) {
  BlastCliArgs args;
  fputs("blast_gpu ", stdout);
  PrintShellWord(deck);
  if (!BlastCliParseArgs(argc, argv, &args))
    for (int i = 0; i < args.noverrides; i++)
      if (args.overrides[i] != args.restart &&
          strncmp(args.overrides[i], "checkpoint.restart=", 19)) {
        putchar(' ');
        PrintShellWord(args.overrides[i]);
      }
  BlastErrorClear();  // the arguments were parsed once already; nothing new can fail here
  BlastCliArgsFree(&args);
  fputs(" --restart ", stdout);
  PrintShellWord(checkpoint);
  putchar('\n');
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
  RunOptionsFromEnvironment(&cfg);
  const int restart = cfg.checkpoint_restart[0] != 0;
  // The run's id: a restart continues the run that wrote the checkpoint. Its header is
  // read (and verified) now, so that a bad checkpoint or an impossible continuation costs
  // seconds, not a setup.
  BlastCheckpointHeader from;
  memset(&from, 0, sizeof from);
  char run_id[BLAST_RUN_ID_LEN] = "";
  if (restart) {
    BlastCall(
        BlastShareRootResult(comm, rank ? 0 : BlastCheckpointPeek(cfg.checkpoint_restart, &from)));
    BlastCallMPI(MPI_Bcast(&from, (int)sizeof from, MPI_BYTE, 0, comm));
    BlastCall(CheckContinuation(&cfg, &from));
    snprintf(run_id, sizeof run_id, "%s", from.run_id);
  } else {
    if (!rank) BlastCall(BlastRunIdNew(run_id));
    BlastCallMPI(MPI_Bcast(run_id, (int)sizeof run_id, MPI_CHAR, 0, comm));
  }
  // Before the expensive setup: an unusable or foreign output directory costs seconds, not
  // a run. A restart may continue the directories of the run it continues.
  const int chk_on =
      cfg.checkpoint_steps > 0 || cfg.checkpoint_wall_interval > 0 || cfg.checkpoint_at_end;
  // A checkpoint directory inside the output directory is the run's through the output
  // directory's lock and marker; one elsewhere gets its own.
  int chk_same_dir = 0, chk_inside = 0;
  BlastCall(CheckpointDirPlace(comm, &cfg, &chk_same_dir, &chk_inside));
  const int chk_apart = !chk_same_dir;
  // A checkpoint folder inside the output folder is held through the output folder's lock
  // and marker (and checked again under it); one elsewhere gets its own.
  const int chk_own_dir = chk_on && chk_apart && !chk_inside;
  const char *cont = restart ? run_id : NULL;
  const int viz_on = cfg.viz_refine > 0 && (cfg.viz_steps > 0 || cfg.viz_dt > 0);
  char viz_dir[BLAST_PATH_MAX + 8] = "", viz_series[BLAST_PATH_MAX + 32] = "";
  snprintf(viz_dir, sizeof viz_dir, "%s/viz", cfg.output_dir);
  BlastCall(
      BlastOutdirCheck(comm, cfg.output_dir, NULL, "[output] dir", cfg.output_overwrite, cont));
  if (chk_apart)  // even without checkpointing: its files must not be another run's
    BlastCall(BlastOutdirCheck(comm, cfg.checkpoint_dir, chk_inside ? cfg.output_dir : NULL,
                               "[checkpoint] dir", cfg.output_overwrite, cont));
  if (viz_on)  // the dumps' folder: owned and locked as the others
    BlastCall(BlastOutdirCheck(comm, viz_dir, cfg.output_dir, "[output] dir (dumps)",
                               cfg.output_overwrite, cont));
  BlastCall(InstallSignals());
  const double wall0 = MPI_Wtime();
  if (!rank) printf("blast_gpu %s (%s)\n", BLAST_VERSION, BLAST_GIT);

  const double mesh_cpu0 = BlastProcessCpuSeconds();
  BlastCallAgree(comm, 1, BuildMesh(&cfg, &rs->mesh));
  const double mesh_seconds = MPI_Wtime() - wall0;
  const double mesh_cpu = BlastProcessCpuSeconds() - mesh_cpu0, mesh_rss = BlastProcessPeakRss();
  cfg.mesh_dim = BlastMeshDim(rs->mesh);  // resolves [fem] assembly = default in the echo
  // The assembly mode is the run's, resolved with the mesh's dimension: checked before the
  // solver is built (which may not offer the other mode). Another dimension is refused with
  // its own reason when the checkpoint is read.
  if (restart && BlastMeshDim(rs->mesh) == from.dim)
    BlastCallAgree(comm, 1,
                   BlastCheckpointCheckAssembly(&from, cfg.checkpoint_restart, cfg.assembly,
                                                from.dim, cfg.order_kinematic));
  const BlastBackendOps *ops = NULL;
  char backend[400];
  BlastCallAgree(comm, 1, SelectBackend(comm, &cfg, &ops, backend, sizeof backend));
  // CPU-only runs use OpenMP on all zones: there is nothing to share them with.
  if (ops == &blast_backend_cpu) cfg.balance_mode = BLAST_BALANCE_OFF;
  BlastCallAgree(comm, 0, BlastHydroCreate(&cfg, rs->mesh, comm, ops, &rs->h));
  BlastHydro h = rs->h;
  const BlastFaultPlan fault = BlastFaultParse();
  if (fault.rank == rank && fault.step < 0) BlastCall(BlastFaultInject("setup"));
  BlastCall(DeckText(&cfg, &rs->deck_text));
  // A bad checkpoint is bad input: refused before anything is written.
  int restart_steps = 0;
  double read_seconds = 0.0;
  char changes[1024] = "";
  if (restart) {
    const double t0 = MPI_Wtime();
    // Every rank reads the same header and agrees on the checksums: the refusal is the
    // same everywhere, printed once.
    BlastCallAgree(
        comm, 1,
        BlastCheckpointRead(comm, h, &cfg, cfg.checkpoint_restart, changes, sizeof changes));
    read_seconds = MPI_Wtime() - t0;
    BlastHydroGetProgress(h, NULL, NULL, &restart_steps, NULL);
  }
  // Output directories only once the input is known to be good: bad input writes nothing.
  // Each is locked for the run's lifetime and marked as this run's.
  int replaced = 0, same_run = 0, nsubs = 0;
  char note[2048] = "";
  // The folders inside the output folder that the run writes: held through its lock, checked
  // again under it (a run that got there in between, a crashed run's checkpoints or dumps).
  BlastOutdirSub subs[2];
  if (chk_on && chk_inside)
    subs[nsubs++] = (BlastOutdirSub){cfg.checkpoint_dir, "[checkpoint] dir"};
  if (viz_on) subs[nsubs++] = (BlastOutdirSub){viz_dir, "[output] dir (dumps)"};
  BlastCall(BlastOutdirPrepare(comm, cfg.output_dir, NULL, subs, nsubs, "[output] dir",
                               cfg.output_overwrite, run_id, restart, &rs->lock_out, &replaced,
                               &same_run, note, sizeof note));
  if (!rank && note[0]) printf("  note: %s\n", note);
  if (!rank && replaced && !same_run)
    printf("  (removed the earlier results in %s: [output] overwrite = true)\n", cfg.output_dir);
  int chk_same = same_run;
  if (chk_own_dir) {
    BlastCall(BlastOutdirPrepare(comm, cfg.checkpoint_dir, NULL, NULL, 0, "[checkpoint] dir",
                                 cfg.output_overwrite, run_id, restart, &rs->lock_chk, NULL,
                                 &chk_same, note, sizeof note));
    if (!rank && note[0]) printf("  note: %s\n", note);
  }
  // Checkpoints of an earlier run (replaced with overwrite), or of steps beyond the one a
  // restart continues from in its own run's directory (they belong to a run being redone).
  int removed = 0;
  const int after = restart && chk_same ? restart_steps : -1;
  if (chk_on) BlastCall(OldCheckpoints(comm, cfg.checkpoint_dir, after, 1, &removed));
  if (!rank && removed)
    printf("  (removed %d checkpoint(s) %s in %s)\n", removed,
           after >= 0 ? "of later steps than the restart" : "of the earlier run",
           cfg.checkpoint_dir);

  BlastHydroShape shape = BlastHydroGetShape(h);
  double dt0, energy0, e_norm0;
  BlastHydroGetInitial(h, &dt0, &energy0);
  BlastCall(BlastHydroENorm(h, &e_norm0));
  if (!rank) BlastReportBanner(stdout, &cfg, &shape, backend, dt0, e_norm0, energy0);
  if (!rank && cfg.cfl > BlastCflStableMax(cfg.ode_solver))
    printf("  warning: [time] cfl = %g is above the range in which %s is stable (up to %g, "
           "docs/robustness.md): expect repeated steps and a growing energy error; the run "
           "stops (exit 3) if the total energy changes by more than [time] "
           "max_energy_change = %g of its initial value\n\n",
           cfg.cfl, BlastOdeName(cfg.ode_solver), BlastCflStableMax(cfg.ode_solver),
           cfg.max_energy_change);
  {  // the backend's memory (both backends): data, state, Runge-Kutta and PCG vectors
    const BlastBackendOps *bops;
    void *bctx;
    BlastHydroGetBackend(h, &bops, &bctx);
    double used = 0.0, all;
    const char *where = "host";
#ifdef BLAST_HAVE_CUDA
    if (bops == &blast_backend_cuda) used = (double)BlastCudaMemoryUsed(bctx), where = "GPU";
#endif
    if (bops == &blast_backend_cpu) used = (double)BlastCpuMemoryUsed(bctx);
    BlastCallMPI(MPI_Reduce(&used, &all, 1, MPI_DOUBLE, MPI_SUM, 0, comm));
    if (!rank && used > 0.0)
      printf(
          "  memory         %.2f GiB of %s memory for the backend's data and vectors, %.2f KB "
          "per zone\n\n",
          all / 1073741824.0, where, all / 1024.0 / (double)shape.zones);
  }
  double t_start;
  BlastHydroGetProgress(h, &t_start, NULL, NULL, NULL);
  if (!rank && restart) {
    struct stat st;
    const double mb = stat(cfg.checkpoint_restart, &st) == 0 ? (double)st.st_size / 1e6 : 0.0;
    printf(
        "  restarted from %s: step %d, t = %.9g (%.3g MB read and checked in %.3f s, %.0f MB/s)\n",
        cfg.checkpoint_restart, restart_steps, t_start, mb, read_seconds,
        read_seconds > 0 ? mb / read_seconds : 0.0);
    if (changes[0])
      printf(
          "  note: this restart changes %s: its results will differ from the run that wrote "
          "the checkpoint, had it gone on\n",
          changes);
    printf("\n");
  }
  // Visualization: a dump of the initial (or restarted) state, then as the deck says.
  if (viz_on) {
    snprintf(viz_series, sizeof viz_series, "%s/blast.xdmf", viz_dir);
    BlastCall(BlastVizCreate(comm, h, viz_dir, cfg.viz_refine, &rs->viz));
    BlastCall(BlastVizWrite(rs->viz, restart_steps, t_start));
  }
  const double setup = MPI_Wtime() - wall0;

  Checkpoints chk = {0};
  chk.on = chk_on;
  chk.run_id = run_id;
  chk.last_step = -1;
  chk.wall_last = MPI_Wtime();
  // Test hook (docs/checkpoint.md): BLAST_TEST_KILL_IN_CHECKPOINT=<step> makes this process
  // SIGKILL itself in the middle of writing the checkpoint of that step.
  const char *kill_env = getenv("BLAST_TEST_KILL_IN_CHECKPOINT");
  chk.kill_at_step = kill_env ? atoi(kill_env) : -1;
  BlastProgress progress = {rank, MPI_Wtime(), cfg.t_final, t_start, energy0, h, 0, stdout};
  const double viz_next = cfg.viz_dt > 0 ? NextVizTime(t_start, cfg.viz_dt, cfg.t_final) : 0.0;
  StepHook hook = {&progress, fault, rank, comm, &cfg, h, rs->viz, viz_next, &chk, 0, 0, 0};
  // Energy of the time steps: GPUs (NVML) when this rank runs on one, CPUs (RAPL) always.
  BlastEnergyReport energy;
  BlastCall(BlastEnergyStart(comm, strcmp(ops->name, "cpu") != 0, NULL, &rs->meter));
  const int ierr = TimeLoop(comm, rs, &cfg, &hook);
  if (ierr == BLAST_ERR_NUMERIC && BlastErrorCollective() == BLAST_COLLECTIVE_SAME && chk.on)
    CheckpointAfterFailure(comm, rs, &cfg, &chk, rank);
  BlastCall(ierr);
  BlastCall(BlastEnergyStop(rs->meter, &energy));
  BlastCall(BlastEnergyDestroy(&rs->meter));

  BlastRunSummary sum;
  BlastCall(BlastReportCollect(comm, h, MPI_Wtime() - wall0, setup, ops->name, &sum));
  sum.dt0 = dt0, sum.e_norm0 = e_norm0, sum.hw_energy = energy;
  sum.mesh_seconds = mesh_seconds;
  sum.mesh_cpu_seconds = mesh_cpu, sum.mesh_peak_rss = mesh_rss;
  sum.deck_text = rs->deck_text;
  // A signal that came during the run's last step stopped nothing: the run reached its end
  // (t_final or max_steps) and is complete; its checkpoint was written all the same.
  const int stopped = hook.signal && !hook.last;
  sum.completed = !stopped;
  sum.stopped_by = stopped ? SignalName(hook.signal) : "";
  sum.restart_from = cfg.checkpoint_restart;
  sum.run_id = run_id;
  sum.restart_steps = restart_steps;
  sum.checkpoint = chk.count ? chk.path : "";
  sum.checkpoints = chk.count;
  sum.checkpoint_seconds = chk.seconds;
  sum.viz = rs->viz ? viz_series : "";
  sum.viz_dumps = rs->viz ? BlastVizCount(rs->viz) : 0;
  if (cfg.exact_error)
    BlastCall(BlastDiagnosticsExactErrors(h, &sum.sedov_density_l2, &sum.vel_err_linf,
                                          &sum.vel_err_l1, &sum.vel_err_l2));
  if (!rank) {
    BlastReportSummary(stdout, &sum);
    BlastCall(BlastReportWriteJson(cfg.output_dir, &cfg, &sum));
    printf("\n  summary written to %s/summary.json\n", cfg.output_dir);
    if (stopped) {
      printf("  stopped by %s: continue with\n    ", SignalName(hook.signal));
      PrintRestartCommand(argc, argv, cfg.deck_path, chk.path);
    }
  }
  BlastCall(BlastVizDestroy(&rs->viz));
  BlastOutdirRelease(&rs->lock_chk);
  BlastOutdirRelease(&rs->lock_out);
  free(rs->deck_text);
  rs->deck_text = NULL;
#ifdef BLAST_HAVE_CUDA
  if (ops == &blast_backend_cuda && !rank) {  // rank 0's tuning decisions and GPU profile
    const BlastBackendOps *bops;
    void *bctx;
    int nranks;
    BlastGpuAutotune tune;
    BlastGpuProfile prof;
    BlastHydroGetBackend(h, &bops, &bctx);
    BlastCallMPI(MPI_Comm_size(comm, &nranks));
    BlastCudaGetAutotune(bctx, &tune);
    BlastCudaGetProfile(bctx, &prof);
    BlastReportAutotune(stdout, &tune);
    BlastReportGpuProfile(stdout, &prof, nranks);
  }
#endif
  BlastCall(BlastHydroDestroy(&rs->h));
  BlastCall(BlastMeshDestroy(&rs->mesh));
  return 0;
}

// A standard stream that is closed at start (`blast_gpu ... >&-`) is opened on /dev/null:
// otherwise the next file the run opens would take its number, and what is printed to
// stdout or stderr would be written into that file (a checkpoint, the lock, a mesh).
static void OpenClosedStandardStreams(void) {
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    const int n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
    if (n >= 0 && n != fd) {
      dup2(n, fd);
      close(n);
    }
  }
}

int main(int argc, char **argv) {
  OpenClosedStandardStreams();
  int provided = 0, rank = 0;
  // Open MPI's MPI-IO (OMPIO) picks a shared-file-pointer component at every file open;
  // its "lockedfile" one formats the file's name into a fixed buffer and aborts the
  // process ("buffer overflow detected") for paths of a few hundred characters. HDF5 uses
  // no shared file pointers: leave that component out, unless the user chose otherwise.
  setenv("OMPI_MCA_sharedfp", "^lockedfile", 0);
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "blast_gpu: MPI_Init_thread failed\n");
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  BlastErrorSetRank(rank);
  // BLAST_ERROR_TRACE=1: print where bad input and numerical failures were raised too.
  const char *trace_all = getenv("BLAST_ERROR_TRACE");
  BlastErrorSetTraceAll(trace_all && atoi(trace_all) > 0);
  RunState rs = {NULL, NULL, NULL, NULL, NULL, {-1}, {-1}};
  return Finish(Run(argc, argv, &rs), &rs);
}
