/// @file hybrid.h
/// @brief CPU+GPU hybrid execution of the zone work (the BLAST GPU paper, section 3.3):
/// the backend computes the quadrature data and force matrices of zones [0, ndev) while
/// OpenMP threads compute zones [ndev, nz) on the host (cpu_zones.h), with the same
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

/// `ops`/`ctx`: the backend (must provide the split_* operations); `hd`: its constant
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
