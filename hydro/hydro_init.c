// Setup of the Lagrangian operator, part 2: the initial geometry and the initial data
// (method spec 3.3, 11): canonical positions, Jacobians, interpolated density and energy,
// the Sedov deposit, and the checks that name a bad zone.
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blast_mpi.h"
#include "hydro_setup.h"
#include "linalg.h"
#include "lanes.h"
#include "simplex.h"

// Where the mesh came from, for messages: "mesh file 'path'" or "the generated box mesh".
const char *BlastSetupMeshOrigin(BlastHydro h, char *buf, size_t n) {
  if (h->cfg.mesh_file[0])
    snprintf(buf, n, "mesh file '%s'", h->cfg.mesh_file);
  else
    snprintf(buf, n, "the generated box mesh ([mesh] size, elements)");
  return buf;
}

// "zone 37 (global id; element 2 of the mesh file, first corner at (0, 0.5, 0))".
const char *BlastSetupZoneName(BlastHydro h, int z, char *buf, size_t n) {
  const BlastSpace *s = h->space;
  double X[3] = {0, 0, 0};
  BlastSpaceZoneCorner(s, z, 0, X);
  int64_t nchild = 1;  // serial refinement splits every element of the file in nchild
  for (int i = 0; i < s->dim * h->cfg.refine_serial && nchild < INT64_MAX / 2; i++) nchild *= 2;
  if (h->cfg.mesh_file[0])
    snprintf(buf, n,
             "zone %lld (global id; element %lld of the mesh file, first corner at (%g, %g, %g))",
             (long long)s->zone_gid[z], (long long)(s->zone_macro[z] / nchild), X[0], X[1], X[2]);
  else
    snprintf(buf, n, "zone %lld (global id; first corner at (%g, %g, %g))",
             (long long)s->zone_gid[z], X[0], X[1], X[2]);
  return buf;
}

// The geometry of the mesh's zones (a 2D mix of triangles and quadrilaterals: triangle,
// the full path's geometry); other mixes and the partial path on simplices are input
// errors (the same on every rank: every rank holds the mesh).
int BlastSetupZoneGeometry(BlastHydro h, BlastMesh mesh, int *geom) {
  const int nz = BlastMeshNumZones(mesh);
  *geom = nz > 0 ? BlastMeshZoneGeom(mesh, 0) : BlastGeomTensor(BlastMeshDim(mesh));
  char where[BLAST_PATH_MAX + 64];
  const int first = *geom;
  for (int z = 1; z < nz; z++) {
    const int g = BlastMeshZoneGeom(mesh, z);
    if (g == first) continue;
    if ((g == BLAST_GEOM_TRIANGLE && first == BLAST_GEOM_SQUARE) ||
        (g == BLAST_GEOM_SQUARE && first == BLAST_GEOM_TRIANGLE)) {
      *geom = BLAST_GEOM_TRIANGLE;  // mixed: padded zones (space.h), the full path
      continue;
    }
    *geom = first;
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                    "%s: zone 0 is a %s and zone %d a %s: only triangles and quadrilaterals "
                    "may be mixed (use one element type)",
                    BlastSetupMeshOrigin(h, where, sizeof where), BlastGeomName(*geom), z,
                    BlastGeomName(g));
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_INPUT;
  }
  if (BlastGeomIsSimplex(*geom) && h->cfg.assembly == BLAST_ASSEMBLY_PARTIAL) {
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                    "[fem] assembly = partial: the partial-assembly path runs quadrilaterals and "
                    "hexahedra only; %s has %s (use full or default)",
                    BlastSetupMeshOrigin(h, where, sizeof where),
                    *geom == BLAST_GEOM_TRIANGLE ? "triangles" : "tetrahedra");
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_INPUT;
  }
  return 0;
}

double BlastSetupRefVolume(int geom) {
  switch (geom) {
    case BLAST_GEOM_TRIANGLE:
      return 0.5;
    case BLAST_GEOM_TETRAHEDRON:
      return 1.0 / 6.0;
    default:
      return 1.0;
  }
}

