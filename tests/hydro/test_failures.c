// Numerical failures in the time loop: a non-finite value in the state, a
// velocity solve that reaches cg_max_iter, and a time-step collapse each end
// BlastHydroRun with BLAST_ERR_NUMERIC on every rank, with the same message everywhere
// (collective SAME, naming the step), and leave the object at the last accepted state:
// state bit for bit, t, dt, accepted steps and attempts as right after that step. After a
// one-off non-finite value the run can go on from there and ends exactly as a run that
// never failed. Run on 1 and 2 ranks (the fault is put on the last rank).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blast_mpi.h"
#include "io_test_meshes.h"
#include "regression_common.h"
#include "testlib.h"

static int g_rank, g_nranks;

// What the step callback records: the last accepted step (state and progress), the first
// rejected attempt, and the test fault to arm.
typedef struct {
  BlastHydro h;
  size_t nx, ne;
  double *x, *v, *e;  // state after the last accepted step (host)
  int step, attempts;
  double t, dt;
  int rej_step;  // first rejected attempt: its step and dt (0: none)
  double rej_dt;
  int poison_step, quantity, comp;  // arm BlastHydroPoisonForTest after this accepted step
  double value;
} Record;

static int OnStep(void *user, const BlastStepInfo *info) {
  Record *r = user;
  if (info->rejected) {
    if (!r->rej_step) r->rej_step = info->step, r->rej_dt = info->dt_used;
    return 0;
  }
  r->step = info->step, r->attempts = info->attempts, r->t = info->t, r->dt = info->dt;
  BlastCall(BlastHydroGetState(r->h, r->x, r->v, r->e));
  if (info->step == r->poison_step && g_rank == g_nranks - 1)
    BlastCall(BlastHydroPoisonForTest(r->h, r->quantity, r->comp, r->value));
  return 0;
}

static void RecordInit(Record *r, BlastHydro h) {
  memset(r, 0, sizeof *r);
  r->h = h;
  const BlastSpace *s = BlastHydroGetSpace(h);
  r->nx = (size_t)s->dim * (size_t)s->h1_nl, r->ne = (size_t)s->nz * (size_t)s->l2_nd;
  r->x = malloc(r->nx * sizeof *r->x), r->v = malloc(r->nx * sizeof *r->v);
  r->e = malloc(r->ne * sizeof *r->e);
  // Before any step the "last accepted state" is the initial one.
  TEST_CALL(BlastHydroGetState(h, r->x, r->v, r->e));
  BlastHydroGetProgress(h, &r->t, &r->dt, &r->step, &r->attempts);
}

static void RecordFree(Record *r) {
  free(r->x), free(r->v), free(r->e);
}

// A CPU hydro object of cfg on mesh, recorded in r (NULL, r untouched, if it fails).
static BlastHydro CreateRecorded(const BlastConfig *cfg, BlastMesh mesh, Record *r) {
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (h) RecordInit(r, h);
  return h;
}

// Frees r and destroys its hydro object.
static void DestroyRecorded(Record *r) {
  RecordFree(r);
  BlastHydroDestroy(&r->h);
}

// The failed run's error and the object it left: `what` must be in the message, the
// reported step is the one after the last accepted one, and h holds that step's state.
static void CheckFailure(const char *name, int ierr, BlastHydro h, const Record *r,
                         const char *what) {
  const char *msg = BlastErrorMessage();
  TEST_ASSERT(ierr == BLAST_ERR_NUMERIC, "%s: BlastHydroRun returned %d, expected %d", name, ierr,
              BLAST_ERR_NUMERIC);
  TEST_ASSERT(BlastErrorCollective() == BLAST_COLLECTIVE_SAME, "%s: collective level %d", name,
              (int)BlastErrorCollective());
  TEST_ASSERT(strstr(msg, what) != NULL, "%s: message lacks \"%s\": %s", name, what, msg);
  char at[64];
  snprintf(at, sizeof at, "at step %d (attempt ", r->step + 1);
  TEST_ASSERT(strstr(msg, at) != NULL, "%s: message lacks \"%s\": %s", name, at, msg);
  TEST_ASSERT(BlastTestSameMessageEverywhere(msg), "%s: the ranks' messages differ", name);
  double t, dt;
  int steps, attempts;
  BlastHydroGetProgress(h, &t, &dt, &steps, &attempts);
  TEST_ASSERT(steps == r->step && attempts == r->attempts && t == r->t && dt == r->dt,
              "%s: progress steps %d attempts %d t %.17g dt %.17g, expected the last accepted "
              "step's %d %d %.17g %.17g",
              name, steps, attempts, t, dt, r->step, r->attempts, r->t, r->dt);
  double *x = malloc(r->nx * sizeof *x), *v = malloc(r->nx * sizeof *v),
         *e = malloc(r->ne * sizeof *e);
  TEST_CALL(BlastHydroGetState(h, x, v, e));
  const int same = !memcmp(x, r->x, r->nx * sizeof *x) && !memcmp(v, r->v, r->nx * sizeof *v) &&
                   !memcmp(e, r->e, r->ne * sizeof *e);
  TEST_ASSERT(same, "%s: the state is not the last accepted state (step %d) bit for bit", name,
              r->step);
  free(x), free(v), free(e);
  if (g_rank == 0 && strcmp(name, "cg at step 1")) printf("%s: %s\n", name, msg);
  BlastErrorClear();
}

