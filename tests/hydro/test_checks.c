// The reference implementation's own regression table (method spec 15.2): problems 0-7
// in 2D and 3D on the unit square/cube (2x2 and 2x2x2 zones), cg_tol = 1e-14, |e| at
// accepted step 5 and at a second step, to 1e-13 relative, with the same step numbers.
// Usage: test_checks [dim] [problem] [full|partial]   (default: all 16 runs, default mode)
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blast_mpi.h"
#include "io_test_meshes.h"
#include "regression_common.h"
#include "testlib.h"

typedef struct {
  int step2;
  double e5, e2;
} Check;

// Method spec 15.2, columns 2D and 3D.
static const Check kChecks[2][8] = {{{27, 6.546538624534384e+00, 7.588576357792927e+00},
                                     {15, 3.508254945225794e+00, 2.756444596823211e+00},
                                     {59, 1.020745795651244e+01, 1.721590205901898e+01},
                                     {16, 8.000000000000000e+00, 8.000000000000000e+00},
                                     {18, 3.446324942352448e+01, 3.446844033767240e+01},
                                     {36, 1.030899557252528e+01, 1.057362418574309e+01},
                                     {36, 8.039707010835693e+00, 8.316970976817373e+00},
                                     {25, 1.514929259650760e+01, 1.514931278155159e+01}},
                                    {{188, 1.198510951452527e+03, 1.199384410059154e+03},
                                     {20, 6.695818592962833e+00, 4.267902387082487e+00},
                                     {59, 2.041491591302486e+01, 3.443180411803796e+01},
                                     {16, 1.600000000000000e+01, 1.600000000000000e+01},
                                     {18, 6.892649884704898e+01, 6.893688067534482e+01},
                                     {36, 2.061984481890964e+01, 2.114519664792607e+01},
                                     {36, 1.607988713996459e+01, 1.662736010353023e+01},
                                     {24, 3.029858112572883e+01, 3.029858832743707e+01}}};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int dim_only = argc > 1 ? atoi(argv[1]) : 0, p_only = argc > 2 ? atoi(argv[2]) : -1;
  const int assembly =
      argc > 3 ? (!strcmp(argv[3], "full") ? BLAST_ASSEMBLY_FULL : BLAST_ASSEMBLY_PARTIAL)
               : BLAST_ASSEMBLY_DEFAULT;
  for (int dim = 2; dim <= 3; dim++) {
    if (dim_only && dim != dim_only) continue;
    BlastMesh mesh;
    TEST_CALL(TestUnitBoxMesh(dim, 2, &mesh));
    for (int p = 0; p < 8; p++) {
      if (p_only >= 0 && p != p_only) continue;
      const Check *chk = &kChecks[dim - 2][p];
      BlastConfig cfg;
      RegressionConfig(&cfg, p);
      cfg.assembly = assembly;
      BlastHydro h = NULL;
      TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
      if (!h) continue;
      double e[256], dt[256];
      StepLog log = {0, 256, e, dt, 0};
      TEST_CALL(BlastHydroRun(h, LogStep, &log));
      TEST_ASSERT(log.nsteps >= chk->step2, "%dD p=%d: %d steps < %d", dim, p, log.nsteps,
                  chk->step2);
      TEST_CLOSE(e[5], chk->e5, 1e-13);
      if (log.nsteps >= chk->step2) TEST_CLOSE(e[chk->step2], chk->e2, 1e-13);
      if (p != 6)
        TEST_ASSERT(log.nsteps == chk->step2, "%dD p=%d: final step %d, expected %d", dim, p,
                    log.nsteps, chk->step2);
      printf(
          "%dD p=%d: steps %d (rejected %d), |e|_5 = %.15e (rel %.1e), |e|_%d = %.15e (rel %.1e)\n",
          dim, p, log.nsteps, log.rejected, e[5], fabs(e[5] - chk->e5) / chk->e5, chk->step2,
          e[chk->step2], fabs(e[chk->step2] - chk->e2) / chk->e2);
      BlastHydroDestroy(&h);
    }
    BlastMeshDestroy(&mesh);
  }
  int r = BlastTestFinish("test_checks");
  MPI_Finalize();
  return r;
}
