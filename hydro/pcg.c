// The momentum PCG (method spec 7.3, V1: all components in lockstep), the mass-matrix
// product with its ghost-column exchange, and the global dot products, rounded once from
// double-double sums (the same bits on any number of ranks, threads and backends).
#include <math.h>

#include "blast_mpi.h"
#include "halo_peer.h"
#include "pcg.h"
#include "pcg_step.h"

// Global dot product, rounded once from a double-double sum: the same bits on any
// number of ranks (and threads).
int BlastHydroGlobalDot(BlastHydro h, size_t n, const double *x, const double *y, double *r) {
  double local[2], global[2];
  BlastCall(h->ops->vec.dot(h->bctx, n, x, y, local));
  if (h->nranks > 1) {
    BlastCallMPI(MPI_Allreduce(local, global, 1, h->dd_type, h->dd_op, h->comm));
  } else {
    global[0] = local[0], global[1] = local[1];
  }
  *r = global[0] + global[1];
  return 0;
}

// The local double-double pairs of the active components summed over the ranks, each
// rounded once (the same bits on any number of ranks and on every backend).
static int GlobalDotReduce(BlastHydro h, int ncomp, const double *local, double *r) {
  double global[6];
  if (h->nranks > 1) {
    const double t0 = BlastWtime();
    BlastCallMPI(MPI_Allreduce(local, global, ncomp, h->dd_type, h->dd_op, h->comm));
    h->timers.cg_wait += BlastWtime() - t0;
  } else {
    for (int i = 0; i < 2 * ncomp; i++) global[i] = local[i];
  }
  for (int c = 0; c < ncomp; c++) r[c] = global[2 * c] + global[2 * c + 1];
  return 0;
}

// Ad_c = m d_c on the owned rows for the active components: ghost columns of d travel
// while the interior rows are multiplied; then the boundary rows. Constrained entries
// are zeroed. The global dots (d_c, Ad_c) of the active components into dot, taken by the
// products themselves (mass.mult_dot) before the zeroing: in the PCG d is exactly zero
// at the constrained dofs (r, z and d are zeroed there), so those terms of the sum are
// exact zeros and the dot is that of the zeroed Ad (the same bits as dot_multi after it).
int BlastHydroMassMult(BlastHydro h, int ncomp, unsigned mask, double *d, double *Ad, double *dot) {
  const BlastBackendOps *o = h->ops;
  const size_t st = (size_t)h->space->h1_next;
  double local[6];
  BlastCall(BlastHydroHaloForwardBegin(h, BLAST_HALO_COL, ncomp, st, d));
  BlastCall(o->mass.mult_dot(h->bctx, BLAST_ROWS_INTERIOR, ncomp, mask, d, Ad, local));
  BlastCall(BlastHydroHaloForwardEnd(h, BLAST_HALO_COL, ncomp, st, d));
  BlastCall(o->mass.mult_dot(h->bctx, BLAST_ROWS_BOUNDARY, ncomp, mask, d, Ad, local));
  BlastCall(o->mass.zero_essential(h->bctx, ncomp, mask, Ad));
  return GlobalDotReduce(h, ncomp, local, dot);
}

// Global dot products of the active components (x_c, y_c).
int BlastHydroGlobalDotMulti(BlastHydro h, int ncomp, unsigned mask, const double *x,
                             const double *y, double *r) {
  double local[6];
  BlastCall(h->ops->mass.dot_multi(h->bctx, ncomp, mask, x, y, local));
  return GlobalDotReduce(h, ncomp, local, r);
}

// The error of an unconverged lockstep solve: h->cg_fail from the state (the same on
// every rank: the dots are global).
static int LockstepFailed(BlastHydro h, const BlastPcgState *s) {
  int c = 0;
  while (!((s->failed >> c) & 1u)) c++;
  h->cg_fail.comps = s->failed;
  h->cg_fail.iters = s->iter;
  for (int k = 0; k < 3; k++)
    if ((s->failed >> k) & 1u) h->cg_fail.residual[k] = s->residual[k], h->timers.cg_unconverged++;
  BlastError(BLAST_ERR_NUMERIC,
             "the velocity solve (Jacobi-PCG, component %c) did not converge in [solver] "
             "cg_max_iter = %d iterations: relative residual %.3e, cg_tol = %.3e",
             "xyz"[c], h -> cfg.cg_max_iter, h->cg_fail.residual[c], h->cfg.cg_tol);
}

