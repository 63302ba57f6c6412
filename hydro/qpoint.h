/// @file qpoint.h
/// @brief Single-source quadrature-point physics (method spec section 5), compiled for the
/// host (C11) and the device (CUDA): small dense kernels, ideal-gas EOS, artificial
/// viscosity, stress and the per-point time-step estimate.
///
/// Small matrices are column-major: A[i + dim*j] = A_ij. For the Jacobian,
/// J[c + dim*g] = dx_c / dxi_g (row = physical component, column = reference direction).
#ifndef BLAST_QPOINT_H
#define BLAST_QPOINT_H

#include <float.h>
#include <math.h>

#include "host_device.h"  // BLAST_HOST_DEVICE, BLAST_UNROLL (base/)

/// Parameters of the point kernel that are constant over a run.
typedef struct {
  int dim;      ///< 1, 2 or 3
  int order_k;  ///< kinematic order (h_min = sigma_min(J)/k)
  int visc;     ///< artificial viscosity on
  int vort;     ///< vorticity factor on the linear viscosity term (Rayleigh-Taylor)
  double h0;    ///< initial mean length scale (|Omega_0|/N_Z)^(1/d)/k
  double cfl;   ///< CFL factor
} BlastQPointParams;

/// Order of the tangled-zone report (BlastQDataResult.tangled_det): whether determinant a
/// is reported before b. NaN first, then the smaller value, so the report of a zone is its
/// smallest determinant whatever the order its points are visited in (CPU and GPU agree).
BLAST_HOST_DEVICE static inline int BlastDetWorse(double a, double b) {
  return a != a ? b == b : (b == b && a < b);
}

/// A point of zone z in the zone's time-step estimate and tangled-zone report: a
/// determinant det that is not positive (or NaN) reports z, keeping its worst determinant
/// (BlastDetWorse; the first zone met is the one reported), and sets dt_min to 0; else
/// dt_min becomes the smaller of dt_min and the point's estimate dtq.
BLAST_HOST_DEVICE static inline void BlastQPointReport(int z, double det, double dtq,
                                                       double *dt_min, int *tangled,
                                                       double *tangled_det) {
  if (!(det > 0.0)) {
    if (*tangled < 0)
      *tangled = z, *tangled_det = det;
    else if (*tangled == z && BlastDetWorse(det, *tangled_det))
      *tangled_det = det;
    *dt_min = 0.0;
  } else if (dtq < *dt_min) {
    *dt_min = dtq;
  }
}

BLAST_HOST_DEVICE static inline double BlastMatDet(int dim, const double *A) {
  if (dim == 1) return A[0];
  if (dim == 2) return A[0] * A[3] - A[2] * A[1];
  return A[0] * (A[4] * A[8] - A[7] * A[5]) - A[3] * (A[1] * A[8] - A[7] * A[2]) +
         A[6] * (A[1] * A[5] - A[4] * A[2]);
}

