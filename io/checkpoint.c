// Checkpoint and restart through parallel HDF5 (checkpoint.h).
#define _POSIX_C_SOURCE 200809L  // open_memstream, readdir

#include "checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blast_hdf5.h"
#include "checkpoint_header.h"
#include "safefile.h"
#include "blast_mpi.h"
#include "problems/problems.h"

// ---------------------------------------------------------------------------------------
// Order-independent checksums: the sum (mod 2^64) of a mixed hash of every (index, value)
// pair, so each rank hashes the entries it owns and the sum is the same on any partition.

static uint64_t HashEntry(uint64_t index, double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return BlastHashMix64(BlastHashMix64(index) ^ bits);
}

// ---------------------------------------------------------------------------------------
// What this rank owns, in global coordinates.

typedef struct {
  int dim, nown, nl, nz, ne;
  int64_t h1_global, zones_global;
  const int64_t *h1_gid, *zone_gid;
} Layout;

static Layout GetLayout(BlastHydro h) {
  const BlastSpace *s = BlastHydroGetSpace(h);
  Layout L = {s->dim,        s->h1_nown,   s->h1_nl,  s->nz,      s->l2_nd,
              s->h1_nglobal, s->nz_global, s->h1_gid, s->zone_gid};
  return L;
}

// ---------------------------------------------------------------------------------------
// Redistribution: the entries a rank owns are scattered over the dataset (global ids), which
// HDF5 point selections handle very slowly (about 1 MB/s). Instead, the dataset is cut into
// one rectangular block per rank along its longer axis; the entries travel to the rank
// whose block holds them (MPI_Alltoallv), and every rank writes or reads its block as one
// hyperslab, collectively.

typedef struct {
  hsize_t rows, cols;
  int axis;  // 0: blocks of rows, 1: blocks of columns
  int nranks;
} Split;

static Split MakeSplit(MPI_Comm comm, hsize_t rows, hsize_t cols) {
  int p = 1;
  MPI_Comm_size(comm, &p);
  Split s = {rows, cols, cols > rows, p};
  return s;
}

// First row (axis 0) or column (axis 1) of rank r's block; r = nranks gives the end.
static hsize_t SplitLo(const Split *s, int r) {
  const hsize_t n = s->axis ? s->cols : s->rows;
  return n * (hsize_t)r / (hsize_t)s->nranks;
}

static int SplitOwner(const Split *s, hsize_t row, hsize_t col) {
  const hsize_t k = s->axis ? col : row, n = s->axis ? s->cols : s->rows;
  int r = n ? (int)(k * (hsize_t)s->nranks / n) : 0;
  while (r + 1 < s->nranks && SplitLo(s, r + 1) <= k) r++;
  while (r > 0 && SplitLo(s, r) > k) r--;
  return r;
}

static void SplitBlock(const Split *s, int r, hsize_t start[2], hsize_t count[2]) {
  const hsize_t lo = SplitLo(s, r), hi = SplitLo(s, r + 1);
  start[0] = s->axis ? 0 : lo, count[0] = s->axis ? s->rows : hi - lo;
  start[1] = s->axis ? lo : 0, count[1] = s->axis ? hi - lo : s->cols;
}

// Where n entries (coords: (row, col) pairs) go: entries packed by destination rank
// (perm[j] = the entry in packed slot j), the counts and displacements of both directions,
// and for the entries this rank receives their offsets in its block (recv_off).
typedef struct {
  int *scount, *sdispl, *rcount, *rdispl;
  size_t *perm;
  int64_t *recv_off;
  size_t nrecv;
  hsize_t start[2], count[2];
} Route;

static void RouteFree(Route *rt) {
  BlastFree(&rt->scount), BlastFree(&rt->sdispl), BlastFree(&rt->rcount), BlastFree(&rt->rdispl);
  BlastFree(&rt->perm), BlastFree(&rt->recv_off);
}

// MPI_Alltoallv's counts and displacements are ints: a rank that would send or receive
// more than INT_MAX entries of one field stops every rank with the same message (collective).
static int RouteFits(MPI_Comm comm, const Split *s, long long count, const char *what) {
  long long most = 0;
  BlastCallMPI(MPI_Allreduce(&count, &most, 1, MPI_LONG_LONG, MPI_MAX, comm));
  if (most <= INT_MAX) return 0;
  BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_UNSUPPORTED,
                  "checkpoint: a rank %s %lld entries of a %llu x %llu field, more than the %d "
                  "that MPI_Alltoallv can move at once (32-bit counts): run on more ranks, so "
                  "that each holds fewer zones (or lower [mesh] refine_parallel)",
                  what, most, (unsigned long long)s->rows, (unsigned long long)s->cols, INT_MAX);
  BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
  return BLAST_ERR_UNSUPPORTED;
}

