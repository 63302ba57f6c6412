// The part of NCCL's C API the halo transport uses (halo.nccl_*), declared here and
// resolved from libnccl.so.2 at run time: no build or link dependency, and a node without
// the library keeps the other transports. The CUDA backend's NCCL state (CudaNccl).
#ifndef BLAST_GPU_NCCL_LIB_H
#define BLAST_GPU_NCCL_LIB_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char internal[BLAST_NCCL_ID];
} BlastNcclUniqueId;                           // ncclUniqueId
typedef struct BlastNcclComm_ *BlastNcclComm;  // ncclComm_t

enum { kNcclSuccess = 0, kNcclDouble = 8 };  // ncclSuccess, ncclFloat64

typedef struct {
  void *lib;
  int version;  // ncclGetVersion: 22803 for 2.28.3
  int (*get_version)(int *);
  int (*get_unique_id)(BlastNcclUniqueId *);
  int (*comm_init_rank)(BlastNcclComm *, int, BlastNcclUniqueId, int);
  int (*comm_destroy)(BlastNcclComm);
  int (*comm_abort)(BlastNcclComm);
  int (*async_error)(BlastNcclComm, int *);
  const char *(*error_string)(int);
  int (*send)(const void *, size_t, int, int, BlastNcclComm, cudaStream_t);
  int (*recv)(void *, size_t, int, int, BlastNcclComm, cudaStream_t);
  int (*group_start)(void);
  int (*group_end)(void);
} BlastNcclLib;

/// The library, loaded once per process (thread-safe): NULL with a reason in why (size n)
/// when it cannot be (not installed, no such symbol, older than 2.7, which has no
/// point-to-point calls). BLAST_NCCL_LIBRARY names another file than libnccl.so.2.
const BlastNcclLib *BlastNcclLoad(char *why, size_t n);

/// The NCCL transport of a context (ops_halo.cu): the communicator, the stream its
/// messages run on (events order it against the context's stream), the device buffers of
/// the packed messages and of those received, and the messages (host copies).
typedef struct {
  BlastNcclComm comm;  // NULL: no transport
  cudaStream_t stream;
  cudaEvent_t packed, arrived;
  double *sbuf, *rbuf;  // cap doubles each
  size_t cap;
  int nsend[2][2], nrecv[2][2];
  BlastNcclMsg *send[2][2], *recv[2][2];
  int open;  // 1 + (which, reverse, ncomp) of a begun exchange not ended yet, else 0
} CudaNccl;

#ifdef __cplusplus
}
#endif

#endif  // BLAST_GPU_NCCL_LIB_H
