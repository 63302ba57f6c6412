// Kernels 8, 10, 11 of the BLAST GPU paper, the assembly and the energies.
// Kernel bodies only: launched from backends/cuda/ops_zone.cu; a kernel is defined in exactly one
// translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_ZONE_CUH
#define BLAST_GPU_KERNELS_ZONE_CUH

#include "context.h"

// rE[z][r] = -sum_j F_z[r][j]  (the same order as the CPU backend)
__global__ void k_force_ones(DevData d) {
  const size_t n = (size_t)d.nz * d.rows;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const size_t z = i / d.rows, r = i % d.rows;
    const double *F = &d.F[z * d.rows * d.ne];
    double s = 0.0;
    for (int j = 0; j < d.ne; j++) s -= F[(size_t)d.rows * j + r];
    d.rE[i] = s;
  }
}

// rhs[c*nl + l] (+ low part at (dim + c)*nl + l): each dof sums its zones in a fixed order.
__global__ void k_gather_dd(DevData d, double *rhs) {
  const size_t n = (size_t)d.nl * d.dim;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const int l = (int)(i / d.dim), c = (int)(i % d.dim);
    BlastDD s = {0.0, 0.0};
    for (int t = d.toff[l]; t < d.toff[l + 1]; t++) {
      const int eidx = d.tidx[t], z = eidx / d.nd, a = eidx % d.nd;
      BlastDDAdd(&s, d.rE[(size_t)z * d.rows + c * d.nd + a]);
    }
    BlastDDNormalize(&s);
    rhs[(size_t)c * d.nl + l] = s.hi;
    rhs[(size_t)(d.dim + c) * d.nl + l] = s.lo;
  }
}

// b[z][j] = sum_r F_z[r][j] v_z[r] (+ Taylor-Green source)
__global__ void k_force_t(DevData d, const double *v) {
  const size_t n = (size_t)d.nz * d.ne;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const size_t z = i / d.ne, j = i % d.ne;
    const double *F = &d.F[z * d.rows * d.ne + (size_t)d.rows * j];
    double s = 0.0;
    for (int r = 0; r < d.rows; r++) {
      const int c = r / d.nd, a = r % d.nd;
      s += F[r] * v[(size_t)c * d.nl + d.edof[z * d.nd + a]];
    }
    d.b[i] = d.tg_source ? s + d.tg[i] : s;
  }
}

// de[z][i] = sum_j Minv_z[i][j] b[z][j] (kernel 11), summed as the CPU backend does.
__global__ void k_me_apply(int nz, int ne, const double *minv, const double *b, double *de) {
  const size_t n = (size_t)nz * ne;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < n;
       t += (size_t)gridDim.x * blockDim.x) {
    const size_t z = t / ne, i = t % ne;
    const double *M = &minv[z * ne * ne], *bz = &b[z * ne];
    double s = 0.0;
    for (int j = 0; j < ne; j++) s += M[i + (size_t)ne * j] * bz[j];
    de[t] = s;
  }
}

// Internal and kinetic energy per zone (method spec 13.2): blocks of kEnergyThreads with
// zpb = max(1, kEnergyThreads / nqp) zones each and `lanes` threads per zone, which take
// the quadrature points in chunks of `lanes`: each computes a point's two terms into
// shared memory, then the zone's first thread adds the chunk's terms in the order of the
// points, the host loop's order, so the sums have its bits. (A thread per zone looping
// over the points left most of the GPU idle: 16 blocks at 4,096 zones, 0.54 ms a call.)
constexpr int kEnergyThreads = 256;
__global__ void __launch_bounds__(kEnergyThreads)
    k_energies(DevData d, int zpb, const double *v, const double *e, double *out) {
  __shared__ double term[2 * kEnergyThreads];
  const int nqp = d.nqp, lanes = kEnergyThreads / zpb;
  const int zl = threadIdx.x / lanes, l = threadIdx.x % lanes;
  const size_t z = (size_t)blockIdx.x * zpb + zl;
  const bool on = zl < zpb && z < (size_t)d.nz;
  const size_t sl = on ? DevSlot(d, z) : 0;  // mixed meshes: the zone's tables
  const double *B = d.B + sl * nqp * d.nd, *L2B = d.L2B + sl * nqp * d.ne;
  double si = 0.0, sk = 0.0;
  for (int q0 = 0; q0 < nqp; q0 += lanes) {
    const int q = q0 + l;
    if (on && q < nqp) {
      const double R0 = d.R0[z * nqp + q];
      double eq = 0.0, v2 = 0.0;
      for (int i = 0; i < d.ne; i++) eq += e[z * d.ne + i] * L2B[(size_t)q * d.ne + i];
      for (int c = 0; c < d.dim; c++) {
        double vq = 0.0;
        for (int a = 0; a < d.nd; a++)
          vq += v[(size_t)c * d.nl + d.edof[z * d.nd + a]] * B[(size_t)q * d.nd + a];
        v2 += vq * vq;
      }
      term[2 * threadIdx.x] = R0 * eq, term[2 * threadIdx.x + 1] = 0.5 * R0 * v2;
    }
    __syncthreads();
    if (on && l == 0)
      for (int j = 0; j < lanes && q0 + j < nqp; j++)
        si += term[2 * (threadIdx.x + j)], sk += term[2 * (threadIdx.x + j) + 1];
    __syncthreads();
  }
  if (on && l == 0) out[2 * z] = si, out[2 * z + 1] = sk;
}

#endif  // BLAST_GPU_KERNELS_ZONE_CUH
