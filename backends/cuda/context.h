// The CUDA backend's context and what its files share (CUDA C++ only): the device copies
// of the constant data, the context of a run (CudaCtx), the library status checks, the
// layout helpers of the kernels, the assembly modes (CudaMode) and the functions one file
// of backends/cuda/ calls in another.
//
// Files (docs/architecture.md, "The CUDA backend"):
//   backend_cuda_table.c  the backend table (designated initialisers, C11)
//   ops.h                 the table's functions, declared for C and C++
//   setup.cu              options, create/destroy/rebuild of what both assembly modes share,
//                         uploads, the memory check, cuSPARSE setup
//   mode_full.cu          the full-assembly mode (CudaMode kCudaFull): its data (CudaFull:
//                         F_z, J0^{-1}, the mass matrix in SELL or cuSPARSE form), setup,
//                         rebuild, destroy; its launches are in ops_zone.cu and ops_mass.cu
//   mode_partial.cu       the partial-assembly mode (kCudaPartial): its data (CudaPartial),
//                         setup, rebuild, destroy and launches (kernels/pa_*.cuh)
//   autotune.cu           launch-parameter tuners of the full mode and their cache file
//   profile.cu            per-kernel profile data (BLAST_GPU_PROFILE), tuning decisions
//   ops_vec.cu, ops_zone.cu, ops_mass.cu, ops_halo.cu, ops_split.cu
//                         launch code of the table's groups vec, zone, mass, halo, split
//                         (the mode's operations through c->mode)
//   ops_pcg.cu            mass.pcg: the PCG resident on the GPU: one rank's in CUDA graphs
//                         (kernels/pcg.cuh), several ranks' through CUDA IPC areas
//                         (kernels/pcg_ranks.cuh)
//   ops_project.cu        mass.project: the wall projection (its kernel, data and launch)
//   kernels/*.cuh         kernel bodies, each included by one .cu file
//   device.cu             device selection and CUDA error messages
//   memory.c              device memory model and advice (host code)
//   nccl_lib.c            libnccl.so.2 resolved at run time (the NCCL halo transport)
#ifndef BLAST_GPU_CONTEXT_H
#define BLAST_GPU_CONTEXT_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stddef.h>

#include "backend.h"
#include "blast.h"
#include "blast_cuda.h"
#include "ddsum.h"
#include "nccl_lib.h"
#include "ops.h"
#include "qpoint.h"

// ---------------------------------------------------------------------------------------
// Status checks for the libraries (setup.cu)

int BlastCublasError(const char *file, int line, const char *func, cublasStatus_t st,
                     const char *call);
int BlastCusparseError(const char *file, int line, const char *func, cusparseStatus_t st,
                       const char *call);
