// The initial data of a custom problem (`[problem] name = custom`): the zones' regions and
// materials, the density and the specific internal energy of the zone's region at the
// points where the built-in problems evaluate theirs (the L2 interpolation points of
// BlastSetupL2Points, the quadrature points), the velocity of the node's region at the nodes.
// The expressions are evaluated in batches, one region at a time (BlastExprEvalMany).
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blast_mpi.h"
#include "hydro_setup.h"
#include "simplex.h"

// The attribute of zone z (ext zones too).
static int ZoneAttr(const BlastSpace *s, int z) {
  return BlastMeshZoneAttr(s->mesh)[s->zone_macro[z]];
}

// The image of the reference centroid (1/2 per coordinate, 1/(d+1) on simplices).
static void ZoneCentroid(const BlastSpace *s, int z, double *X) {
  double xi[3] = {0.5, 0.5, 0.5};
  BlastRefCentroid(BlastMeshZoneGeom(s->mesh, s->zone_macro[z]), xi);
  X[0] = X[1] = X[2] = 0.0;
  BlastSetupZonePoint(s, z, xi, X);
}

int BlastSetupCustomRegions(BlastHydro h) {
  const BlastSpace *s = h->space;
  const BlastProblem *p = &h->prob;
  const int nreg = BlastProblemNumRegions(p);
  BlastFree(&h->zone_region);
  int ierr = BlastMalloc(s->nz_ext + 1, &h->zone_region);
  int bad = INT_MAX;
  if (!ierr) {
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (int z = 0; z < s->nz_ext; z++) {
      double X[3];
      ZoneCentroid(s, z, X);
      const int r = BlastProblemRegionAt(p, ZoneAttr(s, z), X);
      h->zone_region[z] = r;
      if (z < s->nz) h->zone_mat[z] = r >= 0 ? BlastProblemRegionMaterial(p, r) : 0;
      if (r < 0 && z < s->nz && z < bad) bad = z;  // halo zones: their owner reports them
    }
  }
  int64_t key = kNoZone;
  if (!ierr && bad < s->nz) {
    double X[3];
    char zone[256], where[BLAST_PATH_MAX + 64];
    ZoneCentroid(s, bad, X);
    key = s->zone_gid[bad];
    ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                           "%s: %s (centroid (%g, %g, %g), attribute %d) is in no region: no "
                           "[region.NAME] select holds it (add a region, e.g. select = all "
                           "first)",
                           BlastSetupMeshOrigin(h, where, sizeof where),
                           BlastSetupZoneName(h, bad, zone, sizeof zone), X[0], X[1], X[2],
                           ZoneAttr(s, bad));
  }
  BlastCall(BlastSetupAgree(h, ierr, key));
  // Every region selects a zone somewhere: the zones whose centroid its selector holds.
  long long mine[BLAST_MAX_REGIONS] = {0}, all[BLAST_MAX_REGIONS];
  for (int z = 0; z < s->nz; z++) {
    double X[3];
    ZoneCentroid(s, z, X);
    const int attr = ZoneAttr(s, z);
    for (int r = 0; r < nreg; r++)
      if (!mine[r] && BlastProblemRegionSelects(p, r, attr, X)) mine[r] = 1;
  }
  BlastCallMPI(MPI_Allreduce(mine, all, nreg, MPI_LONG_LONG, MPI_SUM, h->comm));
  for (int r = 0; r < nreg; r++)
    if (!all[r]) {
      char where[BLAST_PATH_MAX + 64];
      BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                      "%s: [region.%s] select: selects no zone of %s (a zone is selected when "
                      "the selector holds its centroid)",
                      BlastProblemRegionSelectWhere(p, r), BlastProblemRegionName(p, r),
                      BlastSetupMeshOrigin(h, where, sizeof where));
      BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
      return BLAST_ERR_INPUT;
    }
  return 0;
}

// The reference points of zone z: xi, or on a mixed mesh's triangles xi1 (if not NULL).
static const double *ZonePoints(BlastHydro h, int z, const double *xi, const double *xi1) {
  return xi1 && h->zone_slot && h->zone_slot[z] ? xi1 : xi;
}

