// Deck parsing: the deck handle, the INI text read with inih (line numbers, section
// headers, syntax errors) and command-line overrides, each key set through the same
// checks (see deck.h).
#define _POSIX_C_SOURCE 200809L

#include <ini.h>
#include <stdio.h>
#include <string.h>

#include "blast.h"
#include "deck-impl.h"
#include "deck.h"

/// Cut an inline comment (';' after white space) as inih does for deck values.
static void CutInlineComment(char *s) {
  int was_space = 0;
  for (char *p = s; *p; p++) {
    if (*p == ';' && was_space) {
      *p = '\0';
      return;
    }
    was_space = DeckIsSpace(*p);
  }
}

// ---------------------------------------------------------------------------------------
// Setting one key (deck line or override)

static int UnknownSection(const char *where, const char *section) {
  BlastCall(DeckFamilyUnknown(where, section));  // [materials.water], [time.x]
  const DeckSchema *s = DeckGetSchema();
  BlastDeckSuggestion sg;
  BlastDeckSuggestInit(&sg, section);
  char list[512] = "";
  for (int i = 0; i < s->nsections; i++) {
    BlastDeckSuggestOffer(&sg, s->sections[i]);
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s[%s]", i ? ", " : "", s->sections[i]);
  }
  int nf = 0;
  const BlastDeckFamily *F = BlastDeckFamilies(&nf);
  for (int f = 0; f < nf; f++) {
    BlastDeckSuggestOffer(&sg, F[f].name);
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, ", [%s%s]", F[f].name, F[f].named ? ".NAME" : "");
  }
  char ex[96];
  BlastDeckExcerpt(section, strlen(section), ex, sizeof ex);
  const char *unused = NULL;
  const int bf = sg.best ? DeckFamilyOf(sg.best, &unused) : -1;
  if (bf >= 0)
    BlastError(BLAST_ERR_INPUT, "%s: unknown section [%s]; did you mean [%s%s]?", where, ex,
               sg.best, F[bf].named ? ".NAME" : "");
  if (sg.best)
    BlastError(BLAST_ERR_INPUT, "%s: unknown section [%s]; did you mean [%s]?", where, ex, sg.best);
  BlastError(BLAST_ERR_INPUT, "%s: unknown section [%s]; the sections are %s", where, ex, list);
}

