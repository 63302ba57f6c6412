// mass.pcg: the lockstep Jacobi-PCG of one rank resident on the GPU. The solve is CUDA
// graphs built once per component count (and per b, x and work vectors): the setup of the
// solve (the launches of the host loop's first entries) and its start (k_pcg_start), then
// the iterations, each the mode's product with its dots, k_pcg_update (alpha, the residual
// update with its dots, the stopping test and beta; the product's constrained rows read as
// zero) and k_pcg_advance (x and d). Where the mode gates its product, the iterations run
// in passes of kPcgUnroll (or 2 or 4 times that), plain graphs the host replays,
// kPcgInFlight passes queued, until the solve's flag says it has ended (and the state is
// in pinned memory: no wait for the stream): the iterations after the one that ends the
// solve do nothing (the product gated by PcgDev.stop, the scalar kernels testing it
// themselves). Elsewhere a conditional WHILE node runs one iteration per body (an ungated
// product would run on after the stop). The scalars are pcg_step.h's, computed from the
// same folded dot pairs as the host loop's (DotFoldCombine): the same bits and iterations,
// and no host synchronisation per iteration.
//
// A graph replays launches recorded once, so it is built only once their shapes are
// final: the mass-matrix kernel's online tuning done (full assembly), no per-kernel
// profile or synchronisation, the double-double product (not cuSPARSE). A rebuild of the
// reference data drops the graphs. Conditional nodes need CUDA 12.4 or newer (driver and
// runtime); if building a graph fails, the backend says so once and solves on the host
// (several ranks: launches the same kernels directly).
#include <string.h>

#include "context.h"
#include "kernels/pcg_ranks.cuh"
#include "log.h"

int PcgSetup(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  CudaPcg *g = &c->pcg;
  g->off = c->opt.graphs_off || c->opt.spmv_cusparse;
  BlastCallCuda(cudaMalloc((void **)&g->dev, sizeof(PcgDev)));
  BlastCallCuda(cudaMallocHost((void **)&g->host, sizeof(PcgDev)));
  BlastCallCuda(cudaMalloc((void **)&g->part, 6 * kDotBlocks * sizeof(double)));
  BlastCallCuda(cudaMalloc((void **)&g->count, sizeof(unsigned)));
  BlastCallCuda(cudaMemset(g->count, 0, sizeof(unsigned)));
  BlastCallCuda(cudaMallocHost((void **)&g->end, sizeof(PcgEnd)));
  for (int k = 0; k <= kPcgInFlight; k++)
    BlastCallCuda(cudaEventCreateWithFlags(&g->done[k], cudaEventDisableTiming));
  for (int k = 0; k <= kPcgRanksAhead; k++)
    BlastCallCuda(cudaEventCreateWithFlags(&g->rk_done[k], cudaEventDisableTiming));
  // the constrained dofs of each component as bits of a byte per owned dof
  const size_t n = (size_t)(hd->h1_nown > 0 ? hd->h1_nown : 1);
  unsigned char *flag = NULL;
  BlastCall(BlastCalloc(n, &flag));
  for (int k = 0; k < hd->dim && k < 8; k++)
    for (int j = hd->ess_off[k]; j < hd->ess_off[k + 1]; j++)
      flag[hd->ess_idx[j]] |= (unsigned char)(1u << k);
  const int ierr = DevUpload(flag, n, &g->ess);
  BlastFree(&flag);
  return ierr;
}

// The graphs of the solves of ncomp components.
static int PcgDropSolve(CudaPcg *g, int ncomp) {
  if (g->exec[ncomp]) BlastCallCuda(cudaGraphExecDestroy(g->exec[ncomp]));
  g->exec[ncomp] = NULL;
  for (int j = 0; j < kPcgLens; j++) {
    if (g->pass[ncomp][j]) BlastCallCuda(cudaGraphExecDestroy(g->pass[ncomp][j]));
    g->pass[ncomp][j] = NULL;
  }
  return 0;
}

int PcgDropGraphs(CudaCtx *c) {
  for (int k = 0; k < 4; k++) {
    BlastCall(PcgDropSolve(&c->pcg, k));
    memset(c->pcg.key[k], 0, sizeof c->pcg.key[k]);
  }
  return 0;
}

