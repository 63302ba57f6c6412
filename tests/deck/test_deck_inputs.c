// Every shipped deck (paths given as arguments) parses, its mesh path works from the
// current directory, and its echo parses back to a byte-identical BlastConfig whose echo is
// the same text again. Spot checks of what the decks resolve to.
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deck.h"
#include "testlib.h"

/// Whole file (or stream) as a NUL-terminated string; NULL on failure.
static char *Slurp(FILE *f) {
  size_t cap = 1 << 16, n = 0;
  char *buf = NULL;
  if (BlastMalloc(cap, &buf)) return NULL;
  while ((n += fread(buf + n, 1, cap - 1 - n, f)) == cap - 1) {
    cap *= 2;
    if (BlastRealloc(cap, &buf)) return NULL;
  }
  buf[n] = '\0';
  return buf;
}

static char *ReadFile(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = Slurp(f);
  fclose(f);
  return text;
}

/// The echo of cfg as a string (NULL if BlastDeckWrite failed).
static char *Echo(const BlastConfig *cfg) {
  FILE *f = tmpfile();
  if (!f) return NULL;
  int ierr = BlastDeckWrite(cfg, f);
  char *text = NULL;
  if (!ierr) {
    rewind(f);
    text = Slurp(f);
  } else {
    BlastErrorPrint();
    BlastErrorClear();
  }
  fclose(f);
  return text;
}

