// Cases of the mass and halo entries. The mass entries run on each problem's own data
// (one rank: every row interior, no ghost column) and on the synthetic copy hdm (every
// third row a boundary row reading ghost columns); the halo entries on hdm's lists (sends
// with repeated targets, receives into L-dofs or ghost columns). CPU part: references
// computed here from the CSR in hd (row sums in double-double, rounded once) and from the
// index lists; GPU part: the CPU backend's results on the same inputs. Entries the
// operation must not touch hold sentinels or random values and are compared as well.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conformance.h"
#include "ddsum.h"
#include "pa_kernels.h"

static const struct {
  int ncomp;
  unsigned mask;
} kComp[] = {{1, 1u}, {2, 3u}, {2, 2u}, {3, 7u}, {3, 5u}, {3, 0u}};
enum { kNComp = (int)(sizeof kComp / sizeof kComp[0]) };
#define ACTIVE(mask, c) (((mask) >> (c)) & 1u)

Data DataOf(const Env *E, int p, int syn) {
  Data d = {syn ? &E->P[p].hdm : &E->P[p].hd, syn ? E->devm[p] : E->dev[p],
            syn ? E->cpum[p] : E->cpu[p], ""};
  snprintf(d.label, sizeof d.label, "%s%s", E->P[p].label, syn ? " synthetic" : "");
  return d;
}

// ---- mass.mult ----

enum { M_SEQ = 3 };  // INTERIOR, ghosts updated, BOUNDARY (the PCG's order)
static const char *kRowsName[] = {"interior", "boundary", "all", "int+ghosts+bnd"};

static void RunMult(Env *E, Bk b, const BlastHydroData *hd, int mode, int nc, unsigned mask,
                    const double *x, const double *xg, double *y) {
  const size_t next = (size_t)hd->h1_next, n = 3 * next, ng = next - (size_t)hd->h1_nown;
  double *dx = Up(E, b, n, x), *dy = Up(E, b, n, y);
  if (mode != M_SEQ) {
    CK(E, b.o->mass.mult(b.ctx, mode, nc, mask, dx, dy));
  } else {
    double *neg = HostNew(n);  // a first pass on other values in the same buffer
    for (size_t i = 0; i < n; i++) neg[i] = -0.5 * x[i];
    CK(E, b.o->vec.from_host(b.ctx, n, neg, dx));
    CK(E, b.o->mass.mult(b.ctx, BLAST_ROWS_INTERIOR, nc, mask, dx, dy));
    CK(E, b.o->mass.mult(b.ctx, BLAST_ROWS_BOUNDARY, nc, mask, dx, dy));
    CK(E, b.o->vec.from_host(b.ctx, n, x, dx));
    CK(E, b.o->mass.mult(b.ctx, BLAST_ROWS_INTERIOR, nc, mask, dx, dy));
    for (int c = 0; c < nc && ng; c++)  // the ghosts arrive between the two calls
      CK(E,
         b.o->vec.from_host(b.ctx, ng, xg + c * next + hd->h1_nown, dx + c * next + hd->h1_nown));
    CK(E, b.o->mass.mult(b.ctx, BLAST_ROWS_BOUNDARY, nc, mask, dx, dy));
    HostFree(&neg);
  }
  Down(E, b, n, dy, y);
  Drop(E, b, &dx), Drop(E, b, &dy);
}

