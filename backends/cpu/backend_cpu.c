// The CPU reference backend: OpenMP loops over zones and dofs. Every reduction and every
// assembly is ordered independently of the number of threads, so results are bitwise
// identical for any OMP_NUM_THREADS.
#include <math.h>
#include <omp.h>
#include <string.h>

#include "backend.h"
#include "blast.h"
#include "cpu_zones.h"
#include "ddsum.h"
#include "pa_cpu_lanes.h"
#include "pa_kernels.h"
#include "problems/problems.h"

enum { kDotChunk = 4096 };
// Loops shorter than these run on one thread: a fork/join costs more than the work.
#define BLAST_OMP_MIN_VEC   32768
#define BLAST_OMP_MIN_ZONES 64

// Compensated sums side by side in one 4-wide vector (the components of a row, or four
// chunks of a dot product): the same operations as BlastDDAdd on each lane (and, written
// out where they are used, BlastDDAddDD and BlastDDNormalize), so the same bits as one
// sum per lane, in a fraction of the instructions (GCC/Clang vector extension; no
// contraction into fused multiply-adds under -std=c11).
static inline void V4DDAdd(BlastV4 *hi, BlastV4 *lo, BlastV4 x) {
  const BlastV4 s = *hi + x, bb = s - *hi;
  *lo += (*hi - (s - bb)) + (x - bb);
  *hi = s;
}

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

typedef struct {
  BlastHydroData hd;
  int rows;         // dim * h1_nd: rows of a zone force matrix
  int pa;           // hd.assembly == BLAST_ASSEMBLY_PARTIAL
  BlastPaBasis pb;  // partial: the zone kernels' constant data
  PaQDataFn pa_qdata;
  PaMassFn pa_mass;
  double *J0inv;    // partial: [nz * dim^2 * nqp] J0^{-1} (BlastPaZoneJ0inv), point-fastest
  double *F;        // full: [nz * rows * l2_nd] zone force matrices, column-major
  double *S;        // partial with pa_keep_stress: [nz * nqp * dim^2] stress per point
  double *b;        // partial without it: [nz * l2_nd] F_z^T v_z (+ source)
  double *tg;       // [nz * l2_nd] Taylor-Green source (or NULL)
  double *rE;       // [nz * rows] zone momentum contributions; partial: [nz_ext * rows],
                    // between momentum_rhs and qdata_force also the mass action's zone
                    // values, node-interleaved: [(z * h1_nd + a) * 3 + c] (+ 1 padding)
  double *partial;  // dot-product chunk sums
  size_t npartial;
  double *ws;  // per-thread workspace
  size_t ws_size;
  int nthreads;
  size_t bytes;                // allocated by create and vec.alloc (BlastCpuMemoryUsed)
  BlastQDataResult split_res;  // hybrid tests: this backend's part of the last split update
  double split_seconds;
} CpuCtx;

static void PaBasisOf(const BlastHydroData *hd, BlastPaBasis *pb) {
  memset(pb, 0, sizeof *pb);
  pb->dim = hd->dim, pb->D = hd->pa.d1d, pb->Q = hd->pa.q1d, pb->L = hd->pa.l1d;
  pb->nd = hd->h1_nd, pb->nq = hd->nqp, pb->ne = hd->l2_nd;
  pb->B = hd->pa.B, pb->G = hd->pa.G, pb->LB = hd->pa.L, pb->qw = hd->qp_w;
  pb->qpar = hd->qpar, pb->tg_source = hd->tg_source;
}

static size_t WorkspaceSize(const BlastHydroData *hd) {
  const size_t d2 = (size_t)hd->dim * hd->dim;
  const size_t full =
      2 * (size_t)hd->dim * hd->h1_nd + hd->l2_nd + hd->nqp * (d2 + 21) + hd->dim * hd->h1_nd + 16;
  if (hd->assembly != BLAST_ASSEMBLY_PARTIAL) return full;
  BlastPaBasis pb;
  PaBasisOf(hd, &pb);
  // zone kernel: x, v, x0 E-vectors, e, the kernel's scratch (1D: one zone's stress and
  // the scalar kernel's); the energy rate and the mass action need less
  const size_t scalar = hd->nqp * d2 + (size_t)BlastPaZoneWorkspace(&pb);
  const size_t lanes = (size_t)BlastCpuPaZoneWorkspace(&pb);
  return 3 * (size_t)hd->dim * hd->h1_nd + hd->l2_nd + (scalar > lanes ? scalar : lanes) + 16;
}

// E-vector of the H1 field u (component-major L-vector) on zone z.
static void GatherZone(const BlastHydroData *hd, int z, const double *u, double *uz) {
  const int nd = hd->h1_nd, nl = hd->h1_nl;
  const int *dof = &hd->h1_edof[(size_t)z * nd];
  for (int cc = 0; cc < hd->dim; cc++)
    for (int a = 0; a < nd; a++) uz[cc * nd + a] = u[(size_t)cc * nl + dof[a]];
}

// The reference data of hd (BlastCtxOps.rebuild): read in place, but J0^{-1} of the
// partial path, computed once here (the GPU recomputes it from x0 at every update: the
// same bits), point-major, stored point-fastest.
static int CpuRebuild(void *ctx, const BlastHydroData *hd) {
  CpuCtx *c = ctx;
  c->hd = *hd;
  if (!c->pa) return 0;
  PaBasisOf(hd, &c->pb);
  const size_t nj = (size_t)hd->nqp * hd->dim * hd->dim;
  double *ws;
  BlastCall(BlastMalloc((size_t)c->rows + nj + 9 * hd->nqp + BlastPaZoneWorkspace(&c->pb), &ws));
  const int nq = hd->nqp, d2 = hd->dim * hd->dim;
  for (int z = 0; z < hd->nz; z++) {
    double *J0z = ws + c->rows;
    GatherZone(hd, z, hd->pa.x0, ws);
    BlastPaZoneJ0inv(&c->pb, ws, J0z, J0z + nj);
    for (int q = 0; q < nq; q++)
      for (int i = 0; i < d2; i++) c->J0inv[z * nj + (size_t)i * nq + q] = J0z[q * d2 + i];
  }
  BlastFree(&ws);
  return 0;
}

