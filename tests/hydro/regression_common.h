// Shared helpers for the hydro regression tests: default configurations and runs that
// record |e| at every accepted step.
#ifndef BLAST_TEST_REGRESSION_COMMON_H
#define BLAST_TEST_REGRESSION_COMMON_H

#include <string.h>

#include "hydro.h"
#include "linalg.h"
#include "mesh.h"
#include "space.h"

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

/// Volume and centroid of zone z from the L-vector positions x (component stride nl).
static inline double RegressionZoneVolume(const BlastSpace *s, const BlastTensorTables *t,
                                          const double *x, int z, double *c) {
  const int dim = s->dim, nd = s->h1_nd, nl = s->h1_nl;
  double vol = 0.0;
  c[0] = c[1] = c[2] = 0.0;
  for (int q = 0; q < t->nqp; q++) {
    double J[9] = {0}, X[3] = {0, 0, 0};
    for (int a = 0; a < nd; a++) {
      const int l = s->h1_edof[(size_t)z * nd + a];
      for (int i = 0; i < dim; i++) {
        const double xa = x[(size_t)i * nl + l];
        X[i] += xa * t->h1_B[(size_t)q * nd + a];
        for (int g = 0; g < dim; g++)
          J[i + dim * g] += xa * t->h1_G[((size_t)q * nd + a) * dim + g];
      }
    }
    const double w = t->qp_w[q] * BlastMatDet(dim, J);
    vol += w;
    for (int i = 0; i < dim; i++) c[i] += w * X[i];
  }
  for (int i = 0; i < dim; i++) c[i] /= vol;
  return vol;
}

#endif
