/// @file qpoint_lanes.h
/// @brief The point kernel of qpoint.h (BlastQPointStress and what it calls) on
/// BLAST_QV_W quadrature points at once, one point per lane of a vector (GCC/Clang vector
/// extension), for the CPU backend.
///
/// Each lane performs exactly the operations of the scalar functions on its point, in the
/// same order: IEEE addition, subtraction, multiplication, division and square root are
/// correctly rounded in vector registers too, and C11 without contraction has no fused
/// multiply-adds. The scalar code's branches become both sides computed and the one the
/// scalar code takes selected per lane; a data-dependent loop (the Jacobi sweeps) runs
/// until its last lane is done, a finished lane's values left untouched, exactly as if it
/// had stopped. Where a result depends on a library's choice (fmax of a NaN or of zeros
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

static inline BlastQV BlastQVMatDet(const int dim, const BlastQV *A) {
  if (dim == 2) return A[0] * A[3] - A[2] * A[1];
  return A[0] * (A[4] * A[8] - A[7] * A[5]) - A[3] * (A[1] * A[8] - A[7] * A[2]) +
         A[6] * (A[1] * A[5] - A[4] * A[2]);
}

static inline void BlastQVMatAdjugate(const int dim, const BlastQV *A, BlastQV *adj) {
  if (dim == 2) {
    adj[0] = A[3], adj[1] = -A[1], adj[2] = -A[2], adj[3] = A[0];
  } else {
    adj[0] = A[4] * A[8] - A[7] * A[5];
    adj[1] = A[7] * A[2] - A[1] * A[8];
    adj[2] = A[1] * A[5] - A[4] * A[2];
    adj[3] = A[6] * A[5] - A[3] * A[8];
    adj[4] = A[0] * A[8] - A[6] * A[2];
    adj[5] = A[3] * A[2] - A[0] * A[5];
    adj[6] = A[3] * A[7] - A[6] * A[4];
    adj[7] = A[6] * A[1] - A[0] * A[7];
    adj[8] = A[0] * A[4] - A[3] * A[1];
  }
}

/// BlastJacobiTangent per lane; `need`: the lanes whose result is used (the far branch
/// 0.5/|zeta| is computed only when one of them takes it).
static inline BlastQV BlastQVJacobiTangent(BlastQV app, BlastQV apq, BlastQV aqq, BlastQM need) {
  const BlastQV zeta = (aqq - app) / (2.0 * apq), az = BlastQVFabs(zeta);
  const BlastQM near = az < BlastQVSet(1.0 / sqrt(DBL_EPSILON));
  BlastQV t = 1.0 / (az + BlastQVSqrt(1.0 + zeta * zeta));
  if (BlastQMAny(need & ~near)) t = BlastQVSel(near, t, 0.5 / az);
  return BlastQVSel(zeta >= 0.0, t, -t);
}

/// BlastSymEigMin per lane, dim 2 or 3 (A[i + dim j] symmetric).
static inline void BlastQVSymEigMin(const int dim, const BlastQV *A, BlastQV *mu1, BlastQV *d1) {
  const BlastQV zero = BlastQVSet(0.0), one = BlastQVSet(1.0);
  if (dim == 2) {
    BlastQV d0 = A[0], d12 = A[2], d3 = A[3], c = one, s = zero;
    const BlastQM rot = d12 != 0.0;
    if (BlastQMAny(rot)) {
      const BlastQV t = BlastQVJacobiTangent(d0, d12, d3, rot);
      const BlastQV cr = 1.0 / BlastQVSqrt(1.0 + t * t), sr = cr * t, td = t * d12;
      c = BlastQVSel(rot, cr, c), s = BlastQVSel(rot, sr, s);
      d0 = BlastQVSel(rot, d0 - td, d0), d3 = BlastQVSel(rot, d3 + td, d3);
    }
    const BlastQM le = d0 <= d3;
    *mu1 = BlastQVSel(le, d0, d3), d1[0] = BlastQVSel(le, c, s), d1[1] = BlastQVSel(le, -s, c);
    return;
  }
  BlastQV a[3][3], v[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) a[i][j] = A[i + 3 * j], v[i][j] = i == j ? one : zero;
  // A lane leaves the sweeps when the scalar loop would break; its values are kept from
  // then on (every update below is selected by `live`).
  BlastQM live = ~(BlastQM)zero;
  for (int sweep = 0; sweep < 32; sweep++) {
    live &= ~((a[0][1] == 0.0) & (a[0][2] == 0.0) & (a[1][2] == 0.0));
    if (!BlastQMAny(live)) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        const BlastQV apq = a[p][q];
        const BlastQM small =
            BlastQVFabs(apq) <= 1e-18 * (BlastQVFabs(a[p][p]) + BlastQVFabs(a[q][q]));
        const BlastQM rot = live & ~small;
        if (BlastQMAny(rot)) {
          const BlastQV t = BlastQVJacobiTangent(a[p][p], apq, a[q][q], rot);
          const BlastQV c = 1.0 / BlastQVSqrt(1.0 + t * t), s = t * c, tau = s / (1.0 + c);
          const BlastQV ta = t * apq;
          a[p][p] = BlastQVSel(rot, a[p][p] - ta, a[p][p]);
          a[q][q] = BlastQVSel(rot, a[q][q] + ta, a[q][q]);
          const int r = 3 - p - q;
          const BlastQV arp = a[r][p], arq = a[r][q];
          const BlastQV nrp = arp - s * (arq + tau * arp), nrq = arq + s * (arp - tau * arq);
          a[r][p] = BlastQVSel(rot, nrp, a[r][p]), a[p][r] = BlastQVSel(rot, nrp, a[p][r]);
          a[r][q] = BlastQVSel(rot, nrq, a[r][q]), a[q][r] = BlastQVSel(rot, nrq, a[q][r]);
          for (int i = 0; i < 3; i++) {
            const BlastQV vip = v[i][p], viq = v[i][q];
            v[i][p] = BlastQVSel(rot, vip - s * (viq + tau * vip), vip);
            v[i][q] = BlastQVSel(rot, viq + s * (vip - tau * viq), viq);
          }
        }
        a[p][q] = BlastQVSel(live, zero, a[p][q]), a[q][p] = BlastQVSel(live, zero, a[q][p]);
      }
  }
  BlastQV mu = a[0][0], w0 = v[0][0], w1 = v[1][0], w2 = v[2][0];
  for (int k = 1; k < 3; k++) {
    const BlastQM m = a[k][k] < mu;
    mu = BlastQVSel(m, a[k][k], mu);
    w0 = BlastQVSel(m, v[0][k], w0), w1 = BlastQVSel(m, v[1][k], w1);
    w2 = BlastQVSel(m, v[2][k], w2);
  }
  *mu1 = mu;
  d1[0] = w0, d1[1] = w1, d1[2] = w2;
}

