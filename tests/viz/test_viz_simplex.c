// Reference tables of the visualization dumps on triangles and tetrahedra
// (io/viz_tables.h), for k = 1..4, m = k - 1 and refine 1, 2, k, 5:
//   - H1 values: partition of unity; a polynomial of total degree k, sampled at the H1
//     nodes (BlastGeomNode), reproduced at every point to 1e-12, its gradient by the
//     gradients; exactly the Kronecker delta where refine = k (points on the nodes);
//   - Bernstein values: partition of unity and linear precision (sum_j (i_g(j)/m) B_j = xi_g);
//   - sub-cells: every one positively oriented, of volume (1/refine)^d / d!, corners in
//     range; the centroid values Bc reproduce the polynomial at the centroid.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "blast.h"
#include "geom.h"
#include "geom_basis.h"
#include "testlib.h"
#include "viz_tables.h"

static double Poly(int k, const double *x) {
  return pow(0.3 + x[0] + 0.5 * x[1] - 0.7 * x[2], k);
}
static void PolyGrad(int k, const double *x, double *g) {
  const double d = k * pow(0.3 + x[0] + 0.5 * x[1] - 0.7 * x[2], k - 1);
  g[0] = d, g[1] = 0.5 * d, g[2] = -0.7 * d;
}

static void Check(int geom, int k, int refine) {
  const int dim = BlastGeomDim(geom), m = k - 1;
  const int nd = BlastGeomNumNodes(geom, k), ne = BlastGeomNumNodes(geom, m);
  VizTables t = {refine, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0, 0};
  double Bc[200];
  TEST_CALL(BlastVizSimplexTables(geom, k, m, &t, Bc));
  if (!t.B) return;
  TEST_ASSERT(t.nvz == BlastGeomNumNodes(geom, refine), "%d points", t.nvz);
  double fn[200];
  for (int a = 0; a < nd; a++) {
    double xi[3] = {0, 0, 0};
    BlastGeomNode(geom, k, a, xi);
    fn[a] = Poly(k, xi);
  }
  double err = 0, gerr = 0, perr = 0, lerr = 0;
  int delta_bad = 0;
  for (int p = 0; p < t.nvz; p++) {
    double xi[3] = {0, 0, 0};
    BlastGeomNode(geom, refine, p, xi);
    double f = 0, sum = 0, g[3] = {0, 0, 0}, want[3];
    for (int a = 0; a < nd; a++) {
      const double b = t.B[(size_t)p * nd + a];
      f += b * fn[a], sum += b;
      for (int c = 0; c < dim; c++) g[c] += t.G[((size_t)p * nd + a) * dim + c] * fn[a];
      if (refine == k) delta_bad += b != (a == p ? 1.0 : 0.0);
    }
    PolyGrad(k, xi, want);
    err = fmax(err, fabs(f - Poly(k, xi)));
    perr = fmax(perr, fabs(sum - 1.0));
    for (int c = 0; c < dim; c++) gerr = fmax(gerr, fabs(g[c] - want[c]));
    double lsum = 0, lin[3] = {0, 0, 0};
    for (int j = 0; j < ne; j++) {
      double ij[3] = {0, 0, 0};
      if (m > 0) BlastGeomNode(geom, m, j, ij);  // i(j)/m
      lsum += t.L[(size_t)p * ne + j];
      for (int c = 0; c < dim; c++) lin[c] += ij[c] * t.L[(size_t)p * ne + j];
    }
    lerr = fmax(lerr, fabs(lsum - 1.0));
    for (int c = 0; c < dim && m > 0; c++) lerr = fmax(lerr, fabs(lin[c] - xi[c]));
  }
  TEST_ASSERT(err < 1e-12 && gerr < 1e-11 && perr < 1e-13,
              "%s k=%d refine %d: H1 reproduction %.3g, gradient %.3g, unity %.3g",
              BlastGeomName(geom), k, refine, err, gerr, perr);
  TEST_ASSERT(!delta_bad, "%s k=%d: %d values not the Kronecker delta on the nodes",
              BlastGeomName(geom), k, delta_bad);
  TEST_ASSERT(lerr < 1e-13, "%s m=%d refine %d: Bernstein unity/linear precision %.3g",
              BlastGeomName(geom), m, refine, lerr);
  // Sub-cells.
  double vol = 0;
  int bad = 0;
  for (int c = 0; c < t.ncz; c++) {
    double x[4][3] = {{0}};
    for (int a = 0; a <= dim; a++) {
      const int p = t.cellv[c * (dim + 1) + a];
      if (p < 0 || p >= t.nvz) {
        bad++;
        continue;
      }
      BlastGeomNode(geom, refine, p, x[a]);
    }
    double e[3][3];
    for (int a = 0; a < dim; a++)
      for (int g = 0; g < 3; g++) e[a][g] = x[a + 1][g] - x[0][g];
    const double det = dim == 2 ? e[0][0] * e[1][1] - e[0][1] * e[1][0]
                                : e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                                      e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                                      e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
    const double want = pow(1.0 / refine, dim);
    bad += fabs(det - want) > 1e-12 * want;
    vol += det / (dim == 2 ? 2 : 6);
  }
  TEST_ASSERT(!bad && fabs(vol - (dim == 2 ? 0.5 : 1.0 / 6)) < 1e-13,
              "%s refine %d: %d bad sub-cells, volume %.17g", BlastGeomName(geom), refine, bad,
              vol);
  double fc = 0;
  const double cen[3] = {1.0 / (dim + 1), 1.0 / (dim + 1), dim > 2 ? 0.25 : 0.0};
  for (int a = 0; a < nd; a++) fc += Bc[a] * fn[a];
  TEST_ASSERT(fabs(fc - Poly(k, cen)) < 1e-12, "%s k=%d: centroid %.17g, want %.17g",
              BlastGeomName(geom), k, fc, Poly(k, cen));
  BlastFree(&t.B), BlastFree(&t.G), BlastFree(&t.L), BlastFree(&t.cellv);
}

int main(void) {
  const int geoms[2] = {BLAST_GEOM_TRIANGLE, BLAST_GEOM_TETRAHEDRON};
  for (int g = 0; g < 2; g++)
    for (int k = 1; k <= 4; k++) {
      const int refines[4] = {1, 2, k, 5};
      for (int r = 0; r < 4; r++) Check(geoms[g], k, refines[r]);
    }
  return BlastTestFinish("test_viz_simplex");
}
