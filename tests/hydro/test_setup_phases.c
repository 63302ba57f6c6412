// The setup's named phases and its one cleanup path: BlastHydroCreate is made
// to fail after each phase in turn (BlastHydroSetupFailAtForTest, on the last rank only, so
// that on several ranks the others learn it through the setup's agreement). Each failure
// must return the forced error code on every rank, with the same message naming the phase,
// leave no object behind, and leak nothing: under LeakSanitizer (tools/ci-sanitize) a
// single unfreed temporary or member fails the process at exit. A real rejection by the
// initial geometry (an inverted zone) is checked the same way, and a create after all of
// them still gives the reference object. Run on 1 and 2 ranks.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blast_mpi.h"
#include "regression_common.h"
#include "testlib.h"

static int g_rank, g_nranks;

// The unit square in n x n zones with the spec's boundary attributes; `tangle`: the first
// interior vertex is moved beyond the far corner of its zone (1, 1), which inverts it.
static int SquareMesh(int n, int tangle, BlastMesh *mesh) {
  const int nv = (n + 1) * (n + 1), nzn = n * n;
  double *coords = malloc(sizeof(double) * 2 * nv);
  int *zv = malloc(sizeof(int) * 4 * nzn), *bv = malloc(sizeof(int) * 2 * 4 * n);
  int *ba = malloc(sizeof(int) * 4 * n), nb = 0;
  for (int v = 0; v < nv; v++)
    coords[2 * v] = (double)(v % (n + 1)) / n, coords[2 * v + 1] = (double)(v / (n + 1)) / n;
  if (tangle) coords[2 * (n + 2)] = coords[2 * (n + 2) + 1] = 2.9 / n;
  for (int z = 0; z < nzn; z++) {
    const int i[2] = {z % n, z / n};
    for (int c = 0; c < 4; c++) zv[4 * z + c] = (i[0] + (c & 1)) + (i[1] + (c >> 1)) * (n + 1);
    for (int g = 0; g < 2; g++)
      for (int s = 0; s < 2; s++) {
        if (i[g] != (s ? n - 1 : 0)) continue;
        int k = 0;
        for (int c = 0; c < 4; c++)
          if (((c >> g) & 1) == s) bv[2 * nb + k++] = zv[4 * z + c];
        ba[nb++] = g + 1;
      }
  }
  const int ierr = BlastMeshCreate(2, nv, coords, nzn, zv, NULL, nb, bv, ba, mesh);
  free(coords), free(zv), free(bv), free(ba);
  return ierr;
}

