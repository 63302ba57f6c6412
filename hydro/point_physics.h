/// @file point_physics.h
/// @brief The quadrature-point physics of the method (method spec 5.2-5.7), written once
/// over a value type: small dense kernels, the smallest eigenpair of the symmetric
/// velocity gradient, the smallest singular value of the Jacobian, the artificial
/// viscosity, the stress through the equation of state (eos.h) and the per-point
/// time-step estimate.
///
/// No include guard: a header instantiates it by defining the macros below and including
/// it. qpoint.h does so for double (host C11 and CUDA device: BlastMatDet,
/// BlastQPointStress, ...), backends/cpu/qpoint_lanes.h for a vector of BLAST_QV_W
/// points (BlastQVMatDet, BlastQVPointStress, ...). A branch of the scalar code is written
/// as both sides and a per-lane selection (BP_SEL), computed only where some lane needs it
/// (BP_ANY); with a scalar value type a mask is an int and these are the plain branch.
/// Each lane therefore performs exactly the operations of the double instantiation on its
/// point, in the same order (IEEE operations are correctly rounded in vector registers
/// too; no fused multiply-adds on either side), and the two give the same bits
/// (tests/hydro/test_cpu_lanes).
///
/// Macros the instantiating header defines:
///   BP_T, BP_M        value type, mask type (the type of a comparison of two BP_T)
///   BP_FN(name)       the instantiated name of function `name`
///   BP_DEV            function qualifiers (BLAST_HOST_DEVICE or empty)
///   BP_UNROLL         unrolling hint of fixed small loops (BLAST_UNROLL or empty)
///   BP_SET(x)         a BP_T holding the double x
///   BP_TRUE           the mask that selects everything
///   BP_SEL(m, a, b)   m ? a : b per lane;  BP_ANY(m): some lane of m is set
///   BP_NOT(m)         the complement of mask m
///   BP_SQRT, BP_FABS, BP_FMAX   sqrt, fabs, fmax (fmax(x, y) as the C library's)
/// and, after including this file (which undefines them), BP_FN(SigmaMin)(dim, J), the
/// smallest singular value of J (declared here, defined there: the scaling by a power of
/// two is type-specific, the rest is BP_FN(SigmaMinScaled) below).
///
/// Small matrices are column-major: A[i + dim*j] = A_ij. For the Jacobian,
/// J[c + dim*g] = dx_c / dxi_g (row = physical component, column = reference direction).
#ifndef BP_T
#error "point_physics.h is instantiated by qpoint.h or qpoint_lanes.h"
#endif

#include <float.h>
#include <math.h>

#include "eos.h"

/// Parameters of the point kernel that are constant over a run.
#ifndef BLAST_QPOINT_PARAMS_DEFINED
#define BLAST_QPOINT_PARAMS_DEFINED
typedef struct {
  int dim;      ///< 1, 2 or 3
  int order_k;  ///< kinematic order (h_min = sigma_min(J)/k)
  int visc;     ///< artificial viscosity on
  int vort;     ///< vorticity factor on the linear viscosity term (Rayleigh-Taylor)
  double h0;    ///< initial mean length scale (|Omega_0|/N_Z)^(1/d)/k
  double cfl;   ///< CFL factor
} BlastQPointParams;

/// The Horner steps of the asin series in z = x^2 after its leading coefficient.
#define BLAST_ASIN_SERIES_LEAD 0.0022014739737101384
#define BLAST_ASIN_SERIES_STEPS(p, z) \
  p = p * z + 0.002338091892111975;   \
  p = p * z + 0.0024894486782468836;  \
  p = p * z + 0.0026578706382072901;  \
  p = p * z + 0.0028461784011089421;  \
  p = p * z + 0.0030578216492580306;  \
  p = p * z + 0.0032970595034734849;  \
  p = p * z + 0.0035692053938259347;  \
  p = p * z + 0.0038809645588376691;  \
  p = p * z + 0.0042409070936793632;  \
  p = p * z + 0.0046601434869150962;  \
  p = p * z + 0.0051533096823199046;  \
  p = p * z + 0.0057400376708419236;  \
  p = p * z + 0.0064472103118896487;  \
  p = p * z + 0.0073125258735988454;  \
  p = p * z + 0.0083903358096168151;  \
  p = p * z + 0.0097616095291940784;  \
  p = p * z + 0.011551800896139705;   \
  p = p * z + 0.013964843750000001;   \
  p = p * z + 0.017352764423076924;   \
  p = p * z + 0.022372159090909092;   \
  p = p * z + 0.030381944444444444;   \
  p = p * z + 0.044642857142857144;   \
  p = p * z + 0.074999999999999997;   \
  p = p * z + 0.16666666666666666;    \
  p = p * z + 1;

