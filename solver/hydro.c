// The Lagrangian operator: setup of the constant data (method spec 3.3, 3.4, 5.1, 5.5, 6,
// 11) and the rate function with its momentum PCG (7.1, 7.3) and energy update (7.2).
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


// Global sum of per-zone values that does not depend on the partition: children are
// summed per mesh zone (all children of a mesh zone live on one rank), the mesh-zone
// sums are combined by an all-reduce in which every entry has one contributor (exact),
// and the result is summed in mesh-zone order on every rank.
static int OrderedZoneSum(BlastHydro h, const double *zone_value, double *sum) {
  const BlastSpace *s = h->space;
  const int nmesh = BlastMeshNumZones(s->mesh);
  double *macro, *all;
  BlastCall(BlastCalloc(nmesh, &macro));
  BlastCall(BlastMalloc(nmesh, &all));
  for (int z = 0; z < s->nz; z++) macro[s->zone_macro[z]] += zone_value[z];
  BlastCallMPI(MPI_Allreduce(macro, all, nmesh, MPI_DOUBLE, MPI_SUM, h->comm));
  double total = 0.0;
  for (int Z = 0; Z < nmesh; Z++) total += all[Z];
  *sum = total;
  BlastFree(&macro);
  BlastFree(&all);
  return 0;
}

// Physical point of reference point xi (fine-zone coordinates) of zone z, initial mesh.
static void ZonePoint(const BlastSpace *s, int z, const double *xi, double *x) {
  double xm[3];
  BlastSpaceZoneRefToMacro(s, z, xi, xm);
  BlastMeshZoneMap(s->mesh, s->zone_macro[z], xm, x);
}

