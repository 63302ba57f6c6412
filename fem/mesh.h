/// @file mesh.h
/// @brief Unstructured meshes of segments (1D), triangles and quadrilaterals (2D),
/// tetrahedra or hexahedra (3D), straight or curved (geometry given by nodes of order
/// p <= BLAST_MAX_CURVE_ORDER), with zone attributes, boundary faces with attributes, and
/// optional names of attributes (Gmsh physical names).
///
/// Vertex order convention inside blast_gpu (geom.h): tensor zones list their corners
/// **lexicographically** in the reference coordinates of [0,1]^d, x fastest: corner
/// (i,j,l) in {0,1}^3 is index i + 2j + 4l; simplices list vertex 0 (the reference
/// origin) then the vertices along the reference axes, positively oriented. (MFEM mesh
/// files list quads counter-clockwise and hexes as bottom-ccw then top-ccw; the readers
/// convert.) Boundary faces use the corner order of the face's own parametrisation; their
/// orientation is irrelevant.
///
/// Per-zone arrays have a fixed stride: zone_verts 2^dim entries per zone, bdr_verts
/// 2^(dim-1) per face, zone_nodes (p+1)^dim per zone; a simplex uses the first entries of
/// its slot and the rest hold -1. zone_geom/bdr_geom give each entry's geometry.
#ifndef BLAST_MESH_H
#define BLAST_MESH_H

#include "blast.h"
#include "geom.h"

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
int BlastMeshCreate(int dim, int nverts, const double *coords, int nzones, const int *zone_verts,
                    const int *zone_attr, int nbdr, const int *bdr_verts, const int *bdr_attr,
                    BlastMesh *mesh);
/// Longest attribute name (bytes, with the terminating NUL).
enum { BLAST_MESH_NAME_MAX = 64 };

/// A named attribute: zones (dim = mesh dimension) or boundary faces (dim - 1).
typedef struct {
  int dim;
  int attr;
  char name[BLAST_MESH_NAME_MAX];
} BlastMeshName;

/// Everything a mesh is made of (arrays are copied by BlastMeshCreateFrom).
typedef struct {
  int dim, nverts, nzones, nbdr;
  const double *coords;            ///< [nverts*dim]
  const int *zone_verts;           ///< [nzones*2^dim], simplex slots padded with -1
  const unsigned char *zone_geom;  ///< [nzones] BlastGeom; NULL: all tensor
  const int *zone_attr;            ///< [nzones] >= 1; NULL: all 1
  const int *bdr_verts;            ///< [nbdr*2^(dim-1)], padded with -1
  const unsigned char *bdr_geom;   ///< [nbdr]; NULL: all tensor
  const int *bdr_attr;             ///< [nbdr] >= 1
  /// Curved geometry: order 2..BLAST_MAX_CURVE_ORDER, or 0/1 for straight zones (the
  /// node arrays are then ignored). Nodes of zone z in lattice order (geom.h) at
  /// zone_nodes[z*(p+1)^dim + a], indices into node_coords; its vertices are the nodes
  /// at the zone's corners and must have the vertex coordinates.
  int curve_order;
  int nnodes;
  const double *node_coords;  ///< [nnodes*dim]
  const int *zone_nodes;      ///< [nzones*(p+1)^dim], padded with -1
  int nnames;
  const BlastMeshName *names;  ///< [nnames], unique (dim, attr) and (dim, name)
} BlastMeshDesc;

/// Create a mesh of any supported geometries (validates as BlastMeshCreate does, plus
/// each zone's geometry against the dimension, the padding, the nodes and the names).
int BlastMeshCreateFrom(const BlastMeshDesc *desc, BlastMesh *mesh);
/// The description of an existing mesh (pointers into the mesh; valid while it lives).
void BlastMeshDescribe(BlastMesh mesh, BlastMeshDesc *desc);

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

