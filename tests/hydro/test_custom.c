// Custom problems ([problem] name = custom) against the built-in problems they restate:
// the piecewise-constant ones (Sod, triple point 2D and 3D) give the built-in's bits (the
// whole state after a few steps, every step's |e| and dt, the CG iterations; a rebuild on
// the same mesh changes none); the ones written as expressions (Riemann 12 and 6, Gresho,
// Rayleigh-Taylor with [problem] gravity) agree to 1e-12 relative |e|. A gas in
// hydrostatic balance under a gravity along no axis stays at rest; the selectors (all,
// attributes, box, sphere, halfspace) give the mass counted by hand. Then bad input: exit
// code BLAST_ERR_INPUT and a message naming the deck line, the section and key (and the
// point for bad values), the same on every rank.
//
// usage: test_custom MESH_DIR (inputs/meshes)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "hydro.h"
#include "mesh.h"
#include "meshio.h"
#include "regression_common.h"
#include "testlib.h"

static const char *g_meshes;
static int g_line;  // the next fake deck line

static void Where(char *dst) {
  snprintf(dst, BLAST_WHERE_MAX, "custom.ini:%d", ++g_line);
}

static void Expr(BlastExprText *t, const char *text) {
  snprintf(t->text, sizeof t->text, "%s", text);
  Where(t->where);
}

static void AddMaterial(BlastConfig *c, const char *name, double gamma) {
  BlastMaterialSpec *m = &c->materials[c->nmaterials++];
  snprintf(m->name, sizeof m->name, "%s", name);
  m->eos = BLAST_EOS_IDEAL_GAS, m->gamma = gamma;
  Where(m->where);
}

// A region: selector kind and numbers, density and pressure (NULL: specific_energy = e).
static BlastRegionSpec *AddRegion(BlastConfig *c, const char *name, const char *mat, int kind,
                                  int n, const double *v, const char *rho, const char *p,
                                  const char *e) {
  BlastRegionSpec *r = &c->regions[c->nregions++];
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s", name);
  snprintf(r->material, sizeof r->material, "%s", mat);
  Where(r->where);
  r->select.kind = kind, r->select.n = n;
  for (int i = 0; i < n; i++) {
    if (kind == BLAST_SELECT_ATTRIBUTES)
      r->select.attr[i] = (int)v[i];
    else
      r->select.v[i] = v[i];
  }
  Where(r->select.where);
  Expr(&r->density, rho);
  if (p) Expr(&r->pressure, p);
  if (e) Expr(&r->specific_energy, e);
  return r;
}

static void Velocity(BlastRegionSpec *r, int n, const char *const *v) {
  r->nvelocity = n;
  for (int c = 0; c < n; c++) Expr(&r->velocity[c], v[c]);
}

static BlastConfig *NewConfig(int problem, int steps) {
  BlastConfig *c = calloc(1, sizeof *c);
  if (!c) abort();
  RegressionConfig(c, problem);
  c->max_steps = steps;
  c->cg_tol = 1e-10;
  return c;
}

static BlastConfig *Custom(const BlastConfig *builtin) {
  BlastConfig *c = NewConfig(BLAST_PROBLEM_CUSTOM, builtin->max_steps);
  c->ode_solver = builtin->ode_solver, c->t_final = builtin->t_final;
  c->order_kinematic = builtin->order_kinematic, c->order_thermo = builtin->order_thermo;
  snprintf(c->deck_path, sizeof c->deck_path, "custom.ini");
  g_line = 0;
  return c;
}

typedef struct {
  int steps;
  double e[64], dt[64];
  double *x, *v, *en;
  size_t nx, ne;
  int64_t cg_iter;
} Run;

static int g_rebuild;  // rebuild the operator on the same mesh before running