// Initial geometry at the quadrature points from the H1 positions x (ext numbering,
// component stride next): J0^{-1} for this rank's zones, w |J0| for all zones including
// halo zones. This rank's zones are checked for positive determinants (naming the zone).
static int InitialGeometry(BlastHydro h, const double *x, double *wdetJ0) {
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab;
  const int dim = s->dim, nd = s->h1_nd, nqp = t->nqp, next = s->h1_next, d2 = dim * dim;
  int bad_zone = -1, bad_q = 0;
  double bad_det = 0.0;
  for (int z = 0; z < s->nz_ext; z++) {
    const int *dof = &s->h1_edof[(size_t)z * nd];
    for (int q = 0; q < nqp; q++) {
      double J[9] = {0}, adj[9];
      for (int c = 0; c < dim; c++)
        for (int a = 0; a < nd; a++)
          for (int g = 0; g < dim; g++)
            J[c + dim * g] += x[(size_t)c * next + dof[a]] * t->h1_G[((size_t)q * nd + a) * dim + g];
      const double det = BlastMatDet(dim, J);
      wdetJ0[(size_t)z * nqp + q] = t->qp_w[q] * det;
      if (z >= s->nz) continue;
      if (!(det > 0.0) && bad_zone < 0) bad_zone = z, bad_q = q, bad_det = det;
      BlastMatAdjugate(dim, J, adj);
      double *Ji = &h->qp_J0inv[((size_t)z * nqp + q) * d2];
      for (int i = 0; i < d2; i++) Ji[i] = adj[i] / det;
    }
  }
  if (bad_zone >= 0) {
    double X[3] = {0, 0, 0};
    BlastSpaceZoneCorner(s, bad_zone, 0, X);
    BlastError(BLAST_ERR_INPUT,
               "zone %lld (first corner at (%g, %g, %g)) has a non-positive Jacobian "
               "determinant %.3e at quadrature point %d of the initial mesh: the zone is "
               "inverted or degenerate",
               (long long)s->zone_gid[bad_zone], X[0], X[1], X[2], bad_det, bad_q);
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
// the origin, scaled to E0/2^d (method spec 11.4).
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
  BlastCheck(dist < h->cfg.blast_tol, BLAST_ERR_INPUT,
             "Sedov: the blast point (origin) is %.3e from the nearest mesh vertex, more than "
             "[problem] blast_tol = %.3e; the delta function could not be initialized (put a "
             "mesh vertex at the origin)",
             dist, h->cfg.blast_tol);
  double *zone_int;
  BlastCall(BlastCalloc(s->nz + 1, &zone_int));
  for (int z = 0; z < s->nz; z++) {
    for (int i = 0; i < ne; i++) e[(size_t)z * ne + i] = 0.0;
    for (int corner = 0; corner < (1 << dim); corner++) {
      if (BlastSpaceZoneCornerId(s, z, corner) != best_gid) continue;
      int j = 0;
      for (int g = dim - 1; g >= 0; g--) j = j * (m + 1) + (((corner >> g) & 1) ? m : 0);
      e[(size_t)z * ne + j] = 1.0;
      for (int q = 0; q < nqp; q++)
        zone_int[z] += wdetJ0[(size_t)z * nqp + q] * t->l2_B[(size_t)q * ne + j];
    }
  }
  double total;
  BlastCall(OrderedZoneSum(h, zone_int, &total));
  BlastFree(&zone_int);
  const double scale = (h->cfg.blast_energy / (double)(1 << dim)) / total;
  for (size_t i = 0; i < (size_t)s->nz * ne; i++) e[i] *= scale;
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
static int MassVValues(BlastHydro h, const double *qp_c) {
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
  return 0;
}

// Zone blocks of M_E (method spec 6.1) and their inverses (E1).
static int AssembleMassEInverse(BlastHydro h, const double *qp_c) {
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
    int ierr = BlastDenseInverse(ne, M, &h->me_inv[(size_t)z * ne * ne]);
    BlastCheck(!ierr, BLAST_ERR_NUMERIC, "zone %lld: the thermodynamic mass matrix is singular",
               (long long)s->zone_gid[z]);
  }
  BlastFree(&M);
  return 0;
}

// The two communication patterns: L-vector ghosts (force assembly, velocity ghost fill)
// and the ghost columns of the owned mass-matrix rows (SpMV), plus host buffers.
static int BuildHalos(BlastHydro h) {
  const BlastSpace *s = h->space;
  const int nown = s->h1_nown;
  int nghost[2] = {s->h1_nl - nown, 0};
  int *idx[2], *owner[2];
  int64_t *gid[2];
  // Column ghosts: ext columns referenced by owned rows, ascending.
  char *used;
  BlastCall(BlastCalloc(s->h1_next + 1, &used));
  for (int k = 0; k < h->mv_rowptr[nown]; k++) used[h->mv_col[k]] = 1;
  for (int l = nown; l < s->h1_next; l++) nghost[1] += used[l];
  for (int w = 0; w < 2; w++) {
    BlastCall(BlastMalloc(nghost[w] + 1, &idx[w]));
    BlastCall(BlastMalloc(nghost[w] + 1, &owner[w]));
    BlastCall(BlastMalloc(nghost[w] + 1, &gid[w]));
  }
  for (int l = nown, n0 = 0, n1 = 0; l < s->h1_next; l++) {
    if (l < s->h1_nl) idx[0][n0] = l, owner[0][n0] = s->h1_owner[l], gid[0][n0++] = s->h1_gid[l];
    if (used[l]) idx[1][n1] = l, owner[1][n1] = s->h1_owner[l], gid[1][n1++] = s->h1_gid[l];
  }
  BlastFree(&used);
  size_t nbuf = 1;
  for (int w = 0; w < 2; w++) {
    BlastCall(BlastHaloCreate(h->comm, nghost[w], gid[w], owner[w], idx[w], nown, s->h1_gid,
                              &h->halo[w]));
    const size_t n = 2 * (size_t)s->dim *
                     (size_t)(BlastHaloSendCount(h->halo[w]) > BlastHaloRecvCount(h->halo[w])
                                  ? BlastHaloSendCount(h->halo[w])
                                  : BlastHaloRecvCount(h->halo[w]));
    if (n > nbuf) nbuf = n;
    BlastFree(&idx[w]);
    BlastFree(&owner[w]);
    BlastFree(&gid[w]);
  }
  BlastCall(BlastMalloc(nbuf, &h->hbuf_send));
  BlastCall(BlastMalloc(nbuf, &h->hbuf_recv));
  return 0;
}

// Fill the zeroed object h. BlastHydroCreate destroys h when this fails, so whatever h
// holds at that point is freed (temporaries of this function are freed here).
static int HydroSetup(BlastHydro h, const BlastConfig *cfg, BlastMesh mesh, MPI_Comm comm,
                      const BlastBackendOps *ops) {
  h->comm = comm;
  BlastCallMPI(MPI_Comm_rank(comm, &h->rank));
  BlastCallMPI(MPI_Comm_size(comm, &h->nranks));
  h->cfg = *cfg;
  h->mesh = mesh;
  h->ops = ops;
  BlastCallMPI(MPI_Type_contiguous(2, MPI_DOUBLE, &h->dd_type));
  BlastCallMPI(MPI_Type_commit(&h->dd_type));
  BlastCallMPI(MPI_Op_create(DDSumOp, 1, &h->dd_op));
  const int dim = BlastMeshDim(mesh), k = cfg->order_kinematic;
  const int m = cfg->order_thermo >= 0 ? cfg->order_thermo : k - 1;
  BlastCall(BlastProblemSetup(cfg->problem, dim, cfg->viscosity, &h->prob));
  BlastCall(BlastTopologyCreate(mesh, &h->topo));
  if (h->nranks > 1) {
    int *xadj, *adjncy;
    BlastCall(BlastTopologyDualGraph(h->topo, &xadj, &adjncy));
    int ierr = BlastMalloc(BlastMeshNumZones(mesh), &h->part);
    if (!ierr)
      ierr = BlastPartitionGraph(comm, cfg->partitioner, BlastMeshNumZones(mesh), xadj, adjncy,
                                 h->nranks, h->part, &h->pstats);
    BlastFree(&xadj);
    BlastFree(&adjncy);
    BlastCall(ierr);
  } else {
    const int nzm = BlastMeshNumZones(mesh);
    h->pstats = (BlastPartStats){1, nzm, nzm, 1.0, 0};
  }
  BlastCall(BlastCpuMemoryCheck(comm, cfg, mesh, h->part, ops));  // sizes fit ints and memory
  BlastCall(BlastSpaceCreate(mesh, h->topo, k, m, cfg->refine_parallel, h->part, h->rank,
                             &h->space));
  const int q1d = BlastQuadraturePoints1D(k, m, cfg->order_quadrature);
  BlastCall(BlastTensorTablesCreate(dim, k, m, q1d, &h->tab));
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab;
  const int nz = s->nz, nd = s->h1_nd, ne = s->l2_nd, nqp = t->nqp, nl = s->h1_nl;
  const int nown = s->h1_nown;

  // Communication patterns (they need only the sparsity of the mass matrix), then the
  // initial positions of every ext dof, identical on all ranks, and the geometry.
  BlastCallAgree(h->comm, 0, MassVPattern(h));  // the row-offset check may fail on one rank
  BlastCall(BuildHalos(h));
  h->nx = (size_t)dim * nl, h->ne = (size_t)nz * ne, h->nstate = 2 * h->nx + h->ne;
  const int next = s->h1_next;
  double *S0, *wdetJ0, *xext;
  BlastCall(BlastCalloc(h->nstate, &S0));
  double *x0 = S0, *v0 = S0 + h->nx, *e0 = S0 + 2 * h->nx;
  BlastCall(BlastMalloc((size_t)dim * next + 1, &xext));
  BlastCall(CanonicalPositions(h, xext));
  for (int c = 0; c < dim; c++)
    memcpy(&x0[(size_t)c * nl], &xext[(size_t)c * next], sizeof(double) * nl);
  BlastCall(BlastMalloc(h->nx + 1, &h->x0_host));  // kept for output (initial geometry)
  memcpy(h->x0_host, x0, sizeof(double) * h->nx);
  BlastCall(BlastMalloc((size_t)nz * nqp * dim * dim, &h->qp_J0inv));
  BlastCall(BlastMalloc((size_t)s->nz_ext * nqp, &wdetJ0));
  BlastCall(InitialGeometry(h, xext, wdetJ0));
  double *zone_vol;
  BlastCall(BlastMalloc(nz + 1, &zone_vol));
  for (int z = 0; z < nz; z++) {
    double v = 0.0;
    for (int q = 0; q < nqp; q++) v += wdetJ0[(size_t)z * nqp + q];
    zone_vol[z] = v;
  }
  BlastCall(OrderedZoneSum(h, zone_vol, &h->volume0));
  BlastFree(&zone_vol);
  const double nzg = (double)s->nz_global;
  h->h0 = dim == 1 ? h->volume0 / (nzg * k) : pow(h->volume0 / nzg, 1.0 / dim) / k;

  // Material, density, energy, velocity (method spec 11.2).
  BlastCall(BlastMalloc(nz, &h->zone_gamma));
  for (int z = 0; z < nz; z++) {
    double xi[3] = {0.5, 0.5, 0.5}, X[3];
    ZonePoint(s, z, xi, X);
    h->zone_gamma[z] = BlastProblemGamma(&h->prob, X);
  }
  double *Vinv, *rho0h, *qp_c;
  BlastCall(BlastMalloc((size_t)ne * ne, &Vinv));
  BlastCall(BernsteinCollocationInverse(h, Vinv));
  BlastCall(BlastMalloc((size_t)nz * ne, &rho0h));
  BlastCall(InterpolateL2(h, Vinv, Rho0Fn, rho0h));
  if (h->prob.id == BLAST_PROBLEM_SEDOV)
    BlastCall(SedovDeposit(h, wdetJ0, e0));
  else
    BlastCall(InterpolateL2(h, Vinv, E0Fn, e0));
  for (int l = 0; l < nl; l++) {  // nodal interpolation at the (canonical) node positions
    double X[3], vv[3];
    for (int c = 0; c < dim; c++) X[c] = xext[(size_t)c * next + l];
    BlastProblemV0(&h->prob, X, vv);
    for (int c = 0; c < dim; c++) v0[(size_t)c * nl + l] = vv[c];
  }
  BlastCall(BlastSpaceEssentialDofs(s, &h->ess_off, &h->ess_idx));
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

  // rho0 |J0| w from the Bernstein density; mass matrices from the analytic density
  // (halo zones too: they complete the rows of the owned dofs).
  BlastCall(BlastMalloc((size_t)nz * nqp, &h->qp_R0));
  BlastCall(BlastMalloc((size_t)s->nz_ext * nqp, &qp_c));
  for (int z = 0; z < s->nz_ext; z++)
    for (int q = 0; q < nqp; q++) {
      double X[3];
      const size_t zq = (size_t)z * nqp + q;
      ZonePoint(s, z, &t->qp_x[(size_t)q * dim], X);
      qp_c[zq] = wdetJ0[zq] * BlastProblemRho0(&h->prob, X);
      if (z >= nz) continue;
      double rho = 0.0;
      for (int j = 0; j < ne; j++) rho += rho0h[(size_t)z * ne + j] * t->l2_B[(size_t)q * ne + j];
      h->qp_R0[zq] = wdetJ0[zq] * rho;
    }
  BlastCall(MassVValues(h, qp_c));
  BlastCall(AssembleMassEInverse(h, qp_c));
  double *gravity = NULL;
  if (h->prob.gravity) {
    // M_V g_h with g = (0, -1[, 0]) interpolated at the nodes, unconstrained: the y
    // component on the owned rows.
    BlastCall(BlastMalloc(nown + 1, &gravity));
    for (int l = 0; l < nown; l++) {
      double sum = 0.0;
      for (int kk = h->mv_rowptr[l]; kk < h->mv_rowptr[l + 1]; kk++) sum += h->mv_val[kk] * -1.0;
      gravity[l] = sum;
    }
  }
  BlastFree(&xext);
  BlastFree(&Vinv);
  BlastFree(&rho0h);
  BlastFree(&qp_c);
  BlastFree(&wdetJ0);

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
  BlastCall(ops->create(hd, &h->bctx));
  void *b = h->bctx;
  if (cfg->balance_mode != BLAST_BALANCE_OFF)
    BlastCall(BlastHybridCreate(ops, b, hd, cfg->balance_mode, cfg->balance_gpu_fraction, cfg->balance_period,
                                &h->hybrid));
  {  // halo buffers in the backend's host memory (pinned for GPUs)
    size_t nbuf = 1;
    for (int w = 0; w < 2; w++) {
      const int ns = BlastHaloSendCount(h->halo[w]), nr = BlastHaloRecvCount(h->halo[w]);
      const size_t n = 2 * (size_t)dim * (size_t)(ns > nr ? ns : nr);
      if (n > nbuf) nbuf = n;
    }
    BlastFree(&h->hbuf_send);
    BlastFree(&h->hbuf_recv);
    BlastCall(ops->host_alloc(b, nbuf, &h->hbuf_send));
    BlastCall(ops->host_alloc(b, nbuf, &h->hbuf_recv));
    h->hbuf_backend = 1;
  }
  double **vecs[] = {&h->S, &h->S_old, &h->rk_y, &h->rk_z, &h->rk_k, &h->rk_k2};
  for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++) BlastCall(ops->alloc(b, h->nstate, vecs[i]));
  BlastCall(ops->alloc(b, 2 * h->nx, &h->rhs));  // double-double pairs
  double **cg[] = {&h->cg_r, &h->cg_z, &h->cg_q, &h->cg_d, &h->cg_b, &h->cg_x};
  for (size_t i = 0; i < sizeof cg / sizeof *cg; i++)
    BlastCall(ops->alloc(b, (size_t)dim * s->h1_next + 1, cg[i]));
  BlastCall(ops->from_host(b, h->nstate, S0, h->S));
  BlastFree(&S0);
  if (gravity) {
    BlastCall(ops->alloc(b, nown + 1, &h->gravity));
    BlastCall(ops->from_host(b, nown, gravity, h->gravity));
    BlastFree(&gravity);
  }

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
    // Shared dofs: owned dofs that some other rank holds as a ghost (counted once).
    char *sent;
    BlastCall(BlastCalloc(nown + 1, &sent));
    const int *sidx = BlastHaloSendIdx(h->halo[BLAST_HALO_L]);
    for (int i = 0; i < BlastHaloSendCount(h->halo[BLAST_HALO_L]); i++) sent[sidx[i]] = 1;
    long long nshared = 0;
    for (int l = 0; l < nown; l++) nshared += sent[l];
    BlastFree(&sent);
    long long tot;
    BlastCallMPI(MPI_Allreduce(&nshared, &tot, 1, MPI_LONG_LONG, MPI_SUM, comm));
    h->shape.shared_dofs = tot;
    int nb = BlastHaloNeighbors(h->halo[BLAST_HALO_L]);
    BlastCallMPI(MPI_Allreduce(&nb, &h->shape.neighbors_min, 1, MPI_INT, MPI_MIN, comm));
    BlastCallMPI(MPI_Allreduce(&nb, &h->shape.neighbors_max, 1, MPI_INT, MPI_MAX, comm));
  }

  // Initial energy and time step (method spec 10.1, 13.2).
  double e_norm, ie, ke;
  BlastCall(BlastHydroNorms(h, &e_norm, &ie, &ke));
  h->energy0 = ie + ke;
  h->dt_est = HUGE_VAL;
  h->tangled_zone = -1;
  h->qdata_current = 0;
  BlastCall(BlastHydroUpdateQData(h, h->S));
  BlastCall(BlastHydroGlobalDtEstimate(h, &h->dt0));
  BlastCheck(h->dt0 > 0.0 && isfinite(h->dt0), BLAST_ERR_NUMERIC,
             "the initial time-step estimate is %g: the initial state has no sound speed and "
             "no viscosity anywhere, or a tangled zone",
             h->dt0);
  h->dt = h->dt0;
  h->t = 0.0;
  h->ti = 1;
  h->attempts = 0;
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
    double **vecs[] = {&h->S,    &h->S_old, &h->rk_y, &h->rk_z, &h->rk_k, &h->rk_k2, &h->rhs,
                       &h->cg_r, &h->cg_z,  &h->cg_d, &h->cg_q, &h->cg_b, &h->cg_x, &h->gravity};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++)
      if (*vecs[i]) BlastCall(h->ops->free(h->bctx, vecs[i]));
    if (h->hbuf_backend) {
      BlastCall(h->ops->host_free(h->bctx, &h->hbuf_send));
      BlastCall(h->ops->host_free(h->bctx, &h->hbuf_recv));
    }
    BlastCall(BlastHybridDestroy(&h->hybrid));
    BlastCall(h->ops->destroy(&h->bctx));
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

