// The CPU backend's vector-lane kernels against the scalar kernels they stand for, bit for
// bit: the point kernel (qpoint_lanes.h: BlastQVPointStress against BlastPointStress)
// with every lane of a vector drawn from its own kind of point (smooth, no or diagonal or
// isotropic velocity gradient, off-diagonal entries under round-off or at the far branch
// of the Jacobi tangent, tangled, singular, zero, huge, tiny and subnormal Jacobians, zero,
// negative and NaN energies, NaN and infinite entries), so that the lanes' branches,
// sweep counts and fallbacks differ within a vector; and the zone kernel
// (pa_cpu_lanes.h: BlastCpuPaZoneQData against BlastPaZoneQDataN) at orders 1-4 in 2D and
// 3D (and a 2D case whose point count is not a multiple of the vector width), with J0^{-1}
// stored or recomputed from x0, with and without the kept stress, F_z^T v and the
// Taylor-Green source; each for the ideal and the stiffened gas.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fe.h"
#include "pa_cpu_lanes.h"
#include "testlib.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double Rand(void) {  // [-1, 1)
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}
static int RandInt(int n) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (int)((rng >> 33) % (uint64_t)n);
}

// The same bits, or both NaN: IEEE 754 leaves the sign and payload of a NaN result open
// and compilers reorder the operands of commutative operations (which NaN propagates), so
// two compilations of one expression may differ there; a NaN anywhere ends a run anyway.
static int SameBits(const double *a, const double *b, int n) {
  for (int i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], sizeof(double)) != 0 && !(isnan(a[i]) && isnan(b[i]))) return 0;
  return 1;
}

enum { kKinds = 17 };

// One point of kind `kind`: J, Gref, J0inv (column-major d x d), R0, w, e.
static void MakePoint(int dim, int kind, double *J, double *Gv, double *J0i, double *R0, double *w,
                      double *e) {
  const int d2 = dim * dim;
  const double scale = pow(10.0, 3.0 * Rand());
  for (int i = 0; i < d2; i++) {
    const int diag = i % (dim + 1) == 0;
    J[i] = (diag ? 1.0 : 0.0) + 0.3 * Rand();
    Gv[i] = scale * Rand();
    J0i[i] = (diag ? 1.0 : 0.0) + 0.2 * Rand();
  }
  *R0 = 0.6 + 0.5 * Rand(), *w = 0.2 + 0.1 * Rand(), *e = 2.0 + Rand();
  switch (kind) {
    case 1:  // no velocity gradient: eps = 0, no sweep
      for (int i = 0; i < d2; i++) Gv[i] = 0.0;
      break;
    case 2:  // J = I, diagonal gradient with a repeated value: no rotation
      for (int i = 0; i < d2; i++) J[i] = i % (dim + 1) == 0, Gv[i] = 0.0;
      for (int c = 0; c < dim; c++) Gv[c * (dim + 1)] = c == 1 ? -0.5 : 1.5;
      break;
    case 3:  // isotropic: eps = a I exactly (J diagonal powers of two)
      for (int i = 0; i < d2; i++) J[i] = 0.0, Gv[i] = 0.0;
      for (int c = 0; c < dim; c++)
        J[c * (dim + 1)] = c == 0 ? 2.0 : 0.5, Gv[c * (dim + 1)] = -J[c * (dim + 1)];
      break;
    case 4:  // off-diagonal below round-off of the diagonal: zeroed, not rotated
    case 5:  // off-diagonal just above it, diagonal apart
      for (int i = 0; i < d2; i++) J[i] = i % (dim + 1) == 0, Gv[i] = 0.0;
      for (int c = 0; c < dim; c++) Gv[c * (dim + 1)] = 1.0 + c;
      // kind 5: |zeta| = |a_qq - a_pp| / (2 |a_pq|) from 5e7 to 1.5e8, around the switch
      // to the far formula 1/(2|zeta|) at 1/sqrt(eps) = 6.7e7
      Gv[dim] = Gv[1] = kind == 4 ? 1e-20 : 5e-9 * (1.0 + 0.5 * Rand());
      if (dim == 3) Gv[7] = Gv[5] = kind == 4 ? -3e-21 : -5e-9 * (1.0 + 0.5 * Rand());
      break;
    case 6:  // tangled: two columns swapped
      for (int c = 0; c < dim; c++) {
        const double t = J[c];
        J[c] = J[c + dim], J[c + dim] = t;
      }
      break;
    case 7:  // singular: two equal columns
      for (int c = 0; c < dim; c++) J[c + dim] = J[c];
      break;
    case 8:  // zero Jacobian
      for (int i = 0; i < d2; i++) J[i] = 0.0;
      break;
    case 9:  // huge and tiny Jacobians (the smallest singular value's rare scalings)
      for (int i = 0; i < d2; i++) J[i] *= RandInt(2) ? 1e300 : 1e-300;
      break;
    case 10:  // subnormal Jacobian
      for (int i = 0; i < d2; i++) J[i] *= 1e-310;
      break;
    case 11:  // energy zero, -0, negative
      *e = RandInt(3) == 0 ? 0.0 : (RandInt(2) ? -0.0 : -1.0);
      break;
    case 12:  // NaN energy
      *e = NAN;
      break;
    case 13:  // NaN or infinite entries
      J[RandInt(d2)] = RandInt(2) ? NAN : INFINITY;
      break;
    case 14:  // NaN velocity gradient
      Gv[RandInt(d2)] = NAN;
      break;
    case 15:  // NaN on the diagonal of a diagonal gradient: no sweep, the vector e_x
      for (int i = 0; i < d2; i++) J[i] = i % (dim + 1) == 0, Gv[i] = 0.0;
      for (int c = 0; c < dim; c++) Gv[c * (dim + 1)] = 1.0 + c;
      Gv[(dim + 1) * RandInt(dim)] = NAN;
      break;
    default:  // smooth, at another scale
      for (int i = 0; i < d2; i++) J[i] *= 1e-3;
      break;
  }
}

