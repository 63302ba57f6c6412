// INI input decks: parsing with inih, validation, overrides, help and echo, all driven by
// the schema table of deck_schema.c (see deck.h).
#define _POSIX_C_SOURCE 200809L

#include "deck.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"
#include "blast_mpi.h"
#include "safefile.h"

enum {
  kWhereLen = BLAST_PATH_MAX + 256,  ///< "deck:line" or "command line argument N ('...')"
  kExpectLen = 512,                  ///< description of what a key accepts
  kNameLen = 64,                     ///< longest section or key name kept for messages
  kMaxSections = 16,
  kMaxDeckBytes = 1 << 20,         ///< larger files are not decks
  kMaxEchoLine = INI_MAX_LINE - 3  ///< longest line inih reads back (room for \r \n \0)
};

/// What a non-regular file given as deck is (the names of BlastFileProbe.kind), so that
/// rank 0 can send it to the others as a number.
static const char *const kDeckFileKinds[] = {
    "special file", "FIFO", "character device", "block device", "directory", "socket", NULL};
enum { kNumDeckFileKinds = 6 };

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
  int key_in_section;  ///< a key line since the last header: inih continues its value
  int key_line;        ///< line of that key
  int ierr, err_line;  ///< first error found by the reader or the handler
};

// ---------------------------------------------------------------------------------------
// Small helpers

