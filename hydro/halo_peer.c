// The device-to-device halo transport between the ranks of one node ([gpu] halo_transport):
// each rank's backend writes its messages straight into its neighbours' receive areas
// (halo.peer_*: CUDA IPC on one GPU shared by several ranks, or across GPUs that reach each
// other), and only a zero-byte notice per neighbour goes through MPI. The same entries,
// in the same order, as the host buffers' path: the same bits.
//
// Ordering. Every exchange, each rank notifies every neighbour (whatever the direction of
// the data), once its own writes and every earlier operation of its backend are done
// (halo.peer_sent), and waits for every neighbour's notice before it reads
// its area. The areas have two halves, used by alternate exchanges: a rank that writes
// exchange k into half k % 2 of a neighbour has seen that neighbour's notice of exchange
// k - 1, given after the neighbour finished reading exchange k - 2 from that half.
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "halo_peer.h"
#include "hydro_setup.h"

enum { kTagNotice = 790, kTagInfo = 791 };

struct BlastHydroPeer {
  int npeer;
  int *rank;  // [npeer] neighbours over both halos, ascending
  MPI_Request *req;
  unsigned seq;  // exchanges so far (the half of the next one: seq & 1)
  int resident;  // BlastHydroPeerResident
};

// What a rank tells each neighbour: its area's handle and layout, where that neighbour's
// messages start in it (-1: none), and its list lengths.
typedef struct {
  unsigned char blob[BLAST_PEER_BLOB];
  int64_t half, base[2], nrecv[2], nsend[2], fwd_off[2], rev_off[2];
} PeerInfo;

static int IndexOf(int n, const int *v, int x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return i;
  return -1;
}

