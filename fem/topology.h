/// @file topology.h
/// @brief Mesh entities (edges, faces) with global numbers and the conforming "lattice"
/// numbering used for both uniform refinement and continuous H1 dof numbering.
///
/// A lattice of order K puts (K+1)^d points on every zone, at integer coordinates
/// i in [0,K]^d of the zone's reference frame. Points on shared vertices, edges and faces
/// are identified between zones through the global vertex numbers of the entity's
/// corners, so that the numbering is conforming whatever the zones' orientations:
///   - edge points are ordered from the edge's lower-numbered vertex;
///   - face points (3D) use a frame with origin at the face's lowest-numbered vertex and
///     first axis towards the lower-numbered of that vertex's two face neighbours.
/// Global lattice ids: vertices [0,nv), then K-1 points per edge, then (K-1)^2 per face
/// (3D), then (K-1)^d per zone interior. The ids depend only on the mesh (not on which
/// zones a rank owns), so every rank that holds the same mesh computes the same ids.
#ifndef BLAST_TOPOLOGY_H
#define BLAST_TOPOLOGY_H

#include <stdint.h>

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int dim, nverts, nzones;
  int nedges;          ///< 1D: 0
  int nfaces;          ///< zone facets that are not edges: 3D quads only (0 in 1D/2D)
  int *zone_edges;     ///< [nzones*12] (3D) or [nzones*4] (2D): local edge 4*g + s1 + 2*s2
                       ///< runs along direction g with the other two coordinates at bits s
  int *zone_faces;     ///< [nzones*6] (3D): local facet 2*g + s is normal to g at side s
  int *edge_verts;     ///< [nedges*2] (lower, higher)
  int *face_verts;     ///< [nfaces*4] sorted ascending
  /// Facet -> (zone, local facet) of one zone that has it (the first by zone number).
  /// Facets are vertices (1D), edges (2D) or faces (3D); the array is indexed by the
  /// facet's own id.
  int *facet_zone;     ///< [nfacets*2]
  int nfacets;
  /// Zones around each vertex, edge and (3D) face, ascending (CSR: *_zoff, *_zones).
  int *vert_zoff, *vert_zones, *edge_zoff, *edge_zones, *face_zoff, *face_zones;
} BlastTopology;

int BlastTopologyCreate(BlastMesh mesh, BlastTopology **topo);
void BlastTopologyDestroy(BlastTopology **topo);

/// Number of lattice points of order K on the whole mesh.
int64_t BlastLatticeSize(const BlastTopology *t, int K);

/// Global lattice id of point `i` (i[g] in [0,K]) of zone z.
int64_t BlastLatticeId(const BlastTopology *t, const int *zone_verts, int z, int K, const int *i);

/// The zones that contain lattice point `gid` (order K): those around the vertex, edge or
/// face it lies on, or its own zone for interior points. Returns the count; *zones points
/// into the topology's adjacency or at *own (for interior points).
int BlastLatticeZones(const BlastTopology *t, int K, int64_t gid, int *own, const int **zones);

/// Dual graph of the mesh (zones adjacent through a facet) in CSR form, for partitioners.
int BlastTopologyDualGraph(const BlastTopology *t, int **xadj, int **adjncy);

/// Id of the facet (vertex in 1D, edge in 2D, face in 3D) with the given corners
/// (2^(dim-1) vertex ids, any order), or -1 if no zone has it.
int BlastTopologyFindFacet(const BlastTopology *t, const int *corners);

/// Check that the mesh `t` was built from is conforming: no two zones have the same
/// vertex set (duplicated elements), every facet belongs to at most two zones, and a facet
/// of one zone only is a boundary element of the mesh (otherwise the neighbour across it
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
