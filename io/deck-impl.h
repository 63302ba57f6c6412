// Internals shared by the deck sources (deck_values.c, deck_parse.c, deck_load.c,
// deck_echo.c): limits, the state of a deck being assembled, the schema index, and the
// value helpers. Not part of the io/ API: see deck.h.
#ifndef BLAST_DECK_IMPL_H
#define BLAST_DECK_IMPL_H

#include <ini.h>
#include <stddef.h>

#include "deck.h"

enum {
  kWhereLen = BLAST_PATH_MAX + 256,  ///< "deck:line" or "command line argument N ('...')"
  kExpectLen = 512,                  ///< description of what a key accepts
  kNameLen = 64,                     ///< longest section or key name kept for messages
  kMaxSections = 16,
  kMaxDeckBytes = 1 << 20,         ///< larger files are not decks
  /// The longest deck line (characters, without the newline): room for a key and a path
  /// of BLAST_PATH_MAX - 1 characters. inih reads lines of at most INI_MAX_LINE - 1
  /// characters; the reader hands it a longer key line as "key =" and keeps the value.
  kMaxDeckLine = BLAST_PATH_MAX + 1023,
  kMaxEchoLine = kMaxDeckLine - 2  ///< longest line written back (room for \r)
};

/// Where a key's value came from.
typedef enum { kUnset = 0, kFromDeck = 1, kFromCommandLine = 2 } DeckOrigin;

typedef struct {
  int origin;  ///< DeckOrigin
  int line;    ///< deck line (kFromDeck)
  int count;   ///< lists: number of values given
  char where[kWhereLen];
} DeckKeyState;

struct BlastDeck_private {
  char name[BLAST_PATH_MAX], dir[BLAST_PATH_MAX];
  const BlastDeckKey *keys;
  int nkeys;
  DeckKeyState *state;  ///< one per key
  BlastConfig cfg;      ///< values given so far (bytes canonical: zero padding)
  int text_read, overridden, resolved;
  int section_line[kMaxSections];  ///< first header line of each schema section (0: none)
  // Reader and handler state while inih runs.
  const char *text, *pos;
  int line;                ///< lines handed to inih so far = the line being parsed
  const char *line_start;  ///< raw text of that line
  size_t line_len;
  int long_line;                      ///< the line whose value is long_value (0: none)
  char long_value[kMaxDeckLine + 1];  ///< the value of a key line too long for inih
  int key_in_section;  ///< a key line since the last header: inih continues its value
  int key_line;        ///< line of that key
  int ierr, err_line;  ///< first error found by the reader or the handler
};

/// The schema table with its sections listed once each, in table order.
typedef struct {
  const BlastDeckKey *keys;
  int nkeys, nsections;
  const char *sections[kMaxSections];  ///< in table order
} DeckSchema;

// ---------------------------------------------------------------------------------------
// deck_values.c: text helpers, schema lookups, what a key accepts, one value

int DeckIsSpace(char c);
/// Copy at most n-1 bytes of [s, s+len) into buf, stripping surrounding white space.
void DeckCopyStripped(char *buf, size_t n, const char *s, size_t len);

/// The schema, built on first use from the constant table.
const DeckSchema *DeckGetSchema(void);
/// Index of a section in DeckSchema::sections, or -1.
int DeckFindSection(const char *section);
/// Index of a key in the schema table, or -1.
int DeckFindKey(const char *section, const char *key);
/// Index of the first key of that name in any section, or -1.
int DeckFindKeyAnySection(const char *key);
/// The INT key that gives the number of values of list key k (-1: none).
int DeckCountKey(const BlastDeckKey *k);
/// The number of values list key k has in cfg (its count key's value, within k->size).
int DeckListCount(const BlastDeckKey *k, const BlastConfig *cfg);

int DeckIsList(const BlastDeckKey *k);
/// The type as --help names it: "integer", "real", "bool", ...
const char *DeckTypeName(const BlastDeckKey *k);
/// What the key accepts: "an integer in 1..8", "one of: a, b", ...
void DeckDescribeExpected(const BlastDeckKey *k, char *buf, size_t n);

/// The words of a BOOL key.
extern const BlastDeckChoice kDeckBool[];
/// Parse `value` (non-empty, stripped) for key k into its field of *cfg. Lists set *count.
int DeckParseValue(const BlastDeckKey *k, const char *value, const char *where, BlastConfig *cfg,
                   int *count);
/// Give key k its built-in default in *cfg (lists: the default in every direction).
int DeckApplyDefault(const BlastDeckKey *k, BlastConfig *cfg);
/// Whether a value can be written back as a deck line `key = value` that inih reads as is.
int DeckWritable(const BlastDeckKey *k, const char *value);

#endif  // BLAST_DECK_IMPL_H
