// Sedov-Taylor blast wave, Kamm-Timmes formulation, omega = 0 (method spec 13.5).
//
// Similarity form (j = geometry dimension, V the similarity variable, V0 <= V <= V2):
//   r = r2 lambda(V),  u = V r / t,  rho = rho2 g(V),  p = p2 h(V),
//   x1 = a V, x2 = b (c V - 1), x3 = d (1 - e V), x4 = b (1 - (j+2) V / 2),
//   lambda = x1^-alpha0 x2^-alpha2 x3^-alpha1,  f = u/u2 = x1 lambda,
//   g = x2^alpha3 x3^alpha4 x4^alpha5,  h = x1^(j alpha0) x3^(alpha4 - 2 alpha1) x4^(1+alpha5),
// with all x_k = 1 at the shock (V = V2) and x2 = 0 at the center (V = V0 = 1/c).
//
// Why a different variable: near the center lambda ~ x2^beta with beta = -alpha2 =
// (gamma-1)/(2(gamma-1)+j), small (0.105 for j = 3, gamma = 1.4), so V - V0 ~ (r/r2)^(1/beta)
// is below double resolution already at r/r2 ~ 0.02, and the energy integrand in V has an
// x2^(beta j - 1) endpoint singularity that an adaptive rule in V cannot resolve (done in V,
// as in the reference sedov_sol.cpp and in Kamm-Timmes' Table 4, alpha comes out low by
// ~1.6e-5 spherical, ~4.6e-5 cylindrical, ~4e-4 planar for gamma = 1.4). We use y = x2 in [0,1] (V
// = V0 (1 + y/b) exactly) and s = y^beta in [0,1]: lambda = s exp(G(y)), G = -alpha0 ln x1 - alpha1
// ln x3, is nearly linear in s, and the energy integrands are regular in s. Points are found by
// Newton on ln s (Eval) and the energy integral is taken over tau = 1 - s (Create).
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "sedov_exact.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

struct BlastSedov_private {
  int dim;
  double gamma, E0, rho1;
  double a, b, c, d, e;                      // Kamm-Timmes constants (d is d')
  double al0, al1, al2, al3, al4, al5;       // exponents alpha0..alpha5
  double V0, V2;                             // similarity variable range
  double beta, inv_beta;                     // beta = -alpha2, s = y^beta
  double k1, k3, k4;                         // x_k(y) = 1 + k_k (1 - y)
  double g_s, g_x3, g_x4, h_x1, h_x3, h_x4;  // exponents of g and h
  double G0;                                 // G(y = 0)
  double I1, I2, alpha;                      // kinetic, internal, total
  double shock_coef;                         // r2 = shock_coef t^(2/(j+2))
};

// ---------------------------------------------------------------------------------------
// Point functions of the similarity variable, parametrized by ls = ln s <= 0.

typedef struct {
  double y, V, x1, lx1, lx3, lx4, G, dG;  // dG = dG/dy
} SedovPoint;

// The x_k are written around the shock, x_k = 1 + k_k (1 - y) with 1 - y = -expm1(ln y): no
// cancellation near the shock, nor in x3 near the singular case where k3 ~ d' is large.
static void SedovPointEval(const struct BlastSedov_private *S, double ls, SedovPoint *q) {
  double om = -expm1(ls * S->inv_beta), y = 1 - om;  // y underflows to 0 at the center
  double x1 = 1 + S->k1 * om, x3 = 1 + S->k3 * om, x4 = 1 + S->k4 * om;
  q->y = y;
  q->x1 = x1;
  q->V = S->V0 * (1 + y / S->b);
  q->lx1 = log(x1);
  q->lx3 = log(x3);
  q->lx4 = log(x4);
  q->G = -S->al0 * q->lx1 - S->al1 * q->lx3;
  q->dG = S->al0 * S->k1 / x1 + S->al1 * S->k3 / x3;  // dx_k/dy = -k_k
}

// g and h of the similarity solution (y^alpha3 = s^(alpha3/beta) = exp(g_s ls)).
static double SedovG(const struct BlastSedov_private *S, double ls, const SedovPoint *q) {
  return exp(S->g_s * ls + S->g_x3 * q->lx3 + S->g_x4 * q->lx4);
}
static double SedovH(const struct BlastSedov_private *S, const SedovPoint *q) {
  return exp(S->h_x1 * q->lx1 + S->h_x3 * q->lx3 + S->h_x4 * q->lx4);
}

