// The backend table's halo group: halo entries packed into and out of host buffers
// through the device staging buffer, and the device-to-device transport between the ranks
// of one node (halo.peer_*: CUDA IPC, each rank writing its messages straight into its
// neighbours' receive areas, on one GPU or across GPUs that reach each other).
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "kernels/halo.cuh"

extern "C" int BlastCudaHaloPack(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *x, double *buf) {
  CudaCtx *c = (CudaCtx *)ctx;
  const DevHalo *h = &c->halo[which];
  const int n = reverse ? h->nrecv : h->nsend;
  if (!n) return 0;
  k_pack<<<GridFor((size_t)n * ncomp), 256, 0, c->stream>>>(n, ncomp, stride, reverse ? h->recv_idx : h->send_idx, x,
                                                          c->dbuf);
  BlastCheckKernel(c->sync, "k_pack");
  BlastCallCuda(cudaMemcpyAsync(buf, c->dbuf, (size_t)n * ncomp * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  return 0;
}

// The unpack kernels reading the device buffer buf: forward, ghosts set; reverse, owners
// add in list order (dd: ncomp double-double pairs). Both transports' unpacks.
static int UnpackFrom(CudaCtx *c, const DevHalo *h, int reverse, int dd, int ncomp, size_t stride, const double *buf,
                      double *x) {
  if (!reverse) {
    if (!h->nrecv) return 0;
    k_unpack_set<<<GridFor((size_t)h->nrecv * ncomp), 256, 0, c->stream>>>(h->nrecv, ncomp, stride, h->recv_idx, buf,
                                                                             x);
    BlastCheckKernel(c->sync, "k_unpack_set");
  } else {
    if (!h->nsend) return 0;
    k_unpack_add<<<GridFor((size_t)h->ntarget * ncomp), 256, 0, c->stream>>>(*h, ncomp, stride, buf, x, dd);
    if (dd)
      BlastCheckKernel(c->sync, "k_unpack_add(dd)");
    else
      BlastCheckKernel(c->sync, "k_unpack_add");
  }
  return 0;
}

extern "C" int BlastCudaHaloUnpack(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *buf, double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  const DevHalo *h = &c->halo[which];
  const int n = reverse ? h->nsend : h->nrecv;
  if (!n) return 0;
  BlastCallCuda(cudaMemcpyAsync(c->dbuf, buf, (size_t)n * ncomp * sizeof(double), cudaMemcpyHostToDevice, c->stream));
  return UnpackFrom(c, h, reverse, 0, ncomp, stride, c->dbuf, x);
}

extern "C" int BlastCudaHaloUnpackDD(void *ctx, int which, int ndd, size_t stride, const double *buf, double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  const DevHalo *h = &c->halo[which];
  if (!h->nsend) return 0;
  BlastCallCuda(cudaMemcpyAsync(c->dbuf, buf, (size_t)h->nsend * 2 * ndd * sizeof(double), cudaMemcpyHostToDevice,
                                c->stream));
  return UnpackFrom(c, h, 1, 1, ndd, stride, c->dbuf, x);
}

// ---------------------------------------------------------------------------------------
// Device-to-device transport

// What peer_export writes: the area's IPC handle, the PCI address of its device and the
// exporting process (an area of this very process is used directly, not opened).
typedef struct {
  uint32_t magic;
  int32_t pid;
  char bus[64];
  cudaIpcMemHandle_t handle;
} PeerBlob;
static_assert(sizeof(PeerBlob) <= BLAST_PEER_BLOB, "BLAST_PEER_BLOB");
static const uint32_t kPeerMagic = 0x626c7031u;

extern "C" int BlastCudaHaloPeerExport(void *ctx, size_t half, unsigned char *blob, int *ok) {
  CudaCtx *c = (CudaCtx *)ctx;
  CudaPeer *p = &c->peer;
  *ok = 0;
  BlastCall(PeerRelease(c));
  PeerBlob b;
  memset(&b, 0, sizeof b);
  b.magic = kPeerMagic, b.pid = (int32_t)getpid();
  int dev;
  BlastCallCuda(cudaGetDevice(&dev));
  BlastCallCuda(cudaDeviceGetPCIBusId(b.bus, sizeof b.bus, dev));
  p->half = half ? half : 1;
  // the halos' two halves, the resident solve's two and its mailbox (zero flags)
  const size_t bytes = (4 * p->half + kPeerMail) * sizeof(double);
  BlastCallCuda(cudaMalloc((void **)&p->area, bytes));
  BlastCallCuda(cudaMemset(p->area, 0, bytes));
  // A device or driver without IPC (or a process that may not share memory) declines: the
  // front end keeps the host buffers.
  if (cudaIpcGetMemHandle(&b.handle, p->area) != cudaSuccess) {
    (void)cudaGetLastError();
    return PeerRelease(c);
  }
  BlastCallCuda(cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming));
  memset(blob, 0, BLAST_PEER_BLOB);
  memcpy(blob, &b, sizeof b);
  *ok = 1;
  return 0;
}

// Open the area of blob on this rank's device; *ptr = NULL when it cannot be reached.
// *other: 1 where it lies on another GPU than this rank's.
static int PeerOpen(CudaCtx *c, const unsigned char *blob, double **ptr, int *opened, int *other) {
  PeerBlob b;
  memcpy(&b, blob, sizeof b);
  *ptr = NULL, *opened = 0, *other = 0;
  BlastCheck(b.magic == kPeerMagic, BLAST_ERR_INTERNAL,
             "halo.peer_import: not a peer_export handle");
  if (b.pid == (int32_t)getpid()) {  // this process's own area
    *ptr = c->peer.area;
    return 0;
  }
  int dev, pdev, can = 1;
  BlastCallCuda(cudaGetDevice(&dev));
  b.bus[sizeof b.bus - 1] = '\0';
  if (cudaDeviceGetByPCIBusId(&pdev, b.bus) != cudaSuccess) {  // not visible to this process
    (void)cudaGetLastError();
    return 0;
  }
  if (pdev != dev) BlastCallCuda(cudaDeviceCanAccessPeer(&can, dev, pdev));
  if (!can) return 0;
  *other = pdev != dev;
  void *m = NULL;
  if (cudaIpcOpenMemHandle(&m, b.handle, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  *ptr = (double *)m, *opened = 1;
  return 0;
}

extern "C" int BlastCudaHaloPeerImport(void *ctx, const BlastHaloPeers *hp, int *ok) {
  CudaCtx *c = (CudaCtx *)ctx;
  CudaPeer *p = &c->peer;
  *ok = 0;
  if (!hp) return PeerRelease(c);
  BlastCheck(p->area, BLAST_ERR_INTERNAL, "halo.peer_import before a successful peer_export");
  p->npeer = hp->npeer;
  BlastCall(BlastCalloc(hp->npeer + 1, &p->remote));
  BlastCall(BlastCalloc(hp->npeer + 1, &p->opened));
  int reach = 1, others = 1;
  for (int i = 0; i < hp->npeer && reach; i++) {
    int other;
    BlastCall(
        PeerOpen(c, hp->blobs + (size_t)i * BLAST_PEER_BLOB, &p->remote[i], &p->opened[i], &other));
    reach = p->remote[i] != NULL, others &= other;
  }
  if (!reach) return PeerRelease(c);
  for (int w = 0; w < 2; w++) {
    p->base[w] = hp->base[w];
    for (int r = 0; r < 2; r++) {
      const int n = hp->nroute[w][r];
      DevRoute *dr;
      BlastCall(BlastMalloc(n + 1, &dr));
      int most = 0;
      for (int k = 0; k < n; k++) {
        const BlastPeerRoute *q = &hp->route[w][r][k];
        BlastCheck(q->peer >= 0 && q->peer < hp->npeer, BLAST_ERR_INTERNAL,
                   "halo.peer_import: route to peer %d of %d", q->peer, hp->npeer);
        dr[k] =
            (DevRoute){p->remote[q->peer] + q->roff, hp->half[q->peer], q->rtotal, q->off, q->cnt};
        if (q->cnt > most) most = q->cnt;
      }
      p->nroute[w][r] = n, p->maxcnt[w][r] = most;
      int ierr = DevUpload(dr, (size_t)n, &p->route[w][r]);
      if (!ierr && w == BLAST_HALO_COL && r == 0) {  // the resident solve's ghost columns
        for (int k = 0; k < n; k++) dr[k].dst += 2 * dr[k].half;
        ierr = DevUpload(dr, (size_t)n, &p->rk_route);
      }
      BlastFree(&dr);
      BlastCall(ierr);
    }
  }
  p->rank = hp->rank, p->nranks = hp->nranks;
  // (ranks sharing a GPU only for a test of the exchanges, BlastGpuOptions.resident_shared:
  // without MPS each wait on the GPU holds the other ranks' time slice)
  p->resident = hp->all_peers && (others || c->opt.resident_shared) && hp->nranks > 1 &&
                hp->nranks <= kPeerMailRanks &&
                hp->ranks && hp->npeer == hp->nranks - 1;
  if (p->resident) {
    unsigned long long **mail;
    BlastCall(BlastMalloc(hp->npeer + 1, &mail));
    for (int i = 0; i < hp->npeer; i++) mail[i] = PeerMail(p->remote[i], hp->half[i]);
    int ierr = DevUpload(mail, (size_t)hp->npeer, &p->rk_mail);
    BlastFree(&mail);
    BlastCall(ierr);
    BlastCall(DevUpload(hp->ranks, (size_t)hp->npeer, &p->rk_ranks));
    BlastCallCuda(cudaMalloc((void **)&p->rk_count, 3 * sizeof(unsigned)));
    BlastCallCuda(cudaMemset(p->rk_count, 0, 3 * sizeof(unsigned)));
    BlastCallCuda(cudaMalloc((void **)&p->rk_seq, 2 * sizeof(unsigned long long)));
    BlastCallCuda(cudaMemset(p->rk_seq, 0, 2 * sizeof(unsigned long long)));
    int least, greatest;
    BlastCallCuda(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    BlastCallCuda(cudaStreamCreateWithPriority(&p->rk_side, cudaStreamNonBlocking, greatest));
    BlastCallCuda(cudaEventCreateWithFlags(&p->rk_fork, cudaEventDisableTiming));
    BlastCallCuda(cudaEventCreateWithFlags(&p->rk_join, cudaEventDisableTiming));
  }
  if (hp->resident) *hp->resident = p->resident;
  *ok = 1;
  return 0;
}

int PeerRelease(CudaCtx *c) {
  CudaPeer *p = &c->peer;
  BlastCall(PcgDropGraphs(c));  // the resident solve's graphs hold the areas' pointers
  for (int i = 0; i < p->npeer; i++)
    if (p->opened && p->opened[i]) BlastCallCuda(cudaIpcCloseMemHandle(p->remote[i]));
  for (int w = 0; w < 2; w++)
    for (int r = 0; r < 2; r++) BlastCallCuda(cudaFree(p->route[w][r]));
  BlastCallCuda(cudaFree(p->area));
  BlastCallCuda(cudaFree(p->rk_route));
  BlastCallCuda(cudaFree(p->rk_mail));
  BlastCallCuda(cudaFree(p->rk_ranks));
  BlastCallCuda(cudaFree(p->rk_count));
  BlastCallCuda(cudaFree(p->rk_seq));
  if (p->done) BlastCallCuda(cudaEventDestroy(p->done));
  if (p->rk_side) BlastCallCuda(cudaStreamDestroy(p->rk_side));
  if (p->rk_fork) BlastCallCuda(cudaEventDestroy(p->rk_fork));
  if (p->rk_join) BlastCallCuda(cudaEventDestroy(p->rk_join));
  BlastFree(&p->remote);
  BlastFree(&p->opened);
  memset(p, 0, sizeof *p);
  return 0;
}

extern "C" int BlastCudaHaloPeerSend(void *ctx, int which, int reverse, int ncomp, size_t stride,
                                     const double *x, int parity) {
  CudaCtx *c = (CudaCtx *)ctx;
  CudaPeer *p = &c->peer;
  BlastCheck(p->area && p->remote, BLAST_ERR_INTERNAL, "halo.peer_send without a peer_import");
  const int n = p->nroute[which][reverse];
  if (n) {
    const dim3 grid((unsigned)GridFor((size_t)p->maxcnt[which][reverse] * ncomp), (unsigned)n);
    const DevHalo *h = &c->halo[which];
    k_peer_pack<<<grid, 256, 0, c->stream>>>(
        p->route[which][reverse], reverse ? h->recv_idx : h->send_idx, ncomp, stride, x, parity);
    BlastCheckKernel(c->sync, "k_peer_pack");
  }
  // Also with nothing to send: once it completes, the neighbours are told that this
  // rank's earlier reads of its own area are done (hydro/halo_peer.c).
  BlastCallCuda(cudaEventRecord(p->done, c->stream));
  return 0;
}

extern "C" int BlastCudaHaloPeerSent(void *ctx) {
  CudaCtx *c = (CudaCtx *)ctx;
  BlastCheck(c->peer.done, BLAST_ERR_INTERNAL, "halo.peer_sent without a peer_export");
  BlastCallCuda(cudaEventSynchronize(c->peer.done));
  return 0;
}

extern "C" int BlastCudaHaloPeerRecv(void *ctx, int which, int reverse, int dd, int ncomp,
                                     size_t stride, int parity, double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  const CudaPeer *p = &c->peer;
  const DevHalo *h = &c->halo[which];
  BlastCheck(p->area, BLAST_ERR_INTERNAL, "halo.peer_recv without a peer_export");
  const double *buf = p->area + (size_t)parity * p->half + p->base[which];
  return UnpackFrom(c, h, reverse, dd, ncomp, stride, buf, x);
}

// The resident solve's ghost columns of d (forward halo COL, ncomp components st apart)
// through the areas' second pair of halves, ordered on the GPUs: Begin writes them into
// the neighbours' areas and posts this rank's flag there; End waits on the GPU for every
// neighbour's flag of the same exchange, then unpacks. Exchange k uses half k % 2: a rank
// writes exchange k after its End of k - 1 saw every neighbour's flag of k - 1, which each
// posted after its unpack of k - 2 (stream order), so no half is written while it is read.
// The exchanges are counted on the device (CudaPeer.rk_seq[0]): the launches are the same
// every time, and a graph may replay them. The pack and the unpack run on a stream of their
// own beside the interior rows (CudaPeer.rk_side), forked after the caller's last launch
// (the advance that wrote d); the caller queues the work that needs the ghost columns
// behind them and joins the side stream back (PeerSolveJoin).
int PeerSolveHaloBegin(CudaCtx *c, int ncomp, size_t st, const double *d) {
  CudaPeer *p = &c->peer;
  BlastCheck(p->resident, BLAST_ERR_INTERNAL, "the resident solve's halo without its areas");
  const int n = p->nroute[BLAST_HALO_COL][0], most = p->maxcnt[BLAST_HALO_COL][0];
  const dim3 grid((unsigned)GridFor((size_t)(most > 0 ? most : 1) * ncomp),
                  (unsigned)(n > 0 ? n : 1));
  BlastCallCuda(cudaEventRecord(p->rk_fork, c->stream));
  BlastCallCuda(cudaStreamWaitEvent(p->rk_side, p->rk_fork, 0));
  k_peer_pack_post<<<grid, 256, 0, p->rk_side>>>(p->rk_route, n, c->halo[BLAST_HALO_COL].send_idx,
                                                 ncomp, st, d, p->rk_seq, p->rk_mail, p->npeer,
                                                 p->rank, p->rk_count);
  BlastCheckKernel(c->sync, "k_peer_pack_post");
  return 0;
}

int PeerSolveHaloEnd(CudaCtx *c, int ncomp, size_t st, double *d) {
  CudaPeer *p = &c->peer;
  const DevHalo *h = &c->halo[BLAST_HALO_COL];
  const double *halves = p->area + 2 * p->half + p->base[BLAST_HALO_COL];
  k_peer_unpack_wait<<<GridFor((size_t)(h->nrecv > 0 ? h->nrecv : 1) * ncomp), 256, 0,
                       p->rk_side>>>(PeerMail(p->area, (int64_t)p->half), p->rk_ranks, p->npeer,
                                    p->rk_seq, p->rk_count + 1, h->nrecv, ncomp, st, h->recv_idx,
                                    halves, p->half, d);
  BlastCheckKernel(c->sync, "k_peer_unpack_wait");
  return 0;
}

int PeerSolveJoin(CudaCtx *c) {
  CudaPeer *p = &c->peer;
  BlastCallCuda(cudaEventRecord(p->rk_join, p->rk_side));
  BlastCallCuda(cudaStreamWaitEvent(c->stream, p->rk_join, 0));
  return 0;
}

// A dot's block pairs (sl, ncomp components, those in mask) folded into this rank's pairs
// (mine: kPcgRankPairs doubles, as DotFold folds them) and posted to every other rank
// through the mailboxes by the fold's last block, as gather CudaPeer.rk_seq[1] (the
// kernel that needs the dot awaits every rank's and counts the gather: pcg_ranks.cuh).
int PeerSolveDotPost(CudaCtx *c, const DotSlots *sl, int ncomp, unsigned mask, double *mine) {
  CudaPeer *p = &c->peer;
  BlastCheck(p->resident, BLAST_ERR_INTERNAL, "the resident solve's dots without its areas");
  k_peer_fold_post<<<ncomp, kDotThreads, 0, c->stream>>>(sl->part, sl->stride, sl->nslots, mask,
                                                         mine, p->rk_mail, p->npeer, p->rank,
                                                         p->rk_seq + 1, p->rk_count + 2);
  BlastCheckKernel(c->sync, "k_peer_fold_post");
  return 0;
}

// ---------------------------------------------------------------------------------------
// NCCL transport: the pack on the context's stream, the messages of one exchange as one
// NCCL group on the transport's stream (after the pack, through an event), the unpack on
// the context's stream after them: nothing waits on the host. The buffers are reused by
// the next exchange only after this one's unpack (stream order on both sides).

// NCCL status checks: the library's message, the call and where.
#define BLAST_NCCL_CALL(lib, call)                                                        \
  do {                                                                                    \
    const int r_ = (call);                                                                \
    if (r_ != kNcclSuccess)                                                               \
      BlastError(BLAST_ERR_CUDA, "NCCL: %s failed: %s", #call, (lib)->error_string(r_)); \
  } while (0)

int NcclRelease(CudaCtx *c) {
  CudaNccl *q = &c->nccl;
  const BlastNcclLib *lib = BlastNcclLoad(NULL, 0);
  if (q->comm && lib) {
    // Messages still pending (a neighbour stopped before it sent: an error path) would
    // never complete: the communicator is aborted then, not waited for.
    const cudaError_t idle = q->stream ? cudaStreamQuery(q->stream) : cudaSuccess;
    if (idle == cudaSuccess && !q->open) {
      BLAST_NCCL_CALL(lib, lib->comm_destroy(q->comm));
    } else {
      (void)cudaGetLastError();  // cudaErrorNotReady is not an error of a later call
      BLAST_NCCL_CALL(lib, lib->comm_abort(q->comm));
    }
  }
  if (q->stream) BlastCallCuda(cudaStreamDestroy(q->stream));
  if (q->packed) BlastCallCuda(cudaEventDestroy(q->packed));
  if (q->arrived) BlastCallCuda(cudaEventDestroy(q->arrived));
  BlastCallCuda(cudaFree(q->sbuf));
  BlastCallCuda(cudaFree(q->rbuf));
  for (int w = 0; w < 2; w++)
    for (int r = 0; r < 2; r++) BlastFree(&q->send[w][r]), BlastFree(&q->recv[w][r]);
  memset(q, 0, sizeof *q);
  return 0;
}

extern "C" int BlastCudaHaloNcclProbe(void *ctx, unsigned char *id, char *bus, int *ok) {
  (void)ctx;
  *ok = 0;
  const BlastNcclLib *lib = BlastNcclLoad(NULL, 0);
  if (!lib) return 0;
  int dev;
  BlastCallCuda(cudaGetDevice(&dev));
  BlastCallCuda(cudaDeviceGetPCIBusId(bus, BLAST_NCCL_BUS, dev));
  if (id) {
    BlastNcclUniqueId u;
    BLAST_NCCL_CALL(lib, lib->get_unique_id(&u));
    memcpy(id, u.internal, BLAST_NCCL_ID);
  }
  *ok = 1;
  return 0;
}

static int NcclKeep(const BlastNcclMsg *m, int n, BlastNcclMsg **out) {
  BlastCall(BlastMalloc(n + 1, out));
  if (n) memcpy(*out, m, (size_t)n * sizeof *m);
  return 0;
}

extern "C" int BlastCudaHaloNcclInit(void *ctx, const BlastHaloNccl *p, int *ok) {
  CudaCtx *c = (CudaCtx *)ctx;
  CudaNccl *q = &c->nccl;
  *ok = 0;
  BlastCall(NcclRelease(c));
  if (!p) return 0;
  const BlastNcclLib *lib = BlastNcclLoad(NULL, 0);
  if (!lib) return 0;
  // the buffers: 2 dim components of each halo's longer list (reverse double-double pairs)
  size_t cap = 1;
  for (int w = 0; w < 2; w++) {
    const DevHalo *h = &c->halo[w];
    const size_t m = 2 * (size_t)c->hd.dim * (size_t)(h->nsend > h->nrecv ? h->nsend : h->nrecv);
    if (m > cap) cap = m;
  }
  q->cap = cap;
  BlastCallCuda(cudaMalloc((void **)&q->sbuf, cap * sizeof(double)));
  BlastCallCuda(cudaMalloc((void **)&q->rbuf, cap * sizeof(double)));
  BlastCallCuda(cudaStreamCreateWithFlags(&q->stream, cudaStreamNonBlocking));
  BlastCallCuda(cudaEventCreateWithFlags(&q->packed, cudaEventDisableTiming));
  BlastCallCuda(cudaEventCreateWithFlags(&q->arrived, cudaEventDisableTiming));
  for (int w = 0; w < 2; w++)
    for (int r = 0; r < 2; r++) {
      q->nsend[w][r] = p->nsend[w][r], q->nrecv[w][r] = p->nrecv[w][r];
      BlastCall(NcclKeep(p->send[w][r], p->nsend[w][r], &q->send[w][r]));
      BlastCall(NcclKeep(p->recv[w][r], p->nrecv[w][r], &q->recv[w][r]));
    }
  BlastNcclUniqueId u;
  memcpy(u.internal, p->id, BLAST_NCCL_ID);
  BlastNcclComm comm = NULL;
  // A communicator that cannot be made (several ranks on one GPU, no route between the
  // devices) declines: the front end keeps the host buffers.
  if (lib->comm_init_rank(&comm, p->nranks, u, p->rank) != kNcclSuccess || !comm)
    return NcclRelease(c);
  q->comm = comm;
  *ok = 1;
  return 0;
}

extern "C" int BlastCudaHaloNcclBegin(void *ctx, int which, int reverse, int ncomp, size_t stride,
                                      const double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  CudaNccl *q = &c->nccl;
  const BlastNcclLib *lib = BlastNcclLoad(NULL, 0);
  BlastCheck(q->comm && lib, BLAST_ERR_INTERNAL, "halo.nccl_begin without a nccl_init");
  BlastCheck(!q->open, BLAST_ERR_INTERNAL, "halo.nccl_begin: the last exchange was not ended");
  const DevHalo *h = &c->halo[which];
  const int S = reverse ? h->nrecv : h->nsend, L = reverse ? h->nsend : h->nrecv;
  BlastCheck((size_t)ncomp * (S > L ? S : L) <= q->cap, BLAST_ERR_INTERNAL,
             "halo.nccl_begin: %d components of %d entries exceed the buffers", ncomp,
             S > L ? S : L);
  if (S) {
    k_pack<<<GridFor((size_t)S * ncomp), 256, 0, c->stream>>>(
        S, ncomp, stride, reverse ? h->recv_idx : h->send_idx, x, q->sbuf);
    BlastCheckKernel(c->sync, "k_pack");
  }
  BlastCallCuda(cudaEventRecord(q->packed, c->stream));
  BlastCallCuda(cudaStreamWaitEvent(q->stream, q->packed, 0));
  BLAST_NCCL_CALL(lib, lib->group_start());
  int ierr = 0;
  for (int k = 0; k < q->nsend[which][reverse] && !ierr; k++) {
    const BlastNcclMsg *m = &q->send[which][reverse][k];
    for (int cc = 0; cc < ncomp && m->cnt && !ierr; cc++)
      ierr = lib->send(q->sbuf + (size_t)cc * S + m->off, (size_t)m->cnt, kNcclDouble, m->rank,
                       q->comm, q->stream);
  }
  for (int k = 0; k < q->nrecv[which][reverse] && !ierr; k++) {
    const BlastNcclMsg *m = &q->recv[which][reverse][k];
    for (int cc = 0; cc < ncomp && m->cnt && !ierr; cc++)
      ierr = lib->recv(q->rbuf + (size_t)cc * L + m->off, (size_t)m->cnt, kNcclDouble, m->rank,
                       q->comm, q->stream);
  }
  const int gend = lib->group_end();  // ends the group whatever happened inside it
  BlastCheck(!ierr && gend == kNcclSuccess, BLAST_ERR_CUDA,
             "NCCL: the messages of halo %d (%s, %d components) failed: %s", which,
             reverse ? "reverse" : "forward", ncomp, lib->error_string(ierr ? ierr : gend));
  BlastCallCuda(cudaEventRecord(q->arrived, q->stream));
  q->open = 1 + (which + 2 * reverse + 4 * ncomp);
  return 0;
}

extern "C" int BlastCudaHaloNcclEnd(void *ctx, int which, int reverse, int dd, int ncomp,
                                    size_t stride, double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  CudaNccl *q = &c->nccl;
  const int sent = dd ? 2 * ncomp : ncomp;
  BlastCheck(q->comm, BLAST_ERR_INTERNAL, "halo.nccl_end without a nccl_init");
  BlastCheck(q->open == 1 + (which + 2 * reverse + 4 * sent), BLAST_ERR_INTERNAL,
             "halo.nccl_end of halo %d (%s, %d components) does not end the exchange begun",
             which, reverse ? "reverse" : "forward", sent);
  q->open = 0;
  BlastCallCuda(cudaStreamWaitEvent(c->stream, q->arrived, 0));
  return UnpackFrom(c, &c->halo[which], reverse, dd, ncomp, stride, q->rbuf, x);
}
