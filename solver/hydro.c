// The Lagrangian operator: setup of the constant data (method spec 3.3, 3.4, 5.1, 5.5, 6,
// 11) and the rate function with its momentum PCG (7.1, 7.3) and energy update (7.2).
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "hydro-impl.h"
#include "ddsum.h"
#include "linalg.h"
#include "memory_cpu.h"

double BlastWtime(void) { return MPI_Wtime(); }

// ---------------------------------------------------------------------------------------
// Setup helpers

// Sum of double-double pairs across ranks (an MPI reduction operator).
static void DDSumOp(void *in, void *inout, int *len, MPI_Datatype *type) {
  const double *a = in;
  double *b = inout;
  for (int i = 0; i < *len; i++) {
    BlastDD acc = {b[2 * i], b[2 * i + 1]};
    BlastDDAddDD(&acc, a[2 * i], a[2 * i + 1]);
    BlastDDNormalize(&acc);
    b[2 * i] = acc.hi, b[2 * i + 1] = acc.lo;
  }
  (void)type;
}

// ---------------------------------------------------------------------------------------
// Errors during the setup. The setup alternates local work with collective calls; an
// error that one rank meets alone must not let it leave while the others enter the next
// collective (they would pair its agreement with their own call: MPI_ERR_TRUNCATE or a
// hang). So every local phase ends in SetupAgree, and every rank then returns the same
// error with the same message, which main prints once.

#define kNoZone INT64_MAX  // the key of an error that names no zone

// Agree on the outcome of a local phase: if any rank failed, the error of the rank with
// the lowest key (the global id of the zone it names, kNoZone for other errors; among
// equal keys the lowest rank) becomes every rank's error, with the same message, marked
// BLAST_COLLECTIVE_SAME. A zone error thus names the lowest bad zone on any rank count.
// Collective over h->comm; ranks that did not fail pass ierr = 0.
static int SetupAgree(BlastHydro h, int ierr, int64_t key) {
  if (h->nranks <= 1) {
    if (ierr) BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return ierr;
  }
  int fail = ierr != 0, nfail = 0;
  BlastCallMPI(MPI_Allreduce(&fail, &nfail, 1, MPI_INT, MPI_SUM, h->comm));
  if (!nfail) return 0;
  long long mine = ierr ? (long long)key : LLONG_MAX, low = LLONG_MAX;
  BlastCallMPI(MPI_Allreduce(&mine, &low, 1, MPI_LONG_LONG, MPI_MIN, h->comm));
  int cand = ierr && mine == low ? h->rank : h->nranks, root = 0;
  BlastCallMPI(MPI_Allreduce(&cand, &root, 1, MPI_INT, MPI_MIN, h->comm));
  char msg[2048] = "";
  int code = ierr;
  if (h->rank == root) snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
  BlastCallMPI(MPI_Bcast(&code, 1, MPI_INT, root, h->comm));
  BlastCallMPI(MPI_Bcast(msg, sizeof msg, MPI_CHAR, root, h->comm));
  if (h->rank != root || (low == LLONG_MAX && nfail < h->nranks)) {
    // Errors that name no zone (resources, backend) say where they happened.
    if (low == LLONG_MAX && nfail < h->nranks)
      BlastErrorRaise(__FILE__, __LINE__, __func__, code, "%s (on rank %d; %d of %d ranks failed)",
                      msg, root, nfail, h->nranks);
    else
      BlastErrorRaise(__FILE__, __LINE__, __func__, code, "%s", msg);
  }
  BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
  return code;
}

// Global sum of per-zone values that does not depend on the partition: children are
// summed per mesh zone (all children of a mesh zone live on one rank), the mesh-zone
// sums are combined by an all-reduce in which every entry has one contributor (exact),
// and the result is summed in mesh-zone order on every rank.
static int OrderedZoneSum(BlastHydro h, const double *zone_value, double *sum) {
  const BlastSpace *s = h->space;
  const int nmesh = BlastMeshNumZones(s->mesh);
  double *macro = NULL, *all = NULL;
  int ierr = BlastCalloc(nmesh, &macro);
  if (!ierr) ierr = BlastMalloc(nmesh, &all);
  ierr = SetupAgree(h, ierr, kNoZone);
  if (ierr) {
    BlastFree(&macro);
    BlastFree(&all);
    BlastCall(ierr);
  }
  for (int z = 0; z < s->nz; z++) macro[s->zone_macro[z]] += zone_value[z];
  BlastCallMPI(MPI_Allreduce(macro, all, nmesh, MPI_DOUBLE, MPI_SUM, h->comm));
  double total = 0.0;
  for (int Z = 0; Z < nmesh; Z++) total += all[Z];
  *sum = total;
  BlastFree(&macro);
  BlastFree(&all);
  return 0;
}

// Where the mesh came from, for messages: "mesh file 'path'" or "the generated box mesh".
static const char *MeshOrigin(BlastHydro h, char *buf, size_t n) {
  if (h->cfg.mesh_file[0])
    snprintf(buf, n, "mesh file '%s'", h->cfg.mesh_file);
  else
    snprintf(buf, n, "the generated box mesh ([mesh] size, elements)");
  return buf;
}

