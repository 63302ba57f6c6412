// Rebuilding the operator data on a moved mesh (BlastHydroRebuild) against a fresh setup
// on that mesh, bit for bit: a solver set up on mesh A is moved to mesh B (A's vertices
// displaced by a smooth map that keeps the boundary), and must then hold B's reference
// data (initial positions, rho0 |J0| w, the zones' materials, M_E^{-1}, the mass matrix
// or the partial operator's data, h0, the volume) and, from B's initial state, run the
// same steps as a solver created on B. Cases: 2D and 3D, full and partial assembly, a
// problem with several materials and densities (triple point), one with a source
// (Taylor-Green), 1 and 2 ranks; `test_rebuild cuda` runs them on the CUDA backend (exit
// 77 where there is none).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blast_mpi.h"
#include "hydro-impl.h"
#include "regression_common.h"
#include "testlib.h"
#ifdef BLAST_HAVE_CUDA
#include "blast_cuda.h"
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

// The box [0, L0] x [0, L1] (x [0, L2]) in n[0] x n[1] (x n[2]) zones with the spec's
// boundary attributes (1, 2, 3 by the normal's direction); `move`: interior vertices
// displaced by a smooth map that vanishes on the boundary.
static int BoxMesh(int dim, const int *n, const double *L, int move, BlastMesh *mesh) {
  const int n2 = dim == 3 ? n[2] : 1;
  const int nv = (n[0] + 1) * (n[1] + 1) * (dim == 3 ? n2 + 1 : 1), nzn = n[0] * n[1] * n2;
  const int nc = 1 << dim, nfc = nc / 2;
  double *X = malloc(sizeof(double) * dim * nv);
  int *zv = malloc(sizeof(int) * nc * nzn), *bv = malloc(sizeof(int) * nfc * 2 * dim * nzn);
  int *ba = malloc(sizeof(int) * 2 * dim * nzn), nb = 0;
  for (int v = 0; v < nv; v++) {
    const int i[3] = {v % (n[0] + 1), (v / (n[0] + 1)) % (n[1] + 1), v / ((n[0] + 1) * (n[1] + 1))};
    double s = 1.0, u[3];
    for (int c = 0; c < dim; c++) u[c] = (double)i[c] / n[c], s *= sin(M_PI * u[c]);
    for (int c = 0; c < dim; c++)
      X[dim * v + c] = L[c] * (u[c] + (move ? (0.05 + 0.02 * c) * s / n[c] * 3.0 : 0.0));
  }
  for (int z = 0; z < nzn; z++) {
    const int i[3] = {z % n[0], (z / n[0]) % n[1], z / (n[0] * n[1])};
    for (int c = 0; c < nc; c++) {
      int v = 0;
      for (int g = dim - 1; g >= 0; g--) v = v * (n[g] + 1) + i[g] + ((c >> g) & 1);
      zv[nc * z + c] = v;
    }
    for (int g = 0; g < dim; g++)
      for (int s = 0; s < 2; s++) {
        if (i[g] != (s ? n[g] - 1 : 0)) continue;
        int k = 0;
        for (int c = 0; c < nc; c++)
          if (((c >> g) & 1) == s) bv[nfc * nb + k++] = zv[nc * z + c];
        ba[nb++] = g + 1;
      }
  }
  const int ierr = BlastMeshCreate(dim, nv, X, nzn, zv, NULL, nb, bv, ba, mesh);
  free(X), free(zv), free(bv), free(ba);
  return ierr;
}

// Bit-for-bit equality of n doubles; the first difference is reported.
static void SameBits(const char *what, const char *name, const double *a, const double *b,
                     size_t n) {
  size_t bad = n;
  for (size_t i = 0; i < n && bad == n; i++)
    if (memcmp(&a[i], &b[i], sizeof(double)) != 0) bad = i;
  TEST_ASSERT(bad == n, "%s: %s entry %zu of %zu: %.17g (rebuilt) != %.17g (fresh)", what, name,
              bad, n, bad < n ? a[bad] : 0.0, bad < n ? b[bad] : 0.0);
}

