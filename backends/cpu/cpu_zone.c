// The zone groups of the CPU backend (cpu_ctx.h): the zone loop over zone ranges with the
// mode's zone kernel, the force actions -F.1 (a deterministic gather over each dof's
// zones) and M_E^{-1} F^T v, the energies, the split of the hybrid, and the hybrid's host
// zones (cpu_zones.h).
#include <math.h>
#include <omp.h>
#include <string.h>

#include "blast.h"
#include "cpu_ctx.h"
#include "cpu_zones.h"
#include "ddsum.h"

const CpuMode *BlastCpuModeOf(const BlastHydroData *hd) {
  return hd->assembly == BLAST_ASSEMBLY_PARTIAL ? &blast_cpu_mode_partial : &blast_cpu_mode_full;
}

void BlastCpuQDataRange(const ZoneRange *zr, int z0, int z1, double *ws_all, size_t ws_size,
                        int nthreads, BlastQDataResult *res) {
  const BlastHydroData *hd = zr->hd;
  const int rows = hd->dim * hd->h1_nd, ne = hd->l2_nd;
  double dt_min = HUGE_VAL, tdet = 0.0;
  int tangled = -1;
#pragma omp parallel if (z1 - z0 > BLAST_OMP_MIN_ZONES) num_threads(nthreads)
  {
    double *ws = &ws_all[(size_t)omp_get_thread_num() * ws_size];
    double *xz = ws, *vz = xz + rows, *ez = vz + rows, *kws = ez + ne;
    double my_dt = HUGE_VAL, my_det = 0.0;
    int my_tangled = -1;
#pragma omp for schedule(static)
    for (int z = z0; z < z1; z++) {
      const double *xs = xz, *vs = vz, *es = ez;
      if (zr->xE) {
        const size_t k = (size_t)(z - z0);
        xs = &zr->xE[k * rows], vs = &zr->vE[k * rows], es = &zr->eE[k * ne];
      } else {
        BlastCpuGatherZone(hd, z, zr->x, xz);
        BlastCpuGatherZone(hd, z, zr->v, vz);
        for (int i = 0; i < ne; i++) ez[i] = zr->e[(size_t)z * ne + i];
      }
      zr->mode->zone(zr, z, (size_t)(z - zr->f0), xs, vs, es, kws, &my_dt, &my_tangled, &my_det);
    }
#pragma omp critical
    {
      if (my_dt < dt_min) dt_min = my_dt;
      if (my_tangled >= 0 && (tangled < 0 || my_tangled < tangled))
        tangled = my_tangled, tdet = my_det;
    }
  }
  res->dt_est = dt_min;
  res->tangled_zone = tangled;
  res->tangled_det = tdet;
}

// The zone range of the context's own zones (indexed from zone 0).
static ZoneRange OwnZones(const CpuCtx *c, const double *x, const double *v, const double *e) {
  const ZoneRange zr = {&c->hd, c->mode, c->md, x, v, e, NULL, NULL, NULL, &c->st, 0};
  return zr;
}

int BlastCpuQDataForce(void *ctx, const double *x, const double *v, const double *e,
                       BlastQDataResult *res) {
  CpuCtx *c = ctx;
  const ZoneRange zr = OwnZones(c, x, v, e);
  BlastCpuQDataRange(&zr, 0, c->hd.nz, c->ws, c->ws_size, c->nthreads, res);
  return 0;
}

