// Bases: GLL points (known values), Lagrange basis nodal and a partition of unity,
// Bernstein basis non-negative and a partition of unity, derivatives vs finite
// differences, tensor tables consistent with pointwise evaluation.
#include <math.h>

#include "fe.h"
#include "testlib.h"

int main(void) {
  // Known GLL points on [0,1].
  double x[BLAST_MAX_Q1D], w[BLAST_MAX_Q1D];
  TEST_CALL(BlastGaussLobatto(2, x, w));
  TEST_ASSERT(x[0] == 0.0 && x[1] == 1.0, "k=1 nodes");
  TEST_CALL(BlastGaussLobatto(3, x, w));
  TEST_ASSERT(x[1] == 0.5, "k=2 middle node %.17g", x[1]);
  TEST_CALL(BlastGaussLobatto(4, x, w));
  TEST_CLOSE(x[1], 0.5 * (1 - 1 / sqrt(5.0)), 2e-16);
  TEST_CLOSE(x[2], 0.5 * (1 + 1 / sqrt(5.0)), 2e-16);
  TEST_CALL(BlastGaussLobatto(5, x, w));
  TEST_CLOSE(x[1], 0.5 * (1 - sqrt(3.0 / 7)), 2e-16);
  TEST_ASSERT(x[2] == 0.5, "k=4 middle node");
  // GLL weights integrate degree 2n-3 exactly.
  for (int n = 2; n <= 9; n++) {
    TEST_CALL(BlastGaussLobatto(n, x, w));
    for (int p = 0; p <= 2 * n - 3; p++) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += w[i] * pow(x[i], p);
      TEST_CLOSE(s, 1.0 / (p + 1), 1e-14);
    }
  }

  const double h = 1e-6;
  for (int k = 1; k <= BLAST_MAX_ORDER; k++) {
    double nodes[BLAST_MAX_ORDER + 1], phi[BLAST_MAX_ORDER + 1], dphi[BLAST_MAX_ORDER + 1];
    TEST_CALL(BlastGaussLobatto(k + 1, nodes, NULL));
    // Nodal: phi_a(x_b) = delta_ab.
    for (int b = 0; b <= k; b++) {
      BlastLagrange1D(k + 1, nodes, nodes[b], phi, NULL);
      for (int a = 0; a <= k; a++)
        TEST_ASSERT(fabs(phi[a] - (a == b)) < 1e-14, "k=%d phi_%d(x_%d) = %g", k, a, b, phi[a]);
    }
    for (double xx = 0.0; xx <= 1.0; xx += 0.0625) {
      BlastLagrange1D(k + 1, nodes, xx, phi, dphi);
      double sum = 0.0, dsum = 0.0;
      for (int a = 0; a <= k; a++) sum += phi[a], dsum += dphi[a];
      TEST_CLOSE(sum, 1.0, 1e-13);
      TEST_ASSERT(fabs(dsum) < 1e-11, "k=%d sum of derivatives %g", k, dsum);
      double pp[BLAST_MAX_ORDER + 1], pm[BLAST_MAX_ORDER + 1];
      BlastLagrange1D(k + 1, nodes, xx + h, pp, NULL);
      BlastLagrange1D(k + 1, nodes, xx - h, pm, NULL);
      for (int a = 0; a <= k; a++) {
        double fd = (pp[a] - pm[a]) / (2 * h);
        TEST_ASSERT(fabs(fd - dphi[a]) < 1e-6 * (1 + fabs(dphi[a])),
                    "k=%d x=%g Lagrange derivative %d: %g vs fd %g", k, xx, a, dphi[a], fd);
      }
    }
  }
  for (int m = 0; m <= BLAST_MAX_ORDER; m++) {
    double b[BLAST_MAX_ORDER + 1], db[BLAST_MAX_ORDER + 1];
    for (double xx = 0.0; xx <= 1.0; xx += 0.03125) {
      BlastBernstein1D(m, xx, b, db);
      double sum = 0.0, dsum = 0.0;
      for (int i = 0; i <= m; i++) {
        TEST_ASSERT(b[i] >= 0.0, "m=%d B_%d(%g) = %g < 0", m, i, xx, b[i]);
        sum += b[i], dsum += db[i];
        // Closed form binomial(m,i) x^i (1-x)^(m-i).
        double binom = 1.0;
        for (int j = 1; j <= i; j++) binom = binom * (m - i + j) / j;
        TEST_CLOSE(b[i] + 1.0, binom * pow(xx, i) * pow(1 - xx, m - i) + 1.0, 1e-15);
      }
      TEST_CLOSE(sum, 1.0, 1e-14);
      TEST_ASSERT(fabs(dsum) < 1e-12, "m=%d derivative sum %g", m, dsum);
      double bp[BLAST_MAX_ORDER + 1], bm[BLAST_MAX_ORDER + 1];
      BlastBernstein1D(m, xx + h, bp, NULL);
      BlastBernstein1D(m, xx - h, bm, NULL);
      for (int i = 0; i <= m; i++) {
        double fd = (bp[i] - bm[i]) / (2 * h);
        TEST_ASSERT(fabs(fd - db[i]) < 1e-6 * (1 + fabs(db[i])),
                    "m=%d x=%g Bernstein derivative %d: %g vs fd %g", m, xx, i, db[i], fd);
      }
    }
  }
  // Tensor tables: partition of unity of both bases at every point, gradients sum to 0,
  // tables agree with direct evaluation, and the H1 basis is nodal in 3D.
  for (int dim = 1; dim <= 3; dim++)
    for (int k = 1; k <= (dim == 3 ? 4 : 8); k++) {
      BlastTensorTables *t;
      TEST_CALL(BlastTensorTablesCreate(dim, k, k - 1, BlastQuadraturePoints1D(k, k - 1, -1), &t));
      for (int q = 0; q < t->nqp; q++) {
        double s = 0.0, s2 = 0.0, gs[3] = {0, 0, 0};
        for (int a = 0; a < t->h1_nd; a++) {
          s += t->h1_B[q * t->h1_nd + a];
          for (int g = 0; g < dim; g++) gs[g] += t->h1_G[(q * t->h1_nd + a) * dim + g];
        }
        for (int i = 0; i < t->l2_nd; i++) s2 += t->l2_B[q * t->l2_nd + i];
        TEST_CLOSE(s, 1.0, 1e-12);
        TEST_CLOSE(s2, 1.0, 1e-13);
        for (int g = 0; g < dim; g++) TEST_ASSERT(fabs(gs[g]) < 1e-10, "grad sum %g", gs[g]);
      }
      // Finite-difference check of the tensor gradient at an off-grid point.
      double xi[3] = {0.3, 0.61, 0.17}, val[729], grad[729 * 3], vp[729], vm[729];
      BlastH1BasisEval(t, xi, val, grad);
      for (int g = 0; g < dim; g++) {
        double xp[3] = {xi[0], xi[1], xi[2]}, xm[3] = {xi[0], xi[1], xi[2]};
        xp[g] += h, xm[g] -= h;
        BlastH1BasisEval(t, xp, vp, NULL);
        BlastH1BasisEval(t, xm, vm, NULL);
        for (int a = 0; a < t->h1_nd; a++) {
          double fd = (vp[a] - vm[a]) / (2 * h);
          TEST_ASSERT(fabs(fd - grad[a * dim + g]) < 1e-5 * (1 + fabs(fd)),
                      "dim=%d k=%d tensor gradient", dim, k);
        }
      }
      BlastTensorTablesDestroy(&t);
    }
  return BlastTestFinish("test_basis");
}
