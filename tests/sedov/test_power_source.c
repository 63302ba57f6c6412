// Power sources ([source.NAME] power, hydro/problems/sources.h): the 2D Taylor-Green
// problem with its built-in heating replaced by the same heating as an expression,
// 3 pi/8 (cos(3 pi x) cos(pi y) - cos(pi x) cos(3 pi y)), integrated on the host, must
// follow the built-in run: the same number of steps, |e| at every step and the velocity
// errors against the exact solution to 1e-12 relative, on both assembly paths. A
// constant power P instead adds P |Omega| t to the total energy (rk2avg conserves it
// exactly otherwise). [exact] velocity gives the built-in's velocity errors (1e-12);
// [exact] density and pressure errors are small on this mesh and absent without [exact].
// Usage: test_power_source (one rank or several).
#include <math.h>
#include <string.h>

#include "backend.h"
#include "blast_mpi.h"
#include "diagnostics.h"
#include "io_test_meshes.h"
#include "regression_common.h"
#include "testlib.h"
#ifdef BLAST_TEST_CUDA
#include "blast_cuda.h"
// The GPU build of this test (tests/gpu): every run on the CUDA backend, and the power
// source's runs also against the CPU backend's, bit for bit.
static const BlastBackendOps *const kOps = &blast_backend_cuda;
#else
static const BlastBackendOps *const kOps = &blast_backend_cpu;
#endif

enum { kMaxSteps = 512 };

static void AddPower(BlastConfig *cfg, const char *text) {
  BlastSourceSpec *s = &cfg->sources[cfg->nsources++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "heating");
  snprintf(s->where, sizeof s->where, "power.ini:4");
  s->kind = BLAST_SOURCE_POWER;
  snprintf(s->power.text, sizeof s->power.text, "%s", text);
  snprintf(s->power.where, sizeof s->power.where, "power.ini:5");
}

typedef struct {
  StepLog log;
  double e[kMaxSteps], dt[kMaxSteps];
  double err[4], field[2], energy0, energy;
} Run;

static void RunOn(const BlastBackendOps *ops, const BlastConfig *cfg, BlastMesh mesh, Run *r) {
  memset(r, 0, sizeof *r);
  r->log = (StepLog){0, kMaxSteps, r->e, r->dt, 0};
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(cfg, mesh, MPI_COMM_WORLD, ops, &h));
  if (!h) return;
  double dt0, en, ie, ke;
  BlastHydroGetInitial(h, &dt0, &r->energy0);
  TEST_CALL(BlastHydroRun(h, LogStep, &r->log));
  TEST_CALL(BlastDiagnosticsExactErrors(h, &r->err[0], &r->err[1], &r->err[2], &r->err[3]));
  TEST_CALL(BlastDiagnosticsExactFieldErrors(h, &r->field[0], &r->field[1]));
  TEST_CALL(BlastHydroNorms(h, &en, &ie, &ke));
  r->energy = ie + ke;
  BlastHydroDestroy(&h);
}

static void RunIt(const BlastConfig *cfg, BlastMesh mesh, Run *r) {
  RunOn(kOps, cfg, mesh, r);
#ifdef BLAST_TEST_CUDA
  if (!cfg->nsources) return;
  static Run c;
  RunOn(&blast_backend_cpu, cfg, mesh, &c);
  int same = r->log.nsteps == c.log.nsteps;
  for (int s = 1; s <= r->log.nsteps && s < kMaxSteps && same; s++) same = r->e[s] == c.e[s];
  TEST_ASSERT(same && r->energy == c.energy,
              "GPU and CPU differ: %d and %d steps, energy %.17g and %.17g", r->log.nsteps,
              c.log.nsteps, r->energy, c.energy);
#endif
}