static int Sync(BlastHydro h) { return h->ops->sync ? h->ops->sync(h->bctx) : 0; }

int BlastHydroUpdateQData(BlastHydro h, const double *S) {
  if (h->qdata_current) return 0;
  const double t0 = BlastWtime();
  BlastQDataResult res;
  if (h->hybrid)
    BlastCall(BlastHybridQData(h->hybrid, S, S + h->nx, S + 2 * h->nx, &res));
  else
    BlastCall(h->ops->qdata_force(h->bctx, S, S + h->nx, S + 2 * h->nx, &res));
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
  BlastCall(h->ops->dot(h->bctx, n, x, y, local));
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
  BlastCall(h->ops->halo_pack(h->bctx, which, 0, ncomp, stride, x, h->hbuf_send));
  BlastCall(BlastHaloForwardBegin(h->halo[which], ncomp, h->hbuf_send, h->hbuf_recv));
  return 0;
}
static int HaloForwardEnd(BlastHydro h, int which, int ncomp, size_t stride, double *x) {
  const double t0 = BlastWtime();
  BlastCall(BlastHaloWait(h->halo[which]));
  if (h->nranks > 1) h->timers.cg_wait += BlastWtime() - t0;  // both callers are in the CG
  BlastCall(h->ops->halo_unpack(h->bctx, which, 0, ncomp, stride, h->hbuf_recv, x));
  return 0;
}
// Reverse halo of double-double pairs: ghosts' partial sums (ndd rounded components then
// ndd low parts) are added to their owners' entries in double-double.
static int HaloReverseAddDD(BlastHydro h, int which, int ndd, size_t stride, double *x) {
  BlastCall(h->ops->halo_pack(h->bctx, which, 1, 2 * ndd, stride, x, h->hbuf_send));
  BlastCall(BlastHaloReverseBegin(h->halo[which], 2 * ndd, h->hbuf_send, h->hbuf_recv));
  BlastCall(BlastHaloWait(h->halo[which]));
  BlastCall(h->ops->halo_unpack_dd(h->bctx, which, ndd, stride, h->hbuf_recv, x));
  return 0;
}

