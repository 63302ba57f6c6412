// The Sedov solution against published values, gamma = 1.4.
//
// Sources (values transcribed in lanl/ExactPack, exactpack/tests/test_sedov_kamm.py and
// exactpack/tests/test_sedov_doebling.py, which cite them):
// [K00]  J. R. Kamm, "Evaluation of the Sedov-von Neumann-Taylor blast wave solution",
//        LA-UR-00-6055 (2000), Tables 1-3: lambda = r/r2, V, f = u/u2, g = rho/rho2,
//        h = p/p2 for planar, cylindrical, spherical geometry, 4 decimals.
// [KT07] J. R. Kamm, F. X. Timmes, LA-UR-07-2849 (2007): Table 4, the energy integrals J1,
//        J2 and alpha of the uniform-density cases (6 digits), and the standard test energies
//        E0 = 0.0673185 (planar), 0.311357 (cylindrical), 0.851072 (spherical), the last one
//        putting the spherical shock at r2 = 1 at t = 1 for rho1 = 1.
// Conventions: KT07 integrate the planar case over x >= 0 only, so their planar alpha is
// half of ours (ours is for the whole symmetric slab); their J1, J2 are normalized so that
// alpha_KT = 0.5 J1 + J2/(gamma-1) (planar) and (j-1) pi (J1 + 2 J2/(gamma-1)) otherwise,
// i.e. kinetic energy E_kin = c_j J1 rho1 r2^(j+2)/t^2 with c_j = 1, pi, 2 pi in our
// full-blast measure.
//
// J1 (kinetic energy, a regular integrand) is checked to the published 6 digits from the
// profile itself. KT07's J2 and alpha come from a quadrature of an integrand singular at
// the center and are low by 1.6e-5 (spherical) to 4.4e-4 (planar); ExactPack marks 6-digit
// agreement with them as an expected failure for the same reason. They are checked to that
// documented accuracy only; the exact energy balance is test_sedov_conservation.
#include <math.h>

#include "sedovtest.h"

// lambda, V, f, g, h: [K00] Tables 1-3 (Kamm's columns).
static const double kPlanar[][5] = {
    {0.9797, 0.5500, 0.9699, 0.8620, 0.9159}, {0.9420, 0.5400, 0.9157, 0.6662, 0.7917},
    {0.9013, 0.5300, 0.8598, 0.5159, 0.6922}, {0.8565, 0.5200, 0.8017, 0.3981, 0.6119},
    {0.8050, 0.5100, 0.7390, 0.3020, 0.5458}, {0.7419, 0.5000, 0.6677, 0.2201, 0.4905},
    {0.7029, 0.4950, 0.6263, 0.1823, 0.4661}, {0.6553, 0.4900, 0.5780, 0.1453, 0.4437},
    {0.5925, 0.4850, 0.5173, 0.1075, 0.4230}, {0.5396, 0.4820, 0.4682, 0.0826, 0.4112},
    {0.4912, 0.4800, 0.4244, 0.0641, 0.4037}, {0.4589, 0.4790, 0.3957, 0.0535, 0.4001},
    {0.4161, 0.4780, 0.3580, 0.0415, 0.3964}, {0.3480, 0.4770, 0.2988, 0.0263, 0.3929},
    {0.2810, 0.4765, 0.2410, 0.0153, 0.3911}, {0.2320, 0.4763, 0.1989, 0.0095, 0.3905},
    {0.1680, 0.4762, 0.1440, 0.0042, 0.3901}, {0.1040, 0.4762, 0.0891, 0.0013, 0.3900}};
