// Simplex meshes (triangles, tetrahedra, triangle/quadrilateral mixes) built in C with
// random vertex numbering and orders:
//  (a) topology: edge and face counts against closed forms; lattice ids of orders 1..4 are
//      a bijection onto the grid points of spacing 1/(nK) (the same id is the same point
//      from every zone, distinct ids are distinct points, and their number is (nK+1)^d);
//      BlastLatticeZones lists exactly the zones holding each point; boundary faces are
//      facets; the dual graph has two entries per interior face;
//  (b) BlastMeshCheckJacobians: an inverted and a degenerate tetrahedron, tetrahedra that
//      split a shared square along different diagonals (non-conforming), and a missing
//      boundary face, and a duplicated tetrahedron are refused with messages naming the
//      zone;
//  (c) BlastMeshRefine, levels 1 and 2: counts, volume 1, every child positive with volume
//      parent/K^d and inside its parent, attributes inherited, refined boundary faces on
//      their side of the box, conforming (CheckJacobians), and the same bits twice; the
//      same on the meshes of [mesh] generator = box_simplex; attribute names inherited.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meshio.h"
#include "simplexmesh.h"
#include "testlib.h"

typedef struct {
  int64_t id;
  int64_t key;  // the point's grid index
  int zone;
} Point;

static int ComparePoint(const void *pa, const void *pb) {
  const Point *a = pa, *b = pb;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->zone > b->zone) - (a->zone < b->zone);
}
static int CompareKey(const void *pa, const void *pb) {
  const int64_t a = ((const Point *)pa)->key, b = ((const Point *)pb)->key;
  return (a > b) - (a < b);
}

// Lattice index j (in lattice order, geom.h) of order K on geometry g -> i.
static void LatticeIndex(int g, int K, int j, int *i) {
  const int dim = BlastGeomDim(g);
  if (!BlastGeomIsSimplex(g)) {
    for (int c = 0; c < dim; c++, j /= K + 1) i[c] = j % (K + 1);
    return;
  }
  for (int i2 = 0; i2 <= (dim == 3 ? K : 0); i2++)
    for (int i1 = 0; i1 + i2 <= K; i1++)
      for (int i0 = 0; i0 + i1 + i2 <= K; i0++)
        if (j-- == 0) {
          i[0] = i0, i[1] = i1, i[2] = i2;
          return;
        }
}

static void CheckLattice(const char *name, BlastMesh m, int n, int K) {
  const int dim = BlastMeshDim(m), nz = BlastMeshNumZones(m), nK = n * K;
  BlastTopology *t = NULL;
  TEST_CALL(BlastTopologyCreate(m, &t));
  if (!t) return;
  const int64_t size = BlastLatticeSize(t, K);
  int64_t grid = 1;
  for (int c = 0; c < dim; c++) grid *= nK + 1;
  TEST_ASSERT(size == grid, "%s K=%d: lattice size %lld, expected %lld", name, K, (long long)size,
              (long long)grid);
  size_t np = 0, cap = (size_t)nz * BlastGeomNumNodes(BLAST_GEOM_CUBE, K);
  Point *pts = malloc(sizeof(Point) * cap);
  for (int z = 0; z < nz; z++) {
    const int g = BlastMeshZoneGeom(m, z);
    for (int j = 0; j < BlastGeomNumNodes(g, K); j++) {
      int i[3] = {0, 0, 0};
      double xi[3], x[3];
      LatticeIndex(g, K, j, i);
      for (int c = 0; c < dim; c++) xi[c] = (double)i[c] / K;
      BlastMeshZoneMap(m, z, xi, x);
      int64_t key = 0;
      for (int c = dim - 1; c >= 0; c--) key = key * (nK + 1) + (int64_t)lround(x[c] * nK);
      pts[np++] = (Point){BlastLatticeId(t, BlastMeshZoneVerts(m), z, K, i), key, z};
    }
  }
  qsort(pts, np, sizeof *pts, ComparePoint);
  int bad_range = 0, bad_same = 0, bad_zones = 0;
  int64_t ndistinct = 0;
  for (size_t a = 0, b; a < np; a = b) {
    bad_range += pts[a].id < 0 || pts[a].id >= size;
    int nzs = 0;
    for (b = a; b < np && pts[b].id == pts[a].id; b++) {
      bad_same += pts[b].key != pts[a].key;
      nzs += b == a || pts[b].zone != pts[b - 1].zone;
    }
    ndistinct++;
    int own;
    const int *zones;
    const int cnt = BlastLatticeZones(t, K, pts[a].id, &own, &zones);
    bad_zones += cnt != nzs;
    for (size_t c = a; c < b && cnt == nzs; c++) {
      int found = 0;
      for (int q = 0; q < cnt; q++) found |= zones[q] == pts[c].zone;
      bad_zones += !found;
    }
  }
  TEST_ASSERT(!bad_range && !bad_same && !bad_zones && ndistinct == size,
              "%s K=%d: %d ids out of range, %d ids at two points, %d wrong zone lists, %lld "
              "distinct ids of %lld",
              name, K, bad_range, bad_same, bad_zones, (long long)ndistinct, (long long)size);
  qsort(pts, np, sizeof *pts, CompareKey);
  int64_t nkeys = 0;
  for (size_t a = 0; a < np; a++) nkeys += !a || pts[a].key != pts[a - 1].key;
  TEST_ASSERT(nkeys == size, "%s K=%d: %lld distinct points, %lld ids", name, K, (long long)nkeys,
              (long long)size);
  free(pts);
  BlastTopologyDestroy(&t);
}