// The kernels with a constant dimension, as the backend calls them (a variable one leaves
// the compiler unsure that the d x d matrices are filled).
static double Scalar(int dim, const BlastQPointParams *par, const double *J, const double *Gv,
                     const double *J0i, double R0, double w, double e, const BlastMaterial *mat,
                     double *S, double *dt) {
  return dim == 2 ? BlastPointStress(2, par, mat, J, Gv, J0i, R0, w, e, S, dt)
                  : BlastPointStress(3, par, mat, J, Gv, J0i, R0, w, e, S, dt);
}
static BlastQV Lanes(int dim, const BlastQPointParams *par, const BlastQV *J, const BlastQV *Gv,
                     const BlastQV *J0i, BlastQV R0, BlastQV w, BlastQV e, const BlastMaterial *mat,
                     BlastQV *S, BlastQV *dt) {
  return dim == 2 ? BlastQVPointStress(2, par, mat, J, Gv, J0i, R0, w, e, S, dt)
                  : BlastQVPointStress(3, par, mat, J, Gv, J0i, R0, w, e, S, dt);
}

static void PointKernelCase(int dim, int visc, int vort, int nvec) {
  const int d2 = dim * dim, W = BLAST_QV_W;
  BlastQPointParams par = {dim, 2, visc, vort, 0.0625, 0.5};
  int bad = 0;
  for (int it = 0; it < nvec; it++) {
    double J[BLAST_QV_W][9], Gv[BLAST_QV_W][9], J0i[BLAST_QV_W][9], R0[BLAST_QV_W], w[BLAST_QV_W],
        e[BLAST_QV_W];
    const double gamma = 1.4 + 0.3 * Rand();
    // Every other vector a stiffened gas, p_inf in [0, 3) (without drawing: the ideal-gas
    // vectors keep their points): c^2 = gamma (p + p_inf) / rho negative in some lanes.
    const BlastMaterial mat = it % 2 ? BlastMaterialStiffenedGas(gamma, 10.0 * fabs(gamma - 1.4))
                                     : BlastMaterialIdealGas(gamma);
    const int same = RandInt(4) == 0;  // sometimes one kind in every lane
    const int kind0 = RandInt(kKinds);
    for (int l = 0; l < W; l++)
      MakePoint(dim, same ? kind0 : RandInt(kKinds), J[l], Gv[l], J0i[l], &R0[l], &w[l], &e[l]);
    BlastQV vJ[9], vG[9], vJ0[9], vS[9], vdt, vR0, vw, ve;
    for (int i = 0; i < d2; i++)
      for (int l = 0; l < W; l++) vJ[i][l] = J[l][i], vG[i][l] = Gv[l][i], vJ0[i][l] = J0i[l][i];
    for (int l = 0; l < W; l++) vR0[l] = R0[l], vw[l] = w[l], ve[l] = e[l];
    const BlastQV vdet = Lanes(dim, &par, vJ, vG, vJ0, vR0, vw, ve, &mat, vS, &vdt);
    for (int l = 0; l < W; l++) {
      double S[9], dt, lane[9];
      const double det = Scalar(dim, &par, J[l], Gv[l], J0i[l], R0[l], w[l], e[l], &mat, S, &dt);
      for (int i = 0; i < d2; i++) lane[i] = vS[i][l];
      const double vd = vdet[l], vt = vdt[l];
      if (!(SameBits(S, lane, d2) && SameBits(&det, &vd, 1) && SameBits(&dt, &vt, 1))) {
        if (bad++ < 5)
          fprintf(stderr,
                  "dim %d visc %d vort %d vector %d lane %d: S[0] %.17g/%.17g dt %.17g/%.17g det "
                  "%.17g/%.17g\n",
                  dim, visc, vort, it, l, S[0], lane[0], dt, vt, det, vd);
      }
    }
  }
  TEST_ASSERT(bad == 0, "dim %d visc %d vort %d: %d of %d points differ from the scalar kernel",
              dim, visc, vort, bad, nvec * W);
}

