// 1D rules and bases, tensor tables (method spec sections 2 and 4).
#include <math.h>
#include <string.h>

#include "fe.h"
#include "geom_basis.h"
#include "simplex.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

int BlastGaussLegendre(int n, double *x, double *w) {
  BlastCheck(n >= 1 && n <= BLAST_MAX_Q1D, BLAST_ERR_ARG,
             "Gauss-Legendre rule with %d points requested (1..%d supported)", n, BLAST_MAX_Q1D);
  switch (n) {
    case 1:
      x[0] = 0.5, w[0] = 1.0;
      return 0;
    case 2:
      x[0] = 0.21132486540518711775, x[1] = 0.78867513459481288225;
      w[0] = w[1] = 0.5;
      return 0;
    case 3:
      x[0] = 0.11270166537925831148, x[1] = 0.5, x[2] = 0.88729833462074168852;
      w[0] = w[2] = 5. / 18., w[1] = 4. / 9.;
      return 0;
    default:
      break;
  }
  // Newton on P_n(z) in [-1,1] from the classical cosine guesses, largest root first; the
  // point is mapped to [0,1] as ((1 - z) + dz)/2 to avoid cancellation near z = 1.
  for (int i = 1; i <= (n + 1) / 2; i++) {
    double z = cos(M_PI * (i - 0.25) / (n + 0.5)), xi = 0.0, dpn = 0.0;
    int converged = 0;
    for (int it = 0; it < 100; it++) {
      double p0 = 1.0, p1 = z;  // P_{j-2}, P_{j-1}
      for (int j = 2; j <= n; j++) {
        double p2 = ((2 * j - 1) * z * p1 - (j - 1) * p0) / j;
        p0 = p1;
        p1 = p2;
      }
      // p1 = P_n(z), p0 = P_{n-1}(z); P_n'(z) from the derivative identity.
      dpn = n * (z * p1 - p0) / (z * z - 1);
      if (converged) break;
      double dz = p1 / dpn;
      if (fabs(dz) < 1e-16) {
        converged = 1;
        xi = ((1 - z) + dz) / 2;
      }
      z -= dz;
    }
    BlastCheck(converged, BLAST_ERR_INTERNAL, "Gauss-Legendre Newton iteration failed (n=%d)", n);
    x[i - 1] = xi;
    x[n - i] = 1 - xi;
    w[i - 1] = w[n - i] = 1. / (4 * xi * (1 - xi) * dpn * dpn);
  }
  return 0;
}

int BlastGaussLobatto(int n, double *x, double *w) {
  BlastCheck(n >= 1 && n <= BLAST_MAX_Q1D, BLAST_ERR_ARG,
             "Gauss-Lobatto rule with %d points requested (1..%d supported)", n, BLAST_MAX_Q1D);
  if (n == 1) {
    x[0] = 0.5;
    if (w) w[0] = 1.0;
    return 0;
  }
  x[0] = 0.0, x[n - 1] = 1.0;
  if (w) w[0] = w[n - 1] = 1.0 / (n * (n - 1));
  // Interior points: roots of P_{n-1}' by Newton on (s^2-1) P_{n-1}'(s) from
  // Chebyshev-Gauss-Lobatto guesses, half of them by symmetry (for odd n the last guess
  // is the middle node 1/2, where the iteration stops at once).
  for (int i = 1; i <= (n - 1) / 2; i++) {
    double s = sin(M_PI * ((double)i / (n - 1) - 0.5)), xi = 0.0, pl = 0.0;
    int converged = 0;
    for (int it = 0; it < 100; it++) {
      double plm1 = 1.0;
      pl = s;
      for (int l = 1; l < n - 1; l++) {
        double plp1 = ((2 * l + 1) * s * pl - l * plm1) / (l + 1);
        plm1 = pl;
        pl = plp1;
      }
      if (converged) break;
      double ds = (s * pl - plm1) / (n * pl);
      if (fabs(ds) < 1e-16) {
        converged = 1;
        xi = ((1.0 + s) - ds) / 2;
      }
      s -= ds;
    }
    BlastCheck(converged, BLAST_ERR_INTERNAL, "Gauss-Lobatto Newton iteration failed (n=%d)", n);
    x[i] = xi;
    x[n - 1 - i] = 1.0 - xi;
    if (w) w[i] = w[n - 1 - i] = 1.0 / (n * (n - 1) * pl * pl);
  }
  return 0;
}

