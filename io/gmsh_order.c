// Gmsh element types and Gmsh's node order of complete Lagrange elements, as lattice
// indices of blast_gpu (geom.h). See gmsh-impl.h.
//
// Gmsh orders the nodes of an element of order p: its vertices; the interior nodes of
// each edge, from the edge's first vertex to its second, edges in Gmsh's edge order; in
// 3D the interior nodes of each face, ordered as an element of the face's shape of order
// p - 3 (triangles) or p - 2 (quadrilaterals) whose vertices are the face's vertices
// moved one lattice step inward, in the face's vertex order; then the interior nodes,
// ordered as an element of the same shape of order p - (d + 1) (simplices) or p - 2
// (tensor elements) whose vertices are the element's moved one step inward along their
// edges. An element of order 0 is its single node. The reference elements are those of
// geom.h: Gmsh's quadrilaterals and hexahedra on [-1,1]^d map to [0,1]^d; its simplices
// have blast_gpu's vertex order.
#include <string.h>

#include "geom.h"
#include "gmsh-impl.h"

GmshType GmshTypeInfo(int type) {
  enum { S = BLAST_GEOM_SEGMENT, T = BLAST_GEOM_TRIANGLE, Q = BLAST_GEOM_SQUARE };
  enum { E = BLAST_GEOM_TETRAHEDRON, H = BLAST_GEOM_CUBE, P = BLAST_GEOM_POINT };
  // kind, geometry, order, nodes, dimension, name
  static const struct {
    int type;
    GmshType t;
  } table[] = {
      {1, {GMSH_OK, S, 1, 2, 1, "2-node line"}},
      {2, {GMSH_OK, T, 1, 3, 2, "3-node triangle"}},
      {3, {GMSH_OK, Q, 1, 4, 2, "4-node quadrilateral"}},
      {4, {GMSH_OK, E, 1, 4, 3, "4-node tetrahedron"}},
      {5, {GMSH_OK, H, 1, 8, 3, "8-node hexahedron"}},
      {6, {GMSH_PRISM, -1, 1, 6, 3, "6-node prism"}},
      {7, {GMSH_PYRAMID, -1, 1, 5, 3, "5-node pyramid"}},
      {8, {GMSH_OK, S, 2, 3, 1, "3-node line"}},
      {9, {GMSH_OK, T, 2, 6, 2, "6-node triangle"}},
      {10, {GMSH_OK, Q, 2, 9, 2, "9-node quadrilateral"}},
      {11, {GMSH_OK, E, 2, 10, 3, "10-node tetrahedron"}},
      {12, {GMSH_OK, H, 2, 27, 3, "27-node hexahedron"}},
      {13, {GMSH_PRISM, -1, 2, 18, 3, "18-node prism"}},
      {14, {GMSH_PYRAMID, -1, 2, 14, 3, "14-node pyramid"}},
      {15, {GMSH_POINT, P, 1, 1, 0, "point"}},
      {16, {GMSH_SERENDIPITY, -1, 2, 8, 2, "8-node quadrilateral"}},
      {17, {GMSH_SERENDIPITY, -1, 2, 20, 3, "20-node hexahedron"}},
      {18, {GMSH_PRISM, -1, 2, 15, 3, "15-node prism"}},
      {19, {GMSH_PYRAMID, -1, 2, 13, 3, "13-node pyramid"}},
      {20, {GMSH_SERENDIPITY, -1, 3, 9, 2, "9-node triangle"}},
      {21, {GMSH_OK, T, 3, 10, 2, "10-node triangle"}},
      {22, {GMSH_SERENDIPITY, -1, 4, 12, 2, "12-node triangle"}},
      {23, {GMSH_OK, T, 4, 15, 2, "15-node triangle"}},
      {24, {GMSH_SERENDIPITY, -1, 5, 15, 2, "15-node incomplete triangle"}},
      {25, {GMSH_TOO_HIGH, -1, 5, 21, 2, "21-node triangle"}},
      {26, {GMSH_OK, S, 3, 4, 1, "4-node line"}},
      {27, {GMSH_OK, S, 4, 5, 1, "5-node line"}},
      {28, {GMSH_TOO_HIGH, -1, 5, 6, 1, "6-node line"}},
      {29, {GMSH_OK, E, 3, 20, 3, "20-node tetrahedron"}},
      {30, {GMSH_OK, E, 4, 35, 3, "35-node tetrahedron"}},
      {31, {GMSH_TOO_HIGH, -1, 5, 56, 3, "56-node tetrahedron"}},
      {32, {GMSH_SERENDIPITY, -1, 4, 22, 3, "22-node tetrahedron"}},
      {33, {GMSH_SERENDIPITY, -1, 5, 28, 3, "28-node tetrahedron"}},
      {36, {GMSH_OK, Q, 3, 16, 2, "16-node quadrilateral"}},
      {37, {GMSH_OK, Q, 4, 25, 2, "25-node quadrilateral"}},
      {38, {GMSH_TOO_HIGH, -1, 5, 36, 2, "36-node quadrilateral"}},
      {39, {GMSH_SERENDIPITY, -1, 3, 12, 2, "12-node quadrilateral"}},
      {40, {GMSH_SERENDIPITY, -1, 4, 16, 2, "16-node incomplete quadrilateral"}},
      {41, {GMSH_SERENDIPITY, -1, 5, 20, 2, "20-node quadrilateral"}},
      {92, {GMSH_OK, H, 3, 64, 3, "64-node hexahedron"}},
      {93, {GMSH_OK, H, 4, 125, 3, "125-node hexahedron"}},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].type == type) return table[i].t;
  return (GmshType){GMSH_UNKNOWN, -1, 0, 0, -1, "unknown element"};
}