// "zone 37 (global id; element 2 of the mesh file, first corner at (0, 0.5, 0))".
static const char *ZoneName(BlastHydro h, int z, char *buf, size_t n) {
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

// Physical point of reference point xi (fine-zone coordinates) of zone z, initial mesh.
static void ZonePoint(const BlastSpace *s, int z, const double *xi, double *x) {
  double xm[3];
  BlastSpaceZoneRefToMacro(s, z, xi, xm);
  BlastMeshZoneMap(s->mesh, s->zone_macro[z], xm, x);
}

// Initial geometry at the quadrature points from the H1 positions x (ext numbering,
// component stride next): J0^{-1} for this rank's zones, w |J0| for all zones including
// halo zones. This rank's zones are checked: finite Jacobians, determinants and inverses
// (huge coordinates overflow here, NaN compares false), positive determinants. A bad zone
// is an input error naming it; *bad_gid is its global id (the key for SetupAgree).
static int InitialGeometry(BlastHydro h, const double *x, double *wdetJ0, int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab;
  const int dim = s->dim, nd = s->h1_nd, nqp = t->nqp, next = s->h1_next, d2 = dim * dim;
  int bad_zone = -1, bad_q = 0, bad_kind = 0;  // 1: not finite, 2: det <= 0
  double bad_det = 0.0;
  *bad_gid = kNoZone;
  for (int z = 0; z < s->nz_ext; z++) {
    const int *dof = &s->h1_edof[(size_t)z * nd];
    for (int a = 0; a < nd && z < s->nz && bad_zone < 0; a++)
      for (int c = 0; c < dim; c++)
        if (!(fabs(x[(size_t)c * next + dof[a]]) <= BLAST_MAX_COORDINATE) && bad_zone < 0)
          bad_zone = z, bad_q = -1 - a, bad_det = x[(size_t)c * next + dof[a]], bad_kind = 1;
    for (int q = 0; q < nqp; q++) {
      double J[9] = {0}, adj[9];
      for (int c = 0; c < dim; c++)
        for (int a = 0; a < nd; a++)
          for (int g = 0; g < dim; g++)
            J[c + dim * g] += x[(size_t)c * next + dof[a]] * t->h1_G[((size_t)q * nd + a) * dim + g];
      const double det = BlastMatDet(dim, J);
      const double wdet = t->qp_w[q] * det;
      wdetJ0[(size_t)z * nqp + q] = wdet;
      if (z >= s->nz) continue;
      BlastMatAdjugate(dim, J, adj);
      double *Ji = &h->qp_J0inv[((size_t)z * nqp + q) * d2];
      int finite = isfinite(det) && isfinite(wdet);
      for (int i = 0; i < d2; i++) {
        Ji[i] = adj[i] / det;
        finite = finite && isfinite(J[i]) && isfinite(adj[i]) && isfinite(Ji[i]);
      }
      // Non-finite first: an overflowing zone often has det = -inf or NaN too.
      const int kind = !finite ? 1 : !(det > 0.0) ? 2 : 0;
      if (kind && (bad_zone < 0 || (bad_zone == z && kind < bad_kind)))
        bad_zone = z, bad_q = q, bad_det = det, bad_kind = kind;
    }
  }
  if (bad_zone >= 0) {
    char where[BLAST_PATH_MAX + 64], zone[256];
    *bad_gid = s->zone_gid[bad_zone];
    MeshOrigin(h, where, sizeof where);
    ZoneName(h, bad_zone, zone, sizeof zone);
    if (bad_q < 0)
      BlastError(BLAST_ERR_INPUT,
                 "%s: %s: coordinates too large or not finite: its node %d has the coordinate "
                 "%g, beyond the %g that blast_gpu accepts (the method squares lengths and "
                 "Jacobian entries, which would overflow double precision); scale the mesh",
                 where, zone, -1 - bad_q, bad_det, BLAST_MAX_COORDINATE);
    if (bad_kind == 1)
      BlastError(BLAST_ERR_INPUT,
                 "%s: %s: coordinates too large or not finite: the Jacobian of the zone's "
                 "initial map is not a finite number at quadrature point %d (det J = %g): the "
                 "geometry overflows double precision; scale the mesh so that its coordinates "
                 "and their products stay far below 1e308",
                 where, zone, bad_q, bad_det);
    BlastError(BLAST_ERR_INPUT,
               "%s: %s has a non-positive Jacobian determinant %.3e at quadrature point %d of "
               "the initial mesh: the zone is inverted or degenerate",
               where, zone, bad_det, bad_q);
  }
  return 0;
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

// Initial positions of all ext dofs (method spec 3.3), the same bits on every rank: each
// owner evaluates its dofs through the lowest-numbered zone that contains them (the first
// of its mass-assembly list) and sends them to the ranks holding ghost copies.
static int CanonicalPositions(BlastHydro h, double *x) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, nd = s->h1_nd, next = s->h1_next;
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

// Bernstein coefficients of the Q_m interpolant of f at the tensor Gauss-Legendre points
// (method spec 11.2) for every zone; coef[z*ne + j].
typedef double (*PointFunction)(const BlastProblem *p, const double *x);
static int InterpolateL2(BlastHydro h, const double *Vinv, PointFunction f, double *coef) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, m = s->m, ne = s->l2_nd;
  double gl[BLAST_MAX_Q1D], glw[BLAST_MAX_Q1D], *vals;
  BlastCall(BlastGaussLegendre(m + 1, gl, glw));
  BlastCall(BlastMalloc(ne, &vals));
  for (int z = 0; z < s->nz; z++) {
    for (int l = 0; l < ne; l++) {
      double xi[3], X[3];
      for (int g = 0, r = l; g < dim; g++, r /= m + 1) xi[g] = gl[r % (m + 1)];
      ZonePoint(s, z, xi, X);
      vals[l] = f(&h->prob, X);
    }
    for (int i = 0; i < ne; i++) {
      double sum = 0.0;
      for (int l = 0; l < ne; l++) sum += Vinv[i + ne * l] * vals[l];
      coef[(size_t)z * ne + i] = sum;
    }
  }
  BlastFree(&vals);
  return 0;
}

// Inverse of the Bernstein collocation matrix V_lj = psi_j(g_l) at the GL points.
static int BernsteinCollocationInverse(BlastHydro h, double *Vinv) {
  const int dim = h->space->dim, m = h->space->m, ne = h->space->l2_nd;
  double gl[BLAST_MAX_Q1D], glw[BLAST_MAX_Q1D], *V;
  BlastCall(BlastGaussLegendre(m + 1, gl, glw));
  BlastCall(BlastMalloc((size_t)ne * ne, &V));
  for (int l = 0; l < ne; l++) {
    double xi[3], psi[BLAST_MAX_ORDER * BLAST_MAX_ORDER * BLAST_MAX_ORDER];
    for (int g = 0, r = l; g < dim; g++, r /= m + 1) xi[g] = gl[r % (m + 1)];
    BlastL2BasisEval(h->tab, xi, psi);
    for (int j = 0; j < ne; j++) V[l + ne * j] = fabs(psi[j]) < 1e-12 ? 0.0 : psi[j];
  }
  BlastCall(BlastDenseInverse(ne, V, Vinv));
  BlastFree(&V);
  return 0;
}

static double Rho0Fn(const BlastProblem *p, const double *x) { return BlastProblemRho0(p, x); }
static double E0Fn(const BlastProblem *p, const double *x) { return BlastProblemE0(p, x); }

// Sedov: the corner Bernstein function of the zones touching the mesh vertex closest to
// the origin, scaled to E0/2^d (method spec 11.4). Collective; errors are agreed.
static int SedovDeposit(BlastHydro h, const double *wdetJ0, double *e) {
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab;
  const int dim = s->dim, ne = s->l2_nd, nqp = t->nqp, m = s->m;
  // Closest corner (ties: lowest global vertex id), then agree across ranks.
  double best = HUGE_VAL;
  int64_t best_gid = -1;
  for (int z = 0; z < s->nz; z++)
    for (int corner = 0; corner < (1 << dim); corner++) {
      double X[3] = {0, 0, 0}, d2 = 0.0;
      BlastSpaceZoneCorner(s, z, corner, X);
      for (int c = 0; c < dim; c++) d2 += X[c] * X[c];
      const int64_t gid = BlastSpaceZoneCornerId(s, z, corner);
      if (d2 < best || (d2 == best && gid < best_gid)) best = d2, best_gid = gid;
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
  ierr = SetupAgree(h, ierr, kNoZone);
  if (ierr) {
    BlastFree(&zone_int);
    BlastCall(ierr);
  }
  int ncoef = 0;  // coefficients set to 1 on this rank (zones around the blast vertex)
  for (int z = 0; z < s->nz; z++) {
    for (int i = 0; i < ne; i++) e[(size_t)z * ne + i] = 0.0;
    for (int corner = 0; corner < (1 << dim); corner++) {
      if (BlastSpaceZoneCornerId(s, z, corner) != best_gid) continue;
      int j = 0;
      for (int g = dim - 1; g >= 0; g--) j = j * (m + 1) + (((corner >> g) & 1) ? m : 0);
      e[(size_t)z * ne + j] = 1.0;
      ncoef++;
      for (int q = 0; q < nqp; q++)
        zone_int[z] += wdetJ0[(size_t)z * nqp + q] * t->l2_B[(size_t)q * ne + j];
    }
  }
  double total;
  ierr = OrderedZoneSum(h, zone_int, &total);
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
  for (size_t i = 0; i < (size_t)s->nz * ne; i++) e[i] *= scale;
  return 0;
}

// The initial data of the problem at this rank's zones (method spec 11.1): density,
// gamma, specific internal energy (not for Sedov: deposited separately), pressure, sound
// speed and velocity must be finite numbers, with rho > 0, gamma > 1, e >= 0, at the
// quadrature points and the kinematic nodes; the interpolated coefficients must be finite.
// Huge coordinates make them overflow, or leave the domain where a problem is defined.
static int CheckInitialData(BlastHydro h, const double *xext, const double *rho0h, const double *e0,
                            int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab;
  const int dim = s->dim, nqp = t->nqp, ne = s->l2_nd, nd = s->h1_nd, next = s->h1_next;
  const int sedov = h->prob.id == BLAST_PROBLEM_SEDOV;
  *bad_gid = kNoZone;
  for (int z = 0; z < s->nz; z++) {
    const char *what = NULL;
    double value = 0.0, X[3] = {0, 0, 0};
    for (int q = 0; q < nqp && !what; q++) {
      ZonePoint(s, z, &t->qp_x[(size_t)q * dim], X);
      const double rho = BlastProblemRho0(&h->prob, X), gamma = BlastProblemGamma(&h->prob, X);
      const double e = sedov ? 0.0 : BlastProblemE0(&h->prob, X);
      const double p = (gamma - 1.0) * rho * e, cs = sqrt(gamma * (gamma - 1.0) * e);
      if (!(rho > 0.0 && isfinite(rho)))
        what = "density", value = rho;
      else if (!(gamma > 1.0 && isfinite(gamma)))
        what = "gamma", value = gamma;
      else if (!(e >= 0.0 && isfinite(e)))
        what = "specific internal energy", value = e;
      else if (!isfinite(p))
        what = "pressure", value = p;
      else if (!isfinite(cs))
        what = "sound speed", value = cs;
    }
    for (int a = 0; a < nd && !what; a++) {
      const int l = s->h1_edof[(size_t)z * nd + a];
      for (int c = 0; c < dim; c++) X[c] = xext[(size_t)c * next + l];
      double vv[3] = {0, 0, 0};
      BlastProblemV0(&h->prob, X, vv);
      for (int c = 0; c < dim; c++)
        if (!isfinite(vv[c]) && !what) what = "velocity", value = vv[c];
    }
    for (int i = 0; i < ne && !what; i++) {
      if (!isfinite(rho0h[(size_t)z * ne + i]))
        what = "density (Bernstein coefficient)", value = rho0h[(size_t)z * ne + i];
      else if (!isfinite(e0[(size_t)z * ne + i]))
        what = "specific internal energy (Bernstein coefficient)", value = e0[(size_t)z * ne + i];
    }
    if (!what) continue;
    char where[BLAST_PATH_MAX + 64], zone[256];
    *bad_gid = s->zone_gid[z];
    BlastError(BLAST_ERR_INPUT,
               "[problem] name = %s: the initial %s is %g at (%g, %g, %g) in %s of %s: the "
               "problem's initial data are not defined or overflow there (coordinates too large "
               "or outside the problem's domain?)",
               BlastProblemName(h->prob.id), what, value, X[0], X[1], X[2],
               ZoneName(h, z, zone, sizeof zone), MeshOrigin(h, where, sizeof where));
  }
  return 0;
}

typedef struct {
  int64_t gid;
  int col;
} GidCol;

static int CompareGidCol(const void *pa, const void *pb) {
  const GidCol *a = pa, *b = pb;
  return (a->gid > b->gid) - (a->gid < b->gid);
}

// Sparsity of the scalar H1 mass matrix (method spec 6.2): rows of the owned dofs
// complete (every zone containing the row, halo zones included), ext columns stored in
// ascending global dof id so that rows and their products do not depend on the partition.
// Interior rows (owned columns only) are listed first: they can be multiplied before
// ghost values arrive.
static int MassVPattern(BlastHydro h) {
  const BlastSpace *s = h->space;
  const int nd = s->h1_nd, nown = s->h1_nown, next = s->h1_next;
  BlastCall(BlastMalloc(nown + 1, &h->mv_rowptr));
  int *mark;
  BlastCall(BlastMalloc(next, &mark));
  for (int i = 0; i < next; i++) mark[i] = -1;
  h->mv_rowptr[0] = 0;
  int maxlen = 0;
  for (int l = 0; l < nown; l++) {
    int cnt = 0;
    for (int tt = s->mass_toff[l]; tt < s->mass_toff[l + 1]; tt++) {
      const int z = s->mass_tidx[tt] / nd;
      for (int b = 0; b < nd; b++) {
        const int col = s->h1_edof[(size_t)z * nd + b];
        if (mark[col] != l) mark[col] = l, cnt++;
      }
    }
    if ((long long)h->mv_rowptr[l] + cnt > INT_MAX) {  // 32-bit row offsets
      BlastFree(&mark);
      BlastCheck(0, BLAST_ERR_UNSUPPORTED,
                 "the H1 mass matrix of this rank has more than %d entries (%d zones, %d owned "
                 "dofs): run with more MPI ranks so that each holds fewer zones",
                 INT_MAX, s->nz, nown);
    }
    h->mv_rowptr[l + 1] = h->mv_rowptr[l] + cnt;
    if (cnt > maxlen) maxlen = cnt;
  }
  BlastCall(BlastMalloc((size_t)h->mv_rowptr[nown] + 1, &h->mv_col));
  GidCol *gc;
  BlastCall(BlastMalloc(maxlen + 1, &gc));
  for (int i = 0; i < next; i++) mark[i] = -1;
  for (int l = 0; l < nown; l++) {
    int n = 0;
    for (int tt = s->mass_toff[l]; tt < s->mass_toff[l + 1]; tt++) {
      const int z = s->mass_tidx[tt] / nd;
      for (int b = 0; b < nd; b++) {
        const int col = s->h1_edof[(size_t)z * nd + b];
        if (mark[col] != l) mark[col] = l, gc[n].gid = s->h1_gid[col], gc[n++].col = col;
      }
    }
    qsort(gc, n, sizeof *gc, CompareGidCol);
    for (int i = 0; i < n; i++) h->mv_col[h->mv_rowptr[l] + i] = gc[i].col;
  }
  BlastFree(&gc);
  BlastFree(&mark);
  BlastCall(BlastMalloc(nown + 1, &h->mv_rows));
  int ninterior = 0;
  for (int l = 0; l < nown; l++) {
    int interior = 1;
    for (int k = h->mv_rowptr[l]; k < h->mv_rowptr[l + 1] && interior; k++) interior = h->mv_col[k] < nown;
    h->mv_rows[l] = interior;  // flag for now
    ninterior += interior;
  }
  int *order;
  BlastCall(BlastMalloc(nown + 1, &order));
  for (int l = 0, i0 = 0, i1 = ninterior; l < nown; l++) order[h->mv_rows[l] ? i0++ : i1++] = l;
  memcpy(h->mv_rows, order, sizeof(int) * nown);
  BlastFree(&order);
  h->hd.mv_ninterior = ninterior;
  return 0;
}

// Values of the mass matrix rows: zones summed in ascending global zone id.
// qp_c[z*nqp+q] = w |J0| rho0(x_q) for all nz_ext zones.
static int MassVValues(BlastHydro h, const double *qp_c, int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab;
  const int nd = s->h1_nd, nqp = t->nqp, nown = s->h1_nown, next = s->h1_next;
  BlastCall(BlastCalloc((size_t)h->mv_rowptr[nown] + 1, &h->mv_val));
  BlastCall(BlastMalloc(nown + 1, &h->mv_dinv));
  int ierr = 0;
#pragma omp parallel
  {
    int *pos = NULL;  // column -> slot within the current row
    double *row = NULL;
    int my_err = BlastMalloc(next, &pos) || BlastMalloc(nd, &row);
    if (my_err) {
#pragma omp atomic write
      ierr = 1;
    }
    if (!my_err) {
#pragma omp for schedule(dynamic, 64)
      for (int l = 0; l < nown; l++) {
        for (int k = h->mv_rowptr[l]; k < h->mv_rowptr[l + 1]; k++) pos[h->mv_col[k]] = k;
        for (int tt = s->mass_toff[l]; tt < s->mass_toff[l + 1]; tt++) {
          const int z = s->mass_tidx[tt] / nd, a = s->mass_tidx[tt] % nd;
          for (int b = 0; b < nd; b++) row[b] = 0.0;
          for (int q = 0; q < nqp; q++) {
            const double ca = qp_c[(size_t)z * nqp + q] * t->h1_B[(size_t)q * nd + a];
            for (int b = 0; b < nd; b++) row[b] += ca * t->h1_B[(size_t)q * nd + b];
          }
          for (int b = 0; b < nd; b++) h->mv_val[pos[s->h1_edof[(size_t)z * nd + b]]] += row[b];
        }
        h->mv_dinv[l] = 1.0 / h->mv_val[pos[l]];
      }
    }
    BlastFree(&pos);
    BlastFree(&row);
  }
  BlastCheck(!ierr, BLAST_ERR_MEM, "could not allocate mass-matrix assembly workspace");
  // Finite weights can still sum to an overflow: name a zone of the first bad row.
  for (int l = 0; l < nown; l++) {
    if (isfinite(h->mv_dinv[l]) && h->mv_dinv[l] > 0.0) continue;
    const int z = s->mass_tidx[s->mass_toff[l]] / nd;
    char where[BLAST_PATH_MAX + 64], zone[256];
    *bad_gid = s->zone_gid[z];
    BlastError(BLAST_ERR_INPUT,
               "%s: %s: the kinematic mass matrix has the diagonal entry %g at H1 dof %lld "
               "(global id) of this zone, not a finite positive number: coordinates or densities "
               "too large, or too few quadrature points ([fem] order_quadrature)",
               MeshOrigin(h, where, sizeof where), ZoneName(h, z, zone, sizeof zone),
               1.0 / h->mv_dinv[l], (long long)s->h1_gid[l]);
  }
  return 0;
}

// Zone blocks of M_E (method spec 6.1) and their inverses (E1).
static int AssembleMassEInverse(BlastHydro h, const double *qp_c, int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab;
  const int ne = s->l2_nd, nqp = t->nqp;
  BlastCall(BlastMalloc((size_t)s->nz * ne * ne, &h->me_inv));
  double *M;
  BlastCall(BlastMalloc((size_t)ne * ne, &M));
  for (int z = 0; z < s->nz; z++) {
    for (int i = 0; i < ne * ne; i++) M[i] = 0.0;
    for (int q = 0; q < nqp; q++) {
      const double *psi = &t->l2_B[(size_t)q * ne], c = qp_c[(size_t)z * nqp + q];
      for (int j = 0; j < ne; j++)
        for (int i = 0; i < ne; i++) M[i + ne * j] += c * psi[i] * psi[j];
    }
    double *inv = &h->me_inv[(size_t)z * ne * ne];
    int ierr = BlastDenseInverse(ne, M, inv);
    for (int i = 0; i < ne * ne && !ierr; i++) ierr = !isfinite(inv[i]);
    if (ierr) {
      BlastFree(&M);
      *bad_gid = s->zone_gid[z];
      BlastError(BLAST_ERR_NUMERIC, "zone %lld: the thermodynamic mass matrix is singular",
                 (long long)s->zone_gid[z]);
    }
  }
  BlastFree(&M);
  return 0;
}

// The two communication patterns: L-vector ghosts (force assembly, velocity ghost fill)
// and the ghost columns of the owned mass-matrix rows (SpMV), plus host buffers.
static int GhostLists(BlastHydro h, int nghost[2], int *idx[2], int *owner[2], int64_t *gid[2]) {
  const BlastSpace *s = h->space;
  const int nown = s->h1_nown;
  nghost[0] = s->h1_nl - nown, nghost[1] = 0;
  // Column ghosts: ext columns referenced by owned rows, ascending.
  char *used;
  BlastCall(BlastCalloc(s->h1_next + 1, &used));
  for (int k = 0; k < h->mv_rowptr[nown]; k++) used[h->mv_col[k]] = 1;
  for (int l = nown; l < s->h1_next; l++) nghost[1] += used[l];
  int ierr = 0;
  for (int w = 0; w < 2 && !ierr; w++) {
    ierr = BlastMalloc(nghost[w] + 1, &idx[w]);
    if (!ierr) ierr = BlastMalloc(nghost[w] + 1, &owner[w]);
    if (!ierr) ierr = BlastMalloc(nghost[w] + 1, &gid[w]);
  }
  if (!ierr)
    for (int l = nown, n0 = 0, n1 = 0; l < s->h1_next; l++) {
      if (l < s->h1_nl) idx[0][n0] = l, owner[0][n0] = s->h1_owner[l], gid[0][n0++] = s->h1_gid[l];
      if (used[l]) idx[1][n1] = l, owner[1][n1] = s->h1_owner[l], gid[1][n1++] = s->h1_gid[l];
    }
  BlastFree(&used);
  BlastCall(ierr);
  return 0;
}

static int BuildHalos(BlastHydro h) {
  const BlastSpace *s = h->space;
  int nghost[2] = {0, 0}, *idx[2] = {NULL, NULL}, *owner[2] = {NULL, NULL};
  int64_t *gid[2] = {NULL, NULL};
  // The lists are local work: agree on them before the collective halo creation.
  int ierr = SetupAgree(h, GhostLists(h, nghost, idx, owner, gid), kNoZone);
  size_t nbuf = 1;
  for (int w = 0; w < 2 && !ierr; w++) {
    ierr = BlastHaloCreate(h->comm, nghost[w], gid[w], owner[w], idx[w], s->h1_nown, s->h1_gid,
                           &h->halo[w]);
    if (ierr) break;
    const size_t n = 2 * (size_t)s->dim *
                     (size_t)(BlastHaloSendCount(h->halo[w]) > BlastHaloRecvCount(h->halo[w])
                                  ? BlastHaloSendCount(h->halo[w])
                                  : BlastHaloRecvCount(h->halo[w]));
    if (n > nbuf) nbuf = n;
  }
  for (int w = 0; w < 2; w++) {
    BlastFree(&idx[w]);
    BlastFree(&owner[w]);
    BlastFree(&gid[w]);
  }
  BlastCall(ierr);
  BlastCall(BlastMalloc(nbuf, &h->hbuf_send));
  BlastCall(BlastMalloc(nbuf, &h->hbuf_recv));
  return 0;
}

// Temporaries of the setup, freed by HydroSetup whichever way HydroSetupWork returns.
typedef struct {
  double *S0, *wdetJ0, *xext, *zone_vol, *Vinv, *rho0h, *qp_c, *gravity;
} SetupTemps;

// Fill the zeroed object h. BlastHydroCreate destroys h when this fails, so whatever h
// holds at that point is freed (temporaries are in tmp, freed by HydroSetup).
// Local work and collective calls alternate; every local phase ends in SetupAgree (or a
// collective routine that agrees itself), so that an error on any rank stops every rank
// at the same point with the same message (see SetupAgree).
static int HydroSetupWork(BlastHydro h, const BlastConfig *cfg, BlastMesh mesh, MPI_Comm comm,
                          const BlastBackendOps *ops, SetupTemps *tmp) {
  h->comm = comm;
  BlastCallMPI(MPI_Comm_rank(comm, &h->rank));
  BlastCallMPI(MPI_Comm_size(comm, &h->nranks));
  h->cfg = *cfg;
  h->mesh = mesh;
  h->ops = ops;
  BlastCall(BlastBackendCheck(ops));  // the same table on every rank: no agreement needed
  BlastCallMPI(MPI_Type_contiguous(2, MPI_DOUBLE, &h->dd_type));
  BlastCallMPI(MPI_Type_commit(&h->dd_type));
  BlastCallMPI(MPI_Op_create(DDSumOp, 1, &h->dd_op));
  const int dim = BlastMeshDim(mesh), k = cfg->order_kinematic;
  const int m = cfg->order_thermo >= 0 ? cfg->order_thermo : k - 1;
  int ierr = BlastProblemSetup(cfg->problem, dim, cfg->viscosity, &h->prob);
  if (!ierr) ierr = BlastTopologyCreate(mesh, &h->topo);
  if (h->nranks > 1) {
    int *xadj = NULL, *adjncy = NULL;
    if (!ierr) ierr = BlastTopologyDualGraph(h->topo, &xadj, &adjncy);
    if (!ierr) ierr = BlastMalloc(BlastMeshNumZones(mesh), &h->part);
    ierr = SetupAgree(h, ierr, kNoZone);
    if (!ierr) {  // collective; rank 0's outcome is every rank's, but not its statistics'
      ierr = BlastPartitionGraph(comm, cfg->partitioner, BlastMeshNumZones(mesh), xadj, adjncy,
                                 h->nranks, h->part, &h->pstats);
      ierr = SetupAgree(h, ierr, kNoZone);
    }
    BlastFree(&xadj);
    BlastFree(&adjncy);
    BlastCall(ierr);
  } else {
    BlastCall(SetupAgree(h, ierr, kNoZone));
    const int nzm = BlastMeshNumZones(mesh);
    h->pstats = (BlastPartStats){1, nzm, nzm, 1.0, 0};
  }
  BlastCall(BlastCpuMemoryCheck(comm, cfg, mesh, h->part, ops));  // sizes fit ints and memory
  ierr = BlastSpaceCreate(mesh, h->topo, k, m, cfg->refine_parallel, h->part, h->rank, &h->space);
  const int q1d = BlastQuadraturePoints1D(k, m, cfg->order_quadrature);
  if (!ierr) ierr = BlastTensorTablesCreate(dim, k, m, q1d, &h->tab);
  // Communication patterns (they need only the sparsity of the mass matrix; its row-offset
  // check may fail on one rank), then the initial positions of every ext dof, identical on
  // all ranks, and the geometry.
  if (!ierr) ierr = MassVPattern(h);
  BlastCall(SetupAgree(h, ierr, kNoZone));
  BlastCall(BuildHalos(h));
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab;
  const int nz = s->nz, nd = s->h1_nd, ne = s->l2_nd, nqp = t->nqp, nl = s->h1_nl;
  const int nown = s->h1_nown, next = s->h1_next;
  h->nx = (size_t)dim * nl, h->ne = (size_t)nz * ne, h->nstate = 2 * h->nx + h->ne;
  ierr = BlastCalloc(h->nstate, &tmp->S0);
  if (!ierr) ierr = BlastMalloc((size_t)dim * next + 1, &tmp->xext);
  BlastCall(SetupAgree(h, ierr, kNoZone));
  double *x0 = tmp->S0, *v0 = tmp->S0 + h->nx, *e0 = tmp->S0 + 2 * h->nx, *xext = tmp->xext;
  BlastCall(CanonicalPositions(h, xext));
  for (int c = 0; c < dim; c++)
    memcpy(&x0[(size_t)c * nl], &xext[(size_t)c * next], sizeof(double) * nl);
  ierr = BlastMalloc(h->nx + 1, &h->x0_host);  // kept for output (initial geometry)
  if (!ierr) memcpy(h->x0_host, x0, sizeof(double) * h->nx);
  if (!ierr) ierr = BlastMalloc((size_t)nz * nqp * dim * dim, &h->qp_J0inv);
  if (!ierr) ierr = BlastMalloc((size_t)s->nz_ext * nqp, &tmp->wdetJ0);
  if (!ierr) ierr = BlastMalloc(nz + 1, &tmp->zone_vol);
  int64_t bad_gid = kNoZone;
  if (!ierr) ierr = InitialGeometry(h, xext, tmp->wdetJ0, &bad_gid);
  BlastCall(SetupAgree(h, ierr, bad_gid));
  const double *wdetJ0 = tmp->wdetJ0;
  for (int z = 0; z < nz; z++) {
    double v = 0.0;
    for (int q = 0; q < nqp; q++) v += wdetJ0[(size_t)z * nqp + q];
    tmp->zone_vol[z] = v;
  }
  BlastCall(OrderedZoneSum(h, tmp->zone_vol, &h->volume0));
  const double nzg = (double)s->nz_global;
  h->h0 = dim == 1 ? h->volume0 / (nzg * k) : pow(h->volume0 / nzg, 1.0 / dim) / k;
  if (!(isfinite(h->volume0) && h->volume0 > 0.0 && isfinite(h->h0) && h->h0 > 0.0)) {
    char where[BLAST_PATH_MAX + 64];
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                    "%s: coordinates too large or not finite: the volume of the mesh is %g (the "
                    "sum of finite zone volumes overflows double precision; mesh size h0 = %g); "
                    "scale the mesh down",
                    MeshOrigin(h, where, sizeof where), h->volume0, h->h0);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);  // global sums: the same on every rank
    return BLAST_ERR_INPUT;
  }

  // Material, density, energy, velocity (method spec 11.2), checked before the
  // collective Sedov deposit.
  ierr = BlastMalloc(nz + 1, &h->zone_gamma);
  if (!ierr)
    for (int z = 0; z < nz; z++) {
      double xi[3] = {0.5, 0.5, 0.5}, X[3];
      ZonePoint(s, z, xi, X);
      h->zone_gamma[z] = BlastProblemGamma(&h->prob, X);
    }
  if (!ierr) ierr = BlastMalloc((size_t)ne * ne, &tmp->Vinv);
  if (!ierr) ierr = BernsteinCollocationInverse(h, tmp->Vinv);
  if (!ierr) ierr = BlastMalloc((size_t)nz * ne + 1, &tmp->rho0h);
  if (!ierr) ierr = InterpolateL2(h, tmp->Vinv, Rho0Fn, tmp->rho0h);
  if (!ierr && h->prob.id != BLAST_PROBLEM_SEDOV) ierr = InterpolateL2(h, tmp->Vinv, E0Fn, e0);
  if (!ierr) ierr = CheckInitialData(h, xext, tmp->rho0h, e0, &bad_gid);
  BlastCall(SetupAgree(h, ierr, bad_gid));
  if (h->prob.id == BLAST_PROBLEM_SEDOV) BlastCall(SedovDeposit(h, wdetJ0, e0));
  for (int l = 0; l < nl; l++) {  // nodal interpolation at the (canonical) node positions
    double X[3], vv[3];
    for (int c = 0; c < dim; c++) X[c] = xext[(size_t)c * next + l];
    BlastProblemV0(&h->prob, X, vv);
    for (int c = 0; c < dim; c++) v0[(size_t)c * nl + l] = vv[c];
  }
  ierr = BlastSpaceEssentialDofs(s, &h->ess_off, &h->ess_idx);
  if (!ierr) {
    for (int c = 0; c < dim; c++)
      for (int i = h->ess_off[c]; i < h->ess_off[c + 1]; i++)
        if (h->ess_idx[i] < nl) v0[(size_t)c * nl + h->ess_idx[i]] = 0.0;
    // Keep only the owned constrained dofs (the solver works on owned dofs).
    int orig_off[4];
    for (int c = 0; c <= dim; c++) orig_off[c] = h->ess_off[c];
    for (int c = 0, n = 0; c < dim; c++) {
      h->ess_off[c] = n;
      for (int i = orig_off[c]; i < orig_off[c + 1]; i++)
        if (h->ess_idx[i] < nown) h->ess_idx[n++] = h->ess_idx[i];
      h->ess_off[c + 1] = n;
    }
  }

  // rho0 |J0| w from the Bernstein density; mass matrices from the analytic density
  // (halo zones too: they complete the rows of the owned dofs).
  if (!ierr) ierr = BlastMalloc((size_t)nz * nqp, &h->qp_R0);
  if (!ierr) ierr = BlastMalloc((size_t)s->nz_ext * nqp, &tmp->qp_c);
  if (!ierr)
    for (int z = 0; z < s->nz_ext; z++)
      for (int q = 0; q < nqp; q++) {
        double X[3];
        const size_t zq = (size_t)z * nqp + q;
        ZonePoint(s, z, &t->qp_x[(size_t)q * dim], X);
        tmp->qp_c[zq] = wdetJ0[zq] * BlastProblemRho0(&h->prob, X);
        if (z >= nz) continue;
        double rho = 0.0;
        for (int j = 0; j < ne; j++)
          rho += tmp->rho0h[(size_t)z * ne + j] * t->l2_B[(size_t)q * ne + j];
        h->qp_R0[zq] = wdetJ0[zq] * rho;
        if (!ierr && !(isfinite(tmp->qp_c[zq]) && isfinite(h->qp_R0[zq]))) {
          char where[BLAST_PATH_MAX + 64], zone[256];
          bad_gid = s->zone_gid[z];
          ierr = BlastErrorRaise(
              __FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
              "%s: %s: coordinates or densities too large: the mass of the zone at quadrature "
              "point %d (rho0 w det J0 = %g) overflows double precision",
              MeshOrigin(h, where, sizeof where), ZoneName(h, z, zone, sizeof zone), q,
              isfinite(tmp->qp_c[zq]) ? h->qp_R0[zq] : tmp->qp_c[zq]);
        }
      }
  if (!ierr) ierr = MassVValues(h, tmp->qp_c, &bad_gid);
  if (!ierr) ierr = AssembleMassEInverse(h, tmp->qp_c, &bad_gid);
  BlastCall(SetupAgree(h, ierr, bad_gid));
  if (h->prob.gravity) {
    // M_V g_h with g = (0, -1[, 0]) interpolated at the nodes, unconstrained: the y
    // component on the owned rows.
    BlastCall(SetupAgree(h, BlastMalloc(nown + 1, &tmp->gravity), kNoZone));
    for (int l = 0; l < nown; l++) {
      double sum = 0.0;
      for (int kk = h->mv_rowptr[l]; kk < h->mv_rowptr[l + 1]; kk++) sum += h->mv_val[kk] * -1.0;
      tmp->gravity[l] = sum;
    }
  }
  double *S0 = tmp->S0, *gravity = tmp->gravity;
  BlastFree(&tmp->xext);
  BlastFree(&tmp->Vinv);
  BlastFree(&tmp->rho0h);
  BlastFree(&tmp->qp_c);
  BlastFree(&tmp->wdetJ0);
  BlastFree(&tmp->zone_vol);

  // Hand the constant data to the backend.
  BlastHydroData *hd = &h->hd;
  hd->dim = dim, hd->nz = nz, hd->nqp = nqp, hd->h1_nd = nd, hd->l2_nd = ne, hd->h1_nl = nl;
  hd->h1_nown = nown, hd->h1_next = s->h1_next;
  hd->h1_edof = s->h1_edof, hd->h1_toff = s->h1_toff, hd->h1_tidx = s->h1_tidx;
  hd->qp_w = t->qp_w, hd->h1_B = t->h1_B, hd->h1_G = t->h1_G, hd->l2_B = t->l2_B;
  hd->qp_R0 = h->qp_R0, hd->qp_J0inv = h->qp_J0inv, hd->zone_gamma = h->zone_gamma;
  hd->me_inv = h->me_inv;
  hd->mv_rowptr = h->mv_rowptr, hd->mv_col = h->mv_col, hd->mv_val = h->mv_val;
  hd->mv_dinv = h->mv_dinv, hd->mv_rows = h->mv_rows;
  hd->ess_off = h->ess_off, hd->ess_idx = h->ess_idx;
  for (int w = 0; w < 2; w++) {
    hd->halo[w].nsend = BlastHaloSendCount(h->halo[w]);
    hd->halo[w].nrecv = BlastHaloRecvCount(h->halo[w]);
    hd->halo[w].send_idx = BlastHaloSendIdx(h->halo[w]);
    hd->halo[w].recv_idx = BlastHaloRecvIdx(h->halo[w]);
  }
  hd->qpar.dim = dim, hd->qpar.order_k = k, hd->qpar.visc = h->prob.visc;
  hd->qpar.vort = h->prob.vort, hd->qpar.h0 = h->h0, hd->qpar.cfl = cfg->cfl;
  hd->tg_source = h->prob.tg_source;
  // The backend (CUDA: collective, its memory check agreed inside), then local work.
  ierr = ops->ctx.create(hd, &h->bctx);
  void *b = h->bctx;
  if (!ierr && cfg->balance_mode != BLAST_BALANCE_OFF)
    ierr = BlastHybridCreate(ops, b, hd, cfg->balance_mode, cfg->balance_gpu_fraction,
                             cfg->balance_period, &h->hybrid);
  if (!ierr) BlastHybridSetTrace(h->hybrid, cfg->balance_trace);
  if (!ierr) {  // halo buffers in the backend's host memory (pinned for GPUs)
    size_t nbuf = 1;
    for (int w = 0; w < 2; w++) {
      const int ns = BlastHaloSendCount(h->halo[w]), nr = BlastHaloRecvCount(h->halo[w]);
      const size_t n = 2 * (size_t)dim * (size_t)(ns > nr ? ns : nr);
      if (n > nbuf) nbuf = n;
    }
    BlastFree(&h->hbuf_send);
    BlastFree(&h->hbuf_recv);
    h->hbuf_backend = 1;
    ierr = ops->vec.host_alloc(b, nbuf, &h->hbuf_send);
    if (!ierr) ierr = ops->vec.host_alloc(b, nbuf, &h->hbuf_recv);
  }
  if (!ierr) ierr = ops->vec.alloc(b, h->nstate, &h->S);
  if (!ierr) ierr = BlastOdeScratchCreate(h);
  if (!ierr) ierr = ops->vec.alloc(b, 2 * h->nx, &h->rhs);  // double-double pairs
  double **cg[] = {&h->cg_r, &h->cg_z, &h->cg_q, &h->cg_d, &h->cg_b, &h->cg_x};
  for (size_t i = 0; i < sizeof cg / sizeof *cg && !ierr; i++)
    ierr = ops->vec.alloc(b, (size_t)dim * s->h1_next + 1, cg[i]);
  if (!ierr) ierr = ops->vec.from_host(b, h->nstate, S0, h->S);
  if (!ierr && gravity) {
    ierr = ops->vec.alloc(b, nown + 1, &h->gravity);
    if (!ierr) ierr = ops->vec.from_host(b, nown, gravity, h->gravity);
  }
  // Shared dofs: owned dofs that some other rank holds as a ghost (counted once).
  long long nshared = 0;
  if (!ierr) {
    char *sent;
    ierr = BlastCalloc(nown + 1, &sent);
    if (!ierr) {
      const int *sidx = BlastHaloSendIdx(h->halo[BLAST_HALO_L]);
      for (int i = 0; i < BlastHaloSendCount(h->halo[BLAST_HALO_L]); i++) sent[sidx[i]] = 1;
      for (int l = 0; l < nown; l++) nshared += sent[l];
      BlastFree(&sent);
    }
  }
  BlastCall(SetupAgree(h, ierr, kNoZone));
  BlastFree(&tmp->S0);
  BlastFree(&tmp->gravity);

  // Shape for reports.
  h->shape.dim = dim, h->shape.k = k, h->shape.m = m, h->shape.nqp = nqp;
  h->shape.ranks = h->nranks, h->shape.threads = omp_get_max_threads();
  h->shape.zones = s->nz_global;
  h->shape.h1_dofs = dim * s->h1_nglobal;
  h->shape.l2_dofs = s->nz_global * ne;
  h->shape.volume = h->volume0, h->shape.h0 = h->h0;
  {
    const int64_t nchild = s->nz_global / BlastMeshNumZones(mesh);
    h->shape.partitioner = cfg->partitioner;
    h->shape.zones_min = h->pstats.zones_min * nchild, h->shape.zones_max = h->pstats.zones_max * nchild;
    h->shape.imbalance = h->pstats.imbalance, h->shape.edge_cut = h->pstats.edge_cut;
    long long tot;
    BlastCallMPI(MPI_Allreduce(&nshared, &tot, 1, MPI_LONG_LONG, MPI_SUM, comm));
    h->shape.shared_dofs = tot;
    int nb = BlastHaloNeighbors(h->halo[BLAST_HALO_L]);
    BlastCallMPI(MPI_Allreduce(&nb, &h->shape.neighbors_min, 1, MPI_INT, MPI_MIN, comm));
    BlastCallMPI(MPI_Allreduce(&nb, &h->shape.neighbors_max, 1, MPI_INT, MPI_MAX, comm));
  }

  // Initial energy and time step (method spec 10.1, 13.2). The norms and the dt estimate
  // are global: a failure of their checks is the same on every rank.
  double e_norm, ie, ke;
  BlastCall(BlastHydroNorms(h, &e_norm, &ie, &ke));
  h->energy0 = ie + ke;
  if (!(isfinite(e_norm) && isfinite(ie) && isfinite(ke) && isfinite(h->energy0))) {
    char where[BLAST_PATH_MAX + 64];
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                    "[problem] name = %s: the initial energies overflow double precision "
                    "(|e| = %g, internal energy %g, kinetic energy %g) on %s: the problem's "
                    "energies%s or the mesh coordinates are too large",
                    BlastProblemName(h->prob.id), e_norm, ie, ke,
                    MeshOrigin(h, where, sizeof where),
                    h->prob.id == BLAST_PROBLEM_SEDOV ? " ([problem] blast_energy)" : "");
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_INPUT;
  }
  h->dt_est = HUGE_VAL;
  h->tangled_zone = -1;
  h->qdata_current = 0;
  BlastCall(SetupAgree(h, BlastHydroUpdateQData(h, h->S), kNoZone));
  BlastCall(BlastHydroGlobalDtEstimate(h, &h->dt0));
  if (!(h->dt0 > 0.0 && isfinite(h->dt0))) {
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC,
                    "the initial time-step estimate is %g: the initial state has no sound speed "
                    "and no viscosity anywhere, or a tangled zone",
                    h->dt0);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_NUMERIC;
  }
  h->dt = h->dt0;
  h->t = 0.0;
  h->ti = 1;
  h->attempts = 0;
  return 0;
}

