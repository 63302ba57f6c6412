// libFuzzer harness for the input-deck parser (io/deck.c, io/deck_schema.c).
//
// Input: deck text, optionally followed by a line "@@" and then one command-line
// override (`section.key=value`) per line. The deck goes through the same steps as
// BlastDeckLoad after rank 0 has read the file (no MPI needed): NUL bytes are refused,
// the text is parsed, the overrides applied, the deck resolved. Checked beyond "no crash,
// no leak, no undefined behaviour" (ASan, UBSan, LSan):
//   - a rejected deck gives BLAST_ERR_INPUT with a message that starts with
//     "fuzz.ini:" or "command line argument" (the contract of deck.h);
//   - an accepted deck's echo (BlastDeckWrite, i.e. --print-deck) parses back to the same
//     configuration, byte for byte once the where fields of the named sections (the lines
//     they were set on) are blanked (BlastDeckClearWhere).
// Any violation aborts, which libFuzzer reports as a crash with the input saved.
#define _POSIX_C_SOURCE 200809L  // open_memstream

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"
#include "deck.h"

enum { kMaxInput = 1 << 20, kMaxOverrides = 64 };

static const char kName[] = "fuzz.ini";

static void Fail(const char *what, const char *text) {
  fprintf(stderr, "fuzz_deck: %s\n", what);
  if (text) fprintf(stderr, "--- text:\n%s\n---\n", text);
  BlastErrorPrint();
  abort();
}

// A rejected deck: an input error whose message says where.
static void CheckRejection(int ierr) {
  if (ierr != BLAST_ERR_INPUT) Fail("a bad deck gave an error other than BLAST_ERR_INPUT", NULL);
  const char *msg = BlastErrorMessage();
  if (strncmp(msg, kName, strlen(kName)) && strncmp(msg, "command line argument", 21))
    Fail("the message of a bad deck does not start with the deck name or the argument", NULL);
  BlastErrorClear();
}

// An accepted deck: its echo parses back to the same configuration.
static void CheckEcho(const BlastConfig *cfg) {
  char *echo = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&echo, &len);
  if (!f) abort();
  int ierr = BlastDeckWrite(cfg, f);
  fclose(f);
  if (ierr) Fail("BlastDeckWrite refused a resolved deck", echo);
  static BlastConfig again;
  memset(&again, 0, sizeof again);
  ierr = BlastDeckParseText(echo, kName, "", &again);
  if (ierr) Fail("the echo of a resolved deck does not parse", echo);
  static BlastConfig mine;
  memcpy(&mine, cfg, sizeof mine);
  BlastDeckClearWhere(&mine);
  BlastDeckClearWhere(&again);
  if (memcmp(&mine, &again, sizeof again))
    Fail("the echo parses to a different configuration", echo);
  free(echo);
}

static int ParseAll(char *text, BlastConfig *cfg) {
  // Overrides after a line "@@".
  char *overrides[kMaxOverrides];
  int n = 0;
  char *sep = strstr(text, "\n@@\n");
  if (sep) {
    *sep = '\0';
    for (char *p = sep + 4; *p && n < kMaxOverrides;) {
      char *nl = strchr(p, '\n');
      if (nl) *nl = '\0';
      overrides[n++] = p;
      if (!nl) break;
      p = nl + 1;
    }
  }
  BlastDeck d = NULL;
  int ierr = BlastDeckCreate(kName, "decks", &d);
  if (!ierr) ierr = BlastDeckReadText(d, text);
  for (int i = 0; i < n && !ierr; i++) ierr = BlastDeckApplyOverride(d, overrides[i], i + 2);
  if (!ierr) ierr = BlastDeckResolve(d, cfg);
  BlastDeckDestroy(&d);
  return ierr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // BlastDeckLoad refuses files of kMaxDeckBytes (1 MiB) or more and NUL bytes before parsing.
  if (size >= kMaxInput || memchr(data, '\0', size)) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  static BlastConfig cfg;
  memset(&cfg, 0, sizeof cfg);
  int ierr = ParseAll(text, &cfg);
  if (ierr)
    CheckRejection(ierr);
  else
    CheckEcho(&cfg);
  free(text);
  return 0;
}
