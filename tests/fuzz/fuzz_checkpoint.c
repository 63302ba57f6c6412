// Bit-flip fuzzer of the checkpoint reader: a real checkpoint of a short 2D
// Sedov run is damaged one byte at a time, every byte of the file in turn (the root
// group's attributes, the object headers, the datasets' values, free space), each time
// with a random non-zero XOR mask, pass after pass until the time is up. Every damaged
// file must either restart to exactly the original state (the same bits of x, v, e, t,
// dt, steps and attempts: a flip in bytes the reader does not use) or be refused with
// BLAST_ERR_INPUT (exit 2 of blast_gpu). Anything else (another error code, a different
// state, a crash) is a finding: the input is kept as WORK/checkpoint-finding-<offset>.h5.
//
// usage: fuzz_checkpoint [-t SECONDS] [-w WORK_DIR] [-s SEED] [-n MAX_INPUTS]
// Prints one line of totals; exit 0 when every input was handled, 1 otherwise.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "blast_hdf5.h"
#include "blast_mpi.h"
#include "checkpoint.h"
#include "io_test_meshes.h"
#include "regression_common.h"

typedef struct {
  double *x, *v, *e;
  double t, dt;
  int steps, attempts;
} State;

static int StopAfter(void *user, const BlastStepInfo *info) {
  if (!info->rejected && info->step == 3) BlastHydroRequestStop(*(BlastHydro *)user);
  return 0;
}

static int GetState(BlastHydro h, size_t nx, size_t ne, State *s) {
  BlastCall(BlastMalloc(nx, &s->x));
  BlastCall(BlastMalloc(nx, &s->v));
  BlastCall(BlastMalloc(ne, &s->e));
  BlastCall(BlastHydroGetState(h, s->x, s->v, s->e));
  BlastHydroGetProgress(h, &s->t, &s->dt, &s->steps, &s->attempts);
  return 0;
}

static void FreeState(State *s) {
  BlastFree(&s->x), BlastFree(&s->v), BlastFree(&s->e);
}

static int SameState(const State *a, const State *b, size_t nx, size_t ne) {
  return !memcmp(a->x, b->x, nx * sizeof(double)) && !memcmp(a->v, b->v, nx * sizeof(double)) &&
         !memcmp(a->e, b->e, ne * sizeof(double)) && !memcmp(&a->t, &b->t, sizeof a->t) &&
         !memcmp(&a->dt, &b->dt, sizeof a->dt) && a->steps == b->steps &&
         a->attempts == b->attempts;
}

static int WriteFile(const char *path, const unsigned char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) BlastError(BLAST_ERR_IO, "cannot create %s: %s", path, strerror(errno));
  const size_t w = fwrite(data, 1, n, f);
  if (fclose(f) != 0 || w != n) BlastError(BLAST_ERR_IO, "cannot write %s", path);
  return 0;
}

static int ReadWhole(const char *path, unsigned char **data, size_t *n) {
  struct stat st;
  BlastCheck(stat(path, &st) == 0, BLAST_ERR_IO, "cannot stat %s", path);
  *n = (size_t)st.st_size;
  BlastCall(BlastMalloc(*n, data));
  FILE *f = fopen(path, "rb");
  BlastCheck(f, BLAST_ERR_IO, "cannot open %s", path);
  const size_t r = fread(*data, 1, *n, f);
  fclose(f);
  BlastCheck(r == *n, BLAST_ERR_IO, "short read of %s", path);
  return 0;
}

static unsigned long long g_rng = 88172645463325252ull;
static unsigned Rand(void) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (unsigned)(g_rng >> 11);
}