// Ad_c = m d_c on the owned rows for the active components: ghost columns of d travel
// while the interior rows are multiplied; then the boundary rows. Constrained entries
// are zeroed.
static int MassMult(BlastHydro h, int ncomp, unsigned mask, double *d, double *Ad) {
  const BlastBackendOps *o = h->ops;
  const size_t st = (size_t)h->space->h1_next;
  BlastCall(HaloForwardBegin(h, BLAST_HALO_COL, ncomp, st, d));
  BlastCall(o->mass_mult(h->bctx, BLAST_ROWS_INTERIOR, ncomp, mask, d, Ad));
  BlastCall(HaloForwardEnd(h, BLAST_HALO_COL, ncomp, st, d));
  BlastCall(o->mass_mult(h->bctx, BLAST_ROWS_BOUNDARY, ncomp, mask, d, Ad));
  BlastCall(o->zero_essential(h->bctx, ncomp, mask, Ad));
  return 0;
}

// Global dot products of the active components, each rounded once from a double-double
// sum (the same bits on any number of ranks and on every backend).
static int GlobalDotMulti(BlastHydro h, int ncomp, unsigned mask, const double *x, const double *y,
                          double *r) {
  double local[6], global[6];
  BlastCall(h->ops->dot_multi(h->bctx, ncomp, mask, x, y, local));
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
  BlastCall(o->zero_essential(ctx, ncomp, all, b));
  for (int c = 0; c < ncomp; c++) {
    BlastCall(o->set(ctx, n, 0.0, x + c * st));
    BlastCall(o->copy(ctx, n, b + c * st, r + c * st));
  }
  BlastCall(o->jacobi(ctx, ncomp, all, r, z));
  for (int c = 0; c < ncomp; c++) BlastCall(o->copy(ctx, n, z + c * st, d + c * st));
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
    BlastCall(o->axpby_multi(ctx, ncomp, mask, coef, d, one, x));
    BlastCall(o->axpby_multi(ctx, ncomp, mask, neg, Ad, one, r));
    BlastCall(o->jacobi(ctx, ncomp, mask, r, z));
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
    BlastCall(o->axpby_multi(ctx, ncomp, mask, one, z, coef, d));
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
    BlastCall(h->ops->momentum_rhs(h->bctx, h->rhs));
  BlastCall(HaloReverseAddDD(h, BLAST_HALO_L, dim, nl, h->rhs));
  if (h->gravity) BlastCall(h->ops->axpby(h->bctx, nown, 1.0, h->gravity, 1.0, h->rhs + nl));
  BlastCall(Sync(h));
  double t1 = BlastWtime();
  h->timers.force += t1 - t0;
  // PCG vectors have their components h1_next apart.
  for (int c = 0; c < dim; c++) BlastCall(h->ops->copy(h->bctx, nown, h->rhs + c * nl, h->cg_b + c * st));
  BlastCall(PcgLockstep(h, dim, h->cg_b, h->cg_x));
  for (int c = 0; c < dim; c++) BlastCall(h->ops->copy(h->bctx, nown, h->cg_x + c * st, dv + c * nl));
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
    BlastCall(h->ops->energy_rate(h->bctx, v, de));
  BlastCall(Sync(h));
  h->timers.force += BlastWtime() - t0;
  return 0;
}

