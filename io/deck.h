/// @file deck.h
/// @brief INI input decks. One schema table (deck_schema.c) drives parsing, validation,
/// `blast_gpu --help` and the echo of the resolved deck; no key is handled outside it.
///
/// A deck is parsed with inih. Every problem in the input (unknown section or key, bad
/// type, value out of range, duplicate key, syntax error, missing required key, ...)
/// returns BLAST_ERR_INPUT with a message that starts with `deck:line:` (or with
/// `command line argument N ('text'):` for overrides) and, for typos, the closest valid
/// name. Nothing is written anywhere on error.
///
/// Resolution rules worth knowing:
/// - `[mesh] file` is relative to the deck's directory and is resolved to an absolute
///   path, so the echo of the deck works from any directory. When a file is given, the
///   generator fields of BlastConfig (dim, elements, size) are 0.
/// - `[fem] order_thermo = -1` resolves to order_kinematic - 1; `order_quadrature = -1`
///   stays -1 (the method's default).
/// - `[output] dir` defaults to "out/" + the deck's file name without extension,
///   relative to the current directory.
/// - Unused entries of `elements` and `size` (index >= dim) are 0.
///
/// Named sections (BlastDeckFamilies, deck_families.c): `[material.NAME]`,
/// `[region.NAME]`, `[source.NAME]`, `[boundary.NAME]`, `[probe.NAME]` and the single
/// `[exact]` fill the arrays of BlastConfig in the order of their first header line (NAME:
/// letters, digits, '_' and '-'); a header repeated with the same NAME continues its
/// section. An override addresses them as `region.NAME.key=value` (split at the last dot)
/// and only sets keys of sections the deck has. Material, region, source and exact
/// sections and [problem] gravity are for `[problem] name = custom` only, which needs a
/// material and a region. Every expression is compiled once (base/expr.h) when the deck is
/// resolved. Each named section and expression keeps where it was set (its `where`), so an
/// echo parses back to the same configuration once BlastDeckClearWhere blanks those.
#ifndef BLAST_DECK_H
#define BLAST_DECK_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---------------------------------------------------------------------------------------
// The schema

/// Value types of deck keys.
typedef enum {
  BLAST_DECK_INT,        ///< int
  BLAST_DECK_REAL,       ///< finite double
  BLAST_DECK_BOOL,       ///< int 0/1, written `true` / `false`
  BLAST_DECK_ENUM,       ///< int, one of `choices`
  BLAST_DECK_STRING,     ///< char[size]
  BLAST_DECK_INT_LIST,   ///< int[size], as many values as the key `count_key` says, or
                         ///< (no count_key) 1..size values, their number stored at count_offset
  BLAST_DECK_REAL_LIST,  ///< double[size], counted as INT_LIST
  BLAST_DECK_EXPR,       ///< BlastExprText: a number or an expression (base/expr.h)
  BLAST_DECK_EXPR_LIST,  ///< BlastExprText[size]: 1..size expressions separated by spaces,
                         ///< their number stored at count_offset
  BLAST_DECK_SELECT      ///< BlastSelector: `all`, `attributes A ...`, `box ...`, ...
} BlastDeckType;

/// Range flags of a key (BlastDeckKey::bounds). Lists apply the range to every value.
enum {
  BLAST_DECK_MIN = 1,       ///< value >= min
  BLAST_DECK_MAX = 2,       ///< value <= max
  BLAST_DECK_MIN_OPEN = 4,  ///< value > min
  BLAST_DECK_MAX_OPEN = 8   ///< value < max
};

/// One valid word of an enum key and the int it stands for.
typedef struct {
  const char *name;
  int value;
} BlastDeckChoice;

/// A deck being assembled: the values given so far and where each was given.
typedef struct BlastDeck_private *BlastDeck;

/// What a key's resolve hook gets to know.
typedef struct {
  const char *deck_name;  ///< the deck as named in messages (its path as given)
  const char *deck_dir;   ///< directory relative paths in the deck are taken from
  const char *where;      ///< "deck:line", "command line argument N ('...')" or "default"
  int is_set;             ///< the key was given in the deck or on the command line
} BlastDeckResolveInfo;