static int RouteCreate(MPI_Comm comm, const Split *s, size_t n, const hsize_t *coords, Route *rt) {
  int rank, p = s->nranks;
  memset(rt, 0, sizeof *rt);  // RouteFree is safe whatever fails below
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  SplitBlock(s, rank, rt->start, rt->count);
  BlastCall(RouteFits(comm, s, (long long)n, "sends"));
  int *dest = NULL;
  int64_t *send_off = NULL;
  BlastCall(BlastCalloc(p, &rt->scount));
  BlastCall(BlastCalloc(p + 1, &rt->sdispl));
  BlastCall(BlastCalloc(p, &rt->rcount));
  BlastCall(BlastCalloc(p + 1, &rt->rdispl));
  BlastCall(BlastMalloc(n + 1, &rt->perm));
  BlastCall(BlastMalloc(n + 1, &dest));
  BlastCall(BlastMalloc(n + 1, &send_off));
  for (size_t i = 0; i < n; i++) {
    dest[i] = SplitOwner(s, coords[2 * i], coords[2 * i + 1]);
    rt->scount[dest[i]]++;
  }
  for (int r = 0; r < p; r++) rt->sdispl[r + 1] = rt->sdispl[r] + rt->scount[r];
  int *fill = NULL;
  BlastCall(BlastCalloc(p, &fill));
  for (size_t i = 0; i < n; i++) {
    const int r = dest[i];
    const size_t j = (size_t)rt->sdispl[r] + (size_t)fill[r]++;
    hsize_t st[2], ct[2];
    SplitBlock(s, r, st, ct);
    rt->perm[j] = i;
    send_off[j] = (int64_t)((coords[2 * i] - st[0]) * ct[1] + (coords[2 * i + 1] - st[1]));
  }
  BlastFree(&fill);
  BlastFree(&dest);
  BlastCallMPI(MPI_Alltoall(rt->scount, 1, MPI_INT, rt->rcount, 1, MPI_INT, comm));
  long long nrecv = 0;
  for (int r = 0; r < p; r++) nrecv += rt->rcount[r];
  if (RouteFits(comm, s, nrecv, "receives")) {
    BlastFree(&send_off);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, BLAST_ERR_UNSUPPORTED);
  }
  for (int r = 0; r < p; r++) rt->rdispl[r + 1] = rt->rdispl[r] + rt->rcount[r];
  rt->nrecv = (size_t)rt->rdispl[p];
  BlastCall(BlastMalloc(rt->nrecv + 1, &rt->recv_off));
  BlastCallMPI(MPI_Alltoallv(send_off, rt->scount, rt->sdispl, MPI_INT64_T, rt->recv_off,
                             rt->rcount, rt->rdispl, MPI_INT64_T, comm));
  BlastFree(&send_off);
  return 0;
}

// Collective hyperslab write (read) of this rank's block of a [rows][cols] dataset.
static int BlockIO(hid_t dset, int write, const hsize_t start[2], const hsize_t count[2],
                   double *block) {
  hid_t fspace = H5Dget_space(dset);
  BlastCallHDF5(fspace);
  const hsize_t nblock = count[0] * count[1];
  if (nblock)
    BlastCallHDF5(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL));
  else
    BlastCallHDF5(H5Sselect_none(fspace));
  const hsize_t mdim = nblock ? nblock : 1;
  hid_t mspace = H5Screate_simple(1, &mdim, NULL);
  BlastCallHDF5(mspace);
  if (!nblock) BlastCallHDF5(H5Sselect_none(mspace));
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  BlastCallHDF5(dxpl);
  BlastCallHDF5(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
  if (write)
    BlastCallHDF5(H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, block));
  else
    BlastCallHDF5(H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, block));
  BlastCallHDF5(H5Pclose(dxpl));
  BlastCallHDF5(H5Sclose(mspace));
  BlastCallHDF5(H5Sclose(fspace));
  return 0;
}