static const double kCylindrical[][5] = {
    {0.9998, 0.4166, 0.9996, 0.9972, 0.9984}, {0.9802, 0.4100, 0.9645, 0.7651, 0.8658},
    {0.9644, 0.4050, 0.9374, 0.6281, 0.7829}, {0.9476, 0.4000, 0.9097, 0.5161, 0.7122},
    {0.9295, 0.3950, 0.8812, 0.4233, 0.6513}, {0.9096, 0.3900, 0.8514, 0.3450, 0.5982},
    {0.8725, 0.3820, 0.7999, 0.2427, 0.5266}, {0.8442, 0.3770, 0.7638, 0.1892, 0.4884},
    {0.8094, 0.3720, 0.7226, 0.1415, 0.4545}, {0.7629, 0.3670, 0.6720, 0.0974, 0.4241},
    {0.7242, 0.3640, 0.6327, 0.0718, 0.4074}, {0.6894, 0.3620, 0.5990, 0.0545, 0.3969},
    {0.6390, 0.3600, 0.5521, 0.0362, 0.3867}, {0.5745, 0.3585, 0.4943, 0.0208, 0.3794},
    {0.5180, 0.3578, 0.4448, 0.0123, 0.3760}, {0.4748, 0.3575, 0.4074, 0.0079, 0.3746},
    {0.4222, 0.3573, 0.3620, 0.0044, 0.3737}, {0.3654, 0.3572, 0.3133, 0.0021, 0.3732},
    {0.3000, 0.3572, 0.2572, 0.0008, 0.3730}, {0.2500, 0.3571, 0.2143, 0.0003, 0.3729},
    {0.2000, 0.3571, 0.1714, 0.0001, 0.3729}, {0.1500, 0.3571, 0.1286, 0.0000, 0.3729},
    {0.1000, 0.3571, 0.0857, 0.0000, 0.3729}};
static const double kSpherical[][5] = {
    {0.9913, 0.3300, 0.9814, 0.8388, 0.9116}, {0.9773, 0.3250, 0.9529, 0.6454, 0.7992},
    {0.9622, 0.3200, 0.9238, 0.4984, 0.7082}, {0.9342, 0.3120, 0.8745, 0.3248, 0.5929},
    {0.9080, 0.3060, 0.8335, 0.2275, 0.5238}, {0.8747, 0.3000, 0.7872, 0.1508, 0.4674},
    {0.8359, 0.2950, 0.7398, 0.0968, 0.4273}, {0.7950, 0.2915, 0.6952, 0.0620, 0.4021},
    {0.7493, 0.2890, 0.6497, 0.0379, 0.3857}, {0.6788, 0.2870, 0.5844, 0.0174, 0.3732},
    {0.5794, 0.2860, 0.4971, 0.0052, 0.3672}, {0.4560, 0.2857, 0.3909, 0.0009, 0.3656},
    {0.3600, 0.2857, 0.3086, 0.0001, 0.3655}, {0.2960, 0.2857, 0.2537, 0.0000, 0.3655},
    {0.2000, 0.2857, 0.1714, 0.0000, 0.3655}, {0.1040, 0.2857, 0.0891, 0.0000, 0.3655}};

// [KT07] Table 4 (per geometry): J1, J2, alpha (planar alpha for one side).
static const double kJ1[3] = {0.197928, 6.54053e-02, 2.96269e-02};
static const double kJ2[3] = {0.175834, 4.95650e-02, 2.11647e-02};
static const double kAlphaKT[3] = {0.538548, 0.984041, 0.851060};
// Half a unit in the last published digit of kJ1.
static const double kJ1HalfUlp[3] = {5e-7, 5e-8, 5e-8};
// Documented accuracy of kJ2/kAlphaKT (see the header comment), relative.
static const double kKTQuadTol[3] = {5e-4, 5e-5, 2e-5};

static void CheckTable(int dim, const double (*T)[5], int n) {
  const double gamma = 1.4, t = 1.0;
  BlastSedov s = NULL;
  TEST_CALL(BlastSedovCreate(dim, gamma, 1.0, 1.0, &s));
  if (!s) return;
  const double r2 = BlastSedovShockRadius(s, t), us = 2.0 / (dim + 2) * r2 / t;
  const double rho2 = 6.0, u2 = 2 * us / (gamma + 1), p2 = 2 * us * us / (gamma + 1);
  for (int i = 0; i < n; i++) {
    double r = T[i][0] * r2, rho, u, p;
    TEST_CALL(BlastSedovEval(s, t, r, &rho, &u, &p));
    const double got[4] = {u * t / r, u / u2, rho / rho2, p / p2};  // V = u t / r
    for (int k = 0; k < 4; k++)
      TEST_ASSERT(fabs(got[k] - T[i][k + 1]) <= 5.1e-5,
                  "d=%d lambda=%.4f column %d: %.6f, table %.4f", dim, T[i][0], k + 1, got[k],
                  T[i][k + 1]);
  }
  BlastSedovDestroy(&s);
}