static int CpuCreate(const BlastHydroData *hd, void **ctx) {
  CpuCtx *c;
  BlastCall(BlastCalloc(1, &c));
  c->hd = *hd;
  c->rows = hd->dim * hd->h1_nd;
  c->nthreads = omp_get_max_threads();
  c->pa = hd->assembly == BLAST_ASSEMBLY_PARTIAL;
  if (c->pa) {
    PaBasisOf(hd, &c->pb);
    PaKernelsOf(&c->pb, &c->pa_qdata, &c->pa_mass);
    // rows of nz_ext zones, and the mass action's zone values of up to 3 components (its
    // ncomp may exceed dim)
    BlastCall(BlastCalloc((size_t)hd->pa.nz_ext * 3 * hd->h1_nd + 1, &c->rE));
    BlastCall(BlastMalloc((size_t)hd->nz * hd->nqp * hd->dim * hd->dim + 1, &c->J0inv));
    if (hd->pa.keep_stress)
      BlastCall(BlastMalloc((size_t)hd->nz * hd->nqp * hd->dim * hd->dim, &c->S));
    else
      BlastCall(BlastMalloc((size_t)hd->nz * hd->l2_nd, &c->b));
  } else {
    BlastCall(BlastMalloc((size_t)hd->nz * c->rows * hd->l2_nd, &c->F));
    BlastCall(BlastMalloc((size_t)hd->nz * c->rows, &c->rE));
  }
  if (hd->tg_source) BlastCall(BlastCalloc((size_t)hd->nz * hd->l2_nd, &c->tg));
  c->ws_size = WorkspaceSize(hd);
  BlastCall(BlastMalloc(c->ws_size * c->nthreads, &c->ws));
  {
    const size_t nz = (size_t)hd->nz, ne = (size_t)hd->l2_nd, nq = (size_t)hd->nqp;
    const size_t d2 = (size_t)hd->dim * hd->dim, rows = (size_t)c->rows;
    size_t n = c->ws_size * c->nthreads + (hd->tg_source ? nz * ne : 0);
    if (c->pa)
      n += (size_t)hd->pa.nz_ext * 3 * hd->h1_nd + nz * nq * d2 + (c->S ? nz * nq * d2 : nz * ne);
    else
      n += nz * rows * ne + nz * rows;
    c->bytes = n * sizeof(double);
  }
  *ctx = c;
  return CpuRebuild(c, hd);
}

static int CpuDestroy(void **ctx) {
  if (!ctx || !*ctx) return 0;
  CpuCtx *c = *ctx;
  BlastFree(&c->F);
  BlastFree(&c->J0inv);
  BlastFree(&c->S);
  BlastFree(&c->b);
  BlastFree(&c->rE);
  BlastFree(&c->tg);
  BlastFree(&c->partial);
  BlastFree(&c->ws);
  BlastFree(ctx);
  return 0;
}

static int CpuAlloc(void *ctx, size_t n, double **p) {
  if (ctx) ((CpuCtx *)ctx)->bytes += n * sizeof(double);
  return BlastCalloc(n, p);
}

// Bytes of the constant data of BlastHydroData that this backend reads in place.
static double HydroDataBytes(const BlastHydroData *hd) {
  const double nz = hd->nz, nd = hd->h1_nd, ne = hd->l2_nd, nq = hd->nqp;
  const double nze = hd->assembly == BLAST_ASSEMBLY_PARTIAL ? hd->pa.nz_ext : nz;
  const double d2 = (double)hd->dim * hd->dim, nown = hd->h1_nown;
  double ints = nze * nd + (hd->h1_nl + 1.0) + nz * nd + (nown + 1.0) + nown + nz;
  double dbls = nz * nq + nz * ne * ne + nown + (double)hd->dim * hd->h1_nl;
  if (hd->pa.mass_toff) ints += hd->pa.mass_toff[hd->h1_nown];
  if (hd->full.J0inv) dbls += nz * nq * d2;
  if (hd->full.rowptr) {  // 64-bit row offsets (8 bytes, as a double), int columns, values
    const double nnz = (double)(hd->full.rowptr[hd->h1_nown] - hd->full.rowptr[0]);
    ints += nnz, dbls += nown + 1.0 + nnz;
  }
  if (hd->pa.qmass) dbls += nze * nq, ints += nze;
  return 4.0 * ints + 8.0 * dbls;
}

size_t BlastCpuMemoryUsed(void *ctx) {
  const CpuCtx *c = ctx;
  return c->bytes + (size_t)HydroDataBytes(&c->hd);
}
static int CpuFree(void *ctx, double **p) {
  BlastFree(p);
  return 0;
}
static int CpuCopy(void *ctx, size_t n, const double *src, double *dst) {
  if (n && src != dst) memcpy(dst, src, n * sizeof(double));
  return 0;
}
static int CpuSet(void *ctx, size_t n, double a, double *x) {
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
  for (size_t i = 0; i < n; i++) x[i] = a;
  return 0;
}
static int CpuAxpby(void *ctx, size_t n, double a, const double *x, double b, double *y) {
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
  for (size_t i = 0; i < n; i++) y[i] = a * x[i] + b * y[i];
  return 0;
}
static int CpuWaxpby(void *ctx, size_t n, double a, const double *x, double b, const double *y,
                     double *w) {
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
  for (size_t i = 0; i < n; i++) w[i] = a * x[i] + b * y[i];
  return 0;
}

