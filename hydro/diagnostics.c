// Errors against exact solutions (method spec 13.3-13.5).
#include "diagnostics.h"

#include <math.h>

#include "blast_mpi.h"
#include "hydro-impl.h"
#include "linalg.h"
#include "problems/sedov_exact.h"
#include "qpoint.h"
#include "expr.h"

// Tables of the run's zone geometry with n points per (collapsed) direction: the rule
// of order 2(n-1) (exact to degree 2n-1). Mixed meshes: te[slot], padded to the space's
// dofs (BlastElementTablesPad); otherwise te[1] = NULL.
static int ErrorTables(BlastHydro h, int n, BlastTensorTables **te) {
  const BlastSpace *s = h->space;
  te[0] = te[1] = NULL;
  if (!h->zone_slot) {
    BlastCall(BlastElementTablesCreate(h->tab->geom, s->k, s->m, 2 * (n - 1), &te[0]));
    return 0;
  }
  const int geoms[2] = {BLAST_GEOM_SQUARE, BLAST_GEOM_TRIANGLE};
  for (int sl = 0; sl < 2; sl++) {
    BlastTensorTables *raw = NULL;
    int ierr = BlastElementTablesCreate(geoms[sl], s->k, s->m, 2 * (n - 1), &raw);
    if (!ierr && sl == 0) ierr = BlastTensorTablesEquispaced(raw);
    if (!ierr) ierr = BlastElementTablesPad(raw, raw->nqp, s->h1_nd, s->l2_nd, &te[sl]);
    BlastTensorTablesDestroy(&raw);
    if (ierr) BlastTensorTablesDestroy(&te[0]);
    BlastCall(ierr);
  }
  return 0;
}

static const BlastTensorTables *ZoneErrorTables(BlastHydro h, BlastTensorTables **te, int z) {
  return h->zone_slot ? te[h->zone_slot[z]] : te[0];
}

static void ErrorTablesDestroy(BlastTensorTables **te) {
  BlastTensorTablesDestroy(&te[0]);
  BlastTensorTablesDestroy(&te[1]);
}

typedef struct {
  const BlastSpace *s;
  const double *x, *v;  // host L-vectors of the current state
  double *phi, *dphi;   // work: H1 basis values and gradients
} ZoneEval;

// Physical point X, velocity V (if wanted) and det J at reference point xi of zone z.
static double Evaluate(ZoneEval *ev, const BlastTensorTables *t, int z, const double *xi, double *X,
                       double *V) {
  const BlastSpace *s = ev->s;
  const int dim = s->dim, nd = s->h1_nd, nl = s->h1_nl;
  BlastH1BasisEval(t, xi, ev->phi, ev->dphi);
  double J[9] = {0};
  for (int c = 0; c < dim; c++) {
    X[c] = 0.0;
    if (V) V[c] = 0.0;
    for (int a = 0; a < nd; a++) {
      const int l = s->h1_edof[(size_t)z * nd + a];
      const double xa = ev->x[(size_t)c * nl + l];
      X[c] += xa * ev->phi[a];
      if (V) V[c] += ev->v[(size_t)c * nl + l] * ev->phi[a];
      for (int g = 0; g < dim; g++) J[c + dim * g] += xa * ev->dphi[a * dim + g];
    }
  }
  return BlastMatDet(dim, J);
}

