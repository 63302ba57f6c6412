// Energy sources of the deck: point deposits at t = 0 and power densities (sources.h).
#include "sources.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "hydro-impl.h"
#include "hydro_setup.h"
#include "linalg.h"
#include "expr.h"
#include "simplex.h"

enum { kMaxNe = BLAST_MAX_ORDER * BLAST_MAX_ORDER * BLAST_MAX_ORDER };

int BlastSourceLocate(const BlastSpace *s, int z, const double *p, double *xi) {
  const int dim = s->dim, geom = BlastMeshZoneGeom(s->mesh, s->zone_macro[z]);
  double lo[3], hi[3], size = 0.0;
  for (int c = 0; c < dim; c++) lo[c] = HUGE_VAL, hi[c] = -HUGE_VAL;
  for (int corner = 0; corner < BlastGeomNumVertices(geom); corner++) {
    double X[3] = {0, 0, 0};
    BlastSpaceZoneCorner(s, z, corner, X);
    for (int c = 0; c < dim; c++) lo[c] = fmin(lo[c], X[c]), hi[c] = fmax(hi[c], X[c]);
  }
  for (int c = 0; c < dim; c++) size = fmax(size, hi[c] - lo[c]);
  const double tol = 1e-10 * size;
  // Straight-sided zones lie in the box of their corners.
  for (int c = 0; c < dim; c++)
    if (!(p[c] >= lo[c] - tol && p[c] <= hi[c] + tol)) return 0;
  // Newton on the zone map from the reference centroid; the map is multilinear (affine on
  // simplices), so central differences of half-width 1/4 give its Jacobian up to rounding.
  double r[3], X[3];
  BlastRefCentroid(geom, xi);
  for (int it = 0; it < 60; it++) {
    BlastSetupZonePoint(s, z, xi, X);
    double res = 0.0;
    for (int c = 0; c < dim; c++) r[c] = X[c] - p[c], res = fmax(res, fabs(r[c]));
    if (res <= 1e-3 * tol) break;
    double J[9], Jinv[9];
    for (int g = 0; g < dim; g++) {
      double xp[3], xm[3], Xp[3], Xm[3];
      for (int k = 0; k < dim; k++) xp[k] = xm[k] = xi[k];
      xp[g] += 0.25, xm[g] -= 0.25;
      BlastSetupZonePoint(s, z, xp, Xp);
      BlastSetupZonePoint(s, z, xm, Xm);
      for (int c = 0; c < dim; c++) J[c + dim * g] = (Xp[c] - Xm[c]) * 2.0;
    }
    double adj[9];
    const double det = BlastMatDet(dim, J);
    if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
    BlastMatAdjugate(dim, J, adj);
    for (int i = 0; i < dim * dim; i++) Jinv[i] = adj[i] / det;
    for (int g = 0; g < dim; g++) {
      double d = 0.0;
      for (int c = 0; c < dim; c++) d += Jinv[g + dim * c] * r[c];
      xi[g] = fmin(fmax(xi[g] - d, -0.5), 1.5);
    }
  }
  const double snap = 1e-9;
  if (!BlastRefContains(geom, xi, snap)) return 0;
  for (int g = 0; g < dim; g++) {
    if (xi[g] <= snap) xi[g] = 0.0;
    if (xi[g] >= 1.0 - snap) xi[g] = 1.0;
  }
  if (BlastGeomIsSimplex(geom)) {  // onto the face sum xi = 1 (the xi_g = 1 vertices above)
    double sum = 0.0;
    for (int g = 0; g < dim; g++) sum += xi[g];
    if (sum > 1.0 && sum <= 1.0 + snap)
      for (int g = 0; g < dim; g++) xi[g] /= sum;
  }
  BlastSetupZonePoint(s, z, xi, X);
  for (int c = 0; c < dim; c++)
    if (!(fabs(X[c] - p[c]) <= tol)) return 0;
  return 1;
}

// "(0.5, 0.25)" for messages.
static const char *PointText(int dim, const double *p, char *buf, size_t n) {
  if (dim == 1)
    snprintf(buf, n, "(%g)", p[0]);
  else if (dim == 2)
    snprintf(buf, n, "(%g, %g)", p[0], p[1]);
  else
    snprintf(buf, n, "(%g, %g, %g)", p[0], p[1], p[2]);
  return buf;
}

// One point source: e += scale psi(xi_p) in the zones holding the point, with the scale
// that makes the deposited energy `energy`. zone_int is nz + 1 doubles of work.
static int DepositPoint(BlastHydro h, const BlastSourceSpec *src, const double *wdetJ0,
                        double *zone_int, double *e) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, ne = s->l2_nd, nqp = h->tab->nqp, nz = s->nz;
  char pt[128];
  PointText(dim, src->point, pt, sizeof pt);
  // The same on every rank (the configuration is).
  if (!(src->energy > 0.0 && isfinite(src->energy))) {
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                    "%s: [source.%s] energy = %g: the deposited energy must be a positive number",
                    src->where, src->name, src->energy);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_INPUT;
  }
  int found = 0;
