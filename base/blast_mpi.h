/// @file blast_mpi.h
/// @brief MPI status checking and collective error agreement.
#ifndef BLAST_MPI_H
#define BLAST_MPI_H

#include <mpi.h>

#include "blast.h"

/// Convert an MPI status into BLAST_ERR_MPI with MPI's own error string.
int BlastMPIError(const char *file, int line, const char *func, int mpierr, const char *call);

#define BlastCallMPI(...)                                                          \
  do {                                                                             \
    int blast_mpierr_ = (__VA_ARGS__);                                             \
    if (blast_mpierr_ != MPI_SUCCESS)                                              \
      return BlastMPIError(__FILE__, __LINE__, __func__, blast_mpierr_, #__VA_ARGS__); \
  } while (0)

/// Agree on an error across `comm`: every rank passes its own status; if any rank
/// failed, every rank returns an error (ranks that did not fail return
/// BLAST_ERR_OTHER_RANK with a message naming the failed rank), and the error is marked
/// collective so that main() exits cleanly instead of aborting. No rank hangs.
/// If all ranks failed with identical messages (`identical` = 1), it is printed once.
int BlastAgree(MPI_Comm comm, int ierr, int identical);

/// BlastCallAgree(comm, f(...)): call f on every rank, then agree (see BlastAgree).
#define BlastCallAgree(comm, identical, ...)                                        \
  do {                                                                              \
    int blast_ierr_ = BlastAgree((comm), (__VA_ARGS__), (identical));               \
    if (blast_ierr_) return BlastErrorTrace(__FILE__, __LINE__, __func__, blast_ierr_); \
  } while (0)

#endif  // BLAST_MPI_H
