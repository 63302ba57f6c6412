// Owner <-> ghost communication patterns (see halo.h).
#include "halo.h"

#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"

struct BlastHalo_private {
  MPI_Comm comm;
  int nsend, nrecv;
  int *send_idx, *recv_idx;
  // Forward direction: to each of nto ranks we send, from each of nfrom ranks we receive.
  int nto, nfrom;
  int *to_rank, *to_off;      // [nto], [nto+1] offsets into the send list
  int *from_rank, *from_off;  // [nfrom], [nfrom+1] offsets into the receive list
  int nneighbors;
  MPI_Request *req;
  int nreq, maxreq;
};

typedef struct {
  int64_t gid;
  int idx, owner;
} Ghost;

static int CompareGhost(const void *pa, const void *pb) {
  const Ghost *a = pa, *b = pb;
  if (a->owner != b->owner) return a->owner < b->owner ? -1 : 1;
  return (a->gid > b->gid) - (a->gid < b->gid);
}

static int CompareNeed(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;  // (gid, position in the send list) pairs
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

int BlastHaloCreate(MPI_Comm comm, int nghost, const int64_t *ghost_gid, const int *ghost_owner,
                    const int *ghost_idx, int nowned, const int64_t *owned_gid, BlastHalo *halo) {
  int rank, size;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastCallMPI(MPI_Comm_size(comm, &size));
  BlastHalo h;
  BlastCall(BlastCalloc(1, &h));
  h->comm = comm;
  // Ghosts sorted by (owner, gid): the receive list, and our requests to each owner.
  Ghost *g;
  BlastCall(BlastMalloc(nghost + 1, &g));
  for (int k = 0; k < nghost; k++) {
    BlastCheck(ghost_owner[k] >= 0 && ghost_owner[k] < size && ghost_owner[k] != rank,
               BLAST_ERR_INTERNAL, "ghost %lld has owner %d", (long long)ghost_gid[k],
               ghost_owner[k]);
    g[k].gid = ghost_gid[k], g[k].idx = ghost_idx[k], g[k].owner = ghost_owner[k];
  }
  qsort(g, nghost, sizeof *g, CompareGhost);
  int *req_count, *need_count, *req_off, *need_off;
  BlastCall(BlastCalloc(size, &req_count));
  BlastCall(BlastCalloc(size, &need_count));
  BlastCall(BlastCalloc(size + 1, &req_off));
  BlastCall(BlastCalloc(size + 1, &need_off));
  for (int k = 0; k < nghost; k++) req_count[g[k].owner]++;
  BlastCallMPI(MPI_Alltoall(req_count, 1, MPI_INT, need_count, 1, MPI_INT, comm));
  for (int r = 0; r < size; r++) {
    req_off[r + 1] = req_off[r] + req_count[r];
    need_off[r + 1] = need_off[r] + need_count[r];
  }
  int64_t *req_gid, *need_gid;
  BlastCall(BlastMalloc(nghost + 1, &req_gid));
  BlastCall(BlastMalloc(need_off[size] + 1, &need_gid));
  for (int k = 0; k < nghost; k++) req_gid[k] = g[k].gid;
  BlastCallMPI(MPI_Alltoallv(req_gid, req_count, req_off, MPI_INT64_T, need_gid, need_count,
                             need_off, MPI_INT64_T, comm));
  // The local index of every requested gid: the requests (the ranks' shared surface, few)
  // sorted as (gid, position), and every owned dof looks itself up among them (owned gids
  // are distinct: each position is found by one dof; threads write disjoint entries).
  h->nsend = need_off[size], h->nrecv = nghost;
  BlastCall(BlastMalloc(h->nsend + 1, &h->send_idx));
  BlastCall(BlastMalloc(h->nrecv + 1, &h->recv_idx));
  int64_t *need;
  BlastCall(BlastMalloc(2 * (size_t)h->nsend + 2, &need));
  for (int i = 0; i < h->nsend; i++) need[2 * i] = need_gid[i], need[2 * i + 1] = i;
  qsort(need, h->nsend, 2 * sizeof(int64_t), CompareNeed);
  for (int i = 0; i < h->nsend; i++) h->send_idx[i] = -1;
  const int nsend = h->nsend;
  int *send_idx = h->send_idx;
  if (nsend > 0) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nowned; i++) {
      int lo = 0, hi = nsend;  // the first request with gid >= owned_gid[i]
      while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (need[2 * mid] < owned_gid[i])
          lo = mid + 1;
        else
          hi = mid;
      }
      for (int k = lo; k < nsend && need[2 * k] == owned_gid[i]; k++) send_idx[need[2 * k + 1]] = i;
    }
  }
  BlastFree(&need);
  int bad = -1;
  for (int i = 0; i < h->nsend && bad < 0; i++)
    if (send_idx[i] < 0) bad = i;
  BlastCheck(bad < 0, BLAST_ERR_INTERNAL,
             "a neighbour asked for dof %lld, which this rank does not own (inconsistent "
             "ownership)",
             (long long)need_gid[bad]);
  for (int k = 0; k < nghost; k++) h->recv_idx[k] = g[k].idx;
  // Neighbour lists with offsets.
  for (int r = 0; r < size; r++) h->nto += need_count[r] > 0, h->nfrom += req_count[r] > 0;
  BlastCall(BlastMalloc(h->nto + 1, &h->to_rank));
  BlastCall(BlastMalloc(h->nto + 1, &h->to_off));
  BlastCall(BlastMalloc(h->nfrom + 1, &h->from_rank));
  BlastCall(BlastMalloc(h->nfrom + 1, &h->from_off));
  int a = 0, b = 0;
  for (int r = 0; r < size; r++) {
    if (need_count[r]) h->to_rank[a] = r, h->to_off[a++] = need_off[r];
    if (req_count[r]) h->from_rank[b] = r, h->from_off[b++] = req_off[r];
  }
  h->to_off[h->nto] = h->nsend;
  h->from_off[h->nfrom] = h->nrecv;
  for (int r = 0; r < size; r++) h->nneighbors += (need_count[r] > 0 || req_count[r] > 0);
  BlastFree(&g);
  BlastFree(&req_count);
  BlastFree(&need_count);
  BlastFree(&req_off);
  BlastFree(&need_off);
  BlastFree(&req_gid);
  BlastFree(&need_gid);
  *halo = h;
  return 0;
}