static void CheckTopology(void) {
  for (int n = 1; n <= 3; n++) {
    BlastMesh tri = NULL, mix = NULL, tet = NULL;
    TEST_CALL(SMBox(2, n, 0, 0, 1, &tri));
    TEST_CALL(SMBox(2, n, 1, 0, 1, &mix));
    TEST_CALL(SMBox(3, n, 0, 0, 1, &tet));
    BlastTopology *t = NULL;
    TEST_CALL(BlastTopologyCreate(tri, &t));
    TEST_ASSERT(t->nedges == 2 * n * (n + 1) + n * n, "triangles n=%d: %d edges", n, t->nedges);
    BlastTopologyDestroy(&t);
    TEST_CALL(BlastTopologyCreate(tet, &t));
    const int E = 3 * n * (n + 1) * (n + 1) + 3 * n * n * (n + 1) + n * n * n;
    const int F = 12 * n * n * n + 6 * n * n;
    TEST_ASSERT(t->nedges == E && t->nfaces == F && t->face_tri_before[t->nfaces] == F,
                "tetrahedra n=%d: %d edges, %d faces (expected %d, %d)", n, t->nedges, t->nfaces, E,
                F);
    int *xadj = NULL, *adj = NULL;
    TEST_CALL(BlastTopologyDualGraph(t, &xadj, &adj));
    TEST_ASSERT(xadj[t->nzones] == 2 * (F - BlastMeshNumBoundary(tet)),
                "tetrahedra n=%d: dual graph with %d entries, expected %d", n, xadj[t->nzones],
                2 * (F - BlastMeshNumBoundary(tet)));
    for (int b = 0; b < BlastMeshNumBoundary(tet); b++)
      TEST_ASSERT(BlastTopologyFindFacet(t, &BlastMeshBdrVerts(tet)[b * 4]) >= 0,
                  "boundary face %d is no facet", b);
    BlastFree(&xadj);
    BlastFree(&adj);
    BlastTopologyDestroy(&t);
    for (int K = 1; K <= 4; K++) {
      CheckLattice("triangles", tri, n, K);
      CheckLattice("triangles and quadrilaterals", mix, n, K);
      CheckLattice("tetrahedra", tet, n, K);
    }
    TEST_CALL(BlastMeshCheckJacobians(tri, 2));
    TEST_CALL(BlastMeshCheckJacobians(mix, 2));
    TEST_CALL(BlastMeshCheckJacobians(tet, 2));
    TEST_CLOSE(BlastMeshVolume(tri), 1.0, 1e-14);
    TEST_CLOSE(BlastMeshVolume(mix), 1.0, 1e-14);
    TEST_CLOSE(BlastMeshVolume(tet), 1.0, 1e-14);
    BlastMeshDestroy(&tri);
    BlastMeshDestroy(&mix);
    BlastMeshDestroy(&tet);
  }
}

// A copy of m with zone z's vertices v0 and v1 swapped, or with vertex 0 moved onto the
// plane of the others (degenerate), or without boundary face 0.
static void ExpectRefused(const char *what, BlastMesh m, const char *text) {
  const int ierr = BlastMeshCheckJacobians(m, 2);
  TEST_ASSERT(ierr == BLAST_ERR_INPUT && strstr(BlastErrorMessage(), text),
              "%s: error %d, message '%s' lacks '%s'", what, ierr, BlastErrorMessage(), text);
  BlastErrorClear();
}

