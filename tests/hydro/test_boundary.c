// Boundary conditions from [boundary.*] sections (hydro/boundary.h, docs/boundaries.md):
//  - sections that write the built-in convention (walls on attributes 1, 2 (, 3) of a box)
//    give the bits of a run without sections;
//  - Sedov in a square (cube) rotated about the origin, walls on every side: the
//    coupled projected PCG on the rotated mesh gives the axis-aligned run rotated
//    (positions to 1e-12 of the box, |e| to 1e-12 relative, a few steps), the corner
//    nodes stay fixed and the velocity on the walls is tangential;
//  - a curved wall of straight faces (quarter annulus): averaged normals radial, v.r = 0;
//  - pistons (type = velocity, 1 and 2t): their nodes follow the prescribed motion;
//  - a boundary attribute named by no section, or by two, or a section naming an
//    attribute the mesh lacks: BLAST_ERR_INPUT naming the attribute (and the mesh file).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blast_mpi.h"
#include "hydro-impl.h"
#include "regression_common.h"
#include "testlib.h"
#ifdef BLAST_HAVE_CUDA
#include "blast_cuda.h"
#endif

// The box [0,1]^dim in n^dim zones, boundary attribute g+1 on the faces normal to axis g,
// the vertices mapped by the rotation R (row-major dim x dim).
static int left_attr = 0;  // > 0: the attribute of the face x = 0 instead (a piston)
static int RotatedBox(int dim, int n, const double *R, BlastMesh *mesh) {
  const int n2 = dim == 3 ? n : 1, nv = (n + 1) * (n + 1) * (dim == 3 ? n + 1 : 1);
  const int nzn = n * n * n2, nc = 1 << dim, nfc = nc / 2;
  double *X = malloc(sizeof(double) * dim * nv);
  int *zv = malloc(sizeof(int) * nc * nzn), *bv = malloc(sizeof(int) * nfc * 2 * dim * nzn);
  int *ba = malloc(sizeof(int) * 2 * dim * nzn), nb = 0;
  for (int v = 0; v < nv; v++) {
    const int i[3] = {v % (n + 1), (v / (n + 1)) % (n + 1), v / ((n + 1) * (n + 1))};
    for (int r = 0; r < dim; r++) {
      double s = 0.0;
      for (int c = 0; c < dim; c++) s += R[r * dim + c] * ((double)i[c] / n);
      X[dim * v + r] = s;
    }
  }
  for (int z = 0; z < nzn; z++) {
    const int i[3] = {z % n, (z / n) % n, z / (n * n)};
    for (int c = 0; c < nc; c++) {
      int v = 0;
      for (int g = dim - 1; g >= 0; g--) v = v * (n + 1) + i[g] + ((c >> g) & 1);
      zv[nc * z + c] = v;
    }
    for (int g = 0; g < dim; g++)
      for (int s = 0; s < 2; s++) {
        if (i[g] != (s ? n - 1 : 0)) continue;
        int k = 0;
        for (int c = 0; c < nc; c++)
          if (((c >> g) & 1) == s) bv[nfc * nb + k++] = zv[nc * z + c];
        ba[nb++] = g == 0 && s == 0 && left_attr > 0 ? left_attr : g + 1;
      }
  }
  const int ierr = BlastMeshCreate(dim, nv, X, nzn, zv, NULL, nb, bv, ba, mesh);
  free(X), free(zv), free(bv), free(ba);
  return ierr;
}

static void Identity(int dim, double *R) {
  for (int i = 0; i < dim * dim; i++) R[i] = i % (dim + 1) == 0 ? 1.0 : 0.0;
}

