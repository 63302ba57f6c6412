// The output directory of a run: refuse to overwrite an earlier run's results unless
// asked, and find unwritable or full file systems at start-up (see outdir.h).
#define _DEFAULT_SOURCE  // flock(), fsync(), O_CLOEXEC, O_NOFOLLOW, gethostname()

#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "blast.h"
#include "blast_mpi.h"
#include "checkpoint.h"
#include "config.h"
#include "safefile.h"

// The files a run writes into its directory. Any of them marks the directory as holding
// an earlier run's results (a lone temporary: a run that died while writing them).
static const char *const kOurFiles[] = {"summary.json", ".summary.json.tmp", "history.csv",
                                        ".history.csv.tmp"};
enum { kNumOurFiles = sizeof kOurFiles / sizeof kOurFiles[0] };
// The time history a restart continues in its run's directory (app/history.c): removed
// only by [output] overwrite, for another run.
static const char kHistoryFile[] = "history.csv";

enum {
  kProbeBytes = 64 * 1024,  // written and synced: a full disk or quota shows up now
  kPathLen = BLAST_PATH_MAX + 64,
  kMsgLen = 2048
};

static int JoinPath(char *buf, size_t n, const char *dir, const char *name) {
  int len = snprintf(buf, n, "%s/%s", dir, name);
  BlastCheck(len >= 0 && (size_t)len < n, BLAST_ERR_INPUT, "directory '%.200s' is too long", dir);
  return 0;
}

