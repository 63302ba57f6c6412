// The full-assembly mode of the CPU backend (cpu_ctx.h): the zone force matrices
// F_z = A_z B^T from the quadrature data, their actions -F_z 1 and F_z^T v, and the
// assembled scalar mass matrix (BlastFullData) applied row by row.
#include <math.h>
#include <omp.h>
#include <string.h>

#include "blast.h"
#include "cpu_ctx.h"
#include "problems/problems.h"
#include "qpoint_lanes.h"

#define ACTIVE(mask, c) (((mask) >> (c)) & 1u)

// Quadrature data and force matrix of one zone from its E-vectors xz, vz (component-major,
// dim * h1_nd) and ez (method spec sections 5 and 8). F receives F_z (column-major), tg
// the Taylor-Green source integrals (or NULL); ws holds nqp (d^2 + 21) + d h1_nd doubles.
// J, grad v and e at every point first, then the point kernel (2D/3D: on 4 points at once
// in vector lanes, qpoint_lanes.h, the same bits), then the reductions point by point.
static void ZoneKernel(const BlastHydroData *hd, int z, const double *xz, const double *vz,
                       const double *ez, double *F, double *tg, double *ws, double *dt_min,
                       int *tangled, double *tangled_det) {
  const int dim = hd->dim, nd = hd->h1_nd, ne = hd->l2_nd, nqp = hd->nqp;
  const int rows = dim * nd, d2 = dim * dim;
  double *S = ws, *A = S + nqp * d2, *Jp = A + rows, *Gp = Jp + 9 * nqp, *eqs = Gp + 9 * nqp;
  double *dets = eqs + nqp, *dts = dets + nqp;
  const BlastMaterial *mat = &hd->mats[hd->zone_mat[z]];
  const size_t z0 = (size_t)z * nqp;
  const size_t sl = hd->zone_slot ? hd->zone_slot[z] : 0;  // mixed meshes: the zone's tables
  const double *h1_G = hd->h1_G + sl * nqp * nd * dim, *h1_B = hd->h1_B + sl * nqp * nd;
  const double *l2_B = hd->l2_B + sl * nqp * ne, *qp_w = hd->qp_w + sl * nqp;
  if (tg)
    for (int j = 0; j < ne; j++) tg[j] = 0.0;
  for (int q = 0; q < nqp; q++) {  // entry i of J at point q: Jp[i * nqp + q]
    const double *G = &h1_G[(size_t)q * nd * dim];
    double J[9] = {0}, Gv[9] = {0};
    for (int a = 0; a < nd; a++)  // each entry sums over the nodes in ascending order
      for (int cc = 0; cc < dim; cc++) {
        const double xa = xz[cc * nd + a], va = vz[cc * nd + a];
        for (int g = 0; g < dim; g++) {
          J[cc + dim * g] += xa * G[a * dim + g];
          Gv[cc + dim * g] += va * G[a * dim + g];
        }
      }
    for (int i = 0; i < d2; i++) Jp[i * nqp + q] = J[i], Gp[i * nqp + q] = Gv[i];
    double eq = 0.0;
    for (int i = 0; i < ne; i++) eq += ez[i] * l2_B[(size_t)q * ne + i];
    eqs[q] = eq;
  }
  if (dim == 1) {
    for (int q = 0; q < nqp; q++)
      dets[q] = BlastPointStress(1, &hd->qpar, mat, &Jp[q], &Gp[q], &hd->full.J0inv[z0 + q],
                                 hd->qp_R0[z0 + q], qp_w[q], eqs[q], &S[q], &dts[q]);
  } else {
    for (int q0 = 0; q0 < nqp; q0 += BLAST_QV_W) {
      const int n = nqp - q0 < BLAST_QV_W ? nqp - q0 : BLAST_QV_W;
      BlastQV J[9], Gv[9], J0i[9], Sv[9], dtq;
      for (int i = 0; i < d2; i++) {
        J[i] = BlastQVLoad(Jp + i * nqp + q0, n), Gv[i] = BlastQVLoad(Gp + i * nqp + q0, n);
        for (int l = 0; l < BLAST_QV_W; l++)
          J0i[i][l] = hd->full.J0inv[(z0 + q0 + (l < n ? l : n - 1)) * d2 + i];
      }
      const BlastQV det =
          BlastQVPointStress(dim, &hd->qpar, mat, J, Gv, J0i, BlastQVLoad(&hd->qp_R0[z0 + q0], n),
                             BlastQVLoad(&qp_w[q0], n), BlastQVLoad(eqs + q0, n), Sv, &dtq);
      for (int l = 0; l < n; l++)
        for (int i = 0; i < d2; i++) S[(q0 + l) * d2 + i] = Sv[i][l];
      BlastQVStore(dets + q0, det, n), BlastQVStore(dts + q0, dtq, n);
    }
  }
  for (int q = 0; q < nqp; q++) {
    const double det = dets[q];
    BlastQPointReport(z, det, dts[q], dt_min, tangled, tangled_det);
    if (tg) {
      double X[3] = {0, 0, 0};
      for (int cc = 0; cc < dim; cc++)
        for (int a = 0; a < nd; a++) X[cc] += xz[cc * nd + a] * h1_B[(size_t)q * nd + a];
      const double src = qp_w[q] * det * BlastTaylorGreenSource(X);
      for (int j = 0; j < ne; j++) tg[j] += src * l2_B[(size_t)q * ne + j];
    }
  }
  // F_z = A_z B^T with A_(a,c),q = (S_q grad phi_a(q))_c, accumulated point by point.
  for (int i = 0; i < rows * ne; i++) F[i] = 0.0;
  for (int q = 0; q < nqp; q++) {
    const double *G = &h1_G[(size_t)q * nd * dim], *Sq = &S[q * d2];
    for (int cc = 0; cc < dim; cc++)
      for (int a = 0; a < nd; a++) {
        double sum = 0.0;
        for (int g = 0; g < dim; g++) sum += Sq[cc + dim * g] * G[a * dim + g];
        A[cc * nd + a] = sum;
      }
    const double *Bq = &l2_B[(size_t)q * ne];
    for (int j = 0; j < ne; j++) {
      const double b = Bq[j];
      double *Fj = &F[(size_t)rows * j];
      for (int r = 0; r < rows; r++) Fj[r] += A[r] * b;
    }
  }
}

