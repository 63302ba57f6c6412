// Point sources ([source.NAME] energy, point; hydro/problems/sources.h) on the Sedov
// problem (density 1, no initial energy):
//  - a source at the origin with E0/2^dim gives the built-in deposit's bits (the same
//    initial energy coefficients, so the same run);
//  - a point inside a zone, on a face, on an edge (3D) and at an interior vertex deposits
//    exactly `energy` (the internal energy of the state, to round-off) in exactly the
//    zones whose closure holds the point (1, 2, 4 (3D edge), 2^dim zones), and nowhere
//    else; the energy is the hand-set number, not the code's;
//  - two sources add up;
//  - a point outside the mesh, a negative energy are input errors naming the source and
//    its deck line.
// Usage: test_sources (one rank or several).
#include <math.h>
#include <string.h>

#include "backend.h"
#include "blast_mpi.h"
#include "io_test_meshes.h"
#include "regression_common.h"
#include "testlib.h"

enum { kN = 4 };  // zones per direction of the unit box

static void AddSource(BlastConfig *cfg, const char *name, double energy, double x, double y,
                      double z) {
  BlastSourceSpec *s = &cfg->sources[cfg->nsources++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  snprintf(s->where, sizeof s->where, "sources.ini:%d", 10 + cfg->nsources);
  s->kind = BLAST_SOURCE_POINT;
  s->energy = energy;
  s->npoint = cfg->mesh_dim;
  s->point[0] = x, s->point[1] = y, s->point[2] = z;
}

// Initial internal energy of h and the number of zones (all ranks) with energy.
static void Deposited(BlastHydro h, double *ie, long *nzones) {
  double en, ke;
  TEST_CALL(BlastHydroNorms(h, &en, ie, &ke));
  const BlastSpace *s = BlastHydroGetSpace(h);
  const int ne = s->l2_nd;
  double *e = NULL;
  TEST_CALL(BlastMalloc((size_t)s->nz * ne + 1, &e));
  long mine = 0;
  TEST_CALL(BlastHydroGetState(h, NULL, NULL, e));
  for (int z = 0; z < s->nz; z++) {
    int any = 0;
    for (int j = 0; j < ne; j++) any |= e[(size_t)z * ne + j] != 0.0;
    mine += any;
  }
  MPI_Allreduce(&mine, nzones, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  BlastFree(&e);
}

// The initial energy coefficients of a run, gathered in global zone order.
static double *GlobalEnergy(BlastHydro h, long *n) {
  const BlastSpace *s = BlastHydroGetSpace(h);
  const int ne = s->l2_nd;
  const long nglob = (long)s->nz_global * ne;
  double *e = NULL, *mine = NULL, *all = NULL;
  TEST_CALL(BlastMalloc((size_t)s->nz * ne + 1, &e));
  TEST_CALL(BlastCalloc((size_t)nglob, &mine));
  TEST_CALL(BlastCalloc((size_t)nglob, &all));
  TEST_CALL(BlastHydroGetState(h, NULL, NULL, e));
  for (int z = 0; z < s->nz; z++)
    for (int j = 0; j < ne; j++) mine[(size_t)s->zone_gid[z] * ne + j] = e[(size_t)z * ne + j];
  MPI_Allreduce(mine, all, (int)nglob, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  BlastFree(&e);
  BlastFree(&mine);
  *n = nglob;
  return all;
}

static void BuiltinBits(int dim, BlastMesh mesh) {
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  cfg.mesh_dim = dim;
  BlastHydro a = NULL, b = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &a));
  AddSource(&cfg, "blast", dim == 2 ? 0.25 : 0.125, 0.0, 0.0, 0.0);
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &b));
  if (!a || !b) return;
  long na, nb;
  double *ea = GlobalEnergy(a, &na), *eb = GlobalEnergy(b, &nb);
  TEST_ASSERT(na == nb && !memcmp(ea, eb, (size_t)na * sizeof *ea),
              "%dD: the source at the origin does not give the built-in deposit's bits", dim);
  BlastFree(&ea);
  BlastFree(&eb);
  BlastHydroDestroy(&a);
  BlastHydroDestroy(&b);
}

static void Check(int dim, BlastMesh mesh, const char *what, int nsrc, const double *pts,
                  const double *energy, long zones) {
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  cfg.mesh_dim = dim;
  double total = 0.0;
  for (int i = 0; i < nsrc; i++) {
    AddSource(&cfg, "s", energy[i], pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
    total += energy[i];
  }
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  if (!h) return;
  double ie;
  long nz;
  Deposited(h, &ie, &nz);
  TEST_ASSERT(fabs(ie - total) <= 1e-14 * total, "%dD %s: deposited %.17g, expected %.17g", dim,
              what, ie, total);
  TEST_ASSERT(nz == zones, "%dD %s: energy in %ld zones, expected %ld", dim, what, nz, zones);
  printf("%dD %s: energy %.17g (expected %.17g) in %ld zones\n", dim, what, ie, total, nz);
  BlastHydroDestroy(&h);
}

static void Outside(int dim, BlastMesh mesh) {
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  cfg.mesh_dim = dim;
  AddSource(&cfg, "neg", -1.0, 0.5, 0.5, 0.5);
  BlastHydro hn = NULL;
  const int ineg = BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &hn);
  const char *mneg = BlastErrorMessage();
  TEST_ASSERT(ineg == BLAST_ERR_INPUT && mneg && strstr(mneg, "[source.neg] energy"),
              "%dD: a negative energy gave %d '%s'", dim, ineg, mneg ? mneg : "");
  BlastHydroDestroy(&hn);
  cfg.nsources = 0;
  AddSource(&cfg, "far", 1.0, 0.5, 1.25, 0.5);
  BlastHydro h = NULL;
  const int ierr = BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h);
  TEST_ASSERT(ierr == BLAST_ERR_INPUT, "%dD: a point outside the mesh gave %d", dim, ierr);
  const char *msg = BlastErrorMessage();
  TEST_ASSERT(msg && strstr(msg, "sources.ini:11") && strstr(msg, "[source.far] point") &&
                  strstr(msg, "outside the mesh"),
              "%dD: message '%s'", dim, msg ? msg : "");
  BlastHydroDestroy(&h);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  for (int dim = 2; dim <= 3; dim++) {
    BlastMesh mesh;
    TEST_CALL(TestUnitBoxMesh(dim, kN, &mesh));
    BuiltinBits(dim, mesh);
    const double e1 = 0.7, e2[2] = {0.3, 1.9};
    const double inside[3] = {0.3, 0.4, 0.6}, face[3] = {0.5, 0.3, 0.6}, edge[3] = {0.5, 0.75, 0.6},
                 vertex[3] = {0.5, 0.75, 0.25}, corner[3] = {1.0, 1.0, 1.0};
    Check(dim, mesh, "point inside a zone", 1, inside, &e1, 1);
    Check(dim, mesh, "point on a face", 1, face, &e1, 2);
    if (dim == 3) Check(dim, mesh, "point on an edge", 1, edge, &e1, 4);
    Check(dim, mesh, "point at an interior vertex", 1, vertex, &e1, 1L << dim);
    Check(dim, mesh, "point at the mesh's far corner", 1, corner, &e1, 1);
    const double two[6] = {0.3, 0.4, 0.6, 0.5, 0.75, 0.25};
    Check(dim, mesh, "two sources", 2, two, e2, 1 + (1L << dim));
    Outside(dim, mesh);
    BlastMeshDestroy(&mesh);
  }
  const int r = BlastTestFinish("test_sources");
  MPI_Finalize();
  return r;
}
