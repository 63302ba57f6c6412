// Attribute names in a deck: region selectors (`select = attributes inlet 3`) and boundary
// sections (`attributes = wall 2`) take the names a mesh gives its attributes as well as
// numbers, mixed too. The deck keeps the names as written (the echo writes them back, and
// parses to the same configuration); BlastDeckResolveAttributeNames gives them the mesh's
// numbers: zone names for selectors, boundary names for boundary sections. An unknown name
// is BLAST_ERR_INPUT naming the deck line, the key, the name, the mesh's names of that kind
// and the closest one. Duplicates among names are refused by the deck; a name and a number
// of the same attribute by the boundary setup (hydro/boundary.c), after the resolution.
// BlastMeshRefine keeps the names.
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deck.h"
#include "mesh.h"
#include "meshio.h"
#include "testlib.h"

#define CU "[problem]\nname = custom\n[material.gas]\neos = ideal_gas\ngamma = 1.4\n"
// lines 6-11, 12-15, 16-18
#define REGIONS                                                                           \
  "[region.left]\nmaterial = gas\nselect = attributes solid\ndensity = 1\npressure = 1\n" \
  "\n[region.right]\nmaterial = gas\nselect = attributes 2 fluid_2\ndensity = 2\n"        \
  "pressure = 1\n"
#define BOUNDARIES                                                                             \
  "[boundary.walls]\nattributes = bottom 2 top\ntype = wall\n[boundary.out]\nattributes = 4\n" \
  "type = free\n"

static int Parse(const char *text, BlastConfig *cfg) {
  memset(cfg, 0, sizeof *cfg);
  BlastDeck d = NULL;
  int ierr = BlastDeckCreate("t.ini", "", &d);
  if (!ierr) ierr = BlastDeckReadText(d, text);
  if (!ierr) ierr = BlastDeckResolve(d, cfg);
  BlastDeckDestroy(&d);
  return ierr;
}

// Whether a deck is refused with BLAST_ERR_INPUT, the message naming `line` and `what`.
static int Refused(const char *text, const char *line, const char *what) {
  static BlastConfig cfg;
  const int ierr = Parse(text, &cfg);
  const char *msg = BlastErrorMessage();
  const int ok = ierr == BLAST_ERR_INPUT && strstr(msg, line) && strstr(msg, what);
  if (!ok) fprintf(stderr, "expected %s ... %s, got %d (%s)\n", line, what, ierr, msg);
  BlastErrorClear();
  return ok;
}

// A 2x1 mesh of two quadrilaterals: zone attributes 1 ('solid') and 3 ('fluid_2'), boundary
// attributes 1 ('bottom'), 2 (no name), 3 ('top'), 4 ('outlet').
static int MakeMesh(BlastMesh *m) {
  static const double x[] = {0, 0, 1, 0, 2, 0, 0, 1, 1, 1, 2, 1};
  static const int zv[] = {0, 1, 3, 4, 1, 2, 4, 5}, za[] = {1, 3};
  static const int bv[] = {0, 1, 1, 2, 2, 5, 4, 5, 3, 4, 0, 3}, ba[] = {1, 1, 2, 3, 3, 4};
  static const BlastMeshName names[] = {
      {2, 1, "solid"}, {2, 3, "fluid_2"}, {1, 1, "bottom"}, {1, 3, "top"}, {1, 4, "outlet"}};
  const BlastMeshDesc d = {.dim = 2,
                           .nverts = 6,
                           .nzones = 2,
                           .nbdr = 6,
                           .coords = x,
                           .zone_verts = zv,
                           .zone_attr = za,
                           .bdr_verts = bv,
                           .bdr_attr = ba,
                           .nnames = 5,
                           .names = names};
  return BlastMeshCreateFrom(&d, m);
}

