// Finite elements on triangles and tetrahedra (simplex.h): Gauss-Jacobi rules, collapsed
// quadrature, the Bernstein basis, and the tables of any zone geometry (fe.h).
#include "simplex.h"

#include <math.h>
#include <string.h>

#include "geom_basis.h"

// Recurrence of the orthonormal polynomials of the weight (1 - x)^alpha on [0,1]:
// B_{j+1} p_{j+1} = (x - A_j) p_j - B_j p_{j-1}, p_0 = 1/sqrt(mu0), mu0 = 1/(alpha + 1).
// From the Jacobi polynomials of (1 - t)^alpha on [-1,1] (beta = 0) under x = (1 + t)/2.
static void JacobiRecurrence(int n, int alpha, double *A, double *B) {
  const double a = alpha;
  for (int j = 0; j < n; j++) {
    const double s = 2.0 * j + a;  // 2j + alpha + beta
    A[j] = j == 0 ? 0.5 * (1.0 - a / (a + 2.0)) : 0.5 * (1.0 - a * a / (s * (s + 2.0)));
    if (j == 0) {
      B[j] = 0.0;
    } else {
      const double b2 = 4.0 * j * (j + a) * j * (j + a) / (s * s * (s + 1.0) * (s - 1.0));
      B[j] = 0.5 * sqrt(b2);
    }
  }
}

// Eigenvalues of the Jacobi matrix below x (Sturm sequence of the LDL^T pivots).
static int SturmCount(int n, const double *A, const double *B, double x) {
  int count = 0;
  double d = 1.0;
  for (int j = 0; j < n; j++) {
    d = (A[j] - x) - (j ? B[j] * B[j] / d : 0.0);
    if (d == 0.0) d = -1e-300;
    count += d < 0.0;
  }
  return count;
}

// Orthonormal p_0 .. p_{n-1} at x (p[j]), and p_n, p_n' returned through pn, dpn.
static void Orthonormal(int n, const double *A, const double *B, double mu0, double x, double *p,
                        double *pn, double *dpn) {
  double pm = 0.0, pc = 1.0 / sqrt(mu0), dm = 0.0, dc = 0.0;
  for (int j = 0; j < n; j++) {
    p[j] = pc;
    const double bn = B[j + 1];  // computed for j + 1 <= n
    const double pnext = ((x - A[j]) * pc - B[j] * pm) / bn;
    const double dnext = (pc + (x - A[j]) * dc - B[j] * dm) / bn;
    pm = pc, pc = pnext, dm = dc, dc = dnext;
  }
  *pn = pc, *dpn = dc;
}

int BlastGaussJacobi(int n, int alpha, double *x, double *w) {
  BlastCheck(n >= 1 && n <= BLAST_MAX_Q1D, BLAST_ERR_ARG,
             "Gauss-Jacobi rule with %d points requested (1..%d supported)", n, BLAST_MAX_Q1D);
  BlastCheck(alpha >= 0 && alpha <= 2, BLAST_ERR_ARG, "Gauss-Jacobi weight exponent %d (0..2)",
             alpha);
  double A[BLAST_MAX_Q1D + 1], B[BLAST_MAX_Q1D + 1], p[BLAST_MAX_Q1D];
  JacobiRecurrence(n + 1, alpha, A, B);
  const double mu0 = 1.0 / (alpha + 1);
  for (int i = 0; i < n; i++) {
    // The (i+1)-th smallest eigenvalue: the smallest x with i+1 eigenvalues below it.
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 200; it++) {
      const double mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;
      if (SturmCount(n, A, B, mid) >= i + 1)
        hi = mid;
      else
        lo = mid;
    }
    double xi = 0.5 * (lo + hi), pn, dpn;
    Orthonormal(n, A, B, mu0, xi, p, &pn, &dpn);
    if (dpn != 0.0) {
      const double xn = xi - pn / dpn;
      if (xn > lo - 1e-15 && xn < hi + 1e-15) xi = xn;
    }
    Orthonormal(n, A, B, mu0, xi, p, &pn, &dpn);
    double sum = 0.0;
    for (int j = 0; j < n; j++) sum += p[j] * p[j];
    x[i] = xi, w[i] = 1.0 / sum;
    BlastCheck(xi > 0.0 && xi < 1.0 && w[i] > 0.0 && isfinite(w[i]), BLAST_ERR_INTERNAL,
               "Gauss-Jacobi rule (n = %d, alpha = %d): point %d at %g, weight %g", n, alpha, i, xi,
               w[i]);
  }
  return 0;
}

