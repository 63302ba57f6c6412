/// @file pcg_step.h
/// @brief The scalar part of the lockstep Jacobi-PCG (method spec 7.3; hydro/pcg.c): the
/// coefficients, the stopping tests and the masks of the components still iterating,
/// written once for the host loop (pcg.c) and for solves resident on a device (the CUDA
/// backend's mass.pcg runs them in a kernel between the vector kernels). The same
/// operations in the same order on both: the same bits and the same iterations.
///
/// A solve: BlastPcgStart with the dots (z_c, r_c); while mask != 0: the product Ad = m d
/// and its dots (d_c, Ad_c) into BlastPcgDelta (coef = alpha); the residual update and its
/// dots (r_c, z_c) into BlastPcgTest (beta, the masks of the advance x += alpha d,
/// d = z + beta d, and whether the loop goes on).
#ifndef BLAST_PCG_STEP_H
#define BLAST_PCG_STEP_H

#include <math.h>

#include "host_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The state of a lockstep solve of up to 3 components.
typedef struct {
  double nu[3];        ///< (r_c, z_c) of the current direction
  double nu0[3];       ///< (r_c, z_c) of the first residual
  double theta[3];     ///< the stopping threshold nu0 tol^2
  double coef[3];      ///< alpha_c = nu_c / delta_c of this iteration
  double beta[3];      ///< beta_c of the direction update (0 where d_c is not updated)
  double residual[3];  ///< relative residuals of the failed components
  unsigned mask;       ///< components still iterating
  unsigned xmask;      ///< components whose x this iteration's advance updates
  unsigned dmask;      ///< ... and whose d it updates
  unsigned failed;     ///< components that reached max_iter unconverged
  int iter;            ///< iterations started (the loop's i)
  int comp_iters;      ///< iterations summed over the components
} BlastPcgState;

/// The first residual's dots nu[c] = (z_c, r_c): thresholds and the components to solve.
BLAST_HOST_DEVICE static inline void BlastPcgStart(BlastPcgState *s, int ncomp, double tol,
                                                   const double *nu) {
  s->mask = 0u, s->xmask = 0u, s->dmask = 0u, s->failed = 0u;
  s->iter = 0, s->comp_iters = 0;
  for (int c = 0; c < 3; c++) {
    s->nu[c] = s->nu0[c] = s->theta[c] = s->coef[c] = s->beta[c] = s->residual[c] = 0.0;
    if (c >= ncomp) continue;
    s->nu[c] = s->nu0[c] = nu[c];
    s->theta[c] = fmax(nu[c] * tol * tol, 0.0);
    if (nu[c] > s->theta[c]) s->mask |= 1u << c;
  }
}

/// The product's dots delta[c] = (d_c, Ad_c): an iteration starts. Before the first, a
/// component with delta <= 0 stops (d_c is in the null space of m: nothing to solve).
/// alpha_c = nu_c / delta_c for the components that iterate (BlastPcgDeltaComp: component
/// c's part, for a device kernel that needs only its own).
BLAST_HOST_DEVICE static inline void BlastPcgDeltaComp(BlastPcgState *s, int c, double delta) {
  if (!((s->mask >> c) & 1u)) return;
  if (s->iter == 0 && delta <= 0.0) {
    s->mask &= ~(1u << c);
    return;
  }
  s->coef[c] = s->nu[c] / delta;
}
BLAST_HOST_DEVICE static inline void BlastPcgDelta(BlastPcgState *s, int ncomp,
                                                   const double *delta) {
  for (int c = 0; c < ncomp; c++) BlastPcgDeltaComp(s, c, delta[c]);
  s->iter++;
}

/// The updated residual's dots betanu[c] = (r_c, z_c) of iteration s->iter: each
/// component's stopping test, a failure past max_iter, beta and the masks of the advance
/// (x for this iteration's components; d for those that go on, none after a failure).
/// Returns whether another iteration follows (some component goes on, none failed).
BLAST_HOST_DEVICE static inline int BlastPcgTest(BlastPcgState *s, int ncomp, const double *betanu,
                                                 int max_iter) {
  unsigned next = s->mask, failed = 0u;
  for (int c = 0; c < ncomp; c++) {
    if (!((s->mask >> c) & 1u)) continue;
    s->comp_iters++;
    if (betanu[c] <= s->theta[c]) {
      next &= ~(1u << c);
    } else if (s->iter + 1 > max_iter) {
      failed |= 1u << c;
      s->residual[c] = sqrt(betanu[c] / s->nu0[c]);
    }
  }
  const unsigned dnext = failed ? 0u : next;
  for (int c = 0; c < ncomp; c++) {
    s->beta[c] = 0.0;
    if ((dnext >> c) & 1u) {
      s->beta[c] = betanu[c] / s->nu[c];
      s->nu[c] = betanu[c];
    }
  }
  s->xmask = s->mask, s->dmask = dnext, s->failed = failed, s->mask = next;
  return next != 0u && failed == 0u;
}

#ifdef __cplusplus
}
#endif

#endif  // BLAST_PCG_STEP_H