static int HydroSetup(BlastHydro h, const BlastConfig *cfg, BlastMesh mesh, MPI_Comm comm,
                      const BlastBackendOps *ops) {
  SetupTemps tmp;
  memset(&tmp, 0, sizeof tmp);
  const int ierr = HydroSetupWork(h, cfg, mesh, comm, ops, &tmp);
  double **all[] = {&tmp.S0,   &tmp.wdetJ0, &tmp.xext, &tmp.zone_vol,
                    &tmp.Vinv, &tmp.rho0h,  &tmp.qp_c, &tmp.gravity};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) BlastFree(all[i]);
  BlastCall(ierr);
  return 0;
}

int BlastHydroCreate(const BlastConfig *cfg, BlastMesh mesh, MPI_Comm comm,
                     const BlastBackendOps *ops, BlastHydro *hydro) {
  BlastHydro h;
  BlastCall(BlastCalloc(1, &h));
  h->dd_op = MPI_OP_NULL, h->dd_type = MPI_DATATYPE_NULL;
  const int ierr = HydroSetup(h, cfg, mesh, comm, ops);
  if (ierr) {
    // Keep the setup's error: destroying a half-built object only frees memory.
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
    const BlastCollective level = BlastErrorCollective();
    if (BlastHydroDestroy(&h)) {
      BlastErrorRaise(__FILE__, __LINE__, __func__, ierr, "%s", msg);
      BlastErrorSetCollective(level);
    }
    BlastFree(&h);
    BlastCall(ierr);
  }
  *hydro = h;
  return 0;
}

