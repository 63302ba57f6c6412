// The partial-assembly (matrix-free) mode of the CUDA backend (CudaMode kCudaPartial, its
// data CudaPartial and the 1D tables of DevData): the uploads of its data and their
// rebuild, the quadrature-data update (rows -F_z 1 and b = F_z^T v without F_z), b from a
// kept stress, and the momentum mass action (zone values by sum factorisation, then a
// deterministic double-double gather per owned row). The bits are those of
// hydro/pa_kernels.h, as the CPU backend computes them (tests/backend compares them).
#include <nvtx3/nvToolsExt.h>

#include "context.h"
#include "kernels/pa_mass.cuh"
#include "kernels/pa_qdata.cuh"

typedef void (*PaMassKernel)(DevData, PaMassArgs);

// The mass kernel for (dim, D, Q): specialised for the default Qk-Qk-1 pairs (D = k + 1,
// Q = 2k), else D and Q at run time.
static PaMassKernel PaMassPick(int dim, int D, int Q) {
  if (dim == 3) {
    if (D == 2 && Q == 2) return k_pa_mass<3, 2, 2>;
    if (D == 3 && Q == 4) return k_pa_mass<3, 3, 4>;
    if (D == 4 && Q == 6) return k_pa_mass<3, 4, 6>;
    if (D == 5 && Q == 8) return k_pa_mass<3, 5, 8>;
    return k_pa_mass<3, 0, 0>;
  }
  if (dim == 2) {
    if (D == 3 && Q == 4) return k_pa_mass<2, 3, 4>;
    return k_pa_mass<2, 0, 0>;
  }
  return k_pa_mass<1, 0, 0>;
}

// The 3D mass kernel for the default pairs, NZ zones per block; none elsewhere. Q2:
// k_pa_mass3l (a thread per (zone, q1), NZ Q threads). Q1, Q3, Q4: k_pa_mass3 (the third
// direction in registers, Q x Q x NZ threads, about 256), registers capped for 6 blocks per
// SM at Q3 (40, no spills; H100, 3D Sedov 19 steps, mass action ms per PCG product
// uncapped / capped: Q3 48^3 0.678 / 0.526: the kernel is bound by the shared-memory pipe
// and more warps hide its latency; Q1 and Q4 stay at the compiler's choice, Q4 would
// spill). Q2 64^3 on an H100, ms per product with the row gather (bench/gpu/profile_ab.py,
// 20 steps, 2 runs each, docs/logs/pa_mass3l_h100.txt): k_pa_mass3<3, 4, 16, 6> 0.405;
// k_pa_mass3l<3, 4, NZ, MINB> storing per component from registers 0.44-0.56 (the L2
// bound by eighth-of-a-sector stores), through shared memory 0.306 (32, 4), qm in registers
// 0.306 / 0.293 / 0.279 / 0.274 at (32, 4 without) / (32, 3) / (32, 4) / (16, 7).
// k_pa_mass3's zone values through shared memory (SE), same log: Q1 96^3 0.335 -> 0.314
// ms, Q3 48^3 0.527 -> 0.537 (bound by the shared-memory pipe already): on at Q1 only.
typedef void (*PaMass3Kernel)(DevData, PaMassArgs, PaMassB);
typedef struct {
  PaMass3Kernel kernel;
  int nz, lines;  // lines: k_pa_mass3l (a 1D block of Q nz threads)
} PaMass3Launch;
static PaMass3Launch PaMass3Pick(int dim, int D, int Q) {
  PaMass3Launch l = {NULL, 0, 0};
  if (dim != 3) return l;
  if (D == 2 && Q == 2) l.kernel = k_pa_mass3<2, 2, 32, 1, true>, l.nz = 32;
  if (D == 3 && Q == 4) l.kernel = k_pa_mass3l<3, 4, 16, 7>, l.nz = 16, l.lines = 1;
  if (D == 4 && Q == 6) l.kernel = k_pa_mass3<4, 6, 7, 6, false>, l.nz = 7;
  if (D == 5 && Q == 8) l.kernel = k_pa_mass3<5, 8, 4, 1, false>, l.nz = 4;
  return l;
}

