// Device memory model of the CUDA backend and the advice printed when a GPU is too small
// (blast_cuda.h). Host code only, so that it is tested without a GPU.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast_cuda.h"
#include "pa_kernels.h"
#include "sell.h"

void BlastCudaPaScratch(const BlastHydroData *hd, int *threads, int *wsz) {
  BlastPaBasis pb;
  memset(&pb, 0, sizeof pb);
  pb.dim = hd->dim, pb.D = hd->pa.d1d, pb.Q = hd->pa.q1d, pb.L = hd->pa.l1d;
  pb.nd = hd->h1_nd, pb.nq = hd->nqp, pb.ne = hd->l2_nd;
  const int rows = hd->dim * hd->h1_nd;
  *wsz = 3 * rows + hd->l2_nd + hd->nqp * hd->dim * hd->dim + BlastPaZoneWorkspace(&pb) + 16;
  // Not needed in 3D without a kept stress when k_pa_qdata3's and k_pa_mass's stages fit
  // 160 KB of shared memory (every sm_80+ device; formulas of PaQ3Doubles, PaMassStage).
  if (hd->dim == 3 && !hd->pa.keep_stress) {
    const int D = pb.D, Q = pb.Q, L = pb.L, M = D > L ? D : L, nq = Q * Q * Q;
    const double q3 = 8.0 * (9 * D * D * D + L * L * L + 2 * Q * D + Q * L + 33 * nq +
                             9 * M * Q * Q + 6 * M * M * Q);
    int ms = D * D * D > nq ? D * D * D : nq;
    if (D * D * Q > ms) ms = D * D * Q;
    if (D * Q * Q > ms) ms = D * Q * Q;
    const double mass = 8.0 * (Q * D + 6.0 * ms);
    if (q3 + 8192.0 <= 160.0 * 1024.0 && mass <= 160.0 * 1024.0) {
      *threads = 0;
      return;
    }
  }
  const double cap = 1073741824.0 / (8.0 * *wsz);
  long long t = (long long)cap / 128 * 128, nz = hd->pa.nz_ext > hd->nz ? hd->pa.nz_ext : hd->nz;
  const long long need = (nz + 127) / 128 * 128;
  if (t > 65536) t = 65536;
  if (t > need) t = need;
  if (t < 128) t = 128;
  *threads = (int)t;
}

void BlastCudaMemorySizesOf(const BlastHydroData *hd, const BlastGpuOptions *opt,
                            BlastCudaMemorySizes *s) {
  memset(s, 0, sizeof *s);
  s->cusparse = opt ? opt->spmv_cusparse : 0;
  s->dim = hd->dim, s->nz = hd->nz, s->nqp = hd->nqp, s->h1_nd = hd->h1_nd, s->l2_nd = hd->l2_nd;
  s->h1_nl = hd->h1_nl, s->h1_nown = hd->h1_nown, s->h1_next = hd->h1_next;
  s->mv_nnz = hd->full.rowptr ? hd->full.rowptr[hd->h1_nown] - hd->full.rowptr[0] : 0;
  BlastSell sell;  // the layout's size (row order and slice offsets only)
  memset(&sell, 0, sizeof sell);
  const int sigma = opt && opt->sell_sigma_set ? opt->sell_sigma : BLAST_SELL_SIGMA_DEFAULT;
  if (hd->full.rowptr && hd->mv_rows) {
    if (!BlastSellBuild(hd->h1_nown, hd->mv_ninterior, hd->mv_rows, hd->full.rowptr, NULL, NULL,
                        sigma, &sell))
      s->mv_sell_nnz = sell.nnz;
    else
      BlastErrorClear();  // the estimate falls back to the CSR size
    BlastSellFree(&sell);
  }
  s->ess = hd->ess_off ? hd->ess_off[hd->dim] : 0;
  for (int w = 0; w < 2; w++)
    s->halo_send[w] = hd->halo[w].nsend, s->halo_recv[w] = hd->halo[w].nrecv;
  s->tg_source = hd->tg_source;
  s->nslot = hd->zone_slot ? 2 : 1;
  if (hd->assembly == BLAST_ASSEMBLY_PARTIAL) {
    int nt = 0, wsz = 0;
    s->pa = 1, s->nz_ext = hd->pa.nz_ext, s->pa_keep_stress = hd->pa.keep_stress;
    s->mass_nidx = hd->pa.mass_toff ? hd->pa.mass_toff[hd->h1_nown] : 0;
    BlastCudaPaScratch(hd, &nt, &wsz);
    s->pa_scratch = 8.0 * nt * (double)wsz;
  }
}

