// Cases of the zone entries (quadrature data and force matrices, the two force actions,
// the energies), on every problem and on a smooth and a tangled state.
//
// CPU part: the same bits twice (repeatability), the same bits on 1 and 2 OpenMP threads,
// and references computed here where they are independent of the backend's loops: the
// momentum assembly (the rows -F_z 1 of the host-zone kernels, cpu_zones.h, summed over
// each dof's zones in double-double in ascending (zone, node) order, the order h1_tidx
// lists them in), M_E^{-1} applied to F_z^T v_z, and the energies (method spec 13.2).
// GPU part: the CUDA backend's outputs against the CPU backend's on the same inputs.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "cpu_zones.h"
#include "ddsum.h"

void ResultBits(const BlastQDataResult *r, double *out3) {
  out3[0] = r->dt_est, out3[1] = (double)r->tangled_zone, out3[2] = r->tangled_det;
}

void GatherE(const BlastHydroData *hd, int z0, int z1, const double *u, double *uE) {
  const int nd = hd->h1_nd, rows = hd->dim * nd;
  for (int z = z0; z < z1; z++)
    for (int c = 0; c < hd->dim; c++)
      for (int a = 0; a < nd; a++)
        uE[(size_t)(z - z0) * rows + c * nd + a] =
            u[(size_t)c * hd->h1_nl + hd->h1_edof[(size_t)z * nd + a]];
}

void ZoneRun(Env *E, Bk b, const Problem *P, const double *x, const double *v, const double *e,
             ZoneOut *o) {
  const size_t nx = P->nx, ne = P->ne;
  double *dx = Up(E, b, nx, x), *dv = Up(E, b, nx, v), *de = Up(E, b, ne, e);
  double *rhs = Up(E, b, 2 * nx, NULL), *rate = Up(E, b, ne, NULL);
  // the update, then ten more on the same state: a backend may owe their results until
  // its next ctx.sync (more than the CUDA backend holds at once: kQPending)
  BlastQDataResult more[10];
  CK(E, b.o->zone.qdata_force(b.ctx, dx, dv, de, &o->res));
  for (int k = 0; k < 10; k++) CK(E, b.o->zone.qdata_force(b.ctx, dx, dv, de, &more[k]));
  CK(E, b.o->zone.momentum_rhs(b.ctx, rhs));
  CK(E, b.o->zone.energy_rate(b.ctx, dv, rate));
  double dd[4];
  CK(E, b.o->zone.energies(b.ctx, dv, de, dd));
  CK(E, b.o->ctx.sync(b.ctx));
  o->queued_same = 1;
  for (int k = 0; k < 10; k++) {
    double x3[3], y3[3];
    ResultBits(&o->res, x3), ResultBits(&more[k], y3);
    if (memcmp(x3, y3, sizeof x3) && o->queued_same) o->queued_same = 0, o->odd = more[k];
  }
  o->ie = dd[0] + dd[1], o->ke = dd[2] + dd[3];
  o->rhs = HostNew(2 * nx), o->de = HostNew(ne);
  Down(E, b, 2 * nx, rhs, o->rhs);
  Down(E, b, ne, rate, o->de);
  Drop(E, b, &dx), Drop(E, b, &dv), Drop(E, b, &de), Drop(E, b, &rhs), Drop(E, b, &rate);
}

void ZoneFree(ZoneOut *o) {
  HostFree(&o->rhs), HostFree(&o->de);
}

enum { Q_RES, Q_RHS, Q_DE, Q_EN };  // the part of ZoneOut an entry owns

static Diff PartDiff(int part, const Problem *P, const ZoneOut *a, const ZoneOut *r) {
  double x[3], y[3];
  switch (part) {
    case Q_RES:
      ResultBits(&a->res, x), ResultBits(&r->res, y);
      return CompareBits(x, y, 3);
    case Q_RHS:
      return CompareBits(a->rhs, r->rhs, 2 * P->nx);
    case Q_DE:
      return CompareBits(a->de, r->de, P->ne);
    default:
      x[0] = a->ie, x[1] = a->ke, y[0] = r->ie, y[1] = r->ke;
      return CompareBits(x, y, 2);
  }
}

static const char *kPartName[] = {"(dt_est, tangled zone, det)", "rhs pairs", "de", "(ie, ke)"};

// Independent references of the CPU part (NULL where there is none).
typedef void (*RefFn)(Env *E, int p, const double *x, const double *v, const double *e,
                      const ZoneOut *out, ZoneOut *ref);