// The double-double sums of the products of chunks k0 .. k0 + 3 (those < nchunks), one
// chunk per lane of a 4-wide vector: each lane performs BlastDDAdd over its chunk in
// order, then BlastDDNormalize, so the same bits as one chunk at a time, with four
// independent chains in flight. Lanes past the last chunk repeat chunk k0 and are not
// stored; a lane whose chunk is shorter (the last one) keeps its sums once it ends.
static void DotChunks(const double *x, const double *y, size_t n, size_t k0, size_t nchunks,
                      double *partial) {
  const size_t nl = nchunks - k0 < 4 ? nchunks - k0 : 4;
  size_t base[4], len[4], common = kDotChunk, longest = 0;
  for (size_t l = 0; l < 4; l++) {
    base[l] = (k0 + (l < nl ? l : 0)) * kDotChunk;
    len[l] = l < nl ? (n - base[l] < kDotChunk ? n - base[l] : kDotChunk) : 0;
    if (l < nl && len[l] < common) common = len[l];
    if (len[l] > longest) longest = len[l];
  }
  const double *x0 = x + base[0], *x1 = x + base[1], *x2 = x + base[2], *x3 = x + base[3];
  const double *y0 = y + base[0], *y1 = y + base[1], *y2 = y + base[2], *y3 = y + base[3];
  BlastV4 hi = {0.0, 0.0, 0.0, 0.0}, lo = hi;
  for (size_t i = 0; i < common; i++) {
    const BlastV4 xv = {x0[i], x1[i], x2[i], x3[i]}, yv = {y0[i], y1[i], y2[i], y3[i]};
    V4DDAdd(&hi, &lo, xv * yv);
  }
  for (size_t i = common; i < longest; i++) {  // lanes whose chunk goes on
    BlastV4 h = hi, o = lo;
    const BlastV4 xv = {x0[i], x1[i < len[1] ? i : 0], x2[i < len[2] ? i : 0],
                        x3[i < len[3] ? i : 0]};
    const BlastV4 yv = {y0[i], y1[i < len[1] ? i : 0], y2[i < len[2] ? i : 0],
                        y3[i < len[3] ? i : 0]};
    V4DDAdd(&h, &o, xv * yv);
    for (size_t l = 0; l < 4; l++)
      if (i < len[l]) hi[l] = h[l], lo[l] = o[l];
  }
  const BlastV4 s = hi + lo, e = lo - (s - hi);  // BlastDDNormalize
  for (size_t l = 0; l < nl; l++) partial[2 * (k0 + l)] = s[l], partial[2 * (k0 + l) + 1] = e[l];
}

// The chunk pairs of a dot product (nchunks of them), held by the context.
static int CpuDotPartial(CpuCtx *c, size_t nchunks, double **partial) {
  if (2 * nchunks > c->npartial) {
    BlastCall(BlastRealloc(2 * nchunks, &c->partial));
    c->npartial = 2 * nchunks;
  }
  *partial = c->partial;
  return 0;
}

// The chunk pairs combined in order, rounded once into result[0] + result[1].
static void CpuDotCombine(const double *partial, size_t nchunks, double *result) {
  BlastDD acc = {0.0, 0.0};
  for (size_t k = 0; k < nchunks; k++) BlastDDAddDD(&acc, partial[2 * k], partial[2 * k + 1]);
  BlastDDNormalize(&acc);
  result[0] = acc.hi, result[1] = acc.lo;
}

