/// @file balance.h
/// @brief The CPU+GPU load balancer: from the times each side took in a sampling period,
/// the device's share of the zones for the next one. Pure logic (no clocks, no MPI), so
/// that it can be tested against synthetic cost models.
///
/// Auto mode, per rank:
///  1. baseline: two periods with every zone on the device (f = 1) give the device-only
///     wall time per call;
///  2. search: periods at 0 < f < 1; each gives device and host times t_d, t_h. The next f
///     solves t_d(f) = t_h(f) on the least-squares line through the search's points
///     (exact for costs affine in the zone count; noise averages out), or from the
///     proportional model t_d ~ f, t_h ~ 1 - f while there is one point. Converged when the step is
///     below 5 % of the smaller side's share (at least one zone), or the two sides differ by
///     less than 3 %, or after 8 search periods;
///  3. converged: f is held; it is searched again only after three periods in a row with
///     more than 10 % imbalance (no reaction to noisy periods);
///  4. disabled: when the hybrid's wall time per call, averaged over the first three
///     converged periods, is not below the device-only one (any of those periods 20 %
///     above it), or the host's share would be below one zone: f = 1 for the rest of the run.
///     Later periods are not judged one by one (a single slow period is noise); a lasting
///     change shows as imbalance and starts a new search, judged again once converged.
#ifndef BLAST_BALANCE_H
#define BLAST_BALANCE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  BLAST_BALANCE_PHASE_FIXED = 0,     ///< fixed mode: never moves
  BLAST_BALANCE_PHASE_BASELINE = 1,  ///< measuring the device alone
  BLAST_BALANCE_PHASE_SEARCH = 2,
  BLAST_BALANCE_PHASE_CONVERGED = 3,
  BLAST_BALANCE_PHASE_DISABLED = 4  ///< the hybrid was not faster: device only
} BlastBalancePhase;

typedef struct {
  int phase;                    ///< BlastBalancePhase
  double f;                     ///< the device's share of the zones for the next period
  double f_start;               ///< first share tried after the baseline
  double min_share;             ///< smallest host or device share worth splitting (1 zone / nz)
  int periods;                  ///< periods measured
  int converged_period;         ///< the period at which the search converged (-1: not yet)
  double base_wall;             ///< device-only wall time per call (baseline), 0 if unknown
  double last_wall;             ///< wall time per call of the last period
  double last_dev, last_host;   ///< device and host time per call of the last period
  double sn, sf, sg, sff, sfg;  ///< sums over the search's points (f, g = t_d - t_h)
  int imbalanced;               ///< consecutive converged periods with > 10 % imbalance
  double judge_wall;  ///< sum of the wall times per call since convergence (first periods)
  int judge_n;
} BlastBalancer;

/// mode: BLAST_BALANCE_FIXED or BLAST_BALANCE_AUTO (config.h); f0: the fixed share, or
/// the first share tried by the search; nz: the rank's zones.
void BlastBalancerInit(BlastBalancer *b, int mode, double f0, int nz);
/// One sampling period at share f_used (as applied): device and host compute time and
/// the wall time per call, averaged over the period. Returns the share for the next one.
double BlastBalancerUpdate(BlastBalancer *b, double f_used, double t_dev, double t_host,
                           double wall);
/// Name of a phase for reports.
const char *BlastBalancePhaseName(int phase);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_BALANCE_H
