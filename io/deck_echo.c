// Deck echo: the resolved configuration written back as an INI deck (--print-deck, the
// deck stored in checkpoints), and the schema's keys described for --help. Both write to
// the FILE the caller passes (see deck.h).
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"
#include "deck-impl.h"
#include "deck.h"

// ---------------------------------------------------------------------------------------
// Echo

/// Append v to buf as the shortest text that reads back to the same double.
static int AppendReal(const BlastDeckKey *k, double v, const char *sep, char *buf, size_t n) {
  BlastCheck(isfinite(v), BLAST_ERR_ARG, "[%s] %s is not finite", k->section, k->key);
  size_t len = strlen(buf);
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf + len, n - len, "%s%.*g", sep, prec, v);
    if (strtod(buf + len + strlen(sep), NULL) == v) break;
  }
  return 0;
}

static int FormatSelector(const BlastDeckKey *k, const BlastSelector *s, char *buf, size_t n) {
  const char *word = NULL;
  for (int i = 0; kDeckSelectors[i].name; i++)
    if (kDeckSelectors[i].value == s->kind) word = kDeckSelectors[i].name;
  const int most = s->kind == BLAST_SELECT_ATTRIBUTES ? BLAST_MAX_SELECT_ATTRS : 6;
  BlastCheck(word && s->n >= 0 && s->n <= most, BLAST_ERR_ARG,
             "[%s] %s: bad selector (kind %d, %d numbers)", k->section, k->key, s->kind, s->n);
  snprintf(buf, n, "%s", word);
  for (int i = 0; i < s->n; i++) {
    if (s->kind == BLAST_SELECT_ATTRIBUTES) {
      size_t len = strlen(buf);
      if (s->attr_name[i][0])
        snprintf(buf + len, n - len, " %.*s", BLAST_ATTR_NAME_MAX - 1, s->attr_name[i]);
      else
        snprintf(buf + len, n - len, " %d", s->attr[i]);
    } else {
      BlastCall(AppendReal(k, s->v[i], " ", buf, n));
    }
  }
  return 0;
}

/// The value of key k at base (a BlastConfig or a family's instance) as deck text.
int DeckFormatValue(const BlastDeckKey *k, const void *base, char *buf, size_t n) {
  const char *field = (const char *)base + k->offset;
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
      const BlastDeckChoice *c = k->type == BLAST_DECK_BOOL ? kDeckBool : k->choices;
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
      int count = k->type == BLAST_DECK_REAL ? 1 : DeckListCount(k, base);
      for (int i = 0; i < count; i++) {
        if (k->type == BLAST_DECK_INT_LIST) {
          int v;
          memcpy(&v, field + i * sizeof(int), sizeof v);
          size_t len = strlen(buf);
          const char *name =
              k->names_offset ? (const char *)base + k->names_offset + i * BLAST_ATTR_NAME_MAX : "";
          if (name[0])
            snprintf(buf + len, n - len, "%s%.*s", i ? " " : "", BLAST_ATTR_NAME_MAX - 1, name);
          else
            snprintf(buf + len, n - len, "%s%d", i ? " " : "", v);
          continue;
        }
        double v;
        memcpy(&v, field + i * sizeof(double), sizeof v);
        BlastCall(AppendReal(k, v, i ? " " : "", buf, n));
      }
      return 0;
    }
    case BLAST_DECK_EXPR:
    case BLAST_DECK_EXPR_LIST: {
      int count = k->type == BLAST_DECK_EXPR ? 1 : DeckListCount(k, base);
      for (int i = 0; i < count; i++) {
        const BlastExprText *e = (const BlastExprText *)(const void *)field + i;
        BlastCheck(memchr(e->text, '\0', sizeof e->text), BLAST_ERR_ARG,
                   "[%s] %s is not terminated", k->section, k->key);
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i ? " " : "", e->text);
      }
      return 0;
    }
    case BLAST_DECK_SELECT: {
      BlastSelector sel;
      memcpy(&sel, field, sizeof sel);
      BlastCall(FormatSelector(k, &sel, buf, n));
      return 0;
    }
  }
  BlastError(BLAST_ERR_INTERNAL, "[%s] %s has an unknown type %d", k->section, k->key, k->type);
}

/// Whether cfg holds what key k resolves to when the deck does not set it.
static int IsDefault(const BlastDeckKey *k, const BlastConfig *cfg) {
  if (k->required) return 0;
  BlastConfig d;
  memcpy(&d, cfg, sizeof d);
  if (DeckApplyDefault(k, &d)) return 0;
  if (k->resolve) {
    BlastDeckResolveInfo info = {cfg->deck_path, "", "default", 0};
    if (k->resolve(&d, &info)) {
      BlastErrorClear();
      return 0;
    }
  }
  return DeckFieldEqual(k, cfg, &d);
}

