// The named sections of a deck ([material.NAME], [region.NAME], [source.NAME],
// [boundary.NAME], [probe.NAME], [exact]) and the keys that go with them ([problem] name =
// custom and gravity, [output] history_steps): every key parsed to the values written in
// the deck, every class of bad input refused with BLAST_ERR_INPUT and the deck line (or
// command-line argument) in its message, overrides of instances, and the echo round trip.
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deck.h"
#include "eos.h"
#include "testlib.h"

// A valid custom problem, lines 1-10: additions start at line 11.
#define CU  "[problem]\nname = custom\n"
#define MAT "[material.gas]\neos = ideal_gas\ngamma = 1.4\n"
#define REG "[region.all]\nmaterial = gas\nselect = all\ndensity = 1\npressure = 1\n"
#define OK  CU MAT REG

/// Parse `text` (as "t.ini", then the overrides, NULL-terminated) and check the failure:
/// the code, cfg untouched, each message part present.
static void ExpectImpl(int line, const char *text, const char *const *ov, va_list ap) {
  BlastConfig *cfg = NULL, *orig = NULL;
  if (BlastMalloc(1, &cfg) || BlastMalloc(1, &orig)) abort();
  memset(cfg, 0xab, sizeof *cfg);
  memcpy(orig, cfg, sizeof *cfg);
  BlastDeck d = NULL;
  int ierr = BlastDeckCreate("t.ini", "", &d);
  if (!ierr) ierr = BlastDeckReadText(d, text);
  for (int i = 0; ov && ov[i] && !ierr; i++) ierr = BlastDeckApplyOverride(d, ov[i], i + 2);
  if (!ierr) ierr = BlastDeckResolve(d, cfg);
  BlastDeckDestroy(&d);
  const char *msg = BlastErrorMessage();
  TEST_ASSERT(ierr == BLAST_ERR_INPUT, "case at line %d: returned %d (%s)", line, ierr, msg);
  TEST_ASSERT(!memcmp(cfg, orig, sizeof *cfg), "case at line %d: cfg modified on error", line);
  for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
    TEST_ASSERT(strstr(msg, s), "case at line %d: message\n    %s\n  lacks '%s'", line, msg, s);
  BlastErrorClear();
  BlastFree(&cfg);
  BlastFree(&orig);
}

static void ExpectInputImpl(int line, const char *text, ...) {
  va_list ap;
  va_start(ap, text);
  ExpectImpl(line, text, NULL, ap);
  va_end(ap);
}

static void ExpectOverrideImpl(int line, const char *text, const char *ov, ...) {
  const char *ovs[] = {ov, NULL};
  va_list ap;
  va_start(ap, ov);
  ExpectImpl(line, text, ovs, ap);
  va_end(ap);
}
#define EXPECT_INPUT(text, ...) ExpectInputImpl(__LINE__, text, __VA_ARGS__, (const char *)NULL)
#define EXPECT_OVERRIDE(text, ov, ...) \
  ExpectOverrideImpl(__LINE__, text, ov, __VA_ARGS__, (const char *)NULL)

/// Parse text with the overrides (NULL-terminated, may be NULL) into *cfg.
static int Parse(const char *text, const char *const *ov, BlastConfig *cfg) {
  memset(cfg, 0, sizeof *cfg);
  BlastDeck d = NULL;
  int ierr = BlastDeckCreate("t.ini", "", &d);
  if (!ierr) ierr = BlastDeckReadText(d, text);
  for (int i = 0; ov && ov[i] && !ierr; i++) ierr = BlastDeckApplyOverride(d, ov[i], i + 2);
  if (!ierr) ierr = BlastDeckResolve(d, cfg);
  BlastDeckDestroy(&d);
  if (ierr) {
    fprintf(stderr, "unexpected error: %s\n", BlastErrorMessage());
    BlastErrorClear();
  }
  return ierr;
}

