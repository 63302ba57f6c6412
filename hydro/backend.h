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
#include <stdint.h>

#include "config.h"
#include "pcg_step.h"
#include "qpoint.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Index lists of a halo pattern (partition/halo.h): forward direction sends the owned
/// entries send_idx to the ranks holding them as ghosts at recv_idx.
typedef struct {
  int nsend, nrecv;
  const int *send_idx, *recv_idx;
} BlastHaloIndex;

enum { BLAST_HALO_L = 0, BLAST_HALO_COL = 1 };  ///< L-vector ghosts; SpMV column ghosts
enum { BLAST_ROWS_INTERIOR = 0, BLAST_ROWS_BOUNDARY = 1, BLAST_ROWS_ALL = 2 };

/// Data of the full-assembly path (BLAST_ASSEMBLY_FULL): the assembled scalar H1 mass
/// matrix and the initial inverse Jacobians of the point kernel (the zone force matrices
/// F_z = A_z B^T are the backend's).
typedef struct {
  const int64_t *rowptr;  ///< [h1_nown+1] row offsets (64-bit: a rank's entries may
                          ///< exceed 2^31)
  const int *col;         ///< ext column of each entry (32-bit: < h1_next)
  const double *val;      ///< values (reference data)
  const double *J0inv;    ///< [nz*nqp*dim*dim] initial inverse Jacobians (reference data)
} BlastFullData;

/// Data of the partial-assembly path (BLAST_ASSEMBLY_PARTIAL, pa_kernels.h): sum
/// factorisation with 1D tables. The mass action runs over `zones` (all nz_ext zones,
/// halo zones included: those whose dofs are all owned first, nzint of them) and every
/// owned dof sums its zones' values in the order of mass_toff/mass_tidx (ascending global
/// zone id); J0 is recomputed from x0.
typedef struct {
  int nz_ext;                        ///< zones incl. halo zones (partial mass action)
  int d1d, q1d, l1d;                 ///< H1 nodes, points, L2 nodes per direction
  const double *B, *G, *L;           ///< 1D tables [q1d*d1d], [q1d*d1d], [q1d*l1d]
  const double *qmass;               ///< [nz_ext*nqp] rho0 |J0| w of the mass operator (reference)
  const double *x0;                  ///< [dim*h1_nl] initial positions, L-vector (reference)
  const int *mass_toff, *mass_tidx;  ///< owned dof -> E-indices over nz_ext zones
  const int *zones;                  ///< [nz_ext] zones, those with owned dofs only first
  int nzint;                         ///< how many of zones have owned dofs only
  int keep_stress;                   ///< 1: keep S for energy_rate (its v may differ from the
                                     ///< state's: RK2Avg); 0: F^T v is computed with the
                                     ///< quadrature data, from the state's v
} BlastPartialData;

