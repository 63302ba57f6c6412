// The equations of state (hydro/eos.h) against hand-computed values: water as a stiffened
// gas (gamma 4.4, p_inf 6e8) at rho = 1000, p = 1e9: e = (p + gamma p_inf) / (rho (gamma - 1))
// = 3.64e9 / 3400, c = sqrt(gamma (p + p_inf) / rho) = sqrt(7.04e6); air as an ideal gas
// (gamma 1.4) at rho = 50, p = 1e5: e = 5000, c = sqrt(2800). Under tension beyond the law
// (e < p_inf / rho) the sound speed is 0, a NaN stays NaN. The ideal gas keeps the
// operations (gamma - 1) rho e and sqrt(gamma (gamma - 1) e) bit for bit, and the CPU's
// lanes (BlastQVEos) give the scalar function's bits for either kind.
#include <math.h>
#include <string.h>

#include "qpoint_lanes.h"
#include "testlib.h"

static int Same(double a, double b) {
  return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b);
}

int main(void) {
  const BlastMaterial water = BlastMaterialStiffenedGas(4.4, 6.0e8);
  const BlastMaterial air = BlastMaterialIdealGas(1.4);
  TEST_ASSERT(!strcmp(BlastEosKindName(water.kind), "stiffened_gas") &&
                  !strcmp(BlastEosKindName(air.kind), "ideal_gas"),
              "kind names %s %s", BlastEosKindName(water.kind), BlastEosKindName(air.kind));
  // Water: e from p, then p and c from e.
  const double ew = BlastEosSpecificEnergy(&water, 1000.0, 1.0e9);
  TEST_ASSERT(fabs(ew - 1070588.2352941176470588) <= 1e-15 * 1070588.24, "water e %.17g", ew);
  double p, c;
  BlastEos(&water, 1000.0, ew, &p, &c);
  TEST_ASSERT(fabs(p - 1.0e9) <= 1e-14 * 3.64e9, "water p %.17g, want 1e9", p);
  TEST_ASSERT(fabs(c - 2653.2998322843198793) <= 1e-13 * 2653.3, "water c %.17g", c);
  // Air.
  const double ea = BlastEosSpecificEnergy(&air, 50.0, 1.0e5);
  TEST_ASSERT(fabs(ea - 5000.0) <= 1e-15 * 5000.0, "air e %.17g, want 5000", ea);
  BlastEos(&air, 50.0, ea, &p, &c);
  TEST_ASSERT(fabs(p - 1.0e5) <= 1e-15 * 1.0e5, "air p %.17g, want 1e5", p);
  TEST_ASSERT(fabs(c - 52.915026221291811810) <= 1e-15 * 52.92, "air c %.17g", c);
  // The ideal gas's own operations, bit for bit.
  for (double e = 0.0; e < 10.0; e += 0.37) {
    BlastEos(&air, 0.3 + e, e, &p, &c);
    TEST_ASSERT(Same(p, (1.4 - 1.0) * (0.3 + e) * e) && Same(c, sqrt(1.4 * (1.4 - 1.0) * e)),
                "ideal gas at e = %g: p %.17g c %.17g", e, p, c);
  }
  // Water under tension beyond the law: p = 3400 * 100 - 2.64e9, c^2 < 0 -> c = 0.
  BlastEos(&water, 1000.0, 100.0, &p, &c);
  TEST_ASSERT(p == 3.4 * 1000.0 * 100.0 - 4.4 * 6.0e8 && c == 0.0, "water in tension: p %.17g c %g",
              p, c);
  BlastEos(&water, NAN, 100.0, &p, &c);
  TEST_ASSERT(isnan(p) && isnan(c), "water at rho NaN: p %g c %g", p, c);
  // The lanes: each lane the scalar function's bits, lanes of both signs of c^2 mixed.
  const double rho[8] = {1000.0, 1000.0, 998.5, 1.0e-3, 2.0, 1.0e3, NAN, 1.0e300};
  const double e[8] = {
      1070588.2352941176, 100.0, 176470.58823529413, 7.0e11, 0.0, 1.0e-300, 1.0, 1.0e10};
  const BlastMaterial *mats[2] = {&water, &air};
  for (int m = 0; m < 2; m++)
    for (int off = 0; off + BLAST_QV_W <= 8; off += BLAST_QV_W) {
      const BlastQV vr = BlastQVLoad(rho + off, BLAST_QV_W), ve = BlastQVLoad(e + off, BLAST_QV_W);
      BlastQV vp, vc;
      BlastQVEos(mats[m], vr, ve, &vp, &vc);
      for (int l = 0; l < BLAST_QV_W; l++) {
        BlastEos(mats[m], rho[off + l], e[off + l], &p, &c);
        TEST_ASSERT(Same(vp[l], p) && Same(vc[l], c),
                    "%s lane %d (rho %g, e %g): p %.17g/%.17g c %.17g/%.17g",
                    BlastEosKindName(mats[m]->kind), off + l, rho[off + l], e[off + l], vp[l], p,
                    vc[l], c);
      }
    }
  return BlastTestFinish("test_eos");
}