// The example deck, every family, a region continued by a second header.
static const char kFull[] =
    "[problem]\n"                                                     // 1
    "name = custom\n"                                                 // 2
    "gravity = 0 -1\n"                                                // 3
    "[material.water]\n"                                              // 4
    "eos = stiffened_gas\n"                                           // 5
    "gamma = 4.4\n"                                                   // 6
    "p_inf = 6.0e8\n"                                                 // 7
    "[material.air]\n"                                                // 8
    "eos = ideal_gas\n"                                               // 9
    "gamma = 1.4\n"                                                   // 10
    "[region.pool]\n"                                                 // 11
    "material = water\n"                                              // 12
    "select = box 0 0 0.5 1\n"                                        // 13
    "density = 1000\n"                                                // 14
    "pressure = 1.0e9\n"                                              // 15
    "[region.top]\n"                                                  // 16
    "material = air\n"                                                // 17
    "select = halfspace 0 -1 -0.5\n"                                  // 18
    "density = 50*(1+y)\n"                                            // 19
    "specific_energy = 2.5e5\n"                                       // 20
    "velocity = -x/max(r,1e-12) -y/max(r,1e-12)\n"                    // 21
    "[region.pool]\n"                                                 // 22
    "velocity = 0 0\n"                                                // 23
    "[source.blast]\n"                                                // 24
    "energy = 0.25\n"                                                 // 25
    "point = 0 0\n"                                                   // 26
    "[source.heating]\n"                                              // 27
    "power = 3*pi/8*(cos(3*pi*x)*cos(pi*y)-cos(pi*x)*cos(3*pi*y))\n"  // 28
    "[exact]\n"                                                       // 29
    "velocity = sin(pi*x)*cos(pi*y) -cos(pi*x)*sin(pi*y)\n"           // 30
    "density = 1\n"                                                   // 31
    "[boundary.walls]\n"                                              // 32
    "attributes = 1 2 3\n"                                            // 33
    "type = wall\n"                                                   // 34
    "[boundary.piston]\n"                                             // 35
    "attributes = 4\n"                                                // 36
    "type = velocity\n"                                               // 37
    "velocity = 1 0\n"                                                // 38
    "[boundary.open]\n"                                               // 39
    "attributes = 5 7\n"                                              // 40
    "type = free\n"                                                   // 41
    "[probe.centre]\n"                                                // 42
    "point = 0.5 0.25\n"                                              // 43
    "[region.ball]\n"                                                 // 44
    "material = air\n"                                                // 45
    "select = sphere 0.5 0.5 0.125\n"                                 // 46
    "density = 1\n"                                                   // 47
    "pressure = 1\n"                                                  // 48
    "[region.tagged]\n"                                               // 49
    "material = water\n"                                              // 50
    "select = attributes 1 3\n"                                       // 51
    "density = 1\n"                                                   // 52
    "pressure = 1\n"                                                  // 53
    "[output]\n"                                                      // 54
    "history_steps = 10\n";                                           // 55

