/// @file pa_cpu_lanes.h
/// @brief The partial path's zone kernels on the CPU in the lanes of 4-wide vectors (GCC/Clang
/// vector extension): the contractions of fem/contract.h with the components side by side
/// (BlastV4Interp, BlastV4Grad, ...: the mass action of the velocity, the gradients of x
/// and v, the -F.1 contraction of the stress), the
/// point kernel with 4 quadrature points side by side (qpoint_lanes.h). Each lane performs
/// exactly the operations of the scalar kernels of pa_kernels.h on its component or point,
/// in the same order, so the results are the same bits as the scalar kernels (and the
/// GPU's), in a fraction of the time. C11 without contraction: no fused multiply-adds.
#ifndef BLAST_PA_CPU_LANES_H
#define BLAST_PA_CPU_LANES_H

#include <stdint.h>
#include <string.h>

#include "lanes.h"
#include "pa_kernels.h"
#include "qpoint_lanes.h"

_Static_assert(BLAST_QV_W == 4, "the zone kernel moves 4-point vectors through 4 x 4 transposes");

#define CT_T        BlastV4
#define CT_FN(name) BlastV4##name
#define CT_DEV
#define CT_ZERO ((BlastV4){0.0, 0.0, 0.0, 0.0})
#include "contract.h"

#if defined(__clang__)
#define BLAST_V4_SHUFFLE(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define BLAST_V4_SHUFFLE(a, b, i, j, k, l) __builtin_shuffle(a, b, (BlastV4I){i, j, k, l})
#endif

/// The 4 x 4 transpose: c[j][i] = r[i][j] (moves only).
static inline void BlastV4Transpose(const BlastV4 *r, BlastV4 *c) {
  const BlastV4 t0 = BLAST_V4_SHUFFLE(r[0], r[1], 0, 4, 2, 6);
  const BlastV4 t1 = BLAST_V4_SHUFFLE(r[0], r[1], 1, 5, 3, 7);
  const BlastV4 t2 = BLAST_V4_SHUFFLE(r[2], r[3], 0, 4, 2, 6);
  const BlastV4 t3 = BLAST_V4_SHUFFLE(r[2], r[3], 1, 5, 3, 7);
  c[0] = BLAST_V4_SHUFFLE(t0, t2, 0, 1, 4, 5), c[1] = BLAST_V4_SHUFFLE(t1, t3, 0, 1, 4, 5);
  c[2] = BLAST_V4_SHUFFLE(t0, t2, 2, 3, 6, 7), c[3] = BLAST_V4_SHUFFLE(t1, t3, 2, 3, 6, 7);
}

/// Scratch of BlastCpuPaZoneQData in doubles.
static inline int BlastCpuPaZoneWorkspace(const BlastPaBasis *pb) {
  const int n = pb->D > pb->Q ? (pb->D > pb->L ? pb->D : pb->L) : (pb->Q > pb->L ? pb->Q : pb->L);
  const int nd = pb->nd, nq = pb->nq, dim = pb->dim;
  // vectors: 3 E-vectors, 4 gradient-shaped fields, the positions, the node rows, the
  // contractions' scratch (+ 1 for the alignment)
  const int v4 = 4 * nd + 4 * dim * nq + nq + 2 * n * n * n + 3 * n * n * n + 1;
  return 4 * v4 + 5 * nq + BLAST_PA_CONTRACT_WS(n);
}

/// The values of the gradient-shaped vector field d (lanes: components) at the 4 points
/// from q0 (the last one repeated past n) as one vector across the points per component:
/// M[c + dim g] (dim 2 or 3).
static inline void BlastV4PointMatrix(const int dim, const BlastV4 *d, int nq, int q0, int n,
                                      BlastQV *M) {
  for (int g = 0; g < dim; g++) {
    BlastV4 r[4], c[4];
    for (int l = 0; l < 4; l++) r[l] = d[g * nq + q0 + (l < n ? l : n - 1)];
    BlastV4Transpose(r, c);
    for (int k = 0; k < dim; k++) M[k + dim * g] = c[k];
  }
}

