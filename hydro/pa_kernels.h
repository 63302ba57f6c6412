/// @file pa_kernels.h
/// @brief Single-source zone kernels of the partial-assembly (matrix-free) path, compiled
/// for the host (C11) and the device (CUDA): sum-factorised interpolation and gradients
/// with 1D tables, the momentum mass action of a zone, and the quadrature-point update
/// that yields the zone's momentum contributions -F_z 1 and F_z^T v without forming F_z.
///
/// These functions define the bits of the partial path. Every output entry is one sum
/// whose terms are added in the order written here, starting from 0.0, with no fused
/// multiply-adds (host: C11 without contraction; device: --fmad=false). A backend may
/// distribute the entries of a stage over threads in any way, as long as each entry is
/// summed in this order (the CUDA backend does; tests/backend compares it bit for bit).
///
/// Conventions (x fastest everywhere, as fe.h):
///  - 1D tables T[q*D + a]: basis function a (of D per direction) at 1D point q (of Q);
///    B values, G derivatives of the H1 (GLL) basis, L values of the L2 (Bernstein) basis;
///  - a zone scalar field has D^dim node values u[a1 + D a2 + D^2 a3] and Q^dim point
///    values w[q1 + Q q2 + Q^2 q3]; a gradient is stored direction-major d[g*Q^dim + q];
///  - an H1 vector field of a zone is component-major: u[c*D^dim + a].
#ifndef BLAST_PA_KERNELS_H
#define BLAST_PA_KERNELS_H

#include <stddef.h>

#include "qpoint.h"

/// Largest scratch (doubles) the contractions below need for D, Q <= n (any dim <= 3).
#define BLAST_PA_CONTRACT_WS(n) (3 * (n) * (n) * (n) + 2 * (n) * (n) * (n))

/// w = values at the points of the node field u (dim contractions: x, then y, then z).
/// ws: D^2 Q + D Q^2 doubles.
BLAST_HOST_DEVICE static inline void BlastPaInterp(int dim, int D, int Q, const double *B,
                                                   const double *u, double *w, double *ws) {
  if (dim == 1) {
    for (int q = 0; q < Q; q++) {
      double s = 0.0;
      for (int a = 0; a < D; a++) s += B[q * D + a] * u[a];
      w[q] = s;
    }
    return;
  }
  double *t1 = ws;  // [a3][a2][q1]
  const int D3 = dim == 3 ? D : 1;
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int q1 = 0; q1 < Q; q1++) {
        double s = 0.0;
        for (int a1 = 0; a1 < D; a1++) s += B[q1 * D + a1] * u[(a3 * D + a2) * D + a1];
        t1[(a3 * D + a2) * Q + q1] = s;
      }
  if (dim == 2) {
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        double s = 0.0;
        for (int a2 = 0; a2 < D; a2++) s += B[q2 * D + a2] * t1[a2 * Q + q1];
        w[q2 * Q + q1] = s;
      }
    return;
  }
  double *t2 = ws + D * D * Q;  // [a3][q2][q1]
  for (int a3 = 0; a3 < D; a3++)
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        double s = 0.0;
        for (int a2 = 0; a2 < D; a2++) s += B[q2 * D + a2] * t1[(a3 * D + a2) * Q + q1];
        t2[(a3 * Q + q2) * Q + q1] = s;
      }
  for (int q3 = 0; q3 < Q; q3++)
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        double s = 0.0;
        for (int a3 = 0; a3 < D; a3++) s += B[q3 * D + a3] * t2[(a3 * Q + q2) * Q + q1];
        w[(q3 * Q + q2) * Q + q1] = s;
      }
}