// rho and e (e may be NULL) of each zone's region at the npz reference points xi of every
// zone in [0, nzones) (ZonePoints): rho[z*npz + k].
static int ZoneValues(BlastHydro h, int nzones, int npz, const double *xi, const double *xi1,
                      double *rho, double *e) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, nreg = BlastProblemNumRegions(&h->prob);
  size_t cnt[BLAST_MAX_REGIONS] = {0}, nmax = 1;
  for (int z = 0; z < nzones; z++) cnt[h->zone_region[z]] += (size_t)npz;
  for (int r = 0; r < nreg; r++) nmax = cnt[r] > nmax ? cnt[r] : nmax;
  double *X = NULL, *vr = NULL, *ve = NULL;
  int *zs = NULL;
  int ierr = BlastMalloc(nmax * dim, &X);
  if (!ierr) ierr = BlastMalloc(nmax, &vr);
  if (!ierr) ierr = BlastMalloc(nmax, &ve);
  if (!ierr) ierr = BlastMalloc((size_t)nzones + 1, &zs);
  for (int r = 0; r < nreg && !ierr; r++) {
    if (!cnt[r]) continue;
    int nzr = 0;
    for (int z = 0; z < nzones; z++)
      if (h->zone_region[z] == r) zs[nzr++] = z;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nzr; i++)
      for (int k = 0; k < npz; k++) {
        double Y[3] = {0, 0, 0};
        BlastSetupZonePoint(s, zs[i], &ZonePoints(h, zs[i], xi, xi1)[(size_t)k * dim], Y);
        for (int c = 0; c < dim; c++) X[((size_t)i * npz + k) * dim + c] = Y[c];
      }
    ierr = BlastProblemRegionRhoE(&h->prob, r, (size_t)nzr * npz, X, vr, e ? ve : NULL);
    if (ierr) break;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nzr; i++)
      for (int k = 0; k < npz; k++) {
        rho[(size_t)zs[i] * npz + k] = vr[(size_t)i * npz + k];
        if (e) e[(size_t)zs[i] * npz + k] = ve[(size_t)i * npz + k];
      }
  }
  BlastFree(&X), BlastFree(&vr), BlastFree(&ve), BlastFree(&zs);
  BlastCall(ierr);
  return 0;
}

// What is wrong with density r and specific energy v (e: v is given) in material m: 0
// nothing, 1 the density (not > 0 or not finite), 2 the energy (not >= 0 or not finite),
// 3 the pressure (p + p_inf < 0, i.e. rho e < p_inf: a stiffened gas without sound speed).
static int Defect(const BlastMaterial *m, double r, int e, double v) {
  if (!(r > 0.0 && isfinite(r))) return 1;
  if (!e) return 0;
  if (!(v >= 0.0 && isfinite(v))) return 2;
  return r * v >= m->p_inf ? 0 : 3;
}