// 2D: 30 degrees; 3D: 30 degrees about (1, 2, 2)/3 (Rodrigues).
static void Rotation(int dim, double *R) {
  const double a = acos(-1.0) / 6.0, co = cos(a), si = sin(a);
  if (dim == 2) {
    R[0] = co, R[1] = -si, R[2] = si, R[3] = co;
    return;
  }
  const double k[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3};
  const double K[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0};
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      double kk = 0.0;
      for (int m = 0; m < 3; m++) kk += K[3 * r + m] * K[3 * m + c];
      R[3 * r + c] = (r == c) + si * K[3 * r + c] + (1.0 - co) * kk;
    }
}

// Walls on every side: one section naming attributes 1..dim.
static void WallSections(BlastConfig *cfg, int dim) {
  cfg->nboundaries = 1;
  BlastBoundarySpec *b = &cfg->boundaries[0];
  memset(b, 0, sizeof *b);
  snprintf(b->name, sizeof b->name, "walls");
  snprintf(b->where, sizeof b->where, "test.ini:7");
  b->type = BLAST_BOUNDARY_WALL;
  b->nattr = dim;
  for (int g = 0; g < dim; g++) b->attr[g] = g + 1;
}

typedef struct {
  BlastHydro h;
  double *x, *v, *e;
} Run;

static const BlastBackendOps *backend = &blast_backend_cpu;  // `cuda`: the CUDA backend
static int assembly = BLAST_ASSEMBLY_DEFAULT;                // of the next runs

static void RunSedov(int dim, int n, const double *R, int sections, int steps, Run *out) {
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  cfg.max_steps = steps;
  cfg.assembly = assembly;
  snprintf(cfg.mesh_file, sizeof cfg.mesh_file, "rotated_box.mesh");
  if (sections) WallSections(&cfg, dim);
  BlastMesh mesh = NULL;
  TEST_CALL(RotatedBox(dim, n, R, &mesh));
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, backend, &out->h));
  TEST_CALL(BlastHydroRun(out->h, NULL, NULL));
  out->x = malloc(sizeof(double) * (out->h->nx + 1));
  out->v = malloc(sizeof(double) * (out->h->nx + 1));
  out->e = malloc(sizeof(double) * (out->h->ne + 1));
  TEST_CALL(BlastHydroGetState(out->h, out->x, out->v, out->e));
  TEST_CALL(BlastMeshDestroy(&mesh));
}

static void RunFree(Run *r) {
  free(r->x), free(r->v), free(r->e);
  TEST_CALL(BlastHydroDestroy(&r->h));
}

static void SameBits(const char *what, const double *a, const double *b, size_t n) {
  size_t bad = n;
  for (size_t i = 0; i < n && bad == n; i++)
    if (memcmp(&a[i], &b[i], sizeof(double)) != 0) bad = i;
  TEST_ASSERT(bad == n, "%s: entry %zu of %zu: %.17g != %.17g", what, bad, n,
              bad < n ? a[bad] : 0.0, bad < n ? b[bad] : 0.0);
}

// Sections writing the built-in convention: the built-in run's bits (both PCGs' choice
// stays the lockstep one).
static void CaseConventionBits(int dim, int n) {
  double I[9];
  Identity(dim, I);
  Run a, b;
  RunSedov(dim, n, I, 0, 4, &a);
  RunSedov(dim, n, I, 1, 4, &b);
  TEST_ASSERT(!a.h->coupled_cg && !b.h->coupled_cg, "%dD: an axis-aligned box uses the coupled PCG",
              dim);
  char what[96];
  snprintf(what, sizeof what, "%dD sections = built-in convention: x", dim);
  SameBits(what, a.x, b.x, a.h->nx);
  snprintf(what, sizeof what, "%dD sections = built-in convention: v", dim);
  SameBits(what, a.v, b.v, a.h->nx);
  snprintf(what, sizeof what, "%dD sections = built-in convention: e", dim);
  SameBits(what, a.e, b.e, a.h->ne);
  printf("PASS %dD: [boundary.walls] attributes 1..%d = the built-in convention, bit for bit\n",
         dim, dim);
  RunFree(&a), RunFree(&b);
}

