// CPU+GPU hybrid, without a GPU:
//  1. the balancer against synthetic cost models (device and host times affine in their
//     zone counts, with noise): within 2 % of the optimal split in at most 6 periods
//     (the two baseline periods included), no oscillation afterwards, and back to the
//     device alone when the split does not pay;
//  2. the split machinery with the CPU backend standing in for the device: runs with the
//     device share 1.0, 0.7, 0.0 and auto (a moving split) give the same steps, dt and
//     |e|, bit for bit, as the plain backend, on problems with every source term.
#include <math.h>
#include <stdlib.h>

#include "backend.h"
#include "balance.h"
#include "blast_mpi.h"
#include "io_test_meshes.h"
#include "regression_common.h"
#include "testlib.h"

// ---------------------------------------------------------------------------------------
// 1. Balancer

typedef struct {
  double dev_all, host_all;  // seconds for all zones on one side
  double dev_fixed, host_fixed, overhead;
  double noise;  // relative, uniform in [-noise, noise]
} CostModel;

static double Noise(unsigned *seed, double amp) {
  *seed = *seed * 1103515245u + 12345u;
  return amp * (2.0 * ((*seed >> 8) & 0xffff) / 65535.0 - 1.0);
}

// The share where both sides finish together, from the model directly.
static double OptimalShare(const CostModel *m) {
  // f dev_all + dev_fixed = (1 - f) host_all + host_fixed
  return (m->host_all + m->host_fixed - m->dev_fixed) / (m->dev_all + m->host_all);
}

// Runs `periods` periods; returns the share of each period in f_hist.
static void Simulate(const CostModel *m, int mode, double f0, int nz, int periods, unsigned seed,
                     double *f_hist, BlastBalancer *b) {
  BlastBalancerInit(b, mode, f0, nz);
  for (int p = 0; p < periods; p++) {
    const double f = round(b->f * nz) / nz;  // as applied to whole zones
    f_hist[p] = f;
    const double td = f > 0 ? (f * m->dev_all + m->dev_fixed) * (1 + Noise(&seed, m->noise)) : 0.0;
    const double th =
        f < 1 ? ((1 - f) * m->host_all + m->host_fixed) * (1 + Noise(&seed, m->noise)) : 0.0;
    const double wall = (td > th ? td : th) + (f < 1 ? m->overhead : 0.0);
    BlastBalancerUpdate(b, f, td, th, wall);
  }
}