/// u = B^T w: node values from point values (the transpose: z, then y, then x).
/// ws: D^2 Q + D Q^2 doubles.
BLAST_HOST_DEVICE static inline void BlastPaInterpT(int dim, int D, int Q, const double *B,
                                                    const double *w, double *u, double *ws) {
  if (dim == 1) {
    for (int a = 0; a < D; a++) {
      double s = 0.0;
      for (int q = 0; q < Q; q++) s += B[q * D + a] * w[q];
      u[a] = s;
    }
    return;
  }
  const double *w2 = w;  // [a3 or 1][q2][q1]
  const int D3 = dim == 3 ? D : 1;
  if (dim == 3) {
    double *s2 = ws + D * D * Q;  // [a3][q2][q1]
    for (int a3 = 0; a3 < D; a3++)
      for (int q2 = 0; q2 < Q; q2++)
        for (int q1 = 0; q1 < Q; q1++) {
          double s = 0.0;
          for (int q3 = 0; q3 < Q; q3++) s += B[q3 * D + a3] * w[(q3 * Q + q2) * Q + q1];
          s2[(a3 * Q + q2) * Q + q1] = s;
        }
    w2 = s2;
  }
  double *s1 = ws;  // [a3][a2][q1]
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int q1 = 0; q1 < Q; q1++) {
        double s = 0.0;
        for (int q2 = 0; q2 < Q; q2++) s += B[q2 * D + a2] * w2[(a3 * Q + q2) * Q + q1];
        s1[(a3 * D + a2) * Q + q1] = s;
      }
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int a1 = 0; a1 < D; a1++) {
        double s = 0.0;
        for (int q1 = 0; q1 < Q; q1++) s += B[q1 * D + a1] * s1[(a3 * D + a2) * Q + q1];
        u[(a3 * D + a2) * D + a1] = s;
      }
}

/// Reference gradient d[g*Q^dim + q] = d u / d xi_g at the points, and (val != NULL) the
/// values val[q]. 3D: x contractions with B and G, y contractions of those (BB, GB, BG),
/// z contractions (d_x = B.GB, d_y = B.BG, d_z = G.BB, val = B.BB).
/// ws: 2 D^2 Q + 3 D Q^2 doubles.
BLAST_HOST_DEVICE static inline void BlastPaGrad(int dim, int D, int Q, const double *B,
                                                 const double *G, const double *u, double *d,
                                                 double *val, double *ws) {
  if (dim == 1) {
    for (int q = 0; q < Q; q++) {
      double sb = 0.0, sg = 0.0;
      for (int a = 0; a < D; a++) sb += B[q * D + a] * u[a], sg += G[q * D + a] * u[a];
      d[q] = sg;
      if (val) val[q] = sb;
    }
    return;
  }
  const int D3 = dim == 3 ? D : 1;
  double *bx = ws, *gx = ws + D * D * Q;  // [a3][a2][q1]
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int q1 = 0; q1 < Q; q1++) {
        double sb = 0.0, sg = 0.0;
        for (int a1 = 0; a1 < D; a1++) {
          const double x = u[(a3 * D + a2) * D + a1];
          sb += B[q1 * D + a1] * x;
          sg += G[q1 * D + a1] * x;
        }
        bx[(a3 * D + a2) * Q + q1] = sb, gx[(a3 * D + a2) * Q + q1] = sg;
      }
  if (dim == 2) {
    const int n = Q * Q;
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        double s0 = 0.0, s1 = 0.0, sv = 0.0;
        for (int a2 = 0; a2 < D; a2++) {
          const double b = B[q2 * D + a2], g = G[q2 * D + a2];
          s0 += b * gx[a2 * Q + q1];
          s1 += g * bx[a2 * Q + q1];
          sv += b * bx[a2 * Q + q1];
        }
        d[q2 * Q + q1] = s0, d[n + q2 * Q + q1] = s1;
        if (val) val[q2 * Q + q1] = sv;
      }
    return;
  }
  double *bb = ws + 2 * D * D * Q, *gb = bb + D * Q * Q, *bg = gb + D * Q * Q;  // [a3][q2][q1]
  for (int a3 = 0; a3 < D; a3++)
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        double sbb = 0.0, sgb = 0.0, sbg = 0.0;
        for (int a2 = 0; a2 < D; a2++) {
          const double b = B[q2 * D + a2], g = G[q2 * D + a2];
          const int i = (a3 * D + a2) * Q + q1;
          sbb += b * bx[i];
          sgb += b * gx[i];
          sbg += g * bx[i];
        }
        const int o = (a3 * Q + q2) * Q + q1;
        bb[o] = sbb, gb[o] = sgb, bg[o] = sbg;
      }
  const int n = Q * Q * Q;
  for (int q3 = 0; q3 < Q; q3++)
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, sv = 0.0;
        for (int a3 = 0; a3 < D; a3++) {
          const double b = B[q3 * D + a3], g = G[q3 * D + a3];
          const int i = (a3 * Q + q2) * Q + q1;
          s0 += b * gb[i];
          s1 += b * bg[i];
          s2 += g * bb[i];
          sv += b * bb[i];
        }
        const int q = (q3 * Q + q2) * Q + q1;
        d[q] = s0, d[n + q] = s1, d[2 * n + q] = s2;
        if (val) val[q] = sv;
      }
}

