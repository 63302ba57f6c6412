// The resident lockstep PCG of several ranks (ops_pcg.cu): the scalar steps of
// pcg_step.h on each rank's device from the dots of every rank, gathered through the CUDA
// IPC mailboxes (each rank's pair folded as the host path folds it, with k_dot_fold's
// tree, and posted: k_peer_fold_post, or the update's last block), combined in rank order
// as the host path's MPI reduction combines them (DDSumOp: the running sum plus the next
// rank's pair, normalised) and rounded once. Every rank computes the same scalars from the
// same gathered pairs, so every rank stops at the same iteration. The kernel that needs a
// gather waits for it and counts it (PeerDots.seq): no launch of its own. Kernel bodies
// only: launched from backends/cuda/ops_pcg.cu (the one file that includes this header).
#ifndef BLAST_GPU_KERNELS_PCG_RANKS_CUH
#define BLAST_GPU_KERNELS_PCG_RANKS_CUH

#include "cg_body.cuh"
#include "pcg.cuh"
#include "peer_mail.cuh"

// Component c's global dot from gather k (after PeerDotAwait; this rank's pairs in mine):
// each rank's pair as its host would have it (BlastDDSumPairs of the one folded pair),
// summed in rank order and rounded (hi + lo).
__device__ __forceinline__ double PcgRankDot(const PeerDots &d, const double *mine,
                                             unsigned long long k, int c) {
  double pr[2];
  PeerDotPair(d, mine, k, 0, c, pr);
  BlastDD acc = BlastDDSumPairs(pr, 1);
  for (int r = 1; r < d.nranks; r++) {
    PeerDotPair(d, mine, k, r, c, pr);
    const BlastDD m = BlastDDSumPairs(pr, 1);
    BlastDDAddDD(&acc, m.hi, m.lo);
    BlastDDNormalize(&acc);
  }
  return acc.hi + acc.lo;
}

// The solve's start (one block; this rank's pairs of the dots (z_c, r_c) posted from mine):
// the gather awaited and counted, nu from it, BlastPcgStart, and the end flag if there is
// nothing to solve.
__global__ void k_pcgr_start(PcgDev *p, PeerDots d, const double *mine) {
  const unsigned long long k = *d.seq;
  PeerDotAwait(d, k);
  if (threadIdx.x != 0) return;
  *d.seq = k + 1;
  double v[3] = {0.0, 0.0, 0.0};
#pragma unroll
  for (int c = 0; c < 3; c++)
    if (c < p->ncomp) v[c] = PcgRankDot(d, mine, k, c);
  BlastPcgStart(&p->s, p->ncomp, p->tol, v);
  p->stop = p->s.mask == 0u;
  PcgSignal(p, 0, &p->s, p->s.mask != 0u);
}

// An iteration's residual update (blocks x per component y, kDotThreads threads), after
// this rank's pairs of the product's dots (d_c, Ad_c) are posted from mine: each block
// awaits the gather, takes BlastPcgDeltaComp of its component from it on a copy of the
// state (block (0, c) leaves the dot in the state's delta for k_pcgr_test) and, if the
// component goes on, the update of k_cg_update_multi (Ad read as zero at the constrained
// dofs) with its block pair into part. The state is not written (k_pcgr_test takes the
// step). The last block to finish (count: 0 between launches) counts the gather, folds the
// update's dots (r_c, z_c) from part into post as k_peer_fold_post does (the same bits)
// and posts them as the next gather. Once the solve has ended only the gathers and posts
// run (every rank queues the same passes); ran[0] says whether the update ran
// (k_pcg_advance).
__global__ void __launch_bounds__(kDotThreads)
    k_pcgr_update(int n, PcgDev *p, PeerDots d, const double *mine, double *post, size_t st,
                  const double *Ad, const double *dinv, const unsigned char *ess, double *r,
                  double *z, double *part, unsigned *count) {
  __shared__ double coef;
  __shared__ int go, last;
  const unsigned long long k = *d.seq;
  PeerDotAwait(d, k);
  const int stopped = p->stop, c = blockIdx.y, ncomp = p->ncomp;
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) p->ran[0] = !stopped;
  if (!stopped) {
    if (threadIdx.x == 0) {
      const double dc = (p->s.mask >> c) & 1u ? PcgRankDot(d, mine, k, c) : 0.0;
      if (blockIdx.x == 0) p->delta[c] = dc;
      PcgDeltaHead(c, &p->s, dc, &go, &coef);
    }
    __syncthreads();
    if (go) CgUpdateBody<true>(n, c, coef, st, Ad, dinv, ess, r, z, part);
  }
  __threadfence();  // this block's reads of seq and the gather, and its pairs, before its count
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x * gridDim.y - 1u;
  __syncthreads();
  if (!last) return;
  __threadfence();
  BlastDD acc[3];
  const DotSlots su = {part, kDotBlocks, kDotBlocks};
  DotFoldTree3(su, ncomp, (1u << ncomp) - 1u, acc);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int j = 0; j < 3; j++)
      if (j < ncomp) post[2 * j] = acc[j].hi, post[2 * j + 1] = acc[j].lo;
    *count = 0u, *d.seq = k + 1;
  }
  __syncthreads();
  PeerDotPost(d.out, d.npeer, d.me, k + 1, post);
}

// k_pcgr_test's step for NC components (a constant, so that the copy of the state stays
// in registers).
template <int NC>
__device__ __forceinline__ void PcgrTest(PcgDev *p, const PeerDots &d, const double *mine,
                                         unsigned long long k) {
  BlastPcgState l = p->s;
  double delta[3] = {0.0, 0.0, 0.0}, betanu[3] = {0.0, 0.0, 0.0};
  for (int c = 0; c < NC; c++) delta[c] = p->delta[c];
  BlastPcgDelta(&l, NC, delta);
  for (int c = 0; c < NC; c++)
    if ((l.mask >> c) & 1u) betanu[c] = PcgRankDot(d, mine, k, c);
  const int more = BlastPcgTest(&l, NC, betanu, p->max_iter);
  p->s = l;
  p->stop = !more;
  PcgSignal(p, 0, &l, more);
}

// An iteration's scalar step (one block), after the update's dots are posted from mine:
// the gather awaited and counted, BlastPcgDelta with the product's dots (the state's
// delta), BlastPcgTest with the gathered update's, the state written (the advance reads
// it) and the end flag when the loop ends.
__global__ void k_pcgr_test(PcgDev *p, PeerDots d, const double *mine) {
  const unsigned long long k = *d.seq;
  PeerDotAwait(d, k);
  if (threadIdx.x != 0) return;
  *d.seq = k + 1;
  if (p->stop) return;
  if (p->ncomp == 1) PcgrTest<1>(p, d, mine, k);
  if (p->ncomp == 2) PcgrTest<2>(p, d, mine, k);
  if (p->ncomp == 3) PcgrTest<3>(p, d, mine, k);
}

#endif  // BLAST_GPU_KERNELS_PCG_RANKS_CUH
