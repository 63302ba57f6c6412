// Private layout of BlastHydro, shared by the solver files that implement it (hydro*.c,
// pcg.c, ode.c) and by white-box tests.
#ifndef BLAST_HYDRO_IMPL_H
#define BLAST_HYDRO_IMPL_H

#include "boundary.h"
#include "halo.h"
#include "hybrid.h"
#include "hydro.h"
#include "partition.h"
#include "problems/problems.h"
#include "space.h"

enum { BLAST_SETUP_PHASES_MAX = 32 };  // at least the setup's phases (hydro_setup.c)

struct BlastHydro_private {
  MPI_Comm comm;
  int rank, nranks;
  MPI_Datatype dd_type;  // a double-double pair
  MPI_Op dd_op;          // their sum
  BlastConfig cfg;
  BlastProblem prob;
  BlastMesh mesh;  // not owned
  BlastTopology *topo;
  BlastSpace *space;
  BlastTensorTables *tab;  // the zones' tables (mixed meshes: == tabs[0])
  // Mixed meshes (space->mixed): the padded tables of each slot (0 quadrilaterals, 1
  // triangles), the slot of each zone [nz_ext], the slots' tables concatenated for the
  // backend (hd); all NULL otherwise.
  BlastTensorTables *tabs[2];
  unsigned char *zone_slot;
  double *mix_qp_w, *mix_h1_B, *mix_h1_G, *mix_l2_B;
  const BlastBackendOps *ops;
  void *bctx;
  BlastHybrid hybrid;  // CPU+GPU sharing of the zone work, or NULL
  BlastHydroData hd;   // host constant data handed to the backend
  // host arrays behind hd (owned)
  double *qp_R0, *qp_J0inv, *me_inv, *mv_val, *mv_dinv;
  int *zone_mat;                                    // [nz] material of each zone
  int *zone_region;                                 // [nz_ext] custom problems: its region
  BlastMaterial mats[BLAST_PROBLEM_MAX_MATERIALS];  // the problem's materials
  int nmat;
  int64_t *mv_rowptr;  // 64-bit row offsets of the mass matrix (its entries may exceed 2^31)
  int *mv_col, *mv_rows, *ess_off, *ess_idx;
  BlastBoundaryDofs bc;  // the boundary conditions (ess_off/ess_idx moved out to the above)
  int coupled_cg;        // 1: some wall is not axis-aligned (the coupled projected PCG)
  // partial assembly (hd.assembly == BLAST_ASSEMBLY_PARTIAL)
  double *pa_qmass;  // [nz_ext*nqp] rho0 |J0| w of the mass operator
  int *pa_zones;     // [nz_ext] zone order of the mass action
  int pa_nzint;
  // domain decomposition
  int *part;  // [mesh zones] owning rank (NULL on one rank)
  BlastPartStats pstats;
  BlastHalo halo[2];              // BLAST_HALO_L, BLAST_HALO_COL
  double *hbuf_send, *hbuf_recv;  // host halo buffers
  int hbuf_backend;               // allocated by the backend (host_alloc)
  struct BlastHydroPeer *peer;    // the device-to-device transport (halo_peer.c), or NULL
  int nccl;                       // 1: the NCCL transport (halo_nccl.c) carries the halos
  double *gravity;  // [dim*h1_nown] M_V g (component c at c*h1_nown) on owned rows, backend
                    // memory, or NULL; components with g_c = 0 unused
  double h0, volume0;
  double *x0_host;  // initial positions (L-vector, host), for output
  BlastHydroShape shape;
  // state and work vectors (backend memory)
  size_t nx, ne, nstate;  // sizes of the x (= v) block, the e block, the state
  double *S;
  // integrator scratch (ode.c), nstate each, allocated once at setup for cfg.ode_solver
  // (BlastOdeScratchCreate) and freed by BlastHydroDestroy (BlastOdeScratchDestroy)
  double *S_old;  // the state an attempt started from (every integrator)
  double *rk_y, *rk_z, *rk_k, *rk_k2;
  double *rk6_k[8];  // RK6 stage rates (NULL for the other integrators)
  double *rhs;       // momentum rhs: dim*nl rounded values, then dim*nl low parts
  double *cg_r, *cg_z, *cg_d, *cg_q, *cg_b, *cg_x;  // PCG: dim components h1_next apart
  double *wall_x;  // coupled_cg: the positions at every ext dof (mass.wall_normals), as cg_x
  // time-stepping state
  int qdata_current;
  // The quadrature updates of an attempt whose results the backend may fill in later (by
  // its next ctx.sync: BlastHydroQDataCollect), with the component solves started before
  // each; qdata_defer: the time loop's attempt lets them wait (one rank, not hybrid).
  BlastQDataResult qres[12];
  int64_t qres_solves[12];
  int nqres, qdata_defer;
  double dt_est;  // running minimum over the attempt (local)
  int tangled_zone;
  double tangled_det;
  double t, dt, dt0, energy0;
  double t_stage;                        // time of the stage being computed (power sources)
  struct BlastSources_private *sources;  // power sources ([source.NAME] power), or NULL
  int ti, attempts;
  // The energies of the state last summed by BlastHydroNorms (a progress report), and the
  // attempt count they belong to: the energy check reuses them (-1: none yet).
  int norms_attempts;
  double norms_ie, norms_ke;
  int stop_requested;  // end the run after the current accepted step
  BlastHydroTimers timers;
  // each setup phase on this rank: wall and process CPU seconds, peak RSS after it (bytes)
  double setup_seconds[BLAST_SETUP_PHASES_MAX], setup_cpu_seconds[BLAST_SETUP_PHASES_MAX];
  double setup_peak_rss[BLAST_SETUP_PHASES_MAX];
  // A velocity solve that hit cg_max_iter (set by the PCG, reported by the time loop with
  // the step): components that failed (bit c), iterations, their relative residual.
  struct {
    unsigned comps;
    int iters;
    double residual[3];
  } cg_fail;
  // Test hook (BlastHydroPoisonForTest): written into the state after the next attempt.
  struct {
    int armed, quantity, comp;
    double value;
  } poison;
};

