/// @file blast.h
/// @brief Base definitions shared by every blast_gpu module: error codes, the one family of
/// check macros, and checked memory allocation.
///
/// Conventions (see docs/architecture.md):
/// - every fallible function returns an `int` error code (BLAST_SUCCESS == 0);
/// - callers propagate with BlastCall(); conditions are tested with BlastCheck();
///   foreign status codes are converted with BlastCallMPI() (here) and BlastCallCuda(),
///   BlastCallCublas(), BlastCallCusparse() (backends/cuda/blast_cuda.h), BlastCallHDF5() (io/);
/// - the first failure records a message with file:line, function and rank; each
///   propagation adds a traceback frame; only main() decides to print and exit.
/// The checks are never compiled out.
#ifndef BLAST_H
#define BLAST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Error codes. The process exit code of blast_gpu is BlastExitCode(code).
typedef enum {
  BLAST_SUCCESS = 0,
  BLAST_ERR_INPUT = 2,    ///< bad user input: deck, command line, mesh or checkpoint file
  BLAST_ERR_NUMERIC = 3,  ///< the run failed numerically: tangled mesh, dt collapse, NaN
  BLAST_ERR_MEM,          ///< allocation failed
  BLAST_ERR_IO,           ///< file system error (open, write, rename)
  BLAST_ERR_ARG,          ///< a function was called with invalid arguments (a bug)
  BLAST_ERR_UNSUPPORTED,  ///< a feature or backend that is not available in this build
  BLAST_ERR_MPI,
  BLAST_ERR_CUDA,
  BLAST_ERR_CUBLAS,
  BLAST_ERR_CUSPARSE,
  BLAST_ERR_HDF5,
  BLAST_ERR_METIS,
  BLAST_ERR_OTHER_RANK,  ///< this rank is fine, another rank failed (collective checks)
  BLAST_ERR_INTERNAL
} BlastErrorCode;

/// Record a new error (message formatted printf-style) and return `code`.
/// Resets any previously recorded error.
int BlastErrorRaise(const char *file, int line, const char *func, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/// Add a traceback frame to the recorded error and return `code` unchanged.
int BlastErrorTrace(const char *file, int line, const char *func, int code);
/// The recorded message ("" if none).
const char *BlastErrorMessage(void);
/// Print the recorded error to stderr, prefixed with the rank: the message, then where it was
/// raised and the traceback, except for bad input and numerical failures (whose message is
/// for the user) unless BlastErrorSetTraceAll(1).
void BlastErrorPrint(void);
/// Print the traceback of every error, bad input and numerical failures included.
void BlastErrorSetTraceAll(int on);
/// Forget the recorded error (used by tests that provoke errors on purpose).
void BlastErrorClear(void);
/// Set the rank shown in messages (call once MPI is up).
void BlastErrorSetRank(int rank);
int BlastErrorGetRank(void);
/// How far an error is known across ranks; decides how main() reports and exits.
typedef enum {
  BLAST_COLLECTIVE_NONE = 0,  ///< only this rank knows: print here and abort the job
  BLAST_COLLECTIVE_OWN,       ///< every rank stops; this rank failed itself and prints
  BLAST_COLLECTIVE_SAME,      ///< every rank failed identically; rank 0 prints once
  BLAST_COLLECTIVE_PASSIVE    ///< every rank stops; this one only because another failed
} BlastCollective;
/// Mark the recorded error as known on every rank (see BlastAgree in blast_mpi.h).
void BlastErrorSetCollective(BlastCollective level);
BlastCollective BlastErrorCollective(void);
/// Exit code of the process for an error code: 2 for input errors, 3 for numerical
/// failures, 1 otherwise.
int BlastExitCode(int code);
/// Human-readable name of an error code.
const char *BlastErrorName(int code);

/// Propagate the error of a blast_gpu call.
#define BlastCall(...)                                                    \
  do {                                                                    \
    int blast_ierr_ = (__VA_ARGS__);                                      \
    if (blast_ierr_) return BlastErrorTrace(__FILE__, __LINE__, __func__, blast_ierr_); \
  } while (0)

/// Return `code` with a formatted message unless `cond` holds.
#define BlastCheck(cond, code, ...)                                                \
  do {                                                                             \
    if (!(cond)) return BlastErrorRaise(__FILE__, __LINE__, __func__, code, __VA_ARGS__); \
  } while (0)

/// Return `code` with a formatted message.
#define BlastError(code, ...) return BlastErrorRaise(__FILE__, __LINE__, __func__, code, __VA_ARGS__)

// ---------------------------------------------------------------------------------------
// Checked memory. Sizes overflow-checked; errors name the size that could not be had.

int BlastMallocImpl(size_t n, size_t size, void *ptr, const char *file, int line,
                    const char *func);
int BlastCallocImpl(size_t n, size_t size, void *ptr, const char *file, int line,
                    const char *func);
int BlastReallocImpl(size_t n, size_t size, void *ptr, const char *file, int line,
                     const char *func);
/// Free *ptr (NULL allowed) and set it to NULL. `ptr` is the address of a pointer.
void BlastFreeImpl(void *ptr);

/// BlastMalloc(n, &p): allocate n elements of *p's type into p.
#define BlastMalloc(n, p) BlastMallocImpl((size_t)(n), sizeof(**(p)), (p), __FILE__, __LINE__, __func__)
#define BlastCalloc(n, p) BlastCallocImpl((size_t)(n), sizeof(**(p)), (p), __FILE__, __LINE__, __func__)
#define BlastRealloc(n, p) BlastReallocImpl((size_t)(n), sizeof(**(p)), (p), __FILE__, __LINE__, __func__)
#define BlastFree(p) BlastFreeImpl(p)

/// Duplicate a string (checked).
int BlastStrdup(const char *s, char **out);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_H
