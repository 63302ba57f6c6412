// Time integration (method spec 9) and the adaptive time-step driver (10.2).
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blast_mpi.h"
#include "hydro-impl.h"

// 8-stage, 6th-order explicit Runge-Kutta (the 6th-order part of Verner's "efficient"
// 9-stage 6(5) pair), Butcher tableau lower triangle by rows.
static const double kRK6a[28] = {
    .6e-1,
    .1923996296296296296296296296296296296296e-1,
    .7669337037037037037037037037037037037037e-1,
    .35975e-1,
    0.,
    .107925,
    1.318683415233148260919747276431735612861,
    0.,
    -5.042058063628562225427761634715637693344,
    4.220674648395413964508014358283902080483,
    -41.87259166432751461803757780644346812905,
    0.,
    159.4325621631374917700365669070346830453,
    -122.1192135650100309202516203389242140663,
    5.531743066200053768252631238332999150076,
    -54.43015693531650433250642051294142461271,
    0.,
    207.0672513650184644273657173866509835987,
    -158.6108137845899991828742424365058599469,
    6.991816585950242321992597280791793907096,
    -.1859723106220323397765171799549294623692e-1,
    -54.66374178728197680241215648050386959351,
    0.,
    207.9528062553893734515824816699834244238,
    -159.2889574744995071508959805871426654216,
    7.018743740796944434698170760964252490817,
    -.1833878590504572306472782005141738268361e-1,
    -.5119484997882099077875432497245168395840e-3};
static const double kRK6b[8] = {.3438957868357036009278820124728322386520e-1,
                                0.,
                                0.,
                                .2582624555633503404659558098586120858767,
                                .4209371189673537150642551514069801967032,
                                4.405396469669310170148836816197095664891,
                                -176.4831190242986576151740942499002125029,
                                172.3641334014150730294022582711902413315};

// The stages of one RK6 step on h->S with the stage rates in ks[8].
static int Rk6Stages(BlastHydro h, double dt, double **ks) {
  const BlastBackendOps *o = h->ops;
  void *b = h->bctx;
  const size_t n = h->nstate;
  double *S = h->S, *y = h->rk_y;
  const double t0 = h->t;
  h->t_stage = t0;
  BlastCall(BlastHydroRates(h, S, ks[0]));
  for (int l = 0, i = 1; i < 8; i++) {
    double c = kRK6a[l];  // the stage's time t0 + c dt, c = sum_j a_ij
    BlastCall(o->vec.waxpby(b, n, 1.0, S, kRK6a[l++] * dt, ks[0], y));
    for (int j = 1; j < i; j++) {
      c += kRK6a[l];
      BlastCall(o->vec.axpby(b, n, kRK6a[l++] * dt, ks[j], 1.0, y));
    }
    h->t_stage = t0 + c * dt;
    BlastCall(BlastHydroRates(h, y, ks[i]));
  }
  for (int i = 0; i < 8; i++) BlastCall(o->vec.axpby(b, n, kRK6b[i] * dt, ks[i], 1.0, S));
  return 0;
}

int BlastOdeScratchCreate(BlastHydro h) {
  const BlastBackendOps *o = h->ops;
  double **vecs[] = {&h->S_old, &h->rk_y, &h->rk_z, &h->rk_k, &h->rk_k2};
  for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++)
    BlastCall(o->vec.alloc(h->bctx, h->nstate, vecs[i]));
  if (h->cfg.ode_solver == BLAST_ODE_RK6)
    for (int i = 0; i < 8; i++) BlastCall(o->vec.alloc(h->bctx, h->nstate, &h->rk6_k[i]));
  return 0;
}

int BlastOdeScratchDestroy(BlastHydro h) {
  double **vecs[] = {&h->S_old,     &h->rk_y,      &h->rk_z,      &h->rk_k,
                     &h->rk_k2,     &h->rk6_k[0], &h->rk6_k[1], &h->rk6_k[2],
                     &h->rk6_k[3], &h->rk6_k[4], &h->rk6_k[5], &h->rk6_k[6],
                     &h->rk6_k[7]};
  for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++)
    if (*vecs[i]) BlastCall(h->ops->vec.free(h->bctx, vecs[i]));
  return 0;
}