/// One row of the schema table.
typedef struct BlastDeckKey {
  const char *section;  ///< INI section without brackets
  const char *key;      ///< key name
  BlastDeckType type;
  size_t offset;         ///< offsetof(BlastConfig, field); a family's keys: offsetof its struct
  size_t size;           ///< STRING: capacity of the char array; lists: most values allowed
  const char *def;       ///< default as deck text (lists: one value used for every direction);
                         ///< NULL: required, or computed by `resolve`
  const char *def_help;  ///< how the default reads in --help when `def` does not say it all
  int required;          ///< the deck must set it
  unsigned bounds;       ///< BLAST_DECK_MIN | ... (INT, REAL and lists)
  double min, max;
  int has_special;  ///< INT: `special` is also allowed, outside [min, max]
  int special;
  const char *special_help;        ///< meaning of `special`, for messages and --help
  const BlastDeckChoice *choices;  ///< ENUM: valid words, terminated by {NULL, 0}
  const char *count_key;           ///< lists: INT key of the same section giving the count
  size_t count_offset;             ///< lists without count_key: where the number given goes
  /// INT_LIST of attributes: where char[size][BLAST_ATTR_NAME_MAX] names go (0: numbers
  /// only). A value that does not start like a number is a name; its entry is 0.
  size_t names_offset;
  const char *conflicts;  ///< space-separated keys of the same section that may not
                          ///< be set together with this one
  /// Optional hook run after every key has its value (in table order). Fills in computed
  /// defaults and resolves values that depend on other keys or on the deck's location.
  int (*resolve)(BlastConfig *cfg, const BlastDeckResolveInfo *info);
  const char *help;  ///< one-line description
} BlastDeckKey;

/// The schema table: *nkeys rows, grouped by section in deck order.
const BlastDeckKey *BlastDeckSchema(int *nkeys);

/// A family of named sections (`[material.NAME]`, ...) or a single section of the same
/// kind (`[exact]`): its instances fill an array of BlastConfig, in the order of their first
/// header line; a header repeated with the same NAME continues its instance. The keys'
/// offsets are into the instance's struct. `check` (optional) runs at resolution, once per
/// instance, after its required keys and defaults: it checks what involves several keys
/// (or other sections) and fills the resolved fields.
typedef struct BlastDeckFamily {
  const char *name;  ///< "material": headers [material.NAME] (named) or [exact] (not)
  int named;
  int max;                           ///< most instances (the BLAST_MAX_* of config.h)
  const char *max_name;              ///< that limit's name, for messages
  size_t array_offset, stride;       ///< the instances: offsetof(BlastConfig, array), sizeof(elem)
  size_t count_offset;               ///< offsetof the int instance count (named families)
  size_t name_offset, where_offset;  ///< the instance's name and where (named families)
  int custom_only;                   ///< only with [problem] name = custom
  const BlastDeckKey *keys;
  int nkeys;
  int (*check)(BlastDeck deck, BlastConfig *cfg, int family, int instance);
  const char *help;
} BlastDeckFamily;

/// The families of named sections: *n of them, in the order the echo writes them.
const BlastDeckFamily *BlastDeckFamilies(int *n);

// ---------------------------------------------------------------------------------------
// Parsing with state (deck text, then command-line overrides, then resolution)

/// Start a deck. `name` names it in messages and becomes cfg->deck_path; `deck_dir` is the
/// directory that relative mesh paths are taken from ("" or NULL: the current directory).
/// Errors: BLAST_ERR_ARG (name too long), BLAST_ERR_MEM.
int BlastDeckCreate(const char *name, const char *deck_dir, BlastDeck *deck);
/// Free a deck (NULL allowed) and set the handle to NULL.
void BlastDeckDestroy(BlastDeck *deck);
/// Parse the INI text of the deck (once per deck). Errors: BLAST_ERR_INPUT naming
/// `name:line`, BLAST_ERR_ARG when called twice or after BlastDeckResolve.
int BlastDeckReadText(BlastDeck deck, const char *text);
/// Apply one command-line override `section.key=value`; it goes through the same checks as
/// a deck line and replaces the deck's value. `argno` is its position on the command line,
/// used in messages ("command line argument N ('text')"). Errors: BLAST_ERR_INPUT.
int BlastDeckApplyOverride(BlastDeck deck, const char *arg, int argno);
/// Check what needs the whole deck (required keys, exclusive keys, list lengths), apply
/// defaults and resolve the configuration into *cfg. Errors: BLAST_ERR_INPUT.
int BlastDeckResolve(BlastDeck deck, BlastConfig *cfg);

