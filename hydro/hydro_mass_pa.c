// Setup of the partial-assembly (matrix-free) momentum mass operator (pa_kernels.h): the
// zone order of its action, the interior/boundary row split, the Jacobi diagonal and
// M_V g, all from the quadrature data rho0 |J0| w without a matrix.
#include <math.h>
#include <omp.h>
#include <string.h>

#include "ddsum.h"
#include "hydro_setup.h"
#include "pa_kernels.h"

enum { kMaxNd = (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 1) };

// Zones whose dofs are all owned first (their action needs no ghost values), then the
// others; rows whose zones are all of the first kind first (mv_rows, mv_ninterior).
int BlastSetupMassVPartialPattern(BlastHydro h) {
  const BlastSpace *s = h->space;
  const int nd = s->h1_nd, nown = s->h1_nown, nze = s->nz_ext;
  char *inner;
  BlastCall(BlastMalloc(nze + 1, &inner));
  int nin = 0;
#pragma omp parallel for schedule(static) reduction(+ : nin)
  for (int z = 0; z < nze; z++) {
    int in = 1;
    for (int a = 0; a < nd && in; a++) in = s->h1_edof[(size_t)z * nd + a] < nown;
    inner[z] = (char)in;
    nin += in;
  }
  int ierr = BlastMalloc(nze + 1, &h->pa_zones);
  if (!ierr) ierr = BlastMalloc(nown + 1, &h->mv_rows);
  if (ierr) {
    BlastFree(&inner);
    BlastCall(ierr);
  }
  for (int z = 0, i0 = 0, i1 = nin; z < nze; z++) h->pa_zones[inner[z] ? i0++ : i1++] = z;
  h->pa_nzint = nin;
  // The rows' kinds (mv_rows holds them until the rows are listed).
  int nrin = 0, *row_in = h->mv_rows;
#pragma omp parallel for schedule(static) reduction(+ : nrin)
  for (int l = 0; l < nown; l++) {
    int in = 1;
    for (int t = s->mass_toff[l]; t < s->mass_toff[l + 1] && in; t++)
      in = inner[s->mass_tidx[t] / nd];
    row_in[l] = in;
    nrin += in;
  }
  BlastFree(&inner);
  int *order;
  BlastCall(BlastMalloc(nown + 1, &order));
  for (int l = 0, i0 = 0, i1 = nrin; l < nown; l++) order[row_in[l] ? i0++ : i1++] = l;
  memcpy(h->mv_rows, order, sizeof(int) * nown);
  BlastFree(&order);
  h->hd.mv_ninterior = nrin;
  return 0;
}

// y[l] for the owned dofs: the zone values E[z*nd + a] summed over each dof's zones in
// ascending global zone id (mass_toff/mass_tidx), in double-double, rounded once.
static void GatherOwned(const BlastSpace *s, const double *E, double *y) {
#pragma omp parallel for schedule(static)
  for (int l = 0; l < s->h1_nown; l++) {
    BlastDD acc = {0.0, 0.0};
    for (int t = s->mass_toff[l]; t < s->mass_toff[l + 1]; t++)
      BlastDDAdd(&acc, E[s->mass_tidx[t]]);
    BlastDDNormalize(&acc);
    y[l] = acc.hi;
  }
}

// The scalar mass operator's diagonal (sum_q qm B_a(q)^2 per zone: B^T with squared 1D
// values) and, when gy != NULL, M_V applied to the constant g[c] (gravity) into
// gy[c*nown ..] for the components with g[c] != 0.
static int PartialScalars(BlastHydro h, const double *qp_c, double *diag, const double *g,
                          double *gy) {
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab;
  const int dim = s->dim, D = t->k + 1, Q = t->q1d, nd = s->h1_nd, nq = t->nqp;
  double B2[BLAST_MAX_Q1D * (BLAST_MAX_ORDER + 1)], *E = NULL, ones[kMaxNd];
  for (int i = 0; i < Q * D; i++) B2[i] = t->b1d[i] * t->b1d[i];
  const int n = D > Q ? D : Q;
  const size_t nws = (size_t)nq + BLAST_PA_CONTRACT_WS(n) + 1;
  // Zones are independent (each writes its own E block, with its thread's workspace); the
  // owned rows then sum their zones' values in a fixed order (GatherOwned).
  const int nth = omp_get_max_threads();
  double *wsall = NULL;
  int ierr = BlastMalloc((size_t)s->nz_ext * nd + 1, &E);
  if (!ierr) ierr = BlastMalloc(nws * nth, &wsall);
  for (int pass = 0; pass < (gy ? 1 + dim : 1) && !ierr; pass++) {
    if (pass > 0 && g[pass - 1] == 0.0) continue;
    for (int a = 0; a < nd && pass > 0; a++) ones[a] = g[pass - 1];
#pragma omp parallel
    {
      double *ws = &wsall[nws * omp_get_thread_num()];
#pragma omp for schedule(static)
      for (int z = 0; z < s->nz_ext; z++) {
        if (pass == 0)
          BlastPaInterpT(dim, D, Q, B2, &qp_c[(size_t)z * nq], &E[(size_t)z * nd], ws);
        else
          BlastPaMassZone(dim, D, Q, t->b1d, &qp_c[(size_t)z * nq], 1, 1u, ones, 0,
                          &E[(size_t)z * nd], 0, ws);
      }
    }
    GatherOwned(s, E, pass == 0 ? diag : &gy[(size_t)(pass - 1) * s->h1_nown]);
  }
  BlastFree(&E);
  BlastFree(&wsall);
  BlastCall(ierr);
  return 0;
}

int BlastSetupMassVPartialValues(BlastHydro h, const double *qp_c, const double *g, double *gravity,
                                 int64_t *bad_gid) {
  const BlastSpace *s = h->space;
  const int nown = s->h1_nown;
  BlastCall(BlastMalloc(nown + 1, &h->mv_dinv));
  BlastCall(PartialScalars(h, qp_c, h->mv_dinv, g, gravity));
  for (int l = 0; l < nown; l++) h->mv_dinv[l] = 1.0 / h->mv_dinv[l];
  BlastCall(BlastSetupCheckMassDiagonal(h, "operator", bad_gid));
  return 0;
}
