// The wall projection of the coupled momentum PCG (mass.project): y <- (I - sum n n^T) y
// at the nodes with wall normals, one thread per node, with the host's arithmetic
// (BlastProjectNode, boundary.h; nvcc --fmad=false keeps it bitwise equal to the CPU's).
#include "boundary.h"
#include "context.h"

__global__ void k_project(int n, int ncomp, size_t st, const int *idx, const double *nrm,
                          double *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    double v[3] = {0.0, 0.0, 0.0};
    const size_t l = (size_t)idx[i];
    for (int c = 0; c < ncomp; c++) v[c] = y[c * st + l];
    BlastProjectNode(ncomp, nrm + 9 * (size_t)i, v);
    for (int c = 0; c < ncomp; c++) y[c * st + l] = v[c];
  }
}

// The node list and normals on the device (create; freed by BlastCudaProjectFree).
int BlastCudaProjectSetup(CudaCtx *c, const BlastHydroData *hd) {
  c->nproj = hd->nproj;
  BlastCall(DevUpload(hd->proj_idx, (size_t)hd->nproj, &c->proj_idx));
  BlastCall(DevUpload(hd->proj_normal, 9 * (size_t)hd->nproj, &c->proj_normal));
  return 0;
}

int BlastCudaProjectFree(CudaCtx *c) {
  BlastCallCuda(cudaFree(c->proj_idx));
  BlastCallCuda(cudaFree(c->proj_normal));
  c->proj_idx = NULL, c->proj_normal = NULL;
  return 0;
}

extern "C" int BlastCudaProject(void *ctx, int ncomp, double *y) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int n = c->nproj;
  if (!n) return 0;
  ProfBegin(c);
  k_project<<<(int)Blocks((size_t)n, 128), 128, 0, c->stream>>>(n, ncomp, (size_t)c->dd.next,
                                                                c->proj_idx, c->proj_normal, y);
  BlastCheckKernel(c->sync, "k_project");
  ProfEnd(c, P_VEC, (16.0 + 2 * 8.0 * ncomp + 72.0) * n, 4.0 * ncomp * ncomp * n);
  return 0;
}