// Partial assembly: the zone values of every zone (BlastPaMassZone; x with the ghosts xg in
// the int+ghosts+bnd order: interior zones read owned dofs only), then each row sums its
// zones' values in the order of mass_tidx in double-double.
static void RefMultPartial(const BlastHydroData *hd, int mode, int nc, unsigned mask,
                           const double *x, const double *xg, double *y) {
  const size_t next = (size_t)hd->h1_next, nd = hd->h1_nd, es = (size_t)hd->pa.nz_ext * nd;
  const double *xs = mode == M_SEQ ? xg : x;
  double *E = HostNew(3 * es + 1), *xz = HostNew(3 * nd),
         *ws = HostNew((size_t)hd->nqp + BLAST_PA_CONTRACT_WS(16));
  for (int z = 0; z < hd->pa.nz_ext; z++) {
    for (int c = 0; c < nc; c++)
      for (size_t a = 0; a < nd; a++) xz[c * nd + a] = xs[c * next + hd->h1_edof[z * nd + a]];
    BlastPaMassZone(hd->dim, hd->pa.d1d, hd->pa.q1d, hd->pa.B, &hd->pa.qmass[(size_t)z * hd->nqp],
                    nc, mask, xz, nd, &E[z * nd], es, ws);
  }
  const int r0 = mode == BLAST_ROWS_BOUNDARY ? hd->mv_ninterior : 0;
  const int r1 = mode == BLAST_ROWS_INTERIOR ? hd->mv_ninterior : hd->h1_nown;
  for (int r = r0; r < r1; r++) {
    const int i = hd->mv_rows[r];
    for (int c = 0; c < nc; c++) {
      if (!ACTIVE(mask, c)) continue;
      BlastDD acc = {0.0, 0.0};
      for (int t = hd->pa.mass_toff[i]; t < hd->pa.mass_toff[i + 1]; t++)
        BlastDDAdd(&acc, E[c * es + hd->pa.mass_tidx[t]]);
      BlastDDNormalize(&acc);
      y[c * next + i] = acc.hi;
    }
  }
  HostFree(&E), HostFree(&xz), HostFree(&ws);
}

static void RefMult(const BlastHydroData *hd, int mode, int nc, unsigned mask, const double *x,
                    const double *xg, double *y) {
  if (hd->assembly == BLAST_ASSEMBLY_PARTIAL) {
    RefMultPartial(hd, mode, nc, mask, x, xg, y);
    return;
  }
  const size_t next = (size_t)hd->h1_next;
  const int r0 = mode == BLAST_ROWS_BOUNDARY ? hd->mv_ninterior : 0;
  const int r1 = mode == BLAST_ROWS_INTERIOR ? hd->mv_ninterior : hd->h1_nown;
  for (int r = r0; r < r1; r++) {
    const int i = hd->mv_rows[r];
    const double *xs = mode == M_SEQ && r >= hd->mv_ninterior ? xg : x;
    for (int c = 0; c < nc; c++) {
      if (!ACTIVE(mask, c)) continue;
      BlastDD acc = {0.0, 0.0};
      for (int64_t k = hd->full.rowptr[i]; k < hd->full.rowptr[i + 1]; k++)
        BlastDDAdd(&acc, hd->full.val[k] * xs[c * next + hd->full.col[k]]);
      BlastDDNormalize(&acc);
      y[c * next + i] = acc.hi;
    }
  }
}

void CaseMassMult(Env *E) {
  for (int p = 0; p < E->np; p++)
    for (int syn = 0; syn < 2; syn++) {
      const Data D = DataOf(E, p, syn);
      const size_t next = (size_t)D.hd->h1_next, n = 3 * next;
      double *x = HostNew(n), *xg = HostNew(n), *y0 = HostNew(n), *out = HostNew(n),
             *ref = HostNew(n);
      Rng r = RngSeed(200 + 2 * (unsigned long long)p + (unsigned long long)syn);
      FillU(&r, x, n);
      memcpy(xg, x, n * sizeof(double));
      for (int c = 0; c < 3; c++)
        for (size_t i = (size_t)D.hd->h1_nown; i < next; i++) xg[c * next + i] = RandU(&r);
      for (size_t i = 0; i < n; i++) y0[i] = -7.0;
      for (int k = 0; k < kNComp; k++)
        for (int mode = 0; mode < 4; mode++) {
          // partial: the boundary rows sum values of interior zones that the interior call
          // computed (the PCG's order), so BOUNDARY alone is not a complete operation
          if (E->P[p].pa && mode == BLAST_ROWS_BOUNDARY) continue;
          memcpy(out, y0, n * sizeof(double)), memcpy(ref, y0, n * sizeof(double));
          RunMult(E, D.dev, D.hd, mode, kComp[k].ncomp, kComp[k].mask, x, xg, out);
          if (E->gpu)
            RunMult(E, D.cpu, D.hd, mode, kComp[k].ncomp, kComp[k].mask, x, xg, ref);
          else
            RefMult(D.hd, mode, kComp[k].ncomp, kComp[k].mask, x, xg, ref);
          char what[160];
          snprintf(what, sizeof what, "%s ncomp %d mask %u rows %s", D.label, kComp[k].ncomp,
                   kComp[k].mask, kRowsName[mode]);
          Report(E, what, CompareBits(out, ref, n));
        }
      HostFree(&x), HostFree(&xg), HostFree(&y0), HostFree(&out), HostFree(&ref);
    }
}

