// The Lagrangian operator: the rate function f(S) (method spec 9, "Mult"), the quadrature
// data and the time-step estimate, the momentum right-hand side and velocity solve (7.1),
// the energy rate (7.2), and the halo exchanges of the backend's vectors.
#include <math.h>
#include <string.h>

#include "blast_mpi.h"
#include "halo_nccl.h"
#include "halo_peer.h"
#include "hydro-impl.h"
#include "pcg.h"
#include "problems/sources.h"

// The phase timers (force, CG) are the host's times: a phase whose device work the host
// does not wait for (the force's gather, the energy rate, the copies after the CG) leaves
// it queued and its time to the next wait (the CG's passes, the quadrature update's
// result), so the step's total is the same and the device is never left idle for a timer.
static int BlastHydroSync(BlastHydro h) {
  return h->ops->ctx.sync(h->bctx);
}

// The wall normals of the coupled PCG from the positions of S and the walls' normal
// accelerations a0 from its velocities (mass.wall_normals): x and v (L-vectors) copied
// owned entries first, the ghosts from their owners (every ext dof: the halo of the PCG's
// columns). h->wall_x holds x, v and a0, each dim components h1_next apart.
static int BlastHydroWallNormals(BlastHydro h, const double *S) {
  const int dim = h->space->dim;
  const size_t nl = (size_t)h->space->h1_nl, nown = (size_t)h->space->h1_nown;
  const size_t st = (size_t)h->space->h1_next, blk = (size_t)dim * st;
  const double cg_wait = h->timers.cg_wait;  // these halo waits are not the CG's
  for (int f = 0; f < 2; f++) {
    for (int c = 0; c < dim; c++)
      BlastCall(
          h->ops->vec.copy(h->bctx, nown, S + f * h->nx + c * nl, h->wall_x + f * blk + c * st));
    BlastCall(BlastHydroHaloForwardBegin(h, BLAST_HALO_COL, dim, st, h->wall_x + f * blk));
    BlastCall(BlastHydroHaloForwardEnd(h, BLAST_HALO_COL, dim, st, h->wall_x + f * blk));
  }
  h->timers.cg_wait = cg_wait;
  return h->ops->mass.wall_normals(h->bctx, dim, h->wall_x, h->wall_x + blk, h->wall_x + 2 * blk);
}

int BlastHydroWallAlloc(BlastHydro h) {
  if (!h->coupled_cg) return 0;
  const size_t n = 3 * (size_t)h->space->dim * h->space->h1_next;
  BlastCall(h->ops->vec.alloc(h->bctx, n + 1, &h->wall_x));
  return h->ops->vec.set(h->bctx, n, 0.0, h->wall_x);  // a0: zero but at the wall nodes
}

// A result into the attempt's running estimate and lowest tangled zone (local order is
// global order, so the reported zone does not depend on the partition).
static void FoldQData(BlastHydro h, const BlastQDataResult *res) {
  if (res->dt_est < h->dt_est) h->dt_est = res->dt_est;
  if (res->tangled_zone >= 0 && (h->tangled_zone < 0 || res->tangled_zone < h->tangled_zone))
    h->tangled_zone = res->tangled_zone, h->tangled_det = res->tangled_det;
}

int BlastHydroQDataCollect(BlastHydro h) {
  if (!h->nqres) return 0;
  BlastCall(BlastHydroSync(h));
  for (int i = 0; i < h->nqres; i++) {
    const BlastQDataResult *res = &h->qres[i];
    FoldQData(h, res);
    // a deferred update's device time (the backend's, or -1): the host waited for it in
    // its next wait, the CG's passes if a solve started after it, else here
    if (h->qres_solves[i] >= 0 && res->seconds >= 0.0) {
      h->timers.qdata += res->seconds;
      if (h->timers.cg_solves != h->qres_solves[i]) h->timers.cg -= res->seconds;
    }
  }
  h->nqres = 0;
  return 0;
}

int BlastHydroUpdateQData(BlastHydro h, const double *S) {
  if (h->qdata_current) return 0;
  if (h->coupled_cg) BlastCall(BlastHydroWallNormals(h, S));
  if (h->nqres == (int)(sizeof h->qres / sizeof *h->qres)) BlastCall(BlastHydroQDataCollect(h));
  const double t0 = BlastWtime();
  BlastQDataResult *res = &h->qres[h->nqres];
  res->seconds = -1.0;
  if (h->hybrid)
    BlastCall(BlastHybridQData(h->hybrid, S, S + h->nx, S + 2 * h->nx, res));
  else
    BlastCall(h->ops->zone.qdata_force(h->bctx, S, S + h->nx, S + 2 * h->nx, res));
  h->qres_solves[h->nqres++] = h->qdata_defer ? h->timers.cg_solves : -1;
  if (!h->qdata_defer) BlastCall(BlastHydroQDataCollect(h));  // the host's time, wait included
  h->timers.qdata += BlastWtime() - t0;
  h->timers.qdata_zone_updates += h->space->nz;
  if (h->sources) BlastCall(BlastSourcesUpdate(h->sources, h, S, h->t_stage));
  h->qdata_current = 1;
  return 0;
}

