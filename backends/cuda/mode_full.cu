// The full-assembly mode of the CUDA backend (CudaMode kCudaFull, its data CudaFull): the
// zone force matrices F_z = A_z B^T, J0^{-1} and the point-fastest tables of the quadrature
// kernel and the force GEMM, the assembled mass matrix (sliced ELLPACK for the
// double-double kernel, or CSR for cuSPARSE) and the tuners of the quadrature kernel and
// the mass-matrix kernel. Setup, rebuild and destroy here; the launches in ops_zone.cu
// (kernels 1-8, 10) and ops_mass.cu (kernel 9).
#include <string.h>

#include "context.h"
#include "sell.h"
extern "C" {
#include "linalg.h"
}

// ---------------------------------------------------------------------------------------
// The mass matrix

// The mass matrix in sliced ELLPACK for the double-double kernel, interior rows' slices
// first so that the interior product overlaps the halo exchange; with `[gpu] spmv =
// cusparse` instead interior and boundary rows as CSR matrices of their own (in the order
// of hd->mv_rows). The pattern only (the discretisation): the values and the diagonal are
// reference data, written by RebuildMass into the allocations made here.
static int UploadMass(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  const int nown = hd->h1_nown, ni = hd->mv_ninterior;
  if (!c->opt.spmv_cusparse) {
    BlastSell s;
    int ierr = BlastSellBuild(nown, ni, hd->mv_rows, hd->full.rowptr, hd->full.col, NULL,
                              c->full.sell_sigma, &s);  // the values: RebuildMass
    if (!ierr) ierr = DevUpload(s.row, (size_t)s.nslots, &c->full.sell_row);
    if (!ierr) ierr = DevUpload(s.len, (size_t)s.nslots, &c->full.sell_len);
    if (!ierr) ierr = DevUpload(s.off, (size_t)s.nslots / BLAST_SELL_C + 1, &c->full.sell_off);
    if (!ierr) ierr = DevUpload(s.col, (size_t)s.nnz, &c->full.sell_col);
    if (!ierr) ierr = DevUpload((const double *)NULL, (size_t)s.nnz, &c->full.sell_val);
    c->full.sell_slots = s.nslots, c->full.sell_slots_int = s.nslots_interior,
    c->full.sell_nnz = s.nnz;
    c->full.sell_hrow = s.row, c->full.sell_hlen = s.len,
    c->full.sell_hoff = s.off;  // kept for RebuildMass
    s.row = NULL, s.len = NULL, s.off = NULL;
    BlastSellFree(&s);
    return ierr;
  }
  for (int part = 0; part < 2; part++) {
    const int r0 = part ? ni : 0, r1 = part ? nown : ni, n = r1 - r0;
    int64_t *rp, *col, nnz = 0;
    for (int r = r0; r < r1; r++)
      nnz += hd->full.rowptr[hd->mv_rows[r] + 1] - hd->full.rowptr[hd->mv_rows[r]];
    BlastCall(BlastMalloc(n + 1, &rp));
    BlastCall(BlastMalloc(nnz + 1, &col));
    rp[0] = 0;
    int64_t k = 0;
    for (int r = r0; r < r1; r++) {
      const int row = hd->mv_rows[r];
      for (int64_t j = hd->full.rowptr[row]; j < hd->full.rowptr[row + 1]; j++)
        col[k++] = hd->full.col[j];
      rp[r - r0 + 1] = k;
    }
    BlastCall(UploadCsr(n, hd->h1_next, rp, col, NULL, part ? &c->full.mv_bnd : &c->full.mv_int));
    BlastFree(&rp);
    BlastFree(&col);
  }
  BlastCall(DevUpload(hd->mv_rows, (size_t)nown, &c->full.mv_rows));
  BlastCallCuda(cudaMalloc((void **)&c->full.y_perm, ((size_t)nown + 1) * sizeof(double)));
  return 0;
}