// Zone rows -F_z 1 of zones [0, ndev) (the others are in the store already), then a
// gather over each dof's zones in a fixed order (no atomics, deterministic).
static void MomentumGather(CpuCtx *c, int ndev, double *rhs) {
  const BlastHydroData *hd = &c->hd;
  const int rows = c->rows, nd = hd->h1_nd, nl = hd->h1_nl, dim = hd->dim;
  double *rE = c->st.rE;
#pragma omp parallel for schedule(static) if (ndev > BLAST_OMP_MIN_ZONES)
  for (int z = 0; z < ndev; z++) c->mode->force_ones(hd, &c->st, (size_t)z, &rE[(size_t)z * rows]);
#pragma omp parallel for schedule(static) if (nl > BLAST_OMP_MIN_VEC / 8)
  for (int l = 0; l < nl; l++) {
    for (int cc = 0; cc < dim; cc++) {
      BlastDD s = {0.0, 0.0};
      for (int t = hd->h1_toff[l]; t < hd->h1_toff[l + 1]; t++) {
        const int eidx = hd->h1_tidx[t], z = eidx / nd, a = eidx % nd;
        BlastDDAdd(&s, rE[(size_t)z * rows + cc * nd + a]);
      }
      BlastDDNormalize(&s);
      rhs[(size_t)cc * nl + l] = s.hi;
      rhs[(size_t)(dim + cc) * nl + l] = s.lo;
    }
  }
}

int BlastCpuMomentumRhs(void *ctx, double *rhs) {
  CpuCtx *c = ctx;
  MomentumGather(c, c->hd.nz, rhs);
  return 0;
}

// de_z = M_E,z^{-1} b_z (kernel 11).
static void ZoneMinv(int ne, const double *Minv, const double *b, double *de) {
  for (int i = 0; i < ne; i++) {
    double s = 0.0;
    for (int j = 0; j < ne; j++) s += Minv[i + ne * j] * b[j];
    de[i] = s;
  }
}

// de = M_E^{-1} b zone by zone; b of zones [0, ndev) from the mode (F^T v), the others
// given.
static void EnergyRate(CpuCtx *c, int ndev, const double *host_b, const double *v, double *de) {
  const BlastHydroData *hd = &c->hd;
  const int rows = c->rows, ne = hd->l2_nd, nz = hd->nz;
#pragma omp parallel if (nz > BLAST_OMP_MIN_ZONES) num_threads(c->nthreads)
  {
    double *ws = &c->ws[(size_t)omp_get_thread_num() * c->ws_size];
    double *vz = ws, *b = ws + rows;
#pragma omp for schedule(static)
    for (int z = 0; z < nz; z++) {
      const double *bz = b;
      if (z >= ndev) {
        bz = &host_b[(size_t)(z - ndev) * ne];
      } else if (!(bz = c->mode->stored_b(hd, &c->st, (size_t)z))) {
        BlastCpuGatherZone(hd, z, v, vz);
        c->mode->force_t(hd, c->md, &c->st, (size_t)z, vz, b, b + ne);
        bz = b;
      }
      ZoneMinv(ne, &hd->me_inv[(size_t)z * ne * ne], bz, &de[(size_t)z * ne]);
    }
  }
}

int BlastCpuEnergyRate(void *ctx, const double *v, double *de) {
  CpuCtx *c = ctx;
  EnergyRate(c, c->hd.nz, NULL, v, de);
  return 0;
}

int BlastCpuEnergies(void *ctx, const double *v, const double *e, double dd[4]) {
  CpuCtx *c = ctx;
  const BlastHydroData *hd = &c->hd;
  const int nd = hd->h1_nd, ne = hd->l2_nd, nqp = hd->nqp, nl = hd->h1_nl, dim = hd->dim;
  double *zone_ie, *zone_ke;
  BlastCall(BlastMalloc(hd->nz, &zone_ie));
  BlastCall(BlastMalloc(hd->nz, &zone_ke));
#pragma omp parallel for schedule(static) if (hd->nz > BLAST_OMP_MIN_ZONES)
  for (int z = 0; z < hd->nz; z++) {
    const int *dof = &hd->h1_edof[(size_t)z * nd];
    const size_t sl = hd->zone_slot ? hd->zone_slot[z] : 0;  // mixed meshes
    const double *h1_B = hd->h1_B + sl * nqp * nd, *l2_B = hd->l2_B + sl * nqp * ne;
    double si = 0.0, sk = 0.0;
    for (int q = 0; q < nqp; q++) {
      const double R0 = hd->qp_R0[(size_t)z * nqp + q];
      double eq = 0.0, v2 = 0.0;
      for (int i = 0; i < ne; i++) eq += e[(size_t)z * ne + i] * l2_B[(size_t)q * ne + i];
      for (int cc = 0; cc < dim; cc++) {
        double vq = 0.0;
        for (int a = 0; a < nd; a++) vq += v[(size_t)cc * nl + dof[a]] * h1_B[(size_t)q * nd + a];
        v2 += vq * vq;
      }
      si += R0 * eq;
      sk += 0.5 * R0 * v2;
    }
    zone_ie[z] = si, zone_ke[z] = sk;
  }
  BlastEnergySums(hd->nz, zone_ie, 1, zone_ke, 1, dd);
  BlastFree(&zone_ie);
  BlastFree(&zone_ke);
  return 0;
}

