/// @file checkpoint.h
/// @brief Checkpoint and restart: one parallel HDF5 file per checkpoint, written with
/// collective MPI-IO, fields in global (rank-count independent) order, so that a run
/// can be restarted on any number of ranks.
///
/// File layout (format 3; HDF5 1.8 file format or later, so metadata carries checksums):
///   /x, /v   [dim][h1_global]    positions and velocities by global H1 dof id
///   /e       [zones][l2_nd]      specific internal energy by global zone id
///   /deck    char[]              the resolved input deck (INI text; not read back)
///   attributes of /: the header of checkpoint_header.h (format_version, build, problem,
///     run_id, dim, orders, quadrature points, resolved [fem] assembly, sizes, t, dt,
///     dt_initial, energy_initial, gpu_fraction, steps, step_attempts, mesh fingerprints,
///     mesh, options) and
///     header_checksum over all of them; of each field: checksum (order-independent
///     64-bit hash of (index, value) pairs, so it is the same for any partition)
/// Written to a temporary name, closed, then renamed: a crash during the write leaves
/// the previous checkpoint intact.
#ifndef BLAST_CHECKPOINT_H
#define BLAST_CHECKPOINT_H

#include <mpi.h>
#include <stddef.h>

#include "checkpoint_header.h"
#include "config.h"
#include "hydro.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Write h's state after `steps` accepted steps to <dir>/chk_<steps>.h5 and remove all
/// but the newest `keep` checkpoints of dir. `deck_text`: the resolved deck; `build`: a
/// version string; `run_id`: the run's id (32 hex digits); `kill_at_step`: test hook, equal
/// to `steps`: this process kills itself with SIGKILL in the middle of the write, with /x
/// written and the rest not (-1: never). The file's path is returned in path. Collective.
int BlastCheckpointWrite(MPI_Comm comm, BlastHydro h, const BlastConfig *cfg, int steps,
                         double gpu_fraction, const char *dir, int keep, const char *deck_text,
                         const char *build, const char *run_id, int kill_at_step, char *path,
                         size_t npath);
/// The step of a checkpoint file name as BlastCheckpointWrite makes it (chk_<8 digits>.h5),
/// or -1 for any other name.
int BlastCheckpointStepOf(const char *name);
/// Read the checkpoint `path` into h (state, time, dt, counters) after checking that it
/// belongs to this run: a regular file, format version, the header's types and checksum,
/// problem, dimension, orders, quadrature rule, assembly mode, mesh and space sizes, mesh
/// fingerprint, dataset shapes, types and checksums. Errors: BLAST_ERR_INPUT naming the file
/// and the reason. `notes` (may be NULL) receives the bit-deciding options this run changes
/// (BlastCheckpointOptionChanges), "" if none. Collective.
int BlastCheckpointRead(MPI_Comm comm, BlastHydro h, const BlastConfig *cfg, const char *path,
                        char *notes, size_t nnotes);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_CHECKPOINT_H
