/// @file geom.h
/// @brief Reference geometries of zones and boundary faces: segments, triangles,
/// quadrilaterals, tetrahedra and hexahedra (numbered as MFEM's Geometry::Type).
///
/// Reference elements and vertex order inside blast_gpu:
///   - tensor geometries (segment, square, cube) are [0,1]^d with their 2^d corners in
///     **lexicographic** order, x fastest: corner (i,j,l) in {0,1}^3 is index i + 2j + 4l;
///   - simplices are the unit simplex {xi_g >= 0, sum xi_g <= 1} with vertex 0 at the
///     origin and vertex g+1 at the unit point of axis g. Its map is
///     x(xi) = x_0 + sum_g xi_g (x_{g+1} - x_0); a positive zone has det J > 0.
/// Nodes of order p on a zone ("lattice order", used by curved geometry, refinement and
/// H1 numbering) are the points xi = i/p of integer index vectors i:
///   - tensor: i in [0,p]^d, x fastest (index i_0 + (p+1) i_1 + (p+1)^2 i_2);
///   - simplex: i_g >= 0 with sum_g i_g <= p, x fastest: for i_2, for i_1, for i_0
///     (a triangle of order 2: (0,0) (1,0) (2,0) (0,1) (1,1) (0,2)).
#ifndef BLAST_GEOM_H
#define BLAST_GEOM_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  BLAST_GEOM_POINT = 0,
  BLAST_GEOM_SEGMENT = 1,
  BLAST_GEOM_TRIANGLE = 2,
  BLAST_GEOM_SQUARE = 3,
  BLAST_GEOM_TETRAHEDRON = 4,
  BLAST_GEOM_CUBE = 5,
} BlastGeom;

/// Largest order of a curved mesh's geometry (nodes per zone: (p+1)^3 for hexahedra).
enum { BLAST_MAX_CURVE_ORDER = 4 };

static inline int BlastGeomDim(int g) {
  static const int d[6] = {0, 1, 2, 2, 3, 3};
  return g >= 0 && g < 6 ? d[g] : -1;
}
static inline int BlastGeomIsSimplex(int g) {
  return g == BLAST_GEOM_TRIANGLE || g == BLAST_GEOM_TETRAHEDRON;
}
static inline int BlastGeomNumVertices(int g) {
  static const int n[6] = {1, 2, 3, 4, 4, 8};
  return g >= 0 && g < 6 ? n[g] : -1;
}
/// The tensor geometry of dimension d (POINT, SEGMENT, SQUARE, CUBE).
static inline int BlastGeomTensor(int d) {
  static const int t[4] = {BLAST_GEOM_POINT, BLAST_GEOM_SEGMENT, BLAST_GEOM_SQUARE,
                           BLAST_GEOM_CUBE};
  return t[d];
}
/// The simplex geometry of dimension d (POINT, SEGMENT, TRIANGLE, TETRAHEDRON).
static inline int BlastGeomSimplex(int d) {
  static const int t[4] = {BLAST_GEOM_POINT, BLAST_GEOM_SEGMENT, BLAST_GEOM_TRIANGLE,
                           BLAST_GEOM_TETRAHEDRON};
  return t[d];
}
/// Nodes of order p on geometry g (lattice order above): (p+1)^d or binomial(p+d, d).
static inline int BlastGeomNumNodes(int g, int p) {
  switch (g) {
    case BLAST_GEOM_POINT:
      return 1;
    case BLAST_GEOM_SEGMENT:
      return p + 1;
    case BLAST_GEOM_TRIANGLE:
      return (p + 1) * (p + 2) / 2;
    case BLAST_GEOM_SQUARE:
      return (p + 1) * (p + 1);
    case BLAST_GEOM_TETRAHEDRON:
      return (p + 1) * (p + 2) * (p + 3) / 6;
    case BLAST_GEOM_CUBE:
      return (p + 1) * (p + 1) * (p + 1);
    default:
      return -1;
  }
}
/// Name for messages ("triangle", "hexahedron", ...).
static inline const char *BlastGeomName(int g) {
  static const char *n[6] = {"point",         "segment",     "triangle",
                             "quadrilateral", "tetrahedron", "hexahedron"};
  return g >= 0 && g < 6 ? n[g] : "unknown geometry";
}

#ifdef __cplusplus
}
#endif

#endif  // BLAST_GEOM_H