int BlastCudaSellSigmaParse(const char *env, int *sigma) {
  *sigma = BLAST_SELL_SIGMA_DEFAULT;
  if (!env || !*env) return 0;
  char *end = NULL;
  const long v = strtol(env, &end, 10);
  BlastCheck(*end == '\0' && v >= 0 && v <= (1L << 30) && v % BLAST_SELL_C == 0, BLAST_ERR_INPUT,
             "BLAST_SELL_SIGMA=%s: must be 0 or a positive multiple of %d", env, BLAST_SELL_C);
  *sigma = (int)v;
  return 0;
}

// Every buffer BlastCudaCreate (setup.cu) allocates, and the state, Runge-Kutta and PCG
// vectors the front end allocates through the backend (hydro.c), with their lengths.
size_t BlastCudaMemoryEstimate(const BlastCudaMemorySizes *s) {
  const double dim = s->dim, nz = s->nz, nqp = s->nqp, nd = s->h1_nd, ne = s->l2_nd;
  const double nl = s->h1_nl, nown = s->h1_nown, next = s->h1_next, nnz = (double)s->mv_nnz;
  const double sell = (double)(s->mv_sell_nnz > s->mv_nnz ? s->mv_sell_nnz : s->mv_nnz);
  const double slots = nown + 64.0;  // both parts rounded up to 32 rows
  const double rows = dim * nd;
  double ints = 0.0, dbls = 0.0;
  if (s->pa) {
    // partial assembly (mode_partial.cu): zone maps over nz_ext zones, 1D and point tables,
    // rho0|J0|w (momentum mass over nz_ext, quadrature over nz), materials, x0, the rows
    // -F_z 1 over nz_ext zones (also the mass action's zone values), b or the stress,
    // the source, the mass gather's indices, D^{-1} and the row order, M_E^{-1} blocks,
    // the generic kernels' scratch
    const double nze = s->nz_ext;
    ints += nze * nd + nz * nd + nl + 1.0 + nze + nz;  // edof, tidx, toff, pa_zones, materials
    ints += nown + 1.0 + (double)s->mass_nidx + nown;  // mass_toff, mass_tidx, mv_rows
    dbls += nqp * (1.0 + nd + ne) + 64.0;              // weights, B, L2 B, 1D tables
    dbls += nze * nqp + nz * nqp + dim * nl;           // qmass, R0, x0
    dbls += nze * 3.0 * nd + nz * ne;                  // rE / E (3 components), source
    dbls += s->pa_keep_stress ? nz * nqp * dim * dim + nz * ne : nz * ne;  // S and b, or b
    dbls += nown + nz * ne * ne;                                           // D^{-1}, M_E^{-1}
    dbls += s->pa_scratch / 8.0;
  } else {
    // zone maps and basis tables
    ints += 2.0 * nz * nd + nl + 1.0 + nz;  // edof, tidx, toff, zone materials
    ints += s->nslot > 1 ? nz / 4.0 : 0.0;  // the zones' table slots (bytes)
    dbls += (s->nslot > 1 ? 2.0 : 1.0) * nqp *
            (1.0 + nd + 2.0 * nd * dim + 3.0 * ne + 8.0);  // weights, B, G (2 layouts), L2 B (3)
    dbls += nz * nqp * (1.0 + dim * dim);                  // rho0|J0|w, J0^{-1}
    dbls += nz * nqp *
            (dim == 3 ? 10.0 : 2.0 * dim);  // S = w|J| sigma J^{-T}, dim^2 rounded up to even
    dbls += nz * rows * ne + nz * rows + 2.0 * nz * ne;  // F_z, -F_z.1 rows, F^T v, source
    dbls += nown;                                        // the mass matrix's D^{-1}
    if (!s->cusparse) {
      // the mass matrix in sliced ELLPACK (rows, lengths, slice offsets, entries), x with
      // its components side by side, M_E^{-1} in dense zone blocks
      ints += 2.0 * slots + sell;
      dbls += slots / 32.0 + 1.0 + sell + nz * ne * ne + 3.0 * (next + 1.0);
    } else {
      // interior/boundary CSR copies, their row order and permuted output; M_E^{-1} CSR.
      // The CSR row offsets and columns are 64-bit (context.h): 8 bytes, counted as doubles.
      ints += nown;
      dbls += (nown + 2.0) + nnz + nz * ne + 1.0 + nz * ne * ne;  // 64-bit indices
      dbls += nnz + nown + 1.0 + nz * ne * ne;
      dbls += nown + nz * ne;  // cuSPARSE SpMV work buffer (bound)
    }
  }
  // essential dofs, halos, buffers, reductions
  ints += s->ess;
  double dbuf = 1.0;
  for (int w = 0; w < 2; w++) {
    const double m = s->halo_send[w] > s->halo_recv[w] ? s->halo_send[w] : s->halo_recv[w];
    ints += s->halo_send[w] + s->halo_recv[w] + 3.0 * s->halo_send[w] + 1.0;
    if (2.0 * dim * m > dbuf) dbuf = 2.0 * dim * m;
  }
  dbls += dbuf + 6.0 * 256 + (2.0 * nz + 2.0) + 2.0 * (nz + 1.0) + 4.0;
  ints += nz + 1.0;
  // the front end: 6 state-sized vectors, the double-double rhs, 6 PCG vectors, gravity
  const double nx = dim * nl, nstate = 2.0 * nx + nz * ne;
  dbls += 6.0 * nstate + 2.0 * nx + 6.0 * (dim * next + 1.0) + nown + 1.0;
  const double bytes = 4.0 * ints + 8.0 * dbls;
  // cudaMalloc rounds large buffers up to 2 MiB pages (~70 buffers), cuBLAS/cuSPARSE
  // handles take their own workspace: a fixed allowance per rank.
  return (size_t)(bytes + (double)BLAST_CUDA_MEMORY_FIXED);
}