// Physical point of reference point xi (fine-zone coordinates) of zone z, initial mesh.
void BlastSetupZonePoint(const BlastSpace *s, int z, const double *xi, double *x) {
  double xm[3];
  BlastSpaceZoneRefToMacro(s, z, xi, xm);
  BlastMeshZoneMap(s->mesh, s->zone_macro[z], xm, x);
}

enum { kMaxNd = (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1) };

// J = sum_a x_c(a) dphi_a/dxi_g at four quadrature points at once, one per lane of a
// BlastV4: J[c + dim g] lane l is the point 4 qb + l, summed over the nodes a in ascending
// order from 0.0 as the scalar loop of the method writes it (the same bits). Gt holds the
// gradients of that block of points, Gt[a dim + g] (lanes past nqp are zero). xz[c nd + a]
// are the zone's node positions.
__attribute__((always_inline)) static inline void ZoneJacobians4(const int dim, const int nd,
                                                                 const double *xz,
                                                                 const BlastV4 *Gt, BlastV4 *J) {
  const BlastV4 zero = {0.0, 0.0, 0.0, 0.0};
  for (int i = 0; i < dim * dim; i++) J[i] = zero;
  for (int a = 0; a < nd; a++)
    for (int c = 0; c < dim; c++) {
      const double xa = xz[c * nd + a];
      for (int g = 0; g < dim; g++) J[c + dim * g] += xa * Gt[a * dim + g];
    }
}

// What InitialGeometry found wrong in a zone: the first bad quadrature point (or -1 - a for
// a node a with a bad coordinate), its determinant (or coordinate), 1 not finite, 2 det <= 0.
typedef struct {
  int q, kind;
  double det;
} BadPoint;

// One zone of BlastSetupInitialGeometry (dim a constant after inlining): w |J0| at every
// point, J0^{-1} into Jinv when it is not NULL, and the zone's first defect (checked only
// for zones of this rank, `own`).
__attribute__((always_inline)) static inline void ZoneGeometry(
    const int dim, const int nd, const int nqp, const double *xz, const BlastV4 *Gt,
    const double *qp_w, int own, double *wdetJ0, double *Jinv, BadPoint *bad) {
  const int d2 = dim * dim;
  bad->kind = 0;
  for (int a = 0; a < nd && own && !bad->kind; a++)
    for (int c = 0; c < dim; c++)
      if (!(fabs(xz[c * nd + a]) <= BLAST_MAX_COORDINATE) && !bad->kind)
        bad->q = -1 - a, bad->det = xz[c * nd + a], bad->kind = 1;
  for (int qb = 0; qb < nqp; qb += 4) {
    BlastV4 Jv[9];
    ZoneJacobians4(dim, nd, xz, &Gt[(size_t)qb * nd * dim / 4], Jv);
    for (int l = 0; l < 4 && qb + l < nqp; l++) {
      const int q = qb + l;
      double J[9], adj[9], Jl[9];
      for (int i = 0; i < d2; i++) J[i] = Jv[i][l];
      const double det = BlastMatDet(dim, J);
      const double wdet = qp_w[q] * det;
      wdetJ0[q] = wdet;
      if (!own) continue;
      BlastMatAdjugate(dim, J, adj);
      double *Ji = Jinv ? &Jinv[(size_t)q * d2] : Jl;
      int finite = isfinite(det) && isfinite(wdet);
      for (int i = 0; i < d2; i++) {
        Ji[i] = adj[i] / det;
        finite = finite && isfinite(J[i]) && isfinite(adj[i]) && isfinite(Ji[i]);
      }
      // Non-finite first: an overflowing zone often has det = -inf or NaN too.
      const int kind = !finite ? 1 : !(det > 0.0) ? 2 : 0;
      if (kind && (!bad->kind || kind < bad->kind)) bad->q = q, bad->det = det, bad->kind = kind;
    }
  }
}

