// Vector operations of the CPU backend (cpu_ctx.h): whole vectors, dot products as
// double-double pairs in fixed chunks (independent of the thread count and of how the
// dofs are split over ranks), and the PCG's per-component updates of the mass group.
#include <math.h>
#include <omp.h>
#include <string.h>

#include "blast.h"
#include "boundary.h"
#include "cpu_ctx.h"
#include "ddsum.h"

#define ACTIVE(mask, c) (((mask) >> (c)) & 1u)

int BlastCpuAlloc(void *ctx, size_t n, double **p) {
  if (ctx) ((CpuCtx *)ctx)->bytes += n * sizeof(double);
  return BlastCalloc(n, p);
}

int BlastCpuFree(void *ctx, double **p) {
  BlastFree(p);
  return 0;
}
int BlastCpuCopy(void *ctx, size_t n, const double *src, double *dst) {
  if (n && src != dst) memcpy(dst, src, n * sizeof(double));
  return 0;
}
int BlastCpuSet(void *ctx, size_t n, double a, double *x) {
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
  for (size_t i = 0; i < n; i++) x[i] = a;
  return 0;
}
int BlastCpuAxpby(void *ctx, size_t n, double a, const double *x, double b, double *y) {
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
  for (size_t i = 0; i < n; i++) y[i] = a * x[i] + b * y[i];
  return 0;
}
int BlastCpuWaxpby(void *ctx, size_t n, double a, const double *x, double b, const double *y,
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
int BlastCpuDot(void *ctx, size_t n, const double *x, const double *y, double *result) {
  const size_t nchunks = (n + kDotChunk - 1) / kDotChunk;
  double *partial;
  BlastCall(CpuDotPartial(ctx, nchunks, &partial));
  const size_t ngroups = (nchunks + 3) / 4;  // four chunks at a time in vector lanes
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_VEC)
  for (size_t g = 0; g < ngroups; g++) DotChunks(x, y, n, 4 * g, nchunks, partial);
  CpuDotCombine(partial, nchunks, result);
  return 0;
}

// BlastMassOps.mult: the mode's operator.
int BlastCpuMassMult(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y) {
  CpuCtx *c = ctx;
  c->mode->mass_mult(&c->hd, c->md, &c->st, c->ws, c->ws_size, c->nthreads, rows, ncomp, mask, x,
                     y);
  return 0;
}

int BlastCpuJacobi(void *ctx, int ncomp, unsigned mask, const double *r, double *z) {
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

int BlastCpuZeroEssential(void *ctx, int ncomp, unsigned mask, double *y) {
  CpuCtx *c = ctx;
  const size_t st = (size_t)c->hd.h1_next;
  for (int cc = 0; cc < ncomp; cc++) {
    if (!ACTIVE(mask, cc)) continue;
    for (int k = c->hd.ess_off[cc]; k < c->hd.ess_off[cc + 1]; k++)
      y[cc * st + c->hd.ess_idx[k]] = 0.0;
  }
  return 0;
}

int BlastCpuProject(void *ctx, int ncomp, double *y) {
  CpuCtx *c = ctx;
  const size_t st = (size_t)c->hd.h1_next;
  const int np = c->hd.nproj;
  const int *idx = c->hd.proj_idx;
  const double *nrm = c->proj_normal;
#pragma omp parallel for schedule(static) if (np > BLAST_OMP_MIN_VEC)
  for (int i = 0; i < np; i++) {
    double v[3] = {0, 0, 0};
    for (int cc = 0; cc < ncomp; cc++) v[cc] = y[cc * st + idx[i]];
    BlastProjectNode(ncomp, nrm + 9 * (size_t)i, v);
    for (int cc = 0; cc < ncomp; cc++) y[cc * st + idx[i]] = v[cc];
  }
  return 0;
}

int BlastCpuWallNormals(void *ctx, int ncomp, const double *x, const double *v, double *a0) {
  CpuCtx *c = ctx;
  const BlastHydroData *hd = &c->hd;
  const size_t st = (size_t)hd->h1_next;
  const int np = hd->nproj;
#pragma omp parallel for schedule(static) if (np > BLAST_OMP_MIN_VEC)
  for (int i = 0; i < np; i++) {
    const int l = hd->proj_idx[i];
    double a[3];
    BlastWallNodeNormals(ncomp, hd->wall_np, hd->wall_off[i], hd->wall_off[i + 1], hd->wall_slot,
                         hd->wall_idx, hd->wall_w, x, v, st, l, c->proj_normal + 9 * (size_t)i, a);
    for (int cc = 0; cc < ncomp; cc++) a0[cc * st + l] = a[cc];
  }
  return 0;
}

int BlastCpuAxpbyMulti(void *ctx, int ncomp, unsigned mask, const double *a, const double *x,
                       const double *b, double *y) {
  CpuCtx *c = ctx;
  const size_t st = (size_t)c->hd.h1_next;
  for (int cc = 0; cc < ncomp; cc++)
    if (ACTIVE(mask, cc))
      BlastCall(BlastCpuAxpby(ctx, c->hd.h1_nown, a[cc], x + cc * st, b[cc], y + cc * st));
  return 0;
}

int BlastCpuDotMulti(void *ctx, int ncomp, unsigned mask, const double *x, const double *y,
                     double *result) {
  CpuCtx *c = ctx;
  const size_t st = (size_t)c->hd.h1_next;
  for (int cc = 0; cc < ncomp; cc++) {
    result[2 * cc] = result[2 * cc + 1] = 0.0;
    if (ACTIVE(mask, cc))
      BlastCall(BlastCpuDot(ctx, c->hd.h1_nown, x + cc * st, y + cc * st, &result[2 * cc]));
  }
  return 0;
}

// BlastMassOps.mult_dot: mult, then at the BOUNDARY (or ALL) call the pairs of dot_multi
// over all owned dofs (the INTERIOR call keeps nothing: y holds its rows).
int BlastCpuMassMultDot(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y,
                        double *result) {
  BlastCall(BlastCpuMassMult(ctx, rows, ncomp, mask, x, y));
  if (rows == BLAST_ROWS_INTERIOR) return 0;
  return BlastCpuDotMulti(ctx, ncomp, mask, x, y, result);
}

// BlastMassOps.cg_update: per component and group of four chunks of CpuDot, the updates,
// then the group's (r, z) pairs by DotChunks (the same bits as CpuDot). b = 1 of the axpby
// form is left out: 1 y is y.
int BlastCpuCgUpdate(void *ctx, int ncomp, unsigned mask, const double *a, const double *Ad,
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
int BlastCpuCgAdvance(void *ctx, int ncomp, unsigned xmask, unsigned dmask, const double *a,
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

// BlastMassOps.pcg: never resident. The host loop of the other entries (hydro/pcg.c) is
// already where this backend computes; there is no round trip to save.
int BlastCpuPcg(void *ctx, int ncomp, double tol, int max_iter, double *b, double *x,
                double *const work[4], BlastPcgState *s, int *resident) {
  (void)ctx, (void)ncomp, (void)tol, (void)max_iter, (void)b, (void)x, (void)work, (void)s;
  *resident = 0;
  return 0;
}
