// The output directory of a run: refuse to overwrite an earlier run's results unless
// asked, and find unwritable or full file systems at start-up (see outdir.h).
#define _POSIX_C_SOURCE 200809L  // fsync(), O_CLOEXEC

#include "outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "blast.h"
#include "blast_mpi.h"
#include "config.h"

// The files a run writes into its directory. Any of them marks the directory as holding
// an earlier run's results (a lone temporary: a run that died while writing them).
static const char *const kOurFiles[] = {"summary.json", ".summary.json.tmp"};
enum { kNumOurFiles = sizeof kOurFiles / sizeof kOurFiles[0] };

enum {
  kProbeBytes = 64 * 1024,  // written and synced: a full disk or quota shows up now
  kPathLen = BLAST_PATH_MAX + 64,
  kMsgLen = 2048
};

static int JoinPath(char *buf, size_t n, const char *dir, const char *name) {
  int len = snprintf(buf, n, "%s/%s", dir, name);
  BlastCheck(len >= 0 && (size_t)len < n, BLAST_ERR_INPUT, "[output] dir '%.200s' is too long",
             dir);
  return 0;
}

// The nearest existing ancestor of `dir` (dir itself if it exists: *self = 1) into `anc`;
// *isdir tells whether it is a directory.
static int ExistingAncestor(const char *dir, char *anc, size_t n, int *isdir, int *self) {
  BlastCheck(strlen(dir) < n, BLAST_ERR_INPUT, "[output] dir '%.200s' is too long", dir);
  snprintf(anc, n, "%s", dir);
  for (*self = 1;; *self = 0) {
    size_t len = strlen(anc);
    while (len > 1 && anc[len - 1] == '/') anc[--len] = '\0';
    struct stat st;
    if (stat(anc, &st) == 0) {
      *isdir = S_ISDIR(st.st_mode);
      return 0;
    }
    // ENOENT: not there yet; ENOTDIR: a parent is a file, found further up.
    if (errno != ENOENT && errno != ENOTDIR)
      BlastError(BLAST_ERR_IO, "[output] dir '%s': cannot look at '%s': %s", dir, anc,
                 strerror(errno));
    char *slash = strrchr(anc, '/');
    if (!slash) {
      snprintf(anc, n, ".");
    } else if (slash == anc) {
      anc[1] = '\0';  // "/"
    } else {
      *slash = '\0';
    }
  }
}