// ---- hybrid support: this backend as the "device" part (used to test the split) ----

int BlastCpuSplitGather(void *ctx, int z0, int z1, const double *h1, double *host) {
  CpuCtx *c = ctx;
  const int rows = c->rows;
#pragma omp parallel for schedule(static) if (z1 - z0 > BLAST_OMP_MIN_ZONES)
  for (int z = z0; z < z1; z++) BlastCpuGatherZone(&c->hd, z, h1, &host[(size_t)(z - z0) * rows]);
  return 0;
}

int BlastCpuSplitQDataBegin(void *ctx, int ndev, const double *x, const double *v, const double *e,
                            double *host_x, double *host_v, double *host_e) {
  CpuCtx *c = ctx;
  const int nz = c->hd.nz, ne = c->hd.l2_nd;
  BlastCall(BlastCpuSplitGather(ctx, ndev, nz, x, host_x));
  BlastCall(BlastCpuSplitGather(ctx, ndev, nz, v, host_v));
  if (nz > ndev) memcpy(host_e, &e[(size_t)ndev * ne], (size_t)(nz - ndev) * ne * sizeof(double));
  const double t0 = omp_get_wtime();
  const ZoneRange zr = OwnZones(c, x, v, e);
  BlastCpuQDataRange(&zr, 0, ndev, c->ws, c->ws_size, c->nthreads, &c->split_res);
  c->split_seconds = omp_get_wtime() - t0;
  return 0;
}

int BlastCpuSplitQDataEnd(void *ctx, BlastQDataResult *res, double *seconds, int *tuning) {
  CpuCtx *c = ctx;
  *res = c->split_res;
  *seconds = c->split_seconds;
  *tuning = 0;
  return 0;
}

int BlastCpuSplitMomentumRhs(void *ctx, int ndev, const double *host_rows, double *rhs) {
  CpuCtx *c = ctx;
  const size_t nhost = (size_t)(c->hd.nz - ndev) * c->rows;
  if (nhost) memcpy(&c->st.rE[(size_t)ndev * c->rows], host_rows, nhost * sizeof(double));
  MomentumGather(c, ndev, rhs);
  return 0;
}

int BlastCpuSplitEnergyRate(void *ctx, int ndev, const double *host_b, const double *v,
                            double *de) {
  EnergyRate(ctx, ndev, host_b, v, de);
  return 0;
}

// ---- host zones of the hybrid (cpu_zones.h): the mode's kernels on a zone range ----

struct BlastCpuZones_private {
  BlastHydroData hd;
  int rows;
  const CpuMode *mode;
  void *md;
  CpuZoneStore st;  // zones [z0, z1) of the last BlastCpuZonesQData at slots [0, z1 - z0)
  double *ws;       // nthreads workspaces of ws_size
  size_t ws_size;
  int nthreads;
};

