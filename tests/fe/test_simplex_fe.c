// Finite elements on triangles and tetrahedra (fem/simplex.h) against closed forms:
//   - Gauss-Jacobi rules of (1-x)^alpha on [0,1]: exact for x^p, p <= 2n-1 (the Beta
//     integral p! alpha! / (p+alpha+1)!), positive weights, points inside;
//   - collapsed simplex rules: every monomial x^a y^b z^c of total degree <= 2n-1 against
//     a! b! c! / (a+b+c+d)!, and not exact at degree 2n; weights positive and summing to
//     the reference volume (1/2, 1/6); every point strictly inside;
//   - the tables of BlastElementTablesCreate at the run's quadrature order q = 3k+m-1 (and
//     [fem] order_quadrature): exact up to q; tensor geometries bit-identical to
//     BlastTensorTablesCreate; the simplex H1 basis a nodal partition of unity;
//   - the Bernstein basis: partition of unity, positivity, linear precision
//     (sum_a (i_g/m) B_a = xi_g), the 1D Bernstein basis on an edge, gradients against
//     centred differences, and the exact Bernstein mass matrix
//     int B_a B_b = |T| C(m;a) C(m;b) / (C(2m;a+b) C(2m+d;d)) through the tables.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom_basis.h"
#include "simplex.h"
#include "testlib.h"

static double Fact(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; i++) f *= i;
  return f;
}

// Exact integral of x^a y^b (z^c) over the reference simplex of dimension dim.
static double SimplexMonomial(int dim, int a, int b, int c) {
  return Fact(a) * Fact(b) * Fact(c) / Fact(a + b + c + dim);
}

static double RuleMonomial(int dim, int nqp, const double *x, const double *w, int a, int b,
                           int c) {
  double s = 0.0;
  for (int q = 0; q < nqp; q++) {
    const double *xq = &x[(size_t)q * dim];
    s += w[q] * pow(xq[0], a) * pow(xq[1], b) * (dim == 3 ? pow(xq[2], c) : 1.0);
  }
  return s;
}

// Largest relative error of the rule over the monomials of total degree <= deg.
static double MaxMonomialError(int dim, int nqp, const double *x, const double *w, int deg) {
  double err = 0.0;
  for (int a = 0; a <= deg; a++)
    for (int b = 0; a + b <= deg; b++)
      for (int c = 0; a + b + c <= (dim == 3 ? deg : a + b); c++) {
        const double ex = SimplexMonomial(dim, a, b, c);
        const double e = fabs(RuleMonomial(dim, nqp, x, w, a, b, c) - ex) / ex;
        if (e > err) err = e;
      }
  return err;
}

static void TestGaussJacobi(void) {
  for (int alpha = 0; alpha <= 2; alpha++)
    for (int n = 1; n <= BLAST_MAX_Q1D; n++) {
      double x[BLAST_MAX_Q1D], w[BLAST_MAX_Q1D], xg[BLAST_MAX_Q1D], wg[BLAST_MAX_Q1D];
      TEST_CALL(BlastGaussJacobi(n, alpha, x, w));
      double wsum = 0.0;
      for (int i = 0; i < n; i++) {
        TEST_ASSERT(x[i] > 0.0 && x[i] < 1.0 && w[i] > 0.0, "alpha %d n %d point %d: %g %g", alpha,
                    n, i, x[i], w[i]);
        if (i) TEST_ASSERT(x[i] > x[i - 1], "alpha %d n %d: points not ascending", alpha, n);
        wsum += w[i];
      }
      TEST_CLOSE(wsum, 1.0 / (alpha + 1), 1e-14);
      double err = 0.0;
      for (int p = 0; p <= 2 * n - 1; p++) {
        double s = 0.0;
        for (int i = 0; i < n; i++) s += w[i] * pow(x[i], p);  // the weight (1-x)^alpha is in w
        const double ex = Fact(p) * Fact(alpha) / Fact(p + alpha + 1);
        if (fabs(s - ex) / ex > err) err = fabs(s - ex) / ex;
      }
      TEST_ASSERT(err <= 1e-14, "alpha %d n %d: x^p, p <= %d, relative error %.3e", alpha, n,
                  2 * n - 1, err);
      if (alpha == 0) {  // the Gauss-Legendre rule
        TEST_CALL(BlastGaussLegendre(n, xg, wg));
        for (int i = 0; i < n; i++) {
          // the Jacobi-matrix nodes are accurate to round-off of the matrix (absolute)
          TEST_ASSERT(fabs(x[i] - xg[i]) < 4e-16, "n %d point %d: %.17g, %.17g", n, i, x[i], xg[i]);
          TEST_CLOSE(w[i], wg[i], 1e-13);
        }
      }
    }
  // Closed forms: n = 1, alpha = 1: the centroid of (1-x) dx, 1/3, weight 1/2; alpha = 2:
  // 1/4, 1/3. n = 2, alpha = 1: roots of the degree-2 orthogonal polynomial of (1-x),
  // 10 x^2 - 8 x + 1 = 0: x = (4 -+ sqrt 6)/10.
  double x[2], w[2];
  TEST_CALL(BlastGaussJacobi(1, 1, x, w));
  TEST_CLOSE(x[0], 1.0 / 3.0, 1e-15);
  TEST_CLOSE(w[0], 0.5, 1e-15);
  TEST_CALL(BlastGaussJacobi(1, 2, x, w));
  TEST_CLOSE(x[0], 0.25, 1e-15);
  TEST_CLOSE(w[0], 1.0 / 3.0, 1e-15);
  TEST_CALL(BlastGaussJacobi(2, 1, x, w));
  TEST_CLOSE(x[0], (4.0 - sqrt(6.0)) / 10.0, 1e-15);
  TEST_CLOSE(x[1], (4.0 + sqrt(6.0)) / 10.0, 1e-15);
}