/// u = sum_g G_g^T d_g: node values from a gradient-shaped point field (the transpose of
/// BlastPaGrad). 3D: z contractions (t0 = B.d_x, t1 = B.d_y, t2 = G.d_z), y contractions
/// (p0 = B.t0, p12 = G.t1 + B.t2, each term added in that order per point), x contraction
/// (u = G.p0 + B.p12). ws: 2 D^2 Q + 3 D Q^2 doubles.
BLAST_HOST_DEVICE static inline void BlastPaGradT(int dim, int D, int Q, const double *B,
                                                  const double *G, const double *d, double *u,
                                                  double *ws) {
  if (dim == 1) {
    for (int a = 0; a < D; a++) {
      double s = 0.0;
      for (int q = 0; q < Q; q++) s += G[q * D + a] * d[q];
      u[a] = s;
    }
    return;
  }
  const int D3 = dim == 3 ? D : 1;
  double *p0 = ws, *p12 = ws + D * D * Q;  // [a3][a2][q1]
  if (dim == 2) {
    const int n = Q * Q;
    for (int a2 = 0; a2 < D; a2++)
      for (int q1 = 0; q1 < Q; q1++) {
        double s0 = 0.0, s1 = 0.0;
        for (int q2 = 0; q2 < Q; q2++) {
          s0 += B[q2 * D + a2] * d[q2 * Q + q1];
          s1 += G[q2 * D + a2] * d[n + q2 * Q + q1];
        }
        p0[a2 * Q + q1] = s0, p12[a2 * Q + q1] = s1;
      }
  } else {
    const int n = Q * Q * Q;
    double *t0 = ws + 2 * D * D * Q, *t1 = t0 + D * Q * Q, *t2 = t1 + D * Q * Q;  // [a3][q2][q1]
    for (int a3 = 0; a3 < D; a3++)
      for (int q2 = 0; q2 < Q; q2++)
        for (int q1 = 0; q1 < Q; q1++) {
          double s0 = 0.0, s1 = 0.0, s2 = 0.0;
          for (int q3 = 0; q3 < Q; q3++) {
            const double b = B[q3 * D + a3], g = G[q3 * D + a3];
            const int i = (q3 * Q + q2) * Q + q1;
            s0 += b * d[i];
            s1 += b * d[n + i];
            s2 += g * d[2 * n + i];
          }
          const int o = (a3 * Q + q2) * Q + q1;
          t0[o] = s0, t1[o] = s1, t2[o] = s2;
        }
    for (int a3 = 0; a3 < D; a3++)
      for (int a2 = 0; a2 < D; a2++)
        for (int q1 = 0; q1 < Q; q1++) {
          double s0 = 0.0, s12 = 0.0;
          for (int q2 = 0; q2 < Q; q2++) {
            const double b = B[q2 * D + a2], g = G[q2 * D + a2];
            const int i = (a3 * Q + q2) * Q + q1;
            s0 += b * t0[i];
            s12 += g * t1[i] + b * t2[i];
          }
          p0[(a3 * D + a2) * Q + q1] = s0, p12[(a3 * D + a2) * Q + q1] = s12;
        }
  }
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int a1 = 0; a1 < D; a1++) {
        double s = 0.0;
        for (int q1 = 0; q1 < Q; q1++) {
          const int i = (a3 * D + a2) * Q + q1;
          s += G[q1 * D + a1] * p0[i] + B[q1 * D + a1] * p12[i];
        }
        u[(a3 * D + a2) * D + a1] = s;
      }
}

