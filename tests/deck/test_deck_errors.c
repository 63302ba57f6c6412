// BlastDeckParseText and the override API on every class of bad input: each must return
// BLAST_ERR_INPUT, leave the config untouched and name `deck:line` (or the command-line
// argument) and, for typos, the closest valid name. Also: the accepted syntax variants,
// defaults, path resolution, the command-line splitter, and a mutation fuzz loop.
#define _POSIX_C_SOURCE 200809L

#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "deck.h"
#include "deck-impl.h"  // kMaxDeckLine
#include "testlib.h"

#define P "[problem]\nname = sod\n"  // the required part, 2 lines

/// Parse `text` as "t.ini" and check the failure: code, untouched cfg, message parts.
static void ExpectInputImpl(int line, const char *text, ...) {
  BlastConfig cfg, orig;
  memset(&cfg, 0xab, sizeof cfg);
  memcpy(&orig, &cfg, sizeof cfg);
  int ierr = BlastDeckParseText(text, "t.ini", "", &cfg);
  const char *msg = BlastErrorMessage();
  TEST_ASSERT(ierr == BLAST_ERR_INPUT, "case at line %d: returned %d (%s)", line, ierr, msg);
  TEST_ASSERT(!memcmp(&cfg, &orig, sizeof cfg), "case at line %d: cfg modified on error", line);
  va_list ap;
  va_start(ap, text);
  for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
    TEST_ASSERT(strstr(msg, s), "case at line %d: message\n    %s\n  lacks '%s'", line, msg, s);
  va_end(ap);
  BlastErrorClear();
}
#define EXPECT_INPUT(text, ...) ExpectInputImpl(__LINE__, text, __VA_ARGS__, (const char *)NULL)

static int Parse(const char *text, BlastConfig *cfg) {
  memset(cfg, 0, sizeof *cfg);
  int ierr = BlastDeckParseText(text, "t.ini", "", cfg);
  if (ierr) {
    fprintf(stderr, "unexpected error: %s\n", BlastErrorMessage());
    BlastErrorClear();
  }
  return ierr;
}

static void UnknownNames(void) {
  EXPECT_INPUT(P "[time]\ncfll = 0.3\n", "t.ini:4: ", "unknown key 'cfll'", "did you mean 'cfl'?");
  EXPECT_INPUT(P "[fem]\norder_kinmatic = 3\n", "t.ini:4: ", "did you mean 'order_kinematic'?");
  EXPECT_INPUT(P "[time]\nCFL = 0.3\n", "t.ini:4: ", "did you mean 'cfl'?");
  EXPECT_INPUT(P "[time]\nzzzzzz = 1\n", "t.ini:4: ", "its keys are: t_final, cfl");
  EXPECT_INPUT(P "[solver]\ncfl = 0.3\n", "t.ini:4: ", "'cfl' belongs in [time]");
  EXPECT_INPUT(P "[mesh]\ncg_tool = 1\n",
               "t.ini:4: ", "did you mean 'cg_tol' of section [solver]?");
  EXPECT_INPUT(P "[tme]\ncfl = 0.3\n", "t.ini:3: ", "unknown section [tme]",
               "did you mean [time]?");
  EXPECT_INPUT(P "[outptu]\n", "t.ini:3: ", "did you mean [output]?");  // empty: still caught
  EXPECT_INPUT(P "[physics]\n", "t.ini:3: ", "the sections are [problem], [mesh]");
  EXPECT_INPUT(P "[ time ]\ncfl = 1\n", "t.ini:3: ", "did you mean [time]?");
  EXPECT_INPUT(P "[time] junk\n", "t.ini:3: ", "unexpected text 'junk'");
}

