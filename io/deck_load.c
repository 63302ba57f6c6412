// Deck loading: the checks that need the whole deck and the resolution into BlastConfig,
// the one-call entry points, and a deck file read by rank 0 and broadcast to every rank
// (see deck.h).
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "blast.h"
#include "blast_mpi.h"
#include "deck-impl.h"
#include "deck.h"
#include "safefile.h"

// ---------------------------------------------------------------------------------------
// Resolution

static int CheckRequired(BlastDeck d) {
  for (int k = 0; k < d->nkeys; k++) {
    const BlastDeckKey *K = &d->keys[k];
    if (!K->required || d->state[k].origin != kUnset) continue;
    char expected[kExpectLen];
    DeckDescribeExpected(K, expected, sizeof expected);
    int s = DeckFindSection(K->section);
    if (s >= 0 && d->section_line[s])
      BlastError(BLAST_ERR_INPUT, "%s:%d: section [%s] lacks the required key '%s' (%s: %s)",
                 d->name, d->section_line[s], K->section, K->key, K->help, expected);
    BlastError(BLAST_ERR_INPUT,
               "%s:%d: the deck ends without the required key '%s' of section [%s] (%s: %s)",
               d->name, d->line > 0 ? d->line : 1, K->key, K->section, K->help, expected);
  }
  return 0;
}

/// Two keys that exclude each other (e.g. [mesh] file and the generator keys).
static int CheckConflicts(BlastDeck d) {
  for (int k = 0; k < d->nkeys; k++) {
    const BlastDeckKey *K = &d->keys[k];
    if (!K->conflicts || d->state[k].origin == kUnset) continue;
    const char *p = K->conflicts;
    while (*p) {
      while (*p == ' ') p++;
      size_t len = strcspn(p, " ");
      if (!len) break;
      char other[kNameLen];
      DeckCopyStripped(other, sizeof other, p, len);
      p += len;
      int o = DeckFindKey(K->section, other);
      BlastCheck(o >= 0, BLAST_ERR_INTERNAL,
                 "schema error: [%s] %s conflicts with unknown key '%s'", K->section, K->key,
                 other);
      if (d->state[o].origin == kUnset) continue;
      BlastError(BLAST_ERR_INPUT,
                 "%s: [%s] %s cannot be combined with [%s] %s (set at %s): they are mutually "
                 "exclusive (%s excludes: %s)",
                 d->state[o].where, K->section, other, K->section, K->key, d->state[k].where,
                 K->key, K->conflicts);
    }
  }
  return 0;
}

static int CheckListCounts(BlastDeck d) {
  for (int k = 0; k < d->nkeys; k++) {
    const BlastDeckKey *K = &d->keys[k];
    if (!DeckIsList(K) || DeckIsCounted(K) || d->state[k].origin == kUnset) continue;
    int ck = DeckCountKey(K);
    BlastCheck(ck >= 0, BLAST_ERR_INTERNAL, "schema error: [%s] %s counts by unknown key '%s'",
               K->section, K->key, K->count_key);
    int want;
    memcpy(&want, (const char *)&d->cfg + d->keys[ck].offset, sizeof want);
    const char *cwhere = d->state[ck].origin != kUnset ? d->state[ck].where : "the default";
    BlastCheck(d->state[k].count == want, BLAST_ERR_INPUT,
               "%s: [%s] %s has %d value%s but [%s] %s is %d (%s): give one value per direction",
               d->state[k].where, K->section, K->key, d->state[k].count,
               d->state[k].count == 1 ? "" : "s", K->section, K->count_key, want, cwhere);
  }
  return 0;
}

/// Where a key was set, for messages: "deck.ini:12", "command line argument 2 (...)", or
/// "the default" when it was not set.
static const char *KeyWhere(BlastDeck d, const char *section, const char *key) {
  const int k = DeckFindKey(section, key);
  return k >= 0 && d->state[k].origin != kUnset ? d->state[k].where : "the default";
}