// Jacobi-PCG for the velocity components (method spec 7.3, exactly), all components in
// lockstep: each solves m x_c = b_c on its free dofs with its own alpha, beta and stopping
// test, so every component sees exactly the operations of a solve of its own (spec 7.1
// V1); the matrix is read once per iteration for all of them. b (the owned entries at
// c * h1_next) is overwritten: constrained entries zeroed. The scalars are pcg_step.h's.
// On one rank, or on several whose halos travel through device areas that allow it (the
// same answer on every rank: BlastHydroPeerResident), a backend may run the whole solve resident on
// its device (mass.pcg: the same operations, bits and iterations, without a host round trip per
// iteration; the choice is the same on every rank).
int BlastHydroPcgLockstep(BlastHydro h, int ncomp, double *b, double *x) {
  const BlastBackendOps *o = h->ops;
  void *ctx = h->bctx;
  const size_t n = (size_t)h->space->h1_nown, st = (size_t)h->space->h1_next;
  double *r = h->cg_r, *z = h->cg_z, *d = h->cg_d, *Ad = h->cg_q;
  const unsigned all = (1u << ncomp) - 1u;
  BlastPcgState s;
  if (h->nranks == 1 || BlastHydroPeerResident(h)) {
    int resident = 0;
    double *const work[4] = {r, z, d, Ad};
    BlastCall(
        o->mass.pcg(ctx, ncomp, h->cfg.cg_tol, h->cfg.cg_max_iter, b, x, work, &s, &resident));
    if (resident) {
      h->timers.cg_solves += ncomp, h->timers.cg_resident += ncomp;
      h->timers.cg_iter += s.comp_iters;
      return s.failed ? LockstepFailed(h, &s) : 0;
    }
  }
  double dots[3];
  BlastCall(o->mass.zero_essential(ctx, ncomp, all, b));
  for (int c = 0; c < ncomp; c++) {
    BlastCall(o->vec.set(ctx, n, 0.0, x + c * st));
    BlastCall(o->vec.copy(ctx, n, b + c * st, r + c * st));
  }
  BlastCall(o->mass.jacobi(ctx, ncomp, all, r, z));
  for (int c = 0; c < ncomp; c++) BlastCall(o->vec.copy(ctx, n, z + c * st, d + c * st));
  BlastCall(BlastHydroGlobalDotMulti(h, ncomp, all, z, r, dots));
  BlastPcgStart(&s, ncomp, h->cfg.cg_tol, dots);
  h->timers.cg_solves += ncomp;
  while (s.mask) {
    double local[6];
    BlastCall(BlastHydroMassMult(h, ncomp, s.mask, d, Ad, dots));
    BlastPcgDelta(&s, ncomp, dots);
    if (!s.mask) break;
    // r -= coef Ad, z = D^{-1} r and (r, z) in one pass (the same bits as the three
    // operations one after the other)
    BlastCall(o->mass.cg_update(ctx, ncomp, s.mask, s.coef, Ad, r, z, local));
    BlastCall(GlobalDotReduce(h, ncomp, local, dots));
    const int more = BlastPcgTest(&s, ncomp, dots, h->cfg.cg_max_iter);
    // x_c += alpha_c d_c for this iteration's components, then d_c = z_c + beta_c d_c for
    // those still iterating, in one pass (the same bits as axpby_multi for each). Unlike
    // the reference, which carries on with the unconverged iterate, a failure is an error:
    // the dots are global, so every rank stops here together. The time loop reports it
    // with the step (BlastHydroRun).
    BlastCall(o->mass.cg_advance(ctx, ncomp, s.xmask, s.dmask, s.coef, s.beta, z, d, x));
    if (!more) break;
  }
  h->timers.cg_iter += s.comp_iters;
  return s.failed ? LockstepFailed(h, &s) : 0;
}

// The sum over the components of their global dots (each rounded once), in component
// order: one scalar of the coupled solve, the same on every rank and backend.
static double SumComponents(int ncomp, const double *v) {
  double s = 0.0;
  for (int c = 0; c < ncomp; c++) s += v[c];
  return s;
}