// The nearest existing ancestor of `dir` (dir itself if it exists: *self = 1) into `anc`;
// *isdir tells whether it is a directory.
static int ExistingAncestor(const char *dir, char *anc, size_t n, int *isdir, int *self) {
  BlastCheck(strlen(dir) < n, BLAST_ERR_INPUT, "directory '%.200s' is too long", dir);
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
      BlastError(BLAST_ERR_IO, "directory '%s': cannot look at '%s': %s", dir, anc,
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

int BlastDirResolve(const char *dir, char *out, size_t n) {
  char anc[kPathLen], res[PATH_MAX];
  BlastCheck(dir && dir[0], BLAST_ERR_INPUT, "empty directory name");
  BlastCheck(strlen(dir) < sizeof anc, BLAST_ERR_INPUT, "directory '%.200s' is too long", dir);
  snprintf(anc, sizeof anc, "%s", dir);
  size_t rest = strlen(dir);  // dir + rest: the components that do not exist yet
  for (;;) {
    if (realpath(anc, res)) break;
    if (errno != ENOENT && errno != ENOTDIR)
      BlastError(BLAST_ERR_IO, "directory '%s': cannot resolve '%s': %s", dir, anc,
                 strerror(errno));
    char *slash = strrchr(anc, '/');
    while (slash && slash > anc && slash[1] == '\0') {  // trailing slashes
      *slash = '\0';
      slash = strrchr(anc, '/');
    }
    BlastCheck(strcmp(anc, "."), BLAST_ERR_IO, "directory '%s': the current folder is gone", dir);
    if (!slash) {
      snprintf(anc, sizeof anc, ".");
      rest = 0;
    } else if (slash == anc) {
      anc[1] = '\0';
      rest = 1;
    } else {
      *slash = '\0';
      rest = (size_t)(slash - anc);
    }
  }
  size_t len = strlen(res);
  for (const char *c = dir + rest; *c;) {
    const size_t k = strcspn(c, "/");
    if (k == 2 && !strncmp(c, "..", 2))
      BlastError(BLAST_ERR_INPUT,
                 "directory '%s': '..' after '%.*s', which does not exist: name the folder "
                 "without '..', or create it first",
                 dir, (int)(c - dir), dir);
    if (k && !(k == 1 && c[0] == '.')) {
      BlastCheck(len + k + 2 < n && len + k + 2 < sizeof res, BLAST_ERR_INPUT,
                 "directory '%.200s' is too long", dir);
      if (len > 1 || res[0] != '/') res[len++] = '/';
      memcpy(res + len, c, k);
      res[len += k] = '\0';
    }
    c += k;
    while (*c == '/') c++;
  }
  BlastCheck(len < n, BLAST_ERR_INPUT, "directory '%.200s' is too long", dir);
  snprintf(out, n, "%s", res);
  return 0;
}

int BlastDirSame(const char *a, const char *b, int *same, int *inside) {
  char ra[kPathLen], rb[kPathLen];
  BlastCall(BlastDirResolve(a, ra, sizeof ra));
  BlastCall(BlastDirResolve(b, rb, sizeof rb));
  const size_t lb = strlen(rb);
  *same = !strcmp(ra, rb);
  *inside = !*same && !strncmp(ra, rb, lb) && (ra[lb] == '/' || (lb == 1 && rb[0] == '/'));
  return 0;
}

// Create, fill, sync and remove a file in `where`: the directory takes files and the file
// system has room for them. `dir` names the output directory in messages.
static int Probe(const char *dir, const char *where, const char *key) {
  char path[kPathLen];
  char name[64];
  snprintf(name, sizeof name, ".blast_gpu_probe.%ld", (long)getpid());
  BlastCall(JoinPath(path, sizeof path, where, name));
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    BlastError(BLAST_ERR_IO, "%s '%s' is not writable: cannot create a file in '%s': %s", key, dir,
               where, strerror(errno));
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
             "%s '%s': writing a %d KiB test file in '%s' failed: %s (file system "
             "full, or over quota?)",
             key, dir, kProbeBytes / 1024, where, strerror(err));
  struct statvfs vfs;
  if (statvfs(where, &vfs) == 0) {  // not every file system answers; the probe has
    const double avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
    BlastCheck(avail >= BLAST_OUTDIR_MIN_FREE, BLAST_ERR_IO,
               "%s '%s': the file system of '%s' is (nearly) full: %.0f KiB free, at "
               "least %d KiB needed",
               key, dir, where, avail / 1024.0, BLAST_OUTDIR_MIN_FREE / 1024);
    BlastCheck(vfs.f_files == 0 || vfs.f_favail >= 16, BLAST_ERR_IO,
               "%s '%s': the file system of '%s' has no free inodes (%lu left)", key, dir, where,
               (unsigned long)vfs.f_favail);
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// Who a directory belongs to

// The run id in dir's marker into id ("" when there is none or it is not a run id).
static void ReadMarker(const char *dir, char *id) {
  char path[kPathLen];
  id[0] = '\0';
  if (snprintf(path, sizeof path, "%s/%s", dir, BLAST_OUTDIR_MARKER) >= (int)sizeof path) return;
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[80] = "";
  if (fgets(line, sizeof line, f) && strspn(line, "0123456789abcdef") == BLAST_RUN_ID_LEN - 1)
    snprintf(id, BLAST_RUN_ID_LEN, "%.32s", line);
  fclose(f);
}

// Whether `name` is a visualization dump or its time series ("viz_000012.h5", "blast.xdmf";
// "viz_000012.pvtu", "viz_000012_p000003.vtu", "blast.pvd").
static int IsDumpName(const char *name) {
  if (!strcmp(name, "blast.xdmf") || !strcmp(name, "blast.pvd")) return 1;
  const size_t n = strlen(name);
  if (n < 13 || strncmp(name, "viz_", 4) || strspn(name + 4, "0123456789") != 6) return 0;
  return !strcmp(name + 10, ".h5") || !strcmp(name + 10, ".pvtu") ||
         (n == 22 && !strncmp(name + 10, "_p", 2) && strspn(name + 12, "0123456789") == 6 &&
          !strcmp(name + 18, ".vtu"));
}

// The first sign in dir of a run's results into `what` ("" if none): its summary (or the
// temporary one of a run that died writing it), a checkpoint file, or a visualization dump
// (in dir, or with `subdirs`, in its viz folder: dumps are results too).
static void FindResults(const char *dir, int subdirs, char *what, size_t n) {
  what[0] = '\0';
  for (int i = 0; i < kNumOurFiles; i++) {
    char path[kPathLen];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, kOurFiles[i]) < (int)sizeof path &&
        lstat(path, &st) == 0) {
      snprintf(what, n, "%s", path);
      return;
    }
  }
  DIR *d = opendir(dir);
  for (struct dirent *de; d && (de = readdir(d));)
    if (BlastCheckpointStepOf(de->d_name) >= 0 || IsDumpName(de->d_name)) {
      snprintf(what, n, "%s/%s", dir, de->d_name);
      break;
    }
  if (d) closedir(d);
  char viz[kPathLen];
  struct stat st;
  if (!what[0] && subdirs && snprintf(viz, sizeof viz, "%s/viz", dir) < (int)sizeof viz &&
      lstat(viz, &st) == 0 && S_ISDIR(st.st_mode))
    FindResults(viz, 0, what, n);
}

// Refuse a directory in which a folder the run writes into (viz, checkpoints), or the file
// that says whose the directory is (marker, lock), is a symbolic link: blast_gpu never
// writes, deletes or takes ownership through one. A link at the name of a result (summary,
// checkpoint, dump) counts as an earlier run's result: refused unless [output] overwrite,
// which removes the link itself; a link at a temporary's name is removed before the file is
// created (BlastCreateNewFile): neither is ever followed.
static int RefuseLinks(const char *dir, const char *key) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  char bad[kPathLen] = "";
  for (struct dirent *de; (de = readdir(d)) && !bad[0];) {
    const char *nm = de->d_name;
    const int ours = !strcmp(nm, "viz") || !strcmp(nm, "checkpoints") ||
                     !strcmp(nm, BLAST_OUTDIR_MARKER) || !strcmp(nm, BLAST_OUTDIR_LOCKFILE);
    struct stat st;
    if (ours && snprintf(bad, sizeof bad, "%s/%s", dir, nm) < (int)sizeof bad &&
        lstat(bad, &st) == 0 && S_ISLNK(st.st_mode))
      break;
    bad[0] = '\0';
  }
  closedir(d);
  BlastCheck(!bad[0], BLAST_ERR_INPUT,
             "%s '%s': '%s' is a symbolic link: blast_gpu never writes, deletes or continues a "
             "file or folder of its own through a link. Remove the link, or choose another %s",
             key, dir, bad, key);
  return 0;
}

