// The named sections of blast_gpu input decks ([material.NAME], [region.NAME],
// [source.NAME], [boundary.NAME], [probe.NAME] and [exact]): one table of families, each
// with its key table (offsets into the instance's struct of config.h), and the checks that
// involve several keys of an instance or other sections. Adding a key = adding a row here.
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "blast.h"
#include "deck-impl.h"
#include "deck.h"
#include "eos.h"

// ---------------------------------------------------------------------------------------
// Choices

static const BlastDeckChoice kEos[] = {
    {"ideal_gas", BLAST_EOS_IDEAL_GAS}, {"stiffened_gas", BLAST_EOS_STIFFENED_GAS}, {NULL, 0}};
static const BlastDeckChoice kBoundaryTypes[] = {{"wall", BLAST_BOUNDARY_WALL},
                                                 {"free", BLAST_BOUNDARY_FREE},
                                                 {"velocity", BLAST_BOUNDARY_VELOCITY},
                                                 {NULL, 0}};

// ---------------------------------------------------------------------------------------
// Helpers of the checks

/// Instance i of family f in cfg.
static void *Inst(BlastConfig *cfg, int f, int i) {
  int nf = 0;
  const BlastDeckFamily *F = BlastDeckFamilies(&nf);
  return (char *)cfg + F[f].array_offset + (size_t)i * F[f].stride;
}

static int KeyIndex(int f, const char *key) {
  int nf = 0;
  const BlastDeckFamily *F = BlastDeckFamilies(&nf);
  for (int k = 0; k < F[f].nkeys; k++)
    if (!strcmp(F[f].keys[k].key, key)) return k;
  return -1;
}

/// Where key `key` of instance i was set, or NULL when it was not.
static const char *KeyWhere(BlastDeck d, int f, int i, const char *key) {
  const DeckKeyState *st = DeckFamilyState(d, f, i, KeyIndex(f, key));
  return st->origin != kUnset ? st->where : NULL;
}

/// "name.NAME" of instance i, and "deck:line" of its first header.
static void Names(BlastDeck d, BlastConfig *cfg, int f, int i, char *section, char *where) {
  int nf = 0;
  const BlastDeckFamily *F = BlastDeckFamilies(&nf);
  if (F[f].named)
    snprintf(section, kSectionLen, "%s.%s", F[f].name, (char *)Inst(cfg, f, i) + F[f].name_offset);
  else
    snprintf(section, kSectionLen, "%s", F[f].name);
  snprintf(where, kWhereLen, "%s:%d", d->name, d->inst_line[f][i]);
}

// ---------------------------------------------------------------------------------------
// Checks of one instance (after its required keys and defaults)

static int CheckMaterial(BlastDeck d, BlastConfig *cfg, int f, int i) {
  const BlastMaterialSpec *m = Inst(cfg, f, i);
  if (m->eos != BLAST_EOS_IDEAL_GAS || m->p_inf == 0.0) return 0;
  char section[kSectionLen], where[kWhereLen];
  Names(d, cfg, f, i, section, where);
  BlastError(BLAST_ERR_INPUT,
             "%s: [%s] p_inf = %.17g is for eos = stiffened_gas; an ideal gas has p_inf = 0 "
             "(remove the key, or set eos = stiffened_gas)",
             KeyWhere(d, f, i, "p_inf"), section, m->p_inf);
}

static int CheckRegion(BlastDeck d, BlastConfig *cfg, int f, int i) {
  BlastRegionSpec *r = Inst(cfg, f, i);
  char section[kSectionLen], where[kWhereLen];
  Names(d, cfg, f, i, section, where);
  const char *sw = KeyWhere(d, f, i, "select");  // the setup checks its count (dimension)
  if (sw) DeckStoreWhere(r->select.where, sw);
  const char *p = KeyWhere(d, f, i, "pressure"), *e = KeyWhere(d, f, i, "specific_energy");
  BlastCheck(!(p && e), BLAST_ERR_INPUT,
             "%s: [%s] specific_energy cannot be combined with pressure (set at %s): give one of "
             "them",
             e, section, p);
  BlastCheck(p || e, BLAST_ERR_INPUT,
             "%s: section [%s] lacks the initial thermodynamic state: give pressure = ... or "
             "specific_energy = ... (a number or an expression of x, y, z, r)",
             where, section);
  BlastDeckSuggestion sg;
  BlastDeckSuggestInit(&sg, r->material);
  char list[512] = "";
  for (int m = 0; m < cfg->nmaterials; m++) {
    if (!strcmp(cfg->materials[m].name, r->material)) {
      r->material_index = m;
      return 0;
    }
    BlastDeckSuggestOffer(&sg, cfg->materials[m].name);
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", m ? ", " : "", cfg->materials[m].name);
  }
  const char *mw = KeyWhere(d, f, i, "material");
  if (sg.best)
    BlastError(BLAST_ERR_INPUT,
               "%s: [%s] material = %s names no [material.NAME] section; did you mean '%s'?", mw,
               section, r->material, sg.best);
  if (cfg->nmaterials)
    BlastError(BLAST_ERR_INPUT,
               "%s: [%s] material = %s names no [material.NAME] section; the materials are: %s", mw,
               section, r->material, list);
  BlastError(BLAST_ERR_INPUT,
             "%s: [%s] material = %s names no [material.NAME] section, and the deck has none: add "
             "[material.%s] (eos, gamma)",
             mw, section, r->material, r->material);
}