// The mass matrix values into UploadMass's layout: the SELL slots' entries (padding 0), or
// the cuSPARSE CSR values of the interior and boundary rows in place (their descriptors
// point at them).
static int RebuildMass(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  const int nown = hd->h1_nown, ni = hd->mv_ninterior;
  if (!c->opt.spmv_cusparse) {
    double *val;
    BlastCall(BlastCalloc((size_t)c->full.sell_nnz + 1, &val));
    BlastSellValues(c->full.sell_slots, c->full.sell_hrow, c->full.sell_hlen, c->full.sell_hoff,
                    hd->full.rowptr, hd->full.val, val);
    const int ierr = DevCopy(val, (size_t)c->full.sell_nnz, c->full.sell_val);
    BlastFree(&val);
    return ierr;
  }
  for (int part = 0; part < 2; part++) {
    const int r0 = part ? ni : 0, r1 = part ? nown : ni;
    DevCsr *m = part ? &c->full.mv_bnd : &c->full.mv_int;
    double *val;
    BlastCall(BlastMalloc((size_t)m->nnz + 1, &val));
    int64_t k = 0;
    for (int r = r0; r < r1; r++) {
      const int row = hd->mv_rows[r];
      for (int64_t j = hd->full.rowptr[row]; j < hd->full.rowptr[row + 1]; j++)
        val[k++] = hd->full.val[j];
    }
    const int ierr = DevCopy(val, (size_t)m->nnz, m->val);
    BlastFree(&val);
    BlastCall(ierr);
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// J0^{-1} and the point-fastest tables

// The copies of G and L2 B in the layouts the quadrature kernel and the force GEMM read
// coalesced (DevData), and the allocation of J0^{-1}'s (RebuildJ0inv fills it).
// Mixed meshes: each slot's tables so, one after the other (DevSlot).
static int UploadPointFastest(const BlastHydroData *hd, DevData *d) {
  const size_t nz = hd->nz, nqp = hd->nqp, nd = hd->h1_nd, ne = hd->l2_nd, dim = hd->dim;
  const size_t D2 = dim * dim, ng = nqp * nd * dim, ns = hd->zone_slot ? 2 : 1;
  const size_t jt = GemmColumns((int)ne), ncp = (ne + jt - 1) / jt * jt;
  const size_t nbuf = ng > nqp * (ne + 8) ? ng : nqp * (ne + 8);
  double *t = NULL;
  BlastCall(BlastMalloc(ns * nbuf, &t));
  for (size_t sl = 0; sl < ns; sl++)  // [q][a][g] -> [a][g][q]
    Transpose(hd->h1_G + sl * ng, nqp, nd * dim, t + sl * ng);
  int ierr = DevUpload(t, ns * ng, &d->Gt);
  for (size_t sl = 0; sl < ns; sl++)
    for (size_t q = 0; q < nqp; q++)  // -> [q][g][a]
      Transpose(hd->h1_G + sl * ng + q * nd * dim, nd, dim, t + sl * ng + q * dim * nd);
  if (!ierr) ierr = DevUpload(t, ns * ng, &d->Gn);
  for (size_t sl = 0; sl < ns; sl++)
    Transpose(hd->l2_B + sl * nqp * ne, nqp, ne, t + sl * nqp * ne);
  if (!ierr) ierr = DevUpload(t, ns * nqp * ne, &d->L2Bt);
  for (size_t sl = 0; sl < ns; sl++)
    for (size_t q = 0; q < nqp; q++)
      for (size_t i = 0; i < ncp; i++)
        t[(sl * nqp + q) * ncp + i] = i < ne ? hd->l2_B[(sl * nqp + q) * ne + i] : 0.0;
  if (!ierr) ierr = DevUpload(t, ns * nqp * ncp, &d->L2Bp);
  if (!ierr) ierr = DevUpload((const double *)NULL, nz * nqp * D2, &d->J0inv);
  BlastFree(&t);
  return ierr;
}

// J0^{-1} point-fastest ([z][i][q], DevData), transposed on the host in chunks of zones.
static int RebuildJ0inv(const BlastHydroData *hd, DevData *d) {
  const size_t nz = hd->nz, nqp = hd->nqp, dim = hd->dim, D2 = dim * dim;
  size_t chunk = ((size_t)64 << 20) / (nqp * D2 * sizeof(double));  // zones per 64 MB
  chunk = chunk < 1 ? 1 : chunk > nz ? (nz ? nz : 1) : chunk;
  double *t = NULL;
  BlastCall(BlastMalloc(chunk * nqp * D2, &t));
  int ierr = 0;
  for (size_t z0 = 0; z0 < nz && !ierr; z0 += chunk) {
    const size_t n = nz - z0 < chunk ? nz - z0 : chunk;
    BlastTransposeBlocks(n, nqp, D2, hd->full.J0inv + z0 * nqp * D2, t);  // [z][q][i] -> [z][i][q]
    const cudaError_t st = cudaMemcpy(d->J0inv + z0 * nqp * D2, t, n * nqp * D2 * sizeof(double),
                                      cudaMemcpyHostToDevice);
    if (st != cudaSuccess)
      ierr = BlastCudaError(__FILE__, __LINE__, __func__, (int)st, "cudaMemcpy(J0inv)",
                            cudaGetErrorString(st));
  }
  BlastFree(&t);
  return ierr;
}

// cuSPARSE's dense-vector descriptors of the mass matrix parts (rebound to the actual
// pointers on every SpMV) and the work buffer size they need (setup.cu allocates the
// buffer, M_E^{-1}'s included).
static int FullCusparseSetup(CudaCtx *c) {
  CudaFull *f = &c->full;
  const BlastHydroData *hd = &c->hd;
  const int64_t next = hd->h1_next > 0 ? hd->h1_next : 1;
  BlastCallCusparse(cusparseCreateDnVec(&f->vx_int, next, f->y_perm, CUDA_R_64F));
  BlastCallCusparse(cusparseCreateDnVec(&f->vy_int, f->mv_int.nrows > 0 ? f->mv_int.nrows : 1,
                                        f->y_perm, CUDA_R_64F));
  BlastCallCusparse(cusparseCreateDnVec(&f->vx_bnd, next, f->y_perm, CUDA_R_64F));
  BlastCallCusparse(cusparseCreateDnVec(&f->vy_bnd, f->mv_bnd.nrows > 0 ? f->mv_bnd.nrows : 1,
                                        f->y_perm, CUDA_R_64F));
  size_t sz = c->spmv_buf_size;
  const double one = 1.0, zero = 0.0;
  const DevCsr *mats[2] = {&f->mv_int, &f->mv_bnd};
  cusparseDnVecDescr_t xs[2] = {f->vx_int, f->vx_bnd}, ys[2] = {f->vy_int, f->vy_bnd};
  for (int i = 0; i < 2; i++) {
    if (mats[i]->nrows == 0) continue;
    size_t s = 0;
    BlastCallCusparse(cusparseSpMV_bufferSize(c->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                              mats[i]->mat, xs[i], &zero, ys[i], CUDA_R_64F,
                                              CUSPARSE_SPMV_CSR_ALG2, &s));
    if (s > sz) sz = s;
  }
  c->spmv_buf_size = sz;
  return 0;
}

// ---------------------------------------------------------------------------------------
// The mode

// The full mode's data of the discretisation (CudaMode.setup): the point-fastest tables,
// S, F_z, the rows -F_z 1, the mass matrix's layout, the tuners.
static int FullSetup(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  CudaFull *f = &c->full;
  DevData *d = &c->dd;
  const size_t nz = hd->nz, nqp = hd->nqp, ne = hd->l2_nd, dim = hd->dim;
  // Mass-matrix rows ordered by length within windows of sigma rows (sell.h; 0: the whole
  // interior or boundary part). BLAST_SELL_SIGMA overrides, for benchmarks.
  f->sell_sigma = c->opt.sell_sigma_set ? c->opt.sell_sigma : BLAST_SELL_SIGMA_DEFAULT;
  if (!c->opt.spmv_cusparse)
    BlastCallCuda(cudaMalloc((void **)&f->xil, 3 * ((size_t)hd->h1_next + 1) * sizeof(double)));
  BlastCallCuda(cudaEventCreate(&f->ev_s0));
  BlastCallCuda(cudaEventCreate(&f->ev_s1));
  BlastCall(UploadPointFastest(hd, d));
  BlastCall(DevUpload((const double *)NULL, nz * nqp * SStride((int)dim), &d->S));
  BlastCallCuda(cudaMemset(d->S, 0, nz * nqp * SStride((int)dim) * sizeof(double)));  // the padding
  BlastCall(DevUpload((const double *)NULL, nz * d->rows * ne, &d->F));
  BlastCall(DevUpload((const double *)NULL, nz * d->rows, &d->rE));
  BlastCall(UploadMass(c));
  if (c->opt.spmv_cusparse) BlastCall(FullCusparseSetup(c));
  // The quadrature kernel's launch configuration: cached, tuned online, or a default.
  for (int dimk = 1; dimk <= 3; dimk++)
    for (int mix = 0; mix < 2; mix++) {
      for (int g = 0; g < 3; g++)
        BlastCallCuda(cudaFuncSetAttribute(QKernel(dimk, g, mix),
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)c->smem_limit));
      for (int jt = 4; jt <= 8; jt += 4)
        for (int ch = 0; ch < 2; ch++)
          BlastCallCuda(cudaFuncSetAttribute(GemmKernel(dimk, jt, ch, mix),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)c->smem_limit));
    }
  for (int g = 0; g < 3; g++)
    if (QSpecKernel(d->dim, d->nd, d->ne, g))
      BlastCallCuda(cudaFuncSetAttribute(QSpecKernel(d->dim, d->nd, d->ne, g),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)c->smem_limit));
  BlastCall(TuneSetup(c));
  return 0;
}