static void TestSimplexRules(void) {
  for (int dim = 2; dim <= 3; dim++)
    for (int n = 1; n <= 12; n++) {
      const int nqp = dim == 2 ? n * n : n * n * n;
      double *x = malloc(sizeof(double) * nqp * dim), *w = malloc(sizeof(double) * nqp);
      TEST_CALL(BlastSimplexQuadrature(dim, n, x, w));
      double wsum = 0.0;
      int inside = 1;
      for (int q = 0; q < nqp; q++) {
        double s = 0.0;
        for (int g = 0; g < dim; g++) {
          inside = inside && x[q * dim + g] > 0.0;
          s += x[q * dim + g];
        }
        inside = inside && 1.0 - s > 0.0 && w[q] > 0.0;
        wsum += w[q];
      }
      TEST_ASSERT(inside, "dim %d n %d: a point not strictly inside or a weight <= 0", dim, n);
      TEST_CLOSE(wsum, dim == 2 ? 0.5 : 1.0 / 6.0, 1e-14);
      // 1e-14 for the rules of the method's orders (k <= 4: q <= 14, n <= 8)
      const double err = MaxMonomialError(dim, nqp, x, w, 2 * n - 1);
      if (getenv("BLAST_TEST_VERBOSE"))
        printf("dim %d n %d: max relative error %.3e\n", dim, n, err);
      TEST_ASSERT(err <= (n <= 8 ? 1e-14 : 3e-14), "dim %d n %d: degree <= %d, relative error %.3e",
                  dim, n, 2 * n - 1, err);
      if (n <= 8) {  // not beyond: y^(2n) (and z^(2n)) are not integrated exactly
        for (int g = 1; g < dim; g++) {
          const int a[3] = {0, g == 1 ? 2 * n : 0, g == 2 ? 2 * n : 0};
          const double ex = SimplexMonomial(dim, a[0], a[1], a[2]);
          const double e = fabs(RuleMonomial(dim, nqp, x, w, a[0], a[1], a[2]) - ex) / ex;
          TEST_ASSERT(e > 1e-12, "dim %d n %d: exact at degree 2n (axis %d)", dim, n, g);
        }
      }
      free(x);
      free(w);
    }
}

// The Bernstein basis at a point: partition of unity, positivity, linear precision, and
// the gradients against centred differences.
static void BernsteinAtPoint(int dim, int m, const double *xi) {
  const int nb = BlastGeomNumNodes(BlastGeomSimplex(dim), m);
  double b[165], db[495], bp[165], bm[165];
  BlastSimplexBernstein(dim, m, xi, b, db);
  double sum = 0.0, lin[3] = {0, 0, 0}, dsum[3] = {0, 0, 0};
  int positive = 1;
  for (int a = 0; a < nb; a++) {
    int i[3] = {0, 0, 0};
    BlastSimplexLatticePoint(dim, m, a, i);
    TEST_ASSERT(BlastSimplexLatticeIndex(dim, m, i) == a, "dim %d m %d: lattice index %d", dim, m,
                a);
    sum += b[a];
    positive = positive && b[a] > 0.0;
    for (int g = 0; g < dim; g++) {
      if (m) lin[g] += (double)i[g] / m * b[a];
      dsum[g] += db[a * dim + g];
    }
  }
  TEST_CLOSE(sum, 1.0, 1e-14);
  TEST_ASSERT(positive, "dim %d m %d: a Bernstein polynomial <= 0 inside", dim, m);
  for (int g = 0; g < dim; g++) {
    if (m) TEST_CLOSE(lin[g], xi[g], 1e-14);
    TEST_ASSERT(fabs(dsum[g]) < 1e-12, "dim %d m %d: gradients sum to %g", dim, m, dsum[g]);
    double xp[3] = {xi[0], xi[1], xi[2]}, xm[3] = {xi[0], xi[1], xi[2]}, h = 1e-6, err = 0.0;
    xp[g] += h, xm[g] -= h;
    BlastSimplexBernstein(dim, m, xp, bp, NULL);
    BlastSimplexBernstein(dim, m, xm, bm, NULL);
    for (int a = 0; a < nb; a++) err = fmax(err, fabs((bp[a] - bm[a]) / (2 * h) - db[a * dim + g]));
    TEST_ASSERT(err < 1e-7 * (m + 1) * (m + 1), "dim %d m %d: gradient %d off by %g", dim, m, g,
                err);
  }
}

