// The end of a run: the summary (printed and written to summary.json), the command that
// continues a run a signal stopped, the objects freed, the GPU tuning and profile.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"
#ifdef BLAST_HAVE_CUDA
#include "blast_cuda.h"
#endif
#include "blast_mpi.h"
#include "cli.h"
#include "diagnostics.h"
#include "report.h"
#include "run.h"
#include "signals.h"

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

// A signal that came during the run's last step stopped nothing: the run reached its end
// (t_final or max_steps) and is complete; its checkpoint was written all the same.
static int StoppedEarly(const RunLoopEnd *end) {
  return end->signal && !end->last;
}

// The summary's parts that the run knows, beside what BlastReportCollect gathers.
static void FillSummary(const RunPlan *p, const RunState *rs, const RunLoopEnd *end,
                        BlastRunSummary *sum) {
  const int stopped = StoppedEarly(end);
  sum->dt0 = p->dt0, sum->e_norm0 = p->e_norm0, sum->hw_energy = end->energy;
  sum->mesh_seconds = p->mesh_seconds;
  sum->mesh_cpu_seconds = p->mesh_cpu, sum->mesh_peak_rss = p->mesh_rss;
  sum->deck_text = rs->deck_text;
  sum->completed = !stopped;
  sum->stopped_by = stopped ? BlastSignalName(end->signal) : "";
  sum->restart_from = p->cfg->checkpoint_restart;
  sum->run_id = p->run_id;
  sum->restart_steps = p->restart_steps;
  sum->checkpoint = end->chk.count ? end->chk.path : "";
  sum->checkpoints = end->chk.count;
  sum->checkpoint_seconds = end->chk.seconds;
  sum->viz = rs->viz ? p->viz_series : "";
  sum->viz_dumps = rs->viz ? BlastVizCount(rs->viz) : 0;
}

int RunReport(int argc, char **argv, RunPlan *p, RunState *rs, const RunLoopEnd *end) {
  const BlastConfig *cfg = p->cfg;
  BlastRunSummary sum;
  BlastCall(
      BlastReportCollect(p->comm, rs->h, MPI_Wtime() - p->wall0, p->setup, p->ops->name, &sum));
  FillSummary(p, rs, end, &sum);
  // [exact] (custom problems): its errors always; the built-ins' with [output] exact_error.
  const BlastExactSpec *ex = &cfg->exact;
  if (cfg->exact_error || ex->nvelocity > 0 || ex->density.text[0] || ex->pressure.text[0]) {
    BlastCall(BlastDiagnosticsExactErrors(rs->h, &sum.sedov_density_l2, &sum.vel_err_linf,
                                          &sum.vel_err_l1, &sum.vel_err_l2));
    BlastCall(BlastDiagnosticsExactFieldErrors(rs->h, &sum.rho_err_l2, &sum.p_err_l2));
  }
  if (!p->rank) {
    BlastReportSummary(stdout, &sum);
    BlastCall(BlastReportWriteJson(cfg->output_dir, cfg, &sum));
    printf("\n  summary written to %s/summary.json\n", cfg->output_dir);
    if (cfg->history_steps > 0) printf("  history written to %s/history.csv\n", cfg->output_dir);
    if (StoppedEarly(end)) {
      printf("  stopped by %s: continue with\n    ", BlastSignalName(end->signal));
      PrintRestartCommand(argc, argv, cfg->deck_path, end->chk.path);
    }
  }
  return 0;
}

#ifdef BLAST_HAVE_CUDA
// Rank 0's tuning decisions and GPU profile.
static int PrintGpuProfile(const RunPlan *p, BlastHydro h) {
  const BlastBackendOps *bops;
  void *bctx;
  int nranks;
  BlastGpuAutotune tune;
  BlastGpuProfile prof;
  BlastHydroGetBackend(h, &bops, &bctx);
  BlastCallMPI(MPI_Comm_size(p->comm, &nranks));
  BlastCudaGetAutotune(bctx, &tune);
  BlastCudaGetProfile(bctx, &prof);
  BlastReportAutotune(stdout, &tune);
  BlastReportGpuProfile(stdout, &prof, nranks);
  return 0;
}
#endif

int RunRelease(RunPlan *p, RunState *rs) {
  BlastCall(BlastVizDestroy(&rs->viz));
  BlastHistoryDestroy(&rs->history);  // closed at the end of the time loop
  BlastOutdirRelease(&rs->lock_chk);
  BlastOutdirRelease(&rs->lock_out);
  free(rs->deck_text);
  rs->deck_text = NULL;
#ifdef BLAST_HAVE_CUDA
  if (p->ops == &blast_backend_cuda && !p->rank) BlastCall(PrintGpuProfile(p, rs->h));
#else
  (void)p;
#endif
  BlastCall(BlastHydroDestroy(&rs->h));
  BlastCall(BlastMeshDestroy(&rs->mesh));
  return 0;
}
