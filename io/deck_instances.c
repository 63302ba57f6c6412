// The named sections of a deck being read: headers ([material.water] creates or continues
// an instance), their keys (deck lines and command-line overrides such as
// region.pool.density=900), typos in their names, and their resolution (required keys,
// defaults, the family's checks, the expressions compiled once, the rules of
// [problem] name = custom). The tables are in deck_families.c.
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "blast.h"
#include "deck-impl.h"
#include "deck.h"
#include "deck-expr.h"

static const BlastDeckFamily *Families(int *n) {
  return BlastDeckFamilies(n);
}

static char *InstancePtr(BlastDeck d, int f, int i) {
  int nf = 0;
  const BlastDeckFamily *F = Families(&nf);
  return (char *)&d->cfg + F[f].array_offset + (size_t)i * F[f].stride;
}

int DeckFamiliesCreate(BlastDeck d) {
  int nf = 0, total = 0;
  const BlastDeckFamily *F = Families(&nf);
  BlastCheck(nf <= kMaxFamilies, BLAST_ERR_INTERNAL, "schema error: too many families");
  for (int f = 0; f < nf; f++) {
    BlastCheck(F[f].max <= kMaxInstances, BLAST_ERR_INTERNAL, "schema error: [%s] max", F[f].name);
    d->fstate_base[f] = total;
    total += F[f].max * F[f].nkeys;
  }
  BlastCall(BlastCalloc(total, &d->fstate));
  return 0;
}

DeckKeyState *DeckFamilyState(BlastDeck d, int f, int i, int key) {
  int nf = 0;
  const BlastDeckFamily *F = Families(&nf);
  return &d->fstate[d->fstate_base[f] + i * F[f].nkeys + key];
}

int DeckFamilyOf(const char *section, const char **name) {
  int nf = 0;
  const BlastDeckFamily *F = Families(&nf);
  const char *dot = strchr(section, '.');
  const size_t len = dot ? (size_t)(dot - section) : strlen(section);
  for (int f = 0; f < nf; f++) {
    if (strlen(F[f].name) != len || strncmp(F[f].name, section, len)) continue;
    *name = dot ? dot + 1 : "";
    return f;
  }
  return -1;
}

int DeckFamilyOfKey(const char *key) {
  int nf = 0;
  const BlastDeckFamily *F = Families(&nf);
  for (int f = 0; f < nf; f++)
    for (int k = 0; k < F[f].nkeys; k++)
      if (!strcmp(F[f].keys[k].key, key)) return f;
  return -1;
}

/// The instance of family f called `name` ("" for [exact]), or -1.
static int FindInstance(BlastDeck d, int f, const char *name) {
  int nf = 0;
  const BlastDeckFamily *F = Families(&nf);
  if (!F[f].named) return d->ninst[f] > 0 ? 0 : -1;
  for (int i = 0; i < d->ninst[f]; i++)
    if (!strcmp(InstancePtr(d, f, i) + F[f].name_offset, name)) return i;
  return -1;
}

/// Whether a section's own name is valid: [A-Za-z0-9_-]+, shorter than BLAST_NAME_MAX.
static int CheckName(const BlastDeckFamily *F, const char *section, const char *name,
                     const char *where) {
  char ex[96];
  BlastDeckExcerpt(section, strlen(section), ex, sizeof ex);
  if (!F->named) {
    BlastCheck(!name[0] && !strchr(section, '.'), BLAST_ERR_INPUT,
               "%s: section [%s]: [%s] is a single section and takes no name", where, ex, F->name);
    return 0;
  }
  BlastCheck(strchr(section, '.'), BLAST_ERR_INPUT,
             "%s: section [%s] needs a name: did you mean [%s.NAME]? (e.g. [%s.a]; NAME of "
             "letters, digits, '_' and '-')",
             where, ex, F->name, F->name);
  BlastCheck(name[0], BLAST_ERR_INPUT,
             "%s: section [%s]: the name after '%s.' is empty ([%s.NAME], NAME of letters, "
             "digits, '_' and '-')",
             where, ex, F->name, F->name);
  for (const char *p = name; *p; p++) {
    const char c = *p;
    const int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '-';
    BlastCheck(ok, BLAST_ERR_INPUT,
               "%s: section [%s]: the name '%s' has the character '%c'; NAME is of letters, "
               "digits, '_' and '-'",
               where, ex, name, (unsigned char)c < 0x20 || c == 0x7f ? '?' : c);
  }
  BlastCheck(strlen(name) < BLAST_NAME_MAX, BLAST_ERR_INPUT,
             "%s: section [%s]: the name is too long (%zu characters, at most %d)", where, ex,
             strlen(name), BLAST_NAME_MAX - 1);
  return 0;
}

