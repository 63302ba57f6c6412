/// @file space.h
/// @brief Finite element spaces on a rank's zones: continuous H1 (vector valued,
/// component-major) and discontinuous L2 (zone-blocked), with the ownership and ghost
/// structure of a domain decomposition. Quadrilaterals and hexahedra: GLL-nodal Q_k and
/// Bernstein Q_m; triangles and tetrahedra: P_k with nodes at the equispaced lattice of
/// order k (node a = the a-th point in the lattice order of geom.h) and Bernstein P_m.
/// A 2D mesh may mix triangles and quadrilaterals ("mixed"): every zone then has the
/// quadrilateral's sizes h1_nd = (k+1)^2 and l2_nd = (m+1)^2; a triangle zone's nodes past
/// its own BlastGeomNumNodes(TRIANGLE, k) are padding that repeats its node 0 (their
/// h1_edof entries are node 0's dof; the element tables give them zero basis functions).
///
/// Zones are "fine" zones: zone z of the space is child `zone_child[z]` of mesh zone
/// `zone_macro[z]` refined N = 2^rp times in every direction (rp = parallel refinement
/// levels; N = 1 without): tensor children lexicographic, simplex children those of the
/// lattice subdivision of order N (BlastSimplexChildren, the same as uniform mesh
/// refinement). H1 dofs are numbered through the conforming lattice of order K = N k on
/// the mesh (topology.h), so their global ids do not depend on the partition: node j
/// (lattice index of order k) of a simplex child with vertices V_0..V_d (lattice
/// coordinates of order N) is the mesh zone's lattice point V_0 k + sum_g j_g (V_{g+1} - V_0).
///
/// Local facets of a zone: tensor 2g + s (normal to reference axis g at side s); simplex
/// f = the face opposite vertex f (topology.h).
///
/// A rank holds the mesh zones of its part. A dof is owned by the lowest rank whose zones
/// touch it. Local dof numbering ("ext" numbering):
///   [0, h1_nown)          owned dofs (the T-vector), by first appearance in the zones;
///   [h1_nown, h1_nl)      ghosts: touched by this rank's zones, owned elsewhere;
///   [h1_nl, h1_next)      column ghosts: touched only by halo zones (below).
/// L-vectors have h1_nl entries per component: vector field component c of dof i is at
/// [c*h1_nl + i]. Halo zones [nz, nz_ext) are zones of other ranks that contain an owned
/// dof; they serve only to assemble complete matrix rows for the owned dofs.
#ifndef BLAST_SPACE_H
#define BLAST_SPACE_H

#include <stdint.h>

#include "fe.h"
#include "mesh.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int dim, k, m, rp, N, rank;
  int geom;                   ///< BlastGeom of every zone; mixed: BLAST_GEOM_SQUARE
  int mixed;                  ///< 1: triangles and quadrilaterals (BlastSpaceZoneGeom)
  BlastMesh mesh;             ///< the (serially refined) mesh, not owned
  const BlastTopology *topo;  ///< its topology, not owned
  int nz;                     ///< zones of this rank
  int nz_ext;                 ///< plus halo zones
  int *zone_macro;            ///< [nz_ext] mesh zone
  int *zone_child;            ///< [nz_ext] child index in [0, N^dim) (see above)
  int64_t *zone_gid;          ///< [nz_ext] global zone id zone_macro*N^dim + zone_child
  int64_t nz_global;          ///< zones of all ranks
  int h1_nd, l2_nd;           ///< dofs per zone: BlastGeomNumNodes(geom, k), (geom, m)
                              ///< (mixed: the quadrilateral's, padded)
  int h1_nown, h1_nl, h1_next;
  int64_t h1_nglobal;               ///< scalar H1 dofs of the whole mesh
  int *h1_edof;                     ///< [nz_ext*h1_nd] local dof of each zone node
  int64_t *h1_gid;                  ///< [h1_next] global lattice id
  int *h1_owner;                    ///< [h1_next] owning rank
  int *h1_toff, *h1_tidx;           ///< L-dofs: E-indices (z*h1_nd+a) of this rank's zones,
                                    ///< ascending (deterministic assembly of zone contributions)
  int *mass_toff, *mass_tidx;       ///< owned dofs: E-indices over all zones incl. halo zones,
                                    ///< in ascending global zone id (rank-independent order)
  double gll[BLAST_MAX_ORDER + 1];  ///< 1D nodes of order k: GLL (mixed meshes: j/k)
  int *simplex_child;  ///< simplices: [N^dim*(dim+1)*dim] children (BlastSimplexChildren, order N)
  int *node_lattice;   ///< simplices: [h1_nd*dim] lattice index (order k) of each node
} BlastSpace;

/// Build the spaces of rank `rank` whose mesh zones are those with part[Z] == rank
/// (part == NULL: all zones, no ghosts), each refined rp times.
int BlastSpaceCreate(BlastMesh mesh, const BlastTopology *topo, int k, int m, int rp,
                     const int *part, int rank, BlastSpace **space);
void BlastSpaceDestroy(BlastSpace **space);

/// The geometry of zone z (its mesh zone's) and its own number of nodes of order p.
int BlastSpaceZoneGeom(const BlastSpace *s, int z);
int BlastSpaceZoneNumNodes(const BlastSpace *s, int z, int p);
/// Reference coordinates (in the mesh zone) of node a of zone z (padding: node 0's).
void BlastSpaceNodeRef(const BlastSpace *s, int z, int a, double *xi);
/// Map a reference point of zone z (in [0,1]^dim of the fine zone) to its mesh zone.
void BlastSpaceZoneRefToMacro(const BlastSpace *s, int z, const double *xi, double *xi_macro);
/// Physical corner `corner` (lexicographic; simplices: vertex `corner`) of zone z under the
/// mesh's map.
void BlastSpaceZoneCorner(const BlastSpace *s, int z, int corner, double *x);
/// Global lattice id of corner `corner` of zone z (a mesh vertex after refinement).
int64_t BlastSpaceZoneCornerId(const BlastSpace *s, int z, int corner);

/// Essential (v.n = 0) dofs per component (method spec 3.4): the local dofs (ext
/// numbering) on the closure of boundary faces with attribute c+1. Returns offsets
/// ess_off[0..dim] and ascending indices ess_idx (caller frees both with BlastFree).
int BlastSpaceEssentialDofs(const BlastSpace *s, int **ess_off, int **ess_idx);
/// Nodes on a facet of a mesh zone: (N k + 1)^(dim-1) (tensor) or
/// BlastGeomNumNodes(simplex of dim-1, N k) (simplices).
int BlastSpaceFacetNumNodes(const BlastSpace *s);
/// The global node ids of local face lf of mesh zone z (tensor: 2 g + side, normal to
/// reference axis g; simplex: the face opposite vertex lf, BlastZoneFacetCorners), all the
/// lattice points of order N k on it, into gids in the lattice order of the face's own
/// frame (tensor: the other axes; simplex: BlastSimplexFacetPoint). Returns their number,
/// BlastSpaceFacetNumNodes.
int BlastSpaceFacetNodeIds(const BlastSpace *s, int z, int lf, int64_t *gids);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_SPACE_H
