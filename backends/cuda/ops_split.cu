// The backend table's split group, the CPU+GPU hybrid (hydro/hybrid.h): zones [0, ndev)
// here, the rest on host threads.
#include <math.h>
#include <nvtx3/nvToolsExt.h>

#include "context.h"
#include "kernels/split.cuh"

static int StageReserve(CudaCtx *c, size_t n) {
  if (n <= c->stage_n) return 0;
  BlastCallCuda(cudaFree(c->stage));
  c->stage = NULL, c->stage_n = 0;
  BlastCallCuda(cudaMalloc((void **)&c->stage, n * sizeof(double)));
  c->stage_n = n;
  return 0;
}

// E-vectors of h1 for zones [z0, z1) into `host` (pinned), queued on the stream.
static int GatherZonesAsync(CudaCtx *c, int z0, int z1, const double *h1, double *stage, double *host) {
  const int n = z1 - z0;
  if (n <= 0) return 0;
  const size_t m = (size_t)n * c->dd.rows;
  k_gather_zones<<<GridFor(m), 256, 0, c->stream>>>(c->dd, z0, n, h1, stage);
  BlastCheckKernel(c->sync, "k_gather_zones");
  BlastCallCuda(cudaMemcpyAsync(host, stage, m * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  return 0;
}

extern "C" int BlastCudaSplitGather(void *ctx, int z0, int z1, const double *h1, double *host) {
  CudaCtx *c = (CudaCtx *)ctx;
  if (z1 <= z0) return 0;
  BlastCall(StageReserve(c, (size_t)(z1 - z0) * c->dd.rows));
  BlastCall(GatherZonesAsync(c, z0, z1, h1, c->stage, host));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  return 0;
}

extern "C" int BlastCudaSplitQDataBegin(void *ctx, int ndev, const double *x, const double *v, const double *e,
                               double *host_x, double *host_v, double *host_e) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("qdata_force (split)");
  const int nz = c->dd.nz, nh = nz - ndev;
  if (nh > 0) {  // the host zones' inputs first, so that the host can start at once
    const size_t m = (size_t)nh * c->dd.rows;
    BlastCall(StageReserve(c, 2 * m));
    BlastCall(GatherZonesAsync(c, ndev, nz, x, c->stage, host_x));
    BlastCall(GatherZonesAsync(c, ndev, nz, v, c->stage + m, host_v));
    BlastCallCuda(cudaMemcpyAsync(host_e, e + (size_t)ndev * c->dd.ne, (size_t)nh * c->dd.ne * sizeof(double),
                                  cudaMemcpyDeviceToHost, c->stream));
    BlastCallCuda(cudaEventRecord(c->ev_copy, c->stream));
  }
  c->q_ndev = 0, c->q_tuning = 0;
  if (ndev > 0) BlastCall(QDataStart(c, ndev, x, v, e));
  if (nh > 0) BlastCallCuda(cudaEventSynchronize(c->ev_copy));
  nvtxRangePop();
  return 0;
}

extern "C" int BlastCudaSplitQDataEnd(void *ctx, BlastQDataResult *res, double *seconds, int *tuning) {
  CudaCtx *c = (CudaCtx *)ctx;
  *tuning = c->q_tuning;
  if (c->q_ndev == 0) {
    res->dt_est = HUGE_VAL, res->tangled_zone = -1, res->tangled_det = 0.0;
    *seconds = 0.0;
    return 0;
  }
  return QDataFinish(c, res, seconds);
}

extern "C" int BlastCudaSplitMomentumRhs(void *ctx, int ndev, const double *host_rows, double *rhs) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("force_ones (split)");
  const int nh = c->dd.nz - ndev;
  BlastCall(c->mode->force_ones(c, ndev));
  if (nh > 0)
    BlastCallCuda(cudaMemcpyAsync(c->dd.rE + (size_t)ndev * c->dd.rows, host_rows,
                                  (size_t)nh * c->dd.rows * sizeof(double), cudaMemcpyHostToDevice, c->stream));
  BlastCall(GatherRhs(c, rhs));
  nvtxRangePop();
  return 0;
}

extern "C" int BlastCudaSplitEnergyRate(void *ctx, int ndev, const double *host_b, const double *v, double *de) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("energy_rate (split)");
  const int nh = c->dd.nz - ndev;
  BlastCall(c->mode->force_t(c, ndev, v));
  if (nh > 0)
    BlastCallCuda(cudaMemcpyAsync(c->dd.b + (size_t)ndev * c->dd.ne, host_b, (size_t)nh * c->dd.ne * sizeof(double),
                                  cudaMemcpyHostToDevice, c->stream));
  BlastCall(MeApply(c, de));
  nvtxRangePop();
  return 0;
}
