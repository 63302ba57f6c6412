// Cases of the ctx and vec entries: contexts, memory and whole-vector operations.
// Vector operations are checked element by element against the same IEEE expression
// evaluated here (exactly: -std=c11 does not contract into FMA, nor does nvcc with
// --fmad=false); dot against a double-double sum (rounded value exact, low part within
// the summation error bound). In the GPU part the reference is the CPU backend's result.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conformance.h"
#include "ddsum.h"

static const size_t kSizes[] = {0, 1, 7, 4097, 40001};  // 40001: OpenMP loops on the CPU
enum { kNSizes = (int)(sizeof kSizes / sizeof kSizes[0]) };

// The backend under test on problem 0's context (vector entries need no problem data).
static Bk Dev(const Env *E) {
  return E->dev[0];
}
static Bk Cpu(const Env *E) {
  return E->cpu[0];
}

// ---- ctx ----

// A fresh context on each problem's data: created, usable, and independent of another
// context of the same backend (work on one does not change the other's results).
void CaseCtxCreate(Env *E) {
  for (int p = 0; p < E->np; p++) {
    const Problem *P = &E->P[p];
    char what[128];
    Bk a = E->dev[p], b = {E->B, NULL};
    const int rc = E->B->ctx.create(&P->hd, &b.ctx);
    snprintf(what, sizeof what, "%s: create -> 0, a context", P->label);
    if (!ReportOk(E, what, rc == 0 && b.ctx != NULL, rc ? "create failed" : NULL)) continue;
    const size_t nr = 2 * P->nx;
    double *x = HostNew(P->nx), *v = HostNew(P->nx), *e = HostNew(P->ne);
    double *r1 = HostNew(nr), *r2 = HostNew(nr);
    BlastQDataResult res;
    ProblemState(P, STATE_SMOOTH, x, v, e);
    double *xa = Up(E, a, P->nx, x), *va = Up(E, a, P->nx, v), *ea = Up(E, a, P->ne, e);
    double *ra = Up(E, a, nr, NULL);
    CK(E, a.o->zone.qdata_force(a.ctx, xa, va, ea, &res));
    CK(E, a.o->ctx.sync(a.ctx));  // res filled in (a queued update's)
    CK(E, a.o->zone.momentum_rhs(a.ctx, ra));
    Down(E, a, nr, ra, r1);
    // the new context on another state, then the first one's rhs again
    for (size_t i = 0; i < P->nx; i++) v[i] = -2.0 * v[i];
    double *xb = Up(E, b, P->nx, x), *vb = Up(E, b, P->nx, v), *eb = Up(E, b, P->ne, e);
    double *rb = Up(E, b, nr, NULL);
    CK(E, b.o->zone.qdata_force(b.ctx, xb, vb, eb, &res));
    CK(E, b.o->ctx.sync(b.ctx));  // res filled in (a queued update's)
    CK(E, b.o->zone.momentum_rhs(b.ctx, rb));
    CK(E, a.o->zone.momentum_rhs(a.ctx, ra));
    Down(E, a, nr, ra, r2);
    snprintf(what, sizeof what, "%s: independent of a second context", P->label);
    Report(E, what, CompareBits(r2, r1, nr));
    Drop(E, b, &xb), Drop(E, b, &vb), Drop(E, b, &eb), Drop(E, b, &rb);
    Drop(E, a, &xa), Drop(E, a, &va), Drop(E, a, &ea), Drop(E, a, &ra);
    CK(E, E->B->ctx.destroy(&b.ctx));
    HostFree(&x), HostFree(&v), HostFree(&e), HostFree(&r1), HostFree(&r2);
  }
}

