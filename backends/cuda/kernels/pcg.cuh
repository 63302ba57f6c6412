// The resident lockstep PCG's kernels (ops_pcg.cu): the scalar steps of pcg_step.h on the
// device, each from dots folded and rounded as DotFoldCombine and one rank's reduction do
// on the host path, and the vector updates with their scalars read from the solve's
// state. Kernel bodies only: launched from backends/cuda/ops_pcg.cu (the one file that
// includes this header).
#ifndef BLAST_GPU_KERNELS_PCG_CUH
#define BLAST_GPU_KERNELS_PCG_CUH

#include "cg_body.cuh"
#include "context.h"
#include "dot_block.cuh"
#include "pdl.cuh"

// Component c's dot from its block pairs in sl, as the host path has it (a block that
// needs one component only: PcgDots's interleaved trees of all three cost ~10 % of a step
// at 4,096 zones in k_pcg_update's head): folded
// (DotFoldComp, the tree of k_dot_fold), combined (BlastDDSumPairs, DotCombine's) and
// rounded (hi + lo, one rank's global sum). All threads of the block call it; the value
// is thread 0's (0 if not active). pair: 2 doubles of shared memory.
// With one pair (the product's dots folded by k_dot_fold first), the fold's tree adds exact
// zeros to thread 0's normalised pair, which leaves it as it is: thread 0 rounds the pair
// itself, the same bits without the block's tree and barriers.
__device__ __forceinline__ double PcgDot(const DotSlots &sl, int c, bool active, double *pair) {
  if (sl.nslots == 1) {
    double v = 0.0;
    if (threadIdx.x == 0 && active) {
      const BlastDD dd = BlastDDSumPairs(&sl.part[2 * (size_t)c * sl.stride], 1);
      v = dd.hi + dd.lo;
    }
    return v;
  }
  DotFoldComp(sl.part, sl.stride, sl.nslots, c, active, pair);
  __syncthreads();
  double v = 0.0;
  if (threadIdx.x == 0 && active) {
    const BlastDD dd = BlastDDSumPairs(pair, 1);
    v = dd.hi + dd.lo;
  }
  __syncthreads();
  return v;
}

// The dots of the components in `active` from their block pairs in sl, all at once: for
// each component the operations of PcgDot (DotFoldComp's strided sums and DotBlockSum's
// tree, then BlastDDSumPairs and hi + lo), the three trees in one (DotTree). All threads
// of the block (kDotThreads) call it; v is thread 0's.
__device__ __forceinline__ void PcgDots(const DotSlots &sl, int ncomp, unsigned active,
                                        double v[3]) {
  BlastDD acc[3];
  DotFoldTree3(sl, ncomp, active, acc);
#pragma unroll
  for (int c = 0; c < 3; c++) {
    v[c] = 0.0;
    if (threadIdx.x == 0 && c < ncomp && ((active >> c) & 1u)) {
      const double pr[2] = {acc[c].hi, acc[c].lo};
      const BlastDD dd = BlastDDSumPairs(pr, 1);
      v[c] = dd.hi + dd.lo;
    }
  }
}

// Whether the loop goes on, to whom drives it: the WHILE node's condition, or for passes
// the host replays, their flag (set once the loop ends, after the final state s: the host
// waits on each queued pass and stops queueing when it reads 1).
__device__ __forceinline__ void PcgSignal(const PcgDev *p, cudaGraphConditionalHandle cond,
                                          const BlastPcgState *s, bool more) {
  if (!p->end) {
    cudaGraphSetConditional(cond, (unsigned)more);
  } else if (!more) {
    p->end->s = *s;
    __threadfence_system();
    *(volatile int *)&p->end->flag = 1;
    __threadfence_system();
  }
}

// The solve's start (one block of kDotThreads): nu from the dots (z_c, r_c) in sl,
// BlastPcgStart, and whether the loop starts (any component to solve).
__global__ void k_pcg_start(PcgDev *p, DotSlots sl, cudaGraphConditionalHandle cond) {
  double v[3];
  PcgDots(sl, p->ncomp, 7u, v);
  if (threadIdx.x != 0) return;
  BlastPcgStart(&p->s, p->ncomp, p->tol, v);
  p->stop = p->s.mask == 0u;
  PcgSignal(p, cond, &p->s, p->s.mask != 0u);
}

// Thread 0's head of a residual update's block of component c (k_pcg_update,
// k_pcgr_update): BlastPcgDeltaComp with the product's dot dc on a copy of the state s,
// whether the component goes on and its alpha. The component is a constant in each
// branch, so that the copy stays in registers (with c at run time it went to local
// memory).
template <int C>
__device__ __forceinline__ void PcgDeltaHeadC(const BlastPcgState *s, double dc, int *go,
                                              double *coef) {
  BlastPcgState l = *s;
  BlastPcgDeltaComp(&l, C, dc);
  *go = (l.mask >> C) & 1u, *coef = l.coef[C];
}
__device__ __forceinline__ void PcgDeltaHead(int c, const BlastPcgState *s, double dc, int *go,
                                             double *coef) {
  if (c == 0) PcgDeltaHeadC<0>(s, dc, go, coef);
  if (c == 1) PcgDeltaHeadC<1>(s, dc, go, coef);
  if (c == 2) PcgDeltaHeadC<2>(s, dc, go, coef);
}