static void CheckRefusals(void) {
  BlastMesh tet = NULL, bad = NULL;
  TEST_CALL(SMBox(3, 2, 0, 0, 0, &tet));
  BlastMeshDesc d;
  BlastMeshDescribe(tet, &d);
  int *zv = malloc(sizeof(int) * d.nzones * 8);
  double *x = malloc(sizeof(double) * d.nverts * 3);
  memcpy(zv, d.zone_verts, sizeof(int) * d.nzones * 8);
  memcpy(x, d.coords, sizeof(double) * d.nverts * 3);
  BlastMeshDesc e = d;
  e.zone_verts = zv;
  const int t = zv[5 * 8 + 1];
  zv[5 * 8 + 1] = zv[5 * 8 + 2], zv[5 * 8 + 2] = t;
  TEST_CALL(BlastMeshCreateFrom(&e, &bad));
  ExpectRefused("inverted", bad, "zone 5 (tetrahedron, attribute 3) is inverted: det J = ");
  BlastMeshDestroy(&bad);
  zv[5 * 8 + 2] = zv[5 * 8 + 1], zv[5 * 8 + 1] = t;
  e.zone_verts = d.zone_verts;
  e.nbdr = d.nbdr - 1, e.bdr_verts = d.bdr_verts + 4, e.bdr_geom = d.bdr_geom + 1;
  e.bdr_attr = d.bdr_attr + 1;
  TEST_CALL(BlastMeshCreateFrom(&e, &bad));
  ExpectRefused("missing boundary face", bad, "missing from the 'boundary' section");
  BlastMeshDestroy(&bad);
  // Zone 0 given twice (as the last zone, its vertices in another order).
  e = d;
  int *zd = malloc(sizeof(int) * (d.nzones + 1) * 8), *ad = malloc(sizeof(int) * (d.nzones + 1));
  unsigned char *gd = malloc(d.nzones + 1);
  memcpy(zd, d.zone_verts, sizeof(int) * d.nzones * 8);
  memcpy(ad, d.zone_attr, sizeof(int) * d.nzones);
  memcpy(gd, d.zone_geom, d.nzones);
  memcpy(&zd[d.nzones * 8], d.zone_verts, sizeof(int) * 8);
  zd[d.nzones * 8] = d.zone_verts[1], zd[d.nzones * 8 + 1] = d.zone_verts[0];
  ad[d.nzones] = 1, gd[d.nzones] = BLAST_GEOM_TETRAHEDRON;
  e.nzones = d.nzones + 1, e.zone_verts = zd, e.zone_attr = ad, e.zone_geom = gd;
  TEST_CALL(BlastMeshCreateFrom(&e, &bad));
  if (bad) {
    BlastTopology *tp = NULL;
    TEST_CALL(BlastTopologyCreate(bad, &tp));
    const int ierr = tp ? BlastTopologyCheckConforming(tp, bad) : 0;
    char want[64];
    snprintf(want, sizeof want, "zone %d has the same 4 vertices as zone 0", d.nzones);
    TEST_ASSERT(ierr == BLAST_ERR_INPUT && strstr(BlastErrorMessage(), want),
                "duplicated: error %d, '%s'", ierr, BlastErrorMessage());
    BlastErrorClear();
    BlastTopologyDestroy(&tp);
  }
  BlastMeshDestroy(&bad);
  free(zd), free(ad), free(gd);
  // Degenerate: the first vertex of zone 0 moved to the centroid of the other three (the
  // vertex is the corner of the box, shared by zone 0 only).
  e = d, e.coords = x;
  const int *z0 = &d.zone_verts[0];
  for (int c = 0; c < 3; c++)
    x[z0[0] * 3 + c] = (x[z0[1] * 3 + c] + x[z0[2] * 3 + c] + x[z0[3] * 3 + c]) / 3.0;
  TEST_CALL(BlastMeshCreateFrom(&e, &bad));
  ExpectRefused("degenerate", bad, "is degenerate: det J = 0");
  BlastMeshDestroy(&bad);
  free(zv), free(x);
  BlastMeshDestroy(&tet);
  // Cubes whose shared squares are cut along different diagonals.
  TEST_CALL(SMBox(3, 2, 0, 1, 0, &bad));
  ExpectRefused("different diagonals", bad, "without matching it: the mesh is not conforming");
  BlastMeshDestroy(&bad);
}

