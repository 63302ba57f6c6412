/// @file cli.h
/// @brief Command line of blast_gpu: `blast_gpu [options] deck.ini [section.key=value ...]`.
/// The options, the usage and --help/--version texts live here; the deck itself (parsing,
/// overrides, loading, echo, the key list of --help) is io/deck.h's.
#ifndef BLAST_CLI_H
#define BLAST_CLI_H

#include <mpi.h>
#include <stdio.h>

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

/// The command line split up.
typedef struct {
  int help, version, print_deck;  ///< options given
  const char *deck;               ///< the deck path (NULL: none given)
  int noverrides;
  char **overrides;  ///< the overrides (pointers into argv)
  int *argnos;       ///< their positions in argv
  char *restart;     ///< "checkpoint.restart=PATH" made from --restart PATH (one of overrides)
} BlastCliArgs;

/// Split argv (options may appear anywhere; `--` ends them). Errors: BLAST_ERR_INPUT for
/// an unknown option, or for no deck when neither --help nor --version is given.
/// Free with BlastCliArgsFree, also after an error.
int BlastCliParseArgs(int argc, char **argv, BlastCliArgs *args);
/// Free the arrays of BlastCliParseArgs.
void BlastCliArgsFree(BlastCliArgs *args);
/// Print the usage, the options, the exit codes and the whole schema (every section and
/// key with its type, default, range or choices and help) to `out`.
void BlastCliPrintHelp(FILE *out);

#endif  // BLAST_CLI_H