int DeckFamilyHeader(BlastDeck d, int f, const char *section, const char *where) {
  int nf = 0;
  const BlastDeckFamily *F = &Families(&nf)[f];
  const char *name = "";
  DeckFamilyOf(section, &name);
  BlastCall(CheckName(F, section, name, where));
  if (FindInstance(d, f, name) >= 0) return 0;  // continued
  BlastCheck(d->ninst[f] < F->max, BLAST_ERR_INPUT,
             "%s: section [%s] is one [%s.NAME] section too many: at most %d (%s)", where, section,
             F->name, F->max, F->max_name);
  const int i = d->ninst[f]++;
  d->inst_line[f][i] = d->line;
  char *inst = InstancePtr(d, f, i);
  if (F->named) {
    memset(inst + F->name_offset, 0, BLAST_NAME_MAX);
    memcpy(inst + F->name_offset, name, strlen(name));
    DeckStoreWhere(inst + F->where_offset, where);
    memcpy((char *)&d->cfg + F->count_offset, &d->ninst[f], sizeof(int));
  }
  return 0;
}

/// An override or deck line names an instance the deck lacks.
static int NoInstance(BlastDeck d, int f, const char *section, const char *where) {
  int nf = 0;
  const BlastDeckFamily *F = &Families(&nf)[f];
  char ex[96];
  BlastDeckExcerpt(section, strlen(section), ex, sizeof ex);
  const char *name = "";
  DeckFamilyOf(section, &name);
  BlastCall(CheckName(F, section, name, where));
  if (!F->named)
    BlastError(BLAST_ERR_INPUT,
               "%s: the deck has no [%s] section: a command line can only change the keys of "
               "sections the deck has",
               where, F->name);
  BlastDeckSuggestion sg;
  BlastDeckSuggestInit(&sg, name);
  char list[512] = "";
  for (int i = 0; i < d->ninst[f]; i++) {
    const char *other = InstancePtr(d, f, i) + F->name_offset;
    BlastDeckSuggestOffer(&sg, other);
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s[%s.%s]", i ? ", " : "", F->name, other);
  }
  if (sg.best)
    BlastError(BLAST_ERR_INPUT, "%s: the deck has no section [%s]; did you mean [%s.%s]?", where,
               ex, F->name, sg.best);
  if (d->ninst[f])
    BlastError(BLAST_ERR_INPUT,
               "%s: the deck has no section [%s] (a command line can only change the keys of "
               "sections the deck has); its [%s.NAME] sections are: %s",
               where, ex, F->name, list);
  BlastError(BLAST_ERR_INPUT,
             "%s: the deck has no [%s.NAME] section: a command line can only change the keys of "
             "sections the deck has",
             where, F->name);
}

static int UnknownFamilyKey(const BlastDeckFamily *F, const char *section, const char *key,
                            const char *where) {
  char ex[96];
  BlastDeckExcerpt(key, strlen(key), ex, sizeof ex);
  BlastDeckSuggestion sg;
  BlastDeckSuggestInit(&sg, key);
  char list[256] = "";
  for (int k = 0; k < F->nkeys; k++) {
    BlastDeckSuggestOffer(&sg, F->keys[k].key);
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", F->keys[k].key);
  }
  if (sg.best)
    BlastError(BLAST_ERR_INPUT, "%s: unknown key '%s' in section [%s]; did you mean '%s'?", where,
               ex, section, sg.best);
  const int other = DeckFamilyOfKey(key);
  int nf = 0;
  if (other >= 0)
    BlastError(BLAST_ERR_INPUT,
               "%s: unknown key '%s' in section [%s]; '%s' belongs in [%s%s] (the keys of [%s%s] "
               "are: %s)",
               where, ex, section, key, Families(&nf)[other].name,
               Families(&nf)[other].named ? ".NAME" : "", F->name, F->named ? ".NAME" : "", list);
  BlastError(BLAST_ERR_INPUT, "%s: unknown key '%s' in section [%s]; its keys are: %s", where, ex,
             section, list);
}