void BlastLagrange1D(int np, const double *nodes, double x, double *phi, double *dphi) {
  for (int a = 0; a < np; a++) {
    double v = 1.0, d = 0.0;
    for (int b = 0; b < np; b++) {
      if (b == a) continue;
      double inv = 1.0 / (nodes[a] - nodes[b]), f = (x - nodes[b]) * inv;
      d = d * f + v * inv;  // product rule, accumulated left to right
      v *= f;
    }
    if (phi) phi[a] = v;
    if (dphi) dphi[a] = d;
  }
}

// Values of the degree-m Bernstein basis at x: binomial terms built upward in x, then
// multiplied by powers of y = 1 - x downward.
static void BernsteinValues(int m, double x, double *b) {
  if (m == 0) {
    b[0] = 1.0;
    return;
  }
  double y = 1.0 - x;
  b[0] = 1.0;
  double xp = 1.0;
  for (int i = 1; i <= m; i++) {
    xp *= x;
    // binomial(m, i) x^i
    double binom = 1.0;
    for (int j = 1; j <= i; j++) binom = binom * (m - i + j) / j;
    b[i] = binom * xp;
  }
  double yp = 1.0;
  for (int i = m - 1; i >= 0; i--) {
    yp *= y;
    b[i] *= yp;
  }
}

void BlastBernstein1D(int m, double x, double *b, double *db) {
  if (b) BernsteinValues(m, x, b);
  if (db) {
    if (m == 0) {
      db[0] = 0.0;
      return;
    }
    double lower[BLAST_MAX_ORDER + 1];
    BernsteinValues(m - 1, x, lower);
    for (int i = 0; i <= m; i++) {
      double left = i > 0 ? lower[i - 1] : 0.0, right = i < m ? lower[i] : 0.0;
      db[i] = m * (left - right);
    }
  }
}

int BlastQuadraturePoints1D(int k, int m, int order_quadrature) {
  return BlastQuadratureOrder(order_quadrature, k, m) / 2 + 1;
}

static int Pow(int b, int e) {
  int r = 1;
  while (e--) r *= b;
  return r;
}

