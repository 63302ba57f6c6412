// Gmsh .msh files made by gmsh itself from tests/mesh/geo/*.geo (tests/mesh/gmsh_meshes.cmake
// writes them into DIR): the four variants of each mesh (formats 2.2 and 4.1, ASCII and
// binary) read to the same mesh with the sizes, attributes, names and volume the .geo
// files define; the node order of every element type of orders 1 to 4 (each node where
// its lattice point says, on straight-sided meshes); curved nodes of the quadratic disc
// on the circle; a clockwise square turned over; serendipity elements refused.
// usage: test_mesh_gmsh DIR
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom.h"
#include "meshtest.h"

static const char *g_dir;

static int Read(const char *name, BlastMesh *m) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.msh", g_dir, name);
  int ierr = BlastMeshRead(path, m);
  if (ierr) BlastErrorPrint();
  return ierr;
}

// Volume of zone z from its vertices alone: simplices by their determinant, quads by the
// shoelace formula, hexes by the 2-point Gauss rule of det J (meshtest).
static double ZoneVolume(BlastMesh m, int z) {
  const int dim = BlastMeshDim(m), nc = 1 << dim, g = BlastMeshZoneGeom(m, z);
  const int *v = BlastMeshZoneVerts(m) + (size_t)z * nc;
  const double *x = BlastMeshCoords(m);
#define X(i, c) x[(size_t)v[i] * dim + (c)]
  if (g == BLAST_GEOM_TRIANGLE)
    return 0.5 *
           ((X(1, 0) - X(0, 0)) * (X(2, 1) - X(0, 1)) - (X(1, 1) - X(0, 1)) * (X(2, 0) - X(0, 0)));
  if (g == BLAST_GEOM_SQUARE) {
    static const int ccw[4] = {0, 1, 3, 2};
    double a = 0.0;
    for (int i = 0; i < 4; i++) {
      const int p = ccw[i], q = ccw[(i + 1) % 4];
      a += X(p, 0) * X(q, 1) - X(q, 0) * X(p, 1);
    }
    return 0.5 * a;
  }
  if (g == BLAST_GEOM_TETRAHEDRON) {
    double J[3][3];
    for (int a = 0; a < 3; a++)
      for (int c = 0; c < 3; c++) J[c][a] = X(a + 1, c) - X(0, c);
    return (J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
            J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
            J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0])) /
           6.0;
  }
#undef X
  return MTZoneVolume(m, z);
}

// Zones (bdr = 0) or boundary faces (1) of two meshes alike whatever their order in the
// file: the sorted keys (attribute, geometry, centroid of the vertices, centroid of the
// curved nodes) agree to the rounding of ASCII files (16 digits).
typedef struct {
  double k[8];
} Key;
static int CmpKey(const void *a, const void *b) {
  const Key *x = a, *y = b;
  for (int i = 0; i < 8; i++)
    if (fabs(x->k[i] - y->k[i]) > 1e-9) return x->k[i] < y->k[i] ? -1 : 1;
  return 0;
}
static Key *Keys(BlastMesh m, int bdr, int *n) {
  const int dim = BlastMeshDim(m), nc = 1 << (dim - bdr), p = BlastMeshCurveOrder(m);
  const int NN = BlastGeomNumNodes(BlastGeomTensor(dim), p);
  *n = bdr ? BlastMeshNumBoundary(m) : BlastMeshNumZones(m);
  Key *k = calloc((size_t)*n + 1, sizeof *k);
  for (int e = 0; e < *n; e++) {
    const int g = bdr ? BlastMeshBdrGeom(m, e) : BlastMeshZoneGeom(m, e);
    const int *v = (bdr ? BlastMeshBdrVerts(m) : BlastMeshZoneVerts(m)) + (size_t)e * nc;
    k[e].k[0] = (bdr ? BlastMeshBdrAttr(m) : BlastMeshZoneAttr(m))[e];
    k[e].k[1] = g;
    const int nv = BlastGeomNumVertices(g);
    for (int a = 0; a < nv; a++)
      for (int c = 0; c < dim; c++)
        k[e].k[2 + c] += BlastMeshCoords(m)[(size_t)v[a] * dim + c] / nv;
    if (!bdr && p > 1) {
      const int nn = BlastGeomNumNodes(g, p);
      for (int a = 0; a < nn; a++)
        for (int c = 0; c < dim; c++)
          k[e].k[5 + c] +=
              BlastMeshNodeCoords(m)[(size_t)BlastMeshZoneNodes(m)[(size_t)e * NN + a] * dim + c] /
              nn;
    }
  }
  qsort(k, (size_t)*n, sizeof *k, CmpKey);
  return k;
}
static int SameEntities(BlastMesh a, BlastMesh b, int bdr) {
  int na, nb;
  Key *ka = Keys(a, bdr, &na), *kb = Keys(b, bdr, &nb);
  int same = na == nb;
  for (int i = 0; same && i < na; i++) same = !CmpKey(&ka[i], &kb[i]);
  free(ka), free(kb);
  return same;
}

