// CPU+GPU hybrid execution of the zone work (hybrid.h).
#include "hybrid.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "blast.h"
#include "config.h"
#include "log.h"

struct BlastHybrid_private {
  const BlastBackendOps *ops;
  void *ctx;
  int nz, rows, ne;
  int ndev;       // split of the last quadrature-data update (used by the force actions)
  int ndev_next;  // split for the next update
  const BlastHostZoneOps *hzo;  // the host threads' kernels
  void *cz;
  // host buffers (backend host memory, pinned for GPUs) for `cap` host zones
  double *hx, *hv, *he, *hrows, *hb;
  int cap;
  int mode, period, attempts;
  int trace;  // BlastHybridSetTrace: one line per sampling period (BlastLog, trace level)
  BlastBalancer bal;
  // the current period
  double acc_dev, acc_host, acc_wall;
  int acc_calls, acc_tuning;
  double sum_dev, sum_host;
};

static int NdevOf(const BlastHybrid hy, double f) {
  int n = (int)lround(f * hy->nz);
  return n < 0 ? 0 : n > hy->nz ? hy->nz : n;
}

int BlastHybridCreate(const BlastBackendOps *ops, void *ctx, const BlastHydroData *hd, int mode,
                      double f0, int period, BlastHybrid *hybrid) {
  BlastCheck(ops->split.qdata_begin && ops->split.qdata_end && ops->split.gather &&
                 ops->split.momentum_rhs && ops->split.energy_rate && ops->split.host_zones,
             BLAST_ERR_UNSUPPORTED, "the %s backend cannot share zones with host threads",
             ops->name);
  BlastCheck(mode == BLAST_BALANCE_FIXED || mode == BLAST_BALANCE_AUTO, BLAST_ERR_ARG,
             "balance mode %d is not a hybrid mode", mode);
  BlastHybrid hy;
  BlastCall(BlastCalloc(1, &hy));
  hy->ops = ops, hy->ctx = ctx;
  hy->nz = hd->nz, hy->rows = hd->dim * hd->h1_nd, hy->ne = hd->l2_nd;
  hy->mode = mode, hy->period = period > 0 ? period : 1;
  BlastCall(ops->split.host_zones(ctx, &hy->hzo));
  BlastCall(hy->hzo->create(hd, &hy->cz));
  BlastBalancerInit(&hy->bal, mode, f0, hd->nz);
  hy->ndev = hy->ndev_next = NdevOf(hy, hy->bal.f);
  *hybrid = hy;
  return 0;
}

static int FreeBuffers(BlastHybrid hy) {
  double **bufs[] = {&hy->hx, &hy->hv, &hy->he, &hy->hrows, &hy->hb};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (*bufs[i]) BlastCall(hy->ops->vec.host_free(hy->ctx, bufs[i]));
  hy->cap = 0;
  return 0;
}

int BlastHybridDestroy(BlastHybrid *hybrid) {
  if (!hybrid || !*hybrid) return 0;
  BlastHybrid hy = *hybrid;
  BlastCall(FreeBuffers(hy));
  if (hy->hzo) BlastCall(hy->hzo->destroy(&hy->cz));
  BlastFree(hybrid);
  return 0;
}

// Host buffers for n host zones (grown only; at least one zone so pointers are valid).
static int Reserve(BlastHybrid hy, int n) {
  if (n <= hy->cap && hy->cap > 0) return 0;
  BlastCall(FreeBuffers(hy));
  const size_t m = (size_t)(n > 0 ? n : 1);
  BlastCall(hy->ops->vec.host_alloc(hy->ctx, m * hy->rows, &hy->hx));
  BlastCall(hy->ops->vec.host_alloc(hy->ctx, m * hy->rows, &hy->hv));
  BlastCall(hy->ops->vec.host_alloc(hy->ctx, m * hy->ne, &hy->he));
  BlastCall(hy->ops->vec.host_alloc(hy->ctx, m * hy->rows, &hy->hrows));
  BlastCall(hy->ops->vec.host_alloc(hy->ctx, m * hy->ne, &hy->hb));
  hy->cap = (int)m;
  return 0;
}