// May this run write into the existing directory `dir`? *same: it is the continued run's.
static int CheckOwner(const char *dir, const char *marker_dir, const char *key, int overwrite,
                      const char *cont, int *same) {
  char what[kPathLen], id[BLAST_RUN_ID_LEN];
  *same = 0;
  FindResults(dir, !marker_dir, what, sizeof what);
  ReadMarker(dir, id);  // its own marker; a folder inside the output folder that has none
  if (!id[0] && marker_dir) ReadMarker(marker_dir, id);  // is the output folder's run's
  if (cont && id[0] && !strcmp(id, cont)) *same = 1;
  if (!what[0] || *same || overwrite) return 0;
  if (cont)
    BlastError(BLAST_ERR_INPUT,
               "%s '%s' holds the results of another run (%s%s%s): a restart writes into a new "
               "or empty directory or continues the directory of the run that wrote the "
               "checkpoint (run %s). Choose another %s, or set [output] overwrite = true (on the "
               "command line: output.overwrite=true) to replace them",
               key, dir, what, id[0] ? ", run " : "", id, cont, key);
  if (!strcmp(key, "[output] dir"))
    BlastError(BLAST_ERR_INPUT,
               "output directory '%s' holds the results of an earlier run (%s): set [output] "
               "overwrite = true (on the command line: output.overwrite=true) to replace them, "
               "or choose another [output] dir",
               dir, what);
  BlastError(BLAST_ERR_INPUT,
             "%s '%s' holds checkpoints of an earlier run (%s): continue it with --restart "
             "%s/chk_<step>.h5, or set [output] overwrite = true to start afresh (removes them), "
             "or choose another %s",
             key, dir, what, dir, key);
}