// The rotated box against the axis-aligned one rotated.
static void CaseRotated(int dim, int n, int steps) {
  double I[9], R[9];
  Identity(dim, I);
  Rotation(dim, R);
  Run a, b;
  RunSedov(dim, n, I, 1, steps, &a);
  RunSedov(dim, n, R, 1, steps, &b);
  TEST_ASSERT(b.h->coupled_cg && b.h->bc.nproj > 0, "%dD rotated: no wall normals", dim);
  double t_a, t_b, dt;
  int s_a, s_b, at;
  BlastHydroGetProgress(a.h, &t_a, &dt, &s_a, &at);
  BlastHydroGetProgress(b.h, &t_b, &dt, &s_b, &at);
  TEST_ASSERT(s_a == s_b && s_a >= steps && fabs(t_a - t_b) <= 1e-12 * t_a,
              "%dD rotated: %d and %d steps to t = %.17g and %.17g", dim, s_a, s_b, t_a, t_b);
  const size_t nl = (size_t)a.h->space->h1_nl;
  double dx = 0.0, de = 0.0, dv = 0.0, vmax = 0.0, emax = 0.0;
  for (size_t l = 0; l < nl; l++)
    for (int r = 0; r < dim; r++) {
      double xr = 0.0, vr = 0.0;
      for (int c = 0; c < dim; c++)
        xr += R[r * dim + c] * a.x[c * nl + l], vr += R[r * dim + c] * a.v[c * nl + l];
      dx = fmax(dx, fabs(xr - b.x[r * nl + l]));
      dv = fmax(dv, fabs(vr - b.v[r * nl + l]));
      vmax = fmax(vmax, fabs(vr));
    }
  for (size_t i = 0; i < a.h->ne; i++)
    de = fmax(de, fabs(a.e[i] - b.e[i])), emax = fmax(emax, fabs(a.e[i]));
  double en_a, en_b;
  TEST_CALL(BlastHydroENorm(a.h, &en_a));
  TEST_CALL(BlastHydroENorm(b.h, &en_b));
  printf(
      "%dD rotated by 30 degrees, %d steps: max |x - R x_aligned| = %.2e, max |v - R "
      "v_aligned| / max |v| = %.2e, max |e - e_aligned| / max |e| = %.2e, |e| %.17g vs "
      "%.17g\n",
      dim, steps, dx, dv / vmax, de / emax, en_b, en_a);
  TEST_ASSERT(dx <= 1e-12, "%dD rotated: positions differ by %.3e", dim, dx);
  TEST_ASSERT(fabs(en_a - en_b) <= 1e-12 * en_a, "%dD rotated: |e| %.17g vs %.17g", dim, en_b,
              en_a);
  TEST_ASSERT(de <= 1e-11 * emax, "%dD rotated: e differs by %.3e of max |e|", dim, de / emax);
  // the corners (the rotated box's vertices) fixed; on the walls v.n = 0
  const double *x0 = b.h->x0_host;
  int corners = 0;
  double vn = 0.0;
  for (size_t l = 0; l < nl; l++) {
    double u[3] = {0, 0, 0};  // the node's position in the unrotated box: R^T x0
    for (int c = 0; c < dim; c++)
      for (int r = 0; r < dim; r++) u[c] += R[r * dim + c] * x0[r * nl + l];
    int on = 0;
    for (int c = 0; c < dim; c++) on += fabs(u[c]) < 1e-12 || fabs(u[c] - 1.0) < 1e-12;
    if (on == dim) {
      corners += l < (size_t)b.h->space->h1_nown;
      for (int c = 0; c < dim; c++)
        TEST_ASSERT(b.v[c * nl + l] == 0.0, "%dD rotated: a corner moves (v = %.3e)", dim,
                    b.v[c * nl + l]);
    }
    for (int g = 0; g < dim; g++)  // the walls normal to the rotated axis g
      if (fabs(u[g]) < 1e-12 || fabs(u[g] - 1.0) < 1e-12) {
        double s = 0.0;
        for (int r = 0; r < dim; r++) s += R[r * dim + g] * b.v[r * nl + l];
        vn = fmax(vn, fabs(s));
      }
  }
  MPI_Allreduce(MPI_IN_PLACE, &corners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  TEST_ASSERT(corners == 1 << dim, "%dD rotated: %d corner nodes found", dim, corners);
  TEST_ASSERT(vn <= 1e-13 * vmax, "%dD rotated: v.n = %.3e on a wall", dim, vn);
  printf(
      "PASS %dD rotated: the axis-aligned run rotated; %d corners fixed; |v.n| <= %.1e on "
      "the walls\n",
      dim, corners, vn);
  RunFree(&a), RunFree(&b);
}

// Sections that do not match the mesh: the error and its message.
static void ExpectInputError(const char *what, BlastConfig *cfg, int dim, const char *needle1,
                             const char *needle2) {
  BlastMesh mesh = NULL;
  double I[9];
  Identity(dim, I);
  TEST_CALL(RotatedBox(dim, 2, I, &mesh));
  BlastHydro h = NULL;
  const int ierr = BlastHydroCreate(cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h);
  const char *msg = BlastErrorMessage();
  TEST_ASSERT(ierr == BLAST_ERR_INPUT && h == NULL, "%s: returned %d", what, ierr);
  TEST_ASSERT(strstr(msg, needle1) && (!needle2 || strstr(msg, needle2)),
              "%s: message '%s' lacks '%s' or '%s'", what, msg, needle1, needle2 ? needle2 : "");
  printf("PASS %s: %s\n", what, msg);
  BlastErrorClear();
  TEST_CALL(BlastMeshDestroy(&mesh));
}

static void CaseHostile(void) {
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  snprintf(cfg.mesh_file, sizeof cfg.mesh_file, "square.mesh");
  snprintf(cfg.deck_path, sizeof cfg.deck_path, "test.ini");
  WallSections(&cfg, 2);
  cfg.boundaries[0].nattr = 1;  // attribute 2 named by no section
  ExpectInputError("an attribute named by no section", &cfg, 2, "attribute 2", "square.mesh");
  WallSections(&cfg, 2);
  cfg.boundaries[0].attr[cfg.boundaries[0].nattr++] = 5;  // not in the mesh
  ExpectInputError("an attribute the mesh lacks", &cfg, 2, "attribute 5", "square.mesh");
  WallSections(&cfg, 2);
  cfg.nboundaries = 2;
  cfg.boundaries[1] = cfg.boundaries[0];
  snprintf(cfg.boundaries[1].name, sizeof cfg.boundaries[1].name, "again");
  cfg.boundaries[1].nattr = 1;
  ExpectInputError("an attribute named twice", &cfg, 2, "attribute 1", "[boundary.again]");
  WallSections(&cfg, 2);
  cfg.boundaries[0].type = BLAST_BOUNDARY_VELOCITY;
  cfg.boundaries[0].nvelocity = 1;
  snprintf(cfg.boundaries[0].velocity[0].text, BLAST_EXPR_MAX, "1");
  ExpectInputError("a piston with 1 of 2 components", &cfg, 2, "[boundary.walls] velocity", "2D");
  WallSections(&cfg, 2);
  cfg.boundaries[0].type = BLAST_BOUNDARY_VELOCITY;
  cfg.boundaries[0].nvelocity = 2;
  snprintf(cfg.boundaries[0].velocity[0].text, BLAST_EXPR_MAX, "1+");
  snprintf(cfg.boundaries[0].velocity[0].where, BLAST_WHERE_MAX, "test.ini:9");
  snprintf(cfg.boundaries[0].velocity[1].text, BLAST_EXPR_MAX, "0");
  ExpectInputError("a velocity that does not parse", &cfg, 2, "test.ini:9",
                   "[boundary.walls] velocity");
  WallSections(&cfg, 2);
  cfg.boundaries[0].type = BLAST_BOUNDARY_FREE;
  cfg.boundaries[0].nvelocity = 2;
  ExpectInputError("a velocity on a free boundary", &cfg, 2, "[boundary.walls] velocity",
                   "type = free");
}

// A piston: the face x = 0 (attribute 4) moves at velocity (1, 0) into Sod's gas, walls
// elsewhere. Its nodes (the corners included: velocity over wall) keep v = (1, 0) exactly
// from the start and move by t; the wall y = 0 keeps v_y = 0.
static void CasePiston(const char *vx, double accel) {
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SOD);
  cfg.max_steps = 4;
  WallSections(&cfg, 2);
  cfg.nboundaries = 2;
  BlastBoundarySpec *p = &cfg.boundaries[1];
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "piston");
  p->type = BLAST_BOUNDARY_VELOCITY;
  p->nattr = 1, p->attr[0] = 4;
  p->nvelocity = 2;
  snprintf(p->velocity[0].text, BLAST_EXPR_MAX, "%s", vx);
  snprintf(p->velocity[1].text, BLAST_EXPR_MAX, "0");
  double I[4];
  Identity(2, I);
  BlastMesh mesh = NULL;
  left_attr = 4;
  TEST_CALL(RotatedBox(2, 4, I, &mesh));
  left_attr = 0;
  Run r;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &r.h));
  const size_t nl = (size_t)r.h->space->h1_nl;
  r.x = malloc(sizeof(double) * (r.h->nx + 1)), r.v = malloc(sizeof(double) * (r.h->nx + 1));
  r.e = malloc(sizeof(double) * (r.h->ne + 1));
  TEST_CALL(BlastHydroGetState(r.h, r.x, r.v, r.e));
  int np = 0;
  for (size_t l = 0; l < nl; l++)
    if (r.x[l] == 0.0) {
      np += l < (size_t)r.h->space->h1_nown;
      TEST_ASSERT(r.v[l] == (accel ? 0.0 : 1.0) && r.v[nl + l] == 0.0, "piston: initial v (%g, %g)",
                  r.v[l], r.v[nl + l]);
    }
  TEST_CALL(BlastHydroRun(r.h, NULL, NULL));
  TEST_CALL(BlastHydroGetState(r.h, r.x, r.v, r.e));
  double t, dt, dx = 0.0, vy = 0.0;
  int steps, at;
  BlastHydroGetProgress(r.h, &t, &dt, &steps, &at);
  const double *x0 = r.h->x0_host;
  for (size_t l = 0; l < nl; l++) {
    if (x0[l] == 0.0) {
      // v = 1 (x = t) or v = accel t (x = accel t^2 / 2): exact under RK4 but for the
      // difference quotient's round-off
      const double vx_ex = accel ? accel * t : 1.0, x_ex = accel ? 0.5 * accel * t * t : t;
      TEST_ASSERT(fabs(r.v[l] - vx_ex) <= 1e-11 && r.v[nl + l] == 0.0,
                  "piston: v (%.17g, %g) at t = %g, expected %.17g", r.v[l], r.v[nl + l], t, vx_ex);
      dx = fmax(dx, fmax(fabs(r.x[l] - x_ex), fabs(r.x[nl + l] - x0[nl + l])));
    } else if (x0[nl + l] == 0.0) {
      vy = fmax(vy, fabs(r.v[nl + l]));
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &np, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  TEST_ASSERT(np == 4 * 2 + 1 && dx <= 1e-13 && vy == 0.0,
              "piston: %d nodes, moved by t to %.2e, v_y on the wall %.2e", np, dx, vy);
  printf(
      "PASS piston v = (%s, 0): %d nodes (corners too) follow it to t = %.4f, positions to "
      "%.1e; the wall y = 0 keeps v_y = 0\n",
      vx, np, t, dx);
  RunFree(&r);
  TEST_CALL(BlastMeshDestroy(&mesh));
}

// A quarter annulus 0.5 <= r <= 1, 0 <= theta <= pi/2 in nr x nt zones (straight-sided):
// attributes 1, 2 on the inner and outer arcs, 3, 4 on the sides theta = 0, pi/2.
static int QuarterAnnulus(int nr, int nt, BlastMesh *mesh) {
  const int nv = (nr + 1) * (nt + 1), nzn = nr * nt;
  double *X = malloc(sizeof(double) * 2 * nv);
  int *zv = malloc(sizeof(int) * 4 * nzn), *bv = malloc(sizeof(int) * 2 * 2 * (nr + nt));
  int *ba = malloc(sizeof(int) * 2 * (nr + nt)), nb = 0;
  for (int j = 0; j <= nt; j++)
    for (int i = 0; i <= nr; i++) {
      const double r = 0.5 + 0.5 * i / nr, th = acos(-1.0) / 2 * j / nt;
      X[2 * (j * (nr + 1) + i)] = j == nt ? 0.0 : r * cos(th);
      X[2 * (j * (nr + 1) + i) + 1] = j == 0 ? 0.0 : r * sin(th);
    }
  for (int j = 0; j < nt; j++)
    for (int i = 0; i < nr; i++) {
      int *z = &zv[4 * (j * nr + i)];
      z[0] = j * (nr + 1) + i, z[1] = z[0] + 1, z[2] = z[0] + nr + 1, z[3] = z[2] + 1;
      if (i == 0) bv[2 * nb] = z[0], bv[2 * nb + 1] = z[2], ba[nb++] = 1;
      if (i == nr - 1) bv[2 * nb] = z[1], bv[2 * nb + 1] = z[3], ba[nb++] = 2;
      if (j == 0) bv[2 * nb] = z[0], bv[2 * nb + 1] = z[1], ba[nb++] = 3;
      if (j == nt - 1) bv[2 * nb] = z[2], bv[2 * nb + 1] = z[3], ba[nb++] = 4;
    }
  const int ierr = BlastMeshCreate(2, nv, X, nzn, zv, NULL, nb, bv, ba, mesh);
  free(X), free(zv), free(bv), free(ba);
  return ierr;
}

// The unit normal at arc vertex l of the quarter annulus in the current positions x: per
// adjacent face (the nodes on the initial chord from l to the next vertex at angle th +-
// dth, radius rad) the derivative of the face's H1 field at l along the chord (the
// Lagrange polynomials of the nodes' chord parameters), turned by 90 degrees; the two
// unit normals (oriented alike) summed, normalised. 0: a face's nodes not all local.
static int CurrentArcNormal(const double *x0, const double *x, size_t nl, size_t l, double rad,
                            double th, double dth, double *n) {
  n[0] = n[1] = 0.0;
  for (int side = -1; side <= 1; side += 2) {
    const double tb = th + side * dth;
    const double A[2] = {x0[l], x0[nl + l]}, B[2] = {rad * cos(tb), rad * sin(tb)};
    double sp[16];
    size_t id[16];
    int m = 0;
    for (size_t q = 0; q < nl && m < 16; q++) {
      const double dx = x0[q] - A[0], dy = x0[nl + q] - A[1];
      const double ex = B[0] - A[0], ey = B[1] - A[1], len2 = ex * ex + ey * ey;
      const double sq = (dx * ex + dy * ey) / len2;
      if (sq < -1e-12 || sq > 1 + 1e-12 || fabs(dx * ey - dy * ex) > 1e-12 * len2) continue;
      sp[m] = sq, id[m++] = q;
    }
    if (m < 2) return 0;
    double t[2] = {0, 0};
    int a = 0;
    for (int i = 0; i < m; i++)
      if (sp[i] < sp[a]) a = i;
    for (int i = 0; i < m; i++) {  // L_i'(s_a)
      double d = 0.0;
      if (i == a) {
        for (int j = 0; j < m; j++)
          if (j != a) d += 1.0 / (sp[a] - sp[j]);
      } else {
        double num = 1.0, den = 1.0;
        for (int j = 0; j < m; j++) {
          if (j != i) den *= sp[i] - sp[j];
          if (j != i && j != a) num *= sp[a] - sp[j];
        }
        d = num / den;
      }
      t[0] += d * x[id[i]], t[1] += d * x[nl + id[i]];
    }
    const double len = sqrt(t[0] * t[0] + t[1] * t[1]);
    n[0] += side * t[1] / len, n[1] -= side * t[0] / len;
  }
  const double len = sqrt(n[0] * n[0] + n[1] * n[1]);
  n[0] /= len, n[1] /= len;
  return 1;
}

// Curved walls of straight faces (the sharp-angle rule): Taylor-Green's vortex in a quarter
// annulus with walls all round. At the arcs' vertices the two faces differ by 90/nt < 30
// degrees: one smooth wall, whose averaged normal is the radial direction there (by
// symmetry): v.r = 0 to round-off from the start; after the steps the nodes have slid and
// the normals follow the current faces (of the H1 positions): v.n = 0 for n the current
// averaged normal (CurrentArcNormal), to the time integration's error; the four corners
// (arc meets side at 90 degrees) are fixed.
static void CaseCurvedWall(void) {
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_TAYLOR_GREEN);
  cfg.max_steps = 5;
  WallSections(&cfg, 2);
  cfg.boundaries[0].nattr = 4;
  cfg.boundaries[0].attr[2] = 3, cfg.boundaries[0].attr[3] = 4;
  BlastMesh mesh = NULL;
  TEST_CALL(QuarterAnnulus(3, 8, &mesh));
  Run r;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, backend, &r.h));
  const size_t nl = (size_t)r.h->space->h1_nl;
  r.x = malloc(sizeof(double) * (r.h->nx + 1)), r.v = malloc(sizeof(double) * (r.h->nx + 1));
  r.e = malloc(sizeof(double) * (r.h->ne + 1));
  TEST_ASSERT(r.h->coupled_cg, "curved wall: the lockstep PCG");
  for (int pass = 0; pass < 2; pass++) {
    if (pass) TEST_CALL(BlastHydroRun(r.h, NULL, NULL));
    TEST_CALL(BlastHydroGetState(r.h, r.x, r.v, r.e));
    const double *x0 = r.h->x0_host;
    double vr = 0.0, vmax = 0.0;
    int arc = 0, corners = 0;
    for (size_t l = 0; l < nl; l++) {
      const double X = x0[l], Y = x0[nl + l], rad = sqrt(X * X + Y * Y);
      vmax = fmax(vmax, fmax(fabs(r.v[l]), fabs(r.v[nl + l])));
      if (fabs(rad - 1.0) > 1e-14 && fabs(rad - 0.5) > 1e-14) continue;  // arcs' vertices
      if (X == 0.0 || Y == 0.0) {
        corners += l < (size_t)r.h->space->h1_nown;
        TEST_ASSERT(r.v[l] == 0.0 && r.v[nl + l] == 0.0, "curved wall: a corner moves");
        continue;
      }
      arc += l < (size_t)r.h->space->h1_nown;
      double nrm[2] = {X / rad, Y / rad};
      if (pass && !CurrentArcNormal(x0, r.x, nl, l, fabs(rad - 1.0) <= 1e-14 ? 1.0 : 0.5,
                                    atan2(Y, X), acos(-1.0) / 2 / 8, nrm))
        continue;  // a face of another rank's
      vr = fmax(vr, fabs(r.v[l] * nrm[0] + r.v[nl + l] * nrm[1]));
    }
    MPI_Allreduce(MPI_IN_PLACE, &arc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &corners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &vr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double tol = pass ? 1e-5 : 1e-14;  // after: 1.0e-6 seen
    TEST_ASSERT(arc == 2 * 7 && corners == 4 && vr <= tol * vmax,
                "curved wall (%s): %d arc vertices, %d corners, max |v.n| = %.3e of max |v| %.3e",
                pass ? "after the steps" : "initial", arc, corners, vr, vmax);
    printf(
        "PASS curved wall (%s): |v.n| / max |v| = %.1e at the %d arc vertices, %d corners "
        "fixed\n",
        pass ? "after 5 steps" : "initial", vr / vmax, arc, corners);
  }
  RunFree(&r);
  TEST_CALL(BlastMeshDestroy(&mesh));
}

