// Data the CUDA backend returns for the application to print (app/report.c): the
// per-kernel profile (BLAST_GPU_PROFILE=1, BlastGpuOptions.profile) with its modeled
// bytes and flops, and the tuning decisions.
#include <string.h>

#include "context.h"

static const char *const kProfName[P_NPROF] = {
    "k_qdata_force (1-6)", "k_force_gemm (7)", "k_force_ones (8)", "k_gather_dd (assembly)",
    "k_force_t (10)",      "k_me_apply (11)",  "mass SpMV (9)",    "k_dot_dd",
    "vector ops",          "halo pack/unpack", "cg_update+advance"};

int ProfileCreate(CudaCtx *c) {
  c->prof.on = c->opt.profile > 0;
  if (c->prof.on) {
    BlastCallCuda(cudaEventCreate(&c->prof.e0));
    BlastCallCuda(cudaEventCreate(&c->prof.e1));
  }
  return 0;
}

int ProfileDestroy(CudaCtx *c) {
  if (c->prof.on) {
    BlastCallCuda(cudaEventDestroy(c->prof.e0));
    BlastCallCuda(cudaEventDestroy(c->prof.e1));
  }
  return 0;
}

// Modeled bytes and flops of the full mode's quadrature kernel ([0]) and force GEMM ([1])
// on nz zones (profile): the zone data each must read and write once, and the products and
// sums of J and the velocity gradient, the per-point physics (~400), A and F = A B^T.
void FullQDataModel(const CudaCtx *c, int nz, double bytes[2], double flops[2]) {
  const DevData *dd = &c->dd;
  const double D2 = (double)dd->dim * dd->dim, rows = dd->rows, ne = dd->ne, nqp = dd->nqp,
               nd = dd->nd;
  bytes[0] = nz * (8.0 * (2 * rows + ne + nqp * (1 + 2 * D2)) + 4.0 * nd);  // x, v, e, R0, J0^-1, S
  bytes[1] = nz * 8.0 * (nqp * D2 + rows * ne);                             // S, F
  flops[0] = nz * nqp * (4.0 * nd * D2 + 2.0 * ne + 400.0);
  flops[1] = nz * nqp * (2.0 * rows * dd->dim + 2.0 * rows * ne);
}

// The partial mode's (k_pa_qdata3/k_pa_qdata; [1]: the reduction only): x, v, x0
// gathered, e, R0, rows and b (or S) written; 9 gradients by sum factorisation, the
// physics, 3 transposed gradients and L2 B^T.
void PartialQDataModel(const CudaCtx *c, int nz, double bytes[2], double flops[2]) {
  const DevData *dd = &c->dd;
  const double D2 = (double)dd->dim * dd->dim, rows = dd->rows, ne = dd->ne, nqp = dd->nqp,
               nd = dd->nd;
  const double D = dd->D, Q = dd->Q;
  bytes[0] =
      nz * (8.0 * (3 * rows + ne + nqp + rows + (dd->keep_stress ? nqp * D2 : ne)) + 4.0 * nd);
  bytes[1] = 0.0;
  flops[0] = nz * (12.0 * dd->dim * dd->dim * nqp * (D + Q) + nqp * 400.0);
  flops[1] = 0.0;
}

// A quadrature update that took ms (ev0 to ev1), split at ev_mid into the quadrature
// kernel's and the GEMM's parts (the GEMM's includes k_reduce_min).
int ProfileQData(CudaCtx *c, float ms) {
  Profile *p = &c->prof;
  double bytes[2], flops[2];
  float ms_q = 0.0f;
  BlastCallCuda(cudaEventElapsedTime(&ms_q, c->ev0, c->ev_mid));
  c->mode->qdata_model(c, c->q_ndev, bytes, flops);
  const double part[2] = {ms_q, ms - ms_q};
  for (int k = 0; k < 2; k++) {
    p->ms[P_QDATA + k] += part[k], p->calls[P_QDATA + k]++;
    p->bytes[P_QDATA + k] += bytes[k], p->flops[P_QDATA + k] += flops[k];
  }
  return 0;
}

extern "C" void BlastCudaGetProfile(const void *ctx, BlastGpuProfile *prof) {
  memset(prof, 0, sizeof *prof);
  const CudaCtx *c = (const CudaCtx *)ctx;
  if (!c) return;
  const Profile *p = &c->prof;
  prof->on = p->on;
  prof->n = P_NPROF;
  for (int k = 0; k < P_NPROF; k++) {
    prof->kernel[k].name = kProfName[k];
    prof->kernel[k].calls = p->calls[k];
    prof->kernel[k].ms = p->ms[k];
    prof->kernel[k].bytes = p->bytes[k];
    prof->kernel[k].flops = p->flops[k];
  }
  prof->mem_in_use = c->mem_in_use;
  prof->mem_estimate = c->mem_estimate;
}

extern "C" void BlastCudaGetAutotune(const void *ctx, BlastGpuAutotune *tune) {
  memset(tune, 0, sizeof *tune);
  if (ctx) *tune = ((const CudaCtx *)ctx)->tuned;
}