// Products summed in double-double within fixed chunks, chunk pairs combined in order:
// the pair's rounded value is (almost always) the correctly rounded sum, so it depends
// neither on the thread count nor on how dofs are split over ranks.
static int CpuDot(void *ctx, size_t n, const double *x, const double *y, double *result) {
  const size_t nchunks = (n + kDotChunk - 1) / kDotChunk;
  double *partial;
  BlastCall(CpuDotPartial(ctx, nchunks, &partial));
  const size_t ngroups = (nchunks + 3) / 4;  // four chunks at a time in vector lanes
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
  for (size_t g = 0; g < ngroups; g++) DotChunks(x, y, n, 4 * g, nchunks, partial);
  CpuDotCombine(partial, nchunks, result);
  return 0;
}

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
  if (tg)
    for (int j = 0; j < ne; j++) tg[j] = 0.0;
  for (int q = 0; q < nqp; q++) {  // entry i of J at point q: Jp[i * nqp + q]
    const double *G = &hd->h1_G[(size_t)q * nd * dim];
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
    for (int i = 0; i < ne; i++) eq += ez[i] * hd->l2_B[(size_t)q * ne + i];
    eqs[q] = eq;
  }
  if (dim == 1) {
    for (int q = 0; q < nqp; q++)
      dets[q] = BlastPointStress(1, &hd->qpar, mat, &Jp[q], &Gp[q], &hd->full.J0inv[z0 + q],
                                 hd->qp_R0[z0 + q], hd->qp_w[q], eqs[q], &S[q], &dts[q]);
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
                             BlastQVLoad(&hd->qp_w[q0], n), BlastQVLoad(eqs + q0, n), Sv, &dtq);
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
        for (int a = 0; a < nd; a++) X[cc] += xz[cc * nd + a] * hd->h1_B[(size_t)q * nd + a];
      const double src = hd->qp_w[q] * det * BlastTaylorGreenSource(X);
      for (int j = 0; j < ne; j++) tg[j] += src * hd->l2_B[(size_t)q * ne + j];
    }
  }
  // F_z = A_z B^T with A_(a,c),q = (S_q grad phi_a(q))_c, accumulated point by point.
  for (int i = 0; i < rows * ne; i++) F[i] = 0.0;
  for (int q = 0; q < nqp; q++) {
    const double *G = &hd->h1_G[(size_t)q * nd * dim], *Sq = &S[q * d2];
    for (int cc = 0; cc < dim; cc++)
      for (int a = 0; a < nd; a++) {
        double sum = 0.0;
        for (int g = 0; g < dim; g++) sum += Sq[cc + dim * g] * G[a * dim + g];
        A[cc * nd + a] = sum;
      }
    const double *Bq = &hd->l2_B[(size_t)q * ne];
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

// de_z = M_E,z^{-1} b_z (kernel 11).
static void ZoneMinv(int ne, const double *Minv, const double *b, double *de) {
  for (int i = 0; i < ne; i++) {
    double s = 0.0;
    for (int j = 0; j < ne; j++) s += Minv[i + ne * j] * b[j];
    de[i] = s;
  }
}

// Quadrature data of zones [z0, z1): zone z's inputs from L-vectors (xE == NULL) or from
// E-vectors at (z - z0); F and tg indexed by z - f0.
typedef struct {
  const BlastHydroData *hd;
  const double *x, *v, *e;     // L-vectors and the zone-blocked e (when xE == NULL)
  const double *xE, *vE, *eE;  // E-vectors of zones [z0, z1)
  double *F, *tg;              // full: F_z; both: the source integrals (or NULL)
  const BlastPaBasis *pb;      // partial (else NULL): rows -F_z 1 into rE, and S (if
  double *rE, *S, *b;          // not NULL) or b = F_z^T v_z (+ source)
  PaQDataFn pa_qdata;          // partial: the zone kernel
  const double *J0inv;         // partial: J0^{-1} of zone z at z * nqp * dim^2, or NULL
  int f0;
} ZoneRange;

// Partial path: zone z's quadrature data, rows -F_z 1 and S or b (pa_kernels.h, on the CPU
// pa_cpu_lanes.h); ws holds the initial positions' E-vector and the zone kernel's scratch.
static void ZoneKernelPartial(const ZoneRange *zr, int z, size_t f, const double *xz,
                              const double *vz, const double *ez, double *ws, double *dt_min,
                              int *tangled, double *tangled_det) {
  const BlastHydroData *hd = zr->hd;
  const int rows = hd->dim * hd->h1_nd, ne = hd->l2_nd, nqp = hd->nqp, d2 = hd->dim * hd->dim;
  double *x0z = ws, *kws = x0z + rows;
  const double *J0inv = zr->J0inv ? &zr->J0inv[(size_t)z * nqp * d2] : NULL;
  if (!J0inv) GatherZone(hd, z, hd->pa.x0, x0z);
  if (J0inv && z + 1 < hd->nz) {  // the next zone's J0^{-1} streams in while this one works
    const char *next = (const char *)(J0inv + (size_t)nqp * d2);
    for (size_t b = 0; b < (size_t)nqp * d2 * sizeof(double); b += 64) __builtin_prefetch(next + b);
  }
  double *Sz = zr->S ? &zr->S[f * nqp * d2] : NULL;
  zr->pa_qdata(zr->pb, z, xz, vz, x0z, J0inv, ez, &hd->qp_R0[(size_t)z * nqp],
               &hd->mats[hd->zone_mat[z]], Sz, &zr->rE[f * rows], zr->b ? &zr->b[f * ne] : NULL,
               zr->tg ? &zr->tg[f * ne] : NULL, kws, dt_min, tangled, tangled_det);
}

// ws_all holds nthreads workspaces of ws_size: the region never uses more threads, even
// if the OpenMP thread count was raised after the workspace was allocated.
static void QDataRange(const ZoneRange *zr, int z0, int z1, double *ws_all, size_t ws_size,
                       int nthreads, BlastQDataResult *res) {
  const BlastHydroData *hd = zr->hd;
  const int rows = hd->dim * hd->h1_nd, ne = hd->l2_nd;
  double dt_min = HUGE_VAL, tdet = 0.0;
  int tangled = -1;
#pragma omp parallel if (z1 - z0 > BLAST_OMP_MIN_ZONES) num_threads(nthreads)
  {
    double *ws = &ws_all[(size_t)omp_get_thread_num() * ws_size];
    double *xz = ws, *vz = xz + rows, *ez = vz + rows, *kws = ez + ne;
    double my_dt = HUGE_VAL, my_det = 0.0;
    int my_tangled = -1;
#pragma omp for schedule(static)
    for (int z = z0; z < z1; z++) {
      const double *xs = xz, *vs = vz, *es = ez;
      if (zr->xE) {
        const size_t k = (size_t)(z - z0);
        xs = &zr->xE[k * rows], vs = &zr->vE[k * rows], es = &zr->eE[k * ne];
      } else {
        GatherZone(hd, z, zr->x, xz);
        GatherZone(hd, z, zr->v, vz);
        for (int i = 0; i < ne; i++) ez[i] = zr->e[(size_t)z * ne + i];
      }
      const size_t f = (size_t)(z - zr->f0);
      if (zr->pb)
        ZoneKernelPartial(zr, z, f, xs, vs, es, kws, &my_dt, &my_tangled, &my_det);
      else
        ZoneKernel(hd, z, xs, vs, es, &zr->F[f * rows * ne], zr->tg ? &zr->tg[f * ne] : NULL, kws,
                   &my_dt, &my_tangled, &my_det);
    }
#pragma omp critical
    {
      if (my_dt < dt_min) dt_min = my_dt;
      if (my_tangled >= 0 && (tangled < 0 || my_tangled < tangled))
        tangled = my_tangled, tdet = my_det;
    }
  }
  res->dt_est = dt_min;
  res->tangled_zone = tangled;
  res->tangled_det = tdet;
}

// The zone range of this backend's own zones (indexed from zone 0).
static ZoneRange OwnZones(CpuCtx *c, const double *x, const double *v, const double *e) {
  const ZoneRange zr = {
      &c->hd, x,    v,    e,           NULL,     NULL, NULL, c->F, c->tg, c->pa ? &c->pb : NULL,
      c->rE,  c->S, c->b, c->pa_qdata, c->J0inv, 0};
  return zr;
}

static int CpuQDataForce(void *ctx, const double *x, const double *v, const double *e,
                         BlastQDataResult *res) {
  CpuCtx *c = ctx;
  const ZoneRange zr = OwnZones(c, x, v, e);
  QDataRange(&zr, 0, c->hd.nz, c->ws, c->ws_size, c->nthreads, res);
  return 0;
}

// Zone contributions -F_z 1 of zones [0, ndev) (the others are in rE already), then a
// gather over each dof's zones in a fixed order (no atomics, deterministic).
static void MomentumGather(CpuCtx *c, int ndev, double *rhs) {
  const BlastHydroData *hd = &c->hd;
  const int rows = c->rows, ne = hd->l2_nd, nd = hd->h1_nd, nl = hd->h1_nl, dim = hd->dim;
  if (!c->pa) {  // partial: the quadrature-data update computed them
#pragma omp parallel for schedule(static) if (ndev > BLAST_OMP_MIN_ZONES)
    for (int z = 0; z < ndev; z++)
      ZoneForceOnes(rows, ne, &c->F[(size_t)z * rows * ne], &c->rE[(size_t)z * rows]);
  }
#pragma omp parallel for schedule(static) if (nl > BLAST_OMP_MIN_VEC / 8)
  for (int l = 0; l < nl; l++) {
    for (int cc = 0; cc < dim; cc++) {
      BlastDD s = {0.0, 0.0};
      for (int t = hd->h1_toff[l]; t < hd->h1_toff[l + 1]; t++) {
        const int eidx = hd->h1_tidx[t], z = eidx / nd, a = eidx % nd;
        BlastDDAdd(&s, c->rE[(size_t)z * rows + cc * nd + a]);
      }
      BlastDDNormalize(&s);
      rhs[(size_t)cc * nl + l] = s.hi;
      rhs[(size_t)(dim + cc) * nl + l] = s.lo;
    }
  }
}

static int CpuMomentumRhs(void *ctx, double *rhs) {
  CpuCtx *c = ctx;
  MomentumGather(c, c->hd.nz, rhs);
  return 0;
}

// de = M_E^{-1} b zone by zone; b of zones [0, ndev) from F^T v, the others given.
static void EnergyRate(CpuCtx *c, int ndev, const double *host_b, const double *v, double *de) {
  const BlastHydroData *hd = &c->hd;
  const int rows = c->rows, ne = hd->l2_nd, nz = hd->nz;
#pragma omp parallel if (nz > BLAST_OMP_MIN_ZONES) num_threads(c->nthreads)
  {
    double *ws = &c->ws[(size_t)omp_get_thread_num() * c->ws_size];
    double *vz = ws, *b = ws + rows;
#pragma omp for schedule(static)
    for (int z = 0; z < nz; z++) {
      const double *bz = b;
      if (z < ndev && c->pa && !c->S) {
        bz = &c->b[(size_t)z * ne];  // computed with the quadrature data
      } else if (z < ndev && c->pa) {
        GatherZone(hd, z, v, vz);
        BlastPaZoneForceT(&c->pb, &c->S[(size_t)z * hd->nqp * hd->dim * hd->dim], vz,
                          c->tg ? &c->tg[(size_t)z * ne] : NULL, b, b + ne);
      } else if (z < ndev) {
        GatherZone(hd, z, v, vz);
        ZoneForceT(rows, ne, &c->F[(size_t)z * rows * ne], vz,
                   c->tg ? &c->tg[(size_t)z * ne] : NULL, b);
      } else {
        bz = &host_b[(size_t)(z - ndev) * ne];
      }
      ZoneMinv(ne, &hd->me_inv[(size_t)z * ne * ne], bz, &de[(size_t)z * ne]);
    }
  }
}

static int CpuEnergyRate(void *ctx, const double *v, double *de) {
  CpuCtx *c = ctx;
  EnergyRate(c, c->hd.nz, NULL, v, de);
  return 0;
}

// ---- hybrid support: this backend as the "device" part (used to test the split) ----

static int CpuSplitGather(void *ctx, int z0, int z1, const double *h1, double *host) {
  CpuCtx *c = ctx;
  const int rows = c->rows;
#pragma omp parallel for schedule(static) if (z1 - z0 > BLAST_OMP_MIN_ZONES)
  for (int z = z0; z < z1; z++) GatherZone(&c->hd, z, h1, &host[(size_t)(z - z0) * rows]);
  return 0;
}

static int CpuSplitQDataBegin(void *ctx, int ndev, const double *x, const double *v,
                              const double *e, double *host_x, double *host_v, double *host_e) {
  CpuCtx *c = ctx;
  const int nz = c->hd.nz, ne = c->hd.l2_nd;
  BlastCall(CpuSplitGather(ctx, ndev, nz, x, host_x));
  BlastCall(CpuSplitGather(ctx, ndev, nz, v, host_v));
  if (nz > ndev) memcpy(host_e, &e[(size_t)ndev * ne], (size_t)(nz - ndev) * ne * sizeof(double));
  const double t0 = omp_get_wtime();
  const ZoneRange zr = OwnZones(c, x, v, e);
  QDataRange(&zr, 0, ndev, c->ws, c->ws_size, c->nthreads, &c->split_res);
  c->split_seconds = omp_get_wtime() - t0;
  return 0;
}

static int CpuSplitQDataEnd(void *ctx, BlastQDataResult *res, double *seconds, int *tuning) {
  CpuCtx *c = ctx;
  *res = c->split_res;
  *seconds = c->split_seconds;
  *tuning = 0;
  return 0;
}

static int CpuSplitMomentumRhs(void *ctx, int ndev, const double *host_rows, double *rhs) {
  CpuCtx *c = ctx;
  const size_t nhost = (size_t)(c->hd.nz - ndev) * c->rows;
  if (nhost) memcpy(&c->rE[(size_t)ndev * c->rows], host_rows, nhost * sizeof(double));
  MomentumGather(c, ndev, rhs);
  return 0;
}

static int CpuSplitEnergyRate(void *ctx, int ndev, const double *host_b, const double *v,
                              double *de) {
  EnergyRate(ctx, ndev, host_b, v, de);
  return 0;
}

// ---- host zones of the hybrid (cpu_zones.h) ----

struct BlastCpuZones_private {
  BlastHydroData hd;
  int rows;
  BlastPaBasis pb;  // partial: the zone kernels' data
  PaQDataFn pa_qdata;
  PaMassFn pa_mass;
  int pa;
  double *F, *tg;      // [cap * rows * l2_nd], [cap * l2_nd] (tg when the source is on)
  double *rE, *S, *b;  // partial: [cap * rows], [cap * nqp * dim^2] or [cap * l2_nd]
  int cap;
  double *ws;  // nthreads workspaces of ws_size
  size_t ws_size;
  int nthreads;
};

int BlastCpuZonesCreate(const BlastHydroData *hd, BlastCpuZones *cz) {
  BlastCpuZones z;
  BlastCall(BlastCalloc(1, &z));
  z->hd = *hd;
  z->rows = hd->dim * hd->h1_nd;
  z->pa = hd->assembly == BLAST_ASSEMBLY_PARTIAL;
  if (z->pa) {
    PaBasisOf(hd, &z->pb);
    PaKernelsOf(&z->pb, &z->pa_qdata, &z->pa_mass);
  }
  z->ws_size = WorkspaceSize(hd);
  z->nthreads = omp_get_max_threads();
  const int ierr = BlastMalloc(z->ws_size * z->nthreads, &z->ws);
  if (ierr) {
    BlastFree(&z);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  *cz = z;
  return 0;
}

int BlastCpuZonesDestroy(BlastCpuZones *cz) {
  if (!cz || !*cz) return 0;
  BlastFree(&(*cz)->F);
  BlastFree(&(*cz)->rE);
  BlastFree(&(*cz)->S);
  BlastFree(&(*cz)->b);
  BlastFree(&(*cz)->tg);
  BlastFree(&(*cz)->ws);
  BlastFree(cz);
  return 0;
}

int BlastCpuZonesQData(BlastCpuZones cz, int z0, int z1, const double *xE, const double *vE,
                       const double *eE, BlastQDataResult *res) {
  const int n = z1 - z0, ne = cz->hd.l2_nd;
  if (n > cz->cap) {
    if (!cz->pa) {
      BlastCall(BlastRealloc((size_t)n * cz->rows * ne, &cz->F));
    } else {
      BlastCall(BlastRealloc((size_t)n * cz->rows, &cz->rE));
      if (cz->hd.pa.keep_stress)
        BlastCall(BlastRealloc((size_t)n * cz->hd.nqp * cz->hd.dim * cz->hd.dim, &cz->S));
      else
        BlastCall(BlastRealloc((size_t)n * ne, &cz->b));
    }
    if (cz->hd.tg_source) BlastCall(BlastRealloc((size_t)n * ne, &cz->tg));
    cz->cap = n;
  }
  const ZoneRange zr = {&cz->hd,
                        NULL,
                        NULL,
                        NULL,
                        xE,
                        vE,
                        eE,
                        cz->F,
                        cz->hd.tg_source ? cz->tg : NULL,
                        cz->pa ? &cz->pb : NULL,
                        cz->rE,
                        cz->S,
                        cz->b,
                        cz->pa_qdata,
                        NULL,
                        z0};
  QDataRange(&zr, z0, z1, cz->ws, cz->ws_size, cz->nthreads, res);
  return 0;
}

void BlastCpuZonesForceOnes(BlastCpuZones cz, int n, double *rows_out) {
  const int rows = cz->rows, ne = cz->hd.l2_nd;
  if (cz->pa) {  // computed with the quadrature data
    if (n > 0) memcpy(rows_out, cz->rE, (size_t)n * rows * sizeof(double));
    return;
  }
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_ZONES)
  for (int k = 0; k < n; k++)
    ZoneForceOnes(rows, ne, &cz->F[(size_t)k * rows * ne], &rows_out[(size_t)k * rows]);
}

void BlastCpuZonesForceT(BlastCpuZones cz, int n, const double *vE, double *b_out) {
  const int rows = cz->rows, ne = cz->hd.l2_nd;
  if (cz->pa && cz->b) {  // computed with the quadrature data
    if (n > 0) memcpy(b_out, cz->b, (size_t)n * ne * sizeof(double));
    return;
  }
  if (cz->pa) {
    const size_t ns = (size_t)cz->hd.nqp * cz->hd.dim * cz->hd.dim;
#pragma omp parallel if (n > BLAST_OMP_MIN_ZONES) num_threads(cz->nthreads)
    {
      double *ws = &cz->ws[(size_t)omp_get_thread_num() * cz->ws_size];
#pragma omp for schedule(static)
      for (int k = 0; k < n; k++)
        BlastPaZoneForceT(&cz->pb, &cz->S[k * ns], &vE[(size_t)k * rows],
                          cz->hd.tg_source ? &cz->tg[(size_t)k * ne] : NULL, &b_out[(size_t)k * ne],
                          ws);
    }
    return;
  }
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_ZONES)
  for (int k = 0; k < n; k++)
    ZoneForceT(rows, ne, &cz->F[(size_t)k * rows * ne], &vE[(size_t)k * rows],
               cz->hd.tg_source ? &cz->tg[(size_t)k * ne] : NULL, &b_out[(size_t)k * ne]);
}