// The full mode's reference data from c->hd (CudaMode.rebuild, at create too).
static int FullRebuild(CudaCtx *c) {
  BlastCall(RebuildJ0inv(&c->hd, &c->dd));
  return RebuildMass(c);
}

static int FullDestroy(CudaCtx *c) {
  CudaFull *f = &c->full;
  DevData *d = &c->dd;
  void *bufs[] = {d->J0inv,    d->F,        d->rE,       d->Gt,     d->Gn,       d->L2Bt,
                  d->L2Bp,     d->S,        f->mv_rows,  f->y_perm, f->sell_row, f->sell_len,
                  f->sell_off, f->sell_col, f->sell_val, f->xil};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) BlastCallCuda(cudaFree(bufs[i]));
  BlastCall(FreeCsr(&f->mv_int));
  BlastCall(FreeCsr(&f->mv_bnd));
  cusparseDnVecDescr_t vs[] = {f->vx_int, f->vy_int, f->vx_bnd, f->vy_bnd};
  for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
    if (vs[i]) BlastCallCusparse(cusparseDestroyDnVec(vs[i]));
  if (f->ev_s0) BlastCallCuda(cudaEventDestroy(f->ev_s0));
  if (f->ev_s1) BlastCallCuda(cudaEventDestroy(f->ev_s1));
  BlastFree(&f->sell_hrow);
  BlastFree(&f->sell_hlen);
  BlastFree(&f->sell_hoff);
  return 0;
}

const CudaMode kCudaFull = {"full",          FullSetup,     FullRebuild, FullDestroy,
                            FullQData,       FullForceOnes, FullForceT,  FullMassMult,
                            MassMultThenDot, FullQDataModel, NULL};
