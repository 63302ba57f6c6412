// Sedov's blast wave on triangles and tetrahedra (CPU, full assembly): the unit square of
// n x n box zones split into 2 triangles each, or the unit cube of n^3 split into 6
// tetrahedra each ([mesh] generator = box_simplex), the built-in Sedov deposit at the
// origin (energy 1 in the whole plane / space: 1/4 in the quarter, 1/8 in the octant),
// walls on every face, P2-P1, rk2avg, cfl 0.5, to t = 0.6:
//   - the total energy at t = 0.6 equals the initial one to round-off (1e-12 relative);
//   - the shock radius (the shell-averaged density, probed on 12 directions in 2D, 144 in
//     3D, crossing half way from 1 to its peak, as test_sedov_disc measures it) is within
//     3 % of the exact solution's (hydro/problems/sedov_exact.h, gamma 1.4).
// The same on a mesh file (a Gmsh quarter disc of triangles or octant of the unit ball of
// tetrahedra, tests/hydro/geo/quarter_disc_tri.geo, octant_ball_tet.geo: a vertex at the
// origin, walls on the cut planes, attributes 1..DIM, and on the rim, attribute DIM + 1).
// Usage: test_simplex_sedov DIM N | test_simplex_sedov DIM file PATH
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "meshio.h"
#include "probe.h"
#include "problems/sedov_exact.h"
#include "regression_common.h"
#include "testlib.h"

static int rank_ = 0;

