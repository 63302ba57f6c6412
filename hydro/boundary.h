/// @file boundary.h
/// @brief Velocity boundary conditions from the deck's [boundary.NAME] sections
/// (docs/boundaries.md): which velocity dofs are fixed per component, which nodes carry
/// wall normals (v.n = 0 at any orientation), and which follow a prescribed velocity.
///
/// Without [boundary.*] sections the built-in convention holds: boundary attribute c+1 is
/// a wall normal to axis c, every other attribute is free (BlastSpaceEssentialDofs).
#ifndef BLAST_BOUNDARY_H
#define BLAST_BOUNDARY_H

#include <math.h>
#include <stddef.h>

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
  /// How the normals of those nodes follow the current positions (BlastWallNodeNormals):
  /// node i's face records are wall_off[i]..wall_off[i+1); record r adds to normal
  /// wall_slot[r] / 4, negated if wall_slot[r] is odd, its unit normal or, if bit 1 of
  /// wall_slot[r] is set, its normal as it is (raw); its tangent o (o < dim - 1) is the
  /// sum over m < wall_np of wall_w[q] x[wall_idx[q]], q = (r (dim - 1) + o) wall_np + m
  /// (ext dofs). Tensor faces: the derivative of the GLL interpolant along face axis o
  /// on the fine segment holding the node (wall_np = k + 1). Triangle edges (raw): the
  /// integral of the node's basis function times the derivative of the equispaced
  /// interpolant of order k over the fine edges of the face that hold the node
  /// (wall_np = 2 k + 2, unused entries weight 0), so that the node's normal is the
  /// weighted normal, the integral of phi_a n over its faces (the consistent normal: a gas
  /// at rest at constant pressure stays at rest by a curved wall). Tetrahedron faces
  /// (raw in 3D: a pair record): the weighted normal too, the integral of phi_a t_s x t_t
  /// over the fine faces of the face that hold the node, which is quadratic in the face's
  /// nodes: m = sum over m < wall_np of wall_w[q] (x_b - x_l) x (x_c - x_l), q = 2 r
  /// wall_np + m, b = wall_idx[q], c = wall_idx[q + wall_np], l the node: per fine face
  /// the pairs b < c of its nodes other than the node, weights from
  /// BlastWallTrianglePairs; wall_np = F (n - 1)(n - 2) / 2, n = (k + 1)(k + 2) / 2 the
  /// face's nodes, F = 6 fine faces with parallel refinement (N > 1), else 1; unused
  /// entries are the node itself with weight 0. The second weights wall_w[q + wall_np]
  /// give the same way the normal t_0 x t_1 at the node of the first fine face holding it
  /// (the equispaced interpolant's derivatives along its axes), whose unit sum replaces
  /// the weighted normal where that is exactly 0: at a vertex of flat faces of even
  /// order, where the integral of phi_a vanishes, setup writes the first weights 0.
  int wall_np;
  int *wall_off, *wall_slot, *wall_idx;
  double *wall_w;
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

/// The consistent-normal table of a triangular face of order k (1..4), equispaced
/// lattice nodes (n of them): A[a n (n - 1) / 2 + q] = the integral over the reference
/// triangle (s, t) of phi_a (dphi_b/ds dphi_c/dt - dphi_c/ds dphi_b/dt), pair q = (b < c)
/// in lexicographic order: the integral of phi_a t_s x t_t of a face is then the sum over
/// pairs of A x_b x x_c (and unchanged when every x moves by one vector).
int BlastWallTrianglePairs(int k, double *A);
/// The same form of the face's t_s x t_t at its node a: G[q] = dphi_b/ds dphi_c/dt -
/// dphi_c/ds dphi_b/dt at node a, pair q = (b < c) as above.
int BlastWallTriangleNodePairs(int k, int a, double *G);
/// D[a][m] = the derivative of the Lagrange polynomial m through the k + 1 points x at x_a.
void BlastWallGllDerivatives(int k, const double *x,
                             double D[BLAST_MAX_ORDER + 1][BLAST_MAX_ORDER + 1]);

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

