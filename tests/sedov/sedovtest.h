// Helpers shared by the Sedov tests: integrals of the exact profile over the blast region
// in physical space (composite Gauss-Legendre in r, independent of the similarity-space
// quadrature the module uses for alpha), and residuals of the Euler equations.
#ifndef BLAST_SEDOVTEST_H
#define BLAST_SEDOVTEST_H

#include <math.h>

#include "fe.h"
#include "problems/sedov_exact.h"
#include "testlib.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/// Measure of the full symmetric blast: 2 dr (slab, both sides), 2 pi r dr, 4 pi r^2 dr.
static inline double SedovMeasure(int dim, double r) {
  return dim == 1 ? 2.0 : dim == 2 ? 2 * M_PI * r : 4 * M_PI * r * r;
}

/// Mass, kinetic and internal energy of the profile at time t over 0 <= r < r2, by the
/// 20-point Gauss-Legendre rule on `panels` panels [r2 (k/n)^4, r2 ((k+1)/n)^4] (graded
/// toward the center, where rho ~ r^(d/(gamma-1)) is not smooth for large gamma).
/// Returns nonzero on error.
static inline int SedovProfileIntegrals(BlastSedov s, int dim, double gamma, double t, int panels,
                                        double *mass, double *ekin, double *eint) {
  enum { NQ = 20 };
  double x[NQ], w[NQ];
  BlastCall(BlastGaussLegendre(NQ, x, w));
  const double r2 = BlastSedovShockRadius(s, t);
  double m = 0, ek = 0, ei = 0;
  for (int k = 0; k < panels; k++) {
    double a = r2 * pow((double)k / panels, 4), b = r2 * pow((double)(k + 1) / panels, 4);
    for (int q = 0; q < NQ; q++) {
      double r = a + x[q] * (b - a), rho, u, p;
      BlastCall(BlastSedovEval(s, t, r, &rho, &u, &p));
      double dv = w[q] * (b - a) * SedovMeasure(dim, r);
      m += rho * dv;
      ek += 0.5 * rho * u * u * dv;
      ei += p / (gamma - 1) * dv;
    }
  }
  *mass = m, *ekin = ek, *eint = ei;
  return 0;
}

/// Fourth-order central difference of component `c` (0 rho, 1 u, 2 p) in r (dir 0) or t.
static inline double SedovFD(BlastSedov s, double t, double r, int c, int dir, double h) {
  double v[4];
  const double off[4] = {-2, -1, 1, 2};
  for (int k = 0; k < 4; k++) {
    double rr = dir == 0 ? r + off[k] * h : r, tt = dir == 0 ? t : t + off[k] * h, q[3];
    BlastSedovEval(s, tt, rr, &q[0], &q[1], &q[2]);
    v[k] = q[c];
  }
  return (v[0] - 8 * v[1] + 8 * v[2] - v[3]) / (12 * h);
}

/// Relative residuals of the radially symmetric Euler equations at (r, t):
///   mass:     rho_t + u rho_r + rho (u_r + (d-1) u/r) = 0
///   momentum: u_t + u u_r + p_r / rho = 0
///   entropy:  p_t + u p_r + gamma p (u_r + (d-1) u/r) = 0
/// each divided by the sum of the magnitudes of its terms.
static inline void SedovPDEResiduals(BlastSedov s, int dim, double gamma, double t, double r,
                                     double hrel, double res[3]) {
  double rho, u, p;
  BlastSedovEval(s, t, r, &rho, &u, &p);
  const double r2 = BlastSedovShockRadius(s, t), hr = hrel * r2, ht = hrel * t;
  double rho_r = SedovFD(s, t, r, 0, 0, hr), rho_t = SedovFD(s, t, r, 0, 1, ht);
  double u_r = SedovFD(s, t, r, 1, 0, hr), u_t = SedovFD(s, t, r, 1, 1, ht);
  double p_r = SedovFD(s, t, r, 2, 0, hr), p_t = SedovFD(s, t, r, 2, 1, ht);
  double div = (dim - 1) * u / r;
  res[0] = fabs(rho_t + u * rho_r + rho * (u_r + div)) /
           (fabs(rho_t) + fabs(u * rho_r) + fabs(rho * u_r) + fabs(rho * div));
  res[1] = fabs(u_t + u * u_r + p_r / rho) / (fabs(u_t) + fabs(u * u_r) + fabs(p_r / rho));
  res[2] = fabs(p_t + u * p_r + gamma * p * (u_r + div)) /
           (fabs(p_t) + fabs(u * p_r) + fabs(gamma * p * u_r) + fabs(gamma * p * div));
}

#endif  // BLAST_SEDOVTEST_H
