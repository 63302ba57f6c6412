// MPI error conversion and collective error agreement (see blast_mpi.h).
#include "blast_mpi.h"

int BlastMPIError(const char *file, int line, const char *func, int mpierr, const char *call) {
  char s[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(mpierr, s, &len);
  return BlastErrorRaise(file, line, func, BLAST_ERR_MPI, "%s failed: %s", call, s);
}

int BlastAgree(MPI_Comm comm, int ierr, int identical) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // (code, rank) pairs: the lowest failing rank and its code win.
  int mine[2], first[2];
  int any = ierr != 0, anyall = 0;
  int mpierr = MPI_Allreduce(&any, &anyall, 1, MPI_INT, MPI_MAX, comm);
  if (mpierr != MPI_SUCCESS) return BlastMPIError(__FILE__, __LINE__, __func__, mpierr, "MPI_Allreduce");
  if (!anyall) return 0;
  mine[0] = ierr ? 0 : 1;
  mine[1] = rank;
  mpierr = MPI_Allreduce(mine, first, 1, MPI_2INT, MPI_MINLOC, comm);
  if (mpierr != MPI_SUCCESS) return BlastMPIError(__FILE__, __LINE__, __func__, mpierr, "MPI_Allreduce");
  int code = ierr;
  mpierr = MPI_Bcast(&code, 1, MPI_INT, first[1], comm);
  if (mpierr != MPI_SUCCESS) return BlastMPIError(__FILE__, __LINE__, __func__, mpierr, "MPI_Bcast");
  if (!ierr)
    BlastErrorRaise(__FILE__, __LINE__, __func__, code, "stopping because rank %d failed",
                    first[1]);
  // Every rank failed; identical if the caller says so or every rank's error was already
  // marked identical (e.g. by a collective routine deeper down).
  int all = 0, mineall = ierr != 0 ? (BlastErrorCollective() == BLAST_COLLECTIVE_SAME ? 2 : 1) : 0;
  mpierr = MPI_Allreduce(&mineall, &all, 1, MPI_INT, MPI_MIN, comm);
  if (all == 2) identical = 1;
  if (mpierr != MPI_SUCCESS) return BlastMPIError(__FILE__, __LINE__, __func__, mpierr, "MPI_Allreduce");
  BlastErrorSetCollective(!ierr ? BLAST_COLLECTIVE_PASSIVE
                                : (identical && all) ? BLAST_COLLECTIVE_SAME
                                                     : BLAST_COLLECTIVE_OWN);
  return ierr ? ierr : code;
}