// ---------------------------------------------------------------------------------------
// The lock

// The text of a lock file (who holds or held it), without the newline.
static void LockHolder(int fd, char *buf, size_t n) {
  const ssize_t r = pread(fd, buf, n - 1, 0);
  buf[r > 0 ? r : 0] = '\0';
  buf[strcspn(buf, "\n")] = '\0';
}

static int BusyError(const char *dir, const char *key, int fd) {
  char who[256];
  LockHolder(fd, who, sizeof who);
  close(fd);
  BlastError(BLAST_ERR_INPUT,
             "%s '%s' is in use by another blast_gpu run (%s): wait for it to end, or choose "
             "another %s",
             key, dir, who[0] ? who : "lock held", key);
}

// Refuse a directory whose lock a running process holds (creates nothing).
static int CheckNotBusy(const char *dir, const char *key) {
  char path[kPathLen];
  BlastCall(JoinPath(path, sizeof path, dir, BLAST_OUTDIR_LOCKFILE));
  const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return 0;  // no lock file: nobody holds it
  if (flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) return BusyError(dir, key, fd);
  close(fd);  // also releases the shared lock
  return 0;
}

// Refuse a folder inside a folder that a running blast_gpu holds (its output folder: the
// folders inside it, such as its checkpoints and dumps, are held through that lock). Every
// folder above `dir` (resolved) is looked at.
static int CheckParentNotBusy(const char *dir, const char *key) {
  char res[kPathLen];
  if (BlastDirResolve(dir, res, sizeof res)) {
    BlastErrorClear();  // unresolvable: the other checks name the cause
    return 0;
  }
  for (char *slash = strrchr(res, '/'); slash; slash = strrchr(res, '/')) {
    slash[slash == res ? 1 : 0] = '\0';
    char lockpath[kPathLen];
    if (snprintf(lockpath, sizeof lockpath, "%s/%s", res, BLAST_OUTDIR_LOCKFILE) <
        (int)sizeof lockpath) {
      const int fd = open(lockpath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
      if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK)
        return BusyError(dir, key, fd);
      if (fd >= 0) close(fd);
    }
    if (slash == res) break;
  }
  return 0;
}

static int TakeLock(const char *dir, const char *key, const char *run_id, BlastOutdirLock *lock,
                    char *note, size_t nnote) {
  char path[kPathLen];
  BlastCall(JoinPath(path, sizeof path, dir, BLAST_OUTDIR_LOCKFILE));
  const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0 && errno == ELOOP)
    BlastError(BLAST_ERR_INPUT,
               "%s '%s': the lock file %s is a symbolic link: blast_gpu never writes through one. "
               "Remove the link, or choose another %s",
               key, dir, path, key);
  if (fd < 0) BlastError(BLAST_ERR_IO, "cannot create the lock file %s: %s", path, strerror(errno));
  struct stat lst;
  if (fstat(fd, &lst) != 0 || !S_ISREG(lst.st_mode)) {
    close(fd);
    BlastError(BLAST_ERR_INPUT, "%s '%s': the lock file %s is not a regular file", key, dir, path);
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return BusyError(dir, key, fd);
    // A file system without locks: run, but say that concurrent runs go unnoticed.
    if (note)
      snprintf(note, nnote,
               "%s '%s' cannot be locked (%s): a second run started into it at "
               "the same time would not be noticed",
               key, dir, strerror(errno));
    close(fd);
    return 0;
  }
  char old[256];
  LockHolder(fd, old, sizeof old);
  if (old[0] && note)
    snprintf(note, nnote,
             "took over the stale lock of %s '%s' (%s): that process ended without "
             "releasing it (killed?)",
             key, dir, old);
  char host[128] = "?", text[400];
  gethostname(host, sizeof host);
  host[sizeof host - 1] = '\0';
  const time_t now = time(NULL);
  char when[32] = "?";
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", localtime(&now));
  const int len = snprintf(text, sizeof text, "pid %ld on host %s, run %s, started %s\n",
                           (long)getpid(), host, run_id, when);
  if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)len, 0) != len) {
    const int err = errno;
    close(fd);
    BlastError(BLAST_ERR_IO, "cannot write the lock file %s: %s", path, strerror(err));
  }
  lock->fd = fd;
  return 0;
}