/// The quadrature rule must make both mass matrices nonsingular (method spec 6): with
/// q = order_quadrature/2 + 1 Gauss-Legendre points per direction (the default order is
/// 3k+m-1), the tensor basis of degree p per direction is determined by its values at the
/// points only if q >= p+1; with fewer, the zone blocks of M_E are singular and so is the
/// assembled M_V (it has more dofs than points: CG fails). So q >= max(k, m) + 1, that is
/// order_quadrature >= 2 max(k, m). Runs after the resolve hooks (order_thermo resolved).
static int CheckQuadrature(BlastDeck d) {
  const BlastConfig *c = &d->cfg;
  const int k = c->order_kinematic, m = c->order_thermo, oq = c->order_quadrature;
  const int p = k > m ? k : m, need = 2 * p, used = BlastQuadratureOrder(oq, k, m);
  if (used >= need) return 0;
  const int q1d = used / 2 + 1;
  const char *which = m + 1 > q1d && k + 1 > q1d ? "the kinematic and thermodynamic mass matrices"
                      : k + 1 > q1d              ? "the kinematic mass matrix"
                                                 : "the thermodynamic mass matrix";
  char orders[2 * kWhereLen + 96];
  snprintf(orders, sizeof orders, "[fem] order_kinematic = %d (%s) and order_thermo = %d (%s)", k,
           KeyWhere(d, "fem", "order_kinematic"), m, KeyWhere(d, "fem", "order_thermo"));
  if (oq > 0)
    BlastError(BLAST_ERR_INPUT,
               "%s: [fem] order_quadrature = %d is too low for %s: it gives %d Gauss point%s per "
               "direction (order_quadrature/2 + 1), and %s would be singular (the kinematic one "
               "needs order_kinematic + 1 = %d points, the thermodynamic one order_thermo + 1 = "
               "%d): use order_quadrature >= %d (2 max(order_kinematic, order_thermo)), or leave "
               "it unset for the default 3 order_kinematic + order_thermo - 1 = %d",
               KeyWhere(d, "fem", "order_quadrature"), oq, orders, q1d, q1d == 1 ? "" : "s", which,
               k + 1, m + 1, need, BlastQuadratureOrder(-1, k, m));
  BlastError(BLAST_ERR_INPUT,
             "%s: [fem] order_thermo = %d is too high for order_kinematic = %d (%s) with the "
             "default [fem] order_quadrature = 3 order_kinematic + order_thermo - 1 = %d: it gives "
             "%d Gauss points per direction, and the thermodynamic mass matrix needs order_thermo "
             "+ 1 = %d or it is singular: set [fem] order_quadrature >= %d (2 max(order_kinematic, "
             "order_thermo)), or lower order_thermo",
             KeyWhere(d, "fem", "order_thermo"), m, k, KeyWhere(d, "fem", "order_kinematic"), used,
             q1d, m + 1, need);
}

/// Dumps by time need dump times that t can pass one after the other: n viz_dt for n up to
/// t_final / viz_dt must be distinct doubles, each well above the rounding of t near
/// t_final. viz_dt >= t_final 2^-48 keeps 16 units in the last place of t_final between two
/// dump times (and n below 2^49, exact); a smaller viz_dt would ask for more than 2.8e14
/// dumps, which no file system holds anyway.
static int CheckVizDt(BlastDeck d) {
  const BlastConfig *c = &d->cfg;
  const double least = ldexp(c->t_final, -48);
  if (!(c->viz_dt > 0.0) || c->viz_dt >= least) return 0;
  BlastError(BLAST_ERR_INPUT,
             "%s: [output] viz_dt = %.6g is too small for [time] t_final = %.6g: dump times "
             "closer than t_final * 2^-48 = %.6g cannot be told apart from the time t in double "
             "precision (and would ask for more than 2^48 dumps): use viz_dt >= %.6g, or 0 for "
             "no dumps by time",
             KeyWhere(d, "output", "viz_dt"), c->viz_dt, c->t_final, least, least);
}