typedef struct {
  const char *name;
  int dim, order;
  int min_zones;
  // Expected volume of the zones (straight between their vertices): exact, or with the
  // vertices on the unit circle, the polygon of N sides of the rim's N boundary faces
  // (N/2 sin(2 pi/N)); for the quarter cylinder (height 0.5, L layers) that of the N/L
  // outer faces of a layer over a quarter turn.
  enum { kExact, kDisc, kQuarter } vol_kind;
  double volume;
  int zone_attr[2], bdr_attrs[4], nbdr_attrs;
  const char *zone_name, *bdr_name;  // a name of a zone group and of a boundary group
} Case;

static const Case kCases[] = {
    {"disc_tri", 2, 2, 20, kDisc, 0.0, {7, 0}, {3}, 1, "fluid", "rim"},
    {"disc_quad", 2, 1, 50, kDisc, 0.0, {1, 0}, {1}, 1, "fluid", "rim"},
    {"quarter_cylinder_hex", 3, 1, 100, kQuarter, 0.0, {2, 0}, {1, 2, 3, 4}, 4, "solid", "outer"},
    {"box_tet", 3, 1, 20, kExact, 1.0, {1, 0}, {1, 2}, 2, "body", "ends"},
    {"mixed_square", 2, 1, 10, kExact, 1.0, {1, 2}, {1}, 1, "triangles", "walls"},
};
static const char *const kVariants[4] = {"v22a", "v22b", "v41a", "v41b"};