int PcgFree(CudaCtx *c) {
  CudaPcg *g = &c->pcg;
  BlastCall(PcgDropGraphs(c));
  void *bufs[] = {g->dev, g->part, g->count, g->ess, g->rk_pair};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (bufs[i]) BlastCallCuda(cudaFree(bufs[i]));
  if (g->host) BlastCallCuda(cudaFreeHost(g->host));
  if (g->end) BlastCallCuda(cudaFreeHost(g->end));
  for (int k = 0; k <= kPcgInFlight; k++)
    if (g->done[k]) BlastCallCuda(cudaEventDestroy(g->done[k]));
  for (int k = 0; k <= kPcgRanksAhead; k++)
    if (g->rk_done[k]) BlastCallCuda(cudaEventDestroy(g->rk_done[k]));
  g->dev = g->host = NULL, g->part = NULL, g->count = NULL, g->ess = NULL, g->end = NULL;
  g->rk_pair = NULL;
  memset(g->done, 0, sizeof g->done);
  memset(g->rk_done, 0, sizeof g->rk_done);
  return 0;
}

// Whether the launches a graph of ncomp components would record are final (see the
// file's comment): the mass-matrix tuner times products of 3 components until it is done.
static int PcgReady(const CudaCtx *c, int ncomp) {
  if (c->pcg.off || c->prof.on || c->sync) return 0;
  if (c->hd.halo[BLAST_HALO_COL].nrecv || c->hd.halo[BLAST_HALO_COL].nsend) return 0;
  if (c->mode == &kCudaFull &&
      (c->full.spmm_pending || (ncomp == 3 && c->full.spmm_tune < kSpmmNCand)))
    return 0;
  return 1;
}

// The setup of the solve on c->stream, the host loop's first entries, and the block pairs
// of the first dots (z_c, r_c) into *sl.
static int PcgStartVectors(CudaCtx *c, int ncomp, double *b, double *x, double *const w[4],
                           DotSlots *sl) {
  const unsigned all = (1u << ncomp) - 1u;
  const int n = c->dd.nown;
  const size_t st = (size_t)c->dd.next, bytes = (size_t)n * sizeof(double);
  // the host loop's first entries: b's constraints zeroed, x = 0, r = b, z = D^{-1} r, d = z
  // (one launch for all components where they are contiguous: one rank)
  const int per = st == (size_t)n ? 1 : ncomp, len = st == (size_t)n ? ncomp : 1;
  BlastCall(BlastCudaZeroEssential(c, ncomp, all, b));
  for (int k = 0; k < per && n; k++) {
    BlastCall(BlastCudaSet(c, (size_t)len * n, 0.0, x + k * st));
    BlastCallCuda(cudaMemcpyAsync(w[0] + k * st, b + k * st, len * bytes, cudaMemcpyDeviceToDevice,
                                  c->stream));
  }
  BlastCall(BlastCudaJacobi(c, ncomp, all, w[0], w[1]));
  for (int k = 0; k < per && n; k++)
    BlastCallCuda(cudaMemcpyAsync(w[2] + k * st, w[1] + k * st, len * bytes,
                                  cudaMemcpyDeviceToDevice, c->stream));
  return DotMultiSlots(c, ncomp, all, w[1], w[0], sl);
}

// The setup of the solve and its first scalar step on c->stream (being captured).
static int PcgRecordStart(CudaCtx *c, int ncomp, double *b, double *x, double *const w[4],
                          cudaGraphConditionalHandle cond) {
  DotSlots sl;
  BlastCall(PcgStartVectors(c, ncomp, b, x, w, &sl));
  k_pcg_start<<<1, kDotThreads, 0, c->stream>>>(c->pcg.dev, sl, cond);
  BlastCheckKernel(0, "k_pcg_start");
  return 0;
}

