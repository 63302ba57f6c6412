/// @file report.h
/// @brief Output for people and scripts: banner, progress lines, final summary with
/// timing breakdown and figures of merit (rank 0 prints), and <output.dir>/summary.json.
#ifndef BLAST_REPORT_H
#define BLAST_REPORT_H

#include <stdio.h>

#include "config.h"
#include "energy.h"
#include "hydro.h"

/// Everything the final summary reports, reduced over ranks.
typedef struct {
  int steps, attempts, rejected;
  double t, dt, e_norm;
  double ie, ke, energy, energy0;
  double dt0, e_norm0;  ///< initial time step (spec 10.1) and |e| at t = 0
  double wall, setup_wall;
  double mesh_seconds;     ///< building the mesh, rank 0 (part of setup_wall; set by main)
  double mesh_cpu_seconds; ///< process CPU seconds in it, rank 0 (set by main)
  double mesh_peak_rss;    ///< the process's peak RSS after it (bytes), rank 0 (set by main)
  int setup_phases;        ///< BlastHydroSetupPhaseCount() (at most 32)
  double setup_phase[32];  ///< wall seconds of each setup phase, max over ranks
  double setup_phase_cpu[32];  ///< process CPU seconds (all threads) in it, max over ranks
  double setup_phase_rss[32];  ///< the process's peak RSS after it (bytes), max over ranks
  BlastHydroShape shape;
  const char *backend;
  // timings: max over ranks (and min for imbalance)
  double t_qdata, t_force, t_cg, t_step;
  double t_qdata_min, t_force_min, t_cg_min, t_step_min;
  double t_cg_wait, t_cg_wait_min;  ///< part of the CG in halo waits and dot reductions
  long long cg_iter, cg_unconverged, qdata_zone_updates;
  long long cg_solves, cg_solves_resident;  ///< component solves; those resident on the device
  // figures of merit as defined by the reference implementation
  double fom_cg, fom_force, fom_qdata, fom_total, fom0;
  // exact-solution errors (NAN when not computed)
  double sedov_density_l2;
  double vel_err_linf, vel_err_l1, vel_err_l2;
  double rho_err_l2, p_err_l2;  ///< [exact] density and pressure
  // CPU+GPU split (balance.active = 0 without a hybrid): rank 0's state, and over ranks
  BlastBalanceInfo balance;
  double gpu_fraction_min, gpu_fraction_max;
  int converged_period_max;  ///< -1 if some rank has not converged
  // energy the hardware used during the time steps (set by main after BlastReportCollect)
  BlastEnergyReport hw_energy;
  // how the run went (set by main): reached t_final / max_steps, or stopped early
  int completed;            ///< 1: ran to its end; 0: stopped (signal) before it
  const char *stopped_by;   ///< "" or the signal's name ("SIGTERM", "SIGUSR1")
  const char *run_id;       ///< the run's id (a restart keeps the id of the run it continues)
  const char *restart_from; ///< "" or the checkpoint this run continued from
  int restart_steps;        ///< accepted steps done before the restart (0 without one)
  const char *checkpoint;   ///< "" or the newest checkpoint this run wrote
  int checkpoints;          ///< checkpoints written by this run
  double checkpoint_seconds;///< wall time spent writing them
  const char *viz;          ///< "" or the XDMF time series of the dumps
  int viz_dumps;            ///< dumps in that series
  const char *deck_text;    ///< the resolved deck (INI), as stored in checkpoints (set by main)
  const BlastProblem *prob;  ///< the problem (material names), owned by the solver
  const BlastMaterial *mats; ///< [nmat] its materials, owned by the solver
  int nmat;
} BlastRunSummary;

/// State of the progress reporter (rank 0 prints).
typedef struct {
  int rank;
  double wall0;     ///< MPI_Wtime at the start of the time loop
  double t_final;
  double t_start;   ///< t at the start of the time loop (a restart's time; 0 otherwise)
  double energy0;
  BlastHydro hydro;
  int rejected;
  FILE *out;
} BlastProgress;

/// The banner; h gives the materials.
void BlastReportBanner(FILE *out, const BlastConfig *cfg, BlastHydro h,
                       const BlastHydroShape *shape, const char *backend, double dt0,
                       double e_norm0, double energy0);
/// BlastStepCallback that prints the progress line on report steps and repeated steps.
int BlastReportStep(void *progress, const BlastStepInfo *info);
/// Gather timings and counters over ranks and compute the figures of merit. Collective.
int BlastReportCollect(MPI_Comm comm, BlastHydro h, double wall, double setup_wall,
                       const char *backend, BlastRunSummary *sum);
void BlastReportSummary(FILE *out, const BlastRunSummary *sum);
/// Write <dir>/summary.json atomically (temporary name, then rename). Rank 0 only.
int BlastReportWriteJson(const char *dir, const BlastConfig *cfg, const BlastRunSummary *sum);

#ifdef BLAST_HAVE_CUDA
#include "blast_cuda.h"
/// The CUDA backend's tuning decisions of this run, one line each ("  autotune: ...").
void BlastReportAutotune(FILE *out, const BlastGpuAutotune *tune);
/// The CUDA backend's per-kernel profile (BLAST_GPU_PROFILE=1; nothing when it is off),
/// with the device memory measured at the first update when the run has one rank.
void BlastReportGpuProfile(FILE *out, const BlastGpuProfile *prof, int nranks);
#endif

#endif  // BLAST_REPORT_H
