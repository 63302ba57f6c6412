// Properties of the exact Sedov profile: strong-shock Rankine-Hugoniot values just behind
// the shock, the ambient state ahead of it, positivity and monotonicity, finiteness down to
// r = 0, self-similarity in time, the Euler equations (finite-difference residuals), and the
// error paths (invalid arguments; singular, vacuum and gamma = 2 branches).
#include <math.h>
#include <string.h>

#include "sedovtest.h"

static void CheckShock(int dim, double gamma, double E0, double rho1, double t) {
  BlastSedov s = NULL;
  TEST_CALL(BlastSedovCreate(dim, gamma, E0, rho1, &s));
  if (!s) return;
  const double r2 = BlastSedovShockRadius(s, t);
  TEST_CLOSE(r2, pow(E0 / (BlastSedovAlpha(s) * rho1), 1.0 / (dim + 2)) * pow(t, 2.0 / (dim + 2)),
             1e-15);
  // Shock speed from the shock trajectory itself (central difference of r2(t)).
  const double h = 1e-4 * t;
  const double D = (BlastSedovShockRadius(s, t - 2 * h) - 8 * BlastSedovShockRadius(s, t - h) +
                    8 * BlastSedovShockRadius(s, t + h) - BlastSedovShockRadius(s, t + 2 * h)) /
                   (12 * h);
  TEST_CLOSE(D, 2.0 / (dim + 2) * r2 / t, 1e-11);
  const double rho2 = (gamma + 1) / (gamma - 1) * rho1, u2 = 2 * D / (gamma + 1),
               p2 = 2 * rho1 * D * D / (gamma + 1);
  double rho, u, p;
  TEST_CALL(BlastSedovEval(s, t, r2 * (1 - 1e-13), &rho, &u, &p));
  TEST_CLOSE(rho, rho2, 1e-10);
  TEST_CLOSE(u, u2, 1e-10);
  TEST_CLOSE(p, p2, 1e-10);
  // Ahead of (and at) the shock: the ambient gas at rest, cold.
  const double ahead[3] = {r2, r2 * (1 + 1e-13), 3 * r2};
  for (int k = 0; k < 3; k++) {
    TEST_CALL(BlastSedovEval(s, t, ahead[k], &rho, &u, &p));
    TEST_ASSERT(rho == rho1 && u == 0 && p == 0, "d=%d ambient state at r/r2 = %.17g: %g %g %g",
                dim, ahead[k] / r2, rho, u, p);
  }
  BlastSedovDestroy(&s);
}

// Positive, finite, monotone non-decreasing rho, u, p on [0, r2) (gamma = 1.4), finite and
// with rho = u = 0 at the center.
static void CheckShape(int dim) {
  BlastSedov s = NULL;
  TEST_CALL(BlastSedovCreate(dim, 1.4, 1.0, 1.0, &s));
  if (!s) return;
  const double t = 0.8, r2 = BlastSedovShockRadius(s, t);
  double prev[3] = {-1, -1, -1};
  int bad_finite = 0, bad_sign = 0, bad_mono = 0;
  const int n = 4000;
  for (int i = 0; i < n; i++) {
    double r = r2 * i / n, v[3];
    TEST_CALL(BlastSedovEval(s, t, r, &v[0], &v[1], &v[2]));
    for (int c = 0; c < 3; c++) {
      bad_finite += !isfinite(v[c]);
      bad_sign += !(v[c] >= 0);
      bad_mono += v[c] < prev[c] * (1 - 1e-14);
      prev[c] = v[c];
    }
  }
  TEST_ASSERT(!bad_finite && !bad_sign && !bad_mono,
              "d=%d: %d non-finite, %d negative, %d non-monotone samples", dim, bad_finite,
              bad_sign, bad_mono);
  // The center and radii that underflow the similarity variable.
  const double tiny[5] = {0.0, 1e-320, 1e-300, 1e-100, 1e-8};
  double pc = 0;
  for (int k = 0; k < 5; k++) {
    double rho, u, p;
    TEST_CALL(BlastSedovEval(s, t, tiny[k] * r2, &rho, &u, &p));
    TEST_ASSERT(isfinite(rho) && isfinite(u) && isfinite(p) && rho >= 0 && u >= 0 && p > 0,
                "d=%d r/r2 = %g: %g %g %g", dim, tiny[k], rho, u, p);
    if (k == 0) {
      TEST_ASSERT(rho == 0 && u == 0, "d=%d center: rho = %g, u = %g", dim, rho, u);
      pc = p;
    } else {
      TEST_CLOSE(p, pc, 1e-12);  // the central pressure plateau
    }
  }
  // Any output may be NULL.
  double rho_only, p_only;
  TEST_CALL(BlastSedovEval(s, t, 0.7 * r2, &rho_only, NULL, NULL));
  TEST_CALL(BlastSedovEval(s, t, 0.7 * r2, NULL, NULL, &p_only));
  TEST_CALL(BlastSedovEval(s, t, 0.7 * r2, NULL, NULL, NULL));
  double rho, u, p;
  TEST_CALL(BlastSedovEval(s, t, 0.7 * r2, &rho, &u, &p));
  TEST_ASSERT(rho_only == rho && p_only == p, "NULL outputs change the others");
  BlastSedovDestroy(&s);
}