static void BalancerTests(void) {
  enum { kPeriods = 40, kNz = 100000 };
  // (device s, host s for all zones, fixed costs, hybrid overhead, noise)
  const CostModel models[] = {
      {1.0, 3.2, 0.0, 0.0, 0.0, 0.0},        // the paper's C2050 + 6 cores: ~76 % on the GPU
      {1.0, 3.2, 0.0, 0.0, 0.0, 0.03},       // the same with 3 % noise
      {1.0, 44.0, 0.02, 0.01, 0.001, 0.03},  // an H200 against 16 cores: ~98 %
      {1.0, 1.0, 0.05, 0.0, 0.0, 0.05},      // equal sides, launch cost, 5 % noise
      {2.0, 1.0, 0.0, 0.1, 0.0, 0.02},       // a slow device
  };
  const double starts[] = {0.9, 0.5, 0.99};
  int worst_settle = 0;
  for (size_t i = 0; i < sizeof models / sizeof *models; i++)
    for (size_t s = 0; s < sizeof starts / sizeof *starts; s++)
      for (unsigned seed = 1; seed <= 20; seed++) {
        const CostModel *m = &models[i];
        const double fopt = OptimalShare(m);
        double f[kPeriods];
        BlastBalancer b;
        Simulate(m, BLAST_BALANCE_AUTO, starts[s], kNz, kPeriods, seed, f, &b);
        // Where the hybrid gains less than 3 % at the optimum, giving it up is as good.
        const double base = m->dev_all + m->dev_fixed;
        const double wall_opt = fopt * m->dev_all + m->dev_fixed + m->overhead;
        const int may_disable = 1.0 - wall_opt / base < 0.03;
        if (may_disable && b.phase == BLAST_BALANCE_PHASE_DISABLED) {
          TEST_ASSERT(f[kPeriods - 1] == 1.0, "model %zu: disabled but share %.4f", i,
                      f[kPeriods - 1]);
          continue;
        }
        // Converged by period 6 (0-based 5): from some period <= 5 on, every share is
        // within 2 % of the optimum; and no oscillation: at most 3 moves after that.
        int settled = kPeriods;
        while (settled > 0 && fabs(f[settled - 1] - fopt) <= 0.02) settled--;
        TEST_ASSERT(settled <= 5,
                    "model %zu start %.2f seed %u: optimum %.4f, within 2%% for good only from "
                    "period %d (f = "
                    "%.4f %.4f %.4f %.4f %.4f %.4f %.4f)",
                    i, starts[s], seed, fopt, settled, f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
        int moves = 0;
        for (int p = settled + 1; p < kPeriods; p++) moves += f[p] != f[p - 1];
        TEST_ASSERT(moves <= 3, "model %zu start %.2f seed %u: moved %d times after settling", i,
                    starts[s], seed, moves);
        TEST_ASSERT(b.phase == BLAST_BALANCE_PHASE_CONVERGED, "model %zu seed %u: phase %s", i,
                    seed, BlastBalancePhaseName(b.phase));
        if (seed == 1 && s == 0)
          printf(
              "balancer model %zu: optimum %.4f, shares %.4f %.4f %.4f %.4f %.4f %.4f, converged "
              "at period %d\n",
              i, fopt, f[0], f[1], f[2], f[3], f[4], f[5], b.converged_period);
        worst_settle = settled > worst_settle ? settled : worst_settle;
      }
  printf(
      "balancer: all models, starts and seeds settled within 2%% of the optimum by period %d "
      "(0-based)\n",
      worst_settle);
  // A hybrid that costs more than it saves falls back to the device alone.
  {
    const CostModel m = {1.0, 40.0, 0.0, 0.0, 0.1, 0.0};  // 10 % of a step lost to copies
    double f[kPeriods];
    BlastBalancer b;
    Simulate(&m, BLAST_BALANCE_AUTO, 0.9, kNz, kPeriods, 1, f, &b);
    TEST_ASSERT(b.phase == BLAST_BALANCE_PHASE_DISABLED && f[kPeriods - 1] == 1.0,
                "costly hybrid: phase %s, final share %.4f (want disabled, 1)",
                BlastBalancePhaseName(b.phase), f[kPeriods - 1]);
  }
  // The whole run, transient included, is never more than 2 % slower than the device
  // alone, starting from the deck default gpu_fraction = 0.98, for the ratios measured on
  // an H200 against its 16 cores (12x for 3D Q4-Q3 to 57x for 3D Q2-Q1 on the split work,
  // docs/performance.md) and for a slow device: a small first host share can only make
  // the device side shorter. (From 0.9, 3D Q2-Q1 lost 6.5 % over a 60-step run there.)
  {
    const CostModel runs[] = {{1.0, 12.0, 0.0, 0.0, 0.0, 0.03},
                              {1.0, 30.0, 0.0, 0.0, 0.0, 0.03},
                              {1.0, 57.0, 0.0, 0.0, 0.0, 0.03},
                              {1.0, 57.0, 0.02, 0.01, 0.002, 0.03},
                              {2.0, 1.0, 0.0, 0.1, 0.0, 0.02}};
    enum { kRun = 30 };  // 30 periods of 2 steps: a 60-step run
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++)
      for (unsigned seed = 1; seed <= 10; seed++) {
        const CostModel *m = &runs[i];
        BlastBalancer b;
        BlastBalancerInit(&b, BLAST_BALANCE_AUTO, 0.98, kNz);
        unsigned sd = seed;
        double total = 0.0, device_only = 0.0;
        for (int p = 0; p < kRun; p++) {
          const double f = round(b.f * kNz) / kNz;
          const double nd = 1 + Noise(&sd, m->noise), nh = 1 + Noise(&sd, m->noise);
          const double td = f > 0 ? (f * m->dev_all + m->dev_fixed) * nd : 0.0;
          const double th = f < 1 ? ((1 - f) * m->host_all + m->host_fixed) * nh : 0.0;
          const double wall = (td > th ? td : th) + (f < 1 ? m->overhead : 0.0);
          BlastBalancerUpdate(&b, f, td, th, wall);
          total += wall;
          device_only += (m->dev_all + m->dev_fixed) * nd;  // the same period, device alone
        }
        TEST_ASSERT(total <= 1.02 * device_only,
                    "model %zu seed %u: a %d-period run from 0.98 took %.4f of the device-only "
                    "time",
                    i, seed, kRun, total / device_only);
        if (seed == 1)
          printf(
              "balancer: %d-period run from 0.98, host/device %.0f: %.4f of the device-only "
              "time (phase %s, share %.4f)\n",
              kRun, m->host_all / m->dev_all, total / device_only, BlastBalancePhaseName(b.phase),
              b.f);
      }
  }
  // One slow host period long after convergence (a preempted thread: 30 % over the
  // device-only time) neither disables the hybrid nor moves the split (seen on an H200
  // node, 3D Q4-Q3: a period at 1.24x the baseline ended a hybrid that was 7 % faster).
  {
    const CostModel m = {1.0, 12.0, 0.0, 0.0, 0.0, 0.0};
    BlastBalancer b;
    BlastBalancerInit(&b, BLAST_BALANCE_AUTO, 0.9, kNz);
    double f_conv = -1.0;
    for (int p = 0; p < kPeriods; p++) {
      const double f = round(b.f * kNz) / kNz;
      const double td = f * m.dev_all, th = (1 - f) * m.host_all * (p == 20 ? 1.5 : 1.0);
      BlastBalancerUpdate(&b, f, td, th, td > th ? td : th);
      if (p == 15) f_conv = b.f;
    }
    TEST_ASSERT(b.phase == BLAST_BALANCE_PHASE_CONVERGED && b.f == f_conv && f_conv < 1.0,
                "one slow period: phase %s, share %.4f (was %.4f)", BlastBalancePhaseName(b.phase),
                b.f, f_conv);
  }
  // A host too slow for even one zone: device alone.
  {
    const CostModel m = {1.0, 1e7, 0.0, 0.0, 0.0, 0.0};
    double f[kPeriods];
    BlastBalancer b;
    Simulate(&m, BLAST_BALANCE_AUTO, 0.9, 1000, kPeriods, 1, f, &b);
    TEST_ASSERT(f[kPeriods - 1] == 1.0, "hopeless host: final share %.6f", f[kPeriods - 1]);
  }
  // Fixed mode never moves.
  {
    const CostModel m = {1.0, 3.2, 0.0, 0.0, 0.0, 0.05};
    double f[kPeriods];
    BlastBalancer b;
    Simulate(&m, BLAST_BALANCE_FIXED, 0.7, kNz, kPeriods, 1, f, &b);
    int moved = 0;
    for (int p = 0; p < kPeriods; p++) moved |= f[p] != 0.7;
    TEST_ASSERT(!moved, "fixed mode moved");
  }
}

