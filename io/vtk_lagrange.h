/// @file vtk_lagrange.h
/// @brief VTK's Lagrange cells (VTK_LAGRANGE_CURVE, _TRIANGLE, _QUADRILATERAL,
/// _TETRAHEDRON, _HEXAHEDRON) of order p: their cell types and the order of their nodes,
/// built from blast_gpu's lattice order of nodes (fem/geom.h).
///
/// VTK's order (VTK 9.1 and later, the XML file version 2.2): the vertices, then the nodes
/// inside the edges, then those inside the faces, then the interior ones.
///   - segment: vertices 0, 1, then the inner nodes from vertex 0 to 1;
///   - quadrilateral: vertices counter-clockwise; edges (0,1) (1,2) (3,2) (0,3), each
///     along its axis (+x or +y); the interior nodes x fastest;
///   - hexahedron: vertices as VTK_HEXAHEDRON; the edges of the bottom face, of the top
///     face (as the quadrilateral's), then the vertical edges above vertices 0, 1, 2, 3,
///     each along +z; faces x = 0, x = 1 (y fastest, then z), y = 0, y = 1 (x fastest, then
///     z), z = 0, z = 1 (x fastest, then y); the interior nodes x fastest;
///   - triangle: vertices, edges (0,1) (1,2) (2,0) each from its first vertex, then the
///     interior nodes as a triangle of order p - 3 ordered the same way (recursively);
///   - tetrahedron: vertices, edges (0,1) (1,2) (2,0) (0,3) (1,3) (2,3), the interior
///     nodes of faces (0,1,3) (2,3,1) (0,3,2) (0,2,1) each ordered as a triangle of order
///     p - 3 with those vertices, then the interior as a tetrahedron of order p - 4.
/// Vertices of blast_gpu's reference elements are VTK's parametric ones: the unit square
/// and cube, the unit simplex with vertex 0 at the origin and vertex g+1 on axis g.
#ifndef BLAST_VTK_LAGRANGE_H
#define BLAST_VTK_LAGRANGE_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
  BLAST_VTK_LAGRANGE_CURVE = 68,
  BLAST_VTK_LAGRANGE_TRIANGLE = 69,
  BLAST_VTK_LAGRANGE_QUADRILATERAL = 70,
  BLAST_VTK_LAGRANGE_TETRAHEDRON = 71,
  BLAST_VTK_LAGRANGE_HEXAHEDRON = 72,
  /// Largest order of the node orderings (VTK has no limit; blast_gpu's H1 order is <= 8).
  BLAST_VTK_LAGRANGE_MAX_ORDER = 8
};

/// The VTK Lagrange cell type of BlastGeom `geom` (segment .. cube); -1 for others.
int BlastVtkLagrangeType(int geom);

/// The node order of VTK's Lagrange cell of order p (1 .. BLAST_VTK_LAGRANGE_MAX_ORDER)
/// on geometry `geom`: lattice[v] is the lattice index (fem/geom.h) of VTK's node v, for
/// v < BlastGeomNumNodes(geom, p).
/// @return 0, or BLAST_ERR_ARG for another geometry or order.
int BlastVtkLagrangeOrder(int geom, int p, int *lattice);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_VTK_LAGRANGE_H