static void BadValues(void) {
  const char *exp_k = "expected an integer in 1..8";
  EXPECT_INPUT(P "[fem]\norder_kinematic = two\n", "t.ini:4: ", "bad value 'two'", exp_k);
  EXPECT_INPUT(P "[fem]\norder_kinematic = 2.0\n", "t.ini:4: ", "unexpected '.0'", exp_k);
  EXPECT_INPUT(P "[fem]\norder_kinematic = 9\n", "t.ini:4: ", "out of range", exp_k);
  EXPECT_INPUT(P "[fem]\norder_kinematic = 0\n", "t.ini:4: ", "out of range");
  EXPECT_INPUT(P "[time]\ncfl = 0.5x\n", "t.ini:4: ", "bad value '0.5x'", "unexpected 'x'");
  EXPECT_INPUT(P "[time]\ncfl = 0.5 0.6\n", "t.ini:4: ", "unexpected ' 0.6'");
  EXPECT_INPUT(P "[time]\ncfl = .\n", "t.ini:4: ", "bad value '.'");
  EXPECT_INPUT(P "[time]\nt_final = inf\n", "t.ini:4: ", "not a finite number");
  EXPECT_INPUT(P "[time]\nt_final = nan\n", "t.ini:4: ", "not a finite number");
  EXPECT_INPUT(P "[time]\nt_final = -infinity\n", "t.ini:4: ", "not a finite number");
  EXPECT_INPUT(P "[time]\nt_final = 1e999\n", "t.ini:4: ", "not a finite number");
  EXPECT_INPUT(P "[time]\nt_final = 0\n", "t.ini:4: ", "out of range", "> 0");
  EXPECT_INPUT(P "[time]\ncfl = 0\n", "t.ini:4: ", "in (0, 10]");
  EXPECT_INPUT(P "[time]\ncfl = 10.000001\n", "t.ini:4: ", "in (0, 10]");
  EXPECT_INPUT(P "[time]\nmax_steps = -2\n", "t.ini:4: ", "-1 (unlimited) or an integer >= 0");
  EXPECT_INPUT(P "[solver]\ncg_tol = 1\n", "t.ini:4: ", "in (0, 1)");
  EXPECT_INPUT(P "[solver]\ncg_max_iter = 99999999999999999999\n", "t.ini:4: ", "out of range");
  EXPECT_INPUT(P "[solver]\ncg_max_iter = 1000001\n", "t.ini:4: ", "in 1..1000000");
  EXPECT_INPUT(P "[fem]\norder_thermo = 8\n", "t.ini:4: ", "-1 (order_kinematic-1) or");
  EXPECT_INPUT(P "[fem]\norder_thermo = -2\n", "t.ini:4: ", "out of range");
  EXPECT_INPUT(P "[fem]\norder_quadrature = 0\n", "t.ini:4: ", "or an integer in 1..47");
  EXPECT_INPUT(P "[fem]\norder_quadrature = 48\n", "t.ini:4: ", "out of range");
  EXPECT_INPUT(P "[mesh]\nrefine_serial = 13\n", "t.ini:4: ", "in 0..12");
  EXPECT_INPUT(P "[mesh]\ndim = 4\n", "t.ini:4: ", "in 1..3");
  EXPECT_INPUT(P "[output]\nprint_every = 0\n", "t.ini:4: ", ">= 1");
  EXPECT_INPUT(P "[problem]\nblast_energy = -1\n", "t.ini:4: ", "> 0");
  // Enums and bools list their choices and the closest one.
  EXPECT_INPUT(P "[time]\node_solver = rk45\n",
               "t.ini:4: ", "one of: euler, rk2, rk3ssp, rk4, rk6, rk2avg", "did you mean 'rk4'?");
  EXPECT_INPUT(P "[time]\node_solver = RK4\n", "did you mean 'rk4'?");
  EXPECT_INPUT("[problem]\nname = sedow\n", "t.ini:2: ", "did you mean 'sedov'?");
  EXPECT_INPUT("[problem]\nname = 1\n", "t.ini:2: ", "one of: taylor_green, sedov, sod,");
  EXPECT_INPUT(P "[output]\nexact_error = yes\n", "t.ini:4: ", "true or false");
  EXPECT_INPUT(P "[output]\nexact_error = ture\n", "did you mean 'true'?");
  EXPECT_INPUT(P "[solver]\nviscosity = of\n", "did you mean 'on'?");
  EXPECT_INPUT(P "[mesh]\npartitioner = metiss\n", "did you mean 'metis'?");
  EXPECT_INPUT(P "[gpu]\nbackend = CUDA\n", "did you mean 'cuda'?");
  EXPECT_INPUT(P "[fem]\nassembly = sparse\n", "t.ini:4: ", "bad value 'sparse' for [fem] assembly",
               "expected one of: default, full, partial");
  EXPECT_INPUT(P "[fem]\nassembly = -1\n", "t.ini:4: ", "one of: default, full, partial");
  EXPECT_INPUT(P "[fem]\nassembly = partal\n", "did you mean 'partial'?");
  // Empty values.
  EXPECT_INPUT(P "[time]\ncfl =\n", "t.ini:4: ", "empty value for [time] cfl");
  EXPECT_INPUT(P "[time]\ncfl = ; comment only\n", "t.ini:4: ", "empty value");
  EXPECT_INPUT(P "[mesh]\nfile = \n", "t.ini:4: ", "empty value for [mesh] file");
  EXPECT_INPUT(P "[mesh]\nfile = a\tb\n", "t.ini:4: ", "control character");
}

