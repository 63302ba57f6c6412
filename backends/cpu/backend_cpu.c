// The CPU (OpenMP) reference backend: its table, the context's life (create, rebuild,
// destroy) and its memory. The operations are in cpu_*.c (cpu_ctx.h lists them); the
// assembly mode is an object chosen at create (cpu_full.c, cpu_partial.c).
#include <omp.h>
#include <string.h>

#include "backend.h"
#include "blast.h"
#include "cpu_ctx.h"
#include "cpu_zones.h"

// BlastCtxOps.rebuild: the reference data of hd, read in place; the mode refreshes what
// it derived from them (the partial path's J0^{-1}).
static int CpuRebuild(void *ctx, const BlastHydroData *hd) {
  CpuCtx *c = ctx;
  c->hd = *hd;
  return c->mode->rebuild(c->md, hd);
}

static int CpuDestroy(void **ctx) {
  if (!ctx || !*ctx) return 0;
  CpuCtx *c = *ctx;
  BlastFree(&c->st.F), BlastFree(&c->st.rE), BlastFree(&c->st.S), BlastFree(&c->st.b);
  BlastFree(&c->st.tg);
  if (c->mode) c->mode->destroy(&c->md);
  BlastFree(&c->partial);
  BlastFree(&c->ws);
  BlastFree(&c->proj_normal);
  BlastFree(ctx);
  return 0;
}

static int CpuCreate(const BlastHydroData *hd, void **ctx) {
  CpuCtx *c;
  BlastCall(BlastCalloc(1, &c));
  c->hd = *hd;
  c->rows = hd->dim * hd->h1_nd;
  c->nthreads = omp_get_max_threads();
  c->mode = BlastCpuModeOf(hd);
  c->ws_size = c->mode->workspace(hd);
  int ierr = c->mode->create(hd, 1, &c->md);
  if (!ierr) ierr = c->mode->reserve(hd, hd->nz, 1, &c->st);
  if (!ierr && hd->tg_source) {  // zeroed: a context's source integrals start at 0
    BlastFree(&c->st.tg);
    ierr = BlastCalloc((size_t)hd->nz * hd->l2_nd, &c->st.tg);
  }
  if (!ierr) ierr = BlastMalloc(c->ws_size * c->nthreads, &c->ws);
  if (!ierr) ierr = BlastMalloc(9 * (size_t)hd->nproj + 1, &c->proj_normal);
  if (!ierr && hd->nproj)
    memcpy(c->proj_normal, hd->proj_normal, 9 * (size_t)hd->nproj * sizeof(double));
  if (!ierr) ierr = CpuRebuild(c, hd);
  if (ierr) {
    void *p = c;
    CpuDestroy(&p);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  const double tg = hd->tg_source ? (double)hd->nz * hd->l2_nd : 0.0;
  c->bytes = (size_t)(((double)c->ws_size * c->nthreads + tg + c->mode->store_doubles(hd) +
                       9.0 * hd->nproj) *
                      sizeof(double));
  *ctx = c;
  return 0;
}

// Bytes of the constant data of BlastHydroData that this backend reads in place.
static double HydroDataBytes(const BlastHydroData *hd) {
  const double nz = hd->nz, nd = hd->h1_nd, ne = hd->l2_nd, nq = hd->nqp;
  const double nze = hd->assembly == BLAST_ASSEMBLY_PARTIAL ? hd->pa.nz_ext : nz;
  const double d2 = (double)hd->dim * hd->dim, nown = hd->h1_nown;
  double ints = nze * nd + (hd->h1_nl + 1.0) + nz * nd + (nown + 1.0) + nown + nz;
  double dbls = nz * nq + nz * ne * ne + nown + (double)hd->dim * hd->h1_nl;
  if (hd->pa.mass_toff) ints += hd->pa.mass_toff[hd->h1_nown];
  if (hd->full.J0inv) dbls += nz * nq * d2;
  if (hd->full.rowptr) {  // 64-bit row offsets (8 bytes, as a double), int columns, values
    const double nnz = (double)(hd->full.rowptr[hd->h1_nown] - hd->full.rowptr[0]);
    ints += nnz, dbls += nown + 1.0 + nnz;
  }
  if (hd->pa.qmass) dbls += nze * nq, ints += nze;
  return 4.0 * ints + 8.0 * dbls;
}

size_t BlastCpuMemoryUsed(void *ctx) {
  const CpuCtx *c = ctx;
  return c->bytes + (size_t)HydroDataBytes(&c->hd);
}

static int CpuSync(void *ctx) {
  (void)ctx;
  return 0;  // every operation completes before it returns
}

const BlastBackendOps blast_backend_cpu = {
    .name = "cpu",
    .ctx = {.create = CpuCreate, .destroy = CpuDestroy, .rebuild = CpuRebuild, .sync = CpuSync},
    .vec =
        {
            .alloc = BlastCpuAlloc,
            .free = BlastCpuFree,
            .host_alloc = BlastCpuAlloc,
            .host_free = BlastCpuFree,
            .to_host = BlastCpuCopy,
            .from_host = BlastCpuCopy,
            .copy = BlastCpuCopy,
            .set = BlastCpuSet,
            .axpby = BlastCpuAxpby,
            .waxpby = BlastCpuWaxpby,
            .dot = BlastCpuDot,
        },
    .zone =
        {
            .qdata_force = BlastCpuQDataForce,
            .momentum_rhs = BlastCpuMomentumRhs,
            .energy_rate = BlastCpuEnergyRate,
            .energies = BlastCpuEnergies,
        },
    .mass =
        {
            .mult = BlastCpuMassMult,
            .jacobi = BlastCpuJacobi,
            .zero_essential = BlastCpuZeroEssential,
            .project = BlastCpuProject,
            .wall_normals = BlastCpuWallNormals,
            .axpby_multi = BlastCpuAxpbyMulti,
            .dot_multi = BlastCpuDotMulti,
            .mult_dot = BlastCpuMassMultDot,
            .cg_update = BlastCpuCgUpdate,
            .cg_advance = BlastCpuCgAdvance,
            .pcg = BlastCpuPcg,
        },
    .halo = {.pack = BlastCpuHaloPack,
             .unpack = BlastCpuHaloUnpack,
             .unpack_dd = BlastCpuHaloUnpackDD,
             .peer_export = BlastCpuHaloPeerExport,
             .peer_import = BlastCpuHaloPeerImport,
             .peer_send = BlastCpuHaloPeerSend,
             .peer_sent = BlastCpuHaloPeerSent,
             .peer_recv = BlastCpuHaloPeerRecv,
             .nccl_probe = BlastCpuHaloNcclProbe,
             .nccl_init = BlastCpuHaloNcclInit,
             .nccl_begin = BlastCpuHaloNcclBegin,
             .nccl_end = BlastCpuHaloNcclEnd},
    .split =
        {
            .qdata_begin = BlastCpuSplitQDataBegin,
            .qdata_end = BlastCpuSplitQDataEnd,
            .gather = BlastCpuSplitGather,
            .momentum_rhs = BlastCpuSplitMomentumRhs,
            .energy_rate = BlastCpuSplitEnergyRate,
            .host_zones = BlastCpuHostZones,
        },
};