// ---- jacobi, zero_essential, axpby_multi, dot_multi ----

typedef enum { OP_JACOBI, OP_ZERO, OP_AXPBY, OP_DOT } MultiOp;
static const double kA[3] = {1.5, -0.75, 0x1p-20}, kB[3] = {-2.0, 0.5, 1.0};

// out: the vector the operation writes (z, y, y) or the 2 ncomp dot pairs.
static void RunMulti(Env *E, Bk b, const BlastHydroData *hd, MultiOp op, int nc, unsigned mask,
                     const double *x, const double *y, double *out) {
  const size_t n = 3 * (size_t)hd->h1_next;
  double *dx = Up(E, b, n, x), *dy = Up(E, b, n, y);
  switch (op) {
    case OP_JACOBI:
      CK(E, b.o->mass.jacobi(b.ctx, nc, mask, dx, dy));
      break;
    case OP_ZERO:
      CK(E, b.o->mass.zero_essential(b.ctx, nc, mask, dy));
      break;
    case OP_AXPBY:
      CK(E, b.o->mass.axpby_multi(b.ctx, nc, mask, kA, dx, kB, dy));
      break;
    default:
      CK(E, b.o->mass.dot_multi(b.ctx, nc, mask, dx, dy, out));
  }
  if (op != OP_DOT) Down(E, b, n, dy, out);
  Drop(E, b, &dx), Drop(E, b, &dy);
}

static void RefMulti(const BlastHydroData *hd, MultiOp op, int nc, unsigned mask, const double *x,
                     const double *y, double *out, double *tol) {
  const size_t next = (size_t)hd->h1_next, nown = (size_t)hd->h1_nown;
  if (op != OP_DOT) memcpy(out, y, 3 * next * sizeof(double));
  for (int c = 0; c < nc; c++) {
    if (!ACTIVE(mask, c)) continue;
    const double *xc = x + c * next, *yc = y + c * next;
    double *oc = out + c * next;
    if (op == OP_JACOBI)
      for (size_t i = 0; i < nown; i++) oc[i] = xc[i] * hd->mv_dinv[i];
    else if (op == OP_ZERO)
      for (int k = hd->ess_off[c]; k < hd->ess_off[c + 1]; k++) oc[hd->ess_idx[k]] = 0.0;
    else if (op == OP_AXPBY)
      for (size_t i = 0; i < nown; i++) oc[i] = kA[c] * xc[i] + kB[c] * yc[i];
    else
      DotReference(nown, xc, yc, &out[2 * c], &tol[c]);
  }
}

// Dot pairs (out, ref: 2 nc entries): rounded value bit for bit, low part within the
// double-double bound tol (per component); in the CPU part only the active components
// have a contract.
static void ReportDots(Env *E, char *what, int nc, unsigned mask, const double *out,
                       const double *ref, const double *tol) {
  double o2[6], r2[6], t2[3];
  int m = 0;
  for (int c = 0; c < nc; c++)
    if (E->gpu || ACTIVE(mask, c))
      o2[m] = out[2 * c], o2[3 + m] = out[2 * c + 1], r2[m] = ref[2 * c],
      r2[3 + m] = ref[2 * c + 1], t2[m++] = tol[c] > 0 ? 2 * tol[c] : DBL_MIN;
  int lo_ok;
  Diff d = CompareDD(o2, r2, (size_t)m, 3, t2, &lo_ok);
  if (!lo_ok) d.ndiff += !d.ndiff;
  snprintf(what + strlen(what), 160 - strlen(what), ": pairs%s",
           lo_ok ? "" : ", LOW PART OUT OF BOUND");
  Report(E, what, d);
}