static void Sedov(int dim, int n, const char *path) {
  BlastMesh mesh = NULL;
  const int nn[3] = {n, n, n};
  const double size[3] = {1.0, 1.0, 1.0};
  if (path)
    TEST_CALL(BlastMeshRead(path, &mesh));
  else
    TEST_CALL(BlastMeshCreateBoxSimplex(dim, nn, size, &mesh));
  if (!mesh) return;
  TEST_ASSERT(BlastMeshDim(mesh) == dim, "the mesh has dimension %d, not %d", BlastMeshDim(mesh),
              dim);
  const double E = 1.0, t_final = 0.6, wall0 = MPI_Wtime();
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  cfg.mesh_dim = dim, cfg.t_final = t_final, cfg.ode_solver = BLAST_ODE_RK2AVG;
  cfg.blast_energy = E, cfg.print_every = 1 << 30;  // cg_tol 1e-14: energy to round-off
  cfg.nboundaries = 1;
  BlastBoundarySpec *walls = &cfg.boundaries[0];
  snprintf(walls->name, sizeof walls->name, "walls");
  snprintf(walls->where, sizeof walls->where, "test_simplex_sedov:1");
  walls->type = BLAST_BOUNDARY_WALL, walls->nattr = path ? dim + 1 : dim;
  for (int a = 0; a < walls->nattr; a++) walls->attr[a] = a + 1;
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (h) {
    double dt0, energy0, en, ie, ke, t, dt;
    int steps, attempts;
    BlastHydroGetInitial(h, &dt0, &energy0);
    TEST_CLOSE(energy0, dim == 2 ? E / 4 : E / 8, 1e-14);
    TEST_CALL(BlastHydroRun(h, NULL, NULL));
    BlastHydroGetProgress(h, &t, &dt, &steps, &attempts);
    TEST_CALL(BlastHydroNorms(h, &en, &ie, &ke));
    TEST_ASSERT(fabs(t - t_final) <= 1e-12, "stopped at t = %.17g", t);
    TEST_ASSERT(fabs(ie + ke - energy0) <= 1e-12 * energy0, "total energy %.17g, initial %.17g",
                ie + ke, energy0);
    // The shock radius as test_sedov_disc measures it: the density averaged over shells
    // (kN radii up to rmax, each sampled on kD directions evenly spread over the quarter /
    // octant: 3D in equal-area cells of cos(theta) and phi), where the mean crosses half way
    // from 1 to its peak, outermost crossing, interpolated linearly between radii.
    enum { kN = 160, kM = 12, kD = kM * kM };
    const double rmax = 0.96, half_pi = 0.5 * acos(-1.0);
    const BlastSpace *s = BlastHydroGetSpace(h);
    const size_t nx = (size_t)dim * s->h1_nl, ne = (size_t)s->nz * s->l2_nd;
    double *x = malloc(sizeof(double) * (nx + 1)), *v = malloc(sizeof(double) * (nx + 1)),
           *e = malloc(sizeof(double) * (ne + 1)), *pts = calloc(3 * kN * kD, sizeof(double)),
           *val = malloc(sizeof(double) * BLAST_PROBE_NVAL * kN * kD);
    int *found = malloc(sizeof(int) * kN * kD);
    TEST_ASSERT(x && v && e && pts && val && found, "out of memory");
    if (!(x && v && e && pts && val && found)) return;
    TEST_CALL(BlastHydroGetState(h, x, v, e));
    const int ndir = dim == 2 ? kM : kD;
    for (int d = 0; d < ndir; d++) {
      double u[3];
      if (dim == 2) {
        const double phi = (d + 0.5) / kM * half_pi;
        u[0] = cos(phi), u[1] = sin(phi), u[2] = 0.0;
      } else {
        const double mu = (d / kM + 0.5) / kM, phi = (d % kM + 0.5) / kM * half_pi;
        const double st = sqrt(1.0 - mu * mu);
        u[0] = st * cos(phi), u[1] = st * sin(phi), u[2] = mu;
      }
      for (int i = 0; i < kN; i++)
        for (int g = 0; g < 3; g++) pts[3 * (d * kN + i) + g] = rmax * (i + 0.5) / kN * u[g];
    }
    TEST_CALL(BlastHydroProbe(h, x, v, e, kN * ndir, pts, found, val));
    double mean[kN], peak = 0.0;
    int missing = 0;
    for (int i = 0; i < kN; i++) {
      double sum = 0.0;
      for (int d = 0; d < ndir; d++) {
        missing += !found[d * kN + i];
        sum += val[(d * kN + i) * BLAST_PROBE_NVAL];
      }
      mean[i] = sum / ndir;
      peak = fmax(peak, mean[i]);
    }
    TEST_ASSERT(!missing, "%d probes outside the mesh", missing);
    const double half = 0.5 * (1.0 + peak);
    double r_num = NAN;
    for (int i = kN - 1; i > 0 && isnan(r_num); i--)
      if (mean[i - 1] >= half && mean[i] < half)
        r_num = rmax * (i - 0.5 + (mean[i - 1] - half) / (mean[i - 1] - mean[i])) / kN;
    BlastSedov sedov = NULL;
    TEST_CALL(BlastSedovCreate(dim, 1.4, E, 1.0, &sedov));
    const double r_exact = sedov ? BlastSedovShockRadius(sedov, t) : NAN;
    const double rel = (r_num - r_exact) / r_exact;
    TEST_ASSERT(fabs(rel) <= 0.03, "shock radius %.4f, exact %.4f (%+.2f %%)", r_num, r_exact,
                100 * rel);
    if (!rank_)
      printf("sedov %dD: shock radius %.4f, exact %.4f (%+.2f %%), peak mean density %.3f\n", dim,
             r_num, r_exact, 100 * rel, peak);
    if (!rank_)
      printf(
          "sedov %dD: %lld %s, %d steps (%d attempts), total energy %.17g (initial %.17g, "
          "relative change %.2e), %.1f s\n",
          dim, (long long)s->nz_global, dim == 2 ? "triangles" : "tetrahedra", steps, attempts,
          ie + ke, energy0, (ie + ke - energy0) / energy0, MPI_Wtime() - wall0);
    BlastSedovDestroy(&sedov);
    free(x), free(v), free(e), free(pts), free(val), free(found);
    BlastHydroDestroy(&h);
  }
  BlastMeshDestroy(&mesh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  const int file = argc == 4 && !strcmp(argv[2], "file");
  if ((argc != 3 && !file) || (atoi(argv[1]) != 2 && atoi(argv[1]) != 3) ||
      (!file && atoi(argv[2]) < 1)) {
    fprintf(stderr, "usage: test_simplex_sedov DIM N | test_simplex_sedov DIM file PATH\n");
    MPI_Finalize();
    return 2;
  }
  Sedov(atoi(argv[1]), file ? 0 : atoi(argv[2]), file ? argv[3] : NULL);
  const int r = BlastTestFinish("test_simplex_sedov");
  MPI_Finalize();
  return r;
}