int BlastHydroGlobalDtEstimate(BlastHydro h, double *dt_est) {
  BlastCallMPI(MPI_Allreduce(&h->dt_est, dt_est, 1, MPI_DOUBLE, MPI_MIN, h->comm));
  return 0;
}

// Forward halo (owners -> ghosts) of `ncomp` components `stride` apart: ghosts get the
// owners' values. Begin/End split so that work can overlap the messages.
int BlastHydroHaloForwardBegin(BlastHydro h, int which, int ncomp, size_t stride, const double *x) {
  if (h->nccl) return BlastHydroNcclBegin(h, which, 0, ncomp, stride, x);
  if (h->peer) return BlastHydroPeerBegin(h, which, 0, ncomp, stride, x);
  BlastCall(h->ops->halo.pack(h->bctx, which, 0, ncomp, stride, x, h->hbuf_send));
  BlastCall(BlastHaloForwardBegin(h->halo[which], ncomp, h->hbuf_send, h->hbuf_recv));
  return 0;
}
int BlastHydroHaloForwardEnd(BlastHydro h, int which, int ncomp, size_t stride, double *x) {
  const double t0 = BlastWtime();
  if (h->nccl) return BlastHydroNcclEnd(h, which, 0, 0, ncomp, stride, x);  // no host wait
  if (h->peer) {
    BlastCall(BlastHydroPeerEnd(h, which, 0, 0, ncomp, stride, x));
    h->timers.cg_wait += BlastWtime() - t0;
    return 0;
  }
  BlastCall(BlastHaloWait(h->halo[which]));
  if (h->nranks > 1) h->timers.cg_wait += BlastWtime() - t0;  // both callers are in the CG
  BlastCall(h->ops->halo.unpack(h->bctx, which, 0, ncomp, stride, h->hbuf_recv, x));
  return 0;
}
// Reverse halo of double-double pairs: ghosts' partial sums (ndd rounded components then
// ndd low parts) are added to their owners' entries in double-double.
int BlastHydroHaloReverseAddDD(BlastHydro h, int which, int ndd, size_t stride, double *x) {
  if (h->nccl) {
    BlastCall(BlastHydroNcclBegin(h, which, 1, 2 * ndd, stride, x));
    return BlastHydroNcclEnd(h, which, 1, 1, ndd, stride, x);
  }
  if (h->peer) {
    BlastCall(BlastHydroPeerBegin(h, which, 1, 2 * ndd, stride, x));
    return BlastHydroPeerEnd(h, which, 1, 1, ndd, stride, x);
  }
  BlastCall(h->ops->halo.pack(h->bctx, which, 1, 2 * ndd, stride, x, h->hbuf_send));
  BlastCall(BlastHaloReverseBegin(h->halo[which], 2 * ndd, h->hbuf_send, h->hbuf_recv));
  BlastCall(BlastHaloWait(h->halo[which]));
  BlastCall(h->ops->halo.unpack_dd(h->bctx, which, ndd, stride, h->hbuf_recv, x));
  return 0;
}

// Velocities of t at type = velocity nodes (boundary.h): their accelerations a_D at time t
// in cg_d (owned entries; zero elsewhere). lift = 1: the rhs of the free rows loses M a_D
// (the columns of the prescribed dofs; M_V a = b with a_D given); lift = 0: the solution
// gains a_D at those dofs (where the PCG left exact zeros).
static int PrescribedAccel(BlastHydro h, double t, int lift) {
  const BlastBackendOps *o = h->ops;
  const BlastBoundaryDofs *bc = &h->bc;
  const int dim = h->space->dim;
  const size_t st = (size_t)h->space->h1_next, nown = (size_t)h->space->h1_nown;
  const unsigned all = (1u << dim) - 1u;
  double *a = bc->host_a, dots[3];
  memset(a, 0, sizeof(double) * dim * st);
  for (int i = 0; i < bc->nvel; i++) {
    double ai[3];
    BlastBoundaryAccel(bc, bc->vel_section[i], t, ai);
    for (int c = 0; c < dim; c++) a[c * st + (size_t)bc->vel_idx[i]] = ai[c];
  }
  BlastCall(o->vec.from_host(h->bctx, dim * st, a, h->cg_d));
  if (!lift) {
    for (int c = 0; c < dim; c++)
      BlastCall(o->vec.axpby(h->bctx, nown, 1.0, h->cg_d + c * st, 1.0, h->cg_x + c * st));
    return 0;
  }
  BlastCall(BlastHydroMassMult(h, dim, all, h->cg_d, h->cg_q, dots));
  for (int c = 0; c < dim; c++)
    BlastCall(o->vec.axpby(h->bctx, nown, -1.0, h->cg_q + c * st, 1.0, h->cg_b + c * st));
  return 0;
}