int BlastTensorTablesCreate(int dim, int k, int m, int q1d, BlastTensorTables **tables) {
  BlastCheck(dim >= 1 && dim <= 3, BLAST_ERR_ARG, "dimension %d", dim);
  BlastCheck(k >= 1 && k <= BLAST_MAX_ORDER, BLAST_ERR_INPUT, "kinematic order %d outside 1..%d", k,
             BLAST_MAX_ORDER);
  BlastCheck(m >= 0 && m <= BLAST_MAX_ORDER, BLAST_ERR_INPUT,
             "thermodynamic order %d outside 0..%d", m, BLAST_MAX_ORDER);
  BlastCheck(q1d >= 1 && q1d <= BLAST_MAX_Q1D, BLAST_ERR_INPUT,
             "%d quadrature points per direction outside 1..%d", q1d, BLAST_MAX_Q1D);
  BlastTensorTables *t;
  BlastCall(BlastCalloc(1, &t));
  t->geom = BlastGeomTensor(dim), t->dim = dim, t->k = k, t->m = m, t->q1d = q1d;
  t->nqp = Pow(q1d, dim), t->h1_nd = Pow(k + 1, dim), t->l2_nd = Pow(m + 1, dim);
  BlastCall(BlastGaussLegendre(q1d, t->q1d_x, t->q1d_w));
  BlastCall(BlastGaussLobatto(k + 1, t->h1_nodes, NULL));
  BlastCall(BlastMalloc(t->nqp, &t->qp_w));
  BlastCall(BlastMalloc(t->nqp * dim, &t->qp_x));
  BlastCall(BlastMalloc(t->nqp * t->h1_nd, &t->h1_B));
  BlastCall(BlastMalloc(t->nqp * t->h1_nd * dim, &t->h1_G));
  BlastCall(BlastMalloc(t->nqp * t->l2_nd, &t->l2_B));
  for (int l = 0; l < q1d; l++) {
    BlastLagrange1D(k + 1, t->h1_nodes, t->q1d_x[l], &t->b1d[l * (k + 1)], &t->g1d[l * (k + 1)]);
    BlastBernstein1D(m, t->q1d_x[l], &t->l1d[l * (m + 1)], NULL);
  }
  for (int q = 0; q < t->nqp; q++) {
    int l[3] = {q % q1d, (q / q1d) % q1d, q / (q1d * q1d)};
    double w = 1.0;
    for (int g = 0; g < dim; g++) {
      t->qp_x[q * dim + g] = t->q1d_x[l[g]];
      w *= t->q1d_w[l[g]];  // (w1 w2) w3, as the reference
    }
    t->qp_w[q] = w;
    BlastH1BasisEval(t, &t->qp_x[q * dim], &t->h1_B[q * t->h1_nd], &t->h1_G[q * t->h1_nd * dim]);
    BlastL2BasisEval(t, &t->qp_x[q * dim], &t->l2_B[q * t->l2_nd]);
  }
  *tables = t;
  return 0;
}

int BlastElementTablesPad(const BlastTensorTables *t, int nqp, int h1_nd, int l2_nd,
                          BlastTensorTables **tables) {
  BlastCheck(nqp >= t->nqp && h1_nd >= t->h1_nd && l2_nd >= t->l2_nd, BLAST_ERR_ARG,
             "padding %d points, %d and %d dofs below %d, %d and %d", nqp, h1_nd, l2_nd, t->nqp,
             t->h1_nd, t->l2_nd);
  const int dim = t->dim, nr = t->nqp, ndr = t->h1_nd, ner = t->l2_nd;
  BlastTensorTables *p;
  BlastCall(BlastMalloc(1, &p));
  *p = *t;
  p->nqp = nqp, p->h1_nd = h1_nd, p->l2_nd = l2_nd;
  p->qp_w = p->qp_x = p->h1_B = p->h1_G = p->l2_B = p->qp_wk = NULL;
  int ierr = BlastMalloc(nqp, &p->qp_w);
  if (!ierr) ierr = BlastMalloc(nqp, &p->qp_wk);
  if (!ierr) ierr = BlastMalloc((size_t)nqp * dim, &p->qp_x);
  if (!ierr) ierr = BlastMalloc((size_t)nqp * h1_nd, &p->h1_B);
  if (!ierr) ierr = BlastMalloc((size_t)nqp * h1_nd * dim, &p->h1_G);
  if (!ierr) ierr = BlastMalloc((size_t)nqp * l2_nd, &p->l2_B);
  if (ierr) {
    BlastTensorTablesDestroy(&p);
    BlastCall(ierr);
  }
  for (int q = 0; q < nqp; q++) {
    const int real = q < nr, r = real ? q : 0;  // a padded point repeats point 0
    p->qp_w[q] = real ? t->qp_w[q] : 0.0;
    p->qp_wk[q] = t->qp_w[r];
    for (int g = 0; g < dim; g++) p->qp_x[q * dim + g] = t->qp_x[r * dim + g];
    for (int a = 0; a < h1_nd; a++) {
      p->h1_B[(size_t)q * h1_nd + a] = real && a < ndr ? t->h1_B[(size_t)q * ndr + a] : 0.0;
      for (int g = 0; g < dim; g++)
        p->h1_G[((size_t)q * h1_nd + a) * dim + g] =
            a < ndr ? t->h1_G[((size_t)r * ndr + a) * dim + g] : 0.0;
    }
    for (int j = 0; j < l2_nd; j++)
      p->l2_B[(size_t)q * l2_nd + j] = real && j < ner ? t->l2_B[(size_t)q * ner + j] : 0.0;
  }
  *tables = p;
  return 0;
}