// Initial geometry at the quadrature points from the H1 positions x (ext numbering,
// component stride next): J0^{-1} for this rank's zones (when h->qp_J0inv is allocated:
// the full assembly path; the partial path recomputes it), w |J0| for all zones including
// halo zones. This rank's zones are checked: finite Jacobians, determinants and inverses
// (huge coordinates overflow here, NaN compares false), positive determinants. A bad zone
// is an input error naming it; *bad_gid is its global id (the key for BlastSetupAgree).
int BlastSetupInitialGeometry(BlastHydro h, const double *x, double *wdetJ0, int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, nd = s->h1_nd, nqp = h->tab->nqp, next = s->h1_next, d2 = dim * dim;
  const int nqb = (nqp + 3) / 4, nslot = h->zone_slot ? 2 : 1;
  const size_t gts = (size_t)nqb * nd * dim;  // one slot's table
  *bad_gid = kNoZone;
  // The gradient table by blocks of four points: Gt[(qb nd + a) dim + g], lane l = q - 4 qb
  // (mixed meshes: one per slot).
  double *Graw;  // 32-byte aligned for the vector loads
  BlastCall(BlastMalloc(gts * nslot * 4 + 4, &Graw));
  BlastV4 *Gt = (BlastV4 *)(void *)(Graw + (4 - ((uintptr_t)Graw / sizeof(double)) % 4) % 4);
  for (int sl = 0; sl < nslot; sl++) {
    const BlastTensorTables *t = h->zone_slot ? h->tabs[sl] : h->tab;
    for (int qb = 0; qb < nqb; qb++)
      for (int a = 0; a < nd; a++)
        for (int g = 0; g < dim; g++) {
          BlastV4 v = {0.0, 0.0, 0.0, 0.0};
          for (int l = 0; l < 4 && 4 * qb + l < nqp; l++)
            v[l] = t->h1_G[((size_t)(4 * qb + l) * nd + a) * dim + g];
          Gt[sl * gts + ((size_t)qb * nd + a) * dim + g] = v;
        }
  }
  // Zones are independent and write disjoint outputs; the lowest bad zone (a min over
  // zone indices, whatever the threads) is reported, as by a serial loop.
  int bad_zone = INT_MAX;
#pragma omp parallel for schedule(dynamic, 16) reduction(min : bad_zone) if (s->nz_ext > 64)
  for (int z = 0; z < s->nz_ext; z++) {
    double xz[3 * kMaxNd];
    const int *dof = &s->h1_edof[(size_t)z * nd];
    for (int c = 0; c < dim; c++)
      for (int a = 0; a < nd; a++) xz[c * nd + a] = x[(size_t)c * next + dof[a]];
    double *Jinv = z < s->nz && h->qp_J0inv ? &h->qp_J0inv[(size_t)z * nqp * d2] : NULL;
    double *wz = &wdetJ0[(size_t)z * nqp];
    const int sl = h->zone_slot ? h->zone_slot[z] : 0;
    const BlastV4 *Gz = Gt + sl * gts;
    const double *w = BlastHydroZoneTab(h, z)->qp_w;
    BadPoint bad;
    if (dim == 3)
      ZoneGeometry(3, nd, nqp, xz, Gz, w, z < s->nz, wz, Jinv, &bad);
    else if (dim == 2)
      ZoneGeometry(2, nd, nqp, xz, Gz, w, z < s->nz, wz, Jinv, &bad);
    else
      ZoneGeometry(1, nd, nqp, xz, Gz, w, z < s->nz, wz, Jinv, &bad);
    if (bad.kind && z < bad_zone) bad_zone = z;
  }
  if (bad_zone == INT_MAX) {
    BlastFree(&Graw);
    return 0;
  }
  // The lowest bad zone once more, alone, for its message.
  const int z = bad_zone;
  double xz[3 * kMaxNd], *wz = NULL;
  BadPoint bad = {0, 0, 0.0};
  int ierr = BlastMalloc((size_t)nqp, &wz);
  if (!ierr) {
    for (int c = 0; c < dim; c++)
      for (int a = 0; a < nd; a++)
        xz[c * nd + a] = x[(size_t)c * next + s->h1_edof[(size_t)z * nd + a]];
    ZoneGeometry(dim, nd, nqp, xz, Gt + (h->zone_slot ? h->zone_slot[z] : 0) * gts,
                 BlastHydroZoneTab(h, z)->qp_w, 1, wz, NULL, &bad);
  }
  BlastFree(&wz);
  BlastFree(&Graw);
  BlastCall(ierr);
  char where[BLAST_PATH_MAX + 64], zone[256];
  *bad_gid = s->zone_gid[z];
  BlastSetupMeshOrigin(h, where, sizeof where);
  BlastSetupZoneName(h, z, zone, sizeof zone);
  if (bad.q < 0)
    BlastError(BLAST_ERR_INPUT,
               "%s: %s: coordinates too large or not finite: its node %d has the coordinate "
               "%g, beyond the %g that blast_gpu accepts (the method squares lengths and "
               "Jacobian entries, which would overflow double precision); scale the mesh",
               where, zone, -1 - bad.q, bad.det, BLAST_MAX_COORDINATE);
  if (bad.kind == 1)
    BlastError(BLAST_ERR_INPUT,
               "%s: %s: coordinates too large or not finite: the Jacobian of the zone's "
               "initial map is not a finite number at quadrature point %d (det J = %g): the "
               "geometry overflows double precision; scale the mesh so that its coordinates "
               "and their products stay far below 1e308",
               where, zone, bad.q, bad.det);
  BlastError(BLAST_ERR_INPUT,
             "%s: %s has a non-positive Jacobian determinant %.3e at quadrature point %d of "
             "the initial mesh: the zone is inverted or degenerate",
             where, zone, bad.det, bad.q);
}