/// BlastPaZoneQDataN (pa_kernels.h) of the CPU backend, dim 2 or 3 (4 lanes), with the same
/// stages and sums, its contractions on the dim components at once (lanes: components;
/// BlastV4Grad, BlastV4GradT) and the point kernel on 4 points at once (lanes: points;
/// BlastQVPointStress), moved between the two by 4 x 4 transposes: each lane performs the
/// scalar kernel's operations, so the same bits. The stress goes to Sz (point-major, as the
/// scalar kernel's) only where the caller keeps it (Sz not NULL). J0inv (or NULL: from x0z
/// as BlastMatInverse) is the zone's J0^{-1} point-fastest: entry i = h + dim g of point q at
/// J0inv[i * nq + q]. The dt/tangled-zone reduction and the source run point by point in
/// ascending order, as in the scalar kernel. ws: BlastCpuPaZoneWorkspace doubles.
static inline void BlastCpuPaZoneQData(const BlastPaBasis *pb, const int dim, const int D,
                                       const int Q, const int L, int z, const double *xz,
                                       const double *vz, const double *x0z, const double *J0inv,
                                       const double *ez, const double *R0z,
                                       const BlastMaterial *mat, double *Sz, double *rEz,
                                       double *bz, double *tgz, double *ws, double *dt_min,
                                       int *tangled, double *tangled_det) {
  int nd = D, nq = Q, ne = L, n3 = D > Q ? D : Q;
  for (int g = 1; g < dim; g++) nd *= D, nq *= Q, ne *= L;
  n3 = n3 > L ? n3 : L;
  const int d2 = dim * dim;
  const BlastV4 zero = {0.0, 0.0, 0.0, 0.0};
  BlastV4 *xn = (BlastV4 *)(((uintptr_t)ws + 31) & ~(uintptr_t)31);
  BlastV4 *vn = xn + nd, *x0n = vn + nd, *rn = x0n + nd, *dX = rn + nd, *dV = dX + dim * nq;
  BlastV4 *dX0 = dV + dim * nq, *dS = dX0 + dim * nq, *Xv = dS + dim * nq, *cws4 = Xv + nq;
  double *eq = (double *)(cws4 + 2 * n3 * n3 * n3 + 3 * n3 * n3 * n3);
  double *src = eq + nq, *t = src + nq, *dets = t + nq, *dts = dets + nq, *cws = dts + nq;
  const int tg = pb->tg_source && tgz;
  for (int a = 0; a < nd; a++) {
    BlastV4 x = zero, v = zero, x0 = zero;
    for (int c = 0; c < dim; c++) {
      x[c] = xz[c * nd + a], v[c] = vz[c * nd + a];
      if (!J0inv) x0[c] = x0z[c * nd + a];
    }
    xn[a] = x, vn[a] = v, x0n[a] = x0;
  }
  BlastV4Grad(dim, D, Q, pb->B, pb->G, xn, dX, tg ? Xv : 0, cws4);
  BlastV4Grad(dim, D, Q, pb->B, pb->G, vn, dV, 0, cws4);
  if (!J0inv) BlastV4Grad(dim, D, Q, pb->B, pb->G, x0n, dX0, 0, cws4);
  BlastPaInterp(dim, L, Q, pb->LB, ez, eq, cws);
  for (int q0 = 0; q0 < nq; q0 += 4) {
    const int n = nq - q0 < 4 ? nq - q0 : 4;
    BlastQV J[9], Gv[9], J0i[9], S[9], dtq;
    BlastV4PointMatrix(dim, dX, nq, q0, n, J);
    BlastV4PointMatrix(dim, dV, nq, q0, n, Gv);
    if (J0inv) {
      for (int i = 0; i < d2; i++) J0i[i] = BlastQVLoad(J0inv + i * nq + q0, n);
    } else {
      BlastQV J0[9];
      BlastV4PointMatrix(dim, dX0, nq, q0, n, J0);
      BlastQVMatInverse(dim, J0, J0i);
    }
    const BlastQV det =
        BlastQVPointStress(dim, &pb->qpar, mat, J, Gv, J0i, BlastQVLoad(R0z + q0, n),
                           BlastQVLoad(pb->qw + q0, n), BlastQVLoad(eq + q0, n), S, &dtq);
    for (int g = 0; g < dim; g++) {  // dS[g][q] = (S_q[c + dim g])_c
      BlastV4 r[4] = {zero, zero, zero, zero}, c[4];
      for (int k = 0; k < dim; k++) r[k] = S[k + dim * g];
      BlastV4Transpose(r, c);
      for (int l = 0; l < n; l++) dS[g * nq + q0 + l] = c[l];
    }
    if (Sz)
      for (int l = 0; l < n; l++)
        for (int i = 0; i < d2; i++) Sz[(q0 + l) * d2 + i] = S[i][l];
    BlastQVStore(dets + q0, det, n), BlastQVStore(dts + q0, dtq, n);
    if (bz) BlastQVStore(t + q0, BlastQVPointWork(dim, S, Gv), n);
  }
  for (int q = 0; q < nq; q++) {
    const double det = dets[q];
    BlastQPointReport(z, det, dts[q], dt_min, tangled, tangled_det);
    if (tg) src[q] = BlastPointSource(dim, pb->qw[q], det, (const double *)&Xv[q]);
  }
  BlastV4GradT(dim, D, Q, pb->B, pb->G, dS, rn, cws4);
  for (int c = 0; c < dim; c++)
    for (int a = 0; a < nd; a++) rEz[c * nd + a] = -rn[a][c];
  BlastPaZoneEnergyTerms(pb, dim, L, Q, ne, src, t, tg ? tgz : NULL, bz, cws);
}

#endif  // BLAST_PA_CPU_LANES_H