/// Mass action of one zone on `ncomp` components (bit c of mask: component c): for each
/// active c, y_c = B^T (qm .* (B x_c)), qm[q] = rho0 |J0| w at the zone's points (the
/// product at a point is w[q] * qm[q]). Component c of x starts at x + c xs, of y at
/// y + c ys. ws: Q^dim + the contraction scratch.
BLAST_HOST_DEVICE static inline void BlastPaMassZone(int dim, int D, int Q, const double *B,
                                                     const double *qm, int ncomp, unsigned mask,
                                                     const double *x, size_t xs, double *y,
                                                     size_t ys, double *ws) {
  int nq = Q;
  for (int g = 1; g < dim; g++) nq *= Q;
  double *w = ws, *cws = ws + nq;
  for (int c = 0; c < ncomp; c++) {
    if (!((mask >> c) & 1u)) continue;
    BlastPaInterp(dim, D, Q, B, x + c * xs, w, cws);
    for (int q = 0; q < nq; q++) w[q] = w[q] * qm[q];
    BlastPaInterpT(dim, D, Q, B, w, y + c * ys, cws);
  }
}

/// The stress at a point of the partial path: J0^{-1} from the initial Jacobian J0
/// (BlastMatInverse, as BlastPaZoneJ0inv computes it once), then BlastPointStress.
/// Returns det J.
BLAST_HOST_DEVICE static inline double BlastPaPointStress(int dim, const BlastQPointParams *par,
                                                          const BlastMaterial *mat, const double *J,
                                                          const double *Gv, const double *J0,
                                                          double R0, double w, double eq, double *S,
                                                          double *dt_q) {
  double J0inv[9];
  BlastMatInverse(dim, J0, J0inv);
  return BlastPointStress(dim, par, mat, J, Gv, J0inv, R0, w, eq, S, dt_q);
}

/// Constant data of the partial path's zone kernels (host or device pointers).
typedef struct {
  int dim, D, Q, L;          ///< H1 nodes, points and L2 nodes per direction
  int nd, nq, ne;            ///< D^dim, Q^dim, L^dim
  const double *B, *G, *LB;  ///< 1D tables [Q*D], [Q*D], [Q*L]
  const double *qw;          ///< [nq] weights
  BlastQPointParams qpar;
  int tg_source;  ///< add the 2D Taylor-Green energy source
} BlastPaBasis;

/// Scratch of BlastPaZoneQData in doubles.
BLAST_HOST_DEVICE static inline int BlastPaZoneWorkspace(const BlastPaBasis *pb) {
  const int n = pb->D > pb->Q ? (pb->D > pb->L ? pb->D : pb->L) : (pb->Q > pb->L ? pb->Q : pb->L);
  return 3 * 9 * pb->nq + 3 * pb->nq + 9 * pb->nq + 3 * pb->nq + 4 * pb->nq +
         BLAST_PA_CONTRACT_WS(n);
}