// Energy integrands in s on (0,1]. With u = V r/t, u2 = 2 us/(gamma+1), us = 2 r2/((j+2) t),
// p2 = 2 rho1 us^2/(gamma+1), rho2 = b rho1, r = r2 lambda, the energy of the profile is
//   E = sigma_j rho1 r2^(j+2)/t^2 Int_0^1 [ b/2 g V^2 lambda^(j+1)
//       + 8/((gamma+1)(gamma-1)(j+2)^2) h lambda^(j-1) ] dlambda,
// sigma_j = 2, 2 pi, 4 pi. With lambda = s e^G: dlambda/ds = e^G (1 + G'(y) y / beta).
// The argument is tau = 1 - s, the distance from the shock, so that layers at the shock
// (near the singular case they are ~1e-8 wide) are resolved without rounding of 1 - s.
static double SedovIntegrand(const struct BlastSedov_private *S, double tau, int internal) {
  SedovPoint q;
  double s = 1 - tau, ls = log1p(-tau);
  SedovPointEval(S, ls, &q);
  double eG = exp(q.G), lambda = s * eG, dlambda = eG * (1 + q.dG * q.y * S->inv_beta);
  int j = S->dim;
  double lp = 1.0;  // lambda^(j-1)
  for (int k = 1; k < j; k++) lp *= lambda;
  if (internal) {
    double gm1 = S->gamma - 1, gp1 = S->gamma + 1;
    return 8.0 / (gp1 * gm1 * (j + 2) * (j + 2)) * SedovH(S, &q) * lp * dlambda;
  }
  return 0.5 * S->b * SedovG(S, ls, &q) * q.V * q.V * lp * lambda * lambda * dlambda;
}

// ---------------------------------------------------------------------------------------
// Adaptive 21-point Gauss-Kronrod quadrature (10-point Gauss embedded). Nodes and weights
// on [-1,1], positive half; computed independently (Stieltjes polynomial roots and moment
// equations in 60-digit arithmetic).
static const double gk21_x[11] = {0.99565716302580808073552728068900,
                                  0.97390652851717172007796401208445,
                                  0.93015749135570822600120718005951,
                                  0.86506336668898451073209668842349,
                                  0.78081772658641689706371757834504,
                                  0.67940956829902440623432736511487,
                                  0.56275713466860468333900009927269,
                                  0.43339539412924719079926594316578,
                                  0.29439286270146019813112660310387,
                                  0.14887433898163121088482600112972,
                                  0.0};
static const double gk21_wk[11] = {
    0.011694638867371874278064396062192, 0.032558162307964727478818972459390,
    0.054755896574351996031381300244580, 0.075039674810919952767043140916190,
    0.093125454583697605535065465083366, 0.109387158802297641899210590325805,
    0.123491976262065851077958109831074, 0.134709217311473325928054001771707,
    0.142775938577060080797094273138717, 0.147739104901338491374841515972068,
    0.149445554002916905664936468389821};
static const double gk21_wg[5] = {  // Gauss weights of the odd-indexed nodes above
    0.066671344308688137593568809893332, 0.149451349150580593145776339657697,
    0.219086362515982043995534934228163, 0.269266719309996355091226921569469,
    0.295524224714752870173892994651338};

enum { SEDOV_GK_SEGMENTS = 20, SEDOV_GK_MAX_DEPTH = 64 };
static const double sedov_gk_tol = 1.49e-15;
static const long sedov_gk_max_evals = 20000000;

typedef struct {
  const struct BlastSedov_private *S;
  int internal;
  long evals;
} SedovQuad;

