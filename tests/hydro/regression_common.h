// Shared helpers for the hydro regression tests: default configurations and runs that
// record |e| at every accepted step.
#ifndef BLAST_TEST_REGRESSION_COMMON_H
#define BLAST_TEST_REGRESSION_COMMON_H

#include <string.h>

#include "hydro.h"
#include "mesh.h"

/// The reference's defaults (method spec 15.2): k=2, m=1, RK4, cfl 0.5, t_final 0.6; the
/// default assembly mode.
static inline void RegressionConfig(BlastConfig *cfg, int problem) {
  memset(cfg, 0, sizeof *cfg);
  cfg->problem = problem;
  cfg->blast_energy = 1.0;
  cfg->blast_tol = 1e-12;
  cfg->order_kinematic = 2;
  cfg->order_thermo = 1;
  cfg->order_quadrature = -1;
  cfg->t_final = 0.6;
  cfg->cfl = 0.5;
  cfg->ode_solver = BLAST_ODE_RK4;
  cfg->max_steps = -1;
  cfg->dt_min = 2.220446049250313e-16;
  cfg->cg_tol = 1e-14;
  cfg->cg_max_iter = 300;
  cfg->viscosity = BLAST_VISC_AUTO;
  cfg->print_every = 1;
  cfg->assembly = BLAST_ASSEMBLY_DEFAULT;  // what a deck without the key runs
}

typedef struct {
  int nsteps, max;
  double *e_norm;  // [step] |e| after accepted step `step` (1-based)
  double *dt;      // printed dt
  int rejected;
} StepLog;

static inline int LogStep(void *user, const BlastStepInfo *info) {
  StepLog *log = user;
  if (info->rejected) {
    log->rejected++;
    return 0;
  }
  if (info->step < log->max) {
    log->e_norm[info->step] = info->e_norm;
    log->dt[info->step] = info->dt;
  }
  log->nsteps = info->step;
  return 0;
}

#endif
