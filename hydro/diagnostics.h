/// @file diagnostics.h
/// @brief Errors against exact solutions at the end of a run (method spec 13.3-13.5).
#ifndef BLAST_DIAGNOSTICS_H
#define BLAST_DIAGNOSTICS_H

#include "hydro.h"

/// Sedov (problem 1): L2 norm of rho_h - rho_exact on the current mesh (13.5), else NAN.
/// Taylor-Green and Gresho (problems 0, 4): Linf, L1, L2 norms of v_h - v_0 (13.3), else
/// NAN. Collective. Errors if the Sedov shock has left the domain.
int BlastDiagnosticsExactErrors(BlastHydro h, double *sedov_rho_l2, double *v_linf,
                                double *v_l1, double *v_l2);

#endif  // BLAST_DIAGNOSTICS_H
