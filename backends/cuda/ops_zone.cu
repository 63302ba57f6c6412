// The backend table's zone group: the quadrature data and force matrices (kernels 1-7),
// the momentum right-hand side (8 and the assembly), the energy rate (10, 11) and the
// energies; and the launch-configuration helpers of the quadrature kernel and the GEMM.
#include <limits.h>
#include <math.h>
#include <nvtx3/nvToolsExt.h>

#include "context.h"
#include "kernels/force_gemm.cuh"
#include "kernels/qdata.cuh"
#include "kernels/zone.cuh"

// ---------------------------------------------------------------------------------------
// Kernels chosen at run time and their launch sizes

// k_force_gemm (chunks false) or k_force_gemm_chunks<dim, jt> (jt = GemmColumns(ne)); on
// a mesh of triangles and quadrilaterals (mixed, 2D) their MIX instances.
const void *GemmKernel(int dim, int jt, bool chunks, bool mixed) {
  static const void *const m[2][2] = {
      {(const void *)k_force_gemm<2, 4, true>, (const void *)k_force_gemm_chunks<2, 4, true>},
      {(const void *)k_force_gemm<2, 8, true>, (const void *)k_force_gemm_chunks<2, 8, true>}};
  if (mixed && dim == 2) return m[jt == 8][chunks];
  static const void *const k[3][2][2] = {
      {{(const void *)k_force_gemm<1, 4>, (const void *)k_force_gemm_chunks<1, 4>},
       {(const void *)k_force_gemm<1, 8>, (const void *)k_force_gemm_chunks<1, 8>}},
      {{(const void *)k_force_gemm<2, 4>, (const void *)k_force_gemm_chunks<2, 4>},
       {(const void *)k_force_gemm<2, 8>, (const void *)k_force_gemm_chunks<2, 8>}},
      {{(const void *)k_force_gemm<3, 4>, (const void *)k_force_gemm_chunks<3, 4>},
       {(const void *)k_force_gemm<3, 8>, (const void *)k_force_gemm_chunks<3, 8>}}};
  return k[dim - 1][jt == 8][chunks];
}

const void *QKernel(int dim, int reg, bool mixed) {
  static const void *const m[3] = {(const void *)k_qdata_force<2, 255, 0, 0, true>,
                                   (const void *)k_qdata_force<2, 128, 0, 0, true>,
                                   (const void *)k_qdata_force<2, 96, 0, 0, true>};
  if (mixed && dim == 2) return m[reg];
  static const void *const k[3][3] = {
      {(const void *)k_qdata_force<1, 255>, (const void *)k_qdata_force<1, 128>,
       (const void *)k_qdata_force<1, 96>},
      {(const void *)k_qdata_force<2, 255>, (const void *)k_qdata_force<2, 128>,
       (const void *)k_qdata_force<2, 96>},
      {(const void *)k_qdata_force<3, 255>, (const void *)k_qdata_force<3, 128>,
       (const void *)k_qdata_force<3, 96>}};
  return k[dim - 1][reg];
}

// k_qdata_force specialised on the zone sizes of triangles and tetrahedra of orders 1-4
// (H1 nodes nd, L2 functions ne = those of order k - 1), a candidate of the tuner beside
// the run-time-sized kernel (QConfig.spec); NULL for other sizes. The quadrilaterals' and
// hexahedra's sizes have none (they differ from all of these).
template <int D, int N, int E>
static const void *QSpecOf(int reg) {
  return reg == 0   ? (const void *)k_qdata_force<D, 255, N, E>
         : reg == 1 ? (const void *)k_qdata_force<D, 128, N, E>
                    : (const void *)k_qdata_force<D, 96, N, E>;
}
const void *QSpecKernel(int dim, int nd, int ne, int reg) {
  static const struct {
    int dim, nd, ne;
    const void *(*kernel)(int reg);
  } spec[] = {{2, 3, 1, QSpecOf<2, 3, 1>},     {2, 6, 3, QSpecOf<2, 6, 3>},
              {2, 10, 6, QSpecOf<2, 10, 6>},   {2, 15, 10, QSpecOf<2, 15, 10>},
              {3, 4, 1, QSpecOf<3, 4, 1>},     {3, 10, 4, QSpecOf<3, 10, 4>},
              {3, 20, 10, QSpecOf<3, 20, 10>}, {3, 35, 20, QSpecOf<3, 35, 20>}};
  for (size_t i = 0; i < sizeof spec / sizeof *spec; i++)
    if (spec[i].dim == dim && spec[i].nd == nd && spec[i].ne == ne) return spec[i].kernel(reg);
  return NULL;
}

