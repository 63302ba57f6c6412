/// @file outdir.h
/// @brief The output directory of a run (`[output] dir`, `[output] overwrite`).
///
/// Two steps, both collective on `comm`, with the file system work done by rank 0 and its
/// outcome shared, so that every rank returns the same error (reported once by main):
/// 1. BlastOutdirCheck, at start-up before the expensive setup: refuses a directory that
///    holds an earlier run's results unless overwrite is set, and makes sure the
///    directory (or the folder it will be created in) takes a file and has free space.
///    It creates nothing, so bad input found later still writes nothing.
/// 2. BlastOutdirPrepare, once the input is known to be good: creates the directory
///    (mkdir -p) and, with overwrite set, removes the earlier run's results so that a run
///    that fails later does not leave them looking like its own.
#ifndef BLAST_OUTDIR_H
#define BLAST_OUTDIR_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Smallest free space accepted in the output file system (bytes). A run writes a few KB
/// (summary.json); the margin keeps a nearly full disk from failing at the end of a run.
enum { BLAST_OUTDIR_MIN_FREE = 1 << 20 };

/// Check that `dir` can take this run's output (step 1 above). Creates nothing (a probe
/// file is written and removed again).
/// @return BLAST_ERR_INPUT when `dir` holds an earlier run's results and `overwrite` is 0,
///         or when `dir` (or a parent) exists and is not a directory; BLAST_ERR_IO when no
///         file can be created and written there, or the file system is (nearly) full.
///         The error is the same on every rank.
int BlastOutdirCheck(MPI_Comm comm, const char *dir, int overwrite);

/// Create `dir` and, with `overwrite`, remove the earlier run's results (step 2 above).
/// `*replaced` (may be NULL) tells whether earlier results were removed.
/// @return BLAST_ERR_IO (same on every rank) when the directory cannot be created or an
///         old result cannot be removed.
int BlastOutdirPrepare(MPI_Comm comm, const char *dir, int overwrite, int *replaced);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_OUTDIR_H