// Sedov on 4x4 zones, 40 attempts: several rejections, many CG iterations.
static void SedovConfig(BlastConfig *cfg) {
  RegressionConfig(cfg, BLAST_PROBLEM_SEDOV);
  cfg->cg_tol = 1e-10;
  cfg->max_steps = 40;
}

// The final |e|, steps, attempts and dt of a run from h's current state.
typedef struct {
  double e_norm, t, dt;
  int steps, attempts;
} Final;

static Final FinalOf(BlastHydro h) {
  Final f;
  TEST_CALL(BlastHydroENorm(h, &f.e_norm));
  BlastHydroGetProgress(h, &f.t, &f.dt, &f.steps, &f.attempts);
  return f;
}

// A NaN or Inf written into one state entry at step 4: reported at step 4 with the
// quantity, the run goes on from step 3 and ends as the reference.
static void TestNonFinite(BlastMesh mesh, const Final *ref, int quantity, int comp, double value,
                          const char *what) {
  BlastConfig cfg;
  SedovConfig(&cfg);
  Record r;
  BlastHydro h = CreateRecorded(&cfg, mesh, &r);
  if (!h) return;
  r.poison_step = 3, r.quantity = quantity, r.comp = comp, r.value = value;
  const int ierr = BlastHydroRun(h, OnStep, &r);
  char name[64];
  snprintf(name, sizeof name, "non-finite %s", what);
  CheckFailure(name, ierr, h, &r, what);
  // Resume: the poison was one-off, so the run ends exactly as the reference.
  r.poison_step = 0;
  TEST_CALL(BlastHydroRun(h, OnStep, &r));
  const Final f = FinalOf(h);
  TEST_ASSERT(f.steps == ref->steps && f.attempts == ref->attempts && f.t == ref->t &&
                  f.dt == ref->dt && f.e_norm == ref->e_norm,
              "%s: resumed run ends at steps %d attempts %d t %.17g dt %.17g |e| %.17g, the "
              "reference at %d %d %.17g %.17g %.17g",
              name, f.steps, f.attempts, f.t, f.dt, f.e_norm, ref->steps, ref->attempts, ref->t,
              ref->dt, ref->e_norm);
  DestroyRecorded(&r);
}

// The message names rank and zone: checked on the message itself before it is cleared.
static void TestNonFiniteMessage(BlastMesh mesh) {
  BlastConfig cfg;
  SedovConfig(&cfg);
  Record r;
  BlastHydro h = CreateRecorded(&cfg, mesh, &r);
  if (!h) return;
  r.poison_step = 2, r.quantity = 1, r.comp = 1, r.value = NAN;
  const int ierr = BlastHydroRun(h, OnStep, &r);
  TEST_ASSERT(ierr == BLAST_ERR_NUMERIC, "returned %d", ierr);
  char want[128];
  snprintf(
      want, sizeof want,
      "non-finite velocity (y component, value nan) at step 3 (attempt %d), t = ", r.attempts + 1);
  TEST_ASSERT(strstr(BlastErrorMessage(), want) != NULL, "message lacks \"%s\": %s", want,
              BlastErrorMessage());
  snprintf(want, sizeof want, "on rank %d in zone ", g_nranks - 1);
  TEST_ASSERT(strstr(BlastErrorMessage(), want) != NULL, "message lacks \"%s\": %s", want,
              BlastErrorMessage());
  snprintf(want, sizeof want, "1 non-finite value(s) on 1 of %d rank(s)", g_nranks);
  TEST_ASSERT(strstr(BlastErrorMessage(), want) != NULL, "message lacks \"%s\": %s", want,
              BlastErrorMessage());
  BlastErrorClear();
  DestroyRecorded(&r);
}

