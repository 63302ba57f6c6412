// Conformance case of mass.pcg, the lockstep PCG resident on a backend's device: the
// solution, iteration count and failure state against the loop of the backend's other
// entries in the order of hydro/pcg.c (one rank: no ghost columns, no reductions between
// ranks), here on the CPU backend (the reference) and on the backend under test itself.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conformance.h"

#define ACTIVE(mask, c) ((((mask) >> (c)) & 1u) != 0u)

// The dots of dot_multi / mult_dot rounded as one rank's global sums (hydro/pcg.c).
static void Round(int nc, const double *pairs, double *v) {
  for (int c = 0; c < nc; c++) v[c] = pairs[2 * c] + pairs[2 * c + 1];
}

// Device vectors of a solve: b, x and the work vectors r, z, d, Ad.
typedef struct {
  double *b, *x, *w[4];
} Vecs;

static Vecs VecsUp(const Env *E, Bk k, size_t n, const double *b) {
  Vecs v;
  v.b = Up(E, k, n, b), v.x = Up(E, k, n, NULL);
  for (int i = 0; i < 4; i++) v.w[i] = Up(E, k, n, NULL);
  CK(E, k.o->vec.set(k.ctx, n, 0.0, v.x));
  for (int i = 0; i < 4; i++) CK(E, k.o->vec.set(k.ctx, n, 0.0, v.w[i]));
  return v;
}

static void VecsDrop(const Env *E, Bk k, Vecs *v) {
  Drop(E, k, &v->b), Drop(E, k, &v->x);
  for (int i = 0; i < 4; i++) Drop(E, k, &v->w[i]);
}

// The host loop of BlastHydroPcgLockstep on one rank with the entries of k.
static void Loop(const Env *E, Bk k, const BlastHydroData *hd, int nc, double tol, int max_iter,
                 Vecs *v, BlastPcgState *s) {
  const BlastBackendOps *o = k.o;
  const size_t n = (size_t)hd->h1_nown, st = (size_t)hd->h1_next;
  double *r = v->w[0], *z = v->w[1], *d = v->w[2], *Ad = v->w[3];
  const unsigned all = (1u << nc) - 1u;
  double pairs[6], dots[3];
  CK(E, o->mass.zero_essential(k.ctx, nc, all, v->b));
  for (int c = 0; c < nc; c++) {
    CK(E, o->vec.set(k.ctx, n, 0.0, v->x + c * st));
    CK(E, o->vec.copy(k.ctx, n, v->b + c * st, r + c * st));
  }
  CK(E, o->mass.jacobi(k.ctx, nc, all, r, z));
  for (int c = 0; c < nc; c++) CK(E, o->vec.copy(k.ctx, n, z + c * st, d + c * st));
  CK(E, o->mass.dot_multi(k.ctx, nc, all, z, r, pairs));
  Round(nc, pairs, dots);
  BlastPcgStart(s, nc, tol, dots);
  while (s->mask) {
    CK(E, o->mass.mult_dot(k.ctx, BLAST_ROWS_INTERIOR, nc, s->mask, d, Ad, pairs));
    CK(E, o->mass.mult_dot(k.ctx, BLAST_ROWS_BOUNDARY, nc, s->mask, d, Ad, pairs));
    CK(E, o->mass.zero_essential(k.ctx, nc, s->mask, Ad));
    Round(nc, pairs, dots);
    BlastPcgDelta(s, nc, dots);
    if (!s->mask) break;
    CK(E, o->mass.cg_update(k.ctx, nc, s->mask, s->coef, Ad, r, z, pairs));
    Round(nc, pairs, dots);
    const int more = BlastPcgTest(s, nc, dots, max_iter);
    CK(E, o->mass.cg_advance(k.ctx, nc, s->xmask, s->dmask, s->coef, s->beta, z, d, v->x));
    if (!more) break;
  }
}

// The final state's outcome as doubles (iterations, failed components, their residuals).
static void Outcome(const BlastPcgState *s, double *out5) {
  out5[0] = s->comp_iters, out5[1] = s->failed;
  for (int c = 0; c < 3; c++) out5[2 + c] = ACTIVE(s->failed, c) ? s->residual[c] : 0.0;
}

// |b - m x|^2 in the D^{-1} norm over the free owned dofs of component c, and |b|^2 so:
// the stopping test, computed anew from x with mass.mult (the CPU backend).
static void ResidualNorms(const Env *E, Bk k, const BlastHydroData *hd, int nc, const double *bh,
                          const double *xh, double *rr, double *bb) {
  const size_t n = (size_t)hd->h1_nown, st = (size_t)hd->h1_next, N = 3 * st;
  double *x = Up(E, k, N, xh), *y = Up(E, k, N, NULL), *yh = HostNew(N), *b0 = HostNew(N);
  memcpy(b0, bh, N * sizeof(double));
  for (int c = 0; c < nc; c++)
    for (int j = hd->ess_off[c]; j < hd->ess_off[c + 1]; j++) b0[c * st + hd->ess_idx[j]] = 0.0;
  CK(E, k.o->mass.mult(k.ctx, BLAST_ROWS_ALL, nc, (1u << nc) - 1u, x, y));
  CK(E, k.o->mass.zero_essential(k.ctx, nc, (1u << nc) - 1u, y));
  Down(E, k, N, y, yh);
  for (int c = 0; c < nc; c++) {
    rr[c] = bb[c] = 0.0;
    for (size_t i = 0; i < n; i++) {
      const double ri = b0[c * st + i] - yh[c * st + i];
      rr[c] += ri * ri * hd->mv_dinv[i], bb[c] += b0[c * st + i] * b0[c * st + i] * hd->mv_dinv[i];
    }
  }
  Drop(E, k, &x), Drop(E, k, &y), HostFree(&yh), HostFree(&b0);
}

