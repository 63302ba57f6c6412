// Fully symmetric simplex rules (fem/simplex_rules.c): for every degree q up to the
// highest stored, the rule returned integrates every monomial x^a y^b (z^c) of total
// degree <= q to round-off against a! b! c! / (a + b + c + d)!, its weights are positive
// and sum to the reference volume, and its points lie strictly inside (every barycentric
// coordinate > 0). Prints each rule's point count.
#include <stdio.h>

#include "geom.h"
#include "simplex_rules.h"
#include "testlib.h"

static double Factorial(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; i++) f *= i;
  return f;
}

// Exact integral of x^a y^b z^c over the reference simplex of dimension dim.
static double MonomialIntegral(int dim, int a, int b, int c) {
  return Factorial(a) * Factorial(b) * Factorial(c) / Factorial(a + b + c + dim);
}

static double Power(double x, int p) {
  double r = 1.0;
  for (int i = 0; i < p; i++) r *= x;
  return r;
}

static void CheckGeom(int geom, int dim) {
  int qmax = BlastSimplexSymmetricMaxDegree(geom);
  TEST_ASSERT(qmax >= 2, "geom %d: highest stored degree %d", geom, qmax);
  double volume = 1.0 / Factorial(dim);
  for (int q = 1; q <= qmax; q++) {
    int n = 0;
    const double *xi = NULL, *w = NULL;
    TEST_ASSERT(BlastSimplexSymmetricRule(geom, q, &n, &xi, &w) == 1, "geom %d q %d: no rule", geom,
                q);
    if (!n || !xi || !w) continue;
    double wsum = 0.0, minw = 1.0, minlam = 1.0;
    for (int p = 0; p < n; p++) {
      wsum += w[p];
      if (w[p] < minw) minw = w[p];
      double last = 1.0;
      for (int g = 0; g < dim; g++) {
        last -= xi[p * dim + g];
        if (xi[p * dim + g] < minlam) minlam = xi[p * dim + g];
      }
      if (last < minlam) minlam = last;
    }
    TEST_ASSERT(minw > 0.0, "geom %d q %d: weight %g", geom, q, minw);
    TEST_ASSERT(minlam > 0.0, "geom %d q %d: barycentric coordinate %g", geom, q, minlam);
    TEST_CLOSE(wsum, volume, 1e-14);
    double worst = 0.0;
    for (int a = 0; a <= q; a++)
      for (int b = 0; a + b <= q; b++)
        for (int c = 0; a + b + c <= (dim == 3 ? q : a + b); c++) {
          double s = 0.0;
          for (int p = 0; p < n; p++) {
            const double *x = &xi[p * dim];
            s += w[p] * Power(x[0], a) * Power(x[1], b) * (dim == 3 ? Power(x[2], c) : 1.0);
          }
          double exact = MonomialIntegral(dim, a, b, c);
          double err = fabs(s - exact) / exact;
          if (err > worst) worst = err;
          TEST_ASSERT(err < 1e-14, "geom %d q %d: x^%d y^%d z^%d: %.17g, exact %.17g", geom, q, a,
                      b, c, s, exact);
        }
    printf("%s q=%2d: %4d points, min weight %.3e, min barycentric %.3e, max rel. error %.1e\n",
           dim == 2 ? "triangle" : "tetrahedron", q, n, minw, minlam, worst);
    // The same request again returns the same (already expanded) table.
    int n2 = 0;
    const double *xi2 = NULL, *w2 = NULL;
    TEST_ASSERT(
        BlastSimplexSymmetricRule(geom, q, &n2, &xi2, &w2) == 1 && n2 == n && xi2 == xi && w2 == w,
        "geom %d q %d: second lookup differs", geom, q);
  }
  int n = 0;
  const double *xi = NULL, *w = NULL;
  TEST_ASSERT(BlastSimplexSymmetricRule(geom, qmax + 1, &n, &xi, &w) == 0,
              "geom %d: a rule above the highest degree", geom);
}

int main(void) {
  CheckGeom(BLAST_GEOM_TRIANGLE, 2);
  CheckGeom(BLAST_GEOM_TETRAHEDRON, 3);
  int n = 0;
  const double *xi = NULL, *w = NULL;
  TEST_ASSERT(BlastSimplexSymmetricRule(BLAST_GEOM_SQUARE, 2, &n, &xi, &w) == 0, "a square rule");
  TEST_ASSERT(BlastSimplexSymmetricMaxDegree(BLAST_GEOM_CUBE) == 0, "a cube degree");
  return BlastTestFinish("test_simplex_rules");
}
