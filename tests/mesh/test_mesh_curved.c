// Curved meshes (nodes of order p, BlastMeshCreateFrom): the zone map reproduces a
// polynomial map of degree <= p exactly, volumes against closed-form integrals,
// refinement in reference space keeps the geometry (volume, the map, shared nodes), and
// the Jacobian check refuses a folded curved zone; curved MFEM files (the generated
// quadratic disc against its straight twin; files written by MFEM itself with nodes of
// order 3 and 4, against the meshes they were made from).
// Usage: test_mesh_curved MESH_DIR DATA_DIR
#include <math.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom.h"
#include "mesh.h"
#include "meshio.h"
#include "testlib.h"

static const double kA = 0.2, kB = 0.1, kC = 0.3;

// The reference polynomial maps: 2D (x + a y^2, y + b x^2), det 1 - 4ab x y;
// 3D (x + a y^2, y + b z^2, z + c x^2), det 1 + 8abc x y z.
static void Poly(int dim, const double *u, double *x) {
  if (dim == 2) {
    x[0] = u[0] + kA * u[1] * u[1], x[1] = u[1] + kB * u[0] * u[0];
  } else {
    x[0] = u[0] + kA * u[1] * u[1], x[1] = u[1] + kB * u[2] * u[2], x[2] = u[2] + kC * u[0] * u[0];
  }
}

// The quarter annulus r in [1, 2], theta in [0, pi/2] (x = radial, y = angular).
static void Annulus(int dim, const double *u, double *x) {
  (void)dim;
  const double r = 1.0 + u[0], t = 0.5 * M_PI * u[1];
  x[0] = r * cos(t), x[1] = r * sin(t);
}

typedef void (*MapFn)(int dim, const double *u, double *x);

// The n^dim grid of [0,1]^dim with nodes of order p at map(grid point): node (i,j,l) of
// the global grid of order n p; boundary faces with attribute 1.
static int MakeCurved(int dim, int n, int p, MapFn map, BlastMesh *mesh) {
  const int nc = 1 << dim, nf = 1 << (dim - 1), N = n * p + 1, nv1 = n + 1;
  int nz = 1, nverts = 1, nnodes = 1, nn = 1;
  for (int g = 0; g < dim; g++) nz *= n, nverts *= nv1, nnodes *= N, nn *= p + 1;
  const int nb = 2 * dim * nz / n;
  double *coords = malloc(sizeof(double) * nverts * dim);
  double *nodes = malloc(sizeof(double) * nnodes * dim);
  int *zv = malloc(sizeof(int) * nz * nc), *zn = malloc(sizeof(int) * nz * nn);
  int *bv = malloc(sizeof(int) * nb * nf), *ba = malloc(sizeof(int) * nb);
  for (int v = 0; v < nnodes; v++) {
    double u[3];
    for (int g = 0, r = v; g < dim; g++, r /= N) u[g] = (double)(r % N) / (n * p);
    map(dim, u, &nodes[v * dim]);
  }
  for (int v = 0; v < nverts; v++) {
    int id = 0;
    for (int g = 0, r = v, s = 1; g < dim; g++, r /= nv1, s *= N) id += (r % nv1) * p * s;
    for (int c = 0; c < dim; c++) coords[v * dim + c] = nodes[id * dim + c];
  }
  for (int z = 0; z < nz; z++) {
    int zi[3] = {0, 0, 0};
    for (int g = 0, r = z; g < dim; g++, r /= n) zi[g] = r % n;
    for (int c = 0; c < nc; c++) {
      int id = 0;
      for (int g = 0, s = 1; g < dim; g++, s *= nv1) id += (zi[g] + ((c >> g) & 1)) * s;
      zv[z * nc + c] = id;
    }
    for (int a = 0; a < nn; a++) {
      int id = 0;
      for (int g = 0, r = a, s = 1; g < dim; g++, r /= p + 1, s *= N)
        id += (zi[g] * p + r % (p + 1)) * s;
      zn[z * nn + a] = id;
    }
  }
  int f = 0;
  for (int g = 0; g < dim; g++)
    for (int side = 0; side < 2; side++)
      for (int z = 0; z < nz; z++) {
        int zi[3] = {0, 0, 0};
        for (int h = 0, r = z; h < dim; h++, r /= n) zi[h] = r % n;
        if (zi[g] != side * (n - 1)) continue;
        for (int c = 0, k = 0; c < nc; c++)
          if (((c >> g) & 1) == side) bv[f * nf + k++] = zv[z * nc + c];
        ba[f++] = 1;
      }
  const BlastMeshDesc d = {.dim = dim,
                           .nverts = nverts,
                           .nzones = nz,
                           .nbdr = nb,
                           .coords = coords,
                           .zone_verts = zv,
                           .bdr_verts = bv,
                           .bdr_attr = ba,
                           .curve_order = p,
                           .nnodes = nnodes,
                           .node_coords = nodes,
                           .zone_nodes = zn};
  const int ierr = BlastMeshCreateFrom(&d, mesh);
  free(coords), free(nodes), free(zv), free(zn), free(bv), free(ba);
  return ierr;
}