// The smallest cg_max_iter that the run does not survive, as long as the failure comes
// after step 1 (so that the last accepted state is not the initial one).
static void TestCgLimit(BlastMesh mesh, int ode_solver) {
  int tried = 0, failed_late = 0;
  for (int it = 1; it <= 60 && !failed_late; it++) {
    BlastConfig cfg;
    SedovConfig(&cfg);
    cfg.ode_solver = ode_solver;
    cfg.cg_max_iter = it;
    Record r;
    BlastHydro h = CreateRecorded(&cfg, mesh, &r);
    if (!h) return;
    const int ierr = BlastHydroRun(h, OnStep, &r);
    tried++;
    if (ierr && r.step >= 1) {
      char name[64];
      snprintf(name, sizeof name, "cg_max_iter = %d (ode %d)", it, ode_solver);
      char what[64];
      snprintf(what, sizeof what, "reached [solver] cg_max_iter = %d iterations", it);
      CheckFailure(name, ierr, h, &r, what);
      failed_late = 1;
    } else if (ierr) {
      // At step 1: the last accepted state is the initial one.
      CheckFailure("cg at step 1", ierr, h, &r, "the velocity solve did not converge");
    }
    DestroyRecorded(&r);
    if (!ierr) break;  // converges from here on
  }
  TEST_ASSERT(failed_late, "no cg_max_iter in 1..%d failed after step 1", tried);
}

// A time-step collapse at the first rejection: dt_min between its dt and 0.85 dt.
static void TestDtCollapse(BlastMesh mesh) {
  BlastConfig cfg;
  SedovConfig(&cfg);
  Record r;
  BlastHydro h = CreateRecorded(&cfg, mesh, &r);
  if (!h) return;
  TEST_CALL(BlastHydroRun(h, OnStep, &r));
  const int rej_step = r.rej_step;
  const double rej_dt = r.rej_dt;
  DestroyRecorded(&r);
  TEST_ASSERT(rej_step >= 2, "the Sedov run has a rejection after step 1 (first at step %d)",
              rej_step);
  if (rej_step < 2) return;
  cfg.dt_min = 0.9 * rej_dt;
  h = CreateRecorded(&cfg, mesh, &r);
  if (!h) return;
  const int ierr = BlastHydroRun(h, OnStep, &r);
  TEST_ASSERT(r.step == rej_step - 1, "the collapse comes at step %d, after step %d", rej_step,
              r.step);
  CheckFailure("dt collapse", ierr, h, &r, "fell below dt_min");
  DestroyRecorded(&r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_nranks);
  BlastErrorSetRank(g_rank);
  BlastMesh mesh;
  TEST_CALL(TestUnitBoxMesh(2, 4, &mesh));
  // The reference: the same run without a fault.
  BlastConfig cfg;
  SedovConfig(&cfg);
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  Final ref = {0, 0, 0, 0, 0};
  if (h) {
    TEST_CALL(BlastHydroRun(h, NULL, NULL));
    ref = FinalOf(h);
    BlastHydroDestroy(&h);
  }
  TestNonFinite(mesh, &ref, 2, 0, NAN, "specific internal energy");
  TestNonFinite(mesh, &ref, 1, 1, HUGE_VAL, "velocity (y component, value inf)");
  TestNonFinite(mesh, &ref, 0, 0, NAN, "position (x component, value nan)");
  TestNonFiniteMessage(mesh);
  TestCgLimit(mesh, BLAST_ODE_RK4);
  TestCgLimit(mesh, BLAST_ODE_RK6);  // a failed stage; its stage vectors (made at setup) stay
  TestDtCollapse(mesh);
  // Bad arguments of the test hook.
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (h) {
    TEST_ASSERT(BlastHydroPoisonForTest(h, 3, 0, NAN) == BLAST_ERR_ARG, "quantity 3 refused");
    TEST_ASSERT(BlastHydroPoisonForTest(h, 1, 2, NAN) == BLAST_ERR_ARG,
                "component z in 2D refused");
    BlastErrorClear();
    BlastHydroDestroy(&h);
  }
  BlastMeshDestroy(&mesh);
  int r = BlastTestFinish("test_failures");
  MPI_Finalize();
  return r;
}
