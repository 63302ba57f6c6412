/// @file boundary_tet.c
/// @brief Tables of the wall stencils (boundary.h): the consistent-normal pairs of
/// triangular faces (BlastWallTrianglePairs) and GLL derivatives.
#include "blast.h"
#include "boundary.h"
#include "fe.h"
#include "geom_basis.h"
#include "simplex.h"

// Collapsed Gauss rule (s = u, t = (1 - u) v, Jacobian 1 - u) of 3 k / 2 + 1 points a
// direction: exact for the integrand's degree 3 k - 2 (3 k - 1 in u with the Jacobian).
int BlastWallTrianglePairs(int k, double *A) {
  const int nn = BlastGeomNumNodes(BLAST_GEOM_TRIANGLE, k), npair = nn * (nn - 1) / 2;
  const int ng = 3 * k / 2 + 1;
  double xg[BLAST_MAX_Q1D], wg[BLAST_MAX_Q1D], phi[15], dphi[30];
  BlastCall(BlastGaussLegendre(ng, xg, wg));
  for (int e = 0; e < nn * npair; e++) A[e] = 0.0;
  for (int i = 0; i < ng; i++)
    for (int j = 0; j < ng; j++) {
      const double xi[2] = {xg[i], (1.0 - xg[i]) * xg[j]}, wt = wg[i] * wg[j] * (1.0 - xg[i]);
      BlastGeomLagrange(BLAST_GEOM_TRIANGLE, k, xi, phi, dphi);
      for (int a = 0; a < nn; a++)
        for (int b = 0, q = 0; b < nn; b++)
          for (int c = b + 1; c < nn; c++, q++)
            A[a * npair + q] +=
                wt * phi[a] * (dphi[2 * b] * dphi[2 * c + 1] - dphi[2 * c] * dphi[2 * b + 1]);
    }
  return 0;
}

int BlastWallTriangleNodePairs(int k, int a, double *G) {
  const int nn = BlastGeomNumNodes(BLAST_GEOM_TRIANGLE, k);
  int j[3] = {0, 0, 0};
  double dphi[30], eta[2];
  BlastSimplexLatticePoint(2, k, a, j);
  eta[0] = (double)j[0] / k, eta[1] = (double)j[1] / k;
  BlastGeomLagrange(BLAST_GEOM_TRIANGLE, k, eta, NULL, dphi);
  for (int b = 0, q = 0; b < nn; b++)
    for (int c = b + 1; c < nn; c++, q++)
      G[q] = dphi[2 * b] * dphi[2 * c + 1] - dphi[2 * c] * dphi[2 * b + 1];
  return 0;
}

// D[a][m] = derivative of the GLL Lagrange polynomial m of order k at GLL node a.
void BlastWallGllDerivatives(int k, const double *x,
                             double D[BLAST_MAX_ORDER + 1][BLAST_MAX_ORDER + 1]) {
  for (int a = 0; a <= k; a++)
    for (int m = 0; m <= k; m++) {
      double v = 0.0;
      if (a == m) {
        for (int l = 0; l <= k; l++)
          if (l != a) v += 1.0 / (x[a] - x[l]);
      } else {
        double num = 1.0, den = 1.0;
        for (int l = 0; l <= k; l++) {
          if (l != m) den *= x[m] - x[l];
          if (l != m && l != a) num *= x[a] - x[l];
        }
        v = num / den;
      }
      D[a][m] = v;
    }
}
