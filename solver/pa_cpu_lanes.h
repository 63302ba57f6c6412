/// @file pa_cpu_lanes.h
/// @brief The partial path's mass action on the CPU with the velocity components side by
/// side in the lanes of one 4-wide vector (GCC/Clang vector extension): each lane performs
/// exactly the operations of BlastPaMassZone (pa_kernels.h) on its component, in the same
/// order, so the results are the same bits as the scalar kernels (and the GPU's), in about
/// a third of the instructions. C11 without contraction: no fused multiply-adds.
#ifndef BLAST_PA_CPU_LANES_H
#define BLAST_PA_CPU_LANES_H

#include <string.h>

#include "pa_kernels.h"
#include "qpoint_lanes.h"

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

/// n <= BLAST_QV_W consecutive values into the lanes, the last one repeated past n.
static inline BlastQV BlastQVLoad(const double *p, int n) {
  BlastQV v;
  if (n == BLAST_QV_W) {
    memcpy(&v, p, sizeof v);
    return v;
  }
  for (int l = 0; l < BLAST_QV_W; l++) v[l] = p[l < n ? l : n - 1];
  return v;
}

/// The first n lanes to n consecutive values.
static inline void BlastQVStore(double *p, BlastQV v, int n) {
  if (n == BLAST_QV_W)
    memcpy(p, &v, sizeof v);
  else
    for (int l = 0; l < n; l++) p[l] = v[l];
}

/// Scratch of BlastCpuPaZoneQData in doubles.
static inline int BlastCpuPaZoneWorkspace(const BlastPaBasis *pb) {
  const int n = pb->D > pb->Q ? (pb->D > pb->L ? pb->D : pb->L) : (pb->Q > pb->L ? pb->Q : pb->L);
  return 44 * pb->nq + BLAST_PA_CONTRACT_WS(n);
}

