// Test problems of the method spec, section 11.1 (literal transcription of its table).
#include "problems.h"

#include <limits.h>
#include <math.h>

#include "blast.h"
#include "qpoint.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

const char *BlastProblemName(int id) {
  static const char *names[] = {"taylor_green", "sedov",     "sod",      "triple_point",
                                "gresho",       "riemann12", "riemann6", "rayleigh_taylor"};
  if (id == BLAST_PROBLEM_CUSTOM) return "custom";
  return (id >= 0 && id < 8) ? names[id] : "unknown";
}

int BlastProblemSetup(int id, int dim, int viscosity, BlastProblem *p) {
  BlastCheck(id >= 0 && id <= 7, BLAST_ERR_INPUT, "unknown problem id %d", id);
  BlastCheck(dim >= 1 && dim <= 3, BLAST_ERR_INPUT, "dimension %d", dim);
  const int needs_2d = id == BLAST_PROBLEM_TAYLOR_GREEN || id == BLAST_PROBLEM_TRIPLE_POINT ||
                       id == BLAST_PROBLEM_GRESHO || id >= BLAST_PROBLEM_RIEMANN12;
  BlastCheck(!needs_2d || dim >= 2, BLAST_ERR_INPUT,
             "problem '%s' is not defined on a 1D mesh (use a 2D or 3D mesh)",
             BlastProblemName(id));
  *p = (BlastProblem){0};
  p->id = id, p->dim = dim;
  p->visc = !(id == BLAST_PROBLEM_TAYLOR_GREEN || id == BLAST_PROBLEM_GRESHO);
  if (viscosity == BLAST_VISC_ON) p->visc = 1;
  if (viscosity == BLAST_VISC_OFF) p->visc = 0;
  p->vort = id == BLAST_PROBLEM_RAYLEIGH_TAYLOR;
  p->tg_source = id == BLAST_PROBLEM_TAYLOR_GREEN && dim == 2;
  p->gravity = id == BLAST_PROBLEM_RAYLEIGH_TAYLOR;
  if (p->gravity) p->g[1] = -1.0;
  return 0;
}

// The triple point's three materials: the left state, the light top right and the heavy
// bottom right (the two on the right differ in density and gamma, method spec 11.1).
enum { kTripleLeft = 0, kTripleTop = 1, kTripleBottom = 2 };

int BlastProblemMaterials(const BlastProblem *p, BlastMaterial *mats) {
  if (p->custom) return BlastProblemCustomMaterials(p, mats);
  switch (p->id) {
    case BLAST_PROBLEM_TAYLOR_GREEN:
    case BLAST_PROBLEM_GRESHO:
    case BLAST_PROBLEM_RAYLEIGH_TAYLOR:
      mats[0] = BlastMaterialIdealGas(5.0 / 3.0);
      return 1;
    case BLAST_PROBLEM_TRIPLE_POINT:
      mats[kTripleLeft] = BlastMaterialIdealGas(1.5);
      mats[kTripleTop] = BlastMaterialIdealGas(1.5);
      mats[kTripleBottom] = BlastMaterialIdealGas(1.4);
      return 3;
    default:
      mats[0] = BlastMaterialIdealGas(1.4);
      return 1;
  }
}

const char *BlastProblemMaterialName(const BlastProblem *p, int i) {
  if (p->custom) return BlastProblemCustomMaterialName(p, i);
  if (p->id == BLAST_PROBLEM_TRIPLE_POINT) {
    static const char *triple[] = {"left", "top", "bottom"};
    return i >= 0 && i < 3 ? triple[i] : "unknown";
  }
  return i == 0 ? "gas" : "unknown";
}

int BlastProblemMaterialAt(const BlastProblem *p, const double *x) {
  if (p->custom) {  // attribute selectors hold no bare point
    const int r = BlastProblemRegionAt(p, INT_MIN, x);
    return r >= 0 ? BlastProblemRegionMaterial(p, r) : 0;
  }
  if (p->id != BLAST_PROBLEM_TRIPLE_POINT) return 0;
  if (!(x[0] > 1.0)) return kTripleLeft;
  return x[1] <= 1.5 ? kTripleBottom : kTripleTop;
}

double BlastProblemGamma(const BlastProblem *p, const double *x) {
  BlastMaterial mats[BLAST_PROBLEM_MAX_MATERIALS];
  BlastProblemMaterials(p, mats);
  return mats[BlastProblemMaterialAt(p, x)].gamma;
}

double BlastProblemRho0(const BlastProblem *p, const double *x) {
  if (p->custom) return BlastProblemRegionRho0(p, BlastProblemRegionAt(p, INT_MIN, x), x);
  switch (p->id) {
    case BLAST_PROBLEM_SOD:
      return x[0] < 0.5 ? 1.0 : 0.1;
    case BLAST_PROBLEM_TRIPLE_POINT:
      if (p->dim == 2) return (x[0] > 1.0 && x[1] > 1.5) ? 0.125 : 1.0;
      return (x[0] > 1.0 && ((x[1] < 1.5 && x[2] < 1.5) || (x[1] > 1.5 && x[2] > 1.5))) ? 0.125
                                                                                        : 1.0;
    case BLAST_PROBLEM_RIEMANN12:
      if (x[0] >= 0.5 && x[1] >= 0.5) return 0.5313;
      if (x[0] < 0.5 && x[1] < 0.5) return 0.8;
      return 1.0;
    case BLAST_PROBLEM_RIEMANN6:
      if (x[0] < 0.5 && x[1] >= 0.5) return 2.0;
      if (x[0] >= 0.5 && x[1] < 0.5) return 3.0;
      return 1.0;
    case BLAST_PROBLEM_RAYLEIGH_TAYLOR:
      return x[1] >= 0.0 ? 2.0 : 1.0;
    default:
      return 1.0;
  }
}