/// Constant data of a run, host pointers owned by the front end (valid for the lifetime
/// of the backend context; backends that need device copies make them). Two kinds:
///  - the discretisation (sizes, maps, tables, halos, constrained dofs): fixed at
///    `create`;
///  - the reference data, what the Lagrangian reference configuration defines (marked
///    "reference" below: rho0 |J0| w, the materials of the zones, M_E^{-1}, the mass
///    matrix values and diagonal, the initial Jacobians or positions, qpar.h0): the front
///    end may refill them in place and call `ctx.rebuild` (a remap, a restart that
///    carries the reference); `create` reads them through the same path.
/// The assembly mode decides which of `full` and `pa` is filled (the other is zero).
typedef struct {
  int dim, nz, nqp, h1_nd, l2_nd, h1_nl;
  int h1_nown, h1_next;              ///< owned (T) and ext (L + column ghosts) sizes
  const int *h1_edof;                ///< [nz*h1_nd] L-dof of each zone node
  const int *h1_toff, *h1_tidx;      ///< transpose of h1_edof (deterministic assembly)
  const double *qp_w;                ///< [nqp] quadrature weights
  const double *h1_B, *h1_G, *l2_B;  ///< basis tables at quadrature points (fe.h)
  /// Meshes of triangles and quadrilaterals (space.h; NULL otherwise): the slot of each
  /// zone [nz] (0 quadrilateral, 1 triangle); the four tables above then hold both slots'
  /// padded tables (BlastElementTablesPad, qp_w the kernel weights qp_wk), slot sl's at
  /// sl nqp, sl nqp h1_nd, sl nqp h1_nd dim, sl nqp l2_nd.
  const unsigned char *zone_slot;
  const double *qp_R0;        ///< [nz*nqp] rho0 |J0| w (reference)
  const int *zone_mat;        ///< [nz] material of each zone, into mats (reference)
  const BlastMaterial *mats;  ///< [nmat] the materials (eos.h)
  int nmat;
  const double *me_inv;          ///< [nz*l2_nd*l2_nd] zone inverses of M_E, col-major (reference)
  const double *mv_dinv;         ///< reciprocal diagonal of the H1 mass matrix, owned rows
                                 ///< (reference; the Jacobi preconditioner of both paths)
  int mv_ninterior;              ///< rows with owned columns only: mv_rows[0..ninterior)
  const int *mv_rows;            ///< [h1_nown] interior rows, then boundary rows
  const int *ess_off, *ess_idx;  ///< per component constrained owned dofs
  int nproj;                     ///< owned dofs with wall normals not all axis-aligned
  const int *proj_idx;           ///< [nproj] those dofs, ascending
  const double *proj_normal;     ///< [9 nproj] their orthonormal normals, normal j of dof i
                                 ///< at [9 i + 3 j + c], zero rows past the node's count
                                 ///< (those of the initial mesh; mass.wall_normals updates them)
  int wall_np;                   ///< their face records (BlastBoundaryDofs, boundary.h):
  const int *wall_off;           ///< [nproj+1] records of each node (none: normals fixed)
  const int *wall_slot;          ///< [nrec] normal slot * 2 + (1: negated)
  const int *wall_idx;           ///< [nrec*(dim-1)*wall_np] tangent stencil ext dofs
  const double *wall_w;          ///< [nrec*(dim-1)*wall_np] and weights
  BlastHaloIndex halo[2];        ///< BLAST_HALO_L, BLAST_HALO_COL
  BlastQPointParams qpar;        ///< (h0: reference)
  int tg_source;                 ///< add the 2D Taylor-Green energy source
  int assembly;                  ///< BlastAssembly, resolved
  BlastFullData full;            ///< BLAST_ASSEMBLY_FULL
  BlastPartialData pa;           ///< BLAST_ASSEMBLY_PARTIAL
} BlastHydroData;

/// Per-call statistics the backend reports from the quadrature-data update.
typedef struct {
  double dt_est;       ///< minimum per-point estimate (HUGE_VAL if none constrains)
  int tangled_zone;    ///< lowest local zone with det J <= 0, or -1
  double tangled_det;  ///< its smallest determinant over the points (NaN first: BlastDetWorse)
  double seconds;      ///< the update's device time where the backend filled it in later, or -1
} BlastQDataResult;

/// Context of a run on one backend: created once from the constant data, destroyed once.
typedef struct {
  int (*create)(const BlastHydroData *hd, void **ctx);
  int (*destroy)(void **ctx);
  /// Refill the reference data from hd: the discretisation of `create` (sizes, maps,
  /// tables, halos, assembly mode) with new reference data (see BlastHydroData). After it,
  /// every operation gives the bits of a context created from hd; what the backend tuned
  /// and built from the discretisation stays. `create` fills the reference data through
  /// the same path. hd stays valid as at create (a backend may read it in place).
  int (*rebuild)(void *ctx, const BlastHydroData *hd);
  /// Wait for queued work, and fill in the quadrature updates' results still owed
  /// (zone.qdata_force); a no-op for synchronous backends.
  int (*sync)(void *ctx);
} BlastCtxOps;

