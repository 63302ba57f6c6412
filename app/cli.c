// Command line of blast_gpu (see cli.h): the options, usage, --help and --version, and
// what to print where. The deck (parsing, overrides, loading, echo) is io/deck.h's.
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "blast.h"
#include "blast_git.h"  // BLAST_GIT, generated at build time (cmake/git_version.cmake)
#include "blast_mpi.h"
#include "deck.h"
#include "meshio.h"
#include "memory.h"

#ifndef BLAST_VERSION
#define BLAST_VERSION "unknown"
#endif

static const char kUsage[] = "usage: blast_gpu [options] deck.ini [section.key=value ...]";

static const struct {
  const char *name, *alias, *arg, *help;
} kOptions[] = {
    {"--help", "-h", NULL, "print this help (options and every deck key) and exit"},
    {"--version", NULL, NULL, "print the version and exit"},
    {"--print-deck", NULL, NULL, "print the resolved deck (deck and overrides) as INI and exit"},
    {"--restart", NULL, "PATH",
     "continue the run from the checkpoint file PATH (the same as checkpoint.restart=PATH)"},
};

int BlastCliParseArgs(int argc, char **argv, BlastCliArgs *args) {
  BlastCheck(args && argv && argc >= 0, BLAST_ERR_ARG, "bad arguments");
  memset(args, 0, sizeof *args);
  BlastCall(BlastMalloc(argc + 1, &args->overrides));
  BlastCall(BlastMalloc(argc + 1, &args->argnos));
  int options_end = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!options_end && a[0] == '-' && a[1]) {
      if (!strcmp(a, "--")) {
        options_end = 1;
      } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        args->help = 1;
      } else if (!strcmp(a, "--version")) {
        args->version = 1;
      } else if (!strcmp(a, "--print-deck")) {
        args->print_deck = 1;
      } else if (!strcmp(a, "--restart") || !strncmp(a, "--restart=", 10)) {
        const char *path = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
        BlastCheck(path && path[0], BLAST_ERR_INPUT,
                   "command line argument %d: --restart needs a checkpoint file (--restart PATH)",
                   i);
        BlastCheck(!args->restart, BLAST_ERR_INPUT,
                   "command line argument %d: --restart is given twice", i);
        const size_t n = strlen(path) + sizeof "checkpoint.restart=";
        BlastCall(BlastMalloc(n, &args->restart));
        snprintf(args->restart, n, "checkpoint.restart=%s", path);
        args->overrides[args->noverrides] = args->restart;
        args->argnos[args->noverrides++] = i;
      } else {
        BlastDeckSuggestion sg;
        BlastDeckSuggestInit(&sg, a);
        for (size_t o = 0; o < sizeof kOptions / sizeof kOptions[0]; o++)
          BlastDeckSuggestOffer(&sg, kOptions[o].name);
        char ex[96];
        BlastDeckExcerpt(a, strlen(a), ex, sizeof ex);
        if (sg.best)
          BlastError(BLAST_ERR_INPUT,
                     "command line argument %d ('%s'): unknown option; did you mean '%s'?", i, ex,
                     sg.best);
        BlastError(BLAST_ERR_INPUT,
                   "command line argument %d ('%s'): unknown option (see blast_gpu --help)", i, ex);
      }
    } else if (!args->deck) {
      args->deck = a;
    } else {
      args->overrides[args->noverrides] = argv[i];
      args->argnos[args->noverrides++] = i;
    }
  }
  BlastCheck(args->deck || args->help || args->version, BLAST_ERR_INPUT,
             "no deck given; %s (see blast_gpu --help)", kUsage);
  return 0;
}

void BlastCliArgsFree(BlastCliArgs *args) {
  if (!args) return;
  BlastFree(&args->overrides);
  BlastFree(&args->argnos);
  BlastFree(&args->restart);
  args->noverrides = 0;
}

void BlastCliPrintHelp(FILE *out) {
  fprintf(out,
          "%s\n\n"
          "Runs the Lagrangian hydrodynamics problem described by an INI deck. Any deck key\n"
          "can be overridden after the deck as section.key=value, with the same checks as\n"
          "a deck line; a key of a named section the deck has as family.NAME.key=value\n"
          "(e.g. region.pool.density=900). Relative mesh paths are taken from the deck's\n"
          "directory. Named sections ([material.NAME], [region.NAME], [source.NAME] and\n"
          "[exact] with [problem] name = custom; [boundary.NAME] and [probe.NAME] with any\n"
          "problem) fill an array each, in the order of their first header.\n\n"
          "options:\n",
          kUsage);
  for (size_t o = 0; o < sizeof kOptions / sizeof kOptions[0]; o++) {
    char names[64];
    snprintf(names, sizeof names, "%s%s%s%s%s", kOptions[o].alias ? kOptions[o].alias : "",
             kOptions[o].alias ? ", " : "", kOptions[o].name, kOptions[o].arg ? " " : "",
             kOptions[o].arg ? kOptions[o].arg : "");
    fprintf(out, "  %-18s %s\n", names, kOptions[o].help);
  }
  fprintf(out,
          "\nexit codes: 0 success (also a clean stop after a checkpoint on SIGTERM, SIGUSR1, "
          "SIGINT or SIGHUP), 2 bad input (deck, command line, mesh, checkpoint), 3 numerical "
          "failure, 1 other errors\n\ndeck keys:\n");
  BlastDeckPrintKeys(out);
}

static int ParseArgs(MPI_Comm comm, int argc, char **argv, int rank, BlastConfig *cfg,
                     BlastCliAction *action, BlastCliArgs *args) {
  // Every rank has the same argv, so a usage error is the same everywhere.
  BlastCallAgree(comm, 1, BlastCliParseArgs(argc, argv, args));
  if (args->help || args->version) {
    if (!rank && args->help) BlastCliPrintHelp(stdout);
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
    // The mesh file's dimension resolves [fem] assembly = default.
    if (!rank && cfg->mesh_file[0]) BlastCall(BlastMeshPeekDim(cfg->mesh_file, &cfg->mesh_dim));
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
  BlastCliArgs args = {0};
  int ierr = ParseArgs(comm, argc, argv, rank, cfg, action, &args);
  BlastCliArgsFree(&args);
  BlastCall(ierr);
  return 0;
}
