/// @file topology.h
/// @brief Mesh entities (edges, faces) with global numbers and the conforming "lattice"
/// numbering used for both uniform refinement and continuous H1 dof numbering.
///
/// A lattice of order K puts points on every zone at integer index vectors i of the
/// zone's reference frame (the lattice order of geom.h): i in [0,K]^d on tensor zones,
/// i_g >= 0 with sum_g i_g <= K on simplices (the point sum_g (i_g/K) e_g of the unit
/// simplex). Points on shared vertices, edges and faces are identified between zones
/// through the global vertex numbers of the entity's corners, so that the numbering is
/// conforming whatever the zones' orientations:
///   - edge points are ordered from the edge's lower-numbered vertex;
///   - quadrilateral face points (3D) use a frame with origin at the face's lowest-numbered
///     vertex and first axis towards the lower-numbered of that vertex's two face
///     neighbours;
///   - triangular face points (tetrahedra) with barycentric indices (c0, c1, c2) relative
///     to the face's vertices in ascending global number (all >= 1, sum K) are numbered
///     in the lattice order of (c1 - 1, c2 - 1), a triangle lattice of order K - 3.
/// Global lattice ids: vertices [0,nv), then K-1 points per edge, then per face (3D)
/// (K-1)^2 (quadrilateral) or (K-1)(K-2)/2 (triangle), in face order, then per zone interior
/// (K-1)^d (tensor), (K-1)(K-2)/2 (triangle) or (K-1)(K-2)(K-3)/6 (tetrahedron), in zone
/// order, interior points in lattice order. The ids depend only on the mesh (not on which
/// zones a rank owns), so every rank that holds the same mesh computes the same ids.
///
/// Local entities of a zone: a tensor zone's edge g*2^(d-1) + (bits of the other
/// directions) runs along direction g, its facet 2g+s is normal to g at side s; a
/// simplex's facet f is the one opposite its vertex f (corners ascending), a triangle's
/// edge e is its facet e, a tetrahedron's edges are (0,1) (0,2) (0,3) (1,2) (1,3) (2,3).
/// Per-zone arrays keep a fixed stride (12 edges and 6 faces in 3D, 4 edges in 2D); the
/// slots a simplex does not have hold -1.
#ifndef BLAST_TOPOLOGY_H
#define BLAST_TOPOLOGY_H

#include <stdint.h>

#include "geom.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int dim, nverts, nzones;
  unsigned char *zone_geom;  ///< [nzones] BlastGeom of each zone
  int *zone_simplex_before;  ///< [nzones+1] simplex zones before zone z
  int *face_tri_before;      ///< [nfaces+1] triangular faces before face f (3D)
  int nedges;                ///< 1D: 0
  int nfaces;                ///< zone facets that are not edges: 3D only (0 in 1D/2D)
  int *zone_edges;  ///< [nzones*12] (3D) or [nzones*4] (2D), local edges (above), -1 padded
  int *zone_faces;  ///< [nzones*6] (3D), local facets (above), -1 padded
  int *edge_verts;  ///< [nedges*2] (lower, higher)
  int *face_verts;  ///< [nfaces*4] sorted ascending; triangles end with -1
  /// Facet -> (zone, local facet) of one zone that has it (the first by zone number).
  /// Facets are vertices (1D), edges (2D) or faces (3D); the array is indexed by the
  /// facet's own id.
  int *facet_zone;  ///< [nfacets*2]
  int nfacets;
  /// Zones around each vertex, edge and (3D) face, ascending (CSR: *_zoff, *_zones).
  int *vert_zoff, *vert_zones, *edge_zoff, *edge_zones, *face_zoff, *face_zones;
} BlastTopology;

int BlastTopologyCreate(BlastMesh mesh, BlastTopology **topo);
void BlastTopologyDestroy(BlastTopology **topo);

/// Number of lattice points of order K on the whole mesh.
int64_t BlastLatticeSize(const BlastTopology *t, int K);

/// Global lattice id of point `i` (lattice index of order K: i[g] in [0,K], sum <= K on
/// simplices) of zone z.
int64_t BlastLatticeId(const BlastTopology *t, const int *zone_verts, int z, int K, const int *i);

/// The zones that contain lattice point `gid` (order K): those around the vertex, edge or
/// face it lies on, or its own zone for interior points. Returns the count; *zones points
/// into the topology's adjacency or at *own (for interior points).
int BlastLatticeZones(const BlastTopology *t, int K, int64_t gid, int *own, const int **zones);

/// Dual graph of the mesh (zones adjacent through a facet) in CSR form, for partitioners.
int BlastTopologyDualGraph(const BlastTopology *t, int **xadj, int **adjncy);

/// Id of the facet (vertex in 1D, edge in 2D, face in 3D) with the given corners
/// (2^(dim-1) slots, any order; a triangle's unused fourth slot -1), or -1 if no zone has it.
int BlastTopologyFindFacet(const BlastTopology *t, const int *corners);

/// Facets of a zone of geometry geom: 2 dim (tensor) or dim + 1 (simplex).
int BlastZoneNumFacets(int geom);
/// The local corners (indices into the zone's vertex slots) of local facet `facet` of a
/// zone of geometry geom: tensor facet 2g+s lexicographic in the other directions, simplex
/// facet f = the vertices other than f, ascending. Returns their number (0: no such facet).
int BlastZoneFacetCorners(int geom, int facet, int *corners);

/// Lattice subdivision of the unit d-simplex (d = 1..3) into K^d children: their vertices
/// in integer lattice coordinates of order K, verts[(c*(d+1) + a)*d + g], every child
/// positively oriented. Triangles: for each lattice cell the upward child then, where it
/// fits, the downward one; tetrahedra: for each lattice cell the upward child, the
/// octahedron above it split into 4 along a fixed diagonal, then the downward child.
/// Returns the number of children (K^d). Used by uniform refinement and by the parallel
/// refinement of spaces alike.
int64_t BlastSimplexChildren(int dim, int K, int *verts);
/// Zone lattice index i (order K) of point p of local facet `facet` of a d-simplex: p is
/// a lattice index of order K (d-1 entries) in the facet's own frame, whose vertices are
/// the zone's vertices other than `facet`, ascending.
void BlastSimplexFacetPoint(int dim, int facet, int K, const int *p, int *i);

/// Check that the mesh `t` was built from is conforming: no two zones have the same
/// vertex set (duplicated elements), every facet belongs to at most two zones, no two
/// unmatched triangular faces overlap (tetrahedra that split a surface differently), and a
/// facet of one zone only is a boundary element of the mesh (otherwise the neighbour across it
/// is missing or split into smaller zones: a hanging node; not checked in 1D, where an end
/// point without one is a free end, nor while a boundary element matches no facet, the
/// reader's own error). BLAST_ERR_INPUT naming the
/// lowest offending zone; the message starts with "zone <number>" (the mesh reader puts
/// the file and line of that element in front).
int BlastTopologyCheckConforming(const BlastTopology *t, BlastMesh mesh);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_TOPOLOGY_H