static double Rand01(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (double)((*s >> 8) & 0xffff) / 65535.0;
}

// The map of every zone of `m` (the grid of n^dim zones over map `f`, refined to K per
// direction per parent) equals f at random points.
static void CheckReproduces(const char *what, BlastMesh m, int n, MapFn f, double tol) {
  const int dim = BlastMeshDim(m), nz = BlastMeshNumZones(m);
  int per = 1;
  for (int g = 0; g < dim; g++) per *= n;
  const int K = (int)lround(pow((double)nz / per, 1.0 / dim));
  unsigned s = 7;
  double worst = 0.0;
  for (int z = 0; z < nz; z++) {
    // Children of parent z/K^dim are consecutive and lexicographic.
    int kd = 1;
    for (int g = 0; g < dim; g++) kd *= K;
    const int parent = z / kd, c = z % kd;
    for (int q = 0; q < 4; q++) {
      double xi[3] = {0, 0, 0}, u[3] = {0, 0, 0}, x[3] = {0, 0, 0}, y[3] = {0, 0, 0};
      for (int g = 0, rp = parent, rc = c; g < dim; g++, rp /= n, rc /= K) {
        xi[g] = Rand01(&s);
        u[g] = ((rp % n) + ((rc % K) + xi[g]) / K) / n;
      }
      BlastMeshZoneMap(m, z, xi, x);
      f(dim, u, y);
      for (int g = 0; g < dim; g++) worst = fmax(worst, fabs(x[g] - y[g]));
    }
  }
  TEST_ASSERT(worst <= tol, "%s: the zone maps differ from the exact map by %.3e (tol %.1e)", what,
              worst, tol);
}

// The quadratic maps on simplices: 2D as Poly; 3D (x + a y^2, y + b z^2, z + c x y).
static void PolyS(int dim, const double *u, double *x) {
  if (dim == 2) return Poly(2, u, x);
  x[0] = u[0] + kA * u[1] * u[1], x[1] = u[1] + kB * u[2] * u[2], x[2] = u[2] + kC * u[0] * u[1];
}

