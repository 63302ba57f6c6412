// The host memory model (hydro/memory_cpu.h): per-zone estimates of the cases measured in
// docs (peak RSS of blast_gpu, 2 steps, one thread), the overflow-free size checks of the
// serial mesh, and the budget (ulimit -v is seen).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "blast.h"
#include "fe.h"
#include "memory_cpu.h"
#include "testlib.h"

// Peak RSS per zone measured on the development machine (Release, CPU backend, one
// thread; the difference of two sizes, so the process itself cancels), bytes.
typedef struct {
  int dim, k, m;
  double measured;
  int partial;
} Case;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const Case cases[] = {
      {2, 2, 1, 3908.0, 0},   // sedov2d rp 4 -> 5 (65536 -> 262144 zones)
      {3, 2, 1, 22514.0, 0},  // sedov3d rp 1 -> 2 (4096 -> 32768 zones)
      {3, 3, 1, 81080.0, 0},  // sedov3d Q3-Q1 (the deck sets order_thermo = 1) rp 0 -> 1
      {2, 4, 1, 17071.0, 0},  // sedov2d Q4-Q1 (the deck sets order_thermo = 1) rp 2 -> 3
      // bench/gpu/sedov3d_box.ini Q4-Q3, partial assembly, 1 step: 24^3 -> 32^3 zones
      {3, 4, 3, 119570.0, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const Case *c = &cases[i];
    BlastCpuMemorySizes s;
    memset(&s, 0, sizeof s);
    s.dim = c->dim, s.k = c->k, s.m = c->m, s.q1d = BlastQuadraturePoints1D(c->k, c->m, -1);
    s.zones = 1000000, s.backend_host = 1, s.partial = c->partial;
    const double per_zone = BlastCpuMemoryEstimate(&s) / 1e6;
    const double ratio = per_zone / c->measured;
    printf("%dD Q%d-Q%d%s: model %.0f B/zone, measured %.0f B/zone, ratio %.2f\n", c->dim, c->k,
           c->m, c->partial ? " partial" : "", per_zone, c->measured, ratio);
    TEST_ASSERT(ratio > 0.9 && ratio < 1.3, "%dD Q%d: model/measured = %.2f outside [0.9, 1.3]",
                c->dim, c->k, ratio);
    s.backend_host = 0;
    TEST_ASSERT(BlastCpuMemoryEstimate(&s) / 1e6 < per_zone, "GPU runs need less host memory");
  }
  // The budget sees an address-space limit.
  struct rlimit rl = {(rlim_t)3 << 30, (rlim_t)3 << 30};
  TEST_ASSERT(setrlimit(RLIMIT_AS, &rl) == 0, "setrlimit");
  BlastMemoryBudget b;
  BlastMemoryBudgetLocal(&b);
  TEST_ASSERT(b.limit_kind == 1 && b.bytes > 0 && b.bytes <= 3.0 * 1073741824.0,
              "budget under ulimit -v 3 GiB: %.3g bytes, kind %d", b.bytes, b.limit_kind);
  char text[400];
  BlastMemoryBudgetText(&b, text, sizeof text);
  TEST_ASSERT(strstr(text, "ulimit -v") != NULL, "budget text: %s", text);
  // A serial mesh of 2^30 zones does not fit 3 GiB: refused with the key and the numbers.
  int ierr = BlastSerialMeshMemoryCheck(3, (int64_t)1 << 30, 64, "[mesh] refine_serial = 8");
  TEST_ASSERT(ierr == BLAST_ERR_INPUT &&
                  !strncmp(BlastErrorMessage(), "[mesh] refine_serial = 8: ", 26) &&
                  strstr(BlastErrorMessage(), "1073741824 zones"),
              "serial mesh check: %d %s", ierr, BlastErrorMessage());
  BlastErrorClear();
  TEST_ASSERT(BlastSerialMeshMemoryCheck(2, 1000, 10, "[mesh] refine_serial = 1") == 0,
              "a small serial mesh fits");
  int rc = BlastTestFinish("test_memory_model");
  MPI_Finalize();
  return rc;
}