static int CheckSource(BlastDeck d, BlastConfig *cfg, int f, int i) {
  BlastSourceSpec *s = Inst(cfg, f, i);
  char section[kSectionLen], where[kWhereLen];
  Names(d, cfg, f, i, section, where);
  const char *en = KeyWhere(d, f, i, "energy"), *pt = KeyWhere(d, f, i, "point"),
             *pw = KeyWhere(d, f, i, "power");
  if (pw) {
    const char *other = en ? "energy" : "point";
    BlastCheck(!en && !pt, BLAST_ERR_INPUT,
               "%s: [%s] %s cannot be combined with power (set at %s): a source is either a "
               "point deposit (energy and point) or a power density (power)",
               en ? en : pt, section, other, pw);
    s->kind = BLAST_SOURCE_POWER;
    return 0;
  }
  BlastCheck(en || pt, BLAST_ERR_INPUT,
             "%s: section [%s] is neither a point deposit (energy = E and point = x y) nor a "
             "power density (power = expression)",
             where, section);
  BlastCheck(en, BLAST_ERR_INPUT,
             "%s: [%s] point needs energy = E (> 0, the energy deposited in this mesh)", pt,
             section);
  BlastCheck(pt, BLAST_ERR_INPUT,
             "%s: [%s] energy needs point = x [y [z]] (where the energy is deposited)", en,
             section);
  s->kind = BLAST_SOURCE_POINT;
  return 0;
}