static double GiB(double b) {
  return b / 1073741824.0;
}

void BlastCudaMemoryAdvice(char *msg, size_t n, const BlastCudaShortfall *m) {
  const double per_zone =
      m->zones > 0 ? (m->need - m->ranks * (double)BLAST_CUDA_MEMORY_FIXED) / m->zones : 0.0;
  const int scale = 1 << (m->dim > 0 ? m->dim : 3);  // zones per refinement level
  // GPUs the mesh needs (with the memory now free on this one), and the zones that fit.
  const int gpus = m->free > 0.0 ? (int)ceil(m->need / m->free) : 0;
  long long fit =
      per_zone > 0.0
          ? (long long)((m->free - m->ranks * (double)BLAST_CUDA_MEMORY_FIXED) / per_zone)
          : 0;
  if (fit < 0) fit = 0;
  size_t k = 0;
#define ADD(...) (k += (size_t)snprintf(msg + (k < n ? k : n), k < n ? n - k : 0, __VA_ARGS__))
  ADD("not enough memory on GPU %d (%s): the %d rank%s on it need%s about %.2f GiB "
      "(%lld zones, %.1f KB per zone, estimated before allocating), but only %.2f GiB of "
      "%.2f GiB is free",
      m->device, m->gpu_name, m->ranks, m->ranks == 1 ? "" : "s", m->ranks == 1 ? "s" : "",
      GiB(m->need), m->zones, per_zone / 1024.0, GiB(m->free), GiB(m->total));
  if (m->free < 0.8 * m->total)
    ADD(" (%.2f GiB is held by CUDA contexts or other processes; nvidia-smi lists them)",
        GiB(m->total - m->free));
  ADD(". Options: ");
  if (m->ranks > 1 && gpus <= m->ranks) {
    const int per_gpu = gpus > 0 ? (m->ranks + gpus - 1) / gpus : 1;
    ADD("fewer ranks per GPU with more GPUs (this mesh needs at least %d GPUs with %.2f GiB "
        "free each: at most %d of these %d ranks per GPU, e.g. more nodes or more GPUs per "
        "node)",
        gpus, GiB(m->free), per_gpu, m->ranks);
  } else {
    ADD("more GPUs (this mesh needs at least %d GPUs with %.2f GiB free each: run %d or more "
        "ranks, one per GPU)",
        gpus, GiB(m->free), gpus);
  }
  ADD("; or a smaller mesh (about %lld zones fit on this GPU: one level less of [mesh] "
      "refine_parallel or refine_serial divides the zones by %d)",
      fit, scale);
  if (m->ranks > 1)
    ADD("; each rank also holds a CUDA context of its own (several hundred MiB without MPS)");
  ADD(".");
#undef ADD
}
