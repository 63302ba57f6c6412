// The setup of the Lagrangian operator (hydro_setup.c, method spec 3.3, 3.4, 5.1, 5.5, 6,
// 11): a sequence of named phases; what they share. Internal to hydro/.
#ifndef BLAST_HYDRO_SETUP_H
#define BLAST_HYDRO_SETUP_H

#include <stdint.h>

#include "halo_nccl.h"
#include "halo_peer.h"
#include "hydro-impl.h"

// ---------------------------------------------------------------------------------------
// Errors during the setup (hydro_setup.c). The setup alternates local work with collective
// calls; an error that one rank meets alone must not let it leave while the others enter
// the next collective (they would pair its agreement with their own call: MPI_ERR_TRUNCATE
// or a hang). So every local phase ends in BlastSetupAgree, and every rank then returns
// the same error with the same message, which main prints once.

#define kNoZone INT64_MAX  // the key of an error that names no zone

/// Agree on the outcome of a local phase: if any rank failed, the error of the rank with
/// the lowest key (the global id of the zone it names, kNoZone for other errors; among
/// equal keys the lowest rank) becomes every rank's error, with the same message, marked
/// BLAST_COLLECTIVE_SAME. A zone error thus names the lowest bad zone on any rank count.
/// Collective over h->comm; ranks that did not fail pass ierr = 0.
int BlastSetupAgree(BlastHydro h, int ierr, int64_t key);
/// Global sum of per-zone values that does not depend on the partition (collective).
int BlastSetupOrderedZoneSum(BlastHydro h, const double *zone_value, double *sum);

// ---------------------------------------------------------------------------------------
// Initial geometry and data (hydro_init.c)

/// Where the mesh came from, for messages: "mesh file 'path'" or "the generated box mesh".
const char *BlastSetupMeshOrigin(BlastHydro h, char *buf, size_t n);
/// "zone 37 (global id; element 2 of the mesh file, first corner at (0, 0.5, 0))".
const char *BlastSetupZoneName(BlastHydro h, int z, char *buf, size_t n);
/// The geometry of the mesh's zones (*geom): one geometry per mesh (mixed meshes are an
/// input error for now), and simplices run the full-assembly path only ([fem] assembly =
/// partial on them is an input error). The same on every rank.
int BlastSetupZoneGeometry(BlastHydro h, BlastMesh mesh, int *geom);
/// Volume of the reference element: 1 (tensor), 1/2 (triangle), 1/6 (tetrahedron).
double BlastSetupRefVolume(int geom);
/// Physical point of reference point xi (fine-zone coordinates) of zone z, initial mesh.
void BlastSetupZonePoint(const BlastSpace *s, int z, const double *xi, double *x);
/// J0^{-1} (this rank's zones) and w |J0| (all zones) from the H1 positions x; a bad zone
/// is an input error naming it, *bad_gid its global id (the key for BlastSetupAgree).
int BlastSetupInitialGeometry(BlastHydro h, const double *x, double *wdetJ0, int64_t *bad_gid);
/// Initial positions of all ext dofs, the same bits on every rank (collective: halos).
int BlastSetupCanonicalPositions(BlastHydro h, double *x);
typedef double (*BlastPointFunction)(const BlastProblem *p, const double *x);
/// The l2_nd reference points at which the initial L2 data are interpolated, xi[l*dim + g]:
/// tensor zones the Gauss-Legendre points of m+1 points per direction (x fastest);
/// simplices the interior lattice points (i + 1)/(m + d + 1), i in the lattice of order m
/// (lattice order): every point inside, unisolvent for P_m.
int BlastSetupL2Points(BlastHydro h, double *xi);
/// The same points for the geometry of tables t, ne of them (padding: point 0 again).
int BlastSetupL2PointsOf(const BlastTensorTables *t, int ne, double *xi);
/// Bernstein coefficients of the interpolant of f at those points, coef[z*ne+j].
int BlastSetupInterpolateL2(BlastHydro h, const double *Vinv, BlastPointFunction f, double *coef);
/// Inverse of the Bernstein collocation matrix at those points (mixed meshes: one per slot,
/// 2 l2_nd^2 entries).
int BlastSetupBernsteinCollocationInverse(BlastHydro h, double *Vinv);
/// Mixed meshes (hydro_mixed.c): the element tables of the zones (one set per slot,
/// padded; otherwise those of `geom`), the zones' slots and the backend's concatenated
/// tables; the padded points' rho0 |J0| w set to point 0's (the point kernel divides by
/// it); hd's tables pointed at the concatenation. No-ops on other meshes.
int BlastSetupElementTables(BlastHydro h, int geom, int k, int m, int order_quadrature);
void BlastSetupPaddedPoints(BlastHydro h, double *qp_R0);
void BlastSetupMixedBackendData(BlastHydro h);
/// Sedov: the blast energy deposited at the vertex closest to the origin (collective).
int BlastSetupSedovDeposit(BlastHydro h, const double *wdetJ0, double *e);
/// Forward halo exchange on the host (owners -> ghosts of halo `which`), ncomp components
/// stride apart (collective).
int BlastSetupHostHaloForward(BlastHydro h, int which, int ncomp, size_t stride, double *x);
/// The problem's initial data at this rank's zones must be finite and admissible.
int BlastSetupCheckInitialData(BlastHydro h, const double *xext, const double *rho0h,
                               const double *e0, int64_t *bad_gid);