// Checksum of a whole dataset from the blocks: every entry is in exactly one block.
static int BlockChecksum(MPI_Comm comm, const Route *rt, hsize_t ncols, const double *block,
                         uint64_t *sum) {
  uint64_t loc = 0;
  for (hsize_t i = 0; i < rt->count[0]; i++)
    for (hsize_t j = 0; j < rt->count[1]; j++)
      loc += HashEntry((rt->start[0] + i) * ncols + rt->start[1] + j, block[i * rt->count[1] + j]);
  BlastCallMPI(MPI_Allreduce(&loc, sum, 1, MPI_UINT64_T, MPI_SUM, comm));
  return 0;
}

// Write n entries (each entry of the dataset owned by exactly one rank) and return the
// dataset's checksum. Collective.
static int WriteEntries(MPI_Comm comm, hid_t dset, hsize_t rows, hsize_t cols, size_t n,
                        const hsize_t *coords, const double *vals, uint64_t *sum) {
  const Split s = MakeSplit(comm, rows, cols);
  Route rt;
  double *sendv = NULL, *recvv = NULL, *block = NULL;
  int ierr = RouteCreate(comm, &s, n, coords, &rt);
  const size_t nblock = (size_t)(rt.count[0] * rt.count[1]);
  if (!ierr) ierr = BlastMalloc(n + 1, &sendv);
  if (!ierr) ierr = BlastMalloc(rt.nrecv + 1, &recvv);
  if (!ierr) ierr = BlastMalloc(nblock + 1, &block);
  if (!ierr) {
    for (size_t j = 0; j < n; j++) sendv[j] = vals[rt.perm[j]];
    for (size_t i = 0; i < nblock; i++) block[i] = NAN;
    const int mpierr = MPI_Alltoallv(sendv, rt.scount, rt.sdispl, MPI_DOUBLE, recvv, rt.rcount,
                                     rt.rdispl, MPI_DOUBLE, comm);
    if (mpierr != MPI_SUCCESS)
      ierr = BlastMPIError(__FILE__, __LINE__, __func__, mpierr, "MPI_Alltoallv");
  }
  // The checksum (collective) before the write, so that a rank whose write fails (a full
  // disk) has taken part in every collective call the others make.
  if (!ierr) {
    for (size_t j = 0; j < rt.nrecv; j++) block[rt.recv_off[j]] = recvv[j];
    ierr = BlockChecksum(comm, &rt, cols, block, sum);
  }
  if (!ierr) ierr = BlockIO(dset, 1, rt.start, rt.count, block);
  BlastFree(&sendv), BlastFree(&recvv), BlastFree(&block);
  RouteFree(&rt);
  return ierr ? BlastErrorTrace(__FILE__, __LINE__, __func__, ierr) : 0;
}

// Read the n entries at coords (any entry on any number of ranks) and the checksum of the
// whole dataset. Collective.
static int ReadEntries(MPI_Comm comm, hid_t dset, hsize_t rows, hsize_t cols, size_t n,
                       const hsize_t *coords, double *vals, uint64_t *sum) {
  const Split s = MakeSplit(comm, rows, cols);
  Route rt;
  double *sendv = NULL, *recvv = NULL, *block = NULL;
  int ierr = RouteCreate(comm, &s, n, coords, &rt);
  const size_t nblock = (size_t)(rt.count[0] * rt.count[1]);
  if (!ierr) ierr = BlastMalloc(n + 1, &recvv);
  if (!ierr) ierr = BlastMalloc(rt.nrecv + 1, &sendv);
  if (!ierr) ierr = BlastMalloc(nblock + 1, &block);
  if (!ierr) ierr = BlockIO(dset, 0, rt.start, rt.count, block);
  if (!ierr) ierr = BlockChecksum(comm, &rt, cols, block, sum);
  if (!ierr) {
    for (size_t j = 0; j < rt.nrecv; j++) sendv[j] = block[rt.recv_off[j]];
    // The reverse route: answers go back to where the requests came from.
    const int mpierr = MPI_Alltoallv(sendv, rt.rcount, rt.rdispl, MPI_DOUBLE, recvv, rt.scount,
                                     rt.sdispl, MPI_DOUBLE, comm);
    if (mpierr != MPI_SUCCESS)
      ierr = BlastMPIError(__FILE__, __LINE__, __func__, mpierr, "MPI_Alltoallv");
  }
  if (!ierr)
    for (size_t j = 0; j < n; j++) vals[rt.perm[j]] = recvv[j];
  BlastFree(&sendv), BlastFree(&recvv), BlastFree(&block);
  RouteFree(&rt);
  return ierr ? BlastErrorTrace(__FILE__, __LINE__, __func__, ierr) : 0;
}