int DeckFamilySet(BlastDeck d, int f, const char *section, const char *key, const char *value,
                  DeckOrigin origin, int line, const char *where) {
  int nf = 0;
  const BlastDeckFamily *F = &Families(&nf)[f];
  const char *name = "";
  DeckFamilyOf(section, &name);
  const int i = FindInstance(d, f, name);
  if (i < 0) BlastCall(NoInstance(d, f, section, where));
  BlastCheck(key[0], BLAST_ERR_INPUT, "%s: missing key name before '='", where);
  int k = 0;
  while (k < F->nkeys && strcmp(F->keys[k].key, key)) k++;
  if (k == F->nkeys) BlastCall(UnknownFamilyKey(F, section, key, where));
  BlastDeckKey K = F->keys[k];
  K.section = section;
  DeckKeyState *st = DeckFamilyState(d, f, i, k);
  BlastCheck(st->origin != (int)origin, BLAST_ERR_INPUT,
             "%s: duplicate key [%s] %s (first set at %s)", where, section, key, st->where);
  if (!value[0]) {
    char expected[kExpectLen];
    DeckDescribeExpected(&K, expected, sizeof expected);
    BlastError(BLAST_ERR_INPUT, "%s: empty value for [%s] %s: expected %s", where, section, key,
               expected);
  }
  int count = 0;
  BlastCall(DeckParseValue(&K, value, where, InstancePtr(d, f, i), &count));
  st->origin = (int)origin;
  st->line = line;
  st->count = count;
  snprintf(st->where, sizeof st->where, "%s", where);
  return 0;
}

int DeckFamilyUnknown(const char *where, const char *section) {
  int nf = 0;
  const BlastDeckFamily *F = Families(&nf);
  const char *dot = strchr(section, '.');
  if (!dot) return 0;
  char ex[96], prefix[kSectionLen];
  BlastDeckExcerpt(section, strlen(section), ex, sizeof ex);
  DeckCopyStripped(prefix, sizeof prefix, section, (size_t)(dot - section));
  if (DeckFindSection(prefix) >= 0)
    BlastError(BLAST_ERR_INPUT, "%s: section [%s]: [%s] is a single section and takes no name",
               where, ex, prefix);
  BlastDeckSuggestion sg;
  BlastDeckSuggestInit(&sg, prefix);
  for (int f = 0; f < nf; f++) BlastDeckSuggestOffer(&sg, F[f].name);
  if (!sg.best) return 0;
  char rest[kSectionLen], nm[96];
  DeckCopyStripped(rest, sizeof rest, dot + 1, strlen(dot + 1));
  BlastDeckExcerpt(rest, strlen(rest), nm, sizeof nm);
  BlastError(BLAST_ERR_INPUT, "%s: unknown section [%s]; did you mean [%s.%s]?", where, ex, sg.best,
             nm);
}

// ---------------------------------------------------------------------------------------
// Resolution

/// "[material.water]" of instance i (header buffer of kSectionLen).
static void SectionName(BlastDeck d, int f, int i, char *buf) {
  int nf = 0;
  const BlastDeckFamily *F = &Families(&nf)[f];
  if (F->named)
    snprintf(buf, kSectionLen, "%s.%s", F->name, InstancePtr(d, f, i) + F->name_offset);
  else
    snprintf(buf, kSectionLen, "%s", F->name);
}

/// Where [problem] name was set (it is required).
static const char *ProblemWhere(BlastDeck d) {
  const int k = DeckFindKey("problem", "name");
  return k >= 0 && d->state[k].origin != kUnset ? d->state[k].where : d->name;
}