static void TestBernstein(void) {
  srand(7);
  for (int dim = 2; dim <= 3; dim++)
    for (int m = 0; m <= BLAST_MAX_ORDER; m++) {
      for (int trial = 0; trial < 20; trial++) {
        double xi[3] = {0, 0, 0}, s = 0.0;
        do {
          s = 0.0;
          for (int g = 0; g < dim; g++) s += xi[g] = 0.01 + 0.98 * rand() / (double)RAND_MAX;
        } while (s >= 0.99);
        BernsteinAtPoint(dim, m, xi);
      }
      // The edge xi_1 = 0 (xi_2 = 0): the 1D Bernstein basis of degree m in xi_0.
      double xi[3] = {0.3125, 0.0, 0.0}, b[165], b1[BLAST_MAX_ORDER + 1];
      BlastSimplexBernstein(dim, m, xi, b, NULL);
      BlastBernstein1D(m, xi[0], b1, NULL);
      for (int i = 0; i <= m; i++) TEST_CLOSE(b[i], b1[i], 1e-14);
    }
}

static void SameTables(const BlastTensorTables *a, const BlastTensorTables *b) {
  TEST_ASSERT(a->geom == b->geom && a->dim == b->dim && a->k == b->k && a->m == b->m &&
                  a->q1d == b->q1d && a->nqp == b->nqp && a->h1_nd == b->h1_nd &&
                  a->l2_nd == b->l2_nd,
              "tensor tables' sizes differ");
  const size_t nq = a->nqp, d = a->dim;
  TEST_ASSERT(!memcmp(a->qp_w, b->qp_w, sizeof(double) * nq) &&
                  !memcmp(a->qp_x, b->qp_x, sizeof(double) * nq * d) &&
                  !memcmp(a->h1_B, b->h1_B, sizeof(double) * nq * a->h1_nd) &&
                  !memcmp(a->h1_G, b->h1_G, sizeof(double) * nq * a->h1_nd * d) &&
                  !memcmp(a->l2_B, b->l2_B, sizeof(double) * nq * a->l2_nd) &&
                  !memcmp(a->b1d, b->b1d, sizeof a->b1d) && !memcmp(a->l1d, b->l1d, sizeof a->l1d),
              "tensor tables differ (geom %d k %d)", a->geom, a->k);
}

// Multinomial m! / prod_v i_v! of the barycentric multi-index (i_0 = m - sum).
static double Multinomial(int dim, int m, const int *i) {
  double c = Fact(m);
  int i0 = m;
  for (int g = 0; g < dim; g++) c /= Fact(i[g]), i0 -= i[g];
  return c / Fact(i0);
}