// Coordinates and values of an H1 field's entries: L-dofs [0, n) of every component.
static int H1Coords(const Layout *L, int n, hsize_t **coords) {
  BlastCall(BlastMalloc((size_t)2 * L->dim * (n ? n : 1), coords));
  for (int c = 0; c < L->dim; c++)
    for (int i = 0; i < n; i++) {
      (*coords)[2 * ((size_t)c * n + i)] = (hsize_t)c;
      (*coords)[2 * ((size_t)c * n + i) + 1] = (hsize_t)L->h1_gid[i];
    }
  return 0;
}

static int ZoneCoords(const Layout *L, hsize_t **coords) {
  BlastCall(BlastMalloc((size_t)2 * L->ne * (L->nz ? L->nz : 1), coords));
  for (int z = 0; z < L->nz; z++)
    for (int j = 0; j < L->ne; j++) {
      (*coords)[2 * ((size_t)z * L->ne + j)] = (hsize_t)L->zone_gid[z];
      (*coords)[2 * ((size_t)z * L->ne + j) + 1] = (hsize_t)j;
    }
  return 0;
}

// ---------------------------------------------------------------------------------------
// Attributes (collective: the same value on every rank)

static int AttrWrite(hid_t obj, const char *name, hid_t type, const void *v) {
  return BlastHDF5AttrWrite(obj, name, type, type, v);
}

// ---------------------------------------------------------------------------------------
// Files

int BlastCheckpointStepOf(const char *name) {
  int step, n = 0;
  const int ok = sscanf(name, "chk_%8d.h5%n", &step, &n) == 1 && n == (int)strlen(name) &&
                 strlen(name) == 15 && step >= 0;
  return ok ? step : -1;
}

