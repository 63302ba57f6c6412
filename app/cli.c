// Command line of blast_gpu (see cli.h). The logic lives in io/deck.c; this file only
// decides what to print, and where.
#include "cli.h"

#include <stdio.h>

#include "blast.h"
#include "blast_git.h"  // BLAST_GIT, generated at build time (cmake/git_version.cmake)
#include "blast_mpi.h"
#include "deck.h"
#include "memory_cpu.h"

#ifndef BLAST_VERSION
#define BLAST_VERSION "unknown"
#endif

static int ParseArgs(MPI_Comm comm, int argc, char **argv, int rank, BlastConfig *cfg,
                     BlastCliAction *action, BlastDeckArgs *args) {
  // Every rank has the same argv, so a usage error is the same everywhere.
  BlastCallAgree(comm, 1, BlastDeckParseArgs(argc, argv, args));
  if (args->help || args->version) {
    if (!rank && args->help) BlastDeckPrintHelp(stdout);
    if (!rank && args->version && !args->help)
      printf("blast_gpu %s (%s)\n", BLAST_VERSION, BLAST_GIT);
    fflush(stdout);
    *action = BLAST_CLI_EXIT;
    return 0;
  }
  BlastCall(
      BlastDeckLoadArgs(comm, args->deck, args->noverrides, args->overrides, args->argnos, cfg));
  // The ranks per node, for the memory checks of the serial mesh (they run without MPI).
  BlastCall(BlastMemorySetNode(comm));
  if (args->print_deck) {
    if (!rank) BlastCall(BlastDeckWrite(cfg, stdout));
    fflush(stdout);
    *action = BLAST_CLI_EXIT;
    return 0;
  }
  *action = BLAST_CLI_RUN;
  return 0;
}

int BlastCliParse(MPI_Comm comm, int argc, char **argv, BlastConfig *cfg, BlastCliAction *action) {
  BlastCheck(argv && cfg && action, BLAST_ERR_ARG, "argv, cfg and action must not be NULL");
  int rank = 0;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  *action = BLAST_CLI_EXIT;
  BlastDeckArgs args = {0};
  int ierr = ParseArgs(comm, argc, argv, rank, cfg, action, &args);
  BlastDeckArgsFree(&args);
  BlastCall(ierr);
  return 0;
}