static int SedovGK21(SedovQuad *Q, double lo, double hi, int depth, double *result) {
  double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
  double fc = SedovIntegrand(Q->S, mid, Q->internal);
  double sk = gk21_wk[10] * fc, sg = 0.0;
  for (int i = 0; i < 10; i++) {
    double dx = half * gk21_x[i];
    double f1 = SedovIntegrand(Q->S, mid - dx, Q->internal);
    double f2 = SedovIntegrand(Q->S, mid + dx, Q->internal);
    sk += gk21_wk[i] * (f1 + f2);
    if (i % 2) sg += gk21_wg[i / 2] * (f1 + f2);
  }
  Q->evals += 21;
  sk *= half;
  sg *= half;
  BlastCheck(isfinite(sk) && isfinite(sg), BLAST_ERR_NUMERIC,
             "Sedov energy integrand not finite on [%.17g, %.17g]", lo, hi);
  double diff = fabs(sk - sg);
  int converged = diff < sedov_gk_tol || diff < sedov_gk_tol * fmax(fabs(sk), fabs(sg));
  if (converged || depth >= SEDOV_GK_MAX_DEPTH) {
    *result = sk;
    return 0;
  }
  BlastCheck(Q->evals < sedov_gk_max_evals, BLAST_ERR_NUMERIC,
             "Sedov energy integral does not converge (%ld integrand evaluations)", Q->evals);
  double r1, r2;
  BlastCall(SedovGK21(Q, lo, mid, depth + 1, &r1));
  BlastCall(SedovGK21(Q, mid, hi, depth + 1, &r2));
  *result = r1 + r2;
  return 0;
}

// 20 uniform initial segments on tau = 1 - s in [0,1]. The integrands vary near the shock on
// the scale w = beta / max(1, k3) in tau (1 - y ~ tau/beta, x3 = 1 + k3 (1-y)); when w is
// below the segment width (gamma -> 1, or d' large near the singular case) the first segment
// is split at 2^-i/20 down to w/16, so that no layer hides between the nodes.
static int SedovEnergyIntegral(const struct BlastSedov_private *S, int internal, double *I) {
  SedovQuad Q = {S, internal, 0};
  const double width = 1.0 / SEDOV_GK_SEGMENTS, w = S->beta / fmax(1.0, S->k3);
  double sum = 0.0, part = 0.0;
  for (int k = SEDOV_GK_SEGMENTS - 1; k > 0; k--) {
    BlastCall(SedovGK21(&Q, k * width, (k + 1) * width, 1, &part));
    sum += part;
  }
  double hi = width;  // [0, hi] remains; split at hi/2 while the layer is thinner
  while (hi > w / 16 && hi > 1e-300) {
    BlastCall(SedovGK21(&Q, 0.5 * hi, hi, 1, &part));
    sum += part;
    hi *= 0.5;
  }
  BlastCall(SedovGK21(&Q, 0.0, hi, 1, &part));
  *I = sum + part;
  return 0;
}

// ---------------------------------------------------------------------------------------

