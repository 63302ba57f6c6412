/// @file contract.h
/// @brief Sum-factorised contractions of tensor-product elements, written once over the
/// value type: values and reference gradients at the points of a node field with 1D
/// tables, their transposes, and the mass action of one field. No include guard: a header
/// instantiates it by defining
///   CT_T          the value type (double, or a vector of several fields' values)
///   CT_FN(name)   the instantiated name of function `name`
///   CT_DEV        function qualifiers (BLAST_HOST_DEVICE or empty)
///   CT_ZERO       a CT_T zero
/// and including it (which undefines them): hydro/pa_kernels.h for doubles on the host and the device
/// (BlastPaInterp, BlastPaGrad, ...), backends/cpu/pa_cpu_lanes.h for 4-wide lanes, one
/// field per lane (BlastV4Interp, BlastV4Grad, ...).
///
/// These functions define the bits of the partial path. Every output entry is one sum
/// whose terms are added in the order written here, starting from zero, with no fused
/// multiply-adds (host: C11 without contraction; device: --fmad=false); each lane of a
/// vector instantiation performs the double instantiation's operations on its field.
///
/// Conventions (x fastest everywhere, as fe.h):
///  - 1D tables T[q*D + a]: basis function a (of D per direction) at 1D point q (of Q);
///  - a zone scalar field has D^dim node values u[a1 + D a2 + D^2 a3] and Q^dim point
///    values w[q1 + Q q2 + Q^2 q3]; a gradient is stored direction-major d[g*Q^dim + q].
#ifndef CT_T
#error "contract.h is instantiated by pa_kernels.h or pa_cpu_lanes.h"
#endif

/// Largest scratch (values) the contractions below need for D, Q <= n (any dim <= 3).
#ifndef BLAST_PA_CONTRACT_WS
#define BLAST_PA_CONTRACT_WS(n) (3 * (n) * (n) * (n) + 2 * (n) * (n) * (n))
#endif

/// w = values at the points of the node field u (dim contractions: x, then y, then z).
/// ws: D^2 Q + D Q^2 doubles.
CT_DEV static inline void CT_FN(Interp)(const int dim, const int D, const int Q, const double *B,
                                        const CT_T *u, CT_T *w, CT_T *ws) {
  if (dim == 1) {
    for (int q = 0; q < Q; q++) {
      CT_T s = CT_ZERO;
      for (int a = 0; a < D; a++) s += B[q * D + a] * u[a];
      w[q] = s;
    }
    return;
  }
  CT_T *t1 = ws;  // [a3][a2][q1]
  const int D3 = dim == 3 ? D : 1;
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int q1 = 0; q1 < Q; q1++) {
        CT_T s = CT_ZERO;
        for (int a1 = 0; a1 < D; a1++) s += B[q1 * D + a1] * u[(a3 * D + a2) * D + a1];
        t1[(a3 * D + a2) * Q + q1] = s;
      }
  if (dim == 2) {
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        CT_T s = CT_ZERO;
        for (int a2 = 0; a2 < D; a2++) s += B[q2 * D + a2] * t1[a2 * Q + q1];
        w[q2 * Q + q1] = s;
      }
    return;
  }
  CT_T *t2 = ws + D * D * Q;  // [a3][q2][q1]
  for (int a3 = 0; a3 < D; a3++)
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        CT_T s = CT_ZERO;
        for (int a2 = 0; a2 < D; a2++) s += B[q2 * D + a2] * t1[(a3 * D + a2) * Q + q1];
        t2[(a3 * Q + q2) * Q + q1] = s;
      }
  for (int q3 = 0; q3 < Q; q3++)
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        CT_T s = CT_ZERO;
        for (int a3 = 0; a3 < D; a3++) s += B[q3 * D + a3] * t2[(a3 * Q + q2) * Q + q1];
        w[(q3 * Q + q2) * Q + q1] = s;
      }
}

/// u = B^T w: node values from point values (the transpose: z, then y, then x).
/// ws: D^2 Q + D Q^2 doubles.
CT_DEV static inline void CT_FN(InterpT)(const int dim, const int D, const int Q, const double *B,
                                         const CT_T *w, CT_T *u, CT_T *ws) {
  if (dim == 1) {
    for (int a = 0; a < D; a++) {
      CT_T s = CT_ZERO;
      for (int q = 0; q < Q; q++) s += B[q * D + a] * w[q];
      u[a] = s;
    }
    return;
  }
  const CT_T *w2 = w;  // [a3 or 1][q2][q1]
  const int D3 = dim == 3 ? D : 1;
  if (dim == 3) {
    CT_T *s2 = ws + D * D * Q;  // [a3][q2][q1]
    for (int a3 = 0; a3 < D; a3++)
      for (int q2 = 0; q2 < Q; q2++)
        for (int q1 = 0; q1 < Q; q1++) {
          CT_T s = CT_ZERO;
          for (int q3 = 0; q3 < Q; q3++) s += B[q3 * D + a3] * w[(q3 * Q + q2) * Q + q1];
          s2[(a3 * Q + q2) * Q + q1] = s;
        }
    w2 = s2;
  }
  CT_T *s1 = ws;  // [a3][a2][q1]
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int q1 = 0; q1 < Q; q1++) {
        CT_T s = CT_ZERO;
        for (int q2 = 0; q2 < Q; q2++) s += B[q2 * D + a2] * w2[(a3 * Q + q2) * Q + q1];
        s1[(a3 * D + a2) * Q + q1] = s;
      }
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int a1 = 0; a1 < D; a1++) {
        CT_T s = CT_ZERO;
        for (int q1 = 0; q1 < Q; q1++) s += B[q1 * D + a1] * s1[(a3 * D + a2) * Q + q1];
        u[(a3 * D + a2) * D + a1] = s;
      }
}

