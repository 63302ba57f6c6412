// The bodies of the PCG's vector kernels (device functions only, no kernel: any number of
// translation units may include it): k_cg_update_multi / k_cg_advance_multi (mass.cuh)
// take their scalars from the host, k_pcg_update / k_pcg_advance (pcg.cuh) from the
// resident solve's state on the device; the same operations, so the same bits.
#ifndef BLAST_GPU_KERNELS_CG_BODY_CUH
#define BLAST_GPU_KERNELS_CG_BODY_CUH

#include "context.h"
#include "dot_block.cuh"

// Component c (grid y) of a PCG step's residual updates: r_c = -a_c Ad_c + r_c,
// z_c = r_c dinv, and the block's double-double pair of (r_c, z_c) into part (entry
// blockIdx.x of component c). ESS: Ad_c read as +0 at the constrained dofs (bit c of
// ess[i]), the values mass.zero_essential would have written there.
template <bool ESS>
__device__ __forceinline__ void CgUpdateBody(int n, int c, double a, size_t st, const double *Ad,
                                             const double *dinv, const unsigned char *ess,
                                             double *r, double *z, double *part) {
  const double na = -a;
  const double *Adc = Ad + c * st;
  double *rc = r + c * st, *zc = z + c * st;
  BlastDD acc = {0.0, 0.0};
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double adi = ESS && ((ess[i] >> c) & 1u) ? 0.0 : Adc[i];
    const double ri = __dadd_rn(__dmul_rn(na, adi), rc[i]), zi = __dmul_rn(ri, dinv[i]);
    rc[i] = ri, zc[i] = zi;
    BlastDDAdd(&acc, __dmul_rn(ri, zi));
  }
  DotBlockSum(acc, &part[2 * (c * kDotBlocks + blockIdx.x)]);
}

// Component c of a PCG step's solution and direction updates: x_c = a_c d_c + x_c, then
// with dup d_c = 1 z_c + b_c d_c (the expressions of k_axpby_multi).
__device__ __forceinline__ void CgAdvanceBody(int n, int c, double a, double b, bool dup, size_t st,
                                              const double *z, double *d, double *x) {
  const double *zc = z + c * st;
  double *dc = d + c * st, *xc = x + c * st;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const double di = dc[i];
    xc[i] = __dadd_rn(__dmul_rn(a, di), xc[i]);
    if (dup) dc[i] = __dadd_rn(__dmul_rn(1.0, zc[i]), __dmul_rn(b, di));
  }
}

#endif  // BLAST_GPU_KERNELS_CG_BODY_CUH
