// The CUDA backend's device memory model and its out-of-memory advice (backends/cuda/memory.c):
// host code only, so this test runs without a GPU. On a GPU node, test_gpu_oom.sh
// provokes the error for real and test_gpu_vs_cpu compares the model with the memory the
// backend takes.
#include <math.h>
#include <string.h>

#include "blast_cuda.h"
#include "testlib.h"

// 3D box of n^3 zones, Q_k-Q_{k-1}, one rank: the sizes the front end would pass.
static BlastCudaMemorySizes Box3D(int n, int k) {
  BlastCudaMemorySizes s;
  memset(&s, 0, sizeof s);
  const long long nv = (long long)(k * n + 1) * (k * n + 1) * (k * n + 1);
  s.dim = 3, s.nz = n * n * n, s.h1_nd = (k + 1) * (k + 1) * (k + 1), s.l2_nd = k * k * k;
  s.nqp = (2 * k) * (2 * k) * (2 * k);  // the deck default: 2k points per direction
  s.h1_nl = s.h1_nown = s.h1_next = (int)nv;
  // a tensor-product mesh: nnz = nnz1^3, nnz1 = couplings of the 1D dofs (a vertex inside
  // couples to 2k+1 dofs, a boundary vertex or a dof inside an element to k+1)
  const long long nnz1 =
      (long long)(n - 1) * (2 * k + 1) + 2 * (k + 1) + (long long)n * (k - 1) * (k + 1);
  s.mv_nnz = nnz1 * nnz1 * nnz1;
  s.ess = 3LL * 6 * (k * n + 1) * (k * n + 1);
  return s;
}

static int Contains(const char *msg, const char *what) {
  const int ok = strstr(msg, what) != NULL;
  if (!ok) fprintf(stderr, "  message: %s\n  lacks: %s\n", msg, what);
  return ok;
}

