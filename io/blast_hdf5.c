// HDF5 error checks, attribute writers and directory creation (blast_hdf5.h).
#define _POSIX_C_SOURCE 200809L  // mkdir

#include "blast_hdf5.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "blast_mpi.h"
#include "config.h"  // BLAST_PATH_MAX
#include "safefile.h"

void BlastHDF5Quiet(void) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

typedef struct {
  char msg[256];
} Innermost;

static herr_t Walk(unsigned n, const H5E_error2_t *err, void *data) {
  Innermost *in = data;
  if (n == 0 && err->desc)
    snprintf(in->msg, sizeof in->msg, "%s (in %s)", err->desc, err->func_name);
  return 0;
}

// Every frame overwrites: the deepest (the cause) stays.
static herr_t WalkDeepest(unsigned n, const H5E_error2_t *err, void *data) {
  (void)n;
  Innermost *in = data;
  if (err->desc) snprintf(in->msg, sizeof in->msg, "%s (in %s)", err->desc, err->func_name);
  return 0;
}

void BlastHDF5Innermost(char *buf, size_t n) {
  Innermost in = {""};
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, WalkDeepest, &in);
  H5Eclear2(H5E_DEFAULT);
  snprintf(buf, n, "%s", in.msg[0] ? in.msg : "no HDF5 message");
}

int BlastHDF5Error(const char *file, int line, const char *func, const char *call) {
  Innermost in = {""};
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, Walk, &in);
  H5Eclear2(H5E_DEFAULT);
  return BlastErrorRaise(file, line, func, BLAST_ERR_HDF5, "HDF5 call failed: %s%s%s", call,
                         in.msg[0] ? ": " : "", in.msg);
}

int BlastHDF5AttrWrite(hid_t obj, const char *name, hid_t file_type, hid_t mem_type,
                       const void *value) {
  hid_t sp = H5Screate(H5S_SCALAR);
  BlastCallHDF5(sp);
  hid_t a = H5Acreate2(obj, name, file_type, sp, H5P_DEFAULT, H5P_DEFAULT);
  BlastCallHDF5(a);
  BlastCallHDF5(H5Awrite(a, mem_type, value));
  BlastCallHDF5(H5Aclose(a));
  BlastCallHDF5(H5Sclose(sp));
  return 0;
}

int BlastHDF5AttrString(hid_t obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  BlastCallHDF5(t);
  BlastCallHDF5(H5Tset_size(t, strlen(value) + 1));
  BlastCall(BlastHDF5AttrWrite(obj, name, t, t, value));
  BlastCallHDF5(H5Tclose(t));
  return 0;
}

int BlastMakeDirs(const char *dir) {
  char buf[BLAST_PATH_MAX];
  BlastCheck(strlen(dir) < sizeof buf, BLAST_ERR_IO, "output path too long: %s", dir);
  snprintf(buf, sizeof buf, "%s", dir);
  for (char *q = buf + 1;; q++) {
    const char ch = *q;
    if (ch != '/' && ch != 0) continue;
    *q = 0;
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      BlastError(BLAST_ERR_IO, "cannot create directory %s: %s", buf, strerror(errno));
    *q = ch;
    if (!ch) break;
  }
  struct stat st;
  BlastCheck(stat(dir, &st) == 0 && S_ISDIR(st.st_mode), BLAST_ERR_IO, "%s is not a directory",
             dir);
  return 0;
}

// Below this many free bytes a failed write is put down to a full file system: writes that
// fail for lack of space fill the last blocks first, so what is left is less than one
// buffer of HDF5 or MPI-IO.
enum { kFullBelowBytes = 1 << 20 };

int BlastWriteFailure(const char *what, const char *path, int err) {
  char prior[600];
  snprintf(prior, sizeof prior, "%s", BlastErrorMessage());
  char dir[BLAST_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir)
    dir[1] = '\0';
  else if (slash)
    *slash = '\0';
  else
    snprintf(dir, sizeof dir, ".");
  struct statvfs sv;
  const int have = statvfs(dir, &sv) == 0;
  const unsigned long long avail = have ? (unsigned long long)sv.f_bavail * sv.f_frsize : 0;
  char cause[BLAST_PATH_MAX + 700];
  if (err == ENOSPC || (have && avail < kFullBelowBytes))
    snprintf(cause, sizeof cause,
             "No space left on device (the file system of %s has %llu bytes free)", dir,
             have ? avail : 0ULL);
  else if (have && sv.f_files > 0 && sv.f_favail == 0)
    snprintf(cause, sizeof cause,
             "No space left on device (the file system of %s has no free inodes)", dir);
#ifdef EDQUOT
  else if (err == EDQUOT)
    snprintf(cause, sizeof cause, "%s", strerror(err));
#endif
  else if (err)
    snprintf(cause, sizeof cause, "%s", strerror(err));
  else
    snprintf(cause, sizeof cause, "%s", prior[0] ? prior : "unknown cause");
  return BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_IO,
                         "cannot write %s %s: %s; the incomplete file is removed", what, path,
                         cause);
}

int BlastHDF5CreateNew(MPI_Comm comm, const char *path, const char *what, int v18, hid_t *file) {
  int rank = 0;
  *file = H5I_INVALID_HID;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastCallAgree(comm, 0, rank ? 0 : BlastRemoveStale(path));
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  BlastCallHDF5(fapl);
  int ierr = H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0 ||
             (v18 && H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0);
  if (ierr) {
    H5Pclose(fapl);
    BlastError(BLAST_ERR_HDF5, "cannot set up the file access of the %s %s", what, path);
  }
  *file = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
  if (*file < 0) {
    char msg[300];
    BlastHDF5Innermost(msg, sizeof msg);
    ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_IO,
                           "cannot create the %s %s (a new file, never through a link or into "
                           "an existing file): %s",
                           what, path, msg);
  }
  H5Pclose(fapl);
  // Every rank fails alike (printed once); a rank whose create succeeded keeps its file for
  // the caller to close and remove.
  return BlastAgree(comm, ierr, 1);
}