// r = -F_z 1 (kernel 8), the same order of terms on every backend.
static void ZoneForceOnes(int rows, int ne, const double *F, double *r) {
  for (int i = 0; i < rows; i++) r[i] = 0.0;
  for (int j = 0; j < ne; j++)
    for (int i = 0; i < rows; i++) r[i] -= F[(size_t)rows * j + i];
}

// b = F_z^T v_z (kernel 10) plus the source integrals tg (or NULL).
static void ZoneForceT(int rows, int ne, const double *F, const double *vz, const double *tg,
                       double *b) {
  for (int j = 0; j < ne; j++) {
    double s = 0.0;
    for (int i = 0; i < rows; i++) s += F[(size_t)rows * j + i] * vz[i];
    b[j] = tg ? s + tg[j] : s;
  }
}

static int FullCreate(const BlastHydroData *hd, int context, void **md) {
  (void)hd, (void)context;
  *md = NULL;  // the mode reads BlastHydroData's full data in place
  return 0;
}

static void FullDestroy(void **md) {
  *md = NULL;
}

static int FullRebuild(void *md, const BlastHydroData *hd) {
  (void)md, (void)hd;  // read in place
  return 0;
}

// x, v E-vectors, e, then the zone kernel's scratch: nqp (d^2 + 21) + d h1_nd (+ slack)
static size_t FullWorkspace(const BlastHydroData *hd) {
  return 2 * (size_t)hd->dim * hd->h1_nd + hd->l2_nd + hd->nqp * ((size_t)hd->dim * hd->dim + 21) +
         hd->dim * hd->h1_nd + 16;
}

static int FullReserve(const BlastHydroData *hd, int n, int context, CpuZoneStore *st) {
  const size_t rows = (size_t)hd->dim * hd->h1_nd, ne = hd->l2_nd;
  (void)context;
  BlastCall(BlastRealloc((size_t)n * rows * ne, &st->F));
  BlastCall(BlastRealloc((size_t)n * rows, &st->rE));
  if (hd->tg_source) BlastCall(BlastRealloc((size_t)n * ne, &st->tg));
  st->cap = n;
  return 0;
}

static double FullStoreDoubles(const BlastHydroData *hd) {
  const double nz = hd->nz, rows = (double)hd->dim * hd->h1_nd, ne = hd->l2_nd;
  return nz * rows * ne + nz * rows;
}

