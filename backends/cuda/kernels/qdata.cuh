// Kernels 1-6 of the BLAST GPU paper: quadrature data per point, and the block minima
// of the dt estimate.
// Kernel bodies only: launched from backends/cuda/ops_zone.cu; a kernel is defined in exactly one
// translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_QDATA_CUH
#define BLAST_GPU_KERNELS_QDATA_CUH

#include <limits.h>
#include <math.h>

#include "context.h"
#include "dt_reduce.cuh"
#include "problems/problems.h"
#include "qpoint.h"

// The quadrature kernel's arguments.
typedef struct {
  DevData d;
  const double *x, *v, *e;
  QConfig cfg;
  double *blk_dt, *blk_det;
  int *blk_zone;
} QArgs;

// Kernels 1-6: one thread per point (tpz threads per zone, zpb zones per block) computes J,
// the velocity gradient, the stress and the dt estimate, and stores S = w |J| sigma J^-T in
// d.S. The constant data it reads per point are laid out point-fastest (Gt, L2Bt, J0inv),
// so that a warp's loads are coalesced. ND, NE: the H1 nodes and L2 functions per zone
// known at compile time (the compiler unrolls the loops over them; the specialisations of
// ops_zone.cu's QSpecKernel), or 0: read from d at run time. The same operations in the
// same order either way: the same bits. MIX: a mesh of triangles and quadrilaterals, each
// zone reading its slot's tables (DevSlot); meshes of one type run MIX = false, whose code
// has no slot arithmetic at all (the kernel's register use and schedule stay theirs).
template <int DIM, int MAXREG, int ND = 0, int NE = 0, bool MIX = false>
__global__ void __maxnreg__(MAXREG) k_qdata_force(QArgs p) {
  extern __shared__ double sm[];
  const DevData &d = p.d;
  const int D2 = DIM * DIM, nd = ND > 0 ? ND : d.nd, ne = NE > 0 ? NE : d.ne, nqp = d.nqp;
  const int rows = ND > 0 ? DIM * ND : d.rows, tpz = p.cfg.tpz;
  const int zl = threadIdx.x / tpz, t = threadIdx.x % tpz;
  const int z = blockIdx.x * p.cfg.zpb + zl;
  const bool active = zl < p.cfg.zpb && z < d.nz;
  const int per_zone = QZoneDoubles(rows, ne, nqp);
  double *xz = sm + (size_t)zl * per_zone, *vz = xz + rows, *ez = vz + rows, *W = ez + ne;
  if (active) {
    for (int i = t; i < rows; i += tpz) {
      const int c = i / nd, a = i % nd, l = d.edof[(size_t)z * nd + a];
      xz[i] = p.x[(size_t)c * d.nl + l];
      vz[i] = p.v[(size_t)c * d.nl + l];
    }
    for (int i = t; i < ne; i += tpz) ez[i] = p.e[(size_t)z * ne + i];
  }
  __syncthreads();
  double dtmin = HUGE_VAL, tdet = 0.0;
  int tz = -1;
  if (active) {
    const size_t sl = MIX ? DevSlot(d, z) : 0;  // MIX: the zone's tables (else no code)
    for (int q = t; q < nqp; q += tpz) {
      double J[9] = {0}, Gv[9] = {0};
      for (int a = 0; a < nd; a++) {  // each entry sums over the nodes in ascending order
        const double *Ga = &d.Gt[(MIX ? sl * nqp * nd * DIM : 0) + (size_t)a * DIM * nqp + q];
#pragma unroll
        for (int c = 0; c < DIM; c++) {
          const double xa = xz[c * nd + a], va = vz[c * nd + a];
#pragma unroll
          for (int g = 0; g < DIM; g++) {
            J[c + DIM * g] += xa * Ga[g * nqp];
            Gv[c + DIM * g] += va * Ga[g * nqp];
          }
        }
      }
      double eq = 0.0;
      for (int i = 0; i < ne; i++)
        eq += ez[i] * d.L2Bt[(MIX ? sl * nqp * ne : 0) + (size_t)i * nqp + q];
      const size_t zq = (size_t)z * nqp + q;
      double J0inv[9];
#pragma unroll
      for (int i = 0; i < D2; i++) J0inv[i] = d.J0inv[((size_t)z * D2 + i) * nqp + q];
      double dtq;
      const double det =
          BlastPointStress(DIM, &d.qpar, &d.mats[d.zone_mat[z]], J, Gv, J0inv, d.R0[zq],
                           d.qw[(MIX ? sl * nqp : 0) + q], eq, &d.S[zq * SStride(DIM)], &dtq);
      BlastQPointReport(z, det, dtq, &dtmin, &tz, &tdet);  // one zone per thread
      if (d.tg_source) {  // the point's source weight, summed per basis function below
        double X[3] = {0, 0, 0};
        for (int c = 0; c < DIM; c++)
          for (int a = 0; a < nd; a++)
            X[c] += xz[c * nd + a] * d.B[(MIX ? sl * nqp * nd : 0) + (size_t)q * nd + a];
        W[q] = d.qw[(MIX ? sl * nqp : 0) + q] * det * BlastTaylorGreenQ(X);
      }
    }
  }
  __syncthreads();
  if (d.tg_source && active) {
    const size_t sl = MIX ? DevSlot(d, z) : 0;
    for (int j = t; j < ne; j += tpz) {
      double s = 0.0;
      for (int q = 0; q < nqp; q++)
        s += W[q] * d.L2B[(MIX ? sl * nqp * ne : 0) + (size_t)q * ne + j];
      d.tg[(size_t)z * ne + j] = s;
    }
  }
  // Block minimum of the dt estimate and the lowest tangled zone (reuses shared memory).
  __syncthreads();
  double *rd = sm, *rdet = sm + blockDim.x;
  int *rz = (int *)(sm + 2 * blockDim.x);
  rd[threadIdx.x] = dtmin, rdet[threadIdx.x] = tdet, rz[threadIdx.x] = tz < 0 ? INT_MAX : tz;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      if (rd[threadIdx.x + s] < rd[threadIdx.x]) rd[threadIdx.x] = rd[threadIdx.x + s];
      // The lowest tangled zone and its smallest det, as the CPU (a zone's points may be on
      // several threads of the block; the det is compared only for a real tie).
      const int zs = rz[threadIdx.x + s];
      if (zs < rz[threadIdx.x] || (zs == rz[threadIdx.x] && zs != INT_MAX &&
                                   BlastDetWorse(rdet[threadIdx.x + s], rdet[threadIdx.x])))
        rz[threadIdx.x] = zs, rdet[threadIdx.x] = rdet[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    p.blk_dt[blockIdx.x] = rd[0], p.blk_zone[blockIdx.x] = rz[0], p.blk_det[blockIdx.x] = rdet[0];
}

// Reduce per-block minima to one (single block).
__global__ void k_reduce_min(int n, const double *dt, const int *zone, const double *det,
                             double *out) {
  __shared__ double sd[256], sdet[256];
  __shared__ int sz[256];
  double m = HUGE_VAL, dd = 0.0;
  int zz = INT_MAX;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (dt[i] < m) m = dt[i];
    if (zone[i] < zz) zz = zone[i], dd = det[i];  // a zone is in one block: no ties
  }
  BlastBlockMinReduce(m, zz, dd, sd, sz, sdet);
  if (threadIdx.x == 0) out[0] = sd[0], out[1] = sdet[0], out[2] = (double)sz[0];
}

#endif  // BLAST_GPU_KERNELS_QDATA_CUH