int BlastDeckResolve(BlastDeck d, BlastConfig *cfg) {
  BlastCheck(d && cfg, BLAST_ERR_ARG, "deck and cfg must not be NULL");
  BlastCheck(!d->resolved, BLAST_ERR_ARG, "the deck is already resolved");
  d->resolved = 1;
  BlastCall(CheckRequired(d));
  BlastCall(CheckConflicts(d));
  // Defaults: scalars first, since list defaults depend on their count key.
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < d->nkeys; k++)
      if (d->state[k].origin == kUnset && DeckIsList(&d->keys[k]) == pass)
        BlastCall(DeckApplyDefault(&d->keys[k], &d->cfg));
  BlastCall(CheckListCounts(d));
  for (int k = 0; k < d->nkeys; k++) {
    const BlastDeckKey *K = &d->keys[k];
    if (!K->resolve) continue;
    BlastDeckResolveInfo info = {d->name, d->dir, d->state[k].origin ? d->state[k].where : d->name,
                                 d->state[k].origin != kUnset};
    BlastCall(K->resolve(&d->cfg, &info));
  }
  BlastCall(CheckQuadrature(d));
  BlastCall(CheckVizDt(d));
  BlastCall(DeckFamiliesResolve(d));
  {  // where [problem] gravity was given, for the setup's check of its count
    const int gk = DeckFindKey("problem", "gravity");
    if (gk >= 0 && d->state[gk].origin != kUnset)
      DeckStoreWhere(d->cfg.gravity_where, d->state[gk].where);
  }
  // What a deck line cannot hold could not be echoed: refuse it now.
  for (int k = 0; k < d->nkeys; k++) {
    const BlastDeckKey *K = &d->keys[k];
    const char *v = (const char *)&d->cfg + K->offset;
    if (K->type != BLAST_DECK_STRING || !v[0]) continue;
    char ex[96];
    BlastDeckExcerpt(v, strlen(v), ex, sizeof ex);
    BlastCheck(DeckWritable(K, v), BLAST_ERR_INPUT,
               "%s: [%s] %s = '%s' (%zu characters) cannot be written back as a deck line "
               "(at most %d characters; no control character other than a tab, no space at either "
               "end, no ' ;')",
               d->state[k].origin ? d->state[k].where : d->name, K->section, K->key, ex, strlen(v),
               kMaxEchoLine);
  }
  memset(d->cfg.deck_path, 0, sizeof d->cfg.deck_path);
  memcpy(d->cfg.deck_path, d->name, strlen(d->name));
  memcpy(cfg, &d->cfg, sizeof *cfg);
  return 0;
}

// ---------------------------------------------------------------------------------------
// One-call entry points

static int ParseInto(BlastDeck d, const char *text, int noverrides, char **overrides,
                     const int *argnos, BlastConfig *cfg) {
  BlastCall(BlastDeckReadText(d, text));
  for (int i = 0; i < noverrides; i++)
    BlastCall(BlastDeckApplyOverride(d, overrides[i], argnos ? argnos[i] : i + 1));
  BlastCall(BlastDeckResolve(d, cfg));
  return 0;
}

static int ParseWithOverrides(const char *text, const char *name, const char *deck_dir,
                              int noverrides, char **overrides, const int *argnos,
                              BlastConfig *cfg) {
  BlastDeck d = NULL;
  BlastCall(BlastDeckCreate(name, deck_dir, &d));
  int ierr = ParseInto(d, text, noverrides, overrides, argnos, cfg);
  BlastDeckDestroy(&d);
  BlastCall(ierr);
  return 0;
}

int BlastDeckParseText(const char *text, const char *name, const char *deck_dir, BlastConfig *cfg) {
  BlastCheck(text && name && cfg, BLAST_ERR_ARG, "text, name and cfg must not be NULL");
  BlastCall(ParseWithOverrides(text, name, deck_dir, 0, NULL, NULL, cfg));
  return 0;
}

// ---------------------------------------------------------------------------------------
// Loading a deck file on a communicator

/// What a non-regular file given as deck is (the names of BlastFileProbe.kind), so that
/// rank 0 can send it to the others as a number.
static const char *const kDeckFileKinds[] = {
    "special file", "FIFO", "character device", "block device", "directory", "socket", NULL};
enum { kNumDeckFileKinds = 6 };

typedef enum {
  kReadOk = 0,
  kReadOpen,
  kReadIO,
  kReadTooBig,
  kReadNoMem,
  kReadNotRegular
} ReadStatus;

/// Read the whole file (rank 0). File problems are returned as a status, not raised, so
/// that every rank can raise the same error after the broadcast. Only a regular file of at
/// most kMaxDeckBytes bytes is read: a FIFO, a device or a directory is refused before
/// any read (opened with O_NONBLOCK, so a FIFO without a writer does not block).
/// `*kind` names what a non-regular file is (see BlastFileProbe).
static ReadStatus ReadDeckFile(const char *path, char **text, int *len, int *err, int *kind) {
  *err = 0;
  *len = 0;
  *kind = 0;
  FILE *f = NULL;
  BlastFileProbe probe;
  switch (BlastProbeRegularFile(path, kMaxDeckBytes, &probe, &f)) {
    case BLAST_FILE_OK:
      break;
    case BLAST_FILE_OPEN:
      *err = probe.err;
      return kReadOpen;
    case BLAST_FILE_NOT_REG:
      for (int i = 0; kDeckFileKinds[i]; i++)
        if (!strcmp(kDeckFileKinds[i], probe.kind)) *kind = i;
      return kReadNotRegular;
    default:
      return kReadTooBig;
  }
  // At most kMaxDeckBytes: the size was checked, and a file that grows meanwhile is cut
  // at the cap and refused below.
  size_t cap = probe.size + 2, n = 0;
  if (cap > (size_t)kMaxDeckBytes + 2) cap = (size_t)kMaxDeckBytes + 2;
  ReadStatus status = kReadOk;
  if (BlastMalloc(cap, text)) status = kReadNoMem;
  while (status == kReadOk && n + 1 < cap) {
    size_t got = fread(*text + n, 1, cap - 1 - n, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) {
        *err = errno;
        status = kReadIO;
      }
      break;
    }
  }
  if (status == kReadOk && n > (size_t)kMaxDeckBytes) status = kReadTooBig;
  fclose(f);
  if (status == kReadOk) {
    (*text)[n] = '\0';
    *len = (int)n;
  } else if (status != kReadNoMem) {
    BlastFree(text);
  }
  return status;
}

