// The CUDA backend's setup (hydro/backend.h, ctx group): the options, the memory check,
// the device copies of the constant data both assembly modes share, the cuSPARSE setup,
// create/destroy/rebuild (the mode's own data: mode_full.cu, mode_partial.cu).
//
// All state and constant data live on the device for the whole run; only scalars (dt,
// dot products, energies) and halo buffers cross to the host. Kernels, as in the BLAST
// GPU paper (Dong et al., IPDPS 2014), with their number in its Table 2 (gpu/kernels/):
//   k_qdata_force      1-6  per point (a thread each): J, det, J^-1, EOS, viscosity
//                           (eigen-decomposition), stress S = w|J| sigma J^-T, dt estimate
//   k_force_gemm       7    F_z = A_z B^T, a thread per (zone, node, block of 4 or 8
//                           columns) building its node's rows of A_z from S and the basis
//                           gradients in registers (k_force_gemm_chunks where the S of a
//                           block's zones does not fit shared memory at once)
//   k_force_ones       8    -F_z 1 per zone (batched GEMV with ones)
//   k_gather_dd             assembly of the zone contributions into the L-vector, each
//                           dof summing its zones in a fixed order in double-double
//   k_force_t          10   F_z^T v_z per zone (batched GEMV)
//   k_me_apply         11   de = M_E^{-1} b with the dense zone blocks of the inverse
//                           (cuSPARSE SpMV on its CSR form with gpu.spmv=cusparse)
//   k_spmm_sell        9    PCG mat-vec with the mass matrix in sliced ELLPACK, all active
//                           components at once, double-double sums (cuSPARSE SpMV per
//                           component with gpu.spmv=cusparse)
//   k_dot_dd                dot products in double-double (rounded once: the same bits on
//                           any number of ranks, and as the CPU backend)
// Partial assembly (mode_partial.cu): k_pa_qdata3 / k_pa_qdata (quadrature data, rows -F_z 1
// and b without F_z), k_pa_force_t (b from a kept stress), k_pa_mass + k_pa_mass_gather
// (the matrix-free mass action), see docs/architecture.md.
// Kernel launch failures are reported with the kernel's name; every CUDA, cuBLAS and
// cuSPARSE call is checked.
#include <stdio.h>
#include <string.h>

#include <mpi.h>

extern "C" {
#include "blast_mpi.h"
#include "halo.h"
}

#include "config.h"
#include "context.h"
#include "sell.h"

// ---------------------------------------------------------------------------------------
// Status checks for the libraries

int BlastCublasError(const char *file, int line, const char *func, cublasStatus_t st,
                     const char *call) {
  return BlastErrorRaise(file, line, func, BLAST_ERR_CUBLAS, "%s failed: %s (%d)", call,
                         cublasGetStatusString(st), (int)st);
}
int BlastCusparseError(const char *file, int line, const char *func, cusparseStatus_t st,
                       const char *call) {
  return BlastErrorRaise(file, line, func, BLAST_ERR_CUSPARSE, "%s failed: %s (%d)", call,
                         cusparseGetErrorString(st), (int)st);
}

// ---------------------------------------------------------------------------------------
// Options

// The options for the next `create`, which copies them into its context (every later use
// reads the context's copy). One of the two globals of gpu/ (the other:
// blast_cuda_last_kernel, blast_cuda.h): the backend table's create(hd, ctx) has no
// argument for them, its signature being shared with the CPU backend (hydro/backend.h).
static BlastGpuOptions g_next_options = {BLAST_AUTOTUNE_ONLINE, 0, "", 0, 0, 0, 0, 0, 0, 0, 0};

extern "C" void BlastCudaSetOptions(const BlastGpuOptions *opt) {
  g_next_options = *opt;
}

extern "C" size_t BlastCudaMemoryUsed(const void *ctx) {
  return ctx ? ((const CudaCtx *)ctx)->mem_used : 0;
}

// ---------------------------------------------------------------------------------------
// Device copies of the constant data