// Barycentric coordinates of x in simplex z of mesh m (all in [0,1] for points inside).
static void Barycentric(BlastMesh m, int z, const double *x, double *lam) {
  const int dim = BlastMeshDim(m);
  const int *v = &BlastMeshZoneVerts(m)[z << dim];
  const double *X = BlastMeshCoords(m);
  double A[3][3], r[3];
  for (int c = 0; c < dim; c++) {
    r[c] = x[c] - X[v[0] * dim + c];
    for (int g = 0; g < dim; g++) A[c][g] = X[v[g + 1] * dim + c] - X[v[0] * dim + c];
  }
  // Cramer's rule.
  double det = dim == 2 ? A[0][0] * A[1][1] - A[0][1] * A[1][0]
                        : A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                              A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                              A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
  lam[0] = 1.0;
  for (int g = 0; g < dim; g++) {
    double B[3][3];
    memcpy(B, A, sizeof B);
    for (int c = 0; c < dim; c++) B[c][g] = r[c];
    const double dg = dim == 2 ? B[0][0] * B[1][1] - B[0][1] * B[1][0]
                               : B[0][0] * (B[1][1] * B[2][2] - B[1][2] * B[2][1]) -
                                     B[0][1] * (B[1][0] * B[2][2] - B[1][2] * B[2][0]) +
                                     B[0][2] * (B[1][0] * B[2][1] - B[1][1] * B[2][0]);
    lam[g + 1] = dg / det, lam[0] -= dg / det;
  }
}

static double ZoneVolume(BlastMesh m, int z) {
  const int dim = BlastMeshDim(m), nc = 1 << dim;
  const int *v = &BlastMeshZoneVerts(m)[z * nc];
  if (BlastGeomIsSimplex(BlastMeshZoneGeom(m, z)))
    return SMDet(dim, BlastMeshCoords(m), v) / (dim == 2 ? 2 : 6);
  const double *X = BlastMeshCoords(m);  // quadrilaterals of the box: axis-aligned squares
  return (X[v[3] * 2] - X[v[0] * 2]) * (X[v[3] * 2 + 1] - X[v[0] * 2 + 1]);
}

static void CheckRefine(const char *name, BlastMesh m, int levels) {
  const int dim = BlastMeshDim(m), nc = 1 << dim, nf = nc / 2, K = 1 << levels;
  const int nchild = dim == 2 ? K * K : K * K * K, nbchild = nchild / K;
  BlastMesh r = NULL, r2 = NULL;
  TEST_CALL(BlastMeshRefine(m, levels, &r));
  TEST_CALL(BlastMeshRefine(m, levels, &r2));
  if (!r || !r2) return;
  const int nz = BlastMeshNumZones(m), nb = BlastMeshNumBoundary(m);
  TEST_ASSERT(BlastMeshNumZones(r) == nz * nchild && BlastMeshNumBoundary(r) == nb * nbchild,
              "%s L%d: %d zones, %d boundary faces", name, levels, BlastMeshNumZones(r),
              BlastMeshNumBoundary(r));
  if (BlastMeshNumZones(r) != nz * nchild || BlastMeshNumBoundary(r) != nb * nbchild) return;
  TEST_CLOSE(BlastMeshVolume(r), 1.0, 1e-13);
  TEST_CALL(BlastMeshCheckJacobians(r, 2));
  int bad = 0, bad_bdr = 0;
  for (int z = 0; z < nz; z++) {
    const int g = BlastMeshZoneGeom(m, z);
    const double vol = ZoneVolume(m, z);
    for (int c = 0; c < nchild; c++) {
      const int child = z * nchild + c;
      bad += BlastMeshZoneGeom(r, child) != g ||
             BlastMeshZoneAttr(r)[child] != BlastMeshZoneAttr(m)[z];
      bad += fabs(ZoneVolume(r, child) - vol / nchild) > 1e-13;
      if (!BlastGeomIsSimplex(g)) continue;
      double xc[3] = {0, 0, 0}, lam[4];
      for (int a = 0; a <= dim; a++)
        for (int q = 0; q < dim; q++)
          xc[q] += BlastMeshCoords(r)[BlastMeshZoneVerts(r)[child * nc + a] * dim + q] / (dim + 1);
      Barycentric(m, z, xc, lam);
      for (int a = 0; a <= dim; a++) bad += !(lam[a] > 0.0);
    }
  }
  for (int b = 0; b < BlastMeshNumBoundary(r); b++) {
    const int c = BlastMeshBdrAttr(r)[b] - 1, parent = b / nbchild;
    bad_bdr += BlastMeshBdrAttr(r)[b] != BlastMeshBdrAttr(m)[parent] ||
               BlastMeshBdrGeom(r, b) != BlastMeshBdrGeom(m, parent);
    const double side = BlastMeshCoords(r)[BlastMeshBdrVerts(r)[b * nf] * dim + c];
    for (int a = 0; a < BlastGeomNumVertices(BlastMeshBdrGeom(r, b)); a++)
      bad_bdr +=
          fabs(BlastMeshCoords(r)[BlastMeshBdrVerts(r)[b * nf + a] * dim + c] - side) > 1e-15 ||
          (fabs(side) > 1e-15 && fabs(side - 1.0) > 1e-15);
  }
  TEST_ASSERT(!bad && !bad_bdr, "%s L%d: %d bad children, %d bad boundary faces", name, levels, bad,
              bad_bdr);
  // Every grid point of spacing 1/(n K) once.
  const int n = dim == 2 ? (int)lround(sqrt(nz / 2.0)) : (int)lround(cbrt(nz / 6.0));
  if (!strstr(name, "quadrilaterals")) {
    long expect = 1;
    for (int q = 0; q < dim; q++) expect *= n * K + 1;
    TEST_ASSERT(BlastMeshNumVertices(r) == expect, "%s L%d: %d vertices, expected %ld", name,
                levels, BlastMeshNumVertices(r), expect);
  }
  BlastMeshDesc d1, d2;
  BlastMeshDescribe(r, &d1);
  BlastMeshDescribe(r2, &d2);
  TEST_ASSERT(!memcmp(d1.coords, d2.coords, sizeof(double) * d1.nverts * dim) &&
                  !memcmp(d1.zone_verts, d2.zone_verts, sizeof(int) * d1.nzones * nc) &&
                  !memcmp(d1.bdr_verts, d2.bdr_verts, sizeof(int) * d1.nbdr * nf),
              "%s L%d: two refinements differ", name, levels);
  BlastMeshDestroy(&r);
  BlastMeshDestroy(&r2);
}

