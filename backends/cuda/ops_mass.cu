// The backend table's mass group: the momentum mass matrix for all velocity components
// at once (kernel 9: sliced ELLPACK in double-double, or cuSPARSE) and the PCG vectors.
#include <nvtx3/nvToolsExt.h>

#include "context.h"
#include "kernels/mass.cuh"

typedef void (*SpmmKernel)(int, int, const int *, const int *, const long long *, const int *,
                           const double *, unsigned, size_t, const double *, double *);
template <int NCOMP, bool IL>
static SpmmKernel SpmmPick(const SpmmCand *k) {
  if (k->minb == 6) return k_spmm_sell<NCOMP, IL, 6, 4>;
  if (k->minb == 4)
    return k->unr == 8 ? k_spmm_sell<NCOMP, IL, 4, 8> : k_spmm_sell<NCOMP, IL, 4, 4>;
  return k->unr == 8 ? k_spmm_sell<NCOMP, IL, 1, 8> : k_spmm_sell<NCOMP, IL, 1, 4>;
}

// y = m x with cuSPARSE: the vectors bound to the descriptors, the shared work buffer.
int SpMV(CudaCtx *c, const DevCsr *m, cusparseDnVecDescr_t vx, const double *x,
         cusparseDnVecDescr_t vy, double *y) {
  if (m->nrows == 0) return 0;
  const double one = 1.0, zero = 0.0;
  BlastCallCusparse(cusparseDnVecSetValues(vx, (void *)x));
  BlastCallCusparse(cusparseDnVecSetValues(vy, (void *)y));
  BlastCallCusparse(cusparseSpMV(c->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m->mat, vx,
                                 &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, c->spmv_buf));
  return 0;
}

extern "C" int BlastCudaMassMult(void *ctx, int rows, int ncomp, unsigned mask, const double *x,
                                 double *y) {
  CudaCtx *c = (CudaCtx *)ctx;
  return c->mode->mass_mult(c, rows, ncomp, mask, x, y);
}

