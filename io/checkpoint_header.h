/// @file checkpoint_header.h
/// @brief The root attributes of a checkpoint (format 3): every scalar a restart reads,
/// each stored with one exact HDF5 type and covered by one checksum, plus the mesh
/// fingerprint that ties the file to the zone and dof numbering it was written with.
///
/// Reading is strict: an attribute that is missing, stored with another type (HDF5 would
/// convert it silently), not scalar, or whose value does not match the header checksum
/// makes the file corrupt (BLAST_ERR_INPUT, exit 2), as do failures HDF5 itself reports
/// while reading (a damaged object header: checkpoints are written with the 1.8 file
/// format or later, whose metadata carries checksums).
#ifndef BLAST_CHECKPOINT_HEADER_H
#define BLAST_CHECKPOINT_HEADER_H

#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>

#include "config.h"
#include "hydro.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Format 3 added `assembly` (format 2 had none; everything written with it was full
/// assembly), format 4 `materials`. Other versions are refused: their headers have other
/// fields.
enum { BLAST_CHECKPOINT_FORMAT = 4, BLAST_RUN_ID_LEN = 33 };

typedef struct {
  int format_version;
  char build[128];
  char problem[32];
  char run_id[BLAST_RUN_ID_LEN];  ///< 32 hex digits: the run the checkpoint belongs to
  int dim, order_kinematic, order_thermo, quadrature_points, l2_nd;
  char assembly[16];  ///< the run's resolved [fem] assembly: "full" or "partial"
  long long zones_global, h1_global;
  double t, dt, dt_initial, energy_initial, gpu_fraction;
  int steps, step_attempts;
  uint64_t mesh_fingerprint;        ///< zones' global ids, node ids and initial node positions
  uint64_t mesh_geometry;           ///< the initial node positions of each zone only
  char mesh[BLAST_PATH_MAX + 160];  ///< where the mesh came from (for messages)
  char options[640];  ///< the options that decide the bits of a step, "section.key=value ..."
  /// The problem's materials in order, "NAME: KIND gamma=G p_inf=P; ..." (numbers as the
  /// shortest text that reads back as the same double): a restart must have the same.
  char materials[2560];
  /// BlastCheckpointProblemDigest of the run's deck: a restart must have the same.
  uint64_t problem_digest;
} BlastCheckpointHeader;

/// The 64-bit mixer of every checkpoint checksum (splitmix64's finaliser).
uint64_t BlastHashMix64(uint64_t z);

/// The part of the mesh fingerprint that quadrilateral and hexahedral straight meshes
/// without attribute names do not have (0 for them, so their fingerprints stay as they
/// were): each zone's and boundary face's geometry and vertices, the curved nodes (order,
/// zone nodes and their coordinates) and the attribute names. The same on every rank.
uint64_t BlastMeshFingerprintExtra(BlastMesh mesh);

/// Fill everything but the time, counters and gpu_fraction from the run: shape, options,
/// mesh description and fingerprints (collective: the fingerprints are global sums).
int BlastCheckpointHeaderFill(MPI_Comm comm, BlastHydro h, const BlastConfig *cfg,
                              const char *run_id, const char *build, BlastCheckpointHeader *hd);
/// Write the header as root attributes of f, with its checksum (collective).
int BlastCheckpointHeaderWrite(hid_t f, const BlastCheckpointHeader *hd);
/// Read and verify the header of f (`path` names the file in messages).
int BlastCheckpointHeaderRead(hid_t f, const char *path, BlastCheckpointHeader *hd);
/// Open `path` alone (no MPI-IO), check that it is a regular file and an HDF5 file, and
/// read and verify its header. For a rank that looks at a checkpoint before the setup.
int BlastCheckpointPeek(const char *path, BlastCheckpointHeader *hd);
/// The word of a resolved BlastAssembly mode ("full", "partial"; "?" for anything else).
const char *BlastCheckpointAssemblyName(int mode);
/// Whether a run with [fem] assembly = `requested` on a `dim`-dimensional mesh of order `k`
/// may continue the checkpoint `path` of header hd: its resolved mode
/// (BlastAssemblyResolve) must be the one recorded. Else BLAST_ERR_INPUT naming the file,
/// the key, both modes and the setting that continues the run.
int BlastCheckpointCheckAssembly(const BlastCheckpointHeader *hd, const char *path, int requested,
                                 int dim, int k);
/// What run h writes in a header's `materials` field (BlastCheckpointHeader).
void BlastCheckpointMaterials(BlastHydro h, char *buf, size_t n);
/// Whether a run whose header is `mine` may continue the checkpoint `path` of header `got`:
/// the same materials (names, kinds and parameters, compared exactly). Else BLAST_ERR_INPUT
/// naming the first material that differs (or the counts) on both sides.
int BlastCheckpointCheckMaterials(const BlastCheckpointHeader *got,
                                  const BlastCheckpointHeader *mine, const char *path);
/// A 64-bit digest of the parts of the deck that define the problem beyond its materials and
/// decide a step after a restart: [region.*] (their density gives the zones' masses),
/// [source.*], [boundary.*] and [problem] gravity, as resolved, their deck positions blanked
/// (a deck with other comments or line numbers gives the same digest).
int BlastCheckpointProblemDigest(const BlastConfig *cfg, uint64_t *digest);
/// Whether a run whose header is `mine` may continue the checkpoint `path` of header `got`:
/// the same problem digest. Else BLAST_ERR_INPUT naming the sections that must not change.
int BlastCheckpointCheckProblem(const BlastCheckpointHeader *got, const BlastCheckpointHeader *mine,
                                const char *path);
/// What this run would write in a header's `options` and `mesh` fields.
void BlastCheckpointOptions(const BlastConfig *cfg, char *buf, size_t n);
void BlastCheckpointMeshDescription(const BlastConfig *cfg, char *buf, size_t n);
/// The header's description of the options that differ from cfg's (e.g. "[time] cfl
/// 0.5 -> 0.3"), "" when none do.
void BlastCheckpointOptionChanges(const BlastCheckpointHeader *hd, const BlastConfig *cfg,
                                  char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_CHECKPOINT_HEADER_H
