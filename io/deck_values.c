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
  return k->count_key ? DeckFindKey(k->section, k->count_key) : -1;
}

int DeckIsCounted(const BlastDeckKey *k) {
  return (DeckIsList(k) && !k->count_key) || k->type == BLAST_DECK_EXPR_LIST;
}

int DeckListCount(const BlastDeckKey *k, const void *base) {
  int c;
  if (DeckIsCounted(k)) {
    memcpy(&c, (const char *)base + k->count_offset, sizeof c);
  } else {
    int ck = DeckCountKey(k);
    if (ck < 0) return (int)k->size;
    memcpy(&c, (const char *)base + DeckGetSchema()->keys[ck].offset, sizeof c);
  }
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
    case BLAST_DECK_EXPR:
      return "expr";
    case BLAST_DECK_EXPR_LIST:
      return "exprs";
    case BLAST_DECK_SELECT:
      return "selector";
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
      if (k->names_offset)
        snprintf(buf, n,
                 "1 to %zu attributes separated by spaces, each an integer%s%s or the name the "
                 "mesh gives it",
                 k->size, sep, range);
      else if (DeckIsCounted(k))
        snprintf(buf, n, "1 to %zu %s%s%s%s separated by spaces", k->size,
                 k->type == BLAST_DECK_INT_LIST ? "integers" : "finite real numbers",
                 range[0] ? ", each " : "", range, range[0] ? "," : "");
      else
        snprintf(buf, n, "%s %s%s%s separated by spaces, as many as [%s] %s",
                 k->type == BLAST_DECK_INT_LIST ? "integers" : "finite real numbers",
                 range[0] ? "each " : "", range, range[0] ? "," : "", k->section, k->count_key);
      break;
    case BLAST_DECK_EXPR:
      snprintf(buf, n,
               "a number or an expression of x, y, z, r = |x| and t (at most %d characters)",
               BLAST_EXPR_MAX - 1);
      break;
    case BLAST_DECK_EXPR_LIST:
      snprintf(buf, n,
               "1 to %zu numbers or expressions of x, y, z, r = |x| and t, separated by spaces (no "
               "space inside one)",
               k->size);
      break;
    case BLAST_DECK_SELECT:
      snprintf(buf, n,
               "all | attributes A1 A2 ... (1 to %d integers >= 1 or zone attribute names) | box "
               "(lower corner, upper corner: 2, 4 or 6 numbers) | sphere (centre, radius > 0: 2 "
               "to 4 numbers) | halfspace (normal n, d: 2 to 4 numbers; selects n.x <= d)",
               BLAST_MAX_SELECT_ATTRS);
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

/// Check user text for control characters (a tab allowed where `tab_ok`).
static int NoControl(const BlastDeckKey *k, const char *value, int tab_ok, const char *where) {
  for (const char *p = value; *p; p++)
    BlastCheck(((unsigned char)*p >= 0x20 && *p != 0x7f) || (tab_ok && *p == '\t'), BLAST_ERR_INPUT,
               "%s: the value of [%s] %s contains a control character", where, k->section, k->key);
  return 0;
}

void DeckStoreWhere(char *dst, const char *where) {
  const size_t len = strlen(where);
  memset(dst, 0, BLAST_WHERE_MAX);
  if (len < BLAST_WHERE_MAX) {
    memcpy(dst, where, len);
    return;
  }
  memcpy(dst, "...", 3);
  memcpy(dst + 3, where + len - (BLAST_WHERE_MAX - 4), BLAST_WHERE_MAX - 4);
}

static int StoreExpr(const BlastDeckKey *k, const char *text, size_t len, const char *where,
                     BlastExprText *e) {
  char ex[96];
  BlastDeckExcerpt(text, len, ex, sizeof ex);
  BlastCheck(len < BLAST_EXPR_MAX, BLAST_ERR_INPUT,
             "%s: the expression '%s' of [%s] %s is too long (%zu characters, at most %d)", where,
             ex, k->section, k->key, len, BLAST_EXPR_MAX - 1);
  memset(e, 0, sizeof *e);
  memcpy(e->text, text, len);
  DeckStoreWhere(e->where, where);
  return 0;
}

/// Split `value` at white space into at most `most` tokens: starts and lengths.
static int Tokens(const BlastDeckKey *k, const char *value, const char *where, int most,
                  const char *expected, const char **tok, size_t *len, int *n) {
  *n = 0;
  for (const char *p = value; *p;) {
    while (DeckIsSpace(*p)) p++;
    if (!*p) break;
    const char *q = p;
    while (*q && !DeckIsSpace(*q)) q++;
    BlastCheck(*n < most, BLAST_ERR_INPUT,
               "%s: too many values for [%s] %s (at most %d): expected %s", where, k->section,
               k->key, most, expected);
    tok[*n] = p;
    len[*n] = (size_t)(q - p);
    (*n)++;
    p = q;
  }
  return 0;
}

/// Numbers tok[0..n) for key k as `like` (REAL or INT, its range) into v.
static int Numbers(const BlastDeckKey *k, const BlastDeckKey *like, const char **tok,
                   const size_t *len, int n, const char *where, const char *expected, double *v) {
  BlastDeckKey K = *like;
  K.section = k->section;
  K.key = k->key;
  for (int i = 0; i < n; i++) {
    char t[128];
    DeckCopyStripped(t, sizeof t, tok[i], len[i]);
    BlastCall(ParseNumber(&K, t, where, expected, &v[i]));
  }
  return 0;
}

/// One attribute of a list that takes names: a value that starts like a number is a number
/// (an integer >= 1); any other is the name of one of the mesh's attributes, resolved when
/// the mesh is read (*attr = 0 until then).
static int AttrToken(const BlastDeckKey *k, const char *tok, size_t len, const char *where,
                     const char *expected, int *attr, char *name) {
  static const BlastDeckKey kAttr = {.type = BLAST_DECK_INT, .bounds = BLAST_DECK_MIN, .min = 1};
  char t[2 * BLAST_ATTR_NAME_MAX];
  DeckCopyStripped(t, sizeof t, tok, len);
  memset(name, 0, BLAST_ATTR_NAME_MAX);
  *attr = 0;
  const char c = t[0];
  if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
    double v = 0;
    BlastDeckKey K = kAttr;
    K.section = k->section;
    K.key = k->key;
    BlastCall(ParseNumber(&K, t, where, expected, &v));
    *attr = (int)v;
    return 0;
  }
  char ex[80];
  BlastDeckExcerpt(tok, len, ex, sizeof ex);
  BlastCheck(len < BLAST_ATTR_NAME_MAX, BLAST_ERR_INPUT,
             "%s: [%s] %s: the attribute name '%s' is too long (%zu characters, at most %d)", where,
             k->section, k->key, ex, len, BLAST_ATTR_NAME_MAX - 1);
  // A name is printable text: the echo writes it back as it was read.
  for (const char *q = t; *q; q++)
    BlastCheck((unsigned char)*q >= 0x20 && *q != 0x7f, BLAST_ERR_INPUT,
               "%s: [%s] %s: the attribute name '%s' contains a control character", where,
               k->section, k->key, ex);
  // After "= " or a space, a ';' starts a comment: the echo could not write such a name.
  BlastCheck(t[0] != ';', BLAST_ERR_INPUT,
             "%s: [%s] %s: the attribute name '%s' starts with ';', which a deck line reads as a "
             "comment",
             where, k->section, k->key, ex);
  memcpy(name, t, strlen(t) + 1);
  return 0;
}