// Host-side forward halo (owners -> ghosts) during setup, before the backend exists.
static int HostHaloForward(BlastHydro h, int which, int ncomp, size_t stride, double *x) {
  const BlastHalo halo = h->halo[which];
  const int ns = BlastHaloSendCount(halo), nr = BlastHaloRecvCount(halo);
  const int *sidx = BlastHaloSendIdx(halo), *ridx = BlastHaloRecvIdx(halo);
  for (int c = 0; c < ncomp; c++)
    for (int i = 0; i < ns; i++) h->hbuf_send[(size_t)c * ns + i] = x[c * stride + sidx[i]];
  BlastCall(BlastHaloForwardBegin(halo, ncomp, h->hbuf_send, h->hbuf_recv));
  BlastCall(BlastHaloWait(halo));
  for (int c = 0; c < ncomp; c++)
    for (int i = 0; i < nr; i++) x[c * stride + ridx[i]] = h->hbuf_recv[(size_t)c * nr + i];
  return 0;
}

int BlastSetupHostHaloForward(BlastHydro h, int which, int ncomp, size_t stride, double *x) {
  return HostHaloForward(h, which, ncomp, stride, x);
}

// Initial positions of all ext dofs (method spec 3.3), the same bits on every rank: each
// owner evaluates its dofs through the lowest-numbered zone that contains them (the first
// of its mass-assembly list) and sends them to the ranks holding ghost copies.
int BlastSetupCanonicalPositions(BlastHydro h, double *x) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, nd = s->h1_nd, next = s->h1_next;
#pragma omp parallel for schedule(static)
  for (int l = 0; l < s->h1_nown; l++) {
    const int eidx = s->mass_tidx[s->mass_toff[l]], z = eidx / nd, a = eidx % nd;
    double xi[3], X[3];
    BlastSpaceNodeRef(s, z, a, xi);
    BlastMeshZoneMap(s->mesh, s->zone_macro[z], xi, X);
    for (int c = 0; c < dim; c++) x[(size_t)c * next + l] = X[c];
  }
  BlastCall(HostHaloForward(h, BLAST_HALO_L, dim, next, x));
  BlastCall(HostHaloForward(h, BLAST_HALO_COL, dim, next, x));
  return 0;
}

