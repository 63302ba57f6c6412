/// @file sedov_exact.h
/// @brief Self-similar Sedov-Taylor blast wave (method spec 13.5): point energy E0 released
/// at t = 0 in a cold ideal gas (gamma-law) of uniform density rho1 (omega = 0), in
/// planar (d = 1), cylindrical (d = 2) or spherical (d = 3) symmetry. Kamm-Timmes
/// formulation (J. R. Kamm, F. X. Timmes, "On efficient generation of numerically robust
/// Sedov solutions", LA-UR-07-2849, 2007), standard branch only.
///
/// Conventions:
/// - E0 is the energy of the whole symmetric blast: for d = 1 the slab on both sides of
///   the plane (per unit area), for d = 2 per unit length of the cylinder, for d = 3 the
///   sphere. So E0 = alpha rho1 r2^(d+2) / t^2 with the full measure (2 dr, 2 pi r dr,
///   4 pi r^2 dr). (Kamm-Timmes tabulate the planar alpha for one side, i.e. half ours.)
/// - The ambient gas is cold (p = 0) and at rest; for r >= r2(t) the state is ambient.
///
/// Supported parameters: the standard branch, i.e. every gamma > 1 in planar and
/// cylindrical geometry and 1 < gamma < 7 in spherical geometry (up to a relative distance
/// 1e-9 from the singular point), except |gamma - 2| <= 1e-3 (Kamm-Timmes' "omega3"
/// special case, where their exponents alpha4, alpha5 diverge). The singular (spherical,
/// gamma = 7) and vacuum (spherical, gamma > 7) branches and gamma near 2 give
/// BLAST_ERR_UNSUPPORTED.
///
/// A created object is read-only: BlastSedovEval may be called concurrently from threads.
#ifndef BLAST_SEDOV_EXACT_H
#define BLAST_SEDOV_EXACT_H

#include "blast.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BlastSedov_private *BlastSedov;

/// Set up the Sedov solution: similarity constants and exponents, and the energy integral
/// alpha (adaptive 21-point Gauss-Kronrod quadrature, 20 initial segments, depth <= 64,
/// absolute and relative tolerance 1.49e-15, on a variable in which the integrands are
/// regular at the center; accurate to ~1e-15 relative). Costs ~0.1 ms.
/// @param geometry_dim 1 planar, 2 cylindrical, 3 spherical
/// @param gamma ratio of specific heats (> 1)
/// @param E0 total blast energy (> 0), see the conventions above
/// @param rho1 ambient density (> 0)
/// @param[out] s the new object
/// @return BLAST_ERR_ARG for invalid arguments, BLAST_ERR_UNSUPPORTED for the singular,
/// vacuum and gamma = 2 cases, BLAST_ERR_NUMERIC if the quadrature fails, BLAST_ERR_MEM.
int BlastSedovCreate(int geometry_dim, double gamma, double E0, double rho1, BlastSedov *s);

/// Destroy the object; NULL or *s == NULL is allowed; sets *s = NULL.
int BlastSedovDestroy(BlastSedov *s);

/// The energy integral alpha: E0 = alpha rho1 r2^(d+2) / t^2 (full-blast measure).
/// NaN if s is NULL.
double BlastSedovAlpha(BlastSedov s);

/// Shock radius r2(t) = (E0 / (alpha rho1))^(1/(d+2)) t^(2/(d+2)); 0 for t <= 0, NaN if s is
/// NULL.
double BlastSedovShockRadius(BlastSedov s, double t);

/// Exact state at time t > 0 and radius r >= 0 (distance from the blast point): density,
/// radial velocity and pressure. Any output may be NULL. For r >= r2(t) the ambient state
/// (rho1, 0, 0); inside, the similarity variable is found by a safeguarded Newton iteration
/// (relative accuracy ~1e-15, ~0.3 us per point), finite down to r = 0 (where rho = u = 0
/// and p is finite).
/// @return BLAST_ERR_ARG if s is NULL, t <= 0 or r < 0 (or either is not finite).
int BlastSedovEval(BlastSedov s, double t, double r, double *rho, double *u, double *p);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_SEDOV_EXACT_H
