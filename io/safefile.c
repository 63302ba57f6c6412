// Non-blocking, size-capped opening of input files (see safefile.h).
#define _POSIX_C_SOURCE 200809L  // fdopen, O_CLOEXEC

#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blast.h"

static const char *FileKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISSOCK(mode)) return "socket";
  return "special file";
}

BlastFileStatus BlastProbeRegularFile(const char *path, size_t max_bytes, BlastFileProbe *probe,
                                      FILE **fp) {
  memset(probe, 0, sizeof *probe);
  if (fp) *fp = NULL;
  // O_NONBLOCK: opening a FIFO for reading does not wait for a writer.
  const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    probe->err = errno;
    return probe->status = BLAST_FILE_OPEN;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    probe->err = errno;
    close(fd);
    return probe->status = BLAST_FILE_OPEN;
  }
  if (!S_ISREG(st.st_mode)) {
    probe->kind = FileKind(st.st_mode);
    close(fd);
    return probe->status = BLAST_FILE_NOT_REG;
  }
  probe->size = st.st_size > 0 ? (size_t)st.st_size : 0;
  if (max_bytes && probe->size > max_bytes) {
    close(fd);
    return probe->status = BLAST_FILE_TOO_BIG;
  }
  if (!fp) {
    close(fd);
    return probe->status = BLAST_FILE_OK;
  }
  // A regular file: blocking reads again, then a stdio stream.
  const int flags = fcntl(fd, F_GETFL);
  FILE *f = NULL;
  if (flags == -1 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == -1 || !(f = fdopen(fd, "rb"))) {
    probe->err = errno;
    close(fd);
    return probe->status = BLAST_FILE_OPEN;
  }
  *fp = f;
  return probe->status = BLAST_FILE_OK;
}

int BlastFileProbeError(const char *path, const char *what, size_t max_bytes,
                        const BlastFileProbe *probe) {
  const double gib = 1024.0 * 1024.0 * 1024.0;
  switch (probe->status) {
    case BLAST_FILE_OK:
      return 0;
    case BLAST_FILE_OPEN:
      BlastError(BLAST_ERR_INPUT, "cannot open %s file '%s': %s", what, path, strerror(probe->err));
    case BLAST_FILE_NOT_REG:
      BlastError(BLAST_ERR_INPUT, "'%s' is a %s, not a regular %s file", path, probe->kind, what);
    case BLAST_FILE_TOO_BIG:
      BlastError(BLAST_ERR_INPUT,
                 "'%s' has %zu bytes (%.2f GiB), more than the %zu bytes (%.2f GiB) a %s file "
                 "may have",
                 path, probe->size, (double)probe->size / gib, max_bytes, (double)max_bytes / gib,
                 what);
  }
  BlastError(BLAST_ERR_INTERNAL, "%s: unknown file probe status %d", path, (int)probe->status);
}

int BlastCheckRegularFile(const char *path, const char *what, size_t max_bytes) {
  BlastCheck(path && what, BLAST_ERR_ARG, "NULL argument");
  BlastFileProbe probe;
  BlastProbeRegularFile(path, max_bytes, &probe, NULL);
  BlastCall(BlastFileProbeError(path, what, max_bytes, &probe));
  return 0;
}

int BlastOpenRegularFile(const char *path, const char *what, size_t max_bytes, FILE **fp,
                         size_t *size) {
  BlastCheck(path && what && fp, BLAST_ERR_ARG, "NULL argument");
  BlastFileProbe probe;
  BlastProbeRegularFile(path, max_bytes, &probe, fp);
  BlastCall(BlastFileProbeError(path, what, max_bytes, &probe));
  if (size) *size = probe.size;
  return 0;
}

int BlastRemoveStale(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) {
    BlastCheck(errno == ENOENT, BLAST_ERR_IO, "cannot look at '%s': %s", path, strerror(errno));
    return 0;
  }
  BlastCheck(!S_ISDIR(st.st_mode), BLAST_ERR_IO,
             "'%s' is a directory where blast_gpu writes a file: remove or rename it", path);
  BlastCheck(unlink(path) == 0 || errno == ENOENT, BLAST_ERR_IO,
             "cannot remove the stale '%s' before writing it: %s", path, strerror(errno));
  return 0;
}

int BlastCreateNewFile(const char *path, FILE **fp) {
  *fp = NULL;
  BlastCall(BlastRemoveStale(path));
  const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  BlastCheck(fd >= 0, BLAST_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
  FILE *f = fdopen(fd, "w");
  if (!f) {
    const int err = errno;
    close(fd);
    unlink(path);
    BlastError(BLAST_ERR_IO, "cannot create '%s': %s", path, strerror(err));
  }
  *fp = f;
  return 0;
}