// Create/destroy cycles on every problem (leaks show under LeakSanitizer); destroy
// returns 0 and clears the handle.
void CaseCtxDestroy(Env *E) {
  for (int p = 0; p < E->np; p++) {
    int ok = 1;
    for (int cycle = 0; cycle < 3 && ok; cycle++) {
      void *ctx = NULL;
      double *buf = NULL;
      const BlastHydroData *hd = cycle == 1 ? &E->P[p].hdm : &E->P[p].hd;
      CK(E, E->B->ctx.create(hd, &ctx));
      CK(E, E->B->vec.alloc(ctx, 16, &buf));
      CK(E, E->B->vec.free(ctx, &buf));
      ok = E->B->ctx.destroy(&ctx) == 0 && ctx == NULL;
    }
    char what[128];
    snprintf(what, sizeof what, "%s: 3 create/destroy cycles, handle cleared", E->P[p].label);
    ReportOk(E, what, ok, ok ? NULL : "destroy failed or left the handle set");
  }
}

// Queued work is complete and visible after sync; sync on an idle context returns 0.
void CaseCtxSync(Env *E) {
  Bk b = Dev(E);
  const size_t n = 40001;
  double *h = HostNew(n), *ref = HostNew(n);
  Rng r = RngSeed(3);
  FillMixed(&r, h, n);
  double *x = Up(E, b, n, h), *y = Up(E, b, n, NULL);
  CK(E, b.o->vec.set(b.ctx, n, 0.25, y));
  CK(E, b.o->vec.axpby(b.ctx, n, 2.0, x, -3.0, y));
  CK(E, b.o->vec.axpby(b.ctx, n, 0.5, x, 1.0, y));
  CK(E, b.o->ctx.sync(b.ctx));
  CK(E, b.o->vec.to_host(b.ctx, n, y, h));
  Rng r2 = RngSeed(3);
  for (size_t i = 0; i < n; i++) {
    const double xi = RandMixed(&r2, 20, 20);
    double yi = 2.0 * xi + -3.0 * 0.25;
    ref[i] = 0.5 * xi + 1.0 * yi;
  }
  Report(E, "set + 2 axpby queued, n 40001, then sync", CompareBits(h, ref, n));
  ReportOk(E, "sync on an idle context returns 0", b.o->ctx.sync(b.ctx) == 0, NULL);
  Drop(E, b, &x), Drop(E, b, &y);
  HostFree(&h), HostFree(&ref);
}

// ---- vec: memory ----

void CaseVecAlloc(Env *E) {
  Bk b = Dev(E);
  for (int s = 1; s < kNSizes; s++) {  // (alloc of 0 doubles has no contract)
    const size_t n = kSizes[s];
    double *p = NULL, *q = NULL;
    CK(E, b.o->vec.alloc(b.ctx, n, &p));
    CK(E, b.o->vec.alloc(b.ctx, n, &q));
    char what[96];
    snprintf(what, sizeof what, "n %zu: two buffers, distinct", n);
    ReportOk(E, what, p && q && p != q, p && q ? NULL : "NULL pointer");
    {  // every entry writable and kept; the two do not overlap
      double *h = HostNew(n), *g = HostNew(n), *out = HostNew(n);
      Rng r = RngSeed(10 + n);
      FillMixed(&r, h, n), FillMixed(&r, g, n);
      CK(E, b.o->vec.from_host(b.ctx, n, h, p));
      CK(E, b.o->vec.from_host(b.ctx, n, g, q));
      Down(E, b, n, p, out);
      snprintf(what, sizeof what, "n %zu: all entries written and read back", n);
      Report(E, what, CompareBits(out, h, n));
      HostFree(&h), HostFree(&g), HostFree(&out);
    }
    Drop(E, b, &p), Drop(E, b, &q);
  }
}

void CaseVecFree(Env *E) {
  Bk b = Dev(E);
  for (int s = 0; s < kNSizes; s++) {
    double *p = NULL;
    CK(E, b.o->vec.alloc(b.ctx, kSizes[s], &p));
    const int rc = b.o->vec.free(b.ctx, &p);
    char what[96];
    snprintf(what, sizeof what, "n %zu: free -> 0, pointer cleared", kSizes[s]);
    ReportOk(E, what, rc == 0 && p == NULL, NULL);
  }
}

