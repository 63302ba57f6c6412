// The Lagrangian operator's object: destruction (of a complete or partially built one:
// BlastHydroCreate calls it when a setup phase fails), norms and accessors. The setup is in
// hydro_setup.c, the rate function in hydro_operator.c, the velocity solve in pcg.c, the
// time integration in ode.c.
#include <math.h>

#include "blast_mpi.h"
#include "halo_peer.h"
#include "hydro-impl.h"
#include "pcg.h"
#include "problems/sources.h"

double BlastWtime(void) {
  return MPI_Wtime();
}

// Frees whatever h holds: every member is NULL (or MPI_*_NULL) until its phase made it.
int BlastHydroDestroy(BlastHydro *hydro) {
  if (!hydro || !*hydro) return 0;
  BlastHydro h = *hydro;
  if (h->bctx) {
    BlastCall(BlastOdeScratchDestroy(h));
    BlastSourcesDestroy(h, &h->sources);
    double **vecs[] = {&h->S,    &h->rhs,  &h->cg_r, &h->cg_z,    &h->cg_d,
                       &h->cg_q, &h->cg_b, &h->cg_x, &h->gravity, &h->wall_x};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++)
      if (*vecs[i]) BlastCall(h->ops->vec.free(h->bctx, vecs[i]));
    if (h->hbuf_backend) {  // else host memory of the setup, freed below
      if (h->hbuf_send) BlastCall(h->ops->vec.host_free(h->bctx, &h->hbuf_send));
      if (h->hbuf_recv) BlastCall(h->ops->vec.host_free(h->bctx, &h->hbuf_recv));
    }
    BlastCall(BlastHybridDestroy(&h->hybrid));
    BlastCall(h->ops->ctx.destroy(&h->bctx));
  }
  BlastFree(&h->qp_R0);
  BlastFree(&h->x0_host);
  BlastFree(&h->qp_J0inv);
  BlastFree(&h->zone_mat);
  BlastFree(&h->zone_region);
  BlastProblemDestroy(&h->prob);
  BlastFree(&h->me_inv);
  BlastFree(&h->mv_val);
  BlastFree(&h->mv_dinv);
  if (h->dd_op != MPI_OP_NULL) BlastCallMPI(MPI_Op_free(&h->dd_op));
  if (h->dd_type != MPI_DATATYPE_NULL) BlastCallMPI(MPI_Type_free(&h->dd_type));
  BlastFree(&h->mv_rows);
  BlastFree(&h->pa_qmass);
  BlastFree(&h->pa_zones);
  BlastFree(&h->part);
  BlastHydroPeerDestroy(h);
  BlastFree(&h->hbuf_send);
  BlastFree(&h->hbuf_recv);
  for (int w = 0; w < 2; w++) BlastCall(BlastHaloDestroy(&h->halo[w]));
  BlastFree(&h->mv_rowptr);
  BlastFree(&h->mv_col);
  BlastFree(&h->ess_off);
  BlastFree(&h->ess_idx);
  BlastBoundaryFree(&h->bc);
  BlastMixedDestroy(h);
  BlastTensorTablesDestroy(&h->tab);
  BlastSpaceDestroy(&h->space);
  BlastTopologyDestroy(&h->topo);
  BlastFree(hydro);
  return 0;
}

int BlastHydroENorm(BlastHydro h, double *e_norm) {
  double e2 = 0.0;
  BlastCall(BlastHydroGlobalDot(h, h->ne, h->S + 2 * h->nx, h->S + 2 * h->nx, &e2));
  *e_norm = sqrt(e2);
  return 0;
}

int BlastHydroEnergies(BlastHydro h, double *ie, double *ke) {
  double loc[4], glob[4];
  BlastCall(h->ops->zone.energies(h->bctx, h->S + h->nx, h->S + 2 * h->nx, loc));
  if (h->nranks > 1) {
    BlastCallMPI(MPI_Allreduce(loc, glob, 2, h->dd_type, h->dd_op, h->comm));
  } else {
    for (int i = 0; i < 4; i++) glob[i] = loc[i];
  }
  *ie = glob[0] + glob[1];
  *ke = glob[2] + glob[3];
  return 0;
}

int BlastHydroNorms(BlastHydro h, double *e_norm, double *ie, double *ke) {
  double gi, gk;
  BlastCall(BlastHydroENorm(h, e_norm));
  BlastCall(BlastHydroEnergies(h, &gi, &gk));
  if (ie) *ie = gi;
  if (ke) *ke = gk;
  h->norms_attempts = h->attempts, h->norms_ie = gi, h->norms_ke = gk;
  return 0;
}