// The sigma_min fallbacks and the Jacobi sweeps directly, on the same kinds of points.
static void SigmaEigCase(int dim, int nvec) {
  const int d2 = dim * dim, W = BLAST_QV_W;
  int bad = 0;
  for (int it = 0; it < nvec; it++) {
    double J[BLAST_QV_W][9], Gv[BLAST_QV_W][9], J0i[9], R0, w, e, A[BLAST_QV_W][9];
    for (int l = 0; l < W; l++) {
      MakePoint(dim, RandInt(kKinds), J[l], Gv[l], J0i, &R0, &w, &e);
      for (int c = 0; c < dim; c++)  // symmetric
        for (int g = 0; g < dim; g++)
          A[l][c + dim * g] = 0.5 * (Gv[l][c + dim * g] + Gv[l][g + dim * c]);
    }
    BlastQV vJ[9], vA[9], vmu, vd[3];
    for (int i = 0; i < d2; i++)
      for (int l = 0; l < W; l++) vJ[i][l] = J[l][i], vA[i][l] = A[l][i];
    const BlastQV vs = BlastQVSigmaMin(dim, vJ);
    BlastQVSymEigMin(dim, vA, &vmu, vd);
    for (int l = 0; l < W; l++) {
      double mu, d[3], lane[3] = {vd[0][l], vd[1][l], dim == 3 ? vd[2][l] : 0.0};
      const double s = BlastSigmaMin(dim, J[l]), vsl = vs[l], vmul = vmu[l];
      BlastSymEigMin(dim, A[l], &mu, d);
      if (!(SameBits(&s, &vsl, 1) && SameBits(&mu, &vmul, 1) && SameBits(d, lane, dim))) {
        bad++;
      }
    }
  }
  TEST_ASSERT(bad == 0, "dim %d: %d of %d sigma_min / eigen results differ", dim, bad, nvec * W);
}