void CaseVecHostAlloc(Env *E) {
  Bk b = Dev(E);
  for (int s = 1; s < kNSizes; s++) {  // host memory: written by the test directly
    const size_t n = kSizes[s];
    double *hb = NULL, *ref = HostNew(n);
    CK(E, b.o->vec.host_alloc(b.ctx, n, &hb));
    Rng r = RngSeed(20 + n);
    FillMixed(&r, ref, n);
    memcpy(hb, ref, n * sizeof(double));
    double *d = Up(E, b, n, hb);  // and usable as a transfer source and target
    memset(hb, 0, n * sizeof(double));
    Down(E, b, n, d, hb);
    char what[96];
    snprintf(what, sizeof what, "n %zu: host-writable, round trip through it", n);
    Report(E, what, CompareBits(hb, ref, n));
    Drop(E, b, &d);
    CK(E, b.o->vec.host_free(b.ctx, &hb));
    HostFree(&ref);
  }
}

void CaseVecHostFree(Env *E) {
  Bk b = Dev(E);
  for (int s = 1; s < kNSizes; s++) {
    double *p = NULL;
    CK(E, b.o->vec.host_alloc(b.ctx, kSizes[s], &p));
    p[0] = 1.0, p[kSizes[s] - 1] = 2.0;
    const int rc = b.o->vec.host_free(b.ctx, &p);
    char what[96];
    snprintf(what, sizeof what, "n %zu: host_free -> 0, pointer cleared", kSizes[s]);
    ReportOk(E, what, rc == 0 && p == NULL, NULL);
  }
}

// Transfers of a sub-range [3, n - 2): the rest of the target keeps its contents.
enum { kLo = 3, kHi = 2 };

void CaseVecToHost(Env *E) {
  Bk b = Dev(E);
  for (int s = 3; s < kNSizes; s++) {
    const size_t n = kSizes[s], m = n - kLo - kHi;
    double *src = HostNew(n), *out = HostNew(n), *ref = HostNew(n);
    Rng r = RngSeed(30 + n);
    FillMixed(&r, src, n);
    double *d = Up(E, b, n, src);
    for (size_t i = 0; i < n; i++) out[i] = ref[i] = -7.0;
    memcpy(ref + kLo, src + kLo, m * sizeof(double));
    CK(E, b.o->ctx.sync(b.ctx));
    CK(E, b.o->vec.to_host(b.ctx, m, d + kLo, out + kLo));
    char what[96];
    snprintf(what, sizeof what, "n %zu: sub-range [%d, n-%d), rest untouched", n, kLo, kHi);
    Report(E, what, CompareBits(out, ref, n));
    Drop(E, b, &d);
    HostFree(&src), HostFree(&out), HostFree(&ref);
  }
}

void CaseVecFromHost(Env *E) {
  Bk b = Dev(E);
  for (int s = 3; s < kNSizes; s++) {
    const size_t n = kSizes[s], m = n - kLo - kHi;
    double *src = HostNew(n), *out = HostNew(n), *ref = HostNew(n);
    Rng r = RngSeed(40 + n);
    FillMixed(&r, src, n);
    double *d = Up(E, b, n, NULL);
    CK(E, b.o->vec.set(b.ctx, n, -7.0, d));
    for (size_t i = 0; i < n; i++) ref[i] = -7.0;
    memcpy(ref + kLo, src + kLo, m * sizeof(double));
    CK(E, b.o->vec.from_host(b.ctx, m, src + kLo, d + kLo));
    Down(E, b, n, d, out);
    char what[96];
    snprintf(what, sizeof what, "n %zu: sub-range [%d, n-%d), rest untouched", n, kLo, kHi);
    Report(E, what, CompareBits(out, ref, n));
    Drop(E, b, &d);
    HostFree(&src), HostFree(&out), HostFree(&ref);
  }
}