static void ExpectResolveError(BlastMesh m, const char *text, const char *const *parts) {
  BlastConfig *cfg = NULL;
  if (BlastMalloc(1, &cfg)) abort();
  TEST_CALL(Parse(text, cfg));
  const int ierr = BlastDeckResolveAttributeNames(cfg, m);
  const char *msg = BlastErrorMessage();
  TEST_ASSERT(ierr == BLAST_ERR_INPUT, "returned %d (%s)", ierr, msg);
  for (int i = 0; parts[i]; i++)
    TEST_ASSERT(strstr(msg, parts[i]), "message\n    %s\n  lacks '%s'", msg, parts[i]);
  BlastErrorClear();
  BlastFree(&cfg);
}

int main(void) {
  BlastMesh m = NULL;
  TEST_CALL(MakeMesh(&m));
  BlastConfig *cfg = NULL, *back = NULL;
  if (BlastMalloc(1, &cfg) || BlastMalloc(1, &back)) abort();

  // Names as written; numbers 0 until resolved.
  TEST_CALL(Parse(CU REGIONS BOUNDARIES, cfg));
  const BlastSelector *s0 = &cfg->regions[0].select, *s1 = &cfg->regions[1].select;
  TEST_ASSERT(s0->n == 1 && !strcmp(s0->attr_name[0], "solid") && s0->attr[0] == 0,
              "region left: n %d, '%s', %d", s0->n, s0->attr_name[0], s0->attr[0]);
  TEST_ASSERT(s1->n == 2 && s1->attr[0] == 2 && !s1->attr_name[0][0] &&
                  !strcmp(s1->attr_name[1], "fluid_2"),
              "region right: a number then a name");
  const BlastBoundarySpec *b0 = &cfg->boundaries[0];
  TEST_ASSERT(b0->nattr == 3 && !strcmp(b0->attr_name[0], "bottom") && b0->attr[1] == 2 &&
                  !b0->attr_name[1][0] && !strcmp(b0->attr_name[2], "top"),
              "boundary walls: bottom 2 top");

  // The echo writes the names back and parses to the same configuration.
  {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    TEST_ASSERT(f != NULL, "open_memstream");
    TEST_CALL(BlastDeckWrite(cfg, f));
    fclose(f);
    TEST_ASSERT(strstr(text, "select = attributes solid\n") &&
                    strstr(text, "select = attributes 2 fluid_2\n") &&
                    strstr(text, "attributes = bottom 2 top\n"),
                "the echo lacks the names:\n%s", text);
    TEST_CALL(Parse(text, back));
    BlastDeckClearWhere(cfg);
    BlastDeckClearWhere(back);
    TEST_ASSERT(!memcmp(cfg, back, sizeof *cfg), "the echo parses to another configuration");
    free(text);
  }

  // Resolved with the mesh's names: zone names for regions, boundary names for boundaries.
  TEST_CALL(Parse(CU REGIONS BOUNDARIES, cfg));
  TEST_CALL(BlastDeckResolveAttributeNames(cfg, m));
  TEST_ASSERT(s0->attr[0] == 1, "solid -> %d, expected 1", s0->attr[0]);
  TEST_ASSERT(s1->attr[0] == 2 && s1->attr[1] == 3, "2 fluid_2 -> %d %d, expected 2 3", s1->attr[0],
              s1->attr[1]);
  TEST_ASSERT(b0->attr[0] == 1 && b0->attr[1] == 2 && b0->attr[2] == 3,
              "bottom 2 top -> %d %d %d, expected 1 2 3", b0->attr[0], b0->attr[1], b0->attr[2]);
  TEST_ASSERT(cfg->boundaries[1].attr[0] == 4, "a number stays a number");

  // Unknown names: the line, the key, the name, the mesh's names of that kind, a typo's fix.
  {
    const char *p[] = {"t.ini:8:",
                       "[region.left] select = attributes",
                       "no zone attribute named 'solidd'",
                       "'solid' (1), 'fluid_2' (3)",
                       "did you mean 'solid'?",
                       NULL};
    ExpectResolveError(m,
                       CU
                       "[region.left]\nmaterial = gas\nselect = attributes solidd\ndensity = "
                       "1\npressure = 1\n",
                       p);
    const char *q[] = {"t.ini:17:", "[boundary.walls] attributes",
                       "no boundary attribute named 'solid'",
                       "'bottom' (1), 'top' (3), 'outlet' (4)", NULL};
    ExpectResolveError(m, CU REGIONS "[boundary.walls]\nattributes = solid\ntype = wall\n", q);
  }
  // A mesh without names: the message says to give numbers.
  {
    BlastMesh box = NULL;
    const int n[2] = {2, 1};
    const double size[2] = {2, 1};
    TEST_CALL(BlastMeshCreateBox(2, n, size, &box));
    const char *p[] = {"no zone attribute named 'solid'", "none: give the attribute's number",
                       NULL};
    ExpectResolveError(box, CU REGIONS BOUNDARIES, p);
    BlastMeshDestroy(&box);
  }
  // The same name in two boundary sections: refused by the deck.
  {
    BlastDeck d = NULL;
    TEST_CALL(BlastDeckCreate("t.ini", "", &d));
    int ierr = BlastDeckReadText(
        d, CU REGIONS
        "[boundary.a]\nattributes = top\ntype = wall\n[boundary.b]\nattributes = 1 "
        "top\ntype = free\n");
    if (!ierr) ierr = BlastDeckResolve(d, back);
    BlastDeckDestroy(&d);
    TEST_ASSERT(ierr == BLAST_ERR_INPUT && strstr(BlastErrorMessage(),
                                                  "boundary attribute 'top' "
                                                  "is named by two sections"),
                "a name in two sections: %d (%s)", ierr, BlastErrorMessage());
    BlastErrorClear();
  }
  // Too long a name.
  {
    char text[1024], name[80];
    memset(name, 'a', 70);
    name[70] = '\0';
    snprintf(text, sizeof text, CU "[boundary.a]\nattributes = %s\ntype = wall\n", name);
    TEST_ASSERT(Refused(text, "t.ini:7:", "too long"), "a long name");
  }
  // A name with a control character: refused with the line (the echo could not write it).
  TEST_ASSERT(Refused(CU "[boundary.a]\nattributes = 1 \001\ntype = wall\n",
                      "t.ini:7:", "control character"),
              "a control character in a boundary name");
  TEST_ASSERT(Refused(CU "[region.r]\nmaterial = gas\nselect = attributes a\177b\n"
                         "density = 1\npressure = 1\n",
                      "t.ini:8:", "control character"),
              "a control character in a region's name");
  // A name that starts with ';' (a value "=;a 1" with no space before the ';'): refused
  // with the line, since the echo's "attributes = ;a 1" would read as a comment.
#define RG "[region.r]\nmaterial = gas\nselect = all\ndensity = 1\npressure = 1\n"
  TEST_ASSERT(Refused(CU "[boundary.a]\nattributes =; 1 2\ntype = wall\n" RG,
                      "t.ini:7:", "starts with ';'"),
              "a name ';'");
  TEST_ASSERT(
      Refused(CU "[boundary.a]\ntype = wall\nattributes =;x\n" RG, "t.ini:8:", "starts with ';'"),
      "a name ';x'");
#undef RG
  // Refinement keeps the names (the setup resolves them before; the fingerprint after).
  {
    BlastMesh r = NULL;
    TEST_CALL(BlastMeshRefine(m, 1, &r));
    TEST_ASSERT(r && BlastMeshAttributeOfName(r, 1, "top") == 3 &&
                    BlastMeshAttributeOfName(r, 2, "fluid_2") == 3,
                "the refined mesh lost the names");
    BlastMeshDestroy(&r);
  }
  BlastFree(&cfg);
  BlastFree(&back);
  BlastMeshDestroy(&m);
  return BlastTestFinish("test_deck_attrnames");
}