static int CompareNames(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

// Remove all but the newest `keep` checkpoints (by step, from the zero-padded names).
static int Prune(const char *dir, int keep) {
  DIR *d = opendir(dir);
  BlastCheck(d, BLAST_ERR_IO, "cannot list %s: %s", dir, strerror(errno));
  char **names = NULL;
  int n = 0, cap = 0;
  for (struct dirent *de; (de = readdir(d));) {
    if (BlastCheckpointStepOf(de->d_name) < 0) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      if (BlastRealloc(cap, &names)) {
        closedir(d);
        return BlastErrorTrace(__FILE__, __LINE__, __func__, BLAST_ERR_MEM);
      }
    }
    names[n++] = strdup(de->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, CompareNames);
  int ierr = 0;
  for (int i = 0; i < n - keep; i++) {
    char path[BLAST_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (remove(path) != 0 && !ierr)
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_IO,
                             "cannot remove old checkpoint %s: %s", path, strerror(errno));
  }
  for (int i = 0; i < n; i++) free(names[i]);
  BlastFree(&names);
  return ierr;
}

static int CreateField(hid_t f, const char *name, hsize_t rows, hsize_t cols, hid_t *dset) {
  const hsize_t dims[2] = {rows, cols};
  hid_t sp = H5Screate_simple(2, dims, NULL);
  BlastCallHDF5(sp);
  *dset = H5Dcreate2(f, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  BlastCallHDF5(*dset);
  BlastCallHDF5(H5Sclose(sp));
  return 0;
}

// After a stage of writing the checkpoint `tmp`: an HDF5 failure (a write that found the
// disk full) is told with the file and its cause, then every rank learns whether any failed,
// so that none goes on into a collective call the failed one skips.
static int Stage(MPI_Comm comm, int ierr, const char *tmp) {
  if (ierr == BLAST_ERR_HDF5) ierr = BlastWriteFailure("checkpoint", tmp, 0);
  // Ranks that all failed to write say the same: printed once.
  return BlastAgree(comm, ierr, ierr == BLAST_ERR_IO);
}

// Write one field: n owned entries at coords; its checksum as an attribute.
static int WriteField(MPI_Comm comm, hid_t f, const char *tmp, const char *name, hsize_t rows,
                      hsize_t cols, size_t n, const hsize_t *coords, double *vals) {
  hid_t dset = -1;
  BlastCall(Stage(comm, CreateField(f, name, rows, cols, &dset), tmp));
  uint64_t sum;
  int ierr = Stage(comm, WriteEntries(comm, dset, rows, cols, n, coords, vals, &sum), tmp);
  if (!ierr) ierr = Stage(comm, AttrWrite(dset, "checksum", H5T_NATIVE_UINT64, &sum), tmp);
  if (H5Dclose(dset) < 0 && !ierr)
    ierr = Stage(comm, BlastHDF5Error(__FILE__, __LINE__, __func__, "H5Dclose"), tmp);
  H5Eclear2(H5E_DEFAULT);
  return ierr ? BlastErrorTrace(__FILE__, __LINE__, __func__, ierr) : 0;
}

static int WriteDeck(hid_t f, int rank, const char *text) {
  const hsize_t len = strlen(text) + 1;
  hid_t sp = H5Screate_simple(1, &len, NULL);
  BlastCallHDF5(sp);
  hid_t d = H5Dcreate2(f, "deck", H5T_NATIVE_CHAR, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  BlastCallHDF5(d);
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  BlastCallHDF5(dxpl);
  BlastCallHDF5(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
  hid_t ms = H5Screate_simple(1, &len, NULL);
  BlastCallHDF5(ms);
  if (rank) {  // rank 0 writes the text, the others take part with nothing
    BlastCallHDF5(H5Sselect_none(sp));
    BlastCallHDF5(H5Sselect_none(ms));
  }
  BlastCallHDF5(H5Dwrite(d, H5T_NATIVE_CHAR, ms, sp, dxpl, text));
  BlastCallHDF5(H5Sclose(ms));
  BlastCallHDF5(H5Pclose(dxpl));
  BlastCallHDF5(H5Dclose(d));
  BlastCallHDF5(H5Sclose(sp));
  return 0;
}

// Test hook (docs/checkpoint.md): kill_at_step == steps kills this process with SIGKILL
// in the middle of writing the checkpoint of that step (the file is open, /x written, the
// rest not), as a node failure would. blast_gpu sets it from the environment variable
// BLAST_TEST_KILL_IN_CHECKPOINT=<step> (app/main.c).
static void KillForTest(int kill_at_step, int steps) {
  if (kill_at_step == steps) {
    fflush(stdout);
    raise(SIGKILL);
  }
}

int BlastCheckpointWrite(MPI_Comm comm, BlastHydro h, const BlastConfig *cfg, int steps,
                         double gpu_fraction, const char *dir, int keep, const char *deck_text,
                         const char *build, const char *run_id, int kill_at_step, char *path,
                         size_t npath) {
  int rank;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastHDF5Quiet();
  const Layout L = GetLayout(h);
  if (!rank) BlastCall(BlastMakeDirs(dir));
  BlastCallMPI(MPI_Barrier(comm));
  char tmp[BLAST_PATH_MAX + 48];
  snprintf(path, npath, "%s/chk_%08d.h5", dir, steps);
  snprintf(tmp, sizeof tmp, "%s/.chk_%08d.h5.tmp", dir, steps);

  double *x = NULL, *v = NULL, *e = NULL, *buf = NULL;
  hsize_t *hc = NULL, *zc = NULL;
  BlastCall(BlastMalloc((size_t)L.dim * L.nl + 1, &x));
  BlastCall(BlastMalloc((size_t)L.dim * L.nl + 1, &v));
  BlastCall(BlastMalloc((size_t)L.nz * L.ne + 1, &e));
  BlastCall(BlastMalloc((size_t)L.dim * L.nown + 1, &buf));
  BlastCall(BlastHydroGetState(h, x, v, e));
  BlastCall(H1Coords(&L, L.nown, &hc));
  BlastCall(ZoneCoords(&L, &zc));

  // A stale temporary of that name (a crash, or a symbolic link put there) is removed by
  // rank 0 -- the link itself, never its target -- and the file is created with
  // H5F_ACC_EXCL (O_EXCL): should anything take the name in between, the creation fails
  // instead of writing through it. The final name is reached by rename(), which replaces
  // whatever is there and never follows it.
  hid_t f;
  int ierr = BlastHDF5CreateNew(comm, tmp, "checkpoint", 1, &f);
  // Owned entries of x and v in (component, gid) order of H1Coords.
  const double *fields[2] = {x, v};
  const char *names[2] = {"x", "v"};
  for (int k = 0; k < 2 && !ierr; k++) {
    for (int c = 0; c < L.dim; c++)
      for (int i = 0; i < L.nown; i++)
        buf[(size_t)c * L.nown + i] = fields[k][(size_t)c * L.nl + i];
    ierr = WriteField(comm, f, tmp, names[k], (hsize_t)L.dim, (hsize_t)L.h1_global,
                      (size_t)L.dim * L.nown, hc, buf);
    if (k == 0 && !ierr) KillForTest(kill_at_step, steps);
  }
  if (!ierr)
    ierr = WriteField(comm, f, tmp, "e", (hsize_t)L.zones_global, (hsize_t)L.ne,
                      (size_t)L.nz * L.ne, zc, e);
  if (!ierr) ierr = Stage(comm, WriteDeck(f, rank, deck_text ? deck_text : ""), tmp);
  if (!ierr) {
    BlastCheckpointHeader hd;
    ierr = BlastCheckpointHeaderFill(comm, h, cfg, run_id, build, &hd);
    if (!ierr) {
      int nsteps;
      BlastHydroGetProgress(h, &hd.t, &hd.dt, &nsteps, &hd.step_attempts);
      BlastHydroGetInitial(h, &hd.dt_initial, &hd.energy_initial);
      hd.steps = steps, hd.gpu_fraction = gpu_fraction;
      ierr = BlastCheckpointHeaderWrite(f, &hd);
    }
    ierr = Stage(comm, ierr, tmp);
  }
  BlastFree(&x), BlastFree(&v), BlastFree(&e), BlastFree(&buf), BlastFree(&hc), BlastFree(&zc);
  if (f >= 0) {
    // Closing writes the metadata: where a full disk shows up last.
    const herr_t closed = H5Fclose(f);
    if (!ierr)
      ierr = Stage(
          comm, closed < 0 ? BlastHDF5Error(__FILE__, __LINE__, __func__, "H5Fclose(f)") : 0, tmp);
    H5Eclear2(H5E_DEFAULT);
  }
  // Every rank has closed the file: publish it under its final name and prune, or remove
  // the incomplete file.
  BlastCallMPI(MPI_Barrier(comm));
  if (ierr) {
    if (!rank && f >= 0) remove(tmp);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  if (!rank) {
    if (rename(tmp, path) != 0) {
      const int err = errno;
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_IO,
                             "cannot rename %s to %s: %s", tmp, path, strerror(err));
      remove(tmp);
    } else if (keep > 0) {
      ierr = Prune(dir, keep);
    }
  }
  BlastCallAgree(comm, 0, ierr);
  return 0;
}

// ---------------------------------------------------------------------------------------
// Restart

#define BadCheckpoint(...) BlastError(BLAST_ERR_INPUT, __VA_ARGS__)

// An HDF5 failure while reading a file that opened: damaged metadata, so bad input.
static int CorruptHDF5(const char *path, const char *what, const char *name) {
  char msg[300];
  BlastHDF5Innermost(msg, sizeof msg);
  BadCheckpoint("checkpoint %s is corrupt: HDF5 cannot %s /%s (%s)", path, what, name, msg);
}

static int ReadField(MPI_Comm comm, hid_t f, const char *path, const char *name, hsize_t rows,
                     hsize_t cols, size_t n, const hsize_t *coords, double *vals) {
  htri_t ex = H5Lexists(f, name, H5P_DEFAULT);
  if (ex < 0) return CorruptHDF5(path, "look up the dataset", name);
  if (!ex) BadCheckpoint("checkpoint %s: the dataset /%s is missing", path, name);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d < 0) return CorruptHDF5(path, "open the dataset", name);
  hid_t sp = H5Dget_space(d), ty = H5Dget_type(d);
  hsize_t dims[2] = {0, 0};
  const int nd = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
  if (nd == 2) H5Sget_simple_extent_dims(sp, dims, NULL);
  const int is_double = ty >= 0 && H5Tequal(ty, H5T_NATIVE_DOUBLE) > 0;
  if (sp >= 0) H5Sclose(sp);
  if (ty >= 0) H5Tclose(ty);
  H5Eclear2(H5E_DEFAULT);
  int ierr = 0;
  if (nd != 2 || dims[0] != rows || dims[1] != cols)
    ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                           "checkpoint %s: /%s has shape [%llu][%llu], this run needs [%llu][%llu]",
                           path, name, (unsigned long long)dims[0], (unsigned long long)dims[1],
                           (unsigned long long)rows, (unsigned long long)cols);
  else if (!is_double)
    ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                           "checkpoint %s is corrupt: /%s is not stored as 64-bit floats (was the "
                           "file modified?)",
                           path, name);
  uint64_t stored = 0, sum = 0;
  int found = 0;
  if (!ierr) {
    ierr = ReadEntries(comm, d, rows, cols, n, coords, vals, &sum);
    if (ierr == BLAST_ERR_HDF5) {  // the HDF5 stack is gone: keep the recorded message
      char msg[600];
      snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                             "checkpoint %s is corrupt: reading /%s failed (%s)", path, name, msg);
    }
  }
  if (!ierr) {
    const htri_t has = H5Aexists(d, "checksum");
    hid_t a = has > 0 ? H5Aopen(d, "checksum", H5P_DEFAULT) : -1;
    hid_t at = a >= 0 ? H5Aget_type(a) : -1;
    found = at >= 0 && H5Tequal(at, H5T_NATIVE_UINT64) > 0 &&
            H5Aread(a, H5T_NATIVE_UINT64, &stored) >= 0;
    if (at >= 0) H5Tclose(at);
    if (a >= 0) H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    if (!found || sum != stored)
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                             "checkpoint %s: /%s is corrupted (checksum %s)", path, name,
                             found ? "mismatch" : "missing or unreadable");
  }
  H5Dclose(d);
  return ierr ? BlastErrorTrace(__FILE__, __LINE__, __func__, ierr) : 0;
}