BlastHydroShape BlastHydroGetShape(BlastHydro h) {
  return h->shape;
}
const BlastHydroTimers *BlastHydroGetTimers(BlastHydro h) {
  return &h->timers;
}
void BlastHydroGetProgress(BlastHydro h, double *t, double *dt, int *steps, int *attempts) {
  if (t) *t = h->t;
  if (dt) *dt = h->dt;
  if (steps) *steps = h->ti - 1;
  if (attempts) *attempts = h->attempts;
}
void BlastHydroGetInitial(BlastHydro h, double *dt0, double *energy0) {
  if (dt0) *dt0 = h->dt0;
  if (energy0) *energy0 = h->energy0;
}

int BlastHydroGetState(BlastHydro h, double *x, double *v, double *e) {
  if (x) BlastCall(h->ops->vec.to_host(h->bctx, h->nx, h->S, x));
  if (v) BlastCall(h->ops->vec.to_host(h->bctx, h->nx, h->S + h->nx, v));
  if (e) BlastCall(h->ops->vec.to_host(h->bctx, h->ne, h->S + 2 * h->nx, e));
  return 0;
}

void BlastHydroGetBalance(BlastHydro h, BlastBalanceInfo *info) {
  BlastHybridGetInfo(h->hybrid, info);
}
void BlastHydroSeedBalance(BlastHydro h, double gpu_fraction) {
  BlastHybridSeed(h->hybrid, gpu_fraction);
}

int BlastHydroSetState(BlastHydro h, const double *x, const double *v, const double *e) {
  BlastCall(h->ops->vec.from_host(h->bctx, h->nx, x, h->S));
  BlastCall(h->ops->vec.from_host(h->bctx, h->nx, v, h->S + h->nx));
  BlastCall(h->ops->vec.from_host(h->bctx, h->ne, e, h->S + 2 * h->nx));
  h->qdata_current = 0;
  h->norms_attempts = -1;  // a new state: its energies are not summed yet
  return 0;
}

void BlastHydroSetProgress(BlastHydro h, double t, double dt, int steps, int attempts, double dt0,
                           double energy0) {
  h->t = t, h->dt = dt, h->ti = steps + 1, h->attempts = attempts;
  h->norms_attempts = -1;  // the state is replaced (restart): its sums are not known
  h->dt0 = dt0, h->energy0 = energy0;
}

int BlastHydroResume(BlastHydro h) {
  // As an accepted step leaves it: the quadrature data (and sources) current at the state
  // and time, their estimate not part of the next attempt's (each attempt starts afresh).
  h->t_stage = h->t;
  h->qdata_current = 0;
  BlastCall(BlastHydroUpdateQData(h, h->S));
  h->dt_est = HUGE_VAL;
  h->tangled_zone = -1;
  return 0;
}

void BlastHydroRequestStop(BlastHydro h) {
  h->stop_requested = 1;
}

int BlastHydroPoisonForTest(BlastHydro h, int quantity, int comp, double value) {
  BlastCheck(quantity >= 0 && quantity <= 2, BLAST_ERR_ARG,
             "BlastHydroPoisonForTest: quantity %d is not 0 (position), 1 (velocity) or 2 (energy)",
             quantity);
  BlastCheck(quantity == 2 || (comp >= 0 && comp < h->space->dim), BLAST_ERR_ARG,
             "BlastHydroPoisonForTest: component %d of a %dD run", comp, h->space->dim);
  h->poison.armed = 1, h->poison.quantity = quantity, h->poison.comp = comp;
  h->poison.value = value;
  return 0;
}

const BlastSpace *BlastHydroGetSpace(BlastHydro h) {
  return h->space;
}

const double *BlastHydroGetInitialPositions(BlastHydro h) {
  return h->x0_host;
}
const BlastTensorTables *BlastHydroGetTables(BlastHydro h) {
  return h->tab;
}

const BlastTensorTables *BlastHydroGetZoneTables(BlastHydro h, int z) {
  return BlastHydroZoneTab(h, z);
}
const BlastProblem *BlastHydroGetProblem(BlastHydro h) {
  return &h->prob;
}
double BlastHydroInitialDensity(BlastHydro h, int z, const double *X) {
  if (h->prob.custom) return BlastProblemRegionRho0(&h->prob, h->zone_region[z], X);
  return BlastProblemRho0(&h->prob, X);
}
const BlastMaterial *BlastHydroGetMaterials(BlastHydro h, int *nmat) {
  *nmat = h->nmat;
  return h->mats;
}
const int *BlastHydroGetZoneMaterials(BlastHydro h) {
  return h->zone_mat;
}
BlastMesh BlastHydroGetMesh(BlastHydro h) {
  return h->mesh;
}

void BlastHydroGetBackend(BlastHydro h, const BlastBackendOps **ops, void **ctx) {
  *ops = h->ops;
  *ctx = h->bctx;
}