void CaseVecCopy(Env *E) {
  Bk b = Dev(E);
  for (int s = 3; s < kNSizes; s++) {
    const size_t n = kSizes[s], m = n - kLo - kHi;
    double *src = HostNew(n), *out = HostNew(n), *ref = HostNew(n);
    Rng r = RngSeed(50 + n);
    FillMixed(&r, src, n);
    double *x = Up(E, b, n, src), *y = Up(E, b, n, NULL);
    CK(E, b.o->vec.set(b.ctx, n, -7.0, y));
    for (size_t i = 0; i < n; i++) ref[i] = -7.0;
    memcpy(ref + kLo, src + kLo, m * sizeof(double));
    CK(E, b.o->vec.copy(b.ctx, m, x + kLo, y + kLo));
    Down(E, b, n, y, out);
    char what[96];
    snprintf(what, sizeof what, "n %zu: sub-range [%d, n-%d), rest untouched", n, kLo, kHi);
    Report(E, what, CompareBits(out, ref, n));
    CK(E, b.o->vec.copy(b.ctx, n, x, x));  // onto itself: unchanged
    Down(E, b, n, x, out);
    snprintf(what, sizeof what, "n %zu: copy onto itself leaves it unchanged", n);
    Report(E, what, CompareBits(out, src, n));
    Drop(E, b, &x), Drop(E, b, &y);
    HostFree(&src), HostFree(&out), HostFree(&ref);
  }
}

void CaseVecSet(Env *E) {
  Bk b = Dev(E);
  const double vals[] = {0.0, -0.0, 1.5, -3e300, 4.9406564584124654e-324, NAN};
  for (int s = 0; s < kNSizes; s++)
    for (size_t k = 0; k < sizeof vals / sizeof *vals; k++) {
      const size_t n = kSizes[s], pad = 2;  // [pad, pad + n) set, pads untouched
      double *out = HostNew(n + 2 * pad), *ref = HostNew(n + 2 * pad);
      for (size_t i = 0; i < n + 2 * pad; i++) ref[i] = i < pad || i >= pad + n ? -7.0 : vals[k];
      double *d = Up(E, b, n + 2 * pad, NULL);
      CK(E, b.o->vec.set(b.ctx, n + 2 * pad, -7.0, d));
      CK(E, b.o->vec.set(b.ctx, n, vals[k], d + pad));
      Down(E, b, n + 2 * pad, d, out);
      char what[96];
      snprintf(what, sizeof what, "n %zu, a = %g: bits of a, neighbours untouched", n, vals[k]);
      Report(E, what, CompareBits(out, ref, n + 2 * pad));
      Drop(E, b, &d);
      HostFree(&out), HostFree(&ref);
    }
}

static const double kAB[][2] = {{1.5, -0.25}, {0.0, 1.0}, {1.0, 0.0}, {-1.0, 0x1p-30}, {3.0, 3.0}};
enum { kNAB = (int)(sizeof kAB / sizeof kAB[0]) };

void CaseVecAxpby(Env *E) {
  Bk b = Dev(E);
  for (int s = 0; s < kNSizes; s++)
    for (int k = 0; k < kNAB; k++) {
      const size_t n = kSizes[s];
      const double a = kAB[k][0], c = kAB[k][1];
      double *hx = HostNew(n), *hy = HostNew(n), *out = HostNew(n), *ref = HostNew(n);
      Rng r = RngSeed(60 + n + 7 * (size_t)k);
      FillMixed(&r, hx, n), FillMixed(&r, hy, n);
      double *x = Up(E, b, n, hx), *y = Up(E, b, n, hy);
      CK(E, b.o->vec.axpby(b.ctx, n, a, x, c, y));
      Down(E, b, n, y, out);
      if (E->gpu) {
        Bk cb = Cpu(E);
        double *cx = Up(E, cb, n, hx), *cy = Up(E, cb, n, hy);
        CK(E, cb.o->vec.axpby(cb.ctx, n, a, cx, c, cy));
        Down(E, cb, n, cy, ref);
        Drop(E, cb, &cx), Drop(E, cb, &cy);
      } else {
        for (size_t i = 0; i < n; i++) ref[i] = a * hx[i] + c * hy[i];
      }
      char what[96];
      snprintf(what, sizeof what, "n %zu, a %g, b %g", n, a, c);
      Report(E, what, CompareBits(out, ref, n));
      Drop(E, b, &x), Drop(E, b, &y);
      HostFree(&hx), HostFree(&hy), HostFree(&out), HostFree(&ref);
    }
}