// PcgRecordStart, then the WHILE node after it in graph; its body graph into *body.
static int PcgRecordSetup(CudaCtx *c, int ncomp, double *b, double *x, double *const w[4],
                          cudaGraphConditionalHandle cond, cudaGraph_t graph, cudaGraph_t *body) {
  BlastCall(PcgRecordStart(c, ncomp, b, x, w, cond));
  cudaStreamCaptureStatus status;
  const cudaGraphNode_t *deps = NULL;
  const cudaGraphEdgeData *edges = NULL;
  size_t ndeps = 0;
  BlastCallCuda(cudaStreamGetCaptureInfo(c->stream, &status, NULL, NULL, &deps, &edges, &ndeps));
  cudaGraphNodeParams np = {cudaGraphNodeTypeConditional, {0, 0, 0}, {{0}}, 0};
  np.conditional.handle = cond;
  np.conditional.type = cudaGraphCondTypeWhile;
  np.conditional.size = 1;
  cudaGraphNode_t node;
  BlastCallCuda(cudaGraphAddNode(&node, graph, deps, edges, ndeps, &np));
  BlastCallCuda(cudaStreamUpdateCaptureDependencies(c->stream, &node, NULL, 1,
                                                    cudaStreamSetCaptureDependencies));
  *body = np.conditional.phGraph_out[0];
  return 0;
}

// One iteration on c->stream (being captured into the WHILE node's body): the product and
// its dots for all components (those that stopped are not read again), then alpha, the
// residual update (the constrained rows of the product read as zero) with its dots, the
// test and beta in k_pcg_update, and the advance.
static int PcgRecordIteration(CudaCtx *c, int ncomp, int k, double *x, double *const w[4],
                              cudaGraphConditionalHandle cond) {
  const unsigned all = (1u << ncomp) - 1u;
  const int n = c->dd.nown;
  const size_t st = (size_t)c->dd.next;
  double *r = w[0], *z = w[1], *d = w[2], *Ad = w[3];
  CudaPcg *g = &c->pcg;
  DotSlots sl;
  BlastCall(c->mode->mass_mult_dot(c, BLAST_ROWS_INTERIOR, ncomp, all, d, Ad, &sl));
  BlastCall(c->mode->mass_mult_dot(c, BLAST_ROWS_BOUNDARY, ncomp, all, d, Ad, &sl));
  if (sl.nslots > kDotThreads) {
    // every block of k_pcg_update folds the dots: many pairs folded once first (k_dot_fold
    // to one normalised pair per component, which folds again to itself)
    BlastCall(DotFold(c, &sl, ncomp, all, c->dot_pair));
    sl.part = c->dot_pair, sl.stride = 1, sl.nslots = 1;
  }
  LaunchDep(c, k_pcg_update, dim3(PcgUpdateBlocks(n), ncomp), dim3(kDotThreads), 0, n, g->dev, k,
            sl, st, Ad, c->mv_dinv, g->ess, r, z, g->part, g->count, cond);
  BlastCheckKernel(0, "k_pcg_update");
  LaunchDep(c, k_pcg_advance, GridMulti((size_t)n, ncomp), dim3(256), 0, n, g->dev, k, st, z, d, x);
  BlastCheckKernel(0, "k_pcg_advance");
  return 0;
}

// A pass of len iterations (a WHILE node's body, or the pass the host replays): with
// len > 1 the mode's product honours the gate (the iterations after the one that ends the
// solve do nothing: the product gated by PcgDev.stop, the scalar kernels testing it
// themselves), so the exact stopping iteration is kept.
static int PcgRecordPass(CudaCtx *c, int ncomp, int len, double *x, double *const w[4],
                         cudaGraphConditionalHandle cond) {
  c->mass_gate = &c->pcg.dev->stop;
  c->pdl_after = 0;
  int ierr = 0;
  for (int k = 0; k < len && !ierr; k++) ierr = PcgRecordIteration(c, ncomp, k, x, w, cond);
  c->mass_gate = NULL;
  return ierr;
}