// One step of the chosen integrator on h->S; t advances by dt.
static int Step(BlastHydro h, double dt) {
  const BlastBackendOps *o = h->ops;
  void *b = h->bctx;
  const size_t n = h->nstate;
  double *S = h->S, *y = h->rk_y, *z = h->rk_z, *k = h->rk_k;
  const double t0 = h->t;  // stage times h->t_stage: t0 + c dt (power sources)
  switch (h->cfg.ode_solver) {
    case BLAST_ODE_EULER:
      h->t_stage = t0 + 0.0 * dt;
      BlastCall(BlastHydroRates(h, S, k));
      BlastCall(o->vec.axpby(b, n, dt, k, 1.0, S));
      break;
    case BLAST_ODE_RK2: {  // midpoint, a = 1/2, b = 1/(2a) = 1
      const double a = 0.5, bb = 1.0;
      h->t_stage = t0 + 0.0 * dt;
      BlastCall(BlastHydroRates(h, S, k));
      BlastCall(o->vec.waxpby(b, n, 1.0, S, (1.0 - bb) * dt, k, z));
      BlastCall(o->vec.axpby(b, n, a * dt, k, 1.0, S));
      h->t_stage = t0 + 0.5 * dt;
      BlastCall(BlastHydroRates(h, S, k));
      BlastCall(o->vec.waxpby(b, n, 1.0, z, bb * dt, k, S));
      break;
    }
    case BLAST_ODE_RK3SSP:
      h->t_stage = t0 + 0.0 * dt;
      BlastCall(BlastHydroRates(h, S, k));
      BlastCall(o->vec.waxpby(b, n, 1.0, S, dt, k, y));
      h->t_stage = t0 + 1.0 * dt;
      BlastCall(BlastHydroRates(h, y, k));
      BlastCall(o->vec.axpby(b, n, dt, k, 1.0, y));
      BlastCall(o->vec.waxpby(b, n, 3.0 / 4, S, 1.0 / 4, y, y));
      h->t_stage = t0 + 0.5 * dt;
      BlastCall(BlastHydroRates(h, y, k));
      BlastCall(o->vec.axpby(b, n, dt, k, 1.0, y));
      BlastCall(o->vec.waxpby(b, n, 1.0 / 3, S, 2.0 / 3, y, S));
      break;
    case BLAST_ODE_RK4:
      h->t_stage = t0 + 0.0 * dt;
      BlastCall(BlastHydroRates(h, S, k));
      BlastCall(o->vec.waxpby(b, n, 1.0, S, dt / 2, k, y));
      BlastCall(o->vec.waxpby(b, n, 1.0, S, dt / 6, k, z));
      h->t_stage = t0 + 0.5 * dt;
      BlastCall(BlastHydroRates(h, y, k));
      BlastCall(o->vec.waxpby(b, n, 1.0, S, dt / 2, k, y));
      BlastCall(o->vec.axpby(b, n, dt / 3, k, 1.0, z));
      h->t_stage = t0 + 0.5 * dt;
      BlastCall(BlastHydroRates(h, y, k));
      BlastCall(o->vec.waxpby(b, n, 1.0, S, dt, k, y));
      BlastCall(o->vec.axpby(b, n, dt / 3, k, 1.0, z));
      h->t_stage = t0 + 1.0 * dt;
      BlastCall(BlastHydroRates(h, y, k));
      BlastCall(o->vec.waxpby(b, n, 1.0, z, dt / 6, k, S));
      break;
    case BLAST_ODE_RK6:  // stage rates in h->rk6_k, allocated at setup
      BlastCall(Rk6Stages(h, dt, h->rk6_k));
      break;
    case BLAST_ODE_RK2AVG: {
      // Method spec 9.2: the energy and position rates use the half-advanced velocity.
      const size_t nx = h->nx;
      double *S0 = z, *V = h->rk_k2, *dS = k;
      BlastCall(o->vec.copy(b, n, S, S0));
      for (int stage = 0; stage < 2; stage++) {
        h->t_stage = t0 + (stage == 0 ? 0.0 : 0.5) * dt;
        BlastCall(BlastHydroUpdateQData(h, S));
        BlastCall(BlastHydroSolveVelocity(h, dS + nx));
        BlastCall(o->vec.waxpby(b, nx, 1.0, S0 + nx, 0.5 * dt, dS + nx, V));
        BlastCall(BlastHydroEnergyRate(h, V, dS + 2 * nx));
        BlastCall(o->vec.copy(b, nx, V, dS));
        BlastCall(o->vec.waxpby(b, n, 1.0, S0, (stage == 0 ? 0.5 : 1.0) * dt, dS, S));
        h->qdata_current = 0;
      }
      break;
    }
    default: BlastError(BLAST_ERR_INPUT, "unknown ode_solver %d", h->cfg.ode_solver);
  }
  h->t += dt;
  return 0;
}