/// Quadrature data of one zone on the partial path (method spec 5), in stages:
///  1. J = grad x_c, Gv = grad v_c, J0 = grad x0_c at the points (BlastPaGrad per
///     component c ascending; J[c + dim g] at point q is entry g*nq + q of component c's
///     gradient), with the point positions X_c (values) when the source is on;
///  2. e at the points: BlastPaInterp of the L2 coefficients with LB;
///  3. per point: BlastPaPointStress -> S_q (d^2, column-major), the dt estimate and the
///     tangled-zone report as the full path; source integrand w_q det J Q(X_q);
///  4. rE = -F_z 1: for each component c, BlastPaGradT of d_g = S_q[c + dim g], negated;
///  5. if b != NULL: b = LB^T (S_q : Gv_q) (BlastPointWork at each point), then
///     b_j = b_j + tg_j when the source is on; tg (if not NULL) receives LB^T of the
///     source integrand.
/// xz, vz, x0z: E-vectors (component-major), ez: L2 coefficients, R0z: rho0 |J0| w.
/// Sz (nq * dim^2, point-major) receives the stress. ws: BlastPaZoneWorkspace doubles.
/// BlastPaZoneQDataN is the same with the sizes as arguments (constants let a compiler
/// unroll the contractions: the CPU backend instantiates the common orders), and with
/// J0inv (or NULL): the zone's J0^{-1} per point ([q*dim^2], BlastPaZoneJ0inv) instead of
/// x0z, which gives the same bits.
BLAST_HOST_DEVICE static inline void BlastPaZoneQDataN(
    const BlastPaBasis *pb, const int dim, const int D, const int Q, const int L, int z,
    const double *xz, const double *vz, const double *x0z, const double *J0inv, const double *ez,
    const double *R0z, const BlastMaterial *mat, double *Sz, double *rEz, double *bz, double *tgz,
    double *ws, double *dt_min, int *tangled, double *tangled_det) {
  int nd = D, nq = Q, ne = L;
  for (int g = 1; g < dim; g++) nd *= D, nq *= Q, ne *= L;
  const int d2 = dim * dim;
  double *dx = ws, *dv = dx + 9 * nq, *d0 = dv + 9 * nq, *X = d0 + 9 * nq, *eq = X + 3 * nq;
  double *src = eq + nq, *t = src + nq, *dg = t + nq, *cws = dg + 3 * nq;
  const int tg = pb->tg_source && tgz;
  for (int c = 0; c < dim; c++) {
    BlastPaGrad(dim, D, Q, pb->B, pb->G, xz + c * nd, dx + c * dim * nq, tg ? X + c * nq : 0, cws);
    BlastPaGrad(dim, D, Q, pb->B, pb->G, vz + c * nd, dv + c * dim * nq, 0, cws);
    if (!J0inv) BlastPaGrad(dim, D, Q, pb->B, pb->G, x0z + c * nd, d0 + c * dim * nq, 0, cws);
  }
  BlastPaInterp(dim, L, Q, pb->LB, ez, eq, cws);
  for (int q = 0; q < nq; q++) {
    double J[9] = {0}, Gv[9] = {0}, J0[9] = {0}, dtq;
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) {
        const int i = (c * dim + g) * nq + q;
        J[c + dim * g] = dx[i], Gv[c + dim * g] = dv[i];
        if (!J0inv) J0[c + dim * g] = d0[i];
      }
    double *Sq = &Sz[q * d2];
    const double det = J0inv ? BlastPointStress(dim, &pb->qpar, mat, J, Gv, &J0inv[q * d2], R0z[q],
                                                pb->qw[q], eq[q], Sq, &dtq)
                             : BlastPaPointStress(dim, &pb->qpar, mat, J, Gv, J0, R0z[q], pb->qw[q],
                                                  eq[q], Sq, &dtq);
    BlastQPointReport(z, det, dtq, dt_min, tangled, tangled_det);
    if (tg) {
      double Xq[3] = {0.0, 0.0, 0.0};
      for (int c = 0; c < dim; c++) Xq[c] = X[c * nq + q];
      src[q] = pb->qw[q] * det * BlastTaylorGreenQ(Xq);
    }
    if (bz) t[q] = BlastPointWork(dim, Sq, Gv);
  }
  for (int c = 0; c < dim; c++) {
    for (int g = 0; g < dim; g++)
      for (int q = 0; q < nq; q++) dg[g * nq + q] = Sz[q * d2 + c + dim * g];
    double *r = rEz + c * nd;
    BlastPaGradT(dim, D, Q, pb->B, pb->G, dg, r, cws);
    for (int a = 0; a < nd; a++) r[a] = -r[a];
  }
  if (tg) BlastPaInterpT(dim, L, Q, pb->LB, src, tgz, cws);
  if (bz) {
    BlastPaInterpT(dim, L, Q, pb->LB, t, bz, cws);
    if (tg)
      for (int j = 0; j < ne; j++) bz[j] = bz[j] + tgz[j];
  }
}