static void MultiCase(Env *E, MultiOp op) {
  for (int p = 0; p < E->np; p++)
    for (int syn = 0; syn < 2; syn++) {
      const Data D = DataOf(E, p, syn);
      const size_t n = 3 * (size_t)D.hd->h1_next;
      double *x = HostNew(n), *y = HostNew(n), *out = HostNew(n), *ref = HostNew(n);
      Rng r = RngSeed(300 + 2 * (unsigned long long)p + (unsigned long long)syn + 10 * op);
      FillMixed(&r, x, n), FillMixed(&r, y, n);
      for (int k = 0; k < kNComp; k++) {
        int nc = kComp[k].ncomp;
        unsigned mask = kComp[k].mask;
        if (op == OP_ZERO && nc > D.hd->dim) continue;  // ess_off has dim + 1 entries
        double tol[3] = {0, 0, 0};
        for (int i = 0; i < 6; i++) out[i] = ref[i] = 0.0;
        RunMulti(E, D.dev, D.hd, op, nc, mask, x, y, out);
        if (E->gpu) {
          RunMulti(E, D.cpu, D.hd, op, nc, mask, x, y, ref);
          if (op == OP_DOT)  // both against the reference's bound
            RefMulti(D.hd, op, nc, mask, x, y, ref + 2 * nc, tol);
        } else {
          RefMulti(D.hd, op, nc, mask, x, y, ref, tol);
        }
        char what[160];
        snprintf(what, sizeof what, "%s ncomp %d mask %u", D.label, nc, mask);
        if (op != OP_DOT) {
          Report(E, what, CompareBits(out, ref, n));
          continue;
        }
        ReportDots(E, what, nc, mask, out, ref, tol);
      }
      HostFree(&x), HostFree(&y), HostFree(&out), HostFree(&ref);
    }
}

void CaseMassJacobi(Env *E) {
  MultiCase(E, OP_JACOBI);
}
void CaseMassZeroEssential(Env *E) {
  MultiCase(E, OP_ZERO);
}
void CaseMassAxpbyMulti(Env *E) {
  MultiCase(E, OP_AXPBY);
}
void CaseMassDotMulti(Env *E) {
  MultiCase(E, OP_DOT);
}

// ---- mult_dot ----

// The calls of a mode: interior (the INTERIOR call alone: y's interior rows, result not
// written), int+bnd (INTERIOR then BOUNDARY on the same x), all, and int+ghosts+bnd (as
// RunMult's M_SEQ: a first pair of calls on other values, then INTERIOR, the ghosts,
// BOUNDARY). out: y (3 next) then the 2 ncomp pairs (sentinels where not written).
enum { D_INT = 0, D_INTBND = 1, D_ALL = 2, D_SEQ = 3 };
static const char *kDotRowsName[] = {"interior", "int+bnd", "all", "int+ghosts+bnd"};

static void RunMultDot(Env *E, Bk b, const BlastHydroData *hd, int mode, int nc, unsigned mask,
                       const double *x, const double *xg, double *out) {
  const size_t next = (size_t)hd->h1_next, n = 3 * next, ng = next - (size_t)hd->h1_nown;
  double *dx = Up(E, b, n, mode == D_INTBND ? xg : x), *dy = Up(E, b, n, out);
  double *res = out + n;
  if (mode == D_INT) {
    CK(E, b.o->mass.mult_dot(b.ctx, BLAST_ROWS_INTERIOR, nc, mask, dx, dy, res));
  } else if (mode == D_INTBND) {
    CK(E, b.o->mass.mult_dot(b.ctx, BLAST_ROWS_INTERIOR, nc, mask, dx, dy, res));
    CK(E, b.o->mass.mult_dot(b.ctx, BLAST_ROWS_BOUNDARY, nc, mask, dx, dy, res));
  } else if (mode == D_ALL) {
    CK(E, b.o->mass.mult_dot(b.ctx, BLAST_ROWS_ALL, nc, mask, dx, dy, res));
  } else {
    double *neg = HostNew(n), tmp[6];  // a first pass on other values in the same buffers
    for (size_t i = 0; i < n; i++) neg[i] = -0.5 * x[i];
    CK(E, b.o->vec.from_host(b.ctx, n, neg, dx));
    CK(E, b.o->mass.mult_dot(b.ctx, BLAST_ROWS_INTERIOR, nc, mask, dx, dy, tmp));
    CK(E, b.o->mass.mult_dot(b.ctx, BLAST_ROWS_BOUNDARY, nc, mask, dx, dy, tmp));
    CK(E, b.o->vec.from_host(b.ctx, n, x, dx));
    CK(E, b.o->mass.mult_dot(b.ctx, BLAST_ROWS_INTERIOR, nc, mask, dx, dy, res));
    for (int c = 0; c < nc && ng; c++)  // the ghosts arrive between the two calls
      CK(E,
         b.o->vec.from_host(b.ctx, ng, xg + c * next + hd->h1_nown, dx + c * next + hd->h1_nown));
    CK(E, b.o->mass.mult_dot(b.ctx, BLAST_ROWS_BOUNDARY, nc, mask, dx, dy, res));
    HostFree(&neg);
  }
  Down(E, b, n, dy, out);
  Drop(E, b, &dx), Drop(E, b, &dy);
}