/// coupled_cg: the positions, velocities and normal accelerations of the walls (wall_x).
int BlastHydroWallAlloc(BlastHydro h);
/// f(S) -> k (method spec 9, "Mult"): rates of x, v, e; marks the quadrature data stale.
int BlastHydroRates(BlastHydro h, const double *S, double *k);
/// Quadrature data at state S unless current (caching rule, method spec 9.3).
int BlastHydroUpdateQData(BlastHydro h, const double *S);
/// Momentum: dv = M_V^{-1}(-F.1 (+ M_V g)), per-component PCG with essential dofs.
int BlastHydroSolveVelocity(BlastHydro h, double *dv);
/// Energy rate de = M_E^{-1}(F^T v (+ source)).
int BlastHydroEnergyRate(BlastHydro h, const double *v, double *de);
/// The integrator's work vectors (S_old, rk_*) for cfg.ode_solver, on the backend; on
/// failure those allocated stay for BlastOdeScratchDestroy. Local (no communication).
int BlastOdeScratchCreate(BlastHydro h);
/// Frees what BlastOdeScratchCreate allocated (any part of it); NULLs the pointers.
int BlastOdeScratchDestroy(BlastHydro h);
/// The results of the quadrature updates not yet folded into dt_est and tangled_zone:
/// waits for the backend (ctx.sync) if there are any.
int BlastHydroQDataCollect(BlastHydro h);
/// Global minimum of the running estimate; reports tangled zones.
int BlastHydroGlobalDtEstimate(BlastHydro h, double *dt_est);
double BlastWtime(void);

/// Frees the mixed-mesh tables and slots (hydro_mixed.c); h->tab stays.
void BlastMixedDestroy(BlastHydro h);

// The element tables of zone z (its geometry's, padded on mixed meshes).
static inline const BlastTensorTables *BlastHydroZoneTab(const struct BlastHydro_private *h,
                                                         int z) {
  return h->zone_slot ? h->tabs[h->zone_slot[z]] : h->tab;
}

#endif  // BLAST_HYDRO_IMPL_H