// Global lowest zone id with a non-positive Jacobian in this attempt (or -1), its det J
// and the rank that holds it.
static int TangledZone(BlastHydro h, long long *zone, double *det, int *rank) {
  long long mine =
      h->tangled_zone >= 0 ? (long long)h->space->zone_gid[h->tangled_zone] : LLONG_MAX;
  long long first;
  BlastCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_LONG_LONG, MPI_MIN, h->comm));
  // The holder contributes its det J <= 0 and its rank, the others 0 and INT_MAX.
  const int holder = mine == first && first != LLONG_MAX;
  double loc[2] = {holder ? h->tangled_det : 0.0, holder ? (double)h->rank : (double)INT_MAX},
         all[2];
  BlastCallMPI(MPI_Allreduce(loc, all, 2, MPI_DOUBLE, MPI_MIN, h->comm));
  *zone = first == LLONG_MAX ? -1 : first;
  *det = all[0];
  *rank = (int)all[1];
  return 0;
}

// The global dt estimate of an attempt and whether the new state and every rank's
// estimate are finite, in one reduction (the one the estimate needs anyway). The local
// double-double S.S is finite iff every entry is, unless squares overflow (|S_i| > 1e154):
// LocateNonFinite tells the two apart. NaN estimates are flagged separately because
// comparisons with NaN (`dt_est < dt`, MPI_MIN) would let them through.
static int CheckAttempt(BlastHydro h, double *dt_est, int *state_bad, int *dt_bad) {
  double dd[2];
  BlastCall(BlastHydroQDataCollect(h));
  BlastCall(h->ops->vec.dot(h->bctx, h->nstate, h->S, h->S, dd));
  const int nan_dt = isnan(h->dt_est), bad = !isfinite(dd[0]) || !isfinite(dd[1]);
  double loc[3] = {nan_dt ? HUGE_VAL : h->dt_est, bad ? -1.0 : 0.0, nan_dt ? -1.0 : 0.0}, glob[3];
  BlastCallMPI(MPI_Allreduce(loc, glob, 3, MPI_DOUBLE, MPI_MIN, h->comm));
  *dt_est = glob[0];
  *state_bad = glob[1] < 0.0;
  *dt_bad = glob[2] < 0.0;
  return 0;
}

// What one rank found in a state that failed CheckAttempt (gathered on every rank).
enum {
  kFoundCount,
  kFoundQuantity,
  kFoundComp,
  kFoundZone,
  kFoundDof,
  kFoundValue,
  kFoundNanDt,
  kFoundN
};