// Create, fill, sync and remove a file in `where`: the directory takes files and the file
// system has room for them. `dir` names the output directory in messages.
static int Probe(const char *dir, const char *where) {
  char path[kPathLen];
  char name[64];
  snprintf(name, sizeof name, ".blast_gpu_probe.%ld", (long)getpid());
  BlastCall(JoinPath(path, sizeof path, where, name));
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    BlastError(BLAST_ERR_IO, "[output] dir '%s' is not writable: cannot create a file in '%s': %s",
               dir, where, strerror(errno));
  static const char zeros[4096];
  int err = 0;
  for (size_t done = 0; done < kProbeBytes && !err;) {
    ssize_t w = write(fd, zeros, sizeof zeros);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      err = w < 0 ? errno : EIO;
    else
      done += (size_t)w;
  }
  if (!err && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  unlink(path);
  BlastCheck(!err, BLAST_ERR_IO,
             "[output] dir '%s': writing a %d KiB test file in '%s' failed: %s (file system "
             "full, or over quota?)",
             dir, kProbeBytes / 1024, where, strerror(err));
  struct statvfs vfs;
  if (statvfs(where, &vfs) == 0) {  // not every file system answers; the probe has
    const double avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
    BlastCheck(avail >= BLAST_OUTDIR_MIN_FREE, BLAST_ERR_IO,
               "[output] dir '%s': the file system of '%s' is (nearly) full: %.0f KiB free, at "
               "least %d KiB needed",
               dir, where, avail / 1024.0, BLAST_OUTDIR_MIN_FREE / 1024);
    BlastCheck(vfs.f_files == 0 || vfs.f_favail >= 16, BLAST_ERR_IO,
               "[output] dir '%s': the file system of '%s' has no free inodes (%lu left)", dir,
               where, (unsigned long)vfs.f_favail);
  }
  return 0;
}

static int CheckLocal(const char *dir, int overwrite) {
  BlastCheck(dir && dir[0], BLAST_ERR_INPUT, "[output] dir is empty");
  char anc[kPathLen];
  int isdir = 0, exists = 0;
  BlastCall(ExistingAncestor(dir, anc, sizeof anc, &isdir, &exists));
  if (exists) {
    BlastCheck(isdir, BLAST_ERR_INPUT, "[output] dir '%s' exists and is not a directory", dir);
    for (int i = 0; i < kNumOurFiles; i++) {
      char path[kPathLen];
      struct stat st;
      BlastCall(JoinPath(path, sizeof path, anc, kOurFiles[i]));
      BlastCheck(overwrite || lstat(path, &st) != 0, BLAST_ERR_INPUT,
                 "output directory '%s' holds the results of an earlier run (%s): set [output] "
                 "overwrite = true (on the command line: output.overwrite=true) to replace "
                 "them, or choose another [output] dir",
                 dir, path);
    }
  } else {
    BlastCheck(isdir, BLAST_ERR_INPUT,
               "[output] dir '%s' cannot be created: '%s' exists and is not a directory", dir, anc);
  }
  BlastCall(Probe(dir, anc));
  return 0;
}

// mkdir -p; errors name the path.
static int MakeDirs(const char *dir) {
  char path[BLAST_PATH_MAX];
  BlastCheck(strlen(dir) < sizeof path, BLAST_ERR_INPUT, "[output] dir '%.200s' is too long", dir);
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(path, 0777) && errno != EEXIST)
      BlastError(BLAST_ERR_IO, "cannot create output directory '%s': %s", path, strerror(errno));
    *p = '/';
  }
  if (mkdir(path, 0777) && errno != EEXIST)
    BlastError(BLAST_ERR_IO, "cannot create output directory '%s': %s", path, strerror(errno));
  struct stat st;
  BlastCheck(stat(path, &st) == 0 && S_ISDIR(st.st_mode), BLAST_ERR_IO,
             "output path '%s' exists and is not a directory", path);
  return 0;
}

static int PrepareLocal(const char *dir, int overwrite, int *replaced) {
  BlastCall(MakeDirs(dir));
  for (int i = 0; overwrite && i < kNumOurFiles; i++) {
    char path[kPathLen];
    BlastCall(JoinPath(path, sizeof path, dir, kOurFiles[i]));
    if (unlink(path) == 0) {
      *replaced = 1;
      continue;
    }
    BlastCheck(errno == ENOENT, BLAST_ERR_IO,
               "cannot remove the earlier run's %s ([output] overwrite = true): %s", path,
               strerror(errno));
  }
  return 0;
}

// Rank 0 did the work and got `ierr`: every rank returns the same error, marked as known
// everywhere so that main prints it once and every rank exits cleanly.
static int ShareRootResult(MPI_Comm comm, int ierr) {
  int rank = 0;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  int code = rank ? 0 : ierr;
  BlastCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, comm));
  if (!code) return 0;
  char msg[kMsgLen] = "";
  if (!rank) snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
  BlastCallMPI(MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, comm));
  if (rank) ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, code, "%s", msg);
  BlastCallAgree(comm, 1, ierr);
  return 0;
}

int BlastOutdirCheck(MPI_Comm comm, const char *dir, int overwrite) {
  int rank = 0;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastCall(ShareRootResult(comm, rank ? 0 : CheckLocal(dir, overwrite)));
  return 0;
}

int BlastOutdirPrepare(MPI_Comm comm, const char *dir, int overwrite, int *replaced) {
  int rank = 0, was = 0;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastCall(ShareRootResult(comm, rank ? 0 : PrepareLocal(dir, overwrite, &was)));
  BlastCallMPI(MPI_Bcast(&was, 1, MPI_INT, 0, comm));
  if (replaced) *replaced = was;
  return 0;
}
