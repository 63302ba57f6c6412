// Problems of the sizes of simplex elements for the backend conformance test: a real
// full-assembly problem on a uniform box of quadrilaterals or hexahedra whose zone tables
// are replaced by synthetic ones with nd H1 nodes, ne L2 functions and nqp points per zone
// (triangles and tetrahedra of orders 1-4 have nd = 3..15 / 4..35, ne = 1..10 / 1..20).
// The backends' full path reads only these tables (no element shape), so the problem
// exercises it at those sizes; the mass matrix, the halos and the essential dofs of the
// real problem are kept.
//
// Each zone keeps its first nd nodes (nd = dim + 1: three or four vertices of a Q1 zone,
// with the gradients of the linear functions). The gradient table is random but shaped so that the
// zones' Jacobians at the mesh positions are the identity (with J0^{-1} = I): the
// gradients sum to zero over the nodes, reproduce the linear functions on the nodes'
// positions relative to node 0 (the mesh is uniform, so every zone has the same relative
// positions), and node 0's gradient is s / (d h) with s = -(1, -1, -1) (d components, h
// the zone width): moving node 0 by 3 h (1, -1, -1), as the tangled state of ProblemState
// does, gives det J = 1 - 3 < 0 at every point of that zone, while the smooth state's
// small perturbations keep det J near 1. The other tables are random positive (weights,
// H1 values normalised per point, L2 values, rho0 |J0| w) or random (M_E^{-1}).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"

// Solve the n x n system A y = b (n <= 4) by Gaussian elimination with partial pivoting;
// 1 if A is singular to working precision.
static int Solve(int n, double A[4][5], double *y) {
  for (int k = 0; k < n; k++) {
    int piv = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[i][k]) > fabs(A[piv][k])) piv = i;
    if (fabs(A[piv][k]) < 1e-12) return 1;
    for (int j = 0; j <= n; j++) {
      const double t = A[k][j];
      A[k][j] = A[piv][j], A[piv][j] = t;
    }
    for (int i = k + 1; i < n; i++) {
      const double f = A[i][k] / A[k][k];
      for (int j = k; j <= n; j++) A[i][j] -= f * A[k][j];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = A[i][n];
    for (int j = i + 1; j < n; j++) s -= A[i][j] * y[j];
    y[i] = s / A[i][i];
  }
  return 0;
}

// The gradients of one point, G[a * dim + g], as the header describes; eta: the nodes'
// positions relative to node 0 in units of h, [a * dim + c].
// With nd = dim + 1 (a linear simplex) the constraints leave no freedom: the gradients are
// those of the linear functions on the nodes, node 0 included (a0 = 0).
static int PointGradients(Rng *r, int dim, int nd, double h, const double *eta, double *G) {
  const double s[3] = {-1.0, 1.0, 1.0};
  const int a0 = nd == dim + 1 ? 0 : 1;
  for (int g = 0; g < dim; g++) G[g] = a0 ? s[g] / (dim * h) : 0.0;
  for (int a = a0; a < nd; a++)
    for (int g = 0; g < dim; g++) G[a * dim + g] = 0.3 / h * RandU(r);
  // Per direction g, the values y_a = G[a][g] of nodes a >= a0 get the least correction
  // C^T l that meets C y = t: C's rows are ones and eta_c; t = (-G_0g, delta_cg / h).
  const int m = dim + 1;
  for (int g = 0; g < dim; g++) {
    double A[4][5], lam[4];
    for (int i = 0; i < m; i++) {
      double res = i == 0 ? (a0 ? -G[g] : 0.0) : (i - 1 == g ? 1.0 / h : 0.0);
      for (int a = a0; a < nd; a++) res -= (i ? eta[a * dim + i - 1] : 1.0) * G[a * dim + g];
      for (int j = 0; j < m; j++) {
        double cc = 0.0;
        for (int a = a0; a < nd; a++)
          cc += (i ? eta[a * dim + i - 1] : 1.0) * (j ? eta[a * dim + j - 1] : 1.0);
        A[i][j] = cc;
      }
      A[i][m] = res;
    }
    if (Solve(m, A, lam)) return 1;
    for (int a = a0; a < nd; a++) {
      double cor = lam[0];
      for (int c = 0; c < dim; c++) cor += lam[c + 1] * eta[a * dim + c];
      G[a * dim + g] += cor;
    }
  }
  return 0;
}