// The first non-finite entry of this rank's state in the order positions, velocity,
// energy: quantity (0, 1, 2), component (vector component, or the energy coefficient in
// the zone), global zone id (for an H1 dof the lowest id of the zones holding it), global
// H1 dof id (-1 for the energy), value, and how many entries are non-finite. Only called
// on failure: copies the state to the host.
static int LocateNonFinite(BlastHydro h, double *found) {
  const BlastSpace *s = h->space;
  double *S = NULL;
  for (int k = 0; k < kFoundN; k++) found[k] = 0.0;
  found[kFoundNanDt] = isnan(h->dt_est);
  BlastCall(BlastMalloc(h->nstate, &S));
  const int ierr = h->ops->vec.to_host(h->bctx, h->nstate, h->S, S);
  if (ierr) {
    BlastFree(&S);
    BlastCall(ierr);
  }
  size_t first = 0, count = 0;
  for (size_t i = 0; i < h->nstate; i++)
    if (!isfinite(S[i]) && !count++) first = i;
  if (count) {
    found[kFoundCount] = (double)count;
    found[kFoundValue] = S[first];
    if (first < 2 * h->nx) {
      const int quantity = first < h->nx ? 0 : 1;
      const size_t j = first - (size_t)quantity * h->nx, l = j % (size_t)s->h1_nl;
      int64_t zone = INT64_MAX;
      for (int k = s->h1_toff[l]; k < s->h1_toff[l + 1]; k++) {
        const int64_t g = s->zone_gid[s->h1_tidx[k] / s->h1_nd];
        if (g < zone) zone = g;
      }
      found[kFoundQuantity] = quantity;
      found[kFoundComp] = (double)(j / (size_t)s->h1_nl);
      found[kFoundZone] = zone == INT64_MAX ? -1.0 : (double)zone;
      found[kFoundDof] = (double)s->h1_gid[l];
    } else {
      const size_t j = first - 2 * h->nx;
      found[kFoundQuantity] = 2;
      found[kFoundComp] = (double)(j % (size_t)s->l2_nd);
      found[kFoundZone] = (double)s->zone_gid[j / (size_t)s->l2_nd];
      found[kFoundDof] = -1.0;
    }
  }
  BlastFree(&S);
  return 0;
}

// The progress right after the last accepted step (hydro.h: what a numerical failure
// leaves behind).
typedef struct {
  double dt;
  int attempts;
} LastGood;

// Back to the last accepted state: the attempt started from it (S_old, t_old).
static int RestoreLastGood(BlastHydro h, double t_old, const LastGood *good) {
  BlastCall(h->ops->vec.copy(h->bctx, h->nstate, h->S_old, h->S));
  h->t = t_old, h->dt = good->dt, h->attempts = good->attempts;
  h->qdata_current = 0;
  return 0;
}