#pragma omp parallel for schedule(static) reduction(+ : found)
  for (int z = 0; z < nz; z++) {
    double xi[3] = {0, 0, 0};
    zone_int[z] = 0.0;
    if (!BlastSourceLocate(s, z, src->point, xi)) continue;
    found++;
    const BlastTensorTables *t = BlastHydroZoneTab(h, z);  // mixed meshes: the zone's
    double psi[kMaxNe];
    BlastL2BasisEval(t, xi, psi);
    for (int q = 0; q < nqp; q++) {
      double X[3] = {0, 0, 0}, eq = 0.0;
      BlastSetupZonePoint(s, z, &t->qp_x[(size_t)q * dim], X);
      for (int j = 0; j < ne; j++) eq += psi[j] * t->l2_B[(size_t)q * ne + j];
      zone_int[z] += wdetJ0[(size_t)z * nqp + q] * BlastHydroInitialDensity(h, z, X) * eq;
    }
  }
  int nall = 0;
  BlastCallMPI(MPI_Allreduce(&found, &nall, 1, MPI_INT, MPI_SUM, h->comm));
  if (!nall) {
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                    "%s: [source.%s] point = %s lies outside the mesh: no zone holds it (a "
                    "point source deposits its energy in the zones whose closure holds the "
                    "point)",
                    src->where, src->name, pt);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_INPUT;
  }
  double total;
  BlastCall(BlastSetupOrderedZoneSum(h, zone_int, &total));
  const double scale = src->energy / total;
  // The deposited specific internal energy squared (|e|, the velocity solve's dot
  // products) must not overflow. The same on every rank.
  const double limit = sqrt(DBL_MAX / (nall * ne)) / 16.0;
  if (!(total > 0.0 && isfinite(total) && isfinite(scale) && fabs(scale) <= limit)) {
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                    "%s: [source.%s] energy = %g at point %s cannot be deposited on this mesh: "
                    "it gives a specific internal energy of %g (the delta function's mass "
                    "integral there is %g), and the energies and pressures that follow "
                    "overflow double precision; use energy <= %.3g",
                    src->where, src->name, src->energy, pt, scale, total,
                    isfinite(total) && total > 0.0 ? limit * total : 0.0);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_INPUT;
  }
#pragma omp parallel for schedule(static)
  for (int z = 0; z < nz; z++) {
    double xi[3] = {0, 0, 0}, psi[kMaxNe];
    if (!BlastSourceLocate(s, z, src->point, xi)) continue;
    BlastL2BasisEval(BlastHydroZoneTab(h, z), xi, psi);
    for (int j = 0; j < ne; j++) e[(size_t)z * ne + j] += scale * psi[j];
  }
  return 0;
}

int BlastSourcesDepositPoints(BlastHydro h, const double *wdetJ0, double *e) {
  const BlastConfig *cfg = &h->cfg;
  double *zone_int = NULL;
  BlastCall(BlastSetupAgree(h, BlastMalloc(h->space->nz + 1, &zone_int), kNoZone));
  int ierr = 0;
  for (int i = 0; i < cfg->nsources && !ierr; i++)
    if (cfg->sources[i].kind == BLAST_SOURCE_POINT)
      ierr = DepositPoint(h, &cfg->sources[i], wdetJ0, zone_int, e);
  BlastFree(&zone_int);
  return ierr;
}

// ---------------------------------------------------------------------------------------
// Power sources.

struct BlastSources_private {
  int n;
  BlastExpr expr[BLAST_MAX_SOURCES];
  double *x;     // [dim * h1_nl] host positions
  double *pts;   // [nz * nqp * dim] host quadrature points of the current mesh
  double *val;   // [nz * nqp] power at them (one source), then the sum
  double *sum;   // [nz * nqp] sum over sources
  double *wdet;  // [nz * nqp] w |J| at them
  double *rate;  // [nz * l2_nd] host M_E^{-1} int P psi
  double *dev;   // [nz * l2_nd] the same, backend memory
};

void BlastSourcesDestroy(BlastHydro h, BlastSources *src) {
  if (!src || !*src) return;
  BlastSources p = *src;
  if (p->dev) h->ops->vec.free(h->bctx, &p->dev);
  for (int i = 0; i < p->n; i++) BlastExprDestroy(&p->expr[i]);
  BlastFree(&p->x);
  BlastFree(&p->pts);
  BlastFree(&p->val);
  BlastFree(&p->sum);
  BlastFree(&p->wdet);
  BlastFree(&p->rate);
  free(p);
  *src = NULL;
}

