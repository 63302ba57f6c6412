// Sedov's blast wave on triangles and tetrahedra (CPU, full assembly): the unit square of
// n x n box zones split into 2 triangles each, or the unit cube of n^3 split into 6
// tetrahedra each ([mesh] generator = box_simplex), the built-in Sedov deposit at the
// origin (energy 1 in the whole plane / space: 1/4 in the quarter, 1/8 in the octant),
// walls on every face, P2-P1, rk2avg, cfl 0.5, to t = 0.6:
//   - the total energy at t = 0.6 equals the initial one to round-off (1e-12 relative);
//   - the shock radius (zone densities binned by centroid radius, where the bins' mean
//     crosses half way from 1 to its peak, as test_sedov_disc measures it) is within 3 % of
//     the exact solution's (hydro/problems/sedov_exact.h, gamma 1.4).
// The same on a mesh file (a Gmsh quarter disc of triangles or octant of the unit ball of
// tetrahedra, tests/hydro/geo/quarter_disc_tri.geo, octant_ball_tet.geo: a vertex at the
// origin, walls on the cut planes, attributes 1..DIM, and on the rim, attribute DIM + 1).
// And on a Gmsh unit square of quadrilaterals (x < 1/2) and triangles (x > 1/2)
// (square_mixed.geo: walls y = 0, x = 0, the rest: attributes 1, 2, 3).
// Usage: test_simplex_sedov DIM N | test_simplex_sedov DIM file PATH
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "meshio.h"
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
    // The shock radius as test_sedov_disc measures it: zone densities (the initial volume
    // over the current one: density 1 at the start), binned by the radius of the zone's
    // centroid (kBins bins over [0, 1]), where the bins' mean density crosses half way from
    // 1 to its peak, outermost crossing, interpolated linearly between bin centres.
    const int kBins = dim == 2 ? 50 : 30;
    const BlastSpace *s = BlastHydroGetSpace(h);
    const double *x0 = BlastHydroGetInitialPositions(h);
    double *x = NULL;
    TEST_CALL(BlastMalloc((size_t)dim * s->h1_nl + 1, &x));
    if (!x) return;
    TEST_CALL(BlastHydroGetState(h, x, NULL, NULL));
    double bins[2 * 50] = {0}, mean[50], peak = 0.0;
    for (int z = 0; z < s->nz; z++) {
      double c[3], c0[3];
      const BlastTensorTables *tab = BlastHydroGetZoneTables(h, z);
      const double rho =
          RegressionZoneVolume(s, tab, x0, z, c0) / RegressionZoneVolume(s, tab, x, z, c);
      const int b = (int)(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) * kBins);
      if (b < kBins) bins[b] += rho, bins[kBins + b] += 1.0;
    }
    for (int b = 0; b < kBins; b++) {
      mean[b] = bins[kBins + b] > 0 ? bins[b] / bins[kBins + b] : 1.0;
      peak = fmax(peak, mean[b]);
    }
    const double half = 0.5 * (1.0 + peak);
    double r_num = NAN;
    for (int b = kBins - 1; b > 0 && isnan(r_num); b--)
      if (mean[b - 1] >= half && mean[b] < half)
        r_num = (b - 0.5 + (mean[b - 1] - half) / (mean[b - 1] - mean[b])) / kBins;
    BlastSedov sedov = NULL;
    TEST_CALL(BlastSedovCreate(dim, 1.4, E, 1.0, &sedov));
    const double r_exact = sedov ? BlastSedovShockRadius(sedov, t) : NAN;
    const double rel = (r_num - r_exact) / r_exact;
    TEST_ASSERT(fabs(rel) <= 0.03, "shock radius %.4f, exact %.4f (%+.2f %%)", r_num, r_exact,
                100 * rel);
    if (!rank_)
      printf("sedov %dD: shock radius %.4f, exact %.4f (%+.2f %%), peak bin density %.3f\n", dim,
             r_num, r_exact, 100 * rel, peak);
    if (!rank_)
      printf(
          "sedov %dD: %lld %s, %d steps (%d attempts), total energy %.17g (initial %.17g, "
          "relative change %.2e), %.1f s\n",
          dim, (long long)s->nz_global,
          s->mixed   ? "triangles and quadrilaterals"
          : dim == 2 ? "triangles"
                     : "tetrahedra",
          steps, attempts, ie + ke, energy0, (ie + ke - energy0) / energy0, MPI_Wtime() - wall0);
    BlastSedovDestroy(&sedov);
    BlastFree(&x);
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
