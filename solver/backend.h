/// @file backend.h
/// @brief The backend table: every operation of the Lagrangian operator that touches the
/// state, implemented once per backend (CPU reference in backend_cpu.c, CUDA in gpu/).
///
/// The front end (hydro.c) prepares all constant data on the host (BlastHydroData), hands
/// it to the backend once, and from then on passes only backend-owned pointers (from
/// `alloc`) back to it. It never tests which backend it talks to. Vectors:
///  - H1 vector fields: dim * h1_nl doubles, component-major L-vectors;
///  - L2 fields: nz * l2_nd doubles, zone-blocked;
///  - the state S = [x | v | e].
#ifndef BLAST_BACKEND_H
#define BLAST_BACKEND_H

#include <stddef.h>

#include "qpoint.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Constant data of a run, host pointers owned by the front end (valid for the lifetime
/// of the backend context; backends that need device copies make them in `create`).
typedef struct {
  int dim, nz, nqp, h1_nd, l2_nd, h1_nl;
  const int *h1_edof;                    ///< [nz*h1_nd] L-dof of each zone node
  const int *h1_toff, *h1_tidx;          ///< transpose of h1_edof (deterministic assembly)
  const double *qp_w;                    ///< [nqp] quadrature weights
  const double *h1_B, *h1_G, *l2_B;      ///< basis tables at quadrature points (fe.h)
  const double *qp_R0;                   ///< [nz*nqp] rho0 |J0| w
  const double *qp_J0inv;                ///< [nz*nqp*dim*dim] initial inverse Jacobians
  const double *zone_gamma;              ///< [nz]
  const double *me_inv;                  ///< [nz*l2_nd*l2_nd] zone inverses of M_E (col-major)
  const int *mv_rowptr, *mv_col;         ///< scalar H1 mass matrix, CSR over L-dofs
  const double *mv_val, *mv_dinv;        ///< values, reciprocal diagonal
  const int *ess_off, *ess_idx;          ///< per component constrained L-dofs
  const double *gravity_rhs;             ///< [dim*h1_nl] M_V g_h added to -F.1, or NULL
  BlastQPointParams qpar;
  int tg_source;                         ///< add the 2D Taylor-Green energy source
} BlastHydroData;

/// Per-call statistics the backend reports from the quadrature-data update.
typedef struct {
  double dt_est;      ///< minimum per-point estimate (HUGE_VAL if none constrains)
  int tangled_zone;   ///< lowest local zone with det J <= 0, or -1
  double tangled_det; ///< the determinant found there
} BlastQDataResult;

typedef struct BlastBackendOps {
  const char *name;
  int (*create)(const BlastHydroData *hd, void **ctx);
  int (*destroy)(void **ctx);
  // ---- memory and vectors (lengths in doubles) ----
  int (*alloc)(void *ctx, size_t n, double **p);
  int (*free)(void *ctx, double **p);
  int (*to_host)(void *ctx, size_t n, const double *src, double *host_dst);
  int (*from_host)(void *ctx, size_t n, const double *host_src, double *dst);
  int (*copy)(void *ctx, size_t n, const double *src, double *dst);
  int (*set)(void *ctx, size_t n, double a, double *x);
  /// y = a x + b y
  int (*axpby)(void *ctx, size_t n, double a, const double *x, double b, double *y);
  /// w = a x + b y (w may alias neither x nor y unless equal to it)
  int (*waxpby)(void *ctx, size_t n, double a, const double *x, double b, const double *y,
                double *w);
  /// Local dot product, deterministic (independent of the thread count).
  int (*dot)(void *ctx, size_t n, const double *x, const double *y, double *result);
  // ---- the Lagrangian operator ----
  /// Quadrature data at state (x, v, e) and the zone force matrices F_z = A_z B^T.
  int (*qdata_force)(void *ctx, const double *x, const double *v, const double *e,
                     BlastQDataResult *res);
  /// rhs = -F.1 (+ gravity), assembled into an H1 vector L-vector (unconstrained).
  int (*momentum_rhs)(void *ctx, double *rhs);
  /// de = M_E^{-1} (F^T v (+ Taylor-Green source)), zone by zone (E1).
  int (*energy_rate)(void *ctx, const double *v, double *de);
  /// y = m x for the scalar H1 mass matrix (one component).
  int (*mass_mult)(void *ctx, const double *x, double *y);
  /// z = D^{-1} r (Jacobi, one component).
  int (*jacobi)(void *ctx, const double *r, double *z);
  /// y[i] = 0 for the constrained L-dofs of component c.
  int (*zero_essential)(void *ctx, int c, double *y);
  /// Local internal and kinetic energy (method spec 13.2).
  int (*energies)(void *ctx, const double *v, const double *e, double *ie, double *ke);
  /// Wait for queued work (timing); may be NULL for synchronous backends.
  int (*sync)(void *ctx);
} BlastBackendOps;

/// The CPU (OpenMP) reference backend.
extern const BlastBackendOps blast_backend_cpu;

#ifdef __cplusplus
}
#endif

#endif  // BLAST_BACKEND_H