static int IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int ToLower(char c) {
  return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/// Copy at most n-1 bytes of [s, s+len) into buf, stripping surrounding white space.
static void CopyStripped(char *buf, size_t n, const char *s, size_t len) {
  while (len && IsSpace(*s)) s++, len--;
  while (len && IsSpace(s[len - 1])) len--;
  if (len > n - 1) len = n - 1;
  memcpy(buf, s, len);
  buf[len] = '\0';
}

/// Cut an inline comment (';' after white space) as inih does for deck values.
static void CutInlineComment(char *s) {
  int was_space = 0;
  for (char *p = s; *p; p++) {
    if (*p == ';' && was_space) {
      *p = '\0';
      return;
    }
    was_space = IsSpace(*p);
  }
}

/// Case-insensitive Levenshtein distance (first 63 characters).
static int EditDistance(const char *a, const char *b) {
  enum { kMax = 63 };
  int la = (int)strlen(a), lb = (int)strlen(b);
  if (la > kMax) la = kMax;
  if (lb > kMax) lb = kMax;
  int prev[kMax + 1], cur[kMax + 1];
  for (int j = 0; j <= lb; j++) prev[j] = j;
  for (int i = 1; i <= la; i++) {
    cur[0] = i;
    for (int j = 1; j <= lb; j++) {
      int sub = prev[j - 1] + (ToLower(a[i - 1]) != ToLower(b[j - 1]));
      int del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    memcpy(prev, cur, sizeof(int) * (size_t)(lb + 1));
  }
  return prev[lb];
}

/// Keeps the closest of the candidates offered, if close enough to be a typo of `word`.
typedef struct {
  const char *word, *best;
  int dist;
} Suggestion;

static void SuggestInit(Suggestion *s, const char *word) {
  s->word = word;
  s->best = NULL;
  s->dist = INT_MAX;
}

static void SuggestOffer(Suggestion *s, const char *candidate) {
  int d = EditDistance(s->word, candidate);
  if (d <= 1 + (int)strlen(candidate) / 4 && d < s->dist) {
    s->best = candidate;
    s->dist = d;
  }
}

/// A quoted excerpt of user text for messages: at most 60 characters, control characters
/// shown as '?'.
static void Excerpt(const char *s, size_t len, char *buf, size_t n) {
  size_t m = 0;
  for (size_t i = 0; i < len && s[i] && m + 4 < n && i < 60; i++)
    buf[m++] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
  if (len > 60 && strlen(s) > 60 && m + 4 < n) buf[m++] = '.', buf[m++] = '.', buf[m++] = '.';
  buf[m] = '\0';
}

// ---------------------------------------------------------------------------------------
// Schema lookups

typedef struct {
  const BlastDeckKey *keys;
  int nkeys, nsections;
  const char *sections[kMaxSections];  ///< in table order
} Schema;

static const Schema *GetSchema(void) {
  // Built on first use from the constant table.
  static Schema s;
  static int built = 0;
  if (!built) {
    s.keys = BlastDeckSchema(&s.nkeys);
    s.nsections = 0;
    for (int k = 0; k < s.nkeys; k++) {
      int found = 0;
      for (int i = 0; i < s.nsections; i++) found |= !strcmp(s.sections[i], s.keys[k].section);
      if (!found && s.nsections < kMaxSections) s.sections[s.nsections++] = s.keys[k].section;
    }
    built = 1;
  }
  return &s;
}

static int FindSection(const char *section) {
  const Schema *s = GetSchema();
  for (int i = 0; i < s->nsections; i++)
    if (!strcmp(s->sections[i], section)) return i;
  return -1;
}

static int FindKey(const char *section, const char *key) {
  const Schema *s = GetSchema();
  for (int k = 0; k < s->nkeys; k++)
    if (!strcmp(s->keys[k].section, section) && !strcmp(s->keys[k].key, key)) return k;
  return -1;
}

static int FindKeyAnySection(const char *key) {
  const Schema *s = GetSchema();
  for (int k = 0; k < s->nkeys; k++)
    if (!strcmp(s->keys[k].key, key)) return k;
  return -1;
}

/// The INT key that gives the number of values of list key k.
static int CountKey(const BlastDeckKey *k) {
  return FindKey(k->section, k->count_key);
}

static int ListCount(const BlastDeckKey *k, const BlastConfig *cfg) {
  int ck = CountKey(k);
  if (ck < 0) return (int)k->size;
  int c;
  memcpy(&c, (const char *)cfg + GetSchema()->keys[ck].offset, sizeof c);
  return c < 0 ? 0 : (c > (int)k->size ? (int)k->size : c);
}

// ---------------------------------------------------------------------------------------
// What a key accepts, in words

static int IsList(const BlastDeckKey *k) {
  return k->type == BLAST_DECK_INT_LIST || k->type == BLAST_DECK_REAL_LIST;
}
static int IsIntegral(const BlastDeckKey *k) {
  return k->type == BLAST_DECK_INT || k->type == BLAST_DECK_INT_LIST;
}

static const char *TypeName(const BlastDeckKey *k) {
  switch (k->type) {
    case BLAST_DECK_INT:
      return "integer";
    case BLAST_DECK_REAL:
      return "real";
    case BLAST_DECK_BOOL:
      return "bool";
    case BLAST_DECK_ENUM:
      return "enum";
    case BLAST_DECK_STRING:
      return "string";
    case BLAST_DECK_INT_LIST:
      return "integers";
    case BLAST_DECK_REAL_LIST:
      return "reals";
  }
  return "?";
}

/// The range as text: "in 1..8", "> 0", "in (0, 10]", ... ("" for none).
static void RangeText(const BlastDeckKey *k, char *buf, size_t n) {
  unsigned b = k->bounds;
  int lo = (b & (BLAST_DECK_MIN | BLAST_DECK_MIN_OPEN)) != 0;
  int hi = (b & (BLAST_DECK_MAX | BLAST_DECK_MAX_OPEN)) != 0;
  buf[0] = '\0';
  if (lo && hi && IsIntegral(k) && !(b & (BLAST_DECK_MIN_OPEN | BLAST_DECK_MAX_OPEN)))
    snprintf(buf, n, "in %.17g..%.17g", k->min, k->max);
  else if (lo && hi)
    snprintf(buf, n, "in %c%.17g, %.17g%c", (b & BLAST_DECK_MIN_OPEN) ? '(' : '[', k->min, k->max,
             (b & BLAST_DECK_MAX_OPEN) ? ')' : ']');
  else if (lo)
    snprintf(buf, n, "%s %.17g", (b & BLAST_DECK_MIN_OPEN) ? ">" : ">=", k->min);
  else if (hi)
    snprintf(buf, n, "%s %.17g", (b & BLAST_DECK_MAX_OPEN) ? "<" : "<=", k->max);
}

static void ChoicesText(const BlastDeckChoice *c, char *buf, size_t n) {
  buf[0] = '\0';
  for (int i = 0; c && c[i].name; i++) {
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s%s", i ? ", " : "", c[i].name);
  }
}

/// What the key accepts: "an integer in 1..8", "one of: a, b", ...
static void DescribeExpected(const BlastDeckKey *k, char *buf, size_t n) {
  char range[128], choices[256];
  RangeText(k, range, sizeof range);
  const char *sep = range[0] ? " " : "";
  switch (k->type) {
    case BLAST_DECK_INT:
      if (k->has_special)
        snprintf(buf, n, "%d (%s) or an integer%s%s", k->special, k->special_help, sep, range);
      else
        snprintf(buf, n, "an integer%s%s", sep, range);
      break;
    case BLAST_DECK_REAL:
      snprintf(buf, n, "a finite real number%s%s", sep, range);
      break;
    case BLAST_DECK_BOOL:
      snprintf(buf, n, "true or false");
      break;
    case BLAST_DECK_ENUM:
      ChoicesText(k->choices, choices, sizeof choices);
      snprintf(buf, n, "one of: %s", choices);
      break;
    case BLAST_DECK_STRING:
      snprintf(buf, n, "a non-empty text of at most %zu characters", k->size - 1);
      break;
    case BLAST_DECK_INT_LIST:
    case BLAST_DECK_REAL_LIST:
      snprintf(buf, n, "%s %s%s%s separated by spaces, as many as [%s] %s",
               k->type == BLAST_DECK_INT_LIST ? "integers" : "finite real numbers",
               range[0] ? "each " : "", range, range[0] ? "," : "", k->section, k->count_key);
      break;
  }
}

// ---------------------------------------------------------------------------------------
// Values

static int InRange(const BlastDeckKey *k, double v) {
  unsigned b = k->bounds;
  if ((b & BLAST_DECK_MIN) && !(v >= k->min)) return 0;
  if ((b & BLAST_DECK_MIN_OPEN) && !(v > k->min)) return 0;
  if ((b & BLAST_DECK_MAX) && !(v <= k->max)) return 0;
  if ((b & BLAST_DECK_MAX_OPEN) && !(v < k->max)) return 0;
  return 1;
}

/// One number (a whole INT value or one list entry): type and range checked.
static int ParseNumber(const BlastDeckKey *k, const char *tok, const char *where,
                       const char *expected, double *out) {
  char ex[96];
  Excerpt(tok, strlen(tok), ex, sizeof ex);
  char *end = NULL;
  long lv = 0;
  double v;
  errno = 0;
  if (IsIntegral(k)) {
    lv = strtol(tok, &end, 10);
    v = (double)lv;
  } else {
    v = strtod(tok, &end);
  }
  int overflow = errno == ERANGE;
  if (end != tok && *end) {
    char junk[96];
    Excerpt(end, strlen(end), junk, sizeof junk);
    BlastError(BLAST_ERR_INPUT,
               "%s: bad value '%s' for [%s] %s: unexpected '%s' after the number; expected %s",
               where, ex, k->section, k->key, junk, expected);
  }
  BlastCheck(end != tok, BLAST_ERR_INPUT, "%s: bad value '%s' for [%s] %s: expected %s", where, ex,
             k->section, k->key, expected);
  if (IsIntegral(k)) {
    BlastCheck(!overflow && lv >= INT_MIN && lv <= INT_MAX &&
                   ((k->has_special && lv == k->special) || InRange(k, v)),
               BLAST_ERR_INPUT, "%s: value %s for [%s] %s is out of range: expected %s", where, ex,
               k->section, k->key, expected);
  } else {
    // Underflow (ERANGE with a tiny result) is fine; overflow gives an infinity.
    BlastCheck(isfinite(v), BLAST_ERR_INPUT,
               "%s: value %s for [%s] %s is not a finite number: expected %s", where, ex,
               k->section, k->key, expected);
    BlastCheck(InRange(k, v), BLAST_ERR_INPUT,
               "%s: value %s for [%s] %s is out of range: expected %s", where, ex, k->section,
               k->key, expected);
  }
  *out = v;
  return 0;
}

static int ParseChoice(const BlastDeckKey *k, const BlastDeckChoice *choices, const char *value,
                       const char *where, const char *expected, int *out) {
  Suggestion sg;
  SuggestInit(&sg, value);
  for (int i = 0; choices[i].name; i++) {
    if (!strcmp(choices[i].name, value)) {
      *out = choices[i].value;
      return 0;
    }
    SuggestOffer(&sg, choices[i].name);
  }
  char ex[96];
  Excerpt(value, strlen(value), ex, sizeof ex);
  if (sg.best)
    BlastError(BLAST_ERR_INPUT, "%s: bad value '%s' for [%s] %s: expected %s; did you mean '%s'?",
               where, ex, k->section, k->key, expected, sg.best);
  BlastError(BLAST_ERR_INPUT, "%s: bad value '%s' for [%s] %s: expected %s", where, ex, k->section,
             k->key, expected);
}

static const BlastDeckChoice kBool[] = {{"false", 0}, {"true", 1}, {NULL, 0}};

/// Parse `value` (non-empty, stripped) for key k into its field of *cfg. Lists set *count.
static int ParseValue(const BlastDeckKey *k, const char *value, const char *where, BlastConfig *cfg,
                      int *count) {
  char expected[kExpectLen];
  DescribeExpected(k, expected, sizeof expected);
  char *field = (char *)cfg + k->offset;
  *count = 1;
  switch (k->type) {
    case BLAST_DECK_INT: {
      double v = 0;
      BlastCall(ParseNumber(k, value, where, expected, &v));
      int iv = (int)v;
      memcpy(field, &iv, sizeof iv);
      return 0;
    }
    case BLAST_DECK_REAL: {
      double v = 0;
      BlastCall(ParseNumber(k, value, where, expected, &v));
      memcpy(field, &v, sizeof v);
      return 0;
    }
    case BLAST_DECK_BOOL:
    case BLAST_DECK_ENUM: {
      int v = 0;
      BlastCall(ParseChoice(k, k->type == BLAST_DECK_BOOL ? kBool : k->choices, value, where,
                            expected, &v));
      memcpy(field, &v, sizeof v);
      return 0;
    }
    case BLAST_DECK_STRING: {
      size_t len = strlen(value);
      for (size_t i = 0; i < len; i++)
        BlastCheck((unsigned char)value[i] >= 0x20 && value[i] != 0x7f, BLAST_ERR_INPUT,
                   "%s: the value of [%s] %s contains a control character", where, k->section,
                   k->key);
      BlastCheck(len < k->size, BLAST_ERR_INPUT,
                 "%s: the value of [%s] %s is too long (%zu characters, at most %zu)", where,
                 k->section, k->key, len, k->size - 1);
      memset(field, 0, k->size);
      memcpy(field, value, len);
      return 0;
    }
    case BLAST_DECK_INT_LIST:
    case BLAST_DECK_REAL_LIST: {
      double v[8];
      int n = 0;
      BlastCheck(k->size <= 8, BLAST_ERR_INTERNAL, "schema error: [%s] %s allows too many values",
                 k->section, k->key);
      const char *p = value;
      while (*p) {
        while (IsSpace(*p)) p++;
        if (!*p) break;
        const char *q = p;
        while (*q && !IsSpace(*q)) q++;
        BlastCheck(n < (int)k->size, BLAST_ERR_INPUT,
                   "%s: too many values for [%s] %s (at most %zu): expected %s", where, k->section,
                   k->key, k->size, expected);
        char tok[128];
        CopyStripped(tok, sizeof tok, p, (size_t)(q - p));
        BlastCall(ParseNumber(k, tok, where, expected, &v[n]));
        n++;
        p = q;
      }
      for (int i = 0; i < (int)k->size; i++) {
        if (k->type == BLAST_DECK_INT_LIST) {
          int iv = i < n ? (int)v[i] : 0;
          memcpy(field + i * sizeof(int), &iv, sizeof iv);
        } else {
          double dv = i < n ? v[i] : 0.0;
          memcpy(field + i * sizeof(double), &dv, sizeof dv);
        }
      }
      *count = n;
      return 0;
    }
  }
  BlastError(BLAST_ERR_INTERNAL, "[%s] %s has an unknown type %d", k->section, k->key, k->type);
}

/// Give key k its built-in default in *cfg (lists: the default in every direction).
static int ApplyDefault(const BlastDeckKey *k, BlastConfig *cfg) {
  char *field = (char *)cfg + k->offset;
  if (!k->def) {
    // Computed by the key's resolve hook (or required).
    if (k->type == BLAST_DECK_STRING) memset(field, 0, k->size);
    return 0;
  }
  int count = 0;
  int ierr = ParseValue(k, k->def, "built-in default", cfg, &count);
  if (ierr) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
    BlastError(BLAST_ERR_INTERNAL, "schema error: bad default of [%s] %s: %s", k->section, k->key,
               msg);
  }
  if (IsList(k)) {
    int n = ListCount(k, cfg);
    size_t elem = k->type == BLAST_DECK_INT_LIST ? sizeof(int) : sizeof(double);
    for (int i = 1; i < (int)k->size; i++) {
      if (i < n)
        memcpy(field + i * elem, field, elem);
      else
        memset(field + i * elem, 0, elem);
    }
    if (n == 0) memset(field, 0, elem);
  }
  return 0;
}

/// Whether a value can be written back as a deck line `key = value` that inih reads as is.
static int Writable(const BlastDeckKey *k, const char *value) {
  size_t len = strlen(value);
  // A leading ';' would read as a comment after "key = ".
  if (!len || IsSpace(value[0]) || IsSpace(value[len - 1]) || value[0] == ';') return 0;
  if (strlen(k->key) + 3 + len > (size_t)kMaxEchoLine) return 0;
  for (size_t i = 0; i < len; i++) {
    if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f) return 0;
    if (value[i] == ';' && i && IsSpace(value[i - 1])) return 0;
  }
  return 1;
}