static int CompareInt(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

// The neighbours of both halos, ascending and distinct.
static int Neighbours(BlastHydro h, int *n, int **rank) {
  int total = 0, m = 0;
  for (int w = 0; w < 2; w++) {
    int nto, nfrom;
    const int *tr, *to, *fr, *fo;
    BlastHaloRoutes(h->halo[w], &nto, &tr, &to, &nfrom, &fr, &fo);
    total += nto + nfrom;
  }
  int *r;
  BlastCall(BlastMalloc(total + 1, &r));
  for (int w = 0; w < 2; w++) {
    int nto, nfrom;
    const int *tr, *to, *fr, *fo;
    BlastHaloRoutes(h->halo[w], &nto, &tr, &to, &nfrom, &fr, &fo);
    for (int k = 0; k < nto; k++) r[m++] = tr[k];
    for (int k = 0; k < nfrom; k++) r[m++] = fr[k];
  }
  qsort(r, (size_t)m, sizeof *r, CompareInt);
  int u = 0;
  for (int i = 0; i < m; i++)
    if (!u || r[u - 1] != r[i]) r[u++] = r[i];
  *n = u, *rank = r;
  return 0;
}

// 1 when every neighbour runs on this rank's node.
static int SameNode(BlastHydro h, int n, const int *rank, int *same) {
  MPI_Comm node;
  BlastCallMPI(MPI_Comm_split_type(h->comm, MPI_COMM_TYPE_SHARED, h->rank, MPI_INFO_NULL, &node));
  int leader = h->rank, *lead;
  BlastCallMPI(MPI_Bcast(&leader, 1, MPI_INT, 0, node));  // the node's lowest rank
  BlastCallMPI(MPI_Comm_free(&node));
  BlastCall(BlastMalloc(h->nranks, &lead));
  BlastCallMPI(MPI_Allgather(&leader, 1, MPI_INT, lead, 1, MPI_INT, h->comm));
  *same = 1;
  for (int i = 0; i < n; i++) *same &= lead[rank[i]] == leader;
  BlastFree(&lead);
  return 0;
}

// This rank's info for neighbour `r`.
static void InfoFor(BlastHydro h, int r, const unsigned char *blob, const int64_t *base,
                    int64_t half, PeerInfo *in) {
  memset(in, 0, sizeof *in);
  memcpy(in->blob, blob, BLAST_PEER_BLOB);
  in->half = half;
  for (int w = 0; w < 2; w++) {
    int nto, nfrom;
    const int *tr, *to, *fr, *fo;
    BlastHaloRoutes(h->halo[w], &nto, &tr, &to, &nfrom, &fr, &fo);
    const int kf = IndexOf(nfrom, fr, r), kt = IndexOf(nto, tr, r);
    in->base[w] = base[w];
    in->nrecv[w] = BlastHaloRecvCount(h->halo[w]), in->nsend[w] = BlastHaloSendCount(h->halo[w]);
    in->fwd_off[w] = kf < 0 ? -1 : fo[kf];  // r's forward messages land in my receive list
    in->rev_off[w] = kt < 0 ? -1 : to[kt];  // r's reverse messages, in my send list's layout
  }
}

// The routes of halo w, direction rev, from the neighbours' infos.
static int Routes(BlastHydro h, int w, int rev, int n, const int *rank, const PeerInfo *info,
                  BlastPeerRoute *route, int *nroute) {
  int nto, nfrom;
  const int *tr, *to, *fr, *fo;
  BlastHaloRoutes(h->halo[w], &nto, &tr, &to, &nfrom, &fr, &fo);
  const int nk = rev ? nfrom : nto, *kr = rev ? fr : tr, *ko = rev ? fo : to;
  for (int k = 0; k < nk; k++) {
    const int j = IndexOf(n, rank, kr[k]);
    BlastCheck(j >= 0, BLAST_ERR_INTERNAL, "halo %d: rank %d is not a neighbour of rank %d", w,
               kr[k], h->rank);
    const PeerInfo *in = &info[j];
    const int64_t at = rev ? in->rev_off[w] : in->fwd_off[w];
    BlastCheck(at >= 0, BLAST_ERR_INTERNAL,
               "halo %d: rank %d does not expect the messages rank %d has for it", w, kr[k],
               h->rank);
    route[k] = (BlastPeerRoute){j, ko[k], ko[k + 1] - ko[k], in->base[w] + at,
                                rev ? in->nsend[w] : in->nrecv[w]};
  }
  *nroute = nk;
  return 0;
}

// Export, exchange and import on a node whose ranks all exported: *ok = 1 on every rank
// or on none (then nothing is kept).
static int Connect(BlastHydro h, int n, const int *rank, const unsigned char *blob,
                   const int64_t *base, int64_t half, int *ok, int *resident) {
  PeerInfo *out, *in;
  MPI_Request *req;
  BlastCall(BlastMalloc(n + 1, &out));
  BlastCall(BlastMalloc(n + 1, &in));
  BlastCall(BlastMalloc(2 * n + 1, &req));
  for (int i = 0; i < n; i++) {
    InfoFor(h, rank[i], blob, base, half, &out[i]);
    BlastCallMPI(MPI_Irecv(&in[i], sizeof *in, MPI_BYTE, rank[i], kTagInfo, h->comm, &req[i]));
    BlastCallMPI(
        MPI_Isend(&out[i], sizeof *out, MPI_BYTE, rank[i], kTagInfo, h->comm, &req[n + i]));
  }
  BlastCallMPI(MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE));
  int all_peers = n == h->nranks - 1, res = 0;
  BlastCallMPI(MPI_Allreduce(MPI_IN_PLACE, &all_peers, 1, MPI_INT, MPI_MIN, h->comm));
  BlastHaloPeers hp = {.npeer = n,
                       .base = {base[0], base[1]},
                       .rank = h->rank,
                       .nranks = h->nranks,
                       .ranks = rank,
                       .all_peers = all_peers,
                       .resident = &res};
  unsigned char *blobs;
  int64_t *halves;
  BlastPeerRoute *route[2][2] = {{NULL, NULL}, {NULL, NULL}};
  BlastCall(BlastMalloc((size_t)n * BLAST_PEER_BLOB + 1, &blobs));
  BlastCall(BlastMalloc(n + 1, &halves));
  for (int i = 0; i < n; i++) {
    memcpy(blobs + (size_t)i * BLAST_PEER_BLOB, in[i].blob, BLAST_PEER_BLOB);
    halves[i] = in[i].half;
  }
  hp.blobs = blobs, hp.half = halves;
  int ierr = 0, mine = 0;
  for (int w = 0; w < 2 && !ierr; w++)
    for (int r = 0; r < 2 && !ierr; r++) {
      ierr = BlastMalloc(n > 0 ? 2 * (size_t)n : 1, &route[w][r]);  // a neighbour: 1 route
      if (!ierr) ierr = Routes(h, w, r, n, rank, in, route[w][r], &hp.nroute[w][r]);
      hp.route[w][r] = route[w][r];
    }
  if (!ierr) ierr = h->ops->halo.peer_import(h->bctx, &hp, &mine);
  for (int w = 0; w < 2; w++)
    for (int r = 0; r < 2; r++) BlastFree(&route[w][r]);
  BlastFree(&blobs);
  BlastFree(&halves);
  BlastFree(&out);
  BlastFree(&in);
  BlastFree(&req);
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  BlastCallMPI(MPI_Allreduce(&mine, ok, 1, MPI_INT, MPI_MIN, h->comm));
  res = res && mine;
  BlastCallMPI(MPI_Allreduce(&res, resident, 1, MPI_INT, MPI_MIN, h->comm));
  return 0;
}