static void Values(void) {
  BlastConfig *c = NULL;
  if (BlastMalloc(1, &c)) abort();
  TEST_CALL(Parse(kFull, NULL, c));
  TEST_ASSERT(c->problem == BLAST_PROBLEM_CUSTOM && c->problem == 100, "problem %d", c->problem);
  TEST_ASSERT(c->ngravity == 2 && c->gravity[0] == 0 && c->gravity[1] == -1 && c->gravity[2] == 0,
              "gravity");
  TEST_ASSERT(c->history_steps == 10, "history_steps %d", c->history_steps);
  // Materials, in order of their headers.
  TEST_ASSERT(c->nmaterials == 2, "nmaterials %d", c->nmaterials);
  const BlastMaterialSpec *w = &c->materials[0], *a = &c->materials[1];
  TEST_ASSERT(!strcmp(w->name, "water") && w->eos == BLAST_EOS_STIFFENED_GAS && w->gamma == 4.4 &&
                  w->p_inf == 6.0e8 && !strcmp(w->where, "t.ini:4"),
              "water");
  TEST_ASSERT(!strcmp(a->name, "air") && a->eos == BLAST_EOS_IDEAL_GAS && a->gamma == 1.4 &&
                  a->p_inf == 0 && !strcmp(a->where, "t.ini:8"),
              "air");
  // Regions: pool continued at line 22; material names resolved to indices.
  TEST_ASSERT(c->nregions == 4, "nregions %d", c->nregions);
  const BlastRegionSpec *p = &c->regions[0], *t = &c->regions[1], *b = &c->regions[2],
                        *g = &c->regions[3];
  TEST_ASSERT(!strcmp(p->name, "pool") && !strcmp(p->material, "water") && p->material_index == 0 &&
                  !strcmp(p->where, "t.ini:11"),
              "pool");
  TEST_ASSERT(p->select.kind == BLAST_SELECT_BOX && p->select.n == 4 && p->select.v[0] == 0 &&
                  p->select.v[1] == 0 && p->select.v[2] == 0.5 && p->select.v[3] == 1 &&
                  p->select.v[4] == 0,
              "pool box");
  TEST_ASSERT(!strcmp(p->density.text, "1000") && !strcmp(p->density.where, "t.ini:14") &&
                  !strcmp(p->pressure.text, "1.0e9") && !p->specific_energy.text[0] &&
                  !p->specific_energy.where[0],
              "pool state");
  TEST_ASSERT(p->nvelocity == 2 && !strcmp(p->velocity[0].text, "0") &&
                  !strcmp(p->velocity[1].where, "t.ini:23") && !p->velocity[2].text[0],
              "pool velocity");
  TEST_ASSERT(!strcmp(t->name, "top") && t->material_index == 1 &&
                  t->select.kind == BLAST_SELECT_HALFSPACE && t->select.n == 3 &&
                  t->select.v[0] == 0 && t->select.v[1] == -1 && t->select.v[2] == -0.5,
              "top halfspace");
  TEST_ASSERT(!strcmp(t->density.text, "50*(1+y)") && !t->pressure.text[0] &&
                  !strcmp(t->specific_energy.text, "2.5e5"),
              "top state");
  TEST_ASSERT(t->nvelocity == 2 && !strcmp(t->velocity[0].text, "-x/max(r,1e-12)") &&
                  !strcmp(t->velocity[1].text, "-y/max(r,1e-12)") &&
                  !strcmp(t->velocity[1].where, "t.ini:21"),
              "top velocity");
  TEST_ASSERT(b->select.kind == BLAST_SELECT_SPHERE && b->select.n == 3 &&
                  b->select.v[2] == 0.125 && b->nvelocity == 0 && b->material_index == 1,
              "ball");
  TEST_ASSERT(g->select.kind == BLAST_SELECT_ATTRIBUTES && g->select.n == 2 &&
                  g->select.attr[0] == 1 && g->select.attr[1] == 3 && g->select.attr[2] == 0 &&
                  g->select.v[0] == 0,
              "tagged");
  // Sources.
  TEST_ASSERT(c->nsources == 2, "nsources");
  const BlastSourceSpec *s0 = &c->sources[0], *s1 = &c->sources[1];
  TEST_ASSERT(s0->kind == BLAST_SOURCE_POINT && s0->energy == 0.25 && s0->npoint == 2 &&
                  s0->point[0] == 0 && s0->point[1] == 0 && !s0->power.text[0] &&
                  !strcmp(s0->where, "t.ini:24"),
              "blast");
  TEST_ASSERT(s1->kind == BLAST_SOURCE_POWER && s1->energy == 0 && s1->npoint == 0 &&
                  !strncmp(s1->power.text, "3*pi/8*(cos(3*pi*x)", 19) &&
                  !strcmp(s1->power.where, "t.ini:28"),
              "heating");
  // [exact].
  TEST_ASSERT(c->exact.nvelocity == 2 &&
                  !strcmp(c->exact.velocity[1].text, "-cos(pi*x)*sin(pi*y)") &&
                  !strcmp(c->exact.density.text, "1") && !c->exact.pressure.text[0],
              "exact");
  // Boundaries and probes.
  TEST_ASSERT(c->nboundaries == 3, "nboundaries");
  const BlastBoundarySpec *b0 = &c->boundaries[0], *b1 = &c->boundaries[1], *b2 = &c->boundaries[2];
  TEST_ASSERT(b0->type == BLAST_BOUNDARY_WALL && b0->nattr == 3 && b0->attr[0] == 1 &&
                  b0->attr[2] == 3 && b0->nvelocity == 0,
              "walls");
  TEST_ASSERT(b1->type == BLAST_BOUNDARY_VELOCITY && b1->nattr == 1 && b1->attr[0] == 4 &&
                  b1->nvelocity == 2 && !strcmp(b1->velocity[0].text, "1") &&
                  !strcmp(b1->velocity[1].text, "0"),
              "piston");
  TEST_ASSERT(b2->type == BLAST_BOUNDARY_FREE && b2->nattr == 2 && b2->attr[1] == 7, "open");
  TEST_ASSERT(c->nprobes == 1 && !strcmp(c->probes[0].name, "centre") && c->probes[0].npoint == 2 &&
                  c->probes[0].point[0] == 0.5 && c->probes[0].point[1] == 0.25,
              "probe");

  // A 1D box, 3D selectors, and boundaries and probes with a built-in problem.
  TEST_CALL(Parse(CU MAT "[region.r]\nmaterial = gas\nselect = box -1 2.5\ndensity = 1\n"
                         "specific_energy = 2\n",
                  NULL, c));
  TEST_ASSERT(c->regions[0].select.n == 2 && c->regions[0].select.v[0] == -1 &&
                  c->regions[0].select.v[1] == 2.5 && c->ngravity == 0,
              "1D box");
  TEST_CALL(Parse(CU MAT "[region.r]\nmaterial = gas\nselect = sphere 0 0 0 1\ndensity = 1\n"
                         "pressure = 1\nvelocity = 1 2 3\n",
                  NULL, c));
  TEST_ASSERT(c->regions[0].select.n == 4 && c->regions[0].nvelocity == 3, "3D sphere");
  TEST_CALL(
      Parse("[problem]\nname = sod\n[boundary.ends]\nattributes = 1\ntype = wall\n"
            "[boundary.rest]\nattributes = 2 3 4\ntype = free\n[probe.mid]\npoint = 0.5\n"
            "[output]\nhistory_steps = 1\n",
            NULL, c));
  TEST_ASSERT(c->problem == BLAST_PROBLEM_SOD && c->nboundaries == 2 && c->nprobes == 1 &&
                  c->probes[0].npoint == 1 && c->history_steps == 1 && c->nmaterials == 0,
              "sod with boundaries and a probe");
  TEST_CALL(Parse("[problem]\nname = sod\n", NULL, c));
  TEST_ASSERT(c->history_steps == 0 && c->nboundaries == 0 && c->nprobes == 0, "defaults");
  // A name of BLAST_NAME_MAX - 1 characters (inih cuts headers of 50 characters or more).
  char text[1024], name[BLAST_NAME_MAX];
  memset(name, 'n', sizeof name);
  name[0] = 'A', name[1] = '-', name[2] = '_', name[BLAST_NAME_MAX - 1] = '\0';
  snprintf(text, sizeof text,
           CU MAT
           "[region.%s]\nmaterial = gas\nselect = all\ndensity = 1\n"
           "pressure = 1\n",
           name);
  TEST_CALL(Parse(text, NULL, c));
  TEST_ASSERT(c->nregions == 1 && !strcmp(c->regions[0].name, name), "longest name");
  BlastFree(&c);
}