static int HostZonesCreate(const BlastHydroData *hd, void **hz) {
  return BlastCpuZonesCreate(hd, (BlastCpuZones *)hz);
}
static int HostZonesDestroy(void **hz) {
  return BlastCpuZonesDestroy((BlastCpuZones *)hz);
}
static int HostZonesRebuild(void *hz, const BlastHydroData *hd) {
  BlastCpuZones cz = hz;
  cz->hd = *hd;
  if (cz->pa) PaBasisOf(hd, &cz->pb);
  return 0;
}
static int HostZonesQData(void *hz, int z0, int z1, const double *xE, const double *vE,
                          const double *eE, BlastQDataResult *res) {
  return BlastCpuZonesQData(hz, z0, z1, xE, vE, eE, res);
}
static void HostZonesForceOnes(void *hz, int n, double *rows_out) {
  BlastCpuZonesForceOnes(hz, n, rows_out);
}
static void HostZonesForceT(void *hz, int n, const double *vE, double *b_out) {
  BlastCpuZonesForceT(hz, n, vE, b_out);
}
const BlastHostZoneOps blast_cpu_host_zones = {
    .create = HostZonesCreate,
    .destroy = HostZonesDestroy,
    .rebuild = HostZonesRebuild,
    .qdata = HostZonesQData,
    .force_ones = HostZonesForceOnes,
    .force_t = HostZonesForceT,
};