static void Structure(void) {
  // Duplicates: a key twice in a section is an error, a section twice is fine.
  EXPECT_INPUT(P "[time]\ncfl = 0.3\ncfl = 0.4\n", "t.ini:5: ", "duplicate key [time] cfl",
               "first set at t.ini:4");
  EXPECT_INPUT(P "[time]\ncfl = 0.3\n[fem]\n[time]\ncfl = 0.4\n", "t.ini:7: ", "t.ini:4");
  EXPECT_INPUT("[problem]\nname = sod\nname = sedov\n", "t.ini:3: ", "duplicate key");
  BlastConfig c;
  TEST_CALL(Parse("[time]\ncfl = 0.3\n" P "[time]\nt_final = 2\n", &c));
  TEST_ASSERT(c.cfl == 0.3 && c.t_final == 2.0, "duplicate section merged");
  // Keys outside any section.
  EXPECT_INPUT("cfl = 0.3\n" P, "t.ini:1: ", "outside any section", "belongs in section [time]");
  EXPECT_INPUT("; comment\nfoo = 1\n" P, "t.ini:2: ", "outside any section");
  // inih syntax errors.
  EXPECT_INPUT(P "[time\ncfl = 1\n", "t.ini:3: ", "syntax error", "lacks its closing ']'");
  EXPECT_INPUT(P "[time]\njunk\n", "t.ini:4: ", "syntax error", "expected 'key = value'");
  EXPECT_INPUT(P "[time]\n= 3\n", "t.ini:4: ", "missing key name");
  // The first error by line wins, whoever finds it.
  EXPECT_INPUT(P "junk\n[time]\ncfll = 1\n", "t.ini:3: ", "syntax error");
  EXPECT_INPUT(P "[time]\ncfll = 1\njunk\n", "t.ini:4: ", "did you mean 'cfl'?");
  EXPECT_INPUT(P "junk\n[tme]\n", "t.ini:3: ", "syntax error");
  EXPECT_INPUT(P "[tme]\njunk\n", "t.ini:3: ", "unknown section");
  // Indented lines continue a value in inih: refused, with the key named.
  EXPECT_INPUT(P "[time]\ncfl = 0.3\n  t_final = 1\n", "t.ini:5: ", "continues the value of 'cfl'",
               "line 4");
  EXPECT_INPUT(P "[time]\ncfl = 0.3\n  [mesh]\n", "t.ini:5: ", "continues the value of 'cfl'");
  TEST_CALL(Parse(P "[time]\n  cfl = 0.3\n[mesh]\n   dim = 3\n", &c));
  TEST_ASSERT(c.cfl == 0.3 && c.dim == 3, "indented first keys");
  // Missing required key, with and without its section.
  EXPECT_INPUT("[time]\ncfl = 0.3\n", "t.ini:2: ", "required key 'name' of section [problem]",
               "one of: taylor_green");
  EXPECT_INPUT("[time]\n[problem]\nblast_energy = 2\n",
               "t.ini:2: ", "section [problem] lacks the required key 'name'");
  EXPECT_INPUT("", "t.ini:1: ", "required key 'name'");
  EXPECT_INPUT("; only a comment\n\n", "t.ini:2: ", "required key 'name'");
}

static void LongLines(void) {
  // Lines of up to kMaxDeckLine characters are read (inih's own buffer holds INI_MAX_LINE - 1:
  // the reader hands it a longer key line without its value); one more is too long.
  enum { kFit = kMaxDeckLine };
  static char text[3 * kMaxDeckLine], fill[kFit + 2];
  memset(fill, 'x', sizeof fill);
  fill[0] = ';';
  fill[kFit] = '\0';  // a comment of exactly kFit characters
  snprintf(text, sizeof text, P "%s\n[time]\ncfll = 1\n", fill);
  EXPECT_INPUT(text, "t.ini:5: ", "did you mean 'cfl'?");  // numbering not disturbed
  snprintf(text, sizeof text, P "%s\r\n[time]\ncfll = 1\n", fill);
  EXPECT_INPUT(text, "line too long");  // the \r counts
  fill[kFit] = 'x';
  fill[kFit + 1] = '\0';  // one more
  snprintf(text, sizeof text, P "%s\n[time]\ncfll = 1\n", fill);
  EXPECT_INPUT(text, "t.ini:3: ", "line too long", "at most 2047");
  snprintf(text, sizeof text, P "[mesh]\nfile = %s", fill);  // last line, no newline
  EXPECT_INPUT(text, "t.ini:4: ", "line too long");
  // A key line longer than inih's buffer keeps its value, inline comment cut, and its line.
  static char path[BLAST_PATH_MAX];
  memset(path, 'p', sizeof path);
  path[0] = '/';
  path[BLAST_PATH_MAX - 1] = '\0';  // 1023 characters: the longest path
  BlastConfig c;
  snprintf(text, sizeof text, P "[checkpoint]\ndir =   %s   ; a comment\n[time]\ncfl = 0.25\n",
           path);
  TEST_CALL(Parse(text, &c));
  TEST_ASSERT(!strcmp(c.checkpoint_dir, path) && c.cfl == 0.25,
              "a 1023-character [checkpoint] dir");
  snprintf(text, sizeof text, P "[checkpoint]\ndir = %s\n[time]\ncfll = 1\n", path);
  EXPECT_INPUT(text, "t.ini:6: ", "did you mean 'cfl'?");  // numbering not disturbed
  snprintf(text, sizeof text, P "[checkpoint]\ndirr = %s\n", path);
  EXPECT_INPUT(text, "t.ini:4: ", "unknown key 'dirr'");
  snprintf(text, sizeof text, P "[checkpoint]\n  dir = %s\n", path);  // indented: still a key
  TEST_CALL(Parse(text, &c));
  path[200] = '\0';
  snprintf(text, sizeof text, P "[output]    %s\n", path);  // text after a header
  EXPECT_INPUT(text, "t.ini:3: ", "unexpected text");
  snprintf(text, sizeof text, P "[time]\n%s\n", path);  // no '=': a syntax error on its line
  EXPECT_INPUT(text, "t.ini:4: ", "syntax error");
}