// ---------------------------------------------------------------------------------------
// Setting one key (deck line or override)

static int UnknownSection(const char *where, const char *section) {
  const Schema *s = GetSchema();
  Suggestion sg;
  SuggestInit(&sg, section);
  char list[256] = "";
  for (int i = 0; i < s->nsections; i++) {
    SuggestOffer(&sg, s->sections[i]);
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s[%s]", i ? ", " : "", s->sections[i]);
  }
  char ex[96];
  Excerpt(section, strlen(section), ex, sizeof ex);
  if (sg.best)
    BlastError(BLAST_ERR_INPUT, "%s: unknown section [%s]; did you mean [%s]?", where, ex, sg.best);
  BlastError(BLAST_ERR_INPUT, "%s: unknown section [%s]; the sections are %s", where, ex, list);
}

static int UnknownKey(const char *where, const char *section, const char *key) {
  const Schema *s = GetSchema();
  char ex[96];
  Excerpt(key, strlen(key), ex, sizeof ex);
  int other = FindKeyAnySection(key);
  if (other >= 0)
    BlastError(BLAST_ERR_INPUT, "%s: unknown key '%s' in section [%s]; '%s' belongs in [%s]", where,
               ex, section, key, s->keys[other].section);
  Suggestion here, anywhere;
  SuggestInit(&here, key);
  SuggestInit(&anywhere, key);
  int anywhere_k = -1;
  char list[512] = "";
  for (int k = 0; k < s->nkeys; k++) {
    if (!strcmp(s->keys[k].section, section)) {
      SuggestOffer(&here, s->keys[k].key);
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, "%s%s", list[0] ? ", " : "", s->keys[k].key);
    } else {
      const char *before = anywhere.best;
      SuggestOffer(&anywhere, s->keys[k].key);
      if (anywhere.best != before) anywhere_k = k;
    }
  }
  if (here.best)
    BlastError(BLAST_ERR_INPUT, "%s: unknown key '%s' in section [%s]; did you mean '%s'?", where,
               ex, section, here.best);
  if (anywhere.best)
    BlastError(BLAST_ERR_INPUT,
               "%s: unknown key '%s' in section [%s]; did you mean '%s' of section [%s]?", where,
               ex, section, anywhere.best, s->keys[anywhere_k].section);
  BlastError(BLAST_ERR_INPUT, "%s: unknown key '%s' in section [%s]; its keys are: %s", where, ex,
             section, list);
}