// Capture of what record() launches on c->stream into graph (a capture that fails is
// ended all the same, so the stream is usable again).
#define PCG_CAPTURE(graph, record)                                                               \
  do {                                                                                           \
    if (!ierr && cudaStreamBeginCaptureToGraph(c->stream, graph, NULL, NULL, 0,                  \
                                               cudaStreamCaptureModeThreadLocal) != cudaSuccess) \
      ierr = BLAST_ERR_CUDA;                                                                     \
    else if (!ierr) {                                                                            \
      ierr = record;                                                                             \
      cudaGraph_t g_ = NULL;                                                                     \
      if (cudaStreamEndCapture(c->stream, &g_) != cudaSuccess && !ierr) ierr = BLAST_ERR_CUDA;   \
    }                                                                                            \
  } while (0)

// The graphs of a solve of ncomp components into b, x with the work vectors w, built and
// instantiated: where the mode gates its product, the setup into *exec and the passes the
// host replays into pass[j] (kPcgUnroll << j iterations); else the setup and the WHILE
// node into *exec (pass NULL). Nonzero if the runtime could not build them.
static int PcgBuild(CudaCtx *c, int ncomp, double *b, double *x, double *const w[4],
                    cudaGraphExec_t *exec, cudaGraphExec_t pass[kPcgLens]) {
  const int gated = c->mode->mass_gated && c->mode->mass_gated(c, ncomp);
  cudaGraph_t graph = NULL, body = NULL;
  cudaGraphConditionalHandle cond = 0;
  *exec = NULL;
  for (int j = 0; j < kPcgLens; j++) pass[j] = NULL;
  BlastCallCuda(cudaGraphCreate(&graph, 0));
  int ierr = 0;
  if (gated) {
    PCG_CAPTURE(graph, PcgRecordStart(c, ncomp, b, x, w, cond));
    c->pdl = c->pdl_ok;  // the passes' kernels as programmatic dependents (LaunchDep)
    for (int j = 0; j < kPcgLens && !ierr; j++) {
      body = NULL;
      if (cudaGraphCreate(&body, 0) != cudaSuccess) ierr = BLAST_ERR_CUDA;
      PCG_CAPTURE(body, PcgRecordPass(c, ncomp, kPcgUnroll << j, x, w, cond));
      if (!ierr && cudaGraphInstantiate(&pass[j], body, 0) != cudaSuccess) ierr = BLAST_ERR_CUDA;
      if (body) cudaGraphDestroy(body);
    }
    c->pdl = 0;
  } else {
    if (cudaGraphConditionalHandleCreate(&cond, graph, 0, cudaGraphCondAssignDefault) !=
        cudaSuccess)
      ierr = BLAST_ERR_CUDA;
    PCG_CAPTURE(graph, PcgRecordSetup(c, ncomp, b, x, w, cond, graph, &body));
    PCG_CAPTURE(body, PcgRecordPass(c, ncomp, 1, x, w, cond));
  }
  if (!ierr && cudaGraphInstantiate(exec, graph, 0) != cudaSuccess) ierr = BLAST_ERR_CUDA;
  cudaGraphDestroy(graph);
  for (int j = 0; j < kPcgLens && ierr; j++)
    if (pass[j]) cudaGraphExecDestroy(pass[j]), pass[j] = NULL;
  return ierr;
}

// Until the pass before `ev` is done or the solve's flag is up (*ended): the flag comes
// with the iteration that ends the solve, before the rest of its pass, so the caller can
// queue its next work behind the pass while the GPU finishes it.
static int PcgAwait(const CudaPcg *g, cudaEvent_t ev, int *ended) {
  for (;;) {
    if (*(volatile int *)&g->end->flag) break;
    const cudaError_t e = cudaEventQuery(ev);
    if (e == cudaErrorNotReady) continue;
    BlastCallCuda(e);
    break;
  }
  *ended = *(volatile int *)&g->end->flag;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);  // the state after the flag (PcgSignal's order)
  return 0;
}

