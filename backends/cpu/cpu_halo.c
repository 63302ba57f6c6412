// Halo packing of the CPU backend (cpu_ctx.h): index lists of BlastHydroData.halo.
#include "blast.h"
#include "cpu_ctx.h"
#include "ddsum.h"

int BlastCpuHaloPack(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *x,
                     double *buf) {
  const BlastHaloIndex *hi = &((CpuCtx *)ctx)->hd.halo[which];
  const int n = reverse ? hi->nrecv : hi->nsend;
  const int *idx = reverse ? hi->recv_idx : hi->send_idx;
  for (int c = 0; c < ncomp; c++)
    for (int i = 0; i < n; i++) buf[(size_t)c * n + i] = x[c * stride + idx[i]];
  return 0;
}

int BlastCpuHaloUnpackDD(void *ctx, int which, int ndd, size_t stride, const double *buf,
                         double *x) {
  const BlastHaloIndex *hi = &((CpuCtx *)ctx)->hd.halo[which];
  const size_t ns = (size_t)hi->nsend;
  for (int c = 0; c < ndd; c++)
    for (size_t i = 0; i < ns; i++) {
      double *xh = &x[c * stride + hi->send_idx[i]], *xl = &x[(ndd + c) * stride + hi->send_idx[i]];
      BlastDD acc = {*xh, *xl};
      BlastDDAddDD(&acc, buf[c * ns + i], buf[(ndd + c) * ns + i]);
      BlastDDNormalize(&acc);
      *xh = acc.hi, *xl = acc.lo;
    }
  return 0;
}

int BlastCpuHaloUnpack(void *ctx, int which, int reverse, int ncomp, size_t stride,
                       const double *buf, double *x) {
  const BlastHaloIndex *hi = &((CpuCtx *)ctx)->hd.halo[which];
  if (!reverse) {
    for (int c = 0; c < ncomp; c++)
      for (int i = 0; i < hi->nrecv; i++)
        x[c * stride + hi->recv_idx[i]] = buf[(size_t)c * hi->nrecv + i];
  } else {  // in list order: an owned dof shared with several ranks adds in rank order
    for (int c = 0; c < ncomp; c++)
      for (int i = 0; i < hi->nsend; i++)
        x[c * stride + hi->send_idx[i]] += buf[(size_t)c * hi->nsend + i];
  }
  return 0;
}

// The CPU backend's messages are in host memory already: it has no device-to-device
// transport (halo.peer_export declines, and the front end keeps the host buffers).
int BlastCpuHaloPeerExport(void *ctx, size_t half, unsigned char *blob, int *ok) {
  (void)ctx, (void)half, (void)blob;
  *ok = 0;
  return 0;
}

int BlastCpuHaloPeerImport(void *ctx, const BlastHaloPeers *p, int *ok) {
  (void)ctx, (void)p;
  *ok = 0;
  return 0;
}

int BlastCpuHaloPeerSend(void *ctx, int which, int reverse, int ncomp, size_t stride,
                         const double *x, int parity) {
  (void)ctx, (void)which, (void)reverse, (void)ncomp, (void)stride, (void)x, (void)parity;
  BlastError(BLAST_ERR_UNSUPPORTED,
             "halo.peer_send: the CPU backend has no device-to-device transport (its "
             "peer_export declined)");
}

int BlastCpuHaloPeerSent(void *ctx) {
  (void)ctx;
  BlastError(BLAST_ERR_UNSUPPORTED,
             "halo.peer_sent: the CPU backend has no device-to-device transport (its "
             "peer_export declined)");
}

int BlastCpuHaloPeerRecv(void *ctx, int which, int reverse, int dd, int ncomp, size_t stride,
                         int parity, double *x) {
  (void)ctx, (void)which, (void)reverse, (void)dd, (void)ncomp, (void)stride, (void)parity, (void)x;
  BlastError(BLAST_ERR_UNSUPPORTED,
             "halo.peer_recv: the CPU backend has no device-to-device transport (its "
             "peer_export declined)");
}

// Nor has it the NCCL transport: nccl_probe declines, and the rest refuse.
int BlastCpuHaloNcclProbe(void *ctx, unsigned char *id, char *bus, int *ok) {
  (void)ctx, (void)id, (void)bus;
  *ok = 0;
  return 0;
}

int BlastCpuHaloNcclInit(void *ctx, const BlastHaloNccl *p, int *ok) {
  (void)ctx, (void)p;
  *ok = 0;
  return 0;
}

int BlastCpuHaloNcclBegin(void *ctx, int which, int reverse, int ncomp, size_t stride,
                          const double *x) {
  (void)ctx, (void)which, (void)reverse, (void)ncomp, (void)stride, (void)x;
  BlastError(BLAST_ERR_UNSUPPORTED,
             "halo.nccl_begin: the CPU backend has no NCCL transport (its nccl_probe declined)");
}

int BlastCpuHaloNcclEnd(void *ctx, int which, int reverse, int dd, int ncomp, size_t stride,
                        double *x) {
  (void)ctx, (void)which, (void)reverse, (void)dd, (void)ncomp, (void)stride, (void)x;
  BlastError(BLAST_ERR_UNSUPPORTED,
             "halo.nccl_end: the CPU backend has no NCCL transport (its nccl_probe declined)");
}