int BlastHydroDestroy(BlastHydro *hydro) {
  if (!hydro || !*hydro) return 0;
  BlastHydro h = *hydro;
  if (h->bctx) {
    BlastCall(BlastOdeScratchDestroy(h));
    double **vecs[] = {&h->S,    &h->rhs,  &h->cg_r, &h->cg_z,  &h->cg_d,
                       &h->cg_q, &h->cg_b, &h->cg_x, &h->gravity};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++)
      if (*vecs[i]) BlastCall(h->ops->vec.free(h->bctx, vecs[i]));
    if (h->hbuf_backend) {
      BlastCall(h->ops->vec.host_free(h->bctx, &h->hbuf_send));
      BlastCall(h->ops->vec.host_free(h->bctx, &h->hbuf_recv));
    }
    BlastCall(BlastHybridDestroy(&h->hybrid));
    BlastCall(h->ops->ctx.destroy(&h->bctx));
  }
  BlastFree(&h->qp_R0);
  BlastFree(&h->x0_host);
  BlastFree(&h->qp_J0inv);
  BlastFree(&h->zone_gamma);
  BlastFree(&h->me_inv);
  BlastFree(&h->mv_val);
  BlastFree(&h->mv_dinv);
  if (h->dd_op != MPI_OP_NULL) BlastCallMPI(MPI_Op_free(&h->dd_op));
  if (h->dd_type != MPI_DATATYPE_NULL) BlastCallMPI(MPI_Type_free(&h->dd_type));
  BlastFree(&h->mv_rows);
  BlastFree(&h->part);
  BlastFree(&h->hbuf_send);
  BlastFree(&h->hbuf_recv);
  for (int w = 0; w < 2; w++) BlastCall(BlastHaloDestroy(&h->halo[w]));
  BlastFree(&h->mv_rowptr);
  BlastFree(&h->mv_col);
  BlastFree(&h->ess_off);
  BlastFree(&h->ess_idx);
  BlastTensorTablesDestroy(&h->tab);
  BlastSpaceDestroy(&h->space);
  BlastTopologyDestroy(&h->topo);
  BlastFree(hydro);
  return 0;
}