// After an attempt failed CheckAttempt: find the non-finite values on every rank, agree
// on one report, restore the last accepted state and raise the error on every rank (the
// same message: rank 0 prints it). Returns 0 if nothing non-finite was found after all
// (the squares of huge finite values overflowed): the attempt goes on.
static int ReportNonFinite(BlastHydro h, double t_old, double dt_used, const LastGood *good) {
  double mine[kFoundN], *all = NULL;
  BlastCall(LocateNonFinite(h, mine));
  BlastCall(BlastMalloc((size_t)h->nranks * kFoundN, &all));
  const int ierr = MPI_Allgather(mine, kFoundN, MPI_DOUBLE, all, kFoundN, MPI_DOUBLE, h->comm);
  if (ierr != MPI_SUCCESS) {
    BlastFree(&all);
    BlastCallMPI(ierr);
  }
  int where = -1, nbad = 0, nan_dt_rank = -1, nan_dt_ranks = 0;
  double total = 0.0;
  for (int r = 0; r < h->nranks; r++) {
    const double *f = &all[(size_t)r * kFoundN];
    if (f[kFoundCount] > 0.0) {
      if (where < 0) where = r;
      nbad++;
      total += f[kFoundCount];
    }
    if (f[kFoundNanDt] != 0.0) {
      if (nan_dt_rank < 0) nan_dt_rank = r;
      nan_dt_ranks++;
    }
  }
  double f[kFoundN];
  if (where >= 0)
    for (int k = 0; k < kFoundN; k++) f[k] = all[(size_t)where * kFoundN + k];
  BlastFree(&all);
  if (where < 0 && nan_dt_rank < 0) return 0;
  const int step = h->ti, attempt = h->attempts, steps_done = h->ti - 1;
  BlastCall(RestoreLastGood(h, t_old, good));
  static const char *const kQuantity[3] = {"position", "velocity", "specific internal energy"};
  if (where >= 0) {
    const int q = (int)f[kFoundQuantity], comp = (int)f[kFoundComp];
    char what[64], dof[64] = "";
    if (q < 2) {
      snprintf(what, sizeof what, "%c component", "xyz"[comp % 3]);
      snprintf(dof, sizeof dof, "; H1 dof %lld", (long long)f[kFoundDof]);
    } else {
      snprintf(what, sizeof what, "coefficient %d of the zone", comp);
    }
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC,
                    "non-finite %s (%s, value %g) at step %d (attempt %d), t = %.9g, dt = %.3e: "
                    "on rank %d in zone %lld (global id%s); %.0f non-finite value(s) on %d of %d "
                    "rank(s). The run stops at the last accepted state (%d steps, t = %.9g). A "
                    "NaN or Inf means the step was too large for the flow (lower [time] cfl) or "
                    "the problem data are bad (densities, energies, gamma)",
                    kQuantity[q], what, f[kFoundValue], step, attempt, t_old, dt_used, where,
                    (long long)f[kFoundZone], dof, total, nbad, h->nranks, steps_done, t_old);
  } else {
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC,
                    "non-finite time-step estimate (NaN) at step %d (attempt %d), t = %.9g, "
                    "dt = %.3e: on rank %d (%d of %d rank(s)), with a finite state. The run "
                    "stops at the last accepted state (%d steps, t = %.9g). Check the problem "
                    "data (gamma, densities, energies) and [time] cfl",
                    step, attempt, t_old, dt_used, nan_dt_rank, nan_dt_ranks, h->nranks, steps_done,
                    t_old);
  }
  BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
  return BLAST_ERR_NUMERIC;
}

// After a velocity solve of the attempt reached cg_max_iter (the PCG's dots are global:
// every rank gets here together with the same numbers).
static int ReportCgFailure(BlastHydro h, double t_old, double dt_used, const LastGood *good) {
  const int step = h->ti, attempt = h->attempts + 1, steps_done = h->ti - 1;
  char comps[64] = "", res[128] = "";
  for (int c = 0, n = 0; c < 3; c++) {
    if (!((h->cg_fail.comps >> c) & 1u)) continue;
    const size_t lc = strlen(comps), lr = strlen(res);
    snprintf(comps + lc, sizeof comps - lc, "%s%c", n ? ", " : "", "xyz"[c]);
    snprintf(res + lr, sizeof res - lr, "%s%.3e", n ? ", " : "", h->cg_fail.residual[c]);
    n++;
  }
  BlastCall(RestoreLastGood(h, t_old, good));
  BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC,
                  "the velocity solve did not converge at step %d (attempt %d), t = %.9g, dt = "
                  "%.3e: component(s) %s reached [solver] cg_max_iter = %d iterations with "
                  "relative residual(s) %s, above [solver] cg_tol = %.3e. Raise cg_max_iter (or "
                  "cg_tol); the mass matrix is fixed at setup, so a solve that needs many "
                  "iterations points at badly shaped or very unequal zones in the mesh. The run "
                  "stops at the last accepted state (%d steps, t = %.9g)",
                  step, attempt, t_old, dt_used, comps, h->cfg.cg_max_iter, res, h->cfg.cg_tol,
                  steps_done, t_old);
  BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
  return BLAST_ERR_NUMERIC;
}

// The test hook's value (BlastHydroPoisonForTest) into the new state of this attempt.
static int ApplyPoison(BlastHydro h) {
  const BlastSpace *s = h->space;
  size_t off = 2 * h->nx + (size_t)(s->nz / 2) * (size_t)s->l2_nd;
  if (h->poison.quantity < 2)
    off = (size_t)h->poison.quantity * h->nx + (size_t)h->poison.comp * (size_t)s->h1_nl +
          (size_t)s->h1_nl / 2;
  BlastCall(h->ops->vec.from_host(h->bctx, 1, &h->poison.value, h->S + off));
  h->poison.armed = 0;
  h->qdata_current = 0;
  return 0;
}

