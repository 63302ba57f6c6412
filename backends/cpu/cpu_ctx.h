// The CPU backend's internals (backends/cpu/): its context, the assembly-mode objects and
// what its files share. Files:
//   backend_cpu.c   the table, create/destroy/rebuild, memory use
//   cpu_vec.c       vector operations, dot products, the PCG vector updates
//   cpu_zone.c      the zone loop (quadrature data over zone ranges), the force actions
//                   -F.1 and M_E^{-1} F^T v, energies, the split and the hybrid's host zones
//   cpu_halo.c      halo packing
//   cpu_full.c      the full-assembly mode: F_z per zone, the assembled mass matrix
//   cpu_partial.c   the partial-assembly mode: sum-factorised zone kernels, the
//                   matrix-free mass action
// Every reduction and every assembly is ordered independently of the number of threads,
// so results are bitwise identical for any OMP_NUM_THREADS.
#ifndef BLAST_CPU_CTX_H
#define BLAST_CPU_CTX_H

#include <stddef.h>

#include "backend.h"
#include "lanes.h"

enum { kDotChunk = 4096 };
// Loops shorter than these run on one thread: a fork/join costs more than the work.
#define BLAST_OMP_MIN_VEC   32768
#define BLAST_OMP_MIN_ZONES 64

// Compensated sums side by side in one 4-wide vector (the components of a row, or four
// chunks of a dot product): the same operations as BlastDDAdd on each lane (and, written
// out where they are used, BlastDDAddDD and BlastDDNormalize), so the same bits as one
// sum per lane, in a fraction of the instructions (GCC/Clang vector extension; no
// contraction into fused multiply-adds under -std=c11).
static inline void V4DDAdd(BlastV4 *hi, BlastV4 *lo, BlastV4 x) {
  const BlastV4 s = *hi + x, bb = s - *hi;
  *lo += (*hi - (s - bb)) + (x - bb);
  *hi = s;
}

// What a mode keeps for a contiguous range of zones (slot f: zone z0 + f), allocated by
// the mode's reserve.
typedef struct {
  double *F;   // full: [n * rows * l2_nd] zone force matrices, column-major
  double *rE;  // [n * rows] zone rows -F_z 1; the context's partial store: [nz_ext * 3 *
               // h1_nd + 1], between momentum_rhs and qdata_force also the mass action's
               // zone values, node-interleaved: [(z * h1_nd + a) * 3 + c]
  double *S;   // partial with keep_stress: [n * nqp * dim^2] stress per point
  double *b;   // partial without it: [n * l2_nd] F_z^T v_z (+ source)
  double *tg;  // [n * l2_nd] Taylor-Green source integrals (or NULL)
  int cap;     // zones reserved
} CpuZoneStore;

typedef struct CpuMode CpuMode;

// Quadrature data of zones [z0, z1): zone z's inputs from L-vectors (xE == NULL) or from
// E-vectors at (z - z0), its results into slot z - f0 of the store.
typedef struct {
  const BlastHydroData *hd;
  const CpuMode *mode;
  const void *md;              // the mode's data
  const double *x, *v, *e;     // L-vectors and the zone-blocked e (when xE == NULL)
  const double *xE, *vE, *eE;  // E-vectors of zones [z0, z1)
  const CpuZoneStore *st;
  int f0;
} ZoneRange;