int BlastCpuZonesCreate(const BlastHydroData *hd, BlastCpuZones *cz) {
  BlastCpuZones z;
  BlastCall(BlastCalloc(1, &z));
  z->hd = *hd;
  z->rows = hd->dim * hd->h1_nd;
  z->mode = BlastCpuModeOf(hd);
  z->ws_size = z->mode->workspace(hd);
  z->nthreads = omp_get_max_threads();
  int ierr = z->mode->create(hd, 0, &z->md);
  if (!ierr) ierr = BlastMalloc(z->ws_size * z->nthreads, &z->ws);
  if (ierr) {
    z->mode->destroy(&z->md);
    BlastFree(&z);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  *cz = z;
  return 0;
}

int BlastCpuZonesDestroy(BlastCpuZones *cz) {
  if (!cz || !*cz) return 0;
  CpuZoneStore *st = &(*cz)->st;
  BlastFree(&st->F), BlastFree(&st->rE), BlastFree(&st->S), BlastFree(&st->b);
  BlastFree(&st->tg);
  (*cz)->mode->destroy(&(*cz)->md);
  BlastFree(&(*cz)->ws);
  BlastFree(cz);
  return 0;
}

int BlastCpuZonesQData(BlastCpuZones cz, int z0, int z1, const double *xE, const double *vE,
                       const double *eE, BlastQDataResult *res) {
  const int n = z1 - z0;
  if (n > cz->st.cap) BlastCall(cz->mode->reserve(&cz->hd, n, 0, &cz->st));
  const ZoneRange zr = {&cz->hd, cz->mode, cz->md, NULL, NULL, NULL, xE, vE, eE, &cz->st, z0};
  BlastCpuQDataRange(&zr, z0, z1, cz->ws, cz->ws_size, cz->nthreads, res);
  return 0;
}

void BlastCpuZonesForceOnes(BlastCpuZones cz, int n, double *rows_out) {
  const int rows = cz->rows;
#pragma omp parallel for schedule(static) if (n > BLAST_OMP_MIN_ZONES)
  for (int k = 0; k < n; k++)
    cz->mode->force_ones(&cz->hd, &cz->st, (size_t)k, &rows_out[(size_t)k * rows]);
}

void BlastCpuZonesForceT(BlastCpuZones cz, int n, const double *vE, double *b_out) {
  const int rows = cz->rows, ne = cz->hd.l2_nd;
#pragma omp parallel if (n > BLAST_OMP_MIN_ZONES) num_threads(cz->nthreads)
  {
    double *ws = &cz->ws[(size_t)omp_get_thread_num() * cz->ws_size];
#pragma omp for schedule(static)
    for (int k = 0; k < n; k++) {
      const double *bk = cz->mode->stored_b(&cz->hd, &cz->st, (size_t)k);
      if (bk)
        memcpy(&b_out[(size_t)k * ne], bk, (size_t)ne * sizeof(double));
      else
        cz->mode->force_t(&cz->hd, cz->md, &cz->st, (size_t)k, &vE[(size_t)k * rows],
                          &b_out[(size_t)k * ne], ws);
    }
  }
}

static int HostZonesCreate(const BlastHydroData *hd, void **hz) {
  return BlastCpuZonesCreate(hd, (BlastCpuZones *)hz);
}
static int HostZonesDestroy(void **hz) {
  return BlastCpuZonesDestroy((BlastCpuZones *)hz);
}
static int HostZonesRebuild(void *hz, const BlastHydroData *hd) {
  BlastCpuZones cz = hz;
  cz->hd = *hd;
  return cz->mode->rebuild(cz->md, hd);
}
static int HostZonesQData(void *hz, int z0, int z1, const double *xE, const double *vE,
                          const double *eE, BlastQDataResult *res) {
  return BlastCpuZonesQData(hz, z0, z1, xE, vE, eE, res);
}
static void HostZonesForceOnes(void *hz, int n, double *rows_out) {
  BlastCpuZonesForceOnes(hz, n, rows_out);
}
static void HostZonesForceT(void *hz, int n, const double *vE, double *b_out) {
  BlastCpuZonesForceT(hz, n, vE, b_out);
}
const BlastHostZoneOps blast_cpu_host_zones = {
    .create = HostZonesCreate,
    .destroy = HostZonesDestroy,
    .rebuild = HostZonesRebuild,
    .qdata = HostZonesQData,
    .force_ones = HostZonesForceOnes,
    .force_t = HostZonesForceT,
};

int BlastCpuHostZones(void *ctx, const BlastHostZoneOps **ops) {
  (void)ctx;
  *ops = &blast_cpu_host_zones;
  return 0;
}
