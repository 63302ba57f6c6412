// The 64-bit row offsets of the scalar H1 mass matrix (32-bit offsets would cap a
// rank at ~4.1 M Q2-Q1 zones), without the ~94 GB such a rank needs:
//  1. the pattern of BlastSetupMassVPattern on small boxes (2D/3D, Q1-Q3, 1 or 2 ranks):
//     64-bit offsets starting at 0, each row's columns the distinct dofs of the zones
//     containing it (computed here by brute force) in ascending global id, and the total
//     count equal to the closed form of a structured box, (sum of the 1D row lengths)^dim;
//  2. the same matrix with its entries moved past 2^31 + 1: row offsets rowptr + B (B =
//     2^31 + 4099) into column and value arrays of B + nnz entries, of which only the last
//     nnz are touched (an anonymous mapping without reserve: ~26 GB of address space, a
//     few pages of memory). The consumers of the offsets must give the same results bit
//     for bit: the CPU backend's mass.mult (all, interior, boundary rows) and the sliced
//     ELLPACK build of the GPU backend (BlastSellBuild); with --gpu also the CUDA
//     backend's mass.mult on such a matrix, with its SELL kernel (the CPU's bits) and with
//     cuSPARSE (`[gpu] spmv = cusparse`, 64-bit CSR copies: the bits of the unshifted
//     matrix).
// Exit 77 (SKIPPED) when the address space cannot be mapped (strict overcommit, ulimit -v),
// or with --gpu when no device is visible or CUDA is not built; the other checks run first.
#define _DEFAULT_SOURCE  // MAP_ANONYMOUS, MAP_NORESERVE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "blast_mpi.h"
#include "hydro-impl.h"
#include "io_test_meshes.h"
#include "regression_common.h"
#include "sell.h"
#include "testlib.h"
#ifdef BLAST_HAVE_CUDA
#include "blast_cuda.h"
#endif

_Static_assert(sizeof(*((BlastHydroData *)NULL)->full.rowptr) == 8,
               "the mass matrix's row offsets are 64-bit");

static const int64_t kBase = ((int64_t)1 << 31) + 4099;  // past INT_MAX and odd
enum { kSkip = 77 };

static int g_unmapped;  // the shifted part could not run (address space)
static int g_gpu;       // --gpu: the CUDA backend too

// Row length of lattice node i of a 1D mesh of n zones of order k: its zones' nodes.
static int64_t RowLength1D(int n, int k, int i) {
  if (i % k) return k + 1;
  return i == 0 || i == n * k ? k + 1 : 2 * k + 1;
}

// 1. The pattern: offsets, columns by brute force, the closed-form total over the ranks.
static void CheckPattern(BlastHydro h, int n, int k, const char *label) {
  const BlastSpace *s = h->space;
  const int nown = s->h1_nown, nd = s->h1_nd, next = s->h1_next;
  const int64_t *rp = h->mv_rowptr;
  TEST_ASSERT(sizeof *rp == 8 && sizeof *h->hd.full.rowptr == 8 && h->hd.full.rowptr == rp,
              "%s: 64-bit row offsets handed to the backend", label);
  TEST_ASSERT(rp[0] == 0, "%s: rowptr[0] = %lld", label, (long long)rp[0]);
  char *in = calloc((size_t)next + 1, 1);
  int bad = 0;
  for (int l = 0; l < nown && !bad; l++) {
    memset(in, 0, (size_t)next);
    int want = 0;
    for (int tt = s->mass_toff[l]; tt < s->mass_toff[l + 1]; tt++) {
      const int z = s->mass_tidx[tt] / nd;
      for (int b = 0; b < nd; b++) {
        const int c = s->h1_edof[(size_t)z * nd + b];
        want += !in[c], in[c] = 1;
      }
    }
    bad += rp[l + 1] - rp[l] != want;
    for (int64_t kk = rp[l]; kk < rp[l + 1] && !bad; kk++) {
      const int c = h->mv_col[kk];
      bad += c < 0 || c >= next || !in[c];
      in[c] = 0;  // each column once
      if (kk > rp[l]) bad += s->h1_gid[h->mv_col[kk - 1]] >= s->h1_gid[c];
    }
    if (bad)
      printf("%s: row %d (gid %lld) differs from its zones' dofs\n", label, l,
             (long long)s->h1_gid[l]);
  }
  TEST_ASSERT(!bad, "%s: every row the distinct dofs of its zones, ascending", label);
  free(in);
  int64_t sum1d = 0, total = 0, want = 1, mine = rp[nown];
  for (int i = 0; i <= n * k; i++) sum1d += RowLength1D(n, k, i);
  for (int g = 0; g < s->dim; g++) want *= sum1d;
  MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  TEST_ASSERT(total == want, "%s: %lld entries over the ranks, %lld expected", label,
              (long long)total, (long long)want);
}