static void HeaderErrors(void) {
  EXPECT_INPUT(OK "[material]\ngamma = 2\n", "t.ini:11: ", "section [material] needs a name",
               "did you mean [material.NAME]?");
  EXPECT_INPUT(OK "[region]\n", "t.ini:11: ", "needs a name", "[region.NAME]");
  EXPECT_INPUT(OK "[materials.water]\n", "t.ini:11: ", "unknown section [materials.water]",
               "did you mean [material.water]?");
  EXPECT_INPUT(OK "[regoin.pool]\n", "t.ini:11: ", "did you mean [region.pool]?");
  EXPECT_INPUT(OK "[materail]\n", "t.ini:11: ", "did you mean [material.NAME]?");
  EXPECT_INPUT(OK "[exat]\n", "t.ini:11: ", "did you mean [exact]?");
  EXPECT_INPUT(OK "[exact.sol]\n", "t.ini:11: ", "[exact] is a single section and takes no name");
  EXPECT_INPUT(OK "[time.fast]\n", "t.ini:11: ", "[time] is a single section");
  EXPECT_INPUT(OK "[material.]\n", "t.ini:11: ", "the name after 'material.' is empty");
  EXPECT_INPUT(OK "[material.a.b]\n", "t.ini:11: ", "has the character '.'");
  EXPECT_INPUT(OK "[probe.a b]\n", "t.ini:11: ", "has the character ' '");
  EXPECT_INPUT(OK "[zzzz.q]\n", "t.ini:11: ", "unknown section", "[material.NAME]", "[exact]");
  char text[512], name[BLAST_NAME_MAX + 1];
  memset(name, 'n', sizeof name);
  name[BLAST_NAME_MAX] = '\0';
  snprintf(text, sizeof text, OK "[probe.%s]\npoint = 0\n", name);
  EXPECT_INPUT(text, "t.ini:11: ", "the name is too long (48 characters, at most 47)");
  // More instances than the limit: the header line one too many.
  char many[8192] = CU;
  for (int i = 0; i <= BLAST_MAX_MATERIALS; i++) {
    size_t len = strlen(many);
    snprintf(many + len, sizeof many - len, "[material.m%d]\neos = ideal_gas\ngamma = 2\n", i);
  }
  EXPECT_INPUT(many, "t.ini:51: ", "[material.m16] is one [material.NAME] section too many",
               "at most 16 (BLAST_MAX_MATERIALS)");
  char probes[8192] = "[problem]\nname = sedov\n";
  for (int i = 0; i <= BLAST_MAX_PROBES; i++) {
    size_t len = strlen(probes);
    snprintf(probes + len, sizeof probes - len, "[probe.p%d]\npoint = %d\n", i, i);
  }
  EXPECT_INPUT(probes, "t.ini:35: ", "at most 16 (BLAST_MAX_PROBES)");
  // A header repeated continues its instance: a key given twice is still a duplicate.
  EXPECT_INPUT(OK "[material.gas]\ngamma = 2\n", "t.ini:12: ", "duplicate key [material.gas] gamma",
               "first set at t.ini:5");
  EXPECT_INPUT(OK "[region.all]\ndensity = 2\n", "t.ini:12: ", "duplicate key [region.all] density",
               "t.ini:9");
  EXPECT_INPUT(OK "[probe.p]\npoint = 1\npoint = 2\n", "t.ini:13: ", "duplicate key");
}