// The reference data of the two solvers, bit for bit.
static void CompareReference(const char *what, BlastHydro a, BlastHydro b) {
  const BlastHydroData *ha = &a->hd, *hb = &b->hd;
  const size_t nz = ha->nz, nq = ha->nqp, ne = ha->l2_nd, d2 = (size_t)ha->dim * ha->dim;
  SameBits(what, "x0", a->x0_host, b->x0_host, a->nx);
  SameBits(what, "rho0 |J0| w", ha->qp_R0, hb->qp_R0, nz * nq);
  SameBits(what, "M_E^-1", ha->me_inv, hb->me_inv, nz * ne * ne);
  SameBits(what, "mass diagonal^-1", ha->mv_dinv, hb->mv_dinv, (size_t)ha->h1_nown);
  SameBits(what, "h0", &ha->qpar.h0, &hb->qpar.h0, 1);
  SameBits(what, "volume", &a->volume0, &b->volume0, 1);
  if (ha->assembly == BLAST_ASSEMBLY_PARTIAL) {
    SameBits(what, "mass operator rho0 |J0| w", ha->pa.qmass, hb->pa.qmass,
             (size_t)ha->pa.nz_ext * nq);
    SameBits(what, "partial x0", ha->pa.x0, hb->pa.x0, a->nx);
  } else {
    const size_t nnz = (size_t)(ha->full.rowptr[ha->h1_nown] - ha->full.rowptr[0]);
    SameBits(what, "mass matrix", ha->full.val, hb->full.val, nnz);
    SameBits(what, "J0^-1", ha->full.J0inv, hb->full.J0inv, nz * nq * d2);
  }
  size_t bad = nz;
  for (size_t z = 0; z < nz && bad == nz; z++)
    if (ha->zone_mat[z] != hb->zone_mat[z]) bad = z;
  TEST_ASSERT(bad == nz, "%s: zone %zu has material %d rebuilt, %d fresh", what, bad,
              bad < nz ? ha->zone_mat[bad] : 0, bad < nz ? hb->zone_mat[bad] : 0);
}

typedef struct {
  const char *name;
  int problem, dim, n[3], k, assembly;
  double L[3];
} Case;

