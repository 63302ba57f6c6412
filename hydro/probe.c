// What the time history records (probe.h): totals, mesh quality, values at fixed points.
#include "probe.h"

#include <math.h>
#include <stdint.h>

#include "blast_mpi.h"
#include "ddsum.h"
#include "hydro-impl.h"
#include "qpoint.h"
#include "simplex.h"

// X = sum_a x_a phi_a and J[c + dim*g] = dX_c/dxi_g of zone z (host L-vector x).
static void ZoneMap(const BlastSpace *s, const double *x, int z, const double *phi,
                    const double *dphi, double *X, double *J) {
  const int dim = s->dim, nd = s->h1_nd, nl = s->h1_nl;
  for (int i = 0; i < dim * dim; i++) J[i] = 0.0;
  for (int c = 0; c < dim; c++) {
    X[c] = 0.0;
    for (int a = 0; a < nd; a++) {
      const double xa = x[(size_t)c * nl + s->h1_edof[(size_t)z * nd + a]];
      X[c] += xa * phi[a];
      for (int g = 0; g < dim; g++) J[c + dim * g] += xa * dphi[a * dim + g];
    }
  }
}

// sigma_max / sigma_min of J (sigma_max(J) = 1 / sigma_min(J^-1)).
static double AspectRatio(int dim, const double *J) {
  if (dim == 1) return 1.0;
  const double det = BlastMatDet(dim, J);
  if (!(det != 0.0)) return HUGE_VAL;
  double inv[9];
  BlastMatInverse(dim, J, inv);
  const double smin = BlastSigmaMin(dim, J), smin_inv = BlastSigmaMin(dim, inv);
  const double r = 1.0 / (smin * smin_inv);
  return r >= 1.0 ? r : 1.0;  // rounding of a square zone's 1
}

int BlastHydroHistoryValues(BlastHydro h, const double *x, const double *v,
                            BlastHydroHistory *out) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, nd = s->h1_nd, nl = s->h1_nl, nqp = h->tab->nqp, nz = s->nz;
  double *xh = NULL;
  if (!x) {
    BlastCall(BlastMalloc(h->nx, &xh));
    BlastCall(BlastHydroGetState(h, xh, NULL, NULL));
    x = xh;
  }
  const double *x0 = h->x0_host;
  double jmin = HUGE_VAL, amax = 0.0;
  BlastDD sum[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};  // mass, momentum
#pragma omp parallel
  {
    BlastDD loc[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    double tjmin = HUGE_VAL, tamax = 0.0;
#pragma omp for schedule(static)
    for (int z = 0; z < nz; z++)
      for (int q = 0; q < nqp; q++) {
        const BlastTensorTables *t = BlastHydroZoneTab(h, z);
        if (t->qp_wk && t->qp_w[q] == 0.0) continue;  // a padded point (mixed meshes)
        const double *phi = &t->h1_B[(size_t)q * nd], *dphi = &t->h1_G[(size_t)q * nd * dim];
        double X[3], J[9], J0[9];
        ZoneMap(s, x, z, phi, dphi, X, J);
        ZoneMap(s, x0, z, phi, dphi, X, J0);
        tjmin = fmin(tjmin, BlastMatDet(dim, J) / BlastMatDet(dim, J0));
        tamax = fmax(tamax, AspectRatio(dim, J));
        const double m = h->qp_R0[(size_t)z * nqp + q];
        BlastDDAdd(&loc[0], m);
        for (int c = 0; v && c < dim; c++) {
          double vc = 0.0;
          for (int a = 0; a < nd; a++)
            vc += v[(size_t)c * nl + s->h1_edof[(size_t)z * nd + a]] * phi[a];
          BlastDDAdd(&loc[1 + c], m * vc);
        }
      }
#pragma omp critical(blast_history_sum)
    {
      for (int i = 0; i < 4; i++) BlastDDAddDD(&sum[i], loc[i].hi, loc[i].lo);
      jmin = fmin(jmin, tjmin), amax = fmax(amax, tamax);
    }
  }
  BlastFree(&xh);
  double pairs[8], glob[8];
  for (int i = 0; i < 4; i++) {
    BlastDDNormalize(&sum[i]);
    pairs[2 * i] = sum[i].hi, pairs[2 * i + 1] = sum[i].lo;
  }
  BlastCallMPI(MPI_Allreduce(pairs, glob, 4, h->dd_type, h->dd_op, h->comm));
  double q[2] = {jmin, -amax}, gq[2];
  BlastCallMPI(MPI_Allreduce(q, gq, 2, MPI_DOUBLE, MPI_MIN, h->comm));
  out->mass = glob[0];
  for (int c = 0; c < 3; c++) out->momentum[c] = c < dim && v ? glob[2 + 2 * c] : 0.0;
  out->min_jratio = gq[0];
  out->max_aspect = -gq[1];
  return 0;
}