void BlastOutdirRelease(BlastOutdirLock *lock) {
  if (!lock || lock->fd < 0) return;
  if (ftruncate(lock->fd, 0) != 0) { /* the kernel still releases the lock below */
  }
  flock(lock->fd, LOCK_UN);
  close(lock->fd);
  lock->fd = -1;
}

int BlastRunIdNew(char *id) {
  unsigned char raw[16];
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  ssize_t got = fd >= 0 ? read(fd, raw, sizeof raw) : -1;
  if (fd >= 0) close(fd);
  if (got != (ssize_t)sizeof raw) {  // no random source: time, pid and address bits
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t a = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec,
             b = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)&ts;
    memcpy(raw, &a, 8), memcpy(raw + 8, &b, 8);
  }
  for (int i = 0; i < 16; i++) snprintf(id + 2 * i, 3, "%02x", raw[i]);
  return 0;
}

static int CheckLocal(const char *dir, const char *marker_dir, const char *key, int overwrite,
                      const char *cont) {
  BlastCheck(dir && dir[0], BLAST_ERR_INPUT, "%s is empty", key);
  char anc[kPathLen];
  int isdir = 0, exists = 0, same = 0;
  BlastCall(ExistingAncestor(dir, anc, sizeof anc, &isdir, &exists));
  if (exists) {
    BlastCheck(isdir, BLAST_ERR_INPUT, "%s '%s' exists and is not a directory", key, dir);
    BlastCall(CheckNotBusy(anc, key));
    if (!marker_dir) BlastCall(CheckParentNotBusy(anc, key));
    BlastCall(RefuseLinks(anc, key));
    BlastCall(CheckOwner(anc, marker_dir, key, overwrite, cont, &same));
  } else {
    BlastCheck(isdir, BLAST_ERR_INPUT,
               "%s '%s' cannot be created: '%s' exists and is not a directory", key, dir, anc);
  }
  BlastCall(Probe(dir, anc, key));
  return 0;
}

