// The equispaced Lagrange bases on every geometry (fem/geom_basis.h): Kronecker property at
// the nodes, nodes in lattice order at i/p, partition of unity, exact reproduction of
// polynomials of degree p (values and gradients, against hand-written polynomials), and
// gradients against centred differences.
#include <math.h>
#include <stdio.h>

#include "geom_basis.h"
#include "testlib.h"

static double Poly(int dim, int p, const double *x, double *grad) {
  // A polynomial of total degree p (inside both the tensor and the simplex spaces).
  double v = 0.3, gx = 0.0, gy = 0.0, gz = 0.0;
  const double y = dim > 1 ? x[1] : 0.0, z = dim > 2 ? x[2] : 0.0;
  v += 1.7 * pow(x[0], p), gx += 1.7 * p * pow(x[0], p - 1);
  if (dim > 1)
    v -= 0.9 * pow(y, p - 1) * x[0], gy -= 0.9 * (p - 1) * (p > 1 ? pow(y, p - 2) : 0) * x[0],
        gx -= 0.9 * pow(y, p - 1);
  if (dim > 2) v += 0.4 * pow(z, p), gz += 0.4 * p * pow(z, p - 1);
  grad[0] = gx, grad[1] = gy, grad[2] = gz;
  return v;
}

int main(void) {
  int fails = 0;
  const int geoms[] = {BLAST_GEOM_SEGMENT, BLAST_GEOM_TRIANGLE, BLAST_GEOM_SQUARE,
                       BLAST_GEOM_TETRAHEDRON, BLAST_GEOM_CUBE};
  for (int gi = 0; gi < 5; gi++)
    for (int p = 1; p <= 4; p++) {
      const int g = geoms[gi], dim = BlastGeomDim(g), nn = BlastGeomNumNodes(g, p);
      double phi[125], dphi[375], xi[3], X[125][3] = {{0}}, err = 0.0;
      int lattice_ok = 1;
      for (int a = 0; a < nn; a++) {
        BlastGeomNode(g, p, a, X[a]);
        double s = 0.0;
        for (int h = 0; h < dim; h++) s += X[a][h];
        if (BlastGeomIsSimplex(g) && s > 1.0 + 1e-14) lattice_ok = 0;
      }
      // Lattice order: x fastest.
      if (X[1][0] != 1.0 / p || (dim > 1 && X[1][1] != 0.0)) lattice_ok = 0;
      for (int a = 0; a < nn; a++) {
        BlastGeomLagrange(g, p, X[a], phi, NULL);
        for (int b = 0; b < nn; b++) err = fmax(err, fabs(phi[b] - (a == b)));
      }
      // Reproduction at an interior point.
      const double pt[3] = {0.21, 0.17, 0.13};
      BlastGeomLagrange(g, p, pt, phi, dphi);
      double v = 0.0, gr[3] = {0, 0, 0}, ge[3], sum = 0.0;
      for (int a = 0; a < nn; a++) {
        double gn[3];
        const double fa = Poly(dim, p, X[a], gn);
        v += fa * phi[a], sum += phi[a];
        for (int h = 0; h < dim; h++) gr[h] += fa * dphi[a * dim + h];
      }
      const double ve = Poly(dim, p, pt, ge);
      double rerr = fabs(v - ve) + fabs(sum - 1.0);
      for (int h = 0; h < dim; h++) rerr += fabs(gr[h] - ge[h]);
      // Gradient against differences.
      double derr = 0.0, pp[125], pm[125];
      for (int h = 0; h < dim; h++) {
        for (int c = 0; c < 3; c++) xi[c] = pt[c];
        xi[h] += 1e-6;
        BlastGeomLagrange(g, p, xi, pp, NULL);
        xi[h] -= 2e-6;
        BlastGeomLagrange(g, p, xi, pm, NULL);
        for (int a = 0; a < nn; a++)
          derr = fmax(derr, fabs((pp[a] - pm[a]) / 2e-6 - dphi[a * dim + h]));
      }
      const int ok = lattice_ok && err < 1e-13 && rerr < 1e-12 && derr < 1e-6;
      printf("%-13s p=%d nodes=%3d kronecker %.1e reproduction %.1e fd %.1e %s\n", BlastGeomName(g),
             p, nn, err, rerr, derr, ok ? "ok" : "FAIL");
      fails += !ok;
    }
  printf("%s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
