// Probes on meshes of 1e5 zones (hydro/probe.c locates a point among the zones of its bin
// only): Taylor-Green P1-P0 on the unit square of N x N squares split into 2 triangles each
// (N = 224: 100,352 zones), or with argument 3 the unit cube of N^3 cubes split into 6
// tetrahedra each (N = 26: 105,456 zones). On 1 or more ranks.
//   checks: 16 points at random (fixed seed) in the domain are found and read the initial
//     velocity v = (sin pi x cos pi y, -cos pi x sin pi y, 0) (times cos pi z in 3D) to the
//     P1 interpolation error (below pi^2 h^2: 2e-4 in 2D, 1.5e-2 in 3D) and density 1; 4 points
//     outside are not found. The same with the positions sheared, x' = x + 3 y (long, thin zones
//     whose boxes overlap many others) and the points sheared alike: the same points found, with
//     the same values to 1e-10 (the shear keeps det J). The milliseconds of one call are printed.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "meshio.h"
#include "probe.h"
#include "regression_common.h"
#include "testlib.h"

enum { kIn = 16, kOut = 4, kN = kIn + kOut, kCalls = 5 };

static int rank_ = 0;

static double Rand01(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return ((*seed >> 8) & 0xffffff) / (double)0x1000000;
}

// Calls BlastHydroProbe kCalls times; returns the milliseconds of one call (rank 0's).
static double Probe(BlastHydro h, const double *x, const double *v, const double *e,
                    const double *pts, int *found, double *val) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < kCalls; i++) TEST_CALL(BlastHydroProbe(h, x, v, e, kN, pts, found, val));
  return (MPI_Wtime() - t0) / kCalls * 1e3;
}

static void Run(int dim) {
  const int n = dim == 2 ? 224 : 26;
  const int ns[3] = {n, n, n};
  const double size[3] = {1, 1, 1};
  BlastMesh mesh = NULL;
  TEST_CALL(BlastMeshCreateBoxSimplex(dim, ns, size, &mesh));
  if (!mesh) return;
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_TAYLOR_GREEN);
  cfg.order_kinematic = 1, cfg.order_thermo = 0, cfg.print_every = 1 << 30;
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (!h) return;
  const BlastSpace *s = BlastHydroGetSpace(h);
  const size_t nl = (size_t)s->h1_nl, nx = dim * nl, ne = (size_t)s->nz * s->l2_nd;
  double *x = malloc(sizeof(double) * (nx + 1)), *v = malloc(sizeof(double) * (nx + 1)),
         *e = malloc(sizeof(double) * (ne + 1)), *xs = malloc(sizeof(double) * (nx + 1));
  TEST_ASSERT(x && v && e && xs, "out of memory");
  TEST_CALL(BlastHydroGetState(h, x, v, e));
  double pts[3 * kN], spts[3 * kN], val[kN * BLAST_PROBE_NVAL], sval[kN * BLAST_PROBE_NVAL];
  int found[kN], sfound[kN];
  unsigned seed = 12345u;
  for (int i = 0; i < kN; i++)
    for (int c = 0; c < 3; c++) {
      // inside: [0.001, 0.999]; outside: one coordinate at -0.2 or 1.2
      double t = c < dim ? 0.001 + 0.998 * Rand01(&seed) : 0.0;
      if (i >= kIn && c == (i - kIn) % dim) t = (i - kIn) % 2 ? 1.2 : -0.2;
      pts[3 * i + c] = t;
    }
  const double ms = Probe(h, x, v, e, pts, found, val);
  const double pi = acos(-1.0);
  double err = 0.0;
  for (int i = 0; i < kN; i++) {
    const double *p = &pts[3 * i], *w = &val[i * BLAST_PROBE_NVAL];
    TEST_ASSERT(found[i] == (i < kIn), "point %d (%g, %g, %g): found %d", i, p[0], p[1], p[2],
                found[i]);
    if (i >= kIn || !found[i]) continue;
    const double fz = dim == 3 ? cos(pi * p[2]) : 1.0;
    const double ex[3] = {sin(pi * p[0]) * cos(pi * p[1]) * fz,
                          -cos(pi * p[0]) * sin(pi * p[1]) * fz, 0};
    for (int c = 0; c < 3; c++) err = fmax(err, fabs(w[BLAST_PROBE_V + c] - ex[c]));
    TEST_CLOSE(w[BLAST_PROBE_RHO], 1.0, 1e-12);
  }
  const double hz = 1.0 / n;  // P1 interpolation error below pi^2 h^2
  TEST_ASSERT(err < pi * pi * hz * hz, "velocity at the points off the exact one by %.3g", err);
  // Sheared: x' = x + 3 y, the points alike.
  memcpy(xs, x, sizeof(double) * nx);
  for (size_t a = 0; a < nl; a++) xs[a] += 3.0 * x[nl + a];
  memcpy(spts, pts, sizeof spts);
  for (int i = 0; i < kN; i++) spts[3 * i] += 3.0 * pts[3 * i + 1];
  const double sms = Probe(h, xs, v, e, spts, sfound, sval);
  double diff = 0.0;
  for (int i = 0; i < kN; i++) {
    TEST_ASSERT(sfound[i] == found[i], "sheared point %d: found %d, unsheared %d", i, sfound[i],
                found[i]);
    for (int j = 0; found[i] && j < BLAST_PROBE_NVAL; j++)
      diff = fmax(diff, fabs(sval[i * BLAST_PROBE_NVAL + j] - val[i * BLAST_PROBE_NVAL + j]));
  }
  TEST_ASSERT(diff <= 1e-10, "sheared mesh: the values differ by %.3g", diff);
  if (!rank_)
    printf(
        "%dD: %lld zones, %d probes: %.2f ms a call (sheared: %.2f ms), velocity error %.2e, "
        "sheared values off by %.1e\n",
        dim, (long long)BlastHydroGetShape(h).zones, kN, ms, sms, err, diff);
  free(x), free(v), free(e), free(xs);
  BlastHydroDestroy(&h);
  BlastMeshDestroy(&mesh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  const int dim = argc > 1 && atoi(argv[1]) == 3 ? 3 : 2;
  Run(dim);
  const int rc = BlastTestFinish(dim == 3 ? "test_probe_grid_3d" : "test_probe_grid");
  MPI_Finalize();
  return rc;
}