typedef void (*PaQKernel)(PaQArgs);

// The 3D quadrature kernel for (D, Q, L), specialised for the default Qk-Qk-1 triples.
static PaQKernel PaQ3Pick(int D, int Q, int L) {
  if (D == 2 && Q == 2 && L == 1) return PaQ3Kernel<2, 2, 1>();
  if (D == 3 && Q == 4 && L == 2) return PaQ3Kernel<3, 4, 2>();
  if (D == 4 && Q == 6 && L == 3) return PaQ3Kernel<4, 6, 3>();
  if (D == 5 && Q == 8 && L == 4) return PaQ3Kernel<5, 8, 4>();
  return k_pa_qdata3<0, 0, 0, 0, 1>;
}
static int PaQ3Special(int D, int Q, int L) {
  return (D == 2 && Q == 2 && L == 1) || (D == 3 && Q == 4 && L == 2) ||
         (D == 4 && Q == 6 && L == 3) || (D == 5 && Q == 8 && L == 4);
}

static BlastPaBasis DevBasis(const CudaCtx *c) {
  BlastPaBasis pb;
  memset(&pb, 0, sizeof pb);
  const DevData *d = &c->dd;
  pb.dim = d->dim, pb.D = d->D, pb.Q = d->Q, pb.L = d->L;
  pb.nd = d->nd, pb.nq = d->nqp, pb.ne = d->ne;
  pb.B = d->B1, pb.G = d->G1, pb.LB = d->L1, pb.qw = d->qw;
  pb.qpar = d->qpar, pb.tg_source = d->tg_source;
  return pb;
}

