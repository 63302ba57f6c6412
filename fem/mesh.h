/// @file mesh.h
/// @brief Unstructured meshes of segments (1D), quadrilaterals (2D) and hexahedra (3D)
/// with straight (multi-linear) zones, zone attributes (material) and boundary faces with
/// attributes (1/2/3 = normal to x/y/z: v_x/v_y/v_z = 0 there).
///
/// Corner order convention inside blast_gpu: **lexicographic** in the reference
/// coordinates of [0,1]^d, x fastest: corner (i,j,l) in {0,1}^3 is index i + 2j + 4l.
/// (MFEM mesh files list quads counter-clockwise and hexes as bottom-ccw then top-ccw;
/// io/meshio.c converts.) Boundary faces use the lexicographic corner order of the face's
/// own parametrisation; its orientation is irrelevant.
#ifndef BLAST_MESH_H
#define BLAST_MESH_H

#include "blast.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BlastMesh_private *BlastMesh;

/// The largest coordinate magnitude accepted (mesh files, generated and refined meshes,
/// the initial positions): the point physics forms squares of lengths (J^T J, h^2 in the
/// viscosity), which must stay finite; larger coordinates are refused as "coordinates too
/// large or not finite".
#define BLAST_MAX_COORDINATE 1e150

/// Create a mesh from arrays (copied). `zone_verts` has 2^dim entries per zone,
/// `bdr_verts` 2^(dim-1) per boundary face, both in lexicographic corner order;
/// `zone_attr` may be NULL (all 1). Validates indices, attributes (>= 1) and repeated
/// corners; errors are BLAST_ERR_INPUT.
int BlastMeshCreate(int dim, int nverts, const double *coords, int nzones,
                    const int *zone_verts, const int *zone_attr, int nbdr,
                    const int *bdr_verts, const int *bdr_attr, BlastMesh *mesh);
/// Destroy (NULL allowed); sets *mesh = NULL.
int BlastMeshDestroy(BlastMesh *mesh);

int BlastMeshDim(BlastMesh mesh);
int BlastMeshNumVertices(BlastMesh mesh);
int BlastMeshNumZones(BlastMesh mesh);
int BlastMeshNumBoundary(BlastMesh mesh);
/// Vertex coordinates, coords[v*dim + c].
const double *BlastMeshCoords(BlastMesh mesh);
/// Zone corners, 2^dim per zone (lexicographic).
const int *BlastMeshZoneVerts(BlastMesh mesh);
const int *BlastMeshZoneAttr(BlastMesh mesh);
/// Boundary face corners, 2^(dim-1) per face (lexicographic in the face).
const int *BlastMeshBdrVerts(BlastMesh mesh);
const int *BlastMeshBdrAttr(BlastMesh mesh);

/// Physical position of reference point `xi` (in [0,1]^dim) of zone `z` under its
/// multilinear map.
void BlastMeshZoneMap(BlastMesh mesh, int z, const double *xi, double *x);

/// Uniformly refine `levels` times: every zone split into 2^dim children by bisection
/// (children of zone z are consecutive, lexicographic), boundary faces likewise with
/// their attributes, zone attributes inherited. Returns a new mesh.
int BlastMeshRefine(BlastMesh mesh, int levels, BlastMesh *refined);

/// Check that every zone's vertices are within BLAST_MAX_COORDINATE and its
/// multilinear map has a finite Jacobian with a positive
/// determinant at the tensor Gauss-Legendre points with `nq` points per direction and at
/// its corners (huge coordinates overflow: "coordinates too large or not finite"), then
/// that the mesh is conforming (BlastTopologyCheckConforming: no duplicated zones, no face
/// of three zones, no face of one zone that is not a boundary element). Error
/// (BLAST_ERR_INPUT) names the first bad zone ("zone N ..."), its point and the determinant.
int BlastMeshCheckJacobians(BlastMesh mesh, int nq);

/// Total volume (sum of |det J| quadrature of each multilinear zone map).
double BlastMeshVolume(BlastMesh mesh);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_MESH_H
