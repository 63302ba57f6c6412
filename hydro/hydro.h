/// @file hydro.h
/// @brief The Lagrangian hydrodynamics operator and its time integration (method spec
/// sections 5-10): setup of all constant data, the rate function f(S), Runge-Kutta steps
/// with adaptive dt control, diagnostics. Independent of where the kernels run: all
/// state-touching work goes through a backend table (backend.h).
#ifndef BLAST_HYDRO_H
#define BLAST_HYDRO_H

#include <mpi.h>
#include <stdint.h>

#include "backend.h"
#include "config.h"
#include "hybrid.h"
#include "mesh.h"
#include "space.h"
#include "problems/problems.h"
#include "fe.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BlastHydro_private *BlastHydro;

/// Accumulated timings (seconds, this rank) and counters.
typedef struct {
  double qdata;                ///< quadrature data + zone force matrices F_z
  double force;                ///< force actions: -F.1 assembly and F^T v
  double cg;                   ///< momentum PCG solves
  double cg_wait;              ///< part of `cg` in halo waits and global dot reductions (messages
                               ///< plus waiting for slower ranks)
  double energy;               ///< M_E^{-1} application (included in `force` action call)
  double step;                 ///< whole RK steps including the end-of-step estimate
  int64_t cg_iter;             ///< PCG iterations summed over all component solves
  int64_t cg_solves;           ///< component solves
  int64_t cg_resident;         ///< of them, those the backend ran resident on its device
  int64_t cg_unconverged;      ///< solves that hit cg_max_iter
  int64_t qdata_zone_updates;  ///< zones times quadrature-data updates (this rank)
} BlastHydroTimers;

/// Sizes of the discretisation (global).
typedef struct {
  int dim, k, m, nqp, ranks, threads;
  int assembly;                     ///< BlastAssembly the run uses (resolved)
  int64_t zones, h1_dofs, l2_dofs;  ///< h1_dofs: vector true dofs (dim x scalar)
  double volume, h0;
  // domain decomposition (zones are fine zones)
  int partitioner;                   ///< BlastPartitioner used (ranks > 1)
  int64_t zones_min, zones_max;      ///< zones per rank
  double imbalance;                  ///< max / mean zones per rank
  int64_t edge_cut;                  ///< mesh-zone faces between ranks (before parallel refinement)
  int64_t shared_dofs;               ///< scalar H1 dofs held by more than one rank
  int neighbors_min, neighbors_max;  ///< ranks each rank exchanges ghosts with
  int halo_transport;                ///< BlastHaloTransport used (HOST or DEVICE)
} BlastHydroShape;

/// One accepted or rejected step, for reports.
typedef struct {
  int step;        ///< accepted-step index ti (method spec 10.2)
  int attempts;    ///< all step attempts so far
  int rejected;    ///< 1 if this attempt was rejected
  int last;        ///< 1 on the final step
  int report;      ///< 1 on report steps (every print_every accepted steps, and the last)
  double t, dt;    ///< time after the step, dt for the next step (as printed)
  double dt_used;  ///< dt of this attempt
  double dt_est;   ///< global estimate of the attempt
  double e_norm;   ///< |e| (report steps only, NAN otherwise)
} BlastStepInfo;

/// Called after every attempt; print/record as you like. Non-zero return aborts.
typedef int (*BlastStepCallback)(void *user, const BlastStepInfo *info);

/// Set up the operator and the initial state on `mesh` (already serially refined) with
/// the configuration `cfg`, running kernels on backend `ops`. Collective on comm.
int BlastHydroCreate(const BlastConfig *cfg, BlastMesh mesh, MPI_Comm comm,
                     const BlastBackendOps *ops, BlastHydro *hydro);
int BlastHydroDestroy(BlastHydro *hydro);

