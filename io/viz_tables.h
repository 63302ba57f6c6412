/// @file viz_tables.h
/// @brief Reference tables of the visualization dumps (io/viz.c): the basis values at the
/// equispaced points of a zone and the linear sub-cells between them. Internal to io/.
#ifndef BLAST_VIZ_TABLES_H
#define BLAST_VIZ_TABLES_H

#ifdef __cplusplus
extern "C" {
#endif

/// Values at the points i/refine of a zone (tensor: (refine+1)^dim, x fastest; simplex:
/// the lattice of order refine, in lattice order) and its sub-cells.
typedef struct {
  int refine, np1, nvz, ncz;  // np1 = refine + 1; points, sub-cells per zone
  double *B, *G, *L;  // H1 values [nvz][h1_nd], reference gradients [nvz][h1_nd][dim], L2 values
  int *cellv;         // [ncz*ncv] zone-local point of each sub-cell corner (VTK order)
  int geom, nd, ne, ncv;  // the zone geometry, its H1 and L2 functions, sub-cell corners
} VizTables;

/// Tables of a triangle or tetrahedron `geom` (H1: equispaced Lagrange P_k, L2: Bernstein
/// P_m in lattice order, fem/space.h) at the lattice of order tab->refine, whose
/// sub-cells are the lattice subdivision (BlastSimplexChildren, ncv = dim + 1 corners);
/// Bc: the H1 values at the centroid. Points on H1 nodes get exactly the Kronecker delta.
int BlastVizSimplexTables(int geom, int k, int m, VizTables *tab, double *Bc);

/// The Bernstein polynomials of degree m on a simplex of dimension dim at xi, in lattice
/// order of (i_1 .. i_dim): m! / prod_v i_v! prod_v lambda_v^i_v, i_0 = m - sum i_g,
/// lambda_0 = 1 - sum xi, lambda_{g+1} = xi_g.
void BlastVizSimplexBernstein(int dim, int m, const double *xi, double *b);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_VIZ_TABLES_H