// The header against this run: what the file's fields are laid out by must be the same.
static int CheckHeader(const BlastCheckpointHeader *got, const BlastCheckpointHeader *mine,
                       const char *path) {
  if (strcmp(got->problem, mine->problem))
    BadCheckpoint("checkpoint %s is from a different problem: '%s', this run is '%s'", path,
                  got->problem, mine->problem);
  const struct {
    const char *name, *what;
    long long got, mine;
  } ints[] = {
      {"dim", "dimension", got->dim, mine->dim},
      {"order_kinematic", "kinematic order ([fem] order_kinematic)", got->order_kinematic,
       mine->order_kinematic},
      {"order_thermo", "thermodynamic order ([fem] order_thermo)", got->order_thermo,
       mine->order_thermo},
      {"quadrature_points", "quadrature rule ([fem] order_quadrature: points per zone)",
       got->quadrature_points, mine->quadrature_points},
      {"l2_nd", "thermodynamic space", got->l2_nd, mine->l2_nd},
      {"zones_global", "mesh (zone count)", got->zones_global, mine->zones_global},
      {"h1_global", "mesh (H1 dof count)", got->h1_global, mine->h1_global},
  };
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if (ints[i].got != ints[i].mine)
      BadCheckpoint("checkpoint %s is from a different %s: %s = %lld, this run has %lld", path,
                    ints[i].what, ints[i].name, ints[i].got, ints[i].mine);
  if (got->mesh_fingerprint != mine->mesh_fingerprint)
    BadCheckpoint(
        "checkpoint %s is from a different mesh: the same %lld zones and %lld H1 dofs, but %s "
        "(mesh fingerprint %016llx in the file, %016llx here). The checkpoint's mesh: %s; this "
        "run's: %s",
        path, mine->zones_global, mine->h1_global,
        got->mesh_geometry == mine->mesh_geometry
            ? "the zones and nodes are numbered differently (zones of the same shapes: "
              "refined in another order, or the same geometry from another mesh source)"
            : "other vertex coordinates or zone-to-vertex connections (or other element "
              "types, curved nodes or attribute names)",
        (unsigned long long)got->mesh_fingerprint, (unsigned long long)mine->mesh_fingerprint,
        got->mesh, mine->mesh);
  return 0;
}