static void KeyErrors(void) {
  EXPECT_INPUT(OK "[material.b]\neos = ideal_gas\ngama = 2\n",
               "t.ini:13: ", "unknown key 'gama' in section [material.b]", "did you mean 'gamma'?");
  EXPECT_INPUT(OK "[region.all]\ndesnity = 2\n", "t.ini:12: ", "did you mean 'density'?");
  EXPECT_INPUT(OK "[boundary.w]\ntyp = wall\n", "t.ini:12: ", "did you mean 'type'?");
  EXPECT_INPUT(OK "[probe.p]\nzzz = 1\n", "t.ini:12: ", "its keys are: point");
  EXPECT_INPUT(OK "[region.all]\np_inf = 2\n", "t.ini:12: ", "'p_inf' belongs in [material.NAME]");
  EXPECT_INPUT("[problem]\nname = sedov\ngamma = 1.67\n",
               "t.ini:3: ", "unknown key 'gamma' in section [problem]",
               "belongs in [material.NAME]");
  EXPECT_INPUT(OK "[material.b]\n= 2\n", "t.ini:12: ", "missing key name");
  EXPECT_INPUT(OK "[region.all]\nvelocity =\n",
               "t.ini:12: ", "empty value for [region.all] velocity");
  // Required keys, at the section's first header.
  EXPECT_INPUT(CU "[material.gas]\neos = ideal_gas\n" REG,
               "t.ini:3: ", "section [material.gas] lacks the required key 'gamma'", "> 1");
  EXPECT_INPUT(CU MAT "[region.all]\nmaterial = gas\ndensity = 1\npressure = 1\n",
               "t.ini:6: ", "[region.all] lacks the required key 'select'");
  EXPECT_INPUT(CU MAT "[region.all]\nmaterial = gas\nselect = all\npressure = 1\n",
               "t.ini:6: ", "lacks the required key 'density'");
  EXPECT_INPUT(OK "[boundary.w]\nattributes = 1\n", "t.ini:11: ", "lacks the required key 'type'",
               "one of: wall, free, velocity");
  EXPECT_INPUT(OK "[boundary.w]\ntype = free\n", "t.ini:11: ", "required key 'attributes'");
  EXPECT_INPUT(OK "[probe.p]\n", "t.ini:11: ", "[probe.p] lacks the required key 'point'");
}

static void ValueErrors(void) {
  // Materials.
  EXPECT_INPUT(CU "[material.gas]\neos = ideal_gas\ngamma = 1\n" REG,
               "t.ini:5: ", "value 1 for [material.gas] gamma is out of range", "> 1");
  EXPECT_INPUT(CU "[material.gas]\neos = ideal_gas\ngamma = 0.5\n" REG, "t.ini:5: ", "> 1");
  EXPECT_INPUT(OK "[material.w]\neos = stiffened_gas\ngamma = 4.4\np_inf = -1\n",
               "t.ini:14: ", "[material.w] p_inf is out of range", ">= 0");
  EXPECT_INPUT(OK "[material.w]\neos = ideal-gas\ngamma = 4.4\n",
               "t.ini:12: ", "did you mean 'ideal_gas'?");
  EXPECT_INPUT(OK "[material.w]\neos = tillotson\ngamma = 4.4\n",
               "t.ini:12: ", "one of: ideal_gas, stiffened_gas");
  EXPECT_INPUT(OK "[material.w]\neos = ideal_gas\ngamma = 4.4\np_inf = 1e5\n",
               "t.ini:14: ", "[material.w] p_inf = 100000 is for eos = stiffened_gas");
  // Selectors.
  EXPECT_INPUT(OK "[region.r]\nselect = boxx 0 1\n", "t.ini:12: ", "did you mean 'box'?");
  EXPECT_INPUT(OK "[region.r]\nselect = cylinder 0 1\n",
               "t.ini:12: ", "all, attributes, box, sphere or halfspace");
  EXPECT_INPUT(OK "[region.r]\nselect = box 0 1 2\n", "t.ini:12: ", "2, 4 or 6 numbers", "got 3");
  EXPECT_INPUT(OK "[region.r]\nselect = box 0 0 0 1 1 1 1 1\n", "t.ini:12: ", "got 8");
  EXPECT_INPUT(OK "[region.r]\nselect = box 0 1 1 0\n",
               "t.ini:12: ", "coordinate 2 (1) is not below the upper corner's (0)");
  EXPECT_INPUT(OK "[region.r]\nselect = box 0 x\n", "t.ini:12: ", "bad value 'x'");
  EXPECT_INPUT(OK "[region.r]\nselect = box 0 inf\n", "t.ini:12: ", "not a finite number");
  EXPECT_INPUT(OK "[region.r]\nselect = sphere 0 0 0\n", "t.ini:12: ", "radius (0) must be > 0");
  EXPECT_INPUT(OK "[region.r]\nselect = sphere 1\n", "t.ini:12: ", "2 to 4 numbers, got 1");
  EXPECT_INPUT(OK "[region.r]\nselect = halfspace 0 0 1\n", "t.ini:12: ", "the normal n is zero");
  EXPECT_INPUT(OK "[region.r]\nselect = halfspace 1 0 0 0 0\n", "t.ini:12: ", "got 5");
  EXPECT_INPUT(OK "[region.r]\nselect = all 1\n", "t.ini:12: ", "all takes no numbers");
  EXPECT_INPUT(OK "[region.r]\nselect = attributes\n", "t.ini:12: ", "1 to 32 zone attributes");
  EXPECT_INPUT(OK "[region.r]\nselect = attributes 1 0\n", "t.ini:12: ", "out of range", ">= 1");
  EXPECT_INPUT(OK "[region.r]\nselect = attributes 1.5\n", "t.ini:12: ", "unexpected '.5'");
  // Lists: counts and values.
  EXPECT_INPUT(OK "[region.all]\nvelocity = 1 2 3 4\n", "t.ini:12: ", "too many values",
               "at most 3");
  EXPECT_INPUT(OK "[probe.p]\npoint = 0 0 0 0\n", "t.ini:12: ", "too many values");
  EXPECT_INPUT(OK "[probe.p]\npoint = 0 nan\n", "t.ini:12: ", "not a finite number");
  EXPECT_INPUT(OK "[boundary.w]\nattributes = 1 -2\ntype = wall\n", "t.ini:12: ", "out of range");
  EXPECT_INPUT(CU "[problem]\ngravity = 0 -1 0 0\n" MAT REG, "t.ini:4: ", "too many values",
               "[problem] gravity");
  // Expressions: compiled once at resolution, with the line and the column.
  EXPECT_INPUT(CU MAT "[region.all]\nmaterial = gas\nselect = all\ndensity = (1+x\npressure = 1\n",
               "t.ini:9: ", "[region.all] density", "column");
  EXPECT_INPUT(OK "[region.all]\nvelocity = 1 sin(x))\n", "t.ini:12: ", "[region.all] velocity",
               "column");
  EXPECT_INPUT(OK "[source.s]\npower = 2*@\n", "t.ini:12: ", "[source.s] power", "column");
  EXPECT_INPUT(OK "[exact]\ndensity = 1+(\n", "t.ini:12: ", "[exact] density", "column");
  EXPECT_INPUT(OK "[boundary.p]\nattributes = 1\ntype = velocity\nvelocity = t)\n",
               "t.ini:14: ", "[boundary.p] velocity", "column");
  EXPECT_INPUT(OK "[region.all]\nvelocity = 1\tb\x01\n", "t.ini:12: ", "control character");
  char text[2048], big[BLAST_EXPR_MAX + 2];
  memset(big, '1', sizeof big);
  big[BLAST_EXPR_MAX] = '\0';
  snprintf(text, sizeof text, OK "[exact]\npressure = %s\n", big);
  EXPECT_INPUT(text, "t.ini:12: ", "too long (512 characters, at most 511)");
}

