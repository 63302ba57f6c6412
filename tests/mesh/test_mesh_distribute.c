// A mesh read once and sent to every rank (io/meshdist.h), and the part of the checkpoint
// mesh fingerprint that element types, curved nodes and attribute names add
// (BlastMeshFingerprintExtra). Run on 3 ranks:
//  (a) BlastMeshBcast of a mixed triangle/quadrilateral mesh with names and of a curved
//      quadratic quadrilateral: every rank builds the expected arrays itself and compares
//      them with BlastMeshDescribe of the mesh it received;
//  (b) BlastMeshReadShared: rank 0 writes a mesh file and is the only rank given its path
//      (the others pass a path that does not exist, so opening it there would fail); a
//      malformed and a missing file: every rank returns BLAST_ERR_INPUT with rank 0's
//      message;
//  (c) the fingerprint extra: 0 for straight quadrilateral meshes without names (their
//      checkpoints keep their fingerprints), and different for meshes that differ only in
//      an element type, a curved node or a name; the same for names listed in another order.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "checkpoint_header.h"
#include "meshdist.h"
#include "meshio.h"
#include "testlib.h"

// The square [0,2]x[0,1]: a quadrilateral on [0,1]^2 and two triangles on [1,2]x[0,1].
static const double kCoords[] = {0, 0, 1, 0, 2, 0, 0, 1, 1, 1, 2, 1};
static const int kZoneVerts[] = {0, 1, 3, 4, 1, 2, 5, -1, 1, 5, 4, -1};
static const int kTriVerts[] = {0, 1, 4, -1, 0, 4, 3, -1, 1, 2, 5, -1, 1, 5, 4, -1};
static const unsigned char kZoneGeom[] = {BLAST_GEOM_SQUARE, BLAST_GEOM_TRIANGLE,
                                          BLAST_GEOM_TRIANGLE};
static const unsigned char kTriGeom[] = {BLAST_GEOM_TRIANGLE, BLAST_GEOM_TRIANGLE,
                                         BLAST_GEOM_TRIANGLE, BLAST_GEOM_TRIANGLE};
static const int kZoneAttr[] = {1, 2, 2, 2};
static const int kBdrVerts[] = {0, 1, 1, 2, 2, 5, 4, 5, 3, 4, 0, 3};
static const unsigned char kBdrGeom[] = {1, 1, 1, 1, 1, 1};
static const int kBdrAttr[] = {1, 1, 2, 3, 3, 4};

static BlastMeshDesc Mixed(const BlastMeshName *names, int nnames) {
  return (BlastMeshDesc){.dim = 2,
                         .nverts = 6,
                         .nzones = 3,
                         .nbdr = 6,
                         .coords = kCoords,
                         .zone_verts = kZoneVerts,
                         .zone_geom = kZoneGeom,
                         .zone_attr = kZoneAttr,
                         .bdr_verts = kBdrVerts,
                         .bdr_geom = kBdrGeom,
                         .bdr_attr = kBdrAttr,
                         .nnames = nnames,
                         .names = names};
}

// One quadratic quadrilateral on [0,1]^2 whose top edge bulges to y = 1 + bulge.
typedef struct {
  double coords[8], nodes[18];
  int zone_nodes[9];
} Curved;
static BlastMeshDesc CurvedQuad(Curved *c, double bulge) {
  static const int zv[] = {0, 1, 2, 3}, bv[] = {0, 1, 1, 3, 2, 3, 0, 2}, ba[] = {1, 1, 1, 1};
  const double v[8] = {0, 0, 1, 0, 0, 1, 1, 1};
  memcpy(c->coords, v, sizeof v);
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++) {
      c->nodes[2 * (i + 3 * j)] = 0.5 * i;
      c->nodes[2 * (i + 3 * j) + 1] = 0.5 * j + (j == 2 && i == 1 ? bulge : 0.0);
      c->zone_nodes[i + 3 * j] = i + 3 * j;
    }
  return (BlastMeshDesc){.dim = 2,
                         .nverts = 4,
                         .nzones = 1,
                         .nbdr = 4,
                         .coords = c->coords,
                         .zone_verts = zv,
                         .bdr_verts = bv,
                         .bdr_attr = ba,
                         .curve_order = 2,
                         .nnodes = 9,
                         .node_coords = c->nodes,
                         .zone_nodes = c->zone_nodes};
}