int BlastSetupL2PointsOf(const BlastTensorTables *t, int ne, double *xi) {
  const int dim = t->dim, m = t->m, nr = BlastGeomNumNodes(t->geom, m);
  for (int l = nr; l < ne; l++)
    for (int g = 0; g < dim; g++) xi[l * dim + g] = 0.0;
  if (BlastGeomIsSimplex(t->geom)) {
    // The interior points (i + 1)/(m + d + 1) of the lattice of order m + d + 1: an affine
    // image of the lattice of order m, unisolvent for P_m.
    for (int l = 0; l < nr; l++) {
      int i[3] = {0, 0, 0};
      BlastSimplexLatticePoint(dim, m, l, i);
      for (int g = 0; g < dim; g++) xi[l * dim + g] = (i[g] + 1.0) / (m + dim + 1);
    }
    return 0;
  }
  double gl[BLAST_MAX_Q1D], glw[BLAST_MAX_Q1D];
  BlastCall(BlastGaussLegendre(m + 1, gl, glw));
  for (int l = 0; l < nr; l++)
    for (int g = 0, r = l; g < dim; g++, r /= m + 1) xi[l * dim + g] = gl[r % (m + 1)];
  return 0;
}

int BlastSetupL2Points(BlastHydro h, double *xi) {
  return BlastSetupL2PointsOf(h->tab, h->space->l2_nd, xi);
}

// Bernstein coefficients of the interpolant of f at the interpolation points
// (BlastSetupL2Points; method spec 11.2) for every zone; coef[z*ne + j].
int BlastSetupInterpolateL2(BlastHydro h, const double *Vinv, BlastPointFunction f, double *coef) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, ne = s->l2_nd;
  enum { kPts = 3 * (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1) };
  double pts[2][kPts];  // per slot (mixed meshes: quadrilaterals, triangles)
  BlastCall(BlastSetupL2PointsOf(h->zone_slot ? h->tabs[0] : h->tab, ne, pts[0]));
  if (h->zone_slot) BlastCall(BlastSetupL2PointsOf(h->tabs[1], ne, pts[1]));
    // Zones are independent (per-zone outputs; f is a pure function of the point).
#pragma omp parallel for schedule(static)
  for (int z = 0; z < s->nz; z++) {
    double vals[BLAST_MAX_ORDER * BLAST_MAX_ORDER * BLAST_MAX_ORDER];  // ne <= this
    const int sl = h->zone_slot ? h->zone_slot[z] : 0;
    const double *Vz = Vinv + (size_t)sl * ne * ne;
    for (int l = 0; l < ne; l++) {
      double X[3];
      const double *xi = &pts[sl][l * dim];
      BlastSetupZonePoint(s, z, xi, X);
      vals[l] = f(&h->prob, X);
    }
    for (int i = 0; i < ne; i++) {
      double sum = 0.0;
      for (int l = 0; l < ne; l++) sum += Vz[i + ne * l] * vals[l];
      coef[(size_t)z * ne + i] = sum;
    }
  }
  return 0;
}

// Inverse of the Bernstein collocation matrix V_lj = psi_j(g_l) at the interpolation
// points of tables t (padded functions: zero rows of the inverse, so zero coefficients).
static int CollocationInverseOf(const BlastTensorTables *t, int dim, int ne, double *Vinv) {
  const int nr = BlastGeomNumNodes(t->geom, t->m);
  double pts[3 * (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1)], *V;
  BlastCall(BlastSetupL2PointsOf(t, ne, pts));
  BlastCall(BlastMalloc((size_t)ne * ne, &V));
  for (int l = 0; l < ne; l++) {
    double psi[(BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1)];
    const double *xi = &pts[l * dim];
    BlastL2BasisEval(t, xi, psi);
    for (int j = 0; j < ne; j++) V[l + ne * j] = fabs(psi[j]) < 1e-12 ? 0.0 : psi[j];
    if (l >= nr)
      for (int j = 0; j < ne; j++) V[l + ne * j] = j == l;
  }
  const int ierr = BlastDenseInverse(ne, V, Vinv);
  BlastFree(&V);
  BlastCall(ierr);
  for (int i = nr; i < ne; i++)
    for (int l = 0; l < ne; l++) Vinv[i + ne * l] = 0.0;
  return 0;
}

