/// @file fe.h
/// @brief 1D quadrature rules and bases on [0,1], and tensor-product tables on [0,1]^d
/// (method spec sections 2 and 4).
#ifndef BLAST_FE_H
#define BLAST_FE_H

#include "blast.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The quadrature order a run uses: [fem] order_quadrature, or for -1 the method's
/// default 3k + m - 1 (method spec section 4).
static inline int BlastQuadratureOrder(int order_quadrature, int k, int m) {
  return order_quadrature > 0 ? order_quadrature : 3 * k + m - 1;
}

enum { BLAST_MAX_ORDER = 8, BLAST_MAX_Q1D = 24 };

/// n-point Gauss-Legendre rule on [0,1] (points ascending, weights summing to 1),
/// computed with the reference's algorithm (closed forms for n <= 3, Newton on the
/// three-term recurrence otherwise). 1 <= n <= BLAST_MAX_Q1D.
int BlastGaussLegendre(int n, double *x, double *w);
/// n-point Gauss-Lobatto-Legendre points on [0,1] (ascending, including 0 and 1) and
/// weights (may be NULL). 2 <= n <= BLAST_MAX_Q1D (n = 1 gives the midpoint).
int BlastGaussLobatto(int n, double *x, double *w);
/// Lagrange basis through `np` nodes: values phi[a] and derivatives dphi[a] at x
/// (either output may be NULL).
void BlastLagrange1D(int np, const double *nodes, double x, double *phi, double *dphi);
/// Bernstein basis of degree m >= 0 on [0,1]: values b[i] and derivatives db[i] at x
/// (either may be NULL).
void BlastBernstein1D(int m, double x, double *b, double *db);

/// Quadrature order rule of the spec: oq if > 0, else 3k+m-1; points per direction
/// floor(oq/2)+1.
int BlastQuadraturePoints1D(int k, int m, int order_quadrature);

/// Tables for one zone geometry: kinematic (H1) basis values and reference gradients,
/// thermodynamic (L2, Bernstein) basis values, at the zone's quadrature points.
///   - Tensor zones (segment, quadrilateral, hexahedron): GLL-nodal Q_k and Bernstein Q_m
///     at the tensor Gauss-Legendre points. Index conventions (x fastest everywhere):
///     point q = l1 + n l2 + n^2 l3, basis a = a1 + (k+1) a2 + (k+1)^2 a3.
///   - Simplices (triangle, tetrahedron; BlastElementTablesCreate): P_k with nodes at the
///     equispaced lattice of order k (geom_basis.h) and the Bernstein basis of degree m
///     (simplex.h), both in lattice order, at the fully symmetric rule of the quadrature
///     order (simplex_rules.h: positive weights, interior points, fewest points), or where
///     none is stored the collapsed Gauss rule of simplex.h with q1d points per collapsed
///     direction. The 1D data (q1d_x, q1d_w, b1d, g1d, l1d) belong
///     to the sum-factorised kernels of tensor zones and are zero; h1_nodes holds the
///     lattice coordinates j/k.
typedef struct {
  int geom;  ///< BlastGeom of the zones (geom.h)
  int dim, k, m;
  int q1d;       ///< quadrature points per (collapsed) direction
  int nqp;       ///< q1d^dim (simplices: the rule's points)
  int h1_nd;     ///< (k+1)^dim; simplices (k+1)(k+2)/2, (k+1)(k+2)(k+3)/6
  int l2_nd;     ///< (m+1)^dim; simplices likewise with m
  double *qp_w;  ///< [nqp] weights (w1 w2) w3
  double *qp_x;  ///< [nqp*dim] reference coordinates
  double *h1_B;  ///< [nqp*h1_nd] phi_a(q)
  double *h1_G;  ///< [(nqp*h1_nd)*dim] d phi_a / d xi_g (q), index (q*h1_nd + a)*dim + g
  double *l2_B;  ///< [nqp*l2_nd] psi_i(q)
  /// Padded tables only (BlastElementTablesPad; NULL otherwise): the weights the point
  /// kernel divides by, [nqp], a padded point's those of point 0 (qp_w is 0 there).
  double *qp_wk;
  // 1D data
  double h1_nodes[BLAST_MAX_ORDER + 1];  ///< GLL nodes (simplices, mixed meshes: j/k)
  double q1d_x[BLAST_MAX_Q1D], q1d_w[BLAST_MAX_Q1D];
  /// 1D tables of the sum-factorised kernels (pa_kernels.h), point-major: T[l*(k+1) + a]
  /// H1 values and derivatives, T[l*(m+1) + i] L2 (Bernstein) values at 1D point l.
  double b1d[BLAST_MAX_Q1D * (BLAST_MAX_ORDER + 1)], g1d[BLAST_MAX_Q1D * (BLAST_MAX_ORDER + 1)];
  double l1d[BLAST_MAX_Q1D * (BLAST_MAX_ORDER + 1)];
} BlastTensorTables;

/// Build tables for dimension `dim`, orders k (1..8), m (0..k) and q1d points.
int BlastTensorTablesCreate(int dim, int k, int m, int q1d, BlastTensorTables **tables);
/// The tables of zones of geometry `geom` (geom.h) for the orders k (1..8), m (0..k) and
/// the quadrature order BlastQuadratureOrder(order_quadrature, k, m) = q: tensor
/// geometries get BlastTensorTablesCreate(dim, k, m, q/2 + 1) exactly; triangles and
/// tetrahedra the collapsed rule with q/2 + 1 points per direction (exact for total
/// degree q, positive weights, every point inside; simplex.c).
int BlastElementTablesCreate(int geom, int k, int m, int order_quadrature,
                             BlastTensorTables **tables);
/// The tables t padded to nqp points, h1_nd and l2_nd dofs (each at least t's), for the
/// zones of a mesh that mixes geometries (space.h): a padded dof has zero basis values and
/// gradients; a padded point repeats point 0's coordinates and gradients with weight 0
/// (kernel weight qp_wk: point 0's) and zero H1 and L2 values, so that it adds nothing to
/// any integral while the point kernel sees point 0 again (finite density and time step).
int BlastElementTablesPad(const BlastTensorTables *t, int nqp, int h1_nd, int l2_nd,
                          BlastTensorTables **tables);
/// Tensor tables t (not padded) with the H1 nodes at the equispaced points j/k instead of
/// Gauss-Lobatto's: the quadrilaterals of a mesh that mixes them with triangles, whose
/// shared edges' nodes must be the triangles' (equal for k <= 2).
int BlastTensorTablesEquispaced(BlastTensorTables *t);
void BlastTensorTablesDestroy(BlastTensorTables **tables);

/// Evaluate the H1 basis of the tables' geometry (values, and reference gradients
/// grad[a*dim + g] if grad != NULL) at a reference point xi.
void BlastH1BasisEval(const BlastTensorTables *t, const double *xi, double *val, double *grad);
/// Evaluate the Bernstein L2 basis of the tables' geometry at a reference point xi.
void BlastL2BasisEval(const BlastTensorTables *t, const double *xi, double *val);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_FE_H