static void CheckCase(const Case *c) {
  BlastMesh m[4] = {NULL};
  for (int v = 0; v < 4; v++) {
    char name[128];
    snprintf(name, sizeof name, "%s_%s", c->name, kVariants[v]);
    TEST_ASSERT(!Read(name, &m[v]), "%s: read", name);
    if (!m[v]) return;
    TEST_ASSERT(BlastMeshDim(m[v]) == c->dim, "%s: dimension %d", name, BlastMeshDim(m[v]));
    TEST_ASSERT(BlastMeshCurveOrder(m[v]) == c->order, "%s: order %d", name,
                BlastMeshCurveOrder(m[v]));
    const int nz = BlastMeshNumZones(m[v]);
    TEST_ASSERT(nz >= c->min_zones, "%s: %d zones", name, nz);
    double vol = 0.0;
    for (int z = 0; z < nz; z++) {
      const double zv = ZoneVolume(m[v], z);
      TEST_ASSERT(zv > 0.0, "%s: zone %d has volume %g", name, z, zv);
      vol += zv;
      const int a = BlastMeshZoneAttr(m[v])[z];
      TEST_ASSERT(a == c->zone_attr[0] || a == c->zone_attr[1], "%s: zone attribute %d", name, a);
    }
    double want = c->volume;
    const int nrim = BlastMeshNumBoundary(m[v]);
    int nouter = 0;
    for (int f = 0; f < nrim; f++) nouter += BlastMeshBdrAttr(m[v])[f] == 4;
    if (c->vol_kind == kDisc) want = 0.5 * nrim * sin(2.0 * M_PI / nrim);
    if (c->vol_kind == kQuarter) want = 0.5 * 0.5 * (nouter / 3) * sin(0.5 * M_PI / (nouter / 3));
    TEST_ASSERT(fabs(vol - want) <= 1e-12 * want, "%s: volume %.15g, expected %.15g", name, vol,
                want);
    int found[4] = {0};
    for (int f = 0; f < BlastMeshNumBoundary(m[v]); f++) {
      const int a = BlastMeshBdrAttr(m[v])[f];
      int k = 0;
      while (k < c->nbdr_attrs && c->bdr_attrs[k] != a) k++;
      TEST_ASSERT(k < c->nbdr_attrs, "%s: boundary attribute %d", name, a);
      if (k < c->nbdr_attrs) found[k] = 1;
    }
    for (int k = 0; k < c->nbdr_attrs; k++)
      TEST_ASSERT(found[k], "%s: no boundary face of attribute %d", name, c->bdr_attrs[k]);
    const int za = BlastMeshAttributeOfName(m[v], c->dim, c->zone_name);
    const int ba = BlastMeshAttributeOfName(m[v], c->dim - 1, c->bdr_name);
    TEST_ASSERT(za == c->zone_attr[c->zone_attr[1] ? 1 : 0], "%s: name %s -> %d", name,
                c->zone_name, za);
    TEST_ASSERT(ba == c->bdr_attrs[c->nbdr_attrs - 1], "%s: name %s -> %d", name, c->bdr_name, ba);
    // Every zone face on the boundary has a boundary element, none is repeated.
    int nsingle, nmulti, nbad;
    if (BlastMeshIsTensor(m[v])) {
      MTFacetStats(m[v], &nsingle, &nmulti, &nbad);
      TEST_ASSERT(nmulti == 0 && nbad == 0 && nsingle == BlastMeshNumBoundary(m[v]),
                  "%s: facets: %d single, %d multi, %d boundary faces not single", name, nsingle,
                  nmulti, nbad);
    }
    if (v) {
      TEST_ASSERT(BlastMeshNumVertices(m[v]) == BlastMeshNumVertices(m[0]) &&
                      nz == BlastMeshNumZones(m[0]) &&
                      BlastMeshNumBoundary(m[v]) == BlastMeshNumBoundary(m[0]) &&
                      BlastMeshNumNodes(m[v]) == BlastMeshNumNodes(m[0]),
                  "%s: sizes differ from v22a", name);
      TEST_ASSERT(SameEntities(m[0], m[v], 0) && SameEntities(m[0], m[v], 1),
                  "%s: zones or boundary faces differ from v22a", name);
    }
  }
  for (int v = 0; v < 4; v++) BlastMeshDestroy(&m[v]);
}

// Straight-sided meshes of order p: node a of each zone (lattice order) is the zone's
// straight map at the lattice point (affine for simplices, multilinear for tensor zones).
static void CheckNodeOrder(const char *name, int p) {
  BlastMesh m = NULL;
  char file[128];
  snprintf(file, sizeof file, "%s_p%d", name, p);
  TEST_ASSERT(!Read(file, &m), "%s: read", file);
  if (!m) return;
  TEST_ASSERT(BlastMeshCurveOrder(m) == p, "%s: order %d", file, BlastMeshCurveOrder(m));
  const int dim = BlastMeshDim(m), nc = 1 << dim;
  const int NN = BlastGeomNumNodes(BlastGeomTensor(dim), p);
  const double *x = BlastMeshCoords(m), *nx = p > 1 ? BlastMeshNodeCoords(m) : NULL;
  int bad = 0, checked = 0;
  for (int z = 0; z < BlastMeshNumZones(m); z++) {
    const int g = BlastMeshZoneGeom(m, z), *v = BlastMeshZoneVerts(m) + (size_t)z * nc;
    const int simplex = BlastGeomIsSimplex(g), nn = BlastGeomNumNodes(g, p);
    int a = 0;
    for (int i2 = 0; i2 <= (dim == 3 ? p : 0); i2++)
      for (int i1 = 0; i1 <= (dim >= 2 ? p : 0); i1++)
        for (int i0 = 0; i0 <= p; i0++) {
          if (simplex && i0 + i1 + i2 > p) continue;
          const int idx[3] = {i0, i1, i2};
          double want[3] = {0, 0, 0};
          if (simplex) {
            for (int c = 0; c < dim; c++) {
              want[c] = x[(size_t)v[0] * dim + c];
              for (int gg = 0; gg < dim; gg++)
                want[c] += (double)idx[gg] / p *
                           (x[(size_t)v[gg + 1] * dim + c] - x[(size_t)v[0] * dim + c]);
            }
          } else {
            for (int k = 0; k < nc; k++) {
              double w = 1.0;
              for (int gg = 0; gg < dim; gg++)
                w *= ((k >> gg) & 1) ? (double)idx[gg] / p : 1.0 - (double)idx[gg] / p;
              for (int c = 0; c < dim; c++) want[c] += w * x[(size_t)v[k] * dim + c];
            }
          }
          const double *got =
              p > 1 ? &nx[(size_t)BlastMeshZoneNodes(m)[(size_t)z * NN + a] * dim] : NULL;
          if (p == 1) {  // the lattice of order 1 is the corners
            const int corner = simplex ? (i0 ? 1 : i1 ? 2 : i2 ? 3 : 0) : i0 + 2 * i1 + 4 * i2;
            got = &x[(size_t)v[corner] * dim];
          }
          for (int c = 0; c < dim; c++)
            if (fabs(got[c] - want[c]) > 1e-9) bad++;
          checked++;
          a++;
        }
    TEST_ASSERT(a == nn, "%s: zone %d: %d lattice points, %d nodes", file, z, a, nn);
    if (bad) {
      TEST_ASSERT(0, "%s: zone %d (%s): nodes not at their lattice points", file, z,
                  BlastGeomName(g));
      break;
    }
  }
  printf("%s: %d nodes at their lattice points\n", file, checked);
  BlastMeshDestroy(&m);
}