// mkdir -p; errors name the path.
static int MakeDirs(const char *dir) {
  char path[BLAST_PATH_MAX];
  BlastCheck(strlen(dir) < sizeof path, BLAST_ERR_INPUT, "directory '%.200s' is too long", dir);
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

// Write dir's marker: the run it belongs to (through a temporary and a rename).
static int WriteMarker(const char *dir, const char *run_id) {
  char path[kPathLen], tmp[kPathLen];
  BlastCall(JoinPath(path, sizeof path, dir, BLAST_OUTDIR_MARKER));
  BlastCall(JoinPath(tmp, sizeof tmp, dir, BLAST_OUTDIR_MARKER ".tmp"));
  FILE *f = NULL;
  BlastCall(BlastCreateNewFile(tmp, &f));  // a stale temporary (or a link) is removed first
  const int bad = fprintf(f, "%s\n", run_id) < 0;
  if (fclose(f) != 0 || bad) BlastError(BLAST_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
  if (rename(tmp, path) != 0)
    BlastError(BLAST_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
  return 0;
}

typedef struct {
  int replaced, same;
  char note[kMsgLen];
} Prepared;

// Remove the visualization dumps and time series of an earlier run in dir (overwrite).
static int RemoveDumps(const char *dir, int *replaced) {
  DIR *d = opendir(dir);
  int err = 0;
  char path[kPathLen] = "";
  for (struct dirent *de; d && (de = readdir(d)) && !err;)
    if (IsDumpName(de->d_name) && !JoinPath(path, sizeof path, dir, de->d_name)) {
      if (unlink(path) == 0)
        *replaced = 1;
      else if (errno != ENOENT)
        err = errno;
    }
  if (d) closedir(d);
  BlastCheck(!err, BLAST_ERR_IO,
             "cannot remove the earlier run's %s ([output] overwrite = true): %s", path,
             strerror(err));
  return 0;
}

static int PrepareLocal(const char *dir, const char *marker_dir, const BlastOutdirSub *subs,
                        int nsubs, const char *key, int overwrite, const char *run_id,
                        int continuing, BlastOutdirLock *lock, Prepared *out) {
  BlastCall(MakeDirs(dir));
  struct stat st;
  BlastCheck(lstat(dir, &st) == 0 && !S_ISLNK(st.st_mode), BLAST_ERR_INPUT,
             "%s '%s' is a symbolic link: blast_gpu never writes or deletes through one. Remove "
             "the link, or choose another %s",
             key, dir, key);
  BlastCall(TakeLock(dir, key, run_id, lock, out->note, sizeof out->note));
  // Under the lock: another run may have got here between the check and now.
  BlastCall(RefuseLinks(dir, key));
  BlastCall(CheckOwner(dir, marker_dir, key, overwrite, continuing ? run_id : NULL, &out->same));
  for (int i = 0; i < nsubs; i++) {  // its folders, before the marker names this run
    int same = 0;
    if (lstat(subs[i].dir, &st) != 0) continue;
    BlastCall(RefuseLinks(subs[i].dir, subs[i].key));
    BlastCall(
        CheckOwner(subs[i].dir, dir, subs[i].key, overwrite, continuing ? run_id : NULL, &same));
  }
  if (overwrite && !out->same) {  // an earlier run's dumps go with its other results
    char viz[kPathLen];
    BlastCall(RemoveDumps(dir, &out->replaced));
    BlastCall(JoinPath(viz, sizeof viz, dir, "viz"));
    if (!marker_dir && lstat(viz, &st) == 0 && S_ISDIR(st.st_mode))
      BlastCall(RemoveDumps(viz, &out->replaced));
  }
  for (int i = 0; (overwrite || out->same) && i < kNumOurFiles; i++) {
    char path[kPathLen];
    if (out->same && !strcmp(kOurFiles[i], kHistoryFile)) continue;
    BlastCall(JoinPath(path, sizeof path, dir, kOurFiles[i]));
    if (unlink(path) == 0) {
      out->replaced = 1;
      continue;
    }
    BlastCheck(errno == ENOENT, BLAST_ERR_IO,
               "cannot remove the earlier run's %s ([output] overwrite = true): %s", path,
               strerror(errno));
  }
  BlastCall(WriteMarker(dir, run_id));
  return 0;
}

// Rank 0 did the work and got `ierr`: every rank returns the same error, marked as known
// everywhere so that main prints it once and every rank exits cleanly.
int BlastShareRootResult(MPI_Comm comm, int ierr) {
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

int BlastOutdirCheck(MPI_Comm comm, const char *dir, const char *marker_dir, const char *key,
                     int overwrite, const char *continue_run) {
  int rank = 0;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastCall(BlastShareRootResult(
      comm, rank ? 0 : CheckLocal(dir, marker_dir, key, overwrite, continue_run)));
  return 0;
}

int BlastOutdirPrepare(MPI_Comm comm, const char *dir, const char *marker_dir,
                       const BlastOutdirSub *subs, int nsubs, const char *key, int overwrite,
                       const char *run_id, int continuing, BlastOutdirLock *lock, int *replaced,
                       int *same_run, char *note, size_t nnote) {
  int rank = 0;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  Prepared p;
  memset(&p, 0, sizeof p);
  const int ierr = rank ? 0
                        : PrepareLocal(dir, marker_dir, subs, nsubs, key, overwrite, run_id,
                                       continuing, lock, &p);
  if (ierr) BlastOutdirRelease(lock);
  BlastCall(BlastShareRootResult(comm, ierr));
  int flags[2] = {p.replaced, p.same};
  BlastCallMPI(MPI_Bcast(flags, 2, MPI_INT, 0, comm));
  if (replaced) *replaced = flags[0];
  if (same_run) *same_run = flags[1];
  if (note && nnote) snprintf(note, nnote, "%s", p.note);
  return 0;
}