// An assembly mode: its data (md) and operations, chosen once at create.
struct CpuMode {
  const char *name;
  // md for hd; `context`: the run's context (else the hybrid's host zones, which keep no
  // precomputed reference data)
  int (*create)(const BlastHydroData *hd, int context, void **md);
  void (*destroy)(void **md);
  // new reference data (BlastCtxOps.rebuild)
  int (*rebuild)(void *md, const BlastHydroData *hd);
  // doubles of one thread's workspace
  size_t (*workspace)(const BlastHydroData *hd);
  // the store of n zones (`context`: the run's context, whose partial store also holds the
  // mass action's values of every zone, halo zones included); allocates anew (or grows)
  int (*reserve)(const BlastHydroData *hd, int n, int context, CpuZoneStore *st);
  // doubles a context's store of nz zones holds (memory reports)
  double (*store_doubles)(const BlastHydroData *hd);
  // zone z's quadrature data from its E-vectors xz, vz, ez into slot f; ws: workspace
  void (*zone)(const ZoneRange *zr, int z, size_t f, const double *xz, const double *vz,
               const double *ez, double *ws, double *dt_min, int *tangled, double *tangled_det);
  // rows -F_z 1 of slot f into r (the partial path wrote them with the quadrature data:
  // copied unless r is the store's own row)
  void (*force_ones)(const BlastHydroData *hd, const CpuZoneStore *st, size_t f, double *r);
  // b = F_z^T v_z (+ source) of slot f, v_z the zone's velocity E-vector, into b (ws:
  // workspace); stored_b instead returns the slot's b where the quadrature data computed it
  // (else NULL: then force_t is called)
  void (*force_t)(const BlastHydroData *hd, const void *md, const CpuZoneStore *st, size_t f,
                  const double *vz, double *b, double *ws);
  const double *(*stored_b)(const BlastHydroData *hd, const CpuZoneStore *st, size_t f);
  // y_c = M x_c on the owned rows `rows` (BlastMassOps.mult) with the context's data
  void (*mass_mult)(const BlastHydroData *hd, const void *md, const CpuZoneStore *st,
                    double *ws_all, size_t ws_size, int nthreads, int rows, int ncomp,
                    unsigned mask, const double *x, double *y);
};

extern const CpuMode blast_cpu_mode_full;
extern const CpuMode blast_cpu_mode_partial;
// The mode of hd's assembly.
const CpuMode *BlastCpuModeOf(const BlastHydroData *hd);

// The context of a run.
typedef struct {
  BlastHydroData hd;
  double *proj_normal;  // [9 nproj] the wall normals of mass.project (mass.wall_normals)
  int rows;             // dim * h1_nd: rows of a zone force matrix
  const CpuMode *mode;
  void *md;         // the mode's data
  CpuZoneStore st;  // the mode's per-zone results of this rank's zones
  double *partial;  // dot-product chunk sums
  size_t npartial;
  double *ws;  // per-thread workspace
  size_t ws_size;
  int nthreads;
  size_t bytes;                // allocated by create and vec.alloc (BlastCpuMemoryUsed)
  BlastQDataResult split_res;  // hybrid tests: this backend's part of the last split update
  double split_seconds;
} CpuCtx;

// E-vector of the H1 field u (component-major L-vector) on zone z.
static inline void BlastCpuGatherZone(const BlastHydroData *hd, int z, const double *u,
                                      double *uz) {
  const int nd = hd->h1_nd, nl = hd->h1_nl;
  const int *dof = &hd->h1_edof[(size_t)z * nd];
  for (int cc = 0; cc < hd->dim; cc++)
    for (int a = 0; a < nd; a++) uz[cc * nd + a] = u[(size_t)cc * nl + dof[a]];
}

// ---- cpu_zone.c: the zone loop and the zone groups of the table ----
// ws_all holds nthreads workspaces of ws_size: the region never uses more threads.
void BlastCpuQDataRange(const ZoneRange *zr, int z0, int z1, double *ws_all, size_t ws_size,
                        int nthreads, BlastQDataResult *res);
int BlastCpuQDataForce(void *ctx, const double *x, const double *v, const double *e,
                       BlastQDataResult *res);
int BlastCpuMomentumRhs(void *ctx, double *rhs);
int BlastCpuEnergyRate(void *ctx, const double *v, double *de);
int BlastCpuEnergies(void *ctx, const double *v, const double *e, double dd[4]);
int BlastCpuSplitQDataBegin(void *ctx, int ndev, const double *x, const double *v, const double *e,
                            double *host_x, double *host_v, double *host_e);