/// Set [section] key = value from the deck (line > 0) or the command line.
static int DeckSet(BlastDeck d, const char *section, const char *key, const char *value,
                   DeckOrigin origin, int line, const char *where) {
  const Schema *s = GetSchema();
  if (!section[0]) {
    int k = FindKeyAnySection(key);
    if (k >= 0)
      BlastError(BLAST_ERR_INPUT, "%s: key '%s' is outside any section; it belongs in section [%s]",
                 where, key, s->keys[k].section);
    char ex[96];
    Excerpt(key, strlen(key), ex, sizeof ex);
    BlastError(BLAST_ERR_INPUT,
               "%s: key '%s' is outside any section (keys follow a [section] line)", where, ex);
  }
  if (FindSection(section) < 0) BlastCall(UnknownSection(where, section));
  BlastCheck(key[0], BLAST_ERR_INPUT, "%s: missing key name before '='", where);
  int k = FindKey(section, key);
  if (k < 0) BlastCall(UnknownKey(where, section, key));
  const BlastDeckKey *K = &s->keys[k];
  DeckKeyState *st = &d->state[k];
  BlastCheck(st->origin != (int)origin, BLAST_ERR_INPUT,
             "%s: duplicate key [%s] %s (first set at %s)", where, section, key, st->where);
  if (!value[0]) {
    char expected[kExpectLen];
    DescribeExpected(K, expected, sizeof expected);
    BlastError(BLAST_ERR_INPUT, "%s: empty value for [%s] %s: expected %s", where, section, key,
               expected);
  }
  int count = 0;
  BlastCall(ParseValue(K, value, where, &d->cfg, &count));
  st->origin = (int)origin;
  st->line = line;
  st->count = count;
  snprintf(st->where, sizeof st->where, "%s", where);
  return 0;
}

// ---------------------------------------------------------------------------------------
// Deck handle

int BlastDeckCreate(const char *name, const char *deck_dir, BlastDeck *deck) {
  BlastCheck(name && deck, BLAST_ERR_ARG, "name and deck must not be NULL");
  if (!deck_dir) deck_dir = "";
  BlastCheck(strlen(name) < BLAST_PATH_MAX && strlen(deck_dir) < BLAST_PATH_MAX, BLAST_ERR_INPUT,
             "deck path '%.100s...' is too long (at most %d characters)", name, BLAST_PATH_MAX - 1);
  BlastDeck d = NULL;
  BlastCall(BlastCalloc(1, &d));
  const Schema *s = GetSchema();
  d->keys = s->keys;
  d->nkeys = s->nkeys;
  int ierr = BlastCalloc(d->nkeys, &d->state);
  if (ierr) {
    BlastFree(&d);
    BlastCall(ierr);
  }
  memset(&d->cfg, 0, sizeof d->cfg);
  snprintf(d->name, sizeof d->name, "%s", name);
  snprintf(d->dir, sizeof d->dir, "%s", deck_dir);
  *deck = d;
  return 0;
}

void BlastDeckDestroy(BlastDeck *deck) {
  if (!deck || !*deck) return;
  BlastFree(&(*deck)->state);
  BlastFree(deck);
}

// ---------------------------------------------------------------------------------------
// inih reader and handler. inih calls the reader once per line, so the reader counts the
// lines and the handler knows the line of each key (this inih lacks INI_HANDLER_LINENO).

static void DeckWhere(BlastDeck d, int line, char *buf) {
  snprintf(buf, kWhereLen, "%s:%d", d->name, line);
}

/// A `[section]` line as inih would see it: check the name now, so that unknown sections
/// are reported even when they hold no key.
static int ScanSectionHeader(BlastDeck d) {
  const char *s = d->line_start, *end = s + d->line_len;
  if (d->line == 1 && d->line_len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) s += 3;
  int indented = s < end && IsSpace(*s);
  while (s < end && IsSpace(*s)) s++;
  if (s == end || *s != '[') return 0;
  if (indented && d->key_in_section) return 0;  // inih continues a value: the handler says so
  const char *q = s + 1;
  while (q < end && *q != ']' && !(*q == ';' && IsSpace(q[-1]))) q++;
  if (q == end || *q != ']') return 0;  // inih reports the missing ']'
  char where[kWhereLen], name[kNameLen];
  DeckWhere(d, d->line, where);
  size_t len = (size_t)(q - s - 1);
  if (len > sizeof name - 1) len = sizeof name - 1;
  memcpy(name, s + 1, len);
  name[len] = '\0';
  const char *rest = q + 1;
  while (rest < end && IsSpace(*rest)) rest++;
  if (rest < end && *rest != ';' && *rest != '#') {
    char ex[96];
    Excerpt(rest, (size_t)(end - rest), ex, sizeof ex);
    BlastError(BLAST_ERR_INPUT, "%s: unexpected text '%s' after the section header [%s]", where, ex,
               name);
  }
  int i = FindSection(name);
  if (i < 0) BlastCall(UnknownSection(where, name));
  if (!d->section_line[i]) d->section_line[i] = d->line;
  d->key_in_section = 0;
  return 0;
}

static char *DeckReader(char *buf, int num, void *stream) {
  BlastDeck d = (BlastDeck)stream;
  if (d->ierr || !*d->pos) return NULL;
  const char *p = d->pos, *nl = strchr(p, '\n');
  size_t len = nl ? (size_t)(nl - p) : strlen(p);
  d->line++;
  d->line_start = p;
  d->line_len = len;
  d->pos = nl ? nl + 1 : p + len;
  // The newline is not passed on (inih strips it anyway), so a line may use all num-1
  // characters of the buffer; a longer one would be split and mis-numbered.
  size_t cap = num > 1 ? (size_t)num - 1 : 0;
  if (len > cap) {
    char where[kWhereLen];
    DeckWhere(d, d->line, where);
    d->ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                              "%s: line too long (%zu characters, at most %zu)", where, len, cap);
    d->err_line = d->line;
    return NULL;
  }
  memcpy(buf, p, len);
  buf[len] = '\0';
  int ierr = ScanSectionHeader(d);
  if (ierr) {
    d->ierr = ierr;
    d->err_line = d->line;
    return NULL;
  }
  return buf;
}

static int HandleKey(BlastDeck d, const char *section, const char *name, const char *value) {
  char where[kWhereLen];
  DeckWhere(d, d->line, where);
  // inih reads an indented line after a key as the continuation of that key's value.
  BlastCheck(!(d->key_in_section && d->line_len && IsSpace(d->line_start[0])), BLAST_ERR_INPUT,
             "%s: indented line continues the value of '%s' (line %d); multi-line values are "
             "not supported: remove the indentation",
             where, name, d->key_line);
  d->key_in_section = 1;
  d->key_line = d->line;
  BlastCall(DeckSet(d, section, name, value, kFromDeck, d->line, where));
  return 0;
}

static int DeckHandler(void *user, const char *section, const char *name, const char *value) {
  BlastDeck d = (BlastDeck)user;
  if (d->ierr) return 0;
  int ierr = HandleKey(d, section, name, value ? value : "");
  if (ierr) {
    d->ierr = ierr;
    d->err_line = d->line;
    return 0;
  }
  return 1;
}