#define SAME(what, a, b, n)                                                           \
  TEST_ASSERT(((a) == NULL && (b) == NULL) || ((a) && (b) && !memcmp((a), (b), (n))), \
              "%s: %s differs from the mesh sent", name, what)

// The mesh `got` has exactly the arrays of `e` (missing optional arrays: their defaults).
static void Compare(const char *name, BlastMesh got, const BlastMeshDesc *e) {
  BlastMeshDesc d;
  BlastMeshDescribe(got, &d);
  TEST_ASSERT(d.dim == e->dim && d.nverts == e->nverts && d.nzones == e->nzones &&
                  d.nbdr == e->nbdr && d.nnames == e->nnames,
              "%s: sizes differ", name);
  if (d.dim != e->dim || d.nzones != e->nzones || d.nbdr != e->nbdr || d.nnames != e->nnames)
    return;
  const size_t nzv = (size_t)e->nzones << e->dim, nbv = (size_t)e->nbdr << (e->dim - 1);
  SAME("coords", d.coords, e->coords, sizeof(double) * (size_t)e->nverts * e->dim);
  SAME("zone_verts", d.zone_verts, e->zone_verts, sizeof(int) * nzv);
  SAME("bdr_verts", d.bdr_verts, e->bdr_verts, sizeof(int) * nbv);
  SAME("bdr_attr", d.bdr_attr, e->bdr_attr, sizeof(int) * (size_t)e->nbdr);
  for (int z = 0; z < e->nzones; z++) {
    TEST_ASSERT(BlastMeshZoneGeom(got, z) == (e->zone_geom ? e->zone_geom[z] : BLAST_GEOM_SQUARE),
                "%s: zone %d's geometry", name, z);
    TEST_ASSERT(BlastMeshZoneAttr(got)[z] == (e->zone_attr ? e->zone_attr[z] : 1),
                "%s: zone %d's attribute", name, z);
  }
  const int p = e->curve_order > 1 ? e->curve_order : 1;
  TEST_ASSERT(BlastMeshCurveOrder(got) == p, "%s: curve order %d, expected %d", name,
              BlastMeshCurveOrder(got), p);
  if (p > 1 && BlastMeshCurveOrder(got) == p) {
    TEST_ASSERT(BlastMeshNumNodes(got) == e->nnodes, "%s: node count", name);
    SAME("node_coords", BlastMeshNodeCoords(got), e->node_coords,
         sizeof(double) * (size_t)e->nnodes * e->dim);
    SAME("zone_nodes", BlastMeshZoneNodes(got), e->zone_nodes,
         sizeof(int) * (size_t)e->nzones * (p + 1) * (p + 1));
  }
  for (int i = 0; i < e->nnames; i++)
    TEST_ASSERT(
        BlastMeshAttributeOfName(got, e->names[i].dim, e->names[i].name) == e->names[i].attr,
        "%s: the name '%s'", name, e->names[i].name);
}

// Rank 0 creates the mesh of `e` and sends it; every rank compares what it holds with e.
static void BcastCase(const char *name, const BlastMeshDesc *e, int rank) {
  BlastMesh m = NULL;
  if (!rank) TEST_CALL(BlastMeshCreateFrom(e, &m));
  TEST_CALL(BlastMeshBcast(MPI_COMM_WORLD, 0, &m));
  TEST_ASSERT(m != NULL, "%s: rank %d has no mesh", name, rank);
  if (m) Compare(name, m, e);
  BlastMeshDestroy(&m);
}