// The quadrature kernel of a launch configuration.
const void *QKernelOf(const DevData *d, QConfig q) {
  return q.spec ? QSpecKernel(d->dim, d->nd, d->ne, q.reg)
                : QKernel(d->dim, q.reg, d->slot != NULL);
}

size_t QSharedBytes(const CudaCtx *c, QConfig q) {
  const DevData *d = &c->dd;
  size_t bytes = (size_t)QZoneDoubles(d->rows, d->ne, d->nqp) * q.zpb * sizeof(double);
  const size_t red = 3 * (size_t)q.zpb * q.tpz * sizeof(double);  // final reduction
  return bytes > red ? bytes : red;
}

// k_force_gemm in blocks of gtb threads: the zones a block touches at most, the points of
// their S it stages in shared memory at a time (all if they fit the device's limit, as
// k_force_gemm does; else as many as fit 96 KB, for k_force_gemm_chunks; 0 if not even one
// point fits) and the shared memory.
static size_t GemmZones(const DevData *d, int gtb) {
  const int jt = GemmColumns(d->ne);
  return (gtb - 1) / ((size_t)d->nd * ((d->ne + jt - 1) / jt)) + 2;
}
int GemmChunk(const DevData *d, int gtb, size_t limit) {
  const size_t per_point = GemmZones(d, gtb) * SStride(d->dim) * sizeof(double);
  if (per_point * d->nqp <= limit) return d->nqp;
  return (int)((limit < 96 * 1024 ? limit : 96 * 1024) / per_point);
}
static size_t GemmSharedBytes(const DevData *d, int gtb, int qc) {
  return GemmZones(d, gtb) * qc * SStride(d->dim) * sizeof(double);
}

// ---------------------------------------------------------------------------------------
// The operator

// The reduction of a quadrature update's `blocks` block results (dt, zone, det) into
// red_out; ReduceQData: those in red and red_zone.
int ReduceQDataOf(CudaCtx *c, int blocks, const double *dt, const int *zone, const double *det) {
  k_reduce_min<<<1, 256, 0, c->stream>>>(blocks, dt, zone, det, c->red_out);
  BlastCheckKernel(c->sync, "k_reduce_min");
  return 0;
}
int ReduceQData(CudaCtx *c, int blocks) {
  return ReduceQDataOf(c, blocks, c->red, c->red_zone, c->red + c->nred);
}

// Full mode: the quadrature kernel and the force GEMM on zones [0, nz) (the current tuning
// candidate or the tuned configuration), and the reduction of the quadrature kernel's
// block results.
int FullQData(CudaCtx *c, int nz, const double *x, const double *v, const double *e) {
  const QConfig q = c->full.tune_active ? c->full.tune_cand[c->full.tune_index] : c->full.qcfg;
  c->q_tuning = c->full.tune_active;
  QArgs a;
  a.d = c->dd, a.x = x, a.v = v, a.e = e, a.cfg = q;
  a.d.nz = nz;
  const int blocks = (int)Blocks(nz, q.zpb);
  a.blk_dt = c->red, a.blk_det = c->red + c->nred, a.blk_zone = c->red_zone;
  const size_t smem = QSharedBytes(c, q);
  const int threads = q.zpb * q.tpz;
  void *args[] = {&a};
  BlastCallCuda(
      cudaLaunchKernel(QKernelOf(&c->dd, q), dim3(blocks), dim3(threads), args, smem, c->stream));
  BlastCheckKernel(c->sync, "k_qdata_force");
  BlastCallCuda(cudaEventRecord(c->ev_mid, c->stream));
  const int jt = GemmColumns(c->dd.ne);
  const size_t items = (size_t)nz * c->dd.nd * ((c->dd.ne + jt - 1) / jt);
  int qc = GemmChunk(&c->dd, q.gtb, c->smem_limit);
  void *gargs[] = {&a.d, &qc};
  BlastCallCuda(cudaLaunchKernel(GemmKernel(c->dd.dim, jt, qc < c->dd.nqp, c->dd.slot != NULL),
                                 dim3((unsigned)Blocks(items, q.gtb)), dim3(q.gtb), gargs,
                                 GemmSharedBytes(&c->dd, q.gtb, qc), c->stream));
  BlastCheckKernel(c->sync, "k_force_gemm");
  return ReduceQData(c, blocks);
}

