/// @file qpoint_lanes.h
/// @brief The quadrature-point physics (hydro/point_physics.h) on BLAST_QV_W points at
/// once, one point per lane of a vector (GCC/Clang vector extension), for the CPU backend:
/// the lane primitives, then point_physics.h instantiated as BlastQVMatDet,
/// BlastQVSymEigMin, BlastQVPointStress, ... and the equations of state as BlastQVEos.
///
/// Each lane performs exactly the operations of the double instantiation on its point, in
/// the same order: IEEE addition, subtraction, multiplication, division and square root
/// are correctly rounded in vector registers too, and C11 without contraction has no fused
/// multiply-adds. Where a result depends on a library's choice (fmax of a NaN or of zeros
/// of opposite sign) or on a rare range (the smallest singular value's scaling outside
/// 2^+-1000, subnormal scales), the lane calls the scalar function instead. So the
/// results are the scalar kernel's bits (tests/hydro/test_cpu_lanes checks it), in a
/// fraction of the time: the scalar kernel's chains of dependent divisions and square
/// roots leave most of the core idle.
#ifndef BLAST_QPOINT_LANES_H
#define BLAST_QPOINT_LANES_H

#include <stdint.h>
#include <string.h>

#include "qpoint.h"
#if defined(__AVX__)
#include <immintrin.h>
#endif

#ifndef BLAST_QV_W
#define BLAST_QV_W 4
#endif

/// BLAST_QV_W doubles, one quadrature point each.
typedef double BlastQV __attribute__((vector_size(BLAST_QV_W * sizeof(double))));
/// A lane mask (all ones or zero per lane), as vector comparisons return it.
typedef int64_t BlastQM __attribute__((vector_size(BLAST_QV_W * sizeof(int64_t))));

static inline BlastQV BlastQVSet(double x) {
  BlastQV v;
  for (int l = 0; l < BLAST_QV_W; l++) v[l] = x;
  return v;
}

/// m ? a : b per lane.
static inline BlastQV BlastQVSel(BlastQM m, BlastQV a, BlastQV b) {
#if defined(__AVX__) && BLAST_QV_W == 4
  return (BlastQV)_mm256_blendv_pd((__m256d)b, (__m256d)a, (__m256d)m);
#else
  return (BlastQV)((m & (BlastQM)a) | (~m & (BlastQM)b));
#endif
}

static inline int BlastQMAny(BlastQM m) {
#if defined(__AVX__) && BLAST_QV_W == 4
  return _mm256_movemask_pd((__m256d)m) != 0;
#else
  int64_t r = 0;
  for (int l = 0; l < BLAST_QV_W; l++) r |= m[l];
  return r != 0;
#endif
}

static inline BlastQV BlastQVFabs(BlastQV x) {
  const BlastQM sign = (BlastQM)BlastQVSet(-0.0);
  return (BlastQV)((BlastQM)x & ~sign);
}

static inline BlastQV BlastQVSqrt(BlastQV x) {
  BlastQV r;
#if defined(__AVX__)
  for (int l = 0; l < BLAST_QV_W; l += 4) {
    __m256d h;
    memcpy(&h, (const double *)&x + l, sizeof h);
    h = _mm256_sqrt_pd(h);
    memcpy((double *)&r + l, &h, sizeof h);
  }
#else
  for (int l = 0; l < BLAST_QV_W; l++) r[l] = sqrt(x[l]);
#endif
  return r;
}

/// fmax(x, y) per lane: the larger where the two are ordered and differ, x where they
/// are the same bits, and the library's fmax on the lanes where it has a choice (a NaN,
/// zeros of opposite sign).
static inline BlastQV BlastQVFmax(BlastQV x, BlastQV y) {
  const BlastQM gt = x > y, lt = x < y, same = (BlastQM)x == (BlastQM)y;
  BlastQV r = BlastQVSel(lt, y, x);
  const BlastQM other = ~(gt | lt | same);
  if (BlastQMAny(other))
    for (int l = 0; l < BLAST_QV_W; l++)
      if (other[l]) r[l] = fmax(x[l], y[l]);
  return r;
}

/// n <= BLAST_QV_W consecutive values into the lanes, the last one repeated past n.
static inline BlastQV BlastQVLoad(const double *p, int n) {
  BlastQV v;
  if (n == BLAST_QV_W) {
    memcpy(&v, p, sizeof v);
    return v;
  }
  for (int l = 0; l < BLAST_QV_W; l++) v[l] = p[l < n ? l : n - 1];
  return v;
}

/// The first n lanes to n consecutive values.
static inline void BlastQVStore(double *p, BlastQV v, int n) {
  if (n == BLAST_QV_W)
    memcpy(p, &v, sizeof v);
  else
    for (int l = 0; l < n; l++) p[l] = v[l];
}

#define BP_T        BlastQV
#define BP_M        BlastQM
#define BP_FN(name) BlastQV##name
#define BP_DEV
#define BP_UNROLL
#define BP_SET(x)       BlastQVSet(x)
#define BP_TRUE         (~(BlastQM)BlastQVSet(0.0))
#define BP_SEL(m, a, b) BlastQVSel(m, a, b)
#define BP_ANY(m)       BlastQMAny(m)
#define BP_NOT(m)       (~(m))
#define BP_SQRT         BlastQVSqrt
#define BP_FABS         BlastQVFabs
#define BP_FMAX         BlastQVFmax
#include "point_physics.h"

/// BlastSigmaMin per lane, dim 2 or 3. The scaling 2^-e by bits where the largest entry
/// is normal with |e| < 1000 (ldexp of a power of two is exact there); other lanes (a
/// zero matrix aside) call BlastSigmaMin.
static inline BlastQV BlastQVSigmaMin(const int dim, const BlastQV *J) {
  const BlastQV zero = BlastQVSet(0.0);
  BlastQV mx = zero;
  for (int i = 0; i < dim * dim; i++) mx = BlastQVFmax(mx, BlastQVFabs(J[i]));
  const BlastQM iszero = mx == 0.0;
  // frexp(mx) = m 2^e with e = biased exponent - 1022; |e| < 1000 <=> 22 < biased < 2022
  const BlastQM bexp = ((BlastQM)mx >> 52) & 0x7ff;
  const BlastQM fast = (bexp > 22) & (bexp < 2022);
  const BlastQM one = (BlastQM)BlastQVSet(1.0);
  const BlastQV down = (BlastQV)BlastQVSel(fast, (BlastQV)((2045 - bexp) << 52), (BlastQV)one);
  const BlastQV up = (BlastQV)BlastQVSel(fast, (BlastQV)((bexp + 1) << 52), (BlastQV)one);
  BlastQV B[9];
  for (int i = 0; i < dim * dim; i++) B[i] = J[i] * down;
  BlastQV res = BlastQVSel(iszero, zero, BlastQVSigmaMinScaled(dim, B) * up);
  const BlastQM slow = ~fast & ~iszero;
  if (BlastQMAny(slow))
    for (int l = 0; l < BLAST_QV_W; l++)
      if (slow[l]) {
        double Jl[9];
        for (int i = 0; i < dim * dim; i++) Jl[i] = J[i][l];
        res[l] = BlastSigmaMin(dim, Jl);
      }
  return res;
}

#endif  // BLAST_QPOINT_LANES_H