// The passes of a solve whose setup is queued on c->stream: replayed until the flag says
// the loop has ended, the host waiting for the end of pass q - kPcgInFlight before it
// queues pass q (the passes queued after the end do nothing, but each of their kernels
// still costs a launch). The first passes cover the iterations the last solve of as many
// components took, rounded up to kPcgUnroll, the longest ones first; past them the
// passes are of kPcgUnroll, and the host waits for the last one queued before it queues
// another: where the solve ends as the last one did, no pass follows its end. The host
// polls the flag and the pass's event (PcgAwait). The loop ends by max_iter at the
// latest, so more iterations queued than that needs means the device lost the flag.
static int PcgReplay(CudaCtx *c, int ncomp, int max_iter) {
  CudaPcg *g = &c->pcg;
  const int ring = kPcgInFlight + 1, most = max_iter + (kPcgInFlight + 1) * kPcgPassMax;
  const int last = g->last_iter[ncomp];
  int plan = (last + kPcgUnroll - 1) / kPcgUnroll * kPcgUnroll;  // iterations still planned
  for (int q = 0, queued = 0;; q++) {
    const int ahead = plan > 0 || last == 0 ? kPcgInFlight : 1;
    if (q >= ahead) {
      int ended = 0;
      BlastCall(PcgAwait(g, g->done[(q - ahead) % ring], &ended));
      if (ended) break;
    }
    BlastCheck(queued < most, BLAST_ERR_CUDA,
               "the GPU-resident momentum solve did not stop after %d iterations (max_iter = "
               "%d): rerun with [gpu] graphs = off and report it",
               queued, max_iter);
    int j = 0;
    if (plan > 0) {
      j = kPcgLens - 1;
      while (j > 0 && (kPcgUnroll << j) > plan) j--;
      plan -= kPcgUnroll << j;
    }
    BlastCallCuda(cudaGraphLaunch(g->pass[ncomp][j], c->stream));
    BlastCallCuda(cudaEventRecord(g->done[q % ring], c->stream));
    queued += kPcgUnroll << j;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// Several ranks (kernels/pcg_ranks.cuh): the solve resident on each rank's GPU, where the
// halos travel through CUDA IPC areas that allow it on every rank (peer_import: every
// other rank a neighbour on a GPU of its own). Each iteration: on a stream beside the
// interior rows' product, the ghost columns of d written into the neighbours' areas, a
// wait on the GPU for theirs and the boundary zones' products; once both are done the
// boundary rows' gather, the dots folded and posted through the mailboxes (ops_halo.cu:
// PeerSolveHalo*, PeerSolveJoin, PeerSolveDotPost), the update once every rank's have
// arrived, its dots folded and posted by its last block, the scalar step once those have
// arrived, the advance. The exchanges are counted on the
// devices, so the launches are the same every iteration: the start and passes of
// kPcgRanksPass iterations are graphs (built as the one-rank ones, per component count
// and vectors; launched directly where the runtime cannot build them), the host queues
// passes kPcgRanksAhead iterations ahead of the GPU, and no rank waits for another on
// the host.

// Whether the solve of ncomp components runs resident across the ranks: the areas allow
// it, the product gated (the iterations queued after the end do nothing but exchange),
// no per-kernel profile or synchronisation, the double-double product. Where the options
// are the same on every rank, so is the answer.
static int PcgRanksReady(const CudaCtx *c, int ncomp) {
  return c->peer.resident && !c->opt.graphs_off && !c->opt.spmv_cusparse && !c->prof.on &&
         !c->sync && c->mode->mass_gated && c->mode->mass_gated(c, ncomp);
}

// One iteration's launches (the solve's mass_gate and mass_stream set by the caller).
static int PcgRanksIteration(CudaCtx *c, int ncomp, double *x, double *const w[4]) {
  const unsigned all = (1u << ncomp) - 1u;
  const int n = c->dd.nown;
  const PeerDots pd = PeerDotsOf(&c->peer);
  const size_t st = (size_t)c->dd.next;
  double *r = w[0], *z = w[1], *d = w[2], *Ad = w[3];
  CudaPcg *g = &c->pcg;
  DotSlots sl;
  // beside the interior rows: the ghost columns out and in, the boundary zones' products
  BlastCall(PeerSolveHaloBegin(c, ncomp, st, d));
  BlastCall(PeerSolveHaloEnd(c, ncomp, st, d));
  c->mass_part = kMassPartZones;  // on mass_stream, the side stream (PcgRanksPass)
  BlastCall(c->mode->mass_mult_dot(c, BLAST_ROWS_BOUNDARY, ncomp, all, d, Ad, &sl));
  c->mass_part = kMassPartAll;
  BlastCall(c->mode->mass_mult_dot(c, BLAST_ROWS_INTERIOR, ncomp, all, d, Ad, &sl));
  BlastCall(PeerSolveJoin(c));
  c->mass_part = kMassPartRows;  // then the boundary rows' gather
  BlastCall(c->mode->mass_mult_dot(c, BLAST_ROWS_BOUNDARY, ncomp, all, d, Ad, &sl));
  c->mass_part = kMassPartAll;
  BlastCall(PeerSolveDotPost(c, &sl, ncomp, all, g->rk_pair));
  double *upd = g->rk_pair + kPcgRankPairs;  // the update's pairs, posted by its last block
  k_pcgr_update<<<dim3(kDotBlocks, ncomp), kDotThreads, 0, c->stream>>>(
      n, g->dev, pd, g->rk_pair, upd, st, Ad, c->mv_dinv, g->ess, r, z, g->part, g->count);
  BlastCheckKernel(0, "k_pcgr_update");
  k_pcgr_test<<<1, 32, 0, c->stream>>>(g->dev, pd, upd);
  BlastCheckKernel(0, "k_pcgr_test");
  k_pcg_advance<<<GridMulti((size_t)n, ncomp), 256, 0, c->stream>>>(n, g->dev, 0, st, z, d, x);
  BlastCheckKernel(0, "k_pcg_advance");
  return 0;
}

// The solve's start: its vectors, the first dots gathered, the first scalar step.
static int PcgRanksStart(CudaCtx *c, int ncomp, double *b, double *x, double *const w[4]) {
  CudaPcg *g = &c->pcg;
  DotSlots sl;
  BlastCall(PcgStartVectors(c, ncomp, b, x, w, &sl));
  BlastCall(PeerSolveDotPost(c, &sl, ncomp, (1u << ncomp) - 1u, g->rk_pair));
  k_pcgr_start<<<1, 32, 0, c->stream>>>(g->dev, PeerDotsOf(&c->peer), g->rk_pair);
  BlastCheckKernel(0, "k_pcgr_start");
  return 0;
}

// A pass of kPcgRanksPass iterations, the product gated by the solve's end.
static int PcgRanksPass(CudaCtx *c, int ncomp, double *x, double *const w[4]) {
  c->mass_gate = &c->pcg.dev->stop, c->mass_stream = c->peer.rk_side;
  int ierr = 0;
  for (int k = 0; k < kPcgRanksPass && !ierr; k++) ierr = PcgRanksIteration(c, ncomp, x, w);
  c->mass_gate = NULL, c->mass_part = kMassPartAll, c->mass_stream = NULL;
  return ierr;
}

// The start into *exec and a pass into *pass, built and instantiated; nonzero (and none
// kept) if the runtime could not build them.
static int PcgRanksBuild(CudaCtx *c, int ncomp, double *b, double *x, double *const w[4],
                         cudaGraphExec_t *exec, cudaGraphExec_t *pass) {
  cudaGraph_t graph[2] = {NULL, NULL};
  int ierr = 0;
  *exec = *pass = NULL;
  for (int k = 0; k < 2 && !ierr; k++)
    if (cudaGraphCreate(&graph[k], 0) != cudaSuccess) ierr = BLAST_ERR_CUDA;
  PCG_CAPTURE(graph[0], PcgRanksStart(c, ncomp, b, x, w));
  PCG_CAPTURE(graph[1], PcgRanksPass(c, ncomp, x, w));
  if (!ierr && cudaGraphInstantiate(exec, graph[0], 0) != cudaSuccess) ierr = BLAST_ERR_CUDA;
  // (the nodes run at the replaying stream's priority: keeping the pack's own,
  // cudaGraphInstantiateFlagUseNodePriority, measured no faster on two H200s)
  if (!ierr && cudaGraphInstantiate(pass, graph[1], 0) != cudaSuccess) ierr = BLAST_ERR_CUDA;
  for (int k = 0; k < 2; k++)
    if (graph[k]) cudaGraphDestroy(graph[k]);
  if (ierr) {
    if (*exec) cudaGraphExecDestroy(*exec);
    if (*pass) cudaGraphExecDestroy(*pass);
    *exec = *pass = NULL;
  }
  return ierr;
}

// Whether the solve ended at iteration `at` or before, once the device has finished
// iteration `at` (event ev): the end state's iterations started, not whether
// the flag is up at the time the host looks, so that every rank answers alike.
static int PcgRanksEnded(const CudaPcg *g, cudaEvent_t ev, int at, int *ended) {
  BlastCallCuda(cudaEventSynchronize(ev));
  *ended = 0;
  if (*(volatile int *)&g->end->flag) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE);  // the state after the flag (PcgSignal's order)
    *ended = ((const volatile PcgEnd *)g->end)->s.iter <= at + 1;
  }
  return 0;
}