static void CrossErrors(void) {
  // Custom-only sections and keys with a built-in problem, at their line.
  const char *sod = "[problem]\nname = sod\n";
  char text[1024];
  snprintf(text, sizeof text, "%s%s", sod, MAT);
  EXPECT_INPUT(text, "t.ini:3: ", "section [material.gas] is for [problem] name = custom only",
               "set at t.ini:2");
  snprintf(text, sizeof text, "%s%s", sod, REG);
  EXPECT_INPUT(text, "t.ini:3: ", "[region.all] is for [problem] name = custom only");
  snprintf(text, sizeof text, "%s[probe.p]\npoint = 0\n[source.s]\npower = 1\n", sod);
  EXPECT_INPUT(text, "t.ini:5: ", "[source.s] is for [problem] name = custom only");
  snprintf(text, sizeof text, "%s[exact]\ndensity = 1\n", sod);
  EXPECT_INPUT(text, "t.ini:3: ", "[exact] is for [problem] name = custom only");
  EXPECT_INPUT("[problem]\nname = rayleigh_taylor\ngravity = 0 -1\n",
               "t.ini:3: ", "[problem] gravity is for [problem] name = custom only");
  EXPECT_OVERRIDE("[problem]\nname = sedov\n", "problem.gravity=0 -1",
                  "command line argument 2 ('problem.gravity=0 -1')", "custom only");
  EXPECT_OVERRIDE(OK, "problem.name=sedov", "t.ini:3: ", "custom only",
                  "set at command line argument 2");
  // Custom needs materials and regions.
  EXPECT_INPUT(CU, "t.ini:2: ", "name = custom needs at least one [material.NAME]");
  EXPECT_INPUT(CU REG, "t.ini:2: ", "needs at least one [material.NAME]");
  EXPECT_INPUT(CU MAT, "t.ini:2: ", "needs at least one [region.NAME]");
  // Regions: the material, and pressure xor specific_energy.
  EXPECT_INPUT(CU MAT "[region.all]\nmaterial = gaz\nselect = all\ndensity = 1\npressure = 1\n",
               "t.ini:7: ", "[region.all] material = gaz names no [material.NAME] section",
               "did you mean 'gas'?");
  EXPECT_INPUT(CU MAT "[region.all]\nmaterial = water\nselect = all\ndensity = 1\npressure = 1\n",
               "t.ini:7: ", "the materials are: gas");
  EXPECT_INPUT(OK "[region.all]\nspecific_energy = 2\n", "t.ini:12: ",
               "[region.all] specific_energy cannot be combined with pressure (set at t.ini:10)");
  EXPECT_INPUT(CU MAT "[region.all]\nmaterial = gas\nselect = all\ndensity = 1\n",
               "t.ini:6: ", "[region.all] lacks the initial thermodynamic state");
  // Sources: a point deposit or a power density.
  EXPECT_INPUT(OK "[source.s]\nenergy = 1\npoint = 0 0\npower = 1\n",
               "t.ini:12: ", "[source.s] energy cannot be combined with power (set at t.ini:14)");
  EXPECT_INPUT(OK "[source.s]\npower = 1\npoint = 0 0\n", "t.ini:13: ", "point cannot be combined");
  EXPECT_INPUT(OK "[source.s]\n", "t.ini:11: ", "[source.s] is neither a point deposit");
  EXPECT_INPUT(OK "[source.s]\nenergy = 1\n", "t.ini:12: ", "[source.s] energy needs point");
  EXPECT_INPUT(OK "[source.s]\npoint = 1 1\n", "t.ini:12: ", "[source.s] point needs energy");
  EXPECT_INPUT(OK "[source.s]\nenergy = 0\npoint = 1 1\n", "t.ini:12: ", "out of range", "> 0");
  // Boundaries: velocity iff type = velocity; an attribute in two sections.
  EXPECT_INPUT(OK "[boundary.w]\nattributes = 1\ntype = wall\nvelocity = 1 0\n",
               "t.ini:14: ", "[boundary.w] velocity is only for type = velocity",
               "type is wall, set at t.ini:13");
  EXPECT_INPUT(OK "[boundary.p]\nattributes = 1\ntype = velocity\n",
               "t.ini:13: ", "[boundary.p] type = velocity needs velocity");
  EXPECT_INPUT(
      "[problem]\nname = sod\n[boundary.a]\nattributes = 1 2\ntype = wall\n"
      "[boundary.b]\nattributes = 3 2\ntype = free\n",
      "t.ini:7: ", "boundary attribute 2 is named by two sections",
      "[boundary.b] (attributes at t.ini:7)", "[boundary.a] (attributes at t.ini:4)");
  EXPECT_INPUT(OK
               "[boundary.a]\nattributes = 4\ntype = wall\n[boundary.b]\nattributes = 5\n"
               "type = free\n[boundary.a]\n[boundary.c]\nattributes = 6 4\ntype = free\n",
               "t.ini:19: ", "attribute 4", "[boundary.c]",
               "[boundary.a] (attributes at t.ini:12)");
}