BLAST_HOST_DEVICE static inline void BlastPaZoneQData(
    const BlastPaBasis *pb, int z, const double *xz, const double *vz, const double *x0z,
    const double *ez, const double *R0z, const BlastMaterial *mat, double *Sz, double *rEz,
    double *bz, double *tgz, double *ws, double *dt_min, int *tangled, double *tangled_det) {
  BlastPaZoneQDataN(pb, pb->dim, pb->D, pb->Q, pb->L, z, xz, vz, x0z, 0, ez, R0z, mat, Sz, rEz, bz,
                    tgz, ws, dt_min, tangled, tangled_det);
}

/// J0^{-1} at the zone's points ([q*dim^2]) from its initial positions x0z, exactly as
/// BlastPaZoneQData computes it. ws: 9 nq + contraction scratch.
BLAST_HOST_DEVICE static inline void BlastPaZoneJ0inv(const BlastPaBasis *pb, const double *x0z,
                                                      double *J0inv, double *ws) {
  const int dim = pb->dim, nd = pb->nd, nq = pb->nq, d2 = dim * dim;
  double *d0 = ws, *cws = d0 + 9 * nq;
  for (int c = 0; c < dim; c++)
    BlastPaGrad(dim, pb->D, pb->Q, pb->B, pb->G, x0z + c * nd, d0 + c * dim * nq, 0, cws);
  for (int q = 0; q < nq; q++) {
    double J0[9] = {0};
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) J0[c + dim * g] = d0[(c * dim + g) * nq + q];
    BlastMatInverse(dim, J0, &J0inv[q * d2]);
  }
}

/// b = F_z^T v_z (+ the source tgz, or NULL) from the zone's stored stress Sz: the same
/// operations as stage 5 of BlastPaZoneQData, so the same bits. ws: 10 nq + contraction
/// scratch.
BLAST_HOST_DEVICE static inline void BlastPaZoneForceT(const BlastPaBasis *pb, const double *Sz,
                                                       const double *vz, const double *tgz,
                                                       double *bz, double *ws) {
  const int dim = pb->dim, nd = pb->nd, nq = pb->nq, d2 = dim * dim;
  double *dv = ws, *t = dv + 9 * nq, *cws = t + nq;
  for (int c = 0; c < dim; c++)
    BlastPaGrad(dim, pb->D, pb->Q, pb->B, pb->G, vz + c * nd, dv + c * dim * nq, 0, cws);
  for (int q = 0; q < nq; q++) {
    double Gv[9] = {0};
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) Gv[c + dim * g] = dv[(c * dim + g) * nq + q];
    t[q] = BlastPointWork(dim, &Sz[q * d2], Gv);
  }
  BlastPaInterpT(dim, pb->L, pb->Q, pb->LB, t, bz, cws);
  if (pb->tg_source && tgz)
    for (int j = 0; j < pb->ne; j++) bz[j] = bz[j] + tgz[j];
}

#endif  // BLAST_PA_KERNELS_H