const BlastDeckChoice kDeckSelectors[] = {{"all", BLAST_SELECT_ALL},
                                          {"attributes", BLAST_SELECT_ATTRIBUTES},
                                          {"box", BLAST_SELECT_BOX},
                                          {"sphere", BLAST_SELECT_SPHERE},
                                          {"halfspace", BLAST_SELECT_HALFSPACE},
                                          {NULL, 0}};

/// [region.NAME] select: a word and its numbers (the count against the mesh's dimension is
/// checked by the setup).
static int ParseSelector(const BlastDeckKey *k, const char *value, const char *where,
                         const char *expected, BlastSelector *sel) {
  const char *tok[BLAST_MAX_SELECT_ATTRS + 2];
  size_t len[BLAST_MAX_SELECT_ATTRS + 2];
  int n = 0;
  BlastCall(Tokens(k, value, where, BLAST_MAX_SELECT_ATTRS + 1, expected, tok, len, &n));
  char word[32];
  DeckCopyStripped(word, sizeof word, tok[0], len[0]);
  BlastDeckKey K = *k;
  K.choices = kDeckSelectors;
  int kind = 0;
  BlastCall(ParseChoice(&K, kDeckSelectors, word, where,
                        "all, attributes, box, sphere or halfspace, then its numbers", &kind));
  const int nv = n - 1;
  double v[BLAST_MAX_SELECT_ATTRS];
  static const BlastDeckKey kReal = {.type = BLAST_DECK_REAL};
  BlastSelector s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.n = nv;
  switch (kind) {
    case BLAST_SELECT_ALL:
      BlastCheck(nv == 0, BLAST_ERR_INPUT, "%s: [%s] %s = all takes no numbers (got %d)", where,
                 k->section, k->key, nv);
      break;
    case BLAST_SELECT_ATTRIBUTES:
      BlastCheck(nv >= 1 && nv <= BLAST_MAX_SELECT_ATTRS, BLAST_ERR_INPUT,
                 "%s: [%s] %s = attributes takes 1 to %d zone attributes (integers >= 1 or "
                 "names of the mesh's zone attributes), got %d",
                 where, k->section, k->key, BLAST_MAX_SELECT_ATTRS, nv);
      for (int i = 0; i < nv; i++)
        BlastCall(AttrToken(k, tok[i + 1], len[i + 1], where,
                            "an integer >= 1 or the name of a zone attribute", &s.attr[i],
                            s.attr_name[i]));
      break;
    case BLAST_SELECT_BOX:
      BlastCheck(nv == 2 || nv == 4 || nv == 6, BLAST_ERR_INPUT,
                 "%s: [%s] %s = box takes the lower corner and the upper corner: 2, 4 or 6 numbers "
                 "(1D: box x0 x1; 2D: box x0 y0 x1 y1), got %d",
                 where, k->section, k->key, nv);
      BlastCall(Numbers(k, &kReal, tok + 1, len + 1, nv, where, "a finite real number", v));
      for (int i = 0; i < nv / 2; i++)
        BlastCheck(v[i] < v[i + nv / 2], BLAST_ERR_INPUT,
                   "%s: [%s] %s = box: the lower corner's coordinate %d (%.17g) is not below the "
                   "upper corner's (%.17g)",
                   where, k->section, k->key, i + 1, v[i], v[i + nv / 2]);
      break;
    case BLAST_SELECT_SPHERE:
    case BLAST_SELECT_HALFSPACE: {
      const int sphere = kind == BLAST_SELECT_SPHERE;
      BlastCheck(nv >= 2 && nv <= 4, BLAST_ERR_INPUT,
                 "%s: [%s] %s = %s takes %s: dim + 1 = 2 to 4 numbers, got %d", where, k->section,
                 k->key, sphere ? "sphere" : "halfspace",
                 sphere ? "the centre and the radius" : "the normal n and d (n.x <= d)", nv);
      BlastCall(Numbers(k, &kReal, tok + 1, len + 1, nv, where, "a finite real number", v));
      double nn = 0;
      for (int i = 0; i < nv - 1; i++) nn += v[i] * v[i];
      BlastCheck(!sphere || v[nv - 1] > 0, BLAST_ERR_INPUT,
                 "%s: [%s] %s = sphere: the radius (%.17g) must be > 0", where, k->section, k->key,
                 v[nv - 1]);
      BlastCheck(sphere || nn > 0, BLAST_ERR_INPUT, "%s: [%s] %s = halfspace: the normal n is zero",
                 where, k->section, k->key);
      break;
    }
  }
  if (kind != BLAST_SELECT_ATTRIBUTES)
    for (int i = 0; i < nv; i++) s.v[i] = v[i];
  memcpy(sel, &s, sizeof s);
  return 0;
}