static void Conflicts(void) {
  EXPECT_INPUT(P "[mesh]\nfile = a.mesh\ndim = 3\n", "t.ini:5: ", "[mesh] dim cannot be combined",
               "[mesh] file (set at t.ini:4)", "mutually exclusive");
  EXPECT_INPUT(P "[mesh]\nsize = 1 2\n[mesh]\nfile = a.mesh\n", "t.ini:4: ", "[mesh] size",
               "t.ini:6");
  EXPECT_INPUT(P "[mesh]\ngenerator = box\nfile = a.mesh\n", "t.ini:4: ", "generator");
  EXPECT_INPUT(P "[mesh]\nelements = 4 4 4\n", "t.ini:4: ", "elements has 3 values",
               "[mesh] dim is 2 (the default)");
  EXPECT_INPUT(P "[mesh]\ndim = 3\nsize = 1 1\n", "t.ini:5: ", "size has 2 values",
               "dim is 3 (t.ini:4)");
  EXPECT_INPUT(P "[mesh]\ndim = 1\nelements = 1 2 3 4\n", "t.ini:5: ", "too many values");
  EXPECT_INPUT(P "[mesh]\nelements = 4 0\n", "t.ini:4: ", "value 0", "out of range");
  EXPECT_INPUT(P "[mesh]\nelements = 4 x\n", "t.ini:4: ", "bad value 'x'");
  EXPECT_INPUT(P "[mesh]\nsize = 1 -1\n", "t.ini:4: ", "out of range");
  EXPECT_INPUT(P "[mesh]\nsize = 1 nan\n", "t.ini:4: ", "not a finite number");
}

