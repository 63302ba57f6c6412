/// @file probe.h
/// @brief What a run's time history records of the current state: the conserved totals,
/// the mesh quality, and the solution at fixed points of space (probes). Host code on host
/// copies of the state (BlastHydroGetState), so it serves every backend.
#ifndef BLAST_PROBE_H
#define BLAST_PROBE_H

#include "hydro.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Totals and mesh quality of the current state (global).
typedef struct {
  double mass;         ///< sum over the quadrature points of rho |J| w (= rho0 |J0| w)
  double momentum[3];  ///< the integral of rho v (components past dim are 0)
  /// The smallest det J / det J0 over every quadrature point of every zone: the zone's
  /// volume change there, 1 on the initial mesh, <= 0 once a zone tangles.
  double min_jratio;
  /// The largest sigma_max(J) / sigma_min(J) over the quadrature points: the aspect ratio
  /// of the map from the reference square or cube onto the zone (1 for a square or cube
  /// zone, 4 for a 4:1 rectangle; 1 in 1D; inf where J is singular).
  double max_aspect;
} BlastHydroHistory;

/// The totals and the mesh quality of the state with positions x and velocity v (host
/// L-vectors as BlastHydroGetState gives them; x NULL: copied here; v NULL: no momentum).
/// Sums are double-double, so they do not depend on the ranks or threads. Collective.
int BlastHydroHistoryValues(BlastHydro h, const double *x, const double *v, BlastHydroHistory *out);

/// The values a probe records: density, pressure, specific internal energy, velocity.
enum {
  BLAST_PROBE_RHO = 0,
  BLAST_PROBE_P = 1,
  BLAST_PROBE_E = 2,
  BLAST_PROBE_V = 3,
  BLAST_PROBE_NVAL = 6
};

/// The zones that hold the n points (points[3*i ..], components past dim ignored) in the
/// mesh with positions x (host L-vector; the initial mesh: BlastHydroGetInitialPositions),
/// and the solution there when v and e are given (host arrays of BlastHydroGetState): a
/// bounding-box filter, then Newton's method on the zone's map from the reference element.
/// A point on the boundary between zones takes the zone of the smallest global id, so
/// every partition answers alike. found[i] = 0: the point is outside the mesh (its values
/// NaN). values[i * BLAST_PROBE_NVAL + BLAST_PROBE_*] (velocity components past dim 0);
/// may be NULL (v, e unused). Every rank gets every answer. Collective.
int BlastHydroProbe(BlastHydro h, const double *x, const double *v, const double *e, int n,
                    const double *points, int *found, double *values);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_PROBE_H