/// Geometry (BlastGeom) of zone z / boundary face f.
int BlastMeshZoneGeom(BlastMesh mesh, int z);
int BlastMeshBdrGeom(BlastMesh mesh, int f);
/// 1 if every zone is a tensor zone (segment, quadrilateral, hexahedron).
int BlastMeshIsTensor(BlastMesh mesh);
/// 1 if some zone is a simplex.
int BlastMeshHasSimplices(BlastMesh mesh);
/// Order of the geometry: 1 for straight zones, 2..4 for curved ones.
int BlastMeshCurveOrder(BlastMesh mesh);
int BlastMeshNumNodes(BlastMesh mesh);
const double *BlastMeshNodeCoords(BlastMesh mesh);  ///< NULL for straight meshes
const int *BlastMeshZoneNodes(BlastMesh mesh);      ///< NULL for straight meshes
/// Attribute names: count, the array, the attribute of a name (-1 if none) and the name
/// of an attribute (NULL if none); dim = mesh dimension for zones, dim - 1 for faces.
int BlastMeshNumNames(BlastMesh mesh);
const BlastMeshName *BlastMeshNames(BlastMesh mesh);
int BlastMeshAttributeOfName(BlastMesh mesh, int dim, const char *name);
const char *BlastMeshNameOfAttribute(BlastMesh mesh, int dim, int attr);

/// Physical position of reference point `xi` of zone `z` under its map: multilinear on
/// [0,1]^dim for tensor zones, affine x_0 + sum_g xi_g (x_{g+1} - x_0) on the unit simplex
/// for straight simplices; on curved meshes (BlastMeshCurveOrder > 1) the map of order p,
/// x(xi) = sum_a X_a phi_a(xi) over the zone's nodes (BlastGeomLagrange), any geometry.
void BlastMeshZoneMap(BlastMesh mesh, int z, const double *xi, double *x);

/// Jacobian J[c*dim + g] = dx_c/dxi_g of zone z's map (multilinear, affine or curved) at
/// `xi`; returns det J.
double BlastMeshZoneJacobian(BlastMesh mesh, int z, const double *xi, double *J);

/// Uniformly refine `levels` times (K = 2^levels): every zone split into K^dim children
/// (children of zone z are consecutive): tensor zones into the cells of the lattice of
/// order K, lexicographic; simplices by the lattice subdivision of order K
/// (BlastSimplexChildren: triangles into K^2, tetrahedra into K^3, each child positive and
/// of volume parent/K^dim, the result conforming), boundary faces likewise with their
/// attributes, zone attributes and attribute names inherited. Deterministic: the same
/// bits on every rank. Returns a new mesh. A curved mesh is refined in reference space:
/// the children's nodes of order p are the parent's map at the points of its lattice of
/// order K p (each point computed once, so shared nodes are one node, the same bits in
/// every zone that holds them); a simplex child's nodes are those of its own lattice of
/// order p in that lattice (the parent's map composed with the child's affine map).
int BlastMeshRefine(BlastMesh mesh, int levels, BlastMesh *refined);

/// Check that every zone's vertices are within BLAST_MAX_COORDINATE and its
/// multilinear map has a finite Jacobian with a positive
/// determinant at the tensor Gauss-Legendre points with `nq` points per direction and at
/// its corners (huge coordinates overflow: "coordinates too large or not finite"); a
/// straight simplex has a constant Jacobian: "zone N (tetrahedron, attribute A) is
/// inverted: det J = ..." when negative, "... is degenerate: det J = 0" when zero; a
/// curved zone: its nodes within BLAST_MAX_COORDINATE, det J > 0 at the Gauss points
/// (collapsed onto simplices) and at the nodes of order 2p; then
/// that the mesh is conforming (BlastTopologyCheckConforming: no duplicated zones, no face
/// of three zones, no face of one zone that is not a boundary element). Error
/// (BLAST_ERR_INPUT) names the first bad zone ("zone N ..."), its point and the determinant.
int BlastMeshCheckJacobians(BlastMesh mesh, int nq);

/// Total volume (sum of |det J| quadrature of each multilinear zone map; |det J| / dim! for
/// straight simplices; curved zones with enough points to be exact).
double BlastMeshVolume(BlastMesh mesh);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_MESH_H
