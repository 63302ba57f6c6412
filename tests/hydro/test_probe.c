// The time history's values (hydro/probe.c): mass, momentum and mesh quality against
// hand-computed numbers, and probes in Sod's static region (the initial data there, before
// and after the shock has moved), on the boundary and outside the mesh. Any rank count.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "meshio.h"
#include "probe.h"
#include "regression_common.h"
#include "testlib.h"

// Sod (problem 2): rho = 1, p = 1 left of x = 0.5, rho = 0.1, p = 0.1 right; gamma 1.4.
static void CheckSodPoint(const char *what, const int *found, const double *val, double rho,
                          double p) {
  TEST_ASSERT(found[0] == 1, "%s: the point is found", what);
  TEST_CLOSE(val[BLAST_PROBE_RHO], rho, 1e-13);
  TEST_CLOSE(val[BLAST_PROBE_P], p, 1e-13);
  TEST_CLOSE(val[BLAST_PROBE_E], p / (rho * 0.4), 1e-13);
  for (int c = 0; c < 3; c++)
    TEST_ASSERT(fabs(val[BLAST_PROBE_V + c]) <= 1e-13, "%s: v[%d] = %g", what, c,
                val[BLAST_PROBE_V + c]);
}

static int StopAt(void *user, const BlastStepInfo *info) {
  (void)user, (void)info;
  return 0;
}

// 1D Sod on 64 zones: the totals at t = 0; the run to t = 0.05 (the shock near x = 0.6);
// the probe at x = 0.9 still reads the initial data; mass unchanged.
static void Sod1D(void) {
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SOD);
  cfg.t_final = 0.05;
  const int n[1] = {64};
  const double size[1] = {1.0};
  BlastMesh mesh = NULL;
  TEST_CALL(BlastMeshCreateBox(1, n, size, &mesh));
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (!h) return;
  const BlastSpace *s = BlastHydroGetSpace(h);
  const size_t nx = (size_t)s->h1_nl, ne = (size_t)s->nz * s->l2_nd;
  double *x = malloc(sizeof *x * (nx + 1)), *v = malloc(sizeof *v * (nx + 1)),
         *e = malloc(sizeof *e * (ne + 1));
  TEST_CALL(BlastHydroGetState(h, x, v, e));
  BlastHydroHistory hist;
  TEST_CALL(BlastHydroHistoryValues(h, x, v, &hist));
  TEST_CLOSE(hist.mass, 0.5 * 1.0 + 0.5 * 0.1, 1e-14);
  TEST_ASSERT(hist.momentum[0] == 0.0, "momentum %g at rest", hist.momentum[0]);
  TEST_ASSERT(hist.min_jratio == 1.0, "min det J / det J0 = %.17g on the initial mesh",
              hist.min_jratio);
  TEST_ASSERT(hist.max_aspect == 1.0, "aspect ratio %.17g in 1D", hist.max_aspect);
  // x = 0.9 and 0.25 in the two states, -0.1 and 1.2 outside, 1 on the boundary.
  const double pts[5 * 3] = {0.9, 0, 0, 0.25, 0, 0, -0.1, 0, 0, 1.2, 0, 0, 1.0, 0, 0};
  int found[5];
  double val[5 * BLAST_PROBE_NVAL];
  TEST_CALL(BlastHydroProbe(h, x, v, e, 5, pts, found, val));
  CheckSodPoint("x = 0.9", &found[0], &val[0], 0.1, 0.1);
  CheckSodPoint("x = 0.25", &found[1], &val[BLAST_PROBE_NVAL], 1.0, 1.0);
  TEST_ASSERT(!found[2] && !found[3], "points outside: found %d %d", found[2], found[3]);
  TEST_ASSERT(isnan(val[2 * BLAST_PROBE_NVAL]) && isnan(val[3 * BLAST_PROBE_NVAL]),
              "no values outside");
  CheckSodPoint("x = 1", &found[4], &val[4 * BLAST_PROBE_NVAL], 0.1, 0.1);
  // Locating only, on the initial mesh.
  int found0[5] = {-1, -1, -1, -1, -1};
  TEST_CALL(BlastHydroProbe(h, BlastHydroGetInitialPositions(h), NULL, NULL, 5, pts, found0, NULL));
  TEST_ASSERT(found0[0] && found0[1] && !found0[2] && !found0[3] && found0[4],
              "located %d %d %d %d %d", found0[0], found0[1], found0[2], found0[3], found0[4]);

  TEST_CALL(BlastHydroRun(h, StopAt, NULL));
  double t;
  BlastHydroGetProgress(h, &t, NULL, NULL, NULL);
  TEST_ASSERT(t >= 0.05, "ran to t = %g", t);
  TEST_CALL(BlastHydroGetState(h, x, v, e));
  TEST_CALL(BlastHydroHistoryValues(h, x, v, &hist));
  TEST_CLOSE(hist.mass, 0.55, 1e-14);
  TEST_ASSERT(hist.min_jratio > 0.0 && hist.min_jratio < 0.9,
              "the shock compresses: min det J / det J0 = %g", hist.min_jratio);
  TEST_ASSERT(hist.max_aspect == 1.0, "aspect ratio %.17g in 1D", hist.max_aspect);
  TEST_CALL(BlastHydroProbe(h, x, v, e, 2, pts, found, val));
  CheckSodPoint("x = 0.9 at t = 0.05", &found[0], &val[0], 0.1, 0.1);
  // Behind the rarefaction head (x = 0.5 - 1.18 t ~ 0.44): the gas moves right.
  const double behind[3] = {0.47, 0, 0};
  TEST_CALL(BlastHydroProbe(h, x, v, e, 1, behind, found, val));
  TEST_ASSERT(found[0] && val[BLAST_PROBE_V] > 0.05 && val[BLAST_PROBE_RHO] < 1.0,
              "x = 0.47 at t = 0.05: v = %g, rho = %g", val[BLAST_PROBE_V], val[BLAST_PROBE_RHO]);
  free(x), free(v), free(e);
  BlastHydroDestroy(&h);
  BlastMeshDestroy(&mesh);
}

