// Equispaced Lagrange bases on the reference geometries (see geom_basis.h).
#include "geom_basis.h"

#include "fe.h"

// Lattice index (i_0 .. i_{d-1}) of node a of order p on geometry geom.
static void NodeIndex(int geom, int p, int a, int *i) {
  const int dim = BlastGeomDim(geom);
  if (!BlastGeomIsSimplex(geom)) {
    for (int g = 0; g < dim; g++, a /= p + 1) i[g] = a % (p + 1);
    return;
  }
  // Simplex lattice order: x fastest, then y, then z, within sum <= p.
  int n = 0;
  for (int l = 0; l <= (dim == 3 ? p : 0); l++)
    for (int j = 0; j <= p - l; j++)
      for (int k = 0; k <= p - l - j; k++, n++)
        if (n == a) {
          i[0] = k, i[1] = j;
          if (dim == 3) i[2] = l;
          return;
        }
}

void BlastGeomNode(int geom, int p, int a, double *xi) {
  int i[3] = {0, 0, 0};
  NodeIndex(geom, p, a, i);
  for (int g = 0; g < BlastGeomDim(geom); g++) xi[g] = (double)i[g] / p;
}

// S_n(lambda) = prod_{s<n} (p lambda - s)/(s + 1) and its derivative, n = 0..p.
static void Silvester(int p, double lambda, double *S, double *dS) {
  S[0] = 1.0, dS[0] = 0.0;
  for (int n = 1; n <= p; n++) {
    const double f = (p * lambda - (n - 1)) / n;
    dS[n] = dS[n - 1] * f + S[n - 1] * ((double)p / n);
    S[n] = S[n - 1] * f;
  }
}

void BlastGeomLagrange(int geom, int p, const double *xi, double *phi, double *dphi) {
  const int dim = BlastGeomDim(geom), nn = BlastGeomNumNodes(geom, p);
  if (!BlastGeomIsSimplex(geom)) {
    double nodes[BLAST_GEOM_BASIS_MAX_ORDER + 1];
    double v[3][BLAST_GEOM_BASIS_MAX_ORDER + 1], d[3][BLAST_GEOM_BASIS_MAX_ORDER + 1];
    for (int j = 0; j <= p; j++) nodes[j] = (double)j / p;
    for (int g = 0; g < dim; g++) BlastLagrange1D(p + 1, nodes, xi[g], v[g], d[g]);
    for (int a = 0; a < nn; a++) {
      int i[3] = {0, 0, 0};
      NodeIndex(geom, p, a, i);
      double val = 1.0;
      for (int g = 0; g < dim; g++) val *= v[g][i[g]];
      if (phi) phi[a] = dim ? val : 1.0;
      if (dphi)
        for (int g = 0; g < dim; g++) {
          double dv = d[g][i[g]];
          for (int h = 0; h < dim; h++)
            if (h != g) dv *= v[h][i[h]];
          dphi[a * dim + g] = dv;
        }
    }
    return;
  }
  double S[4][BLAST_GEOM_BASIS_MAX_ORDER + 1], dS[4][BLAST_GEOM_BASIS_MAX_ORDER + 1];
  double l0 = 1.0;
  for (int g = 0; g < dim; g++) l0 -= xi[g];
  Silvester(p, l0, S[0], dS[0]);
  for (int g = 0; g < dim; g++) Silvester(p, xi[g], S[g + 1], dS[g + 1]);
  for (int a = 0; a < nn; a++) {
    int i[4] = {0, 0, 0, 0};  // i[0] barycentric index of vertex 0, i[g+1] of axis g
    NodeIndex(geom, p, a, &i[1]);
    i[0] = p;
    for (int g = 0; g < dim; g++) i[0] -= i[g + 1];
    double val = 1.0;
    for (int v = 0; v <= dim; v++) val *= S[v][i[v]];
    if (phi) phi[a] = val;
    if (dphi)
      for (int g = 0; g < dim; g++) {
        // d/dxi_g: lambda_{g+1} grows, lambda_0 falls.
        double dg = dS[g + 1][i[g + 1]], d0 = dS[0][i[0]];
        for (int v = 0; v <= dim; v++) {
          if (v != g + 1) dg *= S[v][i[v]];
          if (v != 0) d0 *= S[v][i[v]];
        }
        dphi[a * dim + g] = dg - d0;
      }
  }
}
