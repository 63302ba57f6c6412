// Gauss-Legendre rules on [0,1] and their tensor products: exact to round-off for
// monomials up to degree 2n-1 per direction (1D, 2D, 3D); closed-form points for n <= 4.
#include <math.h>

#include "fe.h"
#include "testlib.h"

// Exact integral of x^p over [0,1].
static double MonomialIntegral(int p) { return 1.0 / (p + 1); }

int main(void) {
  for (int n = 1; n <= BLAST_MAX_Q1D; n++) {
    double x[BLAST_MAX_Q1D], w[BLAST_MAX_Q1D];
    TEST_CALL(BlastGaussLegendre(n, x, w));
    double wsum = 0.0;
    for (int i = 0; i < n; i++) {
      wsum += w[i];
      TEST_ASSERT(x[i] > 0.0 && x[i] < 1.0, "n=%d point %d = %g outside (0,1)", n, i, x[i]);
      if (i) TEST_ASSERT(x[i] > x[i - 1], "n=%d points not ascending", n);
      TEST_CLOSE(x[i] + x[n - 1 - i], 1.0, 4e-16);
      TEST_CLOSE(w[i], w[n - 1 - i], 4e-15);
    }
    TEST_CLOSE(wsum, 1.0, 1e-14);
    for (int p = 0; p <= 2 * n - 1; p++) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += w[i] * pow(x[i], p);
      TEST_CLOSE(s, MonomialIntegral(p), 2e-14);
    }
    // Not exact for degree 2n (guards against an accidental higher-order rule); the
    // error decays like 4^-n, so this is observable up to n = 8.
    if (n <= 8) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += w[i] * pow(x[i], 2 * n);
      TEST_ASSERT(fabs(s - MonomialIntegral(2 * n)) > 1e-13, "n=%d exact at degree 2n", n);
    }
  }
  // Closed forms: n=2: (1 -+ 1/sqrt3)/2; n=3: (1 -+ sqrt(3/5))/2, 1/2 with 5/18, 4/9;
  // n=4: (1 -+ sqrt(3/7 -+ 2/7 sqrt(6/5)))/2.
  double x[BLAST_MAX_Q1D], w[BLAST_MAX_Q1D];
  BlastGaussLegendre(2, x, w);
  TEST_CLOSE(x[0], 0.5 * (1 - 1 / sqrt(3.0)), 2e-16);
  BlastGaussLegendre(3, x, w);
  TEST_CLOSE(x[0], 0.5 * (1 - sqrt(0.6)), 1e-15);
  TEST_CLOSE(w[1], 4.0 / 9.0, 1e-16);
  BlastGaussLegendre(4, x, w);
  TEST_CLOSE(x[0], 0.5 * (1 - sqrt(3.0 / 7 + 2.0 / 7 * sqrt(1.2))), 1e-15);
  TEST_CLOSE(x[1], 0.5 * (1 - sqrt(3.0 / 7 - 2.0 / 7 * sqrt(1.2))), 1e-15);
  TEST_CLOSE(w[0], 0.5 * (18 - sqrt(30.0)) / 36, 1e-15);
  // The spec's hand check uses the first 4-point node 0.0694318442029737.
  TEST_CLOSE(x[0], 0.0694318442029737, 1e-15);

  // Tensor rules through the tables: exact for x^a y^b z^c with a, b, c <= 2n-1.
  for (int dim = 1; dim <= 3; dim++) {
    for (int n = 1; n <= 6; n++) {
      BlastTensorTables *t;
      TEST_CALL(BlastTensorTablesCreate(dim, 1, 0, n, &t));
      int maxp = 2 * n - 1;
      for (int a = 0; a <= maxp; a++)
        for (int b = 0; b <= (dim > 1 ? maxp : 0); b++)
          for (int c = 0; c <= (dim > 2 ? maxp : 0); c++) {
            double s = 0.0;
            for (int q = 0; q < t->nqp; q++) {
              const double *xq = &t->qp_x[q * dim];
              double f = pow(xq[0], a);
              if (dim > 1) f *= pow(xq[1], b);
              if (dim > 2) f *= pow(xq[2], c);
              s += t->qp_w[q] * f;
            }
            double exact = MonomialIntegral(a) * (dim > 1 ? MonomialIntegral(b) : 1.0) *
                           (dim > 2 ? MonomialIntegral(c) : 1.0);
            TEST_CLOSE(s, exact, 5e-14);
          }
      BlastTensorTablesDestroy(&t);
    }
  }
  // Default quadrature points of the spec: (k,m) -> n_q.
  TEST_ASSERT(BlastQuadraturePoints1D(1, 0, -1) == 2, "(1,0)");
  TEST_ASSERT(BlastQuadraturePoints1D(2, 1, -1) == 4, "(2,1)");
  TEST_ASSERT(BlastQuadraturePoints1D(3, 2, -1) == 6, "(3,2)");
  TEST_ASSERT(BlastQuadraturePoints1D(4, 3, -1) == 8, "(4,3)");
  TEST_ASSERT(BlastQuadraturePoints1D(2, 1, 7) == 4, "oq=7");
  TEST_ASSERT(BlastQuadraturePoints1D(2, 1, 8) == 5, "oq=8");
  return BlastTestFinish("test_quadrature");
}
