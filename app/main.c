// blast_gpu entry point: standard streams, MPI/OpenMP start-up, the command line, the run
// (run.h: its steps), and the error exit policy.
#define _POSIX_C_SOURCE 200809L  // setenv

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blast.h"
#include "blast_mpi.h"
#include "cli.h"
#include "run.h"

// Report an error according to how far it is known across ranks, and end the process.
static int Finish(int ierr, RunState *rs) {
  if (!ierr) {
    MPI_Finalize();
    return 0;
  }
  int rank = BlastErrorGetRank();
  switch (BlastErrorCollective()) {
    case BLAST_COLLECTIVE_SAME:
      if (!rank) BlastErrorPrint();
      break;
    case BLAST_COLLECTIVE_OWN:
      BlastErrorPrint();
      break;
    case BLAST_COLLECTIVE_PASSIVE:
      break;
    case BLAST_COLLECTIVE_NONE:
    default:
      // Only this rank knows: the others may be waiting in a collective. End the job.
      BlastErrorPrint();
      fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, BlastExitCode(ierr));
      return BlastExitCode(ierr);
  }
  // Every rank stops here together: freeing is safe (and local).
  RunStateFree(rs);
  MPI_Finalize();
  return BlastExitCode(ierr);
}

// The command line, then the run it asks for (none for --help, --version, --print-deck).
static int ParseAndRun(int argc, char **argv, RunState *rs) {
  BlastConfig cfg;
  BlastCliAction action;
  memset(&cfg, 0, sizeof cfg);
  BlastCall(BlastCliParse(MPI_COMM_WORLD, argc, argv, &cfg, &action));
  if (action == BLAST_CLI_EXIT) return 0;
  return BlastRun(argc, argv, &cfg, rs);
}

// A standard stream that is closed at start (`blast_gpu ... >&-`) is opened on /dev/null:
// otherwise the next file the run opens would take its number, and what is printed to
// stdout or stderr would be written into that file (a checkpoint, the lock, a mesh).
static void OpenClosedStandardStreams(void) {
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    const int n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
    if (n >= 0 && n != fd) {
      dup2(n, fd);
      close(n);
    }
  }
}

int main(int argc, char **argv) {
  OpenClosedStandardStreams();
  int provided = 0, rank = 0;
  // Open MPI's MPI-IO (OMPIO) picks a shared-file-pointer component at every file open;
  // its "lockedfile" one formats the file's name into a fixed buffer and aborts the
  // process ("buffer overflow detected") for paths of a few hundred characters. HDF5 uses
  // no shared file pointers: leave that component out, unless the user chose otherwise.
  setenv("OMPI_MCA_sharedfp", "^lockedfile", 0);
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "blast_gpu: MPI_Init_thread failed\n");
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  BlastErrorSetRank(rank);
  // BLAST_ERROR_TRACE=1: print where bad input and numerical failures were raised too.
  const char *trace_all = getenv("BLAST_ERROR_TRACE");
  BlastErrorSetTraceAll(trace_all && atoi(trace_all) > 0);
  RunState rs = {NULL, NULL, NULL, NULL, NULL, NULL, {-1}, {-1}};
  return Finish(ParseAndRun(argc, argv, &rs), &rs);
}