// Density of zone z by local L2 projection on the current mesh (method spec 13.4):
// M rho = sum_q R0 psi; M, Minv ne*ne and rhs ne of work, rho ne.
static int ProjectDensity(BlastHydro h, ZoneEval *ev, int z, double *M, double *Minv, double *rhs,
                          double *rho) {
  const BlastTensorTables *t = BlastHydroZoneTab(h, z);
  const int dim = h->space->dim, ne = h->space->l2_nd, nqp = t->nqp;
  for (int i = 0; i < ne * ne; i++) M[i] = 0.0;
  for (int i = 0; i < ne; i++) rhs[i] = 0.0;
  for (int q = 0; q < nqp; q++) {
    double X[3];
    const double wdet = t->qp_w[q] * Evaluate(ev, t, z, &t->qp_x[(size_t)q * dim], X, NULL);
    const double *psi = &t->l2_B[(size_t)q * ne];
    for (int j = 0; j < ne; j++) {
      rhs[j] += h->qp_R0[(size_t)z * nqp + q] * psi[j];
      for (int i = 0; i < ne; i++) M[i + ne * j] += wdet * psi[i] * psi[j];
    }
  }
  for (int i = BlastGeomNumNodes(t->geom, t->m); i < ne; i++) M[i + ne * i] = 1.0;  // padding
  BlastCall(BlastDenseInverse(ne, M, Minv));
  for (int i = 0; i < ne; i++) {
    double sum = 0.0;
    for (int j = 0; j < ne; j++) sum += Minv[i + ne * j] * rhs[j];
    rho[i] = sum;
  }
  return 0;
}

static int SedovDensityError(BlastHydro h, ZoneEval *ev, double *err) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, ne = s->l2_nd;
  const int km = s->k > s->m ? s->k : s->m;
  const int o_err =
      2 * (2 * (km + 1) > h->cfg.order_quadrature ? 2 * (km + 1) : h->cfg.order_quadrature);
  BlastTensorTables *te[2];
  BlastCall(ErrorTables(h, o_err / 2 + 1, te));
  BlastSedov sedov;
  BlastCall(BlastSedovCreate(dim, 1.4, h->cfg.blast_energy, 1.0, &sedov));
  double *M, *Minv, *rhs, *rho;
  BlastCall(BlastMalloc(ne * ne, &M));
  BlastCall(BlastMalloc(ne * ne, &Minv));
  BlastCall(BlastMalloc(ne, &rhs));
  BlastCall(BlastMalloc(ne, &rho));
  double local = 0.0, lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL},
         hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int z = 0; z < s->nz; z++) {
    BlastCall(ProjectDensity(h, ev, z, M, Minv, rhs, rho));
    const BlastTensorTables *tz = ZoneErrorTables(h, te, z);
    for (int q = 0; q < tz->nqp; q++) {
      double X[3], r2 = 0.0, rho_ex, rh = 0.0;
      const double wdet = tz->qp_w[q] * Evaluate(ev, tz, z, &tz->qp_x[(size_t)q * dim], X, NULL);
      for (int c = 0; c < dim; c++) {
        r2 += X[c] * X[c];
        lo[c] = fmin(lo[c], X[c]), hi[c] = fmax(hi[c], X[c]);
      }
      BlastCall(BlastSedovEval(sedov, h->t, sqrt(r2), &rho_ex, NULL, NULL));
      for (int j = 0; j < ne; j++) rh += rho[j] * tz->l2_B[(size_t)q * ne + j];
      local += wdet * (rho_ex - rh) * (rho_ex - rh);
    }
  }
  double sum, glo[3], ghi[3];
  BlastCallMPI(MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, h->comm));
  BlastCallMPI(MPI_Allreduce(lo, glo, 3, MPI_DOUBLE, MPI_MIN, h->comm));
  BlastCallMPI(MPI_Allreduce(hi, ghi, 3, MPI_DOUBLE, MPI_MAX, h->comm));
  double width = HUGE_VAL;
  for (int c = 0; c < dim; c++) width = fmin(width, ghi[c] - glo[c]);
  const double r_shock = BlastSedovShockRadius(sedov, h->t);
  BlastFree(&M);
  BlastFree(&Minv);
  BlastFree(&rhs);
  BlastFree(&rho);
  BlastCall(BlastSedovDestroy(&sedov));
  ErrorTablesDestroy(te);
  BlastCheck(r_shock <= width, BLAST_ERR_INPUT,
             "Sedov exact error: the shock radius %.4g at t = %.4g exceeds the domain width %.4g; "
             "the exact solution does not apply (shorten t_final or enlarge the mesh)",
             r_shock, h->t, width);
  *err = sqrt(sum);
  return 0;
}