/// The wall normals of one projected node (ext dof l) from the current positions x and
/// their rates from the velocities v (components st apart, ext dofs): per face record the
/// normal of its tangents at the node (2D: (t_y, -t_x); 3D: t_0 x t_1; 3D raw records: the
/// sum of their pairs' weighted cross products), unit (or as it is, raw records), signed outward;
/// summed per normal slot (the grouping of setup); then orthonormalised in slot order as at setup
/// (a slot whose sum vanishes or lies in the span of those before it becomes a zero row), an axis
/// within round-off made that axis exactly (not its rate: on a curved wall the normal turns through
/// the axis). The same expressions differentiated along v give each normal's rate dq_j/dt, and a0 =
/// sum_j g_j q_j with g_j = -v_l . dq_j/dt: the normal acceleration that keeps v.q_j = 0 on the
/// moving wall (d(v.q)/dt = a.q + v.dq/dt). nrm: the node's 9 entries, a0: 3. A node
/// without records keeps nrm, a0 = 0. The arithmetic of every backend (mass.wall_normals).
static inline BLAST_HOST_DEVICE void BlastWallNodeNormals(int dim, int np, int r0, int r1,
                                                          const int *slot, const int *idx,
                                                          const double *w, const double *x,
                                                          const double *v, size_t st, int l,
                                                          double *nrm, double *a0) {
  a0[0] = a0[1] = a0[2] = 0.0;
  if (r1 <= r0) return;
  double acc[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
         accd[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  // pair records: the unit normals at the node (their second weights), summed per slot
  double accu[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
         accud[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, sc[3] = {0, 0, 0};
  int nq = 0;
  for (int r = r0; r < r1; r++) {
    double t[2][3] = {{0, 0, 0}, {0, 0, 0}}, td[2][3] = {{0, 0, 0}, {0, 0, 0}};
    double m[3] = {0, 0, 0}, md[3] = {0, 0, 0};
    const int j = slot[r] / 4, raw = (slot[r] / 2) % 2, neg = slot[r] % 2;
    const int pairs = dim == 3 && raw;  // the weighted normal of a tetrahedron face
    double g[3] = {0, 0, 0}, gd[3] = {0, 0, 0};
    for (int q = 0; pairs && q < np; q++) {
      const size_t e = (size_t)r * 2 * np + q;
      const size_t ib = (size_t)idx[e], ic = (size_t)idx[e + np];
      double db[3], dc[3], vb[3], vc[3];
      for (int c = 0; c < 3; c++) {
        db[c] = x[c * st + ib] - x[c * st + (size_t)l],
        dc[c] = x[c * st + ic] - x[c * st + (size_t)l];
        vb[c] = v[c * st + ib] - v[c * st + (size_t)l],
        vc[c] = v[c * st + ic] - v[c * st + (size_t)l];
      }
      for (int c = 0; c < 3; c++) {
        const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
        const double cr = db[c1] * dc[c2] - db[c2] * dc[c1],
                     crd =
                         (vb[c1] * dc[c2] - vb[c2] * dc[c1]) + (db[c1] * vc[c2] - db[c2] * vc[c1]);
        m[c] = m[c] + w[e] * cr, md[c] = md[c] + w[e] * crd;
        g[c] = g[c] + w[e + np] * cr, gd[c] = gd[c] + w[e + np] * crd;
      }
    }
    if (pairs) {  // the unit normal at the node, per slot
      double gl = 0.0, du = 0.0, u[3];
      for (int c = 0; c < 3; c++) gl = gl + g[c] * g[c];
      gl = sqrt(gl);
      if (gl > 0.0) {
        for (int c = 0; c < 3; c++) u[c] = g[c] / gl, du = du + gd[c] * u[c];
        for (int c = 0; c < 3; c++) {
          const double ud = (gd[c] - du * u[c]) / gl;
          accu[j][c] = accu[j][c] + (neg ? -u[c] : u[c]);
          accud[j][c] = accud[j][c] + (neg ? -ud : ud);
        }
        sc[j] = sc[j] + gl;
      }
    }
    for (int o = 0; o < dim - 1 && !pairs; o++) {
      const int *ix = idx + ((size_t)r * (dim - 1) + o) * np;
      const double *wx = w + ((size_t)r * (dim - 1) + o) * np;
      for (int c = 0; c < dim; c++) {
        double s = 0.0, sd = 0.0;
        for (int q = 0; q < np; q++) {
          s = s + wx[q] * x[c * st + (size_t)ix[q]];
          sd = sd + wx[q] * v[c * st + (size_t)ix[q]];
        }
        t[o][c] = s, td[o][c] = sd;
      }
    }
    if (dim == 2) {
      m[0] = t[0][1], m[1] = -t[0][0];
      md[0] = td[0][1], md[1] = -td[0][0];
    } else if (dim == 3 && !pairs) {
      for (int c = 0; c < 3; c++) {
        const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
        m[c] = t[0][c1] * t[1][c2] - t[0][c2] * t[1][c1];
        md[c] = (td[0][c1] * t[1][c2] - td[0][c2] * t[1][c1]) +
                (t[0][c1] * td[1][c2] - t[0][c2] * td[1][c1]);
      }
    }
    double len = 0.0;
    for (int c = 0; c < dim; c++) len = len + m[c] * m[c];
    len = sqrt(len);
    if (j + 1 > nq) nq = j + 1;
    if (!(len > 0.0)) continue;
    if (raw) {  // a weighted normal, summed as it is
      for (int c = 0; c < dim; c++) {
        acc[j][c] = acc[j][c] + (neg ? -m[c] : m[c]);
        accd[j][c] = accd[j][c] + (neg ? -md[c] : md[c]);
      }
      continue;
    }
    double u[3] = {0, 0, 0}, du = 0.0;
    for (int c = 0; c < dim; c++) u[c] = m[c] / len, du = du + md[c] * u[c];
    for (int c = 0; c < dim; c++) {
      const double ud = (md[c] - du * u[c]) / len;
      acc[j][c] = acc[j][c] + (neg ? -m[c] : m[c]) / len;
      accd[j][c] = accd[j][c] + (neg ? -ud : ud);
    }
  }
  for (int j = 0; j < 3; j++) {  // no weighted normal: the unit one
    if (!(sc[j] > 0.0)) continue;
    double la = 0.0;
    for (int c = 0; c < 3; c++) la = la + acc[j][c] * acc[j][c];
    if (la > 0.0) continue;
    for (int c = 0; c < 3; c++) acc[j][c] = accu[j][c], accd[j][c] = accud[j][c];
  }
  double q[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, qd[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int j = 0; j < nq && j < dim; j++) {
    double u[3] = {0, 0, 0}, ud[3] = {0, 0, 0}, len = 0.0, du = 0.0;
    for (int c = 0; c < dim; c++) len = len + acc[j][c] * acc[j][c];
    len = sqrt(len);
    if (len == 0.0) continue;
    for (int c = 0; c < dim; c++) u[c] = acc[j][c] / len, du = du + accd[j][c] * u[c];
    for (int c = 0; c < dim; c++) ud[c] = (accd[j][c] - du * u[c]) / len;
    for (int i = 0; i < j; i++) {
      double s = 0.0, sd = 0.0;
      for (int c = 0; c < dim; c++)
        s = s + q[i][c] * u[c], sd = sd + qd[i][c] * u[c] + q[i][c] * ud[c];
      for (int c = 0; c < dim; c++) {
        u[c] = u[c] - s * q[i][c];
        ud[c] = ud[c] - sd * q[i][c] - s * qd[i][c];
      }
    }
    len = 0.0, du = 0.0;
    for (int c = 0; c < dim; c++) len = len + u[c] * u[c];
    len = sqrt(len);
    if (len < 1e-6) continue;
    for (int c = 0; c < dim; c++) q[j][c] = u[c] / len, du = du + ud[c] * q[j][c];
    for (int c = 0; c < dim; c++) qd[j][c] = (ud[c] - du * q[j][c]) / len;
    for (int a = 0; a < dim; a++) {  // an axis within round-off is that axis exactly
      int ok = fabs(fabs(q[j][a]) - 1.0) <= 1e-12;
      for (int h = 0; h < dim && ok; h++)
        if (h != a && fabs(q[j][h]) > 1e-12) ok = 0;
      if (!ok) continue;
      for (int c = 0; c < 3; c++) q[j][c] = c == a ? 1.0 : 0.0;
      break;
    }
  }
  for (int j = 0; j < 3; j++) {
    double g = 0.0;
    for (int c = 0; c < dim; c++) g = g - v[c * st + (size_t)l] * qd[j][c];
    for (int c = 0; c < dim; c++) a0[c] = a0[c] + g * q[j][c];
    for (int c = 0; c < 3; c++) nrm[3 * j + c] = q[j][c];
  }
}

#ifdef __cplusplus
}
#endif

#endif  // BLAST_BOUNDARY_H