// ---------------------------------------------------------------------------------------
// Custom problems (hydro_custom.c)

/// The region of every zone (zone_region, ext zones too) and the material of this rank's
/// zones (zone_mat, allocated); a zone in no region, a region selecting no zone anywhere:
/// input errors (collective, agreed).
int BlastSetupCustomRegions(BlastHydro h);
/// The Bernstein coefficients of the regions' density (and, e0 not NULL, specific internal
/// energy) from their values at the interpolation points; the values at those points and
/// at the quadrature points checked (rho > 0, e >= 0, finite: an input error naming the
/// point and the key; *bad_gid its zone). Local.
int BlastSetupCustomInitialData(BlastHydro h, const double *Vinv, double *rho0h, double *e0,
                                int64_t *bad_gid);
/// The regions' density at the quadrature points of every ext zone, rho_qp[z*nqp + q]
/// (allocated). Local.
int BlastSetupCustomQpDensity(BlastHydro h, double **rho_qp);
/// The nodes' velocities v0[c*nl + l] (node region: see BlastProblemNodeRegion; none: at
/// rest); a non-finite value is an input error (collective, agreed).
int BlastSetupCustomVelocity(BlastHydro h, const double *xext, double *v0);

// ---------------------------------------------------------------------------------------
// Mass matrices and communication patterns (hydro_mass.c)

/// Sparsity of the scalar H1 mass matrix (mv_rowptr, mv_col, mv_rows; local).
int BlastSetupMassVPattern(BlastHydro h);
/// Values of its rows (mv_val, mv_dinv) from qp_c = w |J0| rho0 (local).
int BlastSetupMassVValues(BlastHydro h, const double *qp_c, int64_t *bad_gid);
/// M_V applied to the constant g[c] on the owned rows, gravity[c*nown + l], for the
/// components with g[c] != 0 (the assembled matrix; local).
void BlastSetupMassVGravity(BlastHydro h, const double *g, double *gravity);
/// mv_dinv must be finite and positive: else an input error naming a zone of the first
/// bad row (`what`: "matrix" or "operator"; local).
int BlastSetupCheckMassDiagonal(BlastHydro h, const char *what, int64_t *bad_gid);
/// Zone blocks of M_E and their inverses (me_inv; local).
int BlastSetupMassEInverse(BlastHydro h, const double *qp_c, int64_t *bad_gid);
/// Partial assembly (hydro_mass_pa.c): the zone order of the mass action (pa_zones,
/// pa_nzint) and the interior/boundary rows (mv_rows, mv_ninterior; local).
int BlastSetupMassVPartialPattern(BlastHydro h);
/// The reciprocal diagonal mv_dinv of the matrix-free mass operator and, if gravity is
/// not NULL, M_V applied to the constant g[c] on the owned rows, component c at
/// gravity[c*nown] (the components with g[c] = 0 are not written) (local).
int BlastSetupMassVPartialValues(BlastHydro h, const double *qp_c, const double *g, double *gravity,
                                 int64_t *bad_gid);
/// The two halos (L-vector ghosts, mass-matrix ghost columns) and host halo buffers
/// (collective; agrees itself).
int BlastSetupHalos(BlastHydro h);

#endif  // BLAST_HYDRO_SETUP_H