// Full mode: y = m x with the assembled mass matrix.
int FullMassMult(CudaCtx *c, int rows, int ncomp, unsigned mask, const double *x, double *y) {
  CudaFull *f = &c->full;
  nvtxRangePushA("mass_spmm");
  const size_t st = (size_t)c->dd.next;
  if (!c->opt.spmv_cusparse) {
    const int t0 = rows == BLAST_ROWS_BOUNDARY ? f->sell_slots_int : 0;
    const int t1 = rows == BLAST_ROWS_INTERIOR ? f->sell_slots_int : f->sell_slots;
    // Components side by side in xil: one gather per entry instead of ncomp. The INTERIOR
    // call packs the owned part (even without interior rows) and the BOUNDARY call that
    // follows on the same x only the ghosts, which arrived in between.
    const double *xs = x;
    if (t1 > t0 && ncomp > 0) ProfBegin(c);  // the packing counts as the product's time
    if (ncomp > 1 && (t1 > t0 || rows == BLAST_ROWS_INTERIOR)) {
      const int partial = rows == BLAST_ROWS_BOUNDARY && f->xil_src == x && f->xil_ncomp == ncomp;
      const int n0 = partial ? c->dd.nown : 0;
      const int n1 = rows == BLAST_ROWS_INTERIOR ? c->dd.nown : c->dd.next;
      if (n1 > n0) {
        k_interleave<<<GridFor((size_t)(n1 - n0)), 256, 0, c->stream>>>(n0, n1, ncomp, st, x,
                                                                        f->xil);
        BlastCheckKernel(c->sync, "k_interleave");
      }
      xs = f->xil;
    }
    f->xil_src = rows == BLAST_ROWS_INTERIOR && ncomp > 1 ? x : NULL, f->xil_ncomp = ncomp;
    if (t1 > t0 && ncomp > 0) {
      int nact = 0;
      for (int k = 0; k < ncomp; k++) nact += (mask >> k) & 1u;
      BlastCall(SpmmTuneCollect(c));
      // timed: interior rows with all 3 components active (the same work for every candidate)
      const int timed =
          f->spmm_tune < kSpmmNCand && ncomp == 3 && mask == 7u && rows == BLAST_ROWS_INTERIOR;
      const SpmmCand *k = &kSpmmCand[timed ? f->spmm_tune : f->spmm_cand];
      const SpmmKernel k_spmm = ncomp == 1   ? SpmmPick<1, false>(k)
                                : ncomp == 2 ? SpmmPick<2, true>(k)
                                             : SpmmPick<3, true>(k);
      if (timed) BlastCallCuda(cudaEventRecord(f->ev_s0, c->stream));
      k_spmm<<<(int)Blocks((size_t)(t1 - t0), k->threads), k->threads, 0, c->stream>>>(
          t0, t1, f->sell_row, f->sell_len, f->sell_off, f->sell_col, f->sell_val, mask, st, xs, y);
      BlastCheckKernel(c->sync, "k_spmm");
      if (timed) {
        BlastCallCuda(cudaEventRecord(f->ev_s1, c->stream));
        f->spmm_pending = 1;
      }
      // bytes and flops of the rows (padding not counted), by the owned rows' average
      const int ni = c->hd.mv_ninterior, nrows = rows == BLAST_ROWS_ALL        ? c->dd.nown
                                                 : rows == BLAST_ROWS_INTERIOR ? ni
                                                                               : c->dd.nown - ni;
      const double nnz = (double)(c->hd.full.rowptr[c->dd.nown] - c->hd.full.rowptr[0]) * nrows /
                         (c->dd.nown ? c->dd.nown : 1);
      ProfEnd(c, P_SPMV, 12.0 * nnz + 16.0 * nrows * nact, 2.0 * nnz * nact);
    }
    nvtxRangePop();
    return 0;
  }
  const int ni = (int)f->mv_int.nrows, nb = (int)f->mv_bnd.nrows;  // < h1_nown
  for (int k = 0; k < ncomp; k++) {  // cuSPARSE: one SpMV per component
    if (!((mask >> k) & 1u)) continue;
    if (rows != BLAST_ROWS_BOUNDARY && ni) {
      BlastCall(SpMV(c, &f->mv_int, f->vx_int, x + k * st, f->vy_int, f->y_perm));
      k_scatter<<<(int)Blocks(ni, 256), 256, 0, c->stream>>>(ni, f->mv_rows, f->y_perm, y + k * st);
      BlastCheckKernel(c->sync, "k_scatter");
    }
    if (rows != BLAST_ROWS_INTERIOR && nb) {
      BlastCall(SpMV(c, &f->mv_bnd, f->vx_bnd, x + k * st, f->vy_bnd, f->y_perm + ni));
      k_scatter<<<(int)Blocks(nb, 256), 256, 0, c->stream>>>(nb, f->mv_rows + ni, f->y_perm + ni,
                                                             y + k * st);
      BlastCheckKernel(c->sync, "k_scatter");
    }
  }
  nvtxRangePop();
  return 0;
}

extern "C" int BlastCudaJacobi(void *ctx, int ncomp, unsigned mask, const double *r, double *z) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int n = c->dd.nown;
  if (!n) return 0;
  ProfBegin(c);
  k_jacobi_multi<<<GridMulti(n, ncomp), 256, 0, c->stream>>>(n, mask, (size_t)c->dd.next,
                                                             c->mv_dinv, r, z);
  BlastCheckKernel(c->sync, "k_jacobi_multi");
  ProfEnd(c, P_VEC, 24.0 * n * ncomp, (double)n * ncomp);
  return 0;
}