static inline BlastQV BlastQVAsinSeries(BlastQV x) {
  const BlastQV z = x * x;
  BlastQV p = BlastQVSet(BLAST_ASIN_SERIES_LEAD);
  BLAST_ASIN_SERIES_STEPS(p, z)
  return x * p;
}

/// BlastAcos per lane: each lane's series argument selected first, one series for all.
static inline BlastQV BlastQVAcos(BlastQV r) {
  const double pi = 3.14159265358979323846;
  const BlastQM hi = r > 0.5, lo = r < -0.5;
  BlastQV x = r;
  if (BlastQMAny(hi | lo)) {
    const BlastQV xh = BlastQVSqrt(0.5 * (1.0 - r)), xl = BlastQVSqrt(0.5 * (1.0 + r));
    x = BlastQVSel(hi, xh, BlastQVSel(lo, xl, r));
  }
  const BlastQV s = BlastQVAsinSeries(x);
  return BlastQVSel(hi, 2.0 * s, BlastQVSel(lo, pi - 2.0 * s, 0.5 * pi - s));
}

static inline BlastQV BlastQVCosSeries(BlastQV u) {
  const BlastQV z = u * u;
  BlastQV p = BlastQVSet(BLAST_COS_SERIES_LEAD);
  BLAST_COS_SERIES_STEPS(p, z)
  return p;
}

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
  BlastQV r3;
  if (dim == 2) {
    const BlastQV n1 = B[0] * B[0] + B[1] * B[1], n2 = B[2] * B[2] + B[3] * B[3];
    const BlastQV t = 0.5 * (n1 - n2), s0 = B[0] * B[2] + B[1] * B[3];
    const BlastQV smax = BlastQVSqrt(0.5 * (n1 + n2) + BlastQVSqrt(t * t + s0 * s0));
    r3 = BlastQVFabs(BlastQVMatDet(2, B)) / smax;
  } else {
    BlastQV S[9];
    for (int i = 0; i < 3; i++)
      for (int j = i; j < 3; j++) {
        BlastQV sum = zero;
        for (int c = 0; c < 3; c++) sum += B[c + 3 * i] * B[c + 3 * j];
        S[i + 3 * j] = sum;
      }
    const BlastQV q = (S[0] + S[4] + S[8]) / 3.0;
    const BlastQV b00 = S[0] - q, b11 = S[4] - q, b22 = S[8] - q;
    const BlastQV s01 = S[3], s02 = S[6], s12 = S[7];
    const BlastQV p2 =
        (b00 * b00 + b11 * b11 + b22 * b22 + 2.0 * (s01 * s01 + s02 * s02 + s12 * s12)) / 6.0;
    BlastQV lmin = q;
    const BlastQM pos = p2 > 0.0;
    if (BlastQMAny(pos)) {
      const BlastQV p = BlastQVSqrt(p2);
      const BlastQV det = b00 * (b11 * b22 - s12 * s12) - s01 * (s01 * b22 - s12 * s02) +
                          s02 * (s01 * s12 - b11 * s02);
      BlastQV r = det / (2.0 * p2 * p);
      r = BlastQVSel(r < -1.0, BlastQVSet(-1.0), BlastQVSel(r > 1.0, BlastQVSet(1.0), r));
      const double pi_3 = 1.0471975511965977462;
      const BlastQV l = q - 2.0 * p * BlastQVCosSeries(pi_3 - BlastQVAcos(r) / 3.0);
      lmin = BlastQVSel(pos, l, lmin);
    }
    r3 = BlastQVSqrt(BlastQVFmax(lmin, zero));
  }
  BlastQV res = BlastQVSel(iszero, zero, r3 * up);
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