// 2. The matrix with its entries at kBase + k (only those pages are touched).
typedef struct {
  int64_t *rowptr;
  int *col;
  double *val;
  size_t col_bytes, val_bytes;
} Shifted;

static void *MapSparse(size_t bytes) {
  void *p =
      mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void ShiftedFree(Shifted *m) {
  free(m->rowptr);
  if (m->col) munmap(m->col, m->col_bytes);
  if (m->val) munmap(m->val, m->val_bytes);
  memset(m, 0, sizeof *m);
}

static int ShiftedCreate(const BlastHydroData *hd, Shifted *m) {
  memset(m, 0, sizeof *m);
  const int nown = hd->h1_nown;
  const int64_t nnz = hd->full.rowptr[nown], n = kBase + nnz;
  m->col_bytes = (size_t)n * sizeof(int), m->val_bytes = (size_t)n * sizeof(double);
  m->rowptr = malloc(((size_t)nown + 1) * sizeof(int64_t));
  m->col = MapSparse(m->col_bytes);
  m->val = MapSparse(m->val_bytes);
  if (!m->rowptr || !m->col || !m->val) {
    ShiftedFree(m);
    return -1;
  }
  for (int l = 0; l <= nown; l++) m->rowptr[l] = kBase + hd->full.rowptr[l];
  memcpy(m->col + kBase, hd->full.col, (size_t)nnz * sizeof(int));
  memcpy(m->val + kBase, hd->full.val, (size_t)nnz * sizeof(double));
  return 0;
}

static int SameBits(const double *a, const double *b, size_t n) {
  return !memcmp(a, b, n * sizeof(double));
}

// The layout from the shifted matrix equals the layout from the original, array by array.
static void CheckSell(const BlastHydroData *hd, const BlastHydroData *hs, const char *label) {
  const int sigmas[2] = {0, BLAST_SELL_SIGMA_DEFAULT};
  for (int i = 0; i < 2; i++) {
    BlastSell a, b;
    TEST_CALL(BlastSellBuild(hd->h1_nown, hd->mv_ninterior, hd->mv_rows, hd->full.rowptr,
                             hd->full.col, hd->full.val, sigmas[i], &a));
    TEST_CALL(BlastSellBuild(hs->h1_nown, hs->mv_ninterior, hs->mv_rows, hs->full.rowptr,
                             hs->full.col, hs->full.val, sigmas[i], &b));
    const size_t ns = (size_t)a.nslots, nn = (size_t)a.nnz;
    const int same = a.nslots == b.nslots && a.nslots_interior == b.nslots_interior &&
                     a.nnz == b.nnz && a.nnz_rows == b.nnz_rows && a.maxlen == b.maxlen &&
                     !memcmp(a.row, b.row, ns * sizeof(int)) &&
                     !memcmp(a.len, b.len, ns * sizeof(int)) &&
                     !memcmp(a.off, b.off, (ns / BLAST_SELL_C + 1) * sizeof(long long)) &&
                     !memcmp(a.col, b.col, nn * sizeof(int)) && SameBits(a.val, b.val, nn);
    TEST_ASSERT(same, "%s: SELL layout (sigma %d) of the matrix past 2^31 differs", label,
                sigmas[i]);
    TEST_ASSERT(a.nnz_rows == hd->full.rowptr[hd->h1_nown], "%s: SELL holds %lld of %lld entries",
                label, a.nnz_rows, (long long)hd->full.rowptr[hd->h1_nown]);
    BlastSellFree(&a), BlastSellFree(&b);
  }
}

// y = M x on a backend context made from `hd`: rows all, then interior and boundary rows
// (the order of the PCG), every component and components 0 and 2 only. out[0..5*n).
static void Products(const BlastBackendOps *ops, const BlastHydroData *hd, const double *x,
                     double *out, const char *label) {
  const size_t n = 3 * (size_t)hd->h1_next;
  void *ctx = NULL;
  double *dx = NULL, *dy = NULL;
  TEST_CALL(ops->ctx.create(hd, &ctx));
  if (!ctx) return;
  TEST_CALL(ops->vec.alloc(ctx, n, &dx));
  TEST_CALL(ops->vec.alloc(ctx, n, &dy));
  if (dx && dy) {
    TEST_CALL(ops->vec.from_host(ctx, n, x, dx));
    const unsigned all = (1u << hd->dim) - 1u;
    const struct {
      int rows;
      unsigned mask;
    } calls[5] = {{BLAST_ROWS_ALL, all},
                  {BLAST_ROWS_INTERIOR, all},
                  {BLAST_ROWS_BOUNDARY, all},
                  {BLAST_ROWS_INTERIOR, 5u & all},
                  {BLAST_ROWS_BOUNDARY, 5u & all}};
    for (int i = 0; i < 5; i++) {
      TEST_CALL(ops->vec.set(ctx, n, 0.0, dy));
      if (calls[i].rows == BLAST_ROWS_BOUNDARY)  // the interior part first, as the PCG does
        TEST_CALL(ops->mass.mult(ctx, BLAST_ROWS_INTERIOR, hd->dim, calls[i].mask, dx, dy));
      TEST_CALL(ops->mass.mult(ctx, calls[i].rows, hd->dim, calls[i].mask, dx, dy));
      TEST_CALL(ops->ctx.sync(ctx));
      TEST_CALL(ops->vec.to_host(ctx, n, dy, out + i * n));
    }
  }
  if (dx) TEST_CALL(ops->vec.free(ctx, &dx));
  if (dy) TEST_CALL(ops->vec.free(ctx, &dy));
  TEST_CALL(ops->ctx.destroy(&ctx));
  printf("  %s: products done\n", label);
}

#ifdef BLAST_HAVE_CUDA
static double MaxRel(const double *a, const double *b, size_t n) {
  double d = 0.0, m = 0.0;
  for (size_t i = 0; i < n; i++) {
    d = fabs(a[i] - b[i]) > d ? fabs(a[i] - b[i]) : d;
    m = fabs(b[i]) > m ? fabs(b[i]) : m;
  }
  return m > 0.0 ? d / m : d;
}

static void GpuProducts(const BlastHydroData *hd, const BlastHydroData *hs, const double *x,
                        const double *ref_cpu, size_t n5, const char *label) {
  double *a = calloc(n5, sizeof(double)), *b = calloc(n5, sizeof(double));
  BlastGpuOptions opt;
  memset(&opt, 0, sizeof opt);
  opt.autotune = BLAST_AUTOTUNE_OFF;
  BlastCudaSetOptions(&opt);  // the double-double SELL kernel: the CPU backend's bits
  Products(&blast_backend_cuda, hs, x, a, "cuda SELL, entries past 2^31");
  TEST_ASSERT(SameBits(a, ref_cpu, n5), "%s: CUDA SELL product past 2^31 differs from the CPU's",
              label);
  opt.spmv_cusparse = 1;  // cuSPARSE on 64-bit CSR copies
  BlastCudaSetOptions(&opt);
  Products(&blast_backend_cuda, hd, x, a, "cuda cuSPARSE");
  Products(&blast_backend_cuda, hs, x, b, "cuda cuSPARSE, entries past 2^31");
  TEST_ASSERT(SameBits(a, b, n5), "%s: cuSPARSE product past 2^31 differs from the original's",
              label);
  const double rel = MaxRel(b, ref_cpu, n5);
  TEST_ASSERT(rel < 1e-13, "%s: cuSPARSE product %.3e from the CPU's", label, rel);
  opt.spmv_cusparse = 0;
  BlastCudaSetOptions(&opt);
  free(a), free(b);
}
#endif

static void CheckCase(BlastMesh mesh, int n, int k) {
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  cfg.order_kinematic = k, cfg.order_thermo = k - 1, cfg.assembly = BLAST_ASSEMBLY_FULL;
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (!h) return;
  int nranks;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  char label[96];
  snprintf(label, sizeof label, "%dD Q%d-Q%d %d^%d, %d rank%s", h->space->dim, k, k - 1, n,
           h->space->dim, nranks, nranks > 1 ? "s" : "");
  CheckPattern(h, n, k, label);
  const BlastHydroData *hd = &h->hd;
  printf("%s: %lld entries, %d owned rows (%d interior)\n", label,
         (long long)hd->full.rowptr[hd->h1_nown], hd->h1_nown, hd->mv_ninterior);
  Shifted sh;
  if (ShiftedCreate(hd, &sh)) {
    g_unmapped = 1;
    printf("%s: cannot map %.1f GB of address space: entries past 2^31 not checked\n", label,
           (double)(kBase * 12) / 1e9);
    BlastHydroDestroy(&h);
    return;
  }
  BlastHydroData hs = *hd;
  hs.full.rowptr = sh.rowptr, hs.full.col = sh.col, hs.full.val = sh.val;
  TEST_ASSERT(hs.full.rowptr[0] > INT32_MAX, "%s: offsets past 2^31", label);
  CheckSell(hd, &hs, label);
  const size_t n1 = 3 * (size_t)hd->h1_next, n5 = 5 * n1;
  double *x = malloc(n1 * sizeof(double)), *ref = calloc(n5, sizeof(double)),
         *got = calloc(n5, sizeof(double));
  uint64_t r = 0x9E3779B97F4A7C15ull + (uint64_t)n1;
  for (size_t i = 0; i < n1; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    x[i] = (double)(r >> 11) / 9007199254740992.0 - 0.5;
  }
  Products(&blast_backend_cpu, hd, x, ref, "cpu");
  Products(&blast_backend_cpu, &hs, x, got, "cpu, entries past 2^31");
  TEST_ASSERT(SameBits(got, ref, n5), "%s: CPU product past 2^31 differs", label);
  int nonzero = 0;
  for (size_t i = 0; i < n5; i++) nonzero += ref[i] != 0.0;
  TEST_ASSERT(nonzero > (int)(n5 / 10), "%s: products not trivial (%d non-zeros)", label, nonzero);
#ifdef BLAST_HAVE_CUDA
  if (g_gpu) GpuProducts(hd, &hs, x, ref, n5, label);
#endif
  free(x), free(ref), free(got);
  ShiftedFree(&sh);
  BlastHydroDestroy(&h);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  g_gpu = argc > 1 && !strcmp(argv[1], "--gpu");
  if (g_gpu) {
#ifdef BLAST_HAVE_CUDA
    BlastGpuInfo info;
    if (BlastCudaDeviceCount() <= 0 || BlastCudaSelectDevice(0, &info)) {
      BlastErrorClear();
      printf("SKIPPED: no usable CUDA device\n");
      MPI_Finalize();
      return kSkip;
    }
    printf("device: %s\n", info.name);
#else
    printf("SKIPPED: the CUDA backend is not compiled in this build\n");
    MPI_Finalize();
    return kSkip;
#endif
  }
  const struct { int dim, n, k; } cases[] = {{2, 4, 2}, {2, 3, 3}, {3, 3, 2}, {3, 2, 1}, {3, 2, 3}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    BlastMesh mesh = NULL;
    TEST_CALL(TestUnitBoxMesh(cases[i].dim, cases[i].n, &mesh));
    if (mesh) CheckCase(mesh, cases[i].n, cases[i].k);
    BlastMeshDestroy(&mesh);
  }
  int rc = BlastTestFinish("test_mass_csr64");
  int any = g_unmapped;
  MPI_Allreduce(&g_unmapped, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  if (!rc && any) {
    printf("SKIPPED: the matrix past 2^31 could not be mapped (see above)\n");
    return kSkip;
  }
  return rc;
}
