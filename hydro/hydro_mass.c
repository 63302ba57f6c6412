// Setup of the Lagrangian operator, part 3: the mass matrices (method spec 6) and the
// communication patterns of the mass-matrix product and the L-vector ghosts.
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "hydro_setup.h"
#include "linalg.h"

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
// ghost values arrive. Row offsets are 64-bit (a Q2-Q1 rank of over ~4.1 M zones has more
// than 2^31 entries); columns and row lengths are ints (columns index the h1_next ext dofs).
int BlastSetupMassVPattern(BlastHydro h) {
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
    h->mv_rowptr[l + 1] = h->mv_rowptr[l] + cnt;
    if (cnt > maxlen) maxlen = cnt;
  }
  GidCol *gc = NULL;
  int ierr = BlastMalloc((size_t)h->mv_rowptr[nown] + 1, &h->mv_col);
  if (!ierr) ierr = BlastMalloc(maxlen + 1, &gc);
  if (ierr) {
    BlastFree(&mark);
    BlastCall(ierr);
  }
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
    for (int64_t k = h->mv_rowptr[l]; k < h->mv_rowptr[l + 1] && interior; k++)
      interior = h->mv_col[k] < nown;
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

// The reciprocal diagonal mv_dinv of the kinematic mass matrix or operator (`what`) must
// be finite and positive (finite weights can still sum to an overflow): an input error
// naming a zone of the first bad row.
int BlastSetupCheckMassDiagonal(BlastHydro h, const char *what, int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  for (int l = 0; l < s->h1_nown; l++) {
    if (isfinite(h->mv_dinv[l]) && h->mv_dinv[l] > 0.0) continue;
    const int z = s->mass_tidx[s->mass_toff[l]] / s->h1_nd;
    char where[BLAST_PATH_MAX + 64], zone[256];
    *bad_gid = s->zone_gid[z];
    BlastError(BLAST_ERR_INPUT,
               "%s: %s: the kinematic mass %s has the diagonal entry %g at H1 dof %lld "
               "(global id) of this zone, not a finite positive number: coordinates or densities "
               "too large, or too few quadrature points ([fem] order_quadrature)",
               BlastSetupMeshOrigin(h, where, sizeof where),
               BlastSetupZoneName(h, z, zone, sizeof zone), what, 1.0 / h->mv_dinv[l],
               (long long)s->h1_gid[l]);
  }
  return 0;
}

// Values of the mass matrix rows: zones summed in ascending global zone id.
// qp_c[z*nqp+q] = w |J0| rho0(x_q) for all nz_ext zones.
int BlastSetupMassVValues(BlastHydro h, const double *qp_c, int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  const int nd = s->h1_nd, nqp = h->tab->nqp, nown = s->h1_nown, next = s->h1_next;
  BlastCall(BlastCalloc((size_t)h->mv_rowptr[nown] + 1, &h->mv_val));
  BlastCall(BlastMalloc(nown + 1, &h->mv_dinv));
  int ierr = 0;
#pragma omp parallel
  {
    int *pos = NULL;  // column -> slot within the current row (rows are short: an int)
    double *row = NULL;
    int my_err = BlastMalloc(next, &pos) || BlastMalloc(nd, &row);
    if (my_err) {
#pragma omp atomic write
      ierr = 1;
    }
    if (!my_err) {
#pragma omp for schedule(dynamic, 64)
      for (int l = 0; l < nown; l++) {
        const int64_t k0 = h->mv_rowptr[l];
        const int len = (int)(h->mv_rowptr[l + 1] - k0);
        const int *col = &h->mv_col[k0];
        double *val = &h->mv_val[k0];
        for (int i = 0; i < len; i++) pos[col[i]] = i;
        for (int tt = s->mass_toff[l]; tt < s->mass_toff[l + 1]; tt++) {
          const int z = s->mass_tidx[tt] / nd, a = s->mass_tidx[tt] % nd;
          const BlastTensorTables *t = BlastHydroZoneTab(h, z);
          for (int b = 0; b < nd; b++) row[b] = 0.0;
          for (int q = 0; q < nqp; q++) {
            const double ca = qp_c[(size_t)z * nqp + q] * t->h1_B[(size_t)q * nd + a];
            for (int b = 0; b < nd; b++) row[b] += ca * t->h1_B[(size_t)q * nd + b];
          }
          for (int b = 0; b < nd; b++) val[pos[s->h1_edof[(size_t)z * nd + b]]] += row[b];
        }
        h->mv_dinv[l] = 1.0 / val[pos[l]];
      }
    }
    BlastFree(&pos);
    BlastFree(&row);
  }
  BlastCheck(!ierr, BLAST_ERR_MEM, "could not allocate mass-matrix assembly workspace");
  BlastCall(BlastSetupCheckMassDiagonal(h, "matrix", bad_gid));
  return 0;
}