static void Overrides(void) {
  BlastConfig *c = NULL;
  if (BlastMalloc(1, &c)) abort();
  const char *ov[] = {"region.all.density=900",     "material.gas.gamma=1.67",
                      "region.all.velocity = 1 -x", "exact.pressure=2*t",
                      "boundary.w.type=free",       NULL};
  TEST_CALL(Parse(OK "[exact]\n[boundary.w]\nattributes = 1\ntype = wall\n", ov, c));
  TEST_ASSERT(!strcmp(c->regions[0].density.text, "900") &&
                  !strcmp(c->regions[0].density.where,
                          "command line argument 2 ('region.all.density=900')"),
              "density override '%s'", c->regions[0].density.where);
  TEST_ASSERT(c->materials[0].gamma == 1.67, "gamma override");
  TEST_ASSERT(c->regions[0].nvelocity == 2 && !strcmp(c->regions[0].velocity[1].text, "-x"),
              "velocity override");
  TEST_ASSERT(!strcmp(c->exact.pressure.text, "2*t"), "exact override");
  TEST_ASSERT(c->boundaries[0].type == BLAST_BOUNDARY_FREE, "type override");
  EXPECT_OVERRIDE(OK, "region.al.density=1", "command line argument 2 ('region.al.density=1')",
                  "the deck has no section [region.al]; did you mean [region.all]?");
  EXPECT_OVERRIDE(OK, "region.zzzzzz.density=1", "its [region.NAME] sections are: [region.all]");
  EXPECT_OVERRIDE("[problem]\nname = sedov\n", "probe.p.point=1", "command line argument 2",
                  "the deck has no [probe.NAME] section");
  EXPECT_OVERRIDE(OK, "exact.density=1", "the deck has no [exact] section");
  EXPECT_OVERRIDE(OK, "region.density=1", "command line argument 2",
                  "section [region] needs a name");
  EXPECT_OVERRIDE(OK, "region.all.desnity=1", "command line argument 2", "did you mean 'density'?");
  EXPECT_OVERRIDE(OK, "region.all.density=", "empty value for [region.all] density");
  EXPECT_OVERRIDE(OK, "material.gas.gamma=1", "command line argument 2", "out of range");
  EXPECT_OVERRIDE(OK, "region.all.specific_energy=3", "command line argument 2",
                  "cannot be combined with pressure (set at t.ini:10)");
  EXPECT_OVERRIDE(OK, "materials.gas.gamma=2", "command line argument 2",
                  "did you mean [material.gas]?");
  EXPECT_OVERRIDE(OK, "region.all.density=(x", "command line argument 2", "column");
  const char *twice[] = {"region.all.density=2", "region.all.density=3", NULL};
  BlastDeck d = NULL;
  TEST_CALL(BlastDeckCreate("t.ini", "", &d));
  TEST_CALL(BlastDeckReadText(d, OK));
  TEST_CALL(BlastDeckApplyOverride(d, twice[0], 2));
  int ierr = BlastDeckApplyOverride(d, twice[1], 3);
  TEST_ASSERT(ierr == BLAST_ERR_INPUT && strstr(BlastErrorMessage(), "duplicate key") &&
                  strstr(BlastErrorMessage(), "first set at command line argument 2"),
              "override twice: %s", BlastErrorMessage());
  BlastErrorClear();
  BlastDeckDestroy(&d);
  BlastFree(&c);
}

