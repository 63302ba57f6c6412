/// @file meshio.h
/// @brief Mesh files (MFEM mesh v1.0 text format) and the built-in Cartesian box mesh.
///
/// Supported: segments (1D); triangles and quadrilaterals, mixed (2D); tetrahedra or
/// hexahedra (3D; prisms, pyramids and tet/hex mixes are refused); vertices explicit or
/// given by an H1 `nodes` grid function. Nodes of order 2..4 make a curved mesh
/// (BlastMeshCurveOrder): MFEM's dofs (Gauss-Lobatto points, or uniform ones for H1@U_,
/// in MFEM's vertex/edge/face/interior order) are converted to blast_gpu's nodes in
/// lattice order (geom.h) by evaluating each zone's map at the lattice points; curved
/// quadrilaterals, hexahedra and triangles of orders 2..4, curved tetrahedra of order 2.
/// Vertex order: MFEM lists quads counter-clockwise and hexes bottom-ccw then top-ccw;
/// blast_gpu meshes are lexicographic (see mesh.h). The reader and the writer convert.
#ifndef BLAST_MESHIO_H
#define BLAST_MESHIO_H

#include <stddef.h>

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Largest mesh file read (1 GiB; every rank reads the serial mesh, so make larger meshes
/// by refinement: [mesh] refine_serial, refine_parallel). Only regular files are read: a
/// FIFO, a device (/dev/zero, /dev/urandom) or a directory is refused without blocking.
#define BLAST_MESH_MAX_BYTES ((size_t)1 << 30)

/// @brief Read an MFEM mesh v1.0 text file.
///
/// Sections `dimension`, `elements`, `boundary`, `vertices` in this order; the vertices
/// are explicit (`N`, space dimension, N coordinate lines) or given by a `nodes` section
/// with an H1 collection (`Linear`, `Quadratic`, `H1_<d>D_P<k>`, `H1@G_`/`H1@U_<d>D_P<k>`,
/// k <= 4), `VDim` equal to the dimension and `Ordering` 0 (by nodes) or 1 (by vector
/// dimension). `#` starts a comment.
/// The zones' Jacobians are checked (positive at 2^d Gauss points and at the corners).
/// @param path  file name
/// @param mesh  on success, the new mesh (destroy with BlastMeshDestroy)
/// @return BLAST_ERR_INPUT for a missing file ("cannot open mesh file 'path': strerror"),
///         a file that is not a regular file ("'path' is a FIFO, not a regular mesh
///         file"), a file larger than BLAST_MESH_MAX_BYTES, or any malformed,
///         unsupported (prisms, pyramids, nodes of order > 4) or inverted input, with a
///         message "path:LINE: what is wrong (what was expected)"; BLAST_ERR_MEM.
int BlastMeshRead(const char *path, BlastMesh *mesh);

/// @brief Read a Gmsh .msh file held in memory: formats 2.2 and 4.1, ASCII or binary
/// (docs/meshes.md). BlastMeshRead and BlastMeshReadBuffer call it for text that starts
/// with "$MeshFormat".
///
/// Zones are the elements of the highest dimension d (segments, triangles and/or
/// quadrilaterals, tetrahedra or hexahedra; complete Lagrange elements of one order
/// p <= BLAST_MAX_CURVE_ORDER; p >= 2 gives a curved mesh whose nodes are in lattice order),
/// boundary faces the elements of dimension d - 1 in a physical group; attributes are the
/// physical tags and $PhysicalNames give the attribute names. A 2D mesh must lie in the
/// plane z = 0; if all its zones are clockwise they are turned over. Refused with
/// BLAST_ERR_INPUT "name:LINE: ..." (ASCII) or "name: byte OFFSET: ..." (binary), naming
/// the element: a file without physical groups, zones in no physical group, serendipity
/// elements, prisms, pyramids, orders above 4, mixed orders, tetrahedra with hexahedra,
/// inverted zones, zone faces on the domain's boundary without a boundary element
/// ("missing boundary faces"), and every malformed, truncated or inconsistent count,
/// tag or value.
int BlastMeshReadGmshBuffer(const char *name, const char *data, size_t len, BlastMesh *mesh);

/// @brief The dimension an MFEM mesh file declares, read from its first lines without
/// reading the mesh (for --print-deck). *dim = 0 where it cannot tell; never an error.
int BlastMeshPeekDim(const char *path, int *dim);

/// @brief As BlastMeshRead, for mesh text held in memory (fuzzers, tests): `len` bytes of
/// `text` (no terminating NUL needed), named `name` in messages in place of the path.
/// @return as BlastMeshRead (no file errors); BLAST_ERR_ARG for NULL arguments.
int BlastMeshReadBuffer(const char *name, const char *text, size_t len, BlastMesh *mesh);

/// @brief Write a mesh as MFEM mesh v1.0 text with explicit vertices (readable by
/// BlastMeshRead and by MFEM; coordinates with 17 significant digits, so a round trip is
/// exact). The file is written under a temporary name in the same folder and renamed
/// at the end, so an existing file at `path` is never left half-written. Triangles and
/// tetrahedra are written with their geometry; a curved mesh's nodes are not written (the
/// file holds its vertices: the straight-sided mesh).
/// @return BLAST_ERR_IO if the file cannot be created, written or renamed.
int BlastMeshWrite(BlastMesh mesh, const char *path);

/// @brief Create the Cartesian mesh of [0,size[0]] x [0,size[1]] (x [0,size[2]]) with
/// n[0] x n[1] (x n[2]) equal zones (1D: n[0] segments).
///
/// Vertices and zones are numbered lexicographically (x fastest). Boundary faces get
/// attributes by their centre (method spec 3.1, tolerance 1e-6): centre at x_min or x_max
/// -> 1; otherwise 2 in 2D; in 3D centre at y_min or y_max -> 2, all others 3. In 1D both
/// end points get 1. Zone attributes are 1.
/// @param dim   1, 2 or 3
/// @param n     dim zone counts, each >= 1
/// @param size  dim domain extents, each finite and > 0
/// @param mesh  on success, the new mesh
/// @return BLAST_ERR_INPUT for a bad dimension, count or size, or a mesh too large for
///         32-bit indices; BLAST_ERR_ARG for NULL arguments; BLAST_ERR_MEM.
int BlastMeshCreateBox(int dim, const int *n, const double *size, BlastMesh *mesh);

/// @brief The box of BlastMeshCreateBox split into simplices ([mesh] generator =
/// box_simplex): every square into 2 triangles and every cube into the 6 tetrahedra around
/// its diagonal from the lowest to the highest corner (a conforming mesh of positively
/// oriented simplices, 2 or 6 per box zone), boundary squares into 2 triangles with the
/// box's attributes. In 1D the box itself.
int BlastMeshCreateBoxSimplex(int dim, const int *n, const double *size, BlastMesh *mesh);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_MESHIO_H