int BlastSimplexQuadrature(int dim, int n, double *x, double *w) {
  BlastCheck(dim == 2 || dim == 3, BLAST_ERR_ARG, "simplex quadrature in dimension %d", dim);
  double u[3][BLAST_MAX_Q1D], wu[3][BLAST_MAX_Q1D];
  BlastCall(BlastGaussLegendre(n, u[0], wu[0]));
  for (int g = 1; g < dim; g++) BlastCall(BlastGaussJacobi(n, g, u[g], wu[g]));
  const int nqp = dim == 2 ? n * n : n * n * n;
  for (int q = 0; q < nqp; q++) {
    const int l[3] = {q % n, (q / n) % n, q / (n * n)};
    const double a = u[0][l[0]], b = u[1][l[1]], c = dim == 3 ? u[2][l[2]] : 0.0;
    double *xq = &x[(size_t)q * dim];
    if (dim == 2) {
      xq[0] = a * (1.0 - b), xq[1] = b;
      w[q] = wu[0][l[0]] * wu[1][l[1]];
    } else {
      xq[0] = a * (1.0 - b) * (1.0 - c), xq[1] = b * (1.0 - c), xq[2] = c;
      w[q] = wu[0][l[0]] * wu[1][l[1]] * wu[2][l[2]];
    }
  }
  return 0;
}

int BlastSimplexLatticeIndex(int dim, int p, const int *i) {
  // Points before layer i_2 (tetrahedra), then before row i_1 of that layer, then i_0.
  int a = 0;
  const int l = dim == 3 ? i[2] : 0, q = p - l;  // the layer is a triangle of order q
  for (int s = 0; s < l; s++) a += (p - s + 1) * (p - s + 2) / 2;
  if (dim >= 2)
    for (int j = 0; j < i[1]; j++) a += q - j + 1;
  return a + i[0];
}

void BlastSimplexLatticePoint(int dim, int p, int a, int *i) {
  int l = 0, j = 0;
  if (dim == 3)
    for (int size; a >= (size = (p - l + 1) * (p - l + 2) / 2); l++) a -= size;
  if (dim >= 2)
    for (const int q = p - l; a >= q - j + 1; j++) a -= q - j + 1;
  i[0] = a;
  if (dim >= 2) i[1] = j;
  if (dim == 3) i[2] = l;
}

void BlastSimplexBernstein(int dim, int m, const double *xi, double *b, double *db) {
  // Powers lambda_v^e, e = 0..m, and the factorials.
  double lam[4], P[4][BLAST_MAX_ORDER + 1], fact[BLAST_MAX_ORDER + 1];
  lam[0] = 1.0;
  for (int g = 0; g < dim; g++) lam[0] -= xi[g], lam[g + 1] = xi[g];
  fact[0] = 1.0;
  for (int e = 1; e <= m; e++) fact[e] = fact[e - 1] * e;
  for (int v = 0; v <= dim; v++) {
    P[v][0] = 1.0;
    for (int e = 1; e <= m; e++) P[v][e] = P[v][e - 1] * lam[v];
  }
  const int nb = BlastGeomNumNodes(BlastGeomSimplex(dim), m);
  for (int a = 0; a < nb; a++) {
    int i[4] = {m, 0, 0, 0};  // i[0] of lambda_0, i[g+1] of lambda_{g+1} = xi_g
    BlastSimplexLatticePoint(dim, m, a, &i[1]);
    double c = fact[m];
    for (int g = 1; g <= dim; g++) i[0] -= i[g];
    for (int v = 0; v <= dim; v++) c /= fact[i[v]];
    if (b) {
      double val = c;
      for (int v = 0; v <= dim; v++) val *= P[v][i[v]];
      b[a] = val;
    }
    if (db)
      for (int g = 0; g < dim; g++) {
        // d/dxi_g: lambda_{g+1} grows, lambda_0 falls.
        double up = i[g + 1] ? c * i[g + 1] : 0.0, down = i[0] ? c * i[0] : 0.0;
        for (int v = 0; v <= dim; v++) {
          up *= v == g + 1 ? (i[v] ? P[v][i[v] - 1] : 0.0) : P[v][i[v]];
          down *= v == 0 ? (i[v] ? P[v][i[v] - 1] : 0.0) : P[v][i[v]];
        }
        db[a * dim + g] = up - down;
      }
  }
}