/// The key of the same section whose value makes key k unused (e.g. file for dim).
static const BlastDeckKey *ExcludedBy(const BlastDeckKey *k, const BlastConfig *cfg) {
  const DeckSchema *s = DeckGetSchema();
  size_t len = strlen(k->key);
  for (int o = 0; o < s->nkeys; o++) {
    const BlastDeckKey *O = &s->keys[o];
    if (!O->conflicts || strcmp(O->section, k->section) || IsDefault(O, cfg)) continue;
    for (const char *p = strstr(O->conflicts, k->key); p; p = strstr(p + 1, k->key))
      if ((p == O->conflicts || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return O;
  }
  return NULL;
}

/// What a run uses for a key whose deck default is resolved later, as the comment of its
/// line: [fem] order_quadrature = -1 (3k + m - 1) and [fem] assembly = default (by the
/// mesh's dimension, once known). The value itself stays as given, so that the printed deck
/// parses back to the same configuration and keeps following the orders it is edited to.
static void ResolvedNote(const BlastDeckKey *K, const BlastConfig *cfg, char *note, size_t nn) {
  note[0] = '\0';
  if (strcmp(K->section, "fem")) return;
  if (!strcmp(K->key, "order_quadrature") && cfg->order_quadrature <= 0) {
    snprintf(note, nn, "  ; default: 3 order_kinematic + order_thermo - 1 = %d",
             BlastQuadratureOrder(cfg->order_quadrature, cfg->order_kinematic, cfg->order_thermo));
    return;
  }
  const int dim = cfg->mesh_file[0] ? cfg->mesh_dim : cfg->dim;
  if (!strcmp(K->key, "assembly") && cfg->assembly == BLAST_ASSEMBLY_DEFAULT && dim > 0)
    snprintf(note, nn, "  ; default: %s in %dD",
             BlastAssemblyResolve(cfg->assembly, dim, cfg->order_kinematic) == BLAST_ASSEMBLY_FULL
                 ? "full"
                 : "partial",
             dim);
}

/// Whether a family key is given at base: required, with a default, or not all zero.
static int FamilyKeyGiven(const BlastDeckKey *k, const void *base) {
  if (k->required || k->def) return 1;
  if (DeckIsCounted(k)) return DeckListCount(k, base) > 0;
  const unsigned char *p = (const unsigned char *)base + k->offset;
  for (size_t i = 0; i < DeckFieldBytes(k); i++)
    if (p[i]) return 1;
  return 0;
}

/// Instance i of family F in cfg.
static const char *Instance(const BlastDeckFamily *F, const BlastConfig *cfg, int i) {
  return (const char *)cfg + F->array_offset + (size_t)i * F->stride;
}

/// The instances of family F, or only check them (out == NULL).
static int EmitFamily(const BlastDeckFamily *F, const BlastConfig *cfg, FILE *out) {
  int n = 1;
  if (F->named) memcpy(&n, (const char *)cfg + F->count_offset, sizeof n);
  BlastCheck(n >= 0 && n <= F->max, BLAST_ERR_ARG, "%d [%s.NAME] sections (at most %d)", n, F->name,
             F->max);
  for (int i = 0; i < n; i++) {
    const char *inst = Instance(F, cfg, i);
    int any = F->named;
    for (int k = 0; k < F->nkeys && !any; k++) any = FamilyKeyGiven(&F->keys[k], inst);
    if (!any) continue;  // an [exact] with nothing in it
    char header[kSectionLen];
    if (F->named) {
      const char *name = inst + F->name_offset;
      BlastCheck(memchr(name, '\0', BLAST_NAME_MAX) && name[0], BLAST_ERR_ARG,
                 "a [%s.NAME] section without a name", F->name);
      snprintf(header, sizeof header, "%s.%s", F->name, name);
    } else {
      snprintf(header, sizeof header, "%s", F->name);
    }
    if (out) fprintf(out, "\n[%s]\n", header);
    for (int k = 0; k < F->nkeys; k++) {
      BlastDeckKey K = F->keys[k];
      K.section = header;
      if (!FamilyKeyGiven(&K, inst)) {
        if (out) fprintf(out, "; %s: not set\n", K.key);
        continue;
      }
      char value[kMaxDeckLine + 1];
      BlastCall(DeckFormatValue(&K, inst, value, sizeof value));
      BlastCheck(DeckWritable(&K, value), BLAST_ERR_ARG,
                 "[%s] %s = '%.60s' cannot be written as a deck line", header, K.key, value);
      int mark = 0;
      if (K.def && !K.required) {
        char d[1024];
        BlastCheck(F->stride <= sizeof d, BLAST_ERR_INTERNAL, "[%s] too large", F->name);
        memcpy(d, inst, F->stride);
        mark = !DeckApplyDefault(&K, d) && DeckFieldEqual(&K, inst, d);
      }
      if (out) fprintf(out, "%s = %s%s\n", K.key, value, mark ? "  ; default" : "");
    }
  }
  return 0;
}

/// Write the deck to out, or only check that it can be written (out == NULL).
static int EmitDeck(const BlastConfig *cfg, FILE *out) {
  const DeckSchema *s = DeckGetSchema();
  if (out) {
    char src[96];
    BlastDeckExcerpt(cfg->deck_path, strnlen(cfg->deck_path, sizeof cfg->deck_path), src,
                     sizeof src);
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
      char value[kMaxDeckLine + 1];
      BlastCall(DeckFormatValue(K, cfg, value, sizeof value));
      char note[80];
      ResolvedNote(K, cfg, note, sizeof note);
      if (!value[0]) {  // a string, or values of their own, not given
        if (out) fprintf(out, "; %s: not set\n", K->key);
        continue;
      }
      BlastCheck(DeckWritable(K, value), BLAST_ERR_ARG,
                 "[%s] %s = '%.60s' cannot be written as a deck line", K->section, K->key, value);
      // The marker is a comment: left out where it would make the line too long to be
      // read back (a derived default such as [checkpoint] dir can fill the line).
      static const char kMarker[] = "  ; default";
      const char *marker = note[0] ? note : kMarker;
      const int mark = IsDefault(K, cfg) &&
                       strlen(K->key) + 3 + strlen(value) + strlen(marker) <= (size_t)kMaxEchoLine;
      if (out) fprintf(out, "%s = %s%s\n", K->key, value, mark ? marker : "");
    }
  }
  int nf = 0;
  const BlastDeckFamily *F = BlastDeckFamilies(&nf);
  for (int f = 0; f < nf; f++) BlastCall(EmitFamily(&F[f], cfg, out));
  return 0;
}

int BlastDeckWrite(const BlastConfig *cfg, FILE *out) {
  BlastCheck(cfg && out, BLAST_ERR_ARG, "cfg and out must not be NULL");
  BlastCall(EmitDeck(cfg, NULL));  // nothing is written unless all of it can be
  BlastCall(EmitDeck(cfg, out));
  BlastCheck(!ferror(out), BLAST_ERR_IO, "writing the deck failed: %s", strerror(errno));
  return 0;
}

// ---------------------------------------------------------------------------------------
// The schema, described

static void PrintKey(const BlastDeckKey *K, FILE *out) {
  char expected[kExpectLen], def[256];
  DeckDescribeExpected(K, expected, sizeof expected);
  if (K->required)
    snprintf(def, sizeof def, "required");
  else if (K->def_help)
    snprintf(def, sizeof def, "default %s", K->def_help);
  else
    snprintf(def, sizeof def, "default %s", K->def ? K->def : "none");
  fprintf(out, "  %-17s %-9s %s\n", K->key, DeckTypeName(K), K->help);
  fprintf(out, "  %-17s %-9s %s; %s\n", "", "", def, expected);
  if (K->conflicts)
    fprintf(out, "  %-17s %-9s cannot be combined with: %s\n", "", "", K->conflicts);
}

void BlastDeckPrintKeys(FILE *out) {
  const DeckSchema *s = DeckGetSchema();
  for (int i = 0; i < s->nsections; i++) {
    fprintf(out, "\n[%s]\n", s->sections[i]);
    for (int k = 0; k < s->nkeys; k++)
      if (!strcmp(s->keys[k].section, s->sections[i])) PrintKey(&s->keys[k], out);
  }
  int nf = 0;
  const BlastDeckFamily *F = BlastDeckFamilies(&nf);
  for (int f = 0; f < nf; f++) {
    fprintf(out, "\n[%s%s]\n  %s\n", F[f].name, F[f].named ? ".NAME" : "", F[f].help);
    for (int k = 0; k < F[f].nkeys; k++) PrintKey(&F[f].keys[k], out);
  }
}

void BlastDeckClearWhere(BlastConfig *cfg) {
  if (!cfg) return;
  memset(cfg->gravity_where, 0, sizeof cfg->gravity_where);
  for (int i = 0; i < BLAST_MAX_REGIONS; i++)
    memset(cfg->regions[i].select.where, 0, sizeof cfg->regions[i].select.where);
  int nf = 0;
  const BlastDeckFamily *F = BlastDeckFamilies(&nf);
  for (int f = 0; f < nf; f++) {
    for (int i = 0; i < F[f].max; i++) {
      char *inst = (char *)cfg + F[f].array_offset + (size_t)i * F[f].stride;
      if (F[f].named) memset(inst + F[f].where_offset, 0, BLAST_WHERE_MAX);
      for (int k = 0; k < F[f].nkeys; k++) {
        const BlastDeckKey *K = &F[f].keys[k];
        if (K->type != BLAST_DECK_EXPR && K->type != BLAST_DECK_EXPR_LIST) continue;
        BlastExprText *e = (BlastExprText *)(void *)(inst + K->offset);
        const int n = K->type == BLAST_DECK_EXPR ? 1 : (int)K->size;
        for (int j = 0; j < n; j++) memset(e[j].where, 0, sizeof e[j].where);
      }
    }
  }
}