// ---------------------------------------------------------------------------------------
// The operator

static int Sync(BlastHydro h) { return h->ops->ctx.sync(h->bctx); }

int BlastHydroUpdateQData(BlastHydro h, const double *S) {
  if (h->qdata_current) return 0;
  const double t0 = BlastWtime();
  BlastQDataResult res;
  if (h->hybrid)
    BlastCall(BlastHybridQData(h->hybrid, S, S + h->nx, S + 2 * h->nx, &res));
  else
    BlastCall(h->ops->zone.qdata_force(h->bctx, S, S + h->nx, S + 2 * h->nx, &res));
  BlastCall(Sync(h));
  h->timers.qdata += BlastWtime() - t0;
  h->timers.qdata_zone_updates += h->space->nz;
  if (res.dt_est < h->dt_est) h->dt_est = res.dt_est;
  // The lowest tangled zone over the whole attempt (local order is global order), so the
  // reported zone does not depend on the partition.
  if (res.tangled_zone >= 0 && (h->tangled_zone < 0 || res.tangled_zone < h->tangled_zone))
    h->tangled_zone = res.tangled_zone, h->tangled_det = res.tangled_det;
  h->qdata_current = 1;
  return 0;
}

int BlastHydroGlobalDtEstimate(BlastHydro h, double *dt_est) {
  BlastCallMPI(MPI_Allreduce(&h->dt_est, dt_est, 1, MPI_DOUBLE, MPI_MIN, h->comm));
  return 0;
}