// Vinv: one matrix per slot (mixed meshes: two, BlastSetupInterpolateL2).
int BlastSetupBernsteinCollocationInverse(BlastHydro h, double *Vinv) {
  const int dim = h->space->dim, ne = h->space->l2_nd;
  if (!h->zone_slot) return CollocationInverseOf(h->tab, dim, ne, Vinv);
  for (int sl = 0; sl < 2; sl++)
    BlastCall(CollocationInverseOf(h->tabs[sl], dim, ne, Vinv + (size_t)sl * ne * ne));
  return 0;
}

// Sedov: the corner Bernstein function of the zones touching the mesh vertex closest to
// the origin, scaled to E0/2^d (method spec 11.4). Collective; errors are agreed.
int BlastSetupSedovDeposit(BlastHydro h, const double *wdetJ0, double *e) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, ne = s->l2_nd, nqp = h->tab->nqp, m = s->m;
  // Closest corner (ties: lowest global vertex id), then agree across ranks.
  // (distance, id) ordered lexicographically: the minimum does not depend on the order in
  // which threads visit the zones.
  double best = HUGE_VAL;
  int64_t best_gid = -1;
#pragma omp parallel
  {
    double my_best = HUGE_VAL;
    int64_t my_gid = -1;
#pragma omp for schedule(static)
    for (int z = 0; z < s->nz; z++)
      for (int corner = 0; corner < BlastGeomNumVertices(BlastSpaceZoneGeom(s, z)); corner++) {
        double X[3] = {0, 0, 0}, d2 = 0.0;
        BlastSpaceZoneCorner(s, z, corner, X);
        for (int c = 0; c < dim; c++) d2 += X[c] * X[c];
        const int64_t gid = BlastSpaceZoneCornerId(s, z, corner);
        if (d2 < my_best || (d2 == my_best && gid < my_gid)) my_best = d2, my_gid = gid;
      }
#pragma omp critical
    if (my_best < best || (my_best == best && my_gid < best_gid)) best = my_best, best_gid = my_gid;
  }
  // The globally closest vertex; among equally close ones the lowest global id, so the
  // choice does not depend on the partition.
  double dmin;
  BlastCallMPI(MPI_Allreduce(&best, &dmin, 1, MPI_DOUBLE, MPI_MIN, h->comm));
  int64_t mine = best == dmin ? best_gid : INT64_MAX;
  BlastCallMPI(MPI_Allreduce(&mine, &best_gid, 1, MPI_INT64_T, MPI_MIN, h->comm));
  const double dist = sqrt(dmin);
  int ierr = 0;
  if (!(dist < h->cfg.blast_tol))  // the same on every rank
    ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                           "Sedov: the blast point (origin) is %.3e from the nearest mesh vertex, "
                           "more than [problem] blast_tol = %.3e; the delta function could not be "
                           "initialized (put a mesh vertex at the origin)",
                           dist, h->cfg.blast_tol);
  double *zone_int = NULL;
  if (!ierr) ierr = BlastCalloc(s->nz + 1, &zone_int);
  ierr = BlastSetupAgree(h, ierr, kNoZone);
  if (ierr) {
    BlastFree(&zone_int);
    BlastCall(ierr);
  }
  int ncoef = 0;  // coefficients set to 1 on this rank (zones around the blast vertex)
