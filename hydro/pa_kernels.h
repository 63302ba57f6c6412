/// @file pa_kernels.h
/// @brief Single-source zone kernels of the partial-assembly (matrix-free) path, compiled
/// for the host (C11) and the device (CUDA): the sum-factorised contractions of
/// fem/contract.h for doubles (BlastPaInterp, BlastPaGrad, ...), the momentum mass action
/// of a zone, and the quadrature-point update that yields the zone's momentum
/// contributions -F_z 1 and F_z^T v without forming F_z.
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

#define CT_T        double
#define CT_FN(name) BlastPa##name
#define CT_DEV      BLAST_HOST_DEVICE
#define CT_ZERO     0.0
#include "contract.h"

/// Mass action of one zone on `ncomp` components (bit c of mask: component c): for each
/// active c, y_c = B^T (qm .* (B x_c)) (BlastPaMassField). Component c of x starts at
/// x + c xs, of y at y + c ys. ws: Q^dim + the contraction scratch.
BLAST_HOST_DEVICE static inline void BlastPaMassZone(int dim, int D, int Q, const double *B,
                                                     const double *qm, int ncomp, unsigned mask,
                                                     const double *x, size_t xs, double *y,
                                                     size_t ys, double *ws) {
  for (int c = 0; c < ncomp; c++)
    if ((mask >> c) & 1u) BlastPaMassField(dim, D, Q, B, qm, x + c * xs, y + c * ys, ws);
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

/// The energy source integrand at a point (method spec 7.2): w det J Q(X), X the point's
/// position (dim entries, the rest 0).
BLAST_HOST_DEVICE static inline double BlastPointSource(int dim, double w, double det,
                                                        const double *X) {
  double Xq[3] = {0.0, 0.0, 0.0};
  for (int c = 0; c < dim; c++) Xq[c] = X[c];
  return w * det * BlastTaylorGreenQ(Xq);
}

/// The last stage of a zone's quadrature data (stage 5 of BlastPaZoneQData): tg = LB^T src
/// when the source is on (tg != NULL), and when b != NULL, b = LB^T t (+ tg).
BLAST_HOST_DEVICE static inline void BlastPaZoneEnergyTerms(const BlastPaBasis *pb, int dim, int L,
                                                            int Q, int ne, const double *src,
                                                            const double *t, double *tgz,
                                                            double *bz, double *cws) {
  if (tgz) BlastPaInterpT(dim, L, Q, pb->LB, src, tgz, cws);
  if (bz) {
    BlastPaInterpT(dim, L, Q, pb->LB, t, bz, cws);
    if (tgz)
      for (int j = 0; j < ne; j++) bz[j] = bz[j] + tgz[j];
  }
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
      double Xq[3];
      for (int c = 0; c < dim; c++) Xq[c] = X[c * nq + q];
      src[q] = BlastPointSource(dim, pb->qw[q], det, Xq);
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
  BlastPaZoneEnergyTerms(pb, dim, L, Q, ne, src, t, tg ? tgz : NULL, bz, cws);
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