// The first zone (lowest index) whose data at its npz points have a defect: an input error
// naming the point and the key; *key = its global id.
static int CheckValues(BlastHydro h, int npz, const double *xi, const double *xi1,
                       const double *rho, const double *e, const char *points, int64_t *key) {
  const BlastSpace *s = h->space;
  int bad = INT_MAX;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int z = 0; z < s->nz; z++)
    for (int k = 0; k < npz; k++) {
      const double r = rho[(size_t)z * npz + k], v = e ? e[(size_t)z * npz + k] : 0.0;
      if (Defect(&h->mats[h->zone_mat[z]], r, e != NULL, v) && z < bad) bad = z;
    }
  if (bad == INT_MAX) return 0;
  const BlastMaterial *m = &h->mats[h->zone_mat[bad]];
  for (int k = 0; k < npz; k++) {
    const double r = rho[(size_t)bad * npz + k], v = e ? e[(size_t)bad * npz + k] : 0.0;
    const int what = Defect(m, r, e != NULL, v);
    if (!what) continue;
    double X[3] = {0, 0, 0};
    BlastSetupZonePoint(s, bad, &ZonePoints(h, bad, xi, xi1)[(size_t)k * s->dim], X);
    char zone[256], keytext[BLAST_WHERE_MAX + 2 * BLAST_NAME_MAX + 64];
    BlastProblemRegionKey(&h->prob, h->zone_region[bad], what > 1, keytext, sizeof keytext);
    BlastSetupZoneName(h, bad, zone, sizeof zone);
    *key = s->zone_gid[bad];
    if (what == 3)
      BlastError(BLAST_ERR_INPUT,
                 "%s: the initial pressure is %g at (%g, %g, %g), %s of %s, below -p_inf = %g of "
                 "[material.%s]: the stiffened gas has no sound speed there (p + p_inf must be "
                 ">= 0)",
                 keytext, (m->gamma - 1.0) * r * v - m->gamma * m->p_inf, X[0], X[1], X[2], points,
                 zone, -m->p_inf, BlastProblemMaterialName(&h->prob, h->zone_mat[bad]));
    BlastError(BLAST_ERR_INPUT,
               "%s: the initial %s is %g at (%g, %g, %g), %s of %s (it must be a finite number "
               "%s)",
               keytext, what == 1 ? "density" : "specific internal energy", what == 1 ? r : v, X[0],
               X[1], X[2], points, zone, what == 1 ? "> 0" : ">= 0");
  }
  return 0;
}

int BlastSetupCustomInitialData(BlastHydro h, const double *Vinv, double *rho0h, double *e0,
                                int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab, *t1 = h->zone_slot ? h->tabs[1] : NULL;
  const int ne = s->l2_nd, nqp = t->nqp;
  enum { kPts = 3 * (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1) };
  double xi[kPts], xi1[kPts];  // the points of BlastSetupInterpolateL2, in its order
  BlastCall(BlastSetupL2Points(h, xi));
  if (t1) BlastCall(BlastSetupL2PointsOf(t1, ne, xi1));
  const double *q1 = t1 ? t1->qp_x : NULL, *l1 = t1 ? xi1 : NULL;  // mixed: the triangles
  double *rho = NULL, *e = NULL;
  const size_t nv = (size_t)s->nz * (ne > nqp ? ne : nqp) + 1;
  int ierr = BlastMalloc(nv, &rho);
  if (!ierr && e0) ierr = BlastMalloc(nv, &e);
  // At the quadrature points (the points the built-in problems' check uses).
  if (!ierr) ierr = ZoneValues(h, s->nz, nqp, t->qp_x, q1, rho, e);
  if (!ierr) ierr = CheckValues(h, nqp, t->qp_x, q1, rho, e, "a quadrature point", bad_gid);
  // At the interpolation points: the Bernstein coefficients (Vinv: one matrix per slot).
  if (!ierr) ierr = ZoneValues(h, s->nz, ne, xi, l1, rho, e);
  if (!ierr) ierr = CheckValues(h, ne, xi, l1, rho, e, "an interpolation point", bad_gid);
  for (int pass = 0; pass < (e0 ? 2 : 1) && !ierr; pass++) {
    const double *vals = pass ? e : rho;
    double *coef = pass ? e0 : rho0h;
#pragma omp parallel for schedule(static)
    for (int z = 0; z < s->nz; z++)
      for (int i = 0; i < ne; i++) {
        const double *Vz = Vinv + (size_t)(h->zone_slot ? h->zone_slot[z] : 0) * ne * ne;
        double sum = 0.0;
        for (int l = 0; l < ne; l++) sum += Vz[i + ne * l] * vals[(size_t)z * ne + l];
        coef[(size_t)z * ne + i] = sum;
      }
  }
  BlastFree(&rho), BlastFree(&e);
  BlastCall(ierr);
  return 0;
}

