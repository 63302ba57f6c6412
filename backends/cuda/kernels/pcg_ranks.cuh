// The resident lockstep PCG of several ranks (ops_pcg.cu): the scalar steps of
// pcg_step.h on each rank's device from the dots of every rank, gathered through the CUDA
// IPC mailboxes (each rank's pair folded as the host path folds it, with k_dot_fold's
// tree; PeerSolveFoldGather), combined in rank order as the host path's MPI reduction
// combines them (DDSumOp: the running sum plus the next rank's pair, normalised) and
// rounded once. Every rank computes the same scalars from the
// same gathered pairs, so every rank stops at the same iteration. Kernel bodies only:
// launched from backends/cuda/ops_pcg.cu (the one file that includes this header).
#ifndef BLAST_GPU_KERNELS_PCG_RANKS_CUH
#define BLAST_GPU_KERNELS_PCG_RANKS_CUH

#include "cg_body.cuh"
#include "pcg.cuh"

// Component c's global dot from the gathered pairs (all: kPcgRankPairs doubles per rank,
// component c's pair at 2c): each rank's pair as its host would have it (BlastDDSumPairs
// of the one folded pair), summed in rank order and rounded (hi + lo).
__device__ __forceinline__ double PcgRankDot(const double *all, int nranks, int c) {
  BlastDD acc = BlastDDSumPairs(&all[2 * c], 1);
  for (int k = 1; k < nranks; k++) {
    const BlastDD m = BlastDDSumPairs(&all[(size_t)k * kPcgRankPairs + 2 * c], 1);
    BlastDDAddDD(&acc, m.hi, m.lo);
    BlastDDNormalize(&acc);
  }
  return acc.hi + acc.lo;
}

// The solve's start (one thread): nu from the gathered dots (z_c, r_c), BlastPcgStart,
// and the end flag if there is nothing to solve.
__global__ void k_pcgr_start(PcgDev *p, const double *all, int nranks) {
  double v[3] = {0.0, 0.0, 0.0};
  for (int c = 0; c < p->ncomp; c++) v[c] = PcgRankDot(all, nranks, c);
  BlastPcgStart(&p->s, p->ncomp, p->tol, v);
  p->stop = p->s.mask == 0u;
  PcgSignal(p, 0, &p->s, p->s.mask != 0u);
}

// An iteration's residual update (blocks x per component y, kDotThreads threads): each
// block takes BlastPcgDeltaComp of its component from the gathered product dots (d_c,
// Ad_c) on a copy of the state and, if the component goes on, the update of
// k_cg_update_multi (Ad read as zero at the constrained dofs) with its block pair into
// part. The state is not written (k_pcgr_test takes the step after the gather). Nothing
// once the solve has ended; ran[0] says whether the update ran (k_pcg_advance).
__global__ void __launch_bounds__(kDotThreads)
    k_pcgr_update(int n, PcgDev *p, const double *all, int nranks, size_t st, const double *Ad,
                  const double *dinv, const unsigned char *ess, double *r, double *z,
                  double *part) {
  __shared__ double coef;
  __shared__ int go;
  const int stopped = p->stop;
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) p->ran[0] = !stopped;
  if (stopped) return;
  const int c = blockIdx.y;
  if (threadIdx.x == 0) {
    BlastPcgState l = p->s;
    const double dc = (l.mask >> c) & 1u ? PcgRankDot(all, nranks, c) : 0.0;
    BlastPcgDeltaComp(&l, c, dc);
    go = (l.mask >> c) & 1u, coef = l.coef[c];
  }
  __syncthreads();
  if (go) CgUpdateBody<true>(n, c, coef, st, Ad, dinv, ess, r, z, part);
}

// An iteration's scalar step (one thread), after the update's dots are gathered (all +
// nranks kPcgRankPairs): BlastPcgDelta with the product's dots, BlastPcgTest with the
// update's, the state written (the advance reads it) and the end flag when the loop ends.
__global__ void k_pcgr_test(PcgDev *p, const double *all, int nranks) {
  if (p->stop) return;
  const int ncomp = p->ncomp;
  BlastPcgState l = p->s;
  double delta[3] = {0.0, 0.0, 0.0}, betanu[3] = {0.0, 0.0, 0.0};
  for (int c = 0; c < ncomp; c++)
    if ((l.mask >> c) & 1u) delta[c] = PcgRankDot(all, nranks, c);
  BlastPcgDelta(&l, ncomp, delta);
  const double *upd = all + (size_t)nranks * kPcgRankPairs;
  for (int c = 0; c < ncomp; c++)
    if ((l.mask >> c) & 1u) betanu[c] = PcgRankDot(upd, nranks, c);
  const int more = BlastPcgTest(&l, ncomp, betanu, p->max_iter);
  p->s = l;
  p->stop = !more;
  PcgSignal(p, 0, &l, more);
}

#endif  // BLAST_GPU_KERNELS_PCG_RANKS_CUH