int BlastCpuSplitQDataEnd(void *ctx, BlastQDataResult *res, double *seconds, int *tuning);
int BlastCpuSplitGather(void *ctx, int z0, int z1, const double *h1, double *host);
int BlastCpuSplitMomentumRhs(void *ctx, int ndev, const double *host_rows, double *rhs);
int BlastCpuSplitEnergyRate(void *ctx, int ndev, const double *host_b, const double *v, double *de);

// ---- cpu_vec.c ----
int BlastCpuAlloc(void *ctx, size_t n, double **p);
int BlastCpuFree(void *ctx, double **p);
int BlastCpuCopy(void *ctx, size_t n, const double *src, double *dst);
int BlastCpuSet(void *ctx, size_t n, double a, double *x);
int BlastCpuAxpby(void *ctx, size_t n, double a, const double *x, double b, double *y);
int BlastCpuWaxpby(void *ctx, size_t n, double a, const double *x, double b, const double *y,
                   double *w);
int BlastCpuDot(void *ctx, size_t n, const double *x, const double *y, double *result);
int BlastCpuMassMult(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y);
int BlastCpuJacobi(void *ctx, int ncomp, unsigned mask, const double *r, double *z);
int BlastCpuZeroEssential(void *ctx, int ncomp, unsigned mask, double *y);
int BlastCpuProject(void *ctx, int ncomp, double *y);
int BlastCpuWallNormals(void *ctx, int ncomp, const double *x, const double *v, double *a0);
int BlastCpuAxpbyMulti(void *ctx, int ncomp, unsigned mask, const double *a, const double *x,
                       const double *b, double *y);
int BlastCpuDotMulti(void *ctx, int ncomp, unsigned mask, const double *x, const double *y,
                     double *result);
int BlastCpuMassMultDot(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y,
                        double *result);
int BlastCpuCgUpdate(void *ctx, int ncomp, unsigned mask, const double *a, const double *Ad,
                     double *r, double *z, double *result);
int BlastCpuCgAdvance(void *ctx, int ncomp, unsigned xmask, unsigned dmask, const double *a,
                      const double *b, const double *z, double *d, double *x);
int BlastCpuPcg(void *ctx, int ncomp, double tol, int max_iter, double *b, double *x,
                double *const work[4], BlastPcgState *s, int *resident);

// ---- cpu_halo.c ----
int BlastCpuHaloPack(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *x,
                     double *buf);
int BlastCpuHaloUnpack(void *ctx, int which, int reverse, int ncomp, size_t stride,
                       const double *buf, double *x);
int BlastCpuHaloUnpackDD(void *ctx, int which, int ndd, size_t stride, const double *buf,
                         double *x);
int BlastCpuHaloPeerExport(void *ctx, size_t half, unsigned char *blob, int *ok);
int BlastCpuHaloPeerImport(void *ctx, const BlastHaloPeers *p, int *ok);
int BlastCpuHaloPeerSend(void *ctx, int which, int reverse, int ncomp, size_t stride,
                         const double *x, int parity);
int BlastCpuHaloPeerSent(void *ctx);
int BlastCpuHaloPeerRecv(void *ctx, int which, int reverse, int dd, int ncomp, size_t stride,
                         int parity, double *x);
int BlastCpuHaloNcclProbe(void *ctx, unsigned char *id, char *bus, int *ok);
int BlastCpuHaloNcclInit(void *ctx, const BlastHaloNccl *p, int *ok);
int BlastCpuHaloNcclBegin(void *ctx, int which, int reverse, int ncomp, size_t stride,
                          const double *x);
int BlastCpuHaloNcclEnd(void *ctx, int which, int reverse, int dd, int ncomp, size_t stride,
                        double *x);

#endif  // BLAST_CPU_CTX_H
