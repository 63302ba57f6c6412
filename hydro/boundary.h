/// @file boundary.h
/// @brief Velocity boundary conditions from the deck's [boundary.NAME] sections
/// (docs/boundaries.md): which velocity dofs are fixed per component, which nodes carry
/// wall normals (v.n = 0 at any orientation), and which follow a prescribed velocity.
///
/// Without [boundary.*] sections the built-in convention holds: boundary attribute c+1 is
/// a wall normal to axis c, every other attribute is free (BlastSpaceEssentialDofs).
#ifndef BLAST_BOUNDARY_H
#define BLAST_BOUNDARY_H

#include "config.h"
#include "host_device.h"
#include "space.h"

#ifdef __cplusplus
extern "C" {
#endif

struct BlastExpr_private;  // base/expr.h's BlastExpr

/// Two wall normals at a node that differ by more than this angle (degrees) are separate
/// walls, each constrained; closer ones belong to one smooth wall (their average).
#define BLAST_WALL_SHARP_ANGLE_DEG 30.0

/// The velocity constraints of a rank's H1 dofs (ext numbering until BlastBoundaryKeepOwned).
typedef struct {
  int dim;
  /// Component constraints v_c = prescribed (0 for walls): offsets [dim+1], ascending
  /// indices per component (the layout of BlastSpaceEssentialDofs).
  int *ess_off, *ess_idx;
  /// Nodes with wall normals that are not all axis-aligned: ascending dofs, and per node
  /// up to dim orthonormal normals, normal j of node i at proj_normal[9 i + 3 j + c]
  /// (zero rows past the node's count, fewer than dim: a node with dim normals is fixed
  /// and listed in ess_idx instead).
  int nproj;
  int *proj_idx;
  double *proj_normal;
  /// Nodes of type = velocity sections (every component fixed, also in ess_idx):
  /// ascending dofs and the index of their section in cfg->boundaries.
  int nvel;
  int *vel_idx, *vel_section;
  /// Per section: the prescribed velocity at t = 0 (type = velocity sections), and its
  /// components as compiled expressions (NULL for the other sections). time_dependent:
  /// some velocity uses t (the momentum solve then imposes dv/dt, BlastBoundaryAccel).
  int nsections;
  double vel[BLAST_MAX_BOUNDARIES][3];
  struct BlastExpr_private *vel_expr[BLAST_MAX_BOUNDARIES][3];
  int time_dependent;
  double *host_a;  ///< [dim * h1_next] host scratch of the momentum solve (time_dependent)
} BlastBoundaryDofs;

/// The constraints of `cfg` (its [boundary.*] sections, or the built-in convention when
/// there are none) on the dofs of space s. Checks the sections against the mesh: every
/// boundary attribute of the mesh named by exactly one section and every named attribute
/// present (else BLAST_ERR_INPUT naming the attribute, the section and the mesh file).
int BlastBoundaryBuild(const BlastConfig *cfg, const BlastSpace *s, BlastBoundaryDofs *b);
/// Keep only the dofs below nown (the owned ones) in every list.
void BlastBoundaryKeepOwned(BlastBoundaryDofs *b, int nown);
/// Free the lists (the arrays; b itself is the caller's).
void BlastBoundaryFree(BlastBoundaryDofs *b);
/// The prescribed velocity of section k at time t (dim values).
void BlastBoundaryVelocity(const BlastBoundaryDofs *b, int k, double t, double *v);
/// Its time derivative at t: 0 for a constant; else the fourth-order central difference
/// (-v(t+2h) + 8 v(t+h) - 8 v(t-h) + v(t-2h)) / (12 h), h = 1e-3 (1 + |t|) (truncation
/// error h^4 |v'''''| / 30, round-off about 1e-13 |v| / h).
void BlastBoundaryAccel(const BlastBoundaryDofs *b, int k, double t, double *a);
/// Apply the constraints to an initial velocity (L-vector, nl dofs per component):
/// prescribed components set, wall normals' parts removed.
void BlastBoundaryApplyInitial(const BlastBoundaryDofs *b, int nl, double *v);

/// v <- (I - sum_j n_j n_j^T) v at one node: its `dim` normal rows nrm[3 j + c] (zero rows
/// allowed), orthonormal, removed one after the other. The arithmetic of every backend.
static inline BLAST_HOST_DEVICE void BlastProjectNode(int dim, const double *nrm, double *v) {
  for (int j = 0; j < dim; j++) {
    const double *n = nrm + 3 * j;
    double s = 0.0;
    for (int c = 0; c < dim; c++) s = s + n[c] * v[c];
    for (int c = 0; c < dim; c++) v[c] = v[c] - s * n[c];
  }
}

#ifdef __cplusplus
}
#endif

#endif  // BLAST_BOUNDARY_H