/// @brief Move the Lagrangian reference configuration to `mesh` (the setup's mesh with
/// other vertex coordinates: the same dimension, vertices and zones) and rebuild the
/// operator data that the reference defines (collective): the initial positions and
/// Jacobians, h0, the zones' materials, rho0 |J0| w, the mass matrices and M_E^{-1}, in
/// place, and the backend's copies (BlastCtxOps.rebuild) without a new context (what the
/// backend tuned stays). The setup computes them by the same phases, so afterwards the
/// operator gives the bits of a solver set up on `mesh`. The state (x, v, e), the time and
/// the step are kept. `mesh` replaces the setup's mesh (not owned; it must outlive h).
int BlastHydroRebuild(BlastHydro h, BlastMesh mesh);

/// Run the time loop to t_final (or max_steps attempts). Collective.
///
/// Every attempt is checked before it is accepted or rejected: a non-finite (NaN or Inf)
/// position, velocity or energy anywhere, or a non-finite time-step estimate, ends the run
/// at once; so do a velocity solve that reaches [solver] cg_max_iter and a time-step
/// collapse (dt below [time] dt_min after repeated rejections, as with a tangled mesh,
/// det J <= 0). These return BLAST_ERR_NUMERIC, marked BLAST_COLLECTIVE_SAME (every rank
/// returns the same message, naming step, attempt, time and, where there is one, the
/// rank, global zone id and quantity), and leave `h` at the LAST ACCEPTED state: the
/// state, time, accepted-step count, dt and attempt count are those right after the last
/// accepted step (or at the call, if none was accepted), so the caller can write a final
/// checkpoint of the last good state (BlastHydroGetState, BlastHydroGetProgress).
/// Other errors (MPI, a callback's) leave the state undefined.
int BlastHydroRun(BlastHydro h, BlastStepCallback cb, void *user);

BlastHydroShape BlastHydroGetShape(BlastHydro h);
const BlastHydroTimers *BlastHydroGetTimers(BlastHydro h);
/// Current time, dt, accepted steps and attempts.
void BlastHydroGetProgress(BlastHydro h, double *t, double *dt, int *steps, int *attempts);
/// Global |e| of the current state (method spec 13.1). Collective.
int BlastHydroENorm(BlastHydro h, double *e_norm);
/// Global internal and kinetic energy of the current state: per-zone sums carried in
/// double-double across zones and ranks and rounded once, so the same bits on any number
/// of ranks and on every backend. Collective.
int BlastHydroEnergies(BlastHydro h, double *ie, double *ke);
/// Global |e|, internal, kinetic energy of the current state. Collective.
int BlastHydroNorms(BlastHydro h, double *e_norm, double *ie, double *ke);
/// Initial dt (method spec 10.1) and the total energy at t = 0.
void BlastHydroGetInitial(BlastHydro h, double *dt0, double *energy0);
/// The CPU+GPU split (info->active = 0 without a hybrid).
void BlastHydroGetBalance(BlastHydro h, BlastBalanceInfo *info);
/// Auto balance: start the search from this split (restart: the checkpointed one). No
/// effect without a hybrid, in fixed mode, or once the search began.
void BlastHydroSeedBalance(BlastHydro h, double gpu_fraction);

/// Copy the state to host arrays (any may be NULL): positions and velocity as
/// component-major L-vectors (dim*h1_nl), energy zone-blocked (nz*l2_nd).
int BlastHydroGetState(BlastHydro h, double *x, double *v, double *e);
/// Replace the state (host arrays as in BlastHydroGetState, ghosts included).
int BlastHydroSetState(BlastHydro h, const double *x, const double *v, const double *e);
/// Replace time, dt, accepted steps and attempts (restart), and the initial dt and energy
/// the reports refer to.
void BlastHydroSetProgress(BlastHydro h, double t, double dt, int steps, int attempts, double dt0,
                           double energy0);