int BlastSetupCustomQpDensity(BlastHydro h, double **rho_qp) {
  const BlastSpace *s = h->space;
  const int nqp = h->tab->nqp;
  BlastCall(BlastMalloc((size_t)s->nz_ext * nqp + 1, rho_qp));
  BlastCall(ZoneValues(h, s->nz_ext, nqp, h->tab->qp_x, h->zone_slot ? h->tabs[1]->qp_x : NULL,
                       *rho_qp, NULL));
  return 0;
}

// The region of each owned node (from its position and the attributes of all its zones,
// halo zones included), sent to the ghost copies: the same on every partition.
static int NodeRegions(BlastHydro h, const double *xext, double *reg) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, nd = s->h1_nd, next = s->h1_next;
#pragma omp parallel for schedule(static)
  for (int l = 0; l < s->h1_nown; l++) {
    int attrs[64], na = 0;
    for (int k = s->mass_toff[l]; k < s->mass_toff[l + 1] && na < 64; k++) {
      const int a = ZoneAttr(s, s->mass_tidx[k] / nd);
      int seen = 0;
      for (int i = 0; i < na; i++) seen |= attrs[i] == a;
      if (!seen) attrs[na++] = a;
    }
    double X[3] = {0, 0, 0};
    for (int c = 0; c < dim; c++) X[c] = xext[(size_t)c * next + l];
    reg[l] = BlastProblemNodeRegion(&h->prob, na, attrs, X);
  }
  BlastCall(BlastSetupHostHaloForward(h, BLAST_HALO_L, 1, next, reg));
  return 0;
}

int BlastSetupCustomVelocity(BlastHydro h, const double *xext, double *v0) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, nl = s->h1_nl, next = s->h1_next, nreg = BlastProblemNumRegions(&h->prob);
  double *reg = NULL, *X = NULL, *V = NULL;
  int *ls = NULL;
  int64_t key = kNoZone;  // the global id of the first bad node
  int ierr = BlastMalloc((size_t)next + 1, &reg);
  if (!ierr) ierr = BlastMalloc((size_t)dim * nl + 1, &X);
  if (!ierr) ierr = BlastMalloc((size_t)dim * nl + 1, &V);
  if (!ierr) ierr = BlastMalloc((size_t)nl + 1, &ls);
  ierr = BlastSetupAgree(h, ierr, kNoZone);
  if (!ierr) ierr = BlastSetupAgree(h, NodeRegions(h, xext, reg), kNoZone);  // collective
  for (int l = 0; l < nl && !ierr; l++)
    for (int c = 0; c < dim; c++) v0[(size_t)c * nl + l] = 0.0;  // no region: at rest
  for (int r = 0; r < nreg && !ierr; r++) {
    int n = 0;
    for (int l = 0; l < nl; l++)
      if (reg[l] == r) ls[n++] = l;
    if (!n) continue;
    for (int i = 0; i < n; i++)
      for (int c = 0; c < dim; c++) X[(size_t)i * dim + c] = xext[(size_t)c * next + ls[i]];
    ierr = BlastProblemRegionV(&h->prob, r, (size_t)n, X, V);
    for (int i = 0; i < n && !ierr; i++)
      for (int c = 0; c < dim; c++) {
        const double v = V[(size_t)c * n + i];
        if (!isfinite(v) && !ierr) {
          key = s->h1_gid[ls[i]];
          char keytext[BLAST_WHERE_MAX + 2 * BLAST_NAME_MAX + 64];
          ierr = BlastErrorRaise(
              __FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
              "%s: [region.%s] velocity: component %d is %g at the node "
              "(%g, %g, %g) (must be finite)",
              BlastProblemRegionVelocityWhere(&h->prob, r, c, keytext, sizeof keytext),
              BlastProblemRegionName(&h->prob, r), c + 1, v, X[(size_t)i * dim],
              dim > 1 ? X[(size_t)i * dim + 1] : 0.0, dim > 2 ? X[(size_t)i * dim + 2] : 0.0);
        }
        v0[(size_t)c * nl + ls[i]] = v;
      }
  }
  BlastFree(&reg), BlastFree(&X), BlastFree(&V), BlastFree(&ls);
  BlastCall(BlastSetupAgree(h, ierr, key));
  return 0;
}
