/// @file blast_hdf5.h
/// @brief BlastCallHDF5: check an HDF5 call (negative herr_t / hid_t = failure) and record
/// the innermost message of HDF5's error stack with file:line and rank.
#ifndef BLAST_HDF5_H
#define BLAST_HDF5_H

#include <hdf5.h>
#include <mpi.h>

#include "blast.h"

/// Silence HDF5's own error printing (once per process); errors are reported through
/// BlastCallHDF5 instead.
void BlastHDF5Quiet(void);
int BlastHDF5Error(const char *file, int line, const char *func, const char *call);
/// The deepest message of HDF5's error stack (the cause) into buf; the stack is cleared.
void BlastHDF5Innermost(char *buf, size_t n);

/// Write the scalar attribute `name` of `obj`: stored as `file_type`, `value` read as
/// `mem_type`. Collective where `obj` is in a parallel file (the same value on every rank).
int BlastHDF5AttrWrite(hid_t obj, const char *name, hid_t file_type, hid_t mem_type,
                       const void *value);
/// Write the string attribute `name` of `obj` (fixed length, NUL included).
int BlastHDF5AttrString(hid_t obj, const char *name, const char *value);

/// mkdir -p `dir` (mode 0755) for the HDF5 outputs. Errors: BLAST_ERR_IO (path too long,
/// a directory that cannot be created, `dir` exists and is not a directory).
int BlastMakeDirs(const char *dir);

/// After a failed write of the new file `path` (a `what`: "checkpoint", "visualization
/// dump"), raise BLAST_ERR_IO naming the file and the cause, and return it: "No space left
/// on device" when `err` is ENOSPC or the file system holding `path` has (almost) nothing
/// free (statvfs: HDF5 and MPI-IO do not keep errno), "Disk quota exceeded" for EDQUOT,
/// strerror(err) for another errno, else the message recorded by the failed call. Call it
/// before the incomplete file is removed (its blocks are what filled the disk).
int BlastWriteFailure(const char *what, const char *path, int err);

/// @brief Create `path` as a new parallel HDF5 file on every rank of `comm`: rank 0 removes a
/// stale entry at the name first (a link itself, never its target), then the collective
/// create uses H5F_ACC_EXCL, so it fails rather than write through a link or into a file
/// that appeared in between. `what` names the file in the error ("checkpoint"); `v18`:
/// the HDF5 1.8 format or later (checksummed metadata). Every rank returns the same result.
/// @param file  the open file (H5I_INVALID_HID where this rank's create failed; after an
///              error on another rank it may be open: the caller closes and removes it)
int BlastHDF5CreateNew(MPI_Comm comm, const char *path, const char *what, int v18, hid_t *file);

#define BlastCallHDF5(...)                                                                    \
  do {                                                                                        \
    if ((__VA_ARGS__) < 0) return BlastHDF5Error(__FILE__, __LINE__, __func__, #__VA_ARGS__); \
  } while (0)

#endif  // BLAST_HDF5_H