// ---------------------------------------------------------------------------------------
// 2. Split independence with the CPU backend as the device

typedef struct {
  const char *name;
  int dim, n, problem, k, steps;
} Case;

static int Run(const Case *c, BlastMesh mesh, int mode, double f, int period, StepLog *log,
               int *steps) {
  BlastConfig cfg;
  RegressionConfig(&cfg, c->problem);
  cfg.order_kinematic = c->k, cfg.order_thermo = c->k - 1;
  cfg.max_steps = c->steps;
  cfg.cg_tol = 1e-10;
  cfg.balance_mode = mode, cfg.balance_gpu_fraction = f, cfg.balance_period = period;
  BlastHydro h = NULL;
  BlastCall(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  BlastCall(BlastHydroRun(h, LogStep, log));
  BlastBalanceInfo info;
  BlastHydroGetBalance(h, &info);
  *steps = info.periods;
  BlastHydroDestroy(&h);
  return 0;
}

// A restart seeds the auto search with the checkpointed split (BlastHydroSeedBalance):
// the first period after the baseline runs at that split; fixed mode ignores it.
typedef struct {
  BlastHydro h;
  int n;
  double f[16];
} SplitLog;

static int LogSplit(void *user, const BlastStepInfo *info) {
  SplitLog *l = user;
  BlastBalanceInfo b;
  BlastHydroGetBalance(l->h, &b);
  if (!info->rejected && l->n < 16) l->f[l->n++] = b.gpu_fraction;
  return 0;
}

static void SeedTests(void) {
  BlastMesh mesh;
  TEST_CALL(TestUnitBoxMesh(2, 4, &mesh));  // 16 zones: 0.625 = 10 zones, 0.75 = 12
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  cfg.order_kinematic = 2, cfg.order_thermo = 1, cfg.cg_tol = 1e-10;
  cfg.balance_period = 1, cfg.balance_gpu_fraction = 0.75, cfg.max_steps = 5;
  const int modes[] = {BLAST_BALANCE_AUTO, BLAST_BALANCE_FIXED};
  for (int i = 0; i < 2; i++) {
    cfg.balance_mode = modes[i];
    SplitLog log = {NULL, 0, {0}};
    TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &log.h));
    if (!log.h) continue;
    BlastHydroSeedBalance(log.h, 0.625);
    TEST_CALL(BlastHydroRun(log.h, LogSplit, &log));
    int seen_seed = 0, seen_deck = 0;
    for (int k = 0; k < log.n; k++) seen_seed |= log.f[k] == 0.625, seen_deck |= log.f[k] == 0.75;
    // auto: the first split off the device-only start is the seed (where the search then
    // goes depends on the measured times: 0.75, 12 of the 16 zones, is one place it may end)
    double first = 1.0;
    for (int k = 0; k < log.n && first == 1.0; k++) first = log.f[k];
    printf("seeded 0.625, %s mode, deck 0.75: splits per step", i ? "fixed" : "auto");
    for (int k = 0; k < log.n; k++) printf(" %.4f", log.f[k]);
    printf("\n");
    if (modes[i] == BLAST_BALANCE_AUTO)
      TEST_ASSERT(first == 0.625, "auto: the search did not start from the seed (first split %g)",
                  first);
    else
      TEST_ASSERT(seen_deck && !seen_seed, "fixed: the seed must be ignored");
    BlastHydroDestroy(&log.h);
  }
  BlastMeshDestroy(&mesh);
}

