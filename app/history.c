// The time history of a run: <output dir>/history.csv (history.h).
#define _POSIX_C_SOURCE 200809L  // getline, fileno, fsync, link

#include "history.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blast.h"
#include "blast_mpi.h"
#include "outdir.h"
#include "probe.h"
#include "safefile.h"

enum { kHeaderMax = 16384, kPathLen = BLAST_PATH_MAX + 64 };

struct BlastHistory_private {
  MPI_Comm comm;
  int rank, dim, every, nprobes, last_step;
  BlastHydro h;
  FILE *f;  // rank 0
  char path[kPathLen];
  double points[3 * BLAST_MAX_PROBES];
  int found[BLAST_MAX_PROBES];
  double values[BLAST_MAX_PROBES * BLAST_PROBE_NVAL];
  double *x, *v, *e;  // host copies of the state
};

int BlastHistoryCheckProbes(BlastHydro h, const BlastConfig *cfg) {
  const int n = cfg->nprobes, dim = BlastHydroGetSpace(h)->dim;
  if (n <= 0) return 0;
  double pts[3 * BLAST_MAX_PROBES] = {0};
  int found[BLAST_MAX_PROBES];
  int ierr = 0;
  for (int i = 0; i < n && !ierr; i++) {
    const BlastProbeSpec *pr = &cfg->probes[i];
    if (pr->npoint != dim)
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                             "%s: [probe.%s] point has %d coordinate%s, the mesh is %dD: give %d",
                             pr->where, pr->name, pr->npoint, pr->npoint == 1 ? "" : "s", dim, dim);
    for (int c = 0; c < dim; c++) pts[3 * i + c] = pr->point[c];
  }
  if (!ierr) {
    BlastCall(
        BlastHydroProbe(h, BlastHydroGetInitialPositions(h), NULL, NULL, n, pts, found, NULL));
    for (int i = 0; i < n && !ierr; i++) {
      if (found[i]) continue;
      const BlastProbeSpec *pr = &cfg->probes[i];
      char at[160];
      int len = snprintf(at, sizeof at, "(");
      for (int c = 0; c < dim; c++)
        len += snprintf(at + len, sizeof at - (size_t)len, "%s%.9g", c ? ", " : "", pr->point[c]);
      snprintf(at + len, sizeof at - (size_t)len, ")");
      ierr =
          BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                          "%s: [probe.%s] point = %s is outside the mesh", pr->where, pr->name, at);
    }
  }
  if (ierr) BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);  // the same test on every rank
  return ierr;
}

// The first line of the file (with its newline).
static void Header(const BlastConfig *cfg, int dim, char *buf, size_t n) {
  static const char *const axis[3] = {"x", "y", "z"};
  size_t len = 0;
#define HEADER_ADD(...)                                               \
  do {                                                                \
    int w_ = snprintf(buf + len, len < n ? n - len : 0, __VA_ARGS__); \
    if (w_ > 0) len += (size_t)w_;                                    \
  } while (0)
  HEADER_ADD("step,t,dt,mass");
  for (int c = 0; c < dim; c++) HEADER_ADD(",momentum_%s", axis[c]);
  HEADER_ADD(",internal_energy,kinetic_energy,total_energy,min_jacobian_ratio,max_aspect_ratio");
  for (int i = 0; i < cfg->nprobes; i++) {
    const char *nm = cfg->probes[i].name;
    HEADER_ADD(",probe.%s.density,probe.%s.pressure,probe.%s.specific_energy", nm, nm, nm);
    for (int c = 0; c < dim; c++) HEADER_ADD(",probe.%s.velocity_%s", nm, axis[c]);
  }
  HEADER_ADD("\n");
#undef HEADER_ADD
}

// Close a file written by rank 0: flush, sync, close; the first error as errno.
static int CloseSynced(FILE *f) {
  const int werr = ferror(f) ? (errno ? errno : EIO) : 0;
  const int ferr = fflush(f) != 0 ? errno : 0;
  const int serr = fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS ? errno : 0;
  const int cerr = fclose(f) != 0 ? errno : 0;
  return werr ? werr : ferr ? ferr : serr ? serr : cerr;
}

