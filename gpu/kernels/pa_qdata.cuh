// Partial assembly: the quadrature-data update of a zone (solver/pa_kernels.h
// BlastPaZoneQData: J, Gv, J0, the stress, dt estimate, rows -F_z 1 and b = F_z^T v) and,
// with the stress kept, b from the stored stress (BlastPaZoneForceT).
// Kernel bodies only: launched from gpu/ops_pa.cu; a kernel is defined in exactly one
// translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_PA_QDATA_CUH
#define BLAST_GPU_KERNELS_PA_QDATA_CUH

#include <limits.h>
#include <math.h>

#include "context.h"
#include "pa_kernels.h"

enum { kPaQThreads = 128 };

typedef struct {
  DevData d;
  BlastPaBasis pb;  // device pointers
  int n;            // zones [0, n)
  const double *x, *v, *e;
  double *ws;  // per-thread scratch of wsz doubles
  int wsz;
  double *blk_dt, *blk_det;
  int *blk_zone;
} PaQArgs;

// E-vector of zone z of the L-vector u (component-major, as GatherZone of the CPU backend).
__device__ __forceinline__ void PaGatherZone(const DevData &d, int z, const double *u, double *uz) {
  for (int c = 0; c < d.dim; c++)
    for (int a = 0; a < d.nd; a++) uz[c * d.nd + a] = u[(size_t)c * d.nl + d.edof[(size_t)z * d.nd + a]];
}

// A thread per zone (zones strided over the grid, each thread ascending, so that its first
// tangled zone is its lowest), then the block minimum of the dt estimate and the lowest
// tangled zone with its det, as k_qdata_force.
__global__ void __launch_bounds__(kPaQThreads) k_pa_qdata(PaQArgs p) {
  __shared__ double rd[kPaQThreads], rdet[kPaQThreads];
  __shared__ int rz[kPaQThreads];
  const DevData &d = p.d;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
  const int rows = d.rows, ne = d.ne, nqp = d.nqp, d2 = d.dim * d.dim;
  double *xz = p.ws + (size_t)tid * p.wsz, *vz = xz + rows, *x0z = vz + rows, *ez = x0z + rows;
  double *Sl = ez + ne, *kws = Sl + (size_t)nqp * d2;
  double dtmin = HUGE_VAL, tdet = 0.0;
  int tz = -1;
  for (int z = tid; z < p.n; z += nt) {
    PaGatherZone(d, z, p.x, xz);
    PaGatherZone(d, z, p.v, vz);
    PaGatherZone(d, z, d.x0, x0z);
    for (int i = 0; i < ne; i++) ez[i] = p.e[(size_t)z * ne + i];
    double *Sz = d.keep_stress ? &d.S[(size_t)z * nqp * d2] : Sl;
    BlastPaZoneQData(&p.pb, z, xz, vz, x0z, ez, &d.R0[(size_t)z * nqp], d.gamma[z], Sz,
                     &d.rE[(size_t)z * rows], d.keep_stress ? NULL : &d.b[(size_t)z * ne],
                     d.tg_source ? &d.tg[(size_t)z * ne] : NULL, kws, &dtmin, &tz, &tdet);
  }
  rd[threadIdx.x] = dtmin, rdet[threadIdx.x] = tdet, rz[threadIdx.x] = tz < 0 ? INT_MAX : tz;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      if (rd[threadIdx.x + s] < rd[threadIdx.x]) rd[threadIdx.x] = rd[threadIdx.x + s];
      if (rz[threadIdx.x + s] < rz[threadIdx.x])  // a zone is on one thread: no ties
        rz[threadIdx.x] = rz[threadIdx.x + s], rdet[threadIdx.x] = rdet[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    p.blk_dt[blockIdx.x] = rd[0], p.blk_zone[blockIdx.x] = rz[0], p.blk_det[blockIdx.x] = rdet[0];
}

// b_z = F_z^T v_z (+ source) from the kept stress, a thread per zone.
__global__ void __launch_bounds__(kPaQThreads) k_pa_force_t(PaQArgs p) {
  const DevData &d = p.d;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
  const int ne = d.ne, nqp = d.nqp, d2 = d.dim * d.dim;
  double *vz = p.ws + (size_t)tid * p.wsz, *kws = vz + d.rows;
  for (int z = tid; z < p.n; z += nt) {
    PaGatherZone(d, z, p.v, vz);
    BlastPaZoneForceT(&p.pb, &d.S[(size_t)z * nqp * d2], vz,
                      d.tg_source ? &d.tg[(size_t)z * ne] : NULL, &d.b[(size_t)z * ne], kws);
  }
}

#endif  // BLAST_GPU_KERNELS_PA_QDATA_CUH