static void Accepted(void) {
  BlastConfig c;
  // Defaults of the contract (a deck with only the required key).
  TEST_CALL(Parse("[problem]\nname = taylor_green\n", &c));
  TEST_ASSERT(c.problem == BLAST_PROBLEM_TAYLOR_GREEN, "problem");
  TEST_ASSERT(c.blast_energy == 1.0 && c.blast_tol == 1e-12, "problem defaults");
  TEST_ASSERT(!c.mesh_file[0] && c.generator == BLAST_MESH_GEN_BOX && c.dim == 2, "mesh defaults");
  TEST_ASSERT(c.elements[0] == 2 && c.elements[1] == 2 && c.elements[2] == 0, "elements default");
  TEST_ASSERT(c.size[0] == 1.0 && c.size[1] == 1.0 && c.size[2] == 0.0, "size default");
  TEST_ASSERT(c.refine_serial == 0 && c.refine_parallel == 0, "refinement defaults");
  TEST_ASSERT(c.partitioner == BLAST_PARTITION_METIS, "partitioner default");
  TEST_ASSERT(c.order_kinematic == 2 && c.order_thermo == 1 && c.order_quadrature == -1,
              "fem defaults %d %d %d", c.order_kinematic, c.order_thermo, c.order_quadrature);
  TEST_ASSERT(c.assembly == BLAST_ASSEMBLY_DEFAULT && c.assembly == -1, "assembly default %d",
              c.assembly);
  TEST_ASSERT(
      c.t_final == 0.6 && c.cfl == 0.5 && c.ode_solver == BLAST_ODE_RK4 && c.max_steps == -1,
      "time defaults");
  TEST_ASSERT(c.cg_tol == 1e-8 && c.cg_max_iter == 300 && c.viscosity == BLAST_VISC_AUTO &&
                  c.energy_solve == BLAST_ENERGY_INVERSE,
              "solver defaults");
  TEST_ASSERT(!strcmp(c.output_dir, "out/t") && c.print_every == 5 && c.exact_error == 0,
              "output defaults '%s'", c.output_dir);
  TEST_ASSERT(!strcmp(c.deck_path, "t.ini"), "deck_path");
  // Syntax variants: comments, inline comments, CRLF, BOM, ':' separator, tabs.
  TEST_CALL(
      Parse("\xEF\xBB\xBF# hash comment\r\n[problem]\r\nname = sedov ; inline\r\n"
            "[time]\r\n\tt_final\t=\t2\r\ncfl: 0.25\r\n[output]\nexact_error = true\n"
            "dir = res;ults\n",
            &c));
  TEST_ASSERT(c.problem == BLAST_PROBLEM_SEDOV && c.cfl == 0.25 && c.t_final == 2.0 &&
                  c.exact_error == 1 && !strcmp(c.output_dir, "res;ults"),
              "syntax variants");
  // Dependent resolution: order_thermo follows order_kinematic; dim 3 defaults.
  TEST_CALL(Parse(P "[fem]\norder_kinematic = 4\n[mesh]\ndim = 3\n", &c));
  TEST_ASSERT(c.order_thermo == 3, "order_thermo %d", c.order_thermo);
  TEST_ASSERT(c.elements[2] == 2 && c.size[2] == 1.0, "3D generator defaults");
  TEST_CALL(Parse(P "[fem]\norder_kinematic = 1\norder_quadrature = 5\n[mesh]\ndim = 1\n"
                    "elements = 7\nsize = 2.5\n",
                  &c));
  TEST_ASSERT(c.order_thermo == 0 && c.order_quadrature == 5, "k=1 orders");
  TEST_ASSERT(c.elements[0] == 7 && c.elements[1] == 0 && c.size[0] == 2.5 && c.size[1] == 0,
              "1D lists");
  TEST_CALL(Parse(P "[time]\ncfl = 10\nmax_steps = 0\n[solver]\ncg_tol = 1e-300\n", &c));
  TEST_ASSERT(c.cfl == 10 && c.max_steps == 0 && c.cg_tol == 1e-300, "range edges");
  // [fem] assembly: the words and the mode each resolves to.
  TEST_CALL(Parse(P "[fem]\nassembly = full\n", &c));
  TEST_ASSERT(c.assembly == BLAST_ASSEMBLY_FULL && c.assembly == 0, "assembly full %d", c.assembly);
  TEST_CALL(Parse(P "[fem]\nassembly = partial\n", &c));
  TEST_ASSERT(c.assembly == BLAST_ASSEMBLY_PARTIAL && c.assembly == 1, "assembly partial %d",
              c.assembly);
  TEST_CALL(Parse(P "[fem]\nassembly = default\n", &c));
  TEST_ASSERT(c.assembly == BLAST_ASSEMBLY_DEFAULT, "assembly default %d", c.assembly);
  TEST_ASSERT(BlastAssemblyResolve(c.assembly, 1, 2) == BLAST_ASSEMBLY_FULL &&
                  BlastAssemblyResolve(c.assembly, 2, 2) == BLAST_ASSEMBLY_PARTIAL &&
                  BlastAssemblyResolve(c.assembly, 3, 2) == BLAST_ASSEMBLY_PARTIAL &&
                  BlastAssemblyResolve(BLAST_ASSEMBLY_FULL, 3, 2) == BLAST_ASSEMBLY_FULL &&
                  BlastAssemblyResolve(BLAST_ASSEMBLY_PARTIAL, 1, 2) == BLAST_ASSEMBLY_PARTIAL,
              "assembly resolution");
  // Output dir default from the deck name.
  BlastConfig d;
  TEST_CALL(BlastDeckParseText(P, "some/dir/run.v2.ini", "some/dir", &d));
  TEST_ASSERT(!strcmp(d.output_dir, "out/run.v2"), "dir '%s'", d.output_dir);
  TEST_CALL(BlastDeckParseText(P, "plain", "", &d));
  TEST_ASSERT(!strcmp(d.output_dir, "out/plain"), "dir '%s'", d.output_dir);
}