/// Reference gradient d[g*Q^dim + q] = d u / d xi_g at the points, and (val != NULL) the
/// values val[q]. 3D: x contractions with B and G, y contractions of those (BB, GB, BG),
/// z contractions (d_x = B.GB, d_y = B.BG, d_z = G.BB, val = B.BB).
/// ws: 2 D^2 Q + 3 D Q^2 doubles.
CT_DEV static inline void CT_FN(Grad)(const int dim, const int D, const int Q, const double *B,
                                      const double *G, const CT_T *u, CT_T *d, CT_T *val,
                                      CT_T *ws) {
  if (dim == 1) {
    for (int q = 0; q < Q; q++) {
      CT_T sb = CT_ZERO, sg = CT_ZERO;
      for (int a = 0; a < D; a++) sb += B[q * D + a] * u[a], sg += G[q * D + a] * u[a];
      d[q] = sg;
      if (val) val[q] = sb;
    }
    return;
  }
  const int D3 = dim == 3 ? D : 1;
  CT_T *bx = ws, *gx = ws + D * D * Q;  // [a3][a2][q1]
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int q1 = 0; q1 < Q; q1++) {
        CT_T sb = CT_ZERO, sg = CT_ZERO;
        for (int a1 = 0; a1 < D; a1++) {
          const CT_T x = u[(a3 * D + a2) * D + a1];
          sb += B[q1 * D + a1] * x;
          sg += G[q1 * D + a1] * x;
        }
        bx[(a3 * D + a2) * Q + q1] = sb, gx[(a3 * D + a2) * Q + q1] = sg;
      }
  if (dim == 2) {
    const int n = Q * Q;
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        CT_T s0 = CT_ZERO, s1 = CT_ZERO, sv = CT_ZERO;
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
  CT_T *bb = ws + 2 * D * D * Q, *gb = bb + D * Q * Q, *bg = gb + D * Q * Q;  // [a3][q2][q1]
  for (int a3 = 0; a3 < D; a3++)
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        CT_T sbb = CT_ZERO, sgb = CT_ZERO, sbg = CT_ZERO;
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
        CT_T s0 = CT_ZERO, s1 = CT_ZERO, s2 = CT_ZERO, sv = CT_ZERO;
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
CT_DEV static inline void CT_FN(GradT)(const int dim, const int D, const int Q, const double *B,
                                       const double *G, const CT_T *d, CT_T *u, CT_T *ws) {
  if (dim == 1) {
    for (int a = 0; a < D; a++) {
      CT_T s = CT_ZERO;
      for (int q = 0; q < Q; q++) s += G[q * D + a] * d[q];
      u[a] = s;
    }
    return;
  }
  const int D3 = dim == 3 ? D : 1;
  CT_T *p0 = ws, *p12 = ws + D * D * Q;  // [a3][a2][q1]
  if (dim == 2) {
    const int n = Q * Q;
    for (int a2 = 0; a2 < D; a2++)
      for (int q1 = 0; q1 < Q; q1++) {
        CT_T s0 = CT_ZERO, s1 = CT_ZERO;
        for (int q2 = 0; q2 < Q; q2++) {
          s0 += B[q2 * D + a2] * d[q2 * Q + q1];
          s1 += G[q2 * D + a2] * d[n + q2 * Q + q1];
        }
        p0[a2 * Q + q1] = s0, p12[a2 * Q + q1] = s1;
      }
  } else {
    const int n = Q * Q * Q;
    CT_T *t0 = ws + 2 * D * D * Q, *t1 = t0 + D * Q * Q, *t2 = t1 + D * Q * Q;  // [a3][q2][q1]
    for (int a3 = 0; a3 < D; a3++)
      for (int q2 = 0; q2 < Q; q2++)
        for (int q1 = 0; q1 < Q; q1++) {
          CT_T s0 = CT_ZERO, s1 = CT_ZERO, s2 = CT_ZERO;
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
          CT_T s0 = CT_ZERO, s12 = CT_ZERO;
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
        CT_T s = CT_ZERO;
        for (int q1 = 0; q1 < Q; q1++) {
          const int i = (a3 * D + a2) * Q + q1;
          s += G[q1 * D + a1] * p0[i] + B[q1 * D + a1] * p12[i];
        }
        u[(a3 * D + a2) * D + a1] = s;
      }
}

/// y = B^T (qm .* (B x)): the mass action of one field x of a zone, qm[q] = rho0 |J0| w at
/// the zone's points (the product at a point is w[q] * qm[q]). ws: Q^dim + the
/// contraction scratch.
CT_DEV static inline void CT_FN(MassField)(const int dim, const int D, const int Q, const double *B,
                                           const double *qm, const CT_T *x, CT_T *y, CT_T *ws) {
  int nq = Q;
  for (int g = 1; g < dim; g++) nq *= Q;
  CT_T *w = ws, *cws = ws + nq;
  CT_FN(Interp)(dim, D, Q, B, x, w, cws);
  for (int q = 0; q < nq; q++) w[q] = w[q] * qm[q];
  CT_FN(InterpT)(dim, D, Q, B, w, y, cws);
}

// The instantiation is complete: its macros are free for the next one.
#undef CT_T
#undef CT_FN
#undef CT_DEV
#undef CT_ZERO