// rho(r,t) = R(r/r2), u = (r2/t) U(r/r2), p = rho1 (r2/t)^2 P(r/r2).
static void CheckSelfSimilar(int dim) {
  const double rho1 = 0.7, t1 = 0.3, t2 = 2.7;
  BlastSedov s = NULL;
  TEST_CALL(BlastSedovCreate(dim, 1.4, 2.5, rho1, &s));
  if (!s) return;
  const double r21 = BlastSedovShockRadius(s, t1), r22 = BlastSedovShockRadius(s, t2);
  const double lambdas[6] = {0.05, 0.2, 0.5, 0.8, 0.95, 0.999};
  for (int k = 0; k < 6; k++) {
    double a[3], b[3];
    TEST_CALL(BlastSedovEval(s, t1, lambdas[k] * r21, &a[0], &a[1], &a[2]));
    TEST_CALL(BlastSedovEval(s, t2, lambdas[k] * r22, &b[0], &b[1], &b[2]));
    TEST_CLOSE(b[0], a[0], 1e-12);
    TEST_CLOSE(b[1] * t2 / r22, a[1] * t1 / r21, 1e-12);
    TEST_CLOSE(b[2] * (t2 * t2) / (r22 * r22), a[2] * (t1 * t1) / (r21 * r21), 1e-12);
  }
  BlastSedovDestroy(&s);
}

// The profile solves the Euler equations behind the shock (finite differences in r and t;
// away from the center, where p_r/rho is a ratio of tiny numbers for the differences).
static void CheckEuler(int dim, double gamma) {
  BlastSedov s = NULL;
  TEST_CALL(BlastSedovCreate(dim, gamma, 1.3, 0.9, &s));
  if (!s) return;
  const double t = 1.1, r2 = BlastSedovShockRadius(s, t);
  const double lambdas[7] = {0.3, 0.45, 0.6, 0.75, 0.9, 0.97, 0.995};
  for (int k = 0; k < 7; k++) {
    double res[3];
    SedovPDEResiduals(s, dim, gamma, t, lambdas[k] * r2, 1e-4, res);
    TEST_ASSERT(res[0] < 1e-8 && res[1] < 1e-8 && res[2] < 1e-8,
                "d=%d gamma=%g r/r2=%g: relative residuals mass %.2e momentum %.2e entropy %.2e",
                dim, gamma, lambdas[k], res[0], res[1], res[2]);
  }
  BlastSedovDestroy(&s);
}

