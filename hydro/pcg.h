// The momentum PCG and the global dot products (pcg.c), and the halo exchanges of backend
// vectors they use (hydro_operator.c). Internal to hydro/.
#ifndef BLAST_PCG_H
#define BLAST_PCG_H

#include "hydro-impl.h"

/// Global dot product x.y of n owned entries, rounded once from a double-double sum.
int BlastHydroGlobalDot(BlastHydro h, size_t n, const double *x, const double *y, double *r);
/// Global dot products of the active components (bit c of mask), components h1_next apart.
int BlastHydroGlobalDotMulti(BlastHydro h, int ncomp, unsigned mask, const double *x,
                             const double *y, double *r);
/// Ad_c = M_V d_c on the owned rows of the active components (ghost columns of d are
/// exchanged while the interior rows are multiplied); constrained entries zeroed. dot:
/// the global dots (d_c, Ad_c) of the active components, taken before the zeroing (equal
/// to those after it where d_c is zero at the constrained dofs, as in the PCG).
int BlastHydroMassMult(BlastHydro h, int ncomp, unsigned mask, double *d, double *Ad, double *dot);
/// Jacobi-PCG for the velocity components in lockstep: M_V x_c = b_c on the free dofs
/// (b, x: owned entries at c * h1_next; b's constrained entries are zeroed). An
/// unconverged solve is BLAST_ERR_NUMERIC with h->cg_fail set (the same on every rank).
int BlastHydroPcgLockstep(BlastHydro h, int ncomp, double *b, double *x);
/// Jacobi-PCG for all components coupled (one alpha and beta), projected at the nodes with
/// wall normals that are not axis-aligned (hd.proj_*): M_V x = b in the constrained space,
/// x.n = 0 there. Used only when some wall is not axis-aligned (h->coupled_cg).
int BlastHydroPcgProjected(BlastHydro h, int ncomp, double *b, double *x);

/// Forward halo (owners -> ghosts) of `ncomp` components `stride` apart, split so that
/// work can overlap the messages (halo `which`: BLAST_HALO_L or BLAST_HALO_COL).
int BlastHydroHaloForwardBegin(BlastHydro h, int which, int ncomp, size_t stride, const double *x);
int BlastHydroHaloForwardEnd(BlastHydro h, int which, int ncomp, size_t stride, double *x);
/// Reverse halo of double-double pairs: ghosts' partial sums added to their owners'.
int BlastHydroHaloReverseAddDD(BlastHydro h, int which, int ndd, size_t stride, double *x);

#endif  // BLAST_PCG_H
