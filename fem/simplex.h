/// @file simplex.h
/// @brief Finite elements on the reference triangle and tetrahedron (geom.h): Gauss-Jacobi
/// rules, collapsed (conical product) quadrature with positive weights and every point
/// strictly inside, and the Bernstein basis of degree m in lattice order. The tables of
/// a zone geometry (fe.h's BlastElementTablesCreate) are built from them.
#ifndef BLAST_SIMPLEX_H
#define BLAST_SIMPLEX_H

#include "fe.h"
#include "geom.h"

#ifdef __cplusplus
extern "C" {
#endif

/// n-point Gauss-Jacobi rule on [0,1] for the weight (1 - x)^alpha, alpha = 0, 1 or 2:
/// exact for polynomials of degree 2n - 1 against that weight, points ascending in (0,1),
/// weights positive and summing to 1/(alpha + 1). Nodes: eigenvalues of the Jacobi matrix
/// of the three-term recurrence (Sturm-sequence bisection, one Newton step on the
/// orthonormal recurrence); weights 1 / sum_{j<n} p_j(x)^2 (Christoffel numbers).
/// 1 <= n <= BLAST_MAX_Q1D.
int BlastGaussJacobi(int n, int alpha, double *x, double *w);

/// Collapsed Gauss rule on the reference simplex of dimension dim (2: triangle, 3:
/// tetrahedron) with n points per collapsed direction, n^dim points: exact for every
/// polynomial of total degree 2n - 1. The square/cube point (u, v, w) of Gauss-Legendre
/// u, Gauss-Jacobi v (alpha = 1) and w (alpha = 2) maps to
///   triangle:    xi = (u (1 - v), v),
///   tetrahedron: xi = (u (1 - v)(1 - w), v (1 - w), w),
/// point index l_u + n l_v + n^2 l_w, weight w_u w_v w_w (positive, summing to 1/2 and
/// 1/6); every point has xi_g > 0 and sum_g xi_g < 1. x[q*dim + g], w[q].
int BlastSimplexQuadrature(int dim, int n, double *x, double *w);

/// Index in lattice order (geom.h) of the multi-index (i_0 .. i_{dim-1}) of order p on
/// the simplex of dimension dim (i_g >= 0, sum <= p).
int BlastSimplexLatticeIndex(int dim, int p, const int *i);
/// The multi-index of lattice index a (the inverse of BlastSimplexLatticeIndex).
void BlastSimplexLatticePoint(int dim, int p, int a, int *i);

/// Bernstein basis of degree m (0..BLAST_MAX_ORDER) on the reference simplex of dimension
/// dim (1..3): for the multi-index (i_1 .. i_dim) of lattice index a and i_0 = m - sum,
///   B_a = m! / (i_0! i_1! .. i_dim!) lambda_0^i_0 lambda_1^i_1 .. lambda_dim^i_dim,
/// lambda_0 = 1 - sum_g xi_g, lambda_{g+1} = xi_g: nonnegative on the simplex, summing to
/// one. Values b[a] and reference gradients db[a*dim + g] (either may be NULL).
void BlastSimplexBernstein(int dim, int m, const double *xi, double *b, double *db);

/// The centroid of the reference element of geometry geom: 1/2 per coordinate on tensor
/// geometries, 1/(d+1) on simplices.
static inline void BlastRefCentroid(int geom, double *xi) {
  const int dim = BlastGeomDim(geom);
  const double c = BlastGeomIsSimplex(geom) ? 1.0 / (dim + 1) : 0.5;
  for (int g = 0; g < dim; g++) xi[g] = c;
}

/// 1 if xi lies in the closed reference element of geom widened by tol: every
/// coordinate in [-tol, 1 + tol], and on simplices also sum_g xi_g <= 1 + tol.
static inline int BlastRefContains(int geom, const double *xi, double tol) {
  const int dim = BlastGeomDim(geom);
  double sum = 0.0;
  for (int g = 0; g < dim; g++) {
    if (!(xi[g] >= -tol && xi[g] <= 1.0 + tol)) return 0;
    sum += xi[g];
  }
  return !BlastGeomIsSimplex(geom) || sum <= 1.0 + tol;
}

#ifdef __cplusplus
}
#endif

#endif  // BLAST_SIMPLEX_H
