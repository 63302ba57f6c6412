/// @file cli.h
/// @brief Command line of blast_gpu: `blast_gpu [options] deck.ini [section.key=value ...]`.
#ifndef BLAST_CLI_H
#define BLAST_CLI_H

#include <mpi.h>

#include "config.h"

typedef enum {
  BLAST_CLI_RUN = 0,  ///< cfg is resolved: run the job
  BLAST_CLI_EXIT = 1  ///< an informational option was handled (--help, --version, ...): exit 0
} BlastCliAction;

/// Parse the command line on every rank of `comm` (rank 0 reads the deck file and
/// broadcasts its text; every rank parses the same text). Bad input returns
/// BLAST_ERR_INPUT, marked collective (identical on all ranks), with a message naming
/// file:line (or the command-line argument) and nothing written.
int BlastCliParse(MPI_Comm comm, int argc, char **argv, BlastConfig *cfg, BlastCliAction *action);

#endif  // BLAST_CLI_H