// The partial mode's data of the discretisation (CudaMode.setup).
static int PaSetup(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  DevData *d = &c->dd;
  const size_t nze = hd->pa.nz_ext, nq = hd->nqp;
  d->pa = 1, d->keep_stress = hd->pa.keep_stress, d->nz_ext = hd->pa.nz_ext;
  d->D = hd->pa.d1d, d->Q = hd->pa.q1d, d->L = hd->pa.l1d, d->nzint = hd->pa.nzint;
  BlastCall(DevUpload(hd->pa.B, (size_t)d->Q * d->D, &d->B1));
  BlastCall(DevUpload(hd->pa.G, (size_t)d->Q * d->D, &d->G1));
  BlastCall(DevUpload(hd->pa.L, (size_t)d->Q * d->L, &d->L1));
  // reference data: allocated here, filled by PaRebuild
  BlastCall(DevUpload((const double *)NULL, (size_t)hd->dim * hd->h1_nl, &d->x0));
  BlastCall(DevUpload((const double *)NULL, nze * nq, &d->qmass));
  BlastCall(DevUpload(hd->pa.mass_toff, (size_t)hd->h1_nown + 1, &d->mtoff));
  BlastCall(DevUpload(hd->pa.mass_tidx, (size_t)hd->pa.mass_toff[hd->h1_nown], &d->mtidx));
  BlastCall(DevUpload(hd->pa.zones, nze, &d->zones));
  BlastCall(DevUpload(hd->mv_rows, (size_t)hd->h1_nown, &c->part.mv_rows));
  // rows -F_z 1 of nz_ext zones, also the mass action's values of up to 3 components
  BlastCall(DevUpload((const double *)NULL, nze * 3 * d->nd, &d->rE));
  if (d->keep_stress)
    BlastCall(DevUpload((const double *)NULL, (size_t)hd->nz * nq * hd->dim * hd->dim, &d->S));
  // the mass kernel: zones per block within 32 KB of stage buffers (all components)
  const size_t stage = 2 * 3 * (size_t)PaMassStage(hd->dim, d->D, d->Q) * sizeof(double);
  const size_t table = (size_t)d->Q * d->D * sizeof(double);
  c->part.pa_zpb = (int)((32 * 1024) / stage);
  c->part.pa_zpb = c->part.pa_zpb < 1 ? 1 : c->part.pa_zpb > 32 ? 32 : c->part.pa_zpb;
  c->part.pa_smem = table + c->part.pa_zpb * stage;
  // the 3D quadrature kernel: one zone per block, when its stages fit shared memory; the
  // first level of the reduction of its per-zone results
  const size_t nb = (size_t)hd->nz / kPaRedSpan + 2;
  BlastCall(DevUpload((const double *)NULL, 2 * nb, &c->part.pa_red));
  BlastCall(DevUpload((const int *)NULL, nb, &c->part.pa_red_zone));
  c->part.pa_q3 = 0;
  if (hd->dim == 3) {
    const int reg = PaQ3Special(d->D, d->Q, d->L);
    const size_t q3 = (size_t)PaQ3Doubles(d->D, d->Q, d->L, reg) * sizeof(double);
    if (q3 + 1024 <= c->smem_limit) {  // its static reduction arrays take 0.3 KB
      c->part.pa_q3 = 1;
      BlastCallCuda(cudaFuncSetAttribute((const void *)PaQ3Pick(d->D, d->Q, d->L),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)(c->smem_limit - 1024)));
    }
  }
  if (c->part.pa_smem > c->smem_limit)
    c->part.pa_smem = 0;  // k_pa_mass_generic
  else
    BlastCallCuda(cudaFuncSetAttribute((const void *)PaMassPick(hd->dim, d->D, d->Q),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)c->smem_limit));
  // the generic kernels' scratch (where the device's shared memory is smaller than the
  // model assumes, it is taken anyway)
  BlastCudaPaScratch(hd, &c->part.pa_nthr, &c->part.pa_wsz);
  if (c->part.pa_nthr == 0 && (!c->part.pa_q3 || !c->part.pa_smem)) {
    BlastHydroData h2 = *hd;
    h2.pa.keep_stress = 1;  // the rule's exception: always a scratch
    BlastCudaPaScratch(&h2, &c->part.pa_nthr, &c->part.pa_wsz);
  }
  BlastCall(
      DevUpload((const double *)NULL, (size_t)c->part.pa_nthr * c->part.pa_wsz, &c->part.pa_ws));
  return 0;
}

// The partial mode's reference data from c->hd (CudaMode.rebuild, at create too): the
// initial positions (J0 is recomputed from them) and rho0 |J0| w of the mass operator.
static int PaRebuild(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  BlastCall(DevCopy(hd->pa.x0, (size_t)hd->dim * hd->h1_nl, c->dd.x0));
  BlastCall(DevCopy(hd->pa.qmass, (size_t)hd->pa.nz_ext * hd->nqp, c->dd.qmass));
  return 0;
}

static int PaDestroy(CudaCtx *c) {
  DevData *d = &c->dd;
  void *bufs[] = {
      d->B1,    d->G1, d->L1, d->x0,           d->qmass,      d->mtoff,       d->mtidx,
      d->zones, d->rE, d->S,  c->part.mv_rows, c->part.pa_ws, c->part.pa_red, c->part.pa_red_zone};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) BlastCallCuda(cudaFree(bufs[i]));
  return 0;
}

static int PaBlocks(const CudaCtx *c, int n) {
  int t = c->part.pa_nthr < n ? c->part.pa_nthr : n;
  return t > 0 ? (t + kPaQThreads - 1) / kPaQThreads : 1;
}

