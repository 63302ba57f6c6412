#include "testlib.h"

#include <mpi.h>
#include <string.h>

int blast_test_failures = 0, blast_test_checks = 0;

int BlastTestFinish(const char *name) {
  printf("%s: %d checks, %d failures: %s\n", name, blast_test_checks, blast_test_failures,
         blast_test_failures ? "FAIL" : "PASS");
  return blast_test_failures ? 1 : 0;
}

int BlastTestSameMessageEverywhere(const char *msg) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char buf[2048];
  snprintf(buf, sizeof buf, "%s", rank == 0 ? msg : "");
  MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
  int differ = strncmp(buf, msg, sizeof buf - 1) != 0, any = 0;
  MPI_Allreduce(&differ, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return !any;
}
