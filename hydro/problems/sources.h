/// @file sources.h
/// @brief Energy sources of the deck ([source.NAME]): point deposits of energy at t = 0 and
/// power densities (energy per unit volume and time) integrated on the current mesh at
/// every stage.
///
/// Point deposit (kind BLAST_SOURCE_POINT): the point's delta function is given to every
/// zone whose closure holds the point, by its L2 load vector: the Bernstein coefficients
/// of the deposited specific internal energy are the basis functions' values at the
/// point, psi_j(xi_p) (non-negative), in each of those zones. At a mesh vertex this is
/// the corner Bernstein function of the zones around it, the built-in Sedov deposit
/// (method spec 11.4). One factor scales all of them so that the deposited energy,
/// sum over zones and points of rho0 w |J0| e, is exactly `energy` (summed over ranks, in
/// an order that does not depend on the partition). Several sources add up.
///
/// Power (kind BLAST_SOURCE_POWER): P(x, y, z, t) enters the energy equation as the
/// Taylor-Green source does, b_z += int_z P psi_j dV on the current mesh at the stage's
/// time, evaluated on the host: the positions of the stage come to the host (one copy of
/// dim * h1_nl doubles), the zone integrals are multiplied by M_E^{-1} there, and the rate
/// (nz * l2_nd doubles) goes back and is added to de by the backend's vector operations.
#ifndef BLAST_SOURCES_H
#define BLAST_SOURCES_H

#include "hydro.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The power sources of a run (NULL when there are none).
typedef struct BlastSources_private *BlastSources;

/// Reference coordinates xi (fine-zone, [0,1]^dim) of the physical point p in zone z of
/// the initial mesh, if p lies in the zone's closure (to a relative 1e-10 of the zone's
/// size; coordinates within 1e-9 of 0 or 1 snap to it). Returns 1 if found, else 0.
int BlastSourceLocate(const BlastSpace *s, int z, const double *p, double *xi);

/// Add every point source of h's configuration to the Bernstein coefficients e
/// (nz * l2_nd) of the initial specific internal energy. `wdetJ0` is w |J0| at the
/// quadrature points (nz * nqp). Collective: a point that no zone of any rank holds is
/// BLAST_ERR_INPUT naming the source, its point and deck line, the same on every rank.
int BlastSourcesDepositPoints(BlastHydro h, const double *wdetJ0, double *e);

/// Compile the power sources of h's configuration (none: *src = NULL).
int BlastSourcesCreate(BlastHydro h, BlastSources *src);
/// Free them (their backend memory through h, before the backend context goes).
void BlastSourcesDestroy(BlastHydro h, BlastSources *src);
/// The source's energy rate at state S (backend memory; positions first) and time t, kept
/// on the backend for BlastSourcesAddRate.
int BlastSourcesUpdate(BlastSources src, BlastHydro h, const double *S, double t);
/// de += M_E^{-1} int P psi (the rate of the last update).
int BlastSourcesAddRate(BlastSources src, BlastHydro h, double *de);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_SOURCES_H
