// Cases of the split entries (the CPU+GPU hybrid, hydro/hybrid.c): the backend keeps
// zones [0, ndev), host threads compute zones [ndev, nz) with the host kernels the backend names
// (split.host_zones), and the combination must give the unsplit entries' bits. Each case runs the
// hybrid's sequence (qdata_begin, host zones, qdata_end; host rows, momentum_rhs; gather, host b_z,
// energy_rate) for ndev = nz, 0, nz/2 and nz-1 and checks its entry's part: against the unsplit CPU
// backend (both parts), on 1 and 2 OpenMP threads (CPU part).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "cpu_zones.h"

typedef struct {
  BlastQDataResult res;  // combined as BlastHybridQData does
  double seconds;        // the backend's own time (qdata_end)
  int tuning;
  double *hx, *hv, *he;  // host copies made by qdata_begin (copied out of host memory)
  double *rhs, *de;      // [2 nx], [ne]
} SplitOut;

static void SplitFree(SplitOut *o) {
  HostFree(&o->hx), HostFree(&o->hv), HostFree(&o->he), HostFree(&o->rhs), HostFree(&o->de);
}

// The hybrid's sequence (hybrid.c) with the backend b for zones [0, ndev).
static void SplitRun(Env *E, Bk b, const Problem *P, int ndev, const double *x, const double *v,
                     const double *e, SplitOut *o) {
  const BlastHydroData *hd = &P->hd;
  const int nz = hd->nz, nhost = nz - ndev;
  const size_t rows = (size_t)hd->dim * hd->h1_nd, ne = hd->l2_nd;
  const size_t m = nhost > 0 ? (size_t)nhost : 1;
  double *hx, *hv, *he, *hrows, *hb;
  CK(E, b.o->vec.host_alloc(b.ctx, m * rows, &hx));
  CK(E, b.o->vec.host_alloc(b.ctx, m * rows, &hv));
  CK(E, b.o->vec.host_alloc(b.ctx, m * ne, &he));
  CK(E, b.o->vec.host_alloc(b.ctx, m * rows, &hrows));
  CK(E, b.o->vec.host_alloc(b.ctx, m * ne, &hb));
  const BlastHostZoneOps *hz = NULL;
  void *cz = NULL;
  CK(E, b.o->split.host_zones(b.ctx, &hz));
  CK(E, hz->create(hd, &cz));
  double *dx = Up(E, b, P->nx, x), *dv = Up(E, b, P->nx, v), *de = Up(E, b, P->ne, e);
  double *rhs = Up(E, b, 2 * P->nx, NULL), *rate = Up(E, b, P->ne, NULL);
  CK(E, b.o->split.qdata_begin(b.ctx, ndev, dx, dv, de, hx, hv, he));
  o->hx = HostNew(m * rows), o->hv = HostNew(m * rows), o->he = HostNew(m * ne);
  memcpy(o->hx, hx, (size_t)nhost * rows * sizeof(double));
  memcpy(o->hv, hv, (size_t)nhost * rows * sizeof(double));
  memcpy(o->he, he, (size_t)nhost * ne * sizeof(double));
  BlastQDataResult rh = {HUGE_VAL, -1, 0.0, -1.0}, rd;
  if (nhost) CK(E, hz->qdata(cz, ndev, nz, hx, hv, he, &rh));
  CK(E, b.o->split.qdata_end(b.ctx, &rd, &o->seconds, &o->tuning));
  o->res = rd;  // device zones come first: a tangled device zone is the lowest one
  if (rh.dt_est < o->res.dt_est) o->res.dt_est = rh.dt_est;
  if (o->res.tangled_zone < 0 && rh.tangled_zone >= 0)
    o->res.tangled_zone = rh.tangled_zone, o->res.tangled_det = rh.tangled_det;
  if (nhost) hz->force_ones(cz, nhost, hrows);
  CK(E, b.o->split.momentum_rhs(b.ctx, ndev, hrows, rhs));
  if (nhost) {
    CK(E, b.o->split.gather(b.ctx, ndev, nz, dv, hv));
    hz->force_t(cz, nhost, hv, hb);
  }
  CK(E, b.o->split.energy_rate(b.ctx, ndev, hb, dv, rate));
  o->rhs = HostNew(2 * P->nx), o->de = HostNew(P->ne);
  Down(E, b, 2 * P->nx, rhs, o->rhs);
  Down(E, b, P->ne, rate, o->de);
  Drop(E, b, &dx), Drop(E, b, &dv), Drop(E, b, &de), Drop(E, b, &rhs), Drop(E, b, &rate);
  double **hbufs[] = {&hx, &hv, &he, &hrows, &hb};
  for (int i = 0; i < 5; i++) CK(E, b.o->vec.host_free(b.ctx, hbufs[i]));
  CK(E, hz->destroy(&cz));
}