// The quadrature update of zones [0, n) (ev_mid after it, for the profile) and the
// reduction of its block results (red/red_zone, or a first level of them) into red_out.
static int PaQDataReduced(CudaCtx *c, int n, const double *x, const double *v, const double *e) {
  PaQArgs a;
  memset(&a, 0, sizeof a);
  a.d = c->dd, a.pb = DevBasis(c), a.n = n, a.x = x, a.v = v, a.e = e;
  a.ws = c->part.pa_ws, a.wsz = c->part.pa_wsz;
  a.blk_dt = c->red, a.blk_det = c->red + c->nred, a.blk_zone = c->red_zone;
  const double *dt = a.blk_dt, *det = a.blk_det;
  const int *zone = a.blk_zone;
  int blocks;
  if (c->part.pa_q3) {  // a block per zone
    const DevData *d = &c->dd;
    blocks = n;
    if (n > 0) {
      const int reg = PaQ3Special(d->D, d->Q, d->L);
      const size_t smem = (size_t)PaQ3Doubles(d->D, d->Q, d->L, reg) * sizeof(double);
      const int nt = reg ? PaQ3Threads(d->nqp) : 256;
      PaQ3Pick(d->D, d->Q, d->L)<<<blocks, nt, smem, c->stream>>>(a);
      BlastCheckKernel(c->sync, "k_pa_qdata3");
    }
    if (blocks > kPaRedSpan) {  // a first level: k_reduce_min is one block
      const int nb = (blocks + kPaRedSpan - 1) / kPaRedSpan;
      double *odt = c->part.pa_red, *odet = c->part.pa_red + nb;
      k_pa_reduce_blocks<<<nb, 256, 0, c->stream>>>(blocks, c->red, c->red_zone, c->red + c->nred,
                                                    odt, c->part.pa_red_zone, odet);
      BlastCheckKernel(c->sync, "k_pa_reduce_blocks");
      dt = odt, det = odet, zone = c->part.pa_red_zone, blocks = nb;
    }
  } else {
    blocks = PaBlocks(c, n);
    k_pa_qdata<<<blocks, kPaQThreads, 0, c->stream>>>(a);
    BlastCheckKernel(c->sync, "k_pa_qdata");
  }
  BlastCallCuda(cudaEventRecord(c->ev_mid, c->stream));
  return ReduceQDataOf(c, blocks, dt, zone, det);
}

// b of zones [0, n) from the kept stress (pa_keep_stress; else the update computed b).
static int PaForceT(CudaCtx *c, int n, const double *v) {
  if (n <= 0 || !c->dd.keep_stress) return 0;
  PaQArgs a;
  memset(&a, 0, sizeof a);
  a.d = c->dd, a.pb = DevBasis(c), a.n = n, a.v = v, a.ws = c->part.pa_ws, a.wsz = c->part.pa_wsz;
  ProfBegin(c);
  k_pa_force_t<<<PaBlocks(c, n), kPaQThreads, 0, c->stream>>>(a);
  BlastCheckKernel(c->sync, "k_pa_force_t");
  ProfEnd(c, P_FORCE_T, 8.0 * n * (c->dd.rows + c->dd.ne + c->dd.nqp * c->dd.dim * c->dd.dim), 0.0);
  return 0;
}

// Whether the mass action takes k_pa_mass3 and its row gather, which can take the dots of
// mass.mult_dot (PaMassMult with the dot); both honour CudaCtx.mass_gate (mass_gated).
static int PaMassDotFused(const CudaCtx *c, int ncomp) {
  return ncomp > 0 && ncomp <= 3 && PaMass3Pick(c->dd.dim, c->dd.D, c->dd.Q).kernel != NULL;
}