int BlastElementTablesCreate(int geom, int k, int m, int order_quadrature,
                             BlastTensorTables **tables) {
  const int dim = BlastGeomDim(geom);
  BlastCheck(dim >= 1 && dim <= 3, BLAST_ERR_ARG, "zone geometry %d (%s)", geom,
             BlastGeomName(geom));
  if (!BlastGeomIsSimplex(geom)) {
    BlastCall(BlastTensorTablesCreate(dim, k, m, BlastQuadraturePoints1D(k, m, order_quadrature),
                                      tables));
    return 0;
  }
  BlastCheck(k >= 1 && k <= BLAST_MAX_ORDER && k <= BLAST_GEOM_BASIS_MAX_ORDER, BLAST_ERR_INPUT,
             "kinematic order %d outside 1..%d", k, BLAST_MAX_ORDER);
  BlastCheck(m >= 0 && m <= BLAST_MAX_ORDER, BLAST_ERR_INPUT,
             "thermodynamic order %d outside 0..%d", m, BLAST_MAX_ORDER);
  const int n = BlastQuadraturePoints1D(k, m, order_quadrature);
  BlastCheck(n >= 1 && n <= BLAST_MAX_Q1D, BLAST_ERR_INPUT,
             "%d quadrature points per direction outside 1..%d", n, BLAST_MAX_Q1D);
  BlastTensorTables *t;
  BlastCall(BlastCalloc(1, &t));
  t->geom = geom, t->dim = dim, t->k = k, t->m = m, t->q1d = n;
  t->nqp = dim == 2 ? n * n : n * n * n;
  t->h1_nd = BlastGeomNumNodes(geom, k), t->l2_nd = BlastGeomNumNodes(geom, m);
  for (int j = 0; j <= k; j++) t->h1_nodes[j] = (double)j / k;
  int ierr = BlastMalloc(t->nqp, &t->qp_w);
  if (!ierr) ierr = BlastMalloc(t->nqp * dim, &t->qp_x);
  if (!ierr) ierr = BlastMalloc(t->nqp * t->h1_nd, &t->h1_B);
  if (!ierr) ierr = BlastMalloc(t->nqp * t->h1_nd * dim, &t->h1_G);
  if (!ierr) ierr = BlastMalloc(t->nqp * t->l2_nd, &t->l2_B);
  if (!ierr) ierr = BlastSimplexQuadrature(dim, n, t->qp_x, t->qp_w);
  if (ierr) {
    BlastTensorTablesDestroy(&t);
    BlastCall(ierr);
  }
  for (int q = 0; q < t->nqp; q++) {
    const double *xi = &t->qp_x[(size_t)q * dim];
    BlastGeomLagrange(geom, k, xi, &t->h1_B[(size_t)q * t->h1_nd],
                      &t->h1_G[(size_t)q * t->h1_nd * dim]);
    BlastSimplexBernstein(dim, m, xi, &t->l2_B[(size_t)q * t->l2_nd], NULL);
  }
  *tables = t;
  return 0;
}