// ---------------------------------------------------------------------------------------
// Probes

enum { kNewtonIters = 40 };

// Scratch of one point search: the H1 basis at a reference point.
typedef struct {
  double *phi, *dphi;
} Basis;

// The reference point xi of zone z whose image is p, if there is one in the closed
// reference element (to a tolerance of 1e-10; simplices: xi_g >= 0 and sum xi_g <= 1):
// 1 and xi, else 0. Newton on the zone map from the reference centroid.
static int Locate(BlastHydro h, const double *x, int z, const double *p, Basis *b, double *xi) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, nd = s->h1_nd, nl = s->h1_nl;
  // Bounding box of the zone's nodes, widened by a tenth (a curved zone's edges may bulge
  // past its nodes).
  double lo[3], hi[3], size = 0.0;
  for (int c = 0; c < dim; c++) {
    lo[c] = HUGE_VAL, hi[c] = -HUGE_VAL;
    for (int a = 0; a < nd; a++) {
      const double xa = x[(size_t)c * nl + s->h1_edof[(size_t)z * nd + a]];
      lo[c] = fmin(lo[c], xa), hi[c] = fmax(hi[c], xa);
    }
    size = fmax(size, hi[c] - lo[c]);
  }
  for (int c = 0; c < dim; c++)
    if (p[c] < lo[c] - 0.1 * size || p[c] > hi[c] + 0.1 * size) return 0;
  BlastRefCentroid(BlastHydroZoneTab(h, z)->geom, xi);
  double X[3], J[9], inv[9], step = HUGE_VAL;
  for (int it = 0; it < kNewtonIters && step > 1e-14; it++) {
    BlastH1BasisEval(BlastHydroZoneTab(h, z), xi, b->phi, b->dphi);
    ZoneMap(s, x, z, b->phi, b->dphi, X, J);
    if (!(BlastMatDet(dim, J) != 0.0)) return 0;
    BlastMatInverse(dim, J, inv);
    step = 0.0;
    for (int g = 0; g < dim; g++) {
      double d = 0.0;
      for (int c = 0; c < dim; c++) d += inv[g + dim * c] * (p[c] - X[c]);
      xi[g] = fmin(fmax(xi[g] + d, -1.0), 2.0);  // far outside: no need to follow it
      step = fmax(step, fabs(d));
    }
  }
  BlastH1BasisEval(BlastHydroZoneTab(h, z), xi, b->phi, b->dphi);
  ZoneMap(s, x, z, b->phi, b->dphi, X, J);
  double res = 0.0;
  for (int c = 0; c < dim; c++) res = fmax(res, fabs(p[c] - X[c]));
  if (!BlastRefContains(BlastHydroZoneTab(h, z)->geom, xi, 1e-10)) return 0;
  return res <= 1e-10 * (size > 0.0 ? size : 1.0);
}