int BlastCpuHostZones(void *ctx, const BlastHostZoneOps **ops) {
  (void)ctx;
  *ops = &blast_cpu_host_zones;
  return 0;
}

// Component c of a PCG vector starts at c * h1_next.
#define ACTIVE(mask, c) (((mask) >> (c)) & 1u)

// Partial assembly: the zone values of the mass action for the zones of `rows` (interior:
// the zones with owned dofs only; boundary: the others), then each owned row of `rows`
// sums its zones' values in ascending global zone id, in double-double, rounded once.
static void MassMultPartial(CpuCtx *c, int rows, int ncomp, unsigned mask, const double *x,
                            double *y) {
  const BlastHydroData *hd = &c->hd;
  const int nd = hd->h1_nd, nq = hd->nqp;
  const size_t st = (size_t)hd->h1_next;
  const int k0 = rows == BLAST_ROWS_BOUNDARY ? hd->pa.nzint : 0;
  const int k1 = rows == BLAST_ROWS_INTERIOR ? hd->pa.nzint : hd->pa.nz_ext;
  double *E = c->rE;
#pragma omp parallel if (k1 - k0 > BLAST_OMP_MIN_ZONES) num_threads(c->nthreads)
  {
    double *mws = &c->ws[(size_t)omp_get_thread_num() * c->ws_size];
#pragma omp for schedule(static)
    for (int k = k0; k < k1; k++) {
      const int z = hd->pa.zones[k];
      c->pa_mass(&c->pb, &hd->pa.qmass[(size_t)z * nq], ncomp, mask, &hd->h1_edof[(size_t)z * nd],
                 x, st, &E[(size_t)z * nd * 3], mws);
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

static int CpuMassMult(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y) {
  CpuCtx *c = ctx;
  if (c->pa) {
    MassMultPartial(c, rows, ncomp, mask, x, y);
    return 0;
  }
  const BlastHydroData *hd = &c->hd;
  const size_t st = (size_t)hd->h1_next;
  const int r0 = rows == BLAST_ROWS_BOUNDARY ? hd->mv_ninterior : 0;
  const int r1 = rows == BLAST_ROWS_INTERIOR ? hd->mv_ninterior : hd->h1_nown;
  const double *x1 = ncomp > 1 ? x + st : x, *x2 = ncomp > 2 ? x + 2 * st : x;
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
      if (ACTIVE(mask, cc)) y[cc * st + i] = out[cc];
  }
  return 0;
}

static int CpuJacobi(void *ctx, int ncomp, unsigned mask, const double *r, double *z) {
  CpuCtx *c = ctx;
  const double *dinv = c->hd.mv_dinv;
  const size_t st = (size_t)c->hd.h1_next;
  const int n = c->hd.h1_nown;
  for (int cc = 0; cc < ncomp; cc++) {
    if (!ACTIVE(mask, cc)) continue;
    const double *rc = r + cc * st;
    double *zc = z + cc * st;
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
    for (int i = 0; i < n; i++) zc[i] = rc[i] * dinv[i];
  }
  return 0;
}

static int CpuZeroEssential(void *ctx, int ncomp, unsigned mask, double *y) {
  CpuCtx *c = ctx;
  const size_t st = (size_t)c->hd.h1_next;
  for (int cc = 0; cc < ncomp; cc++) {
    if (!ACTIVE(mask, cc)) continue;
    for (int k = c->hd.ess_off[cc]; k < c->hd.ess_off[cc + 1]; k++)
      y[cc * st + c->hd.ess_idx[k]] = 0.0;
  }
  return 0;
}

static int CpuAxpbyMulti(void *ctx, int ncomp, unsigned mask, const double *a, const double *x,
                         const double *b, double *y) {
  CpuCtx *c = ctx;
  const size_t st = (size_t)c->hd.h1_next;
  for (int cc = 0; cc < ncomp; cc++)
    if (ACTIVE(mask, cc))
      BlastCall(CpuAxpby(ctx, c->hd.h1_nown, a[cc], x + cc * st, b[cc], y + cc * st));
  return 0;
}

static int CpuDotMulti(void *ctx, int ncomp, unsigned mask, const double *x, const double *y,
                       double *result) {
  CpuCtx *c = ctx;
  const size_t st = (size_t)c->hd.h1_next;
  for (int cc = 0; cc < ncomp; cc++) {
    result[2 * cc] = result[2 * cc + 1] = 0.0;
    if (ACTIVE(mask, cc))
      BlastCall(CpuDot(ctx, c->hd.h1_nown, x + cc * st, y + cc * st, &result[2 * cc]));
  }
  return 0;
}

// BlastMassOps.mult_dot: mult, then at the BOUNDARY (or ALL) call the pairs of dot_multi
// over all owned dofs (the INTERIOR call keeps nothing: y holds its rows).
static int CpuMassMultDot(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y,
                          double *result) {
  BlastCall(CpuMassMult(ctx, rows, ncomp, mask, x, y));
  if (rows == BLAST_ROWS_INTERIOR) return 0;
  return CpuDotMulti(ctx, ncomp, mask, x, y, result);
}

// BlastMassOps.cg_update: per component and group of four chunks of CpuDot, the updates,
// then the group's (r, z) pairs by DotChunks (the same bits as CpuDot). b = 1 of the axpby
// form is left out: 1 y is y.
static int CpuCgUpdate(void *ctx, int ncomp, unsigned mask, const double *a, const double *Ad,
                       double *r, double *z, double *result) {
  CpuCtx *c = ctx;
  const double *dinv = c->hd.mv_dinv;
  const size_t st = (size_t)c->hd.h1_next, n = (size_t)c->hd.h1_nown;
  const size_t nchunks = (n + kDotChunk - 1) / kDotChunk, ngroups = (nchunks + 3) / 4;
  double *partial;
  BlastCall(CpuDotPartial(c, nchunks, &partial));
  for (int cc = 0; cc < ncomp; cc++) {
    result[2 * cc] = result[2 * cc + 1] = 0.0;
    if (!ACTIVE(mask, cc)) continue;
    const double na = -a[cc], *Adc = Ad + cc * st;
    double *rc = r + cc * st, *zc = z + cc * st;
    // the updates of four chunks, then their (r, z) pairs as CpuDot (in cache)
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
    for (size_t g = 0; g < ngroups; g++) {
      const size_t i0 = 4 * g * kDotChunk, i1 = i0 + 4 * kDotChunk < n ? i0 + 4 * kDotChunk : n;
      for (size_t i = i0; i < i1; i++) {
        rc[i] = na * Adc[i] + rc[i];
        zc[i] = rc[i] * dinv[i];
      }
      DotChunks(rc, zc, n, 4 * g, nchunks, partial);
    }
    CpuDotCombine(partial, nchunks, &result[2 * cc]);
  }
  return 0;
}

// BlastMassOps.cg_advance: x then d per dof, the expressions of CpuAxpby (a = 1 of the d
// update kept: the same bits as axpby_multi(1, z, b, d)).
static int CpuCgAdvance(void *ctx, int ncomp, unsigned xmask, unsigned dmask, const double *a,
                        const double *b, const double *z, double *d, double *x) {
  CpuCtx *c = ctx;
  const size_t st = (size_t)c->hd.h1_next, n = (size_t)c->hd.h1_nown;
  const double one = 1.0;
  for (int cc = 0; cc < ncomp; cc++) {
    if (!ACTIVE(xmask, cc)) continue;
    const double ac = a[cc], *zc = z + cc * st;
    double *dc = d + cc * st, *xc = x + cc * st;
    if (ACTIVE(dmask, cc)) {
      const double bc = b[cc];
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
      for (size_t i = 0; i < n; i++) {
        const double di = dc[i];
        xc[i] = ac * di + xc[i];
        dc[i] = one * zc[i] + bc * di;
      }
    } else {
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
      for (size_t i = 0; i < n; i++) xc[i] = ac * dc[i] + xc[i];
    }
  }
  return 0;
}

static int CpuHaloPack(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *x,
                       double *buf) {
  const BlastHaloIndex *hi = &((CpuCtx *)ctx)->hd.halo[which];
  const int n = reverse ? hi->nrecv : hi->nsend;
  const int *idx = reverse ? hi->recv_idx : hi->send_idx;
  for (int c = 0; c < ncomp; c++)
    for (int i = 0; i < n; i++) buf[(size_t)c * n + i] = x[c * stride + idx[i]];
  return 0;
}

static int CpuHaloUnpackDD(void *ctx, int which, int ndd, size_t stride, const double *buf,
                           double *x) {
  const BlastHaloIndex *hi = &((CpuCtx *)ctx)->hd.halo[which];
  const size_t ns = (size_t)hi->nsend;
  for (int c = 0; c < ndd; c++)
    for (size_t i = 0; i < ns; i++) {
      double *xh = &x[c * stride + hi->send_idx[i]], *xl = &x[(ndd + c) * stride + hi->send_idx[i]];
      BlastDD acc = {*xh, *xl};
      BlastDDAddDD(&acc, buf[c * ns + i], buf[(ndd + c) * ns + i]);
      BlastDDNormalize(&acc);
      *xh = acc.hi, *xl = acc.lo;
    }
  return 0;
}

static int CpuHaloUnpack(void *ctx, int which, int reverse, int ncomp, size_t stride,
                         const double *buf, double *x) {
  const BlastHaloIndex *hi = &((CpuCtx *)ctx)->hd.halo[which];
  if (!reverse) {
    for (int c = 0; c < ncomp; c++)
      for (int i = 0; i < hi->nrecv; i++)
        x[c * stride + hi->recv_idx[i]] = buf[(size_t)c * hi->nrecv + i];
  } else {  // in list order: an owned dof shared with several ranks adds in rank order
    for (int c = 0; c < ncomp; c++)
      for (int i = 0; i < hi->nsend; i++)
        x[c * stride + hi->send_idx[i]] += buf[(size_t)c * hi->nsend + i];
  }
  return 0;
}

static int CpuEnergies(void *ctx, const double *v, const double *e, double *ie, double *ke) {
  CpuCtx *c = ctx;
  const BlastHydroData *hd = &c->hd;
  const int nd = hd->h1_nd, ne = hd->l2_nd, nqp = hd->nqp, nl = hd->h1_nl, dim = hd->dim;
  double *zone_ie, *zone_ke;
  BlastCall(BlastMalloc(hd->nz, &zone_ie));
  BlastCall(BlastMalloc(hd->nz, &zone_ke));
#pragma omp parallel for schedule(static) if (hd->nz > BLAST_OMP_MIN_ZONES)
  for (int z = 0; z < hd->nz; z++) {
    const int *dof = &hd->h1_edof[(size_t)z * nd];
    double si = 0.0, sk = 0.0;
    for (int q = 0; q < nqp; q++) {
      const double R0 = hd->qp_R0[(size_t)z * nqp + q];
      double eq = 0.0, v2 = 0.0;
      for (int i = 0; i < ne; i++) eq += e[(size_t)z * ne + i] * hd->l2_B[(size_t)q * ne + i];
      for (int cc = 0; cc < dim; cc++) {
        double vq = 0.0;
        for (int a = 0; a < nd; a++)
          vq += v[(size_t)cc * nl + dof[a]] * hd->h1_B[(size_t)q * nd + a];
        v2 += vq * vq;
      }
      si += R0 * eq;
      sk += 0.5 * R0 * v2;
    }
    zone_ie[z] = si, zone_ke[z] = sk;
  }
  double si = 0.0, sk = 0.0;
  for (int z = 0; z < hd->nz; z++) si += zone_ie[z], sk += zone_ke[z];
  *ie = si, *ke = sk;
  BlastFree(&zone_ie);
  BlastFree(&zone_ke);
  return 0;
}

static int CpuSync(void *ctx) {
  return 0;
}  // every operation completes before it returns

const BlastBackendOps blast_backend_cpu = {
    .name = "cpu",
    .ctx = {.create = CpuCreate, .destroy = CpuDestroy, .rebuild = CpuRebuild, .sync = CpuSync},
    .vec =
        {
            .alloc = CpuAlloc,
            .free = CpuFree,
            .host_alloc = CpuAlloc,
            .host_free = CpuFree,
            .to_host = CpuCopy,
            .from_host = CpuCopy,
            .copy = CpuCopy,
            .set = CpuSet,
            .axpby = CpuAxpby,
            .waxpby = CpuWaxpby,
            .dot = CpuDot,
        },
    .zone =
        {
            .qdata_force = CpuQDataForce,
            .momentum_rhs = CpuMomentumRhs,
            .energy_rate = CpuEnergyRate,
            .energies = CpuEnergies,
        },
    .mass =
        {
            .mult = CpuMassMult,
            .jacobi = CpuJacobi,
            .zero_essential = CpuZeroEssential,
            .axpby_multi = CpuAxpbyMulti,
            .dot_multi = CpuDotMulti,
            .mult_dot = CpuMassMultDot,
            .cg_update = CpuCgUpdate,
            .cg_advance = CpuCgAdvance,
        },
    .halo = {.pack = CpuHaloPack, .unpack = CpuHaloUnpack, .unpack_dd = CpuHaloUnpackDD},
    .split =
        {
            .qdata_begin = CpuSplitQDataBegin,
            .qdata_end = CpuSplitQDataEnd,
            .gather = CpuSplitGather,
            .momentum_rhs = CpuSplitMomentumRhs,
            .energy_rate = CpuSplitEnergyRate,
            .host_zones = BlastCpuHostZones,
        },
};