/// After BlastHydroSetState and BlastHydroSetProgress (restart): bring the quadrature data
/// to the restored state as the end of an accepted step does, so that the run continues
/// bit for bit as the one that wrote the checkpoint (the first attempt's time-step control
/// sees the same estimates). Collective.
int BlastHydroResume(BlastHydro h);
/// End BlastHydroRun cleanly after the current accepted step (call from the step
/// callback, on every rank).
void BlastHydroRequestStop(BlastHydro h);
/// Test hook for fault injection (BLAST_FAULT_INJECT=<rank>:nan:<step>, docs/robustness.md),
/// never called by a normal run: the next step attempt on this rank ends with `value`
/// (NaN, Inf) written into one entry of its new state, as if the step had computed it, so
/// that the attempt's check finds it. `quantity` 0 position, 1 velocity (component `comp`
/// < dim), 2 energy; the entry is that of the rank's middle L-dof, or the first energy
/// coefficient of its middle zone. Errors: BLAST_ERR_ARG for a bad quantity or component.
int BlastHydroPoisonForTest(BlastHydro h, int quantity, int comp, double value);
/// The setup's named phases (hydro_setup.c), in order: their number and names (NULL for
/// a phase out of range). A setup error that names no zone says which phase failed only
/// through its message; these are for tests and reports.
int BlastHydroSetupPhaseCount(void);
const char *BlastHydroSetupPhaseName(int phase);
/// Wall seconds this rank spent in setup phase `phase` of BlastHydroCreate, the CPU seconds
/// of its process (all threads) in it, and the process's peak resident set (bytes) at its
/// end: 0 for a phase out of range, NAN where the system does not tell.
double BlastHydroSetupPhaseSeconds(BlastHydro h, int phase);
double BlastHydroSetupPhaseCpuSeconds(BlastHydro h, int phase);
double BlastHydroSetupPhasePeakRss(BlastHydro h, int phase);
/// CPU time of the process (all its threads) in seconds, NAN if the clock is not there.
double BlastProcessCpuSeconds(void);
/// The process's peak resident set so far in bytes (Linux reports KiB), NAN if unknown.
double BlastProcessPeakRss(void);
/// Test hook, never called by a normal run: the next BlastHydroCreate fails after setup
/// phase `phase` (0-based; -1 disarms) on rank `rank` of its communicator (-1: every
/// rank) with BLAST_ERR_MEM and a message naming the phase, agreed by every rank as a
/// real error would be; the hook then disarms itself. Set it on every rank alike.
/// Errors: BLAST_ERR_ARG for a phase out of range.
int BlastHydroSetupFailAtForTest(int phase, int rank);
/// The finite element spaces (global ids of dofs and zones).
const BlastSpace *BlastHydroGetSpace(BlastHydro h);
/// Initial positions (host L-vector as in BlastHydroGetState), for output.
const double *BlastHydroGetInitialPositions(BlastHydro h);
/// Basis tables of the spaces (fe.h: BlastH1BasisEval, BlastL2BasisEval at any point).
const BlastTensorTables *BlastHydroGetTables(BlastHydro h);
/// The tables of zone z: those of its geometry (a mesh of triangles and quadrilaterals:
/// padded to the space's sizes, BlastElementTablesPad); BlastHydroGetTables otherwise.
const BlastTensorTables *BlastHydroGetZoneTables(BlastHydro h, int z);
/// The problem (rho0, gamma, e0 as functions of the initial position).
const BlastProblem *BlastHydroGetProblem(BlastHydro h);
/// The initial density at the initial position X in zone z of this rank: the problem's
/// (custom problems: that of the zone's region; thread-safe, serialised for them).
double BlastHydroInitialDensity(BlastHydro h, int z, const double *X);
/// The problem's materials (eos.h) and their number (*nmat); the names are
/// BlastProblemMaterialName's.
const BlastMaterial *BlastHydroGetMaterials(BlastHydro h, int *nmat);
/// The material of each of this rank's zones, an index into BlastHydroGetMaterials (local
/// zone order, as BlastHydroGetSpace's zones).
const int *BlastHydroGetZoneMaterials(BlastHydro h);
/// The (serially refined) mesh the spaces are built on (its zone attributes).
BlastMesh BlastHydroGetMesh(BlastHydro h);
/// The backend table and context the run uses (for backend-specific reports, e.g. the
/// GPU profile; the context stays owned by h).
void BlastHydroGetBackend(BlastHydro h, const BlastBackendOps **ops, void **ctx);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_HYDRO_H