// The reference: mult's (RefMult), then the double-double dots of x and that y over the
// owned rows (the owned entries of x and xg are the same).
static void RefMultDot(const BlastHydroData *hd, int mode, int nc, unsigned mask, const double *x,
                       const double *xg, double *out, double *tol) {
  const size_t next = (size_t)hd->h1_next, n = 3 * next;
  RefMult(hd,
          mode == D_INT   ? BLAST_ROWS_INTERIOR
          : mode == D_SEQ ? M_SEQ
                          : BLAST_ROWS_ALL,
          nc, mask, mode == D_INTBND ? xg : x, xg, out);
  if (mode == D_INT) return;
  for (int c = 0; c < nc; c++) {
    out[n + 2 * c] = out[n + 2 * c + 1] = 0.0;
    if (ACTIVE(mask, c))
      DotReference((size_t)hd->h1_nown, x + c * next, out + c * next, &out[n + 2 * c], &tol[c]);
  }
}

void CaseMassMultDot(Env *E) {
  for (int p = 0; p < E->np; p++)
    for (int syn = 0; syn < 2; syn++) {
      const Data D = DataOf(E, p, syn);
      const size_t next = (size_t)D.hd->h1_next, n = 3 * next;
      double *x = HostNew(n), *xg = HostNew(n), *out = HostNew(n + 6), *ref = HostNew(n + 6),
             *tmp = HostNew(n + 6);
      Rng r = RngSeed(600 + 2 * (unsigned long long)p + (unsigned long long)syn);
      FillU(&r, x, n);
      memcpy(xg, x, n * sizeof(double));
      for (int c = 0; c < 3; c++)
        for (size_t i = (size_t)D.hd->h1_nown; i < next; i++) xg[c * next + i] = RandU(&r);
      for (int k = 0; k < kNComp; k++)
        for (int mode = 0; mode < 4; mode++) {
          const int nc = kComp[k].ncomp;
          const unsigned mask = kComp[k].mask;
          double tol[3] = {0, 0, 0};
          for (size_t i = 0; i < n + 6; i++) out[i] = ref[i] = tmp[i] = -7.0;
          RunMultDot(E, D.dev, D.hd, mode, nc, mask, x, xg, out);
          if (E->gpu) {
            RunMultDot(E, D.cpu, D.hd, mode, nc, mask, x, xg, ref);
            RefMultDot(D.hd, mode, nc, mask, x, xg, tmp, tol);  // the bound of the low parts
          } else {
            RefMultDot(D.hd, mode, nc, mask, x, xg, ref, tol);
          }
          char what[160];
          snprintf(what, sizeof what, "%s ncomp %d mask %u rows %s: y", D.label, nc, mask,
                   kDotRowsName[mode]);
          Report(E, what, CompareBits(out, ref, n));
          snprintf(what, sizeof what, "%s ncomp %d mask %u rows %s", D.label, nc, mask,
                   kDotRowsName[mode]);
          if (mode == D_INT) {  // result not written
            snprintf(what + strlen(what), sizeof what - strlen(what), ": result untouched");
            Report(E, what, CompareBits(out + n, ref + n, 6));
          } else {
            ReportDots(E, what, nc, mask, out + n, ref + n, tol);
          }
        }
      HostFree(&x), HostFree(&xg), HostFree(&out), HostFree(&ref), HostFree(&tmp);
    }
}

// ---- cg_update ----

// Inputs Ad, r, z (3 next each, in v[0..2]); out: r, z after the call and the 2 ncomp dot
// pairs (at 6 next).
static void RunCgUpdate(Env *E, Bk b, const BlastHydroData *hd, int nc, unsigned mask,
                        double *const v[3], double *out) {
  const size_t n = 3 * (size_t)hd->h1_next;
  double *dv[3];
  for (int i = 0; i < 3; i++) dv[i] = Up(E, b, n, v[i]);
  CK(E, b.o->mass.cg_update(b.ctx, nc, mask, kA, dv[0], dv[1], dv[2], out + 2 * n));
  for (int i = 0; i < 2; i++) Down(E, b, n, dv[1 + i], out + i * n);
  for (int i = 0; i < 3; i++) Drop(E, b, &dv[i]);
}

