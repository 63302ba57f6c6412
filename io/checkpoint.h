/// @file checkpoint.h
/// @brief Checkpoint and restart: one parallel HDF5 file per checkpoint, written with
/// collective MPI-IO, fields in global (rank-count independent) order, so that a run
/// can be restarted on any number of ranks.
///
/// File layout (format 1):
///   /x, /v   [dim][h1_global]    positions and velocities by global H1 dof id
///   /e       [zones][l2_nd]      specific internal energy by global zone id
///   /deck    char[]              the resolved input deck (INI text)
///   attributes of /: format_version, build, problem, dim, order_kinematic, order_thermo,
///     zones_global, h1_global, l2_nd, t, dt, dt_initial, energy_initial, steps,
///     step_attempts, gpu_fraction; of each field: checksum (order-independent 64-bit
///     hash of (index, value) pairs, so it is the same for any partition)
/// Written to a temporary name, closed, then renamed: a crash during the write leaves
/// the previous checkpoint intact.
#ifndef BLAST_CHECKPOINT_H
#define BLAST_CHECKPOINT_H

#include <mpi.h>
#include <stddef.h>

#include "config.h"
#include "hydro.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BLAST_CHECKPOINT_FORMAT = 1 };

/// Write h's state after `steps` accepted steps to <dir>/chk_<steps>.h5 and remove all
/// but the newest `keep` checkpoints of dir. `deck_text`: the resolved deck; `build`: a
/// version string. The file's path is returned in path. Collective.
int BlastCheckpointWrite(MPI_Comm comm, BlastHydro h, const BlastConfig *cfg, int steps,
                         double gpu_fraction, const char *dir, int keep, const char *deck_text,
                         const char *build, char *path, size_t npath);
/// The step of a checkpoint file name as BlastCheckpointWrite makes it (chk_<8 digits>.h5),
/// or -1 for any other name.
int BlastCheckpointStepOf(const char *name);
/// Read the checkpoint `path` into h (state, time, dt, counters) after checking that it
/// belongs to this run: format version, problem, dimension, orders, mesh and space sizes,
/// dataset shapes and checksums. Errors: BLAST_ERR_INPUT naming the file and the reason.
/// Collective.
int BlastCheckpointRead(MPI_Comm comm, BlastHydro h, const BlastConfig *cfg, const char *path);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_CHECKPOINT_H