// The solve's state and stop flag into s and *stop (shared memory, all threads of the block
// call it), before the update's wait (kernels/pdl.cuh): the update of the iteration before
// (or the solve's start) wrote them last, and it completed before the kernel this update
// follows was launched (that kernel's predecessor waited for it, and each kernel lets the
// next start only after its own wait); read through L2, past the SM's L1.
__device__ __forceinline__ void PcgStateAhead(const PcgDev *p, BlastPcgState *s, int *stop) {
  static_assert(sizeof(BlastPcgState) % 8 == 0, "the state copies as 8-byte words");
  const unsigned long long *src = (const unsigned long long *)&p->s;
  unsigned long long *dst = (unsigned long long *)s;
  for (int w = threadIdx.x; w < (int)(sizeof(BlastPcgState) / 8); w += blockDim.x)
    dst[w] = __ldcg(src + w);
  if (threadIdx.x == 0) *stop = __ldcg(&p->stop);
}

// k_pcg_update's blocks per component for n rows: a row per thread up to kDotBlocks blocks.
// Its blocks with no rows still take their turn on the counter and on the dots' trees
// (4,096 Q2 zones, n = 4,913: 20 blocks instead of 256, the kernel 11.7 -> 11.2 us on an
// H200). The double-double dots do not depend on how the rows are split into blocks.
static inline int PcgUpdateBlocks(int n) {
  const size_t b = Blocks((size_t)(n > 0 ? n : 0), kDotThreads);
  return b < 1 ? 1 : b > kDotBlocks ? kDotBlocks : (int)b;
}

// Blocks per SM k_pcg_update's registers are allocated for: its largest grid (kDotBlocks x
// 3 components) resident at once on an H100 (132 SMs), not in two waves, each with the
// dots' trees on its path.
enum { kPcgUpdateMinBlocks = 6 };

// An iteration's scalar steps and residual update in one kernel (PcgUpdateBlocks blocks x
// per component y, kDotThreads threads): each block takes BlastPcgDeltaComp of its
// component from the product's dots (d_c, Ad_c) in sd (few pairs: the launch folds many
// first, k_dot_fold, which gives the same values) on a copy of the state and, if the
// component goes on, the update of k_cg_update_multi (Ad read as zero at the constrained
// dofs) with its block pair into part (gridDim.x pairs per component). Block (0, c) also
// leaves its dot in the state (delta). The last block to finish (a counter) then takes the
// whole step from the same state, BlastPcgDelta with every component's dot, and
// BlastPcgTest with the update's dots, writes the state (the advance reads it) and whether
// the loop goes on. No block reads the state after the last one starts: the counter
// orders them.
//
// Iteration k of the body's pass: nothing once the solve has ended (an earlier iteration of
// the pass stopped it), and ran[k] says whether it ran.
__global__ void __launch_bounds__(kDotThreads, kPcgUpdateMinBlocks)
    k_pcg_update(int n, PcgDev *p, int k, DotSlots sd, size_t st, const double *Ad,
                 const double *dinv, const unsigned char *ess, double *r, double *z, double *part,
                 unsigned *count, cudaGraphConditionalHandle cond) {
  __shared__ double pair[2], coef;
  __shared__ int go, last, stop0;
  __shared__ BlastPcgState s0;  // the state as the iteration before left it
  PcgStateAhead(p, &s0, &stop0);
  PdlEnter();
  __syncthreads();
  const int stopped = stop0;
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) p->ran[k] = !stopped;
  if (stopped) return;
  const int c = blockIdx.y, ncomp = p->ncomp;
  const unsigned mask = s0.mask;
  const double dc = PcgDot(sd, c, (mask >> c) & 1u, pair);
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) p->delta[c] = dc;
    PcgDeltaHead(c, &s0, dc, &go, &coef);
  }
  __syncthreads();
  if (go) CgUpdateBody<true>(n, c, coef, st, Ad, dinv, ess, r, z, part);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(count, 1u) == gridDim.x * gridDim.y - 1u;
  __syncthreads();
  if (!last) return;
  __shared__ BlastPcgState l;  // thread 0's
  double betanu[3];
  if (threadIdx.x == 0) {
    // every component's dot as its blocks had it (PcgDot: 0 where inactive)
    const volatile double *dv = p->delta;
    const double delta[3] = {dv[0], ncomp > 1 ? dv[1] : 0.0, ncomp > 2 ? dv[2] : 0.0};
    l = s0;  // p->s, which only this block writes, below
    BlastPcgDelta(&l, ncomp, delta);
  }
  __syncthreads();
  const DotSlots su = {part, kDotBlocks, (int)gridDim.x};
  PcgDots(su, ncomp, l.mask, betanu);
  if (threadIdx.x != 0) return;
  *count = 0u;
  const int more = BlastPcgTest(&l, ncomp, betanu, p->max_iter);
  p->s = l;
  p->stop = !more;
  PcgSignal(p, cond, &l, more);
}

// k_cg_advance_multi with the masks, alpha and beta of the state, after iteration k of
// the pass's update if it ran.
__global__ void k_pcg_advance(int n, const PcgDev *p, int k, size_t st, const double *z, double *d,
                              double *x) {
  PdlEnter();
  if (!p->ran[k]) return;
  const int c = blockIdx.y;
  if (!((p->s.xmask >> c) & 1u)) return;
  CgAdvanceBody(n, c, p->s.coef[c], p->s.beta[c], (p->s.dmask >> c) & 1u, st, z, d, x);
}

#endif  // BLAST_GPU_KERNELS_PCG_CUH