typedef double V4 __attribute__((vector_size(4 * sizeof(double))));

static inline V4 LoadV4(const double *p) {  // unaligned
  V4 v;
  memcpy(&v, p, sizeof v);
  return v;
}

// One zone's M_E (method spec 6.1): M_ij = sum_q (c_q psi_i(q)) psi_j(q), every entry summed
// over the points in ascending order from 0.0 (c = rho0 |J0| w at the points, psi = l2_B).
// Blocks of 8 x 4 entries stay in registers over all points, 4 rows per vector; the
// entries outside whole blocks are summed one at a time, in the same order: every entry
// has the bits of the plain loop. cpsi: workspace of nqp ne doubles.
static void ZoneMassE(const int ne, const int nqp, const double *psi, const double *c, double *cpsi,
                      double *M) {
  for (int q = 0; q < nqp; q++)
    for (int i = 0; i < ne; i++) cpsi[(size_t)q * ne + i] = c[q] * psi[(size_t)q * ne + i];
  const int ib = ne - ne % 8, jb = ne - ne % 4;
  for (int j0 = 0; j0 < jb; j0 += 4)
    for (int i0 = 0; i0 < ib; i0 += 8) {
      const V4 zero = {0.0, 0.0, 0.0, 0.0};
      V4 m[4][2] = {{zero, zero}, {zero, zero}, {zero, zero}, {zero, zero}};
      for (int q = 0; q < nqp; q++) {
        const double *cq = &cpsi[(size_t)q * ne + i0], *pq = &psi[(size_t)q * ne + j0];
        const V4 a0 = LoadV4(cq), a1 = LoadV4(cq + 4);
        for (int jj = 0; jj < 4; jj++) {
          const double b = pq[jj];
          m[jj][0] += a0 * b;
          m[jj][1] += a1 * b;
        }
      }
      for (int jj = 0; jj < 4; jj++) {
        memcpy(&M[(size_t)(j0 + jj) * ne + i0], &m[jj][0], sizeof(V4));
        memcpy(&M[(size_t)(j0 + jj) * ne + i0 + 4], &m[jj][1], sizeof(V4));
      }
    }
  for (int j = 0; j < ne; j++)
    for (int i = j < jb ? ib : 0; i < ne; i++) {
      double sum = 0.0;
      for (int q = 0; q < nqp; q++) sum += cpsi[(size_t)q * ne + i] * psi[(size_t)q * ne + j];
      M[(size_t)j * ne + i] = sum;
    }
}

