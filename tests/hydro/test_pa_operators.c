// The partial-assembly operators against the assembled ones, on the CPU
// backend, 2D orders 1-8 and 3D orders 1-6, on 1 or 2 ranks: the matrix-free mass action
// equals the assembled matrix's product on random vectors, its Jacobi diagonal equals the
// matrix diagonal, and the force actions -F.1 and F^T v (with the quadrature data at a
// perturbed state) equal the full path's, all to round-off (different summation orders;
// relative to the largest entry). The energy rate is also checked with a velocity other
// than the state's (RK2Avg keeps the stress for that).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "hydro-impl.h"
#include "io_test_meshes.h"
#include "regression_common.h"
#include "testlib.h"

// Largest |a_i - b_i| over the largest |b_i|, reduced over the ranks.
static double RelDiff(size_t n, const double *a, const double *b) {
  double d = 0.0, m = 0.0, loc[2], glob[2];
  for (size_t i = 0; i < n; i++) {
    if (fabs(a[i] - b[i]) > d) d = fabs(a[i] - b[i]);
    if (fabs(b[i]) > m) m = fabs(b[i]);
  }
  loc[0] = d, loc[1] = m;
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return glob[1] > 0.0 ? glob[0] / glob[1] : glob[0];
}

typedef struct {
  double mass, dinv, rhs, de, de_other;
} Diffs;

// The state values at the ext dofs by global id, so both objects see the same field.
static double Field(int64_t gid, int c, int which) {
  unsigned s = (unsigned)(gid * 2654435761u) ^ (unsigned)(c * 40503u + which * 977u);
  s = s * 1664525u + 1013904223u;
  s = s * 1664525u + 1013904223u;
  return (double)(s >> 8) / 8388608.0 - 1.0;
}