/// The rules of [problem] name = custom.
static int CheckCustom(BlastDeck d) {
  int nf = 0;
  const BlastDeckFamily *F = Families(&nf);
  const int custom = d->cfg.problem == BLAST_PROBLEM_CUSTOM;
  if (!custom) {
    for (int f = 0; f < nf; f++) {
      if (!F[f].custom_only || !d->ninst[f]) continue;
      char section[kSectionLen];
      SectionName(d, f, 0, section);
      BlastError(BLAST_ERR_INPUT,
                 "%s:%d: section [%s] is for [problem] name = custom only (the problem is a "
                 "built-in one, set at %s): remove the section, or define the whole problem with "
                 "name = custom",
                 d->name, d->inst_line[f][0], section, ProblemWhere(d));
    }
    const int k = DeckFindKey("problem", "gravity");
    BlastCheck(k < 0 || d->state[k].origin == kUnset, BLAST_ERR_INPUT,
               "%s: [problem] gravity is for [problem] name = custom only (the problem is a "
               "built-in one, set at %s; rayleigh_taylor has its own gravity)",
               k >= 0 ? d->state[k].where : d->name, ProblemWhere(d));
    return 0;
  }
  BlastCheck(d->cfg.nmaterials > 0, BLAST_ERR_INPUT,
             "%s: [problem] name = custom needs at least one [material.NAME] section (eos, gamma)",
             ProblemWhere(d));
  BlastCheck(d->cfg.nregions > 0, BLAST_ERR_INPUT,
             "%s: [problem] name = custom needs at least one [region.NAME] section (material, "
             "select, density, pressure or specific_energy)",
             ProblemWhere(d));
  return 0;
}

/// Compile an expression once (its syntax), and check that it can be written back.
static int CheckExpr(const BlastDeckKey *K, const BlastExprText *e, const char *where) {
  if (!e->text[0]) return 0;
  char what[kSectionLen + 64];
  snprintf(what, sizeof what, "[%s] %s", K->section, K->key);
  BlastCheck(DeckWritable(K, e->text), BLAST_ERR_INPUT,
             "%s: %s = '%.60s' cannot be written back as a deck line (no ' ;', no leading ';')",
             where, what, e->text);
  BlastCall(DeckExprCheck(e->text, where, what));
  return 0;
}

/// Required keys, defaults, the family's check and the expressions of instance i.
static int ResolveInstance(BlastDeck d, int f, int i) {
  int nf = 0;
  const BlastDeckFamily *F = &Families(&nf)[f];
  char section[kSectionLen];
  SectionName(d, f, i, section);
  char *inst = InstancePtr(d, f, i);
  for (int k = 0; k < F->nkeys; k++) {
    BlastDeckKey K = F->keys[k];
    K.section = section;
    const DeckKeyState *st = DeckFamilyState(d, f, i, k);
    if (st->origin != kUnset) continue;
    if (K.required) {
      char expected[kExpectLen];
      DeckDescribeExpected(&K, expected, sizeof expected);
      BlastError(BLAST_ERR_INPUT, "%s:%d: section [%s] lacks the required key '%s' (%s: %s)",
                 d->name, d->inst_line[f][i], section, K.key, K.help, expected);
    }
    BlastCall(DeckApplyDefault(&K, inst));
  }
  if (F->check) BlastCall(F->check(d, &d->cfg, f, i));
  for (int k = 0; k < F->nkeys; k++) {
    BlastDeckKey K = F->keys[k];
    K.section = section;
    if (K.type != BLAST_DECK_EXPR && K.type != BLAST_DECK_EXPR_LIST) continue;
    const DeckKeyState *st = DeckFamilyState(d, f, i, k);
    const BlastExprText *e = (const BlastExprText *)(const void *)(inst + K.offset);
    const int n = K.type == BLAST_DECK_EXPR ? 1 : DeckListCount(&K, inst);
    for (int j = 0; j < n && st->origin != kUnset; j++) BlastCall(CheckExpr(&K, &e[j], st->where));
  }
  return 0;
}

int DeckFamiliesResolve(BlastDeck d) {
  BlastCall(CheckCustom(d));
  int nf = 0;
  Families(&nf);
  for (int f = 0; f < nf; f++)
    for (int i = 0; i < d->ninst[f]; i++) BlastCall(ResolveInstance(d, f, i));
  return 0;
}