// The reference: the three operations the entry replaces, one after the other.
static void RefCgUpdate(const BlastHydroData *hd, int nc, unsigned mask, double *const v[3],
                        double *out, double *tol) {
  const size_t next = (size_t)hd->h1_next, nown = (size_t)hd->h1_nown, n = 3 * next;
  for (int i = 0; i < 2; i++) memcpy(out + i * n, v[1 + i], n * sizeof(double));
  for (int c = 0; c < nc; c++) {
    if (!ACTIVE(mask, c)) continue;
    const double *Ad = v[0] + c * next, na = -kA[c];
    double *r = out + c * next, *z = out + n + c * next;
    for (size_t i = 0; i < nown; i++) r[i] = na * Ad[i] + 1.0 * r[i];
    for (size_t i = 0; i < nown; i++) z[i] = r[i] * hd->mv_dinv[i];
    DotReference(nown, r, z, &out[2 * n + 2 * c], &tol[c]);
  }
}

void CaseMassCgUpdate(Env *E) {
  for (int p = 0; p < E->np; p++)
    for (int syn = 0; syn < 2; syn++) {
      const Data D = DataOf(E, p, syn);
      const size_t n = 3 * (size_t)D.hd->h1_next;
      double *v[3], *out = HostNew(2 * n + 6), *ref = HostNew(2 * n + 6), *tmp = HostNew(2 * n + 6);
      Rng r = RngSeed(500 + 2 * (unsigned long long)p + (unsigned long long)syn);
      for (int i = 0; i < 3; i++) v[i] = HostNew(n), FillMixed(&r, v[i], n);
      for (int k = 0; k < kNComp; k++) {
        const int nc = kComp[k].ncomp;
        const unsigned mask = kComp[k].mask;
        double tol[3] = {0, 0, 0};
        for (size_t i = 0; i < 6; i++) out[2 * n + i] = ref[2 * n + i] = -7.0;
        RunCgUpdate(E, D.dev, D.hd, nc, mask, v, out);
        if (E->gpu) {
          RunCgUpdate(E, D.cpu, D.hd, nc, mask, v, ref);
          RefCgUpdate(D.hd, nc, mask, v, tmp, tol);  // the bound of the low parts
        } else {
          RefCgUpdate(D.hd, nc, mask, v, ref, tol);
        }
        char what[160];
        snprintf(what, sizeof what, "%s ncomp %d mask %u: r, z", D.label, nc, mask);
        Report(E, what, CompareBits(out, ref, 2 * n));
        snprintf(what, sizeof what, "%s ncomp %d mask %u: (r, z)", D.label, nc, mask);
        ReportDots(E, what, nc, mask, out + 2 * n, ref + 2 * n, tol);
      }
      for (int i = 0; i < 3; i++) HostFree(&v[i]);
      HostFree(&out), HostFree(&ref), HostFree(&tmp);
    }
}

// ---- cg_advance ----

// Inputs z, d, x (3 next each, in v[0..2]); out: d, x after the call.
static void RunCgAdvance(Env *E, Bk b, const BlastHydroData *hd, int nc, unsigned xmask,
                         unsigned dmask, double *const v[3], double *out) {
  const size_t n = 3 * (size_t)hd->h1_next;
  double *dv[3];
  for (int i = 0; i < 3; i++) dv[i] = Up(E, b, n, v[i]);
  CK(E, b.o->mass.cg_advance(b.ctx, nc, xmask, dmask, kA, kB, dv[0], dv[1], dv[2]));
  for (int i = 0; i < 2; i++) Down(E, b, n, dv[1 + i], out + i * n);
  for (int i = 0; i < 3; i++) Drop(E, b, &dv[i]);
}

// The reference: axpby_multi(a, d, 1, x) with xmask, then axpby_multi(1, z, b, d) with dmask.
static void RefCgAdvance(const BlastHydroData *hd, int nc, unsigned xmask, unsigned dmask,
                         double *const v[3], double *out) {
  const size_t next = (size_t)hd->h1_next, nown = (size_t)hd->h1_nown, n = 3 * next;
  for (int i = 0; i < 2; i++) memcpy(out + i * n, v[1 + i], n * sizeof(double));
  for (int c = 0; c < nc; c++) {
    double *d = out + c * next, *x = out + n + c * next;
    const double *z = v[0] + c * next;
    if (ACTIVE(xmask, c))
      for (size_t i = 0; i < nown; i++) x[i] = kA[c] * d[i] + 1.0 * x[i];
    if (ACTIVE(dmask, c))
      for (size_t i = 0; i < nown; i++) d[i] = 1.0 * z[i] + kB[c] * d[i];
  }
}

