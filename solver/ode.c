// Time integration (method spec 9) and the adaptive time-step driver (10.2).
#include <float.h>
#include <limits.h>
#include <math.h>

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

// One step of the chosen integrator on h->S; t advances by dt.
static int Step(BlastHydro h, double dt) {
  const BlastBackendOps *o = h->ops;
  void *b = h->bctx;
  const size_t n = h->nstate;
  double *S = h->S, *y = h->rk_y, *z = h->rk_z, *k = h->rk_k;
  switch (h->cfg.ode_solver) {
    case BLAST_ODE_EULER:
      BlastCall(BlastHydroRates(h, S, k));
      BlastCall(o->axpby(b, n, dt, k, 1.0, S));
      break;
    case BLAST_ODE_RK2: {  // midpoint, a = 1/2, b = 1/(2a) = 1
      const double a = 0.5, bb = 1.0;
      BlastCall(BlastHydroRates(h, S, k));
      BlastCall(o->waxpby(b, n, 1.0, S, (1.0 - bb) * dt, k, z));
      BlastCall(o->axpby(b, n, a * dt, k, 1.0, S));
      BlastCall(BlastHydroRates(h, S, k));
      BlastCall(o->waxpby(b, n, 1.0, z, bb * dt, k, S));
      break;
    }
    case BLAST_ODE_RK3SSP:
      BlastCall(BlastHydroRates(h, S, k));
      BlastCall(o->waxpby(b, n, 1.0, S, dt, k, y));
      BlastCall(BlastHydroRates(h, y, k));
      BlastCall(o->axpby(b, n, dt, k, 1.0, y));
      BlastCall(o->waxpby(b, n, 3.0 / 4, S, 1.0 / 4, y, y));
      BlastCall(BlastHydroRates(h, y, k));
      BlastCall(o->axpby(b, n, dt, k, 1.0, y));
      BlastCall(o->waxpby(b, n, 1.0 / 3, S, 2.0 / 3, y, S));
      break;
    case BLAST_ODE_RK4:
      BlastCall(BlastHydroRates(h, S, k));
      BlastCall(o->waxpby(b, n, 1.0, S, dt / 2, k, y));
      BlastCall(o->waxpby(b, n, 1.0, S, dt / 6, k, z));
      BlastCall(BlastHydroRates(h, y, k));
      BlastCall(o->waxpby(b, n, 1.0, S, dt / 2, k, y));
      BlastCall(o->axpby(b, n, dt / 3, k, 1.0, z));
      BlastCall(BlastHydroRates(h, y, k));
      BlastCall(o->waxpby(b, n, 1.0, S, dt, k, y));
      BlastCall(o->axpby(b, n, dt / 3, k, 1.0, z));
      BlastCall(BlastHydroRates(h, y, k));
      BlastCall(o->waxpby(b, n, 1.0, z, dt / 6, k, S));
      break;
    case BLAST_ODE_RK6: {
      double *ks[8];
      for (int i = 0; i < 8; i++) BlastCall(o->alloc(b, n, &ks[i]));
      BlastCall(BlastHydroRates(h, S, ks[0]));
      for (int l = 0, i = 1; i < 8; i++) {
        BlastCall(o->waxpby(b, n, 1.0, S, kRK6a[l++] * dt, ks[0], y));
        for (int j = 1; j < i; j++) BlastCall(o->axpby(b, n, kRK6a[l++] * dt, ks[j], 1.0, y));
        BlastCall(BlastHydroRates(h, y, ks[i]));
      }
      for (int i = 0; i < 8; i++) BlastCall(o->axpby(b, n, kRK6b[i] * dt, ks[i], 1.0, S));
      for (int i = 0; i < 8; i++) BlastCall(o->free(b, &ks[i]));
      break;
    }
    case BLAST_ODE_RK2AVG: {
      // Method spec 9.2: the energy and position rates use the half-advanced velocity.
      const size_t nx = h->nx;
      double *S0 = z, *V = h->rk_k2, *dS = k;
      BlastCall(o->copy(b, n, S, S0));
      for (int stage = 0; stage < 2; stage++) {
        BlastCall(BlastHydroUpdateQData(h, S));
        BlastCall(BlastHydroSolveVelocity(h, dS + nx));
        BlastCall(o->waxpby(b, nx, 1.0, S0 + nx, 0.5 * dt, dS + nx, V));
        BlastCall(BlastHydroEnergyRate(h, V, dS + 2 * nx));
        BlastCall(o->copy(b, nx, V, dS));
        BlastCall(o->waxpby(b, n, 1.0, S0, (stage == 0 ? 0.5 : 1.0) * dt, dS, S));
        h->qdata_current = 0;
      }
      break;
    }
    default: BlastError(BLAST_ERR_INPUT, "unknown ode_solver %d", h->cfg.ode_solver);
  }
  h->t += dt;
  return 0;
}

