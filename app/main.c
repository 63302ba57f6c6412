// blast_gpu entry point (skeleton; grows with the solver).
#include <mpi.h>
#include <stdio.h>

#include "blast.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  BlastErrorSetRank(rank);
  if (!rank) printf("blast_gpu %s (%s)\n", BLAST_VERSION, BLAST_GIT);
  MPI_Finalize();
  return 0;
}
