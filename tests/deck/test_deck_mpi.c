// BlastDeckLoad on several ranks: rank 0 reads, every rank resolves the same config; bad
// input (bad deck, missing file, bad override, NUL byte) fails on every rank with the same
// message, marked BLAST_COLLECTIVE_SAME so that it is printed once.
// Arguments: a good deck, a bad deck and the expected start of its message.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "blast_mpi.h"
#include "deck.h"
#include "testlib.h"

static int rank = 0, size = 1;

/// The same bytes on every rank?
static int SameEverywhere(const void *buf, int n) {
  char *root = NULL;
  if (BlastMalloc((size_t)n, &root)) return 0;
  if (!rank) memcpy(root, buf, (size_t)n);
  MPI_Bcast(root, n, MPI_BYTE, 0, MPI_COMM_WORLD);
  int mine = !memcmp(root, buf, (size_t)n), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  BlastFree(&root);
  return all;
}

static void ExpectCollective(int ierr, const char *what, const char *part) {
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
  TEST_ASSERT(ierr == BLAST_ERR_INPUT, "%s: rank %d returned %d (%s)", what, rank, ierr, msg);
  TEST_ASSERT(BlastErrorCollective() == BLAST_COLLECTIVE_SAME, "%s: not marked SAME", what);
  TEST_ASSERT(strstr(msg, part), "%s: message '%s' lacks '%s'", what, msg, part);
  char padded[2048] = "";
  snprintf(padded, sizeof padded, "%s", msg);
  TEST_ASSERT(SameEverywhere(padded, sizeof padded), "%s: messages differ between ranks", what);
  BlastErrorClear();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  BlastErrorSetRank(rank);
  TEST_ASSERT(argc == 4, "usage: test_deck_mpi good.ini bad.ini expected-message-part");
  if (argc == 4) {
    BlastConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    char *ov[] = {"time.cfl=0.125", "output.print_every=7"};
    TEST_CALL(BlastDeckLoad(MPI_COMM_WORLD, argv[1], 2, ov, &cfg));
    TEST_ASSERT(cfg.cfl == 0.125 && cfg.print_every == 7, "overrides applied");
    TEST_ASSERT(!strcmp(cfg.deck_path, argv[1]), "deck_path");
    TEST_ASSERT(SameEverywhere(&cfg, (int)sizeof cfg), "configs differ between ranks");

    BlastConfig bad;
    ExpectCollective(BlastDeckLoad(MPI_COMM_WORLD, argv[2], 0, NULL, &bad), "bad deck", argv[3]);
    ExpectCollective(BlastDeckLoad(MPI_COMM_WORLD, "no/such/deck.ini", 0, NULL, &bad),
                     "missing file", "no/such/deck.ini: cannot open the deck");
    char *badov[] = {"time.cfl=0.5", "time.cfll=0.3"};
    int argnos[] = {4, 5};
    ExpectCollective(BlastDeckLoadArgs(MPI_COMM_WORLD, argv[1], 2, badov, argnos, &bad),
                     "bad override", "command line argument 5 ('time.cfll=0.3')");
    // A NUL byte would make inih stop early and ignore the rest: refused with its line.
    if (!rank) {
      FILE *f = fopen("deck_with_nul.ini", "wb");
      static const char text[] = "[problem]\nname = sod\n[time]\ncfl = 0.5\0junk\n";
      if (f) {
        fwrite(text, 1, sizeof text - 1, f);
        fclose(f);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ExpectCollective(BlastDeckLoad(MPI_COMM_WORLD, "deck_with_nul.ini", 0, NULL, &bad), "NUL byte",
                     "deck_with_nul.ini:4: NUL byte");
    ExpectCollective(BlastDeckLoad(MPI_COMM_WORLD, ".", 0, NULL, &bad), "directory",
                     ".: cannot read the deck");
  }
  int failures = 0;
  MPI_Allreduce(&blast_test_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  blast_test_failures = failures;
  int rc = BlastTestFinish(rank ? "test_deck_mpi (rank > 0)" : "test_deck_mpi");
  MPI_Finalize();
  return rc;
}