// Zone blocks of M_E (method spec 6.1) and their inverses (E1).
int BlastSetupMassEInverse(BlastHydro h, const double *qp_c, int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  const int ne = s->l2_nd, nqp = h->tab->nqp;
  BlastCall(BlastMalloc((size_t)s->nz * ne * ne, &h->me_inv));
  // Zones are independent (threads write their own blocks, with their own workspace,
  // allocated here: nothing in the threads allocates or raises errors); the lowest
  // singular zone is reported, as by a serial loop.
  const int nth = omp_get_max_threads();
  // M, the inverse's LU and solution, c psi at every point
  const size_t nws = 3 * (size_t)ne * ne + (size_t)nqp * ne;
  double *wsall;
  int *pivall;
  BlastCall(BlastMalloc(nws * nth, &wsall));
  const int ierr = BlastMalloc((size_t)ne * nth, &pivall);
  if (ierr) BlastFree(&wsall);
  BlastCall(ierr);
  int bad = INT_MAX;
#pragma omp parallel if (s->nz > 64) reduction(min : bad)
  {
    double *M = &wsall[nws * omp_get_thread_num()], *cpsi = M + 3 * (size_t)ne * ne;
    int *piv = &pivall[(size_t)ne * omp_get_thread_num()];
#pragma omp for schedule(dynamic, 32)
    for (int z = 0; z < s->nz; z++) {
      if (bad < INT_MAX) continue;
      const BlastTensorTables *t = BlastHydroZoneTab(h, z);
      ZoneMassE(ne, nqp, t->l2_B, &qp_c[(size_t)z * nqp], cpsi, M);
      for (int i = BlastGeomNumNodes(t->geom, t->m); i < ne; i++)
        M[(size_t)i * ne + i] = 1.0;  // padding (mixed meshes): the identity
      double *inv = &h->me_inv[(size_t)z * ne * ne];
      int singular = BlastDenseInverseWork(ne, M, inv, M + (size_t)ne * ne, piv);
      for (int i = 0; i < ne * ne && !singular; i++) singular = !isfinite(inv[i]);
      if (singular) bad = z;
    }
  }
  BlastFree(&wsall);
  BlastFree(&pivall);
  if (bad < INT_MAX) {
    *bad_gid = s->zone_gid[bad];
    BlastError(BLAST_ERR_NUMERIC, "zone %lld: the thermodynamic mass matrix is singular",
               (long long)s->zone_gid[bad]);
  }
  return 0;
}

// The two communication patterns: L-vector ghosts (force assembly, velocity ghost fill)
// and the ghost columns of the owned mass-matrix rows (SpMV), plus host buffers.
static int GhostLists(BlastHydro h, int nghost[2], int *idx[2], int *owner[2], int64_t *gid[2]) {
  const BlastSpace *s = h->space;
  const int nown = s->h1_nown;
  nghost[0] = s->h1_nl - nown, nghost[1] = 0;
  // Column ghosts: ext columns referenced by owned rows (partial assembly: the dofs of
  // every zone, halo zones included, which is the same set), ascending.
  char *used;
  BlastCall(BlastCalloc(s->h1_next + 1, &used));
  if (h->mv_rowptr) {
    for (int64_t k = 0; k < h->mv_rowptr[nown]; k++) used[h->mv_col[k]] = 1;
  } else {
    for (size_t k = 0; k < (size_t)s->nz_ext * s->h1_nd; k++) used[s->h1_edof[k]] = 1;
  }
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

int BlastSetupHalos(BlastHydro h) {
  const BlastSpace *s = h->space;
  int nghost[2] = {0, 0}, *idx[2] = {NULL, NULL}, *owner[2] = {NULL, NULL};
  int64_t *gid[2] = {NULL, NULL};
  // The lists are local work: agree on them before the collective halo creation.
  int ierr = BlastSetupAgree(h, GhostLists(h, nghost, idx, owner, gid), kNoZone);
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

// M_V g_h with the constant g interpolated at the nodes, unconstrained: the components with
// g_c != 0 on the owned rows.
void BlastSetupMassVGravity(BlastHydro h, const double *g, double *gravity) {
  const int dim = h->space->dim, nown = h->space->h1_nown;
  for (int c = 0; c < dim; c++) {
    if (g[c] == 0.0) continue;
    for (int l = 0; l < nown; l++) {
      double sum = 0.0;
      for (int64_t kk = h->mv_rowptr[l]; kk < h->mv_rowptr[l + 1]; kk++)
        sum += h->mv_val[kk] * g[c];
      gravity[(size_t)c * nown + l] = sum;
    }
  }
}