// The host-zone kernels (cpu_zones.h) on all zones from E-vectors gathered here.
static void HostZones(const Problem *P, const double *x, const double *v, const double *e,
                      BlastCpuZones *cz, double **vE) {
  const BlastHydroData *hd = &P->hd;
  const size_t rows = (size_t)hd->dim * hd->h1_nd;
  double *xE = HostNew(hd->nz * rows);
  *vE = HostNew(hd->nz * rows);
  GatherE(hd, 0, hd->nz, x, xE);
  GatherE(hd, 0, hd->nz, v, *vE);
  BlastQDataResult res;
  if (BlastCpuZonesCreate(hd, cz) || BlastCpuZonesQData(*cz, 0, hd->nz, xE, *vE, e, &res)) {
    BlastErrorPrint();
    exit(1);
  }
  HostFree(&xE);
}

static void RefRhs(Env *E, int p, const double *x, const double *v, const double *e,
                   const ZoneOut *out, ZoneOut *ref) {
  const Problem *P = &E->P[p];
  const BlastHydroData *hd = &P->hd;
  const int nd = hd->h1_nd, rows = hd->dim * nd, nl = hd->h1_nl;
  BlastCpuZones cz;
  double *vE, *zr = HostNew((size_t)hd->nz * rows);
  HostZones(P, x, v, e, &cz, &vE);
  BlastCpuZonesForceOnes(cz, hd->nz, zr);
  BlastDD *acc = calloc((size_t)hd->dim * nl, sizeof *acc);
  for (int z = 0; z < hd->nz; z++)
    for (int a = 0; a < nd; a++)
      for (int c = 0; c < hd->dim; c++)
        BlastDDAdd(&acc[(size_t)c * nl + hd->h1_edof[(size_t)z * nd + a]],
                   zr[(size_t)z * rows + c * nd + a]);
  ref->rhs = HostNew(2 * P->nx);
  for (size_t i = 0; i < P->nx; i++) {
    BlastDDNormalize(&acc[i]);
    ref->rhs[i] = acc[i].hi, ref->rhs[P->nx + i] = acc[i].lo;
  }
  free(acc);
  HostFree(&vE), HostFree(&zr);
  BlastCpuZonesDestroy(&cz);
}

static void RefDe(Env *E, int p, const double *x, const double *v, const double *e,
                  const ZoneOut *out, ZoneOut *ref) {
  const Problem *P = &E->P[p];
  const BlastHydroData *hd = &P->hd;
  const int ne = hd->l2_nd;
  BlastCpuZones cz;
  double *vE, *b = HostNew(P->ne);
  HostZones(P, x, v, e, &cz, &vE);
  BlastCpuZonesForceT(cz, hd->nz, vE, b);
  ref->de = HostNew(P->ne);
  for (int z = 0; z < hd->nz; z++) {
    const double *Minv = &hd->me_inv[(size_t)z * ne * ne];
    for (int i = 0; i < ne; i++) {  // column-major M_E^{-1}, terms in column order
      double s = 0.0;
      for (int j = 0; j < ne; j++) s += Minv[i + ne * j] * b[(size_t)z * ne + j];
      ref->de[(size_t)z * ne + i] = s;
    }
  }
  HostFree(&vE), HostFree(&b);
  BlastCpuZonesDestroy(&cz);
}

// IE = sum_z sum_q rho0|J0|w e(q), KE = sum_z sum_q 0.5 rho0|J0|w |v(q)|^2: the zone sums
// in quadrature order, the sum over zones carried in double-double and rounded once.
static void RefEnergies(Env *E, int p, const double *x, const double *v, const double *e,
                        const ZoneOut *out, ZoneOut *ref) {
  const BlastHydroData *hd = &E->P[p].hd;
  const int nd = hd->h1_nd, ne = hd->l2_nd, nqp = hd->nqp;
  BlastDD ie = {0.0, 0.0}, ke = {0.0, 0.0};
  for (int z = 0; z < hd->nz; z++) {
    double si = 0.0, sk = 0.0;
    for (int q = 0; q < nqp; q++) {
      const double R0 = hd->qp_R0[(size_t)z * nqp + q];
      double eq = 0.0, v2 = 0.0;
      for (int i = 0; i < ne; i++) eq += e[(size_t)z * ne + i] * hd->l2_B[(size_t)q * ne + i];
      for (int c = 0; c < hd->dim; c++) {
        double vq = 0.0;
        for (int a = 0; a < nd; a++)
          vq += v[(size_t)c * hd->h1_nl + hd->h1_edof[(size_t)z * nd + a]] *
                hd->h1_B[(size_t)q * nd + a];
        v2 += vq * vq;
      }
      si += R0 * eq;
      sk += 0.5 * R0 * v2;
    }
    BlastDDAdd(&ie, si);
    BlastDDAdd(&ke, sk);
  }
  ref->ie = ie.hi + ie.lo, ref->ke = ke.hi + ke.lo;
}

// The expectations on the result itself: a smooth state constrains dt (finite, > 0) and
// has no tangled zone; the tangled one reports a zone, its det <= 0, and dt_est 0.
static void RefResult(Env *E, int p, const double *x, const double *v, const double *e,
                      const ZoneOut *out, ZoneOut *ref) {
  *ref = *out;  // (checked by ReportOk in ZoneCase)
}