static void DirOf(const char *path, char *dir, size_t n) {
  snprintf(dir, n, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  else
    dir[0] = '\0';
}

static void CheckDeck(const char *path) {
  char *text = ReadFile(path);
  TEST_ASSERT(text, "cannot read %s", path);
  if (!text) return;
  char dir[BLAST_PATH_MAX];
  DirOf(path, dir, sizeof dir);
  BlastConfig cfg;
  memset(&cfg, 0, sizeof cfg);
  int ierr = BlastDeckParseText(text, path, dir, &cfg);
  TEST_ASSERT(ierr == 0, "%s does not parse: %s", path, BlastErrorMessage());
  BlastErrorClear();
  if (ierr) {
    BlastFree(&text);
    return;
  }
  TEST_ASSERT(!strcmp(cfg.deck_path, path), "deck_path '%s'", cfg.deck_path);
  TEST_ASSERT(cfg.order_thermo >= 0 && cfg.order_thermo <= 7, "%s: order_thermo %d resolved", path,
              cfg.order_thermo);
  if (cfg.mesh_file[0]) {
    FILE *m = fopen(cfg.mesh_file, "r");
    TEST_ASSERT(m != NULL, "%s: mesh file '%s' not readable from the current directory", path,
                cfg.mesh_file);
    if (m) fclose(m);
    TEST_ASSERT(cfg.dim == 0 && cfg.elements[0] == 0 && cfg.size[0] == 0.0,
                "%s: generator fields not zero with a mesh file", path);
  } else {
    TEST_ASSERT(cfg.dim >= 1 && cfg.dim <= 3, "%s: dim %d", path, cfg.dim);
  }

  // Round trip: the echo parses back (from another directory, under the same name) to the
  // same bytes, and echoes the same text.
  char *echo = Echo(&cfg);
  TEST_ASSERT(echo, "%s: echo failed", path);
  if (echo) {
    BlastConfig back;
    memset(&back, 0x5a, sizeof back);
    ierr = BlastDeckParseText(echo, path, "/nonexistent/elsewhere", &back);
    TEST_ASSERT(ierr == 0, "%s: echo does not parse: %s\n%s", path, BlastErrorMessage(), echo);
    BlastErrorClear();
    // The named sections keep where they were set: the echo's lines, not the deck's.
    static BlastConfig a, b;
    memcpy(&a, &cfg, sizeof a);
    memcpy(&b, &back, sizeof b);
    BlastDeckClearWhere(&a);
    BlastDeckClearWhere(&b);
    TEST_ASSERT(!ierr && !memcmp(&a, &b, sizeof a), "%s: echo parses to another config", path);
    char *echo2 = ierr ? NULL : Echo(&back);
    TEST_ASSERT(echo2 && !strcmp(echo, echo2), "%s: second echo differs:\n%s\n---\n%s", path, echo,
                echo2 ? echo2 : "(none)");
    // Defaults are marked, given values are not.
    TEST_ASSERT(strstr(echo, "\ncg_max_iter = 300  ; default\n") || cfg.cg_max_iter != 300,
                "%s: default not marked:\n%s", path, echo);
    TEST_ASSERT(strstr(echo, "\nname = ") && !strstr(echo, "\nname = sedov  ;"),
                "%s: required key marked as default", path);
    BlastFree(&echo2);
  }
  BlastFree(&echo);
  BlastFree(&text);
}

// What two decks must resolve to (their published runs depend on it).
static void SpotChecks(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *base = strrchr(argv[i], '/');
    base = base ? base + 1 : argv[i];
    char *text = ReadFile(argv[i]);
    char dir[BLAST_PATH_MAX];
    DirOf(argv[i], dir, sizeof dir);
    BlastConfig c;
    if (!text) continue;
    int ierr = BlastDeckParseText(text, argv[i], dir, &c);
    BlastFree(&text);
    if (ierr) {
      BlastErrorClear();
      continue;
    }
    if (!strcmp(base, "sedov3d.ini")) {
      TEST_ASSERT(c.problem == BLAST_PROBLEM_SEDOV && c.blast_energy == 2.0, "sedov3d problem");
      TEST_ASSERT(c.refine_serial == 2 && c.order_kinematic == 2 && c.order_thermo == 1,
                  "sedov3d orders/refinement");
      TEST_ASSERT(c.t_final == 0.6 && c.cfl == 0.5 && c.ode_solver == BLAST_ODE_RK4,
                  "sedov3d time");
      TEST_ASSERT(c.cg_tol == 1e-8 && c.cg_max_iter == 300 && c.print_every == 20,
                  "sedov3d solver");
      TEST_ASSERT(!strcmp(c.output_dir, "out/sedov3d"), "sedov3d dir '%s'", c.output_dir);
      TEST_ASSERT(strstr(c.mesh_file, "/meshes/cube01_hex.mesh") && c.mesh_file[0] == '/',
                  "sedov3d mesh '%s'", c.mesh_file);
      TEST_ASSERT(c.order_quadrature == -1 && c.max_steps == -1 && c.exact_error == 0,
                  "sedov3d defaults");
    }
    if (!strcmp(base, "riemann12_2d.ini")) {
      TEST_ASSERT(c.problem == BLAST_PROBLEM_RIEMANN12 && !c.mesh_file[0], "riemann12 problem");
      TEST_ASSERT(c.generator == BLAST_MESH_GEN_BOX && c.dim == 2, "riemann12 generator");
      TEST_ASSERT(c.elements[0] == 32 && c.elements[1] == 32 && c.elements[2] == 0,
                  "riemann12 elements");
      TEST_ASSERT(c.size[0] == 1.0 && c.size[1] == 1.0 && c.size[2] == 0.0, "riemann12 size");
    }
    if (!strcmp(base, "gresho2d.ini"))
      TEST_ASSERT(c.ode_solver == BLAST_ODE_RK2AVG && c.order_kinematic == 3 && c.order_thermo == 2,
                  "gresho solver and orders");
  }
}

int main(int argc, char **argv) {
  TEST_ASSERT(argc > 1, "usage: test_deck_inputs deck.ini ...");
  for (int i = 1; i < argc; i++) CheckDeck(argv[i]);
  SpotChecks(argc, argv);
  printf("%d decks checked\n", argc - 1);
  return BlastTestFinish("test_deck_inputs");
}