/// The echo of cfg, parsed back: the same configuration (the where fields aside) and the
/// same text again.
static void RoundTrip(const char *text, const char *const *ov) {
  BlastConfig *c = NULL, *back = NULL;
  if (BlastMalloc(1, &c) || BlastMalloc(1, &back)) abort();
  TEST_CALL(Parse(text, ov, c));
  char *echo = NULL, *echo2 = NULL;
  size_t len = 0, len2 = 0;
  FILE *f = open_memstream(&echo, &len);
  TEST_CALL(BlastDeckWrite(c, f));
  fclose(f);
  TEST_CALL(Parse(echo, NULL, back));
  f = open_memstream(&echo2, &len2);
  TEST_CALL(BlastDeckWrite(back, f));
  fclose(f);
  TEST_ASSERT(!strcmp(echo, echo2), "second echo differs:\n%s\n---\n%s", echo, echo2);
  TEST_ASSERT(memcmp(c, back, sizeof *c) || c->nregions == 0,
              "the where fields differ (the echo's lines): expected");
  BlastDeckClearWhere(c);
  BlastDeckClearWhere(back);
  TEST_ASSERT(!memcmp(c, back, sizeof *c), "the echo parses to another configuration:\n%s", echo);
  TEST_ASSERT(strstr(echo, "\n[region.pool]\nmaterial = water\nselect = box 0 0 0.5 1\n") ||
                  !strstr(text, "[region.pool]"),
              "echo of the pool:\n%s", echo);
  free(echo);
  free(echo2);
  BlastFree(&c);
  BlastFree(&back);
}

static void Echo(void) {
  RoundTrip(kFull, NULL);
  const char *ov[] = {"region.top.velocity=0.1 1e-300", "probe.centre.point=-0 1e308", NULL};
  RoundTrip(kFull, ov);
  RoundTrip("[problem]\nname = sod\n[boundary.a]\nattributes = 1 2\ntype = wall\n", NULL);
  // The echo lists every family with its keys; unset ones as comments.
  BlastConfig *c = NULL;
  if (BlastMalloc(1, &c)) abort();
  TEST_CALL(Parse(kFull, NULL, c));
  char *echo = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&echo, &len);
  TEST_CALL(BlastDeckWrite(c, f));
  fclose(f);
  const char *parts[] = {"name = custom\n",
                         "gravity = 0 -1\n",
                         "history_steps = 10\n",
                         "[material.air]\neos = ideal_gas\ngamma = 1.4\np_inf = 0  ; default\n",
                         "[region.top]\nmaterial = air\nselect = halfspace 0 -1 -0.5\n"
                         "density = 50*(1+y)\n; pressure: not set\nspecific_energy = 2.5e5\n"
                         "velocity = -x/max(r,1e-12) -y/max(r,1e-12)\n",
                         "[region.tagged]\nmaterial = water\nselect = attributes 1 3\n",
                         "[source.blast]\nenergy = 0.25\npoint = 0 0\n; power: not set\n",
                         "[exact]\ndensity = 1\n; pressure: not set\nvelocity = ",
                         "[boundary.piston]\nattributes = 4\ntype = velocity\nvelocity = 1 0\n",
                         "[probe.centre]\npoint = 0.5 0.25\n"};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    TEST_ASSERT(strstr(echo, parts[i]), "echo lacks\n%s\n---\n%s", parts[i], echo);
  TEST_ASSERT(strstr(echo, "\n[exact]\n"), "exact echoed");
  free(echo);
  // --help lists the families and their keys.
  echo = NULL;
  f = open_memstream(&echo, &len);
  BlastDeckPrintKeys(f);
  fclose(f);
  const char *help[] = {"\n[material.NAME]\n",  "\n  p_inf ",
                        "\n[region.NAME]\n",    "\n  select ",
                        "\n  specific_energy ", "\n[source.NAME]\n",
                        "\n  power ",           "\n[exact]\n",
                        "\n[boundary.NAME]\n",  "\n  attributes ",
                        "\n[probe.NAME]\n",     "\n  history_steps ",
                        "\n  gravity ",         "custom"};
  for (size_t i = 0; i < sizeof help / sizeof help[0]; i++)
    TEST_ASSERT(strstr(echo, help[i]), "--help lacks '%s'", help[i]);
  free(echo);
  BlastFree(&c);
}

int main(void) {
  Values();
  HeaderErrors();
  KeyErrors();
  ValueErrors();
  CrossErrors();
  Overrides();
  Echo();
  return BlastTestFinish("test_deck_families");
}