/// Parse `value` (non-empty, stripped) for key k into its field at base. Lists set *count.
int DeckParseValue(const BlastDeckKey *k, const char *value, const char *where, void *base,
                   int *count) {
  char expected[kExpectLen];
  DeckDescribeExpected(k, expected, sizeof expected);
  char *field = (char *)base + k->offset;
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
      BlastCall(NoControl(k, value, 0, where));
      BlastCheck(len < k->size, BLAST_ERR_INPUT,
                 "%s: the value of [%s] %s is too long (%zu characters, at most %zu)", where,
                 k->section, k->key, len, k->size - 1);
      memset(field, 0, k->size);
      memcpy(field, value, len);
      return 0;
    }
    case BLAST_DECK_INT_LIST:
    case BLAST_DECK_REAL_LIST: {
      double v[kMaxListValues];
      char names[kMaxListValues][BLAST_ATTR_NAME_MAX];
      memset(names, 0, sizeof names);
      int n = 0;
      BlastCheck(k->size <= kMaxListValues, BLAST_ERR_INTERNAL,
                 "schema error: [%s] %s allows too many values", k->section, k->key);
      const char *p = value;
      while (*p) {
        while (DeckIsSpace(*p)) p++;
        if (!*p) break;
        const char *q = p;
        while (*q && !DeckIsSpace(*q)) q++;
        BlastCheck(n < (int)k->size, BLAST_ERR_INPUT,
                   "%s: too many values for [%s] %s (at most %zu): expected %s", where, k->section,
                   k->key, k->size, expected);
        if (k->names_offset) {
          int a = 0;
          BlastCall(AttrToken(k, p, (size_t)(q - p), where, expected, &a, names[n]));
          v[n++] = a;
          p = q;
          continue;
        }
        char tok[128];
        DeckCopyStripped(tok, sizeof tok, p, (size_t)(q - p));
        BlastCall(ParseNumber(k, tok, where, expected, &v[n]));
        n++;
        p = q;
      }
      if (k->names_offset) memcpy((char *)base + k->names_offset, names, k->size * sizeof names[0]);
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
      if (DeckIsCounted(k)) memcpy((char *)base + k->count_offset, &n, sizeof n);
      return 0;
    }
    case BLAST_DECK_EXPR:
      BlastCall(NoControl(k, value, 0, where));
      BlastCall(StoreExpr(k, value, strlen(value), where, (BlastExprText *)(void *)field));
      return 0;
    case BLAST_DECK_EXPR_LIST: {
      BlastCall(NoControl(k, value, 1, where));
      const char *tok[kMaxListValues];
      size_t len[kMaxListValues];
      int n = 0;
      BlastCall(Tokens(k, value, where, (int)k->size, expected, tok, len, &n));
      BlastExprText *e = (BlastExprText *)(void *)field;
      memset(e, 0, k->size * sizeof *e);
      for (int i = 0; i < n; i++) BlastCall(StoreExpr(k, tok[i], len[i], where, &e[i]));
      *count = n;
      memcpy((char *)base + k->count_offset, &n, sizeof n);
      return 0;
    }
    case BLAST_DECK_SELECT:
      BlastCall(NoControl(k, value, 1, where));
      BlastCall(ParseSelector(k, value, where, expected, (BlastSelector *)(void *)field));
      return 0;
  }
  BlastError(BLAST_ERR_INTERNAL, "[%s] %s has an unknown type %d", k->section, k->key, k->type);
}