/// Memory and whole vectors (lengths in doubles).
typedef struct {
  int (*alloc)(void *ctx, size_t n, double **p);
  int (*free)(void *ctx, double **p);
  /// Host buffers for halo messages (pinned for GPU backends).
  int (*host_alloc)(void *ctx, size_t n, double **p);
  int (*host_free)(void *ctx, double **p);
  int (*to_host)(void *ctx, size_t n, const double *src, double *host_dst);
  int (*from_host)(void *ctx, size_t n, const double *host_src, double *dst);
  int (*copy)(void *ctx, size_t n, const double *src, double *dst);
  int (*set)(void *ctx, size_t n, double a, double *x);
  /// y = a x + b y
  int (*axpby)(void *ctx, size_t n, double a, const double *x, double b, double *y);
  /// w = a x + b y (w may alias neither x nor y unless equal to it)
  int (*waxpby)(void *ctx, size_t n, double a, const double *x, double b, const double *y,
                double *w);
  /// Local dot product as a double-double pair result[0] + result[1] (ddsum.h): the
  /// rounded global sum of all ranks' pairs does not depend on the order of the terms.
  int (*dot)(void *ctx, size_t n, const double *x, const double *y, double *result);
} BlastVecOps;

/// The zone (quadrature-point) part of the Lagrangian operator.
typedef struct {
  /// Quadrature data at state (x, v, e) and the zone force matrices F_z = A_z B^T (full);
  /// partial: the zone rows -F_z 1 and, unless pa_keep_stress, b_z = F_z^T v_z (+ source)
  /// with this v, which energy_rate then must be given again, unchanged. A backend with a
  /// queue may fill *res (and its seconds) in later: by its next ctx.sync at the latest.
  int (*qdata_force)(void *ctx, const double *x, const double *v, const double *e,
                     BlastQDataResult *res);
  /// rhs = -F.1 from this rank's zones: an H1 vector L-vector of partial sums, each a
  /// double-double pair: rhs[c*nl + i] (rounded value) and rhs[(dim + c)*nl + i] (low part).
  int (*momentum_rhs)(void *ctx, double *rhs);
  /// de = M_E^{-1} (F^T v (+ Taylor-Green source)), zone by zone (E1).
  int (*energy_rate)(void *ctx, const double *v, double *de);
  /// Local internal and kinetic energy (method spec 13.2) as double-double pairs summed
  /// over this rank's zones: dd = {ie, ie's low part, ke, ke's low part} (ddsum.h), so
  /// that the global sums do not depend on the partition.
  int (*energies)(void *ctx, const double *v, const double *e, double dd[4]);
} BlastZoneOps;