int main(void) {
  // The model grows with the zones, by the per-zone data of Q2-Q1 (F_z alone is
  // 81 x 8 doubles = 5.2 KB per zone) and is bounded by what the backend measured on an
  // H200 (docs/performance.md: 23.0 KB per zone for its data at 1.1 M zones, plus the
  // front end's state, RK and PCG vectors).
  const BlastCudaMemorySizes a = Box3D(40, 2), b = Box3D(80, 2);
  const double ea = (double)BlastCudaMemoryEstimate(&a), eb = (double)BlastCudaMemoryEstimate(&b);
  const double per_zone = (eb - ea) / (double)(b.nz - a.nz);
  printf("Q2-Q1 3D: %.1f KB per zone (model), %.3f GiB for 80^3 zones\n", per_zone / 1024.0,
         eb / 1073741824.0);
  TEST_ASSERT(ea > BLAST_CUDA_MEMORY_FIXED && eb > ea, "estimates %g %g", ea, eb);
  // at least F_z (5.2 KB), J0^{-1} and S at 64 points (4.6 and 5.0 KB) and one copy of the
  // mass matrix (~8 rows of 64 entries per zone at 12 bytes: 6.1 KB); at most the measured
  // 23.0 KB of the backend's data plus the front end's vectors (~5 KB), with a margin
  TEST_ASSERT(per_zone > 20.0 * 1024.0 && per_zone < 32.0 * 1024.0, "%.1f KB per zone",
              per_zone / 1024.0);
  // `[gpu] spmv = cusparse` holds the matrix once too, as CSR (interior and boundary rows)
  // instead of sliced ELLPACK, and M_E^{-1} as CSR (column indices besides the values),
  // with 64-bit row offsets and columns (4 bytes more per entry than SELL's int columns):
  // more, but less than a second matrix copy (nnz x 12 bytes)
  BlastCudaMemorySizes bc = b;
  bc.cusparse = 1;
  const double extra = (double)BlastCudaMemoryEstimate(&bc) - eb;
  printf("cuSPARSE layout: %.1f KB per zone more\n", extra / b.nz / 1024.0);
  TEST_ASSERT(extra > 4.0 * (double)b.mv_nnz && extra < (4.0 + 0.25 * 12.0) * (double)b.mv_nnz,
              "cuSPARSE layout: %.3g bytes more for %lld non-zeros", extra, b.mv_nnz);
  // Higher order: more per zone (Q4-Q3: F_z is 375 x 64 doubles = 192 KB, the mass matrix
  // two copies of ~14000 non-zeros per zone).
  const BlastCudaMemorySizes q4 = Box3D(16, 4);
  const double pq4 = ((double)BlastCudaMemoryEstimate(&q4) - BLAST_CUDA_MEMORY_FIXED) / q4.nz;
  printf("Q4-Q3 3D: %.1f KB per zone (model)\n", pq4 / 1024.0);
  TEST_ASSERT(pq4 > 192.0 * 1024.0 && pq4 < 800.0 * 1024.0, "%.1f KB per zone", pq4 / 1024.0);

  // Partial assembly (mode_partial.cu): no F_z, J0^{-1}, S nor mass matrix; qmass and R0 at the
  // points, the rows and mass values, M_E^{-1}, the gather's indices and the front end's
  // vectors: at most 12 KB per zone at Q2 (the budget of the 2.1 M-zone runs on one H200),
  // far below the full path's, and no generic-kernel scratch in 3D without a kept stress.
  BlastCudaMemorySizes pa = a, pb = b;
  pa.pa = pb.pa = 1, pa.nz_ext = a.nz, pb.nz_ext = b.nz;
  pa.mass_nidx = 27LL * a.nz, pb.mass_nidx = 27LL * b.nz;
  const double ppa = ((double)BlastCudaMemoryEstimate(&pb) - (double)BlastCudaMemoryEstimate(&pa)) /
                     (double)(b.nz - a.nz);
  printf("Q2-Q1 3D partial assembly: %.1f KB per zone (model)\n", ppa / 1024.0);
  TEST_ASSERT(ppa > 5.0 * 1024.0 && ppa < 12.0 * 1024.0 && ppa < 0.5 * per_zone,
              "partial: %.1f KB per zone", ppa / 1024.0);

  char msg[2048];
  // 8 ranks on one H200-sized GPU that need 1.6x its free memory.
  BlastCudaShortfall m;
  memset(&m, 0, sizeof m);
  snprintf(m.gpu_name, sizeof m.gpu_name, "NVIDIA H200");
  m.device = 0, m.ranks = 8, m.dim = 3, m.zones = 6000000;
  m.free = 139.0 * 1073741824.0, m.total = 140.0 * 1073741824.0, m.need = 1.6 * m.free;
  BlastCudaMemoryAdvice(msg, sizeof msg, &m);
  printf("8 ranks: %s\n", msg);
  TEST_ASSERT(Contains(msg, "not enough memory on GPU 0 (NVIDIA H200)"), "header");
  TEST_ASSERT(Contains(msg, "the 8 ranks on it need about 222.40 GiB"), "need");
  TEST_ASSERT(Contains(msg, "only 139.00 GiB of 140.00 GiB is free"), "free");
  TEST_ASSERT(
      Contains(msg,
               "at least 2 GPUs with 139.00 GiB free each: at most 4 of these 8 ranks per GPU"),
      "layout");
  TEST_ASSERT(Contains(msg, "divides the zones by 8"), "mesh");
  TEST_ASSERT(Contains(msg, "CUDA context of its own"), "contexts");
  TEST_ASSERT(!strstr(msg, "other processes"), "no other processes: %s", msg);
  // zones that fit: (free - 8 x fixed) / per-zone, per-zone = (need - 8 x fixed) / zones
  const double pz = (m.need - 8 * BLAST_CUDA_MEMORY_FIXED) / m.zones;
  char fit[64];
  snprintf(fit, sizeof fit, "about %lld zones fit",
           (long long)((m.free - 8 * BLAST_CUDA_MEMORY_FIXED) / pz));
  TEST_ASSERT(Contains(msg, fit), "fit");

  // One rank, 2D, and a GPU mostly taken by another process.
  m.ranks = 1, m.dim = 2, m.zones = 1000000;
  m.free = 10.0 * 1073741824.0, m.need = 25.0 * 1073741824.0;
  BlastCudaMemoryAdvice(msg, sizeof msg, &m);
  printf("1 rank: %s\n", msg);
  TEST_ASSERT(Contains(msg, "the 1 rank on it needs about 25.00 GiB"), "1 rank");
  TEST_ASSERT(
      Contains(msg, "at least 3 GPUs with 10.00 GiB free each: run 3 or more ranks, one per GPU"),
      "gpus");
  TEST_ASSERT(Contains(msg, "130.00 GiB is held by CUDA contexts or other processes"), "others");
  TEST_ASSERT(Contains(msg, "divides the zones by 4"), "2D refinement");
  TEST_ASSERT(!strstr(msg, "context of its own"), "one rank: %s", msg);

  // Two ranks whose mesh needs four GPUs: more ranks, one per GPU.
  m.ranks = 2, m.dim = 3, m.zones = 110592;
  m.free = 0.98 * 1073741824.0, m.need = 3.46 * 1073741824.0;
  BlastCudaMemoryAdvice(msg, sizeof msg, &m);
  printf("2 ranks, 4 GPUs: %s\n", msg);
  TEST_ASSERT(Contains(msg,
                       "more GPUs (this mesh needs at least 4 GPUs with 0.98 GiB free each: "
                       "run 4 or more ranks, one per GPU)"),
              "more ranks than now");
  TEST_ASSERT(Contains(msg, "CUDA context of its own"), "contexts");

  // A short buffer is truncated, never overrun.
  char small[24];
  memset(small, 'x', sizeof small);
  BlastCudaMemoryAdvice(small, 16, &m);
  TEST_ASSERT(strlen(small) == 15 && small[16] == 'x', "truncation: '%s'", small);
  return BlastTestFinish("test_gpu_memory");
}
