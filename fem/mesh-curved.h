// Curved zones of a mesh (geometry of order p = curve_order > 1): the map, the checks,
// the volume and the refined nodes (mesh_curved.c; used by mesh.c).
#ifndef BLAST_MESH_CURVED_H
#define BLAST_MESH_CURVED_H

#include <stdint.h>

#include "mesh-impl.h"
#include "topology.h"

/// x(xi) = sum_a X_a phi_a(xi) over zone z's nodes (lattice order) on geometry geom; x
/// and/or J (J[c*dim + g] = dx_c/dxi_g) may be NULL.
void BlastMeshCurvedMap(BlastMesh mesh, int z, int geom, const double *xi, double *x, double *J);
/// Zone z's nodes within BLAST_MAX_COORDINATE, det J finite and > 0 at the nq^dim Gauss
/// points x1 (collapsed onto simplices) and at the nodes of order 2p.
int BlastMeshCheckCurvedZone(BlastMesh mesh, int z, int nq, const double *x1);
/// The total volume, exact for maps of order p.
double BlastMeshCurvedVolume(BlastMesh mesh);
/// The refined nodes of a curved mesh (K children per direction): nodes[] on the parent's
/// lattice of order K p, zn[child*(p+1)^dim + a] their ids (-1 past a simplex's nodes);
/// simplex_children: the lattice subdivision of order K (BlastSimplexChildren), NULL on
/// tensor meshes.
int BlastMeshRefineCurvedNodes(BlastMesh mesh, const BlastTopology *t, int K, int64_t nchild,
                               const int *simplex_children, double *nodes, int *zn);

#endif  // BLAST_MESH_CURVED_H