int ProblemSimplexSizes(Problem *p, int nd, int ne, int nqp) {
  BlastHydroData *hd = &p->hd;
  const int dim = hd->dim, nz = hd->nz, nl = hd->h1_nl, nd0 = hd->h1_nd;
  BlastCheck(hd->assembly == BLAST_ASSEMBLY_FULL && nd <= nd0 && nd >= dim + 1 && ne >= 1 &&
                 nqp >= 1 && (nd > dim + 1 || nd0 == (1 << dim)),
             BLAST_ERR_ARG, "simplex sizes nd %d, ne %d, nqp %d on a problem with nd %d", nd, ne,
             nqp, nd0);
  const size_t d2 = (size_t)dim * dim;
  int *edof = malloc((size_t)nz * nd * sizeof(int)), *tidx = malloc((size_t)nz * nd * sizeof(int));
  int *toff = calloc((size_t)nl + 2, sizeof(int));
  double *G = HostNew((size_t)nqp * nd * dim), *B = HostNew((size_t)nqp * nd);
  double *L2B = HostNew((size_t)nqp * ne), *w = HostNew((size_t)nqp);
  double *R0 = HostNew((size_t)nz * nqp), *J0inv = HostNew((size_t)nz * nqp * d2);
  double *me_inv = HostNew((size_t)nz * ne * ne), *eta = HostNew((size_t)nd * dim);
  BlastCheck(edof && tidx && toff, BLAST_ERR_MEM, "simplex-size tables");
  p->s_int[0] = edof, p->s_int[1] = tidx, p->s_int[2] = toff;
  double *dbl[] = {G, B, L2B, w, R0, J0inv, me_inv};
  for (int i = 0; i < 7; i++) p->s_dbl[i] = dbl[i];
  // a linear simplex on Q1 zones: the vertices on the y axis, on the x axis, at the origin
  // and on the z axis (node 0 thrown along (1, -1, -1) folds the zone)
  const int lin[4] = {2, 1, 0, 4};
  for (int z = 0; z < nz; z++)
    for (int a = 0; a < nd; a++)
      edof[(size_t)z * nd + a] = hd->h1_edof[(size_t)z * nd0 + (nd == dim + 1 ? lin[a] : a)];
  // the transpose map: each dof's E-indices z * nd + a in ascending order
  for (size_t i = 0; i < (size_t)nz * nd; i++) toff[edof[i] + 1]++;
  for (int l = 0; l < nl; l++) toff[l + 1] += toff[l];
  int *fill = calloc((size_t)nl + 1, sizeof(int));
  BlastCheck(fill != NULL, BLAST_ERR_MEM, "simplex-size tables");
  for (size_t i = 0; i < (size_t)nz * nd; i++) tidx[toff[edof[i]] + fill[edof[i]]++] = (int)i;
  free(fill);
  // the nodes' positions relative to node 0, the same in every zone (a uniform mesh)
  const double h = p->hz;
  for (int z = 0; z < nz; z++)
    for (int a = 0; a < nd; a++)
      for (int c = 0; c < dim; c++) {
        const double *x = p->x0 + (size_t)c * nl;
        const double rel =
            (x[edof[(size_t)z * nd + a]] - x[edof[(size_t)z * nd]]) / h;  // in units of h
        if (z == 0) eta[a * dim + c] = rel;
        BlastCheck(fabs(rel - eta[a * dim + c]) < 1e-9, BLAST_ERR_ARG,
                   "zone %d's nodes are not placed as zone 0's (the mesh is not uniform)", z);
      }
  Rng r = RngSeed(4242 + 31 * (unsigned long long)nd + (unsigned long long)nqp);
  for (int q = 0; q < nqp; q++) {
    BlastCheck(!PointGradients(&r, dim, nd, h, eta, &G[(size_t)q * nd * dim]), BLAST_ERR_ARG,
               "the first %d nodes of a zone do not span %dD", nd, dim);
    double sum = 0.0;
    for (int a = 0; a < nd; a++) {
      B[(size_t)q * nd + a] = 1.1 + RandU(&r);
      sum += B[(size_t)q * nd + a];
    }
    for (int a = 0; a < nd; a++) B[(size_t)q * nd + a] /= sum;
    for (int j = 0; j < ne; j++) L2B[(size_t)q * ne + j] = 0.5 + 0.5 * RandU(&r);
    w[q] = (1.5 + 0.5 * RandU(&r)) / nqp;
  }
  for (int z = 0; z < nz; z++)
    for (int q = 0; q < nqp; q++) {
      R0[(size_t)z * nqp + q] = w[q] * (1.0 + 0.1 * RandU(&r));
      for (size_t i = 0; i < d2; i++)
        J0inv[((size_t)z * nqp + q) * d2 + i] = i % (dim + 1) == 0 ? 1.0 : 0.0;
    }
  for (int z = 0; z < nz; z++)
    for (int i = 0; i < ne * ne; i++)
      me_inv[(size_t)z * ne * ne + i] = (i % (ne + 1) == 0 ? 2.0 * ne : 0.0) + RandU(&r);
  hd->h1_nd = nd, hd->l2_nd = ne, hd->nqp = nqp;
  hd->h1_edof = edof, hd->h1_tidx = tidx, hd->h1_toff = toff;
  hd->h1_G = G, hd->h1_B = B, hd->l2_B = L2B, hd->qp_w = w, hd->qp_R0 = R0;
  hd->full.J0inv = J0inv, hd->me_inv = me_inv;
  p->ne = (size_t)nz * ne;
  HostFree(&eta);
  return 0;
}
