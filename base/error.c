// Error recording, traceback and checked allocation (see blast.h).
#include "blast.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMsgLen = 2048, kMaxFrames = 32, kFrameLen = 192 };

// One error record per process. Errors inside OpenMP regions are reported through
// flags and raised after the region, so a single record is enough.
static struct {
  int code;
  int collective;
  int rank;
  char message[kMsgLen];
  char origin[kFrameLen];
  int nframes;
  char frames[kMaxFrames][kFrameLen];
} g_err = {0, 0, -1, "", "", 0, {{0}}};

int BlastErrorRaise(const char *file, int line, const char *func, int code, const char *fmt,
                    ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_err.message, sizeof g_err.message, fmt, ap);
  va_end(ap);
  snprintf(g_err.origin, sizeof g_err.origin, "%s:%d in %s()", file, line, func);
  g_err.code = code;
  g_err.collective = 0;
  g_err.nframes = 0;
  return code;
}

int BlastErrorTrace(const char *file, int line, const char *func, int code) {
  if (g_err.code == 0) {
    // A code without a record: someone returned an error without raising it.
    snprintf(g_err.message, sizeof g_err.message, "unreported error %s (%d)",
             BlastErrorName(code), code);
    snprintf(g_err.origin, sizeof g_err.origin, "%s:%d in %s()", file, line, func);
    g_err.code = code;
    return code;
  }
  if (g_err.nframes < kMaxFrames)
    snprintf(g_err.frames[g_err.nframes++], kFrameLen, "%s:%d in %s()", file, line, func);
  return code;
}

static int g_trace_all = 0;  // print the trace of input and numerical errors too

const char *BlastErrorMessage(void) { return g_err.message; }

void BlastErrorPrint(void) {
  if (!g_err.code) return;
  char who[32] = "";
  if (g_err.rank >= 0 && g_err.collective != BLAST_COLLECTIVE_SAME) snprintf(who, sizeof who, " (rank %d)", g_err.rank);
  fprintf(stderr, "blast_gpu: error%s: %s\n", who, g_err.message);
  // Where blast_gpu raised it: for errors of the program or its environment. Bad input
  // and numerical failures are the user's to act on; their message says everything (the
  // trace on request: BlastErrorSetTraceAll).
  if (g_trace_all || (g_err.code != BLAST_ERR_INPUT && g_err.code != BLAST_ERR_NUMERIC)) {
    fprintf(stderr, "  [%s] raised at %s\n", BlastErrorName(g_err.code), g_err.origin);
    for (int i = 0; i < g_err.nframes; i++) fprintf(stderr, "  called from %s\n", g_err.frames[i]);
  }
  fflush(stderr);
}

void BlastErrorSetTraceAll(int on) { g_trace_all = on; }

void BlastErrorClear(void) {
  g_err.code = 0;
  g_err.collective = 0;
  g_err.nframes = 0;
  g_err.message[0] = g_err.origin[0] = '\0';
}

void BlastErrorSetRank(int rank) { g_err.rank = rank; }
int BlastErrorGetRank(void) { return g_err.rank < 0 ? 0 : g_err.rank; }
void BlastErrorSetCollective(BlastCollective level) { g_err.collective = (int)level; }
BlastCollective BlastErrorCollective(void) { return (BlastCollective)g_err.collective; }

int BlastExitCode(int code) {
  if (code == BLAST_SUCCESS) return 0;
  if (code == BLAST_ERR_INPUT) return 2;
  if (code == BLAST_ERR_NUMERIC) return 3;
  return 1;
}

const char *BlastErrorName(int code) {
  switch (code) {
    case BLAST_SUCCESS: return "success";
    case BLAST_ERR_INPUT: return "input error";
    case BLAST_ERR_NUMERIC: return "numerical failure";
    case BLAST_ERR_MEM: return "out of memory";
    case BLAST_ERR_IO: return "I/O error";
    case BLAST_ERR_ARG: return "invalid argument";
    case BLAST_ERR_UNSUPPORTED: return "unsupported";
    case BLAST_ERR_MPI: return "MPI error";
    case BLAST_ERR_CUDA: return "CUDA error";
    case BLAST_ERR_CUBLAS: return "cuBLAS error";
    case BLAST_ERR_CUSPARSE: return "cuSPARSE error";
    case BLAST_ERR_HDF5: return "HDF5 error";
    case BLAST_ERR_METIS: return "METIS error";
    case BLAST_ERR_OTHER_RANK: return "error on another rank";
    case BLAST_ERR_INTERNAL: return "internal error";
    default: return "unknown error";
  }
}

static int CheckedBytes(size_t n, size_t size, size_t *bytes, const char *file, int line,
                        const char *func) {
  if (size && n > SIZE_MAX / size)
    return BlastErrorRaise(file, line, func, BLAST_ERR_MEM,
                           "allocation of %zu elements of %zu bytes overflows size_t", n, size);
  *bytes = n * size;
  return 0;
}

int BlastMallocImpl(size_t n, size_t size, void *ptr, const char *file, int line,
                    const char *func) {
  size_t bytes = 0;
  int ierr = CheckedBytes(n, size, &bytes, file, line, func);
  if (ierr) return ierr;
  void *p = malloc(bytes ? bytes : 1);
  if (!p)
    return BlastErrorRaise(file, line, func, BLAST_ERR_MEM, "could not allocate %.3f MiB",
                           (double)bytes / 1048576.0);
  *(void **)ptr = p;
  return 0;
}

int BlastCallocImpl(size_t n, size_t size, void *ptr, const char *file, int line,
                    const char *func) {
  size_t bytes = 0;
  int ierr = CheckedBytes(n, size, &bytes, file, line, func);
  if (ierr) return ierr;
  void *p = calloc(bytes ? n : 1, bytes ? size : 1);
  if (!p)
    return BlastErrorRaise(file, line, func, BLAST_ERR_MEM, "could not allocate %.3f MiB",
                           (double)bytes / 1048576.0);
  *(void **)ptr = p;
  return 0;
}

int BlastReallocImpl(size_t n, size_t size, void *ptr, const char *file, int line,
                     const char *func) {
  size_t bytes = 0;
  int ierr = CheckedBytes(n, size, &bytes, file, line, func);
  if (ierr) return ierr;
  void *p = realloc(*(void **)ptr, bytes ? bytes : 1);
  if (!p)
    return BlastErrorRaise(file, line, func, BLAST_ERR_MEM, "could not reallocate %.3f MiB",
                           (double)bytes / 1048576.0);
  *(void **)ptr = p;
  return 0;
}

void BlastFreeImpl(void *ptr) {
  void **p = (void **)ptr;
  if (!p) return;
  free(*p);
  *p = NULL;
}

int BlastStrdup(const char *s, char **out) {
  size_t n = strlen(s) + 1;
  int ierr = BlastMalloc(n, out);
  if (ierr) return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  memcpy(*out, s, n);
  return 0;
}