// y = m x on the rows `rows`; with_dot (only where PaMassDotFused): mass.mult_dot, the
// gather's block pairs of the dots into mdot_part, slots [0, n_int) by the INTERIOR (or
// ALL) call, the next n_bnd by the BOUNDARY call (each only if it has rows; n = GridFor of
// its rows); they are folded after the BOUNDARY (or ALL) call (DotSlots). A BOUNDARY call
// launches only its zones' part or only its rows' part where CudaCtx.mass_part says (the
// zones' call adds no slots; sl is valid after the rows' call).
static int PaMassMult(CudaCtx *c, int rows, int ncomp, unsigned mask, const double *x, double *y,
                      int with_dot) {
  const BlastHydroData *hd = &c->hd;
  const DevData *d = &c->dd;
  if (ncomp <= 0) return 0;
  if (with_dot && rows != BLAST_ROWS_BOUNDARY) c->mdot_slots = 0;
  PaMassArgs a;
  a.gate = c->mass_gate;
  a.k0 = rows == BLAST_ROWS_BOUNDARY ? d->nzint : 0;
  const int k1 = rows == BLAST_ROWS_INTERIOR ? d->nzint : d->nz_ext;
  a.n = k1 - a.k0, a.ncomp = ncomp, a.mask = mask, a.zpb = c->part.pa_zpb;
  a.st = (size_t)d->next, a.es = (size_t)d->nz_ext * d->nd, a.x = x, a.E = d->rE;
  const int r0 = rows == BLAST_ROWS_BOUNDARY ? hd->mv_ninterior : 0;
  int r1 = rows == BLAST_ROWS_INTERIOR ? hd->mv_ninterior : d->nown;
  int nact = 0;
  for (int k = 0; k < ncomp; k++) nact += (mask >> k) & 1u;
  if (a.n <= 0 && r1 <= r0) {  // e.g. the boundary part on one rank
    return 0;
  }
  const PaMass3Launch m3 = PaMass3Pick(d->dim, d->D, d->Q);
  const int fast = m3.kernel && ncomp <= 3;  // k_pa_mass3 and its gather
  // a BOUNDARY product split by the resident multi-rank solve (CudaCtx.mass_part): the
  // zones' part on mass_stream, or the rows' part, each alone (the fast kernels only)
  const int part = rows == BLAST_ROWS_BOUNDARY ? c->mass_part : kMassPartAll;
  BlastCheck(part == kMassPartAll || fast, BLAST_ERR_INTERNAL,
             "a split boundary product needs k_pa_mass3");
  if (part == kMassPartRows) a.n = 0;
  nvtxRangePushA("pa_mass");
  ProfBegin(c);
  if (a.n > 0 && fast) {
    const PaMass3Kernel k_pa_mass3_sized = m3.kernel;  // k_pa_mass3<D, Q, NZ>
    PaMassB Bc;
    memset(&Bc, 0, sizeof Bc);
    memcpy(Bc.v, hd->pa.B, (size_t)d->Q * d->D * sizeof(double));
    const dim3 th = m3.lines ? dim3(d->Q * m3.nz) : dim3(d->Q, d->Q, m3.nz);
    const dim3 grid((a.n + m3.nz - 1) / m3.nz);
    if (part == kMassPartZones)
      k_pa_mass3_sized<<<grid, th, 0, c->mass_stream>>>(*d, a, Bc);
    else
      LaunchDep(c, k_pa_mass3_sized, grid, th, 0, *d, a, Bc);
    BlastCheckKernel(c->sync, "k_pa_mass3_sized(k_pa_mass3<D, Q, NZ>)");
  } else if (a.n > 0) {
    if (c->part.pa_smem) {
      const size_t smem =
          (size_t)(d->Q * d->D + 2 * a.zpb * ncomp * PaMassStage(d->dim, d->D, d->Q)) *
          sizeof(double);
      PaMassPick(d->dim, d->D, d->Q)<<<(a.n + a.zpb - 1) / a.zpb, 256, smem, c->stream>>>(*d, a);
      BlastCheckKernel(c->sync, "k_pa_mass");
    } else {
      k_pa_mass_generic<<<PaBlocks(c, a.n), kPaQThreads, 0, c->stream>>>(*d, a, c->part.pa_ws,
                                                                         c->part.pa_wsz);
      BlastCheckKernel(c->sync, "k_pa_mass_generic");
    }
  }
  const int dot = with_dot && fast;
  if (part == kMassPartZones) r1 = r0;  // the rows' part follows in a call of its own
  if (r1 > r0 && dot) {  // the block pairs depend on the rows only (not on the device)
    const int nb = GridFor((size_t)(r1 - r0));
    LaunchDep(c, k_pa_mass_gather_rows<true>, dim3(nb), dim3(kDotThreads), 0, *d,
              c->part.mv_rows, r0, r1, ncomp, mask, a.st, d->rE, y, x, c->mdot_part,
              c->mdot_stride, c->mdot_slots, a.gate);
    BlastCheckKernel(c->sync, "k_pa_mass_gather_rows");
    c->mdot_slots += nb;
  } else if (r1 > r0 && fast) {
    k_pa_mass_gather_rows<false><<<GridFor((size_t)(r1 - r0)), 256, 0, c->stream>>>(
        *d, c->part.mv_rows, r0, r1, ncomp, mask, a.st, d->rE, y, NULL, NULL, 0, 0, a.gate);
    BlastCheckKernel(c->sync, "k_pa_mass_gather_rows");
  } else if (r1 > r0) {
    k_pa_mass_gather<<<GridFor((size_t)(r1 - r0) * ncomp), 256, 0, c->stream>>>(
        *d, c->part.mv_rows, r0, r1, ncomp, mask, a.st, a.es, d->rE, y);
    BlastCheckKernel(c->sync, "k_pa_mass_gather");
  }
  // modeled: x gathered, qmass and E written per zone, E and the indices read per row
  // (with the dot: x read per row too, a product and a double-double addition)
  const double nzr = (double)(a.n > 0 ? a.n : 0), nrow = (double)(r1 > r0 ? r1 - r0 : 0);
  const double nidx = nrow * ((double)hd->pa.mass_toff[d->nown] / (d->nown ? d->nown : 1));
  ProfEnd(c, P_SPMV,
          nzr * (d->nd * (4.0 + 16.0 * nact) + 8.0 * d->nqp) + nidx * (4.0 + 8.0 * nact) +
              (dot ? 16.0 : 8.0) * nrow * nact,
          nzr * nact * 4.0 * d->nqp * d->D * (d->dim) + (dot ? 2.0 * nrow * nact : 0.0));
  nvtxRangePop();
  return 0;
}