/// Adjugate (transpose of the cofactor matrix): A adj(A) = det(A) I.
BLAST_HOST_DEVICE static inline void BlastMatAdjugate(int dim, const double *A, double *adj) {
  if (dim == 1) {
    adj[0] = 1.0;
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

/// Jacobi rotation annihilating the (p,q) entry of a symmetric 2x2 block with diagonal
/// (app, aqq) and off-diagonal apq: returns t = tan(theta) (method spec 5.6).
BLAST_HOST_DEVICE static inline double BlastJacobiTangent(double app, double apq, double aqq) {
  const double zeta = (aqq - app) / (2.0 * apq), az = fabs(zeta);
  const double t = az < 1.0 / sqrt(DBL_EPSILON) ? 1.0 / (az + sqrt(1.0 + zeta * zeta)) : 0.5 / az;
  return zeta >= 0.0 ? t : -t;
}

/// Smallest eigenvalue mu1 and an eigenvector d1 of a symmetric dim x dim matrix A.
/// 2x2: one Jacobi rotation (exact); 3x3: cyclic Jacobi to convergence. For A = a I the
/// eigenvector is e_x (the reference's choice).
BLAST_HOST_DEVICE static inline void BlastSymEigMin(int dim, const double *A, double *mu1,
                                                    double *d1) {
  if (dim == 1) {
    *mu1 = A[0];
    d1[0] = 1.0;
    return;
  }
  if (dim == 2) {
    double d0 = A[0], d12 = A[2], d3 = A[3], c = 1.0, s = 0.0;
    if (d12 != 0.0) {
      const double t = BlastJacobiTangent(d0, d12, d3);
      c = 1.0 / sqrt(1.0 + t * t), s = c * t;
      d0 -= t * d12, d3 += t * d12;
    }
    if (d0 <= d3) {
      *mu1 = d0, d1[0] = c, d1[1] = -s;
    } else {
      *mu1 = d3, d1[0] = s, d1[1] = c;
    }
    return;
  }
  double a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) a[i][j] = A[i + 3 * j];
  // Cyclic sweeps until every off-diagonal entry is zero; entries below round-off
  // relative to their diagonal pair are set to zero instead of rotated (their effect on
  // the eigenvalues is of second order), which ends the iteration after a few sweeps.
  for (int sweep = 0; sweep < 32; sweep++) {
    if (a[0][1] == 0.0 && a[0][2] == 0.0 && a[1][2] == 0.0) break;
    BLAST_UNROLL
    for (int p = 0; p < 2; p++) BLAST_UNROLL
    for (int q = p + 1; q < 3; q++) {
      const double apq = a[p][q];
      if (fabs(apq) <= 1e-18 * (fabs(a[p][p]) + fabs(a[q][q]))) {
        a[p][q] = a[q][p] = 0.0;
        continue;
      }
      const double t = BlastJacobiTangent(a[p][p], apq, a[q][q]);
      const double c = 1.0 / sqrt(1.0 + t * t), s = t * c, tau = s / (1.0 + c);
      a[p][p] -= t * apq;
      a[q][q] += t * apq;
      a[p][q] = a[q][p] = 0.0;
      const int r = 3 - p - q;  // the third index
      const double arp = a[r][p], arq = a[r][q];
      a[r][p] = a[p][r] = arp - s * (arq + tau * arp);
      a[r][q] = a[q][r] = arq + s * (arp - tau * arq);
      BLAST_UNROLL
      for (int i = 0; i < 3; i++) {
        const double vip = v[i][p], viq = v[i][q];
        v[i][p] = vip - s * (viq + tau * vip);
        v[i][q] = viq + s * (vip - tau * viq);
      }
    }
  }
  // The smallest eigenvalue (ties: lowest index) and its vector, selected without a
  // run-time array index (keeps a and v in registers on GPUs).
  double mu = a[0][0], w0 = v[0][0], w1 = v[1][0], w2 = v[2][0];
  if (a[1][1] < mu) mu = a[1][1], w0 = v[0][1], w1 = v[1][1], w2 = v[2][1];
  if (a[2][2] < mu) mu = a[2][2], w0 = v[0][2], w1 = v[1][2], w2 = v[2][2];
  *mu1 = mu;
  d1[0] = w0, d1[1] = w1, d1[2] = w2;
}

/// The Horner steps of BlastAsinSeries in z = x^2 after its leading coefficient, written
/// once for the scalar series here and the CPU's vector-lane copy (qpoint_lanes.h, where
/// p and z are vectors): the same operations on every lane.
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

/// asin(x) for |x| <= 1/2 by its Taylor series (26 terms, truncation < 5e-19 relative),
/// from basic IEEE operations only: the same bits on every CPU and GPU.
BLAST_HOST_DEVICE static inline double BlastAsinSeries(double x) {
  const double z = x * x;
  double p = BLAST_ASIN_SERIES_LEAD;
  BLAST_ASIN_SERIES_STEPS(p, z)
  return x * p;
}

/// acos on [-1, 1] through the asin series (half-angle form for |r| > 1/2).
BLAST_HOST_DEVICE static inline double BlastAcos(double r) {
  const double pi = 3.14159265358979323846;
  if (r > 0.5) return 2.0 * BlastAsinSeries(sqrt(0.5 * (1.0 - r)));
  if (r < -0.5) return pi - 2.0 * BlastAsinSeries(sqrt(0.5 * (1.0 + r)));
  return 0.5 * pi - BlastAsinSeries(r);
}

/// The Horner steps of BlastCosSeries after its leading coefficient (shared with
/// qpoint_lanes.h as those of the asin series).
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

/// cos(u) for |u| <= pi/3 by its Taylor series (11 terms, truncation < 3e-21).
BLAST_HOST_DEVICE static inline double BlastCosSeries(double u) {
  const double z = u * u;
  double p = BLAST_COS_SERIES_LEAD;
  BLAST_COS_SERIES_STEPS(p, z)
  return p;
}

/// sin(u) for |u| <= pi/4 by its Taylor series (10 terms, truncation < 1e-22).
BLAST_HOST_DEVICE static inline double BlastSinSeries(double u) {
  const double z = u * u;
  double p = -8.22063524662433e-18;
  p = p * z + 2.8114572543455206e-15;
  p = p * z + -7.647163731819816e-13;
  p = p * z + 1.6059043836821613e-10;
  p = p * z + -2.505210838544172e-08;
  p = p * z + 2.7557319223985893e-06;
  p = p * z + -0.0001984126984126984;
  p = p * z + 0.008333333333333333;
  p = p * z + -0.16666666666666666;
  p = p * z + 1;
  return u * p;
}

/// cos(x) for |x| < 1e5 from basic IEEE operations only (the same bits on every CPU and
/// GPU, unlike libm and CUDA's cos): x = k pi/2 + u with pi/2 split in three parts whose
/// first two have 33 significant bits (k pi/2 exact for |k| < 2^20), then the series.
BLAST_HOST_DEVICE static inline double BlastCos(double x) {
  const double two_over_pi = 0.63661977236758134308, p1 = 1.57079632673412561417e+00,
               p2 = 6.07710050630396597660e-11, p3 = 2.02226624879595063154e-21;
  const double k = nearbyint(x * two_over_pi);
  const double u = ((x - k * p1) - k * p2) - k * p3;
  const int q = (int)(k - 4.0 * floor(k * 0.25));  // k mod 4 in [0, 4)
  switch (q) {
    case 0:
      return BlastCosSeries(u);
    case 1:
      return -BlastSinSeries(u);
    case 2:
      return -BlastCosSeries(u);
    default:
      return BlastSinSeries(u);
  }
}

/// Smallest singular value of J (1D: J itself, method spec 5.4).
BLAST_HOST_DEVICE static inline double BlastSigmaMin(int dim, const double *J) {
  if (dim == 1) return J[0];
  // Power-of-two scaling keeps the squares below from over/underflowing.
  double mx = 0.0;
  for (int i = 0; i < dim * dim; i++) mx = fmax(mx, fabs(J[i]));
  if (mx == 0.0) return 0.0;
  int e;
  frexp(mx, &e);
  // Scaling by 2^-e: a product with the power of two rounds exactly as ldexp does (one
  // correct rounding of the same exact value), in a tenth of the library calls.
  const int exact = e > -1000 && e < 1000;
  const double down = exact ? ldexp(1.0, -e) : 0.0, up = exact ? ldexp(1.0, e) : 0.0;
  double B[9];
  for (int i = 0; i < dim * dim; i++) B[i] = exact ? J[i] * down : ldexp(J[i], -e);
  if (dim == 2) {
    const double n1 = B[0] * B[0] + B[1] * B[1], n2 = B[2] * B[2] + B[3] * B[3];
    const double t = 0.5 * (n1 - n2), s0 = B[0] * B[2] + B[1] * B[3];
    const double smax = sqrt(0.5 * (n1 + n2) + sqrt(t * t + s0 * s0));
    const double r2 = fabs(BlastMatDet(2, B)) / smax;
    return exact ? r2 * up : ldexp(r2, e);
  }
  // Smallest eigenvalue of S = B^T B by the trigonometric (Cardano) formula, as the
  // reference does, with acos and cos from basic operations (BlastAcos, BlastCosSeries)
  // so that CPU and GPU agree bit for bit. Its error, ~eps lambda_max, is that of any
  // method working on the formed B^T B.
  double S[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double sum = 0.0;
      for (int c = 0; c < 3; c++) sum += B[c + 3 * i] * B[c + 3 * j];
      S[i + 3 * j] = sum;
    }
  const double q = (S[0] + S[4] + S[8]) / 3.0;
  const double b00 = S[0] - q, b11 = S[4] - q, b22 = S[8] - q;
  const double s01 = S[3], s02 = S[6], s12 = S[7];
  const double p2 =
      (b00 * b00 + b11 * b11 + b22 * b22 + 2.0 * (s01 * s01 + s02 * s02 + s12 * s12)) / 6.0;
  double lmin = q;
  if (p2 > 0.0) {
    const double p = sqrt(p2);
    const double det = b00 * (b11 * b22 - s12 * s12) - s01 * (s01 * b22 - s12 * s02) +
                       s02 * (s01 * s12 - b11 * s02);
    double r = det / (2.0 * p2 * p);
    r = r < -1.0 ? -1.0 : (r > 1.0 ? 1.0 : r);
    // lambda_min = q + 2p cos(acos(r)/3 + 2pi/3) = q - 2p cos(pi/3 - acos(r)/3)
    const double pi_3 = 1.0471975511965977462;
    lmin = q - 2.0 * p * BlastCosSeries(pi_3 - BlastAcos(r) / 3.0);
  }
  const double r3 = sqrt(fmax(lmin, 0.0));
  return exact ? r3 * up : ldexp(r3, e);
}

/// 2D Taylor-Green energy source Q(x, y) (method spec 7.2).
BLAST_HOST_DEVICE static inline double BlastTaylorGreenQ(const double *x) {
  const double pi = 3.14159265358979323846;
  return 3.0 * pi / 8.0 *
         (BlastCos(3.0 * pi * x[0]) * BlastCos(pi * x[1]) -
          BlastCos(pi * x[0]) * BlastCos(3.0 * pi * x[1]));
}

/// Smooth step S(x; eps) of the viscosity switch (method spec 5.3).
BLAST_HOST_DEVICE static inline double BlastSmoothStep(double x, double eps) {
  const double y = (x + eps) / (2.0 * eps);
  if (y < 0.0) return 0.0;
  if (y > 1.0) return 1.0;
  return (3.0 - 2.0 * y) * y * y;
}

/// The point kernel (method spec 5.2-5.4, 5.7) in dimension `dim` (pass a compile-time
/// constant where possible: the small matrices then stay in registers). Inputs at one
/// quadrature point: current
/// Jacobian J, reference velocity gradient Gref[c + dim*g] = dv_c/dxi_g (read only with
/// viscosity), initial inverse Jacobian J0inv, R0 = rho0 |J0| w, weight w, energy e_hat
/// (unclamped), gamma. Outputs: S = w |J| sigma J^{-T}, *dt_q = cfl/(1/dt) or +inf when
/// the point does not constrain the step; returns det J (the caller zeroes the step
/// estimate when it is negative).
BLAST_HOST_DEVICE static inline double BlastQPointStress(
    const int dim, const BlastQPointParams *par, const double *J, const double *Gref,
    const double *J0inv, double R0, double w, double e_hat, double gamma, double *S, double *dt_q) {
  const double det = BlastMatDet(dim, J);
  double invJ[9];
  BlastMatAdjugate(dim, J, invJ);
  for (int i = 0; i < dim * dim; i++) invJ[i] /= det;
  const double rho = R0 / det / w;
  const double E = fmax(0.0, e_hat);
  const double p = (gamma - 1.0) * rho * E;
  const double cs = sqrt(gamma * (gamma - 1.0) * E);
  double sigma[9];
  for (int i = 0; i < dim * dim; i++) sigma[i] = 0.0;
  for (int c = 0; c < dim; c++) sigma[c + dim * c] = -p;
  double mu = 0.0;
  if (par->visc) {
    double G[9], eps[9];  // physical velocity gradient, its symmetric part
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) {
        double sum = 0.0;
        for (int h = 0; h < dim; h++) sum += Gref[c + dim * h] * invJ[h + dim * g];
        G[c + dim * g] = sum;
      }
    double vort = 1.0;
    if (par->vort) {
      double tr = 0.0, fro = 0.0;
      for (int c = 0; c < dim; c++) tr += G[c + dim * c];
      for (int i = 0; i < dim * dim; i++) fro += G[i] * G[i];
      fro = sqrt(fro);
      if (fro > 0.0) vort = fabs(tr) / fro;
    }
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) eps[c + dim * g] = 0.5 * (G[c + dim * g] + G[g + dim * c]);
    double mu1, d1[3];
    BlastSymEigMin(dim, eps, &mu1, d1);
    // Directional length scale through the Jacobian from the initial configuration.
    double nd = 0.0, nf = 0.0, J0d[3];
    for (int h = 0; h < dim; h++) {
      double sum = 0.0;
      for (int g = 0; g < dim; g++) sum += J0inv[h + dim * g] * d1[g];
      J0d[h] = sum;
    }
    for (int c = 0; c < dim; c++) {
      double sum = 0.0;
      for (int h = 0; h < dim; h++) sum += J[c + dim * h] * J0d[h];
      nf += sum * sum;
      nd += d1[c] * d1[c];
    }
    const double h = par->h0 * sqrt(nf) / sqrt(nd);
    const double eps0 = 1e-12;
    mu = 2.0 * rho * h * h * fabs(mu1) +
         0.5 * rho * h * cs * vort * (1.0 - BlastSmoothStep(mu1 - 2.0 * eps0, eps0));
    for (int i = 0; i < dim * dim; i++) sigma[i] += mu * eps[i];
  }
  // S = (sigma J^{-T}) w |J|
  const double wdet = w * det;
  for (int c = 0; c < dim; c++)
    for (int g = 0; g < dim; g++) {
      double sum = 0.0;
      for (int h = 0; h < dim; h++) sum += sigma[c + dim * h] * invJ[g + dim * h];
      S[c + dim * g] = sum * wdet;
    }
  const double hmin = BlastSigmaMin(dim, J) / par->order_k;
  const double inv_dt = cs / hmin + 2.5 * mu / rho / hmin / hmin;
  *dt_q = inv_dt > 0.0 ? par->cfl * (1.0 / inv_dt) : HUGE_VAL;
  return det;
}

#endif  // BLAST_QPOINT_H
