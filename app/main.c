// blast_gpu entry point: MPI/OpenMP start-up, command line, the run, error exit policy.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "blast.h"
#include "cli.h"

// Report an error according to how far it is known across ranks, and end the process.
static int Finish(int ierr) {
  if (!ierr) {
    MPI_Finalize();
    return 0;
  }
  int rank = BlastErrorGetRank();
  switch (BlastErrorCollective()) {
    case BLAST_COLLECTIVE_SAME:
      if (!rank) BlastErrorPrint();
      break;
    case BLAST_COLLECTIVE_OWN: BlastErrorPrint(); break;
    case BLAST_COLLECTIVE_PASSIVE: break;
    case BLAST_COLLECTIVE_NONE:
    default:
      // Only this rank knows: the others may be waiting in a collective. End the job.
      BlastErrorPrint();
      MPI_Abort(MPI_COMM_WORLD, BlastExitCode(ierr));
      return BlastExitCode(ierr);
  }
  MPI_Finalize();
  return BlastExitCode(ierr);
}

static int Run(int argc, char **argv) {
  BlastConfig cfg;
  BlastCliAction action;
  memset(&cfg, 0, sizeof cfg);
  BlastCall(BlastCliParse(MPI_COMM_WORLD, argc, argv, &cfg, &action));
  if (action == BLAST_CLI_EXIT) return 0;
  return 0;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "blast_gpu: MPI_Init_thread failed\n");
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  BlastErrorSetRank(rank);
  return Finish(Run(argc, argv));
}
