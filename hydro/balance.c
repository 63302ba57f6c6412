// The CPU+GPU load balancer (balance.h).
#include "balance.h"

#include <math.h>

#include "config.h"

enum {
  kBaselinePeriods = 2,    // device-only periods averaged for the baseline
  kImbalancedPeriods = 3,  // converged periods in a row above kImbalance before a new search
  kJudgePeriods = 3,       // converged periods averaged before judging against the baseline
  kMaxSearch = 8           // a search that has not converged after this many periods stops
};
// A step below 1 % of the zones ends the search, and below 5 % of the smaller side's
// share when that is less (a fast GPU leaves the host a few per cent of the zones, where
// a 1 % step is a 20-30 % change of the host's work and of the imbalance); at least one zone.
static const double kConverged = 0.01, kConvergedSide = 0.05;
static const double kBalanced = 0.03;     // ... and so does an imbalance below this
static const double kMinSpread = 0.005;   // fit a line only through points this spread out
static const double kImbalance = 0.10;    // re-search above this (twice in a row)
static const double kNotFaster = 1.0;     // give up unless faster than the device alone
static const double kClearlyWorse = 1.2;  // ... or at once by this

void BlastBalancerInit(BlastBalancer *b, int mode, double f0, int nz) {
  *b = (BlastBalancer){0};
  b->min_share = nz > 0 ? 1.0 / nz : 1.0;
  b->converged_period = -1;
  if (mode == BLAST_BALANCE_FIXED) {
    b->phase = BLAST_BALANCE_PHASE_FIXED;
    b->f = f0;
  } else {
    b->phase = BLAST_BALANCE_PHASE_BASELINE;
    b->f = 1.0;
    b->f_start = f0 < 1.0 - b->min_share ? f0 : 1.0 - b->min_share;
    if (b->f_start < b->min_share) b->f_start = b->min_share;
  }
}

static double Clamp(double f, double lo, double hi) {
  return f < lo ? lo : f > hi ? hi : f;
}

// The share that equalizes device and host time. g = t_dev - t_host grows with f; it is
// fitted as an affine function of f by least squares over the points of this search
// (exact for costs affine in the zone counts, and noise averages out as points
// accumulate); with one point, or points too close together, the proportional model
// t_dev ~ f, t_host ~ 1 - f at the newest point.
static double Target(BlastBalancer *b, double f, double t_dev, double t_host) {
  const double g = t_dev - t_host;
  b->sn += 1.0, b->sf += f, b->sg += g, b->sff += f * f, b->sfg += f * g;
  double target = NAN;
  const double var = b->sff / b->sn - (b->sf / b->sn) * (b->sf / b->sn);
  if (b->sn >= 2.0 && var >= kMinSpread * kMinSpread) {
    const double slope = (b->sfg / b->sn - (b->sf / b->sn) * (b->sg / b->sn)) / var;
    const double icpt = b->sg / b->sn - slope * b->sf / b->sn;
    if (slope > 0.0) target = -icpt / slope;
  }
  if (!isfinite(target)) {
    const double cd = t_dev / f, ch = t_host / (1.0 - f);
    target = cd + ch > 0.0 ? ch / (cd + ch) : f;
  }
  return target;
}

static void NewSearch(BlastBalancer *b) {
  b->phase = BLAST_BALANCE_PHASE_SEARCH;
  b->sn = b->sf = b->sg = b->sff = b->sfg = 0.0;
}

static double StepTolerance(const BlastBalancer *b, double f) {
  const double side = f < 1.0 - f ? f : 1.0 - f;
  const double tol = kConvergedSide * side < kConverged ? kConvergedSide * side : kConverged;
  return tol > b->min_share ? tol : b->min_share;
}

double BlastBalancerUpdate(BlastBalancer *b, double f_used, double t_dev, double t_host,
                           double wall) {
  b->periods++;
  b->last_dev = t_dev, b->last_host = t_host, b->last_wall = wall;
  switch (b->phase) {
    case BLAST_BALANCE_PHASE_FIXED:
    case BLAST_BALANCE_PHASE_DISABLED:
      return b->f;
    case BLAST_BALANCE_PHASE_BASELINE:
      b->base_wall += wall / kBaselinePeriods;
      if (b->periods < kBaselinePeriods) return b->f;
      NewSearch(b);
      b->f = b->f_start;
      return b->f;
    default:
      break;
  }
  if (!(f_used > 0.0 && f_used < 1.0)) return b->f;  // nothing to learn from
  const double lo = b->min_share, hi = 1.0 - b->min_share;
  const double m = t_dev > t_host ? t_dev : t_host;
  if (b->phase == BLAST_BALANCE_PHASE_CONVERGED) {
    // Judged once, on the first periods after convergence; later a single slow period
    // (a host thread preempted) must not end the hybrid for good: lasting changes are
    // caught by the imbalance test below and searched again (and judged again).
    if (b->judge_n < kJudgePeriods) {
      if (b->base_wall > 0.0 && wall > kClearlyWorse * b->base_wall) {
        b->phase = BLAST_BALANCE_PHASE_DISABLED;
        return b->f = 1.0;
      }
      b->judge_wall += wall, b->judge_n++;
      if (b->judge_n == kJudgePeriods && b->base_wall > 0.0 &&
          b->judge_wall / b->judge_n > kNotFaster * b->base_wall) {
        b->phase = BLAST_BALANCE_PHASE_DISABLED;
        return b->f = 1.0;
      }
    }
    b->imbalanced = m > 0.0 && fabs(t_dev - t_host) > kImbalance * m ? b->imbalanced + 1 : 0;
    if (b->imbalanced < kImbalancedPeriods) return b->f;
    NewSearch(b);  // the costs moved: search again
    b->imbalanced = 0;
  }
  const double target = Target(b, f_used, t_dev, t_host);
  if (target > hi) {  // the host's share would be below one zone
    b->phase = BLAST_BALANCE_PHASE_DISABLED;
    return b->f = 1.0;
  }
  const double next = Clamp(target, lo, hi);
  if (fabs(next - f_used) < StepTolerance(b, f_used) ||
      (m > 0.0 && fabs(t_dev - t_host) < kBalanced * m) || b->sn >= kMaxSearch) {
    b->phase = BLAST_BALANCE_PHASE_CONVERGED;
    if (b->converged_period < 0) b->converged_period = b->periods;
    b->judge_wall = wall, b->judge_n = 1;
    return b->f = f_used;
  }
  return b->f = next;
}

const char *BlastBalancePhaseName(int phase) {
  switch (phase) {
    case BLAST_BALANCE_PHASE_FIXED:
      return "fixed";
    case BLAST_BALANCE_PHASE_BASELINE:
      return "baseline";
    case BLAST_BALANCE_PHASE_SEARCH:
      return "searching";
    case BLAST_BALANCE_PHASE_CONVERGED:
      return "converged";
    default:
      return "disabled (not faster than the GPU alone)";
  }
}