// w = a x + b y into a third vector, and onto x and onto y (the aliases allowed).
void CaseVecWaxpby(Env *E) {
  Bk b = Dev(E);
  const char *alias[] = {"w separate", "w = x", "w = y"};
  for (int s = 0; s < kNSizes; s++)
    for (int k = 0; k < kNAB; k++)
      for (int al = 0; al < 3; al++) {
        const size_t n = kSizes[s];
        const double a = kAB[k][0], c = kAB[k][1];
        double *hx = HostNew(n), *hy = HostNew(n), *out = HostNew(n), *ref = HostNew(n);
        Rng r = RngSeed(70 + n + 7 * (size_t)k);
        FillMixed(&r, hx, n), FillMixed(&r, hy, n);
        Bk bs[2] = {b, Cpu(E)};
        double *res[2] = {out, ref};
        for (int w = 0; w < (E->gpu ? 2 : 1); w++) {
          double *x = Up(E, bs[w], n, hx), *y = Up(E, bs[w], n, hy), *z = Up(E, bs[w], n, NULL);
          double *wp = al == 0 ? z : al == 1 ? x : y;
          CK(E, bs[w].o->vec.waxpby(bs[w].ctx, n, a, x, c, y, wp));
          Down(E, bs[w], n, wp, res[w]);
          Drop(E, bs[w], &x), Drop(E, bs[w], &y), Drop(E, bs[w], &z);
        }
        if (!E->gpu)
          for (size_t i = 0; i < n; i++) ref[i] = a * hx[i] + c * hy[i];
        char what[96];
        snprintf(what, sizeof what, "n %zu, a %g, b %g, %s", n, a, c, alias[al]);
        Report(E, what, CompareBits(out, ref, n));
        HostFree(&hx), HostFree(&hy), HostFree(&out), HostFree(&ref);
      }
}

/// The double-double dot reference: one chain in index order, rounded once, and the
/// bound on the difference of two such pairs' low parts: 4 n^2 u^2 sum |x_i y_i|.
void DotReference(size_t n, const double *x, const double *y, double *pair, double *tol) {
  BlastDD acc = {0.0, 0.0};
  double sabs = 0.0;
  for (size_t i = 0; i < n; i++) BlastDDAdd(&acc, x[i] * y[i]), sabs += fabs(x[i] * y[i]);
  BlastDDNormalize(&acc);
  pair[0] = acc.hi, pair[1] = acc.lo;
  const double nu = (double)n * DBL_EPSILON / 2;
  *tol = 4.0 * nu * nu * sabs + DBL_MIN;
}

void CaseVecDot(Env *E) {
  Bk b = Dev(E);
  for (int s = 0; s < kNSizes; s++)
    for (int kind = 0; kind < 2; kind++) {  // uniform, then mixed magnitudes (cancellation)
      const size_t n = kSizes[s];
      double *hx = HostNew(n), *hy = HostNew(n), out[2], ref[2], tol;
      Rng r = RngSeed(80 + n + 3 * (size_t)kind);
      if (kind)
        FillMixed(&r, hx, n), FillMixed(&r, hy, n);
      else
        FillU(&r, hx, n), FillU(&r, hy, n);
      double *x = Up(E, b, n, hx), *y = Up(E, b, n, hy);
      CK(E, b.o->vec.dot(b.ctx, n, x, y, out));
      DotReference(n, hx, hy, ref, &tol);
      if (E->gpu) {
        Bk cb = Cpu(E);
        double *cx = Up(E, cb, n, hx), *cy = Up(E, cb, n, hy);
        CK(E, cb.o->vec.dot(cb.ctx, n, cx, cy, ref));
        Drop(E, cb, &cx), Drop(E, cb, &cy);
      }
      int lo_ok;
      Diff d = CompareDD(out, ref, 1, 1, &tol, &lo_ok);
      char what[128];
      snprintf(what, sizeof what, "n %zu %s: rounded bits, low part %s", n,
               kind ? "mixed" : "uniform", lo_ok ? "within 4n^2u^2 sum|xy|" : "OUT OF BOUND");
      if (!lo_ok) d.ndiff += !d.ndiff;
      Report(E, what, d);
      Drop(E, b, &x), Drop(E, b, &y);
      HostFree(&hx), HostFree(&hy);
    }
}