#pragma omp parallel for schedule(static) reduction(+ : ncoef)
  for (int z = 0; z < s->nz; z++) {
    const BlastTensorTables *t = BlastHydroZoneTab(h, z);
    const int nv = BlastGeomNumVertices(t->geom);  // zone vertices (corners)
    for (int i = 0; i < ne; i++) e[(size_t)z * ne + i] = 0.0;
    for (int corner = 0; corner < nv; corner++) {
      if (BlastSpaceZoneCornerId(s, z, corner) != best_gid) continue;
      int j = 0;  // the Bernstein function that is 1 at the corner
      if (BlastGeomIsSimplex(t->geom)) {
        int i[3] = {0, 0, 0};  // vertex 0: the origin (index 0); vertex g+1: m e_g
        if (corner) i[corner - 1] = m;
        j = BlastSimplexLatticeIndex(dim, m, i);
      } else {
        for (int g = dim - 1; g >= 0; g--) j = j * (m + 1) + (((corner >> g) & 1) ? m : 0);
      }
      e[(size_t)z * ne + j] = 1.0;
      ncoef++;
      for (int q = 0; q < nqp; q++)
        zone_int[z] += wdetJ0[(size_t)z * nqp + q] * t->l2_B[(size_t)q * ne + j];
    }
  }
  double total;
  ierr = BlastSetupOrderedZoneSum(h, zone_int, &total);
  BlastFree(&zone_int);
  BlastCall(ierr);
  int nall = 0;
  BlastCallMPI(MPI_Allreduce(&ncoef, &nall, 1, MPI_INT, MPI_SUM, h->comm));
  const double E0 = h->cfg.blast_energy;
  const double scale = (E0 / (double)(1 << dim)) / total;
  // The deposited specific internal energy: its square (the energy norm |e|, the dot
  // products of the velocity solve) must not overflow. The same on every rank.
  const double limit = sqrt(DBL_MAX / (nall > 0 ? nall : 1)) / 16.0;
  if (!(total > 0.0 && isfinite(total) && isfinite(scale) && scale <= limit)) {
    BlastErrorRaise(
        __FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
        "[problem] blast_energy = %g is too large for this mesh: it deposits a specific "
        "internal energy of %g (E0/2^%d over a corner function whose integral is %g) "
        "at the blast vertex, and the energies and pressures that follow overflow "
        "double precision (|e|^2 must stay below 1e308); use blast_energy <= %.3g on "
        "this mesh",
        E0, scale, dim, total,
        isfinite(total) && total > 0.0 ? limit * (double)(1 << dim) * total : 0.0);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_INPUT;
  }
#pragma omp parallel for schedule(static)
  for (int z = 0; z < s->nz; z++)
    for (int i = 0; i < ne; i++) e[(size_t)z * ne + i] *= scale;
  return 0;
}