int BlastCheckpointRead(MPI_Comm comm, BlastHydro h, const BlastConfig *cfg, const char *path,
                        char *notes, size_t nnotes) {
  BlastHDF5Quiet();
  if (notes && nnotes) notes[0] = '\0';
  const Layout L = GetLayout(h);
  BlastCheckpointHeader got, mine;
  // Regular file, HDF5, header complete and unchanged (alone: before the collective open).
  BlastCall(BlastCheckpointPeek(path, &got));
  BlastCall(BlastCheckpointHeaderFill(comm, h, cfg, got.run_id, NULL, &mine));
  BlastCall(CheckHeader(&got, &mine, path));
  BlastCall(BlastCheckpointCheckMaterials(&got, &mine, path));
  BlastCall(BlastCheckpointCheckProblem(&got, &mine, path));
  BlastCall(
      BlastCheckpointCheckAssembly(&got, path, cfg->assembly, mine.dim, mine.order_kinematic));
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  BlastCallHDF5(fapl);
  BlastCallHDF5(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  if (f < 0) BadCheckpoint("checkpoint %s cannot be opened as HDF5 (truncated or damaged?)", path);
  int ierr = 0;
  double *x = NULL, *v = NULL, *e = NULL, *buf = NULL;
  hsize_t *zc = NULL;
  do {
    // The header once more, from this open: the file must not have changed since.
    BlastCheckpointHeader again;
    if ((ierr = BlastCheckpointHeaderRead(f, path, &again))) break;
    if (memcmp(&again, &got, sizeof got)) {
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                             "checkpoint %s changed while it was being read", path);
      break;
    }
    if ((ierr = BlastMalloc((size_t)L.dim * L.nl + 1, &x)) ||
        (ierr = BlastMalloc((size_t)L.dim * L.nl + 1, &v)) ||
        (ierr = BlastMalloc((size_t)L.nz * L.ne + 1, &e)) ||
        (ierr = BlastMalloc((size_t)L.dim * L.nl + 1, &buf)) || (ierr = ZoneCoords(&L, &zc)))
      break;
    // H1 fields: all L-dofs (owned and ghosts) are read; the checksum covers the owned
    // ones (each dof is owned by exactly one rank), read first.
    double *fields[2] = {x, v};
    const char *names[2] = {"x", "v"};
    for (int k = 0; k < 2 && !ierr; k++) {
      hsize_t *oc = NULL;
      if ((ierr = BlastMalloc((size_t)2 * L.dim * (L.nl ? L.nl : 1), &oc))) break;
      size_t p = 0;
      for (int c = 0; c < L.dim; c++)
        for (int i = 0; i < L.nown; i++, p++)
          oc[2 * p] = (hsize_t)c, oc[2 * p + 1] = (hsize_t)L.h1_gid[i];
      for (int c = 0; c < L.dim; c++)
        for (int i = L.nown; i < L.nl; i++, p++)
          oc[2 * p] = (hsize_t)c, oc[2 * p + 1] = (hsize_t)L.h1_gid[i];
      ierr = ReadField(comm, f, path, names[k], (hsize_t)L.dim, (hsize_t)L.h1_global, p, oc, buf);
      BlastFree(&oc);
      if (ierr) break;
      p = 0;
      for (int c = 0; c < L.dim; c++)
        for (int i = 0; i < L.nown; i++, p++) fields[k][(size_t)c * L.nl + i] = buf[p];
      for (int c = 0; c < L.dim; c++)
        for (int i = L.nown; i < L.nl; i++, p++) fields[k][(size_t)c * L.nl + i] = buf[p];
    }
    if (ierr) break;
    if ((ierr = ReadField(comm, f, path, "e", (hsize_t)L.zones_global, (hsize_t)L.ne,
                          (size_t)L.nz * L.ne, zc, e)))
      break;
    if ((ierr = BlastHydroSetState(h, x, v, e))) break;
    BlastHydroSetProgress(h, got.t, got.dt, got.steps, got.step_attempts, got.dt_initial,
                          got.energy_initial);
    if ((ierr = BlastHydroResume(h))) break;
    // The balancer's split (mean over the ranks that wrote it): where an auto search starts.
    BlastHydroSeedBalance(h, got.gpu_fraction);
    if (notes && nnotes) BlastCheckpointOptionChanges(&got, cfg, notes, nnotes);
  } while (0);
  H5Fclose(f);
  H5Eclear2(H5E_DEFAULT);
  BlastFree(&x), BlastFree(&v), BlastFree(&e), BlastFree(&buf), BlastFree(&zc);
  return ierr ? BlastErrorTrace(__FILE__, __LINE__, __func__, ierr) : 0;
}
