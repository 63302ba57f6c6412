// Deck values: the text helpers of messages, lookups in the schema table, what a key
// accepts in words, and the parsing and checking of one value against its key (type,
// range, choices), with the built-in defaults (see deck.h, deck-impl.h).
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"
#include "deck-impl.h"
#include "deck.h"

// ---------------------------------------------------------------------------------------
// Small helpers

int DeckIsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int ToLower(char c) {
  return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/// Copy at most n-1 bytes of [s, s+len) into buf, stripping surrounding white space.
void DeckCopyStripped(char *buf, size_t n, const char *s, size_t len) {
  while (len && DeckIsSpace(*s)) s++, len--;
  while (len && DeckIsSpace(s[len - 1])) len--;
  if (len > n - 1) len = n - 1;
  memcpy(buf, s, len);
  buf[len] = '\0';
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

void BlastDeckSuggestInit(BlastDeckSuggestion *s, const char *word) {
  s->word = word;
  s->best = NULL;
  s->dist = INT_MAX;
}

void BlastDeckSuggestOffer(BlastDeckSuggestion *s, const char *candidate) {
  int d = EditDistance(s->word, candidate);
  if (d <= 1 + (int)strlen(candidate) / 4 && d < s->dist) {
    s->best = candidate;
    s->dist = d;
  }
}

/// A quoted excerpt of user text for messages: at most 60 characters, control characters
/// shown as '?'.
void BlastDeckExcerpt(const char *s, size_t len, char *buf, size_t n) {
  size_t m = 0;
  for (size_t i = 0; i < len && s[i] && m + 4 < n && i < 60; i++)
    buf[m++] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
  if (len > 60 && strlen(s) > 60 && m + 4 < n) buf[m++] = '.', buf[m++] = '.', buf[m++] = '.';
  buf[m] = '\0';
}

// ---------------------------------------------------------------------------------------
// Schema lookups

const DeckSchema *DeckGetSchema(void) {
  // Built on first use from the constant table.
  static DeckSchema s;
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

int DeckFindSection(const char *section) {
  const DeckSchema *s = DeckGetSchema();
  for (int i = 0; i < s->nsections; i++)
    if (!strcmp(s->sections[i], section)) return i;
  return -1;
}

int DeckFindKey(const char *section, const char *key) {
  const DeckSchema *s = DeckGetSchema();
  for (int k = 0; k < s->nkeys; k++)
    if (!strcmp(s->keys[k].section, section) && !strcmp(s->keys[k].key, key)) return k;
  return -1;
}

int DeckFindKeyAnySection(const char *key) {
  const DeckSchema *s = DeckGetSchema();
  for (int k = 0; k < s->nkeys; k++)
    if (!strcmp(s->keys[k].key, key)) return k;
  return -1;
}

/// The INT key that gives the number of values of list key k.
int DeckCountKey(const BlastDeckKey *k) {
  return DeckFindKey(k->section, k->count_key);
}

int DeckListCount(const BlastDeckKey *k, const BlastConfig *cfg) {
  int ck = DeckCountKey(k);
  if (ck < 0) return (int)k->size;
  int c;
  memcpy(&c, (const char *)cfg + DeckGetSchema()->keys[ck].offset, sizeof c);
  return c < 0 ? 0 : (c > (int)k->size ? (int)k->size : c);
}

// ---------------------------------------------------------------------------------------
// What a key accepts, in words

int DeckIsList(const BlastDeckKey *k) {
  return k->type == BLAST_DECK_INT_LIST || k->type == BLAST_DECK_REAL_LIST;
}
static int IsIntegral(const BlastDeckKey *k) {
  return k->type == BLAST_DECK_INT || k->type == BLAST_DECK_INT_LIST;
}

const char *DeckTypeName(const BlastDeckKey *k) {
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
void DeckDescribeExpected(const BlastDeckKey *k, char *buf, size_t n) {
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
  BlastDeckExcerpt(tok, strlen(tok), ex, sizeof ex);
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
    BlastDeckExcerpt(end, strlen(end), junk, sizeof junk);
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
  BlastDeckSuggestion sg;
  BlastDeckSuggestInit(&sg, value);
  for (int i = 0; choices[i].name; i++) {
    if (!strcmp(choices[i].name, value)) {
      *out = choices[i].value;
      return 0;
    }
    BlastDeckSuggestOffer(&sg, choices[i].name);
  }
  char ex[96];
  BlastDeckExcerpt(value, strlen(value), ex, sizeof ex);
  if (sg.best)
    BlastError(BLAST_ERR_INPUT, "%s: bad value '%s' for [%s] %s: expected %s; did you mean '%s'?",
               where, ex, k->section, k->key, expected, sg.best);
  BlastError(BLAST_ERR_INPUT, "%s: bad value '%s' for [%s] %s: expected %s", where, ex, k->section,
             k->key, expected);
}

const BlastDeckChoice kDeckBool[] = {{"false", 0}, {"true", 1}, {NULL, 0}};

/// Parse `value` (non-empty, stripped) for key k into its field of *cfg. Lists set *count.
int DeckParseValue(const BlastDeckKey *k, const char *value, const char *where, BlastConfig *cfg,
                   int *count) {
  char expected[kExpectLen];
  DeckDescribeExpected(k, expected, sizeof expected);
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
      BlastCall(ParseChoice(k, k->type == BLAST_DECK_BOOL ? kDeckBool : k->choices, value, where,
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
        while (DeckIsSpace(*p)) p++;
        if (!*p) break;
        const char *q = p;
        while (*q && !DeckIsSpace(*q)) q++;
        BlastCheck(n < (int)k->size, BLAST_ERR_INPUT,
                   "%s: too many values for [%s] %s (at most %zu): expected %s", where, k->section,
                   k->key, k->size, expected);
        char tok[128];
        DeckCopyStripped(tok, sizeof tok, p, (size_t)(q - p));
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
int DeckApplyDefault(const BlastDeckKey *k, BlastConfig *cfg) {
  char *field = (char *)cfg + k->offset;
  if (!k->def) {
    // Computed by the key's resolve hook (or required).
    if (k->type == BLAST_DECK_STRING) memset(field, 0, k->size);
    return 0;
  }
  int count = 0;
  int ierr = DeckParseValue(k, k->def, "built-in default", cfg, &count);
  if (ierr) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
    BlastError(BLAST_ERR_INTERNAL, "schema error: bad default of [%s] %s: %s", k->section, k->key,
               msg);
  }
  if (DeckIsList(k)) {
    int n = DeckListCount(k, cfg);
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
int DeckWritable(const BlastDeckKey *k, const char *value) {
  size_t len = strlen(value);
  // A leading ';' would read as a comment after "key = ".
  if (!len || DeckIsSpace(value[0]) || DeckIsSpace(value[len - 1]) || value[0] == ';') return 0;
  if (strlen(k->key) + 3 + len > (size_t)kMaxEchoLine) return 0;
  for (size_t i = 0; i < len; i++) {
    if (((unsigned char)value[i] < 0x20 && value[i] != '\t') || value[i] == 0x7f) return 0;
    if (value[i] == ';' && i && DeckIsSpace(value[i - 1])) return 0;
  }
  return 1;
}
