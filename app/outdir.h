/// @file outdir.h
/// @brief The output directory of a run (`[output] dir`, `[output] overwrite`).
///
/// Two steps, both collective on `comm`, with the file system work done by rank 0 and its
/// outcome shared, so that every rank returns the same error (reported once by main):
/// 1. BlastOutdirCheck, at start-up before the expensive setup: refuses a directory that
///    holds another run's results unless overwrite is set (a restart may continue the
///    directory of the run it restarts), or that a running blast_gpu holds, and makes sure the
///    directory (or the folder it will be created in) takes a file and has free space.
///    It creates nothing, so bad input found later still writes nothing.
/// 2. BlastOutdirPrepare, once the input is known to be good: creates the directory
///    (mkdir -p), locks it for the run's lifetime, checks its owner again under the lock,
///    with overwrite set removes the earlier run's results so that a run that fails later
///    does not leave them looking like its own, and marks it as this run's.
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

/// The lock a run holds on a directory it writes (BlastOutdirPrepare): an advisory
/// flock() on <dir>/.blast_gpu.lock by rank 0 for the run's lifetime. The kernel releases
/// it when the process ends in any way; the file then still names the process, which is
/// how a later run tells a lock left by a process that died.
typedef struct {
  int fd;  ///< -1: none held
} BlastOutdirLock;

/// A folder inside a run's directory that the run writes, and the deck key that names it.
typedef struct {
  const char *dir, *key;
} BlastOutdirSub;

/// The file that names the run a directory belongs to (its run id, 32 hex digits).
#define BLAST_OUTDIR_MARKER   ".blast_gpu_run"
#define BLAST_OUTDIR_LOCKFILE ".blast_gpu.lock"

/// Check that `dir` can take this run's output (step 1 above). `key` names the deck key
/// in messages ("[output] dir", "[checkpoint] dir"). `marker_dir`: the directory whose
/// marker tells the run `dir` belongs to (NULL: dir itself; the output directory for a
/// checkpoint directory inside it). `continue_run`: the run id a restart
/// continues (NULL for a fresh run): a directory of that run may be continued. Creates
/// nothing (a probe file is written and removed again).
/// @return BLAST_ERR_INPUT when `dir` holds the results of another run (summary.json, the
///         run marker of another run id, checkpoint files) and `overwrite` is 0, when a
///         running blast_gpu holds its lock, or when `dir` (or a parent) exists and is not
///         a directory; BLAST_ERR_IO when no file can be created and written there, or the
///         file system is (nearly) full. The error is the same on every rank.
int BlastOutdirCheck(MPI_Comm comm, const char *dir, const char *marker_dir, const char *key,
                     int overwrite, const char *continue_run);

/// Create `dir` (never through a symbolic link), take its lock (into *lock, rank 0; released by
/// BlastOutdirRelease or when the process ends), check its owner again under the lock, with
/// `overwrite` remove the earlier run's results, and write the run marker with `run_id` (step 2
/// above). `subs` (nsubs of them): folders inside `dir` that the run writes (its checkpoint and
/// dump folders), held through dir's lock and marker: checked again under the lock, before the
/// marker names this run (another run's results there are refused as in dir itself).
/// `marker_dir` as for BlastOutdirCheck (used when `dir` has no marker of its own).
/// `continuing`: `run_id` is a restarted run's, whose own directory may be continued.
/// `*replaced` (may be NULL): earlier results were removed; `*same_run` (may be NULL):
/// the directory already belonged to run_id. `note` (rank 0, may be NULL): a stale lock
/// taken over, "" if none.
/// @return BLAST_ERR_INPUT as BlastOutdirCheck (another run got there first),
///         BLAST_ERR_IO (same on every rank) when the directory cannot be created or an old
///         result cannot be removed.
int BlastOutdirPrepare(MPI_Comm comm, const char *dir, const char *marker_dir,
                       const BlastOutdirSub *subs, int nsubs, const char *key, int overwrite,
                       const char *run_id, int continuing, BlastOutdirLock *lock, int *replaced,
                       int *same_run, char *note, size_t nnote);

/// The directory `dir` names, by what it is: the resolved path (realpath) of its nearest
/// existing ancestor followed by the components that do not exist yet ("." dropped; ".."
/// there is refused, BLAST_ERR_INPUT). Symbolic links, "./", "..", an absolute spelling and
/// trailing slashes all give the same name for the same folder.
int BlastDirResolve(const char *dir, char *out, size_t n);

/// Whether directories `a` and `b` are the same folder (*same), or `a` lies below `b`
/// (*inside), compared by what they resolve to (BlastDirResolve). Rank-local.
int BlastDirSame(const char *a, const char *b, int *same, int *inside);

/// Release a lock taken by BlastOutdirPrepare (its file is emptied: a clean release).
void BlastOutdirRelease(BlastOutdirLock *lock);

/// A new run id: 32 hex digits from the kernel's random source (id: 33 bytes).
int BlastRunIdNew(char *id);

/// Rank 0 did some work and got `ierr`: every rank returns the same error (message
/// broadcast), marked as known everywhere so that main prints it once.
int BlastShareRootResult(MPI_Comm comm, int ierr);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_OUTDIR_H