// Jacobi-PCG for all velocity components coupled, with the wall projections
// P = I - sum n n^T at the nodes with wall normals not all axis-aligned (boundary.h):
// one alpha and beta for the whole vector; the rhs, every operator output and every
// preconditioned residual projected (and the component constraints zeroed), so the
// iterates stay in the constrained space and the solution satisfies x.n = 0 at those
// nodes to round-off (projected once more at the end). The Jacobi preconditioner is the
// same scalar at every component of a node, so it commutes with P: P D^-1 P is symmetric
// positive definite on that space.
int BlastHydroPcgProjected(BlastHydro h, int ncomp, double *b, double *x) {
  const BlastBackendOps *o = h->ops;
  void *ctx = h->bctx;
  const size_t n = (size_t)h->space->h1_nown, st = (size_t)h->space->h1_next;
  double *r = h->cg_r, *z = h->cg_z, *d = h->cg_d, *Ad = h->cg_q;
  const double tol = h->cfg.cg_tol;
  const unsigned all = (1u << ncomp) - 1u;
  double dots[3], coef[3], beta3[3];
  BlastCall(o->mass.zero_essential(ctx, ncomp, all, b));
  BlastCall(o->mass.project(ctx, ncomp, b));
  for (int c = 0; c < ncomp; c++) {
    BlastCall(o->vec.set(ctx, n, 0.0, x + c * st));
    BlastCall(o->vec.copy(ctx, n, b + c * st, r + c * st));
  }
  BlastCall(o->mass.jacobi(ctx, ncomp, all, r, z));
  BlastCall(o->mass.project(ctx, ncomp, z));
  for (int c = 0; c < ncomp; c++) BlastCall(o->vec.copy(ctx, n, z + c * st, d + c * st));
  BlastCall(BlastHydroGlobalDotMulti(h, ncomp, all, z, r, dots));
  double nu = SumComponents(ncomp, dots);
  const double nu0 = nu, theta = fmax(nu * tol * tol, 0.0);
  h->timers.cg_solves++;
  if (!(nu > theta)) return 0;
  BlastCall(BlastHydroMassMult(h, ncomp, all, d, Ad, dots));
  BlastCall(o->mass.project(ctx, ncomp, Ad));
  double delta = SumComponents(ncomp, dots);
  for (int i = 1; delta > 0.0; i++) {
    const double alpha = nu / delta;
    for (int c = 0; c < ncomp; c++) coef[c] = -alpha;
    for (int c = 0; c < ncomp; c++) beta3[c] = 1.0;
    BlastCall(o->mass.axpby_multi(ctx, ncomp, all, coef, Ad, beta3, r));
    BlastCall(o->mass.jacobi(ctx, ncomp, all, r, z));
    BlastCall(o->mass.project(ctx, ncomp, z));
    BlastCall(BlastHydroGlobalDotMulti(h, ncomp, all, r, z, dots));
    const double betanu = SumComponents(ncomp, dots);
    h->timers.cg_iter++;
    const int done = betanu <= theta, failed = !done && i + 1 > h->cfg.cg_max_iter;
    for (int c = 0; c < ncomp; c++) coef[c] = alpha, beta3[c] = betanu / nu;
    BlastCall(o->mass.cg_advance(ctx, ncomp, all, done || failed ? 0u : all, coef, beta3, z, d, x));
    if (failed) {
      h->timers.cg_unconverged++;
      h->cg_fail.comps = all;
      h->cg_fail.iters = i;
      h->cg_fail.residual[0] = sqrt(betanu / nu0);
      BlastError(BLAST_ERR_NUMERIC,
                 "the velocity solve (coupled projected Jacobi-PCG, walls not axis-aligned) did "
                 "not converge in [solver] cg_max_iter = %d iterations: relative residual "
                 "%.3e, cg_tol = %.3e",
                 h->cfg.cg_max_iter, h->cg_fail.residual[0], tol);
    }
    if (done) break;
    BlastCall(BlastHydroMassMult(h, ncomp, all, d, Ad, dots));
    BlastCall(o->mass.project(ctx, ncomp, Ad));
    delta = SumComponents(ncomp, dots);
    nu = betanu;
  }
  BlastCall(o->mass.zero_essential(ctx, ncomp, all, x));
  return o->mass.project(ctx, ncomp, x);
}