// The graphs of a solve of ncomp components into b, x with the work vectors w, several
// ranks' (PcgRanksBuild) or one rank's (PcgBuild), built unless they are for these
// vectors already. Where the runtime cannot build them (a driver or runtime without
// graph capture into a graph, CUDA 12.3, or conditional nodes, 12.4), the error and the
// message it may have left are cleared, none is kept and none is tried again: one rank
// solves with the host loop from here on, several launch the same kernels directly.
static int PcgGraphs(CudaCtx *c, int ncomp, double *b, double *x, double *const w[4], int ranks) {
  CudaPcg *g = &c->pcg;
  const double *key[6] = {b, x, w[0], w[1], w[2], w[3]};
  if (g->exec[ncomp] && memcmp(g->key[ncomp], key, sizeof key)) BlastCall(PcgDropSolve(g, ncomp));
  if (g->exec[ncomp] || g->off) return 0;
  const cudaError_t before = cudaGetLastError();
  BlastCheck(before == cudaSuccess, BLAST_ERR_CUDA, "CUDA error before the solve's graph: %s",
             cudaGetErrorString(before));
  if (ranks ? PcgRanksBuild(c, ncomp, b, x, w, &g->exec[ncomp], &g->pass[ncomp][0])
            : PcgBuild(c, ncomp, b, x, w, &g->exec[ncomp], g->pass[ncomp])) {
    const cudaError_t e = cudaGetLastError();
    BlastErrorClear();
    g->off = 1;
    BlastCall(PcgDropSolve(g, ncomp));
    if (c->opt.verbose)
      BlastLog(BLAST_LOG_WARN,
               "note: the momentum solve %s: this GPU's driver and runtime could not build its "
               "CUDA graphs (%s; they need CUDA %s or newer)\n",
               ranks ? "launches its iterations one by one" : "runs its loop on the host",
               cudaGetErrorString(e), ranks ? "12.3" : "12.4");
    return 0;
  }
  memcpy(g->key[ncomp], key, sizeof key);
  return 0;
}