// A failed create: the code on every rank, no object, the same message everywhere with
// `what` in it; the error is cleared.
static void CheckFailedCreate(const char *name, int ierr, BlastHydro h, int code,
                              const char *what) {
  const char *msg = BlastErrorMessage();
  TEST_ASSERT(ierr == code, "%s: BlastHydroCreate returned %d, expected %d (%s)", name, ierr,
              code, msg);
  TEST_ASSERT(h == NULL, "%s: an object was returned", name);
  TEST_ASSERT(BlastErrorCollective() == BLAST_COLLECTIVE_SAME, "%s: collective level %d", name,
              (int)BlastErrorCollective());
  TEST_ASSERT(strstr(msg, what) != NULL, "%s: message lacks \"%s\": %s", name, what, msg);
  TEST_ASSERT(BlastTestSameMessageEverywhere(msg), "%s: the ranks' messages differ", name);
  if (g_nranks > 1 && code == BLAST_ERR_MEM) {
    char on[64];
    snprintf(on, sizeof on, "(on rank %d; 1 of %d ranks failed)", g_nranks - 1, g_nranks);
    TEST_ASSERT(strstr(msg, on) != NULL, "%s: message lacks \"%s\": %s", name, on, msg);
  }
  BlastErrorClear();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_nranks);
  BlastErrorSetRank(g_rank);
  BlastMesh mesh = NULL, tangled = NULL;
  TEST_CALL(SquareMesh(4, 0, &mesh));
  TEST_CALL(SquareMesh(4, 1, &tangled));
  // Sedov (the collective deposit) with RK6 (the integrator's largest scratch).
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  cfg.ode_solver = BLAST_ODE_RK6;
  cfg.max_steps = 3;

  // The phases: a count, distinct names.
  const int np = BlastHydroSetupPhaseCount();
  TEST_ASSERT(np >= 10, "only %d setup phases", np);
  for (int p = 0; p < np; p++) {
    const char *name = BlastHydroSetupPhaseName(p);
    TEST_ASSERT(name && name[0], "phase %d has no name", p);
    for (int q = 0; q < p && name; q++)
      TEST_ASSERT(strcmp(name, BlastHydroSetupPhaseName(q)), "phases %d and %d are both '%s'", q,
                  p, name);
  }
  TEST_ASSERT(BlastHydroSetupPhaseName(np) == NULL && BlastHydroSetupPhaseName(-1) == NULL,
              "names out of range");
  TEST_ASSERT(BlastHydroSetupFailAtForTest(np, 0) == BLAST_ERR_ARG, "phase %d refused", np);
  TEST_ASSERT(BlastHydroSetupFailAtForTest(-2, 0) == BLAST_ERR_ARG, "phase -2 refused");
  BlastErrorClear();

  // The reference object.
  BlastHydro h = NULL;
  double dt0_ref = 0.0, energy0_ref = 0.0, e_ref = 0.0;
  const double create_start = MPI_Wtime();
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  const double create_seconds = MPI_Wtime() - create_start;
  if (h) {
    // Every phase was timed: non-negative seconds that add up to no more than the create;
    // CPU seconds likewise (Linux has the clock); the peak RSS (the process's, more than a
    // megabyte) only grows.
    double sum = 0.0;
    for (int p = 0; p < np; p++) {
      const double sec = BlastHydroSetupPhaseSeconds(h, p);
      const double cpu = BlastHydroSetupPhaseCpuSeconds(h, p);
      const double rss = BlastHydroSetupPhasePeakRss(h, p);
      TEST_ASSERT(sec >= 0.0 && sec < 60.0, "phase %d took %g s", p, sec);
      TEST_ASSERT(cpu >= 0.0 && cpu < 600.0, "phase %d took %g CPU s", p, cpu);
      TEST_ASSERT(rss > 1e6 && (p == 0 || rss >= BlastHydroSetupPhasePeakRss(h, p - 1)),
                  "peak RSS %g bytes after phase %d", rss, p);
      sum += sec;
    }
    TEST_ASSERT(sum > 0.0 && sum <= create_seconds, "phases %g s, create %g s", sum,
                create_seconds);
    TEST_ASSERT(BlastHydroSetupPhaseSeconds(h, np) == 0.0 &&
                    BlastHydroSetupPhaseSeconds(h, -1) == 0.0 &&
                    BlastHydroSetupPhaseCpuSeconds(h, np) == 0.0 &&
                    BlastHydroSetupPhasePeakRss(h, -1) == 0.0,
                "times of phases out of range");
    BlastHydroGetInitial(h, &dt0_ref, &energy0_ref);
    TEST_CALL(BlastHydroRun(h, NULL, NULL));
    TEST_CALL(BlastHydroENorm(h, &e_ref));
    BlastHydroDestroy(&h);
  }

  // Every phase fails in turn, on the last rank.
  int forced = 0;
  for (int p = 0; p < np; p++) {
    char name[128], what[160];
    snprintf(name, sizeof name, "phase %d (%s)", p + 1, BlastHydroSetupPhaseName(p));
    snprintf(what, sizeof what, "setup phase %d of %d (%s)", p + 1, np,
             BlastHydroSetupPhaseName(p));
    TEST_CALL(BlastHydroSetupFailAtForTest(p, g_nranks - 1));
    h = NULL;
    const int ierr = BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h);
    if (!ierr) {
      TEST_ASSERT(0, "%s: could not be made to fail", name);
      BlastHydroDestroy(&h);
      continue;
    }
    forced++;
    CheckFailedCreate(name, ierr, h, BLAST_ERR_MEM, what);
  }
  TEST_ASSERT(forced == np, "%d of %d phases failed when told to", forced, np);

  // The hook disarms itself: the next create is the reference again, bit for bit.
  h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (h) {
    double dt0, energy0, e;
    BlastHydroGetInitial(h, &dt0, &energy0);
    TEST_CALL(BlastHydroRun(h, NULL, NULL));
    TEST_CALL(BlastHydroENorm(h, &e));
    TEST_ASSERT(dt0 == dt0_ref && energy0 == energy0_ref && e == e_ref,
                "after the failures: dt0 %.17g energy0 %.17g |e| %.17g, expected %.17g %.17g "
                "%.17g",
                dt0, energy0, e, dt0_ref, energy0_ref, e_ref);
    BlastHydroDestroy(&h);
  }

  // A real failure of the geometry phase: the inverted zone is named, nothing leaks.
  h = NULL;
  const int ierr = BlastHydroCreate(&cfg, tangled, MPI_COMM_WORLD, &blast_backend_cpu, &h);
  CheckFailedCreate("inverted zone", ierr, h, BLAST_ERR_INPUT,
                    "has a non-positive Jacobian determinant");

  BlastMeshDestroy(&tangled);
  BlastMeshDestroy(&mesh);
  const int r = BlastTestFinish("test_setup_phases");
  MPI_Finalize();
  return r;
}