static double Rel(double a, double b) {
  return fabs(a - b) / fmax(fabs(b), 1e-300);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  BlastMesh mesh;
  TEST_CALL(TestUnitBoxMesh(2, 4, &mesh));
  static Run a, b;
  const int modes[2] = {BLAST_ASSEMBLY_FULL, BLAST_ASSEMBLY_PARTIAL};
  for (int mi = 0; mi < 2; mi++) {
    BlastConfig cfg;
    RegressionConfig(&cfg, BLAST_PROBLEM_TAYLOR_GREEN);
    cfg.t_final = 0.25;
    cfg.mesh_dim = 2;
    cfg.assembly = modes[mi];
    RunIt(&cfg, mesh, &a);
    AddPower(&cfg, "3*pi/8*(cos(3*pi*x)*cos(pi*y)-cos(pi*x)*cos(3*pi*y))");
    // [exact]: the velocity as the built-in's exact solution, density and pressure.
    cfg.exact.nvelocity = 2;
    snprintf(cfg.exact.velocity[0].text, sizeof cfg.exact.velocity[0].text, "sin(pi*x)*cos(pi*y)");
    snprintf(cfg.exact.velocity[1].text, sizeof cfg.exact.velocity[1].text, "-cos(pi*x)*sin(pi*y)");
    snprintf(cfg.exact.density.text, sizeof cfg.exact.density.text, "1");
    snprintf(cfg.exact.pressure.text, sizeof cfg.exact.pressure.text,
             "1+(cos(2*pi*x)+cos(2*pi*y))/4");
    RunIt(&cfg, mesh, &b);
    TEST_ASSERT(isnan(a.field[0]) && isnan(a.field[1]), "mode %d: field errors without [exact]",
                mi);
    // The pressure varies by 1 over the box; the discrete solution stays close on 4x4.
    TEST_ASSERT(b.field[0] >= 0.0 && b.field[0] < 0.05 && b.field[1] >= 0.0 && b.field[1] < 0.05,
                "mode %d: density error %g, pressure error %g", mi, b.field[0], b.field[1]);
    printf("mode %d: [exact] density L2 error %.6e, pressure L2 error %.6e\n", mi, b.field[0],
           b.field[1]);
    TEST_ASSERT(a.log.nsteps == b.log.nsteps && a.log.nsteps > 5, "mode %d: %d vs %d steps", mi,
                a.log.nsteps, b.log.nsteps);
    double worst = 0.0;
    for (int s = 1; s <= a.log.nsteps && s < kMaxSteps; s++)
      worst = fmax(worst, Rel(b.e[s], a.e[s]));
    TEST_ASSERT(worst <= 1e-12, "mode %d: |e| differs by %.3e relative", mi, worst);
    for (int k = 1; k < 4; k++)
      TEST_ASSERT(Rel(b.err[k], a.err[k]) <= 1e-12, "mode %d: velocity error %d: %.17g vs %.17g",
                  mi, k, b.err[k], a.err[k]);
    printf("mode %d: %d steps, |e| within %.2e, velocity L2 error %.12e vs built-in %.12e\n", mi,
           a.log.nsteps, worst, b.err[3], a.err[3]);
    // A constant power instead, with rk2avg (which conserves the total energy exactly):
    // the total energy grows by P |Omega| t, |Omega| = 1 (walls all round).
    RegressionConfig(&cfg, BLAST_PROBLEM_TAYLOR_GREEN);
    cfg.t_final = 0.25;
    cfg.mesh_dim = 2;
    cfg.assembly = modes[mi];
    cfg.ode_solver = BLAST_ODE_RK2AVG;
    cfg.nsources = 0;
    memset(&cfg.exact, 0, sizeof cfg.exact);
    AddPower(&cfg, "2.5");
    RunIt(&cfg, mesh, &b);
    const double gain = b.energy - b.energy0;
    TEST_ASSERT(fabs(gain - 2.5 * 0.25) <= 1e-13,
                "mode %d: constant power added %.17g, expected %.17g", mi, gain, 2.5 * 0.25);
    printf("mode %d: constant power 2.5 for t = 0.25 added %.15f\n", mi, gain);
  }
  BlastMeshDestroy(&mesh);
  const int r = BlastTestFinish("test_power_source");
  MPI_Finalize();
  return r;
}