static void Compare(BlastMesh mesh, int k, int ode, Diffs *d) {
  BlastConfig cfg;
  RegressionConfig(&cfg, 1);
  cfg.order_kinematic = k, cfg.order_thermo = k - 1, cfg.ode_solver = ode;
  BlastHydro h[2] = {NULL, NULL};
  for (int m = 0; m < 2; m++) {
    cfg.assembly = m ? BLAST_ASSEMBLY_PARTIAL : BLAST_ASSEMBLY_FULL;
    TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h[m]));
  }
  if (!h[0] || !h[1]) return;
  const BlastSpace *s = h[0]->space;
  const int dim = s->dim, nown = s->h1_nown, nl = s->h1_nl, next = s->h1_next;
  const size_t st = (size_t)next, ne = (size_t)s->nz * s->l2_nd;
  double *x = calloc((size_t)dim * st, sizeof(double)), *y[2], *rhs[2], *de[2], *S[2];
  for (int m = 0; m < 2; m++) {
    y[m] = calloc((size_t)dim * st, sizeof(double));
    rhs[m] = calloc((size_t)2 * dim * nl, sizeof(double));
    de[m] = calloc(ne, sizeof(double));
    S[m] = calloc(2 * (size_t)dim * nl + ne, sizeof(double));
  }
  // 1. the mass action on a random field (ghost columns included), all rows
  for (int c = 0; c < dim; c++)
    for (int i = 0; i < next; i++) x[c * st + i] = Field(s->h1_gid[i], c, 0);
  for (int m = 0; m < 2; m++)
    TEST_CALL(h[m]->ops->mass.mult(h[m]->bctx, BLAST_ROWS_ALL, dim, (1u << dim) - 1, x, y[m]));
  double dm = 0.0;
  for (int c = 0; c < dim; c++) {
    const double r = RelDiff(nown, y[1] + c * st, y[0] + c * st);
    if (r > dm) dm = r;
  }
  d->mass = dm;
  d->dinv = RelDiff(nown, h[1]->mv_dinv, h[0]->mv_dinv);
  // 2. the force actions at a perturbed state: positions moved by up to 2 % of a zone,
  // random velocities and positive energies
  const double hz = 1.0 / (4.0 * k);
  for (int m = 0; m < 2; m++) {
    memcpy(S[m], h[m]->S, sizeof(double) * h[m]->nstate);
    for (int c = 0; c < dim; c++)
      for (int i = 0; i < nl; i++) {
        S[m][c * nl + i] += 0.02 * hz * Field(s->h1_gid[i], c, 1);
        S[m][dim * nl + c * nl + i] = Field(s->h1_gid[i], c, 2);
      }
    for (size_t i = 0; i < ne; i++)
      S[m][2 * dim * nl + i] =
          1.5 + Field(s->zone_gid[i / s->l2_nd] * 64 + (int64_t)(i % s->l2_nd), 0, 3);
    BlastQDataResult res;
    TEST_CALL(
        h[m]->ops->zone.qdata_force(h[m]->bctx, S[m], S[m] + dim * nl, S[m] + 2 * dim * nl, &res));
    TEST_CALL(h[m]->ops->ctx.sync(h[m]->bctx));  // res complete
    TEST_CALL(h[m]->ops->zone.momentum_rhs(h[m]->bctx, rhs[m]));
    TEST_CALL(h[m]->ops->zone.energy_rate(h[m]->bctx, S[m] + dim * nl, de[m]));
  }
  d->rhs = RelDiff((size_t)dim * nl, rhs[1], rhs[0]);
  d->de = RelDiff(ne, de[1], de[0]);
  d->de_other = 0.0;
  if (ode == BLAST_ODE_RK2AVG) {  // another velocity than the state's
    for (int m = 0; m < 2; m++) {
      for (int c = 0; c < dim; c++)
        for (int i = 0; i < nl; i++) x[c * nl + i] = Field(s->h1_gid[i], c, 4);
      TEST_CALL(h[m]->ops->zone.energy_rate(h[m]->bctx, x, de[m]));
    }
    d->de_other = RelDiff(ne, de[1], de[0]);
  }
  for (int m = 0; m < 2; m++) {
    free(y[m]), free(rhs[m]), free(de[m]), free(S[m]);
    BlastHydroDestroy(&h[m]);
  }
  free(x);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int dim = 2; dim <= 3; dim++) {
    const int kmax = dim == 2 ? 8 : 6;
    for (int k = 1; k <= kmax; k++) {
      BlastMesh mesh;
      TEST_CALL(TestUnitBoxMesh(dim, dim == 3 && k > 3 ? 2 : 3, &mesh));
      const int odes[2] = {BLAST_ODE_RK4, BLAST_ODE_RK2AVG};
      for (int oi = 0; oi < (k <= 3 ? 2 : 1); oi++) {
        const int ode = odes[oi];
        Diffs d;
        Compare(mesh, k, ode, &d);
        // mass and diagonal: sums of the same products in other orders; forces: J, J0 and
        // the point physics round differently, then the viscosity amplifies a little
        TEST_ASSERT(d.mass <= 1e-13, "%dD Q%d: mass action differs by %.2e", dim, k, d.mass);
        TEST_ASSERT(d.dinv <= 1e-13, "%dD Q%d: Jacobi diagonal differs by %.2e", dim, k, d.dinv);
        TEST_ASSERT(d.rhs <= 1e-11, "%dD Q%d: -F.1 differs by %.2e", dim, k, d.rhs);
        TEST_ASSERT(d.de <= 1e-11, "%dD Q%d: M_E^-1 F^T v differs by %.2e", dim, k, d.de);
        TEST_ASSERT(d.de_other <= 1e-11, "%dD Q%d: F^T v' differs by %.2e", dim, k, d.de_other);
        if (rank == 0)
          printf("%dD Q%d-Q%d %s: mass %.1e, diagonal %.1e, -F.1 %.1e, M_E^-1 F^T v %.1e\n", dim, k,
                 k - 1, ode == BLAST_ODE_RK4 ? "RK4" : "RK2Avg", d.mass, d.dinv, d.rhs, d.de);
        if (rank == 0 && ode == BLAST_ODE_RK2AVG)
          printf("    F^T v' with another velocity: %.1e\n", d.de_other);
      }
      BlastMeshDestroy(&mesh);
    }
  }
  const int r = BlastTestFinish("test_pa_operators");
  MPI_Finalize();
  return r;
}