static void FullZone(const ZoneRange *zr, int z, size_t f, const double *xz, const double *vz,
                     const double *ez, double *ws, double *dt_min, int *tangled,
                     double *tangled_det) {
  const BlastHydroData *hd = zr->hd;
  const size_t rows = (size_t)hd->dim * hd->h1_nd, ne = hd->l2_nd;
  ZoneKernel(hd, z, xz, vz, ez, &zr->st->F[f * rows * ne], zr->st->tg ? &zr->st->tg[f * ne] : NULL,
             ws, dt_min, tangled, tangled_det);
}

static void FullForceOnes(const BlastHydroData *hd, const CpuZoneStore *st, size_t f, double *r) {
  const int rows = hd->dim * hd->h1_nd, ne = hd->l2_nd;
  ZoneForceOnes(rows, ne, &st->F[f * rows * ne], r);
}

static void FullForceT(const BlastHydroData *hd, const void *md, const CpuZoneStore *st, size_t f,
                       const double *vz, double *b, double *ws) {
  const int rows = hd->dim * hd->h1_nd, ne = hd->l2_nd;
  (void)md, (void)ws;
  ZoneForceT(rows, ne, &st->F[f * rows * ne], vz, st->tg ? &st->tg[f * ne] : NULL, b);
}

static const double *FullStoredB(const BlastHydroData *hd, const CpuZoneStore *st, size_t f) {
  (void)hd, (void)st, (void)f;
  return NULL;  // F^T v needs the velocity of the call
}

// The assembled matrix row by row, all components at once.
static void FullMassMult(const BlastHydroData *hd, const void *md, const CpuZoneStore *zst,
                         double *ws_all, size_t ws_size, int nthreads, int rows, int ncomp,
                         unsigned mask, const double *x, double *y) {
  (void)md, (void)zst, (void)ws_all, (void)ws_size, (void)nthreads;
  const size_t sx = (size_t)hd->h1_next;
  const int r0 = rows == BLAST_ROWS_BOUNDARY ? hd->mv_ninterior : 0;
  const int r1 = rows == BLAST_ROWS_INTERIOR ? hd->mv_ninterior : hd->h1_nown;
  const double *x1 = ncomp > 1 ? x + sx : x, *x2 = ncomp > 2 ? x + 2 * sx : x;
#pragma omp parallel for schedule(static) if (r1 - r0 > BLAST_OMP_MIN_VEC / 16)
  for (int r = r0; r < r1; r++) {
    const int i = hd->mv_rows[r];
    const int64_t k0 = hd->full.rowptr[i], k1 = hd->full.rowptr[i + 1];
    // Two independent chains hide the additions' latency; the row is read once for all
    // components, and the sums rounded once give the same bits in any order (the GPU's).
    BlastV4 h0 = {0, 0, 0, 0}, l0 = h0, h1 = h0, l1 = h0;
    int64_t k = k0;
    for (; k + 1 < k1; k += 2) {
      const int ja = hd->full.col[k], jb = hd->full.col[k + 1];
      const BlastV4 xa = {x[ja], x1[ja], x2[ja], 0.0}, xb = {x[jb], x1[jb], x2[jb], 0.0};
      V4DDAdd(&h0, &l0, hd->full.val[k] * xa);
      V4DDAdd(&h1, &l1, hd->full.val[k + 1] * xb);
    }
    if (k < k1) {
      const int ja = hd->full.col[k];
      const BlastV4 xa = {x[ja], x1[ja], x2[ja], 0.0};
      V4DDAdd(&h0, &l0, hd->full.val[k] * xa);
    }
    // (h0, l0) += (h1, l1), then rounded once: BlastDDAddDD and BlastDDNormalize
    const BlastV4 s = h0 + h1, bb = s - h0;
    l0 += (h0 - (s - bb)) + (h1 - bb) + l1;
    const BlastV4 out = s + l0;
    for (int cc = 0; cc < ncomp; cc++)
      if (ACTIVE(mask, cc)) y[cc * sx + i] = out[cc];
  }
}

const CpuMode blast_cpu_mode_full = {
    .name = "full",
    .create = FullCreate,
    .destroy = FullDestroy,
    .rebuild = FullRebuild,
    .workspace = FullWorkspace,
    .reserve = FullReserve,
    .store_doubles = FullStoreDoubles,
    .zone = FullZone,
    .force_ones = FullForceOnes,
    .force_t = FullForceT,
    .stored_b = FullStoredB,
    .mass_mult = FullMassMult,
};