// Zone 7's kernels, dim constant as in the backend's instances.
static void ScalarZone(const BlastPaBasis *pb, const double *x, const double *v, const double *x0,
                       const double *J0, const double *e, const double *R0,
                       const BlastMaterial *mat, double *S, double *rE, double *b, double *tg,
                       double *ws, double *dt, int *tz, double *tdet) {
  if (pb->dim == 2)
    BlastPaZoneQDataN(pb, 2, pb->D, pb->Q, pb->L, 7, x, v, x0, J0, e, R0, mat, S, rE, b, tg, ws, dt,
                      tz, tdet);
  else
    BlastPaZoneQDataN(pb, 3, pb->D, pb->Q, pb->L, 7, x, v, x0, J0, e, R0, mat, S, rE, b, tg, ws, dt,
                      tz, tdet);
}
static void LanesZone(const BlastPaBasis *pb, const double *x, const double *v, const double *x0,
                      const double *J0, const double *e, const double *R0, const BlastMaterial *mat,
                      double *S, double *rE, double *b, double *tg, double *ws, double *dt, int *tz,
                      double *tdet) {
  if (pb->dim == 2)
    BlastCpuPaZoneQData(pb, 2, pb->D, pb->Q, pb->L, 7, x, v, x0, J0, e, R0, mat, S, rE, b, tg, ws,
                        dt, tz, tdet);
  else
    BlastCpuPaZoneQData(pb, 3, pb->D, pb->Q, pb->L, 7, x, v, x0, J0, e, R0, mat, S, rE, b, tg, ws,
                        dt, tz, tdet);
}