static int DoRun(const BlastConfig *cfg, BlastMesh mesh, Run *r) {
  memset(r, 0, sizeof *r);
  BlastHydro h = NULL;
  BlastCall(BlastHydroCreate(cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (g_rebuild) BlastCall(BlastHydroRebuild(h, mesh));
  StepLog log = {0, 64, r->e, r->dt, 0};
  int ierr = BlastHydroRun(h, LogStep, &log);
  r->steps = log.nsteps;
  const BlastSpace *s = BlastHydroGetSpace(h);
  r->nx = (size_t)s->dim * s->h1_nl, r->ne = (size_t)s->nz * s->l2_nd;
  r->x = malloc(r->nx * sizeof(double) + 1), r->v = malloc(r->nx * sizeof(double) + 1);
  r->en = malloc(r->ne * sizeof(double) + 1);
  if (!ierr && !(r->x && r->v && r->en)) ierr = BLAST_ERR_MEM;
  if (!ierr) ierr = BlastHydroGetState(h, r->x, r->v, r->en);
  r->cg_iter = BlastHydroGetTimers(h)->cg_iter;
  BlastHydroDestroy(&h);
  BlastCall(ierr);
  return 0;
}

// The built-in run a and the custom run b: identical bits (tol 0) or |e| within tol.
static void Compare(const char *name, BlastConfig *a, BlastConfig *b, BlastMesh mesh, double tol) {
  Run ra, rb;
  TEST_CALL(DoRun(a, mesh, &ra));
  TEST_CALL(DoRun(b, mesh, &rb));
  if (tol == 0.0) {  // a rebuild of the custom operator on its mesh changes no bit
    Run rc;
    g_rebuild = 1;
    TEST_CALL(DoRun(b, mesh, &rc));
    g_rebuild = 0;
    TEST_ASSERT(rc.steps == rb.steps && rc.nx == rb.nx && rc.ne == rb.ne &&
                    !memcmp(rc.x, rb.x, rb.nx * sizeof(double)) &&
                    !memcmp(rc.en, rb.en, rb.ne * sizeof(double)),
                "%s: a rebuild on the same mesh changed the run", name);
    free(rc.x), free(rc.v), free(rc.en);
  }
  TEST_ASSERT(ra.steps == rb.steps && ra.steps >= 3, "%s: steps %d and %d", name, ra.steps,
              rb.steps);
  double worst = 0.0;
  for (int s = 1; s <= ra.steps && s < 64; s++) {
    const double d = fabs(ra.e[s] - rb.e[s]) / fabs(ra.e[s]);
    worst = d > worst ? d : worst;
    if (tol == 0.0)
      TEST_ASSERT(ra.e[s] == rb.e[s] && ra.dt[s] == rb.dt[s],
                  "%s step %d: |e| %.17g and %.17g, dt %.17g and %.17g", name, s, ra.e[s], rb.e[s],
                  ra.dt[s], rb.dt[s]);
  }
  TEST_ASSERT(worst <= tol, "%s: |e| differs by %.3e relative (tol %.1e)", name, worst, tol);
  if (tol == 0.0) {
    TEST_ASSERT(ra.cg_iter == rb.cg_iter, "%s: CG iterations %lld and %lld", name,
                (long long)ra.cg_iter, (long long)rb.cg_iter);
    TEST_ASSERT(ra.nx == rb.nx && ra.ne == rb.ne && ra.nx &&
                    !memcmp(ra.x, rb.x, ra.nx * sizeof(double)) &&
                    !memcmp(ra.v, rb.v, ra.nx * sizeof(double)) &&
                    !memcmp(ra.en, rb.en, ra.ne * sizeof(double)),
                "%s: the states differ", name);
  }
  printf("%-22s %d steps, |e| %.15e, largest relative |e| difference %.2e%s\n", name, ra.steps,
         ra.e[ra.steps < 64 ? ra.steps : 63], worst, tol == 0.0 ? " (bits compared)" : "");
  free(ra.x), free(ra.v), free(ra.en), free(rb.x), free(rb.v), free(rb.en);
  free(a), free(b);
}

static BlastMesh Box(int dim, int nx, int ny, int nz, double sx, double sy, double sz) {
  const int n[3] = {nx, ny, nz};
  const double size[3] = {sx, sy, sz};
  BlastMesh m = NULL;
  TEST_CALL(BlastMeshCreateBox(dim, n, size, &m));
  return m;
}

static BlastMesh File(const char *name, int refine) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", g_meshes, name);
  BlastMesh m0 = NULL, m = NULL;
  TEST_CALL(BlastMeshRead(path, &m0));
  if (!refine) return m0;
  TEST_CALL(BlastMeshRefine(m0, refine, &m));
  BlastMeshDestroy(&m0);
  return m;
}

static void Sod(void) {
  BlastMesh mesh = Box(1, 32, 0, 0, 1.0, 0, 0);
  BlastConfig *a = NewConfig(BLAST_PROBLEM_SOD, 12), *b = Custom(a);
  AddMaterial(b, "gas", 1.4);
  AddRegion(b, "left", "gas", BLAST_SELECT_ALL, 0, NULL, "1", "1", NULL);
  AddRegion(b, "right", "gas", BLAST_SELECT_BOX, 2, (double[]){0.5, 1.0}, "0.1", "0.1", NULL);
  Compare("sod 1D", a, b, mesh, 0.0);
  BlastMeshDestroy(&mesh);
}

static void TriplePoint(int dim) {
  BlastMesh mesh = dim == 2 ? Box(2, 14, 6, 0, 7.0, 3.0, 0) : Box(3, 7, 2, 2, 7.0, 3.0, 3.0);
  BlastConfig *a = NewConfig(BLAST_PROBLEM_TRIPLE_POINT, 14), *b = Custom(a);
  AddMaterial(b, "left", 1.5);
  AddMaterial(b, "top", 1.5);
  AddMaterial(b, "bottom", 1.4);
  AddRegion(b, "left", "left", BLAST_SELECT_ALL, 0, NULL, "1", "1", NULL);
  if (dim == 2) {
    AddRegion(b, "bottom", "bottom", BLAST_SELECT_BOX, 4, (double[]){1, 0, 7, 1.5}, "1", "0.1",
              NULL);
    AddRegion(b, "top", "top", BLAST_SELECT_BOX, 4, (double[]){1, 1.5, 7, 3}, "0.125", "0.1", NULL);
  } else {  // the light gas where y and z are on the same side of 1.5
    AddRegion(b, "bottom", "bottom", BLAST_SELECT_BOX, 6, (double[]){1, 0, 0, 7, 1.5, 3}, "1",
              "0.1", NULL);
    AddRegion(b, "bottom_light", "bottom", BLAST_SELECT_BOX, 6, (double[]){1, 0, 0, 7, 1.5, 1.5},
              "0.125", "0.1", NULL);
    AddRegion(b, "top", "top", BLAST_SELECT_BOX, 6, (double[]){1, 1.5, 0, 7, 3, 3}, "1", "0.1",
              NULL);
    AddRegion(b, "top_light", "top", BLAST_SELECT_BOX, 6, (double[]){1, 1.5, 1.5, 7, 3, 3}, "0.125",
              "0.1", NULL);
  }
  Compare(dim == 2 ? "triple point 2D" : "triple point 3D", a, b, mesh, 0.0);
  BlastMeshDestroy(&mesh);
}

// Riemann configurations 12 and 6: quadrant regions, the velocity profile as an expression.
#define RA "(x*(1-x)*4*y*(1-y)*4)^0.4"
static void Riemann(int problem) {
  BlastMesh mesh = Box(2, 8, 8, 0, 1.0, 1.0, 0);
  BlastConfig *a = NewConfig(problem, 8), *b = Custom(a);
  AddMaterial(b, "gas", 1.4);
  const double ll[] = {0, 0, 0.5, 0.5}, lr[] = {0.5, 0, 1, 0.5}, ul[] = {0, 0.5, 0.5, 1},
               ur[] = {0.5, 0.5, 1, 1};
  BlastRegionSpec *r[4];
  if (problem == BLAST_PROBLEM_RIEMANN12) {
    r[0] = AddRegion(b, "ll", "gas", BLAST_SELECT_BOX, 4, ll, "0.8", "1", NULL);
    r[1] = AddRegion(b, "lr", "gas", BLAST_SELECT_BOX, 4, lr, "1", "1", NULL);
    r[2] = AddRegion(b, "ul", "gas", BLAST_SELECT_BOX, 4, ul, "1", "1", NULL);
    r[3] = AddRegion(b, "ur", "gas", BLAST_SELECT_BOX, 4, ur, "0.5313", "0.4", NULL);
    Velocity(r[1], 2, (const char *[]){"0", "0.7276*" RA});
    Velocity(r[2], 2, (const char *[]){"0.7276*" RA, "0"});
  } else {
    r[0] = AddRegion(b, "ll", "gas", BLAST_SELECT_BOX, 4, ll, "1", "1", NULL);
    r[1] = AddRegion(b, "lr", "gas", BLAST_SELECT_BOX, 4, lr, "3", "1", NULL);
    r[2] = AddRegion(b, "ul", "gas", BLAST_SELECT_BOX, 4, ul, "2", "1", NULL);
    r[3] = AddRegion(b, "ur", "gas", BLAST_SELECT_BOX, 4, ur, "1", "1", NULL);
    Velocity(r[0], 2, (const char *[]){"-0.75*" RA, "0.5*" RA});
    Velocity(r[1], 2, (const char *[]){"-0.75*" RA, "-0.5*" RA});
    Velocity(r[2], 2, (const char *[]){"0.75*" RA, "0.5*" RA});
    Velocity(r[3], 2, (const char *[]){"0.75*" RA, "-0.5*" RA});
  }
  Compare(problem == BLAST_PROBLEM_RIEMANN12 ? "riemann12 2D" : "riemann6 2D", a, b, mesh, 1e-12);
  BlastMeshDestroy(&mesh);
}

// Gresho: one region, pressure and velocity as expressions with ?:; no viscosity.
static void Gresho(void) {
  BlastMesh mesh = File("square_gresho.mesh", 1);
  BlastConfig *a = NewConfig(BLAST_PROBLEM_GRESHO, 8), *b = Custom(a);
  b->viscosity = BLAST_VISC_OFF;
  AddMaterial(b, "gas", 5.0 / 3.0);
  BlastRegionSpec *r = AddRegion(
      b, "vortex", "gas", BLAST_SELECT_ALL, 0, NULL, "1",
      "r<0.2 ? 5+25/2*r*r : (r<0.4 ? 9-4*log(0.2)+25/2*r*r-20*r+4*log(r) : 3+4*log(2))", NULL);
  Velocity(r, 2,
           (const char *[]){"r<0.2?5*y:(r<0.4?2*y/r-5*y:0)", "r<0.2?-5*x:(r<0.4?-2*x/r+5*x:0)"});
  Compare("gresho 2D", a, b, mesh, 1e-12);
  BlastMeshDestroy(&mesh);
}

// Rayleigh-Taylor: the body force from [problem] gravity, the vorticity factor on.
static void RayleighTaylor(void) {
  BlastMesh mesh = File("rt2D.mesh", 1);
  BlastConfig *a = NewConfig(BLAST_PROBLEM_RAYLEIGH_TAYLOR, 8), *b = Custom(a);
  b->ngravity = 2, b->gravity[0] = 0.0, b->gravity[1] = -1.0;
  b->vorticity = BLAST_VISC_ON;
  AddMaterial(b, "gas", 5.0 / 3.0);
  BlastRegionSpec *r =
      AddRegion(b, "fluid", "gas", BLAST_SELECT_ALL, 0, NULL, "y>=0?2:1", "y>=0?6-2*y:6-y", NULL);
  Velocity(r, 2, (const char *[]){"0", "0.02*exp(-2*pi*y*y)*cos(2*pi*x)"});
  Compare("rayleigh-taylor 2D", a, b, mesh, 1e-12);
  BlastMeshDestroy(&mesh);
}

// Gravity along any direction: a gas at rest in hydrostatic balance, p = 10 + rho g.x with
// g = (0.6, -0.8), stays at rest (the pressure gradient is linear, represented exactly:
// only round-off and the CG tolerance move it); without gravity the same gas moves.
static double HydrostaticKinetic(int with_gravity) {
  BlastMesh mesh = Box(2, 4, 4, 0, 1.0, 1.0, 0);
  BlastConfig *a = NewConfig(BLAST_PROBLEM_SOD, 5), *c = Custom(a);
  free(a);
  c->cg_tol = 1e-14;
  if (with_gravity) c->ngravity = 2, c->gravity[0] = 0.6, c->gravity[1] = -0.8;
  AddMaterial(c, "gas", 1.4);
  AddRegion(c, "gas", "gas", BLAST_SELECT_ALL, 0, NULL, "1", "10+0.6*x-0.8*y", NULL);
  BlastHydro h = NULL;
  double e = NAN, ie = NAN, ke = NAN;
  TEST_CALL(BlastHydroCreate(c, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (h) {
    TEST_CALL(BlastHydroRun(h, NULL, NULL));
    TEST_CALL(BlastHydroNorms(h, &e, &ie, &ke));
    BlastHydroDestroy(&h);
  }
  free(c);
  BlastMeshDestroy(&mesh);
  return ke;
}

static void Hydrostatic(void) {
  const double ke = HydrostaticKinetic(1), ke0 = HydrostaticKinetic(0);
  TEST_ASSERT(ke < 1e-20, "hydrostatic gas under gravity (0.6, -0.8): kinetic energy %.3e", ke);
  TEST_ASSERT(ke0 > 1e-8, "the same gas without gravity: kinetic energy %.3e", ke0);
  printf("%-22s kinetic energy after 5 steps %.2e (without gravity %.2e)\n", "hydrostatic 2D", ke,
         ke0);
}

// The internal energy of a gas with specific energy 1 is its mass: the selectors are
// checked through the zones they give their densities to (a zone belongs to the last region
// whose selector holds its centroid).
static double Mass(BlastConfig *c, BlastMesh mesh) {
  BlastHydro h = NULL;
  double e = NAN, ie = NAN, ke = NAN;
  TEST_CALL(BlastHydroCreate(c, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (h) TEST_CALL(BlastHydroNorms(h, &e, &ie, &ke));
  BlastHydroDestroy(&h);
  free(c);
  return ie;
}

static void Selectors(void) {
  // 4x4 zones of the unit square: 8 zones with x <= 0.5 (halfspace), one zone centroid within
  // 0.3 of (1, 1) (sphere), a box of 2x1 zones (x > 0.5, y < 0.25), the rest density 1.
  BlastMesh mesh = Box(2, 4, 4, 0, 1.0, 1.0, 0);
  BlastConfig *a = NewConfig(BLAST_PROBLEM_SOD, 1), *c = Custom(a);
  free(a);
  AddMaterial(c, "gas", 1.4);
  AddRegion(c, "all", "gas", BLAST_SELECT_ALL, 0, NULL, "1", NULL, "1");
  AddRegion(c, "left", "gas", BLAST_SELECT_HALFSPACE, 3, (double[]){2, 0, 1}, "2", NULL, "1");
  AddRegion(c, "corner", "gas", BLAST_SELECT_SPHERE, 3, (double[]){1, 1, 0.3}, "4", NULL, "1");
  AddRegion(c, "box", "gas", BLAST_SELECT_BOX, 4, (double[]){0.5, 0, 1, 0.25}, "8", NULL, "1");
  // zones: 8 left (2), 1 corner (4), 2 box (8), 5 others (1)
  const double want = (8 * 2.0 + 4.0 + 2 * 8.0 + 5 * 1.0) / 16.0;
  const double got = Mass(c, mesh);
  TEST_CLOSE(got, want, 1e-14);
  BlastMeshDestroy(&mesh);
  // Zone attributes: two unit squares side by side, attributes 1 and 2.
  static const char two[] =
      "MFEM mesh v1.0\n\ndimension\n2\n\nelements\n2\n1 3 0 1 4 3\n2 3 1 2 5 4\n\n"
      "boundary\n6\n1 1 3 0\n1 1 2 5\n2 1 0 1\n2 1 1 2\n2 1 4 3\n2 1 5 4\n\n"
      "vertices\n6\n2\n0 0\n1 0\n2 0\n0 1\n1 1\n2 1\n";
  BlastMesh m0 = NULL;
  TEST_CALL(BlastMeshReadBuffer("two.mesh", two, sizeof two - 1, &m0));
  TEST_CALL(BlastMeshRefine(m0, 2, &mesh));  // zones enough for two ranks
  BlastMeshDestroy(&m0);
  a = NewConfig(BLAST_PROBLEM_SOD, 1), c = Custom(a);
  free(a);
  AddMaterial(c, "gas", 1.4);
  AddRegion(c, "all", "gas", BLAST_SELECT_ALL, 0, NULL, "1", NULL, "1");
  AddRegion(c, "second", "gas", BLAST_SELECT_ATTRIBUTES, 1, (double[]){2}, "3", NULL, "1");
  const double got2 = Mass(c, mesh);
  TEST_CLOSE(got2, 4.0, 1e-14);
  BlastMeshDestroy(&mesh);
  printf("%-22s mass %.15g (want %.15g), attributes: %.15g (want 4)\n", "selectors", got, want,
         got2);
}

// ---- bad input ----

// A custom configuration on a 2D box that the caller spoils.
static BlastConfig *Good2D(void) {
  BlastConfig *a = NewConfig(BLAST_PROBLEM_SOD, 1), *c = Custom(a);
  free(a);
  AddMaterial(c, "gas", 1.4);
  AddRegion(c, "all", "gas", BLAST_SELECT_ALL, 0, NULL, "1", "1", NULL);
  return c;
}

// The setup fails with BLAST_ERR_INPUT and a message holding every one of `want`.
static void ExpectInputError(const char *name, BlastConfig *c, BlastMesh mesh,
                             const char *const *want) {
  BlastHydro h = NULL;
  const int ierr = BlastHydroCreate(c, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h);
  const char *msg = ierr ? BlastErrorMessage() : "";
  TEST_ASSERT(ierr == BLAST_ERR_INPUT, "%s: error %d, expected BLAST_ERR_INPUT (%s)", name, ierr,
              msg);
  for (int i = 0; want[i]; i++)
    TEST_ASSERT(strstr(msg, want[i]), "%s: '%s' not in the message: %s", name, want[i], msg);
  TEST_ASSERT(BlastTestSameMessageEverywhere(msg), "%s: ranks disagree", name);
  if (ierr == BLAST_ERR_INPUT) printf("  %-28s %s\n", name, msg);
  BlastErrorClear();
  if (h) BlastHydroDestroy(&h);
  free(c);
}

static void BadInput(void) {
  BlastMesh mesh = Box(2, 4, 4, 0, 1.0, 1.0, 0);
  BlastConfig *c;
  // a region that selects no zone (a sphere between the centroids)
  c = Good2D();
  AddRegion(c, "tiny", "gas", BLAST_SELECT_SPHERE, 3, (double[]){0.25, 0.25, 0.01}, "1", "1", NULL);
  ExpectInputError("region selecting no zone", c, mesh,
                   (const char *[]){"custom.ini:", "[region.tiny] select", "no zone", NULL});
  // negative density at a point: named with the point and the key's line
  c = Good2D();
  AddRegion(c, "hole", "gas", BLAST_SELECT_BOX, 4, (double[]){0.5, 0.5, 1, 1}, "1-2*x", "1", NULL);
  ExpectInputError(
      "negative density", c, mesh,
      (const char *[]){"[region.hole] density", "custom.ini:", "density is", "at (0.", NULL});
  c = Good2D();
  AddRegion(c, "nan", "gas", BLAST_SELECT_ALL, 0, NULL, "sqrt(x-0.5)", "1", NULL);
  ExpectInputError("NaN density", c, mesh,
                   (const char *[]){"[region.nan] density", "nan at (", NULL});
  // negative energy (from the pressure) and a negative specific energy
  c = Good2D();
  AddRegion(c, "cold", "gas", BLAST_SELECT_ALL, 0, NULL, "1", "-1", NULL);
  ExpectInputError("negative pressure", c, mesh,
                   (const char *[]){"[region.cold] pressure", "specific internal energy", NULL});
  c = Good2D();
  AddRegion(c, "cold", "gas", BLAST_SELECT_ALL, 0, NULL, "1", NULL, "y-0.9");
  ExpectInputError("negative energy", c, mesh,
                   (const char *[]){"[region.cold] specific_energy", "custom.ini:", NULL});
  // a stiffened gas below -p_inf: e >= 0 but no sound speed
  c = Good2D();
  AddMaterial(c, "water", 4.4);
  c->materials[1].eos = BLAST_EOS_STIFFENED_GAS, c->materials[1].p_inf = 6e8;
  AddRegion(c, "pool", "water", BLAST_SELECT_ALL, 0, NULL, "1000", "-7e8", NULL);
  ExpectInputError("stiffened gas p < -p_inf", c, mesh,
                   (const char *[]){"[region.pool] pressure", "below -p_inf = -6e+08",
                                    "[material.water]", NULL});
  // velocity: a count other than dim, a value that is not finite
  c = Good2D();
  Velocity(&c->regions[0], 3, (const char *[]){"0", "0", "0"});
  ExpectInputError("velocity count", c, mesh,
                   (const char *[]){"[region.all] velocity", "3 values on a 2D mesh", NULL});
  c = Good2D();
  Velocity(&c->regions[0], 2, (const char *[]){"1/(x-x)", "0"});
  ExpectInputError("velocity not finite", c, mesh,
                   (const char *[]){"[region.all] velocity", "component 1", "node", NULL});
  // an unknown material, a selector with the wrong count, gravity with the wrong count
  c = Good2D();
  AddRegion(c, "water", "water", BLAST_SELECT_ALL, 0, NULL, "1", "1", NULL);
  ExpectInputError("unknown material", c, mesh,
                   (const char *[]){"[region.water] material = water", "[material.water]", NULL});
  c = Good2D();
  AddRegion(c, "box", "gas", BLAST_SELECT_BOX, 3, (double[]){0, 0, 1}, "1", "1", NULL);
  ExpectInputError("box count", c, mesh,
                   (const char *[]){"[region.box] select", "box takes 4 numbers", "got 3", NULL});
  c = Good2D();
  AddRegion(c, "ball", "gas", BLAST_SELECT_SPHERE, 2, (double[]){0, 1}, "1", "1", NULL);
  ExpectInputError("sphere count", c, mesh,
                   (const char *[]){"[region.ball] select", "sphere takes 3 numbers", NULL});
  c = Good2D();
  c->ngravity = 3;
  snprintf(c->gravity_where, sizeof c->gravity_where, "custom.ini:3");
  ExpectInputError("gravity count", c, mesh,
                   (const char *[]){"custom.ini:3", "[problem] gravity", "3 values", NULL});
  // a zone in no region (no region for x > 0.5), an expression that does not parse
  c = Good2D();
  c->regions[0].select.kind = BLAST_SELECT_HALFSPACE, c->regions[0].select.n = 3;
  c->regions[0].select.v[0] = 1, c->regions[0].select.v[1] = 0, c->regions[0].select.v[2] = 0.5;
  ExpectInputError("zone in no region", c, mesh, (const char *[]){"in no region", NULL});
  c = Good2D();
  Expr(&c->regions[0].density, "1+*x");
  ExpectInputError("syntax error", c, mesh,
                   (const char *[]){"[region.all] density", "column", NULL});
  // gravity for a built-in problem
  c = NewConfig(BLAST_PROBLEM_SOD, 1);
  c->ngravity = 2;
  ExpectInputError("gravity, built-in", c, mesh,
                   (const char *[]){"[problem] gravity", "custom only", NULL});
  BlastMeshDestroy(&mesh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  g_meshes = argc > 1 ? argv[1] : "inputs/meshes";
  Sod();
  TriplePoint(2);
  TriplePoint(3);
  Riemann(BLAST_PROBLEM_RIEMANN12);
  Riemann(BLAST_PROBLEM_RIEMANN6);
  Gresho();
  RayleighTaylor();
  Hydrostatic();
  Selectors();
  BadInput();
  const int r = BlastTestFinish("test_custom");
  MPI_Finalize();
  return r;
}