// The first n entries of ncomp components, ss apart in src, into dst, ds apart: one copy
// where both are contiguous (one rank: no ghosts), else one per component.
static int CopyComponents(BlastHydro h, int ncomp, size_t n, const double *src, size_t ss,
                          double *dst, size_t ds) {
  if (ss == n && ds == n) return h->ops->vec.copy(h->bctx, (size_t)ncomp * n, src, dst);
  for (int c = 0; c < ncomp; c++)
    BlastCall(h->ops->vec.copy(h->bctx, n, src + c * ss, dst + c * ds));
  return 0;
}

int BlastHydroSolveVelocity(BlastHydro h, double *dv) {
  const int dim = h->space->dim;
  const size_t nl = (size_t)h->space->h1_nl, nown = (size_t)h->space->h1_nown;
  const size_t st = (size_t)h->space->h1_next;
  double t0 = BlastWtime();
  // -F.1 from this rank's zones, completed on the owners (+ M_V g on the owned rows).
  if (h->hybrid)
    BlastCall(BlastHybridMomentumRhs(h->hybrid, h->rhs));
  else
    BlastCall(h->ops->zone.momentum_rhs(h->bctx, h->rhs));
  BlastCall(BlastHydroHaloReverseAddDD(h, BLAST_HALO_L, dim, nl, h->rhs));
  for (int c = 0; c < dim && h->gravity; c++)  // the components of g that are not 0
    if (h->prob.g[c] != 0.0)
      BlastCall(h->ops->vec.axpby(h->bctx, nown, 1.0, h->gravity + c * nown, 1.0, h->rhs + c * nl));
  double t1 = BlastWtime();
  h->timers.force += t1 - t0;
  // PCG vectors have their components h1_next apart.
  BlastCall(CopyComponents(h, dim, nown, h->rhs, nl, h->cg_b, st));
  if (h->bc.time_dependent) BlastCall(PrescribedAccel(h, h->t, 1));
  if (h->coupled_cg) {
    // the walls' normal accelerations a0 (BlastHydroWallNormals) lifted: M a = b with
    // a = x + a0, x.n = 0 at the wall nodes, so the rhs loses M a0
    const unsigned all = (1u << dim) - 1u;
    double *a0 = h->wall_x + 2 * (size_t)dim * st, dots[6];
    BlastCall(BlastHydroMassMult(h, dim, all, a0, h->cg_q, dots));
    for (int c = 0; c < dim; c++)
      BlastCall(h->ops->vec.axpby(h->bctx, nown, -1.0, h->cg_q + c * st, 1.0, h->cg_b + c * st));
    BlastCall(BlastHydroPcgProjected(h, dim, h->cg_b, h->cg_x));
    for (int c = 0; c < dim; c++)
      BlastCall(h->ops->vec.axpby(h->bctx, nown, 1.0, a0 + c * st, 1.0, h->cg_x + c * st));
  } else {
    BlastCall(BlastHydroPcgLockstep(h, dim, h->cg_b, h->cg_x));
  }
  if (h->bc.time_dependent) BlastCall(PrescribedAccel(h, h->t, 0));
  BlastCall(CopyComponents(h, dim, nown, h->cg_x, st, dv, nl));
  // Ghost copies of the new accelerations from their owners.
  BlastCall(BlastHydroHaloForwardBegin(h, BLAST_HALO_L, dim, nl, dv));
  BlastCall(BlastHydroHaloForwardEnd(h, BLAST_HALO_L, dim, nl, dv));
  h->timers.cg += BlastWtime() - t1;
  return 0;
}

int BlastHydroEnergyRate(BlastHydro h, const double *v, double *de) {
  const double t0 = BlastWtime();
  if (h->hybrid)
    BlastCall(BlastHybridEnergyRate(h->hybrid, v, de));
  else
    BlastCall(h->ops->zone.energy_rate(h->bctx, v, de));
  if (h->sources) BlastCall(BlastSourcesAddRate(h->sources, h, de));
  h->timers.force += BlastWtime() - t0;
  return 0;
}

int BlastHydroRates(BlastHydro h, const double *S, double *k) {
  const double *v = S + h->nx;
  BlastCall(BlastHydroUpdateQData(h, S));
  BlastCall(h->ops->vec.copy(h->bctx, h->nx, v, k));     // dx/dt = v
  BlastCall(BlastHydroSolveVelocity(h, k + h->nx));      // dv/dt
  BlastCall(BlastHydroEnergyRate(h, v, k + 2 * h->nx));  // de/dt
  h->qdata_current = 0;
  return 0;
}