enum { S_BEGIN, S_END, S_RHS, S_DE };

// The sequence runs once per (problem, state, split, thread count); the four split cases
// check their parts of the same runs (the sequence calls every split entry each time).
enum { kMaxP = 32, kNSplit = 4 };
static struct {
  int have;
  SplitOut o;
} g_runs[kMaxP][STATE_VARIANTS][kNSplit][2];
static struct {
  int have;
  ZoneOut z;
} g_ref[kMaxP][STATE_VARIANTS];

void SplitCacheFree(void) {
  for (int p = 0; p < kMaxP; p++)
    for (int st = 0; st < STATE_VARIANTS; st++) {
      if (g_ref[p][st].have) ZoneFree(&g_ref[p][st].z), g_ref[p][st].have = 0;
      for (int s = 0; s < kNSplit; s++)
        for (int t = 0; t < 2; t++)
          if (g_runs[p][st][s][t].have)
            SplitFree(&g_runs[p][st][s][t].o), g_runs[p][st][s][t].have = 0;
    }
}

// One split entry on every problem, state and split point.
static void SplitCase(Env *E, int part) {
  if (E->np > kMaxP) Fatal(E, "too many problems for the split cache", 1);
  for (int p = 0; p < E->np; p++)
    for (int st = 0; st < STATE_VARIANTS; st++) {
      const Problem *P = &E->P[p];
      const BlastHydroData *hd = &P->hd;
      const int nz = hd->nz, splits[kNSplit] = {nz, 0, nz / 2, nz - 1};
      double *x = HostNew(P->nx), *v = HostNew(P->nx), *e = HostNew(P->ne);
      ProblemState(P, st, x, v, e);
      if (!g_ref[p][st].have)  // the unsplit CPU backend
        ZoneRun(E, E->cpu[p], P, x, v, e, &g_ref[p][st].z), g_ref[p][st].have = 1;
      const ZoneOut ref = g_ref[p][st].z;
      for (int s = 0; s < kNSplit; s++)
        for (int nth = (E->gpu ? 2 : 1); nth <= 2; nth++) {
          const int ndev = splits[s], nhost = nz - ndev;
          const size_t rows = (size_t)hd->dim * hd->h1_nd;
          if (!g_runs[p][st][s][nth - 1].have) {
            Threads(nth);
            SplitRun(E, E->dev[p], P, ndev, x, v, e, &g_runs[p][st][s][nth - 1].o);
            Threads(2);
            g_runs[p][st][s][nth - 1].have = 1;
          }
          const SplitOut o = g_runs[p][st][s][nth - 1].o;
          char what[160], thr[16] = "";
          if (!E->gpu) snprintf(thr, sizeof thr, ", %d thr", nth);
          const char *unsplit = E->gpu ? "CPU unsplit" : "unsplit";
          double a3[3], r3[3];
          switch (part) {
            case S_BEGIN: {  // host copies = E-vectors gathered here (exact copies)
              const size_t n = (size_t)(nhost > 0 ? nhost : 0);
              double *gx = HostNew(n * rows + 1), *gv = HostNew(n * rows + 1);
              GatherE(hd, ndev, nz, x, gx);
              GatherE(hd, ndev, nz, v, gv);
              Diff d = CompareBits(o.hx, gx, n * rows), dv = CompareBits(o.hv, gv, n * rows);
              Diff de = CompareBits(o.he, e + (size_t)ndev * hd->l2_nd, n * hd->l2_nd);
              d.n += dv.n + de.n, d.ndiff += dv.ndiff + de.ndiff;
              d.maxrel = fmax(d.maxrel, fmax(dv.maxrel, de.maxrel));
              snprintf(what, sizeof what, "%s %s ndev %d%s: host x, v, e = E-vectors", P->label,
                       StateName(st), ndev, thr);
              Report(E, what, d);
              HostFree(&gx), HostFree(&gv);
              break;
            }
            case S_END:
              ResultBits(&o.res, a3), ResultBits(&ref.res, r3);
              snprintf(what, sizeof what, "%s %s ndev %d%s: combined result = %s", P->label,
                       StateName(st), ndev, thr, unsplit);
              Report(E, what, CompareBits(a3, r3, 3));
              if (s == 0 && st == 0) {
                char detail[96];
                snprintf(detail, sizeof detail, "seconds %.3e, tuning %d", o.seconds, o.tuning);
                snprintf(what, sizeof what, "%s ndev %d%s: seconds >= 0 and finite", P->label, ndev,
                         thr);
                ReportOk(E, what, o.seconds >= 0.0 && isfinite(o.seconds), detail);
              }
              break;
            case S_RHS:
              snprintf(what, sizeof what, "%s %s ndev %d%s: rhs pairs = %s", P->label,
                       StateName(st), ndev, thr, unsplit);
              Report(E, what, CompareBits(o.rhs, ref.rhs, 2 * P->nx));
              break;
            default:
              snprintf(what, sizeof what, "%s %s ndev %d%s: de = %s", P->label, StateName(st), ndev,
                       thr, unsplit);
              Report(E, what, CompareBits(o.de, ref.de, P->ne));
          }
        }
      HostFree(&x), HostFree(&v), HostFree(&e);
    }
}