// Gmsh's edges and faces of each geometry (vertex indices in Gmsh's vertex order).
static const int kEdgeSeg[][2] = {{0, 1}};
static const int kEdgeTri[][2] = {{0, 1}, {1, 2}, {2, 0}};
static const int kEdgeQuad[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
static const int kEdgeTet[][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
static const int kEdgeHex[][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                  {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
static const int kFaceTet[][4] = {{0, 2, 1, -1}, {0, 1, 3, -1}, {0, 3, 2, -1}, {3, 1, 2, -1}};
static const int kFaceHex[][4] = {{0, 3, 2, 1}, {0, 1, 5, 4}, {0, 4, 7, 3},
                                  {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}};

typedef struct {
  int n;            // points emitted
  int pts[125][3];  // scaled coordinates (multiples of 1/p times p)
} Emitter;

static void Edges(int geom, const int (**e)[2], int *ne) {
  switch (geom) {
    case BLAST_GEOM_SEGMENT:
      *e = kEdgeSeg, *ne = 1;
      return;
    case BLAST_GEOM_TRIANGLE:
      *e = kEdgeTri, *ne = 3;
      return;
    case BLAST_GEOM_SQUARE:
      *e = kEdgeQuad, *ne = 4;
      return;
    case BLAST_GEOM_TETRAHEDRON:
      *e = kEdgeTet, *ne = 6;
      return;
    case BLAST_GEOM_CUBE:
      *e = kEdgeHex, *ne = 12;
      return;
    default:
      *e = NULL, *ne = 0;
  }
}

// Vertices of the inner element: each vertex moved one step (1/q of the edge) along
// every edge that leaves it (simplices: towards every other vertex).
static void Inward(int geom, int q, const int V[][3], int W[][3]) {
  const int nv = BlastGeomNumVertices(geom);
  const int(*e)[2];
  int ne;
  Edges(geom, &e, &ne);
  for (int i = 0; i < nv; i++) {
    for (int c = 0; c < 3; c++) W[i][c] = V[i][c];
    for (int k = 0; k < ne; k++) {
      const int a = e[k][0], b = e[k][1];
      if (a != i && b != i) continue;
      const int j = a == i ? b : a;
      for (int c = 0; c < 3; c++) W[i][c] += (V[j][c] - V[i][c]) / q;
    }
  }
}

static void Emit(Emitter *out, int geom, int q, const int V[][3]) {
  const int nv = BlastGeomNumVertices(geom), d = BlastGeomDim(geom);
  if (q == 0) {
    memcpy(out->pts[out->n++], V[0], sizeof V[0]);
    return;
  }
  for (int i = 0; i < nv; i++) memcpy(out->pts[out->n++], V[i], sizeof V[0]);
  const int(*e)[2];
  int ne;
  Edges(geom, &e, &ne);
  for (int k = 0; k < ne; k++)
    for (int s = 1; s < q; s++)
      for (int c = 0, *x = out->pts[out->n++]; c < 3; c++)
        x[c] = V[e[k][0]][c] + s * ((V[e[k][1]][c] - V[e[k][0]][c]) / q);
  if (d == 3) {
    const int simplex = BlastGeomIsSimplex(geom), nf = simplex ? 4 : 6;
    const int fgeom = simplex ? BLAST_GEOM_TRIANGLE : BLAST_GEOM_SQUARE;
    const int qf = simplex ? q - 3 : q - 2;
    for (int f = 0; f < nf && qf >= 0; f++) {
      int FV[4][3], W[4][3];
      for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++)
          FV[i][c] = (simplex && i == 3) ? 0 : V[(simplex ? kFaceTet : kFaceHex)[f][i]][c];
      Inward(fgeom, q, (const int(*)[3])FV, W);
      Emit(out, fgeom, qf, (const int(*)[3])W);
    }
  }
  const int qi = BlastGeomIsSimplex(geom) ? q - (d + 1) : q - 2;
  if (d >= 2 && qi >= 0) {
    int W[8][3];
    Inward(geom, q, V, W);
    Emit(out, geom, qi, (const int(*)[3])W);
  }
}

int GmshLatticeOrder(int geom, int p, int flip, int *lat) {
  static const int kCorner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                    {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  static const int kSimplexCorner[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const int d = BlastGeomDim(geom), nv = BlastGeomNumVertices(geom);
  const int nn = BlastGeomNumNodes(geom, p), simplex = BlastGeomIsSimplex(geom);
  if (d < 1 || p < 1 || p > BLAST_MAX_CURVE_ORDER) return -1;
  int V[8][3];
  for (int i = 0; i < nv; i++)
    for (int c = 0; c < 3; c++) V[i][c] = p * (simplex ? kSimplexCorner : kCorner)[i][c];
  Emitter out;
  out.n = 0;
  Emit(&out, geom, p, (const int(*)[3])V);
  if (out.n != nn) return -1;
  int used[125] = {0};
  for (int a = 0; a < nn; a++) {
    int x[3];
    memcpy(x, out.pts[a], sizeof x);
    if (flip) {
      const int t = x[0];
      x[0] = x[1], x[1] = t;
    }
    int idx = -1;
    for (int c = 0; c < 3; c++)
      if (x[c] < 0 || x[c] > (c < d ? p : 0)) return -1;
    if (!simplex) {
      idx = 0;
      for (int c = d - 1; c >= 0; c--) idx = idx * (p + 1) + x[c];
    } else {
      // Lattice order: for i2, for i1, for i0 with i0 + i1 + i2 <= p.
      int k = 0;
      for (int i2 = 0; i2 <= (d == 3 ? p : 0); i2++)
        for (int i1 = 0; i1 + i2 <= p; i1++)
          for (int i0 = 0; i0 + i1 + i2 <= p; i0++, k++)
            if (i0 == x[0] && i1 == x[1] && i2 == x[2]) idx = k;
    }
    if (idx < 0 || idx >= nn || used[idx]) return -1;
    used[idx] = 1;
    lat[a] = idx;
  }
  return 0;
}