/// inih found a malformed line: say what is wrong with it.
static int SyntaxError(BlastDeck d, int line) {
  const char *p = d->text;
  for (int i = 1; i < line && p; i++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  if (!p) p = "";
  if (line == 1 && !strncmp(p, "\xEF\xBB\xBF", 3)) p += 3;
  while (*p == ' ' || *p == '\t') p++;
  size_t len = strcspn(p, "\r\n");
  char where[kWhereLen], ex[96];
  DeckWhere(d, line, where);
  Excerpt(p, len, ex, sizeof ex);
  if (*p == '[')
    BlastError(BLAST_ERR_INPUT, "%s: syntax error: section header '%s' lacks its closing ']'",
               where, ex);
  BlastError(BLAST_ERR_INPUT, "%s: syntax error: expected 'key = value' or '[section]', got '%s'",
             where, ex);
}

int BlastDeckReadText(BlastDeck d, const char *text) {
  BlastCheck(d && text, BLAST_ERR_ARG, "deck and text must not be NULL");
  BlastCheck(!d->text_read && !d->overridden && !d->resolved, BLAST_ERR_ARG,
             "the deck text must be read once, before overrides and resolution");
  d->text_read = 1;
  d->text = d->pos = text;
  d->line = 0;
  d->key_in_section = 0;
  d->ierr = d->err_line = 0;
  int r = ini_parse_stream(DeckReader, d, DeckHandler, d);
  BlastCheck(r >= 0, BLAST_ERR_MEM, "%s: inih could not allocate its line buffer (%d)", d->name, r);
  // inih returns the first line it found bad (syntax, or a key the handler refused); the
  // reader stops at the first error it finds itself. The earlier line is the one to report.
  if (r > 0 && (!d->ierr || r < d->err_line)) BlastCall(SyntaxError(d, r));
  BlastCall(d->ierr);
  return 0;
}

int BlastDeckApplyOverride(BlastDeck d, const char *arg, int argno) {
  BlastCheck(d && arg, BLAST_ERR_ARG, "deck and arg must not be NULL");
  BlastCheck(!d->resolved, BLAST_ERR_ARG, "the deck is already resolved");
  d->overridden = 1;
  char where[kWhereLen], ex[96];
  Excerpt(arg, strlen(arg), ex, sizeof ex);
  snprintf(where, sizeof where, "command line argument %d ('%s')", argno, ex);
  for (const char *p = arg; *p; p++)
    BlastCheck((unsigned char)*p >= 0x20 || *p == '\t', BLAST_ERR_INPUT,
               "%s: contains a control character", where);
  const char *eq = strchr(arg, '=');
  char lhs[2 * kNameLen];
  CopyStripped(lhs, sizeof lhs, arg, eq ? (size_t)(eq - arg) : strlen(arg));
  char *dot = strchr(lhs, '.');
  if (!eq || !dot) {
    int k = FindKeyAnySection(lhs);
    if (k >= 0)
      BlastError(BLAST_ERR_INPUT, "%s: expected section.key=value, e.g. '%s.%s=%s'", where,
                 d->keys[k].section, d->keys[k].key, eq ? eq + 1 : "...");
    BlastError(BLAST_ERR_INPUT, "%s: expected section.key=value (e.g. time.cfl=0.3)", where);
  }
  *dot = '\0';
  char section[kNameLen], key[kNameLen];
  CopyStripped(section, sizeof section, lhs, strlen(lhs));
  CopyStripped(key, sizeof key, dot + 1, strlen(dot + 1));
  char value[BLAST_PATH_MAX + 64];
  BlastCheck(strlen(eq + 1) < sizeof value, BLAST_ERR_INPUT, "%s: the value is too long", where);
  memcpy(value, eq + 1, strlen(eq + 1) + 1);
  CutInlineComment(value);  // as inih does for a deck line
  char stripped[sizeof value];
  CopyStripped(stripped, sizeof stripped, value, strlen(value));
  BlastCall(DeckSet(d, section, key, stripped, kFromCommandLine, 0, where));
  return 0;
}

// ---------------------------------------------------------------------------------------
// Resolution

static int CheckRequired(BlastDeck d) {
  for (int k = 0; k < d->nkeys; k++) {
    const BlastDeckKey *K = &d->keys[k];
    if (!K->required || d->state[k].origin != kUnset) continue;
    char expected[kExpectLen];
    DescribeExpected(K, expected, sizeof expected);
    int s = FindSection(K->section);
    if (s >= 0 && d->section_line[s])
      BlastError(BLAST_ERR_INPUT, "%s:%d: section [%s] lacks the required key '%s' (%s: %s)",
                 d->name, d->section_line[s], K->section, K->key, K->help, expected);
    BlastError(BLAST_ERR_INPUT,
               "%s:%d: the deck ends without the required key '%s' of section [%s] (%s: %s)",
               d->name, d->line > 0 ? d->line : 1, K->key, K->section, K->help, expected);
  }
  return 0;
}

/// Two keys that exclude each other (e.g. [mesh] file and the generator keys).
static int CheckConflicts(BlastDeck d) {
  for (int k = 0; k < d->nkeys; k++) {
    const BlastDeckKey *K = &d->keys[k];
    if (!K->conflicts || d->state[k].origin == kUnset) continue;
    const char *p = K->conflicts;
    while (*p) {
      while (*p == ' ') p++;
      size_t len = strcspn(p, " ");
      if (!len) break;
      char other[kNameLen];
      CopyStripped(other, sizeof other, p, len);
      p += len;
      int o = FindKey(K->section, other);
      BlastCheck(o >= 0, BLAST_ERR_INTERNAL,
                 "schema error: [%s] %s conflicts with unknown key '%s'", K->section, K->key,
                 other);
      if (d->state[o].origin == kUnset) continue;
      BlastError(BLAST_ERR_INPUT,
                 "%s: [%s] %s cannot be combined with [%s] %s (set at %s): they are mutually "
                 "exclusive (%s excludes: %s)",
                 d->state[o].where, K->section, other, K->section, K->key, d->state[k].where,
                 K->key, K->conflicts);
    }
  }
  return 0;
}

static int CheckListCounts(BlastDeck d) {
  for (int k = 0; k < d->nkeys; k++) {
    const BlastDeckKey *K = &d->keys[k];
    if (!IsList(K) || d->state[k].origin == kUnset) continue;
    int ck = CountKey(K);
    BlastCheck(ck >= 0, BLAST_ERR_INTERNAL, "schema error: [%s] %s counts by unknown key '%s'",
               K->section, K->key, K->count_key);
    int want;
    memcpy(&want, (const char *)&d->cfg + d->keys[ck].offset, sizeof want);
    const char *cwhere = d->state[ck].origin != kUnset ? d->state[ck].where : "the default";
    BlastCheck(d->state[k].count == want, BLAST_ERR_INPUT,
               "%s: [%s] %s has %d value%s but [%s] %s is %d (%s): give one value per direction",
               d->state[k].where, K->section, K->key, d->state[k].count,
               d->state[k].count == 1 ? "" : "s", K->section, K->count_key, want, cwhere);
  }
  return 0;
}

/// Where a key was set, for messages: "deck.ini:12", "command line argument 2 (...)", or
/// "the default" when it was not set.
static const char *KeyWhere(BlastDeck d, const char *section, const char *key) {
  const int k = FindKey(section, key);
  return k >= 0 && d->state[k].origin != kUnset ? d->state[k].where : "the default";
}

/// The quadrature rule must make both mass matrices nonsingular (method spec 6): with
/// q = order_quadrature/2 + 1 Gauss-Legendre points per direction (the default order is
/// 3k+m-1), the tensor basis of degree p per direction is determined by its values at the
/// points only if q >= p+1; with fewer, the zone blocks of M_E are singular and so is the
/// assembled M_V (it has more dofs than points: CG fails). So q >= max(k, m) + 1, that is
/// order_quadrature >= 2 max(k, m). Runs after the resolve hooks (order_thermo resolved).
static int CheckQuadrature(BlastDeck d) {
  const BlastConfig *c = &d->cfg;
  const int k = c->order_kinematic, m = c->order_thermo, oq = c->order_quadrature;
  const int p = k > m ? k : m, need = 2 * p, used = oq > 0 ? oq : 3 * k + m - 1;
  if (used >= need) return 0;
  const int q1d = used / 2 + 1;
  const char *which = m + 1 > q1d && k + 1 > q1d ? "the kinematic and thermodynamic mass matrices"
                      : k + 1 > q1d              ? "the kinematic mass matrix"
                                                 : "the thermodynamic mass matrix";
  char orders[2 * kWhereLen + 96];
  snprintf(orders, sizeof orders, "[fem] order_kinematic = %d (%s) and order_thermo = %d (%s)", k,
           KeyWhere(d, "fem", "order_kinematic"), m, KeyWhere(d, "fem", "order_thermo"));
  if (oq > 0)
    BlastError(BLAST_ERR_INPUT,
               "%s: [fem] order_quadrature = %d is too low for %s: it gives %d Gauss point%s per "
               "direction (order_quadrature/2 + 1), and %s would be singular (the kinematic one "
               "needs order_kinematic + 1 = %d points, the thermodynamic one order_thermo + 1 = "
               "%d): use order_quadrature >= %d (2 max(order_kinematic, order_thermo)), or leave "
               "it unset for the default 3 order_kinematic + order_thermo - 1 = %d",
               KeyWhere(d, "fem", "order_quadrature"), oq, orders, q1d, q1d == 1 ? "" : "s", which,
               k + 1, m + 1, need, 3 * k + m - 1);
  BlastError(BLAST_ERR_INPUT,
             "%s: [fem] order_thermo = %d is too high for order_kinematic = %d (%s) with the "
             "default [fem] order_quadrature = 3 order_kinematic + order_thermo - 1 = %d: it gives "
             "%d Gauss points per direction, and the thermodynamic mass matrix needs order_thermo "
             "+ 1 = %d or it is singular: set [fem] order_quadrature >= %d (2 max(order_kinematic, "
             "order_thermo)), or lower order_thermo",
             KeyWhere(d, "fem", "order_thermo"), m, k, KeyWhere(d, "fem", "order_kinematic"), used,
             q1d, m + 1, need);
}

int BlastDeckResolve(BlastDeck d, BlastConfig *cfg) {
  BlastCheck(d && cfg, BLAST_ERR_ARG, "deck and cfg must not be NULL");
  BlastCheck(!d->resolved, BLAST_ERR_ARG, "the deck is already resolved");
  d->resolved = 1;
  BlastCall(CheckRequired(d));
  BlastCall(CheckConflicts(d));
  // Defaults: scalars first, since list defaults depend on their count key.
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < d->nkeys; k++)
      if (d->state[k].origin == kUnset && IsList(&d->keys[k]) == pass)
        BlastCall(ApplyDefault(&d->keys[k], &d->cfg));
  BlastCall(CheckListCounts(d));
  for (int k = 0; k < d->nkeys; k++) {
    const BlastDeckKey *K = &d->keys[k];
    if (!K->resolve) continue;
    BlastDeckResolveInfo info = {d->name, d->dir, d->state[k].origin ? d->state[k].where : d->name,
                                 d->state[k].origin != kUnset};
    BlastCall(K->resolve(&d->cfg, &info));
  }
  BlastCall(CheckQuadrature(d));
  // What a deck line cannot hold could not be echoed: refuse it now.
  for (int k = 0; k < d->nkeys; k++) {
    const BlastDeckKey *K = &d->keys[k];
    const char *v = (const char *)&d->cfg + K->offset;
    if (K->type != BLAST_DECK_STRING || !v[0]) continue;
    char ex[96];
    Excerpt(v, strlen(v), ex, sizeof ex);
    BlastCheck(Writable(K, v), BLAST_ERR_INPUT,
               "%s: [%s] %s = '%s' (%zu characters) cannot be written back as a deck line "
               "(at most %d characters, no ' ;')",
               d->state[k].origin ? d->state[k].where : d->name, K->section, K->key, ex, strlen(v),
               kMaxEchoLine);
  }
  memset(d->cfg.deck_path, 0, sizeof d->cfg.deck_path);
  memcpy(d->cfg.deck_path, d->name, strlen(d->name));
  memcpy(cfg, &d->cfg, sizeof *cfg);
  return 0;
}

