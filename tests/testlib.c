#include "testlib.h"

int blast_test_failures = 0, blast_test_checks = 0;

int BlastTestFinish(const char *name) {
  printf("%s: %d checks, %d failures: %s\n", name, blast_test_checks, blast_test_failures,
         blast_test_failures ? "FAIL" : "PASS");
  return blast_test_failures ? 1 : 0;
}