// The first defect of zone z's initial data (see BlastSetupCheckInitialData): NULL if none,
// else what is wrong, its value and the point.
static const char *ZoneInitialDataDefect(BlastHydro h, int z, const double *xext,
                                         const double *rho0h, const double *e0, double *value,
                                         double *X) {
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = BlastHydroZoneTab(h, z);
  const int dim = s->dim, nqp = t->nqp, ne = s->l2_nd, nd = s->h1_nd, next = s->h1_next;
  const int sedov = h->prob.id == BLAST_PROBLEM_SEDOV;
  const char *what = NULL;
  *value = 0.0, X[0] = X[1] = X[2] = 0.0;
  // Custom problems: their data are checked where they are evaluated (hydro_custom.c).
  const int custom = h->prob.custom != NULL;
  for (int q = 0; q < nqp && !what && !custom; q++) {
    BlastSetupZonePoint(s, z, &t->qp_x[(size_t)q * dim], X);
    const double rho = BlastProblemRho0(&h->prob, X);
    const BlastMaterial *mat = &h->mats[h->zone_mat[z]];
    const double e = sedov ? 0.0 : BlastProblemE0(&h->prob, X);
    double p, cs;
    BlastEos(mat, rho, e, &p, &cs);
    // c^2 = gamma (p + p_inf) / rho (both kinds): negative where a stiffened gas has
    // e < p_inf / rho, which the equation of state does not describe.
    const double c2 = mat->gamma * (p + mat->p_inf) / rho;
    if (!(rho > 0.0 && isfinite(rho)))
      what = "density", *value = rho;
    else if (!(mat->gamma > 1.0 && isfinite(mat->gamma)))
      what = "gamma", *value = mat->gamma;
    else if (!(mat->p_inf >= 0.0 && isfinite(mat->p_inf)))
      what = "p_inf", *value = mat->p_inf;
    else if (!(e >= 0.0 && isfinite(e)))
      what = "specific internal energy", *value = e;
    else if (!isfinite(p))
      what = "pressure", *value = p;
    else if (!(c2 >= 0.0))
      what = "squared sound speed (e below p_inf / rho for a stiffened gas)", *value = c2;
    else if (!isfinite(cs))
      what = "sound speed", *value = cs;
  }
  for (int a = 0; a < nd && !what && !custom; a++) {
    const int l = s->h1_edof[(size_t)z * nd + a];
    for (int c = 0; c < dim; c++) X[c] = xext[(size_t)c * next + l];
    double vv[3] = {0, 0, 0};
    BlastProblemV0(&h->prob, X, vv);
    for (int c = 0; c < dim; c++)
      if (!isfinite(vv[c]) && !what) what = "velocity", *value = vv[c];
  }
  for (int i = 0; i < ne && !what; i++) {
    if (!isfinite(rho0h[(size_t)z * ne + i]))
      what = "density (Bernstein coefficient)", *value = rho0h[(size_t)z * ne + i];
    else if (!isfinite(e0[(size_t)z * ne + i]))
      what = "specific internal energy (Bernstein coefficient)", *value = e0[(size_t)z * ne + i];
  }
  return what;
}

// The initial data of the problem at this rank's zones (method spec 11.1): density,
// gamma, p_inf, specific internal energy (not for Sedov: deposited separately), pressure,
// sound speed and velocity must be finite numbers, with rho > 0, gamma > 1, p_inf >= 0,
// e >= 0 and c^2 >= 0 (zone z's material, the solver's), at the
// quadrature points and the kinematic nodes; the interpolated coefficients must be finite.
// Huge coordinates make them overflow, or leave the domain where a problem is defined.
// The lowest bad zone is reported, whatever the threads.
int BlastSetupCheckInitialData(BlastHydro h, const double *xext, const double *rho0h,
                               const double *e0, int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  *bad_gid = kNoZone;
  int bad = INT_MAX;
#pragma omp parallel for schedule(dynamic, 64) reduction(min : bad)
  for (int z = 0; z < s->nz; z++) {
    double value, X[3];
    if (z < bad && ZoneInitialDataDefect(h, z, xext, rho0h, e0, &value, X)) bad = z;
  }
  if (bad == INT_MAX) return 0;
  double value, X[3];
  const char *what = ZoneInitialDataDefect(h, bad, xext, rho0h, e0, &value, X);
  char where[BLAST_PATH_MAX + 64], zone[256];
  *bad_gid = s->zone_gid[bad];
  BlastError(BLAST_ERR_INPUT,
             "[problem] name = %s: the initial %s is %g at (%g, %g, %g) in %s (material "
             "'%s', %s) of %s: the problem's initial data are not defined or overflow there "
             "(coordinates too large or outside the problem's domain?)",
             BlastProblemName(h->prob.id), what, value, X[0], X[1], X[2],
             BlastSetupZoneName(h, bad, zone, sizeof zone),
             BlastProblemMaterialName(&h->prob, h->zone_mat[bad]),
             BlastEosKindName(h->mats[h->zone_mat[bad]].kind),
             BlastSetupMeshOrigin(h, where, sizeof where));
}