static int UnknownKey(const char *where, const char *section, const char *key) {
  const DeckSchema *s = DeckGetSchema();
  char ex[96];
  BlastDeckExcerpt(key, strlen(key), ex, sizeof ex);
  int other = DeckFindKeyAnySection(key);
  if (other >= 0)
    BlastError(BLAST_ERR_INPUT, "%s: unknown key '%s' in section [%s]; '%s' belongs in [%s]", where,
               ex, section, key, s->keys[other].section);
  const int fam = DeckFamilyOfKey(key);
  if (fam >= 0) {
    int nf = 0;
    const BlastDeckFamily *F = BlastDeckFamilies(&nf);
    BlastError(BLAST_ERR_INPUT,
               "%s: unknown key '%s' in section [%s]; '%s' belongs in [%s%s] sections%s", where, ex,
               section, key, F[fam].name, F[fam].named ? ".NAME" : "",
               F[fam].custom_only ? " (with [problem] name = custom)" : "");
  }
  BlastDeckSuggestion here, anywhere;
  BlastDeckSuggestInit(&here, key);
  BlastDeckSuggestInit(&anywhere, key);
  int anywhere_k = -1;
  char list[512] = "";
  for (int k = 0; k < s->nkeys; k++) {
    if (!strcmp(s->keys[k].section, section)) {
      BlastDeckSuggestOffer(&here, s->keys[k].key);
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, "%s%s", list[0] ? ", " : "", s->keys[k].key);
    } else {
      const char *before = anywhere.best;
      BlastDeckSuggestOffer(&anywhere, s->keys[k].key);
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
  const DeckSchema *s = DeckGetSchema();
  if (!section[0]) {
    int k = DeckFindKeyAnySection(key);
    if (k >= 0)
      BlastError(BLAST_ERR_INPUT, "%s: key '%s' is outside any section; it belongs in section [%s]",
                 where, key, s->keys[k].section);
    char ex[96];
    BlastDeckExcerpt(key, strlen(key), ex, sizeof ex);
    BlastError(BLAST_ERR_INPUT,
               "%s: key '%s' is outside any section (keys follow a [section] line)", where, ex);
  }
  const char *iname = NULL;
  const int f = DeckFamilyOf(section, &iname);
  if (f >= 0) {
    BlastCall(DeckFamilySet(d, f, section, key, value, origin, line, where));
    return 0;
  }
  if (DeckFindSection(section) < 0) BlastCall(UnknownSection(where, section));
  BlastCheck(key[0], BLAST_ERR_INPUT, "%s: missing key name before '='", where);
  int k = DeckFindKey(section, key);
  if (k < 0) BlastCall(UnknownKey(where, section, key));
  const BlastDeckKey *K = &s->keys[k];
  DeckKeyState *st = &d->state[k];
  BlastCheck(st->origin != (int)origin, BLAST_ERR_INPUT,
             "%s: duplicate key [%s] %s (first set at %s)", where, section, key, st->where);
  if (!value[0]) {
    char expected[kExpectLen];
    DeckDescribeExpected(K, expected, sizeof expected);
    BlastError(BLAST_ERR_INPUT, "%s: empty value for [%s] %s: expected %s", where, section, key,
               expected);
  }
  int count = 0;
  BlastCall(DeckParseValue(K, value, where, &d->cfg, &count));
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
  const DeckSchema *s = DeckGetSchema();
  d->keys = s->keys;
  d->nkeys = s->nkeys;
  int ierr = BlastCalloc(d->nkeys, &d->state);
  if (!ierr) ierr = DeckFamiliesCreate(d);
  if (ierr) {
    BlastFree(&d->state);
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
  BlastFree(&(*deck)->fstate);
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
  int indented = s < end && DeckIsSpace(*s);
  while (s < end && DeckIsSpace(*s)) s++;
  if (s == end || *s != '[') return 0;
  if (indented && d->key_in_section) return 0;  // inih continues a value: the handler says so
  const char *q = s + 1;
  while (q < end && *q != ']' && !(*q == ';' && DeckIsSpace(q[-1]))) q++;
  if (q == end || *q != ']') return 0;  // inih reports the missing ']'
  char where[kWhereLen], name[kSectionLen];
  DeckWhere(d, d->line, where);
  size_t len = (size_t)(q - s - 1);
  if (len > sizeof name - 1) len = sizeof name - 1;
  memcpy(name, s + 1, len);
  name[len] = '\0';
  const char *rest = q + 1;
  while (rest < end && DeckIsSpace(*rest)) rest++;
  if (rest < end && *rest != ';' && *rest != '#') {
    char ex[96];
    BlastDeckExcerpt(rest, (size_t)(end - rest), ex, sizeof ex);
    BlastError(BLAST_ERR_INPUT, "%s: unexpected text '%s' after the section header [%s]", where, ex,
               name);
  }
  snprintf(d->cur_section, sizeof d->cur_section, "%s", name);
  d->key_in_section = 0;
  const char *iname = NULL;
  const int f = DeckFamilyOf(name, &iname);
  if (f >= 0) {
    BlastCall(DeckFamilyHeader(d, f, name, where));
    return 0;
  }
  int i = DeckFindSection(name);
  if (i < 0) BlastCall(UnknownSection(where, name));
  if (!d->section_line[i]) d->section_line[i] = d->line;
  return 0;
}

// A line longer than inih's buffer (cap characters), as inih would see it: a comment or a
// blank line becomes empty; a section header keeps its "[name]"; a key line becomes its
// text up to the delimiter ('=' or ':', as inih splits), and its value (leading space
// skipped, an inline " ;" comment cut, trailing space stripped, as inih does) waits in
// d->long_value for the handler. What is none of these is passed on cut, for inih to
// report as a syntax error on this line.
static void ShortenLongLine(BlastDeck d, const char *p, size_t len, char *buf, size_t cap) {
  size_t i = 0;
  while (i < len && DeckIsSpace(p[i])) i++;
  buf[0] = '\0';
  if (i == len || p[i] == ';' || p[i] == '#') return;
  const char *end = p + len;
  if (p[i] == '[') {
    const char *q = memchr(p + i, ']', len - i);
    size_t n = q ? (size_t)(q - p) + 1 : cap;
    if (n > cap) n = cap;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return;
  }
  const char *delim = p + i;
  while (delim < end && *delim != '=' && *delim != ':') delim++;
  size_t n = (size_t)(delim - p) + 1;
  if (delim == end || n > cap) {
    n = cap;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return;
  }
  memcpy(buf, p, n);
  buf[n] = '\0';
  const char *v = delim + 1;
  while (v < end && DeckIsSpace(*v)) v++;
  size_t vlen = (size_t)(end - v);
  memcpy(d->long_value, v, vlen);
  d->long_value[vlen] = '\0';
  CutInlineComment(d->long_value);
  vlen = strlen(d->long_value);
  while (vlen > 0 && DeckIsSpace(d->long_value[vlen - 1])) d->long_value[--vlen] = '\0';
  d->long_line = d->line;
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
  if (len > (size_t)kMaxDeckLine) {
    char where[kWhereLen];
    DeckWhere(d, d->line, where);
    d->ierr =
        BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                        "%s: line too long (%zu characters, at most %d)", where, len, kMaxDeckLine);
    d->err_line = d->line;
    return NULL;
  }
  if (len > cap) {
    ShortenLongLine(d, p, len, buf, cap);
    const int ierr = ScanSectionHeader(d);
    if (ierr) {
      d->ierr = ierr;
      d->err_line = d->line;
      return NULL;
    }
    return buf;
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
  BlastCheck(!(d->key_in_section && d->line_len && DeckIsSpace(d->line_start[0])), BLAST_ERR_INPUT,
             "%s: indented line continues the value of '%s' (line %d); multi-line values are "
             "not supported: remove the indentation",
             where, name, d->key_line);
  d->key_in_section = 1;
  d->key_line = d->line;
  // The header as the reader saw it: inih cuts section names of 50 characters or more.
  if (section[0] && !strncmp(section, d->cur_section, strlen(section))) section = d->cur_section;
  BlastCall(DeckSet(d, section, name, value, kFromDeck, d->line, where));
  return 0;
}

static int DeckHandler(void *user, const char *section, const char *name, const char *value) {
  BlastDeck d = (BlastDeck)user;
  if (d->ierr) return 0;
  if (d->long_line && d->long_line == d->line) value = d->long_value;
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
  BlastDeckExcerpt(p, len, ex, sizeof ex);
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
  d->long_line = 0;
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
  BlastDeckExcerpt(arg, strlen(arg), ex, sizeof ex);
  snprintf(where, sizeof where, "command line argument %d ('%s')", argno, ex);
  for (const char *p = arg; *p; p++)
    BlastCheck((unsigned char)*p >= 0x20 || *p == '\t', BLAST_ERR_INPUT,
               "%s: contains a control character", where);
  const char *eq = strchr(arg, '=');
  char lhs[kSectionLen + kNameLen];
  DeckCopyStripped(lhs, sizeof lhs, arg, eq ? (size_t)(eq - arg) : strlen(arg));
  char *dot = strrchr(lhs, '.');  // region.pool.density: section region.pool
  if (!eq || !dot) {
    int k = DeckFindKeyAnySection(lhs);
    if (k >= 0)
      BlastError(BLAST_ERR_INPUT, "%s: expected section.key=value, e.g. '%s.%s=%s'", where,
                 d->keys[k].section, d->keys[k].key, eq ? eq + 1 : "...");
    BlastError(BLAST_ERR_INPUT, "%s: expected section.key=value (e.g. time.cfl=0.3)", where);
  }
  *dot = '\0';
  char section[kSectionLen], key[kNameLen];
  DeckCopyStripped(section, sizeof section, lhs, strlen(lhs));
  DeckCopyStripped(key, sizeof key, dot + 1, strlen(dot + 1));
  char value[BLAST_PATH_MAX + 64];
  BlastCheck(strlen(eq + 1) < sizeof value, BLAST_ERR_INPUT, "%s: the value is too long", where);
  memcpy(value, eq + 1, strlen(eq + 1) + 1);
  CutInlineComment(value);  // as inih does for a deck line
  char stripped[sizeof value];
  DeckCopyStripped(stripped, sizeof stripped, value, strlen(value));
  BlastCall(DeckSet(d, section, key, stripped, kFromCommandLine, 0, where));
  return 0;
}