static void MeshPaths(void) {
  char cwd[BLAST_PATH_MAX], want[2 * BLAST_PATH_MAX];
  TEST_ASSERT(getcwd(cwd, sizeof cwd), "getcwd");
  BlastConfig c;
  TEST_CALL(BlastDeckParseText(P "[mesh]\nfile = m.mesh\n", "d/t.ini", "d", &c));
  snprintf(want, sizeof want, "%s/d/m.mesh", cwd);
  TEST_ASSERT(!strcmp(c.mesh_file, want), "'%s' != '%s'", c.mesh_file, want);
  TEST_ASSERT(c.dim == 0 && c.elements[0] == 0 && c.size[0] == 0.0, "generator zeroed");
  TEST_CALL(BlastDeckParseText(P "[mesh]\nfile = ./m.mesh\n", "t.ini", "./d/", &c));
  TEST_ASSERT(!strcmp(c.mesh_file, want), "'%s' != '%s'", c.mesh_file, want);
  TEST_CALL(BlastDeckParseText(P "[mesh]\nfile = m.mesh\n", "t.ini", "", &c));
  snprintf(want, sizeof want, "%s/m.mesh", cwd);
  TEST_ASSERT(!strcmp(c.mesh_file, want), "'%s' != '%s'", c.mesh_file, want);
  TEST_CALL(BlastDeckParseText(P "[mesh]\nfile = m.mesh\n", "t.ini", "/abs/dir", &c));
  TEST_ASSERT(!strcmp(c.mesh_file, "/abs/dir/m.mesh"), "'%s'", c.mesh_file);
  TEST_CALL(BlastDeckParseText(P "[mesh]\nfile = /x/m.mesh\n", "t.ini", "d", &c));
  TEST_ASSERT(!strcmp(c.mesh_file, "/x/m.mesh"), "'%s'", c.mesh_file);
}

