/// @file geom_basis.h
/// @brief Equispaced Lagrange bases of order p on every reference geometry (geom.h), with
/// their nodes in lattice order: the geometry of curved zones (order p of the mesh) and
/// the H1 space on simplices (nodes at the equispaced lattice of order k).
#ifndef BLAST_GEOM_BASIS_H
#define BLAST_GEOM_BASIS_H

#include "geom.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BLAST_GEOM_BASIS_MAX_ORDER = 8 };

/// Reference coordinates of node a (lattice order) of order p on geometry geom: i/p.
void BlastGeomNode(int geom, int p, int a, double *xi);

/// The equispaced Lagrange basis of order p (1..BLAST_GEOM_BASIS_MAX_ORDER) on geometry
/// geom at reference point xi: values phi[a] and reference gradients dphi[a*dim + g]
/// (either may be NULL), a in lattice order. Tensor geometries: products of 1D Lagrange
/// polynomials through j/p; simplices: products over the barycentric coordinates
/// (lambda_0 = 1 - sum xi, lambda_{g+1} = xi_g) of prod_{s<i_v} (p lambda_v - s)/(s + 1).
void BlastGeomLagrange(int geom, int p, const double *xi, double *phi, double *dphi);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_GEOM_BASIS_H