#ifdef BLAST_HAVE_CUDA
// The rotated runs (the coupled projected PCG) on the CUDA backend: the CPU backend's bits.
static void CaseGpuEqualsCpu(int dim, int n, int steps) {
  double R[9];
  Rotation(dim, R);
  Run g, c;
  RunSedov(dim, n, R, 1, steps, &g);
  const BlastBackendOps *dev = backend;
  backend = &blast_backend_cpu;
  RunSedov(dim, n, R, 1, steps, &c);
  backend = dev;
  char what[96];
  snprintf(what, sizeof what, "%dD rotated, %s = cpu: x", dim, dev->name);
  SameBits(what, g.x, c.x, g.h->nx);
  snprintf(what, sizeof what, "%dD rotated, %s = cpu: v", dim, dev->name);
  SameBits(what, g.v, c.v, g.h->nx);
  snprintf(what, sizeof what, "%dD rotated, %s = cpu: e", dim, dev->name);
  SameBits(what, g.e, c.e, g.h->ne);
  printf("%dD rotated (coupled projected PCG), %d steps: %s = cpu bit for bit checked\n", dim,
         steps, dev->name);
  RunFree(&g), RunFree(&c);
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && !strcmp(argv[1], "cuda")) {
#ifdef BLAST_HAVE_CUDA
    if (BlastCudaDeviceCount() <= 0) {
      printf("test_boundary: no CUDA device: skipped\n");
      MPI_Finalize();
      return 77;
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    BlastGpuInfo info;
    TEST_CALL(BlastCudaSelectDevice(rank, &info));
    BlastGpuOptions opt;
    memset(&opt, 0, sizeof opt);
    opt.autotune = BLAST_AUTOTUNE_OFF;
    BlastCudaSetOptions(&opt);
    backend = &blast_backend_cuda;
    CaseRotated(2, 6, 5);
    CaseRotated(3, 3, 3);
    CaseGpuEqualsCpu(2, 6, 5);
    CaseGpuEqualsCpu(3, 3, 3);
    CaseCurvedWall();
    assembly = BLAST_ASSEMBLY_FULL;
    CaseRotated(2, 6, 5);
    CaseGpuEqualsCpu(2, 6, 5);
    const int r = BlastTestFinish("test_boundary cuda");
    MPI_Finalize();
    return r;
#else
    printf("test_boundary: built without the CUDA backend: skipped\n");
    MPI_Finalize();
    return 77;
#endif
  }
  CaseConventionBits(2, 4);
  CaseConventionBits(3, 2);
  CaseRotated(2, 6, 5);
  CaseRotated(3, 3, 3);
  assembly = BLAST_ASSEMBLY_FULL;  // the assembled mass matrix too
  CaseRotated(2, 6, 5);
  assembly = BLAST_ASSEMBLY_DEFAULT;
  CaseCurvedWall();
  CaseHostile();
  CasePiston("1", 0.0);
  CasePiston("2*t", 2.0);
  const int r = BlastTestFinish("test_boundary");
  MPI_Finalize();
  return r;
}