extern "C" int BlastCudaZeroEssential(void *ctx, int ncomp, unsigned mask, double *y) {
  CudaCtx *c = (CudaCtx *)ctx;
  Off4 off = {{0, 0, 0, 0}};
  int maxn = 0;
  for (int k = 0; k <= ncomp; k++) off.v[k] = c->ess_off[k];
  for (int k = 0; k < ncomp; k++)
    maxn = maxn > off.v[k + 1] - off.v[k] ? maxn : off.v[k + 1] - off.v[k];
  if (!maxn) return 0;
  k_zero_multi<<<GridMulti(maxn, ncomp), 256, 0, c->stream>>>(mask, (size_t)c->dd.next, off,
                                                              c->ess_idx, y);
  BlastCheckKernel(c->sync, "k_zero_multi");
  return 0;
}

extern "C" int BlastCudaAxpbyMulti(void *ctx, int ncomp, unsigned mask, const double *a,
                                   const double *x, const double *b, double *y) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int n = c->dd.nown;
  if (!n) return 0;
  Coef3 ca = {{0, 0, 0}}, cb = {{0, 0, 0}};
  for (int k = 0; k < ncomp; k++) ca.v[k] = a[k], cb.v[k] = b[k];
  ProfBegin(c);
  k_axpby_multi<<<GridMulti(n, ncomp), 256, 0, c->stream>>>(n, mask, (size_t)c->dd.next, ca, x, cb,
                                                            y);
  BlastCheckKernel(c->sync, "k_axpby_multi");
  ProfEnd(c, P_VEC, 24.0 * n * ncomp, 3.0 * n * ncomp);
  return 0;
}

// The block pairs of k_dot_dd_multi / k_cg_update_multi (stride = nslots = kDotBlocks) or
// of the partial-assembly gather with the dot (mdot_part) back on the host, combined per
// active component in slot order and rounded once.
int DotCombine(CudaCtx *c, const double *part, int ncomp, unsigned mask, int stride, int nslots,
               double *result) {
  if (ncomp > 0 && nslots > 0) {
    const size_t len = 2 * ((size_t)(ncomp - 1) * stride + nslots);
    BlastCallCuda(cudaMemcpyAsync(c->dot_host, part, len * sizeof(double), cudaMemcpyDeviceToHost,
                                  c->stream));
    BlastCallCuda(cudaStreamSynchronize(c->stream));
  }
  for (int k = 0; k < ncomp; k++) {
    BlastDD acc = {0.0, 0.0};
    if ((mask >> k) & 1u) acc = BlastDDSumPairs(&c->dot_host[2 * (size_t)k * stride], nslots);
    result[2 * k] = acc.hi, result[2 * k + 1] = acc.lo;
  }
  return 0;
}

// A dot's block pairs (DotSlots) folded on the device into one pair per active component
// (k_dot_fold, the tree the resident PCG's scalar kernels take, kernels/pcg.cuh), then on
// the host into result.
int DotFoldCombine(CudaCtx *c, const DotSlots *sl, int ncomp, unsigned mask, double *result) {
  if (ncomp <= 0) return 0;
  BlastCall(DotFold(c, sl, ncomp, mask, c->dot_pair));
  return DotCombine(c, c->dot_pair, ncomp, mask, 1, 1, result);
}

int DotFold(CudaCtx *c, const DotSlots *sl, int ncomp, unsigned mask, double *pairs) {
  LaunchDep(c, k_dot_fold, dim3(ncomp), dim3(kDotThreads), 0, sl->part, sl->stride, sl->nslots,
            mask, pairs);
  BlastCheckKernel(c->sync, "k_dot_fold");
  return 0;
}

// The dots (x_c, y_c) of the active components as block pairs in dot_part.
int DotMultiSlots(CudaCtx *c, int ncomp, unsigned mask, const double *x, const double *y,
                  DotSlots *sl) {
  k_dot_dd_multi<<<dim3(kDotBlocks, ncomp), kDotThreads, 0, c->stream>>>(
      c->dd.nown, mask, (size_t)c->dd.next, x, y, c->dot_part);
  BlastCheckKernel(c->sync, "k_dot_dd_multi");
  sl->part = c->dot_part, sl->stride = kDotBlocks, sl->nslots = kDotBlocks;
  return 0;
}

