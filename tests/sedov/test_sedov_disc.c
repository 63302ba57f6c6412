// Sedov on an unstructured disc: the unit disc of inputs/meshes/disc_quad.mesh (gmsh
// quadrilaterals, no vertex at the centre) refined once, density 1, gamma 1.4, the full
// blast energy E = 1 deposited by a point source at the centre (a zone's interior, a face or
// a vertex, whatever the mesh has there), Q2-Q1, rk2avg, to t = 0.6 (what
// inputs/sedov_disc2d.ini runs):
//  - the total energy is E at t = 0 and at t = 0.6, to round-off (rk2avg conserves it);
//  - the shock radius is within 2 % of the exact solution's (hydro/problems/sedov_exact.h,
//    r2 = (E / (alpha rho))^(1/4) t^(1/2)). The numerical radius: zones binned by the
//    radius of their centroid (bins of 0.02), the mean zone density (initial volume over
//    current volume: the zones' mass is their initial volume) in each bin, and the
//    outermost radius where it crosses half way from 1 to its peak (linear between bins).
// The rim (boundary attribute 4) is a wall, as in the deck: not axis-aligned, so the momentum
// solve is the projected one with nodal normals (the shock does not reach it before t = 0.6,
// r2 = 0.78; the wall must not disturb the energy).
// Usage: test_sedov_disc MESH [refine]
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blast_mpi.h"
#include "linalg.h"
#include "meshio.h"
#include "problems/sedov_exact.h"
#include "regression_common.h"
#include "testlib.h"

enum { kBins = 50 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 2) {
    fprintf(stderr, "usage: test_sedov_disc MESH [refine]\n");
    MPI_Finalize();
    return 2;
  }
  const int refine = argc > 2 ? atoi(argv[2]) : 1;
  const double E = 1.0, t_final = 0.6;
  BlastMesh file = NULL, mesh = NULL;
  TEST_CALL(BlastMeshRead(argv[1], &file));
  TEST_CALL(BlastMeshRefine(file, refine, &mesh));
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  cfg.mesh_dim = 2;
  cfg.t_final = t_final;
  cfg.ode_solver = BLAST_ODE_RK2AVG;
  cfg.cg_tol = 1e-10;
  cfg.print_every = 100;
  cfg.nsources = 1;
  BlastSourceSpec *src = &cfg.sources[0];
  snprintf(src->name, sizeof src->name, "blast");
  snprintf(src->where, sizeof src->where, "sedov_disc2d.ini:1");
  src->kind = BLAST_SOURCE_POINT, src->energy = E, src->npoint = 2;
  cfg.nboundaries = 1;
  BlastBoundarySpec *rim = &cfg.boundaries[0];
  snprintf(rim->name, sizeof rim->name, "rim");
  snprintf(rim->where, sizeof rim->where, "sedov_disc2d.ini:2");
  rim->type = BLAST_BOUNDARY_WALL, rim->nattr = 1, rim->attr[0] = 4;
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (h) {
    double dt0, energy0, en, ie, ke;
    BlastHydroGetInitial(h, &dt0, &energy0);
    TEST_ASSERT(fabs(energy0 - E) <= 1e-14 * E, "initial energy %.17g, expected %.17g", energy0, E);
    TEST_CALL(BlastHydroRun(h, NULL, NULL));
    double t, dt;
    int steps, attempts;
    BlastHydroGetProgress(h, &t, &dt, &steps, &attempts);
    TEST_CALL(BlastHydroNorms(h, &en, &ie, &ke));
    TEST_ASSERT(fabs(t - t_final) <= 1e-12, "stopped at t = %.17g", t);
    TEST_ASSERT(fabs(ie + ke - E) <= 1e-12 * E, "total energy %.17g at t = %g, expected %.17g",
                ie + ke, t, E);
    // Zone densities and centroid radii, binned (sums over ranks).
    const BlastSpace *s = BlastHydroGetSpace(h);
    const BlastTensorTables *tab = BlastHydroGetTables(h);
    double *x = NULL;
    TEST_CALL(BlastMalloc(2 * (size_t)s->h1_nl + 1, &x));
    TEST_CALL(BlastHydroGetState(h, x, NULL, NULL));
    const double *x0 = BlastHydroGetInitialPositions(h);
    double bins[2 * kBins] = {0}, all[2 * kBins];
    for (int z = 0; z < s->nz; z++) {
      double c[3], c0[3];
      const double rho =
          RegressionZoneVolume(s, tab, x0, z, c0) / RegressionZoneVolume(s, tab, x, z, c);
      const int b = (int)(sqrt(c[0] * c[0] + c[1] * c[1]) / (1.0 / kBins));
      if (b < kBins) bins[b] += rho, bins[kBins + b] += 1.0;
    }
    MPI_Allreduce(bins, all, 2 * kBins, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double mean[kBins], peak = 0.0;
    for (int b = 0; b < kBins; b++) {
      mean[b] = all[kBins + b] > 0 ? all[b] / all[kBins + b] : 1.0;
      peak = fmax(peak, mean[b]);
    }
    const double half = 0.5 * (1.0 + peak);
    double r_num = NAN;
    for (int b = kBins - 1; b > 0 && isnan(r_num); b--)
      if (mean[b - 1] >= half && mean[b] < half) {
        const double ra = (b - 0.5) / kBins, rb = (b + 0.5) / kBins;
        r_num = ra + (rb - ra) * (mean[b - 1] - half) / (mean[b - 1] - mean[b]);
      }
    BlastSedov sedov = NULL;
    TEST_CALL(BlastSedovCreate(2, 1.4, E, 1.0, &sedov));
    const double r_exact = sedov ? BlastSedovShockRadius(sedov, t) : NAN;
    TEST_ASSERT(fabs(r_num - r_exact) <= 0.02 * r_exact, "shock radius %.5f, exact %.5f (%.2f %%)",
                r_num, r_exact, 100 * (r_num - r_exact) / r_exact);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!rank)
      printf(
          "disc: %lld zones, %d steps, total energy %.17g (E = %g), shock radius %.5f, exact "
          "%.5f (%+.2f %%), peak bin density %.3f\n",
          (long long)s->nz_global, steps, ie + ke, E, r_num, r_exact,
          100 * (r_num - r_exact) / r_exact, peak);
    BlastSedovDestroy(&sedov);
    BlastFree(&x);
    BlastHydroDestroy(&h);
  }
  BlastMeshDestroy(&mesh);
  BlastMeshDestroy(&file);
  const int r = BlastTestFinish("test_sedov_disc");
  MPI_Finalize();
  return r;
}
