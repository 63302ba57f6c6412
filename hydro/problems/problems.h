/// @file problems.h
/// @brief Initial conditions and flags of the test problems (method spec section 11).
#ifndef BLAST_PROBLEMS_H
#define BLAST_PROBLEMS_H

#include "config.h"
#include "eos.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int id;   ///< BlastProblemId
  int dim;  ///< space dimension
  int visc, vort, tg_source, gravity;
} BlastProblem;

/// Set up problem `id` in dimension `dim`; `viscosity` (BlastViscosity) may force the
/// artificial viscosity on or off. Errors (BLAST_ERR_INPUT) for combinations the spec
/// does not define (e.g. Taylor-Green in 1D).
int BlastProblemSetup(int id, int dim, int viscosity, BlastProblem *p);
/// Name of a problem id as used in decks.
const char *BlastProblemName(int id);

/// The materials of the problem (at most BLAST_PROBLEM_MAX_MATERIALS) into mats; returns
/// how many.
enum { BLAST_PROBLEM_MAX_MATERIALS = 4 };
int BlastProblemMaterials(const BlastProblem *p, BlastMaterial *mats);
/// The name of material i (an index into BlastProblemMaterials), as the banner,
/// summary.json, the checkpoints and the dumps show it: "gas" for the one-material
/// problems; the triple point's "left" (x <= 1), "top" (right, y > 1.5, the light one) and
/// "bottom" (right, y <= 1.5). "unknown" for an index out of range.
const char *BlastProblemMaterialName(const BlastProblem *p, int i);
/// The material at point x (an index into BlastProblemMaterials): a zone's is the one at
/// its reference centre.
int BlastProblemMaterialAt(const BlastProblem *p, const double *x);
/// gamma of the material at x (the problems' initial data are written with it).
double BlastProblemGamma(const BlastProblem *p, const double *x);
double BlastProblemRho0(const BlastProblem *p, const double *x);
/// Specific internal energy e0 (Sedov: 0, the blast is deposited separately).
double BlastProblemE0(const BlastProblem *p, const double *x);
void BlastProblemV0(const BlastProblem *p, const double *x, double *v);
/// 2D Taylor-Green energy source Q(x, y) (method spec 7.2).
double BlastTaylorGreenSource(const double *x);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_PROBLEMS_H
