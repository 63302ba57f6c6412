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
  kMaxFamilies = 8,
  kMaxInstances = 32,       ///< at least every BLAST_MAX_* of config.h
  kSectionLen = 160,        ///< longest section header kept ([family.NAME] and more, for messages)
  kMaxListValues = 32,      ///< most values of a list key (BLAST_MAX_SELECT_ATTRS)
  kMaxDeckBytes = 1 << 20,  ///< larger files are not decks
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
  char cur_section[kSectionLen];   ///< the section header in effect (inih cuts long ones)
  // Named sections: instances of each family so far, the line of their first header, and
  // the state of each key of each instance (fstate + fstate_base[f] + i * nkeys + key).
  int ninst[kMaxFamilies];
  int inst_line[kMaxFamilies][kMaxInstances];
  DeckKeyState *fstate;
  int fstate_base[kMaxFamilies];
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
/// The number of values list key k has at base (its count key's value in the BlastConfig at
/// base, within k->size; or the count stored at base + k->count_offset).
int DeckListCount(const BlastDeckKey *k, const void *base);

int DeckIsList(const BlastDeckKey *k);
/// The type as --help names it: "integer", "real", "bool", ...
const char *DeckTypeName(const BlastDeckKey *k);
/// What the key accepts: "an integer in 1..8", "one of: a, b", ...
void DeckDescribeExpected(const BlastDeckKey *k, char *buf, size_t n);

/// The words of a BOOL key.
extern const BlastDeckChoice kDeckBool[];
/// Parse `value` (non-empty, stripped) for key k into its field at base (a BlastConfig, or
/// a family's instance). Lists set *count (and store it at count_offset when they have no
/// count_key).
int DeckParseValue(const BlastDeckKey *k, const char *value, const char *where, void *base,
                   int *count);
/// Give key k its built-in default at base (lists: the default in every direction).
int DeckApplyDefault(const BlastDeckKey *k, void *base);
/// Whether list key k counts its own values (no count_key).
int DeckIsCounted(const BlastDeckKey *k);
/// Bytes of key k's field (with the count of a counted list: see DeckFieldEqual).
size_t DeckFieldBytes(const BlastDeckKey *k);
/// Whether key k has the same value at base a and base b (counted lists: and the count).
int DeckFieldEqual(const BlastDeckKey *k, const void *a, const void *b);
/// Whether a value can be written back as a deck line `key = value` that inih reads as is.
int DeckWritable(const BlastDeckKey *k, const char *value);

// ---------------------------------------------------------------------------------------
// deck_values.c (continued): the value types of the named sections

/// Store `where` in a BlastExprText or section where of BLAST_WHERE_MAX bytes (its tail, after
/// "...", when it does not fit, so that the line number stays).
void DeckStoreWhere(char *dst, const char *where);
/// The words of [region.NAME] select, with the BlastSelectKind each stands for.
extern const BlastDeckChoice kDeckSelectors[];

// ---------------------------------------------------------------------------------------
// deck_instances.c: the named sections while the deck is read and resolved

/// The family of a section header (`material.water` -> material, `exact` -> exact), -1 if
/// none; *name points at the part after the dot ("" for [exact]).
int DeckFamilyOf(const char *section, const char **name);
/// A section header of a family (ScanSectionHeader): check the name, and create the
/// instance at its first header.
int DeckFamilyHeader(BlastDeck d, int f, const char *section, const char *where);
/// Set a key of a named section (a deck line, or an override of an instance the deck has).
int DeckFamilySet(BlastDeck d, int f, const char *section, const char *key, const char *value,
                  DeckOrigin origin, int line, const char *where);
/// An unknown section: a family's header with a typo, or no family ("did you mean").
/// Raises BLAST_ERR_INPUT (or returns 0 when the name is no family's at all).
int DeckFamilyUnknown(const char *where, const char *section);
/// Required keys, defaults, checks and expressions of every instance; the rules of
/// [problem] name = custom. Runs after the other keys are resolved.
int DeckFamiliesResolve(BlastDeck d);
/// The family a key of that name belongs to (for "it belongs in [material.NAME]"), or -1.
int DeckFamilyOfKey(const char *key);
/// Allocate the key states of the families (BlastDeckCreate).
int DeckFamiliesCreate(BlastDeck d);
/// The state of key `key` of instance i of family f.
DeckKeyState *DeckFamilyState(BlastDeck d, int f, int i, int key);

// deck_families.c: the family table (BlastDeckFamilies) and the checks of its instances.

// deck_echo.c
/// The value of key k at base (BlastConfig or a family's instance) as deck text.
int DeckFormatValue(const BlastDeckKey *k, const void *base, char *buf, size_t n);

#endif  // BLAST_DECK_IMPL_H