// The solution at reference point xi of zone z. Density as the dumps have it: rho0 at the
// initial position (moved a hair towards the zone's centre: faces on material interfaces)
// times det J0 / det J; the zone's material for the pressure.
static void PointValues(BlastHydro h, const double *x, const double *v, const double *e, int z,
                        const double *xi, Basis *b, double *psi, double *out) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, nd = s->h1_nd, nl = s->h1_nl, ne = s->l2_nd;
  double centre[3] = {0.5, 0.5, 0.5};
  BlastRefCentroid(BlastHydroZoneTab(h, z)->geom, centre);
  double X[3], J[9], X0[3], J0[9], Xc[3], Jc[9];
  BlastH1BasisEval(BlastHydroZoneTab(h, z), centre, b->phi, b->dphi);
  ZoneMap(s, h->x0_host, z, b->phi, b->dphi, Xc, Jc);
  BlastH1BasisEval(BlastHydroZoneTab(h, z), xi, b->phi, b->dphi);
  ZoneMap(s, x, z, b->phi, b->dphi, X, J);
  ZoneMap(s, h->x0_host, z, b->phi, b->dphi, X0, J0);
  double Xin[3] = {0, 0, 0};
  for (int c = 0; c < dim; c++) Xin[c] = Xc[c] + (1.0 - 1e-9) * (X0[c] - Xc[c]);
  const double detJ = BlastMatDet(dim, J), detJ0 = BlastMatDet(dim, J0);
  const double rho = detJ != 0.0 ? BlastHydroInitialDensity(h, z, Xin) * (detJ0 / detJ) : NAN;
  BlastL2BasisEval(BlastHydroZoneTab(h, z), xi, psi);
  double ev = 0.0;
  for (int j = 0; j < ne; j++) ev += psi[j] * e[(size_t)z * ne + j];
  double p, cs;
  BlastEos(&h->mats[h->zone_mat[z]], rho, ev, &p, &cs);
  out[BLAST_PROBE_RHO] = rho;
  out[BLAST_PROBE_P] = p;
  out[BLAST_PROBE_E] = ev;
  for (int c = 0; c < 3; c++) {
    double vc = 0.0;
    for (int a = 0; c < dim && a < nd; a++)
      vc += v[(size_t)c * nl + s->h1_edof[(size_t)z * nd + a]] * b->phi[a];
    out[BLAST_PROBE_V + c] = vc;
  }
}

int BlastHydroProbe(BlastHydro h, const double *x, const double *v, const double *e, int n,
                    const double *points, int *found, double *values) {
  if (n <= 0) return 0;
  const BlastSpace *s = h->space;
  const int dim = s->dim;
  Basis b = {NULL, NULL};
  double *psi = NULL, *vals = NULL, *xi = NULL;
  int64_t *gid = NULL, *ggid = NULL;
  int *zone = NULL;
  BlastCall(BlastMalloc(s->h1_nd, &b.phi));
  BlastCall(BlastMalloc((size_t)s->h1_nd * dim, &b.dphi));
  BlastCall(BlastMalloc(s->l2_nd, &psi));
  BlastCall(BlastMalloc((size_t)n * 3, &xi));
  BlastCall(BlastMalloc(n, &gid));
  BlastCall(BlastMalloc(n, &ggid));
  BlastCall(BlastMalloc(n, &zone));
  // Each point's zone here: the smallest global id among the zones that hold it.
  for (int i = 0; i < n; i++) {
    gid[i] = INT64_MAX, zone[i] = -1;
    double r[3];
    for (int z = 0; z < s->nz; z++)
      if (s->zone_gid[z] < gid[i] && Locate(h, x, z, &points[3 * i], &b, r)) {
        gid[i] = s->zone_gid[z], zone[i] = z;
        for (int g = 0; g < dim; g++) xi[3 * i + g] = r[g];
      }
  }
  BlastCallMPI(MPI_Allreduce(gid, ggid, n, MPI_INT64_T, MPI_MIN, h->comm));
  if (values) {
    // The rank that holds the zone answers; the others add zeros (x + 0 = x).
    BlastCall(BlastCalloc((size_t)n * BLAST_PROBE_NVAL, &vals));
    for (int i = 0; i < n; i++)
      if (zone[i] >= 0 && gid[i] == ggid[i])
        PointValues(h, x, v, e, zone[i], &xi[3 * i], &b, psi, &vals[(size_t)i * BLAST_PROBE_NVAL]);
    BlastCallMPI(MPI_Allreduce(vals, values, n * BLAST_PROBE_NVAL, MPI_DOUBLE, MPI_SUM, h->comm));
  }
  for (int i = 0; i < n; i++) {
    found[i] = ggid[i] != INT64_MAX;
    for (int j = 0; values && !found[i] && j < BLAST_PROBE_NVAL; j++)
      values[(size_t)i * BLAST_PROBE_NVAL + j] = NAN;
  }
  BlastFree(&b.phi), BlastFree(&b.dphi), BlastFree(&psi), BlastFree(&xi);
  BlastFree(&gid), BlastFree(&ggid), BlastFree(&zone), BlastFree(&vals);
  return 0;
}
