// The resident solve's mailboxes (CudaPeer; the layout: PeerMail in context.h): waiting for
// another rank's flag, posting this rank's dot pairs and reading every rank's. Device
// functions only, no kernel: halo.cuh's and pcg_ranks.cuh's kernels share them.
#ifndef BLAST_GPU_KERNELS_PEER_MAIL_CUH
#define BLAST_GPU_KERNELS_PEER_MAIL_CUH

#include "context.h"

// Until another rank has set *flag (in this rank's mailbox) to seq or later; what it wrote
// before the flag is visible after.
__device__ __forceinline__ void PeerAwait(const unsigned long long *flag, unsigned long long seq) {
  while (*(const volatile unsigned long long *)flag < seq) {
  }
  __threadfence_system();
}

// The dots through the mailboxes: this rank's pairs (src) written into every other rank's
// mailbox, row `me` of parity k % 2, then its flag there set to k + 1 (k: the gathers so
// far, on the device). Gather k uses parity k % 2: a rank writes gather k + 2 after it saw
// every rank's flag of gather k + 1, which each set after it had read gather k (the
// kernels that read a gather count it once they have: pcg_ranks.cuh).
__device__ __forceinline__ void PeerDotPost(unsigned long long *const *mail, int npeer, int me,
                                            unsigned long long k, const volatile double *src) {
  for (int i = threadIdx.x; i < npeer; i += blockDim.x) {
    double *row = (double *)(mail[i] + 2 * kPeerMailRanks) +
                  ((size_t)(k & 1u) * kPeerMailRanks + me) * kPcgRankPairs;
    for (int j = 0; j < kPcgRankPairs; j++) row[j] = src[j];
    __threadfence_system();
    *(volatile unsigned long long *)&mail[i][kPeerMailRanks + me] = k + 1;
  }
}

// Until every other rank has posted gather k (its flag k + 1 in this rank's mailbox): thread
// i waits for neighbour i. All threads of the block call it; it ends with a barrier.
__device__ __forceinline__ void PeerDotAwait(const PeerDots &d, unsigned long long k) {
  for (int i = threadIdx.x; i < d.npeer; i += blockDim.x)
    PeerAwait(d.mail + kPeerMailRanks + d.ranks[i], k + 1);
  __syncthreads();
}

// Rank r's pair of component c in gather k (after PeerDotAwait): this rank's own from
// mine, another's from the row it posted in this rank's mailbox.
__device__ __forceinline__ void PeerDotPair(const PeerDots &d, const double *mine,
                                            unsigned long long k, int r, int c, double pr[2]) {
  const volatile double *row = r == d.me
                                   ? (const volatile double *)mine
                                   : (const volatile double *)(d.mail + 2 * kPeerMailRanks) +
                                         ((size_t)(k & 1u) * kPeerMailRanks + r) * kPcgRankPairs;
  pr[0] = row[2 * c], pr[1] = row[2 * c + 1];
}

#endif  // BLAST_GPU_KERNELS_PEER_MAIL_CUH
