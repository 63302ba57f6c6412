// The wall projection of the coupled momentum PCG (mass.project): y <- (I - sum n n^T) y
// at the nodes with wall normals, one thread per node, with the host's arithmetic
// (BlastProjectNode, boundary.h; nvcc --fmad=false keeps it bitwise equal to the CPU's);
// and those normals from the current positions (mass.wall_normals, BlastWallNodeNormals).
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

__global__ void k_wall_normals(int n, int dim, int np, size_t st, const int *idx, const int *off,
                               const int *slot, const int *widx, const double *w, const double *x,
                               const double *v, double *nrm, double *a0) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int l = idx[i];
    double a[3];
    BlastWallNodeNormals(dim, np, off[i], off[i + 1], slot, widx, w, x, v, st, l,
                         nrm + 9 * (size_t)i, a);
    for (int c = 0; c < dim; c++) a0[c * st + (size_t)l] = a[c];
  }
}

// The node list, normals and face records on the device (create; freed by
// BlastCudaProjectFree).
int BlastCudaProjectSetup(CudaCtx *c, const BlastHydroData *hd) {
  c->nproj = hd->nproj;
  BlastCall(DevUpload(hd->proj_idx, (size_t)hd->nproj, &c->proj_idx));
  BlastCall(DevUpload(hd->proj_normal, 9 * (size_t)hd->nproj, &c->proj_normal));
  c->wall_np = hd->wall_np;
  const size_t nrec = hd->nproj && hd->wall_off ? (size_t)hd->wall_off[hd->nproj] : 0;
  const size_t nst = nrec * (size_t)(hd->dim > 1 ? hd->dim - 1 : 0) * (size_t)hd->wall_np;
  if (hd->nproj && hd->wall_off) {
    BlastCall(DevUpload(hd->wall_off, (size_t)hd->nproj + 1, &c->wall_off));
    BlastCall(DevUpload(hd->wall_slot, nrec, &c->wall_slot));
    BlastCall(DevUpload(hd->wall_idx, nst, &c->wall_idx));
    BlastCall(DevUpload(hd->wall_w, nst, &c->wall_w));
  }
  return 0;
}

int BlastCudaProjectFree(CudaCtx *c) {
  BlastCallCuda(cudaFree(c->proj_idx));
  BlastCallCuda(cudaFree(c->proj_normal));
  BlastCallCuda(cudaFree(c->wall_off));
  BlastCallCuda(cudaFree(c->wall_slot));
  BlastCallCuda(cudaFree(c->wall_idx));
  BlastCallCuda(cudaFree(c->wall_w));
  c->proj_idx = NULL, c->proj_normal = NULL;
  c->wall_off = c->wall_slot = c->wall_idx = NULL, c->wall_w = NULL;
  return 0;
}

extern "C" int BlastCudaWallNormals(void *ctx, int ncomp, const double *x, const double *v,
                                    double *a0) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int n = c->nproj;
  if (!n || !c->wall_off) return 0;
  ProfBegin(c);
  k_wall_normals<<<(int)Blocks((size_t)n, 128), 128, 0, c->stream>>>(
      n, ncomp, c->wall_np, (size_t)c->dd.next, c->proj_idx, c->wall_off, c->wall_slot, c->wall_idx,
      c->wall_w, x, v, c->proj_normal, a0);
  BlastCheckKernel(c->sync, "k_wall_normals");
  ProfEnd(c, P_VEC, (16.0 + 72.0 + 8.0 * ncomp) * n, 0.0);
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
