/// @file viz_vtu.h
/// @brief VTK XML files of the visualization dumps (docs/visualization.md): one
/// unstructured-grid piece (.vtu, appended raw binary data) per rank and dump, the
/// dump's parallel file (.pvtu) that lists them, and the time series (blast.pvd).
///
/// Names in the dump folder: viz_NNNNNN.pvtu (dump N), viz_NNNNNN_pRRRRRR.vtu (its piece
/// of rank R), blast.pvd. Every file is written to a temporary name (.viz_*.tmp) and
/// renamed. blast.pvd lists the dumps as <DataSet timestep="T" step="S" part="0"
/// file="viz_NNNNNN.pvtu"/>, one a line (the step attribute is blast_gpu's; VTK ignores
/// it). Files are written with version="2.2" (VTK 9.1's node order of Lagrange hexahedra)
/// and header_type UInt64; data in the machine's byte order.
#ifndef BLAST_VIZ_VTU_H
#define BLAST_VIZ_VTU_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A data array: `type` is "Float64" (double), "Int32" (int), "Int64" (int64_t) or
/// "UInt8" (uint8_t); `ncomp` components per tuple.
typedef struct {
  const char *name, *type;
  int ncomp;
  const void *data;
} BlastVtuArray;

/// One piece: points [npoints][3]; cell c has the points connectivity[offsets[c-1] ..
/// offsets[c]) (offsets[-1] = 0: VTK's end offsets) and the VTK type types[c].
typedef struct {
  long long npoints, ncells;
  const double *points;
  const int64_t *connectivity, *offsets;
  const uint8_t *types;
  int npoint_arrays, ncell_arrays;
  const BlastVtuArray *point_arrays, *cell_arrays;
  double time;  ///< written as the field data TimeValue
} BlastVtuPiece;

/// One entry of the time series.
typedef struct {
  int number, step;
  double t;
} BlastVtuDump;

/// The fields of a dump: per point (np points: coordinates and velocity [np][3], the
/// others [np]) and per cell (nc cells).
typedef struct {
  double *coords, *vel, *rho, *e, *p, *cs;  // [np*3], [np*3], [np] x4
  int64_t *topo, *zid;                      // [nc*vertices per cell], [nc]
  int *mat, *attr, *rank;                   // [nc]
} BlastVizFields;

/// The cells of one kind of zone: VTK cell type `type` with nn nodes, node a being the
/// zone's point lattice[a] in F; the zone's cell values are those of its first of `cstride`
/// cells in F.
typedef struct {
  int type, nn, cstride;
  const int *lattice;
} BlastVtuShape;

/// Collective: this rank's piece of dump `number` (BlastVtuWriteDump) with nz zones, zone
/// z one VTK cell of shape shapes[zone_shape[z]] (zone_shape NULL: shapes[0] for all).
/// F holds the zones' points and cells zone by zone: a zone of shape S has S.nn points
/// (only its own nodes are written) and S.cstride cells.
int BlastVtuWriteZones(MPI_Comm comm, const char *dir, int number, double t, int nz,
                       const BlastVtuShape *shapes, const uint8_t *zone_shape,
                       const BlastVizFields *F);

/// Write `piece` as the new file `path` (BlastCreateNewFile: an existing entry there is
/// replaced, never followed). Errors: BLAST_ERR_IO (naming the path and the cause).
int BlastVtuWritePiece(const char *path, const BlastVtuPiece *piece);

/// Collective: each rank writes its piece of dump `number` into `dir` (temporary name,
/// then renamed), then rank 0 writes viz_NNNNNN.pvtu naming the pieces of every rank
/// (array names, types and components from rank 0's piece, the same on every rank).
/// Returns the same code on every rank.
int BlastVtuWriteDump(MPI_Comm comm, const char *dir, int number, const BlastVtuPiece *piece);

/// Rewrite <dir>/blast.pvd with the n dumps (temporary file, then renamed). Rank 0 only.
int BlastVtuWriteSeries(const char *dir, int n, const BlastVtuDump *dumps);

/// The dumps listed by <dir>/blast.pvd whose .pvtu exists, in file order, as long as
/// their numbers are 0, 1, 2, ... (*n = 0 and *dumps = NULL without the file). The array
/// is the caller's (BlastFree). Rank 0 only.
int BlastVtuReadSeries(const char *dir, int *n, BlastVtuDump **dumps);

/// Remove the VTK files of dumps numbered `first` and later (with first = 0 also
/// blast.pvd).
/// Rank 0 only. Errors: BLAST_ERR_IO.
int BlastVtuRemoveFrom(const char *dir, int first);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_VIZ_VTU_H