// Keep an earlier history whose columns differ under history_to_step<N>[.k].csv (a new
// name: link(2) never replaces a file), then remove it from its place.
static int SetAside(const char *dir, const char *path, int steps, char *note, size_t nnote) {
  char aside[kPathLen];
  int err = EEXIST;
  for (int k = 0; k < 100 && err == EEXIST; k++) {
    if (k)
      snprintf(aside, sizeof aside, "%s/history_to_step%d.%d.csv", dir, steps, k);
    else
      snprintf(aside, sizeof aside, "%s/history_to_step%d.csv", dir, steps);
    err = link(path, aside) == 0 ? 0 : errno;
  }
  BlastCheck(!err, BLAST_ERR_IO, "cannot keep the earlier %s aside as %s: %s", path, aside,
             strerror(err));
  BlastCheck(unlink(path) == 0, BLAST_ERR_IO, "cannot remove %s (kept as %s): %s", path, aside,
             strerror(errno));
  snprintf(note, nnote, "%s has other columns than this run's (other probes): kept as %s", path,
           aside);
  return 0;
}

// Rank 0: continue the history of the run being restarted: its header and its lines of
// steps before `steps` into a temporary, synced, renamed over the file; *out stays open
// for the lines to come. *out = NULL: there is nothing to continue (no file, or one with
// other columns, set aside).
static int Continue(const char *dir, const char *path, const char *header, int steps, FILE **out,
                    char *note, size_t nnote) {
  *out = NULL;
  struct stat st;
  if (lstat(path, &st) != 0) return 0;
  FILE *in = NULL;
  size_t size = 0;
  BlastCall(BlastOpenRegularFile(path, "history", 0, &in, &size));
  char *line = NULL;
  size_t cap = 0;
  ssize_t len = getline(&line, &cap, in);
  if (len < 0 || strcmp(line, header) != 0) {
    fclose(in);
    free(line);
    return SetAside(dir, path, steps, note, nnote);
  }
  char tmp[kPathLen];
  snprintf(tmp, sizeof tmp, "%s/.history.csv.tmp", dir);
  FILE *f = NULL;
  int ierr = BlastCreateNewFile(tmp, &f);
  int kept = 0, dropped = 0;
  if (!ierr) {
    fputs(header, f);
    while ((len = getline(&line, &cap, in)) > 0) {
      char *end;
      const long s = strtol(line, &end, 10);
      if (end != line && *end == ',' && s < steps) {
        fputs(line, f);
        kept++;
      } else {
        dropped++;
      }
    }
    int err = ferror(in) ? EIO : 0;
    if (!err && fflush(f) != 0) err = errno;
    if (!err && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS) err = errno;
    if (!err && rename(tmp, path) != 0) err = errno;
    if (err) {
      fclose(f);
      remove(tmp);
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_IO,
                             "cannot continue the history %s (through %s): %s", path, tmp,
                             strerror(err));
    }
  }
  fclose(in);
  free(line);
  BlastCall(ierr);
  *out = f;
  if (dropped)
    snprintf(note, nnote, "%s continues: %d line%s before step %d kept, %d later dropped", path,
             kept, kept == 1 ? "" : "s", steps, dropped);
  return 0;
}

// One line: the values of the current state (collective), written by rank 0.
static int WriteLine(BlastHistory hs, int step, double t, double dt) {
  BlastHydro h = hs->h;
  BlastCall(BlastHydroGetState(h, hs->x, hs->v, hs->e));
  BlastHydroHistory hv;
  BlastCall(BlastHydroHistoryValues(h, hs->x, hs->v, &hv));
  double en, ie, ke;
  BlastCall(BlastHydroNorms(h, &en, &ie, &ke));
  BlastCall(
      BlastHydroProbe(h, hs->x, hs->v, hs->e, hs->nprobes, hs->points, hs->found, hs->values));
  hs->last_step = step;
  int err = 0;
  if (!hs->rank) {
    FILE *f = hs->f;
    fprintf(f, "%d,%.17g,%.17g,%.17g", step, t, dt, hv.mass);
    for (int c = 0; c < hs->dim; c++) fprintf(f, ",%.17g", hv.momentum[c]);
    fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g", ie, ke, ie + ke, hv.min_jratio, hv.max_aspect);
    for (int i = 0; i < hs->nprobes; i++) {
      const double *val = &hs->values[i * BLAST_PROBE_NVAL];
      const int nv = 3 + hs->dim;
      for (int j = 0; j < nv; j++) {
        const int k = j < 3 ? j : BLAST_PROBE_V + (j - 3);
        if (hs->found[i])
          fprintf(f, ",%.17g", val[k]);
        else
          fputs(",", f);  // the point has left the mesh: empty
      }
    }
    fputs("\n", f);
    if (fflush(f) != 0 || ferror(f)) err = errno ? errno : EIO;
  }
  int ierr = 0;
  if (err)
    ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_IO,
                           "writing the history %s failed: %s", hs->path, strerror(err));
  BlastCall(BlastShareRootResult(hs->comm, ierr));
  return 0;
}

