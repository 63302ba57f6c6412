// The partial-assembly mode of the CPU backend (cpu_ctx.h): the zone kernels of
// hydro/pa_kernels.h, instantiated for the common orders and run on vector lanes
// (pa_cpu_lanes.h), yield the rows -F_z 1 and F_z^T v without forming F_z; the mass
// action runs zone by zone (BlastPartialData) and each owned dof sums its zones' values.
#include <math.h>
#include <omp.h>
#include <string.h>

#include "blast.h"
#include "cpu_ctx.h"
#include "pa_cpu_lanes.h"
#include "pa_kernels.h"

#define ACTIVE(mask, c) (((mask) >> (c)) & 1u)

// ---- partial assembly: zone kernels instantiated for the common (dim, D, Q, L) ----
// The same functions as the generic path (pa_kernels.h) with constant sizes, so that the
// compiler unrolls the contractions, and the point kernel on several points at once in
// vector lanes (pa_cpu_lanes.h): the same bits, several times faster.

// The quadrature data of one zone (BlastCpuPaZoneQData's arguments; Sz NULL unless the
// stress is kept).
typedef void (*PaQDataFn)(const BlastPaBasis *pb, int z, const double *xz, const double *vz,
                          const double *x0z, const double *J0inv, const double *ez,
                          const double *R0z, const BlastMaterial *mat, double *Sz, double *rEz,
                          double *bz, double *tgz, double *ws, double *dt_min, int *tangled,
                          double *tangled_det);
// The mass action of one zone: its dofs `dof` of the components in mask gathered from x
// (components st apart), its values stored node-interleaved: component c of node a at
// E[3 * a + c] (the zone's 3 * nd values; other components' entries are not defined).
typedef void (*PaMassFn)(const BlastPaBasis *pb, const double *qm, int ncomp, unsigned mask,
                         const int *dof, const double *x, size_t st, double *E, double *ws);

#define PA_INSTANCE(Pd, Pn, Pq, Pl)                                                                \
  __attribute__((flatten)) static void PaQData_##Pd##_##Pn##_##Pq##_##Pl(                          \
      const BlastPaBasis *pb, int z, const double *xz, const double *vz, const double *x0z,        \
      const double *J0inv, const double *ez, const double *R0z, const BlastMaterial *mat,          \
      double *Sz, double *rEz, double *bz, double *tgz, double *ws, double *dt_min, int *tangled,  \
      double *tangled_det) {                                                                       \
    BlastCpuPaZoneQData(pb, Pd, Pn, Pq, Pl, z, xz, vz, x0z, J0inv, ez, R0z, mat, Sz, rEz, bz, tgz, \
                        ws, dt_min, tangled, tangled_det);                                         \
  }                                                                                                \
  __attribute__((flatten)) static void PaMass_##Pd##_##Pn##_##Pq##_##Pl(                           \
      const BlastPaBasis *pb, const double *qm, int ncomp, unsigned mask, const int *dof,          \
      const double *x, size_t st, double *E, double *ws) {                                         \
    enum { nd = Pd == 3 ? Pn * Pn * Pn : Pn * Pn, nq = Pd == 3 ? Pq * Pq * Pq : Pq * Pq };         \
    BlastV4 xz[nd], yz[nd], mws[nq + Pn * Pn * Pq + Pn * Pq * Pq];                                 \
    (void)ws;                                                                                      \
    for (int a = 0; a < nd; a++) {                                                                 \
      const size_t l = (size_t)dof[a];                                                             \
      const BlastV4 v = {x[l], ncomp > 1 ? x[st + l] : 0.0, ncomp > 2 ? x[2 * st + l] : 0.0, 0.0}; \
      xz[a] = v;                                                                                   \
    }                                                                                              \
    BlastV4MassField(Pd, Pn, Pq, pb->B, qm, xz, yz, mws);                                          \
    /* 4-wide stores in ascending order: lane 3 lands on the next node's first value, */           \
    /* which that node's store then overwrites; the last node's three values one by one */         \
    for (int a = 0; a < nd - 1; a++) memcpy(E + 3 * a, &yz[a], sizeof yz[a]);                      \
    for (int c = 0; c < 3; c++) E[3 * (nd - 1) + c] = yz[nd - 1][c];                               \
  }
// k = 1..4 with the default quadrature (Pn = k + 1, Pq = 2k, Pl = k), 2D and 3D
#define PA_CASES(X) \
  X(2, 2, 2, 1)     \
  X(2, 3, 4, 2) X(2, 4, 6, 3) X(2, 5, 8, 4) X(3, 2, 2, 1) X(3, 3, 4, 2) X(3, 4, 6, 3) X(3, 5, 8, 4)
