// Launch-parameter tuners of the CUDA backend and their cache file: the quadrature
// kernel's shape with the force GEMM's block (tuned on the run's first updates; `[gpu]
// autotune = cached` stores and reads the result), and the mass-matrix kernel's variant
// (tuned on the first CG iterations). The decisions are kept as data (BlastCudaGetAutotune,
// printed by the application); each candidate's time is traced through BlastLog.
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "context.h"
#include "log.h"

// Register caps of the quadrature kernel's variants: fewer registers let more warps share
// an SM, at the price of spills (the tuner decides).
const int kQRegCap[3] = {255, 128, 96};

// Threads per block of k_force_gemm the tuner tries (the first is the default).
const int kGemmThreads[3] = {128, 64, 256};

// Variants of the mass-matrix kernel the tuner times (threads per block, MINB, UNR). The
// first is the default: the fastest on an H200 for 3D Q2-Q1 at 110 592 and 884 736 zones
// (docs/performance.md). Blocks of 256 threads hold 8 slices of a sigma window, rows of all
// lengths, and keep their SM slot until the longest row is done.
const SpmmCand kSpmmCand[] = {{128, 4, 8}, {64, 1, 4}, {128, 1, 4}, {256, 1, 4}, {64, 4, 4},
                              {128, 4, 4}, {64, 6, 4}, {128, 6, 4}, {64, 1, 8},  {64, 4, 8}};
static_assert(sizeof kSpmmCand / sizeof *kSpmmCand == (size_t)kSpmmNCand, "kSpmmNCand");

// ---------------------------------------------------------------------------------------
// The quadrature kernel and the force GEMM

// Whether a launch configuration fits the device's shared memory and thread limits.
int QConfigFit(const CudaCtx *c, const QConfig *q, size_t limit) {
  int gtb_ok = 0;
  for (int i = 0; i < 3; i++) gtb_ok |= q->gtb == kGemmThreads[i];
  return gtb_ok && QSharedBytes(c, *q) <= limit && GemmChunk(&c->dd, q->gtb, limit) >= 1 &&
         q->zpb * q->tpz <= 1024;
}

static int QConfigSame(const QConfig *a, const QConfig *b) {
  return a->zpb == b->zpb && a->tpz == b->tpz && a->gtb == b->gtb && a->reg == b->reg &&
         a->spec == b->spec;
}

// Candidate launch configurations of the quadrature kernel, the tuner's first round (the
// GEMM at its default block): the block must fit the kernel's register-limited thread
// count and the shared memory; where the zone sizes have a specialised kernel
// (QSpecKernel: triangles and tetrahedra), its shapes too. The second round (QTuneRecord)
// tries the best of them with the GEMM's other block sizes.
int TuneCandidates(CudaCtx *c) {
  const DevData *d = &c->dd;
  const int nspec = QSpecKernel(d->dim, d->nd, d->ne, 0) ? 2 : 1;
  cudaFuncAttributes attr[2][3];
  for (int sp = 0; sp < 2; sp++)
    for (int g = 0; g < 3; g++) {
      const QConfig k = {0, 0, 0, g, sp};
      if (sp < nspec) BlastCallCuda(cudaFuncGetAttributes(&attr[sp][g], QKernelOf(d, k)));
      c->full.q_regs[sp ? 5 + g : g] = sp < nspec ? attr[sp][g].numRegs : 0;
    }
  for (int ch = 0; ch < 2; ch++) {
    cudaFuncAttributes gattr;
    BlastCallCuda(
        cudaFuncGetAttributes(&gattr, GemmKernel(d->dim, GemmColumns(d->ne), ch, d->slot != NULL)));
    c->full.q_regs[3 + ch] = gattr.numRegs;
  }
  const int zpbs[] = {1, 2, 4, 8}, tpzs[] = {32, 64, 128, 256};
  c->full.tune_ncand = 0;
  for (int sp = 0; sp < nspec; sp++)
    for (int g = 0; g < 3; g++)
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
          const QConfig q = {zpbs[i], tpzs[j], kGemmThreads[0], g, sp};
          const cudaFuncAttributes *a = attr[sp];
          if (q.tpz > 2 * d->nqp && q.tpz > 32) continue;  // mostly idle threads
          if (q.zpb * q.tpz > a[g].maxThreadsPerBlock) continue;
          if (g > 0 && a[g].numRegs >= a[g - 1].numRegs) continue;  // the cap changes nothing
          if (QConfigFit(c, &q, c->smem_limit)) c->full.tune_cand[c->full.tune_ncand++] = q;
        }
  c->full.tune_n1 = c->full.tune_ncand;
  BlastCheck(c->full.tune_ncand > 0, BLAST_ERR_UNSUPPORTED,
             "no launch configuration of the quadrature kernel fits the GPU's shared memory "
             "(%zu bytes per block) for order %d in %dD with %d H1 nodes, %d L2 functions and %d "
             "quadrature points per zone: one zone needs %zu bytes (x, v, e and a source weight "
             "per point)",
             c->smem_limit, d->qpar.order_k, d->dim, d->nd, d->ne, d->nqp,
             (size_t)QZoneDoubles(d->rows, d->ne, d->nqp) * sizeof(double));
  return 0;
}