static void SimplexTables(int geom, int k, int oq) {
  const int dim = BlastGeomDim(geom), m = k - 1, q = BlastQuadratureOrder(oq, k, m);
  BlastTensorTables *t = NULL;
  TEST_CALL(BlastElementTablesCreate(geom, k, m, oq, &t));
  if (!t) return;
  const int nh = t->h1_nd, nl = t->l2_nd, nqp = t->nqp;
  TEST_ASSERT(nh == BlastGeomNumNodes(geom, k) && nl == BlastGeomNumNodes(geom, m) &&
                  t->geom == geom && t->q1d == q / 2 + 1,
              "%s k %d: sizes", BlastGeomName(geom), k);
  const double err = MaxMonomialError(dim, nqp, t->qp_x, t->qp_w, q);
  TEST_ASSERT(err <= 1e-14, "%s k %d q %d: relative error %.3e", BlastGeomName(geom), k, q, err);
  double wsum = 0.0, worst = 0.0;
  for (int p = 0; p < nqp; p++) {
    double s = 0.0, ls = 0.0, gs[3] = {0, 0, 0};
    for (int a = 0; a < nh; a++) {
      s += t->h1_B[p * nh + a];
      for (int g = 0; g < dim; g++) gs[g] += t->h1_G[(p * nh + a) * dim + g];
    }
    for (int j = 0; j < nl; j++) {
      ls += t->l2_B[p * nl + j];
      TEST_ASSERT(t->l2_B[p * nl + j] > 0.0, "L2 basis not positive at a quadrature point");
    }
    worst = fmax(worst, fmax(fabs(s - 1.0), fabs(ls - 1.0)));
    for (int g = 0; g < dim; g++) worst = fmax(worst, fabs(gs[g]) * 1e-2);
    wsum += t->qp_w[p];
  }
  TEST_ASSERT(worst < 1e-13, "%s k %d: partition of unity off by %g", BlastGeomName(geom), k,
              worst);
  TEST_CLOSE(wsum, dim == 2 ? 0.5 : 1.0 / 6.0, 1e-14);
  // H1: nodal at the lattice points i/k (BlastH1BasisEval through the tables).
  double phi[165], node[3];
  for (int a = 0; a < nh; a++) {
    BlastGeomNode(geom, k, a, node);
    BlastH1BasisEval(t, node, phi, NULL);
    for (int b = 0; b < nh; b++)
      TEST_ASSERT(fabs(phi[b] - (a == b)) < 1e-13, "%s k %d: phi_%d(node %d) = %g",
                  BlastGeomName(geom), k, b, a, phi[b]);
  }
  // The Bernstein mass matrix of the tables against its closed form.
  const double vol = dim == 2 ? 0.5 : 1.0 / 6.0;
  double merr = 0.0;
  for (int a = 0; a < nl; a++)
    for (int b = 0; b < nl; b++) {
      int ia[3] = {0, 0, 0}, ib[3] = {0, 0, 0}, is[3];
      BlastSimplexLatticePoint(dim, m, a, ia);
      BlastSimplexLatticePoint(dim, m, b, ib);
      for (int g = 0; g < 3; g++) is[g] = ia[g] + ib[g];
      const double ex = vol * Multinomial(dim, m, ia) * Multinomial(dim, m, ib) /
                        (Multinomial(dim, 2 * m, is) * Fact(2 * m + dim) / Fact(2 * m) / Fact(dim));
      double s = 0.0;
      for (int p = 0; p < nqp; p++) s += t->qp_w[p] * t->l2_B[p * nl + a] * t->l2_B[p * nl + b];
      merr = fmax(merr, fabs(s - ex) / ex);
    }
  TEST_ASSERT(merr < 1e-13, "%s k %d: Bernstein mass matrix off by %.3e", BlastGeomName(geom), k,
              merr);
  BlastTensorTablesDestroy(&t);
}

static void TestTables(void) {
  const int tensor[3] = {BLAST_GEOM_SEGMENT, BLAST_GEOM_SQUARE, BLAST_GEOM_CUBE};
  for (int i = 0; i < 3; i++)
    for (int k = 1; k <= 4; k++)
      for (int oq = -1; oq <= 7; oq += 8) {
        const int dim = BlastGeomDim(tensor[i]);
        BlastTensorTables *a = NULL, *b = NULL;
        TEST_CALL(BlastElementTablesCreate(tensor[i], k, k - 1, oq, &a));
        TEST_CALL(
            BlastTensorTablesCreate(dim, k, k - 1, BlastQuadraturePoints1D(k, k - 1, oq), &b));
        if (a && b) SameTables(a, b);
        BlastTensorTablesDestroy(&a);
        BlastTensorTablesDestroy(&b);
      }
  for (int k = 1; k <= 4; k++) {
    SimplexTables(BLAST_GEOM_TRIANGLE, k, -1);
    SimplexTables(BLAST_GEOM_TETRAHEDRON, k, -1);
    SimplexTables(BLAST_GEOM_TRIANGLE, k, 2 * k + 1);  // [fem] order_quadrature
  }
  BlastTensorTables *t = NULL;
  TEST_ASSERT(BlastElementTablesCreate(BLAST_GEOM_TRIANGLE, 0, 0, -1, &t) == BLAST_ERR_INPUT,
              "order 0 accepted");
  BlastErrorClear();
}

int main(void) {
  TestGaussJacobi();
  TestSimplexRules();
  TestBernstein();
  TestTables();
  return BlastTestFinish("test_simplex_fe");
}