#define BlastCallCublas(...)                                                    \
  do {                                                                          \
    cublasStatus_t st_ = (__VA_ARGS__);                                         \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                           \
      return BlastCublasError(__FILE__, __LINE__, __func__, st_, #__VA_ARGS__); \
  } while (0)
#define BlastCallCusparse(...)                                                    \
  do {                                                                            \
    cusparseStatus_t st_ = (__VA_ARGS__);                                         \
    if (st_ != CUSPARSE_STATUS_SUCCESS)                                           \
      return BlastCusparseError(__FILE__, __LINE__, __func__, st_, #__VA_ARGS__); \
  } while (0)

enum { kDotBlocks = 256, kDotThreads = 256 };
enum { kMassPartAll = 0, kMassPartZones = 1, kMassPartRows = 2 };  // CudaCtx.mass_part
// Doubles of dot_host: 3 components of kDotBlocks pairs (dot_part).
enum { kDotHostDoubles = 2 * 3 * kDotBlocks };

// ---------------------------------------------------------------------------------------
// Device copies of the constant data

typedef struct {
  int dim, nz, nqp, nd, ne, nl, nown, next, rows;
  int *edof, *toff, *tidx;
  double *qw, *B, *L2B, *R0;
  int *zone_mat;        // [nz] material of each zone
  BlastMaterial *mats;  // the materials (eos.h)
  // Meshes of triangles and quadrilaterals (backend.h: zone_slot; NULL otherwise): the slot
  // of each zone [nz]; every table (qw, B, L2B and the copies below) then holds both slots',
  // slot sl's at sl times one slot's size (DevSlot).
  unsigned char *slot;
  // point-fastest copies for the quadrature kernel: Gt [a][g][q], L2Bt [i][q], J0inv
  // [z][i][q]; for the force GEMM: Gn [q][g][a] node-fastest and L2Bp [q][ne rounded up
  // to GemmColumns] zero-padded
  double *Gt, *Gn, *L2Bt, *L2Bp, *J0inv;
  double *S;                // [nz][nqp][SStride(dim)] w |J| sigma J^-T per point (dim^2 used)
  double *F, *rE, *tg, *b;  // zone force matrices, zone momentum rhs, TG source, F^T v
  BlastQPointParams qpar;
  int tg_source;
  // The pointers are the kernels' view; each belongs to the mode that allocates it (full:
  // J0inv, Gt, Gn, L2Bt, L2Bp, S, F, rE; partial: the fields below, rE and S).
  // partial assembly (mode_partial.cu): F, J0inv, Gt, Gn, L2Bt, L2Bp are NULL; S only with
  // keep_stress ([nz][nqp][dim^2] as the CPU backend); rE has nz_ext zones (also the mass
  // action's zone values, component-major); edof covers the nz_ext zones
  int pa, keep_stress, nz_ext, D, Q, L, nzint;
  double *B1, *G1, *L1;        // 1D tables [Q*D], [Q*D], [Q*L]
  double *x0, *qmass;          // initial positions (L-vector), rho0 |J0| w [nz_ext][nqp]
  int *mtoff, *mtidx, *zones;  // owned dof -> E-indices; zones, those with owned dofs first
} DevData;

// The table slot of zone z (0 on meshes of one zone type).
static __device__ __forceinline__ size_t DevSlot(const DevData &d, size_t z) {
  return d.slot ? d.slot[z] : 0;
}

// A CSR matrix on the device with its cuSPARSE descriptor: 64-bit row offsets and columns
// (CUSPARSE_INDEX_64I for both: cuSPARSE's SpMV documents one index type per matrix, and a
// rank's mass matrix or M_E^{-1} blocks may have more than 2^31 entries).
typedef struct {
  int64_t nrows, ncols, nnz;
  int64_t *rowptr, *col;
  double *val;
  cusparseSpMatDescr_t mat;
} DevCsr;

// Reverse-halo targets: each distinct owned dof and the buffer positions adding to it.
typedef struct {
  int nsend, nrecv, ntarget;
  int *send_idx, *recv_idx;
  int *target, *toff, *tpos;
} DevHalo;

// The device-to-device halo transport (ops_halo.cu, halo.peer_*): this rank's receive
// area (two halves, exported through CUDA IPC), the neighbours' opened areas and the
// routes of each message (device arrays per halo and direction).
typedef struct {
  double *dst;     // the destination in the peer's area, half 0
  int64_t half;    // the peer's half (doubles): half `parity` is dst + parity * half
  int64_t rtotal;  // components' stride at the destination
  int off, cnt;    // entries [off, off + cnt) of this rank's list
} DevRoute;

typedef struct {
  double *area;  // own receive area: 2 * half doubles (cudaMalloc, exported)
  size_t half;
  int npeer;
  double **remote;  // [npeer] the neighbours' opened areas (host array of device pointers)
  int *opened;      // [npeer] 1: remote[i] from cudaIpcOpenMemHandle (closed on release)
  int64_t base[2];
  int nroute[2][2], maxcnt[2][2];
  DevRoute *route[2][2];
  cudaEvent_t done;  // after a send: its writes and every earlier launch complete
  // The resident momentum solve across the ranks (ops_pcg.cu, where every other rank is a
  // neighbour on a GPU of its own): the area's second pair of halves carries the solve's
  // ghost columns, its mailbox (kPeerMail doubles after them) the solve's flags and dot
  // pairs, all ordered on the GPUs (kernels/pcg_ranks.cuh), no host wait
  int resident;                  // peer_import found it possible here (BlastHaloPeers.resident)
  int rank, nranks;              // of the run
  DevRoute *rk_route;            // [nroute[COL][0]] device: the forward routes of halo COL into the
                                 // neighbours' second pair of halves
  unsigned long long **rk_mail;  // [npeer] device: the neighbours' mailboxes
  int *rk_ranks;                 // [npeer] device: their ranks
  unsigned *rk_count;            // [3] device: blocks of the pack, the unpack, the dots'
                                 // fold done (0 between launches)
  unsigned long long *rk_seq;    // [2] device: the solve's halo exchanges, dot gathers so far
  cudaStream_t rk_side;          // the ghost columns' pack and unpack and the boundary zones'
                                 // product, beside the interior rows (highest priority where
                                 // launched directly), forked from and joined to the
                                 // context's stream
  cudaEvent_t rk_fork, rk_join;
} CudaPeer;


enum { kSpmmMaxCand = 16 };  // mass-matrix kernel variants the tuner may time

// Launch configuration of the quadrature kernel and the force GEMM (autotuned).
typedef struct {
  int zpb;   // zones per block
  int tpz;   // threads per zone
  int gtb;   // threads per block of k_force_gemm
  int reg;   // register cap of k_qdata_force: index into kQRegCap (0: none)
  int spec;  // 1: k_qdata_force specialised on the zone sizes (QSpecKernel), 0: run-time sizes
} QConfig;

// Doubles per point of S: dim^2 rounded up to even, so that S can be read 16 bytes at a time.
__host__ __device__ constexpr int SStride(int dim) {
  return dim == 3 ? 10 : dim == 2 ? 4 : 2;
}

// Columns per thread of k_force_gemm: 4 for narrow B (2D and low orders), else 8.
__host__ __device__ constexpr int GemmColumns(int ne) {
  return ne <= 4 ? 4 : 8;
}

// Doubles of shared memory per zone of k_qdata_force: x, v (rows each), e (ne) and the nqp
// Taylor-Green source weights.
__host__ __device__ static inline int QZoneDoubles(int rows, int ne, int nqp) {
  return 2 * rows + ne + nqp;
}

// ---------------------------------------------------------------------------------------
// Profile (BLAST_GPU_PROFILE=1, BlastGpuOptions.profile): events around every kernel, the
// totals with modeled bytes and flops returned by BlastCudaGetProfile. Serialises the
// stream: for benchmarks only.

enum {
  P_QDATA,
  P_GEMM,
  P_FORCE_ONES,
  P_GATHER,
  P_FORCE_T,
  P_ME_APPLY,
  P_SPMV,
  P_DOT,
  P_VEC,
  P_HALO,
  P_CGUP,
  P_NPROF
};
static_assert((int)P_NPROF == (int)BLAST_GPU_PROFILE_KERNELS, "BLAST_GPU_PROFILE_KERNELS");

typedef struct {
  int on;
  cudaEvent_t e0, e1;
  double ms[P_NPROF];
  long long calls[P_NPROF];
  double bytes[P_NPROF], flops[P_NPROF];  // modeled totals
} Profile;

// ---------------------------------------------------------------------------------------
// Dots and the resident PCG

// Where a dot's block pairs lie on the device: nslots pairs of each component, component c
// from part[2 c stride] (k_dot_dd_multi, k_cg_update_multi: dot_part; the partial
// assembly's gather: mdot_part). DotFoldComp (kernels/dot_block.cuh) folds them.
typedef struct {
  const double *part;
  int stride, nslots;
} DotSlots;

// Iterations per pass of the resident PCG (ops_pcg.cu) where the mode gates its product. A
// relaunch of a conditional WHILE node's body costs the GPU ~2.5 us per node (H100): 11.5
// us after each iteration at 4,096 zones with one iteration per body, 33-42 us after every
// fourth with four. Gated modes therefore replay the pass as a plain graph from the host,
// with kPcgInFlight passes queued: while the host waits for the end of one, the next is
// queued behind it. Passes come in kPcgLens lengths, kPcgUnroll << j iterations (4, 8,
// 16): each launch costs the GPU ~5 us between passes, so a solve queues long ones while
// it is far from its expected end (PcgReplay).
enum { kPcgUnroll = 4, kPcgLens = 3, kPcgInFlight = 2 };
enum { kPcgPassMax = kPcgUnroll << (kPcgLens - 1) };

// The resident PCG of several ranks (ops_pcg.cu, through the CUDA IPC areas): the doubles
// each rank gathers per dot (a folded pair per component), and the iterations the host
// queues ahead of the last one it knows has finished, in passes of kPcgRanksPass (a graph
// each; kPcgRanksAhead a multiple of it). Every rank queues the same passes (each posts to
// and waits for the other ranks on the GPU): a pass is queued unless the solve ended in
// the pass kPcgRanksAhead iterations before it or earlier, which every rank learns from
// its own device at the same point.
enum { kPcgRankPairs = 6, kPcgRanksAhead = 4, kPcgRanksPass = 2 };
static_assert(kPcgRanksAhead % kPcgRanksPass == 0, "kPcgRanksAhead: whole passes");

// The resident solve's mailbox in a rank's area (CudaPeer): a flag per sending rank for
// the ghost columns (the sender's exchanges so far), one per rank for the dots, then the
// dot pairs, [2 parities][kPeerMailRanks][kPcgRankPairs]; it follows the area's four
// halves (PeerMail). Ranks beyond kPeerMailRanks run the host loop.
enum { kPeerMailRanks = 64 };
enum { kPeerMail = 2 * kPeerMailRanks + 2 * kPeerMailRanks * kPcgRankPairs };
static inline unsigned long long *PeerMail(double *area, int64_t half) {
  return (unsigned long long *)(area + 4 * half);
}

// What a kernel of the resident solve needs for the dot gathers through the mailboxes:
// this rank's mailbox, the neighbours' (npeer, their ranks), the gathers so far
// (CudaPeer.rk_seq[1]), this rank and the run's rank count.
typedef struct {
  const unsigned long long *mail;
  unsigned long long *const *out;
  const int *ranks;
  unsigned long long *seq;
  int npeer, me, nranks;
} PeerDots;
static inline PeerDots PeerDotsOf(const CudaPeer *p) {
  const PeerDots d = {PeerMail(p->area, (int64_t)p->half),
                      p->rk_mail,
                      p->rk_ranks,
                      p->rk_seq + 1,
                      p->npeer,
                      p->rank,
                      p->nranks};
  return d;
}

// Quadrature updates whose results may wait for the next ctx.sync (CudaCtx.q_res).
enum { kQPending = 8 };

// How a solve of host-replayed passes ended, in pinned host memory: the final state,
// written by the device before the flag that says the loop has ended (the host stops
// queueing passes and takes the state from here, without waiting for the stream).
typedef struct {
  BlastPcgState s;
  int flag;
} PcgEnd;

// The resident lockstep PCG's state on the device (ops_pcg.cu): pcg_step.h's state, the
// solve's parameters, whether the solve has ended (the iterations after that in the
// pass do nothing) and which of the pass's iterations took a step.
typedef struct {
  BlastPcgState s;
  double tol;
  double delta[3];  // the running iteration's dots (d_c, Ad_c), from k_pcg_update's or
                    // k_pcgr_update's blocks (k_pcgr_test reads them)
  int max_iter, ncomp;
  int stop;              // the loop has ended (no iteration to start)
  int ran[kPcgPassMax];  // the pass's iteration k updated r and z (its advance follows)
  // host-replayed passes: pinned host memory, the final state and a flag set to 1 when
  // the loop ends; NULL under a WHILE node, whose condition the kernels set instead
  PcgEnd *end;
} PcgDev;

// The resident PCG's graphs (ops_pcg.cu): one per component count, built for b and x,
// each the setup of the solve then, where the mode gates its product, a pass graph the
// host replays (pass[ncomp][j], kPcgUnroll << j iterations); else a conditional WHILE
// node over one iteration.
typedef struct {
  cudaGraphExec_t exec[4];             // [ncomp]
  cudaGraphExec_t pass[4][kPcgLens];   // [ncomp] the host-replayed passes (NULL: a WHILE node)
  cudaEvent_t done[kPcgInFlight + 1];  // after each queued pass (ring)
  PcgEnd *end;                         // pinned: PcgDev.end
  const double *key[4][6];             // what exec[ncomp] was built for: b, x, the 4 work vectors
  PcgDev *dev;                         // the state (device)
  PcgDev *host;                        // its copy back (pinned)
  double *part;                        // [6 kDotBlocks] the residual update's block pairs
  unsigned *count;                     // blocks of k_pcg_update done (0 between launches)
  unsigned char *ess;                  // [h1_nown] bit c: constrained in component c
  int off;                             // 1: no graphs (options, or a build that failed once)
  int last_iter[4];                    // [ncomp] iterations of the last solve (0: none yet)
  // several ranks: the folded pairs of this rank's product and update dots (2 x
  // kPcgRankPairs), and the end of each queued pass (ring)
  double *rk_pair;
  cudaEvent_t rk_done[kPcgRanksAhead + 1];
} CudaPcg;

// ---------------------------------------------------------------------------------------
// The context of a run

struct CudaCtx;

// The full-assembly mode's data (mode_full.cu): the mass matrix (sliced ELLPACK for the
// double-double kernel, or interior/boundary CSR matrices for cuSPARSE) and the two
// tuners (the quadrature kernel's launch shape with the force GEMM's block; the
// mass-matrix kernel's variant).
typedef struct {
  DevCsr mv_int, mv_bnd;  // mass matrix interior/boundary rows (cuSPARSE)
  cusparseDnVecDescr_t vx_int, vy_int, vx_bnd, vy_bnd;
  int *mv_rows;    // [nown] row order: interior rows then boundary rows (cuSPARSE only)
  double *y_perm;  // [nown] cuSPARSE SpMV output in that order
  // the mass matrix in sliced ELLPACK (sell.h) for the double-double kernel
  int *sell_row, *sell_len, *sell_col;
  long long *sell_off;
  double *sell_val;
  int sell_slots, sell_slots_int;
  // host copies of the layout (rebuild writes the values of the CSR entries into it)
  int *sell_hrow, *sell_hlen;
  long long *sell_hoff, sell_nnz;
  int sell_sigma;         // rows ordered by length within windows of this many (0: all)
  double *xil;            // [3 next] x with components side by side
  const double *xil_src;  // x whose owned part the last INTERIOR call packed (else NULL)
  int xil_ncomp;          // with this many components
  // mass-matrix kernel variant (kSpmmCand) and its online tuning: candidate spmm_tune,
  // repeat spmm_rep, the timed call in flight between ev_s0 and ev_s1
  int spmm_cand, spmm_tune, spmm_rep, spmm_pending;
  float spmm_time[kSpmmMaxCand];
  cudaEvent_t ev_s0, ev_s1;
  QConfig qcfg;
  // autotuning state of the quadrature kernel
  int tune_active, tune_index, tune_ncand, tune_n1, tune_rep;  // n1: first-round candidates
  QConfig tune_cand[160];
  float tune_time[160];
  int q_regs[8];  // registers of the quadrature kernel's three variants, the GEMM's two and
                  // the specialised quadrature kernel's three (0 if none) (cache key)
} CudaFull;

// The partial-assembly mode's data (mode_partial.cu; its arrays of DevData aside): the
// generic kernels' per-thread scratch (pa_nthr threads of pa_wsz doubles), the mass
// kernel's zones per block and shared memory.
typedef struct {
  int *mv_rows;  // [nown] interior rows then boundary rows (the row gathers)
  double *pa_ws;
  int pa_nthr, pa_wsz, pa_zpb;
  int pa_q3;         // the quadrature update by k_pa_qdata3 (3D, its stages fit shared memory)
  double *pa_red;    // [2][nz / kPaRedSpan + 2] first-level reduction of its block results
  int *pa_red_zone;  // [nz / kPaRedSpan + 2]
  size_t pa_smem;
} CudaPartial;

// One assembly mode: its operations, chosen once at create from hd->assembly (the table's
// entries call them without testing the mode). Each owns the data it allocates.
typedef struct {
  const char *name;
  int (*setup)(CudaCtx *c);    // the mode's data of the discretisation (create)
  int (*rebuild)(CudaCtx *c);  // the mode's reference data from c->hd (create, ctx.rebuild)
  int (*destroy)(CudaCtx *c);
  // the quadrature update of zones [0, n) and the reduction of its block results into
  // red_out; sets c->q_tuning (whether it ran a tuning candidate)
  int (*qdata)(CudaCtx *c, int n, const double *x, const double *v, const double *e);
  int (*force_ones)(CudaCtx *c, int n);                // rows -F_z 1 of zones [0, n) into rE
  int (*force_t)(CudaCtx *c, int n, const double *v);  // b_z of zones [0, n)
  // mass.mult and mass.mult_dot (hydro/backend.h)
  int (*mass_mult)(CudaCtx *c, int rows, int ncomp, unsigned mask, const double *x, double *y);
  // (mass_mult_dot: the dot's block pairs where sl says, after a BOUNDARY or ALL call)
  int (*mass_mult_dot)(CudaCtx *c, int rows, int ncomp, unsigned mask, const double *x, double *y,
                       DotSlots *sl);
  // modeled bytes and flops of a quadrature update of nz zones ([0]: up to ev_mid, [1]: after)
  void (*qdata_model)(const CudaCtx *c, int nz, double bytes[2], double flops[2]);
  // whether mass_mult_dot of ncomp components launches only kernels that honour
  // CudaCtx.mass_gate (the resident PCG then runs passes of kPcgUnroll iterations; NULL: no)
  int (*mass_gated)(const CudaCtx *c, int ncomp);
} CudaMode;

extern const CudaMode kCudaFull, kCudaPartial;

typedef struct CudaCtx {
  BlastHydroData hd;
  BlastGpuOptions opt;  // as BlastCudaSetOptions left them at creation
  int sync;             // opt.sync: every launch checked by a synchronization
  const CudaMode *mode;
  union {  // mode's data: full for kCudaFull, part for kCudaPartial
    CudaFull full;
    CudaPartial part;
  };
  DevData dd;
  int nmat_cap;  // materials dd.mats has room for
  cudaStream_t stream;
  cublasHandle_t cublas;
  cusparseHandle_t cusparse;
  DevCsr me_inv;  // M_E^{-1} (cuSPARSE)
  cusparseDnVecDescr_t ve_in, ve_out;
  void *spmv_buf;  // cuSPARSE's work buffer for the largest SpMV (both modes' matrices)
  size_t spmv_buf_size;
  double *me_inv_blocks;
  double *mv_dinv;
  int *ess_off, *ess_idx;  // host offsets, device indices
  int nproj;               // wall projection nodes (ops_project.cu)
  int *proj_idx;
  double *proj_normal;
  int wall_np;  // their face records (mass.wall_normals, ops_project.cu)
  int *wall_off, *wall_slot, *wall_idx;
  double *wall_w;
  int ess_n[4];
  DevHalo halo[2];
  double *dbuf;   // device halo staging
  CudaPeer peer;  // the device-to-device halo transport (halo.peer_*), or zeros
  CudaNccl nccl;  // the NCCL halo transport (halo.nccl_*), or zeros
  size_t dbuf_n;
  double *dot_part;  // [6*kDotBlocks] device
  double *dot_pair;  // [6] device: one folded pair per component (DotFoldCombine)
  CudaPcg pcg;       // the resident PCG (ops_pcg.cu)
  double *dot_host;  // [kDotHostDoubles] pinned
  // The block pairs of mass.mult_dot's gathers (launched with GridFor(rows) blocks of
  // kDotThreads, so that they depend on the rows only, not on the device; a fixed grid
  // small enough for one pass would leave part of the GPU idle in a second wave): slots
  // [2 (c mdot_stride + s)] (+1), an INTERIOR then a BOUNDARY launch's, mdot_stride =
  // 2 GridFor(h1_nown); folded on the device into one pair per component (k_dot_fold).
  double *mdot_part;
  int mdot_stride, mdot_slots;  // mdot_slots: pairs per component its calls on x wrote
  double *red;                  // per-block dt and det; the reduced result in red_out
  double *red_out;
  int *red_zone;
  // pinned: dt, det, zone of the last synchronous update [0, 4), then of each queued one
  // (4 (k + 1), k < kQPending): BlastCudaQDataForce leaves up to kQPending results for
  // the next ctx.sync (QDataFlush), each timed by its pair of events q_ev[2 k], [2 k + 1]
  double *red_host;
  int nred;
  cudaEvent_t q_ev[2 * kQPending];
  BlastQDataResult *q_res[kQPending];
  int q_npend;
  // while the resident PCG's body is recorded: the mass kernels of the partial assembly
  // return at once where *mass_gate != 0 (PcgDev.stop: the solve has ended); else NULL
  const int *mass_gate;
  // which part of a BOUNDARY mass product the mode launches (the resident multi-rank solve
  // splits it): kMassPartAll both, on the context's stream; kMassPartZones the boundary
  // zones' products only, on mass_stream; kMassPartRows the boundary rows' gather only
  int mass_part;
  cudaStream_t mass_stream;
  // programmatic dependent launch (kernels/pdl.cuh): pdl_ok where the device has it
  // (compute capability 9.0) and BLAST_GPU_PDL=0 does not turn it off; while a pass of the
  // one-rank solve is recorded, pdl = pdl_ok, and pdl_after says that a kernel launched by
  // LaunchDep precedes on the stream (the pass's first kernel has none)
  int pdl_ok, pdl, pdl_after;
  double *energy_zone;           // [2*nz] device
  double *energy_host;           // [2*nz] pinned
  BlastGpuAutotune tuned;        // the decisions taken (BlastCudaGetAutotune)
  cudaEvent_t ev0, ev1, ev_mid;  // around the quadrature update; between its two parts
  char gpu_name[256];
  size_t smem_limit;  // the device's shared memory per block (opt-in)
  // hybrid (split_*): the staging buffer for host zones' E-vectors, the copy event, and
  // the quadrature update in flight
  double *stage;
  size_t stage_n;
  cudaEvent_t ev_copy;
  int q_ndev, q_tuning;
  Profile prof;
  size_t mem_used;      // device bytes taken by the backend's data
  size_t mem_free0;     // free device bytes when the backend was created
  size_t mem_estimate;  // BlastCudaMemoryEstimate of this rank
  size_t mem_in_use;    // ... and what the device lost since, at the first update
} CudaCtx;

// ---------------------------------------------------------------------------------------
// Small helpers

template <typename T>
static int DevUpload(const T *host, size_t n, T **dev) {
  *dev = NULL;
  BlastCallCuda(cudaMalloc((void **)dev, (n ? n : 1) * sizeof(T)));
  if (n && host) BlastCallCuda(cudaMemcpy(*dev, host, n * sizeof(T), cudaMemcpyHostToDevice));
  return 0;
}

// n entries from the host into an existing device allocation (rebuild of reference data).
template <typename T>
static int DevCopy(const T *host, size_t n, T *dev) {
  if (n) BlastCallCuda(cudaMemcpy(dev, host, n * sizeof(T), cudaMemcpyHostToDevice));
  return 0;
}

// The wall projection's device data (ops_project.cu): uploaded by create, freed by destroy.
int BlastCudaProjectSetup(CudaCtx *c, const BlastHydroData *hd);
int BlastCudaProjectFree(CudaCtx *c);

static inline size_t Blocks(size_t n, int threads) {
  return (n + threads - 1) / threads;
}

// Index of the least of t[0..n) (the fastest tuning candidate; -1 if n = 0).
static inline int ArgMin(const float *t, int n) {
  int best = n > 0 ? 0 : -1;
  for (int i = 1; i < n; i++)
    if (t[i] < t[best]) best = i;
  return best;
}

static inline int GridFor(size_t n) {
  const size_t b = Blocks(n, 256);
  return (int)(b < 65535 ? (b ? b : 1) : 65535);
}

// kernel<<<grid, block, smem, c->stream>>>(args...), as a programmatic dependent of the
// kernel before it where c->pdl and one launched here precedes (c->pdl_after): the kernel
// may start while that one runs, and waits for it in PdlWait (kernels/pdl.cuh), which
// every kernel launched here calls. Errors as an ordinary launch's (BlastCheckKernel).
template <typename... P, typename... A>
static inline void LaunchDep(CudaCtx *c, void (*kernel)(P...), dim3 grid, dim3 block, size_t smem,
                             A... args) {
  cudaLaunchAttribute at;
  at.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at.val.programmaticStreamSerializationAllowed = 1;
  // by position (grid, block, shared memory, stream, attributes): the host emulation of the
  // kernels (tests/gpu/test_pa_emulation.cpp) defines gridDim and blockDim as macros
  cudaLaunchConfig_t cfg = {grid, block, smem, c->stream, &at, c->pdl && c->pdl_after ? 1u : 0u};
  (void)cudaLaunchKernelEx(&cfg, kernel, args...);
  c->pdl_after = c->pdl;
}

static inline dim3 GridMulti(size_t n, int ncomp) {
  const size_t b = Blocks(n, 256);
  return dim3((unsigned)(b < 4096 ? (b ? b : 1) : 4096), (unsigned)ncomp);
}

static inline void ProfBegin(CudaCtx *c) {
  if (c->prof.on) cudaEventRecord(c->prof.e0, c->stream);
}
static inline void ProfEnd(CudaCtx *c, int k, double bytes, double flops) {
  Profile *p = &c->prof;
  if (!p->on) return;
  cudaEventRecord(p->e1, c->stream);
  cudaEventSynchronize(p->e1);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, p->e0, p->e1);
  p->ms[k] += ms, p->calls[k]++, p->bytes[k] += bytes, p->flops[k] += flops;
}

// ---------------------------------------------------------------------------------------
// Shared between the files of backends/cuda/

// setup.cu: CSR matrices on the device (the values may be NULL: allocated, not filled).
int UploadCsr(int64_t nrows, int64_t ncols, const int64_t *rowptr, const int64_t *col,
              const double *val, DevCsr *m);
int FreeCsr(DevCsr *m);
// dst[c * rows + r] = src[r * cols + c]: a rows x cols matrix transposed.
void Transpose(const double *src, size_t rows, size_t cols, double *dst);

// ops_zone.cu: the kernels chosen at run time, the quadrature update and its parts.
const void *QKernel(int dim, int reg, bool mixed);          // mixed: a mesh of triangles and quads
const void *QSpecKernel(int dim, int nd, int ne, int reg);  // NULL: none for these sizes
const void *QKernelOf(const DevData *d, QConfig q);
const void *GemmKernel(int dim, int jt, bool chunks, bool mixed);
int QDataStart(CudaCtx *c, int n, const double *x, const double *v, const double *e);
int QDataFinish(CudaCtx *c, BlastQDataResult *res, double *seconds);
int QDataFlush(CudaCtx *c);
int ReduceQData(CudaCtx *c, int blocks);
int ReduceQDataOf(CudaCtx *c, int blocks, const double *dt, const int *zone, const double *det);
int GatherRhs(CudaCtx *c, double *rhs);
int MeApply(CudaCtx *c, double *de);
size_t QSharedBytes(const CudaCtx *c, QConfig q);
int GemmChunk(const DevData *d, int gtb, size_t limit);
// ops_zone.cu: the full mode's zone launches (kernels 1-8, 10).
int FullQData(CudaCtx *c, int n, const double *x, const double *v, const double *e);
int FullForceOnes(CudaCtx *c, int n);
int FullForceT(CudaCtx *c, int n, const double *v);

// ops_mass.cu: the block pairs in part (slot b of component k at 2 (k stride + b)) back
// on the host, the first nslots of each active component summed in slot order and
// rounded once into result[2k], result[2k+1] (zeros for the others).
int DotCombine(CudaCtx *c, const double *part, int ncomp, unsigned mask, int stride, int nslots,
               double *result);
// ops_mass.cu: y = m x by cuSPARSE (`[gpu] spmv = cusparse`).
int SpMV(CudaCtx *c, const DevCsr *m, cusparseDnVecDescr_t vx, const double *x,
         cusparseDnVecDescr_t vy, double *y);
// ops_mass.cu: the full mode's mass matrix product (kernel 9, or cuSPARSE).
int FullMassMult(CudaCtx *c, int rows, int ncomp, unsigned mask, const double *x, double *y);
// ops_mass.cu: mass.mult_dot as the mode's mass_mult, then at the BOUNDARY (or ALL) call
// k_dot_dd_multi over all owned rows (its block pairs in sl).
int MassMultThenDot(CudaCtx *c, int rows, int ncomp, unsigned mask, const double *x, double *y,
                    DotSlots *sl);
// ops_mass.cu: the dots (x_c, y_c) of the active components as block pairs (dot_part).
int DotMultiSlots(CudaCtx *c, int ncomp, unsigned mask, const double *x, const double *y,
                  DotSlots *sl);
// ops_mass.cu: block pairs folded on the device (k_dot_fold), then combined on the host
// into result (2 ncomp doubles).
int DotFoldCombine(CudaCtx *c, const DotSlots *sl, int ncomp, unsigned mask, double *result);
// ops_mass.cu: block pairs folded on the device into one normalised pair per component
// (pairs[2c], pairs[2c + 1]; zeros outside mask).
int DotFold(CudaCtx *c, const DotSlots *sl, int ncomp, unsigned mask, double *pairs);
// ops_halo.cu: release the device-to-device transport (destroy; halo.peer_import(NULL)).
int PeerRelease(CudaCtx *c);
// ops_halo.cu: the resident solve's ghost columns through the CUDA IPC areas (CudaPeer).
// Begin forks CudaPeer.rk_side and packs on it, End unpacks on it, Join joins it back.
int PeerSolveHaloBegin(CudaCtx *c, int ncomp, size_t st, const double *d);
int PeerSolveHaloEnd(CudaCtx *c, int ncomp, size_t st, double *d);
int PeerSolveJoin(CudaCtx *c);
// ops_halo.cu: a dot's block pairs folded into this rank's kPcgRankPairs doubles and posted
// to every other rank through the areas (the kernel that needs the dot gathers them).
int PeerSolveDotPost(CudaCtx *c, const DotSlots *sl, int ncomp, unsigned mask, double *mine);
// ops_halo.cu: release the NCCL transport (destroy; halo.nccl_init(NULL)).
int NcclRelease(CudaCtx *c);
// ops_pcg.cu: the resident PCG's buffers (create) and graphs (destroy; rebuild drops them).
int PcgSetup(CudaCtx *c);
int PcgDropGraphs(CudaCtx *c);
int PcgFree(CudaCtx *c);

// autotune.cu: the tuners and their cache.
extern const int kQRegCap[3];
extern const int kGemmThreads[3];
typedef struct {
  int threads, minb, unr;
} SpmmCand;
enum { kSpmmNCand = 10, kSpmmReps = 3 };
extern const SpmmCand kSpmmCand[kSpmmNCand];
static_assert((int)kSpmmNCand <= (int)kSpmmMaxCand, "kSpmmMaxCand");
int QConfigFit(const CudaCtx *c, const QConfig *q, size_t limit);
int TuneCandidates(CudaCtx *c);
int TuneSetup(CudaCtx *c);
int QTuneRecord(CudaCtx *c, float ms);
int SpmmTuneCollect(CudaCtx *c);

// profile.cu
void FullQDataModel(const CudaCtx *c, int nz, double bytes[2], double flops[2]);
void PartialQDataModel(const CudaCtx *c, int nz, double bytes[2], double flops[2]);
int ProfileCreate(CudaCtx *c);
int ProfileDestroy(CudaCtx *c);
int ProfileQData(CudaCtx *c, float ms);

#endif  // BLAST_GPU_CONTEXT_H