void CaseSplitQDataBegin(Env *E) {
  SplitCase(E, S_BEGIN);
}
void CaseSplitQDataEnd(Env *E) {
  SplitCase(E, S_END);
}
void CaseSplitMomentumRhs(Env *E) {
  SplitCase(E, S_RHS);
}
void CaseSplitEnergyRate(Env *E) {
  SplitCase(E, S_DE);
}
// The host kernels the backend names: every operation present, and (the other split
// cases run their sequence with them) the hybrid's rows and rates equal to the unsplit ones.
void CaseSplitHostZones(Env *E) {
  for (int p = 0; p < E->np; p++) {
    const BlastHostZoneOps *hz = NULL;
    CK(E, E->dev[p].o->split.host_zones(E->dev[p].ctx, &hz));
    char what[160];
    snprintf(what, sizeof what, "%s: host zone kernels complete", E->P[p].label);
    ReportOk(E, what,
             hz && hz->create && hz->destroy && hz->rebuild && hz->qdata && hz->force_ones &&
                 hz->force_t,
             "create, destroy, rebuild, qdata, force_ones, force_t");
  }
  SplitCase(E, S_RHS);
  SplitCase(E, S_DE);
}

// E-vectors of a random H1 field for zone ranges (empty, one zone, a middle range, all)
// into host memory of the backend, against index loops.
void CaseSplitGather(Env *E) {
  for (int p = 0; p < E->np; p++) {
    const Problem *P = &E->P[p];
    const BlastHydroData *hd = &P->hd;
    const int nz = hd->nz;
    const size_t rows = (size_t)hd->dim * hd->h1_nd;
    const int ranges[][2] = {{0, nz}, {0, 1}, {nz / 3, nz / 2 + 1}, {nz - 1, nz}, {nz / 2, nz / 2}};
    Bk b = E->dev[p];
    double *u = HostNew(P->nx);
    Rng r = RngSeed(90 + (unsigned long long)p);
    FillMixed(&r, u, P->nx);
    double *du = Up(E, b, P->nx, u), *host, *ref = HostNew((size_t)nz * rows + 2);
    CK(E, b.o->vec.host_alloc(b.ctx, (size_t)nz * rows + 2, &host));
    for (size_t k = 0; k < sizeof ranges / sizeof *ranges; k++) {
      const int z0 = ranges[k][0], z1 = ranges[k][1];
      const size_t n = (size_t)(z1 - z0) * rows;
      for (size_t i = 0; i < n + 2; i++) host[i] = -7.0;
      CK(E, b.o->split.gather(b.ctx, z0, z1, du, host));
      CK(E, b.o->ctx.sync(b.ctx));
      GatherE(hd, z0, z1, u, ref);
      ref[n] = ref[n + 1] = -7.0;
      char what[128];
      snprintf(what, sizeof what, "%s zones [%d, %d): E-vectors, nothing past them", P->label, z0,
               z1);
      Report(E, what, CompareBits(host, ref, n + 2));
    }
    CK(E, b.o->vec.host_free(b.ctx, &host));
    Drop(E, b, &du);
    HostFree(&u), HostFree(&ref);
  }
}