/// BlastPaZoneQDataN (pa_kernels.h) of the CPU backend, dim 2 or 3: the same stages and
/// contractions, with the point kernel on BLAST_QV_W points at once (BlastQVPointStress:
/// the scalar kernel's operations lane by lane, so the same bits). The stress goes to a
/// point-fastest scratch, which is what the contractions of -F_z 1 read (each component's
/// d_g[q] = S_q[c + dim g]), and to Sz (point-major, as the scalar kernel's) only where the
/// caller keeps it (Sz not NULL). J0inv (or NULL: from x0z as BlastPaJ0inv) is the zone's
/// J0^{-1} point-fastest: entry i = h + dim g of point q at J0inv[i * nq + q]. The
/// dt/tangled-zone reduction and the source run point by point in ascending order, as in
/// the scalar kernel. ws: BlastCpuPaZoneWorkspace doubles.
static inline void BlastCpuPaZoneQData(const BlastPaBasis *pb, const int dim, const int D,
                                       const int Q, const int L, int z, const double *xz,
                                       const double *vz, const double *x0z, const double *J0inv,
                                       const double *ez, const double *R0z, double gamma,
                                       double *Sz, double *rEz, double *bz, double *tgz, double *ws,
                                       double *dt_min, int *tangled, double *tangled_det) {
  int nd = D, nq = Q, ne = L;
  for (int g = 1; g < dim; g++) nd *= D, nq *= Q, ne *= L;
  const int d2 = dim * dim;
  double *dx = ws, *dv = dx + 9 * nq, *d0 = dv + 9 * nq, *X = d0 + 9 * nq, *eq = X + 3 * nq;
  double *src = eq + nq, *t = src + nq, *sd = t + nq, *dets = sd + 9 * nq, *dts = dets + nq;
  double *cws = dts + nq;
  const int tg = pb->tg_source && tgz;
  for (int c = 0; c < dim; c++) {
    BlastPaGrad(dim, D, Q, pb->B, pb->G, xz + c * nd, dx + c * dim * nq, tg ? X + c * nq : 0, cws);
    BlastPaGrad(dim, D, Q, pb->B, pb->G, vz + c * nd, dv + c * dim * nq, 0, cws);
    if (!J0inv) BlastPaGrad(dim, D, Q, pb->B, pb->G, x0z + c * nd, d0 + c * dim * nq, 0, cws);
  }
  BlastPaInterp(dim, L, Q, pb->LB, ez, eq, cws);
  for (int q0 = 0; q0 < nq; q0 += BLAST_QV_W) {
    const int n = nq - q0 < BLAST_QV_W ? nq - q0 : BLAST_QV_W;
    BlastQV J[9], Gv[9], J0i[9], S[9], dtq;
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) {
        const int i = (c * dim + g) * nq + q0;
        J[c + dim * g] = BlastQVLoad(dx + i, n), Gv[c + dim * g] = BlastQVLoad(dv + i, n);
      }
    if (J0inv) {
      for (int i = 0; i < d2; i++) J0i[i] = BlastQVLoad(J0inv + i * nq + q0, n);
    } else {  // BlastPaJ0inv
      BlastQV J0[9];
      for (int c = 0; c < dim; c++)
        for (int g = 0; g < dim; g++)
          J0[c + dim * g] = BlastQVLoad(d0 + (c * dim + g) * nq + q0, n);
      const BlastQV det0 = BlastQVMatDet(dim, J0);
      BlastQVMatAdjugate(dim, J0, J0i);
      for (int i = 0; i < d2; i++) J0i[i] = J0i[i] / det0;
    }
    const BlastQV det =
        BlastQVPointStress(dim, &pb->qpar, J, Gv, J0i, BlastQVLoad(R0z + q0, n),
                           BlastQVLoad(pb->qw + q0, n), BlastQVLoad(eq + q0, n), gamma, S, &dtq);
    for (int c = 0; c < dim; c++)
      for (int g = 0; g < dim; g++) BlastQVStore(sd + (c * dim + g) * nq + q0, S[c + dim * g], n);
    if (Sz)
      for (int l = 0; l < n; l++)
        for (int i = 0; i < d2; i++) Sz[(q0 + l) * d2 + i] = S[i][l];
    BlastQVStore(dets + q0, det, n), BlastQVStore(dts + q0, dtq, n);
    if (bz) {  // BlastPaPointWork
      BlastQV tw = BlastQVSet(0.0);
      for (int i = 0; i < d2; i++) tw += S[i] * Gv[i];
      BlastQVStore(t + q0, tw, n);
    }
  }
  for (int q = 0; q < nq; q++) {
    const double det = dets[q];
    if (!(det > 0.0)) {
      if (*tangled < 0)
        *tangled = z, *tangled_det = det;
      else if (*tangled == z && BlastDetWorse(det, *tangled_det))
        *tangled_det = det;
      *dt_min = 0.0;
    } else if (dts[q] < *dt_min) {
      *dt_min = dts[q];
    }
    if (tg) {
      double Xq[3] = {0.0, 0.0, 0.0};
      for (int c = 0; c < dim; c++) Xq[c] = X[c * nq + q];
      src[q] = pb->qw[q] * det * BlastTaylorGreenQ(Xq);
    }
  }
  for (int c = 0; c < dim; c++) {
    double *r = rEz + c * nd;
    BlastPaGradT(dim, D, Q, pb->B, pb->G, sd + c * dim * nq, r, cws);
    for (int a = 0; a < nd; a++) r[a] = -r[a];
  }
  if (tg) BlastPaInterpT(dim, L, Q, pb->LB, src, tgz, cws);
  if (bz) {
    BlastPaInterpT(dim, L, Q, pb->LB, t, bz, cws);
    if (tg)
      for (int j = 0; j < ne; j++) bz[j] = bz[j] + tgz[j];
  }
}

#endif  // BLAST_PA_CPU_LANES_H