int BlastHydroRates(BlastHydro h, const double *S, double *k) {
  const double *v = S + h->nx;
  BlastCall(BlastHydroUpdateQData(h, S));
  BlastCall(h->ops->copy(h->bctx, h->nx, v, k));               // dx/dt = v
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
  BlastCall(h->ops->energies(h->bctx, S + h->nx, S + 2 * h->nx, &loc[0], &loc[1]));
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
  if (x) BlastCall(h->ops->to_host(h->bctx, h->nx, h->S, x));
  if (v) BlastCall(h->ops->to_host(h->bctx, h->nx, h->S + h->nx, v));
  if (e) BlastCall(h->ops->to_host(h->bctx, h->ne, h->S + 2 * h->nx, e));
  return 0;
}

void BlastHydroGetBalance(BlastHydro h, BlastBalanceInfo *info) { BlastHybridGetInfo(h->hybrid, info); }
void BlastHydroSeedBalance(BlastHydro h, double gpu_fraction) {
  BlastHybridSeed(h->hybrid, gpu_fraction);
}

int BlastHydroSetState(BlastHydro h, const double *x, const double *v, const double *e) {
  BlastCall(h->ops->from_host(h->bctx, h->nx, x, h->S));
  BlastCall(h->ops->from_host(h->bctx, h->nx, v, h->S + h->nx));
  BlastCall(h->ops->from_host(h->bctx, h->ne, e, h->S + 2 * h->nx));
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
