/// @file safefile.h
/// @brief Opening input files without blocking and without unbounded reads: anything that
/// is not a regular file (a FIFO, a character or block device such as /dev/zero, a
/// directory, a socket) is refused before it is read, and so is a file above a size cap.
///
/// The file is opened with O_NONBLOCK (opening a FIFO then returns at once instead of
/// waiting for a writer), checked with fstat, and only then read. Used by the deck and
/// mesh readers; the checkpoint reader can call BlastCheckRegularFile before HDF5 opens
/// the file.
#ifndef BLAST_SAFEFILE_H
#define BLAST_SAFEFILE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What BlastProbeRegularFile found.
typedef enum {
  BLAST_FILE_OK = 0,   ///< a regular file within the cap
  BLAST_FILE_OPEN,     ///< open() failed: `err` holds errno
  BLAST_FILE_NOT_REG,  ///< not a regular file: `kind` names what it is
  BLAST_FILE_TOO_BIG   ///< a regular file of more than max_bytes bytes
} BlastFileStatus;

typedef struct {
  BlastFileStatus status;
  int err;           ///< errno of a failed open
  const char *kind;  ///< "FIFO", "character device", "block device", "directory", "socket"
  size_t size;       ///< file size in bytes (regular files)
} BlastFileProbe;

/// @brief Open `path` for reading if it is a regular file of at most `max_bytes` bytes
/// (0: no cap), never blocking. Raises no error (callers that read on one rank broadcast
/// the probe and raise the same error everywhere; see BlastFileProbeError).
/// @param fp  on BLAST_FILE_OK, the open stream (blocking mode restored); else NULL.
///            May be NULL: then the file is only checked and closed again.
/// @return probe->status
BlastFileStatus BlastProbeRegularFile(const char *path, size_t max_bytes, BlastFileProbe *probe,
                                      FILE **fp);

/// @brief Raise the BLAST_ERR_INPUT error for a failed probe of `path`, a `what` file
/// ("mesh", "deck", "checkpoint") and return its code (0 for BLAST_FILE_OK). Messages:
///   "cannot open <what> file '<path>': <strerror>"
///   "'<path>' is a FIFO, not a regular <what> file"   (also: character device, ...)
///   "'<path>' has N bytes (X GiB), more than the M bytes (Y GiB) a <what> file may have"
int BlastFileProbeError(const char *path, const char *what, size_t max_bytes,
                        const BlastFileProbe *probe);

/// @brief Check that `path` is a regular file of at most `max_bytes` bytes (0: no cap),
/// without blocking on FIFOs or reading anything.
/// @return 0, or BLAST_ERR_INPUT with one of the messages of BlastFileProbeError.
int BlastCheckRegularFile(const char *path, const char *what, size_t max_bytes);

/// @brief As BlastCheckRegularFile, then the open stream ("rb") in *fp and its size.
int BlastOpenRegularFile(const char *path, const char *what, size_t max_bytes, FILE **fp,
                         size_t *size);

/// @brief Remove a stale entry at `path` that a new file is about to take: a regular
/// file, a symbolic link (the link itself, never its target) or anything else that is
/// not a directory. A missing entry is fine.
/// @return 0, or BLAST_ERR_IO naming the path and the cause.
int BlastRemoveStale(const char *path);

/// @brief Create `path` as a new, empty regular file for writing, never through a
/// symbolic link and never into an existing file: a stale entry of that name is removed
/// first (BlastRemoveStale), then the file is opened with O_CREAT | O_EXCL | O_NOFOLLOW.
/// A file another process creates in between makes this fail rather than be shared.
/// @param fp  the stream ("w"), to be closed by the caller
/// @return 0, or BLAST_ERR_IO naming the path and the cause.
int BlastCreateNewFile(const char *path, FILE **fp);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_SAFEFILE_H