// MFEM text of straight simplices (vertices X, elements E with nv vertices each, faces B)
// with H1 nodes of order 2 of the map PolyS: vertex dofs, then one per edge, edges
// numbered by first appearance (MFEM's local edges of triangles / tetrahedra).
static int SimplexText(int dim, int nvert, const double *X, int ne, const int *E, int nb,
                       const int *B, char *buf, size_t len, int curved) {
  static const int tri[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  static const int tet[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  const int nv = dim + 1, nle = dim == 2 ? 3 : 6;
  int edges[64][2], nedge = 0;
  double mid[64][3];
  for (int e = 0; e < ne; e++)
    for (int j = 0; j < nle; j++) {
      const int a = E[e * nv + (dim == 2 ? tri[j][0] : tet[j][0])];
      const int b = E[e * nv + (dim == 2 ? tri[j][1] : tet[j][1])];
      int k = 0;
      while (k < nedge &&
             !((edges[k][0] == a && edges[k][1] == b) || (edges[k][0] == b && edges[k][1] == a)))
        k++;
      if (k < nedge) continue;
      edges[nedge][0] = a, edges[nedge][1] = b;
      for (int c = 0; c < dim; c++) mid[nedge][c] = 0.5 * (X[a * dim + c] + X[b * dim + c]);
      nedge++;
    }
  size_t n = (size_t)snprintf(buf, len, "MFEM mesh v1.0\ndimension\n%d\nelements\n%d\n", dim, ne);
  for (int e = 0; e < ne; e++) {
    n += (size_t)snprintf(buf + n, len - n, "1 %d", dim == 2 ? 2 : 4);
    for (int c = 0; c < nv; c++) n += (size_t)snprintf(buf + n, len - n, " %d", E[e * nv + c]);
    n += (size_t)snprintf(buf + n, len - n, "\n");
  }
  n += (size_t)snprintf(buf + n, len - n, "boundary\n%d\n", nb);
  for (int f = 0; f < nb; f++) {
    n += (size_t)snprintf(buf + n, len - n, "1 %d", dim == 2 ? 1 : 2);
    for (int c = 0; c < dim; c++) n += (size_t)snprintf(buf + n, len - n, " %d", B[f * dim + c]);
    n += (size_t)snprintf(buf + n, len - n, "\n");
  }
  if (!curved) {
    n += (size_t)snprintf(buf + n, len - n, "vertices\n%d\n%d\n", nvert, dim);
    for (int v = 0; v < nvert; v++)
      for (int c = 0; c < dim; c++)
        n += (size_t)snprintf(buf + n, len - n, "%.17g%c", X[v * dim + c], c == dim - 1 ? 10 : 32);
    return (int)n;
  }
  n += (size_t)snprintf(buf + n, len - n,
                        "vertices\n%d\nnodes\nFiniteElementSpace\nFiniteElementCollection: "
                        "H1_%dD_P2\nVDim: %d\nOrdering: 1\n",
                        nvert, dim, dim);
  for (int d = 0; d < nvert + nedge; d++) {
    double y[3];
    PolyS(dim, d < nvert ? &X[d * dim] : mid[d - nvert], y);
    for (int c = 0; c < dim; c++)
      n += (size_t)snprintf(buf + n, len - n, "%.17g%c", y[c], c == dim - 1 ? 10 : 32);
  }
  return (int)n;
}

// Curved triangles and a tetrahedron of order 2 from MFEM text: the map is the quadratic
// map of the straight zone's affine map; straight mixed triangles and quadrilaterals.
static void CheckSimplexFiles(void) {
  char buf[8192];
  const double X2[] = {0, 0, 1, 0, 1, 1, 0, 1};
  const int E2[] = {3, 0, 2, 0, 1, 2}, B2[] = {0, 1, 1, 2, 2, 3, 3, 0};
  const double X3[] = {0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1};
  const int E3[] = {0, 2, 1, 3}, B3[] = {0, 1, 2, 0, 2, 3, 0, 3, 1, 2, 1, 3};
  for (int dim = 2; dim <= 3; dim++) {
    const int nvert = dim == 2 ? 4 : 4, ne = dim == 2 ? 2 : 1, nb = 4;
    const double *X = dim == 2 ? X2 : X3;
    const int *E = dim == 2 ? E2 : E3;
    const int len = SimplexText(dim, nvert, X, ne, E, nb, dim == 2 ? B2 : B3, buf, sizeof buf, 1);
    BlastMesh m = NULL;
    TEST_CALL(BlastMeshReadBuffer("simplex.mesh", buf, (size_t)len, &m));
    if (!m) continue;
    TEST_ASSERT(BlastMeshCurveOrder(m) == 2 && BlastMeshHasSimplices(m), "%dD simplices: order",
                dim);
    unsigned s = 5;
    double worst = 0.0;
    for (int z = 0; z < ne; z++)
      for (int q = 0; q < 10; q++) {
        double xi[3] = {0, 0, 0}, u[3] = {0, 0, 0}, x[3] = {0, 0, 0}, y[3] = {0, 0, 0}, sum = 0;
        for (int g = 0; g < dim; g++) xi[g] = Rand01(&s) / dim, sum += xi[g];
        (void)sum;
        const double *X0 = &X[E[z * (dim + 1)] * dim];
        for (int c = 0; c < dim; c++) {
          u[c] = X0[c];
          for (int g = 0; g < dim; g++)
            u[c] += xi[g] * (X[E[z * (dim + 1) + g + 1] * dim + c] - X0[c]);
        }
        BlastMeshZoneMap(m, z, xi, x);
        PolyS(dim, u, y);
        for (int c = 0; c < dim; c++) worst = fmax(worst, fabs(x[c] - y[c]));
      }
    TEST_ASSERT(worst < 1e-14, "%dD curved simplices: map off by %.3e", dim, worst);
    BlastMeshDestroy(&m);
  }
  // Straight: a quadrilateral and two triangles.
  const char *mixed =
      "MFEM mesh v1.0\ndimension\n2\nelements\n3\n1 3 0 1 4 3\n1 2 1 2 4\n1 2 2 5 4\n"
      "boundary\n6\n1 1 0 1\n1 1 1 2\n1 1 2 5\n1 1 5 4\n1 1 4 3\n1 1 3 0\n"
      "vertices\n6\n2\n0 0\n1 0\n2 0\n0 1\n1 1\n2 1\n";
  BlastMesh m = NULL;
  TEST_CALL(BlastMeshReadBuffer("mixed.mesh", mixed, strlen(mixed), &m));
  if (m) {
    TEST_ASSERT(BlastMeshZoneGeom(m, 0) == BLAST_GEOM_SQUARE &&
                    BlastMeshZoneGeom(m, 1) == BLAST_GEOM_TRIANGLE,
                "mixed mesh: geometries %d %d", BlastMeshZoneGeom(m, 0), BlastMeshZoneGeom(m, 1));
    TEST_ASSERT(BlastMeshZoneVerts(m)[4 + 3] == -1, "mixed mesh: padded slot");
    TEST_CLOSE(BlastMeshVolume(m), 2.0, 1e-15);
    // Written and read back: the same zones, geometries and padding.
    BlastMesh r = NULL;
    TEST_CALL(BlastMeshWrite(m, "mixed_roundtrip.mesh"));
    TEST_CALL(BlastMeshRead("mixed_roundtrip.mesh", &r));
    if (r)
      TEST_ASSERT(!memcmp(BlastMeshZoneVerts(r), BlastMeshZoneVerts(m), sizeof(int) * 12) &&
                      BlastMeshZoneGeom(r, 2) == BLAST_GEOM_TRIANGLE,
                  "mixed mesh: the written file reads back differently");
    BlastMeshDestroy(&r);
    remove("mixed_roundtrip.mesh");
  }
  BlastMeshDestroy(&m);
}

static BlastMesh Read(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  BlastMesh m = NULL;
  TEST_CALL(BlastMeshRead(path, &m));
  return m;
}

// The zone maps of a and b (same zones) agree at random points within tol.
static void SameMaps(const char *what, BlastMesh a, BlastMesh b, double tol) {
  if (!a || !b) return;
  TEST_ASSERT(BlastMeshNumZones(a) == BlastMeshNumZones(b), "%s: zone counts", what);
  const int dim = BlastMeshDim(a);
  unsigned s = 11;
  double worst = 0.0;
  for (int z = 0; z < BlastMeshNumZones(a) && z < BlastMeshNumZones(b); z++)
    for (int q = 0; q < 8; q++) {
      double xi[3] = {0, 0, 0}, x[3] = {0, 0, 0}, y[3] = {0, 0, 0};
      for (int g = 0; g < dim; g++) xi[g] = Rand01(&s);
      if (q < 4) xi[q % dim] = (double)(q / dim);  // points on faces too
      BlastMeshZoneMap(a, z, xi, x);
      BlastMeshZoneMap(b, z, xi, y);
      for (int g = 0; g < dim; g++) worst = fmax(worst, fabs(x[g] - y[g]));
    }
  TEST_ASSERT(worst <= tol, "%s: the zone maps differ by %.3e (tol %.1e)", what, worst, tol);
  printf("%s: zone maps agree to %.2e\n", what, worst);
}

// Shoelace area of the straight quadrilaterals of a 2D mesh.
static double PolygonArea(BlastMesh m) {
  const double *x = BlastMeshCoords(m);
  const int *zv = BlastMeshZoneVerts(m);
  static const int ccw[4] = {0, 1, 3, 2};
  double area = 0.0;
  for (int z = 0; z < BlastMeshNumZones(m); z++)
    for (int c = 0; c < 4; c++) {
      const double *p = &x[2 * zv[4 * z + ccw[c]]], *q = &x[2 * zv[4 * z + ccw[(c + 1) % 4]]];
      area += 0.5 * (p[0] * q[1] - p[1] * q[0]);
    }
  return area;
}

static void CheckFiles(const char *meshes, const char *data) {
  BlastMesh curved = Read(meshes, "disc_curved_quad.mesh");
  BlastMesh straight = Read(meshes, "disc_straight_quad.mesh");
  if (curved && straight) {
    TEST_ASSERT(BlastMeshCurveOrder(curved) == 2 && BlastMeshNumZones(curved) == 20,
                "curved disc: order %d, %d zones", BlastMeshCurveOrder(curved),
                BlastMeshNumZones(curved));
    const double vc = BlastMeshVolume(curved), vs = BlastMeshVolume(straight);
    TEST_CLOSE(vs, PolygonArea(straight), 1e-14);
    TEST_CLOSE(vs, 2.0 * sqrt(2.0), 1e-14);  // the regular octagon
    TEST_ASSERT(fabs(vc - M_PI) < 5e-3 && fabs(vc - M_PI) < 0.1 * fabs(vs - M_PI),
                "disc areas: curved %.6f, straight %.6f, pi %.6f", vc, vs, M_PI);
    printf("disc area: curved %.8f straight %.8f (pi %.8f)\n", vc, vs, M_PI);
    // Rim points of the curved zones (the blocks' u = 1 sides) lie near the circle.
    double worst = 0.0;
    for (int z = 4; z < 20; z++)
      for (int q = 0; q <= 8; q++) {
        const double xi[2] = {1.0, q / 8.0};
        double x[2];
        if ((z - 4) % 4 != 1 && (z - 4) % 4 != 3) continue;  // i = n - 1 = 1
        BlastMeshZoneMap(curved, z, xi, x);
        worst = fmax(worst, fabs(hypot(x[0], x[1]) - 1.0));
      }
    TEST_ASSERT(worst < 2e-3, "curved disc: rim off the circle by %.3e", worst);
    BlastMesh r = NULL;
    TEST_CALL(BlastMeshRefine(curved, 2, &r));
    if (r) TEST_CLOSE(BlastMeshVolume(r), vc, 1e-13);
    BlastMeshDestroy(&r);
  }
  const char *disc[2] = {"mfem_disc_p3.mesh", "mfem_disc_p4.mesh"};
  const char *hex[2] = {"mfem_hex_p3.mesh", "mfem_hex_p4.mesh"};
  BlastMesh hex1 = Read(data, "hex_scrambled.mesh");
  for (int k = 0; k < 2; k++) {
    BlastMesh d = Read(data, disc[k]), h = Read(data, hex[k]);
    TEST_ASSERT(d && BlastMeshCurveOrder(d) == 3 + k, "%s: order", disc[k]);
    TEST_ASSERT(h && BlastMeshCurveOrder(h) == 3 + k, "%s: order", hex[k]);
    SameMaps(disc[k], d, curved, 5e-6);
    SameMaps(hex[k], h, hex1, 5e-6);
    BlastMeshDestroy(&d);
    BlastMeshDestroy(&h);
  }
  BlastMeshDestroy(&hex1);
  BlastMeshDestroy(&curved);
  BlastMeshDestroy(&straight);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test_mesh_curved MESH_DIR DATA_DIR\n");
    return 2;
  }
  CheckFiles(argv[1], argv[2]);
  CheckSimplexFiles();
  // Quadratic maps reproduced by orders 2..4, volume = the closed-form integral of det J.
  for (int dim = 2; dim <= 3; dim++)
    for (int p = 2; p <= 4; p++) {
      BlastMesh m = NULL;
      char what[64];
      snprintf(what, sizeof what, "%dD order %d", dim, p);
      TEST_CALL(MakeCurved(dim, 1, p, Poly, &m));
      if (!m) continue;
      TEST_ASSERT(BlastMeshCurveOrder(m) == p, "%s: curve order", what);
      CheckReproduces(what, m, 1, Poly, 1e-14);
      const double exact = dim == 2 ? 1.0 - kA * kB : 1.0 + kA * kB * kC;
      TEST_CLOSE(BlastMeshVolume(m), exact, 1e-14);
      TEST_CALL(BlastMeshCheckJacobians(m, 3));
      // Refinement in reference space: the same map, the same volume, shared nodes.
      for (int levels = 1; levels <= 2; levels++) {
        BlastMesh r = NULL;
        TEST_CALL(BlastMeshRefine(m, levels, &r));
        if (!r) continue;
        const int K = 1 << levels;
        int nodes = 1;
        for (int g = 0; g < dim; g++) nodes *= K * p + 1;
        TEST_ASSERT(BlastMeshNumNodes(r) == nodes, "%s L%d: %d nodes, expected %d (conforming)",
                    what, levels, BlastMeshNumNodes(r), nodes);
        TEST_ASSERT(BlastMeshCurveOrder(r) == p, "%s L%d: order", what, levels);
        CheckReproduces(what, r, 1, Poly, 1e-14);
        TEST_CLOSE(BlastMeshVolume(r), exact, 1e-13);
        TEST_CALL(BlastMeshCheckJacobians(r, 3));
        BlastMeshDestroy(&r);
      }
      BlastMeshDestroy(&m);
    }

  // A 2x2 grid of curved zones over the quadratic map: refinement gives a conforming mesh
  // (the nodes of the global lattice of order 2 K p) that reproduces the map.
  {
    BlastMesh m = NULL, r = NULL;
    TEST_CALL(MakeCurved(2, 2, 2, Poly, &m));
    TEST_CALL(BlastMeshRefine(m, 2, &r));
    if (r) {
      TEST_ASSERT(BlastMeshNumNodes(r) == 17 * 17, "2x2 L2: %d nodes, expected %d",
                  BlastMeshNumNodes(r), 17 * 17);
      CheckReproduces("2x2 grid, 2 levels", r, 2, Poly, 1e-14);
      TEST_CLOSE(BlastMeshVolume(r), 1.0 - kA * kB, 1e-14);
    }
    BlastMeshDestroy(&r);
    BlastMeshDestroy(&m);
  }

  // The quarter annulus 1 <= r <= 2 as one zone of order 4 (nodes on the exact circles):
  // its area is the polynomial interpolant's, within the interpolation error of the
  // exact 3 pi / 4; refinement keeps it to round-off.
  {
    BlastMesh m = NULL, r = NULL;
    TEST_CALL(MakeCurved(2, 1, 4, Annulus, &m));
    TEST_CALL(BlastMeshRefine(m, 3, &r));
    if (m && r) {
      const double v = BlastMeshVolume(m);
      TEST_CLOSE(v, 0.75 * M_PI, 1e-4);
      TEST_CLOSE(BlastMeshVolume(r), v, 1e-13);
      CheckReproduces("annulus refined", r, 1, Annulus, 1e-3);
    }
    BlastMeshDestroy(&r);
    BlastMeshDestroy(&m);
    // Two zones of order 4 in angle: the error of the area drops (by about 2^6).
    BlastMesh m2 = NULL;
    TEST_CALL(MakeCurved(2, 2, 4, Annulus, &m2));
    if (m2) TEST_CLOSE(BlastMeshVolume(m2), 0.75 * M_PI, 2e-6);
    BlastMeshDestroy(&m2);
  }

  // A folded curved zone (an edge's midpoint pushed across the zone): refused.
  {
    BlastMesh m = NULL;
    TEST_CALL(MakeCurved(2, 1, 2, Poly, &m));
    if (m) {
      BlastMeshDesc d;
      BlastMeshDescribe(m, &d);
      double nodes[18];
      memcpy(nodes, d.node_coords, sizeof nodes);
      const int mid = BlastMeshZoneNodes(m)[1];  // the midpoint of the edge y = 0
      nodes[mid * 2 + 1] = 1.5;
      d.node_coords = nodes;
      BlastMesh bad = NULL;
      TEST_CALL(BlastMeshCreateFrom(&d, &bad));
      if (bad) {
        const int ierr = BlastMeshCheckJacobians(bad, 2);
        TEST_ASSERT(ierr == BLAST_ERR_INPUT, "folded zone: %d, expected BLAST_ERR_INPUT", ierr);
        const char *msg = BlastErrorMessage();
        TEST_ASSERT(strstr(msg, "zone 0") && strstr(msg, "curved") && strstr(msg, "non-positive"),
                    "folded zone: message '%s'", msg);
        BlastErrorClear();
      }
      BlastMeshDestroy(&bad);
    }
    BlastMeshDestroy(&m);
  }
  return BlastTestFinish("test_mesh_curved");
}
