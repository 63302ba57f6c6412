/// @file hybrid.h
/// @brief CPU+GPU hybrid execution of the zone work (the BLAST GPU paper, section 3.3):
/// the backend computes the quadrature data and force matrices of zones [0, ndev) while
/// OpenMP threads compute zones [ndev, nz) on the host (BlastHostZoneOps), with the same
/// arithmetic; the host's force actions -F_z 1 and F_z^T v_z are merged into the
/// backend's assembly before the momentum solve and the energy update, in the backend's
/// own order, so results do not depend on the split. A balancer (balance.h) moves ndev
/// between sampling periods until both sides finish together.
#ifndef BLAST_HYBRID_H
#define BLAST_HYBRID_H

#include "backend.h"
#include "balance.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BlastHybrid_private *BlastHybrid;

/// The host threads' part of a hybrid (BlastSplitOps.host_zones; backends/cpu's
/// cpu_zones.h): quadrature data and the per-zone force actions of a contiguous range of
/// zones from E-vectors, with the arithmetic of the backend it shares the zones with.
typedef struct BlastHostZoneOps {
  int (*create)(const BlastHydroData *hd, void **hz);
  int (*destroy)(void **hz);
  /// New reference data (BlastCtxOps.rebuild).
  int (*rebuild)(void *hz, const BlastHydroData *hd);
  /// Zones [z0, z1): x, v as E-vectors (dim * h1_nd per zone), e as zone blocks.
  int (*qdata)(void *hz, int z0, int z1, const double *xE, const double *vE, const double *eE,
               BlastQDataResult *res);
  /// rows_out[k] = -F_z 1 for the n zones of the last qdata.
  void (*force_ones)(void *hz, int n, double *rows_out);
  /// b_out[k] = F_z^T v_z (+ source) for those zones, v as E-vectors.
  void (*force_t)(void *hz, int n, const double *vE, double *b_out);
} BlastHostZoneOps;

/// What the reports show.
typedef struct {
  int active;                        ///< a hybrid is in use
  int mode;                          ///< BlastBalanceMode
  int phase;                         ///< BlastBalancePhase
  double gpu_fraction;               ///< the share of zones the device computes now
  int ndev, nz;                      ///< zones on the device, zones of the rank
  int periods;                       ///< sampling periods measured
  int converged_period;              ///< period at which the split converged (-1: not yet)
  double dev_seconds, host_seconds;  ///< device and host compute time, whole run
} BlastBalanceInfo;

/// `ops`/`ctx`: the backend (must provide the split operations); `hd`: its constant
/// data; mode BLAST_BALANCE_FIXED or _AUTO with the share f0 and the period in steps.
int BlastHybridCreate(const BlastBackendOps *ops, void *ctx, const BlastHydroData *hd, int mode,
                      double f0, int period, BlastHybrid *hy);
int BlastHybridDestroy(BlastHybrid *hy);
/// The backend's qdata_force, momentum_rhs and energy_rate, shared with the host threads.
int BlastHybridQData(BlastHybrid hy, const double *x, const double *v, const double *e,
                     BlastQDataResult *res);
int BlastHybridMomentumRhs(BlastHybrid hy, double *rhs);
int BlastHybridEnergyRate(BlastHybrid hy, const double *v, double *de);
/// After every step attempt: ends a sampling period every `period` attempts. A new split
/// takes effect at the next quadrature-data update (never between an update and the
/// force actions that use it).
int BlastHybridStepEnd(BlastHybrid hy);
/// New reference data for the host zones (after the backend's ctx.rebuild).
int BlastHybridRebuild(BlastHybrid hy, const BlastHydroData *hd);
/// Trace every sampling period's decision through BlastLog (BLAST_LOG_TRACE): the
/// configuration's balance_trace (app/main.c: BLAST_BALANCE_TRACE=1). Off by default.
void BlastHybridSetTrace(BlastHybrid hy, int on);
void BlastHybridGetInfo(BlastHybrid hy, BlastBalanceInfo *info);
/// Auto mode, before the search began: the first split to try after the baseline (e.g. the
/// split of the run a checkpoint came from). Ignored in fixed mode, later, or for f outside
/// (0, 1).
void BlastHybridSeed(BlastHybrid hy, double f);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_HYBRID_H