// 2D box [0,4]x[0,1] on 4x4 zones (1 x 0.25: aspect ratio 4), Sod's data along x.
static void Box2D(void) {
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SOD);
  const int n[2] = {4, 4};
  const double size[2] = {4.0, 1.0};
  BlastMesh mesh = NULL;
  TEST_CALL(BlastMeshCreateBox(2, n, size, &mesh));
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (!h) return;
  BlastHydroHistory hist;
  TEST_CALL(BlastHydroHistoryValues(h, NULL, NULL, &hist));
  TEST_CLOSE(hist.mass, 0.5 * 1.0 + 3.5 * 0.1, 1e-14);
  TEST_ASSERT(hist.min_jratio == 1.0, "min det J / det J0 = %.17g", hist.min_jratio);
  TEST_CLOSE(hist.max_aspect, 4.0, 1e-14);
  TEST_ASSERT(hist.momentum[0] == 0.0 && hist.momentum[1] == 0.0, "no velocity given: 0");
  const BlastSpace *s = BlastHydroGetSpace(h);
  double *x = malloc(sizeof *x * (2 * (size_t)s->h1_nl + 1)),
         *v = malloc(sizeof *v * (2 * (size_t)s->h1_nl + 1)),
         *e = malloc(sizeof *e * ((size_t)s->nz * s->l2_nd + 1));
  TEST_CALL(BlastHydroGetState(h, x, v, e));
  // Inside zones, on a zone corner shared by 4 zones (maybe of several ranks), outside.
  const double pts[4 * 3] = {3.1, 0.3, 0, 0.25, 0.61, 0, 2.0, 0.5, 0, 4.01, 0.5, 0};
  int found[4];
  double val[4 * BLAST_PROBE_NVAL];
  TEST_CALL(BlastHydroProbe(h, x, v, e, 4, pts, found, val));
  CheckSodPoint("(3.1, 0.3)", &found[0], &val[0], 0.1, 0.1);
  CheckSodPoint("(0.25, 0.61)", &found[1], &val[BLAST_PROBE_NVAL], 1.0, 1.0);
  CheckSodPoint("(2, 0.5)", &found[2], &val[2 * BLAST_PROBE_NVAL], 0.1, 0.1);
  TEST_ASSERT(!found[3], "(4.01, 0.5) is outside");
  free(x), free(v), free(e);
  BlastHydroDestroy(&h);
  BlastMeshDestroy(&mesh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Sod1D();
  Box2D();
  const int rc = BlastTestFinish("test_probe");
  MPI_Finalize();
  return rc;
}