// One zone of order k in dimension dim: the lane kernel against the scalar kernel.
static void ZoneCase(int dim, int k, int q1d, int tgsrc, int trials) {
  const int m = k - 1;
  if (q1d <= 0) q1d = BlastQuadraturePoints1D(k, m, 0);
  BlastTensorTables *t = NULL;
  TEST_CALL(BlastTensorTablesCreate(dim, k, m, q1d, &t));
  if (!t) return;
  BlastPaBasis pb = {0};
  pb.dim = dim, pb.D = k + 1, pb.Q = q1d, pb.L = m + 1;
  pb.nd = t->h1_nd, pb.nq = t->nqp, pb.ne = t->l2_nd;
  pb.B = t->b1d, pb.G = t->g1d, pb.LB = t->l1d, pb.qw = t->qp_w;
  pb.qpar = (BlastQPointParams){dim, k, 1, tgsrc, 0.1 / k, 0.5};
  pb.tg_source = tgsrc;
  const int nd = pb.nd, nq = pb.nq, ne = pb.ne, d2 = dim * dim, rows = dim * nd;
  const size_t wsn = (size_t)BlastPaZoneWorkspace(&pb) + (size_t)BlastCpuPaZoneWorkspace(&pb);
  double *x = malloc(sizeof(double) * rows), *v = malloc(sizeof(double) * rows);
  double *x0 = malloc(sizeof(double) * rows), *ez = malloc(sizeof(double) * ne);
  double *R0 = malloc(sizeof(double) * nq), *ws = malloc(sizeof(double) * wsn);
  double *J0p = malloc(sizeof(double) * nq * d2), *J0f = malloc(sizeof(double) * nq * d2);
  double *out[2][4];  // S, rE, b, tg of the scalar and the lane kernel
  const int len[4] = {nq * d2, rows, ne, ne};
  for (int s = 0; s < 2; s++)
    for (int o = 0; o < 4; o++) out[s][o] = malloc(sizeof(double) * len[o]);
  int bad = 0;
  for (int it = 0; it < trials; it++) {
    const int kind = it % 4;  // smooth, still (v = 0, e = 0 in places), tangled, fast
    for (int c = 0; c < dim; c++)
      for (int a = 0; a < nd; a++) {
        const int ac[3] = {a % (k + 1), (a / (k + 1)) % (k + 1), a / ((k + 1) * (k + 1))};
        const double ref = t->h1_nodes[ac[c]];
        x0[c * nd + a] = ref + 0.02 * Rand();
        x[c * nd + a] = ref + (kind == 2 ? 0.6 : 0.05) * Rand();
        v[c * nd + a] = kind == 1 ? 0.0 : (kind == 3 ? 50.0 : 1.0) * Rand();
      }
    for (int j = 0; j < ne; j++) ez[j] = kind == 1 && j % 2 ? 0.0 : 1.0 + Rand();
    for (int q = 0; q < nq; q++) R0[q] = (1.0 + 0.2 * Rand()) * t->qp_w[q];
    BlastPaZoneJ0inv(&pb, x0, J0p, ws);
    for (int q = 0; q < nq; q++)
      for (int i = 0; i < d2; i++) J0f[i * nq + q] = J0p[q * d2 + i];
    // variant bit 2: a stiffened gas (water's gamma, p_inf near rho e: c^2 < 0 at some
    // points), else the ideal gas.
    const BlastMaterial ideal = BlastMaterialIdealGas(5.0 / 3.0);
    const BlastMaterial water = BlastMaterialStiffenedGas(4.4, 1.0);
    for (int variant = 0; variant < 8; variant++) {
      const int use_j0 = variant & 1, keep = variant & 2, want_b = !keep;
      const BlastMaterial *mat = variant & 4 ? &water : &ideal;
      double dt[2] = {HUGE_VAL, HUGE_VAL}, tdet[2] = {0.0, 0.0};
      int tz[2] = {-1, -1};
      for (int s = 0; s < 2; s++)
        for (int o = 0; o < 4; o++) memset(out[s][o], 0, sizeof(double) * len[o]);
      ScalarZone(&pb, x, v, x0, use_j0 ? J0p : NULL, ez, R0, mat, out[0][0], out[0][1],
                 want_b ? out[0][2] : NULL, out[0][3], ws, &dt[0], &tz[0], &tdet[0]);
      LanesZone(&pb, x, v, x0, use_j0 ? J0f : NULL, ez, R0, mat, keep ? out[1][0] : NULL, out[1][1],
                want_b ? out[1][2] : NULL, out[1][3], ws, &dt[1], &tz[1], &tdet[1]);
      int same = SameBits(&dt[0], &dt[1], 1) && tz[0] == tz[1] && SameBits(&tdet[0], &tdet[1], 1);
      for (int o = 1; o < 4; o++) same = same && SameBits(out[0][o], out[1][o], len[o]);
      if (keep) same = same && SameBits(out[0][0], out[1][0], len[0]);
      if (!same && bad++ < 3)
        fprintf(stderr, "dim %d k %d q1d %d trial %d variant %d: dt %.17g/%.17g tangled %d/%d\n",
                dim, k, q1d, it, variant, dt[0], dt[1], tz[0], tz[1]);
    }
  }
  TEST_ASSERT(bad == 0, "zone kernel dim %d k %d q1d %d source %d: %d cases differ", dim, k, q1d,
              tgsrc, bad);
  for (int s = 0; s < 2; s++)
    for (int o = 0; o < 4; o++) free(out[s][o]);
  free(x), free(v), free(x0), free(ez), free(R0), free(ws), free(J0p), free(J0f);
  BlastTensorTablesDestroy(&t);
}

int main(void) {
  for (int dim = 2; dim <= 3; dim++) {
    for (int visc = 0; visc <= 1; visc++)
      for (int vort = 0; vort <= visc; vort++) PointKernelCase(dim, visc, vort, 20000);
    SigmaEigCase(dim, 20000);
    for (int k = 1; k <= 4; k++) ZoneCase(dim, k, 0, dim == 2, 12);
  }
  ZoneCase(2, 2, 3, 0, 8);  // 9 points: a partial vector
  ZoneCase(3, 2, 3, 0, 8);  // 27 points
  return BlastTestFinish("test_cpu_lanes");
}