// The exact velocity at X: [exact] velocity at time t when given (vex != NULL), else the
// problem's initial velocity (Taylor-Green and Gresho are steady).
static void ExactVelocity(BlastHydro h, BlastExpr *vex, const double *X, double *V0) {
  const int dim = h->space->dim;
  if (!vex) {
    BlastProblemV0(&h->prob, X, V0);
    return;
  }
  for (int c = 0; c < dim; c++) V0[c] = BlastExprEval(vex[c], dim, X, h->t);
}

static int VelocityErrors(BlastHydro h, ZoneEval *ev, BlastExpr *vex, double *linf, double *l1,
                          double *l2) {
  const BlastSpace *s = h->space;
  const int dim = s->dim;
  BlastTensorTables *te[2];
  BlastCall(ErrorTables(h, s->k + 2, te));  // order 2k+3
  double loc[2] = {0.0, 0.0}, mx = 0.0;
  for (int z = 0; z < s->nz; z++)
    for (int q = 0; q < ZoneErrorTables(h, te, z)->nqp; q++) {
      const BlastTensorTables *tz = ZoneErrorTables(h, te, z);
      double X[3], V[3], V0[3], e2 = 0.0;
      const double wdet = tz->qp_w[q] * Evaluate(ev, tz, z, &tz->qp_x[(size_t)q * dim], X, V);
      ExactVelocity(h, vex, X, V0);
      for (int c = 0; c < dim; c++) e2 += (V[c] - V0[c]) * (V[c] - V0[c]);
      const double e = sqrt(e2);
      mx = fmax(mx, e);
      loc[0] += wdet * e;
      loc[1] += wdet * e2;
    }
  double glob[2];
  BlastCallMPI(MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, h->comm));
  BlastCallMPI(MPI_Allreduce(&mx, linf, 1, MPI_DOUBLE, MPI_MAX, h->comm));
  *l1 = glob[0];
  *l2 = sqrt(glob[1]);
  ErrorTablesDestroy(te);
  return 0;
}

// The [exact] velocity compiled (dim expressions), or *n = 0 when not given.
static int CompileExactVelocity(BlastHydro h, BlastExpr *vex, int *n) {
  const BlastExactSpec *ex = &h->cfg.exact;
  *n = 0;
  if (ex->nvelocity <= 0) return 0;
  for (int c = 0; c < h->space->dim; c++) {
    const char *text = c < ex->nvelocity ? ex->velocity[c].text : "0";
    const char *where = c < ex->nvelocity ? ex->velocity[c].where : "[exact]";
    BlastCall(BlastExprCompile(text, where, "[exact] velocity", &vex[c]));
    *n = c + 1;
  }
  return 0;
}

int BlastDiagnosticsExactErrors(BlastHydro h, double *sedov_rho_l2, double *v_linf, double *v_l1,
                                double *v_l2) {
  *sedov_rho_l2 = *v_linf = *v_l1 = *v_l2 = NAN;
  const int id = h->prob.id, given = h->cfg.exact.nvelocity > 0;
  if (!given && id != BLAST_PROBLEM_SEDOV && id != BLAST_PROBLEM_TAYLOR_GREEN &&
      id != BLAST_PROBLEM_GRESHO)
    return 0;
  ZoneEval ev = {h->space, NULL, NULL, NULL, NULL};
  BlastExpr vex[3] = {NULL, NULL, NULL};
  int nvex = 0;
  BlastCall(CompileExactVelocity(h, vex, &nvex));
  double *x, *v;
  BlastCall(BlastMalloc(h->nx, &x));
  BlastCall(BlastMalloc(h->nx, &v));
  BlastCall(BlastMalloc(h->space->h1_nd, &ev.phi));
  BlastCall(BlastMalloc(h->space->h1_nd * h->space->dim, &ev.dphi));
  BlastCall(BlastHydroGetState(h, x, v, NULL));
  ev.x = x, ev.v = v;
  if (given)
    BlastCall(VelocityErrors(h, &ev, vex, v_linf, v_l1, v_l2));
  else if (id == BLAST_PROBLEM_SEDOV)
    BlastCall(SedovDensityError(h, &ev, sedov_rho_l2));
  else
    BlastCall(VelocityErrors(h, &ev, NULL, v_linf, v_l1, v_l2));
  for (int c = 0; c < nvex; c++) BlastExprDestroy(&vex[c]);
  BlastFree(&x);
  BlastFree(&v);
  BlastFree(&ev.phi);
  BlastFree(&ev.dphi);
  return 0;
}