// The solve of ncomp components resident across the ranks, the state into *s: pass q is
// queued unless the solve ended in pass q - ahead or before. A rank whose runtime could
// not build the graphs launches the same kernels directly (the same exchanges).
static int PcgRanks(CudaCtx *c, int ncomp, int max_iter, double *b, double *x, double *const w[4],
                    BlastPcgState *s) {
  CudaPcg *g = &c->pcg;
  const int ahead = kPcgRanksAhead / kPcgRanksPass, ring = ahead + 1;
  if (!g->rk_pair) {
    BlastCallCuda(cudaMalloc((void **)&g->rk_pair, 2 * kPcgRankPairs * sizeof(double)));
    BlastCallCuda(cudaMemset(g->rk_pair, 0, 2 * kPcgRankPairs * sizeof(double)));
  }
  BlastCall(PcgGraphs(c, ncomp, b, x, w, 1));
  const cudaGraphExec_t start = g->exec[ncomp], pass = g->pass[ncomp][0];
  if (start)
    BlastCallCuda(cudaGraphLaunch(start, c->stream));
  else
    BlastCall(PcgRanksStart(c, ncomp, b, x, w));
  int ierr = 0;
  for (int q = 0; !ierr; q++) {
    if (q >= ahead) {
      int ended = 0;
      ierr = PcgRanksEnded(g, g->rk_done[(q - ahead) % ring], (q - ahead + 1) * kPcgRanksPass - 1,
                           &ended);
      if (ierr || ended) break;
    }
    if (q * kPcgRanksPass > max_iter + kPcgRanksAhead + kPcgRanksPass) {
      BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_CUDA,
                      "the GPU-resident momentum solve did not stop after %d iterations "
                      "(max_iter = %d): rerun with [gpu] graphs = off and report it",
                      q * kPcgRanksPass, max_iter);
      ierr = BLAST_ERR_CUDA;
      break;
    }
    cudaError_t e = cudaSuccess;
    if (pass)
      e = cudaGraphLaunch(pass, c->stream);
    else
      ierr = PcgRanksPass(c, ncomp, x, w);
    if (!ierr && e == cudaSuccess) e = cudaEventRecord(g->rk_done[q % ring], c->stream);
    if (e != cudaSuccess)
      ierr = BlastCudaError(__FILE__, __LINE__, __func__, (int)e, "a pass of the resident solve",
                            cudaGetErrorString(e));
  }
  // An error ends the run: no wait for the stream here, whose kernels may wait for the
  // other ranks' posts.
  if (ierr) return ierr;
  memcpy(s, (const void *)&g->end->s, sizeof *s);
  return 0;
}