void CaseMassCgAdvance(Env *E) {
  for (int p = 0; p < E->np; p++)
    for (int syn = 0; syn < 2; syn++) {
      const Data D = DataOf(E, p, syn);
      const size_t n = 3 * (size_t)D.hd->h1_next;
      double *v[3], *out = HostNew(2 * n), *ref = HostNew(2 * n);
      Rng r = RngSeed(700 + 2 * (unsigned long long)p + (unsigned long long)syn);
      for (int i = 0; i < 3; i++) v[i] = HostNew(n), FillMixed(&r, v[i], n);
      for (int k = 0; k < kNComp; k++)
        for (int dm = 0; dm < 3; dm++) {  // d updated for all, some, none of xmask
          const int nc = kComp[k].ncomp;
          const unsigned xmask = kComp[k].mask;
          const unsigned dmask = dm == 0 ? xmask : dm == 1 ? xmask & 5u : 0u;
          RunCgAdvance(E, D.dev, D.hd, nc, xmask, dmask, v, out);
          if (E->gpu)
            RunCgAdvance(E, D.cpu, D.hd, nc, xmask, dmask, v, ref);
          else
            RefCgAdvance(D.hd, nc, xmask, dmask, v, ref);
          char what[160];
          snprintf(what, sizeof what, "%s ncomp %d xmask %u dmask %u: d, x", D.label, nc, xmask,
                   dmask);
          Report(E, what, CompareBits(out, ref, 2 * n));
        }
      for (int i = 0; i < 3; i++) HostFree(&v[i]);
      HostFree(&out), HostFree(&ref);
    }
}

// ---- halo ----

size_t StrideOf(const BlastHydroData *hd, int which) {
  return which == BLAST_HALO_L ? (size_t)hd->h1_nl + 5 : (size_t)hd->h1_next;
}

static void RunHalo(Env *E, Bk b, HaloOp op, int which, int rev, int nc, size_t stride, size_t nx,
                    size_t nbuf, const double *x, const double *buf, double *out) {
  double *dx = Up(E, b, nx, x), *hb;
  CK(E, b.o->vec.host_alloc(b.ctx, nbuf + 2, &hb));
  memcpy(hb, buf, (nbuf + 2) * sizeof(double));
  if (op == H_PACK) {
    CK(E, b.o->halo.pack(b.ctx, which, rev, nc, stride, dx, hb));
    CK(E, b.o->ctx.sync(b.ctx));
    memcpy(out, hb, (nbuf + 2) * sizeof(double));
  } else {
    if (op == H_UNPACK)
      CK(E, b.o->halo.unpack(b.ctx, which, rev, nc, stride, hb, dx));
    else
      CK(E, b.o->halo.unpack_dd(b.ctx, which, nc, stride, hb, dx));
    Down(E, b, nx, dx, out);
  }
  CK(E, b.o->vec.host_free(b.ctx, &hb));
  Drop(E, b, &dx);
}

void RefHalo(const BlastHaloIndex *hi, HaloOp op, int rev, int nc, size_t stride, size_t nx,
             size_t nbuf, const double *x, const double *buf, double *out) {
  if (op == H_PACK) {
    const int n = rev ? hi->nrecv : hi->nsend;
    const int *idx = rev ? hi->recv_idx : hi->send_idx;
    memcpy(out, buf, (nbuf + 2) * sizeof(double));
    for (int c = 0; c < nc; c++)
      for (int i = 0; i < n; i++) out[(size_t)c * n + i] = x[c * stride + idx[i]];
    return;
  }
  memcpy(out, x, nx * sizeof(double));
  const size_t ns = (size_t)hi->nsend;
  for (int c = 0; c < nc; c++) {
    if (op == H_UNPACK && !rev)
      for (int i = 0; i < hi->nrecv; i++)
        out[c * stride + hi->recv_idx[i]] = buf[(size_t)c * hi->nrecv + i];
    else if (op == H_UNPACK)  // in list order: repeated targets add in that order
      for (size_t i = 0; i < ns; i++) out[c * stride + hi->send_idx[i]] += buf[c * ns + i];
    else
      for (size_t i = 0; i < ns; i++) {
        double *xh = &out[c * stride + hi->send_idx[i]];
        double *xl = &out[(nc + c) * stride + hi->send_idx[i]];
        BlastDD acc = {*xh, *xl};
        BlastDDAddDD(&acc, buf[c * ns + i], buf[(nc + c) * ns + i]);
        BlastDDNormalize(&acc);
        *xh = acc.hi, *xl = acc.lo;
      }
  }
}

