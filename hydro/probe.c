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

// The box that may hold zone z: its nodes' bounding box widened by a tenth of its largest
// side `size` (a curved zone's edges may bulge past its nodes). No point outside it is in
// the zone.
static void ZoneBox(const BlastSpace *s, const double *x, int z, double *lo, double *hi,
                    double *size_out) {
  const int dim = s->dim, nd = s->h1_nd, nl = s->h1_nl;
  double size = 0.0;
  for (int c = 0; c < dim; c++) {
    lo[c] = HUGE_VAL, hi[c] = -HUGE_VAL;
    for (int a = 0; a < nd; a++) {
      const double xa = x[(size_t)c * nl + s->h1_edof[(size_t)z * nd + a]];
      lo[c] = xa < lo[c] ? xa : lo[c], hi[c] = xa > hi[c] ? xa : hi[c];  // fmin, fmax: NaN skipped
    }
    const double side = hi[c] - lo[c];
    size = side > size ? side : size;
  }
  for (int c = 0; c < dim; c++) lo[c] -= 0.1 * size, hi[c] += 0.1 * size;
  *size_out = size;
}

// The reference point xi of zone z whose image is p, if there is one in the closed
// reference element (to a tolerance of 1e-10; simplices: xi_g >= 0 and sum xi_g <= 1):
// 1 and xi, else 0. Newton on the zone map from the reference centroid.
static int Locate(BlastHydro h, const double *x, int z, const double *p, Basis *b, double *xi) {
  const BlastSpace *s = h->space;
  const int dim = s->dim;
  double lo[3], hi[3], size;
  ZoneBox(s, x, z, lo, hi, &size);
  for (int c = 0; c < dim; c++)
    if (p[c] < lo[c] || p[c] > hi[c]) return 0;
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

// The rank's zones binned on a uniform grid by the boxes that may hold them (ZoneBox), so
// that a point is looked for only among the zones of its bin: one pass over the zones per
// call, then O(zones per bin) per point rather than O(zones). Each bin lists its zones in
// ascending local number; a zone whose box is not finite is in `all`, checked for every
// point. A point is in a zone only if it is in the zone's box, hence in a bin the box
// overlaps: the zones found are those of a scan of every zone.
typedef struct {
  int dim, nb[3], nall;
  double lo[3], w[3], inv_w[3];
  int *start, *list, *all;  // bin b: list[start[b] .. start[b+1])
} ZoneGrid;

// The bin along axis c of coordinate t (clamped to the grid; NaN: 0). Non-decreasing in t.
static int GridBin(const ZoneGrid *g, int c, double t) {
  const double f = (t - g->lo[c]) * g->inv_w[c];  // monotone in t; (int) is floor for f > 0
  if (!(f > 0.0)) return 0;
  return f >= g->nb[c] - 1 ? g->nb[c] - 1 : (int)f;
}

// The bins b0..b1 (per axis) that the box lo[dim], hi[dim] overlaps; returns their number.
static size_t GridRange(const ZoneGrid *g, const double *box, int *b0, int *b1) {
  size_t n = 1;
  b0[1] = b0[2] = b1[1] = b1[2] = 0;
  for (int c = 0; c < g->dim; c++) {
    b0[c] = GridBin(g, c, box[c]), b1[c] = GridBin(g, c, box[g->dim + c]);
    n *= (size_t)(b1[c] - b0[c] + 1);
  }
  return n;
}

// Counts zone z in every bin its box overlaps (list NULL), or puts it at count[b] there.
static void GridAdd(const ZoneGrid *g, const double *box, int *count, int *list, int z) {
  int b0[3], b1[3];
  GridRange(g, box, b0, b1);
  for (int k = b0[2]; k <= b1[2]; k++)
    for (int j = b0[1]; j <= b1[1]; j++)
      for (int i = b0[0]; i <= b1[0]; i++) {
        const int b = i + g->nb[0] * (j + g->nb[1] * k);
        if (list) list[count[b]] = z;
        count[b]++;
      }
}

static void GridFree(ZoneGrid *g) {
  BlastFree(&g->start), BlastFree(&g->list), BlastFree(&g->all);
}

static int GridCreate(const BlastSpace *s, const double *x, ZoneGrid *g) {
  const int dim = s->dim, nz = s->nz;
  double *box = NULL, glo[3] = {0, 0, 0}, ghi[3] = {0, 0, 0}, size;
  int *count = NULL, nfin = 0;
  *g = (ZoneGrid){.dim = dim, .nb = {1, 1, 1}, .w = {1, 1, 1}, .inv_w = {1, 1, 1}};
  BlastCall(BlastMalloc((size_t)2 * dim * (nz > 0 ? nz : 1), &box));
  BlastCall(BlastMalloc(nz > 0 ? nz : 1, &g->all));
  for (int c = 0; c < dim; c++) glo[c] = HUGE_VAL, ghi[c] = -HUGE_VAL;
  for (int z = 0; z < nz; z++) {
    double *bz = &box[(size_t)2 * dim * z];
    ZoneBox(s, x, z, bz, bz + dim, &size);
    int finite = 1;
    for (int c = 0; c < 2 * dim; c++) finite = finite && isfinite(bz[c]);
    if (!finite) {
      g->all[g->nall++] = z, bz[0] = NAN;  // NaN: not binned
      continue;
    }
    nfin++;
    for (int c = 0; c < dim; c++) glo[c] = fmin(glo[c], bz[c]), ghi[c] = fmax(ghi[c], bz[dim + c]);
  }
  // About one bin per zone, cubic in the domain's box (at most 4 per zone); coarser while
  // the zones' boxes would put more than 8 entries per zone in the bins' lists (sheared or
  // graded zones), which also bounds the work of the counting pass.
  double vol = 1.0;
  for (int c = 0; c < dim; c++) g->lo[c] = nfin ? glo[c] : 0.0, vol *= nfin ? ghi[c] - glo[c] : 0.0;
  const double side = vol > 0.0 ? pow(vol / nfin, 1.0 / dim) : 0.0;
  for (int c = 0; c < dim; c++)
    if (side > 0.0) g->nb[c] = (int)fmin(fmax(ceil((ghi[c] - glo[c]) / side), 1.0), 1 << 20);
  for (;;) {
    int cmax = 0;
    double nbins = 1.0;
    for (int c = 0; c < dim; c++) {
      nbins *= g->nb[c];
      if (g->nb[c] > g->nb[cmax]) cmax = c;
    }
    if (nbins <= 4.0 * nfin + 64.0) break;
    g->nb[cmax] = (g->nb[cmax] + 1) / 2;
  }
  const size_t limit = (size_t)8 * nfin + 64;
  size_t total;
  for (;;) {
    size_t nbins = 1;
    for (int c = 0; c < dim; c++) {
      g->w[c] = side > 0.0 ? (ghi[c] - glo[c]) / g->nb[c] : 1.0, g->inv_w[c] = 1.0 / g->w[c];
      nbins *= (size_t)g->nb[c];
    }
    BlastFree(&count);
    BlastCall(BlastCalloc(nbins + 1, &count));
    total = 0;
    for (int z = 0; z < nz && total <= limit; z++) {
      const double *bz = &box[(size_t)2 * dim * z];
      int b0[3], b1[3];
      if (isnan(bz[0])) continue;
      total += GridRange(g, bz, b0, b1);
      if (total <= limit) GridAdd(g, bz, count, NULL, z);
    }
    if (total <= limit || nbins == 1) {  // one bin: every zone once, within the limit
      BlastCall(BlastMalloc(nbins + 1, &g->start));
      g->start[0] = 0;
      for (size_t b = 0; b < nbins; b++)
        g->start[b + 1] = g->start[b] + count[b], count[b] = g->start[b];
      break;
    }
    for (int c = 0; c < dim; c++) g->nb[c] = (g->nb[c] + 1) / 2;
  }
  BlastCall(BlastMalloc(total > 0 ? total : 1, &g->list));
  for (int z = 0; z < nz; z++)  // ascending z: each bin's list is sorted
    if (!isnan(box[(size_t)2 * dim * z])) GridAdd(g, &box[(size_t)2 * dim * z], count, g->list, z);
  BlastFree(&box), BlastFree(&count);
  return 0;
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
  // Each point's zone here: the smallest global id among the zones that hold it, looked
  // for among the zones of its bin and those of no bin.
  ZoneGrid grid;
  BlastCall(GridCreate(s, x, &grid));
  for (int i = 0; i < n; i++) {
    gid[i] = INT64_MAX, zone[i] = -1;
    const double *p = &points[3 * i];
    int bin = 0;  // a point outside the grid: an edge bin, whose zones do not hold it
    for (int c = dim - 1; c >= 0; c--) bin = bin * grid.nb[c] + GridBin(&grid, c, p[c]);
    const int nbin = grid.start[bin + 1] - grid.start[bin];
    for (int k = 0; k < nbin + grid.nall; k++) {
      const int z = k < nbin ? grid.list[grid.start[bin] + k] : grid.all[k - nbin];
      double r[3];
      if (s->zone_gid[z] < gid[i] && Locate(h, x, z, p, &b, r)) {
        gid[i] = s->zone_gid[z], zone[i] = z;
        for (int g = 0; g < dim; g++) xi[3 * i + g] = r[g];
      }
    }
  }
  GridFree(&grid);
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