/// The momentum mass operator and the PCG vectors, all velocity components in lockstep
/// (method spec 7.1 V1: each component keeps its own coefficients and stopping test).
/// Component c of a PCG vector starts at c * h1_next; `mask` bit c set = component c is
/// still iterating; operations leave the other components untouched.
typedef struct {
  /// y_c = m x_c on the owned rows `rows` (BLAST_ROWS_*) of the scalar mass matrix; x_c
  /// has h1_next entries (ghost columns filled), y_c h1_nown. The matrix is read once.
  /// A BOUNDARY call that follows an INTERIOR call on the same x must see x's owned
  /// entries unchanged in between (only the ghost columns may have been filled): a
  /// backend may reuse what it prepared from the owned part (the CUDA backend packs the
  /// components side by side once and repacks only the ghosts).
  int (*mult)(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y);
  /// z_c = D^{-1} r_c on the owned dofs (Jacobi).
  int (*jacobi)(void *ctx, int ncomp, unsigned mask, const double *r, double *z);
  /// y_c[i] = 0 for the constrained owned dofs of component c.
  int (*zero_essential)(void *ctx, int ncomp, unsigned mask, double *y);
  /// y <- (I - sum_j n_j n_j^T) y at the dofs proj_idx (all ncomp = dim components; the
  /// normals proj_normal): BlastProjectNode (boundary.h) node by node; other dofs untouched.
  int (*project)(void *ctx, int ncomp, double *y);
  /// The normals of `project` from the current positions x and the normal accelerations
  /// of the moving walls a0 from the velocities v (x, v: ncomp = dim components h1_next
  /// apart, every ext dof filled; a0 likewise, written at the dofs proj_idx only):
  /// BlastWallNodeNormals (boundary.h) node by node over the records wall_*; nodes without
  /// records keep their normals (a0 = 0).
  int (*wall_normals)(void *ctx, int ncomp, const double *x, const double *v, double *a0);
  /// y_c = a[c] x_c + b[c] y_c on the owned dofs.
  int (*axpby_multi)(void *ctx, int ncomp, unsigned mask, const double *a, const double *x,
                     const double *b, double *y);
  /// Local dot products (x_c, y_c) over the owned dofs as double-double pairs
  /// result[2c], result[2c+1] (see BlastVecOps.dot).
  int (*dot_multi)(void *ctx, int ncomp, unsigned mask, const double *x, const double *y,
                   double *result);
  /// mult and, in addition, the local double-double pairs (x_c, y_c) over ALL owned rows
  /// as dot_multi, into result[2c], result[2c+1] (zeros for the inactive components). The
  /// pairing is stateful: an INTERIOR call only starts the sum (result is not written; the
  /// backend keeps what it needs), and the BOUNDARY call that follows on the same x and y
  /// (under mult's INTERIOR -> BOUNDARY contract, y's interior rows unchanged in between)
  /// completes it into result; an ALL call does both. The pairs are those of dot_multi on
  /// the y the calls wrote (the rounded sum of a double-double sum does not depend on the
  /// order of the terms but in rare last-bit cases; tests/backend compares them).
  int (*mult_dot)(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y,
                  double *result);
  /// A PCG step's residual updates in one pass over the owned dofs: r_c = -a[c] Ad_c + r_c,
  /// z_c = D^{-1} r_c, and the local dot products (r_c, z_c) as dot_multi; the same bits as
  /// axpby_multi(-a, Ad, 1, r), jacobi(r, z) and dot_multi(r, z) in that order.
  int (*cg_update)(void *ctx, int ncomp, unsigned mask, const double *a, const double *Ad,
                   double *r, double *z, double *result);
  /// A PCG step's solution and direction updates in one pass over the owned dofs: for the
  /// components in xmask x_c = a[c] d_c + x_c, then for those in dmask (a subset of
  /// xmask) d_c = 1 z_c + b[c] d_c; the same bits as axpby_multi(a, d, 1, x) with xmask,
  /// then axpby_multi(1, z, b, d) with dmask.
  int (*cg_advance)(void *ctx, int ncomp, unsigned xmask, unsigned dmask, const double *a,
                    const double *b, const double *z, double *d, double *x);
  /// The whole lockstep PCG resident on the backend's device, of one rank or of several
  /// whose halos travel through its device areas where peer_import said resident on
  /// every rank (the ghost columns and the other ranks' dots through them; the same
  /// choice on every rank for the same options): M x_c = b_c (b's constrained entries zeroed, x
  /// from zero; work: the vectors r, z, d and Ad, components h1_next apart as b and x) with the
  /// entries above in the order of BlastHydroPcgLockstep (hydro/pcg.c) and the scalars of
  /// pcg_step.h, so the same bits and iterations, without a host round trip per iteration.
  /// *resident = 1 and the final state in *s (its comp_iters, failed and residual) when the backend
  /// solved; *resident = 0 (nothing touched) when it does not solve resident (the CPU backend,
  /// which has no round trips to save; a GPU backend while it tunes its launches or profiles), and
  /// the front end runs the loop itself.
  int (*pcg)(void *ctx, int ncomp, double tol, int max_iter, double *b, double *x,
             double *const work[4], BlastPcgState *s, int *resident);
} BlastMassOps;

enum { BLAST_PEER_BLOB = 192 };  ///< bytes of a receive area's handle (peer_export)

/// One message of the device-to-device transport: entries [off, off + cnt) of this rank's
/// list (forward: send list; reverse: receive list), components `stride` apart in the
/// destination: entry i of component c lands at roff + c * rtotal + i of the peer's area
/// half.
typedef struct {
  int peer;  ///< index into BlastHaloPeers.blobs
  int off, cnt;
  int64_t roff, rtotal;
} BlastPeerRoute;

