/// @file qpoint.h
/// @brief The quadrature-point physics for doubles, compiled for the host (C11) and the
/// device (CUDA): point_physics.h instantiated as BlastMatDet, BlastSymEigMin,
/// BlastSigmaMin, BlastPointStress, BlastPointWork, ... and the equations of state as
/// BlastEos (eos.h); the tangled-zone report; cos and the Taylor-Green source from basic
/// IEEE operations.
#ifndef BLAST_QPOINT_H
#define BLAST_QPOINT_H

#include <float.h>
#include <math.h>

#include "eos.h"
#include "host_device.h"  // BLAST_HOST_DEVICE, BLAST_UNROLL (base/)

#define BP_T            double
#define BP_M            int
#define BP_FN(name)     Blast##name
#define BP_DEV          BLAST_HOST_DEVICE
#define BP_UNROLL       BLAST_UNROLL
#define BP_SET(x)       (x)
#define BP_TRUE         1
#define BP_SEL(m, a, b) ((m) ? (a) : (b))
#define BP_ANY(m)       (m)
#define BP_NOT(m)       (!(m))
#define BP_SQRT         sqrt
#define BP_FABS         fabs
#define BP_FMAX         fmax
#include "point_physics.h"

/// Smallest singular value of J (1D: J itself, method spec 5.4): J scaled by the power of
/// two 2^-e of its largest entry, BlastSigmaMinScaled, scaled back.
BLAST_HOST_DEVICE static inline double BlastSigmaMin(const int dim, const double *J) {
  if (dim == 1) return J[0];
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
  const double r = BlastSigmaMinScaled(dim, B);
  return exact ? r * up : ldexp(r, e);
}


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

/// 2D Taylor-Green energy source Q(x, y) (method spec 7.2).
BLAST_HOST_DEVICE static inline double BlastTaylorGreenQ(const double *x) {
  const double pi = 3.14159265358979323846;
  return 3.0 * pi / 8.0 *
         (BlastCos(3.0 * pi * x[0]) * BlastCos(pi * x[1]) -
          BlastCos(pi * x[0]) * BlastCos(3.0 * pi * x[1]));
}

#endif  // BLAST_QPOINT_H