static void CheckEnergyIntegrals(int dim) {
  const double gamma = 1.4, cj = dim == 1 ? 1.0 : dim == 2 ? M_PI : 2 * M_PI;
  BlastSedov s = NULL;
  TEST_CALL(BlastSedovCreate(dim, gamma, 1.0, 1.0, &s));
  if (!s) return;
  // E0 = alpha puts the shock at r2 = 1 at t = 1 (rho1 = 1): E_kin = cj J1, E_int = 2 cj J2/(g-1).
  const double alpha = BlastSedovAlpha(s);
  BlastSedov unit = NULL;
  TEST_CALL(BlastSedovCreate(dim, gamma, alpha, 1.0, &unit));
  if (unit) {
    TEST_CLOSE(BlastSedovShockRadius(unit, 1.0), 1.0, 1e-15);
    double m = 0, ekin = 0, eint = 0;
    TEST_CALL(SedovProfileIntegrals(unit, dim, gamma, 1.0, 100, &m, &ekin, &eint));
    double J1 = ekin / cj, J2 = eint * (gamma - 1) / (2 * cj);
    TEST_ASSERT(fabs(J1 - kJ1[dim - 1]) <= kJ1HalfUlp[dim - 1] * 1.2,
                "d=%d J1 = %.9g, KT07 Table 4: %.6g", dim, J1, kJ1[dim - 1]);
    TEST_CLOSE(J2, kJ2[dim - 1], kKTQuadTol[dim - 1]);
    BlastSedovDestroy(&unit);
  }
  double alpha_kt = dim == 1 ? alpha / 2 : alpha;
  TEST_CLOSE(alpha_kt, kAlphaKT[dim - 1], kKTQuadTol[dim - 1]);
  BlastSedovDestroy(&s);
}

int main(void) {
  CheckTable(1, kPlanar, (int)(sizeof(kPlanar) / sizeof(kPlanar[0])));
  CheckTable(2, kCylindrical, (int)(sizeof(kCylindrical) / sizeof(kCylindrical[0])));
  CheckTable(3, kSpherical, (int)(sizeof(kSpherical) / sizeof(kSpherical[0])));
  for (int dim = 1; dim <= 3; dim++) CheckEnergyIntegrals(dim);

  // The standard spherical test energy E0 = 0.851072 (6 digits) gives r2 = 1 at t = 1.
  BlastSedov s = NULL;
  TEST_CALL(BlastSedovCreate(3, 1.4, 0.851072, 1.0, &s));
  if (s) {
    TEST_CLOSE(BlastSedovAlpha(s), 0.851072, 6e-7);
    TEST_CLOSE(BlastSedovShockRadius(s, 1.0), 1.0, 1.2e-7);
    BlastSedovDestroy(&s);
  }
  // KT07's cylindrical and planar test energies put the shock at 0.75 and 0.5 (up to their
  // alpha's quadrature error, see above; the planar E0 is for one side: ours is twice it).
  TEST_CALL(BlastSedovCreate(2, 1.4, 0.311357, 1.0, &s));
  if (s) TEST_CLOSE(BlastSedovShockRadius(s, 1.0), 0.75, kKTQuadTol[1] / 4);
  BlastSedovDestroy(&s);
  TEST_CALL(BlastSedovCreate(1, 1.4, 2 * 0.0673185, 1.0, &s));
  if (s) TEST_CLOSE(BlastSedovShockRadius(s, 1.0), 0.5, kKTQuadTol[0] / 3);
  BlastSedovDestroy(&s);
  return BlastTestFinish("test_sedov_published");
}
