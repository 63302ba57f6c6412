/// @file viz.h
/// @brief Visualization dumps: the high-order state sampled on linear sub-cells, one
/// parallel HDF5 file per dump and one XDMF time series that ParaView and VisIt open
/// directly (docs/visualization.md).
///
/// Every zone (Q_k on its current, curved position) is cut into `refine`^dim linear
/// sub-cells (segments, quadrilaterals, hexahedra) whose vertices are the equispaced
/// reference points i/refine of the zone, mapped with the H1 basis. Triangles and
/// tetrahedra (P_k): the lattice of order refine and its subdivision into refine^dim
/// triangles or tetrahedra (topology [ncell][dim+1]). A mesh of triangles and
/// quadrilaterals: each zone by its own geometry, /topology XDMF's Mixed list (below).
/// Vertices are not
/// shared between zones: each zone writes its own (refine+1)^dim vertices, so fields that
/// are discontinuous across zones (energy, density) are shown as they are.
///
/// File layout of <dir>/viz_NNNNNN.h5 (N dump number, zero-padded):
///   /coordinates   double [nvert][3]   current positions (z = 0 in 2D, y = z = 0 in 1D)
///   /topology      int64  [ncell][2^dim] global 0-based vertex ids; VTK/XDMF order
///                                      (quadrilateral counter-clockwise, hexahedron bottom
///                                      face counter-clockwise then top face);
///                  int64  [ntopo]      mixed meshes: each sub-cell its XDMF type number
///                                      (4 triangle, 5 quadrilateral), then its vertex ids
///   /density, /specific_internal_energy, /pressure, /sound_speed   double [nvert]
///   /velocity      double [nvert][3]
///   /material      int32  [ncell]      the zone's material: 0-based index into the
///                                      problem's materials (the `materials` attribute)
///   /attribute     int32  [ncell]      zone attribute of the mesh
///   /rank          int32  [ncell]      MPI rank that owns the zone
///   /zone          int64  [ncell]      global zone id
///   attributes of /: time, step, dim, order_kinematic, order_thermo, refine,
///     zones_global, ranks, problem, materials ("0: gas (ideal_gas, gamma = 1.4,
///     p_inf = 0); 1: ..."), format_version
/// blast.xdmf carries the same materials text in <Information Name="materials">.
/// Each rank writes a contiguous block of vertices and cells (its zones in local order),
/// with collective MPI-IO. <dir>/blast.xdmf lists every dump of the run as a temporal
/// collection; it is rewritten after each dump (temporary file + rename on rank 0), so
/// it is always complete and can be opened while the run goes on.
///
/// Point values at reference point xi of zone z: x = sum_a phi_a(xi) x_a, v likewise,
/// e = sum_j psi_j(xi) e_j, rho = rho0(X0) det J0 / det J (mass conservation; X0 the
/// initial position, rho0 evaluated a hair inside the zone so that zone faces on material
/// interfaces take the zone's own side), p and the sound speed from the zone's material
/// (BlastEos, as the solver, with e unclamped); sound speed 0 where rho <= 0 or where
/// the equation of state gives none (an ideal gas with e < 0).
#ifndef BLAST_VIZ_H
#define BLAST_VIZ_H

#include <mpi.h>

#include "hydro.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BLAST_VIZ_FORMAT = 2 };

/// Output formats (a bit set): XDMF + HDF5 of linear sub-cells; VTK XML files of
/// Lagrange cells (viz_vtu.h).
enum { BLAST_VIZ_XDMF = 1, BLAST_VIZ_VTU = 2 };

typedef struct BlastViz_private *BlastViz;

/// Prepare visualization output of h into the folder `dir` (created if missing) with
/// `refine` >= 1 sub-cells per direction and zone. The time series continues the dumps
/// already in dir whose step is <= the current accepted step of h (a restarted run);
/// later ones (left by a run that went further, or by an older run) are deleted.
/// `comm` (that of h) must outlive the object. Errors: BLAST_ERR_ARG (refine < 1 or
/// > 64), BLAST_ERR_IO, BLAST_ERR_HDF5. Collective.
int BlastVizCreate(MPI_Comm comm, BlastHydro h, const char *dir, int refine, BlastViz *viz);
/// As BlastVizCreate, writing the `formats` (BLAST_VIZ_XDMF, BLAST_VIZ_VTU or both):
/// with BLAST_VIZ_VTU every dump is also (or only) viz_NNNNNN.pvtu with one .vtu piece per
/// rank, every zone one VTK Lagrange cell of order k of its own geometry (its own
/// nodes), listed in <dir>/blast.pvd (viz_vtu.h). `refine` is that of the sub-cells.
/// Collective.
int BlastVizCreateWith(MPI_Comm comm, BlastHydro h, const char *dir, int refine, int formats,
                       BlastViz *viz);
/// Write the current state of h as the next dump (<dir>/viz_NNNNNN.h5, written to a
/// temporary name and renamed) with time `t` and accepted step `step`, and rewrite
/// <dir>/blast.xdmf with every dump so far. A dump at the same step as the previous one
/// replaces it. Collective.
int BlastVizWrite(BlastViz viz, int step, double t);
/// Number of dumps in the time series (those continued from dir included).
int BlastVizCount(BlastViz viz);
/// Path of the newest dump ("" before the first); for messages.
const char *BlastVizLastPath(BlastViz viz);
/// Free the object (NULL or *viz == NULL allowed; sets *viz = NULL). Not collective.
int BlastVizDestroy(BlastViz *viz);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_VIZ_H