int BlastSedovCreate(int geometry_dim, double gamma, double E0, double rho1, BlastSedov *s) {
  BlastCheck(s, BLAST_ERR_ARG, "NULL output handle");
  *s = NULL;
  BlastCheck(geometry_dim >= 1 && geometry_dim <= 3, BLAST_ERR_ARG,
             "Sedov geometry %d (1 planar, 2 cylindrical, 3 spherical)", geometry_dim);
  BlastCheck(isfinite(gamma) && gamma > 1, BLAST_ERR_ARG, "Sedov gamma = %g must be > 1", gamma);
  BlastCheck(isfinite(E0) && E0 > 0, BLAST_ERR_ARG, "Sedov blast energy E0 = %g must be > 0", E0);
  BlastCheck(isfinite(rho1) && rho1 > 0, BLAST_ERR_ARG,
             "Sedov ambient density rho1 = %g must be > 0", rho1);

  const double j = geometry_dim, g = gamma;
  // Kamm-Timmes branches for omega = 0, by the sign of D = (j+2)(g+1) - 2(2 + j(g-1)) (the
  // denominator of d'; D > 0 <=> V2 < V* = 2/(j(g-1)+2)): standard D > 0, singular D = 0
  // (only j = 3, gamma = 7), vacuum D < 0 (j = 3, gamma > 7). The standard form is evaluated
  // without cancellation as D -> 0+ (see SedovPointEval); 1e-9 only keeps d' finite.
  const double V2 = 4 / ((j + 2) * (g + 1)), Vstar = 2 / (j * (g - 1) + 2);
  const double Drel = ((j + 2) * (g + 1) - 2 * (2 + j * (g - 1))) / ((j + 2) * (g + 1));
  BlastCheck(Drel > 1e-9, BLAST_ERR_UNSUPPORTED,
             "Sedov solution for geometry %d, gamma = %.17g is the %s case of Kamm-Timmes "
             "(V2 = %.17g %s V* = %.17g); only the standard case (V2 < V*) is implemented",
             geometry_dim, gamma, Drel < -1e-9 ? "vacuum" : "singular", V2,
             Drel < -1e-9 ? ">" : "=", Vstar);
  // gamma = 2 is Kamm-Timmes' special case omega = omega3 = j (2 - gamma): alpha4, alpha5
  // diverge like 1/(2 - gamma) (g and h become limits of ratios of huge powers, which the
  // standard form evaluates with a relative error ~ eps/|2 - gamma|).
  BlastCheck(fabs(g - 2) > 1e-3, BLAST_ERR_UNSUPPORTED,
             "Sedov solution for gamma = %.17g: gamma = 2 is the omega3 special case of "
             "Kamm-Timmes (exponents alpha4, alpha5 diverge); not implemented within 1e-3 of 2",
             gamma);

  struct BlastSedov_private *S;
  BlastCall(BlastCalloc(1, &S));
  S->dim = geometry_dim;
  S->gamma = gamma;
  S->E0 = E0;
  S->rho1 = rho1;
  S->a = (j + 2) * (g + 1) / 4;
  S->b = (g + 1) / (g - 1);
  S->c = (j + 2) * g / 2;
  S->d = (j + 2) * (g + 1) / ((j + 2) * (g + 1) - 2 * (2 + j * (g - 1)));
  S->e = (2 + j * (g - 1)) / 2;
  S->al0 = 2 / (j + 2);
  S->al2 = -(g - 1) / (2 * (g - 1) + j);
  S->al1 = (j + 2) * g / (2 + j * (g - 1)) * (2 * j * (2 - g) / (g * (j + 2) * (j + 2)) - S->al2);
  S->al3 = j / (2 * (g - 1) + j);
  S->al4 = (j + 2) * j * S->al1 / (j * (2 - g));
  S->al5 = -2 * j / (j * (2 - g));
  S->V0 = 2 / ((j + 2) * g);
  S->V2 = V2;
  S->beta = -S->al2;
  S->inv_beta = 1 / S->beta;
  // x_k as functions of y = x2, V = V0 (1 + y/b), all 1 at y = 1: a V0 = (g+1)/(2g) gives
  // x1 = 1 - (g-1)/(2g) (1-y); x3 = 1 + d' e V0/b (1-y); (j+2) V0/2 = 1/g gives x4 = 1 + (1-y)/g.
  S->k1 = -(g - 1) / (2 * g);
  S->k3 = S->d * S->e * S->V0 / S->b;
  S->k4 = 1 / g;
  S->g_s = S->al3 / S->beta;
  S->g_x3 = S->al4;
  S->g_x4 = S->al5;
  S->h_x1 = S->al0 * j;
  S->h_x3 = S->al4 - 2 * S->al1;
  S->h_x4 = 1 + S->al5;
  S->G0 = -S->al0 * log1p(S->k1) - S->al1 * log1p(S->k3);
  if (!(S->d > 0 && S->k3 > 0)) {
    double dprime = S->d;
    BlastFree(&S);
    BlastError(BLAST_ERR_INTERNAL, "Sedov standard-branch invariants violated (d' = %g)", dprime);
  }

  int ierr = SedovEnergyIntegral(S, 0, &S->I1);
  if (!ierr) ierr = SedovEnergyIntegral(S, 1, &S->I2);
  if (ierr) {
    BlastFree(&S);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  const double sigma = geometry_dim == 1 ? 2.0 : geometry_dim == 2 ? 2 * M_PI : 4 * M_PI;
  S->I1 *= sigma;
  S->I2 *= sigma;
  S->alpha = S->I1 + S->I2;
  if (!(isfinite(S->alpha) && S->alpha > 0)) {
    double alpha = S->alpha;
    BlastFree(&S);
    BlastError(BLAST_ERR_NUMERIC, "Sedov energy integral alpha = %g", alpha);
  }
  S->shock_coef = pow(E0 / (S->alpha * rho1), 1 / (j + 2));
  *s = S;
  return 0;
}

int BlastSedovDestroy(BlastSedov *s) {
  if (s) BlastFree(s);
  return 0;
}

double BlastSedovAlpha(BlastSedov s) {
  return s ? s->alpha : NAN;
}

double BlastSedovShockRadius(BlastSedov s, double t) {
  if (!s) return NAN;
  if (!(t > 0)) return 0.0;
  return s->shock_coef * pow(t, 2.0 / (s->dim + 2));
}

// Solve ln lambda(s) = ls + G(y(ls)) = L for ls = ln s <= 0 (L = ln(r/r2) < 0). F(ls) =
// ls + G - L is increasing with slope 1 + G'(y) y/beta > 0, -> 1 at the center, so Newton
// in ls converges in a few steps; a bracket keeps it safe.
static int SedovSolveLogS(const struct BlastSedov_private *S, double L, double *ls_out,
                          SedovPoint *q) {
  double lo = L - fabs(S->G0) - 1, hi = 0.0;
  SedovPointEval(S, lo, q);
  for (int k = 0; k < 60 && lo + q->G - L >= 0; k++) {
    lo -= 1 + fabs(lo);
    SedovPointEval(S, lo, q);
  }
  BlastCheck(lo + q->G - L < 0, BLAST_ERR_INTERNAL, "Sedov root not bracketed (L = %g)", L);
  // Start from one fixed-point step of ls = L - G(ls).
  SedovPointEval(S, fmin(L, 0.0), q);
  double ls = fmin(fmax(L - q->G, lo), hi);
  for (int it = 0; it < 200; it++) {
    SedovPointEval(S, ls, q);
    double F = ls + q->G - L, dF = 1 + q->dG * q->y * S->inv_beta;
    if (F == 0) break;
    if (F < 0)
      lo = ls;
    else
      hi = ls;
    double next = ls - F / dF;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (fabs(next - ls) <= 2 * DBL_EPSILON * fmax(1.0, fabs(ls)) || next == lo || next == hi) {
      ls = next;
      SedovPointEval(S, ls, q);
      *ls_out = ls;
      return 0;
    }
    ls = next;
  }
  SedovPointEval(S, ls, q);  // the bisection fallback has shrunk the bracket to round-off
  *ls_out = ls;
  return 0;
}

int BlastSedovEval(BlastSedov s, double t, double r, double *rho, double *u, double *p) {
  BlastCheck(s, BLAST_ERR_ARG, "NULL Sedov object");
  BlastCheck(isfinite(t) && t > 0, BLAST_ERR_ARG, "Sedov evaluation at t = %g (must be > 0)", t);
  BlastCheck(isfinite(r) && r >= 0, BLAST_ERR_ARG, "Sedov evaluation at r = %g (must be >= 0)", r);
  const struct BlastSedov_private *S = s;
  const double r2 = BlastSedovShockRadius(s, t);
  if (r >= r2) {
    if (rho) *rho = S->rho1;
    if (u) *u = 0.0;
    if (p) *p = 0.0;
    return 0;
  }
  const double us = 2.0 / (S->dim + 2) * r2 / t;  // shock speed dr2/dt
  const double u2 = 2 * us / (S->gamma + 1), p2 = 2 * S->rho1 * us * us / (S->gamma + 1);
  double ls = 0.0, lambda;
  SedovPoint q;
  if (r / r2 < DBL_MIN) {  // the center (and sub-normal radii): y = lambda = 0
    ls = -INFINITY;
    lambda = 0.0;
    SedovPointEval(S, ls, &q);
  } else {
    BlastCall(SedovSolveLogS(S, log(r / r2), &ls, &q));
    lambda = exp(ls + q.G);
  }
  if (rho) *rho = S->b * S->rho1 * SedovG(S, ls, &q);
  if (u) *u = u2 * q.x1 * lambda;  // f = x1 lambda
  if (p) *p = p2 * SedovH(S, &q);
  return 0;
}
