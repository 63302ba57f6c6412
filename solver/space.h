/// @file space.h
/// @brief Finite element spaces on a rank's zones: continuous H1 (GLL-nodal Q_k, vector
/// valued, component-major) and discontinuous L2 (Bernstein Q_m, zone-blocked).
///
/// Zones are "fine" zones: zone z of the space is child `zone_child[z]` of mesh zone
/// `zone_macro[z]` refined N = 2^rp times in every direction (rp = parallel refinement
/// levels; N = 1 without). H1 dofs are numbered through the conforming lattice of order
/// K = N k on the mesh (topology.h), so their global ids do not depend on the partition.
///
/// Vector views (as in MFEM/libCEED):
///  - E-vector: per zone, the zone's nodes in lexicographic order;
///  - L-vector: the rank's dofs (owned first, then ghosts owned by other ranks);
///  - T-vector: the owned dofs only, the first `h1_nown` entries of the L-vector.
/// A vector field stores component c of L-dof i at [c*h1_nl + i].
#ifndef BLAST_SPACE_H
#define BLAST_SPACE_H

#include <stdint.h>

#include "fe/fe.h"
#include "mesh.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int dim, k, m, rp, N;
  BlastMesh mesh;             ///< the (serially refined) mesh, not owned
  const BlastTopology *topo;  ///< its topology, not owned
  int nz;                     ///< zones of this rank
  int *zone_macro;            ///< [nz] mesh zone
  int *zone_child;            ///< [nz] child index in [0, N^dim), lexicographic
  int64_t *zone_gid;          ///< [nz] global zone id zone_macro*N^dim + zone_child
  int64_t nz_global;          ///< zones of all ranks
  int h1_nd, l2_nd;           ///< dofs per zone: (k+1)^dim, (m+1)^dim
  int h1_nl;                  ///< scalar L-dofs of this rank
  int h1_nown;                ///< owned scalar dofs (T-vector size), the first of the L-dofs
  int64_t h1_nglobal;         ///< scalar H1 dofs of the whole mesh
  int *h1_edof;               ///< [nz*h1_nd] L-dof of each zone node
  int64_t *h1_gid;            ///< [h1_nl] global lattice id of each L-dof
  int *h1_toff, *h1_tidx;     ///< transpose of h1_edof: E-indices (z*h1_nd+a) of each
                              ///< L-dof, ascending; used for deterministic assembly
  double gll[BLAST_MAX_ORDER + 1];  ///< 1D GLL nodes of order k
} BlastSpace;

/// Build the spaces on the zones `zones[0..nz)` of `mesh` (all zones when zones == NULL),
/// each refined rp times. Local dofs are numbered by first appearance in zone order.
int BlastSpaceCreate(BlastMesh mesh, const BlastTopology *topo, int k, int m, int rp, int nz,
                     const int *zones, BlastSpace **space);
void BlastSpaceDestroy(BlastSpace **space);

/// Reference coordinates (in the mesh zone) of node a of zone z.
void BlastSpaceNodeRef(const BlastSpace *s, int z, int a, double *xi);
/// Map a reference point of zone z (in [0,1]^dim of the fine zone) to its mesh zone.
void BlastSpaceZoneRefToMacro(const BlastSpace *s, int z, const double *xi, double *xi_macro);
/// Physical corner `corner` (lexicographic) of zone z under the mesh's multilinear map.
void BlastSpaceZoneCorner(const BlastSpace *s, int z, int corner, double *x);

/// H1 interpolant of the initial (multilinear) mesh map: x[c*h1_nl + i] (method spec 3.3).
void BlastSpaceInitialPositions(const BlastSpace *s, double *x);

/// Essential (v.n = 0) dofs per component (method spec 3.4): the L-dofs on the closure of
/// boundary faces with attribute c+1. Returns offsets ess_off[0..dim] and ascending
/// indices ess_idx (caller frees both with BlastFree).
int BlastSpaceEssentialDofs(const BlastSpace *s, int **ess_off, int **ess_idx);

/// Per-zone gather of a scalar L-vector into the E-layout of zone z.
static inline void BlastSpaceGatherZone(const BlastSpace *s, int z, const double *l, double *e) {
  const int *dof = &s->h1_edof[(size_t)z * s->h1_nd];
  for (int a = 0; a < s->h1_nd; a++) e[a] = l[dof[a]];
}

#ifdef __cplusplus
}
#endif

#endif  // BLAST_SPACE_H