void CaseMassPcg(Env *E) {
  const double tol = 1e-10;
  for (int p = 0; p < E->np; p++) {
    const BlastHydroData *hd = &E->P[p].hd;
    const size_t N = 3 * (size_t)hd->h1_next;
    double *bh = HostNew(N), *out = HostNew(N), *ref = HostNew(N), *bout = HostNew(N);
    Rng rng = RngSeed(900 + (unsigned long long)p);
    FillMixed(&rng, bh, N);
    // right-hand sides: mixed values; then component 0 zero (it takes no iteration); then
    // component 0 constant (it stops at another iteration than the others)
    static const char *const kRhs[3] = {"", " (b_0 = 0)", " (b_0 = 1)"};
    for (int rhs = 0; rhs < 3; rhs++) {
      for (size_t i = 0; rhs && i < (size_t)hd->h1_next; i++) bh[i] = rhs == 1 ? 0.0 : 1.0;
      for (int nc = 1; nc <= hd->dim; nc++)
        for (int lim = 0; lim < (rhs ? 1 : 2); lim++) {  // converged; stopped at 3 iterations
          const int max_iter = lim ? 3 : 1000;
          char what[192];
          BlastPcgState s, sref;
          double o5[5], r5[5];
          int resident = -1;
          Vecs v = VecsUp(E, E->dev[p], N, bh);
          CK(E, E->B->mass.pcg(E->dev[p].ctx, nc, tol, max_iter, v.b, v.x, v.w, &s, &resident));
          Down(E, E->dev[p], N, v.x, out);
          Down(E, E->dev[p], N, v.b, bout);
          VecsDrop(E, E->dev[p], &v);
          snprintf(what, sizeof what, "%s ncomp %d max_iter %d%s", E->P[p].label, nc, max_iter,
                   kRhs[rhs]);
          // the CPU backend never solves resident (no round trip to save); the CUDA backend
          // does (this test's options: no tuning, no profile)
          const int expect = E->B != &blast_backend_cpu;
          char det[160];
          snprintf(det, sizeof det, "resident = %d (expected %d)", resident, expect);
          ReportOk(E, what, resident == expect, det);
          if (!resident) {  // b and x untouched
            Report(E, "b untouched", CompareBits(bout, bh, N));
            memset(ref, 0, N * sizeof(double));
            Report(E, "x untouched", CompareBits(out, ref, N));
            // the loop of the CPU backend's entries solves to the tolerance (computed anew)
            Vecs w = VecsUp(E, E->cpu[p], N, bh);
            Loop(E, E->cpu[p], hd, nc, tol, max_iter, &w, &sref);
            Down(E, E->cpu[p], N, w.x, ref);
            VecsDrop(E, E->cpu[p], &w);
            double rr[3], bb[3];
            ResidualNorms(E, E->cpu[p], hd, nc, bh, ref, rr, bb);
            for (int c = 0; c < nc; c++) {
              const int conv = !ACTIVE(sref.failed, c);
              const int ok = lim ? !conv : conv && rr[c] <= 4.0 * tol * tol * bb[c];
              snprintf(det, sizeof det, "the loop, component %d: %s, |r|^2 / |b|^2 = %.3e", c,
                       conv ? "converged" : "stopped", bb[c] > 0 ? rr[c] / bb[c] : 0.0);
              ReportOk(E, what, ok, det);
            }
            continue;
          }
          // against the CPU backend's loop and against this backend's own loop
          for (int own = 0; own < 2; own++) {
            const Bk k = own ? E->dev[p] : E->cpu[p];
            Vecs w = VecsUp(E, k, N, bh);
            Loop(E, k, hd, nc, tol, max_iter, &w, &sref);
            Down(E, k, N, w.x, ref);
            VecsDrop(E, k, &w);
            char line[320];
            snprintf(line, sizeof line, "%s: x as the %s loop", what,
                     own ? "backend's own" : "CPU");
            Report(E, line, CompareBits(out, ref, N));
            Outcome(&s, o5), Outcome(&sref, r5);
            snprintf(line, sizeof line, "%s: iterations, failure, residuals as the %s loop", what,
                     own ? "backend's own" : "CPU");
            Report(E, line, CompareBits(o5, r5, 5));
          }
        }
    }
    HostFree(&bh), HostFree(&out), HostFree(&ref), HostFree(&bout);
  }
}