PA_CASES(PA_INSTANCE)

static void PaQDataGeneric(const BlastPaBasis *pb, int z, const double *xz, const double *vz,
                           const double *x0z, const double *J0inv, const double *ez,
                           const double *R0z, const BlastMaterial *mat, double *Sz, double *rEz,
                           double *bz, double *tgz, double *ws, double *dt_min, int *tangled,
                           double *tangled_det) {
  if (pb->dim > 1) {
    BlastCpuPaZoneQData(pb, pb->dim, pb->D, pb->Q, pb->L, z, xz, vz, x0z, J0inv, ez, R0z, mat, Sz,
                        rEz, bz, tgz, ws, dt_min, tangled, tangled_det);
    return;
  }
  // 1D (J0inv's two layouts coincide): the scalar kernel, the stress into scratch unless kept
  double *S = Sz ? Sz : ws, *kws = Sz ? ws : ws + pb->nq;
  BlastPaZoneQDataN(pb, 1, pb->D, pb->Q, pb->L, z, xz, vz, x0z, J0inv, ez, R0z, mat, S, rEz, bz,
                    tgz, kws, dt_min, tangled, tangled_det);
}
// ws: 2 ncomp nd + BlastPaMassZone's scratch
static void PaMassGeneric(const BlastPaBasis *pb, const double *qm, int ncomp, unsigned mask,
                          const int *dof, const double *x, size_t st, double *E, double *ws) {
  const int nd = pb->nd;
  double *xz = ws, *yz = ws + ncomp * nd;
  for (int c = 0; c < ncomp; c++)
    if ((mask >> c) & 1u)
      for (int a = 0; a < nd; a++) xz[c * nd + a] = x[c * st + dof[a]];
  BlastPaMassZone(pb->dim, pb->D, pb->Q, pb->B, qm, ncomp, mask, xz, nd, yz, nd,
                  ws + 2 * ncomp * nd);
  for (int c = 0; c < ncomp; c++)
    if ((mask >> c) & 1u)
      for (int a = 0; a < nd; a++) E[3 * a + c] = yz[c * nd + a];
}

static void PaKernelsOf(const BlastPaBasis *pb, PaQDataFn *qdata, PaMassFn *mass) {
  *qdata = PaQDataGeneric, *mass = PaMassGeneric;
#define PA_PICK(Pd, Pn, Pq, Pl)                                   \
  if (pb->dim == Pd && pb->D == Pn && pb->Q == Pq && pb->L == Pl) \
    *qdata = PaQData_##Pd##_##Pn##_##Pq##_##Pl, *mass = PaMass_##Pd##_##Pn##_##Pq##_##Pl;
  PA_CASES(PA_PICK)
#undef PA_PICK
}

static void PaBasisOf(const BlastHydroData *hd, BlastPaBasis *pb) {
  memset(pb, 0, sizeof *pb);
  pb->dim = hd->dim, pb->D = hd->pa.d1d, pb->Q = hd->pa.q1d, pb->L = hd->pa.l1d;
  pb->nd = hd->h1_nd, pb->nq = hd->nqp, pb->ne = hd->l2_nd;
  pb->B = hd->pa.B, pb->G = hd->pa.G, pb->LB = hd->pa.L, pb->qw = hd->qp_w;
  pb->qpar = hd->qpar, pb->tg_source = hd->tg_source;
}

// The mode's data: the zone kernels' constant data, the kernels of these sizes and, in a
// context, J0^{-1} of every zone computed once from x0 (the GPU recomputes it from x0 at
// every update: the same bits).
typedef struct {
  BlastPaBasis pb;
  PaQDataFn qdata;
  PaMassFn mass;
  int context;
  double *J0inv;  // context: [nz * dim^2 * nqp] (BlastPaZoneJ0inv), point-fastest; else NULL
} PartialData;

static int PartialRebuild(void *md, const BlastHydroData *hd) {
  PartialData *p = md;
  PaBasisOf(hd, &p->pb);
  if (!p->context) return 0;
  const int rows = hd->dim * hd->h1_nd, nq = hd->nqp, d2 = hd->dim * hd->dim;
  const size_t nj = (size_t)nq * d2;
  const size_t wsz = (size_t)rows + nj + 9 * nq + BlastPaZoneWorkspace(&p->pb);
  const int nth = omp_get_max_threads();
  double *ws;
  BlastCall(BlastMalloc(wsz * nth, &ws));
  // Zones are independent (a scratch per thread, disjoint outputs).
#pragma omp parallel num_threads(nth)
  {
    double *w = ws + wsz * omp_get_thread_num(), *J0z = w + rows;
#pragma omp for schedule(static)
    for (int z = 0; z < hd->nz; z++) {  // point-major, stored point-fastest
      BlastCpuGatherZone(hd, z, hd->pa.x0, w);
      BlastPaZoneJ0inv(&p->pb, w, J0z, J0z + nj);
      for (int q = 0; q < nq; q++)
        for (int i = 0; i < d2; i++) p->J0inv[z * nj + (size_t)i * nq + q] = J0z[q * d2 + i];
    }
  }
  BlastFree(&ws);
  return 0;
}