// ---------------------------------------------------------------------------------------
// One-call entry points

/// Parse deck text into *cfg without MPI (tests, fuzzers). `name` is used in messages and
/// stored as cfg->deck_path; `deck_dir` as in BlastDeckCreate. Errors: BLAST_ERR_INPUT.
int BlastDeckParseText(const char *text, const char *name, const char *deck_dir, BlastConfig *cfg);
/// Collective on `comm`: rank 0 reads the deck file at `path` and broadcasts its text;
/// every rank parses it, applies the overrides (numbered 1..noverrides in messages) and
/// resolves *cfg. Bad input gives BLAST_ERR_INPUT on every rank, marked
/// BLAST_COLLECTIVE_SAME so that it is reported once.
int BlastDeckLoad(MPI_Comm comm, const char *path, int noverrides, char **overrides,
                  BlastConfig *cfg);
/// As BlastDeckLoad, with the command-line position of each override for messages
/// (`argnos` NULL: 1..noverrides).
int BlastDeckLoadArgs(MPI_Comm comm, const char *path, int noverrides, char **overrides,
                      const int *argnos, BlastConfig *cfg);

// ---------------------------------------------------------------------------------------
// Echo and help (written to the FILE the caller passes)

/// Print the resolved configuration as an INI deck that parses back to the same
/// BlastConfig. Values equal to their defaults are marked with a `; default` comment.
/// Errors: BLAST_ERR_ARG when a value cannot be written as a valid deck line.
int BlastDeckWrite(const BlastConfig *cfg, FILE *out);
/// Print the whole schema (every section and key with its type, default, range or choices
/// and help) to `out`: the "deck keys" part of `blast_gpu --help`.
void BlastDeckPrintKeys(FILE *out);
/// Blank every `where` of cfg (the named sections' and their expressions'): what is left is
/// the configuration itself, which an echo parses back to byte for byte (the where of a
/// key is the echo's line, not the deck's).
void BlastDeckClearWhere(BlastConfig *cfg);

/// Give the attributes that the deck names (region selectors `attributes inlet ...`,
/// boundary sections' `attributes`) their numbers from the mesh's names
/// (BlastMeshAttributeOfName: zone names for selectors, boundary names for boundary
/// sections). The names stay, so the echo writes them as given. An unknown name is
/// BLAST_ERR_INPUT naming the deck line, the key, the name and the mesh's names of that kind
/// (with the closest one, if close enough to be a typo).
typedef struct BlastMesh_private *BlastDeckMesh;
int BlastDeckResolveAttributeNames(BlastConfig *cfg, BlastDeckMesh mesh);

// ---------------------------------------------------------------------------------------
// Messages about user text, in the style of the deck's (also used by the command line)

/// Keeps the closest of the candidates offered, if close enough to be a typo of `word`
/// (for "did you mean '...'?"): `best` is NULL when none is.
typedef struct {
  const char *word, *best;
  int dist;
} BlastDeckSuggestion;

/// Start looking for the closest name to `word` (kept by pointer, not copied).
void BlastDeckSuggestInit(BlastDeckSuggestion *s, const char *word);
/// Offer one candidate name (kept by pointer, not copied).
void BlastDeckSuggestOffer(BlastDeckSuggestion *s, const char *candidate);
/// A quoted excerpt of user text [s, s+len) for messages into buf[n]: at most 60
/// characters, control characters shown as '?'.
void BlastDeckExcerpt(const char *s, size_t len, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_DECK_H