// Start the mode's quadrature update on zones [0, n), n > 0, between events e0 and e1,
// its reduced result copied to the pinned host (dt, det, zone) before e1. Does not wait.
static int QDataLaunch(CudaCtx *c, int n, const double *x, const double *v, const double *e,
                       cudaEvent_t e0, cudaEvent_t e1, double *host) {
  c->q_ndev = n, c->q_tuning = 0;
  BlastCallCuda(cudaEventRecord(e0, c->stream));
  BlastCall(c->mode->qdata(c, n, x, v, e));
  BlastCallCuda(
      cudaMemcpyAsync(host, c->red_out, 3 * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  BlastCallCuda(cudaEventRecord(e1, c->stream));
  return 0;
}

// QDataLaunch timed by ev0/ev1, its result to red_host (QDataFinish takes it).
int QDataStart(CudaCtx *c, int n, const double *x, const double *v, const double *e) {
  return QDataLaunch(c, n, x, v, e, c->ev0, c->ev1, c->red_host);
}

// A reduced result as copied to the host (red_host: dt, det, zone).
static void QDataResultOf(const double *r, BlastQDataResult *res) {
  res->dt_est = r[0];
  res->tangled_det = r[1];
  res->tangled_zone = r[2] >= (double)INT_MAX ? -1 : (int)r[2];
}

// Wait for QDataStart's kernel: its result and time; advances the autotuning.
int QDataFinish(CudaCtx *c, BlastQDataResult *res, double *seconds) {
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  float ms = 0.0f;
  BlastCallCuda(cudaEventElapsedTime(&ms, c->ev0, c->ev1));
  *seconds = 1e-3 * ms;
  if (c->q_tuning)
    BlastCall(QTuneRecord(c, ms));
  else if (c->prof.on)
    BlastCall(ProfileQData(c, ms));
  QDataResultOf(c->red_host, res);
  return 0;
}

// The results of the queued updates (BlastCudaQDataForce) into their callers' structs,
// each with its device time, once the stream has done them (the last one's second event
// follows its copy to the host).
int QDataFlush(CudaCtx *c) {
  if (!c->q_npend) return 0;
  BlastCallCuda(cudaEventSynchronize(c->q_ev[2 * c->q_npend - 1]));
  for (int k = 0; k < c->q_npend; k++) {
    float ms = 0.0f;
    BlastCallCuda(cudaEventElapsedTime(&ms, c->q_ev[2 * k], c->q_ev[2 * k + 1]));
    QDataResultOf(c->red_host + 4 * (k + 1), c->q_res[k]);
    c->q_res[k]->seconds = 1e-3 * ms;
  }
  c->q_npend = 0;
  return 0;
}

// Whether an update may leave its result to the next ctx.sync: not while the full mode's
// tuner times its candidates, the profile splits it, or every kernel synchronises.
static int QDataQueued(const CudaCtx *c) {
  return c->mem_in_use && !c->prof.on && !c->sync &&
         !(c->mode == &kCudaFull && c->full.tune_active);
}

extern "C" int BlastCudaQDataForce(void *ctx, const double *x, const double *v, const double *e,
                                   BlastQDataResult *res) {
  CudaCtx *c = (CudaCtx *)ctx;
  if (!c->mem_in_use) {  // the first update, in the setup: every buffer exists now
    size_t fr = 0, tot = 0;
    BlastCallCuda(cudaMemGetInfo(&fr, &tot));
    c->mem_in_use = c->mem_free0 > fr ? c->mem_free0 - fr : 1;
  }
  nvtxRangePushA("qdata_force");
  if (!QDataQueued(c)) {
    BlastCall(QDataStart(c, c->dd.nz, x, v, e));
    double seconds;
    BlastCall(QDataFinish(c, res, &seconds));
    nvtxRangePop();
    return 0;
  }
  if (c->q_npend == kQPending) BlastCall(QDataFlush(c));
  const int k = c->q_npend;
  BlastCall(QDataLaunch(c, c->dd.nz, x, v, e, c->q_ev[2 * k], c->q_ev[2 * k + 1],
                        c->red_host + 4 * (k + 1)));
  c->q_res[k] = res;
  c->q_npend++;
  nvtxRangePop();
  return 0;
}

// Full mode: -F_z 1 of zones [0, n) into rE (kernel 8).
int FullForceOnes(CudaCtx *c, int n) {
  if (n <= 0) return 0;
  DevData d = c->dd;
  d.nz = n;
  const double nzr = (double)n * d.rows;
  ProfBegin(c);
  k_force_ones<<<GridFor((size_t)n * d.rows), 256, 0, c->stream>>>(d);
  BlastCheckKernel(c->sync, "k_force_ones");
  ProfEnd(c, P_FORCE_ONES, 8.0 * nzr * (d.ne + 1), nzr * d.ne);
  return 0;
}

// The L-vector of rE summed over each dof's zones (double-double pairs).
int GatherRhs(CudaCtx *c, double *rhs) {
  const double nzr = (double)c->dd.nz * c->dd.rows;
  ProfBegin(c);
  k_gather_dd<<<GridFor((size_t)c->dd.nl * c->dd.dim), 256, 0, c->stream>>>(c->dd, rhs);
  BlastCheckKernel(c->sync, "k_gather_dd");
  ProfEnd(c, P_GATHER, 12.0 * nzr + 16.0 * c->dd.nl * c->dd.dim, 0.0);
  return 0;
}

extern "C" int BlastCudaMomentumRhs(void *ctx, double *rhs) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("force_ones");
  BlastCall(c->mode->force_ones(c, c->dd.nz));
  BlastCall(GatherRhs(c, rhs));
  nvtxRangePop();
  return 0;
}

// Full mode: b_z = F_z^T v_z (+ source) of zones [0, n) (kernel 10).
int FullForceT(CudaCtx *c, int n, const double *v) {
  if (n <= 0) return 0;
  DevData d = c->dd;
  d.nz = n;
  const double nzr = (double)n * d.rows, nzne = (double)n * d.ne;
  ProfBegin(c);
  k_force_t<<<GridFor((size_t)n * d.ne), 256, 0, c->stream>>>(d, v);
  BlastCheckKernel(c->sync, "k_force_t");
  ProfEnd(c, P_FORCE_T, 8.0 * nzr * d.ne + 12.0 * nzr + 8.0 * nzne, 2.0 * nzr * d.ne);
  return 0;
}

// de = M_E^{-1} b for every zone (kernel 11).
int MeApply(CudaCtx *c, double *de) {
  const double nzne = (double)c->dd.nz * c->dd.ne;
  ProfBegin(c);
  if (c->opt.spmv_cusparse) {
    BlastCall(SpMV(c, &c->me_inv, c->ve_in, c->dd.b, c->ve_out, de));
  } else {
    k_me_apply<<<GridFor((size_t)c->dd.nz * c->dd.ne), 256, 0, c->stream>>>(
        c->dd.nz, c->dd.ne, c->me_inv_blocks, c->dd.b, de);
    BlastCheckKernel(c->sync, "k_me_apply");
  }
  ProfEnd(c, P_ME_APPLY, 8.0 * nzne * (c->dd.ne + 2), 2.0 * nzne * c->dd.ne);
  return 0;
}

extern "C" int BlastCudaEnergyRate(void *ctx, const double *v, double *de) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("energy_rate");
  BlastCall(c->mode->force_t(c, c->dd.nz, v));
  BlastCall(MeApply(c, de));
  nvtxRangePop();
  return 0;
}

extern "C" int BlastCudaEnergies(void *ctx, const double *v, const double *e, double dd[4]) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int nz = c->dd.nz;
  const int zpb = c->dd.nqp < kEnergyThreads ? kEnergyThreads / c->dd.nqp : 1;
  if (nz > 0) {
    k_energies<<<(nz + zpb - 1) / zpb, kEnergyThreads, 0, c->stream>>>(c->dd, zpb, v, e,
                                                                       c->energy_zone);
    BlastCheckKernel(c->sync, "k_energies");
  }
  BlastCallCuda(cudaMemcpyAsync(c->energy_host, c->energy_zone, 2 * (size_t)nz * sizeof(double),
                                cudaMemcpyDeviceToHost, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  BlastEnergySums(nz, c->energy_host, 2, c->energy_host + 1, 2, dd);
  return 0;
}