double BlastProblemE0(const BlastProblem *p, const double *x) {
  if (p->custom) return NAN;  // the zone's region decides (hydro_custom.c)
  const double gamma = BlastProblemGamma(p, x), rho = BlastProblemRho0(p, x);
  switch (p->id) {
    case BLAST_PROBLEM_TAYLOR_GREEN:
      if (p->dim == 2) return 1.5 * (1.0 + 0.25 * (cos(2 * M_PI * x[0]) + cos(2 * M_PI * x[1])));
      return 1.5 *
             (100.0 +
              ((cos(2 * M_PI * x[2]) + 2.0) * (cos(2 * M_PI * x[0]) + cos(2 * M_PI * x[1])) - 2.0) /
                  16.0);
    case BLAST_PROBLEM_SEDOV:
      return 0.0;
    case BLAST_PROBLEM_SOD:
      return (x[0] < 0.5 ? 1.0 : 0.1) / (rho * (gamma - 1.0));
    case BLAST_PROBLEM_TRIPLE_POINT:
      return (x[0] > 1.0 ? 0.1 : 1.0) / (rho * (gamma - 1.0));
    case BLAST_PROBLEM_GRESHO: {
      const double r = sqrt(x[0] * x[0] + x[1] * x[1]);
      if (r < 0.2) return (5.0 + 25.0 / 2.0 * r * r) / (gamma - 1.0);
      if (r < 0.4)
        return (9.0 - 4.0 * log(0.2) + 25.0 / 2.0 * r * r - 20.0 * r + 4.0 * log(r)) /
               (gamma - 1.0);
      return (3.0 + 4.0 * log(2.0)) / (gamma - 1.0);
    }
    case BLAST_PROBLEM_RIEMANN12: {
      const double pr = (x[0] >= 0.5 && x[1] >= 0.5) ? 0.4 : 1.0;
      return pr / (rho * (gamma - 1.0));
    }
    case BLAST_PROBLEM_RIEMANN6:
      return 1.0 / (rho * (gamma - 1.0));
    case BLAST_PROBLEM_RAYLEIGH_TAYLOR:
      return (6.0 - rho * x[1]) / ((gamma - 1.0) * rho);
    default:
      return 0.0;
  }
}

void BlastProblemV0(const BlastProblem *p, const double *x, double *v) {
  for (int c = 0; c < p->dim; c++) v[c] = p->custom ? NAN : 0.0;
  switch (p->id) {
    case BLAST_PROBLEM_TAYLOR_GREEN: {
      const double f = p->dim == 3 ? cos(M_PI * x[2]) : 1.0;
      v[0] = sin(M_PI * x[0]) * cos(M_PI * x[1]) * f;
      v[1] = -cos(M_PI * x[0]) * sin(M_PI * x[1]) * f;
      break;
    }
    case BLAST_PROBLEM_GRESHO: {
      const double r = sqrt(x[0] * x[0] + x[1] * x[1]);
      if (r < 0.2) {
        v[0] = 5.0 * x[1], v[1] = -5.0 * x[0];
      } else if (r < 0.4) {
        v[0] = 2.0 * x[1] / r - 5.0 * x[1];
        v[1] = -2.0 * x[0] / r + 5.0 * x[0];
      }
      break;
    }
    case BLAST_PROBLEM_RIEMANN12:
    case BLAST_PROBLEM_RIEMANN6: {
      const double a = pow(x[0] * (1.0 - x[0]) * 4.0 * x[1] * (1.0 - x[1]) * 4.0, 0.4);
      const int right = x[0] >= 0.5, top = x[1] >= 0.5;
      if (p->id == BLAST_PROBLEM_RIEMANN12) {
        if (!right && top) v[0] = 0.7276 * a;
        if (right && !top) v[1] = 0.7276 * a;
      } else {
        if (right && top) v[0] = 0.75 * a, v[1] = -0.5 * a;
        if (!right && top) v[0] = 0.75 * a, v[1] = 0.5 * a;
        if (!right && !top) v[0] = -0.75 * a, v[1] = 0.5 * a;
        if (right && !top) v[0] = -0.75 * a, v[1] = -0.5 * a;
      }
      break;
    }
    case BLAST_PROBLEM_RAYLEIGH_TAYLOR:
      v[1] = 0.02 * exp(-2.0 * M_PI * x[1] * x[1]) * cos(2.0 * M_PI * x[0]);
      break;
    default:
      break;
  }
}

double BlastTaylorGreenSource(const double *x) {
  return BlastTaylorGreenQ(x);
}