static void SplitTests(void) {
  const Case cases[] = {
      {"sedov 2D Q2-Q1", 2, 4, BLAST_PROBLEM_SEDOV, 2, 30},
      {"taylor-green 2D Q3-Q2 (energy source)", 2, 3, BLAST_PROBLEM_TAYLOR_GREEN, 3, 20},
      {"rayleigh-taylor 2D Q2-Q1 (gravity)", 2, 4, BLAST_PROBLEM_RAYLEIGH_TAYLOR, 2, 20},
      {"sedov 3D Q2-Q1", 3, 3, BLAST_PROBLEM_SEDOV, 2, 12},
      {"triple point 3D Q1-Q0", 3, 3, BLAST_PROBLEM_TRIPLE_POINT, 1, 20},
  };
  const struct {
    int mode;
    double f;
    int period;
    const char *what;
  } splits[] = {{BLAST_BALANCE_FIXED, 1.0, 1, "fixed 1.0"},
                {BLAST_BALANCE_FIXED, 0.7, 1, "fixed 0.7"},
                {BLAST_BALANCE_FIXED, 0.0, 1, "fixed 0.0"},
                {BLAST_BALANCE_AUTO, 0.5, 1, "auto"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const Case *c = &cases[i];
    BlastMesh mesh;
    TEST_CALL(TestUnitBoxMesh(c->dim, c->n, &mesh));
    double e0[64], dt0[64];
    StepLog ref = {0, 64, e0, dt0, 0};
    int periods;
    TEST_CALL(Run(c, mesh, BLAST_BALANCE_OFF, 1.0, 1, &ref, &periods));
    for (size_t s = 0; s < sizeof splits / sizeof *splits; s++) {
      double e1[64], dt1[64];
      StepLog log = {0, 64, e1, dt1, 0};
      TEST_CALL(Run(c, mesh, splits[s].mode, splits[s].f, splits[s].period, &log, &periods));
      int same = log.nsteps == ref.nsteps && log.rejected == ref.rejected, first = -1;
      for (int st = 1; st <= ref.nsteps && st < 64 && same; st++)
        if (e1[st] != e0[st] || dt1[st] != dt0[st]) same = 0, first = st;
      TEST_ASSERT(same,
                  "%s, %s: differs from the plain backend (steps %d/%d, first differing step %d)",
                  c->name, splits[s].what, log.nsteps, ref.nsteps, first);
      printf("%-40s %-10s steps %d, |e| %.17g %s the plain backend's%s\n", c->name, splits[s].what,
             log.nsteps, e1[log.nsteps < 64 ? log.nsteps : 63], same ? "=" : "!=",
             splits[s].mode == BLAST_BALANCE_AUTO ? " (split moved between periods)" : "");
      (void)periods;
    }
    BlastMeshDestroy(&mesh);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  BalancerTests();
  SeedTests();
  SplitTests();
  int r = BlastTestFinish("test_hybrid");
  MPI_Finalize();
  return r;
}
