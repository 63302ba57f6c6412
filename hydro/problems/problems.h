/// @file problems.h
/// @brief Initial conditions and flags of the test problems (method spec section 11).
#ifndef BLAST_PROBLEMS_H
#define BLAST_PROBLEMS_H

#include <stddef.h>

#include "config.h"
#include "eos.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A problem defined by the deck (`[problem] name = custom`): its materials and regions
/// with their compiled expressions (custom.c).
typedef struct BlastProblemCustom BlastProblemCustom;

typedef struct {
  int id;   ///< BlastProblemId or BLAST_PROBLEM_CUSTOM
  int dim;  ///< space dimension
  int visc, vort, tg_source;
  int gravity;                 ///< a body force: M_V g is added to the momentum equation
  double g[3];                 ///< the body force per unit mass (Rayleigh-Taylor: (0, -1))
  BlastProblemCustom *custom;  ///< name = custom (NULL for the built-in problems)
} BlastProblem;

/// Set up problem `id` in dimension `dim`; `viscosity` (BlastViscosity) may force the
/// artificial viscosity on or off. Errors (BLAST_ERR_INPUT) for combinations the spec
/// does not define (e.g. Taylor-Green in 1D). Built-in problems only.
int BlastProblemSetup(int id, int dim, int viscosity, BlastProblem *p);
/// Set up the problem of a configuration in dimension `dim`: a built-in problem as
/// BlastProblemSetup, or a custom one from cfg's materials, regions and [problem] gravity
/// (expressions compiled, names resolved, counts checked against dim: BLAST_ERR_INPUT
/// naming the deck line). [solver] viscosity and vorticity apply to both. Free with
/// BlastProblemDestroy.
int BlastProblemCreate(const BlastConfig *cfg, int dim, BlastProblem *p);
/// Free what BlastProblemCreate allocated (custom problems); safe on a zeroed problem.
void BlastProblemDestroy(BlastProblem *p);
/// Name of a problem id as used in decks.
const char *BlastProblemName(int id);

/// The materials of the problem (at most BLAST_PROBLEM_MAX_MATERIALS) into mats; returns
/// how many.
enum { BLAST_PROBLEM_MAX_MATERIALS = BLAST_MAX_MATERIALS };
int BlastProblemMaterials(const BlastProblem *p, BlastMaterial *mats);
/// The name of material i (an index into BlastProblemMaterials), as the banner,
/// summary.json, the checkpoints and the dumps show it: "gas" for the one-material
/// problems; the triple point's "left" (x <= 1), "top" (right, y > 1.5, the light one) and
/// "bottom" (right, y <= 1.5); a custom problem's [material.NAME]. "unknown" for an index out
/// of range.
const char *BlastProblemMaterialName(const BlastProblem *p, int i);
/// The material at point x (an index into BlastProblemMaterials): a zone's is the one at
/// its reference centre. Custom problems: that of the region at x (see BlastProblemRegionAt).
int BlastProblemMaterialAt(const BlastProblem *p, const double *x);
/// gamma of the material at x (the problems' initial data are written with it).
double BlastProblemGamma(const BlastProblem *p, const double *x);
double BlastProblemRho0(const BlastProblem *p, const double *x);
/// Specific internal energy e0 (Sedov: 0, the blast is deposited separately).
double BlastProblemE0(const BlastProblem *p, const double *x);
void BlastProblemV0(const BlastProblem *p, const double *x, double *v);

// ---- custom problems (custom.c) ----
/// The number of regions (0 for the built-in problems).
int BlastProblemNumRegions(const BlastProblem *p);
/// The region of a zone with attribute `attr` whose reference centroid is x: the last
/// region whose selector holds it; -1 if none does. A node's region (its velocity): the
/// last region whose selector holds the node, where an attribute selector holds the nodes
/// of the zones it holds (attrs: the attributes of the node's zones, nattr of them).
int BlastProblemRegionAt(const BlastProblem *p, int attr, const double *x);
int BlastProblemNodeRegion(const BlastProblem *p, int nattr, const int *attrs, const double *x);
/// Whether region r's selector holds a zone of attribute attr with centroid x (whatever
/// the later regions select).
int BlastProblemRegionSelects(const BlastProblem *p, int r, int attr, const double *x);
/// Where region r's select key is ("deck.ini:14"), and its velocity component c's.
const char *BlastProblemRegionSelectWhere(const BlastProblem *p, int r);
const char *BlastProblemRegionVelocityWhere(const BlastProblem *p, int r, int c, char *buf,
                                            size_t n);
/// The material (index) and the name of region r.
int BlastProblemRegionMaterial(const BlastProblem *p, int r);
const char *BlastProblemRegionName(const BlastProblem *p, int r);
/// The region's initial density and specific internal energy at n points x[i*dim..] (e from
/// the pressure through the region's material where the deck gives a pressure; rho is the
/// density at the same points). e may be NULL. Threads over the points.
int BlastProblemRegionRhoE(const BlastProblem *p, int r, size_t n, const double *x, double *rho,
                           double *e);
/// The region's initial velocity (dim components, component c at v[c*n + i]) at n points.
int BlastProblemRegionV(const BlastProblem *p, int r, size_t n, const double *x, double *v);
/// The region's initial density at one point (any thread; serialised: for a few points).
double BlastProblemRegionRho0(const BlastProblem *p, int r, const double *x);
/// The materials and material names of a custom problem (BlastProblemMaterials,
/// BlastProblemMaterialName use them).
int BlastProblemCustomMaterials(const BlastProblem *p, BlastMaterial *mats);
const char *BlastProblemCustomMaterialName(const BlastProblem *p, int i);
/// The key that gives region r's density / specific energy, for messages:
/// "deck.ini:12: [region.pool] density".
const char *BlastProblemRegionKey(const BlastProblem *p, int r, int energy, char *buf, size_t n);

/// 2D Taylor-Green energy source Q(x, y) (method spec 7.2).
double BlastTaylorGreenSource(const double *x);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_PROBLEMS_H