// What an unstable run says about [time] cfl: above the integrator's stable range, or not.
static void CflHint(const BlastHydro h, char *why, size_t n) {
  const double stable = BlastCflStableMax(h->cfg.ode_solver);
  if (h->cfg.cfl > stable)
    snprintf(why, n, "[time] cfl = %g is above the range in which %s is stable (up to %g): lower it",
             h->cfg.cfl, BlastOdeName(h->cfg.ode_solver), stable);
  else
    snprintf(why, n,
             "the time step was too large for the flow (lower [time] cfl = %g) or the problem "
             "data are bad",
             h->cfg.cfl);
}

// The total energy against its initial value, on every step whose progress line summed it
// already, every kEnergyCheckEvery accepted steps and after the last: a run whose energy
// has changed by more than [time] max_energy_change of |E0| has gone unstable (a CFL number
// beyond the integrator's range, or bad data) and stops with a numerical failure instead of
// crawling on with ever smaller steps. The sums are global: every rank takes the same
// branch. A sum of its own costs about a mass-matrix product: one in 64 steps.
enum { kEnergyCheckEvery = 64 };
static int CheckEnergy(BlastHydro h, double t, double dt, int last) {
  const double tol = h->cfg.max_energy_change;
  const int summed = h->norms_attempts == h->attempts;  // by this step's progress report
  if (!(tol > 0.0) || h->energy0 == 0.0 || (!summed && !last && h->ti % kEnergyCheckEvery))
    return 0;
  double energy;
  if (summed) {
    energy = h->norms_ie + h->norms_ke;
  } else {
    double ie, ke;
    BlastCall(BlastHydroEnergies(h, &ie, &ke));
    energy = ie + ke;
  }
  const double rel = (energy - h->energy0) / fabs(h->energy0);
  if (!(fabs(rel) > tol)) return 0;  // a NaN is the non-finite checks' to report
  char why[256];
  CflHint(h, why, sizeof why);
  BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC,
                  "the total energy has changed by %+.3e of its initial value (from %.10e to "
                  "%.10e) at step %d, t = %.9g, dt = %.3e: more than [time] max_energy_change "
                  "= %g, which no correct run reaches. The run has gone unstable: %s. It stops "
                  "here (%d steps, t = %.9g)",
                  rel, h->energy0, energy, h->ti, t, dt, tol, why, h->ti, t);
  BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
  return BLAST_ERR_NUMERIC;
}

