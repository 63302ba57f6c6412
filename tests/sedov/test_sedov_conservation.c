// Conservation checks of the exact Sedov profile, independent of how the module computes
// alpha: integrating the profile in physical space (composite Gauss-Legendre in r, full
// symmetric measure 2 dr, 2 pi r dr, 4 pi r^2 dr) must give
//   - total energy  Int (rho u^2/2 + p/(gamma-1)) dV = E0,
//   - mass          Int rho dV = rho1 |ball of radius r2| (the swept-up gas),
// for every geometry and several (gamma, E0, t, rho1).
#include <math.h>

#include "sedovtest.h"

static void Check(int dim, double gamma, double E0, double t, double rho1) {
  BlastSedov s = NULL;
  TEST_CALL(BlastSedovCreate(dim, gamma, E0, rho1, &s));
  if (!s) return;
  double mass = 0, ekin = 0, eint = 0;
  TEST_CALL(SedovProfileIntegrals(s, dim, gamma, t, 100, &mass, &ekin, &eint));
  const double r2 = BlastSedovShockRadius(s, t), volume = SedovMeasure(dim, r2) * r2 / dim;
  TEST_ASSERT(fabs(ekin + eint - E0) <= 1e-12 * E0,
              "d=%d gamma=%g E0=%g t=%g rho1=%g: profile energy %.17g (rel err %.2e)", dim, gamma,
              E0, t, rho1, ekin + eint, (ekin + eint - E0) / E0);
  TEST_ASSERT(fabs(mass - rho1 * volume) <= 1e-12 * rho1 * volume,
              "d=%d gamma=%g E0=%g t=%g rho1=%g: profile mass %.17g, swept-up %.17g", dim, gamma,
              E0, t, rho1, mass, rho1 * volume);
  // r2 from its definition, E0 = alpha rho1 r2^(d+2) / t^2.
  TEST_CLOSE(BlastSedovAlpha(s) * rho1 * pow(r2, dim + 2) / (t * t), E0, 1e-14);
  BlastSedovDestroy(&s);
}

int main(void) {
  const double cases[][3] = {{1.0, 1.0, 1.0}, {2.0, 0.6, 1.0}, {0.25, 3.7, 2.5}, {1e3, 1e-3, 1e-2}};
  for (int dim = 1; dim <= 3; dim++) {
    for (int c = 0; c < 4; c++) Check(dim, 1.4, cases[c][0], cases[c][1], cases[c][2]);
    Check(dim, 5.0 / 3.0, 1.0, 1.0, 1.0);
    Check(dim, 1.2, 3.0, 0.5, 1.0);
    Check(dim, 3.0, 1.0, 2.0, 0.5);
  }
  // Close to the singular case (spherical, gamma -> 7), where the profile has a thin layer
  // behind the shock.
  Check(3, 6.9999, 1.0, 1.0, 1.0);
  return BlastTestFinish("test_sedov_conservation");
}