static void DirName(const char *path, char *dir, size_t n) {
  const char *slash = strrchr(path, '/');
  size_t len = slash ? (size_t)(slash - path) : 0;
  if (slash && len == 0) len = 1;  // "/deck.ini"
  if (len > n - 1) len = n - 1;
  memcpy(dir, path, len);
  dir[len] = '\0';
}

/// Rank 0 reads, every rank gets the text (or the same error).
static int BroadcastText(MPI_Comm comm, const char *path, char **text) {
  int rank = 0;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  int hdr[4] = {kReadOk, 0, 0, 0};  // status, errno, length, kind of a non-regular file
  if (!rank) hdr[0] = (int)ReadDeckFile(path, text, &hdr[2], &hdr[1], &hdr[3]);
  BlastCallMPI(MPI_Bcast(hdr, 4, MPI_INT, 0, comm));
  switch (hdr[0]) {
    case kReadOk:
      break;
    case kReadOpen:
      BlastError(BLAST_ERR_INPUT, "%s: cannot open the deck: %s", path, strerror(hdr[1]));
    case kReadIO:
      BlastError(BLAST_ERR_INPUT, "%s: cannot read the deck: %s", path, strerror(hdr[1]));
    case kReadNotRegular:
      BlastError(BLAST_ERR_INPUT, "%s: cannot read the deck: it is a %s, not a regular file", path,
                 hdr[3] >= 0 && hdr[3] < kNumDeckFileKinds ? kDeckFileKinds[hdr[3]] : "?");
    case kReadTooBig:
      BlastError(BLAST_ERR_INPUT,
                 "%s: cannot read the deck: it has more than %d bytes (1 MiB), too large for a "
                 "deck (not a deck file?)",
                 path, kMaxDeckBytes);
    default:
      BlastError(BLAST_ERR_MEM, "%s: rank 0 could not allocate memory for the deck", path);
  }
  int aerr = rank ? BlastMalloc(hdr[2] + 1, text) : 0;
  BlastCallAgree(comm, 0, aerr);
  BlastCallMPI(MPI_Bcast(*text, hdr[2] + 1, MPI_CHAR, 0, comm));
  // inih would stop at a NUL byte and silently ignore the rest of the file.
  const char *nul = memchr(*text, '\0', (size_t)hdr[2]);
  if (nul) {
    int line = 1;
    for (const char *p = *text; p < nul; p++) line += *p == '\n';
    BlastError(BLAST_ERR_INPUT, "%s:%d: NUL byte in the deck (not a text file?)", path, line);
  }
  return 0;
}

static int LoadLocal(MPI_Comm comm, const char *path, int noverrides, char **overrides,
                     const int *argnos, char **text, BlastConfig *cfg) {
  BlastCall(BroadcastText(comm, path, text));
  char dir[BLAST_PATH_MAX];
  DirName(path, dir, sizeof dir);
  BlastCall(ParseWithOverrides(*text, path, dir, noverrides, overrides, argnos, cfg));
  return 0;
}

int BlastDeckLoadArgs(MPI_Comm comm, const char *path, int noverrides, char **overrides,
                      const int *argnos, BlastConfig *cfg) {
  BlastCheck(path && cfg && (noverrides == 0 || overrides), BLAST_ERR_ARG,
             "path, cfg and overrides must not be NULL");
  char *text = NULL;
  int ierr = LoadLocal(comm, path, noverrides, overrides, argnos, &text, cfg);
  BlastFree(&text);
  // Every rank parsed the same text, so input errors are the same everywhere: report once.
  BlastCallAgree(comm, ierr == BLAST_ERR_INPUT, ierr);
  return 0;
}

int BlastDeckLoad(MPI_Comm comm, const char *path, int noverrides, char **overrides,
                  BlastConfig *cfg) {
  BlastCall(BlastDeckLoadArgs(comm, path, noverrides, overrides, NULL, cfg));
  return 0;
}