// The cache file: BlastGpuOptions.cache_path (the application resolves the default,
// $XDG_CACHE_HOME or ~/.cache/blast_gpu_autotune.txt); "" for none.
static const char *CachePath(const CudaCtx *c) {
  return c->opt.cache_path[0] ? c->opt.cache_path : NULL;
}

// GPU model, problem shape (dim, order, and the zone sizes: H1 nodes, L2 functions and
// points, which tell a triangle or tetrahedron from a quadrilateral or hexahedron of the
// same order) and the registers of the three compiled quadrature-kernel variants and of
// the two GEMM kernels (a build whose kernels compile differently does not reuse another
// build's choice).
static void CacheKey(const CudaCtx *c, char *key, size_t n) {
  const int *r = c->full.q_regs;
  snprintf(key, n, "%s|v5|dim=%d|k=%d|nd=%d|ne=%d|nqp=%d|regs=%d,%d,%d,%d,%d,%d,%d,%d", c->gpu_name,
           c->dd.dim, c->dd.qpar.order_k, c->dd.nd, c->dd.ne, c->dd.nqp, r[0], r[1], r[2], r[3],
           r[4], r[5], r[6], r[7]);
  for (char *p = key; *p; p++)
    if (*p == ' ') *p = '_';
}

// Read a tuned configuration from the cache file into *out; 1 if found and usable.
static int CacheLookup(CudaCtx *c, QConfig *out) {
  QConfig cand, *q = &cand;
  char key[400], line[800];
  const char *path = CachePath(c);
  if (!path) return 0;
  CacheKey(c, key, sizeof key);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    char k[400];
    QConfig t;
    if (sscanf(line, "%399s %d %d %d %d %d", k, &t.zpb, &t.tpz, &t.gtb, &t.reg, &t.spec) == 6 &&
        !strcmp(k, key) && t.reg >= 0 && t.reg < 3 && (t.spec == 0 || t.spec == 1))
      *q = t, found = 1;
  }
  fclose(f);
  if (!found || !QConfigFit(c, q, c->smem_limit)) return 0;
  // only a shape this build would try itself (its block fits the variant's thread limit)
  QConfig first = *q;
  first.gtb = kGemmThreads[0];
  for (int i = 0; i < c->full.tune_ncand; i++)
    if (QConfigSame(&c->full.tune_cand[i], &first)) {
      *out = *q;
      return 1;
    }
  return 0;
}

static void CacheStore(CudaCtx *c, QConfig q, float ms) {
  char key[400], line[512];
  const char *path = CachePath(c);
  if (!path) return;
  CacheKey(c, key, sizeof key);
  FILE *f = fopen(path, "a");  // best effort: a missing cache only costs tuning time
  if (!f) return;
  const int n = snprintf(line, sizeof line, "%s %d %d %d %d %d %.6f\n", key, q.zpb, q.tpz, q.gtb,
                         q.reg, q.spec, (double)ms);
  if (n > 0 && (size_t)n < sizeof line) fputs(line, f);
  fclose(f);
}

// At creation: the candidates, the default shape (autotune off, nothing cached: the kernel
// specialised on the zone sizes where there is one, 1 zone per block, a thread per point
// up to 256, no register cap, the GEMM in blocks of 128 threads, or the nearest
// candidate), the cached one, and whether the tuners run.
int TuneSetup(CudaCtx *c) {
  BlastCall(TuneCandidates(c));
  c->full.qcfg = c->full.tune_cand[0];
  {
    const int tpz = c->dd.nqp <= 64 ? 64 : c->dd.nqp <= 128 ? 128 : 256;
    int score = -1;
    for (int i = 0; i < c->full.tune_ncand; i++) {
      const QConfig *q = &c->full.tune_cand[i];
      const int sc = 8 * q->spec + 4 * (q->reg == 0) + 2 * (q->zpb == 1) + (q->tpz == tpz);
      if (sc > score) score = sc, c->full.qcfg = *q;
    }
  }
  int cached = 0;
  if (c->opt.autotune == BLAST_AUTOTUNE_CACHED) cached = CacheLookup(c, &c->full.qcfg);
  c->full.tune_active = c->opt.autotune != BLAST_AUTOTUNE_OFF && !cached;
  c->full.tune_index = 0, c->full.tune_rep = 0;
  c->full.spmm_cand = 0,
  c->full.spmm_tune = c->opt.autotune == BLAST_AUTOTUNE_OFF ? (int)kSpmmNCand : 0;
  return 0;
}