extern "C" int BlastCudaDotMulti(void *ctx, int ncomp, unsigned mask, const double *x,
                                 const double *y, double *result) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int n = c->dd.nown;
  DotSlots sl;
  ProfBegin(c);
  BlastCall(DotMultiSlots(c, ncomp, mask, x, y, &sl));
  BlastCall(DotFoldCombine(c, &sl, ncomp, mask, result));
  ProfEnd(c, P_DOT, 16.0 * n * ncomp, 2.0 * n * ncomp);
  return 0;
}

// mass.mult_dot: the mode's product with the dot's block pairs (the partial-assembly
// gather of k_pa_mass3 / k_pa_mass3l takes the dot itself, mode_partial.cu; elsewhere
// MassMultThenDot), folded and combined after the BOUNDARY (or ALL) call.
extern "C" int BlastCudaMassMultDot(void *ctx, int rows, int ncomp, unsigned mask, const double *x,
                                    double *y, double *result) {
  CudaCtx *c = (CudaCtx *)ctx;
  DotSlots sl;
  BlastCall(c->mode->mass_mult_dot(c, rows, ncomp, mask, x, y, &sl));
  if (rows == BLAST_ROWS_INTERIOR) return 0;
  return DotFoldCombine(c, &sl, ncomp, mask, result);
}

int MassMultThenDot(CudaCtx *c, int rows, int ncomp, unsigned mask, const double *x, double *y,
                    DotSlots *sl) {
  BlastCall(c->mode->mass_mult(c, rows, ncomp, mask, x, y));
  if (rows == BLAST_ROWS_INTERIOR) return 0;
  return DotMultiSlots(c, ncomp, mask, x, y, sl);
}

extern "C" int BlastCudaCgUpdate(void *ctx, int ncomp, unsigned mask, const double *a,
                                 const double *Ad, double *r, double *z, double *result) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int n = c->dd.nown;
  Coef3 ca = {{0, 0, 0}};
  int nact = 0;
  for (int k = 0; k < ncomp; k++) ca.v[k] = a[k], nact += (mask >> k) & 1u;
  ProfBegin(c);
  k_cg_update_multi<<<dim3(kDotBlocks, ncomp), kDotThreads, 0, c->stream>>>(
      n, mask, (size_t)c->dd.next, ca, Ad, c->mv_dinv, r, z, c->dot_part);
  BlastCheckKernel(c->sync, "k_cg_update_multi");
  const DotSlots sl = {c->dot_part, kDotBlocks, kDotBlocks};
  BlastCall(DotFoldCombine(c, &sl, ncomp, mask, result));
  // read Ad, r and D^{-1} (per component), write r, z
  ProfEnd(c, P_CGUP, 40.0 * n * nact, 6.0 * n * nact);
  return 0;
}

extern "C" int BlastCudaCgAdvance(void *ctx, int ncomp, unsigned xmask, unsigned dmask,
                                  const double *a, const double *b, const double *z, double *d,
                                  double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int n = c->dd.nown;
  if (!n || !xmask) return 0;
  Coef3 ca = {{0, 0, 0}}, cb = {{0, 0, 0}};
  int nx = 0, nd = 0;
  for (int k = 0; k < ncomp; k++) {
    ca.v[k] = a[k], cb.v[k] = b[k];
    nx += (xmask >> k) & 1u, nd += (xmask >> k) & (dmask >> k) & 1u;
  }
  ProfBegin(c);
  k_cg_advance_multi<<<GridMulti(n, ncomp), 256, 0, c->stream>>>(
      n, xmask, dmask, (size_t)c->dd.next, ca, cb, z, d, x);
  BlastCheckKernel(c->sync, "k_cg_advance_multi");
  // read d and x, write x; and where d is updated, read z and write d
  ProfEnd(c, P_CGUP, 24.0 * n * nx + 16.0 * n * nd, 2.0 * n * nx + 3.0 * n * nd);
  return 0;
}