// The quadratic disc: the rim's nodes (vertices and mid-edge nodes) lie on the circle.
static void CheckCurvedDisc(void) {
  BlastMesh m = NULL;
  TEST_ASSERT(!Read("disc_tri_v41b", &m), "read");
  if (!m) return;
  int on = 0;
  const double *x = BlastMeshNodeCoords(m);
  for (int n = 0; n < BlastMeshNumNodes(m); n++)
    on += fabs(hypot(x[2 * n], x[2 * n + 1]) - 1.0) < 1e-12;
  TEST_ASSERT(on == 2 * BlastMeshNumBoundary(m), "%d nodes on the circle, %d rim faces", on,
              BlastMeshNumBoundary(m));
  BlastMeshDestroy(&m);
}

static void CheckRefused(const char *name, const char *what) {
  BlastMesh m = NULL;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.msh", g_dir, name);
  const int ierr = BlastMeshRead(path, &m);
  TEST_ASSERT(ierr == BLAST_ERR_INPUT && !m, "%s: error %d", name, ierr);
  TEST_ASSERT(
      strstr(BlastErrorMessage(), what) && !strncmp(BlastErrorMessage(), path, strlen(path)),
      "%s: message '%s' lacks '%s'", name, BlastErrorMessage(), what);
  printf("%s: %s\n", name, BlastErrorMessage());
  BlastErrorClear();
  BlastMeshDestroy(&m);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  g_dir = argv[1];
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) CheckCase(&kCases[i]);
  for (int p = 1; p <= 4; p++) {
    CheckNodeOrder("mixed_square", p);
    CheckNodeOrder("box_tet", p);
    CheckNodeOrder("box_hex", p);
  }
  CheckCurvedDisc();
  // A square meshed clockwise (surface normal -z) is turned over: positive zones, area 1.
  BlastMesh m = NULL;
  TEST_ASSERT(!Read("square_cw", &m), "square_cw: read");
  if (m) {
    double vol = 0.0;
    for (int z = 0; z < BlastMeshNumZones(m); z++) {
      TEST_ASSERT(ZoneVolume(m, z) > 0.0, "square_cw: zone %d not turned over", z);
      vol += ZoneVolume(m, z);
    }
    TEST_CLOSE(vol, 1.0, 1e-12);
    BlastMeshDestroy(&m);
  }
  CheckRefused("mixed_square_serendipity", "serendipity");
  CheckRefused("box_tet_nobdr", "missing boundary faces");
  return BlastTestFinish("test_mesh_gmsh");
}
