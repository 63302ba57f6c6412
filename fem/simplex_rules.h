// Fully symmetric quadrature rules on the reference triangle and tetrahedron with
// positive weights and every point strictly inside the element.
#ifndef BLAST_FEM_SIMPLEX_RULES_H
#define BLAST_FEM_SIMPLEX_RULES_H

// The stored rule with the fewest points among those of degree >= q (exact for every
// polynomial of total degree <= q) on geometry geom (BLAST_GEOM_TRIANGLE or
// BLAST_GEOM_TETRAHEDRON; ties: the lower degree, q <= 0 counts as 0): returns 1
// and its points xi[p*dim + g] (reference coordinates, vertex 0 at the origin) and weights
// w[p] (summing to the reference volume 1/2 or 1/6); 0 if no stored rule reaches degree q
// (see BlastSimplexSymmetricMaxDegree) or geom is no simplex. The tables are static;
// the first call for a rule expands its orbits (under an OpenMP critical section).
int BlastSimplexSymmetricRule(int geom, int q, int *npts, const double **xi, const double **w);

// The highest degree stored for geom (0 for a geometry that is no simplex).
int BlastSimplexSymmetricMaxDegree(int geom);

#endif