int BlastHybridQData(BlastHybrid hy, const double *x, const double *v, const double *e,
                     BlastQDataResult *res) {
  const double t0 = omp_get_wtime();
  hy->ndev = hy->ndev_next;
  const int ndev = hy->ndev, nhost = hy->nz - ndev;
  BlastCall(Reserve(hy, nhost));
  BlastCall(hy->ops->split.qdata_begin(hy->ctx, ndev, x, v, e, hy->hx, hy->hv, hy->he));
  const double th0 = omp_get_wtime();
  BlastQDataResult rh = {HUGE_VAL, -1, 0.0, -1.0};
  if (nhost) BlastCall(hy->hzo->qdata(hy->cz, ndev, hy->nz, hy->hx, hy->hv, hy->he, &rh));
  const double t_host = omp_get_wtime() - th0;
  BlastQDataResult rd = {HUGE_VAL, -1, 0.0, -1.0};
  double t_dev;
  int tuning;
  BlastCall(hy->ops->split.qdata_end(hy->ctx, &rd, &t_dev, &tuning));
  // Device zones come first, so a tangled device zone is the lowest one.
  *res = rd;
  if (rh.dt_est < res->dt_est) res->dt_est = rh.dt_est;
  if (res->tangled_zone < 0 && rh.tangled_zone >= 0)
    res->tangled_zone = rh.tangled_zone, res->tangled_det = rh.tangled_det;
  hy->acc_dev += t_dev, hy->acc_host += t_host;
  hy->sum_dev += t_dev, hy->sum_host += t_host;
  hy->acc_wall += omp_get_wtime() - t0;
  hy->acc_calls++;
  hy->acc_tuning |= tuning;
  return 0;
}

int BlastHybridMomentumRhs(BlastHybrid hy, double *rhs) {
  const double t0 = omp_get_wtime();
  const int nhost = hy->nz - hy->ndev;
  if (nhost) hy->hzo->force_ones(hy->cz, nhost, hy->hrows);
  BlastCall(hy->ops->split.momentum_rhs(hy->ctx, hy->ndev, hy->hrows, rhs));
  hy->acc_wall += omp_get_wtime() - t0;
  return 0;
}

int BlastHybridEnergyRate(BlastHybrid hy, const double *v, double *de) {
  const double t0 = omp_get_wtime();
  const int nhost = hy->nz - hy->ndev;
  if (nhost) {
    BlastCall(hy->ops->split.gather(hy->ctx, hy->ndev, hy->nz, v, hy->hv));
    hy->hzo->force_t(hy->cz, nhost, hy->hv, hy->hb);
  }
  BlastCall(hy->ops->split.energy_rate(hy->ctx, hy->ndev, hy->hb, v, de));
  hy->acc_wall += omp_get_wtime() - t0;
  return 0;
}

int BlastHybridStepEnd(BlastHybrid hy) {
  if (++hy->attempts % hy->period) return 0;
  if (hy->acc_calls > 0 && !hy->acc_tuning) {  // periods with autotuning runs do not count
    const double n = hy->acc_calls;
    const double f_used = (double)hy->ndev / hy->nz;
    const double f =
        BlastBalancerUpdate(&hy->bal, f_used, hy->acc_dev / n, hy->acc_host / n, hy->acc_wall / n);
    hy->ndev_next = NdevOf(hy, f);
    if (hy->trace)
      BlastLog(BLAST_LOG_TRACE,
               "balance: period %d share %.4f: per call device %.3f ms, host %.3f ms, wall %.3f "
               "ms (baseline %.3f ms) -> share %.4f, %s\n",
               hy->bal.periods, f_used, 1e3 * hy->acc_dev / n, 1e3 * hy->acc_host / n,
               1e3 * hy->acc_wall / n, 1e3 * hy->bal.base_wall, (double)hy->ndev_next / hy->nz,
               BlastBalancePhaseName(hy->bal.phase));
  }
  hy->acc_dev = hy->acc_host = hy->acc_wall = 0.0;
  hy->acc_calls = hy->acc_tuning = 0;
  return 0;
}

int BlastHybridRebuild(BlastHybrid hy, const BlastHydroData *hd) {
  return hy ? hy->hzo->rebuild(hy->cz, hd) : 0;
}

void BlastHybridSetTrace(BlastHybrid hy, int on) {
  if (hy) hy->trace = on != 0;
}

void BlastHybridSeed(BlastHybrid hy, double f) {
  if (!hy || hy->mode != BLAST_BALANCE_AUTO || hy->bal.phase != BLAST_BALANCE_PHASE_BASELINE ||
      !(f > 0.0 && f < 1.0))
    return;
  const double lo = hy->bal.min_share, hi = 1.0 - hy->bal.min_share;
  hy->bal.f_start = f < lo ? lo : f > hi ? hi : f;
}

void BlastHybridGetInfo(BlastHybrid hy, BlastBalanceInfo *info) {
  *info = (BlastBalanceInfo){0};
  if (!hy) return;
  info->active = 1;
  info->mode = hy->mode;
  info->phase = hy->bal.phase;
  info->ndev = hy->ndev, info->nz = hy->nz;
  info->gpu_fraction = hy->nz ? (double)hy->ndev / hy->nz : 1.0;
  info->periods = hy->bal.periods;
  info->converged_period = hy->bal.converged_period;
  info->dev_seconds = hy->sum_dev, info->host_seconds = hy->sum_host;
}
