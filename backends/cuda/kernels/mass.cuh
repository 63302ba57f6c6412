// Kernel 9 of the BLAST GPU paper (the mass matrix in sliced ELLPACK) and the
// multi-component PCG vector kernels.
// Kernel bodies only: launched from backends/cuda/ops_mass.cu; a kernel is defined in exactly one
// translation unit (the file that includes this header).
#ifndef BLAST_GPU_KERNELS_MASS_CUH
#define BLAST_GPU_KERNELS_MASS_CUH

#include "cg_body.cuh"
#include "context.h"
#include "dot_block.cuh"
#include "pdl.cuh"

// Mass-matrix rows in double-double for up to 3 components at once, in sliced ELLPACK
// (sell.h): a thread per row slot, the warp's 32 rows read side by side (coalesced), each
// row summed in the order of its entries, the row read once for all components. The
// rounded sums almost never depend on the order (ddsum.h), so they equal the CPU
// backend's bit for bit but in rare last-bit cases. Component c of x and y starts at
// c * st; only components in `mask` are computed. Slots [t0, t1), t0 a multiple of 32.
// IL: x with its NCOMP components side by side (x[j * NCOMP + c]), one gather per entry.
// Variants for the tuner: at least MINB blocks of 256 threads per SM (4: at most 64
// registers, 6: 40), UNR entries per unrolled loop step.
template <int NCOMP, bool IL, int MINB, int UNR>
__global__ void __launch_bounds__(256, MINB)
    k_spmm_sell(int t0, int t1, const int *srow, const int *slen, const long long *soff,
                const int *col, const double *val, unsigned mask, size_t st, const double *x,
                double *y) {
  const int t = t0 + (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= t1) return;
  const int row = srow[t];
  if (row < 0) return;
  const int len = slen[t];
  const long long base = soff[t >> 5] + (t & 31);
  const double *v = val + base;
  const int *cl = col + base;
  BlastDD acc[NCOMP];
#pragma unroll
  for (int c = 0; c < NCOMP; c++) acc[c].hi = 0.0, acc[c].lo = 0.0;
#pragma unroll UNR
  for (int k = 0; k < len; k++) {
    const double a = __ldg(v + 32 * k);
    const int j = __ldg(cl + 32 * k);
#pragma unroll
    for (int c = 0; c < NCOMP; c++)
      if ((mask >> c) & 1u)
        BlastDDAdd(&acc[c], __dmul_rn(a, __ldg(IL ? &x[(size_t)j * NCOMP + c] : &x[c * st + j])));
  }
#pragma unroll
  for (int c = 0; c < NCOMP; c++) {
    if (!((mask >> c) & 1u)) continue;
    BlastDDNormalize(&acc[c]);
    y[c * st + row] = acc[c].hi;
  }
}

// xil[i * ncomp + c] = x[c * st + i] for i in [n0, n1): components side by side.
__global__ void k_interleave(int n0, int n1, int ncomp, size_t st, const double *x, double *xil) {
  for (int i = n0 + blockIdx.x * blockDim.x + threadIdx.x; i < n1; i += gridDim.x * blockDim.x)
    for (int c = 0; c < ncomp; c++) xil[(size_t)i * ncomp + c] = x[c * st + i];
}

typedef struct {
  double v[3];
} Coef3;

// y_c = a_c x_c + b_c y_c on the first n entries of each active component (grid y = c).
__global__ void k_axpby_multi(int n, unsigned mask, size_t st, Coef3 a, const double *x, Coef3 b,
                              double *y) {
  const int c = blockIdx.y;
  if (!((mask >> c) & 1u)) return;
  const double *xc = x + c * st;
  double *yc = y + c * st;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    yc[i] = __dadd_rn(__dmul_rn(a.v[c], xc[i]), __dmul_rn(b.v[c], yc[i]));
}

__global__ void k_jacobi_multi(int n, unsigned mask, size_t st, const double *dinv, const double *r,
                               double *z) {
  const int c = blockIdx.y;
  if (!((mask >> c) & 1u)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    z[c * st + i] = __dmul_rn(r[c * st + i], dinv[i]);
}

typedef struct {
  int v[4];
} Off4;

__global__ void k_zero_multi(unsigned mask, size_t st, Off4 off, const int *idx, double *y) {
  const int c = blockIdx.y;
  if (!((mask >> c) & 1u)) return;
  for (int k = off.v[c] + blockIdx.x * blockDim.x + threadIdx.x; k < off.v[c + 1];
       k += gridDim.x * blockDim.x)
    y[c * st + idx[k]] = 0.0;
}

// The block's double-double sum of its threads' pairs into part (entry blockIdx.x of
// component c).
__device__ __forceinline__ void DotBlockPart(BlastDD acc, int c, double *part) {
  DotBlockSum(acc, &part[2 * (c * kDotBlocks + blockIdx.x)]);
}

// Double-double dots of the active components; blocks (x) per component (y).
__global__ void k_dot_dd_multi(int n, unsigned mask, size_t st, const double *x, const double *y,
                               double *part) {
  const int c = blockIdx.y;
  if (!((mask >> c) & 1u)) return;
  BlastDD acc = {0.0, 0.0};
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    BlastDDAdd(&acc, __dmul_rn(x[c * st + i], y[c * st + i]));
  DotBlockPart(acc, c, part);
}

// The block pairs of a fused dot, nslots per active component (stride apart), into one
// pair per component, out[2c], out[2c + 1] (zeros for the others): DotFoldComp's sums
// (DotFoldCompAhead), a block per component.
__global__ void k_dot_fold(const double *part, int stride, int nslots, unsigned mask, double *out) {
  PdlEnter();
  const int c = blockIdx.x;
  DotFoldCompAhead<8>(part, stride, nslots, c, (mask >> c) & 1u, &out[2 * c]);
}

// A PCG step's residual updates (BlastMassOps.cg_update): r_c = -a_c Ad_c + r_c,
// z_c = r_c dinv, and the dots (r_c, z_c) as k_dot_dd_multi; blocks (x) per component (y).
__global__ void k_cg_update_multi(int n, unsigned mask, size_t st, Coef3 a, const double *Ad,
                                  const double *dinv, double *r, double *z, double *part) {
  const int c = blockIdx.y;
  if (!((mask >> c) & 1u)) return;
  CgUpdateBody<false>(n, c, a.v[c], st, Ad, dinv, NULL, r, z, part);
}

// A PCG step's solution and direction updates (BlastMassOps.cg_advance): x_c = a_c d_c + x_c
// for the components in xmask, then d_c = 1 z_c + b_c d_c for those in dmask (the
// expressions of k_cg_update_multi's former x update and of k_axpby_multi); grid y = c.
__global__ void k_cg_advance_multi(int n, unsigned xmask, unsigned dmask, size_t st, Coef3 a,
                                   Coef3 b, const double *z, double *d, double *x) {
  const int c = blockIdx.y;
  if (!((xmask >> c) & 1u)) return;
  CgAdvanceBody(n, c, a.v[c], b.v[c], (dmask >> c) & 1u, st, z, d, x);
}

__global__ void k_scatter(int n, const int *rows, const double *src, double *dst) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[rows[i]] = src[i];
}

#endif  // BLAST_GPU_KERNELS_MASS_CUH