static void HaloCase(Env *E, HaloOp op) {
  for (int p = 0; p < E->np; p++)
    for (int which = 0; which < 2; which++)
      for (int rev = 0; rev < (op == H_UNPACK_DD ? 1 : 2); rev++)
        for (int ncs = 0; ncs < (op == H_PACK ? 3 : 2); ncs++) {  // pack: also 2 dim (dd pairs)
          const Data D = DataOf(E, p, 1);
          const BlastHaloIndex *hi = &D.hd->halo[which];
          const int nc = ncs == 0 ? 1 : ncs == 1 ? D.hd->dim : 2 * D.hd->dim;
          const int ncx = op == H_UNPACK_DD ? 2 * nc : nc;
          const int n = op == H_PACK ? (rev ? hi->nrecv : hi->nsend)
                                     : (rev || op == H_UNPACK_DD ? hi->nsend : hi->nrecv);
          const size_t stride = StrideOf(D.hd, which), nx = (size_t)ncx * stride;
          const size_t nbuf = (size_t)ncx * n;
          double *x = HostNew(nx), *buf = HostNew(nbuf + 2);
          double *out = HostNew(nx > nbuf + 2 ? nx : nbuf + 2),
                 *ref = HostNew(nx > nbuf + 2 ? nx : nbuf + 2);
          Rng r = RngSeed(400 + 4 * (unsigned long long)p + 2 * which + rev + 16 * op);
          FillMixed(&r, x, nx), FillMixed(&r, buf, nbuf);
          buf[nbuf] = buf[nbuf + 1] = -7.0;
          if (op == H_UNPACK_DD)  // low parts below the rounded values' last bit
            for (int c = nc; c < 2 * nc; c++) {
              for (size_t i = 0; i < stride; i++)
                x[c * stride + i] = x[(c - nc) * stride + i] * 0x1p-54 * RandU(&r);
              for (int i = 0; i < n; i++)
                buf[(size_t)c * n + i] = buf[(size_t)(c - nc) * n + i] * 0x1p-54 * RandU(&r);
            }
          RunHalo(E, D.dev, op, which, rev, nc, stride, nx, nbuf, x, buf, out);
          if (E->gpu)
            RunHalo(E, D.cpu, op, which, rev, nc, stride, nx, nbuf, x, buf, ref);
          else
            RefHalo(hi, op, rev, nc, stride, nx, nbuf, x, buf, ref);
          char what[160];
          snprintf(what, sizeof what, "%s %s %s ncomp %d (%d entries, stride %zu)", D.label,
                   which == BLAST_HALO_L ? "L" : "COL",
                   op == H_UNPACK_DD ? "reverse dd"
                   : rev             ? "reverse"
                                     : "forward",
                   nc, n, stride);
          if (!Report(E, what, CompareBits(out, ref, op == H_PACK ? nbuf + 2 : nx)) &&
              op == H_UNPACK_DD) {  // which part differs: rounded values or low parts only
            const Diff dh = CompareBits(out, ref, (size_t)nc * stride);
            printf(
                "     note: rounded parts: %zu of %zu differ; low parts: %zu differ (a target "
                "repeated in the send list: one normalisation per addition, in list order, "
                "is the CPU's arithmetic)\n",
                dh.ndiff, dh.n,
                CompareBits(out + nc * stride, ref + nc * stride, (size_t)nc * stride).ndiff);
          }
          HostFree(&x), HostFree(&buf), HostFree(&out), HostFree(&ref);
        }
}

void CaseHaloPack(Env *E) {
  HaloCase(E, H_PACK);
}
void CaseHaloUnpack(Env *E) {
  HaloCase(E, H_UNPACK);
}
void CaseHaloUnpackDD(Env *E) {
  HaloCase(E, H_UNPACK_DD);
}