// A CSR matrix (context.h: 64-bit row offsets and columns) to the device.
int UploadCsr(int64_t nrows, int64_t ncols, const int64_t *rowptr, const int64_t *col,
              const double *val, DevCsr *m) {
  m->nrows = nrows, m->ncols = ncols, m->nnz = rowptr[nrows];
  BlastCall(DevUpload(rowptr, (size_t)nrows + 1, &m->rowptr));
  BlastCall(DevUpload(col, (size_t)m->nnz, &m->col));
  BlastCall(DevUpload(val, (size_t)m->nnz, &m->val));
  BlastCallCusparse(cusparseCreateCsr(&m->mat, nrows, ncols > 0 ? ncols : 1, m->nnz, m->rowptr,
                                      m->col, m->val, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I,
                                      CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  return 0;
}

int FreeCsr(DevCsr *m) {
  if (m->mat) BlastCallCusparse(cusparseDestroySpMat(m->mat));
  BlastCallCuda(cudaFree(m->rowptr));
  BlastCallCuda(cudaFree(m->col));
  BlastCallCuda(cudaFree(m->val));
  memset(m, 0, sizeof *m);
  return 0;
}

// The zone inverses of M_E (kernel 11): dense blocks, or with `[gpu] spmv = cusparse` a
// block-diagonal CSR matrix (its pattern here, the values by RebuildMassEInverse).
static int UploadMassEInverse(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  const int ne = hd->l2_nd;
  const int64_t n = (int64_t)hd->nz * ne;
  if (!c->opt.spmv_cusparse)
    return DevUpload((const double *)NULL, (size_t)hd->nz * ne * ne, &c->me_inv_blocks);
  int64_t *rp, *col, k = 0;
  BlastCall(BlastMalloc(n + 1, &rp));
  BlastCall(BlastMalloc((size_t)n * ne + 1, &col));
  rp[0] = 0;
  for (int64_t z = 0; z < hd->nz; z++)
    for (int i = 0; i < ne; i++) {
      for (int j = 0; j < ne; j++) col[k++] = z * ne + j;
      rp[z * ne + i + 1] = k;
    }
  BlastCall(UploadCsr(n, n, rp, col, NULL, &c->me_inv));
  BlastFree(&rp);
  BlastFree(&col);
  return 0;
}

static int RebuildMassEInverse(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  const int ne = hd->l2_nd;
  const size_t n = (size_t)hd->nz * ne * ne;
  if (!c->opt.spmv_cusparse) return DevCopy(hd->me_inv, n, c->me_inv_blocks);
  double *val;
  BlastCall(BlastMalloc(n + 1, &val));
  size_t k = 0;
  for (size_t z = 0; z < (size_t)hd->nz; z++)
    for (int i = 0; i < ne; i++)
      for (int j = 0; j < ne; j++) val[k++] = hd->me_inv[z * ne * ne + i + ne * j];
  const int ierr = DevCopy(val, n, c->me_inv.val);
  BlastFree(&val);
  return ierr;
}

static int UploadHalo(const BlastHaloIndex *hi, DevHalo *h) {
  h->nsend = hi->nsend, h->nrecv = hi->nrecv;
  BlastCall(DevUpload(hi->send_idx, (size_t)hi->nsend, &h->send_idx));
  BlastCall(DevUpload(hi->recv_idx, (size_t)hi->nrecv, &h->recv_idx));
  // Distinct targets of the send list, each with its buffer positions in list order.
  int *target, *toff, *tpos, nt = 0;
  BlastCall(BlastMalloc(hi->nsend + 1, &target));
  BlastCall(BlastMalloc(hi->nsend + 2, &toff));
  BlastCall(BlastMalloc(hi->nsend + 1, &tpos));
  BlastCall(BlastHaloGroupTargets(hi->nsend, hi->send_idx, &nt, target, toff, tpos));
  h->ntarget = nt;
  BlastCall(DevUpload(target, (size_t)nt, &h->target));
  BlastCall(DevUpload(toff, (size_t)nt + 1, &h->toff));
  BlastCall(DevUpload(tpos, (size_t)hi->nsend, &h->tpos));
  BlastFree(&target);
  BlastFree(&toff);
  BlastFree(&tpos);
  return 0;
}

// A rows x cols matrix transposed (context.h).
void Transpose(const double *src, size_t rows, size_t cols, double *dst) {
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) dst[c * rows + r] = src[r * cols + c];
}

// ---------------------------------------------------------------------------------------
// The memory check and cuSPARSE

// Before allocating anything: the ranks that share this GPU add up their estimated needs
// (BlastCudaMemoryEstimate) and compare them with the memory free once all their CUDA
// contexts exist; if it does not fit, every rank stops with the numbers and the layouts
// that would fit, instead of a cudaMalloc failure halfway through the setup.
// Collective over MPI_COMM_WORLD (every rank creates its backend in the setup).
static int CheckMemory(const BlastHydroData *hd, const BlastGpuOptions *opt, size_t *estimate) {
  int ierr = 0, dev = -1, rank = 0;
  MPI_Comm node = MPI_COMM_NULL, gpu = MPI_COMM_NULL;
  BlastCallMPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  cudaError_t st = cudaGetDevice(&dev);
  if (st != cudaSuccess) {
    ierr = BlastCudaError(__FILE__, __LINE__, __func__, (int)st, "cudaGetDevice(&dev)",
                          cudaGetErrorString(st));
    dev = -1;
  }
  BlastCallMPI(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  BlastCallMPI(MPI_Comm_split(node, dev < 0 ? MPI_UNDEFINED : dev, rank, &gpu));
  if (gpu != MPI_COMM_NULL) {
    BlastCallMPI(MPI_Barrier(gpu));  // every rank of this GPU has its context
    size_t fr = 0, tot = 0;
    if (!ierr && (st = cudaMemGetInfo(&fr, &tot)) != cudaSuccess)
      ierr = BlastCudaError(__FILE__, __LINE__, __func__, (int)st, "cudaMemGetInfo(&fr, &tot)",
                            cudaGetErrorString(st));
    BlastCudaMemorySizes sz;
    BlastCudaMemorySizesOf(hd, opt, &sz);
    *estimate = BlastCudaMemoryEstimate(&sz);
    double mine[3] = {(double)*estimate, (double)hd->nz, 1.0}, sum[3];
    double fmin[2] = {ierr ? 0.0 : (double)fr, ierr ? 0.0 : (double)tot}, lo[2];
    BlastCallMPI(MPI_Allreduce(mine, sum, 3, MPI_DOUBLE, MPI_SUM, gpu));
    BlastCallMPI(MPI_Allreduce(fmin, lo, 2, MPI_DOUBLE, MPI_MIN, gpu));
    BlastCallMPI(MPI_Comm_free(&gpu));
    if (!ierr && sum[0] > lo[0]) {
      BlastCudaShortfall m;
      memset(&m, 0, sizeof m);
      m.device = dev, m.ranks = (int)sum[2], m.dim = hd->dim, m.zones = (long long)sum[1];
      m.need = sum[0], m.free = lo[0], m.total = (double)tot;
      cudaDeviceProp prop;
      if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        snprintf(m.gpu_name, sizeof m.gpu_name, "%s", prop.name);
      else
        snprintf(m.gpu_name, sizeof m.gpu_name, "unknown model"), cudaGetLastError();
      char msg[1500];
      BlastCudaMemoryAdvice(msg, sizeof msg, &m);
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_MEM, "%s", msg);
    }
  }
  BlastCallMPI(MPI_Comm_free(&node));
  return BlastAgree(MPI_COMM_WORLD, ierr, 1);
}

// cuSPARSE's dense-vector descriptors of M_E^{-1} (rebound to the actual pointers on every
// SpMV) and one work buffer for the largest SpMV, the mode's (spmv_buf_size, from its
// setup) included (`[gpu] spmv = cusparse` only).
static int CusparseSetup(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  const int64_t nzne = (int64_t)hd->nz * hd->l2_nd;
  BlastCallCusparse(cusparseCreateDnVec(&c->ve_in, nzne, c->dd.b, CUDA_R_64F));
  BlastCallCusparse(cusparseCreateDnVec(&c->ve_out, nzne, c->dd.b, CUDA_R_64F));
  size_t sz = c->spmv_buf_size;
  const double one = 1.0, zero = 0.0;
  if (c->me_inv.nrows > 0) {
    size_t s = 0;
    BlastCallCusparse(cusparseSpMV_bufferSize(c->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                              c->me_inv.mat, c->ve_in, &zero, c->ve_out, CUDA_R_64F,
                                              CUSPARSE_SPMV_CSR_ALG2, &s));
    if (s > sz) sz = s;
  }
  c->spmv_buf_size = sz;
  BlastCallCuda(cudaMalloc(&c->spmv_buf, sz ? sz : 1));
  return 0;
}

// ---------------------------------------------------------------------------------------
// Create and destroy

// The discretisation of hd against the context's (sizes, maps, assembly mode): a rebuild
// keeps every allocation and layout, so it must match.
static int SameDiscretisation(const BlastHydroData *a, const BlastHydroData *b) {
  int same = a->dim == b->dim && a->nz == b->nz && a->nqp == b->nqp && a->h1_nd == b->h1_nd &&
             a->l2_nd == b->l2_nd && a->h1_nl == b->h1_nl && a->h1_nown == b->h1_nown &&
             a->h1_next == b->h1_next && a->mv_ninterior == b->mv_ninterior &&
             a->assembly == b->assembly && a->tg_source == b->tg_source;
  if (same && a->assembly == BLAST_ASSEMBLY_PARTIAL)
    same = a->pa.nz_ext == b->pa.nz_ext && a->pa.d1d == b->pa.d1d && a->pa.q1d == b->pa.q1d &&
           a->pa.l1d == b->pa.l1d && a->pa.nzint == b->pa.nzint &&
           a->pa.keep_stress == b->pa.keep_stress;
  else if (same)
    same = a->full.rowptr[a->h1_nown] - a->full.rowptr[0] ==
           b->full.rowptr[b->h1_nown] - b->full.rowptr[0];
  return same;
}

// The reference data of hd (BlastHydroData) into the device allocations, and what derives
// from it: rho0 |J0| w, the zones' materials (their array grows if nmat does), M_E^{-1},
// the mass diagonal and h0 (qpar); full assembly: J0^{-1} point-fastest and the mass
// matrix values in the SELL layout or in the cuSPARSE CSR matrices; partial: x0 and the
// mass operator's rho0 |J0| w (CudaMode.rebuild). What the tuners decided and the layouts
// stay. Create ends with it; ctx.rebuild is it.
static int Rebuild(CudaCtx *c, const BlastHydroData *hd) {
  BlastCheck(SameDiscretisation(&c->hd, hd), BLAST_ERR_ARG,
             "cuda backend rebuild: the new reference data has another discretisation (sizes, "
             "maps or assembly mode) than the context's");
  BlastCallCuda(cudaStreamSynchronize(c->stream));  // nothing queued reads the old data
  c->hd = *hd;
  DevData *d = &c->dd;
  const size_t nz = hd->nz, nqp = hd->nqp;
  d->qpar = hd->qpar;
  BlastCall(DevCopy(hd->qp_R0, nz * nqp, d->R0));
  BlastCall(DevCopy(hd->zone_mat, nz, d->zone_mat));
  if (hd->nmat > c->nmat_cap) {
    BlastCallCuda(cudaFree(d->mats));
    d->mats = NULL;
    BlastCall(DevUpload((const BlastMaterial *)NULL, (size_t)hd->nmat, &d->mats));
    c->nmat_cap = hd->nmat;
  }
  BlastCall(DevCopy(hd->mats, (size_t)hd->nmat, d->mats));
  BlastCall(DevCopy(hd->mv_dinv, (size_t)hd->h1_nown, c->mv_dinv));
  BlastCall(RebuildMassEInverse(c));
  BlastCall(c->mode->rebuild(c));
  BlastCallCuda(cudaDeviceSynchronize());  // the copies complete before the next launch
  return 0;
}

extern "C" int BlastCudaCreate(const BlastHydroData *hd, void **ctx) {
  const BlastGpuOptions opt = g_next_options;
  size_t estimate = 0;
  BlastCall(CheckMemory(hd, &opt, &estimate));
  CudaCtx *c;
  BlastCall(BlastCalloc(1, &c));
  c->opt = opt;
  c->sync = opt.sync > 0;
  c->mem_estimate = estimate;
  size_t free0 = 0, total = 0;
  BlastCallCuda(cudaMemGetInfo(&free0, &total));
  c->mem_free0 = free0;
  BlastCall(ProfileCreate(c));
  c->hd = *hd;
  // the assembly mode, chosen once: its data and operations (mode_full.cu, mode_partial.cu)
  const int pa = hd->assembly == BLAST_ASSEMBLY_PARTIAL;
  c->mode = pa ? &kCudaPartial : &kCudaFull;
  int dev;
  BlastCallCuda(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  BlastCallCuda(cudaGetDeviceProperties(&prop, dev));
  snprintf(c->gpu_name, sizeof c->gpu_name, "%s", prop.name);
  c->smem_limit = prop.sharedMemPerBlockOptin;
  c->pdl_ok = prop.major >= 9 && !c->opt.pdl_off;
  BlastCallCuda(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
  BlastCallCublas(cublasCreate(&c->cublas));
  BlastCallCublas(cublasSetStream(c->cublas, c->stream));
  BlastCallCusparse(cusparseCreate(&c->cusparse));
  BlastCallCusparse(cusparseSetStream(c->cusparse, c->stream));
  BlastCallCuda(cudaEventCreate(&c->ev0));
  BlastCallCuda(cudaEventCreate(&c->ev1));
  BlastCallCuda(cudaEventCreate(&c->ev_mid));
  for (int k = 0; k < 2 * kQPending; k++) BlastCallCuda(cudaEventCreate(&c->q_ev[k]));
  BlastCallCuda(cudaEventCreateWithFlags(&c->ev_copy, cudaEventDisableTiming));
  DevData *d = &c->dd;
  d->dim = hd->dim, d->nz = hd->nz, d->nqp = hd->nqp, d->nd = hd->h1_nd, d->ne = hd->l2_nd;
  d->nl = hd->h1_nl, d->nown = hd->h1_nown, d->next = hd->h1_next, d->rows = hd->dim * hd->h1_nd;
  d->qpar = hd->qpar, d->tg_source = hd->tg_source;
  const size_t nz = hd->nz, nqp = hd->nqp, nd = hd->h1_nd, ne = hd->l2_nd, dim = hd->dim;
  BlastCall(DevUpload(hd->h1_edof, (pa ? (size_t)hd->pa.nz_ext : nz) * nd, &d->edof));
  BlastCall(DevUpload(hd->h1_toff, (size_t)hd->h1_nl + 1, &d->toff));
  BlastCall(DevUpload(hd->h1_tidx, nz * nd, &d->tidx));
  const size_t nslot = hd->zone_slot ? 2 : 1;  // mixed meshes: both slots' tables
  BlastCall(DevUpload(hd->qp_w, nslot * nqp, &d->qw));
  BlastCall(DevUpload(hd->h1_B, nslot * nqp * nd, &d->B));
  BlastCall(DevUpload(hd->l2_B, nslot * nqp * ne, &d->L2B));
  d->slot = NULL;
  if (hd->zone_slot) BlastCall(DevUpload(hd->zone_slot, nz, &d->slot));
  // reference data: allocated here, filled by Rebuild (below)
  BlastCall(DevUpload((const double *)NULL, nz * nqp, &d->R0));
  BlastCall(DevUpload((const int *)NULL, nz, &d->zone_mat));
  c->nmat_cap = hd->nmat > 1 ? hd->nmat : 1;
  BlastCall(DevUpload((const BlastMaterial *)NULL, (size_t)c->nmat_cap, &d->mats));
  BlastCall(DevUpload((const double *)NULL, (size_t)hd->h1_nown, &c->mv_dinv));
  BlastCall(c->mode->setup(c));
  BlastCall(DevUpload((const double *)NULL, nz * ne, &d->b));
  BlastCall(DevUpload((const double *)NULL, hd->tg_source ? nz * ne : 1, &d->tg));
  BlastCall(UploadMassEInverse(c));
  BlastCall(BlastMalloc(dim + 1, &c->ess_off));
  for (size_t k = 0; k <= dim; k++) c->ess_off[k] = hd->ess_off[k];
  BlastCall(DevUpload(hd->ess_idx, (size_t)hd->ess_off[dim], &c->ess_idx));
  BlastCall(BlastCudaProjectSetup(c, hd));
  size_t dbuf = 1;
  for (int w = 0; w < 2; w++) {
    BlastCall(UploadHalo(&hd->halo[w], &c->halo[w]));
    const size_t n =
        2 * dim *
        (size_t)(hd->halo[w].nsend > hd->halo[w].nrecv ? hd->halo[w].nsend : hd->halo[w].nrecv);
    if (n > dbuf) dbuf = n;
  }
  c->dbuf_n = dbuf;
  BlastCallCuda(cudaMalloc((void **)&c->dbuf, dbuf * sizeof(double)));
  BlastCallCuda(cudaMalloc((void **)&c->dot_part, 6 * kDotBlocks * sizeof(double)));
  BlastCallCuda(cudaMalloc((void **)&c->dot_pair, 6 * sizeof(double)));
  BlastCall(PcgSetup(c));
  c->mdot_stride = 2 * GridFor((size_t)(hd->h1_nown > 0 ? hd->h1_nown : 1));
  BlastCallCuda(cudaMalloc((void **)&c->mdot_part, 6 * (size_t)c->mdot_stride * sizeof(double)));
  BlastCallCuda(cudaMallocHost((void **)&c->dot_host, kDotHostDoubles * sizeof(double)));
  BlastCallCuda(cudaMallocHost((void **)&c->red_host, 4 * (kQPending + 1) * sizeof(double)));
  BlastCallCuda(cudaMalloc((void **)&c->energy_zone, (2 * nz + 2) * sizeof(double)));
  BlastCallCuda(cudaMallocHost((void **)&c->energy_host, (2 * nz + 2) * sizeof(double)));
  if (c->opt.spmv_cusparse) BlastCall(CusparseSetup(c));
  const int maxblocks = (int)Blocks(nz, 1);  // zpb >= 1
  c->nred = maxblocks + 1;
  BlastCallCuda(cudaMalloc((void **)&c->red, 2 * (size_t)c->nred * sizeof(double)));
  BlastCallCuda(cudaMalloc((void **)&c->red_zone, (size_t)c->nred * sizeof(int)));
  BlastCallCuda(cudaMalloc((void **)&c->red_out, 4 * sizeof(double)));
  BlastCall(Rebuild(c, hd));
  size_t free1 = 0;
  BlastCallCuda(cudaMemGetInfo(&free1, &total));
  c->mem_used = free0 > free1 ? free0 - free1 : 0;
  *ctx = c;
  return 0;
}

extern "C" int BlastCudaDestroy(void **ctx) {
  if (!ctx || !*ctx) return 0;
  CudaCtx *c = (CudaCtx *)*ctx;
  DevData *d = &c->dd;
  if (c->mode) BlastCall(c->mode->destroy(c));  // the mode's data
  BlastCall(PcgFree(c));
  BlastCall(PeerRelease(c));
  BlastCall(NcclRelease(c));
  // clang-format off
  void *bufs[] = {d->edof,       d->toff,     d->tidx,     d->qw,         d->B,
                  d->L2B,        d->R0,       d->zone_mat, d->b,          d->tg,
                  c->mv_dinv,    c->ess_idx,  c->dbuf,     c->dot_part,   c->energy_zone,
                  c->spmv_buf,   c->red,      c->red_zone, c->red_out,    c->me_inv_blocks,
                  c->stage,      c->mdot_part, d->mats,       d->slot,        c->dot_pair};
  // clang-format on
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) BlastCallCuda(cudaFree(bufs[i]));
  for (int w = 0; w < 2; w++) {
    void *hb[] = {c->halo[w].send_idx, c->halo[w].recv_idx, c->halo[w].target, c->halo[w].toff,
                  c->halo[w].tpos};
    for (size_t i = 0; i < sizeof hb / sizeof *hb; i++) BlastCallCuda(cudaFree(hb[i]));
  }
  BlastCallCuda(cudaFreeHost(c->dot_host));
  BlastCallCuda(cudaFreeHost(c->red_host));
  BlastCallCuda(cudaFreeHost(c->energy_host));
  BlastCall(FreeCsr(&c->me_inv));
  cusparseDnVecDescr_t vs[] = {c->ve_in, c->ve_out};
  for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
    if (vs[i]) BlastCallCusparse(cusparseDestroyDnVec(vs[i]));
  BlastCallCusparse(cusparseDestroy(c->cusparse));
  BlastCallCublas(cublasDestroy(c->cublas));
  BlastCallCuda(cudaEventDestroy(c->ev0));
  BlastCallCuda(cudaEventDestroy(c->ev1));
  BlastCallCuda(cudaEventDestroy(c->ev_mid));
  for (int k = 0; k < 2 * kQPending; k++)
    if (c->q_ev[k]) BlastCallCuda(cudaEventDestroy(c->q_ev[k]));
  BlastCallCuda(cudaEventDestroy(c->ev_copy));
  BlastCall(ProfileDestroy(c));
  BlastCallCuda(cudaStreamDestroy(c->stream));
  BlastFree(&c->ess_off);
  BlastCall(BlastCudaProjectFree(c));
  BlastFree(ctx);
  return 0;
}

extern "C" int BlastCudaSync(void *ctx) {
  CudaCtx *c = (CudaCtx *)ctx;
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  return QDataFlush(c);
}

// BlastCtxOps.rebuild: new reference data on the context's discretisation (Rebuild).
extern "C" int BlastCudaRebuild(void *ctx, const BlastHydroData *hd) {
  BlastCheck(ctx && hd, BLAST_ERR_ARG, "cuda backend rebuild: no context or no data");
  BlastCall(PcgDropGraphs((CudaCtx *)ctx));
  return Rebuild((CudaCtx *)ctx, hd);
}