static void Overrides(void) {
  const char *deck = P "[fem]\norder_kinematic = 2\n[mesh]\nfile = a.mesh\n[time]\ncfl = 0.5\n";
  struct {
    const char *arg;
    int code;
    const char *s1, *s2;
  } cases[] = {
      {"time.cfl=0.25", 0, NULL, NULL},
      {"time.cfll=0.25", BLAST_ERR_INPUT, "command line argument 3 ('time.cfll=0.25')",
       "did you mean 'cfl'?"},
      {"tme.cfl=0.25", BLAST_ERR_INPUT, "command line argument 3", "did you mean [time]?"},
      {"cfl=0.25", BLAST_ERR_INPUT, "expected section.key=value", "'time.cfl=0.25'"},
      {"time.cfl", BLAST_ERR_INPUT, "expected section.key=value", NULL},
      {"time.cfl=", BLAST_ERR_INPUT, "empty value", NULL},
      {"time.cfl=0.5x", BLAST_ERR_INPUT, "command line argument 3 ('time.cfl=0.5x')",
       "unexpected 'x'"},
      {"time.cfl=20", BLAST_ERR_INPUT, "out of range", "in (0, 10]"},
      {"time.ode_solver=rk45", BLAST_ERR_INPUT, "did you mean 'rk4'?", NULL},
      {"mesh.dim=3", BLAST_ERR_INPUT, "command line argument 3 ('mesh.dim=3'): [mesh] dim",
       "[mesh] file (set at t.ini:6)"},
      {"problem.name=sedov", 0, NULL, NULL},
      {" time . cfl = 0.125 ; comment", 0, NULL, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    BlastDeck d = NULL;
    BlastConfig c;
    memset(&c, 0, sizeof c);
    TEST_CALL(BlastDeckCreate("t.ini", "", &d));
    TEST_CALL(BlastDeckReadText(d, deck));
    int ierr = BlastDeckApplyOverride(d, cases[i].arg, 3);
    if (!ierr) ierr = BlastDeckResolve(d, &c);
    const char *msg = BlastErrorMessage();
    TEST_ASSERT(ierr == cases[i].code, "'%s': returned %d (%s)", cases[i].arg, ierr, msg);
    if (cases[i].s1) TEST_ASSERT(strstr(msg, cases[i].s1), "'%s': %s", cases[i].arg, msg);
    if (cases[i].s2) TEST_ASSERT(strstr(msg, cases[i].s2), "'%s': %s", cases[i].arg, msg);
    if (!cases[i].code && !strcmp(cases[i].arg, "time.cfl=0.25"))
      TEST_ASSERT(c.cfl == 0.25, "override applied");
    if (!cases[i].code && cases[i].arg[0] == ' ') TEST_ASSERT(c.cfl == 0.125, "inline comment");
    BlastErrorClear();
    BlastDeckDestroy(&d);
    TEST_ASSERT(d == NULL, "destroy clears the handle");
  }
  // Overrides resolve like deck lines: order_thermo follows an overridden order_kinematic;
  // the same key twice on the command line is a duplicate.
  BlastDeck d = NULL;
  BlastConfig c;
  TEST_CALL(BlastDeckCreate("t.ini", "", &d));
  TEST_CALL(BlastDeckReadText(d, deck));
  TEST_CALL(BlastDeckApplyOverride(d, "fem.order_kinematic=4", 2));
  int ierr = BlastDeckApplyOverride(d, "fem.order_kinematic=5", 3);
  TEST_ASSERT(ierr == BLAST_ERR_INPUT &&
                  strstr(BlastErrorMessage(), "first set at command line argument 2"),
              "duplicate override: %s", BlastErrorMessage());
  BlastErrorClear();
  TEST_CALL(BlastDeckResolve(d, &c));
  TEST_ASSERT(c.order_kinematic == 4 && c.order_thermo == 3, "k %d m %d", c.order_kinematic,
              c.order_thermo);
  TEST_ASSERT(BlastDeckResolve(d, &c) == BLAST_ERR_ARG, "resolve twice");
  BlastErrorClear();
  BlastDeckDestroy(&d);
  BlastDeckDestroy(&d);  // NULL is fine
  // [fem] assembly from the command line replaces the deck's; a bad word names the argument.
  TEST_CALL(BlastDeckCreate("t.ini", "", &d));
  TEST_CALL(BlastDeckReadText(d, P "[fem]\nassembly = full\n"));
  TEST_CALL(BlastDeckApplyOverride(d, "fem.assembly=partial", 2));
  TEST_CALL(BlastDeckResolve(d, &c));
  TEST_ASSERT(c.assembly == BLAST_ASSEMBLY_PARTIAL, "assembly override %d", c.assembly);
  BlastDeckDestroy(&d);
  TEST_CALL(BlastDeckCreate("t.ini", "", &d));
  TEST_CALL(BlastDeckReadText(d, P));
  ierr = BlastDeckApplyOverride(d, "fem.assembly=sparse", 3);
  TEST_ASSERT(ierr == BLAST_ERR_INPUT &&
                  strstr(BlastErrorMessage(), "command line argument 3 ('fem.assembly=sparse')") &&
                  strstr(BlastErrorMessage(), "one of: default, full, partial"),
              "bad assembly override: %s", BlastErrorMessage());
  BlastErrorClear();
  BlastDeckDestroy(&d);
}

static void CommandLine(void) {
  BlastCliArgs a;
  char *argv1[] = {"blast_gpu", NULL};
  TEST_ASSERT(BlastCliParseArgs(1, argv1, &a) == BLAST_ERR_INPUT &&
                  strstr(BlastErrorMessage(), "no deck given"),
              "no deck: %s", BlastErrorMessage());
  BlastErrorClear();
  BlastCliArgsFree(&a);
  char *argv2[] = {"blast_gpu", "--print-dek", "d.ini", NULL};
  TEST_ASSERT(BlastCliParseArgs(3, argv2, &a) == BLAST_ERR_INPUT &&
                  strstr(BlastErrorMessage(), "command line argument 1 ('--print-dek')") &&
                  strstr(BlastErrorMessage(), "did you mean '--print-deck'?"),
              "bad option: %s", BlastErrorMessage());
  BlastErrorClear();
  BlastCliArgsFree(&a);
  char *argv3[] = {"blast_gpu", "d.ini",  "time.cfl=1", "--print-deck", "fem.order_kinematic=3",
                   "--",        "-x.y=1", NULL};
  TEST_CALL(BlastCliParseArgs(7, argv3, &a));
  TEST_ASSERT(a.deck && !strcmp(a.deck, "d.ini") && a.print_deck && !a.help && !a.version, "deck");
  TEST_ASSERT(a.noverrides == 3 && a.argnos[0] == 2 && a.argnos[1] == 4 && a.argnos[2] == 6 &&
                  !strcmp(a.overrides[2], "-x.y=1"),
              "overrides");
  BlastCliArgsFree(&a);
  char *argv4[] = {"blast_gpu", "-h", NULL};
  TEST_CALL(BlastCliParseArgs(2, argv4, &a));
  TEST_ASSERT(a.help && !a.deck, "help without deck");
  BlastCliArgsFree(&a);
}

static void Echo(void) {
  // Nothing is written when the config cannot be written as a deck.
  BlastConfig c;
  TEST_CALL(Parse(P, &c));
  c.ode_solver = 5;  // no such integrator
  FILE *f = tmpfile();
  TEST_ASSERT(BlastDeckWrite(&c, f) == BLAST_ERR_ARG, "bad enum value written");
  BlastErrorClear();
  TEST_ASSERT(ftell(f) == 0, "partial echo written");
  fclose(f);
  // [fem] assembly echoes as its word (default included) and reads back the same.
  const char *modes[] = {"default", "full", "partial"};
  for (int i = 0; i < 3; i++) {
    char text[128], want[64];
    snprintf(text, sizeof text, P "[fem]\nassembly = %s\n", modes[i]);
    TEST_CALL(Parse(text, &c));
    f = tmpfile();
    TEST_CALL(BlastDeckWrite(&c, f));
    long len = ftell(f);
    rewind(f);
    char echo[8192] = "";
    TEST_ASSERT(len > 0 && len < (long)sizeof echo && fread(echo, 1, (size_t)len, f) == (size_t)len,
                "echo size");
    fclose(f);
    // The default says what it resolves to for this (generated, 2D) mesh.
    snprintf(want, sizeof want, "\nassembly = %s%s\n", modes[i],
             i ? "" : "  ; default: partial in 2D");
    TEST_ASSERT(strstr(echo, want), "echo lacks '%s':\n%s", want, echo);
    BlastConfig back;
    TEST_CALL(BlastDeckParseText(echo, "t.ini", "", &back));
    TEST_ASSERT(back.assembly == c.assembly, "assembly %s does not round-trip", modes[i]);
  }
  // Help: every key of the schema, in its section, with its help text.
  f = tmpfile();
  BlastCliPrintHelp(f);
  long n = ftell(f);
  rewind(f);
  char *help = NULL;
  TEST_CALL(BlastCalloc(n + 1, &help));
  TEST_ASSERT(fread(help, 1, (size_t)n, f) == (size_t)n, "read help");
  fclose(f);
  int nkeys = 0;
  const BlastDeckKey *keys = BlastDeckSchema(&nkeys);
  TEST_ASSERT(nkeys >= 25, "the contract has at least 25 keys, the schema %d", nkeys);
  for (int k = 0; k < nkeys; k++) {
    char sec[64], key[64];
    snprintf(sec, sizeof sec, "\n[%s]\n", keys[k].section);
    snprintf(key, sizeof key, "\n  %s ", keys[k].key);
    const char *s = strstr(help, sec);
    const char *next = s ? strstr(s + 1, "\n[") : NULL;
    const char *at = s ? strstr(s, key) : NULL;
    TEST_ASSERT(at && (!next || at < next), "help lacks [%s] %s", keys[k].section, keys[k].key);
    TEST_ASSERT(strstr(help, keys[k].help), "help lacks the help of %s", keys[k].key);
  }
  BlastFree(&help);
}

/// Random edits of a good deck: never a crash, only success or BLAST_ERR_INPUT, and every
/// accepted mutant round-trips through its echo.
static void Fuzz(void) {
  const char *base =
      "[problem]\nname = sedov\nblast_energy = 2\n[mesh]\ndim = 3\nelements = 2 3 4\n"
      "size = 1 2 3\n[fem]\norder_kinematic = 3\n[time]\ncfl = 0.3 ; c\node_solver = rk2\n"
      "[output]\nexact_error = true\n";
  const char alphabet[] = "[]=;:#. \t\n\r0123456789abcdefxyz-+eE";
  unsigned seed = 12345u;
  int accepted = 0;
  char text[512];
  for (int it = 0; it < 3000; it++) {
    snprintf(text, sizeof text, "%s", base);
    size_t len = strlen(text);
    int edits = 1 + it % 2;
    for (int e = 0; e < edits; e++) {
      seed = seed * 1103515245u + 12345u;
      size_t pos = (seed >> 8) % len;
      seed = seed * 1103515245u + 12345u;
      char ch = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
      if ((seed >> 20) % 3 == 0 && len > 1) {  // delete
        memmove(text + pos, text + pos + 1, len - pos);
        len--;
      } else if ((seed >> 20) % 3 == 1 && len + 1 < sizeof text) {  // insert
        memmove(text + pos + 1, text + pos, len - pos + 1);
        text[pos] = ch;
        len++;
      } else {
        text[pos] = ch;
      }
    }
    BlastConfig c;
    int ierr = BlastDeckParseText(text, "fuzz.ini", "", &c);
    TEST_ASSERT(ierr == 0 || ierr == BLAST_ERR_INPUT, "mutant %d: code %d\n%s", it, ierr, text);
    TEST_ASSERT(ierr == 0 || strstr(BlastErrorMessage(), "fuzz.ini:"),
                "mutant %d: message without deck:line: %s", it, BlastErrorMessage());
    BlastErrorClear();
    if (ierr) continue;
    accepted++;
    FILE *f = tmpfile();
    TEST_CALL(BlastDeckWrite(&c, f));
    long n = ftell(f);
    rewind(f);
    char echo[4096] = "";
    TEST_ASSERT(n > 0 && n < (long)sizeof echo && fread(echo, 1, (size_t)n, f) == (size_t)n,
                "echo size");
    fclose(f);
    BlastConfig back;
    TEST_CALL(BlastDeckParseText(echo, "fuzz.ini", "/elsewhere", &back));
    TEST_ASSERT(!memcmp(&c, &back, sizeof c), "mutant %d does not round-trip:\n%s", it, text);
  }
  printf("fuzz: %d of 3000 mutants accepted\n", accepted);
  TEST_ASSERT(accepted > 50, "too few accepted mutants (%d)", accepted);
}

int main(void) {
  UnknownNames();
  BadValues();
  Structure();
  LongLines();
  Conflicts();
  Accepted();
  MeshPaths();
  Overrides();
  CommandLine();
  Echo();
  Fuzz();
  return BlastTestFinish("test_deck_errors");
}