/// The neighbours' areas and the routes of every message (peer_import).
typedef struct BlastHaloPeers {
  int npeer;
  const unsigned char *blobs;  ///< [npeer][BLAST_PEER_BLOB] their peer_export handles
  const int64_t *half;         ///< [npeer] doubles in a half of each one's area
  int64_t base[2];             ///< offsets of halo w's messages in this rank's own area half
  int nroute[2][2];            ///< [which][reverse]
  const BlastPeerRoute *route[2][2];
  int rank, nranks;  ///< this rank and the ranks of the run
  const int *ranks;  ///< [npeer] the neighbours' ranks, ascending (the order of blobs)
  int all_peers;     ///< 1 on every rank: every other rank is a neighbour
  /// out: 1 where the backend can run the momentum solve resident across the ranks
  /// through these areas (mass.pcg): all_peers, and every neighbour on a GPU of its own
  int *resident;
} BlastHaloPeers;

enum { BLAST_NCCL_ID = 128, BLAST_NCCL_BUS = 64 };  ///< bytes of an NCCL id, of a PCI bus id

/// One message of the NCCL transport: entries [off, off + cnt) of each component of this
/// rank's packed list (send: components its length apart) or of its receive layout (recv),
/// to or from rank `rank` of the communicator (the MPI rank).
typedef struct {
  int rank, off, cnt;
} BlastNcclMsg;

/// The communicator and the messages of every halo and direction (nccl_init). A forward
/// exchange sends the pack of the send list (as halo.pack) and receives in the layout of
/// halo.unpack; a reverse one the other way round. Per neighbour, messages are issued in
/// the order of the arrays (every component of a message before the next message), which
/// is the order the neighbour lists its own.
typedef struct BlastHaloNccl {
  unsigned char id[BLAST_NCCL_ID];  ///< rank 0's nccl_probe id
  int nranks, rank;
  int nsend[2][2], nrecv[2][2];  ///< [which][reverse]
  const BlastNcclMsg *send[2][2], *recv[2][2];
} BlastHaloNccl;

/// Halo packing into / out of host buffers, `ncomp` components `stride` apart in x.
/// Forward pack: buf[c*nsend+i] = x[send[i]]; unpack: x[recv[i]] = buf[c*nrecv+i].
/// Reverse pack: buf[c*nrecv+i] = x[recv[i]]; unpack: x[send[i]] += buf[c*nsend+i].
typedef struct {
  int (*pack)(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *x,
              double *buf);
  int (*unpack)(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *buf,
                double *x);
  /// Reverse unpack of double-double pairs: x holds `ndd` rounded components then `ndd`
  /// low parts (stride apart), buf likewise; x[send[i]] += buf[i] in double-double.
  int (*unpack_dd)(void *ctx, int which, int ndd, size_t stride, const double *buf, double *x);
  /// The device-to-device transport between the ranks of one node (hydro/halo_peer.c):
  /// each rank's messages are written straight into its neighbours' receive areas, in the
  /// layout of the host buffers above, with no copy through the host.
  /// peer_export: allocate this rank's receive area (2 halves of `half` doubles) and write
  /// a handle that another process of this node can open (BLAST_PEER_BLOB bytes); *ok = 0
  /// (nothing allocated) when the backend has no such transport (the CPU backend).
  int (*peer_export)(void *ctx, size_t half, unsigned char *blob, int *ok);
  /// peer_import: open the neighbours' areas and keep the routes of `p`; *ok = 0 (nothing
  /// kept) when some area cannot be reached from this rank's device. p = NULL releases
  /// what an earlier import kept.
  int (*peer_import)(void *ctx, const BlastHaloPeers *p, int *ok);
  /// peer_send: this rank's messages of halo `which` (forward: the pack of its send list;
  /// reverse: of its receive list) written into half `parity` of the neighbours' areas, in
  /// the backend's order (it may return before they are).
  int (*peer_send)(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *x,
                   int parity);
  /// peer_sent: returns once the last peer_send's writes and every operation of the
  /// backend before it are done (operations started since may still run).
  int (*peer_sent)(void *ctx);
  /// peer_recv: `unpack` (dd = 0) or `unpack_dd` (dd = 1, reverse; ncomp = ndd) reading
  /// half `parity` of this rank's own area.
  int (*peer_recv)(void *ctx, int which, int reverse, int dd, int ncomp, size_t stride, int parity,
                   double *x);
  /// The NCCL transport between ranks on distinct GPUs (hydro/halo_nccl.c): messages go
  /// from device memory to device memory, ordered on the backend's streams, with no host
  /// round trip. nccl_probe: *ok = 1 when the backend has the transport and its library
  /// loads; then bus gets this rank's device (BLAST_NCCL_BUS bytes, a PCI bus id) and, with
  /// id != NULL, id a new communicator id (BLAST_NCCL_ID bytes). *ok = 0 otherwise.
  int (*nccl_probe)(void *ctx, unsigned char *id, char *bus, int *ok);
  /// nccl_init: join the communicator of p (collective over p->nranks ranks) and keep its
  /// messages; *ok = 0 (nothing kept) when it cannot be made. p = NULL releases.
  int (*nccl_init)(void *ctx, const BlastHaloNccl *p, int *ok);
  /// nccl_begin: start halo `which`'s messages of ncomp components (x's entries as
  /// halo.pack reads them); work the caller launches after it may run meanwhile.
  /// nccl_end: the unpack of what arrived (halo.unpack, dd = 0; halo.unpack_dd, dd = 1 with
  /// ncomp = ndd), ordered after the messages on the backend's stream.
  int (*nccl_begin)(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *x);
  int (*nccl_end)(void *ctx, int which, int reverse, int dd, int ncomp, size_t stride, double *x);
} BlastHaloOps;