// ---------------------------------------------------------------------------------------
// One-call entry points

static int ParseInto(BlastDeck d, const char *text, int noverrides, char **overrides,
                     const int *argnos, BlastConfig *cfg) {
  BlastCall(BlastDeckReadText(d, text));
  for (int i = 0; i < noverrides; i++)
    BlastCall(BlastDeckApplyOverride(d, overrides[i], argnos ? argnos[i] : i + 1));
  BlastCall(BlastDeckResolve(d, cfg));
  return 0;
}

static int ParseWithOverrides(const char *text, const char *name, const char *deck_dir,
                              int noverrides, char **overrides, const int *argnos,
                              BlastConfig *cfg) {
  BlastDeck d = NULL;
  BlastCall(BlastDeckCreate(name, deck_dir, &d));
  int ierr = ParseInto(d, text, noverrides, overrides, argnos, cfg);
  BlastDeckDestroy(&d);
  BlastCall(ierr);
  return 0;
}

int BlastDeckParseText(const char *text, const char *name, const char *deck_dir, BlastConfig *cfg) {
  BlastCheck(text && name && cfg, BLAST_ERR_ARG, "text, name and cfg must not be NULL");
  BlastCall(ParseWithOverrides(text, name, deck_dir, 0, NULL, NULL, cfg));
  return 0;
}

// ---------------------------------------------------------------------------------------
// Loading a deck file on a communicator

typedef enum {
  kReadOk = 0,
  kReadOpen,
  kReadIO,
  kReadTooBig,
  kReadNoMem,
  kReadNotRegular
} ReadStatus;

