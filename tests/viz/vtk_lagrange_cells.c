// Writes one VTK Lagrange cell of every geometry (segment, triangle, quadrilateral,
// tetrahedron, hexahedron) and order 1..8 into one .vtu file, with blast_gpu's writer
// (io/viz_vtu.h) and node orders (io/vtk_lagrange.h), for test_vtk_lagrange.py:
//   - the nodes of a cell of order p are the lattice points xi = i/p (fem/geom.h), written
//     in VTK's order; point data "xi" holds each node's reference coordinates;
//   - each node is at X(xi), a polynomial map of degree p (per direction on tensor
//     geometries, in total on simplices), the same as test_vtk_lagrange.py's:
//       X_c = xi_c (0 for c >= dim) + 0.1 (c+1) P(xi),
//       tensor P = prod_g xi_g^p + 0.5 xi_0^p, simplex P = (0.3 + xi_0 + 0.5 xi_1 - 0.7 xi_2)^p;
//   - cell data "geom" (BlastGeom) and "order".
// Checks here: every order is a permutation of the lattice whose first nodes are the
// vertices (tensor: counter-clockwise, VTK's; simplex: vertex 0, then on axis 0, 1, 2).
// Usage: vtk_lagrange_cells OUT.vtu
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"
#include "geom.h"
#include "viz_vtu.h"
#include "vtk_lagrange.h"

enum { MAXP = BLAST_VTK_LAGRANGE_MAX_ORDER, MAXN = (MAXP + 1) * (MAXP + 1) * (MAXP + 1) };

// Reference coordinates of lattice node a of order p on geometry g.
static void LatticePoint(int g, int p, int a, double xi[3]) {
  const int dim = BlastGeomDim(g);
  int idx[3] = {0, 0, 0};
  if (!BlastGeomIsSimplex(g)) {
    for (int c = 0, r = a; c < dim; c++, r /= p + 1) idx[c] = r % (p + 1);
  } else {
    int n = 0;
    for (int l = 0; l <= (dim > 2 ? p : 0); l++)
      for (int j = 0; j <= p - l; j++)
        for (int i = 0; i <= p - l - j; i++, n++)
          if (n == a) idx[0] = i, idx[1] = j, idx[2] = l;
  }
  for (int c = 0; c < 3; c++) xi[c] = (double)idx[c] / p;
}

static void Map(int g, int p, const double xi[3], double X[3]) {
  const int dim = BlastGeomDim(g);
  double P;
  if (BlastGeomIsSimplex(g)) {
    P = pow(0.3 + xi[0] + 0.5 * xi[1] - 0.7 * xi[2], p);
  } else {
    P = 0.5 * pow(xi[0], p);
    double q = 1.0;
    for (int c = 0; c < dim; c++) q *= pow(xi[c], p);
    P += q;
  }
  for (int c = 0; c < 3; c++) X[c] = (c < dim ? xi[c] : 0.0) + 0.1 * (c + 1) * P;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT.vtu\n", argv[0]);
    return 2;
  }
  static const int geoms[5] = {BLAST_GEOM_SEGMENT, BLAST_GEOM_TRIANGLE, BLAST_GEOM_SQUARE,
                               BLAST_GEOM_TETRAHEDRON, BLAST_GEOM_CUBE};
  // Vertices as lattice points times p: tensor in VTK's (counter-clockwise) order.
  static const int corners[5][8][3] = {
      {{0, 0, 0}, {1, 0, 0}},
      {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
      {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}},
      {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
      {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}};
  const int ncells = 5 * MAXP;
  long long npts = 0;
  for (int gi = 0; gi < 5; gi++)
    for (int p = 1; p <= MAXP; p++) npts += BlastGeomNumNodes(geoms[gi], p);
  double *X = malloc(sizeof(double) * 3 * npts), *XI = malloc(sizeof(double) * 3 * npts);
  int64_t *conn = malloc(sizeof(int64_t) * npts), offs[5 * MAXP];
  uint8_t types[5 * MAXP];
  int geom[5 * MAXP], order[5 * MAXP], fails = 0;
  if (!X || !XI || !conn) return 1;
  long long pt = 0;
  for (int gi = 0, c = 0; gi < 5; gi++)
    for (int p = 1; p <= MAXP; p++, c++) {
      const int g = geoms[gi], n = BlastGeomNumNodes(g, p);
      int lattice[MAXN], seen[MAXN] = {0};
      if (BlastVtkLagrangeOrder(g, p, lattice)) {
        BlastErrorPrint();
        return 1;
      }
      for (int v = 0; v < n; v++) {
        if (lattice[v] < 0 || lattice[v] >= n || seen[lattice[v]]++) {
          fprintf(stderr, "FAIL %s p=%d: VTK node %d -> lattice %d (not a permutation)\n",
                  BlastGeomName(g), p, v, lattice[v]);
          fails++;
          continue;
        }
        double xi[3], Y[3];
        LatticePoint(g, p, lattice[v], xi);
        if (v < BlastGeomNumVertices(g))
          for (int d = 0; d < 3; d++)
            if (xi[d] != corners[gi][v][d]) {
              fprintf(stderr, "FAIL %s p=%d: vertex %d at xi_%d = %g\n", BlastGeomName(g), p, v, d,
                      xi[d]);
              fails++;
            }
        Map(g, p, xi, Y);
        memcpy(&X[3 * (pt + v)], Y, sizeof Y);
        memcpy(&XI[3 * (pt + v)], xi, sizeof xi);
        conn[pt + v] = pt + v;
      }
      pt += n;
      offs[c] = pt;
      types[c] = (uint8_t)BlastVtkLagrangeType(g);
      geom[c] = g, order[c] = p;
    }
  const BlastVtuArray pa[1] = {{"xi", "Float64", 3, XI}};
  const BlastVtuArray ca[2] = {{"geom", "Int32", 1, geom}, {"order", "Int32", 1, order}};
  const BlastVtuPiece piece = {npts, ncells, X, conn, offs, types, 1, 2, pa, ca, 0.0};
  if (BlastVtuWritePiece(argv[1], &piece)) {
    BlastErrorPrint();
    return 1;
  }
  printf("vtk_lagrange_cells: %d cells (5 geometries, orders 1..%d), %lld points -> %s%s\n", ncells,
         MAXP, npts, argv[1], fails ? " FAIL" : "");
  free(X), free(XI), free(conn);
  return fails ? 1 : 0;
}