// ---------------------------------------------------------------------------------------
// The mode's operations

// Rows -F_z 1: the quadrature update computed them.
static int PaForceOnes(CudaCtx *c, int n) {
  (void)c, (void)n;
  return 0;
}

static int PaMassMultOnly(CudaCtx *c, int rows, int ncomp, unsigned mask, const double *x,
                          double *y) {
  return PaMassMult(c, rows, ncomp, mask, x, y, 0);
}

// mass.mult_dot: the gather of k_pa_mass3 / k_pa_mass3l takes the dot itself (its block
// pairs kept in mdot_part from the INTERIOR call to the BOUNDARY call); elsewhere the
// product, then the dot.
static int PaMassMultDot(CudaCtx *c, int rows, int ncomp, unsigned mask, const double *x, double *y,
                         DotSlots *sl) {
  if (!PaMassDotFused(c, ncomp)) return MassMultThenDot(c, rows, ncomp, mask, x, y, sl);
  BlastCall(PaMassMult(c, rows, ncomp, mask, x, y, 1));
  sl->part = c->mdot_part, sl->stride = c->mdot_stride, sl->nslots = c->mdot_slots;
  return 0;
}

const CudaMode kCudaPartial = {"partial",      PaSetup,          PaRebuild, PaDestroy,
                               PaQDataReduced, PaForceOnes,      PaForceT,  PaMassMultOnly,
                               PaMassMultDot,  PartialQDataModel, PaMassDotFused};
