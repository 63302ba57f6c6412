/// @file diagnostics.h
/// @brief Errors against exact solutions at the end of a run (method spec 13.3-13.5).
#ifndef BLAST_DIAGNOSTICS_H
#define BLAST_DIAGNOSTICS_H

#include "hydro.h"

/// Sedov (problem 1): L2 norm of rho_h - rho_exact on the current mesh (13.5), else NAN.
/// Taylor-Green and Gresho (problems 0, 4): Linf, L1, L2 norms of v_h - v_0 (13.3), else
/// NAN. With an [exact] velocity (custom problems): the same norms of v_h - v_exact(x, t)
/// at the run's time, as Taylor-Green's are computed. Collective. Errors if the Sedov
/// shock has left the domain.
int BlastDiagnosticsExactErrors(BlastHydro h, double *sedov_rho_l2, double *v_linf,
                                double *v_l1, double *v_l2);
/// [exact] density and pressure (NAN where not given): the L2 norms of rho_h - rho_exact
/// (rho_h by local L2 projection on the current mesh, as Sedov's, 13.4) and of
/// p(rho_h, e_h) - p_exact (the zone's equation of state), at the run's time, by a
/// quadrature of order 2 max(k, m) + 3. Collective.
int BlastDiagnosticsExactFieldErrors(BlastHydro h, double *rho_l2, double *p_l2);

#endif  // BLAST_DIAGNOSTICS_H