// Record the fastest candidate's decision (BlastCudaGetAutotune).
static BlastGpuTuneDecision *Decision(CudaCtx *c, BlastGpuTunedKernel kernel, float ms) {
  BlastGpuAutotune *t = &c->tuned;
  const int n = (int)(sizeof t->decision / sizeof *t->decision);
  BlastGpuTuneDecision *d = &t->decision[t->n < n ? t->n++ : n - 1];
  memset(d, 0, sizeof *d);
  d->kernel = kernel, d->ms = ms;
  return d;
}

// One timed quadrature update (tuning): advances the candidates; at the end keeps the
// fastest, stores it in the cache and records the decision.
int QTuneRecord(CudaCtx *c, float ms) {
  // each candidate runs twice (the first warms up); keep the fastest
  // A candidate whose first call is 1.3x slower than the best so far is not repeated.
  const int sofar = ArgMin(c->full.tune_time, c->full.tune_index);
  const int skip = c->full.tune_rep == 0 && sofar >= 0 && ms > 1.3f * c->full.tune_time[sofar];
  if (c->full.tune_rep == 1 || skip) {
    c->full.tune_time[c->full.tune_index] = ms;
    if (c->opt.verbose > 1) {
      const QConfig *t = &c->full.tune_cand[c->full.tune_index];
      BlastLog(BLAST_LOG_TRACE,
               "  autotune: candidate %d/%d: %d zones/block x %d threads/zone, registers <= %d%s, "
               "GEMM %d threads/block: %.3f ms%s\n",
               c->full.tune_index + 1, c->full.tune_ncand, t->zpb, t->tpz, kQRegCap[t->reg],
               t->spec ? ", zone sizes compiled in" : "", t->gtb, (double)ms,
               skip ? " (first call, not repeated)" : "");
    }
  }
  if (skip || ++c->full.tune_rep == 2) c->full.tune_rep = 0, c->full.tune_index++;
  if (c->full.tune_index == c->full.tune_ncand && c->full.tune_ncand == c->full.tune_n1) {
    // second round: the best shape with the GEMM's other block sizes
    const QConfig best = c->full.tune_cand[ArgMin(c->full.tune_time, c->full.tune_ncand)];
    for (int i = 1; i < 3; i++) {
      QConfig q = best;
      q.gtb = kGemmThreads[i];
      if (QConfigFit(c, &q, c->smem_limit)) c->full.tune_cand[c->full.tune_ncand++] = q;
    }
  }
  if (c->full.tune_index == c->full.tune_ncand) {
    const int best = ArgMin(c->full.tune_time, c->full.tune_ncand);
    c->full.qcfg = c->full.tune_cand[best];
    c->full.tune_active = 0;
    CacheStore(c, c->full.qcfg, c->full.tune_time[best]);
    BlastGpuTuneDecision *d = Decision(c, BLAST_GPU_TUNED_QDATA, c->full.tune_time[best]);
    d->zones_per_block = c->full.qcfg.zpb, d->threads_per_zone = c->full.qcfg.tpz;
    d->registers = kQRegCap[c->full.qcfg.reg], d->gemm_threads = c->full.qcfg.gtb;
    d->sizes_compiled = c->full.qcfg.spec;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// The mass-matrix kernel

// The tuner (gpu.autotune = online or cached): the interior products with 3 components
// of the first CG iterations run each candidate kSpmmReps times; the fastest (least time
// of its repeats) is kept for the run. Every candidate gives the same bits (a thread per
// row, entries in their stored order).
int SpmmTuneCollect(CudaCtx *c) {
  if (!c->full.spmm_pending) return 0;
  c->full.spmm_pending = 0;
  BlastCallCuda(cudaEventSynchronize(c->full.ev_s1));
  float ms = 0.0f;
  BlastCallCuda(cudaEventElapsedTime(&ms, c->full.ev_s0, c->full.ev_s1));
  float *t = &c->full.spmm_time[c->full.spmm_tune];
  if (c->full.spmm_rep == 0 || ms < *t) *t = ms;
  if (++c->full.spmm_rep < kSpmmReps) return 0;
  c->full.spmm_rep = 0;
  if (c->opt.verbose > 1) {
    const SpmmCand *k = &kSpmmCand[c->full.spmm_tune];
    BlastLog(BLAST_LOG_TRACE,
             "  autotune: mass-matrix candidate %d/%d: %d threads/block, >= %d blocks/SM, "
             "unroll %d: %.3f ms\n",
             c->full.spmm_tune + 1, (int)kSpmmNCand, k->threads, k->minb, k->unr, (double)*t);
  }
  if (++c->full.spmm_tune < kSpmmNCand) return 0;
  const int best = ArgMin(c->full.spmm_time, kSpmmNCand);
  c->full.spmm_cand = best;
  const SpmmCand *k = &kSpmmCand[best];
  BlastGpuTuneDecision *d = Decision(c, BLAST_GPU_TUNED_SPMM, c->full.spmm_time[best]);
  d->threads = k->threads, d->min_blocks = k->minb, d->unroll = k->unr;
  return 0;
}