int BlastSourcesCreate(BlastHydro h, BlastSources *out) {
  *out = NULL;
  const BlastConfig *cfg = &h->cfg;
  int npow = 0;
  for (int i = 0; i < cfg->nsources; i++) npow += cfg->sources[i].kind == BLAST_SOURCE_POWER;
  if (!npow) return 0;
  BlastSources p = calloc(1, sizeof *p);
  BlastCheck(p, BLAST_ERR_MEM, "out of memory (power sources)");
  const BlastSpace *s = h->space;
  const size_t nzq = (size_t)s->nz * h->tab->nqp;
  int ierr = 0;
  for (int i = 0; i < cfg->nsources && !ierr; i++) {
    const BlastSourceSpec *src = &cfg->sources[i];
    if (src->kind != BLAST_SOURCE_POWER) continue;
    char what[BLAST_NAME_MAX + 32];
    snprintf(what, sizeof what, "[source.%s] power", src->name);
    ierr = BlastExprCompile(src->power.text, src->power.where, what, &p->expr[p->n]);
    if (!ierr) p->n++;
  }
  if (!ierr) ierr = BlastMalloc(h->nx + 1, &p->x);
  if (!ierr) ierr = BlastMalloc(nzq * s->dim + 1, &p->pts);
  if (!ierr) ierr = BlastMalloc(nzq + 1, &p->val);
  if (!ierr) ierr = BlastMalloc(nzq + 1, &p->sum);
  if (!ierr) ierr = BlastMalloc(nzq + 1, &p->wdet);
  if (!ierr) ierr = BlastMalloc(h->ne + 1, &p->rate);
  if (!ierr) ierr = h->ops->vec.alloc(h->bctx, h->ne, &p->dev);
  if (ierr) {
    BlastSourcesDestroy(h, &p);
    return ierr;
  }
  *out = p;
  return 0;
}

int BlastSourcesUpdate(BlastSources p, BlastHydro h, const double *S, double t) {
  const BlastSpace *s = h->space;
  const int dim = s->dim < 3 ? s->dim : 3, nd = s->h1_nd, ne = s->l2_nd, nqp = h->tab->nqp;
  const int nl = s->h1_nl, nz = s->nz;
  const size_t nzq = (size_t)nz * nqp;
  BlastCall(h->ops->vec.to_host(h->bctx, h->nx, S, p->x));
  BlastCall(h->ops->ctx.sync(h->bctx));
  // The quadrature points and w |J| of the current mesh (as the kernels compute them).
#pragma omp parallel for schedule(static)
  for (int z = 0; z < nz; z++)
    for (int q = 0; q < nqp; q++) {
      const BlastTensorTables *tab = BlastHydroZoneTab(h, z);  // mixed meshes: the zone's
      double X[3] = {0, 0, 0}, J[9] = {0};
      for (int a = 0; a < nd; a++) {
        const int l = s->h1_edof[(size_t)z * nd + a];
        const double B = tab->h1_B[(size_t)q * nd + a];
        for (int c = 0; c < dim; c++) {
          const double xa = p->x[(size_t)c * nl + l];
          X[c] += xa * B;
          for (int g = 0; g < dim; g++)
            J[c + dim * g] += xa * tab->h1_G[((size_t)q * nd + a) * dim + g];
        }
      }
      const size_t zq = (size_t)z * nqp + q;
      double *P = &p->pts[zq * dim];
      P[0] = X[0];
      if (dim > 1) P[1] = X[1];
      if (dim > 2) P[2] = X[2];
      p->wdet[zq] = tab->qp_w[q] * BlastMatDet(dim, J);
    }
  for (int i = 0; i < p->n; i++) {
    BlastCall(BlastExprEvalMany(p->expr[i], dim, nzq, p->pts, t, i ? p->val : p->sum));
    if (i)
      for (size_t k = 0; k < nzq; k++) p->sum[k] += p->val[k];
  }
  // rate_z = M_E^{-1} (int P psi_j), zone by zone.
#pragma omp parallel for schedule(static)
  for (int z = 0; z < nz; z++) {
    const BlastTensorTables *tab = BlastHydroZoneTab(h, z);
    double b[kMaxNe];
    for (int j = 0; j < ne; j++) b[j] = 0.0;
    for (int q = 0; q < nqp; q++) {
      const size_t zq = (size_t)z * nqp + q;
      const double src = p->wdet[zq] * p->sum[zq];
      for (int j = 0; j < ne; j++) b[j] += src * tab->l2_B[(size_t)q * ne + j];
    }
    const double *Mi = &h->me_inv[(size_t)z * ne * ne];
    for (int i = 0; i < ne; i++) {
      double r = 0.0;
      for (int j = 0; j < ne; j++) r += Mi[i + ne * j] * b[j];
      p->rate[(size_t)z * ne + i] = r;
    }
  }
  BlastCall(h->ops->vec.from_host(h->bctx, h->ne, p->rate, p->dev));
  return 0;
}

int BlastSourcesAddRate(BlastSources p, BlastHydro h, double *de) {
  BlastCall(h->ops->vec.axpby(h->bctx, h->ne, 1.0, p->dev, 1.0, de));
  return 0;
}