// Global lowest zone id with a non-positive Jacobian in this attempt (or -1).
static int TangledZone(BlastHydro h, long long *zone, double *det) {
  long long mine = h->tangled_zone >= 0 ? (long long)h->space->zone_gid[h->tangled_zone] : LLONG_MAX;
  long long first;
  BlastCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_LONG_LONG, MPI_MIN, h->comm));
  double d = (mine == first && first != LLONG_MAX) ? h->tangled_det : 0.0, dall;
  BlastCallMPI(MPI_Allreduce(&d, &dall, 1, MPI_DOUBLE, MPI_MIN, h->comm));
  *zone = first == LLONG_MAX ? -1 : first;
  *det = dall;
  return 0;
}

int BlastHydroRun(BlastHydro h, BlastStepCallback cb, void *user) {
  const BlastBackendOps *o = h->ops;
  const double t_final = h->cfg.t_final;
  const int max_steps = h->cfg.max_steps;
  int last = 0;
  while (!last) {
    if (h->t + h->dt >= t_final) {
      h->dt = t_final - h->t;
      last = 1;
    }
    if (h->attempts == max_steps) last = 1;
    BlastCall(o->copy(h->bctx, h->nstate, h->S, h->S_old));
    const double t_old = h->t, dt_used = h->dt, t0 = BlastWtime();
    h->dt_est = HUGE_VAL;
    h->tangled_zone = -1;
    BlastCall(Step(h, h->dt));
    h->attempts++;
    // End-of-step estimate at the new state (recomputed; leaves the data current).
    BlastCall(BlastHydroUpdateQData(h, h->S));
    double dt_est;
    BlastCall(BlastHydroGlobalDtEstimate(h, &dt_est));
    if (h->hybrid) BlastCall(BlastHybridStepEnd(h->hybrid));
    h->timers.step += BlastWtime() - t0;
    BlastStepInfo info = {h->ti, h->attempts, 0, 0, 0, h->t, h->dt, dt_used, dt_est, NAN};
    if (dt_est < h->dt) {
      // Rejection: repeat from the old state with a smaller step.
      long long zone = -1;
      double det = 0.0;
      if (dt_est == 0.0) BlastCall(TangledZone(h, &zone, &det));
      h->dt *= 0.85;
      if (h->dt < h->cfg.dt_min) {
        // dt is global: every rank takes this branch with the same numbers.
        if (zone >= 0)
          BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC,
                          "time step collapse at step %d (attempt %d), t = %.9g: the mesh is "
                          "tangled, zone %lld has det J = %.3e, and dt fell below dt_min = %.3e "
                          "after repeated rejections",
                          h->ti, h->attempts, t_old, zone, det, h->cfg.dt_min);
        else
          BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC,
                          "time step collapse at step %d (attempt %d), t = %.9g: dt = %.3e fell "
                          "below dt_min = %.3e after repeated rejections (last estimate %.3e)",
                          h->ti, h->attempts, t_old, h->dt, h->cfg.dt_min, dt_est);
        BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
        return BLAST_ERR_NUMERIC;
      }
      BlastCall(o->copy(h->bctx, h->nstate, h->S_old, h->S));
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
    info.dt = h->dt;
    info.last = last;
    info.report = last || h->ti % h->cfg.print_every == 0;
    info.e_norm = NAN;
    if (info.report) BlastCall(BlastHydroENorm(h, &info.e_norm));
    if (cb) BlastCall(cb(user, &info));
    h->ti++;
    if (h->stop_requested) break;
  }
  return 0;
}
