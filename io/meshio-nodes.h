// Curved MFEM meshes: the `nodes` grid function of an H1 collection of order p, in MFEM's
// degree-of-freedom order, converted to blast_gpu's nodes in lattice order (geom.h).
// Internal to io/ (meshio.c).
#ifndef BLAST_MESHIO_NODES_H
#define BLAST_MESHIO_NODES_H

#include <stddef.h>

/// Parse an MFEM FiniteElementCollection name for mesh nodes of dimension dim: order
/// *p (1..BLAST_MAX_CURVE_ORDER) and *uniform (1: nodes at equispaced points, 0: at
/// Gauss-Lobatto points). Returns 0, or 1 with the reason in why.
int BlastMfemCollection(const char *name, int dim, int *p, int *uniform, char *why, size_t len);

/// The MFEM global dof of every lattice node of every zone (zone_verts lexicographic with
/// 2^dim slots padded by -1, zone_geom may be NULL = tensor): zone_dofs[z*(p+1)^dim + a]
/// (padded -1), and the number of dofs MFEM's H1 space of order p has on this mesh
/// (vertices, edges, faces, interiors: MFEM's numbering of edges and faces by first
/// appearance). Returns 0, or BLAST_ERR_INPUT with the zone in *bad_zone (an unsupported
/// geometry and order) or BLAST_ERR_MEM.
int BlastMfemNodeDofs(int dim, int nverts, int nzones, const int *zone_verts,
                      const unsigned char *zone_geom, int p, int *zone_dofs, int *ndofs,
                      int *bad_zone);

/// Node coordinates in lattice order from the dof values (values[dof*dim + c]): each
/// zone's nodes are its map (the GLL or uniform interpolant of its dofs) at the lattice
/// points; node_coords[ndofs*dim] indexed by the dofs of zone_dofs.
void BlastMfemNodesToLattice(int dim, int nzones, const unsigned char *zone_geom, int p,
                             int uniform, const int *zone_dofs, const double *values,
                             double *node_coords);

#endif  // BLAST_MESHIO_NODES_H