/// CPU+GPU hybrid (hydro/hybrid.h). Zones [0, ndev) stay on this backend, zones
/// [ndev, nz) are computed by host threads from E-vectors: an H1 field of zone z is
/// stored at host[(z - z0) * dim * h1_nd + c * h1_nd + a], an L2 field at
/// host[(z - z0) * l2_nd + i]. Host buffers come from `vec.host_alloc`.
struct BlastHostZoneOps;  // hybrid.h

typedef struct {
  /// Copy the host zones' x, v (E-vectors) and e into host memory, then start the
  /// quadrature data and force matrices of zones [0, ndev); returns once the host copies
  /// are complete (the backend may still be computing).
  int (*qdata_begin)(void *ctx, int ndev, const double *x, const double *v, const double *e,
                     double *host_x, double *host_v, double *host_e);
  /// Wait for the work started by qdata_begin: its result, the backend's own time for it
  /// in seconds, and whether the backend is still tuning its launch parameters.
  int (*qdata_end)(void *ctx, BlastQDataResult *res, double *seconds, int *tuning);
  /// E-vectors of the H1 field h1 for zones [z0, z1) into host memory.
  int (*gather)(void *ctx, int z0, int z1, const double *h1, double *host);
  /// zone.momentum_rhs with the rows -F_z 1 of zones [ndev, nz) given (host, zone-blocked).
  int (*momentum_rhs)(void *ctx, int ndev, const double *host_rows, double *rhs);
  /// zone.energy_rate with b_z = F_z^T v_z (+ source) of zones [ndev, nz) given (host).
  int (*energy_rate)(void *ctx, int ndev, const double *host_b, const double *v, double *de);
  /// The host-thread zone kernels that compute zones [ndev, nz) with this backend's
  /// arithmetic (hybrid.h; the CPU backend's, backends/cpu/cpu_zones.h).
  int (*host_zones)(void *ctx, const struct BlastHostZoneOps **ops);
} BlastSplitOps;

/// The backend table, filled with designated initialisers. Every entry is required:
/// BlastBackendCheck() names a missing one before a backend is used.
typedef struct BlastBackendOps {
  const char *name;
  BlastCtxOps ctx;
  BlastVecOps vec;
  BlastZoneOps zone;
  BlastMassOps mass;
  BlastHaloOps halo;
  BlastSplitOps split;
} BlastBackendOps;