// The runs of each (problem, state), shared by the four zone cases (each run calls all
// four zone entries): CPU part: twice on 2 threads and once on 1; GPU part: the backend
// under test and the CPU backend.
enum { kMaxP = 32 };
static struct {
  int have;
  ZoneOut a, b, t1;
} g_zone[kMaxP][STATE_VARIANTS];

void ZoneCacheFree(void) {
  for (int p = 0; p < kMaxP; p++)
    for (int st = 0; st < STATE_VARIANTS; st++)
      if (g_zone[p][st].have) {
        ZoneFree(&g_zone[p][st].a), ZoneFree(&g_zone[p][st].b);
        if (g_zone[p][st].t1.rhs) ZoneFree(&g_zone[p][st].t1);
        g_zone[p][st].have = 0;
      }
}

// One zone entry: its part of the outputs, on every problem and state.
static void ZoneCase(Env *E, int part, RefFn ref_fn) {
  if (E->np > kMaxP) Fatal(E, "too many problems for the zone cache", 1);
  for (int p = 0; p < E->np; p++)
    for (int st = 0; st < STATE_VARIANTS; st++) {
      const Problem *P = &E->P[p];
      double *x = HostNew(P->nx), *v = HostNew(P->nx), *e = HostNew(P->ne);
      ProblemState(P, st, x, v, e);
      char what[160];
      if (!g_zone[p][st].have) {
        memset(&g_zone[p][st], 0, sizeof g_zone[p][st]);
        ZoneRun(E, E->dev[p], P, x, v, e, &g_zone[p][st].a);
        ZoneRun(E, E->gpu ? E->cpu[p] : E->dev[p], P, x, v, e, &g_zone[p][st].b);
        if (!E->gpu) {
          Threads(1);
          ZoneRun(E, E->dev[p], P, x, v, e, &g_zone[p][st].t1);
          Threads(2);
        }
        g_zone[p][st].have = 1;
      }
      const ZoneOut a = g_zone[p][st].a, b = g_zone[p][st].b, t1 = g_zone[p][st].t1;
      if (part == Q_RES) {
        snprintf(what, sizeof what, "%s %s: ten more updates, results by ctx.sync = the first",
                 P->label, StateName(st));
        char detail[160];
        snprintf(detail, sizeof detail, "first (%.17g, %d, %.17g), another (%.17g, %d, %.17g)",
                 a.res.dt_est, a.res.tangled_zone, a.res.tangled_det, a.odd.dt_est,
                 a.odd.tangled_zone, a.odd.tangled_det);
        ReportOk(E, what, a.queued_same, a.queued_same ? NULL : detail);
      }
      if (E->gpu) {
        snprintf(what, sizeof what, "%s %s: %s = CPU's", P->label, StateName(st), kPartName[part]);
        Report(E, what, PartDiff(part, P, &a, &b));
      } else {
        snprintf(what, sizeof what, "%s %s: %s repeat", P->label, StateName(st), kPartName[part]);
        Report(E, what, PartDiff(part, P, &b, &a));
        snprintf(what, sizeof what, "%s %s: %s 1 thread = 2 threads", P->label, StateName(st),
                 kPartName[part]);
        Report(E, what, PartDiff(part, P, &t1, &a));
        if (part == Q_RES) {
          const BlastQDataResult *r = &a.res;
          const int ok = st == STATE_TANGLED
                             ? r->tangled_zone >= 0 && r->tangled_det <= 0.0 && r->dt_est == 0.0
                             : r->tangled_zone == -1 && r->dt_est > 0.0 && isfinite(r->dt_est);
          char detail[128];
          snprintf(detail, sizeof detail, "dt_est %.6e, tangled zone %d (det %.3e)", r->dt_est,
                   r->tangled_zone, r->tangled_det);
          snprintf(what, sizeof what, "%s %s: result as expected", P->label, StateName(st));
          ReportOk(E, what, ok, detail);
        } else if (ref_fn) {
          ZoneOut ref = a;
          ref.rhs = ref.de = NULL;
          ref_fn(E, p, x, v, e, &a, &ref);
          snprintf(what, sizeof what, "%s %s: %s = reference", P->label, StateName(st),
                   kPartName[part]);
          Report(E, what, PartDiff(part, P, &a, &ref));
          HostFree(&ref.rhs), HostFree(&ref.de);
        }
      }
      HostFree(&x), HostFree(&v), HostFree(&e);
    }
}

void CaseZoneQDataForce(Env *E) {
  ZoneCase(E, Q_RES, RefResult);
}
void CaseZoneMomentumRhs(Env *E) {
  ZoneCase(E, Q_RHS, RefRhs);
}
void CaseZoneEnergyRate(Env *E) {
  ZoneCase(E, Q_DE, RefDe);
}
void CaseZoneEnergies(Env *E) {
  ZoneCase(E, Q_EN, RefEnergies);
}
