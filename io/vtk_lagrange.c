// The node order of VTK's Lagrange cells, from blast_gpu's lattice order (vtk_lagrange.h).
#include "vtk_lagrange.h"

#include "blast.h"
#include "geom.h"

int BlastVtkLagrangeType(int geom) {
  switch (geom) {
    case BLAST_GEOM_SEGMENT:
      return BLAST_VTK_LAGRANGE_CURVE;
    case BLAST_GEOM_TRIANGLE:
      return BLAST_VTK_LAGRANGE_TRIANGLE;
    case BLAST_GEOM_SQUARE:
      return BLAST_VTK_LAGRANGE_QUADRILATERAL;
    case BLAST_GEOM_TETRAHEDRON:
      return BLAST_VTK_LAGRANGE_TETRAHEDRON;
    case BLAST_GEOM_CUBE:
      return BLAST_VTK_LAGRANGE_HEXAHEDRON;
    default:
      return -1;
  }
}

// VTK's index of the node (i, j, l) of a tensor cell of order p in dimension dim.
static int TensorIndex(int dim, int p, int i, int j, int l) {
  const int e = p - 1;  // nodes inside an edge
  const int ib = i == 0 || i == p, jb = dim > 1 && (j == 0 || j == p),
            lb = dim > 2 && (l == 0 || l == p);
  if (dim == 1) return ib ? (i ? 1 : 0) : 2 + (i - 1);
  const int corner = i ? (j ? 2 : 1) : (j ? 3 : 0);  // counter-clockwise in the xy-plane
  const int nb = ib + jb + lb;
  if (nb == dim) return corner + (l ? 4 : 0);
  int off = 1 << dim;
  const int ring = 4 * e;  // edge nodes of one xy-face
  if (nb == dim - 1) {     // inside an edge
    const int layer = dim == 3 && l ? ring : 0;
    if (!ib) return off + layer + (i - 1) + (j ? 2 * e : 0);
    if (!jb) return off + layer + (j - 1) + (i ? e : 3 * e);
    // along z above corner 0, 1, 2, 3 (VTK's version 2.2 order)
    return off + 2 * ring + (l - 1) + e * corner;
  }
  if (dim == 2) return off + ring + (i - 1) + e * (j - 1);
  off += 3 * ring;
  const int f = e * e;  // nodes inside a face
  if (nb == 1) {
    if (ib) return off + (j - 1) + e * (l - 1) + (i ? f : 0);
    if (jb) return off + 2 * f + (i - 1) + e * (l - 1) + (j ? f : 0);
    return off + 4 * f + (i - 1) + e * (j - 1) + (l ? f : 0);
  }
  return off + 6 * f + (i - 1) + e * ((j - 1) + e * (l - 1));
}

// Barycentric index vectors (b_0 .. b_3, summing to q, zero but at the three vertices
// `vert` of the triangle) of a VTK triangle of order q in VTK's order, appended at b[*n].
static void TriangleNodes(int q, const int vert[3], int (*b)[4], int *n) {
  if (q < 0) return;
  int *x;
#define NEW() (x = b[(*n)++], x[0] = x[1] = x[2] = x[3] = 0)
  if (q == 0) {
    NEW();
    return;
  }
  for (int v = 0; v < 3; v++) NEW(), x[vert[v]] = q;
  for (int e = 0; e < 3; e++)
    for (int s = 1; s < q; s++) NEW(), x[vert[e]] = q - s, x[vert[(e + 1) % 3]] = s;
  const int m0 = *n;
  TriangleNodes(q - 3, vert, b, n);
  for (int a = m0; a < *n; a++)
    for (int v = 0; v < 3; v++) b[a][vert[v]] += 1;
#undef NEW
}

static void TetNodes(int q, int (*b)[4], int *n) {
  if (q < 0) return;
  int *x;
#define NEW() (x = b[(*n)++], x[0] = x[1] = x[2] = x[3] = 0)
  if (q == 0) {
    NEW();
    return;
  }
  for (int v = 0; v < 4; v++) NEW(), x[v] = q;
  static const int edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  for (int e = 0; e < 6; e++)
    for (int s = 1; s < q; s++) NEW(), x[edges[e][0]] = q - s, x[edges[e][1]] = s;
  static const int faces[4][3] = {{0, 1, 3}, {2, 3, 1}, {0, 3, 2}, {0, 2, 1}};
  for (int f = 0; f < 4; f++) {
    const int m0 = *n;
    TriangleNodes(q - 3, faces[f], b, n);
    for (int a = m0; a < *n; a++)
      for (int v = 0; v < 3; v++) b[a][faces[f][v]] += 1;
  }
  const int m0 = *n;
  TetNodes(q - 4, b, n);
  for (int a = m0; a < *n; a++)
    for (int v = 0; v < 4; v++) b[a][v] += 1;
#undef NEW
}

int BlastVtkLagrangeOrder(int geom, int p, int *lattice) {
  BlastCheck(lattice && p >= 1 && p <= BLAST_VTK_LAGRANGE_MAX_ORDER, BLAST_ERR_ARG,
             "VTK Lagrange cell of order %d (1 .. %d)", p, BLAST_VTK_LAGRANGE_MAX_ORDER);
  BlastCheck(BlastVtkLagrangeType(geom) >= 0, BLAST_ERR_ARG, "no VTK Lagrange cell for a %s",
             BlastGeomName(geom));
  const int dim = BlastGeomDim(geom), n = BlastGeomNumNodes(geom, p);
  if (!BlastGeomIsSimplex(geom)) {
    const int n1 = p + 1;
    for (int a = 0; a < n; a++)
      lattice[TensorIndex(dim, p, a % n1, (a / n1) % n1, a / (n1 * n1))] = a;
    return 0;
  }
  // The lattice index of each (i_0, i_1, i_2), then VTK's nodes as barycentric vectors
  // (b_0 = p - sum i_g at vertex 0, b_{g+1} = i_g).
  enum { N1 = BLAST_VTK_LAGRANGE_MAX_ORDER + 1 };
  int index[N1][N1][N1];
  int a = 0;
  for (int l = 0; l <= (dim > 2 ? p : 0); l++)
    for (int j = 0; j <= p - l; j++)
      for (int i = 0; i <= p - l - j; i++) index[l][j][i] = a++;
  int b[(N1 * (N1 + 1) * (N1 + 2)) / 6][4];
  int m = 0;
  static const int tri[3] = {0, 1, 2};
  if (dim == 2)
    TriangleNodes(p, tri, b, &m);
  else
    TetNodes(p, b, &m);
  BlastCheck(m == n && a == n, BLAST_ERR_INTERNAL, "%s of order %d: %d VTK nodes, %d lattice",
             BlastGeomName(geom), p, m, a);
  for (int v = 0; v < n; v++) lattice[v] = index[dim > 2 ? b[v][3] : 0][b[v][2]][b[v][1]];
  return 0;
}