int BlastDiagnosticsExactFieldErrors(BlastHydro h, double *rho_l2, double *p_l2) {
  *rho_l2 = *p_l2 = NAN;
  const BlastExactSpec *ex = &h->cfg.exact;
  const int want_rho = ex->density.text[0] != 0, want_p = ex->pressure.text[0] != 0;
  if (!want_rho && !want_p) return 0;
  const BlastSpace *s = h->space;
  const int dim = s->dim, ne = s->l2_nd;
  BlastExpr rex = NULL, pex = NULL;
  if (want_rho)
    BlastCall(BlastExprCompile(ex->density.text, ex->density.where, "[exact] density", &rex));
  if (want_p)
    BlastCall(BlastExprCompile(ex->pressure.text, ex->pressure.where, "[exact] pressure", &pex));
  const int km = s->k > s->m ? s->k : s->m;
  BlastTensorTables *te[2];
  BlastCall(ErrorTables(h, km + 2, te));  // order 2 max(k,m) + 3
  ZoneEval ev = {s, NULL, NULL, NULL, NULL};
  double *x, *e, *M, *Minv, *rhs, *rho;
  BlastCall(BlastMalloc(h->nx, &x));
  BlastCall(BlastMalloc((size_t)s->nz * ne + 1, &e));
  BlastCall(BlastMalloc(s->h1_nd, &ev.phi));
  BlastCall(BlastMalloc(s->h1_nd * dim, &ev.dphi));
  BlastCall(BlastMalloc(ne * ne, &M));
  BlastCall(BlastMalloc(ne * ne, &Minv));
  BlastCall(BlastMalloc(ne, &rhs));
  BlastCall(BlastMalloc(ne, &rho));
  BlastCall(BlastHydroGetState(h, x, NULL, e));
  ev.x = x;
  double loc[2] = {0.0, 0.0};
  for (int z = 0; z < s->nz; z++) {
    BlastCall(ProjectDensity(h, &ev, z, M, Minv, rhs, rho));
    const BlastMaterial *mat = &h->mats[h->zone_mat[z]];
    const BlastTensorTables *tz = ZoneErrorTables(h, te, z);
    for (int q = 0; q < tz->nqp; q++) {
      double X[3], rh = 0.0, eh = 0.0;
      const double wdet = tz->qp_w[q] * Evaluate(&ev, tz, z, &tz->qp_x[(size_t)q * dim], X, NULL);
      for (int j = 0; j < ne; j++) {
        rh += rho[j] * tz->l2_B[(size_t)q * ne + j];
        eh += e[(size_t)z * ne + j] * tz->l2_B[(size_t)q * ne + j];
      }
      if (rex) {
        const double d = rh - BlastExprEval(rex, dim, X, h->t);
        loc[0] += wdet * d * d;
      }
      if (pex) {
        double ph, cs;
        BlastEos(mat, rh, eh, &ph, &cs);
        const double d = ph - BlastExprEval(pex, dim, X, h->t);
        loc[1] += wdet * d * d;
      }
    }
  }
  double glob[2];
  BlastCallMPI(MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, h->comm));
  if (rex) *rho_l2 = sqrt(glob[0]);
  if (pex) *p_l2 = sqrt(glob[1]);
  BlastExprDestroy(&rex);
  BlastExprDestroy(&pex);
  ErrorTablesDestroy(te);
  BlastFree(&x);
  BlastFree(&e);
  BlastFree(&ev.phi);
  BlastFree(&ev.dphi);
  BlastFree(&M);
  BlastFree(&Minv);
  BlastFree(&rhs);
  BlastFree(&rho);
  return 0;
}