/// Read the whole file (rank 0). File problems are returned as a status, not raised, so
/// that every rank can raise the same error after the broadcast. Only a regular file of at
/// most kMaxDeckBytes bytes is read: a FIFO, a device or a directory is refused before
/// any read (opened with O_NONBLOCK, so a FIFO without a writer does not block).
/// `*kind` names what a non-regular file is (see BlastFileProbe).
static ReadStatus ReadDeckFile(const char *path, char **text, int *len, int *err, int *kind) {
  *err = 0;
  *len = 0;
  *kind = 0;
  FILE *f = NULL;
  BlastFileProbe probe;
  switch (BlastProbeRegularFile(path, kMaxDeckBytes, &probe, &f)) {
    case BLAST_FILE_OK:
      break;
    case BLAST_FILE_OPEN:
      *err = probe.err;
      return kReadOpen;
    case BLAST_FILE_NOT_REG:
      for (int i = 0; kDeckFileKinds[i]; i++)
        if (!strcmp(kDeckFileKinds[i], probe.kind)) *kind = i;
      return kReadNotRegular;
    default:
      return kReadTooBig;
  }
  // At most kMaxDeckBytes: the size was checked, and a file that grows meanwhile is cut
  // at the cap and refused below.
  size_t cap = probe.size + 2, n = 0;
  if (cap > (size_t)kMaxDeckBytes + 2) cap = (size_t)kMaxDeckBytes + 2;
  ReadStatus status = kReadOk;
  if (BlastMalloc(cap, text)) status = kReadNoMem;
  while (status == kReadOk && n + 1 < cap) {
    size_t got = fread(*text + n, 1, cap - 1 - n, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) {
        *err = errno;
        status = kReadIO;
      }
      break;
    }
  }
  if (status == kReadOk && n > (size_t)kMaxDeckBytes) status = kReadTooBig;
  fclose(f);
  if (status == kReadOk) {
    (*text)[n] = '\0';
    *len = (int)n;
  } else if (status != kReadNoMem) {
    BlastFree(text);
  }
  return status;
}

static void DirName(const char *path, char *dir, size_t n) {
  const char *slash = strrchr(path, '/');
  size_t len = slash ? (size_t)(slash - path) : 0;
  if (slash && len == 0) len = 1;  // "/deck.ini"
  if (len > n - 1) len = n - 1;
  memcpy(dir, path, len);
  dir[len] = '\0';
}

/// Rank 0 reads, every rank gets the text (or the same error).
static int BroadcastText(MPI_Comm comm, const char *path, char **text) {
  int rank = 0;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  int hdr[4] = {kReadOk, 0, 0, 0};  // status, errno, length, kind of a non-regular file
  if (!rank) hdr[0] = (int)ReadDeckFile(path, text, &hdr[2], &hdr[1], &hdr[3]);
  BlastCallMPI(MPI_Bcast(hdr, 4, MPI_INT, 0, comm));
  switch (hdr[0]) {
    case kReadOk:
      break;
    case kReadOpen:
      BlastError(BLAST_ERR_INPUT, "%s: cannot open the deck: %s", path, strerror(hdr[1]));
    case kReadIO:
      BlastError(BLAST_ERR_INPUT, "%s: cannot read the deck: %s", path, strerror(hdr[1]));
    case kReadNotRegular:
      BlastError(BLAST_ERR_INPUT, "%s: cannot read the deck: it is a %s, not a regular file", path,
                 hdr[3] >= 0 && hdr[3] < kNumDeckFileKinds ? kDeckFileKinds[hdr[3]] : "?");
    case kReadTooBig:
      BlastError(BLAST_ERR_INPUT,
                 "%s: cannot read the deck: it has more than %d bytes (1 MiB), too large for a "
                 "deck (not a deck file?)",
                 path, kMaxDeckBytes);
    default:
      BlastError(BLAST_ERR_MEM, "%s: rank 0 could not allocate memory for the deck", path);
  }
  int aerr = rank ? BlastMalloc(hdr[2] + 1, text) : 0;
  BlastCallAgree(comm, 0, aerr);
  BlastCallMPI(MPI_Bcast(*text, hdr[2] + 1, MPI_CHAR, 0, comm));
  // inih would stop at a NUL byte and silently ignore the rest of the file.
  const char *nul = memchr(*text, '\0', (size_t)hdr[2]);
  if (nul) {
    int line = 1;
    for (const char *p = *text; p < nul; p++) line += *p == '\n';
    BlastError(BLAST_ERR_INPUT, "%s:%d: NUL byte in the deck (not a text file?)", path, line);
  }
  return 0;
}

static int LoadLocal(MPI_Comm comm, const char *path, int noverrides, char **overrides,
                     const int *argnos, char **text, BlastConfig *cfg) {
  BlastCall(BroadcastText(comm, path, text));
  char dir[BLAST_PATH_MAX];
  DirName(path, dir, sizeof dir);
  BlastCall(ParseWithOverrides(*text, path, dir, noverrides, overrides, argnos, cfg));
  return 0;
}

int BlastDeckLoadArgs(MPI_Comm comm, const char *path, int noverrides, char **overrides,
                      const int *argnos, BlastConfig *cfg) {
  BlastCheck(path && cfg && (noverrides == 0 || overrides), BLAST_ERR_ARG,
             "path, cfg and overrides must not be NULL");
  char *text = NULL;
  int ierr = LoadLocal(comm, path, noverrides, overrides, argnos, &text, cfg);
  BlastFree(&text);
  // Every rank parsed the same text, so input errors are the same everywhere: report once.
  BlastCallAgree(comm, ierr == BLAST_ERR_INPUT, ierr);
  return 0;
}

int BlastDeckLoad(MPI_Comm comm, const char *path, int noverrides, char **overrides,
                  BlastConfig *cfg) {
  BlastCall(BlastDeckLoadArgs(comm, path, noverrides, overrides, NULL, cfg));
  return 0;
}

// ---------------------------------------------------------------------------------------
// Command line

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