size_t DeckFieldBytes(const BlastDeckKey *k) {
  switch (k->type) {
    case BLAST_DECK_REAL:
      return sizeof(double);
    case BLAST_DECK_STRING:
      return k->size;
    case BLAST_DECK_INT_LIST:
      return k->size * sizeof(int);
    case BLAST_DECK_REAL_LIST:
      return k->size * sizeof(double);
    case BLAST_DECK_EXPR:
      return sizeof(BlastExprText);
    case BLAST_DECK_EXPR_LIST:
      return k->size * sizeof(BlastExprText);
    case BLAST_DECK_SELECT:
      return sizeof(BlastSelector);
    default:
      return sizeof(int);
  }
}

int DeckFieldEqual(const BlastDeckKey *k, const void *a, const void *b) {
  const char *fa = (const char *)a + k->offset, *fb = (const char *)b + k->offset;
  if (k->type == BLAST_DECK_STRING) return !strcmp(fa, fb);
  if (DeckIsCounted(k) && DeckListCount(k, a) != DeckListCount(k, b)) return 0;
  if (k->names_offset && memcmp((const char *)a + k->names_offset,
                                (const char *)b + k->names_offset, k->size * BLAST_ATTR_NAME_MAX))
    return 0;
  return !memcmp(fa, fb, DeckFieldBytes(k));
}

/// Give key k its built-in default at base (lists: the default in every direction).
int DeckApplyDefault(const BlastDeckKey *k, void *base) {
  char *field = (char *)base + k->offset;
  if (!k->def) {
    // Computed by the key's resolve hook (or required); values of their own: none given.
    if (k->type == BLAST_DECK_STRING || k->type == BLAST_DECK_EXPR || DeckIsCounted(k))
      memset(field, 0, DeckFieldBytes(k));
    if (DeckIsCounted(k)) memset((char *)base + k->count_offset, 0, sizeof(int));
    if (k->names_offset) memset((char *)base + k->names_offset, 0, k->size * BLAST_ATTR_NAME_MAX);
    return 0;
  }
  int count = 0;
  int ierr = DeckParseValue(k, k->def, "built-in default", base, &count);
  if (ierr) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
    BlastError(BLAST_ERR_INTERNAL, "schema error: bad default of [%s] %s: %s", k->section, k->key,
               msg);
  }
  if (DeckIsList(k) && !DeckIsCounted(k)) {
    int n = DeckListCount(k, base);
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