static int CheckBoundary(BlastDeck d, BlastConfig *cfg, int f, int i) {
  const BlastBoundarySpec *b = Inst(cfg, f, i);
  char section[kSectionLen], where[kWhereLen];
  Names(d, cfg, f, i, section, where);
  const char *vw = KeyWhere(d, f, i, "velocity");
  if (b->type == BLAST_BOUNDARY_VELOCITY)
    BlastCheck(vw, BLAST_ERR_INPUT,
               "%s: [%s] type = velocity needs velocity = ... (one number or expression of t "
               "per direction)",
               KeyWhere(d, f, i, "type"), section);
  else
    BlastCheck(!vw, BLAST_ERR_INPUT,
               "%s: [%s] velocity is only for type = velocity (type is %s, set at %s)", vw, section,
               b->type == BLAST_BOUNDARY_WALL ? "wall" : "free", KeyWhere(d, f, i, "type"));
  // An attribute named by two sections.
  for (int j = 0; j < i; j++) {
    const BlastBoundarySpec *o = Inst(cfg, f, j);
    for (int a = 0; a < b->nattr; a++)
      for (int c = 0; c < o->nattr; c++) {
        // Names are compared with names here; a name and a number are compared once the
        // mesh resolves the name (hydro/boundary.c).
        if (b->attr_name[a][0] || o->attr_name[c][0]) {
          if (strcmp(b->attr_name[a], o->attr_name[c])) continue;
        } else if (b->attr[a] != o->attr[c]) {
          continue;
        }
        char osection[kSectionLen], owhere[kWhereLen];
        Names(d, cfg, f, j, osection, owhere);
        char label[BLAST_ATTR_NAME_MAX + 16];
        if (b->attr_name[a][0])
          snprintf(label, sizeof label, "'%s'", b->attr_name[a]);
        else
          snprintf(label, sizeof label, "%d", b->attr[a]);
        BlastError(BLAST_ERR_INPUT,
                   "%s: boundary attribute %s is named by two sections: [%s] (attributes at %s) "
                   "and [%s] (attributes at %s); each attribute takes one boundary condition",
                   KeyWhere(d, f, i, "attributes"), label, section, KeyWhere(d, f, i, "attributes"),
                   osection, KeyWhere(d, f, j, "attributes"));
      }
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// The tables

#define M(field) offsetof(BlastMaterialSpec, field)
#define R(field) offsetof(BlastRegionSpec, field)
#define S(field) offsetof(BlastSourceSpec, field)
#define B(field) offsetof(BlastBoundarySpec, field)
#define P(field) offsetof(BlastProbeSpec, field)
#define X(field) offsetof(BlastExactSpec, field)

static const BlastDeckKey kMaterialKeys[] = {
    {.section = "material",
     .key = "eos",
     .type = BLAST_DECK_ENUM,
     .offset = M(eos),
     .required = 1,
     .choices = kEos,
     .help = "equation of state: ideal_gas p = (gamma-1) rho e, or stiffened_gas p = "
             "(gamma-1) rho e - gamma p_inf"},
    {.section = "material",
     .key = "gamma",
     .type = BLAST_DECK_REAL,
     .offset = M(gamma),
     .required = 1,
     .bounds = BLAST_DECK_MIN_OPEN,
     .min = 1,
     .help = "ratio of specific heats"},
    {.section = "material",
     .key = "p_inf",
     .type = BLAST_DECK_REAL,
     .offset = M(p_inf),
     .def = "0",
     .bounds = BLAST_DECK_MIN,
     .min = 0,
     .help = "stiffened_gas: the stiffening pressure (0 for an ideal gas)"},
};

static const BlastDeckKey kRegionKeys[] = {
    {.section = "region",
     .key = "material",
     .type = BLAST_DECK_STRING,
     .offset = R(material),
     .size = BLAST_NAME_MAX,
     .required = 1,
     .help = "the NAME of a [material.NAME] section"},
    {.section = "region",
     .key = "select",
     .type = BLAST_DECK_SELECT,
     .offset = R(select),
     .required = 1,
     .help = "the zones (by reference centroid) and nodes of the region; a zone or node "
             "belongs to the last region that selects it"},
    {.section = "region",
     .key = "density",
     .type = BLAST_DECK_EXPR,
     .offset = R(density),
     .required = 1,
     .help = "initial density, of x, y, z, r"},
    {.section = "region",
     .key = "pressure",
     .type = BLAST_DECK_EXPR,
     .offset = R(pressure),
     .def_help = "none (give pressure or specific_energy)",
     .conflicts = "specific_energy",
     .help = "initial pressure, of x, y, z, r"},
    {.section = "region",
     .key = "specific_energy",
     .type = BLAST_DECK_EXPR,
     .offset = R(specific_energy),
     .def_help = "none (give pressure or specific_energy)",
     .conflicts = "pressure",
     .help = "initial specific internal energy, of x, y, z, r"},
    {.section = "region",
     .key = "velocity",
     .type = BLAST_DECK_EXPR_LIST,
     .offset = R(velocity),
     .size = 3,
     .count_offset = R(nvelocity),
     .def_help = "at rest",
     .help = "initial velocity, one component per direction, of x, y, z, r"},
};

static const BlastDeckKey kSourceKeys[] = {
    {.section = "source",
     .key = "energy",
     .type = BLAST_DECK_REAL,
     .offset = S(energy),
     .def_help = "none (a point deposit: energy and point)",
     .bounds = BLAST_DECK_MIN_OPEN,
     .min = 0,
     .help = "point deposit: the energy deposited in this mesh (an octant of a symmetric blast "
             "holds its share, as the user says)"},
    {.section = "source",
     .key = "point",
     .type = BLAST_DECK_REAL_LIST,
     .offset = S(point),
     .size = 3,
     .count_offset = S(npoint),
     .def_help = "none (a point deposit: energy and point)",
     .help = "point deposit: where, one coordinate per direction"},
    {.section = "source",
     .key = "power",
     .type = BLAST_DECK_EXPR,
     .offset = S(power),
     .def_help = "none (a power density: power alone)",
     .help = "power density: energy per unit volume and time, of x, y, z, r, t"},
};

static const BlastDeckKey kBoundaryKeys[] = {
    {.section = "boundary",
     .key = "attributes",
     .type = BLAST_DECK_INT_LIST,
     .offset = B(attr),
     .size = BLAST_MAX_SELECT_ATTRS,
     .count_offset = B(nattr),
     .names_offset = B(attr_name),
     .required = 1,
     .bounds = BLAST_DECK_MIN,
     .min = 1,
     .help = "the mesh's boundary attributes this section holds, numbers or names (each in one "
             "section only)"},
    {.section = "boundary",
     .key = "type",
     .type = BLAST_DECK_ENUM,
     .offset = B(type),
     .required = 1,
     .choices = kBoundaryTypes,
     .help = "wall (zero normal velocity), free (no constraint) or velocity (prescribed)"},
    {.section = "boundary",
     .key = "velocity",
     .type = BLAST_DECK_EXPR_LIST,
     .offset = B(velocity),
     .size = 3,
     .count_offset = B(nvelocity),
     .def_help = "none (required with type = velocity)",
     .help = "type = velocity: the boundary's velocity, one component per direction, of t"},
};

static const BlastDeckKey kProbeKeys[] = {
    {.section = "probe",
     .key = "point",
     .type = BLAST_DECK_REAL_LIST,
     .offset = P(point),
     .size = 3,
     .count_offset = P(npoint),
     .required = 1,
     .help = "where history.csv records the values, one coordinate per direction"},
};

static const BlastDeckKey kExactKeys[] = {
    {.section = "exact",
     .key = "density",
     .type = BLAST_DECK_EXPR,
     .offset = X(density),
     .def_help = "none",
     .help = "exact density, of x, y, z, r, t"},
    {.section = "exact",
     .key = "pressure",
     .type = BLAST_DECK_EXPR,
     .offset = X(pressure),
     .def_help = "none",
     .help = "exact pressure, of x, y, z, r, t"},
    {.section = "exact",
     .key = "velocity",
     .type = BLAST_DECK_EXPR_LIST,
     .offset = X(velocity),
     .size = 3,
     .count_offset = X(nvelocity),
     .def_help = "none",
     .help = "exact velocity, one component per direction, of x, y, z, r, t"},
};

#define C(field) offsetof(BlastConfig, field)
#define N(keys)  (int)(sizeof keys / sizeof keys[0])

static const BlastDeckFamily kFamilies[] = {
    {.name = "material",
     .named = 1,
     .max = BLAST_MAX_MATERIALS,
     .max_name = "BLAST_MAX_MATERIALS",
     .array_offset = C(materials),
     .stride = sizeof(BlastMaterialSpec),
     .count_offset = C(nmaterials),
     .name_offset = M(name),
     .where_offset = M(where),
     .custom_only = 1,
     .keys = kMaterialKeys,
     .nkeys = N(kMaterialKeys),
     .check = CheckMaterial,
     .help = "a material (name = custom): its equation of state"},
    {.name = "region",
     .named = 1,
     .max = BLAST_MAX_REGIONS,
     .max_name = "BLAST_MAX_REGIONS",
     .array_offset = C(regions),
     .stride = sizeof(BlastRegionSpec),
     .count_offset = C(nregions),
     .name_offset = R(name),
     .where_offset = R(where),
     .custom_only = 1,
     .keys = kRegionKeys,
     .nkeys = N(kRegionKeys),
     .check = CheckRegion,
     .help = "initial data (name = custom): a material and its state on the zones selected"},
    {.name = "source",
     .named = 1,
     .max = BLAST_MAX_SOURCES,
     .max_name = "BLAST_MAX_SOURCES",
     .array_offset = C(sources),
     .stride = sizeof(BlastSourceSpec),
     .count_offset = C(nsources),
     .name_offset = S(name),
     .where_offset = S(where),
     .custom_only = 1,
     .keys = kSourceKeys,
     .nkeys = N(kSourceKeys),
     .check = CheckSource,
     .help = "an energy source (name = custom): energy and point, or power"},
    {.name = "exact",
     .named = 0,
     .max = 1,
     .max_name = "one",
     .array_offset = C(exact),
     .stride = sizeof(BlastExactSpec),
     .custom_only = 1,
     .keys = kExactKeys,
     .nkeys = N(kExactKeys),
     .help = "the exact solution (name = custom), for the errors at the end"},
    {.name = "boundary",
     .named = 1,
     .max = BLAST_MAX_BOUNDARIES,
     .max_name = "BLAST_MAX_BOUNDARIES",
     .array_offset = C(boundaries),
     .stride = sizeof(BlastBoundarySpec),
     .count_offset = C(nboundaries),
     .name_offset = B(name),
     .where_offset = B(where),
     .keys = kBoundaryKeys,
     .nkeys = N(kBoundaryKeys),
     .check = CheckBoundary,
     .help = "a boundary condition on mesh boundary attributes (once one is given, every "
             "boundary attribute is named by exactly one section)"},
    {.name = "probe",
     .named = 1,
     .max = BLAST_MAX_PROBES,
     .max_name = "BLAST_MAX_PROBES",
     .array_offset = C(probes),
     .stride = sizeof(BlastProbeSpec),
     .count_offset = C(nprobes),
     .name_offset = P(name),
     .where_offset = P(where),
     .keys = kProbeKeys,
     .nkeys = N(kProbeKeys),
     .help = "a point whose values history.csv records ([output] history_steps)"},
};

const BlastDeckFamily *BlastDeckFamilies(int *n) {
  *n = N(kFamilies);
  return kFamilies;
}