int BlastTensorTablesEquispaced(BlastTensorTables *t) {
  BlastCheck(!BlastGeomIsSimplex(t->geom) && !t->qp_wk, BLAST_ERR_ARG,
             "equispaced nodes: tensor tables before padding only");
  const int k = t->k, dim = t->dim;
  for (int j = 0; j <= k; j++) t->h1_nodes[j] = (double)j / k;
  for (int l = 0; l < t->q1d; l++)
    BlastLagrange1D(k + 1, t->h1_nodes, t->q1d_x[l], &t->b1d[l * (k + 1)], &t->g1d[l * (k + 1)]);
  for (int q = 0; q < t->nqp; q++)
    BlastH1BasisEval(t, &t->qp_x[q * dim], &t->h1_B[q * t->h1_nd], &t->h1_G[q * t->h1_nd * dim]);
  return 0;
}

void BlastTensorTablesDestroy(BlastTensorTables **tables) {
  if (!tables || !*tables) return;
  BlastTensorTables *t = *tables;
  BlastFree(&t->qp_w);
  BlastFree(&t->qp_wk);
  BlastFree(&t->qp_x);
  BlastFree(&t->h1_B);
  BlastFree(&t->h1_G);
  BlastFree(&t->l2_B);
  BlastFree(tables);
}

void BlastH1BasisEval(const BlastTensorTables *t, const double *xi, double *val, double *grad) {
  const int dim = t->dim, n = t->k + 1, nr = BlastGeomNumNodes(t->geom, t->k);
  for (int a = nr; a < t->h1_nd; a++) {  // padding (mixed meshes): zero functions
    if (val) val[a] = 0.0;
    if (grad)
      for (int g = 0; g < dim; g++) grad[a * dim + g] = 0.0;
  }
  if (BlastGeomIsSimplex(t->geom)) {
    BlastGeomLagrange(t->geom, t->k, xi, val, grad);
    return;
  }
  double v[3][BLAST_MAX_ORDER + 1], d[3][BLAST_MAX_ORDER + 1];
  for (int g = 0; g < dim; g++) BlastLagrange1D(n, t->h1_nodes, xi[g], v[g], d[g]);
  for (int a = 0; a < nr; a++) {
    int ai[3] = {a % n, (a / n) % n, a / (n * n)};
    double prod = 1.0;
    for (int g = 0; g < dim; g++) prod *= v[g][ai[g]];
    if (val) val[a] = prod;
    if (grad) {
      for (int g = 0; g < dim; g++) {
        double p = 1.0;
        for (int h = 0; h < dim; h++) p *= (h == g) ? d[h][ai[h]] : v[h][ai[h]];
        grad[a * dim + g] = p;
      }
    }
  }
}

void BlastL2BasisEval(const BlastTensorTables *t, const double *xi, double *val) {
  const int dim = t->dim, n = t->m + 1, nr = BlastGeomNumNodes(t->geom, t->m);
  for (int i = nr; i < t->l2_nd; i++) val[i] = 0.0;  // padding (mixed meshes)
  if (BlastGeomIsSimplex(t->geom)) {
    BlastSimplexBernstein(t->dim, t->m, xi, val, NULL);
    return;
  }
  double v[3][BLAST_MAX_ORDER + 1];
  for (int g = 0; g < dim; g++) BlastBernstein1D(t->m, xi[g], v[g], NULL);
  for (int i = 0; i < nr; i++) {
    int ii[3] = {i % n, (i / n) % n, i / (n * n)};
    double prod = 1.0;
    for (int g = 0; g < dim; g++) prod *= v[g][ii[g]];
    val[i] = prod;
  }
}
