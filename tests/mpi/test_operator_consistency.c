// The distributed operator equals the serial one, dof by dof (matched by global id):
// the assembled momentum right-hand side -F.1 on the owners, the mass-matrix product
// M x for a smooth x, the Jacobi diagonal, and the essential dofs. Run on several rank
// counts; rank 0 also builds the serial operator on MPI_COMM_SELF.
// Usage: test_operator_consistency deck [key=value ...]   (compares both meshes of argv)
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blast_mpi.h"
#include "hydro-impl.h"
#include "meshio.h"
#include "regression_common.h"
#include "testlib.h"

typedef struct {
  int n;
  int64_t *gid;
  double *val;  // [n * nval]
} Table;

// Owned dofs of one hydro: gid, rhs (dim), M x, dinv, essential flags (dim).
static int Collect(BlastHydro h, int nval, Table *tab) {
  const BlastSpace *s = h->space;
  const int dim = s->dim, nown = s->h1_nown, nl = s->h1_nl;
  BlastCall(BlastHydroUpdateQData(h, h->S));
  BlastCall(h->ops->zone.momentum_rhs(h->bctx, h->rhs));
  // Reverse halo by hand through the public pieces of hydro.c is static; use the solve's
  // path instead: BlastHydroSolveVelocity completes rhs on the owners before the PCG.
  double *dv;
  BlastCall(h->ops->vec.alloc(h->bctx, h->nx, &dv));
  BlastCall(BlastHydroSolveVelocity(h, dv));
  // M x for x = first coordinate of the dofs (ext entries), via the mass_mult op.
  double *x, *y, *xpos;
  BlastCall(BlastMalloc(s->h1_next + 1, &x));
  BlastCall(BlastMalloc(nown + 1, &y));
  BlastCall(BlastMalloc(h->nx, &xpos));
  BlastCall(BlastHydroGetState(h, xpos, NULL, NULL));
  for (int l = 0; l < s->h1_next; l++) x[l] = (double)(s->h1_gid[l] % 97) / 97.0;
  BlastCall(h->ops->mass.mult(h->bctx, BLAST_ROWS_ALL, 1, 1u, x, y));
  double *dvh;
  BlastCall(BlastMalloc(h->nx, &dvh));
  BlastCall(h->ops->vec.to_host(h->bctx, h->nx, dv, dvh));
  tab->n = nown;
  BlastCall(BlastMalloc(nown + 1, &tab->gid));
  BlastCall(BlastMalloc((size_t)(nown + 1) * nval, &tab->val));
  for (int l = 0; l < nown; l++) {
    tab->gid[l] = s->h1_gid[l];
    double *v = &tab->val[(size_t)l * nval];
    for (int c = 0; c < dim; c++) v[c] = dvh[(size_t)c * nl + l];
    v[dim] = y[l];
    v[dim + 1] = h->mv_dinv[l];
    for (int c = 0; c < dim; c++) v[dim + 2 + c] = 0.0;
    for (int c = 0; c < dim; c++)
      for (int i = h->ess_off[c]; i < h->ess_off[c + 1]; i++)
        if (h->ess_idx[i] == l) v[dim + 2 + c] = 1.0;
  }
  BlastFree(&x);
  BlastFree(&y);
  BlastFree(&xpos);
  BlastFree(&dvh);
  BlastCall(h->ops->vec.free(h->bctx, &dv));
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  BlastErrorSetRank(rank);
  const char *meshes[] = {argc > 1 ? argv[1] : "square01_quad.mesh", argc > 2 ? argv[2] : NULL};
  for (int mi = 0; mi < 2 && meshes[mi]; mi++) {
    for (int problem = 0; problem <= 1; problem++) {
      BlastConfig cfg;
      RegressionConfig(&cfg, problem);
      cfg.refine_parallel = 0;
      BlastMesh m0 = NULL, mesh = NULL;
      TEST_CALL(BlastMeshRead(meshes[mi], &m0));
      const int rs = BlastMeshDim(m0) == 3 ? 1 : 2;
      TEST_CALL(BlastMeshRefine(m0, rs, &mesh));
      BlastHydro h = NULL;
      TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
      const int dim = BlastMeshDim(mesh), nval = 2 * dim + 2;
      Table dist = {0, NULL, NULL};
      TEST_CALL(Collect(h, nval, &dist));
      // Gather the distributed table on rank 0.
      int *counts = NULL, *displs = NULL, *vcounts = NULL, *vdispls = NULL, total = 0;
      if (!rank) {
        counts = calloc(size, sizeof(int)), displs = calloc(size, sizeof(int));
        vcounts = calloc(size, sizeof(int)), vdispls = calloc(size, sizeof(int));
      }
      MPI_Gather(&dist.n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
      int64_t *all_gid = NULL;
      double *all_val = NULL;
      if (!rank) {
        for (int r = 0; r < size; r++) displs[r] = total, total += counts[r];
        for (int r = 0; r < size; r++) vcounts[r] = counts[r] * nval, vdispls[r] = displs[r] * nval;
        all_gid = malloc(sizeof(int64_t) * (total + 1));
        all_val = malloc(sizeof(double) * (total + 1) * nval);
      }
      MPI_Gatherv(dist.gid, dist.n, MPI_INT64_T, all_gid, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD);
      MPI_Gatherv(dist.val, dist.n * nval, MPI_DOUBLE, all_val, vcounts, vdispls, MPI_DOUBLE, 0,
                  MPI_COMM_WORLD);
      if (!rank) {
        BlastHydro hs = NULL;
        TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_SELF, &blast_backend_cpu, &hs));
        Table ser = {0, NULL, NULL};
        TEST_CALL(Collect(hs, nval, &ser));
        TEST_ASSERT(total == ser.n, "%s p=%d: %d owned dofs over all ranks, serial has %d", meshes[mi],
                    problem, total, ser.n);
        // Norm-wise differences: max |distributed - serial| / max |serial| per quantity
        // (entries that are zero up to the CG tolerance make entry-wise ratios meaningless).
        double maxdiff[8] = {0}, maxval[8] = {0};
        for (int j = 0; j < ser.n; j++)
          for (int v = 0; v < nval; v++) maxval[v] = fmax(maxval[v], fabs(ser.val[(size_t)j * nval + v]));
        int missing = 0;
        for (int i = 0; i < total; i++) {
          int j = -1;
          for (int k = 0; k < ser.n && j < 0; k++)
            if (ser.gid[k] == all_gid[i]) j = k;
          if (j < 0) {
            missing++;
            continue;
          }
          for (int v = 0; v < nval; v++) {
            const double a = all_val[(size_t)i * nval + v], b = ser.val[(size_t)j * nval + v];
            const double d = fabs(a - b) / (maxval[v] > 0 ? maxval[v] : 1.0);
            if (d > maxdiff[v]) maxdiff[v] = d;
          }
        }
        TEST_ASSERT(!missing, "%d owned dofs have no serial counterpart", missing);
        const char *names[] = {"dv_x", "dv_y", "dv_z", "Mx", "dinv", "ess"};
        for (int v = 0; v < nval; v++) {
          const char *nm = v < dim ? names[v] : v == dim ? "Mx" : v == dim + 1 ? "dinv" : "ess";
          printf("%s p=%d ranks=%d: max normwise diff %-4s = %.2e\n", meshes[mi], problem, size, nm,
                 maxdiff[v]);
          (void)names;
          TEST_ASSERT(maxdiff[v] <= 1e-11, "%s p=%d value %s differs by %.2e", meshes[mi], problem, nm,
                      maxdiff[v]);
        }
        BlastHydroDestroy(&hs);
        BlastFree(&ser.gid);
        BlastFree(&ser.val);
        free(all_gid), free(all_val), free(counts), free(displs), free(vcounts), free(vdispls);
      }
      BlastFree(&dist.gid);
      BlastFree(&dist.val);
      BlastHydroDestroy(&h);
      BlastMeshDestroy(&mesh);
      BlastMeshDestroy(&m0);
    }
  }
  int fails = blast_test_failures;
  MPI_Bcast(&fails, 1, MPI_INT, 0, MPI_COMM_WORLD);
  blast_test_failures = fails;
  int r = rank ? (fails ? 1 : 0) : BlastTestFinish("test_operator_consistency");
  MPI_Finalize();
  return r;
}