// A solve's parameters to the device state on c->stream, its end flag down (end: where
// the kernels leave the final state and the flag, NULL under a WHILE node).
static int PcgArm(CudaCtx *c, int ncomp, double tol, int max_iter, PcgEnd *end) {
  CudaPcg *g = &c->pcg;
  g->host->tol = tol, g->host->max_iter = max_iter, g->host->ncomp = ncomp, g->host->stop = 0;
  g->host->end = end;
  *(volatile int *)&g->end->flag = 0;
  BlastCallCuda(
      cudaMemcpyAsync(g->dev, g->host, sizeof(PcgDev), cudaMemcpyHostToDevice, c->stream));
  return 0;
}

extern "C" int BlastCudaPcg(void *ctx, int ncomp, double tol, int max_iter, double *b, double *x,
                            double *const work[4], BlastPcgState *s, int *resident) {
  CudaCtx *c = (CudaCtx *)ctx;
  *resident = 0;
  CudaPcg *g = &c->pcg;
  if (c->peer.resident) {  // several ranks: resident across them, or the host loop on all
    if (ncomp < 1 || ncomp > 3 || !PcgRanksReady(c, ncomp)) return 0;
    BlastCall(PcgArm(c, ncomp, tol, max_iter, g->end));
    BlastCall(PcgRanks(c, ncomp, max_iter, b, x, work, s));
    *resident = 1;
    return 0;
  }
  if (c->peer.nranks > 1 || c->nccl.comm) return 0;  // no other ranks' dots in the graphs
  if (ncomp < 1 || ncomp > 3 || !PcgReady(c, ncomp)) return 0;
  BlastCall(PcgGraphs(c, ncomp, b, x, work, 0));
  if (!g->exec[ncomp]) return 0;  // the host loop solves
  BlastCall(PcgArm(c, ncomp, tol, max_iter, g->pass[ncomp][0] ? g->end : NULL));
  BlastCallCuda(cudaGraphLaunch(g->exec[ncomp], c->stream));
  if (g->pass[ncomp][0]) {
    const int ierr = PcgReplay(c, ncomp, max_iter);
    if (ierr) {
      cudaStreamSynchronize(c->stream);  // no pass left running on the caller's vectors
      return ierr;
    }
    // the final state, written before the flag the host has read: the passes still queued
    // do nothing, and the caller's next launches follow them on the stream
    memcpy(s, (const void *)&g->end->s, sizeof *s);
    g->last_iter[ncomp] = s->iter;
    *resident = 1;
    return 0;
  }
  BlastCallCuda(
      cudaMemcpyAsync(g->host, g->dev, sizeof(PcgDev), cudaMemcpyDeviceToHost, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  *s = g->host->s;
  *resident = 1;
  return 0;
}