static void RunCase(const Case *c, const BlastBackendOps *ops) {
  char what[160];
  snprintf(what, sizeof what, "%s (%s)", c->name, ops->name);
  BlastConfig cfg;
  RegressionConfig(&cfg, c->problem);
  cfg.order_kinematic = c->k, cfg.order_thermo = c->k - 1;
  cfg.assembly = c->assembly;
  cfg.max_steps = 3;
  BlastMesh ma = NULL, mb = NULL;
  TEST_CALL(BoxMesh(c->dim, c->n, c->L, 0, &ma));
  TEST_CALL(BoxMesh(c->dim, c->n, c->L, 1, &mb));
  BlastHydro a = NULL, b = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, ma, MPI_COMM_WORLD, ops, &a));
  TEST_CALL(BlastHydroCreate(&cfg, mb, MPI_COMM_WORLD, ops, &b));
  // the moved mesh really is another reference
  TEST_ASSERT(memcmp(a->hd.qp_R0, b->hd.qp_R0, sizeof(double) * a->hd.nz * a->hd.nqp) != 0,
              "%s: the two meshes give the same rho0 |J0| w", what);
  TEST_CALL(BlastHydroRebuild(a, mb));
  CompareReference(what, a, b);
  // From B's initial state and progress, three steps on each.
  double *x = malloc(sizeof(double) * (a->nx + 1)), *v = malloc(sizeof(double) * (a->nx + 1));
  double *e = malloc(sizeof(double) * (a->ne + 1));
  double *x2 = malloc(sizeof(double) * (a->nx + 1)), *v2 = malloc(sizeof(double) * (a->nx + 1));
  double *e2 = malloc(sizeof(double) * (a->ne + 1));
  // (set on both: the setup's quadrature data of b are no longer current either, so that
  // both runs begin by computing them)
  TEST_CALL(BlastHydroGetState(b, x, v, e));
  TEST_CALL(BlastHydroSetState(a, x, v, e));
  TEST_CALL(BlastHydroSetState(b, x, v, e));
  double t, dt, dt0, energy0;
  int steps, attempts;
  BlastHydroGetProgress(b, &t, &dt, &steps, &attempts);
  BlastHydroGetInitial(b, &dt0, &energy0);
  BlastHydroSetProgress(a, t, dt, steps, attempts, dt0, energy0);
  TEST_CALL(BlastHydroRun(a, NULL, NULL));
  TEST_CALL(BlastHydroRun(b, NULL, NULL));
  BlastHydroGetProgress(a, &t, &dt, &steps, &attempts);
  TEST_ASSERT(attempts == cfg.max_steps + 1, "%s: %d step attempts", what, attempts);
  TEST_CALL(BlastHydroGetState(a, x, v, e));
  TEST_CALL(BlastHydroGetState(b, x2, v2, e2));
  SameBits(what, "x after the steps", x, x2, a->nx);
  SameBits(what, "v after the steps", v, v2, a->nx);
  SameBits(what, "e after the steps", e, e2, a->ne);
  free(x), free(v), free(e), free(x2), free(v2), free(e2);
  TEST_CALL(BlastHydroDestroy(&a));
  TEST_CALL(BlastHydroDestroy(&b));
  TEST_CALL(BlastMeshDestroy(&ma));
  TEST_CALL(BlastMeshDestroy(&mb));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const BlastBackendOps *ops = &blast_backend_cpu;
  if (argc > 1 && !strcmp(argv[1], "cuda")) {
#ifdef BLAST_HAVE_CUDA
    if (BlastCudaDeviceCount() <= 0) {
      printf("test_rebuild: no CUDA device: skipped\n");
      MPI_Finalize();
      return 77;
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    BlastGpuInfo info;
    TEST_CALL(BlastCudaSelectDevice(rank, &info));
    BlastGpuOptions opt;
    memset(&opt, 0, sizeof opt);
    opt.autotune = BLAST_AUTOTUNE_ONLINE;
    BlastCudaSetOptions(&opt);
    ops = &blast_backend_cuda;
#else
    printf("test_rebuild: built without the CUDA backend: skipped\n");
    MPI_Finalize();
    return 77;
#endif
  }
  const Case cases[] = {
      {"2D Sedov Q2-Q1 partial",
       BLAST_PROBLEM_SEDOV,
       2,
       {4, 4, 1},
       2,
       BLAST_ASSEMBLY_PARTIAL,
       {1, 1, 1}},
      {"2D Sedov Q2-Q1 full", BLAST_PROBLEM_SEDOV, 2, {4, 4, 1}, 2, BLAST_ASSEMBLY_FULL, {1, 1, 1}},
      {"2D triple point Q3-Q2 partial",
       BLAST_PROBLEM_TRIPLE_POINT,
       2,
       {7, 3, 1},
       3,
       BLAST_ASSEMBLY_PARTIAL,
       {7, 3, 1}},
      {"2D triple point Q2-Q1 full",
       BLAST_PROBLEM_TRIPLE_POINT,
       2,
       {7, 3, 1},
       2,
       BLAST_ASSEMBLY_FULL,
       {7, 3, 1}},
      {"2D Taylor-Green Q2-Q1 partial",
       BLAST_PROBLEM_TAYLOR_GREEN,
       2,
       {4, 4, 1},
       2,
       BLAST_ASSEMBLY_PARTIAL,
       {1, 1, 1}},
      {"3D Sedov Q2-Q1 partial",
       BLAST_PROBLEM_SEDOV,
       3,
       {3, 3, 3},
       2,
       BLAST_ASSEMBLY_PARTIAL,
       {1, 1, 1}},
      {"3D Sod Q2-Q1 full", BLAST_PROBLEM_SOD, 3, {4, 2, 2}, 2, BLAST_ASSEMBLY_FULL, {1, 1, 1}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) RunCase(&cases[i], ops);
  const int r = BlastTestFinish("test_rebuild");
  MPI_Finalize();
  return r;
}