/// Every entry of the table, as X(group, member): BlastBackendCheck and the conformance
/// test (tests/backend/) iterate over it, so a new entry cannot go unchecked or untested.
// clang-format off
#define BLAST_BACKEND_OPERATIONS(X)                                                            \
  X(ctx, create) X(ctx, destroy) X(ctx, rebuild) X(ctx, sync)                                \
  X(vec, alloc) X(vec, free) X(vec, host_alloc) X(vec, host_free) X(vec, to_host)              \
  X(vec, from_host) X(vec, copy) X(vec, set) X(vec, axpby) X(vec, waxpby) X(vec, dot)          \
  X(zone, qdata_force) X(zone, momentum_rhs) X(zone, energy_rate) X(zone, energies)            \
  X(mass, mult) X(mass, jacobi) X(mass, zero_essential) X(mass, project)                      \
  X(mass, wall_normals) X(mass, axpby_multi) X(mass, dot_multi) X(mass, mult_dot)              \
  X(mass, cg_update) X(mass, cg_advance) X(mass, pcg)                                         \
  X(halo, pack) X(halo, unpack) X(halo, unpack_dd) X(halo, peer_export) X(halo, peer_import)     \
  X(halo, peer_send) X(halo, peer_sent) X(halo, peer_recv) X(halo, nccl_probe)             \
  X(halo, nccl_init) X(halo, nccl_begin) X(halo, nccl_end)                                   \
  X(split, qdata_begin) X(split, qdata_end) X(split, gather) X(split, momentum_rhs)            \
  X(split, energy_rate) X(split, host_zones)
// clang-format on

/// Number of entries in BLAST_BACKEND_OPERATIONS.
int BlastBackendOpCount(void);
/// "group.member" name of entry i (0 <= i < BlastBackendOpCount()), NULL out of range.
const char *BlastBackendOpName(int i);
/// Whether entry i of `ops` is filled.
int BlastBackendOpPresent(const BlastBackendOps *ops, int i);
/// BLAST_ERR_UNSUPPORTED naming the backend and the first missing entry, else 0.
int BlastBackendCheck(const BlastBackendOps *ops);

/// The CPU (OpenMP) reference backend.
extern const BlastBackendOps blast_backend_cpu;
/// Bytes a CPU backend context holds: what it allocated (vec.alloc included) and the
/// constant data of BlastHydroData it reads in place.
size_t BlastCpuMemoryUsed(void *ctx);

/// Options of GPU backends, set before `create` (ignored by the CPU backend). The
/// application fills them, environment variables included (app/main.c); zero is the
/// default of every field but autotune.
typedef struct {
  int autotune;          ///< BlastAutotune
  int spmv_cusparse;     ///< mass-matrix products by cuSPARSE instead of the double-double
                         ///< kernel (faster on some GPUs, not bitwise equal to the CPU)
  char cache_path[512];  ///< autotuning cache file ("": none; the application resolves
                         ///< $XDG_CACHE_HOME or ~/.cache/blast_gpu_autotune.txt)
  int verbose;           ///< > 1: trace every tuning candidate (BlastLog, BLAST_LOG_TRACE;
                         ///< BLAST_AUTOTUNE_TRACE=1 on rank 0); the decisions are data
  int profile;           ///< time every kernel (BLAST_GPU_PROFILE=1; serialises the stream)
  int sync;              ///< synchronize after every kernel (BLAST_CUDA_SYNC=1; debugging)
  int sell_sigma_set;    ///< 1: sell_sigma replaces BLAST_SELL_SIGMA_DEFAULT
  int sell_sigma;        ///< mass-matrix rows ordered by length within windows of this
                         ///< many (sell.h; BLAST_SELL_SIGMA)
  int graphs_off;        ///< 1: no CUDA graphs, no resident solve (mass.pcg; `[gpu] graphs = off`)
  int resident_shared;   ///< 1: the solve resident across ranks that share a GPU too (a test
                         ///< of its exchanges on a node of one GPU; BLAST_GPU_RESIDENT_SHARED=1)
  int pdl_off;           ///< 1: the resident solve's kernels launched without programmatic
                         ///< dependent launch (BLAST_GPU_PDL=0; a measurement switch)
} BlastGpuOptions;

#ifdef __cplusplus
}
#endif

#endif  // BLAST_BACKEND_H