/// The Horner steps of the cos series after its leading coefficient.
#define BLAST_COS_SERIES_LEAD 4.1103176233121648e-19
#define BLAST_COS_SERIES_STEPS(p, z)   \
  p = p * z + -1.5619206968586225e-16; \
  p = p * z + 4.7794773323873853e-14;  \
  p = p * z + -1.1470745597729725e-11; \
  p = p * z + 2.08767569878681e-09;    \
  p = p * z + -2.7557319223985888e-07; \
  p = p * z + 2.4801587301587302e-05;  \
  p = p * z + -0.0013888888888888889;  \
  p = p * z + 0.041666666666666664;    \
  p = p * z + -0.5;                    \
  p = p * z + 1;
#endif  // BLAST_QPOINT_PARAMS_DEFINED

BP_DEV static inline BP_T BP_FN(MatDet)(const int dim, const BP_T *A) {
  if (dim == 1) return A[0];
  if (dim == 2) return A[0] * A[3] - A[2] * A[1];
  return A[0] * (A[4] * A[8] - A[7] * A[5]) - A[3] * (A[1] * A[8] - A[7] * A[2]) +
         A[6] * (A[1] * A[5] - A[4] * A[2]);
}

/// Adjugate (transpose of the cofactor matrix): A adj(A) = det(A) I.
BP_DEV static inline void BP_FN(MatAdjugate)(const int dim, const BP_T *A, BP_T *adj) {
  if (dim == 1) {
    adj[0] = BP_SET(1.0);
  } else if (dim == 2) {
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

/// A^{-1} = adj(A) / det(A) (the partial path's J0^{-1} from J0).
BP_DEV static inline void BP_FN(MatInverse)(const int dim, const BP_T *A, BP_T *inv) {
  const BP_T det = BP_FN(MatDet)(dim, A);
  BP_FN(MatAdjugate)(dim, A, inv);
  for (int i = 0; i < dim * dim; i++) inv[i] = inv[i] / det;
}

/// Jacobi rotation annihilating the (p,q) entry of a symmetric 2x2 block with diagonal
/// (app, aqq) and off-diagonal apq: returns t = tan(theta) (method spec 5.6). `need`: the
/// lanes whose result is used (the far branch 0.5/|zeta| is computed only for them).
BP_DEV static inline BP_T BP_FN(JacobiTangent)(BP_T app, BP_T apq, BP_T aqq, BP_M need) {
  const BP_T zeta = (aqq - app) / (2.0 * apq), az = BP_FABS(zeta);
  const BP_M near = az < 1.0 / sqrt(DBL_EPSILON);
  BP_T t = 1.0 / (az + BP_SQRT(1.0 + zeta * zeta));
  if (BP_ANY(need & BP_NOT(near))) t = BP_SEL(near, t, 0.5 / az);
  return BP_SEL(zeta >= 0.0, t, -t);
}

/// Smallest eigenvalue mu1 and an eigenvector d1 of a symmetric dim x dim matrix A.
/// 2x2: one Jacobi rotation (exact); 3x3: cyclic Jacobi to convergence. For A = a I the
/// eigenvector is e_x (the reference's choice).
BP_DEV static inline void BP_FN(SymEigMin)(const int dim, const BP_T *A, BP_T *mu1, BP_T *d1) {
  const BP_T zero = BP_SET(0.0), one = BP_SET(1.0);
  if (dim == 1) {
    *mu1 = A[0];
    d1[0] = one;
    return;
  }
  if (dim == 2) {
    BP_T d0 = A[0], d12 = A[2], d3 = A[3], c = one, s = zero;
    const BP_M rot = d12 != 0.0;
    if (BP_ANY(rot)) {
      const BP_T t = BP_FN(JacobiTangent)(d0, d12, d3, rot);
      const BP_T cr = 1.0 / BP_SQRT(1.0 + t * t), sr = cr * t, td = t * d12;
      c = BP_SEL(rot, cr, c), s = BP_SEL(rot, sr, s);
      d0 = BP_SEL(rot, d0 - td, d0), d3 = BP_SEL(rot, d3 + td, d3);
    }
    const BP_M le = d0 <= d3;
    *mu1 = BP_SEL(le, d0, d3), d1[0] = BP_SEL(le, c, s), d1[1] = BP_SEL(le, -s, c);
    return;
  }
  BP_T a[3][3], v[3][3];
  BP_UNROLL
  for (int i = 0; i < 3; i++) BP_UNROLL
  for (int j = 0; j < 3; j++) a[i][j] = A[i + 3 * j], v[i][j] = i == j ? one : zero;
  // Cyclic sweeps until every off-diagonal entry is zero; entries below round-off
  // relative to their diagonal pair are set to zero instead of rotated (their effect on
  // the eigenvalues is of second order), which ends the iteration after a few sweeps. A
  // lane leaves the sweeps when its off-diagonal is zero; its values are kept from then
  // on (every update below is selected by `live`).
  BP_M live = BP_TRUE;
  for (int sweep = 0; sweep < 32; sweep++) {
    live &= BP_NOT((a[0][1] == 0.0) & (a[0][2] == 0.0) & (a[1][2] == 0.0));
    if (!BP_ANY(live)) break;
    BP_UNROLL
    for (int p = 0; p < 2; p++) BP_UNROLL
    for (int q = p + 1; q < 3; q++) {
      const BP_T apq = a[p][q];
      const BP_M small = BP_FABS(apq) <= 1e-18 * (BP_FABS(a[p][p]) + BP_FABS(a[q][q]));
      const BP_M rot = live & BP_NOT(small);
      if (BP_ANY(rot)) {
        const BP_T t = BP_FN(JacobiTangent)(a[p][p], apq, a[q][q], rot);
        const BP_T c = 1.0 / BP_SQRT(1.0 + t * t), s = t * c, tau = s / (1.0 + c);
        const BP_T ta = t * apq;
        a[p][p] = BP_SEL(rot, a[p][p] - ta, a[p][p]);
        a[q][q] = BP_SEL(rot, a[q][q] + ta, a[q][q]);
        const int r = 3 - p - q;  // the third index
        const BP_T arp = a[r][p], arq = a[r][q];
        const BP_T nrp = arp - s * (arq + tau * arp), nrq = arq + s * (arp - tau * arq);
        a[r][p] = BP_SEL(rot, nrp, a[r][p]), a[p][r] = BP_SEL(rot, nrp, a[p][r]);
        a[r][q] = BP_SEL(rot, nrq, a[r][q]), a[q][r] = BP_SEL(rot, nrq, a[q][r]);
        BP_UNROLL
        for (int i = 0; i < 3; i++) {
          const BP_T vip = v[i][p], viq = v[i][q];
          v[i][p] = BP_SEL(rot, vip - s * (viq + tau * vip), vip);
          v[i][q] = BP_SEL(rot, viq + s * (vip - tau * viq), viq);
        }
      }
      a[p][q] = BP_SEL(live, zero, a[p][q]), a[q][p] = BP_SEL(live, zero, a[q][p]);
    }
  }
  // The smallest eigenvalue (ties: lowest index) and its vector, selected without a
  // run-time array index (keeps a and v in registers on GPUs).
  BP_T mu = a[0][0], w0 = v[0][0], w1 = v[1][0], w2 = v[2][0];
  BP_UNROLL
  for (int k = 1; k < 3; k++) {
    const BP_M m = a[k][k] < mu;
    mu = BP_SEL(m, a[k][k], mu);
    w0 = BP_SEL(m, v[0][k], w0), w1 = BP_SEL(m, v[1][k], w1), w2 = BP_SEL(m, v[2][k], w2);
  }
  *mu1 = mu;
  d1[0] = w0, d1[1] = w1, d1[2] = w2;
}

/// asin(x) for |x| <= 1/2 by its Taylor series (26 terms, truncation < 5e-19 relative),
/// from basic IEEE operations only: the same bits on every CPU and GPU.
BP_DEV static inline BP_T BP_FN(AsinSeries)(BP_T x) {
  const BP_T z = x * x;
  BP_T p = BP_SET(BLAST_ASIN_SERIES_LEAD);
  BLAST_ASIN_SERIES_STEPS(p, z)
  return x * p;
}

/// acos on [-1, 1] through the asin series (half-angle form for |r| > 1/2): each lane's
/// series argument selected first, one series for all.
BP_DEV static inline BP_T BP_FN(Acos)(BP_T r) {
  const double pi = 3.14159265358979323846;
  const BP_M hi = r > 0.5, lo = r < -0.5;
  BP_T x = r;
  if (BP_ANY(hi | lo)) {
    const BP_T xh = BP_SQRT(0.5 * (1.0 - r)), xl = BP_SQRT(0.5 * (1.0 + r));
    x = BP_SEL(hi, xh, BP_SEL(lo, xl, r));
  }
  const BP_T s = BP_FN(AsinSeries)(x);
  return BP_SEL(hi, 2.0 * s, BP_SEL(lo, pi - 2.0 * s, 0.5 * pi - s));
}

/// cos(u) for |u| <= pi/3 by its Taylor series (11 terms, truncation < 3e-21).
BP_DEV static inline BP_T BP_FN(CosSeries)(BP_T u) {
  const BP_T z = u * u;
  BP_T p = BP_SET(BLAST_COS_SERIES_LEAD);
  BLAST_COS_SERIES_STEPS(p, z)
  return p;
}

/// The smallest singular value of B (dim 2 or 3) where B's entries are scaled to at most 1
/// in magnitude (BP_FN(SigmaMin) scales J by a power of two and back: no over- or
/// underflow in the squares below). 2D: |det B| / sigma_max; 3D: the smallest eigenvalue
/// of S = B^T B by the trigonometric (Cardano) formula, as the reference does, with acos
/// and cos from basic operations so that CPU and GPU agree bit for bit (its error,
/// ~eps lambda_max, is that of any method working on the formed B^T B).
BP_DEV static inline BP_T BP_FN(SigmaMinScaled)(const int dim, const BP_T *B) {
  if (dim == 2) {
    const BP_T n1 = B[0] * B[0] + B[1] * B[1], n2 = B[2] * B[2] + B[3] * B[3];
    const BP_T t = 0.5 * (n1 - n2), s0 = B[0] * B[2] + B[1] * B[3];
    const BP_T smax = BP_SQRT(0.5 * (n1 + n2) + BP_SQRT(t * t + s0 * s0));
    return BP_FABS(BP_FN(MatDet)(2, B)) / smax;
  }
  BP_T S[9];
  BP_UNROLL
  for (int i = 0; i < 3; i++) BP_UNROLL
  for (int j = i; j < 3; j++) {
    BP_T sum = BP_SET(0.0);
    BP_UNROLL
    for (int c = 0; c < 3; c++) sum += B[c + 3 * i] * B[c + 3 * j];
    S[i + 3 * j] = sum;
  }
  const BP_T q = (S[0] + S[4] + S[8]) / 3.0;
  const BP_T b00 = S[0] - q, b11 = S[4] - q, b22 = S[8] - q;
  const BP_T s01 = S[3], s02 = S[6], s12 = S[7];
  const BP_T p2 =
      (b00 * b00 + b11 * b11 + b22 * b22 + 2.0 * (s01 * s01 + s02 * s02 + s12 * s12)) / 6.0;
  BP_T lmin = q;
  const BP_M pos = p2 > 0.0;
  if (BP_ANY(pos)) {
    const BP_T p = BP_SQRT(p2);
    const BP_T det = b00 * (b11 * b22 - s12 * s12) - s01 * (s01 * b22 - s12 * s02) +
                     s02 * (s01 * s12 - b11 * s02);
    BP_T r = det / (2.0 * p2 * p);
    r = BP_SEL(r < -1.0, BP_SET(-1.0), BP_SEL(r > 1.0, BP_SET(1.0), r));
    // lambda_min = q + 2p cos(acos(r)/3 + 2pi/3) = q - 2p cos(pi/3 - acos(r)/3)
    const double pi_3 = 1.0471975511965977462;
    const BP_T l = q - 2.0 * p * BP_FN(CosSeries)(pi_3 - BP_FN(Acos)(r) / 3.0);
    lmin = BP_SEL(pos, l, lmin);
  }
  return BP_SQRT(BP_FMAX(lmin, BP_SET(0.0)));
}

/// Smallest singular value of J (1D: J itself, method spec 5.4); defined by the
/// instantiating header.
BP_DEV static inline BP_T BP_FN(SigmaMin)(const int dim, const BP_T *J);

/// Smooth step S(x; eps) of the viscosity switch (method spec 5.3).
BP_DEV static inline BP_T BP_FN(SmoothStep)(BP_T x, double eps) {
  const BP_T y = (x + eps) / (2.0 * eps);
  const BP_T r = BP_SEL(y > 1.0, BP_SET(1.0), (3.0 - 2.0 * y) * y * y);
  return BP_SEL(y < 0.0, BP_SET(0.0), r);
}

/// The point kernel (method spec 5.2-5.4, 5.7) in dimension `dim` (pass a compile-time
/// constant where possible: the small matrices then stay in registers). Inputs at one
/// quadrature point: current Jacobian J, reference velocity gradient Gref[c + dim*g] =
/// dv_c/dxi_g (read only with viscosity), initial inverse Jacobian J0inv, R0 = rho0 |J0| w,
/// weight w, energy e_hat (unclamped), the zone's material. Outputs: S = w |J| sigma J^{-T},
/// *dt_q = cfl/(1/dt) or +inf when the point does not constrain the step; returns det J
/// (the caller zeroes the step estimate when it is not positive).
BP_DEV static inline BP_T BP_FN(PointStress)(const int dim, const BlastQPointParams *par,
                                             const BlastMaterial *mat, const BP_T *J,
                                             const BP_T *Gref, const BP_T *J0inv, BP_T R0, BP_T w,
                                             BP_T e_hat, BP_T *S, BP_T *dt_q) {
  const BP_T zero = BP_SET(0.0);
  const BP_T det = BP_FN(MatDet)(dim, J);
  BP_T invJ[9];
  BP_FN(MatAdjugate)(dim, J, invJ);
  for (int i = 0; i < dim * dim; i++) invJ[i] = invJ[i] / det;
  const BP_T rho = R0 / det / w;
  const BP_T E = BP_FMAX(zero, e_hat);
  BP_T p, cs;
  BP_FN(Eos)(mat, rho, E, &p, &cs);
  BP_T sigma[9];
  for (int i = 0; i < dim * dim; i++) sigma[i] = zero;
  for (int c = 0; c < dim; c++) sigma[c + dim * c] = -p;
  BP_T mu = zero;
  if (par->visc) {
    BP_T G[9], eps[9];  // physical velocity gradient, its symmetric part
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) {
        BP_T sum = zero;
        for (int h = 0; h < dim; h++) sum += Gref[c + dim * h] * invJ[h + dim * g];
        G[c + dim * g] = sum;
      }
    BP_T vort = BP_SET(1.0);
    if (par->vort) {
      BP_T tr = zero, fro = zero;
      for (int c = 0; c < dim; c++) tr += G[c + dim * c];
      for (int i = 0; i < dim * dim; i++) fro += G[i] * G[i];
      fro = BP_SQRT(fro);
      vort = BP_SEL(fro > 0.0, BP_FABS(tr) / fro, vort);
    }
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) eps[c + dim * g] = 0.5 * (G[c + dim * g] + G[g + dim * c]);
    BP_T mu1, d1[3];
    BP_FN(SymEigMin)(dim, eps, &mu1, d1);
    // Directional length scale through the Jacobian from the initial configuration.
    BP_T nd = zero, nf = zero, J0d[3];
    for (int h = 0; h < dim; h++) {
      BP_T sum = zero;
      for (int g = 0; g < dim; g++) sum += J0inv[h + dim * g] * d1[g];
      J0d[h] = sum;
    }
    for (int c = 0; c < dim; c++) {
      BP_T sum = zero;
      for (int h = 0; h < dim; h++) sum += J[c + dim * h] * J0d[h];
      nf += sum * sum;
      nd += d1[c] * d1[c];
    }
    const BP_T h = par->h0 * BP_SQRT(nf) / BP_SQRT(nd);
    const double eps0 = 1e-12;
    mu = 2.0 * rho * h * h * BP_FABS(mu1) +
         0.5 * rho * h * cs * vort * (1.0 - BP_FN(SmoothStep)(mu1 - 2.0 * eps0, eps0));
    for (int i = 0; i < dim * dim; i++) sigma[i] += mu * eps[i];
  }
  // S = (sigma J^{-T}) w |J|
  const BP_T wdet = w * det;
  for (int c = 0; c < dim; c++)
    for (int g = 0; g < dim; g++) {
      BP_T sum = zero;
      for (int h = 0; h < dim; h++) sum += sigma[c + dim * h] * invJ[g + dim * h];
      S[c + dim * g] = sum * wdet;
    }
  const BP_T hmin = BP_FN(SigmaMin)(dim, J) / (double)par->order_k;
  const BP_T inv_dt = cs / hmin + 2.5 * mu / rho / hmin / hmin;
  *dt_q = BP_SEL(inv_dt > 0.0, par->cfl * (1.0 / inv_dt), BP_SET(HUGE_VAL));
  return det;
}

/// The F_z^T v integrand at a point: the sum over i = c + dim g ascending of S[i] Gv[i]
/// (S and the reference velocity gradient Gv column-major).
BP_DEV static inline BP_T BP_FN(PointWork)(const int dim, const BP_T *S, const BP_T *Gv) {
  BP_T t = BP_SET(0.0);
  for (int i = 0; i < dim * dim; i++) t += S[i] * Gv[i];
  return t;
}

// The instantiation is complete: its macros are free for the next one.
#undef BP_T
#undef BP_M
#undef BP_FN
#undef BP_DEV
#undef BP_UNROLL
#undef BP_SET
#undef BP_TRUE
#undef BP_SEL
#undef BP_ANY
#undef BP_NOT
#undef BP_SQRT
#undef BP_FABS
#undef BP_FMAX