// Global dot product, rounded once from a double-double sum: the same bits on any
// number of ranks (and threads).
static int GlobalDot(BlastHydro h, size_t n, const double *x, const double *y, double *r) {
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

// Forward halo (owners -> ghosts) of `ncomp` components `stride` apart: ghosts get the
// owners' values. Begin/End split so that work can overlap the messages.
static int HaloForwardBegin(BlastHydro h, int which, int ncomp, size_t stride, const double *x) {
  BlastCall(h->ops->halo.pack(h->bctx, which, 0, ncomp, stride, x, h->hbuf_send));
  BlastCall(BlastHaloForwardBegin(h->halo[which], ncomp, h->hbuf_send, h->hbuf_recv));
  return 0;
}
static int HaloForwardEnd(BlastHydro h, int which, int ncomp, size_t stride, double *x) {
  const double t0 = BlastWtime();
  BlastCall(BlastHaloWait(h->halo[which]));
  if (h->nranks > 1) h->timers.cg_wait += BlastWtime() - t0;  // both callers are in the CG
  BlastCall(h->ops->halo.unpack(h->bctx, which, 0, ncomp, stride, h->hbuf_recv, x));
  return 0;
}
// Reverse halo of double-double pairs: ghosts' partial sums (ndd rounded components then
// ndd low parts) are added to their owners' entries in double-double.
static int HaloReverseAddDD(BlastHydro h, int which, int ndd, size_t stride, double *x) {
  BlastCall(h->ops->halo.pack(h->bctx, which, 1, 2 * ndd, stride, x, h->hbuf_send));
  BlastCall(BlastHaloReverseBegin(h->halo[which], 2 * ndd, h->hbuf_send, h->hbuf_recv));
  BlastCall(BlastHaloWait(h->halo[which]));
  BlastCall(h->ops->halo.unpack_dd(h->bctx, which, ndd, stride, h->hbuf_recv, x));
  return 0;
}

// Ad_c = m d_c on the owned rows for the active components: ghost columns of d travel
// while the interior rows are multiplied; then the boundary rows. Constrained entries
// are zeroed.
static int MassMult(BlastHydro h, int ncomp, unsigned mask, double *d, double *Ad) {
  const BlastBackendOps *o = h->ops;
  const size_t st = (size_t)h->space->h1_next;
  BlastCall(HaloForwardBegin(h, BLAST_HALO_COL, ncomp, st, d));
  BlastCall(o->mass.mult(h->bctx, BLAST_ROWS_INTERIOR, ncomp, mask, d, Ad));
  BlastCall(HaloForwardEnd(h, BLAST_HALO_COL, ncomp, st, d));
  BlastCall(o->mass.mult(h->bctx, BLAST_ROWS_BOUNDARY, ncomp, mask, d, Ad));
  BlastCall(o->mass.zero_essential(h->bctx, ncomp, mask, Ad));
  return 0;
}

// Global dot products of the active components, each rounded once from a double-double
// sum (the same bits on any number of ranks and on every backend).
static int GlobalDotMulti(BlastHydro h, int ncomp, unsigned mask, const double *x, const double *y,
                          double *r) {
  double local[6], global[6];
  BlastCall(h->ops->mass.dot_multi(h->bctx, ncomp, mask, x, y, local));
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

// Jacobi-PCG for the velocity components (method spec 7.3, exactly), all components in
// lockstep: each solves m x_c = b_c on its free dofs with its own alpha, beta and stopping
// test, so every component sees exactly the operations of a solve of its own (spec 7.1
// V1); the matrix is read once per iteration for all of them. b (the owned entries at
// c * h1_next) is overwritten: constrained entries zeroed.
static int PcgLockstep(BlastHydro h, int ncomp, double *b, double *x) {
  const BlastBackendOps *o = h->ops;
  void *ctx = h->bctx;
  const size_t n = (size_t)h->space->h1_nown, st = (size_t)h->space->h1_next;
  double *r = h->cg_r, *z = h->cg_z, *d = h->cg_d, *Ad = h->cg_q;
  const double tol = h->cfg.cg_tol;
  const unsigned all = (1u << ncomp) - 1u;
  double nu[3], nu0[3], delta[3], theta[3], betanu[3], one[3] = {1, 1, 1}, coef[3], neg[3];
  BlastCall(o->mass.zero_essential(ctx, ncomp, all, b));
  for (int c = 0; c < ncomp; c++) {
    BlastCall(o->vec.set(ctx, n, 0.0, x + c * st));
    BlastCall(o->vec.copy(ctx, n, b + c * st, r + c * st));
  }
  BlastCall(o->mass.jacobi(ctx, ncomp, all, r, z));
  for (int c = 0; c < ncomp; c++) BlastCall(o->vec.copy(ctx, n, z + c * st, d + c * st));
  BlastCall(GlobalDotMulti(h, ncomp, all, z, r, nu));
  unsigned mask = 0;
  for (int c = 0; c < ncomp; c++) {
    nu0[c] = nu[c];
    theta[c] = fmax(nu[c] * tol * tol, 0.0);
    h->timers.cg_solves++;
    if (nu[c] > theta[c]) mask |= 1u << c;
  }
  if (!mask) return 0;
  BlastCall(MassMult(h, ncomp, mask, d, Ad));
  BlastCall(GlobalDotMulti(h, ncomp, mask, Ad, d, delta));
  for (int c = 0; c < ncomp; c++)
    if (((mask >> c) & 1u) && delta[c] <= 0.0) mask &= ~(1u << c);
  for (int i = 1; mask; i++) {
    for (int c = 0; c < ncomp; c++) coef[c] = nu[c] / delta[c], neg[c] = -coef[c];
    BlastCall(o->mass.axpby_multi(ctx, ncomp, mask, coef, d, one, x));
    BlastCall(o->mass.axpby_multi(ctx, ncomp, mask, neg, Ad, one, r));
    BlastCall(o->mass.jacobi(ctx, ncomp, mask, r, z));
    BlastCall(GlobalDotMulti(h, ncomp, mask, r, z, betanu));
    unsigned next = mask, failed = 0;
    for (int c = 0; c < ncomp; c++) {
      if (!((mask >> c) & 1u)) continue;
      h->timers.cg_iter++;
      if (betanu[c] <= theta[c]) {
        next &= ~(1u << c);
      } else if (i + 1 > h->cfg.cg_max_iter) {
        h->timers.cg_unconverged++;
        failed |= 1u << c;
        h->cg_fail.residual[c] = sqrt(betanu[c] / nu0[c]);
      }
    }
    // Unlike the reference, which carries on with the unconverged iterate, this is an
    // error: the dots are global, so every rank stops here together. The time loop
    // reports it with the step (BlastHydroRun).
    if (failed) {
      int c = 0;
      while (!((failed >> c) & 1u)) c++;
      h->cg_fail.comps = failed;
      h->cg_fail.iters = i;
      BlastError(BLAST_ERR_NUMERIC,
                 "the velocity solve (Jacobi-PCG, component %c) did not converge in [solver] "
                 "cg_max_iter = %d iterations: relative residual %.3e, cg_tol = %.3e",
                 "xyz"[c], h->cfg.cg_max_iter, h->cg_fail.residual[c], tol);
    }
    mask = next;
    if (!mask) break;
    for (int c = 0; c < ncomp; c++) coef[c] = betanu[c] / nu[c];
    BlastCall(o->mass.axpby_multi(ctx, ncomp, mask, one, z, coef, d));
    BlastCall(MassMult(h, ncomp, mask, d, Ad));
    BlastCall(GlobalDotMulti(h, ncomp, mask, d, Ad, delta));
    for (int c = 0; c < ncomp; c++)
      if ((mask >> c) & 1u) nu[c] = betanu[c];
  }
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
  BlastCall(HaloReverseAddDD(h, BLAST_HALO_L, dim, nl, h->rhs));
  if (h->gravity) BlastCall(h->ops->vec.axpby(h->bctx, nown, 1.0, h->gravity, 1.0, h->rhs + nl));
  BlastCall(Sync(h));
  double t1 = BlastWtime();
  h->timers.force += t1 - t0;
  // PCG vectors have their components h1_next apart.
  for (int c = 0; c < dim; c++) BlastCall(h->ops->vec.copy(h->bctx, nown, h->rhs + c * nl, h->cg_b + c * st));
  BlastCall(PcgLockstep(h, dim, h->cg_b, h->cg_x));
  for (int c = 0; c < dim; c++) BlastCall(h->ops->vec.copy(h->bctx, nown, h->cg_x + c * st, dv + c * nl));
  // Ghost copies of the new accelerations from their owners.
  BlastCall(HaloForwardBegin(h, BLAST_HALO_L, dim, nl, dv));
  BlastCall(HaloForwardEnd(h, BLAST_HALO_L, dim, nl, dv));
  BlastCall(Sync(h));
  h->timers.cg += BlastWtime() - t1;
  return 0;
}

int BlastHydroEnergyRate(BlastHydro h, const double *v, double *de) {
  const double t0 = BlastWtime();
  if (h->hybrid)
    BlastCall(BlastHybridEnergyRate(h->hybrid, v, de));
  else
    BlastCall(h->ops->zone.energy_rate(h->bctx, v, de));
  BlastCall(Sync(h));
  h->timers.force += BlastWtime() - t0;
  return 0;
}

int BlastHydroRates(BlastHydro h, const double *S, double *k) {
  const double *v = S + h->nx;
  BlastCall(BlastHydroUpdateQData(h, S));
  BlastCall(h->ops->vec.copy(h->bctx, h->nx, v, k));               // dx/dt = v
  BlastCall(BlastHydroSolveVelocity(h, k + h->nx));            // dv/dt
  BlastCall(BlastHydroEnergyRate(h, v, k + 2 * h->nx));        // de/dt
  h->qdata_current = 0;
  return 0;
}

int BlastHydroENorm(BlastHydro h, double *e_norm) {
  double e2 = 0.0;
  BlastCall(GlobalDot(h, h->ne, h->S + 2 * h->nx, h->S + 2 * h->nx, &e2));
  *e_norm = sqrt(e2);
  return 0;
}

int BlastHydroNorms(BlastHydro h, double *e_norm, double *ie, double *ke) {
  const double *S = h->S;
  double loc[2], glob[2];
  BlastCall(BlastHydroENorm(h, e_norm));
  BlastCall(h->ops->zone.energies(h->bctx, S + h->nx, S + 2 * h->nx, &loc[0], &loc[1]));
  BlastCallMPI(MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, h->comm));
  if (ie) *ie = glob[0];
  if (ke) *ke = glob[1];
  return 0;
}

BlastHydroShape BlastHydroGetShape(BlastHydro h) { return h->shape; }
const BlastHydroTimers *BlastHydroGetTimers(BlastHydro h) { return &h->timers; }
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

void BlastHydroGetBalance(BlastHydro h, BlastBalanceInfo *info) { BlastHybridGetInfo(h->hybrid, info); }
void BlastHydroSeedBalance(BlastHydro h, double gpu_fraction) {
  BlastHybridSeed(h->hybrid, gpu_fraction);
}

int BlastHydroSetState(BlastHydro h, const double *x, const double *v, const double *e) {
  BlastCall(h->ops->vec.from_host(h->bctx, h->nx, x, h->S));
  BlastCall(h->ops->vec.from_host(h->bctx, h->nx, v, h->S + h->nx));
  BlastCall(h->ops->vec.from_host(h->bctx, h->ne, e, h->S + 2 * h->nx));
  h->qdata_current = 0;
  return 0;
}

void BlastHydroSetProgress(BlastHydro h, double t, double dt, int steps, int attempts, double dt0,
                           double energy0) {
  h->t = t, h->dt = dt, h->ti = steps + 1, h->attempts = attempts;
  h->dt0 = dt0, h->energy0 = energy0;
}

void BlastHydroRequestStop(BlastHydro h) { h->stop_requested = 1; }

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

const BlastSpace *BlastHydroGetSpace(BlastHydro h) { return h->space; }

const double *BlastHydroGetInitialPositions(BlastHydro h) { return h->x0_host; }
const BlastTensorTables *BlastHydroGetTables(BlastHydro h) { return h->tab; }
const BlastProblem *BlastHydroGetProblem(BlastHydro h) { return &h->prob; }
BlastMesh BlastHydroGetMesh(BlastHydro h) { return h->mesh; }

void BlastHydroGetBackend(BlastHydro h, const BlastBackendOps **ops, void **ctx) {
  *ops = h->ops;
  *ctx = h->bctx;
}