static void CheckErrors(void) {
  BlastSedov s = (BlastSedov)1;  // must be reset to NULL on failure
  const struct {
    int dim;
    double gamma, E0, rho1;
    int code;
    const char *what;
  } bad[] = {
      {0, 1.4, 1, 1, BLAST_ERR_ARG, "geometry"},
      {4, 1.4, 1, 1, BLAST_ERR_ARG, "geometry"},
      {3, 1.0, 1, 1, BLAST_ERR_ARG, "gamma"},
      {3, NAN, 1, 1, BLAST_ERR_ARG, "gamma"},
      {3, 1.4, 0, 1, BLAST_ERR_ARG, "E0"},
      {3, 1.4, 1, -1, BLAST_ERR_ARG, "rho1"},
      {3, 7.0, 1, 1, BLAST_ERR_UNSUPPORTED, "singular"},  // V2 = V*
      {3, 8.0, 1, 1, BLAST_ERR_UNSUPPORTED, "vacuum"},    // V2 > V*
      {3, 25.0, 1, 1, BLAST_ERR_UNSUPPORTED, "vacuum"},
      {1, 2.0, 1, 1, BLAST_ERR_UNSUPPORTED, "omega3"},  // alpha4, alpha5 diverge
      {2, 2.0, 1, 1, BLAST_ERR_UNSUPPORTED, "omega3"},
      {3, 2.0005, 1, 1, BLAST_ERR_UNSUPPORTED, "omega3"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    s = (BlastSedov)1;
    int code = BlastSedovCreate(bad[i].dim, bad[i].gamma, bad[i].E0, bad[i].rho1, &s);
    TEST_ASSERT(code == bad[i].code && s == NULL && strstr(BlastErrorMessage(), bad[i].what),
                "case %zu: code %d (want %d), message \"%s\" (want \"%s\")", i, code, bad[i].code,
                BlastErrorMessage(), bad[i].what);
    BlastErrorClear();
  }
  TEST_ASSERT(BlastSedovCreate(3, 1.4, 1, 1, NULL) == BLAST_ERR_ARG, "NULL handle accepted");
  BlastErrorClear();
  // The standard branch holds for every gamma in planar and cylindrical geometry.
  TEST_CALL(BlastSedovCreate(1, 25.0, 1, 1, &s));
  BlastSedovDestroy(&s);
  TEST_CALL(BlastSedovCreate(2, 25.0, 1, 1, &s));
  BlastSedovDestroy(&s);

  TEST_CALL(BlastSedovCreate(3, 1.4, 1, 1, &s));
  double rho;
  TEST_ASSERT(BlastSedovEval(s, 0.0, 0.1, &rho, NULL, NULL) == BLAST_ERR_ARG, "t = 0 accepted");
  TEST_ASSERT(BlastSedovEval(s, 1.0, -0.1, &rho, NULL, NULL) == BLAST_ERR_ARG, "r < 0 accepted");
  TEST_ASSERT(BlastSedovEval(s, 1.0, NAN, &rho, NULL, NULL) == BLAST_ERR_ARG, "r = NaN accepted");
  TEST_ASSERT(BlastSedovEval(NULL, 1.0, 0.1, &rho, NULL, NULL) == BLAST_ERR_ARG, "NULL accepted");
  BlastErrorClear();
  TEST_ASSERT(BlastSedovShockRadius(s, 0.0) == 0.0, "r2(0) != 0");
  TEST_CALL(BlastSedovDestroy(&s));
  TEST_ASSERT(s == NULL, "Destroy does not reset the handle");
  TEST_CALL(BlastSedovDestroy(&s));
  TEST_CALL(BlastSedovDestroy(NULL));
  TEST_ASSERT(isnan(BlastSedovAlpha(NULL)), "alpha of NULL");
}

int main(void) {
  for (int dim = 1; dim <= 3; dim++) {
    CheckShock(dim, 1.4, 1.0, 1.0, 1.0);
    CheckShock(dim, 5.0 / 3.0, 0.3, 2.0, 0.05);
    CheckShock(dim, 3.0, 40.0, 0.1, 7.0);
    CheckShape(dim);
    CheckSelfSimilar(dim);
    CheckEuler(dim, 1.4);
    CheckEuler(dim, 5.0 / 3.0);
    CheckEuler(dim, 3.0);
  }
  CheckErrors();
  return BlastTestFinish("test_sedov_profile");
}