static int Fuzz(const char *work, double seconds, long max_inputs) {
  BlastMesh mesh;
  BlastCall(TestUnitBoxMesh(2, 2, &mesh));
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_SEDOV);
  cfg.t_final = 0.1;
  cfg.cg_tol = 1e-10;
  BlastHydro h;
  BlastCall(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  BlastCall(BlastHydroRun(h, StopAfter, &h));
  char orig[1024], input[1024], dir[1024];
  snprintf(dir, sizeof dir, "%s/original", work);
  BlastCall(BlastCheckpointWrite(MPI_COMM_WORLD, h, &cfg, 3, 1.0, dir, 1,
                                 "[problem]\nname = sedov\n", "fuzz",
                                 "0123456789abcdef0123456789abcdef", -1, orig, sizeof orig));
  const BlastSpace *sp = BlastHydroGetSpace(h);
  const size_t nx = (size_t)sp->dim * (size_t)sp->h1_nl, ne = (size_t)sp->nz * (size_t)sp->l2_nd;
  BlastCall(BlastHydroDestroy(&h));
  // The reference: the undamaged file read into a fresh solver.
  BlastCall(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  BlastCall(BlastCheckpointRead(MPI_COMM_WORLD, h, &cfg, orig, NULL, 0));
  State ref, got;
  BlastCall(GetState(h, nx, ne, &ref));
  unsigned char *data = NULL;
  size_t n = 0;
  BlastCall(ReadWhole(orig, &data, &n));
  snprintf(input, sizeof input, "%s/input.h5", work);
  long inputs = 0, refused = 0, same = 0, passes = 0;
  int finding = 0;
  const double t0 = MPI_Wtime();
  for (size_t off = 0; !finding; off++) {
    if (off == n) off = 0, passes++;
    if (MPI_Wtime() - t0 > seconds || (max_inputs > 0 && inputs >= max_inputs)) break;
    const unsigned char mask = (unsigned char)(1u + Rand() % 255u), keep = data[off];
    data[off] ^= mask;
    int ierr = WriteFile(input, data, n);
    data[off] = keep;
    BlastCall(ierr);
    inputs++;
    ierr = BlastCheckpointRead(MPI_COMM_WORLD, h, &cfg, input, NULL, 0);
    const char *why = NULL;
    if (ierr == BLAST_ERR_INPUT) {
      refused++;
    } else if (ierr) {
      why = "an error other than a refusal";
    } else {
      BlastCall(GetState(h, nx, ne, &got));
      if (SameState(&got, &ref, nx, ne))
        same++;
      else
        why = "a restart to a different state";
      FreeState(&got);
    }
    if (why) {
      char keep_path[1100];
      snprintf(keep_path, sizeof keep_path, "%s/checkpoint-finding-%zu.h5", work, off);
      data[off] ^= mask;
      WriteFile(keep_path, data, n);
      data[off] = keep;
      fprintf(stderr, "fuzz_checkpoint: byte %zu ^ 0x%02x: %s (code %d: %s); kept as %s\n", off,
              mask, why, ierr, BlastErrorMessage(), keep_path);
      finding = 1;
    }
    BlastErrorClear();
  }
  const double secs = MPI_Wtime() - t0;
  printf(
      "fuzz_checkpoint: %s: %ld inputs in %.0f s (%.0f/s) over the %zu bytes of %s (%ld full "
      "passes, every byte flipped at least %ld times): %ld refused (exit 2), %ld restarted to "
      "the original bits\n",
      finding ? "FAIL" : "PASS", inputs, secs, inputs / (secs > 0 ? secs : 1), n, orig, passes,
      passes, refused, same);
  FreeState(&ref);
  BlastFree(&data);
  BlastCall(BlastHydroDestroy(&h));
  BlastCall(BlastMeshDestroy(&mesh));
  remove(input);
  return finding ? BLAST_ERR_INTERNAL : 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double seconds = 60;
  const char *work = "fuzz-checkpoint-work";
  long max_inputs = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-t"))
      seconds = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "-w"))
      work = argv[i + 1];
    else if (!strcmp(argv[i], "-s"))
      g_rng = strtoull(argv[i + 1], NULL, 10) | 1u;
    else if (!strcmp(argv[i], "-n"))
      max_inputs = atol(argv[i + 1]);
  }
  BlastHDF5Quiet();
  mkdir(work, 0755);
  const int ierr = Fuzz(work, seconds, max_inputs);
  if (ierr) BlastErrorPrint();
  MPI_Finalize();
  return ierr ? 1 : 0;
}