static int PartialCreate(const BlastHydroData *hd, int context, void **md) {
  PartialData *p;
  BlastCall(BlastCalloc(1, &p));
  PaBasisOf(hd, &p->pb);
  PaKernelsOf(&p->pb, &p->qdata, &p->mass);
  p->context = context;
  int ierr = context ? BlastMalloc((size_t)hd->nz * hd->nqp * hd->dim * hd->dim + 1, &p->J0inv) : 0;
  if (ierr) {
    BlastFree(&p);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  *md = p;
  return 0;
}

static void PartialDestroy(void **md) {
  PartialData *p = *md;
  if (p) BlastFree(&p->J0inv);
  BlastFree((PartialData **)md);
}

// x, v, x0 E-vectors, e, the zone kernel's scratch (1D: one zone's stress and the scalar
// kernel's); the energy rate and the mass action need less
static size_t PartialWorkspace(const BlastHydroData *hd) {
  BlastPaBasis pb;
  PaBasisOf(hd, &pb);
  const size_t d2 = (size_t)hd->dim * hd->dim;
  const size_t scalar = hd->nqp * d2 + (size_t)BlastPaZoneWorkspace(&pb);
  const size_t lanes = (size_t)BlastCpuPaZoneWorkspace(&pb);
  return 3 * (size_t)hd->dim * hd->h1_nd + hd->l2_nd + (scalar > lanes ? scalar : lanes) + 16;
}

static int PartialReserve(const BlastHydroData *hd, int n, int context, CpuZoneStore *st) {
  const size_t ne = hd->l2_nd;
  if (context) {  // rows of nz_ext zones and up to 3 components' mass values (+ 1 padding)
    BlastCall(BlastCalloc((size_t)hd->pa.nz_ext * 3 * hd->h1_nd + 1, &st->rE));
  } else {
    BlastCall(BlastRealloc((size_t)n * hd->dim * hd->h1_nd, &st->rE));
  }
  if (hd->pa.keep_stress)
    BlastCall(BlastRealloc((size_t)n * hd->nqp * hd->dim * hd->dim, &st->S));
  else
    BlastCall(BlastRealloc((size_t)n * ne, &st->b));
  if (hd->tg_source) BlastCall(BlastRealloc((size_t)n * ne, &st->tg));
  st->cap = n;
  return 0;
}

static double PartialStoreDoubles(const BlastHydroData *hd) {
  const double nz = hd->nz, nq = hd->nqp, d2 = (double)hd->dim * hd->dim, ne = hd->l2_nd;
  return (double)hd->pa.nz_ext * 3 * hd->h1_nd + nz * nq * d2 +
         (hd->pa.keep_stress ? nz * nq * d2 : nz * ne);
}

// Zone z's quadrature data, rows -F_z 1 and S or b (pa_kernels.h, on the CPU
// pa_cpu_lanes.h); ws holds the initial positions' E-vector and the zone kernel's scratch.
static void PartialZone(const ZoneRange *zr, int z, size_t f, const double *xz, const double *vz,
                        const double *ez, double *ws, double *dt_min, int *tangled,
                        double *tangled_det) {
  const BlastHydroData *hd = zr->hd;
  const PartialData *p = zr->md;
  const CpuZoneStore *st = zr->st;
  const int rows = hd->dim * hd->h1_nd, ne = hd->l2_nd, nqp = hd->nqp, d2 = hd->dim * hd->dim;
  double *x0z = ws, *kws = x0z + rows;
  const double *J0inv = p->J0inv ? &p->J0inv[(size_t)z * nqp * d2] : NULL;
  if (!J0inv) BlastCpuGatherZone(hd, z, hd->pa.x0, x0z);
  if (J0inv && z + 1 < hd->nz) {  // the next zone's J0^{-1} streams in while this one works
    const char *next = (const char *)(J0inv + (size_t)nqp * d2);
    for (size_t b = 0; b < (size_t)nqp * d2 * sizeof(double); b += 64) __builtin_prefetch(next + b);
  }
  double *Sz = st->S ? &st->S[f * nqp * d2] : NULL;
  p->qdata(&p->pb, z, xz, vz, x0z, J0inv, ez, &hd->qp_R0[(size_t)z * nqp],
           &hd->mats[hd->zone_mat[z]], Sz, &st->rE[f * rows], st->b ? &st->b[f * ne] : NULL,
           st->tg ? &st->tg[f * ne] : NULL, kws, dt_min, tangled, tangled_det);
}

static void PartialForceOnes(const BlastHydroData *hd, const CpuZoneStore *st, size_t f,
                             double *r) {
  const size_t rows = (size_t)hd->dim * hd->h1_nd;
  const double *own = &st->rE[f * rows];  // computed with the quadrature data
  if (r != own) memcpy(r, own, rows * sizeof(double));
}

// From the kept stress (RK2Avg: its v may differ from the quadrature data's).
static void PartialForceT(const BlastHydroData *hd, const void *md, const CpuZoneStore *st,
                          size_t f, const double *vz, double *b, double *ws) {
  const PartialData *p = md;
  const size_t ne = hd->l2_nd, ns = (size_t)hd->nqp * hd->dim * hd->dim;
  BlastPaZoneForceT(&p->pb, &st->S[f * ns], vz, st->tg ? &st->tg[f * ne] : NULL, b, ws);
}

static const double *PartialStoredB(const BlastHydroData *hd, const CpuZoneStore *st, size_t f) {
  return st->b ? &st->b[f * hd->l2_nd] : NULL;  // computed with the quadrature data
}

// Partial assembly: the zone values of the mass action for the zones of `rows` (interior:
// the zones with owned dofs only; boundary: the others), then each owned row of `rows`
// sums its zones' values in ascending global zone id, in double-double, rounded once.
static void PartialMassMult(const BlastHydroData *hd, const void *md, const CpuZoneStore *zst,
                            double *ws_all, size_t ws_size, int nthreads, int rows, int ncomp,
                            unsigned mask, const double *x, double *y) {
  const PartialData *p = md;
  const int nd = hd->h1_nd, nq = hd->nqp;
  const size_t st = (size_t)hd->h1_next;
  const int k0 = rows == BLAST_ROWS_BOUNDARY ? hd->pa.nzint : 0;
  const int k1 = rows == BLAST_ROWS_INTERIOR ? hd->pa.nzint : hd->pa.nz_ext;
  double *E = zst->rE;
#pragma omp parallel if (k1 - k0 > BLAST_OMP_MIN_ZONES) num_threads(nthreads)
  {
    double *mws = &ws_all[(size_t)omp_get_thread_num() * ws_size];
#pragma omp for schedule(static)
    for (int k = k0; k < k1; k++) {
      const int z = hd->pa.zones[k];
      p->mass(&p->pb, &hd->pa.qmass[(size_t)z * nq], ncomp, mask, &hd->h1_edof[(size_t)z * nd], x,
              st, &E[(size_t)z * nd * 3], mws);
    }
  }
  const int r0 = rows == BLAST_ROWS_BOUNDARY ? hd->mv_ninterior : 0;
  const int r1 = rows == BLAST_ROWS_INTERIOR ? hd->mv_ninterior : hd->h1_nown;
#pragma omp parallel for schedule(static) if (r1 - r0 > BLAST_OMP_MIN_VEC / 16)
  for (int r = r0; r < r1; r++) {
    const int i = hd->mv_rows[r], t0 = hd->pa.mass_toff[i], t1 = hd->pa.mass_toff[i + 1];
    // the components side by side (V4DDAdd; lane 3 and inactive lanes are not stored)
    BlastV4 hi = {0.0, 0.0, 0.0, 0.0}, lo = hi;
    for (int t = t0; t < t1; t++) {
      BlastV4 v;
      memcpy(&v, E + 3 * (size_t)hd->pa.mass_tidx[t], sizeof v);
      V4DDAdd(&hi, &lo, v);
    }
    const BlastV4 out = hi + lo;  // BlastDDNormalize's rounded value
    for (int cc = 0; cc < ncomp; cc++)
      if (ACTIVE(mask, cc)) y[cc * st + i] = out[cc];
  }
}

const CpuMode blast_cpu_mode_partial = {
    .name = "partial",
    .create = PartialCreate,
    .destroy = PartialDestroy,
    .rebuild = PartialRebuild,
    .workspace = PartialWorkspace,
    .reserve = PartialReserve,
    .store_doubles = PartialStoreDoubles,
    .zone = PartialZone,
    .force_ones = PartialForceOnes,
    .force_t = PartialForceT,
    .stored_b = PartialStoredB,
    .mass_mult = PartialMassMult,
};
