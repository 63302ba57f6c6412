// GPU backend against the CPU reference backend on the same problems: the full rate
// vector f(S0) (quadrature data, corner forces, momentum PCG, energy update) and |e|
// after N steps, for 2D/3D, orders 1-4 and several problems. Prints PASS/FAIL per case.
// Usage: test_gpu_vs_cpu [steps]
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blast_cuda.h"
#include "blast_mpi.h"
#include "hydro-impl.h"
#include "meshio.h"
#include "regression_common.h"
#include "testlib.h"

static int Rates(BlastHydro h, double *k_host) {
  double *k;
  BlastCall(h->ops->vec.alloc(h->bctx, h->nstate, &k));
  h->qdata_current = 0;
  BlastCall(BlastHydroRates(h, h->S, k));
  BlastCall(h->ops->vec.to_host(h->bctx, h->nstate, k, k_host));
  BlastCall(h->ops->vec.free(h->bctx, &k));
  return 0;
}

static int Run(BlastHydro h, int steps, double *e_norm, int *accepted) {
  h->cfg.max_steps = steps - 1;
  BlastCall(BlastHydroRun(h, NULL, NULL));
  BlastCall(BlastHydroENorm(h, e_norm));
  *accepted = h->ti - 1;
  return 0;
}

// The mass-matrix product of the CUDA backend (a context of its own on `hd`) against the
// CPU backend's: INTERIOR then BOUNDARY rows on the same x, as the PCG calls it, five
// times with different x in the same buffer, for 3 components (all active, then 1 and 3
// only) and 2. Returns the number of entries that differ in any bit (NaN counts), -1 on
// error. One rank has no ghosts: the BOUNDARY call's packing of the ghosts alone is
// exercised by the multi-rank comparisons (compare_runs.py short --ranks 4), not here.
static long MassMultCheck(BlastHydro hc, const BlastHydroData *hd) {
  const size_t next = (size_t)hd->h1_next, n = 3 * next;
  void *ctx = NULL;
  double *xg = NULL, *yg = NULL, *x = NULL, *yc = NULL, *ygh = NULL;
  long ndiff = 0;
  int ierr = blast_backend_cuda.ctx.create(hd, &ctx);
  if (!ierr) ierr = blast_backend_cuda.vec.alloc(ctx, n, &xg);
  if (!ierr) ierr = blast_backend_cuda.vec.alloc(ctx, n, &yg);
  if (!ierr) ierr = hc->ops->vec.alloc(hc->bctx, n, &x);
  if (!ierr) ierr = hc->ops->vec.alloc(hc->bctx, n, &yc);
  if (!ierr) ierr = BlastMalloc(n, &ygh);
  const struct {
    int ncomp;
    unsigned mask;
  } t[5] = {{3, 7u}, {3, 7u}, {3, 5u}, {2, 3u}, {3, 7u}};
  for (int trial = 0; trial < 5 && !ierr; trial++) {
    for (size_t i = 0; i < n; i++) x[i] = sin(0.37 * (double)i + 1.3 * trial) + 0.1 * trial;
    for (size_t i = 0; i < n; i++) yc[i] = ygh[i] = -7.0;
    ierr = blast_backend_cuda.vec.from_host(ctx, n, x, xg);
    if (!ierr) ierr = blast_backend_cuda.vec.from_host(ctx, n, yc, yg);
    for (int part = BLAST_ROWS_INTERIOR; part <= BLAST_ROWS_BOUNDARY && !ierr; part++) {
      ierr = blast_backend_cuda.mass.mult(ctx, part, t[trial].ncomp, t[trial].mask, xg, yg);
      if (!ierr) ierr = hc->ops->mass.mult(hc->bctx, part, t[trial].ncomp, t[trial].mask, x, yc);
    }
    if (!ierr) ierr = blast_backend_cuda.vec.to_host(ctx, n, yg, ygh);
    for (size_t i = 0; i < n && !ierr; i++) ndiff += memcmp(&yc[i], &ygh[i], sizeof(double)) != 0;
  }
  if (ierr) ndiff = -1, BlastErrorPrint(), BlastErrorClear();
  if (xg) blast_backend_cuda.vec.free(ctx, &xg);
  if (yg) blast_backend_cuda.vec.free(ctx, &yg);
  if (x) hc->ops->vec.free(hc->bctx, &x);
  if (yc) hc->ops->vec.free(hc->bctx, &yc);
  BlastFree(&ygh);
  if (ctx) blast_backend_cuda.ctx.destroy(&ctx);
  return ndiff;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int steps = argc > 1 ? atoi(argv[1]) : 20;
  BlastGpuInfo info;
  TEST_CALL(BlastCudaSelectDevice(0, &info));
  printf("device: %s (sm_%d%d, %d SMs, %.0f GiB)\n", info.name, info.sm_major, info.sm_minor,
         info.multiprocessors, info.memory_gib);
  BlastGpuOptions opt;
  memset(&opt, 0, sizeof opt);  // the defaults: no profile, no sync, the default window
  opt.autotune = BLAST_AUTOTUNE_ONLINE;
  snprintf(opt.cache_path, sizeof opt.cache_path, "autotune_test.txt");
  BlastCudaSetOptions(&opt);
  // qo: a raised quadrature order (0: the default), so that the force GEMM stages a
  // block's S in several chunks of points (512 and 576 points); their |e| after the steps
  // must equal the CPU's bit for bit (the rates, through the CG's double-double row sums,
  // may differ in the last bits, as in the other 3D cases)
  const struct {
    int problem, dim, k, rs, qo;
  } cases[] = {{1, 2, 1, 3, 0}, {1, 2, 2, 3, 0},  {1, 2, 3, 2, 0}, {1, 2, 4, 2, 0}, {0, 2, 2, 2, 0},
               {0, 2, 3, 2, 0}, {3, 2, 2, 2, 0},  {7, 2, 4, 1, 0}, {1, 3, 1, 2, 0}, {1, 3, 2, 1, 0},
               {1, 3, 3, 1, 0}, {1, 3, 4, 0, 0},  {0, 3, 2, 1, 0}, {3, 3, 2, 1, 0}, {4, 2, 3, 2, 0},
               {2, 3, 2, 1, 0}, {1, 3, 2, 0, 14}, {1, 2, 2, 1, 47}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    BlastConfig cfg;
    RegressionConfig(&cfg, cases[i].problem);
    cfg.order_kinematic = cases[i].k, cfg.order_thermo = cases[i].k - 1;
    if (cases[i].qo) cfg.order_quadrature = cases[i].qo;
    cfg.cg_tol = 1e-10;
    if (cases[i].problem == 4) cfg.ode_solver = BLAST_ODE_RK2AVG;
    const char *file = cases[i].problem == 3
                           ? (cases[i].dim == 2 ? "rectangle01_quad.mesh" : "box01_hex.mesh")
                       : cases[i].problem == 7 ? "rt2D.mesh"
                       : cases[i].problem == 4 ? "square_gresho.mesh"
                       : cases[i].dim == 2     ? "square01_quad.mesh"
                                               : "cube01_hex.mesh";
    char path[512];
    snprintf(path, sizeof path, "%s/%s", BLAST_MESH_DIR, file);
    BlastMesh m0 = NULL, mesh = NULL;
    TEST_CALL(BlastMeshRead(path, &m0));
    TEST_CALL(BlastMeshRefine(m0, cases[i].rs, &mesh));
    BlastHydro hc = NULL, hg = NULL;
    TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &hc));
    size_t free0 = 0, free1 = 0, total = 0;
    TEST_ASSERT(cudaMemGetInfo(&free0, &total) == cudaSuccess, "cudaMemGetInfo");
    TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cuda, &hg));
    TEST_ASSERT(cudaMemGetInfo(&free1, &total) == cudaSuccess, "cudaMemGetInfo");
    if (!hc || !hg) continue;
    {  // the memory model (checked before allocating) bounds what the setup took
      BlastCudaMemorySizes ms;
      BlastCudaMemorySizesOf(&hg->hd, &opt, &ms);
      const double est = (double)BlastCudaMemoryEstimate(&ms), used = (double)free0 - (double)free1;
      printf("     device memory: %.1f MiB taken by the setup, %.1f MiB estimated\n",
             used / 1048576.0, est / 1048576.0);
      TEST_ASSERT(used <= est, "case %zu: setup took %.1f MiB, more than the estimate %.1f MiB", i,
                  used / 1048576.0, est / 1048576.0);
    }
    {  // the mass-matrix product, also with every row treated as a boundary row (a rank
       // whose rows all touch ghost columns: no interior rows)
      BlastHydroData hd0 = hg->hd;
      const long mm_all = MassMultCheck(hc, &hg->hd);
      hd0.mv_ninterior = 0;
      const long mm_bnd = MassMultCheck(hc, &hd0);
      printf("     mass-matrix product vs CPU: %ld entries differ, without interior rows %ld\n",
             mm_all, mm_bnd);
      TEST_ASSERT(mm_all == 0 && mm_bnd == 0,
                  "case %zu: mass-matrix product: %ld, %ld entries differ", i, mm_all, mm_bnd);
    }
    double *kc, *kg;
    TEST_CALL(BlastMalloc(hc->nstate, &kc));
    TEST_CALL(BlastMalloc(hg->nstate, &kg));
    TEST_CALL(Rates(hc, kc));
    TEST_CALL(Rates(hg, kg));
    double maxd = 0.0, maxv = 0.0;
    for (size_t j = 0; j < hc->nstate; j++)
      maxd = fmax(maxd, fabs(kc[j] - kg[j])), maxv = fmax(maxv, fabs(kc[j]));
    const double rate_diff = maxd / maxv;
    double ec = 0.0, eg = 0.0;
    int sc = 0, sg = -1;
    const double t0 = MPI_Wtime();
    TEST_CALL(Run(hc, steps, &ec, &sc));
    const double t1 = MPI_Wtime();
    TEST_CALL(Run(hg, steps, &eg, &sg));
    const double t2 = MPI_Wtime();
    const double e_diff = fabs(ec - eg) / ec;
    const int ok =
        rate_diff <= 1e-12 && e_diff <= 1e-10 && sc == sg && (!cases[i].qo || e_diff == 0.0);
    printf(
        "%-4s p=%d %dD Q%d-Q%d zones %-6lld rates %.2e  |e| cpu %.16e gpu %.16e rel %.2e  steps "
        "%d/%d  "
        "cpu %.2fs gpu %.2fs  %s\n",
        ok ? "PASS" : "FAIL", cases[i].problem, cases[i].dim, cases[i].k, cases[i].k - 1,
        (long long)hc->shape.zones, rate_diff, ec, eg, e_diff, sc, sg, t1 - t0, t2 - t1,
        ok ? "" : "<--");
    TEST_ASSERT(ok, "case %zu differs", i);
    BlastFree(&kc);
    BlastFree(&kg);
    BlastHydroDestroy(&hc);
    BlastHydroDestroy(&hg);
    BlastMeshDestroy(&mesh);
    BlastMeshDestroy(&m0);
  }
  int r = BlastTestFinish("test_gpu_vs_cpu");
  MPI_Finalize();
  return r;
}