int BlastHaloDestroy(BlastHalo *halo) {
  if (!halo || !*halo) return 0;
  BlastHalo h = *halo;
  BlastFree(&h->send_idx);
  BlastFree(&h->recv_idx);
  BlastFree(&h->to_rank);
  BlastFree(&h->to_off);
  BlastFree(&h->from_rank);
  BlastFree(&h->from_off);
  BlastFree(&h->req);
  BlastFree(halo);
  return 0;
}

int BlastHaloSendCount(BlastHalo h) {
  return h->nsend;
}
const int *BlastHaloSendIdx(BlastHalo h) {
  return h->send_idx;
}
int BlastHaloRecvCount(BlastHalo h) {
  return h->nrecv;
}
const int *BlastHaloRecvIdx(BlastHalo h) {
  return h->recv_idx;
}
int BlastHaloNeighbors(BlastHalo h) {
  return h->nneighbors;
}
void BlastHaloRoutes(BlastHalo h, int *nto, const int **to_rank, const int **to_off, int *nfrom,
                     const int **from_rank, const int **from_off) {
  *nto = h->nto, *to_rank = h->to_rank, *to_off = h->to_off;
  *nfrom = h->nfrom, *from_rank = h->from_rank, *from_off = h->from_off;
}

static int CompareU64(const void *pa, const void *pb) {
  const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return (a > b) - (a < b);
}

int BlastHaloGroupTargets(int n, const int *idx, int *ntarget, int *target, int *toff, int *tpos) {
  // (target, position) pairs as one key each: their ascending order is the targets
  // ascending with each one's positions in list order (indices are >= 0).
  uint64_t *key;
  BlastCall(BlastMalloc((size_t)n + 1, &key));
  for (int i = 0; i < n; i++) key[i] = (uint64_t)(uint32_t)idx[i] << 32 | (uint32_t)i;
  qsort(key, (size_t)n, sizeof *key, CompareU64);
  int nt = 0;
  for (int i = 0; i < n; i++) {
    const int t = (int)(key[i] >> 32);
    if (!nt || target[nt - 1] != t) toff[nt] = i, target[nt++] = t;
    tpos[i] = (int)(key[i] & 0xffffffffu);
  }
  toff[nt] = n;
  *ntarget = nt;
  BlastFree(&key);
  return 0;
}

static int Reserve(BlastHalo h, int n) {
  if (n > h->maxreq) {
    BlastCall(BlastRealloc(n, &h->req));
    h->maxreq = n;
  }
  return 0;
}

// Post receives from `nsrc` ranks and sends to `ndst` ranks, `ncomp` messages each.
static int Exchange(BlastHalo h, int ncomp, int nsrc, const int *src_rank, const int *src_off,
                    int nsrc_total, double *recvbuf, int ndst, const int *dst_rank,
                    const int *dst_off, int ndst_total, const double *sendbuf) {
  BlastCheck(h->nreq == 0, BLAST_ERR_INTERNAL, "halo exchange started twice without a wait");
  BlastCall(Reserve(h, ncomp * (nsrc + ndst)));
  int n = 0;
  for (int c = 0; c < ncomp; c++)
    for (int k = 0; k < nsrc; k++) {
      const int cnt = src_off[k + 1] - src_off[k];
      BlastCallMPI(MPI_Irecv(recvbuf + (size_t)c * nsrc_total + src_off[k], cnt, MPI_DOUBLE,
                             src_rank[k], 700 + c, h->comm, &h->req[n++]));
    }
  for (int c = 0; c < ncomp; c++)
    for (int k = 0; k < ndst; k++) {
      const int cnt = dst_off[k + 1] - dst_off[k];
      BlastCallMPI(MPI_Isend(sendbuf + (size_t)c * ndst_total + dst_off[k], cnt, MPI_DOUBLE,
                             dst_rank[k], 700 + c, h->comm, &h->req[n++]));
    }
  h->nreq = n;
  return 0;
}

int BlastHaloForwardBegin(BlastHalo h, int ncomp, const double *sendbuf, double *recvbuf) {
  return Exchange(h, ncomp, h->nfrom, h->from_rank, h->from_off, h->nrecv, recvbuf, h->nto,
                  h->to_rank, h->to_off, h->nsend, sendbuf);
}

int BlastHaloReverseBegin(BlastHalo h, int ncomp, const double *ghostbuf, double *ownerbuf) {
  return Exchange(h, ncomp, h->nto, h->to_rank, h->to_off, h->nsend, ownerbuf, h->nfrom,
                  h->from_rank, h->from_off, h->nrecv, ghostbuf);
}

int BlastHaloWait(BlastHalo h) {
  if (h->nreq) BlastCallMPI(MPI_Waitall(h->nreq, h->req, MPI_STATUSES_IGNORE));
  h->nreq = 0;
  return 0;
}
