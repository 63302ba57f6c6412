/// @file ops.h
/// @brief The CUDA backend's implementations of the backend table's entries (C and CUDA
/// code): defined in backends/cuda/setup.cu and gpu/ops_*.cu, collected into blast_backend_cuda by
/// backends/cuda/backend_cuda_table.c. Internal to gpu/: callers use the table.
#ifndef BLAST_GPU_OPS_H
#define BLAST_GPU_OPS_H

#include <stddef.h>

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

// ctx (setup.cu)
int BlastCudaCreate(const BlastHydroData *hd, void **ctx);
int BlastCudaDestroy(void **ctx);
int BlastCudaRebuild(void *ctx, const BlastHydroData *hd);
int BlastCudaSync(void *ctx);

// vec (ops_vec.cu)
int BlastCudaAlloc(void *ctx, size_t n, double **p);
int BlastCudaFree(void *ctx, double **p);
int BlastCudaHostAlloc(void *ctx, size_t n, double **p);
int BlastCudaHostFree(void *ctx, double **p);
int BlastCudaToHost(void *ctx, size_t n, const double *src, double *dst);
int BlastCudaFromHost(void *ctx, size_t n, const double *src, double *dst);
int BlastCudaCopy(void *ctx, size_t n, const double *src, double *dst);
int BlastCudaSet(void *ctx, size_t n, double a, double *x);
int BlastCudaAxpby(void *ctx, size_t n, double a, const double *x, double b, double *y);
int BlastCudaWaxpby(void *ctx, size_t n, double a, const double *x, double b, const double *y,
                    double *w);
int BlastCudaDot(void *ctx, size_t n, const double *x, const double *y, double *result);

// zone (ops_zone.cu)
int BlastCudaQDataForce(void *ctx, const double *x, const double *v, const double *e,
                        BlastQDataResult *res);
int BlastCudaMomentumRhs(void *ctx, double *rhs);
int BlastCudaEnergyRate(void *ctx, const double *v, double *de);
int BlastCudaEnergies(void *ctx, const double *v, const double *e, double dd[4]);

// mass (ops_mass.cu)
int BlastCudaMassMult(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y);
int BlastCudaJacobi(void *ctx, int ncomp, unsigned mask, const double *r, double *z);
int BlastCudaZeroEssential(void *ctx, int ncomp, unsigned mask, double *y);
int BlastCudaProject(void *ctx, int ncomp, double *y);  // ops_project.cu
int BlastCudaWallNormals(void *ctx, int ncomp, const double *x, const double *v,
                         double *a0);  // ops_project.cu
int BlastCudaAxpbyMulti(void *ctx, int ncomp, unsigned mask, const double *a, const double *x,
                        const double *b, double *y);
int BlastCudaDotMulti(void *ctx, int ncomp, unsigned mask, const double *x, const double *y,
                      double *result);
int BlastCudaMassMultDot(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y,
                         double *result);
int BlastCudaCgUpdate(void *ctx, int ncomp, unsigned mask, const double *a, const double *Ad,
                      double *r, double *z, double *result);
int BlastCudaCgAdvance(void *ctx, int ncomp, unsigned xmask, unsigned dmask, const double *a,
                       const double *b, const double *z, double *d, double *x);
// the resident lockstep PCG (ops_pcg.cu)
int BlastCudaPcg(void *ctx, int ncomp, double tol, int max_iter, double *b, double *x,
                 double *const work[4], BlastPcgState *s, int *resident);

// halo (ops_halo.cu)
int BlastCudaHaloPack(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *x,
                      double *buf);
int BlastCudaHaloUnpack(void *ctx, int which, int reverse, int ncomp, size_t stride,
                        const double *buf, double *x);
int BlastCudaHaloUnpackDD(void *ctx, int which, int ndd, size_t stride, const double *buf,
                          double *x);
int BlastCudaHaloPeerExport(void *ctx, size_t half, unsigned char *blob, int *ok);
int BlastCudaHaloPeerImport(void *ctx, const BlastHaloPeers *p, int *ok);
int BlastCudaHaloPeerSend(void *ctx, int which, int reverse, int ncomp, size_t stride,
                          const double *x, int parity);
int BlastCudaHaloPeerSent(void *ctx);
int BlastCudaHaloPeerRecv(void *ctx, int which, int reverse, int dd, int ncomp, size_t stride,
                          int parity, double *x);
int BlastCudaHaloNcclProbe(void *ctx, unsigned char *id, char *bus, int *ok);
int BlastCudaHaloNcclInit(void *ctx, const BlastHaloNccl *p, int *ok);
int BlastCudaHaloNcclBegin(void *ctx, int which, int reverse, int ncomp, size_t stride,
                           const double *x);
int BlastCudaHaloNcclEnd(void *ctx, int which, int reverse, int dd, int ncomp, size_t stride,
                         double *x);

// split (ops_split.cu)
int BlastCudaSplitQDataBegin(void *ctx, int ndev, const double *x, const double *v, const double *e,
                             double *host_x, double *host_v, double *host_e);
int BlastCudaSplitQDataEnd(void *ctx, BlastQDataResult *res, double *seconds, int *tuning);
int BlastCudaSplitGather(void *ctx, int z0, int z1, const double *h1, double *host);
int BlastCudaSplitMomentumRhs(void *ctx, int ndev, const double *host_rows, double *rhs);
int BlastCudaSplitEnergyRate(void *ctx, int ndev, const double *host_b, const double *v,
                             double *de);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_GPU_OPS_H