void BlastHistoryDestroy(BlastHistory *hist) {
  if (!hist || !*hist) return;
  if ((*hist)->f) fclose((*hist)->f);
  BlastFree(&(*hist)->x);
  BlastFree(&(*hist)->v);
  BlastFree(&(*hist)->e);
  BlastFree(hist);
}

int BlastHistoryOpen(MPI_Comm comm, BlastHydro h, const BlastConfig *cfg, int restart_steps,
                     int same_run, BlastHistory *hist, char *note, size_t nnote) {
  *hist = NULL;
  if (note && nnote) note[0] = '\0';
  if (cfg->history_steps <= 0) return 0;
  BlastHistory hs = NULL;
  BlastCall(BlastCalloc(1, &hs));
  hs->comm = comm, hs->h = h, hs->every = cfg->history_steps, hs->last_step = -1;
  BlastCallMPI(MPI_Comm_rank(comm, &hs->rank));
  const BlastSpace *s = BlastHydroGetSpace(h);
  hs->dim = s->dim;
  hs->nprobes = cfg->nprobes;
  for (int i = 0; i < cfg->nprobes; i++)
    for (int c = 0; c < 3; c++) hs->points[3 * i + c] = c < hs->dim ? cfg->probes[i].point[c] : 0.0;
  int ierr = BlastMalloc((size_t)hs->dim * s->h1_nl + 1, &hs->x);
  if (!ierr) ierr = BlastMalloc((size_t)hs->dim * s->h1_nl + 1, &hs->v);
  if (!ierr) ierr = BlastMalloc((size_t)s->nz * s->l2_nd + 1, &hs->e);
  if (ierr) {
    BlastHistoryDestroy(&hs);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  char *header = NULL;
  if (!hs->rank) {
    ierr = BlastMalloc(kHeaderMax, &header);
    if (!ierr) {
      Header(cfg, hs->dim, header, kHeaderMax);
      if (snprintf(hs->path, sizeof hs->path, "%s/history.csv", cfg->output_dir) >=
          (int)sizeof hs->path)
        ierr =
            BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                            "[output] dir '%s' is too long for its history file", cfg->output_dir);
    }
    if (!ierr && restart_steps > 0 && same_run)
      ierr = Continue(cfg->output_dir, hs->path, header, restart_steps, &hs->f, note, nnote);
    if (!ierr && !hs->f) {
      ierr = BlastCreateNewFile(hs->path, &hs->f);
      if (!ierr) fputs(header, hs->f);
    }
    BlastFree(&header);
  }
  ierr = BlastShareRootResult(comm, ierr);
  if (ierr) {
    BlastHistoryDestroy(&hs);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  double t, dt;
  int steps;
  BlastHydroGetProgress(h, &t, &dt, &steps, NULL);
  ierr = WriteLine(hs, steps, t, dt);
  if (ierr) {
    BlastHistoryDestroy(&hs);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  *hist = hs;
  return 0;
}

int BlastHistoryStep(BlastHistory hs, int step, double t, double dt, int last) {
  if (!hs || !(last || step % hs->every == 0)) return 0;
  return WriteLine(hs, step, t, dt);
}

int BlastHistoryFinish(BlastHistory *hist) {
  BlastHistory hs = *hist;
  if (!hs) return 0;
  const MPI_Comm comm = hs->comm;
  double t, dt;
  int steps;
  BlastHydroGetProgress(hs->h, &t, &dt, &steps, NULL);
  if (hs->last_step != steps) BlastCall(WriteLine(hs, steps, t, dt));
  int err = 0;
  if (hs->f) {
    err = CloseSynced(hs->f);
    hs->f = NULL;
  }
  int ierr = 0;
  if (err)
    ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_IO,
                           "closing the history %s failed: %s", hs->path, strerror(err));
  BlastHistoryDestroy(hist);
  BlastCall(BlastShareRootResult(comm, ierr));
  return 0;
}

const char *BlastHistoryPath(BlastHistory hs) {
  return hs && !hs->rank ? hs->path : "";
}