int BlastHydroRun(BlastHydro h, BlastStepCallback cb, void *user) {
  const BlastBackendOps *o = h->ops;
  const double t_final = h->cfg.t_final;
  const int max_steps = h->cfg.max_steps;
  LastGood good = {h->dt, h->attempts};
  int last = 0;
  h->stop_requested = 0;  // a run stopped by BlastHydroRequestStop continues from here
  while (!last) {
    if (h->t + h->dt >= t_final) {
      h->dt = t_final - h->t;
      last = 1;
    }
    // max_steps = N: the attempt that finds N attempts done is the last (N + 1 in all, as
    // the reference's -ms); >= also ends a run resumed past the limit after one attempt.
    if (max_steps >= 0 && h->attempts >= max_steps) last = 1;
    BlastCall(o->vec.copy(h->bctx, h->nstate, h->S, h->S_old));
    const double t_old = h->t, dt_used = h->dt, t0 = BlastWtime();
    h->dt_est = HUGE_VAL;
    h->tangled_zone = -1;
    h->cg_fail.comps = 0;
    // the attempt's quadrature updates owe their results until CheckAttempt (one rank: the
    // device runs on while the host queues the stage's work; BlastHydroQDataCollect)
    h->qdata_defer = h->nranks == 1 && !h->hybrid;
    const int ierr = Step(h, h->dt);
    if (ierr) h->qdata_defer = 0;
    if (ierr == BLAST_ERR_NUMERIC && h->cg_fail.comps)
      return ReportCgFailure(h, t_old, dt_used, &good);
    BlastCall(ierr);
    h->attempts++;
    if (h->poison.armed) BlastCall(ApplyPoison(h));
    // End-of-step estimate at the new state (recomputed; leaves the data current, sources
    // at the new time: the next step's first stage uses them).
    h->t_stage = h->t;
    const int qerr = BlastHydroUpdateQData(h, h->S);
    h->qdata_defer = 0;
    BlastCall(qerr);
    double dt_est = 0.0;
    int state_bad = 0, dt_bad = 0;
    BlastCall(CheckAttempt(h, &dt_est, &state_bad, &dt_bad));
    if (state_bad || dt_bad) BlastCall(ReportNonFinite(h, t_old, dt_used, &good));
    if (h->hybrid) BlastCall(BlastHybridStepEnd(h->hybrid));
    h->timers.step += BlastWtime() - t0;
    BlastStepInfo info = {h->ti, h->attempts, 0, 0, 0, h->t, h->dt, dt_used, dt_est, NAN};
    if (dt_est < h->dt) {
      // Rejection: repeat from the old state with a smaller step.
      long long zone = -1;
      double det = 0.0;
      int zone_rank = -1;
      if (dt_est == 0.0) BlastCall(TangledZone(h, &zone, &det, &zone_rank));
      h->dt *= 0.85;
      if (h->dt < h->cfg.dt_min) {
        // dt is global: every rank takes this branch with the same numbers.
        const int step = h->ti, attempt = h->attempts, steps_done = h->ti - 1;
        const double dt_last = h->dt;
        char why[256];
        CflHint(h, why, sizeof why);
        BlastCall(RestoreLastGood(h, t_old, &good));
        if (zone >= 0)
          BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC,
                          "time step collapse at step %d (attempt %d), t = %.9g: the mesh is "
                          "tangled, zone %lld (global id, on rank %d) has det J = %.3e, and dt "
                          "fell below dt_min = %.3e after repeated rejections. The run stops at "
                          "the last accepted state (%d steps, t = %.9g)",
                          step, attempt, t_old, zone, zone_rank, det, h->cfg.dt_min, steps_done,
                          t_old);
        else
          BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC,
                          "time step collapse at step %d (attempt %d), t = %.9g: dt = %.3e fell "
                          "below dt_min = %.3e after repeated rejections (last estimate %.3e)%s%s. "
                          "The run stops at the last accepted state (%d steps, t = %.9g)",
                          step, attempt, t_old, dt_last, h->cfg.dt_min, dt_est,
                          h->cfg.cfl > BlastCflStableMax(h->cfg.ode_solver) ? ": " : "",
                          h->cfg.cfl > BlastCflStableMax(h->cfg.ode_solver) ? why : "",
                          steps_done, t_old);
        BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
        return BLAST_ERR_NUMERIC;
      }
      BlastCall(o->vec.copy(h->bctx, h->nstate, h->S_old, h->S));
      h->t = t_old;
      h->qdata_current = 0;
      // Unlike the reference (method spec 10.2 quirk), a rejected final step is retried
      // unless the attempt limit was reached, so the run always reaches t_final.
      if (max_steps < 0 || h->attempts < max_steps) last = 0;
      info.rejected = 1;
      info.t = h->t;
      info.dt = h->dt;
      if (cb) BlastCall(cb(user, &info));
      continue;
    }
    if (dt_est > 1.25 * h->dt) h->dt *= 1.02;
    good.dt = h->dt, good.attempts = h->attempts;
    info.dt = h->dt;
    info.last = last;
    info.report = last || h->ti % h->cfg.print_every == 0;
    info.e_norm = NAN;
    if (info.report) BlastCall(BlastHydroENorm(h, &info.e_norm));
    if (cb) BlastCall(cb(user, &info));
    BlastCall(CheckEnergy(h, h->t, dt_used, last));
    h->ti++;
    if (h->stop_requested) break;
  }
  return 0;
}