int BlastHydroPeerSetup(BlastHydro h, int mode) {
  h->shape.halo_transport = BLAST_HALO_TRANSPORT_HOST;
  if (h->nranks == 1 || mode == BLAST_HALO_TRANSPORT_HOST || mode == BLAST_HALO_TRANSPORT_NCCL)
    return 0;
  int n = 0, *rank = NULL, same = 0, exported = 0, all = 0, resident = 0;
  BlastCall(Neighbours(h, &n, &rank));
  BlastCall(SameNode(h, n, rank, &same));
  // This rank's area: each halo's messages (up to 2 dim components of the longer list:
  // a reverse exchange of double-double pairs), one half per exchange parity.
  int64_t base[2], half = 0;
  for (int w = 0; w < 2; w++) {
    const int ns = BlastHaloSendCount(h->halo[w]), nr = BlastHaloRecvCount(h->halo[w]);
    base[w] = half;
    half += 2 * (int64_t)h->space->dim * (ns > nr ? ns : nr);
  }
  unsigned char blob[BLAST_PEER_BLOB];
  int ierr = 0;
  if (same) ierr = h->ops->halo.peer_export(h->bctx, (size_t)half, blob, &exported);
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  BlastCallMPI(MPI_Allreduce(&exported, &all, 1, MPI_INT, MPI_MIN, h->comm));
  const char *why =
      "the backend has no device-to-device transport, or ranks run on more than "
      "one node";
  if (all) {
    ierr = Connect(h, n, rank, blob, base, half, &all, &resident);
    if (ierr) BlastFree(&rank);
    BlastCall(ierr);
    why =
        "some rank cannot reach a neighbour's GPU memory (CUDA IPC between these devices: "
        "not visible to each other, no peer access)";
  }
  if (!all) {
    int dropped;
    BlastFree(&rank);
    if (exported) BlastCall(h->ops->halo.peer_import(h->bctx, NULL, &dropped));
    if (mode == BLAST_HALO_TRANSPORT_DEVICE)
      return BlastHydroTransportRefused("device", why, "the host buffers");
    return 0;
  }
  struct BlastHydroPeer *p;
  BlastCall(BlastCalloc(1, &p));
  p->npeer = n, p->rank = rank, p->resident = resident;
  BlastCall(BlastMalloc(2 * n + 1, &p->req));
  h->peer = p;
  h->shape.halo_transport = BLAST_HALO_TRANSPORT_DEVICE;
  return 0;
}

int BlastHydroTransportRefused(const char *name, const char *why, const char *fallback) {
  BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                  "[gpu] halo_transport = %s, but %s; use auto (which falls back to %s) or host",
                  name, why, fallback);
  BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
  return BLAST_ERR_INPUT;
}

int BlastHydroPeerResident(BlastHydro h) {
  return h->peer ? h->peer->resident : 0;
}

void BlastHydroPeerDestroy(BlastHydro h) {
  if (!h->peer) return;
  BlastFree(&h->peer->rank);
  BlastFree(&h->peer->req);
  BlastFree(&h->peer);
}

int BlastHydroPeerBegin(BlastHydro h, int which, int reverse, int ncomp, size_t stride,
                        const double *x) {
  struct BlastHydroPeer *p = h->peer;
  BlastCheck(ncomp <= 2 * h->space->dim, BLAST_ERR_INTERNAL,
             "a halo exchange of %d components: the device transport's areas hold %d", ncomp,
             2 * h->space->dim);
  return h->ops->halo.peer_send(h->bctx, which, reverse, ncomp, stride, x, (int)(p->seq & 1u));
}

int BlastHydroPeerEnd(BlastHydro h, int which, int reverse, int dd, int ncomp, size_t stride,
                      double *x) {
  struct BlastHydroPeer *p = h->peer;
  // The caller's work launched after Begin (the interior rows) runs meanwhile.
  BlastCall(h->ops->halo.peer_sent(h->bctx));
  for (int i = 0; i < p->npeer; i++) {
    BlastCallMPI(MPI_Irecv(NULL, 0, MPI_BYTE, p->rank[i], kTagNotice, h->comm, &p->req[i]));
    BlastCallMPI(
        MPI_Isend(NULL, 0, MPI_BYTE, p->rank[i], kTagNotice, h->comm, &p->req[p->npeer + i]));
  }
  BlastCallMPI(MPI_Waitall(2 * p->npeer, p->req, MPI_STATUSES_IGNORE));
  const int parity = (int)(p->seq & 1u);
  p->seq++;
  return h->ops->halo.peer_recv(h->bctx, which, reverse, dd, ncomp, stride, parity, x);
}
