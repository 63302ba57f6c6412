/// @file pa_cpu_lanes.h
/// @brief The partial path's mass action on the CPU with the velocity components side by
/// side in the lanes of one 4-wide vector (GCC/Clang vector extension): each lane performs
/// exactly the operations of BlastPaMassZone (pa_kernels.h) on its component, in the same
/// order, so the results are the same bits as the scalar kernels (and the GPU's), in about
/// a third of the instructions. C11 without contraction: no fused multiply-adds.
#ifndef BLAST_PA_CPU_LANES_H
#define BLAST_PA_CPU_LANES_H

/// Four doubles; lanes past the number of components repeat work and are not stored.
typedef double BlastV4 __attribute__((vector_size(4 * sizeof(double))));

/// BlastPaInterp with vector node values u and point values w (ws: D^2 Q + D Q^2).
static inline void BlastV4Interp(const int dim, const int D, const int Q, const double *B,
                                 const BlastV4 *u, BlastV4 *w, BlastV4 *ws) {
  const BlastV4 zero = {0.0, 0.0, 0.0, 0.0};
  if (dim == 1) {
    for (int q = 0; q < Q; q++) {
      BlastV4 s = zero;
      for (int a = 0; a < D; a++) s += B[q * D + a] * u[a];
      w[q] = s;
    }
    return;
  }
  BlastV4 *t1 = ws;
  const int D3 = dim == 3 ? D : 1;
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int q1 = 0; q1 < Q; q1++) {
        BlastV4 s = zero;
        for (int a1 = 0; a1 < D; a1++) s += B[q1 * D + a1] * u[(a3 * D + a2) * D + a1];
        t1[(a3 * D + a2) * Q + q1] = s;
      }
  if (dim == 2) {
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        BlastV4 s = zero;
        for (int a2 = 0; a2 < D; a2++) s += B[q2 * D + a2] * t1[a2 * Q + q1];
        w[q2 * Q + q1] = s;
      }
    return;
  }
  BlastV4 *t2 = ws + D * D * Q;
  for (int a3 = 0; a3 < D; a3++)
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        BlastV4 s = zero;
        for (int a2 = 0; a2 < D; a2++) s += B[q2 * D + a2] * t1[(a3 * D + a2) * Q + q1];
        t2[(a3 * Q + q2) * Q + q1] = s;
      }
  for (int q3 = 0; q3 < Q; q3++)
    for (int q2 = 0; q2 < Q; q2++)
      for (int q1 = 0; q1 < Q; q1++) {
        BlastV4 s = zero;
        for (int a3 = 0; a3 < D; a3++) s += B[q3 * D + a3] * t2[(a3 * Q + q2) * Q + q1];
        w[(q3 * Q + q2) * Q + q1] = s;
      }
}

/// BlastPaInterpT on vectors (ws: D^2 Q + D Q^2).
static inline void BlastV4InterpT(const int dim, const int D, const int Q, const double *B,
                                  const BlastV4 *w, BlastV4 *u, BlastV4 *ws) {
  const BlastV4 zero = {0.0, 0.0, 0.0, 0.0};
  if (dim == 1) {
    for (int a = 0; a < D; a++) {
      BlastV4 s = zero;
      for (int q = 0; q < Q; q++) s += B[q * D + a] * w[q];
      u[a] = s;
    }
    return;
  }
  const BlastV4 *w2 = w;
  const int D3 = dim == 3 ? D : 1;
  if (dim == 3) {
    BlastV4 *s2 = ws + D * D * Q;
    for (int a3 = 0; a3 < D; a3++)
      for (int q2 = 0; q2 < Q; q2++)
        for (int q1 = 0; q1 < Q; q1++) {
          BlastV4 s = zero;
          for (int q3 = 0; q3 < Q; q3++) s += B[q3 * D + a3] * w[(q3 * Q + q2) * Q + q1];
          s2[(a3 * Q + q2) * Q + q1] = s;
        }
    w2 = s2;
  }
  BlastV4 *s1 = ws;
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int q1 = 0; q1 < Q; q1++) {
        BlastV4 s = zero;
        for (int q2 = 0; q2 < Q; q2++) s += B[q2 * D + a2] * w2[(a3 * Q + q2) * Q + q1];
        s1[(a3 * D + a2) * Q + q1] = s;
      }
  for (int a3 = 0; a3 < D3; a3++)
    for (int a2 = 0; a2 < D; a2++)
      for (int a1 = 0; a1 < D; a1++) {
        BlastV4 s = zero;
        for (int q1 = 0; q1 < Q; q1++) s += B[q1 * D + a1] * s1[(a3 * D + a2) * Q + q1];
        u[(a3 * D + a2) * D + a1] = s;
      }
}

/// BlastPaMassZone on all components at once: y = B^T (qm .* (B x)) lane by lane.
/// ws: Q^dim + D^2 Q + D Q^2 vectors.
static inline void BlastV4MassZone(const int dim, const int D, const int Q, const double *B,
                                   const double *qm, const BlastV4 *x, BlastV4 *y, BlastV4 *ws) {
  int nq = Q;
  for (int g = 1; g < dim; g++) nq *= Q;
  BlastV4 *w = ws, *cws = ws + nq;
  BlastV4Interp(dim, D, Q, B, x, w, cws);
  for (int q = 0; q < nq; q++) w[q] = w[q] * qm[q];
  BlastV4InterpT(dim, D, Q, B, w, y, cws);
}

#endif  // BLAST_PA_CPU_LANES_H