int main(void) {
  CheckTopology();
  CheckRefusals();
  for (int levels = 1; levels <= 2; levels++) {
    BlastMesh m = NULL;
    TEST_CALL(SMBox(2, 3, 0, 0, 1, &m));
    CheckRefine("triangles", m, levels);
    BlastMeshDestroy(&m);
    TEST_CALL(SMBox(2, 3, 1, 0, 1, &m));
    CheckRefine("triangles and quadrilaterals", m, levels);
    BlastMeshDestroy(&m);
    TEST_CALL(SMBox(3, 2, 0, 0, 1, &m));
    CheckRefine("tetrahedra", m, levels);
    BlastMeshDestroy(&m);
  }
  {  // attribute names survive refinement
    BlastMesh m = NULL, named = NULL, r = NULL;
    TEST_CALL(SMBox(3, 1, 0, 0, 1, &m));
    BlastMeshDesc d;
    BlastMeshDescribe(m, &d);
    const BlastMeshName names[2] = {{3, 2, "core"}, {2, 1, "walls_x"}};
    d.nnames = 2, d.names = names;
    TEST_CALL(BlastMeshCreateFrom(&d, &named));
    if (named) TEST_CALL(BlastMeshRefine(named, 1, &r));
    TEST_ASSERT(r && BlastMeshAttributeOfName(r, 3, "core") == 2 &&
                    BlastMeshAttributeOfName(r, 2, "walls_x") == 1,
                "attribute names lost by refinement");
    BlastMeshDestroy(&m);
    BlastMeshDestroy(&named);
    BlastMeshDestroy(&r);
  }
  for (int dim = 2; dim <= 3; dim++) {  // the box_simplex generator's meshes
    const int n[3] = {2, 3, 2};
    const double size[3] = {1.0, 1.0, 1.0};
    BlastMesh m = NULL, r = NULL;
    TEST_CALL(BlastMeshCreateBoxSimplex(dim, n, size, &m));
    if (!m) continue;
    TEST_CALL(BlastMeshCheckJacobians(m, 2));
    TEST_CLOSE(BlastMeshVolume(m), 1.0, 1e-14);
    TEST_CALL(BlastMeshRefine(m, 2, &r));
    if (r) {
      TEST_CALL(BlastMeshCheckJacobians(r, 2));
      TEST_CLOSE(BlastMeshVolume(r), 1.0, 1e-12);
    }
    BlastMeshDestroy(&r);
    BlastMeshDestroy(&m);
  }
  return BlastTestFinish("test_mesh_simplex");
}