// Every rank gets BLAST_ERR_INPUT with rank 0's message, which contains `expect`.
static void ExpectReadError(const char *what, const char *path, const char *expect, int rank) {
  BlastMesh m = NULL;
  const int ierr = BlastMeshReadShared(MPI_COMM_WORLD, rank ? "/no/such/dir/x.mesh" : path, &m);
  TEST_ASSERT(ierr == BLAST_ERR_INPUT && m == NULL, "%s: rank %d got %d", what, rank, ierr);
  const char *msg = BlastErrorMessage();
  TEST_ASSERT(strstr(msg, expect) != NULL, "%s: rank %d's message '%s' lacks '%s'", what, rank, msg,
              expect);
  TEST_ASSERT(BlastTestSameMessageEverywhere(msg), "%s: the ranks' messages differ", what);
  BlastErrorClear();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  BlastErrorSetRank(rank);
  const BlastMeshName names[] = {{2, 1, "solid"}, {2, 2, "fluid"}, {1, 1, "bottom"}, {1, 3, "top"}};
  const BlastMeshName renamed[] = {
      {2, 1, "solid"}, {2, 2, "fluid"}, {1, 1, "bottom"}, {1, 3, "lid"}};
  const BlastMeshName reordered[] = {
      {1, 3, "top"}, {2, 2, "fluid"}, {2, 1, "solid"}, {1, 1, "bottom"}};

  // (a) meshes sent from rank 0
  const BlastMeshDesc mixed = Mixed(names, 4);
  BcastCase("mixed triangles and quadrilateral with names", &mixed, rank);
  Curved c0, c1;
  const BlastMeshDesc curved = CurvedQuad(&c0, 0.125);
  BcastCase("curved quadratic quadrilateral", &curved, rank);

  // (b) a file only rank 0 opens; a malformed and a missing file
  char path[64];
  snprintf(path, sizeof path, "distribute_%d.mesh", 0);
  BlastMesh box = NULL;
  const int n[2] = {3, 2};
  const double size[2] = {1.5, 1.0};
  TEST_CALL(BlastMeshCreateBox(2, n, size, &box));
  if (!rank) TEST_CALL(BlastMeshWrite(box, path));
  MPI_Barrier(MPI_COMM_WORLD);
  BlastMesh got = NULL;
  TEST_CALL(BlastMeshReadShared(MPI_COMM_WORLD, rank ? "/no/such/dir/x.mesh" : path, &got));
  if (got) {
    BlastMeshDesc e;
    BlastMeshDescribe(box, &e);
    Compare("box read by rank 0", got, &e);
  }
  BlastMeshDestroy(&got);
  if (!rank) {
    FILE *f = fopen("distribute_bad.mesh", "w");
    TEST_ASSERT(f != NULL, "cannot write distribute_bad.mesh");
    if (f) fputs("MFEM mesh v1.0\n\ndimension\n2\n\nelements\n1\n1 3 0 1 2 7\n", f), fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ExpectReadError("malformed file", "distribute_bad.mesh", "distribute_bad.mesh:", rank);
  ExpectReadError("missing file", "distribute_missing.mesh", "distribute_missing.mesh", rank);

  // (c) the fingerprint's extra part
  BlastMeshDesc plain;
  BlastMeshDescribe(box, &plain);
  TEST_ASSERT(BlastMeshFingerprintExtra(box) == 0,
              "a straight quadrilateral mesh adds to its "
              "fingerprint");
  BlastMesh m[6] = {NULL};
  const BlastMeshDesc tri = {.dim = 2,
                             .nverts = 6,
                             .nzones = 4,
                             .nbdr = 6,
                             .coords = kCoords,
                             .zone_verts = kTriVerts,
                             .zone_geom = kTriGeom,
                             .zone_attr = kZoneAttr + 0,
                             .bdr_verts = kBdrVerts,
                             .bdr_geom = kBdrGeom,
                             .bdr_attr = kBdrAttr};
  const BlastMeshDesc d[6] = {Mixed(names, 4),        Mixed(renamed, 4),
                              Mixed(reordered, 4),    tri,
                              CurvedQuad(&c0, 0.125), CurvedQuad(&c1, 0.25)};
  for (int i = 0; i < 6; i++) TEST_CALL(BlastMeshCreateFrom(&d[i], &m[i]));
  uint64_t h[6];
  for (int i = 0; i < 6; i++) h[i] = m[i] ? BlastMeshFingerprintExtra(m[i]) : 0;
  for (int i = 0; i < 6; i++) TEST_ASSERT(h[i] != 0, "mesh %d adds nothing to its fingerprint", i);
  TEST_ASSERT(h[0] != h[1], "a renamed boundary attribute keeps the fingerprint");
  TEST_ASSERT(h[0] == h[2], "the names' order changes the fingerprint");
  TEST_ASSERT(h[0] != h[3], "the mixed mesh and its all-triangle version have one fingerprint");
  TEST_ASSERT(h[4] != h[5], "a moved curved node keeps the fingerprint");
  TEST_ASSERT(BlastTestSameMessageEverywhere(""), "ranks out of step");
  for (int i = 0; i < 6; i++) BlastMeshDestroy(&m[i]);
  BlastMeshDestroy(&box);
  int r = BlastTestFinish("test_mesh_distribute");
  MPI_Finalize();
  return r;
}