int BlastDeckParseArgs(int argc, char **argv, BlastDeckArgs *args) {
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
        Suggestion sg;
        SuggestInit(&sg, a);
        for (size_t o = 0; o < sizeof kOptions / sizeof kOptions[0]; o++)
          SuggestOffer(&sg, kOptions[o].name);
        char ex[96];
        Excerpt(a, strlen(a), ex, sizeof ex);
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

void BlastDeckArgsFree(BlastDeckArgs *args) {
  if (!args) return;
  BlastFree(&args->overrides);
  BlastFree(&args->argnos);
  BlastFree(&args->restart);
  args->noverrides = 0;
}

void BlastDeckPrintHelp(FILE *out) {
  const Schema *s = GetSchema();
  fprintf(out,
          "%s\n\n"
          "Runs the Lagrangian hydrodynamics problem described by an INI deck. Any deck key\n"
          "can be overridden after the deck as section.key=value, with the same checks as\n"
          "a deck line. Relative mesh paths are taken from the deck's directory.\n\n"
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
          "\nexit codes: 0 success (also a clean stop after a checkpoint on SIGTERM or SIGUSR1), "
          "2 bad input (deck, command line, mesh, checkpoint), 3 numerical failure, 1 other "
          "errors\n\ndeck keys:\n");
  for (int i = 0; i < s->nsections; i++) {
    fprintf(out, "\n[%s]\n", s->sections[i]);
    for (int k = 0; k < s->nkeys; k++) {
      const BlastDeckKey *K = &s->keys[k];
      if (strcmp(K->section, s->sections[i])) continue;
      char expected[kExpectLen], def[256];
      DescribeExpected(K, expected, sizeof expected);
      if (K->required)
        snprintf(def, sizeof def, "required");
      else if (K->def_help)
        snprintf(def, sizeof def, "default %s", K->def_help);
      else
        snprintf(def, sizeof def, "default %s", K->def ? K->def : "none");
      fprintf(out, "  %-17s %-9s %s\n", K->key, TypeName(K), K->help);
      fprintf(out, "  %-17s %-9s %s; %s\n", "", "", def, expected);
      if (K->conflicts)
        fprintf(out, "  %-17s %-9s cannot be combined with: %s\n", "", "", K->conflicts);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Echo

/// The value of key k in cfg as deck text.
static int FormatValue(const BlastDeckKey *k, const BlastConfig *cfg, char *buf, size_t n) {
  const char *field = (const char *)cfg + k->offset;
  buf[0] = '\0';
  switch (k->type) {
    case BLAST_DECK_INT: {
      int v;
      memcpy(&v, field, sizeof v);
      snprintf(buf, n, "%d", v);
      return 0;
    }
    case BLAST_DECK_BOOL:
    case BLAST_DECK_ENUM: {
      int v;
      memcpy(&v, field, sizeof v);
      const BlastDeckChoice *c = k->type == BLAST_DECK_BOOL ? kBool : k->choices;
      for (int i = 0; c[i].name; i++)
        if (c[i].value == v) {
          snprintf(buf, n, "%s", c[i].name);
          return 0;
        }
      BlastError(BLAST_ERR_ARG, "[%s] %s has the value %d, which is none of its choices",
                 k->section, k->key, v);
    }
    case BLAST_DECK_STRING:
      BlastCheck(memchr(field, '\0', k->size), BLAST_ERR_ARG, "[%s] %s is not terminated",
                 k->section, k->key);
      snprintf(buf, n, "%s", field);
      return 0;
    case BLAST_DECK_REAL:
    case BLAST_DECK_REAL_LIST:
    case BLAST_DECK_INT_LIST: {
      int count = k->type == BLAST_DECK_REAL ? 1 : ListCount(k, cfg);
      for (int i = 0; i < count; i++) {
        size_t len = strlen(buf);
        if (k->type == BLAST_DECK_INT_LIST) {
          int v;
          memcpy(&v, field + i * sizeof(int), sizeof v);
          snprintf(buf + len, n - len, "%s%d", i ? " " : "", v);
          continue;
        }
        double v;
        memcpy(&v, field + i * sizeof(double), sizeof v);
        BlastCheck(isfinite(v), BLAST_ERR_ARG, "[%s] %s is not finite", k->section, k->key);
        // The shortest text that reads back to the same double.
        for (int prec = 1; prec <= 17; prec++) {
          snprintf(buf + len, n - len, "%s%.*g", i ? " " : "", prec, v);
          if (strtod(buf + len, NULL) == v) break;
        }
      }
      return 0;
    }
  }
  BlastError(BLAST_ERR_INTERNAL, "[%s] %s has an unknown type %d", k->section, k->key, k->type);
}

static size_t FieldBytes(const BlastDeckKey *k) {
  switch (k->type) {
    case BLAST_DECK_REAL:
      return sizeof(double);
    case BLAST_DECK_STRING:
      return k->size;
    case BLAST_DECK_INT_LIST:
      return k->size * sizeof(int);
    case BLAST_DECK_REAL_LIST:
      return k->size * sizeof(double);
    default:
      return sizeof(int);
  }
}

/// Whether cfg holds what key k resolves to when the deck does not set it.
static int IsDefault(const BlastDeckKey *k, const BlastConfig *cfg) {
  if (k->required) return 0;
  BlastConfig d;
  memcpy(&d, cfg, sizeof d);
  if (ApplyDefault(k, &d)) return 0;
  if (k->resolve) {
    BlastDeckResolveInfo info = {cfg->deck_path, "", "default", 0};
    if (k->resolve(&d, &info)) {
      BlastErrorClear();
      return 0;
    }
  }
  const char *a = (const char *)cfg + k->offset, *b = (const char *)&d + k->offset;
  if (k->type == BLAST_DECK_STRING) return !strcmp(a, b);
  return !memcmp(a, b, FieldBytes(k));
}

/// The key of the same section whose value makes key k unused (e.g. file for dim).
static const BlastDeckKey *ExcludedBy(const BlastDeckKey *k, const BlastConfig *cfg) {
  const Schema *s = GetSchema();
  size_t len = strlen(k->key);
  for (int o = 0; o < s->nkeys; o++) {
    const BlastDeckKey *O = &s->keys[o];
    if (!O->conflicts || strcmp(O->section, k->section) || IsDefault(O, cfg)) continue;
    for (const char *p = strstr(O->conflicts, k->key); p; p = strstr(p + 1, k->key))
      if ((p == O->conflicts || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return O;
  }
  return NULL;
}

/// Write the deck to out, or only check that it can be written (out == NULL).
static int EmitDeck(const BlastConfig *cfg, FILE *out) {
  const Schema *s = GetSchema();
  if (out) {
    char src[96];
    Excerpt(cfg->deck_path, strnlen(cfg->deck_path, sizeof cfg->deck_path), src, sizeof src);
    fprintf(out, "; blast_gpu deck, resolved from %s\n", src[0] ? src : "(no file)");
    fprintf(out,
            "; every key is listed; '; default' marks the built-in defaults (where it fits)\n");
  }
  for (int i = 0; i < s->nsections; i++) {
    if (out) fprintf(out, "\n[%s]\n", s->sections[i]);
    for (int k = 0; k < s->nkeys; k++) {
      const BlastDeckKey *K = &s->keys[k];
      if (strcmp(K->section, s->sections[i])) continue;
      const BlastDeckKey *by = ExcludedBy(K, cfg);
      if (by) {
        if (out) fprintf(out, "; %s: not used, [%s] %s is set\n", K->key, by->section, by->key);
        continue;
      }
      char value[BLAST_PATH_MAX + 64];
      BlastCall(FormatValue(K, cfg, value, sizeof value));
      if (K->type == BLAST_DECK_STRING && !value[0]) {
        if (out) fprintf(out, "; %s: not set\n", K->key);
        continue;
      }
      BlastCheck(Writable(K, value), BLAST_ERR_ARG,
                 "[%s] %s = '%.60s' cannot be written as a deck line", K->section, K->key, value);
      // The marker is a comment: left out where it would make the line too long to be
      // read back (a derived default such as [checkpoint] dir can fill the line).
      static const char kMarker[] = "  ; default";
      const int mark =
          IsDefault(K, cfg) &&
          strlen(K->key) + 3 + strlen(value) + sizeof kMarker - 1 <= (size_t)kMaxEchoLine;
      if (out) fprintf(out, "%s = %s%s\n", K->key, value, mark ? kMarker : "");
    }
  }
  return 0;
}

int BlastDeckWrite(const BlastConfig *cfg, FILE *out) {
  BlastCheck(cfg && out, BLAST_ERR_ARG, "cfg and out must not be NULL");
  BlastCall(EmitDeck(cfg, NULL));  // nothing is written unless all of it can be
  BlastCall(EmitDeck(cfg, out));
  BlastCheck(!ferror(out), BLAST_ERR_IO, "writing the deck failed: %s", strerror(errno));
  return 0;
}