/// BlastSmoothStep per lane.
static inline BlastQV BlastQVSmoothStep(BlastQV x, double eps) {
  const BlastQV y = (x + eps) / (2.0 * eps);
  const BlastQV r = BlastQVSel(y > 1.0, BlastQVSet(1.0), (3.0 - 2.0 * y) * y * y);
  return BlastQVSel(y < 0.0, BlastQVSet(0.0), r);
}

/// BlastQPointStress on BLAST_QV_W points (dim 2 or 3): every argument that varies by
/// point is a vector of the points' values; gamma is the zone's.
static inline BlastQV BlastQVPointStress(const int dim, const BlastQPointParams *par,
                                         const BlastQV *J, const BlastQV *Gref,
                                         const BlastQV *J0inv, BlastQV R0, BlastQV w, BlastQV e_hat,
                                         double gamma, BlastQV *S, BlastQV *dt_q) {
  const BlastQV zero = BlastQVSet(0.0);
  const BlastQV det = BlastQVMatDet(dim, J);
  BlastQV invJ[9];
  BlastQVMatAdjugate(dim, J, invJ);
  for (int i = 0; i < dim * dim; i++) invJ[i] = invJ[i] / det;
  const BlastQV rho = R0 / det / w;
  const BlastQV E = BlastQVFmax(zero, e_hat);
  const BlastQV p = (gamma - 1.0) * rho * E;
  const BlastQV cs = BlastQVSqrt(gamma * (gamma - 1.0) * E);
  BlastQV sigma[9];
  for (int i = 0; i < dim * dim; i++) sigma[i] = zero;
  for (int c = 0; c < dim; c++) sigma[c + dim * c] = -p;
  BlastQV mu = zero;
  if (par->visc) {
    BlastQV G[9], eps[9];
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) {
        BlastQV sum = zero;
        for (int h = 0; h < dim; h++) sum += Gref[c + dim * h] * invJ[h + dim * g];
        G[c + dim * g] = sum;
      }
    BlastQV vort = BlastQVSet(1.0);
    if (par->vort) {
      BlastQV tr = zero, fro = zero;
      for (int c = 0; c < dim; c++) tr += G[c + dim * c];
      for (int i = 0; i < dim * dim; i++) fro += G[i] * G[i];
      fro = BlastQVSqrt(fro);
      vort = BlastQVSel(fro > 0.0, BlastQVFabs(tr) / fro, vort);
    }
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) eps[c + dim * g] = 0.5 * (G[c + dim * g] + G[g + dim * c]);
    BlastQV mu1, d1[3];
    BlastQVSymEigMin(dim, eps, &mu1, d1);
    BlastQV nd = zero, nf = zero, J0d[3];
    for (int h = 0; h < dim; h++) {
      BlastQV sum = zero;
      for (int g = 0; g < dim; g++) sum += J0inv[h + dim * g] * d1[g];
      J0d[h] = sum;
    }
    for (int c = 0; c < dim; c++) {
      BlastQV sum = zero;
      for (int h = 0; h < dim; h++) sum += J[c + dim * h] * J0d[h];
      nf += sum * sum;
      nd += d1[c] * d1[c];
    }
    const BlastQV h = par->h0 * BlastQVSqrt(nf) / BlastQVSqrt(nd);
    const double eps0 = 1e-12;
    mu = 2.0 * rho * h * h * BlastQVFabs(mu1) +
         0.5 * rho * h * cs * vort * (1.0 - BlastQVSmoothStep(mu1 - 2.0 * eps0, eps0));
    for (int i = 0; i < dim * dim; i++) sigma[i] += mu * eps[i];
  }
  const BlastQV wdet = w * det;
  for (int c = 0; c < dim; c++)
    for (int g = 0; g < dim; g++) {
      BlastQV sum = zero;
      for (int h = 0; h < dim; h++) sum += sigma[c + dim * h] * invJ[g + dim * h];
      S[c + dim * g] = sum * wdet;
    }
  const BlastQV hmin = BlastQVSigmaMin(dim, J) / (double)par->order_k;
  const BlastQV inv_dt = cs / hmin + 2.5 * mu / rho / hmin / hmin;
  *dt_q = BlastQVSel(inv_dt > 0.0, par->cfl * (1.0 / inv_dt), BlastQVSet(HUGE_VAL));
  return det;
}

#endif  // BLAST_QPOINT_LANES_H
