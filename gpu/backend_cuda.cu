// The CUDA backend behind the solver's backend table (solver/backend.h).
//
// All state and constant data live on the device for the whole run; only scalars (dt,
// dot products, energies) and halo buffers cross to the host. Kernels, as in the BLAST
// GPU paper (Dong et al., IPDPS 2014), with their number in its Table 2:
//   k_qdata_force      1-6  per point (a thread each): J, det, J^-1, EOS, viscosity
//                           (eigen-decomposition), stress S = w|J| sigma J^-T, dt estimate
//   k_force_gemm       7    F_z = A_z B^T, a thread per (zone, node, block of 4 or 8
//                           columns) building its node's rows of A_z from S and the basis
//                           gradients in registers (k_force_gemm_chunks where the S of a
//                           block's zones does not fit shared memory at once)
//   k_force_ones       8    -F_z 1 per zone (batched GEMV with ones)
//   k_gather_dd             assembly of the zone contributions into the L-vector, each
//                           dof summing its zones in a fixed order in double-double
//   k_force_t          10   F_z^T v_z per zone (batched GEMV)
//   k_me_apply         11   de = M_E^{-1} b with the dense zone blocks of the inverse
//                           (cuSPARSE SpMV on its CSR form with gpu.spmv=cusparse)
//   k_spmm_sell        9    PCG mat-vec with the mass matrix in sliced ELLPACK, all active
//                           components at once, double-double sums (cuSPARSE SpMV per
//                           component with gpu.spmv=cusparse)
//   k_dot_dd                dot products in double-double (rounded once: the same bits on
//                           any number of ranks, and as the CPU backend)
// Kernel launch failures are reported with the kernel's name; every CUDA, cuBLAS and
// cuSPARSE call is checked.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mpi.h>

#include "blast.h"
extern "C" {
#include "blast_mpi.h"
}

#include "backend.h"
#include "blast_cuda.h"
#include "sell.h"
#include "ddsum.h"
#include "problems/problems.h"
#include "qpoint.h"

// ---------------------------------------------------------------------------------------
// Status checks for the libraries

static int CublasError(const char *file, int line, const char *func, cublasStatus_t st,
                       const char *call) {
  return BlastErrorRaise(file, line, func, BLAST_ERR_CUBLAS, "%s failed: %s (%d)", call,
                         cublasGetStatusString(st), (int)st);
}
static int CusparseError(const char *file, int line, const char *func, cusparseStatus_t st,
                         const char *call) {
  return BlastErrorRaise(file, line, func, BLAST_ERR_CUSPARSE, "%s failed: %s (%d)", call,
                         cusparseGetErrorString(st), (int)st);
}
#define BlastCallCublas(...)                                                              \
  do {                                                                                    \
    cublasStatus_t st_ = (__VA_ARGS__);                                                   \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                     \
      return CublasError(__FILE__, __LINE__, __func__, st_, #__VA_ARGS__);                \
  } while (0)
#define BlastCallCusparse(...)                                                            \
  do {                                                                                    \
    cusparseStatus_t st_ = (__VA_ARGS__);                                                 \
    if (st_ != CUSPARSE_STATUS_SUCCESS)                                                   \
      return CusparseError(__FILE__, __LINE__, __func__, st_, #__VA_ARGS__);              \
  } while (0)

enum { kDotBlocks = 256, kDotThreads = 256 };

static BlastGpuOptions g_options = {BLAST_AUTOTUNE_ONLINE, 0, "", 0};

extern "C" void BlastCudaSetOptions(const BlastGpuOptions *opt) { g_options = *opt; }

// ---------------------------------------------------------------------------------------
// Optional per-kernel profiling (BLAST_GPU_PROFILE=1): events around every kernel, the
// totals printed with modeled bytes and flops when the backend is destroyed. Serialises
// the stream: for benchmarks only.

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
  P_NPROF
};
static const char *kProfName[P_NPROF] = {
    "k_qdata_force (1-6)", "k_force_gemm (7)", "k_force_ones (8)", "k_gather_dd (assembly)",
    "k_force_t (10)",      "k_me_apply (11)",  "mass SpMV (9)",    "k_dot_dd",
    "vector ops",          "halo pack/unpack"};
typedef struct {
  int on;
  cudaEvent_t e0, e1;
  double ms[P_NPROF];
  long long calls[P_NPROF];
  double bytes[P_NPROF], flops[P_NPROF];  // modeled totals
} Profile;
static Profile g_prof;

static void ProfBegin(cudaStream_t s) {
  if (g_prof.on) cudaEventRecord(g_prof.e0, s);
}
static void ProfEnd(cudaStream_t s, int k, double bytes, double flops) {
  if (!g_prof.on) return;
  cudaEventRecord(g_prof.e1, s);
  cudaEventSynchronize(g_prof.e1);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, g_prof.e0, g_prof.e1);
  g_prof.ms[k] += ms, g_prof.calls[k]++, g_prof.bytes[k] += bytes, g_prof.flops[k] += flops;
}

static size_t g_mem_used = 0;  // device bytes taken by the backend's data
static size_t g_mem_free0 = 0;     // free device bytes when the backend was created
static size_t g_mem_estimate = 0;  // BlastCudaMemoryEstimate of this rank
static size_t g_mem_in_use = 0;    // ... and what the device lost since, at the first update
extern "C" size_t BlastCudaMemoryUsed(void) { return g_mem_used; }

// ---------------------------------------------------------------------------------------
// Device copies of the constant data

typedef struct {
  int dim, nz, nqp, nd, ne, nl, nown, next, rows;
  int *edof, *toff, *tidx;
  double *qw, *B, *L2B, *R0, *gamma;
  // point-fastest copies for the quadrature kernel: Gt [a][g][q], L2Bt [i][q], J0inv
  // [z][i][q]; for the force GEMM: Gn [q][g][a] node-fastest and L2Bp [q][ne rounded up
  // to GemmColumns] zero-padded
  double *Gt, *Gn, *L2Bt, *L2Bp, *J0inv;
  double *S;                // [nz][nqp][SStride(dim)] w |J| sigma J^-T per point (dim^2 used)
  double *F, *rE, *tg, *b;  // zone force matrices, zone momentum rhs, TG source, F^T v
  BlastQPointParams qpar;
  int tg_source;
} DevData;

// A CSR matrix on the device with its cuSPARSE descriptor.
typedef struct {
  int nrows, ncols, nnz;
  int *rowptr, *col;
  double *val;
  cusparseSpMatDescr_t mat;
} DevCsr;

// Reverse-halo targets: each distinct owned dof and the buffer positions adding to it.
typedef struct {
  int nsend, nrecv, ntarget;
  int *send_idx, *recv_idx;
  int *target, *toff, *tpos;
} DevHalo;

enum { kSpmmMaxCand = 16 };  // mass-matrix kernel variants the tuner may time

// Launch configuration of the quadrature kernel and the force GEMM (autotuned).
typedef struct {
  int zpb;  // zones per block
  int tpz;  // threads per zone
  int gtb;  // threads per block of k_force_gemm
  int reg;  // register cap of k_qdata_force: index into kQRegCap (0: none)
} QConfig;

// Register caps of the quadrature kernel's variants: fewer registers let more warps share
// an SM, at the price of spills (the tuner decides).
static const int kQRegCap[3] = {255, 128, 96};

typedef struct {
  BlastHydroData hd;
  DevData dd;
  cudaStream_t stream;
  cublasHandle_t cublas;
  cusparseHandle_t cusparse;
  DevCsr mv_int, mv_bnd, me_inv;  // mass matrix interior/boundary rows; M_E^{-1}
  cusparseDnVecDescr_t vx_int, vy_int, vx_bnd, vy_bnd, ve_in, ve_out;
  void *spmv_buf;
  size_t spmv_buf_size;
  int *mv_rows;    // [nown] row order: interior rows then boundary rows (cuSPARSE only)
  double *y_perm;  // [nown] cuSPARSE SpMV output in that order
  // the mass matrix in sliced ELLPACK (sell.h) for the double-double kernel
  int *sell_row, *sell_len, *sell_col;
  long long *sell_off;
  double *sell_val;
  int sell_slots, sell_slots_int;
  double *xil;            // [3 next] x with components side by side
  const double *xil_src;  // x whose owned part the last INTERIOR call packed (else NULL)
  int xil_ncomp;          // with this many components
  // mass-matrix kernel variant (kSpmmCand) and its online tuning: candidate spmm_tune,
  // repeat spmm_rep, the timed call in flight between ev_s0 and ev_s1
  int spmm_cand, spmm_tune, spmm_rep, spmm_pending;
  float spmm_time[kSpmmMaxCand];
  cudaEvent_t ev_s0, ev_s1;
  double *me_inv_blocks;
  double *mv_dinv;
  int *ess_off, *ess_idx;  // host offsets, device indices
  int ess_n[4];
  DevHalo halo[2];
  double *dbuf;  // device halo staging
  size_t dbuf_n;
  double *dot_part;       // [2*kDotBlocks] device
  double *dot_host;       // pinned
  double *red;            // per-block dt and det; the reduced result in red_out
  double *red_out;
  int *red_zone;
  double *red_host;       // pinned: dt, det, zone
  int nred;
  double *energy_zone;    // [2*nz] device
  double *energy_host;    // [2*nz] pinned
  QConfig qcfg;
  // autotuning state
  int tune_active, tune_index, tune_ncand, tune_n1, tune_rep;  // n1: first-round candidates
  QConfig tune_cand[160];
  float tune_time[160];
  cudaEvent_t ev0, ev1, ev_mid;  // around the quadrature kernel and the GEMM; between them
  char gpu_name[256];
  // hybrid (split_*): the staging buffer for host zones' E-vectors, the copy event, and
  // the quadrature update in flight
  double *stage;
  size_t stage_n;
  cudaEvent_t ev_copy;
  int q_ndev, q_tuning;
  int q_regs[5];   // registers of the quadrature kernel's three variants and the GEMM's two (cache
                   // key)
  int sell_sigma;  // rows ordered by length within windows of this many (0: all)
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

static size_t Blocks(size_t n, int threads) { return (n + threads - 1) / threads; }

// Index of the least of t[0..n) (the fastest tuning candidate; -1 if n = 0).
static int ArgMin(const float *t, int n) {
  int best = n > 0 ? 0 : -1;
  for (int i = 1; i < n; i++)
    if (t[i] < t[best]) best = i;
  return best;
}

// ---------------------------------------------------------------------------------------
// Vector kernels

__global__ void k_set(size_t n, double a, double *x) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x[i] = a;
}
__global__ void k_axpby(size_t n, double a, const double *x, double b, double *y) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    y[i] = __dadd_rn(__dmul_rn(a, x[i]), __dmul_rn(b, y[i]));
}
__global__ void k_waxpby(size_t n, double a, const double *x, double b, const double *y, double *w) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    w[i] = __dadd_rn(__dmul_rn(a, x[i]), __dmul_rn(b, y[i]));
}

// Double-double dot: every thread accumulates a fixed strided subset, blocks reduce in a
// fixed tree; the host combines the block pairs in order. The products are rounded as on
// the CPU (__dmul_rn: no fused multiply-add).
__global__ void k_dot_dd(size_t n, const double *x, const double *y, double *part) {
  __shared__ double sh[2 * kDotThreads];
  BlastDD acc = {0.0, 0.0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    BlastDDAdd(&acc, __dmul_rn(x[i], y[i]));
  BlastDDNormalize(&acc);
  sh[2 * threadIdx.x] = acc.hi, sh[2 * threadIdx.x + 1] = acc.lo;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      BlastDD a = {sh[2 * threadIdx.x], sh[2 * threadIdx.x + 1]};
      BlastDDAddDD(&a, sh[2 * (threadIdx.x + s)], sh[2 * (threadIdx.x + s) + 1]);
      BlastDDNormalize(&a);
      sh[2 * threadIdx.x] = a.hi, sh[2 * threadIdx.x + 1] = a.lo;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) part[2 * blockIdx.x] = sh[0], part[2 * blockIdx.x + 1] = sh[1];
}

// ---------------------------------------------------------------------------------------
// Kernels 1-7: quadrature data and zone force matrices

typedef struct {
  DevData d;
  const double *x, *v, *e;
  QConfig cfg;
  double *blk_dt, *blk_det;
  int *blk_zone;
} QArgs;

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

// Kernels 1-6: one thread per point (tpz threads per zone, zpb zones per block) computes J,
// the velocity gradient, the stress and the dt estimate, and stores S = w |J| sigma J^-T in
// d.S. The constant data it reads per point are laid out point-fastest (Gt, L2Bt, J0inv),
// so that a warp's loads are coalesced.
template <int DIM, int MAXREG>
__global__ void __maxnreg__(MAXREG) k_qdata_force(QArgs p) {
  extern __shared__ double sm[];
  const DevData &d = p.d;
  const int D2 = DIM * DIM, nd = d.nd, ne = d.ne, nqp = d.nqp, rows = d.rows, tpz = p.cfg.tpz;
  const int zl = threadIdx.x / tpz, t = threadIdx.x % tpz;
  const int z = blockIdx.x * p.cfg.zpb + zl;
  const bool active = zl < p.cfg.zpb && z < d.nz;
  const int per_zone = QZoneDoubles(rows, ne, nqp);
  double *xz = sm + (size_t)zl * per_zone, *vz = xz + rows, *ez = vz + rows, *W = ez + ne;
  if (active) {
    for (int i = t; i < rows; i += tpz) {
      const int c = i / nd, a = i % nd, l = d.edof[(size_t)z * nd + a];
      xz[i] = p.x[(size_t)c * d.nl + l];
      vz[i] = p.v[(size_t)c * d.nl + l];
    }
    for (int i = t; i < ne; i += tpz) ez[i] = p.e[(size_t)z * ne + i];
  }
  __syncthreads();
  double dtmin = HUGE_VAL, tdet = 0.0;
  int tzone = INT_MAX;
  if (active) {
    for (int q = t; q < nqp; q += tpz) {
      double J[9] = {0}, Gv[9] = {0};
      for (int a = 0; a < nd; a++) {  // each entry sums over the nodes in ascending order
        const double *Ga = &d.Gt[(size_t)a * DIM * nqp + q];
#pragma unroll
        for (int c = 0; c < DIM; c++) {
          const double xa = xz[c * nd + a], va = vz[c * nd + a];
#pragma unroll
          for (int g = 0; g < DIM; g++) {
            J[c + DIM * g] += xa * Ga[g * nqp];
            Gv[c + DIM * g] += va * Ga[g * nqp];
          }
        }
      }
      double eq = 0.0;
      for (int i = 0; i < ne; i++) eq += ez[i] * d.L2Bt[(size_t)i * nqp + q];
      const size_t zq = (size_t)z * nqp + q;
      double J0inv[9];
#pragma unroll
      for (int i = 0; i < D2; i++) J0inv[i] = d.J0inv[((size_t)z * D2 + i) * nqp + q];
      double dtq;
      const double det = BlastQPointStress(DIM, &d.qpar, J, Gv, J0inv, d.R0[zq], d.qw[q], eq,
                                           d.gamma[z], &d.S[zq * SStride(DIM)], &dtq);
      if (!(det > 0.0)) {
        dtmin = 0.0;
        if (z < tzone) tzone = z, tdet = det;
      } else if (dtq < dtmin) {
        dtmin = dtq;
      }
      if (d.tg_source) {  // the point's source weight, summed per basis function below
        double X[3] = {0, 0, 0};
        for (int c = 0; c < DIM; c++)
          for (int a = 0; a < nd; a++) X[c] += xz[c * nd + a] * d.B[(size_t)q * nd + a];
        W[q] = d.qw[q] * det * BlastTaylorGreenQ(X);
      }
    }
  }
  __syncthreads();
  if (d.tg_source && active) {
    for (int j = t; j < ne; j += tpz) {
      double s = 0.0;
      for (int q = 0; q < nqp; q++) s += W[q] * d.L2B[(size_t)q * ne + j];
      d.tg[(size_t)z * ne + j] = s;
    }
  }
  // Block minimum of the dt estimate and the lowest tangled zone (reuses shared memory).
  __syncthreads();
  double *rd = sm, *rdet = sm + blockDim.x;
  int *rz = (int *)(sm + 2 * blockDim.x);
  rd[threadIdx.x] = dtmin, rdet[threadIdx.x] = tdet, rz[threadIdx.x] = tzone;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      if (rd[threadIdx.x + s] < rd[threadIdx.x]) rd[threadIdx.x] = rd[threadIdx.x + s];
      if (rz[threadIdx.x + s] < rz[threadIdx.x]) rz[threadIdx.x] = rz[threadIdx.x + s], rdet[threadIdx.x] = rdet[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) p.blk_dt[blockIdx.x] = rd[0], p.blk_zone[blockIdx.x] = rz[0], p.blk_det[blockIdx.x] = rdet[0];
}

// One point of k_force_gemm: A = S g for the thread's node (S from shared memory, g its
// basis gradient), then acc += A b^T over its JT columns of B.
template <int DIM, int JT>
__device__ __forceinline__ void GemmPoint(const double2 *S2, const double2 *L2, const double *Gq,
                                          int nd, double (&acc)[DIM][JT]) {
  constexpr int SP = SStride(DIM);
  double Sq[SP], g[DIM], A[DIM], b[JT];
#pragma unroll
  for (int i = 0; i < SP / 2; i++) {
    const double2 v = S2[i];
    Sq[2 * i] = v.x, Sq[2 * i + 1] = v.y;
  }
#pragma unroll
  for (int h = 0; h < DIM; h++) g[h] = __ldg(&Gq[h * nd]);
#pragma unroll
  for (int k = 0; k < JT / 2; k++) {
    const double2 v = __ldg(&L2[k]);
    b[2 * k] = v.x, b[2 * k + 1] = v.y;
  }
#pragma unroll
  for (int c = 0; c < DIM; c++) {
    double s = 0.0;
#pragma unroll
    for (int h = 0; h < DIM; h++) s += Sq[c + DIM * h] * g[h];
    A[c] = s;
  }
#pragma unroll
  for (int k = 0; k < JT; k++)
#pragma unroll
    for (int c = 0; c < DIM; c++) acc[c][k] += A[c] * b[k];
}

// F_z columns [j0, j0 + JT) of node a's DIM rows.
template <int DIM, int JT>
__device__ __forceinline__ void GemmStore(const DevData &d, size_t z, int a, int j0,
                                          const double (&acc)[DIM][JT]) {
  const int rows = DIM * d.nd;
  double *F = d.F + z * rows * d.ne;
#pragma unroll
  for (int k = 0; k < JT; k++)
    if (j0 + k < d.ne)
#pragma unroll
      for (int c = 0; c < DIM; c++) F[(size_t)(j0 + k) * rows + c * d.nd + a] = acc[c][k];
}

// Kernel 7: F_z = A_z B^T with A_z[(c,a)][q] = sum_g S_q[c,g] G_q[a,g] and B = L2B. One
// thread per (zone, node a, block of JT columns) builds the DIM rows of A for its node at
// each point in registers, so that every G and B value loaded serves DIM x JT products;
// as on the CPU, each A entry sums over g and each F entry over the points in ascending
// order (the same bits). A block first copies the S of all its zones' points to shared
// memory, by all threads at once (a stream of independent loads instead of one dependent
// load per point and thread); k_force_gemm_chunks does so qc points at a time, where that
// does not fit. This kernel keeps its code inline rather than sharing k_force_gemm_chunks'
// helpers: with GemmPoint for the point loop the compiler scheduled it differently and it
// took 1.77 ms instead of 1.30 (H200, 3D Q2-Q1, 110 592 zones; Q3-Q2 at 32 768 zones 11.8
// instead of 9.1 ms), with a shared item-range helper and GemmStore 1.66 ms (9.9 ms).
template <int DIM, int JT>
__global__ void __launch_bounds__(256) k_force_gemm(DevData d, int qc) {
  (void)qc;  // the chunked kernel's argument
  extern __shared__ double2 ssm[];
  constexpr int SP = SStride(DIM);
  const int nd = d.nd, ne = d.ne, nqp = d.nqp, nch = (ne + JT - 1) / JT, ncp = nch * JT;
  // S of the block's zones, copied to shared memory by all threads at once (a stream of
  // independent loads instead of one dependent load per point and thread)
  const size_t per_zone = (size_t)nd * nch, nitem = (size_t)d.nz * per_zone;
  const size_t item0 = (size_t)blockIdx.x * blockDim.x, item = item0 + threadIdx.x;
  const size_t zfirst = item0 / per_zone;
  const size_t zlast = ((item0 + blockDim.x < nitem ? item0 + blockDim.x : nitem) - 1) / per_zone;
  const size_t n2 = (zlast - zfirst + 1) * nqp * (SP / 2);
  const double2 *src = (const double2 *)(d.S + zfirst * nqp * SP);
  for (size_t i = threadIdx.x; i < n2; i += blockDim.x) ssm[i] = __ldg(&src[i]);
  __syncthreads();
  if (item >= nitem) return;
  const int a = (int)(item % nd);
  const size_t zc = item / nd, z = zc / nch;
  const int j0 = (int)(zc % nch) * JT;
  double acc[DIM][JT];
#pragma unroll
  for (int c = 0; c < DIM; c++)
#pragma unroll
    for (int k = 0; k < JT; k++) acc[c][k] = 0.0;
  const double2 *S2 = ssm + (z - zfirst) * nqp * (SP / 2);
  const double2 *L2 = (const double2 *)(d.L2Bp + j0);
  const double *Gq = d.Gn + a;
#pragma unroll 2
  for (int q = 0; q < nqp; q++, S2 += SP / 2, L2 += ncp / 2, Gq += DIM * nd) {
    double Sq[SP], g[DIM], A[DIM], b[JT];
#pragma unroll
    for (int i = 0; i < SP / 2; i++) {
      const double2 v = S2[i];
      Sq[2 * i] = v.x, Sq[2 * i + 1] = v.y;
    }
#pragma unroll
    for (int h = 0; h < DIM; h++) g[h] = __ldg(&Gq[h * nd]);
#pragma unroll
    for (int k = 0; k < JT / 2; k++) {
      const double2 v = __ldg(&L2[k]);
      b[2 * k] = v.x, b[2 * k + 1] = v.y;
    }
#pragma unroll
    for (int c = 0; c < DIM; c++) {
      double s = 0.0;
#pragma unroll
      for (int h = 0; h < DIM; h++) s += Sq[c + DIM * h] * g[h];
      A[c] = s;
    }
#pragma unroll
    for (int k = 0; k < JT; k++)
#pragma unroll
      for (int c = 0; c < DIM; c++) acc[c][k] += A[c] * b[k];
  }
  const int rows = DIM * nd;
  double *F = d.F + z * rows * ne;
#pragma unroll
  for (int k = 0; k < JT; k++)
    if (j0 + k < ne)
#pragma unroll
      for (int c = 0; c < DIM; c++) F[(size_t)(j0 + k) * rows + c * nd + a] = acc[c][k];
}

template <int DIM, int JT>
__global__ void __launch_bounds__(256) k_force_gemm_chunks(DevData d, int qc) {
  extern __shared__ double2 ssm[];
  constexpr int SP = SStride(DIM);
  const int nd = d.nd, ne = d.ne, nqp = d.nqp, nch = (ne + JT - 1) / JT, ncp = nch * JT;
  const size_t per_zone = (size_t)nd * nch, nitem = (size_t)d.nz * per_zone;
  const size_t item0 = (size_t)blockIdx.x * blockDim.x, item = item0 + threadIdx.x;
  const size_t zfirst = item0 / per_zone;
  const size_t zlast = ((item0 + blockDim.x < nitem ? item0 + blockDim.x : nitem) - 1) / per_zone;
  const bool active = item < nitem;
  const int a = (int)(item % nd);
  const size_t zc = item / nd, z = active ? zc / nch : zfirst;
  const int j0 = active ? (int)(zc % nch) * JT : 0;
  double acc[DIM][JT];
#pragma unroll
  for (int c = 0; c < DIM; c++)
#pragma unroll
    for (int k = 0; k < JT; k++) acc[c][k] = 0.0;
  const double2 *L2 = (const double2 *)(d.L2Bp + j0);
  const double *Gq = d.Gn + a;
  for (int q0 = 0; q0 < nqp; q0 += qc) {  // zone zi of the block at ssm + zi * qc * SP/2
    const int nq = qc < nqp - q0 ? qc : nqp - q0, row2 = nq * (SP / 2);
    const size_t n2 = (zlast - zfirst + 1) * (size_t)row2;
    __syncthreads();  // the previous chunk is used up
    for (size_t i = threadIdx.x; i < n2; i += blockDim.x) {
      const size_t zi = i / row2, r = i % row2;
      ssm[zi * qc * (SP / 2) + r] =
          __ldg((const double2 *)(d.S + ((zfirst + zi) * nqp + q0) * SP) + r);
    }
    __syncthreads();
    if (!active) continue;
    const double2 *S2 = ssm + (z - zfirst) * qc * (SP / 2);
    for (int q = 0; q < nq; q++, S2 += SP / 2, L2 += ncp / 2, Gq += DIM * nd)
      GemmPoint<DIM, JT>(S2, L2, Gq, nd, acc);
  }
  if (active) GemmStore<DIM, JT>(d, z, a, j0, acc);
}

// k_force_gemm (chunks false) or k_force_gemm_chunks<dim, jt> (jt = GemmColumns(ne))
static const void *GemmKernel(int dim, int jt, bool chunks) {
  static const void *const k[3][2][2] = {
      {{(const void *)k_force_gemm<1, 4>, (const void *)k_force_gemm_chunks<1, 4>},
       {(const void *)k_force_gemm<1, 8>, (const void *)k_force_gemm_chunks<1, 8>}},
      {{(const void *)k_force_gemm<2, 4>, (const void *)k_force_gemm_chunks<2, 4>},
       {(const void *)k_force_gemm<2, 8>, (const void *)k_force_gemm_chunks<2, 8>}},
      {{(const void *)k_force_gemm<3, 4>, (const void *)k_force_gemm_chunks<3, 4>},
       {(const void *)k_force_gemm<3, 8>, (const void *)k_force_gemm_chunks<3, 8>}}};
  return k[dim - 1][jt == 8][chunks];
}

// Reduce per-block minima to one (single block).
__global__ void k_reduce_min(int n, const double *dt, const int *zone, const double *det, double *out) {
  __shared__ double sd[256], sdet[256];
  __shared__ int sz[256];
  double m = HUGE_VAL, dd = 0.0;
  int zz = INT_MAX;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (dt[i] < m) m = dt[i];
    if (zone[i] < zz) zz = zone[i], dd = det[i];
  }
  sd[threadIdx.x] = m, sz[threadIdx.x] = zz, sdet[threadIdx.x] = dd;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      if (sd[threadIdx.x + s] < sd[threadIdx.x]) sd[threadIdx.x] = sd[threadIdx.x + s];
      if (sz[threadIdx.x + s] < sz[threadIdx.x]) sz[threadIdx.x] = sz[threadIdx.x + s], sdet[threadIdx.x] = sdet[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = sd[0], out[1] = sdet[0], out[2] = (double)sz[0];
}

// ---------------------------------------------------------------------------------------
// Kernels 8, 10 and the assembly

// rE[z][r] = -sum_j F_z[r][j]  (the same order as the CPU backend)
__global__ void k_force_ones(DevData d) {
  const size_t n = (size_t)d.nz * d.rows;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const size_t z = i / d.rows, r = i % d.rows;
    const double *F = &d.F[z * d.rows * d.ne];
    double s = 0.0;
    for (int j = 0; j < d.ne; j++) s -= F[(size_t)d.rows * j + r];
    d.rE[i] = s;
  }
}

// rhs[c*nl + l] (+ low part at (dim + c)*nl + l): each dof sums its zones in a fixed order.
__global__ void k_gather_dd(DevData d, double *rhs) {
  const size_t n = (size_t)d.nl * d.dim;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const int l = (int)(i / d.dim), c = (int)(i % d.dim);
    BlastDD s = {0.0, 0.0};
    for (int t = d.toff[l]; t < d.toff[l + 1]; t++) {
      const int eidx = d.tidx[t], z = eidx / d.nd, a = eidx % d.nd;
      BlastDDAdd(&s, d.rE[(size_t)z * d.rows + c * d.nd + a]);
    }
    BlastDDNormalize(&s);
    rhs[(size_t)c * d.nl + l] = s.hi;
    rhs[(size_t)(d.dim + c) * d.nl + l] = s.lo;
  }
}

// b[z][j] = sum_r F_z[r][j] v_z[r] (+ Taylor-Green source)
__global__ void k_force_t(DevData d, const double *v) {
  const size_t n = (size_t)d.nz * d.ne;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const size_t z = i / d.ne, j = i % d.ne;
    const double *F = &d.F[z * d.rows * d.ne + (size_t)d.rows * j];
    double s = 0.0;
    for (int r = 0; r < d.rows; r++) {
      const int c = r / d.nd, a = r % d.nd;
      s += F[r] * v[(size_t)c * d.nl + d.edof[z * d.nd + a]];
    }
    d.b[i] = d.tg_source ? s + d.tg[i] : s;
  }
}

// Mass-matrix rows in double-double for up to 3 components at once, in sliced ELLPACK
// (sell.h): a thread per row slot, the warp's 32 rows read side by side (coalesced), each
// row summed in the order of its entries, the row read once for all components. The
// rounded sums almost never depend on the order (ddsum.h), so they equal the CPU
// backend's bit for bit but in rare last-bit cases. Component c of x and y starts at
// c * st; only components in `mask` are computed. Slots [t0, t1), t0 a multiple of 32.
// IL: x with its NCOMP components side by side (x[j * NCOMP + c]), one gather per entry.
// Variants for the tuner: at least MINB blocks of 256 threads per SM (4: at most 64
// registers, 6: 40), UNR entries per unrolled loop step.
template <int NCOMP, bool IL, int MINB, int UNR>
__global__ void __launch_bounds__(256, MINB)
    k_spmm_sell(int t0, int t1, const int *srow, const int *slen, const long long *soff,
                const int *col, const double *val, unsigned mask, size_t st, const double *x,
                double *y) {
  const int t = t0 + (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= t1) return;
  const int row = srow[t];
  if (row < 0) return;
  const int len = slen[t];
  const long long base = soff[t >> 5] + (t & 31);
  const double *v = val + base;
  const int *cl = col + base;
  BlastDD acc[NCOMP];
#pragma unroll
  for (int c = 0; c < NCOMP; c++) acc[c].hi = 0.0, acc[c].lo = 0.0;
#pragma unroll UNR
  for (int k = 0; k < len; k++) {
    const double a = __ldg(v + 32 * k);
    const int j = __ldg(cl + 32 * k);
#pragma unroll
    for (int c = 0; c < NCOMP; c++)
      if ((mask >> c) & 1u)
        BlastDDAdd(&acc[c], __dmul_rn(a, __ldg(IL ? &x[(size_t)j * NCOMP + c] : &x[c * st + j])));
  }
#pragma unroll
  for (int c = 0; c < NCOMP; c++) {
    if (!((mask >> c) & 1u)) continue;
    BlastDDNormalize(&acc[c]);
    y[c * st + row] = acc[c].hi;
  }
}

// xil[i * ncomp + c] = x[c * st + i] for i in [n0, n1): components side by side.
__global__ void k_interleave(int n0, int n1, int ncomp, size_t st, const double *x, double *xil) {
  for (int i = n0 + blockIdx.x * blockDim.x + threadIdx.x; i < n1; i += gridDim.x * blockDim.x)
    for (int c = 0; c < ncomp; c++) xil[(size_t)i * ncomp + c] = x[c * st + i];
}

// Variants of the mass-matrix kernel the tuner times (threads per block, MINB, UNR). The
// first is the default: the fastest on an H200 for 3D Q2-Q1 at 110 592 and 884 736 zones
// (docs/performance.md). Blocks of 256 threads hold 8 slices of a sigma window, rows of all
// lengths, and keep their SM slot until the longest row is done.
typedef struct {
  int threads, minb, unr;
} SpmmCand;
static const SpmmCand kSpmmCand[] = {{128, 4, 8}, {64, 1, 4}, {128, 1, 4}, {256, 1, 4}, {64, 4, 4},
                                     {128, 4, 4}, {64, 6, 4}, {128, 6, 4}, {64, 1, 8},  {64, 4, 8}};
enum { kSpmmNCand = sizeof kSpmmCand / sizeof *kSpmmCand, kSpmmReps = 3 };
static_assert((int)kSpmmNCand <= (int)kSpmmMaxCand, "kSpmmMaxCand");

typedef void (*SpmmKernel)(int, int, const int *, const int *, const long long *, const int *,
                           const double *, unsigned, size_t, const double *, double *);
template <int NCOMP, bool IL>
static SpmmKernel SpmmPick(const SpmmCand *k) {
  if (k->minb == 6) return k_spmm_sell<NCOMP, IL, 6, 4>;
  if (k->minb == 4)
    return k->unr == 8 ? k_spmm_sell<NCOMP, IL, 4, 8> : k_spmm_sell<NCOMP, IL, 4, 4>;
  return k->unr == 8 ? k_spmm_sell<NCOMP, IL, 1, 8> : k_spmm_sell<NCOMP, IL, 1, 4>;
}

typedef struct {
  double v[3];
} Coef3;

// y_c = a_c x_c + b_c y_c on the first n entries of each active component (grid y = c).
__global__ void k_axpby_multi(int n, unsigned mask, size_t st, Coef3 a, const double *x, Coef3 b, double *y) {
  const int c = blockIdx.y;
  if (!((mask >> c) & 1u)) return;
  const double *xc = x + c * st;
  double *yc = y + c * st;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    yc[i] = __dadd_rn(__dmul_rn(a.v[c], xc[i]), __dmul_rn(b.v[c], yc[i]));
}

__global__ void k_jacobi_multi(int n, unsigned mask, size_t st, const double *dinv, const double *r, double *z) {
  const int c = blockIdx.y;
  if (!((mask >> c) & 1u)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    z[c * st + i] = __dmul_rn(r[c * st + i], dinv[i]);
}

typedef struct {
  int v[4];
} Off4;

__global__ void k_zero_multi(unsigned mask, size_t st, Off4 off, const int *idx, double *y) {
  const int c = blockIdx.y;
  if (!((mask >> c) & 1u)) return;
  for (int k = off.v[c] + blockIdx.x * blockDim.x + threadIdx.x; k < off.v[c + 1]; k += gridDim.x * blockDim.x)
    y[c * st + idx[k]] = 0.0;
}

// Double-double dots of the active components; blocks (x) per component (y).
__global__ void k_dot_dd_multi(int n, unsigned mask, size_t st, const double *x, const double *y, double *part) {
  __shared__ double sh[2 * kDotThreads];
  const int c = blockIdx.y;
  if (!((mask >> c) & 1u)) return;
  BlastDD acc = {0.0, 0.0};
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    BlastDDAdd(&acc, __dmul_rn(x[c * st + i], y[c * st + i]));
  BlastDDNormalize(&acc);
  sh[2 * threadIdx.x] = acc.hi, sh[2 * threadIdx.x + 1] = acc.lo;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      BlastDD a = {sh[2 * threadIdx.x], sh[2 * threadIdx.x + 1]};
      BlastDDAddDD(&a, sh[2 * (threadIdx.x + s)], sh[2 * (threadIdx.x + s) + 1]);
      BlastDDNormalize(&a);
      sh[2 * threadIdx.x] = a.hi, sh[2 * threadIdx.x + 1] = a.lo;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    part[2 * (c * kDotBlocks + blockIdx.x)] = sh[0];
    part[2 * (c * kDotBlocks + blockIdx.x) + 1] = sh[1];
  }
}

// de[z][i] = sum_j Minv_z[i][j] b[z][j] (kernel 11), summed as the CPU backend does.
__global__ void k_me_apply(int nz, int ne, const double *minv, const double *b, double *de) {
  const size_t n = (size_t)nz * ne;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < n; t += (size_t)gridDim.x * blockDim.x) {
    const size_t z = t / ne, i = t % ne;
    const double *M = &minv[z * ne * ne], *bz = &b[z * ne];
    double s = 0.0;
    for (int j = 0; j < ne; j++) s += M[i + (size_t)ne * j] * bz[j];
    de[t] = s;
  }
}

__global__ void k_scatter(int n, const int *rows, const double *src, double *dst) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[rows[i]] = src[i];
}



__global__ void k_pack(int n, int ncomp, size_t stride, const int *idx, const double *x, double *buf) {
  const size_t total = (size_t)n * ncomp;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const size_t c = i / n, k = i % n;
    buf[i] = x[c * stride + idx[k]];
  }
}

__global__ void k_unpack_set(int n, int ncomp, size_t stride, const int *idx, const double *buf, double *x) {
  const size_t total = (size_t)n * ncomp;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const size_t c = i / n, k = i % n;
    x[c * stride + idx[k]] = buf[i];
  }
}

// Reverse unpack: each distinct target adds its buffer entries in list order.
__global__ void k_unpack_add(DevHalo h, int ncomp, size_t stride, const double *buf, double *x, int dd) {
  const size_t total = (size_t)h.ntarget * ncomp;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    const int c = (int)(i / h.ntarget), k = (int)(i % h.ntarget), tgt = h.target[k];
    if (dd) {
      double *xh = &x[c * stride + tgt], *xl = &x[(ncomp + c) * stride + tgt];
      BlastDD acc = {*xh, *xl};
      for (int p = h.toff[k]; p < h.toff[k + 1]; p++)
        BlastDDAddDD(&acc, buf[(size_t)c * h.nsend + h.tpos[p]], buf[(size_t)(ncomp + c) * h.nsend + h.tpos[p]]);
      BlastDDNormalize(&acc);
      *xh = acc.hi, *xl = acc.lo;
    } else {
      double s = x[c * stride + tgt];
      for (int p = h.toff[k]; p < h.toff[k + 1]; p++) s += buf[(size_t)c * h.nsend + h.tpos[p]];
      x[c * stride + tgt] = s;
    }
  }
}

// Internal and kinetic energy per zone (method spec 13.2).
__global__ void k_energies(DevData d, const double *v, const double *e, double *out) {
  for (int z = blockIdx.x * blockDim.x + threadIdx.x; z < d.nz; z += gridDim.x * blockDim.x) {
    double si = 0.0, sk = 0.0;
    for (int q = 0; q < d.nqp; q++) {
      const double R0 = d.R0[(size_t)z * d.nqp + q];
      double eq = 0.0, v2 = 0.0;
      for (int i = 0; i < d.ne; i++) eq += e[(size_t)z * d.ne + i] * d.L2B[(size_t)q * d.ne + i];
      for (int c = 0; c < d.dim; c++) {
        double vq = 0.0;
        for (int a = 0; a < d.nd; a++)
          vq += v[(size_t)c * d.nl + d.edof[(size_t)z * d.nd + a]] * d.B[(size_t)q * d.nd + a];
        v2 += vq * vq;
      }
      si += R0 * eq;
      sk += 0.5 * R0 * v2;
    }
    out[2 * z] = si, out[2 * z + 1] = sk;
  }
}

// ---------------------------------------------------------------------------------------
// Setup

static int UploadCsr(int nrows, int ncols, const int *rowptr, const int *col, const double *val,
                     DevCsr *m) {
  m->nrows = nrows, m->ncols = ncols, m->nnz = rowptr[nrows];
  BlastCall(DevUpload(rowptr, (size_t)nrows + 1, &m->rowptr));
  BlastCall(DevUpload(col, (size_t)m->nnz, &m->col));
  BlastCall(DevUpload(val, (size_t)m->nnz, &m->val));
  BlastCallCusparse(cusparseCreateCsr(&m->mat, nrows, ncols > 0 ? ncols : 1, m->nnz, m->rowptr, m->col,
                                      m->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  return 0;
}

static int FreeCsr(DevCsr *m) {
  if (m->mat) BlastCallCusparse(cusparseDestroySpMat(m->mat));
  BlastCallCuda(cudaFree(m->rowptr));
  BlastCallCuda(cudaFree(m->col));
  BlastCallCuda(cudaFree(m->val));
  memset(m, 0, sizeof *m);
  return 0;
}

// The mass matrix in sliced ELLPACK for the double-double kernel, interior rows' slices
// first so that the interior product overlaps the halo exchange; with `[gpu] spmv =
// cusparse` instead interior and boundary rows as CSR matrices of their own (in the order
// of hd->mv_rows).
static int UploadMass(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  const int nown = hd->h1_nown, ni = hd->mv_ninterior;
  BlastCall(DevUpload(hd->mv_dinv, (size_t)nown, &c->mv_dinv));
  if (!g_options.spmv_cusparse) {
    BlastSell s;
    int ierr = BlastSellBuild(nown, ni, hd->mv_rows, hd->mv_rowptr, hd->mv_col, hd->mv_val,
                              c->sell_sigma, &s);
    if (!ierr) ierr = DevUpload(s.row, (size_t)s.nslots, &c->sell_row);
    if (!ierr) ierr = DevUpload(s.len, (size_t)s.nslots, &c->sell_len);
    if (!ierr) ierr = DevUpload(s.off, (size_t)s.nslots / BLAST_SELL_C + 1, &c->sell_off);
    if (!ierr) ierr = DevUpload(s.col, (size_t)s.nnz, &c->sell_col);
    if (!ierr) ierr = DevUpload(s.val, (size_t)s.nnz, &c->sell_val);
    c->sell_slots = s.nslots, c->sell_slots_int = s.nslots_interior;
    BlastSellFree(&s);
    return ierr;
  }
  for (int part = 0; part < 2; part++) {
    const int r0 = part ? ni : 0, r1 = part ? nown : ni, n = r1 - r0;
    int *rp, *col;
    double *val;
    int nnz = 0;
    for (int r = r0; r < r1; r++) nnz += hd->mv_rowptr[hd->mv_rows[r] + 1] - hd->mv_rowptr[hd->mv_rows[r]];
    BlastCall(BlastMalloc(n + 1, &rp));
    BlastCall(BlastMalloc(nnz + 1, &col));
    BlastCall(BlastMalloc(nnz + 1, &val));
    rp[0] = 0;
    for (int r = r0, k = 0; r < r1; r++) {
      const int row = hd->mv_rows[r];
      for (int j = hd->mv_rowptr[row]; j < hd->mv_rowptr[row + 1]; j++) col[k] = hd->mv_col[j], val[k++] = hd->mv_val[j];
      rp[r - r0 + 1] = k;
    }
    BlastCall(UploadCsr(n, hd->h1_next, rp, col, val, part ? &c->mv_bnd : &c->mv_int));
    BlastFree(&rp);
    BlastFree(&col);
    BlastFree(&val);
  }
  BlastCall(DevUpload(hd->mv_rows, (size_t)nown, &c->mv_rows));
  BlastCallCuda(cudaMalloc((void **)&c->y_perm, ((size_t)nown + 1) * sizeof(double)));
  return 0;
}

// The zone inverses of M_E (kernel 11): dense blocks, or with `[gpu] spmv = cusparse` a
// block-diagonal CSR matrix.
static int UploadMassEInverse(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  const int ne = hd->l2_nd, n = hd->nz * ne;
  if (!g_options.spmv_cusparse)
    return DevUpload(hd->me_inv, (size_t)hd->nz * ne * ne, &c->me_inv_blocks);
  int *rp, *col;
  double *val;
  BlastCall(BlastMalloc(n + 1, &rp));
  BlastCall(BlastMalloc((size_t)n * ne + 1, &col));
  BlastCall(BlastMalloc((size_t)n * ne + 1, &val));
  rp[0] = 0;
  for (int z = 0, k = 0; z < hd->nz; z++)
    for (int i = 0; i < ne; i++) {
      for (int j = 0; j < ne; j++) col[k] = z * ne + j, val[k++] = hd->me_inv[(size_t)z * ne * ne + i + ne * j];
      rp[z * ne + i + 1] = k;
    }
  BlastCall(UploadCsr(n, n, rp, col, val, &c->me_inv));
  BlastFree(&rp);
  BlastFree(&col);
  BlastFree(&val);
  return 0;
}

static int UploadHalo(const BlastHaloIndex *hi, DevHalo *h) {
  h->nsend = hi->nsend, h->nrecv = hi->nrecv;
  BlastCall(DevUpload(hi->send_idx, (size_t)hi->nsend, &h->send_idx));
  BlastCall(DevUpload(hi->recv_idx, (size_t)hi->nrecv, &h->recv_idx));
  // Distinct targets of the send list, each with its buffer positions in list order.
  int *order, *target, *toff, *tpos, nt = 0;
  BlastCall(BlastMalloc(hi->nsend + 1, &order));
  for (int i = 0; i < hi->nsend; i++) order[i] = i;
  for (int i = 1; i < hi->nsend; i++)  // stable insertion sort by target (lists are short)
    for (int j = i; j > 0 && hi->send_idx[order[j - 1]] > hi->send_idx[order[j]]; j--) {
      int tmp = order[j];
      order[j] = order[j - 1], order[j - 1] = tmp;
    }
  BlastCall(BlastMalloc(hi->nsend + 1, &target));
  BlastCall(BlastMalloc(hi->nsend + 2, &toff));
  BlastCall(BlastMalloc(hi->nsend + 1, &tpos));
  for (int i = 0; i < hi->nsend; i++) {
    if (!nt || target[nt - 1] != hi->send_idx[order[i]]) toff[nt] = i, target[nt++] = hi->send_idx[order[i]];
    tpos[i] = order[i];
  }
  toff[nt] = hi->nsend;
  h->ntarget = nt;
  BlastCall(DevUpload(target, (size_t)nt, &h->target));
  BlastCall(DevUpload(toff, (size_t)nt + 1, &h->toff));
  BlastCall(DevUpload(tpos, (size_t)hi->nsend, &h->tpos));
  BlastFree(&order);
  BlastFree(&target);
  BlastFree(&toff);
  BlastFree(&tpos);
  return 0;
}

// dst[c * rows + r] = src[r * cols + c]: a rows x cols matrix transposed.
static void Transpose(const double *src, size_t rows, size_t cols, double *dst) {
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) dst[c * rows + r] = src[r * cols + c];
}

// The copies of G, L2 B and J0^{-1} in the layouts the quadrature kernel and the force
// GEMM read coalesced (DevData), transposed on the host in chunks of zones.
static int UploadPointFastest(const BlastHydroData *hd, DevData *d) {
  const size_t nz = hd->nz, nqp = hd->nqp, nd = hd->h1_nd, ne = hd->l2_nd, dim = hd->dim;
  const size_t D2 = dim * dim, ng = nqp * nd * dim;
  size_t chunk = ((size_t)64 << 20) / (nqp * D2 * sizeof(double));  // zones per 64 MB
  chunk = chunk < 1 ? 1 : chunk > nz ? (nz ? nz : 1) : chunk;
  const size_t nbuf = ng > nqp * (ne + 8) ? ng : nqp * (ne + 8);
  double *t = NULL;
  BlastCall(BlastMalloc(nbuf > chunk * nqp * D2 ? nbuf : chunk * nqp * D2, &t));
  Transpose(hd->h1_G, nqp, nd * dim, t);  // [q][a][g] -> [a][g][q]
  int ierr = DevUpload(t, ng, &d->Gt);
  for (size_t q = 0; q < nqp; q++)  // -> [q][g][a]
    Transpose(hd->h1_G + q * nd * dim, nd, dim, t + q * dim * nd);
  if (!ierr) ierr = DevUpload(t, ng, &d->Gn);
  Transpose(hd->l2_B, nqp, ne, t);
  if (!ierr) ierr = DevUpload(t, nqp * ne, &d->L2Bt);
  const size_t jt = GemmColumns((int)ne), ncp = (ne + jt - 1) / jt * jt;
  for (size_t q = 0; q < nqp; q++)
    for (size_t i = 0; i < ncp; i++) t[q * ncp + i] = i < ne ? hd->l2_B[q * ne + i] : 0.0;
  if (!ierr) ierr = DevUpload(t, nqp * ncp, &d->L2Bp);
  if (!ierr) ierr = DevUpload((const double *)NULL, nz * nqp * D2, &d->J0inv);
  for (size_t z0 = 0; z0 < nz && !ierr; z0 += chunk) {
    const size_t n = nz - z0 < chunk ? nz - z0 : chunk;
    for (size_t z = 0; z < n; z++)  // [z][q][i] -> [z][i][q]
      Transpose(hd->qp_J0inv + (z0 + z) * nqp * D2, nqp, D2, t + z * D2 * nqp);
    const cudaError_t st = cudaMemcpy(d->J0inv + z0 * nqp * D2, t, n * nqp * D2 * sizeof(double),
                                      cudaMemcpyHostToDevice);
    if (st != cudaSuccess)
      ierr = BlastCudaError(__FILE__, __LINE__, __func__, (int)st, "cudaMemcpy(J0inv)",
                            cudaGetErrorString(st));
  }
  BlastFree(&t);
  return ierr;
}

static size_t QSharedBytes(const CudaCtx *c, QConfig q) {
  const DevData *d = &c->dd;
  size_t bytes = (size_t)QZoneDoubles(d->rows, d->ne, d->nqp) * q.zpb * sizeof(double);
  const size_t red = 3 * (size_t)q.zpb * q.tpz * sizeof(double);  // final reduction
  return bytes > red ? bytes : red;
}

// Threads per block of k_force_gemm the tuner tries (the first is the default).
static const int kGemmThreads[3] = {128, 64, 256};

// k_force_gemm in blocks of gtb threads: the zones a block touches at most, the points of
// their S it stages in shared memory at a time (all if they fit the device's limit, as
// k_force_gemm does; else as many as fit 96 KB, for k_force_gemm_chunks; 0 if not even one
// point fits) and the shared memory.
static size_t GemmZones(const DevData *d, int gtb) {
  const int jt = GemmColumns(d->ne);
  return (gtb - 1) / ((size_t)d->nd * ((d->ne + jt - 1) / jt)) + 2;
}
static int GemmChunk(const DevData *d, int gtb, size_t limit) {
  const size_t per_point = GemmZones(d, gtb) * SStride(d->dim) * sizeof(double);
  if (per_point * d->nqp <= limit) return d->nqp;
  return (int)((limit < 96 * 1024 ? limit : 96 * 1024) / per_point);
}
static size_t GemmSharedBytes(const DevData *d, int gtb, int qc) {
  return GemmZones(d, gtb) * qc * SStride(d->dim) * sizeof(double);
}

// Whether a launch configuration fits the device's shared memory and thread limits.
static int QConfigFit(const CudaCtx *c, const QConfig *q, size_t limit) {
  int gtb_ok = 0;
  for (int i = 0; i < 3; i++) gtb_ok |= q->gtb == kGemmThreads[i];
  return gtb_ok && QSharedBytes(c, *q) <= limit && GemmChunk(&c->dd, q->gtb, limit) >= 1 &&
         q->zpb * q->tpz <= 1024;
}

static size_t g_smem_limit = 0;

static int QConfigSame(const QConfig *a, const QConfig *b) {
  return a->zpb == b->zpb && a->tpz == b->tpz && a->gtb == b->gtb && a->reg == b->reg;
}

static const void *QKernel(int dim, int reg) {
  static const void *const k[3][3] = {
      {(const void *)k_qdata_force<1, 255>, (const void *)k_qdata_force<1, 128>,
       (const void *)k_qdata_force<1, 96>},
      {(const void *)k_qdata_force<2, 255>, (const void *)k_qdata_force<2, 128>,
       (const void *)k_qdata_force<2, 96>},
      {(const void *)k_qdata_force<3, 255>, (const void *)k_qdata_force<3, 128>,
       (const void *)k_qdata_force<3, 96>}};
  return k[dim - 1][reg];
}

// Candidate launch configurations of the quadrature kernel, the tuner's first round (the
// GEMM at its default block): the block must fit the kernel's register-limited thread
// count and the shared memory. The second round (QDataFinish) tries the best of them with
// the GEMM's other block sizes.
static int TuneCandidates(CudaCtx *c) {
  const DevData *d = &c->dd;
  cudaFuncAttributes attr[3];
  for (int g = 0; g < 3; g++) {
    BlastCallCuda(cudaFuncGetAttributes(&attr[g], QKernel(d->dim, g)));
    c->q_regs[g] = attr[g].numRegs;
  }
  for (int ch = 0; ch < 2; ch++) {
    cudaFuncAttributes gattr;
    BlastCallCuda(cudaFuncGetAttributes(&gattr, GemmKernel(d->dim, GemmColumns(d->ne), ch)));
    c->q_regs[3 + ch] = gattr.numRegs;
  }
  const int zpbs[] = {1, 2, 4, 8}, tpzs[] = {32, 64, 128, 256};
  c->tune_ncand = 0;
  for (int g = 0; g < 3; g++)
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        const QConfig q = {zpbs[i], tpzs[j], kGemmThreads[0], g};
        if (q.tpz > 2 * d->nqp && q.tpz > 32) continue;  // mostly idle threads
        if (q.zpb * q.tpz > attr[g].maxThreadsPerBlock) continue;
        if (g > 0 && attr[g].numRegs >= attr[g - 1].numRegs) continue;  // the cap changes nothing
        if (QConfigFit(c, &q, g_smem_limit)) c->tune_cand[c->tune_ncand++] = q;
      }
  c->tune_n1 = c->tune_ncand;
  BlastCheck(c->tune_ncand > 0, BLAST_ERR_UNSUPPORTED,
             "no launch configuration of the quadrature kernel fits the GPU's shared memory for "
             "order %d in %dD",
             d->qpar.order_k, d->dim);
  return 0;
}

static void CachePath(char *path, size_t n) {
  if (g_options.cache_path[0]) {
    snprintf(path, n, "%s", g_options.cache_path);
    return;
  }
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (xdg && xdg[0]) {
    snprintf(path, n, "%s/blast_gpu_autotune.txt", xdg);
  } else {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/.cache", home ? home : ".");
    mkdir(dir, 0755);  // best effort; a missing cache only costs tuning time
    snprintf(path, n, "%s/blast_gpu_autotune.txt", dir);
  }
}

// GPU model, problem shape and the registers of the three compiled quadrature-kernel
// variants and of the two GEMM kernels (a build whose kernels compile differently does not
// reuse another build's choice).
static void CacheKey(const CudaCtx *c, char *key, size_t n) {
  snprintf(key, n, "%s|v4|dim=%d|k=%d|m=%d|nqp=%d|regs=%d,%d,%d,%d,%d", c->gpu_name, c->dd.dim,
           c->dd.qpar.order_k, c->hd.l2_nd, c->dd.nqp, c->q_regs[0], c->q_regs[1], c->q_regs[2],
           c->q_regs[3], c->q_regs[4]);
  for (char *p = key; *p; p++)
    if (*p == ' ') *p = '_';
}

// Read a tuned configuration from the cache file into *out; 1 if found and usable.
static int CacheLookup(CudaCtx *c, QConfig *out) {
  QConfig cand, *q = &cand;
  char path[600], key[400], line[800];
  CachePath(path, sizeof path);
  CacheKey(c, key, sizeof key);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    char k[400];
    QConfig t;
    if (sscanf(line, "%399s %d %d %d %d", k, &t.zpb, &t.tpz, &t.gtb, &t.reg) == 5 &&
        !strcmp(k, key) && t.reg >= 0 && t.reg < 3)
      *q = t, found = 1;
  }
  fclose(f);
  if (!found || !QConfigFit(c, q, g_smem_limit)) return 0;
  // only a shape this build would try itself (its block fits the variant's thread limit)
  QConfig first = *q;
  first.gtb = kGemmThreads[0];
  for (int i = 0; i < c->tune_ncand; i++)
    if (QConfigSame(&c->tune_cand[i], &first)) {
      *out = *q;
      return 1;
    }
  return 0;
}

static void CacheStore(CudaCtx *c, QConfig q, float ms) {
  char path[600], key[400];
  CachePath(path, sizeof path);
  CacheKey(c, key, sizeof key);
  FILE *f = fopen(path, "a");  // best effort: a missing cache only costs tuning time
  if (!f) return;
  fprintf(f, "%s %d %d %d %d %.6f\n", key, q.zpb, q.tpz, q.gtb, q.reg, ms);
  fclose(f);
}

// Before allocating anything: the ranks that share this GPU add up their estimated needs
// (BlastCudaMemoryEstimate) and compare them with the memory free once all their CUDA
// contexts exist; if it does not fit, every rank stops with the numbers and the layouts
// that would fit, instead of a cudaMalloc failure halfway through the setup.
// Collective over MPI_COMM_WORLD (every rank creates its backend in the setup).
static int CheckMemory(const BlastHydroData *hd) {
  int ierr = 0, dev = -1, rank = 0;
  MPI_Comm node = MPI_COMM_NULL, gpu = MPI_COMM_NULL;
  BlastCallMPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  cudaError_t st = cudaGetDevice(&dev);
  if (st != cudaSuccess) {
    ierr = BlastCudaError(__FILE__, __LINE__, __func__, (int)st, "cudaGetDevice(&dev)",
                          cudaGetErrorString(st));
    dev = -1;
  }
  BlastCallMPI(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  BlastCallMPI(MPI_Comm_split(node, dev < 0 ? MPI_UNDEFINED : dev, rank, &gpu));
  if (gpu != MPI_COMM_NULL) {
    BlastCallMPI(MPI_Barrier(gpu));  // every rank of this GPU has its context
    size_t fr = 0, tot = 0;
    if (!ierr && (st = cudaMemGetInfo(&fr, &tot)) != cudaSuccess)
      ierr = BlastCudaError(__FILE__, __LINE__, __func__, (int)st, "cudaMemGetInfo(&fr, &tot)",
                            cudaGetErrorString(st));
    BlastCudaMemorySizes sz;
    BlastCudaMemorySizesOf(hd, &sz);
    sz.cusparse = g_options.spmv_cusparse;
    g_mem_estimate = BlastCudaMemoryEstimate(&sz);
    double mine[3] = {(double)g_mem_estimate, (double)hd->nz, 1.0}, sum[3];
    double fmin[2] = {ierr ? 0.0 : (double)fr, ierr ? 0.0 : (double)tot}, lo[2];
    BlastCallMPI(MPI_Allreduce(mine, sum, 3, MPI_DOUBLE, MPI_SUM, gpu));
    BlastCallMPI(MPI_Allreduce(fmin, lo, 2, MPI_DOUBLE, MPI_MIN, gpu));
    BlastCallMPI(MPI_Comm_free(&gpu));
    if (!ierr && sum[0] > lo[0]) {
      BlastCudaShortfall m;
      memset(&m, 0, sizeof m);
      m.device = dev, m.ranks = (int)sum[2], m.dim = hd->dim, m.zones = (long long)sum[1];
      m.need = sum[0], m.free = lo[0], m.total = (double)tot;
      cudaDeviceProp prop;
      if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        snprintf(m.gpu_name, sizeof m.gpu_name, "%s", prop.name);
      else
        snprintf(m.gpu_name, sizeof m.gpu_name, "unknown model"), cudaGetLastError();
      char msg[1500];
      BlastCudaMemoryAdvice(msg, sizeof msg, &m);
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_MEM, "%s", msg);
    }
  }
  BlastCallMPI(MPI_Comm_free(&node));
  return BlastAgree(MPI_COMM_WORLD, ierr, 1);
}

// cuSPARSE's dense-vector descriptors (rebound to the actual pointers on every SpMV) and
// one work buffer for the largest SpMV (`[gpu] spmv = cusparse` only).
static int CusparseSetup(CudaCtx *c) {
  const BlastHydroData *hd = &c->hd;
  const int64_t next = hd->h1_next > 0 ? hd->h1_next : 1, nzne = (int64_t)hd->nz * hd->l2_nd;
  BlastCallCusparse(cusparseCreateDnVec(&c->vx_int, next, c->y_perm, CUDA_R_64F));
  BlastCallCusparse(cusparseCreateDnVec(&c->vy_int, c->mv_int.nrows > 0 ? c->mv_int.nrows : 1,
                                        c->y_perm, CUDA_R_64F));
  BlastCallCusparse(cusparseCreateDnVec(&c->vx_bnd, next, c->y_perm, CUDA_R_64F));
  BlastCallCusparse(cusparseCreateDnVec(&c->vy_bnd, c->mv_bnd.nrows > 0 ? c->mv_bnd.nrows : 1,
                                        c->y_perm, CUDA_R_64F));
  BlastCallCusparse(cusparseCreateDnVec(&c->ve_in, nzne, c->dd.b, CUDA_R_64F));
  BlastCallCusparse(cusparseCreateDnVec(&c->ve_out, nzne, c->dd.b, CUDA_R_64F));
  size_t sz = 0;
  const double one = 1.0, zero = 0.0;
  const DevCsr *mats[3] = {&c->mv_int, &c->mv_bnd, &c->me_inv};
  cusparseDnVecDescr_t xs[3] = {c->vx_int, c->vx_bnd, c->ve_in},
                       ys[3] = {c->vy_int, c->vy_bnd, c->ve_out};
  for (int i = 0; i < 3; i++) {
    if (mats[i]->nrows == 0) continue;
    size_t s = 0;
    BlastCallCusparse(cusparseSpMV_bufferSize(c->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                              mats[i]->mat, xs[i], &zero, ys[i], CUDA_R_64F,
                                              CUSPARSE_SPMV_CSR_ALG2, &s));
    if (s > sz) sz = s;
  }
  c->spmv_buf_size = sz;
  BlastCallCuda(cudaMalloc(&c->spmv_buf, sz ? sz : 1));
  return 0;
}

static int CudaCreate(const BlastHydroData *hd, void **ctx) {
  BlastCall(CheckMemory(hd));
  // Mass-matrix rows ordered by length within windows of sigma rows (sell.h; 0: the whole
  // interior or boundary part). BLAST_SELL_SIGMA overrides, for benchmarks.
  int sell_sigma;
  BlastCall(BlastCudaSellSigma(&sell_sigma));
  CudaCtx *c;
  BlastCall(BlastCalloc(1, &c));
  size_t free0 = 0, total = 0;
  BlastCallCuda(cudaMemGetInfo(&free0, &total));
  g_mem_free0 = free0;
  g_prof.on = getenv("BLAST_GPU_PROFILE") && atoi(getenv("BLAST_GPU_PROFILE")) > 0;
  if (g_prof.on) {
    BlastCallCuda(cudaEventCreate(&g_prof.e0));
    BlastCallCuda(cudaEventCreate(&g_prof.e1));
  }
  c->hd = *hd;
  c->sell_sigma = sell_sigma;
  if (!g_options.spmv_cusparse)
    BlastCallCuda(cudaMalloc((void **)&c->xil, 3 * ((size_t)hd->h1_next + 1) * sizeof(double)));
  int dev;
  BlastCallCuda(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  BlastCallCuda(cudaGetDeviceProperties(&prop, dev));
  snprintf(c->gpu_name, sizeof c->gpu_name, "%s", prop.name);
  g_smem_limit = prop.sharedMemPerBlockOptin;
  BlastCallCuda(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
  BlastCallCublas(cublasCreate(&c->cublas));
  BlastCallCublas(cublasSetStream(c->cublas, c->stream));
  BlastCallCusparse(cusparseCreate(&c->cusparse));
  BlastCallCusparse(cusparseSetStream(c->cusparse, c->stream));
  BlastCallCuda(cudaEventCreate(&c->ev0));
  BlastCallCuda(cudaEventCreate(&c->ev1));
  BlastCallCuda(cudaEventCreate(&c->ev_mid));
  BlastCallCuda(cudaEventCreateWithFlags(&c->ev_copy, cudaEventDisableTiming));
  BlastCallCuda(cudaEventCreate(&c->ev_s0));
  BlastCallCuda(cudaEventCreate(&c->ev_s1));
  DevData *d = &c->dd;
  d->dim = hd->dim, d->nz = hd->nz, d->nqp = hd->nqp, d->nd = hd->h1_nd, d->ne = hd->l2_nd;
  d->nl = hd->h1_nl, d->nown = hd->h1_nown, d->next = hd->h1_next, d->rows = hd->dim * hd->h1_nd;
  d->qpar = hd->qpar, d->tg_source = hd->tg_source;
  const size_t nz = hd->nz, nqp = hd->nqp, nd = hd->h1_nd, ne = hd->l2_nd, dim = hd->dim;
  BlastCall(DevUpload(hd->h1_edof, nz * nd, &d->edof));
  BlastCall(DevUpload(hd->h1_toff, (size_t)hd->h1_nl + 1, &d->toff));
  BlastCall(DevUpload(hd->h1_tidx, nz * nd, &d->tidx));
  BlastCall(DevUpload(hd->qp_w, nqp, &d->qw));
  BlastCall(DevUpload(hd->h1_B, nqp * nd, &d->B));
  BlastCall(DevUpload(hd->l2_B, nqp * ne, &d->L2B));
  BlastCall(DevUpload(hd->qp_R0, nz * nqp, &d->R0));
  BlastCall(UploadPointFastest(hd, d));
  BlastCall(DevUpload(hd->zone_gamma, nz, &d->gamma));
  BlastCall(DevUpload((const double *)NULL, nz * nqp * SStride((int)dim), &d->S));
  BlastCallCuda(cudaMemset(d->S, 0, nz * nqp * SStride((int)dim) * sizeof(double)));  // the padding
  BlastCall(DevUpload((const double *)NULL, nz * d->rows * ne, &d->F));
  BlastCall(DevUpload((const double *)NULL, nz * d->rows, &d->rE));
  BlastCall(DevUpload((const double *)NULL, nz * ne, &d->b));
  BlastCall(DevUpload((const double *)NULL, hd->tg_source ? nz * ne : 1, &d->tg));
  BlastCall(UploadMass(c));
  BlastCall(UploadMassEInverse(c));
  BlastCall(BlastMalloc(dim + 1, &c->ess_off));
  for (size_t k = 0; k <= dim; k++) c->ess_off[k] = hd->ess_off[k];
  BlastCall(DevUpload(hd->ess_idx, (size_t)hd->ess_off[dim], &c->ess_idx));
  size_t dbuf = 1;
  for (int w = 0; w < 2; w++) {
    BlastCall(UploadHalo(&hd->halo[w], &c->halo[w]));
    const size_t n = 2 * dim * (size_t)(hd->halo[w].nsend > hd->halo[w].nrecv ? hd->halo[w].nsend : hd->halo[w].nrecv);
    if (n > dbuf) dbuf = n;
  }
  c->dbuf_n = dbuf;
  BlastCallCuda(cudaMalloc((void **)&c->dbuf, dbuf * sizeof(double)));
  BlastCallCuda(cudaMalloc((void **)&c->dot_part, 6 * kDotBlocks * sizeof(double)));
  BlastCallCuda(cudaMallocHost((void **)&c->dot_host, 6 * kDotBlocks * sizeof(double)));
  BlastCallCuda(cudaMallocHost((void **)&c->red_host, 4 * sizeof(double)));
  BlastCallCuda(cudaMalloc((void **)&c->energy_zone, (2 * nz + 2) * sizeof(double)));
  BlastCallCuda(cudaMallocHost((void **)&c->energy_host, (2 * nz + 2) * sizeof(double)));
  if (g_options.spmv_cusparse) BlastCall(CusparseSetup(c));
  // The quadrature kernel's launch configuration: cached, tuned online, or a default.
  for (int dimk = 1; dimk <= 3; dimk++) {
    for (int g = 0; g < 3; g++)
      BlastCallCuda(cudaFuncSetAttribute(
          QKernel(dimk, g), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)g_smem_limit));
    for (int jt = 4; jt <= 8; jt += 4)
      for (int ch = 0; ch < 2; ch++)
        BlastCallCuda(cudaFuncSetAttribute(GemmKernel(dimk, jt, ch),
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)g_smem_limit));
  }
  BlastCall(TuneCandidates(c));
  // Default (autotune off, nothing cached): 1 zone per block, a thread per point up to
  // 256, no register cap, the GEMM in blocks of 128 threads, or the nearest candidate.
  c->qcfg = c->tune_cand[0];
  {
    const int tpz = c->dd.nqp <= 64 ? 64 : c->dd.nqp <= 128 ? 128 : 256;
    int score = -1;
    for (int i = 0; i < c->tune_ncand; i++) {
      const QConfig *q = &c->tune_cand[i];
      const int sc = 4 * (q->reg == 0) + 2 * (q->zpb == 1) + (q->tpz == tpz);
      if (sc > score) score = sc, c->qcfg = *q;
    }
  }
  int cached = 0;
  if (g_options.autotune == BLAST_AUTOTUNE_CACHED) cached = CacheLookup(c, &c->qcfg);
  c->tune_active = g_options.autotune != BLAST_AUTOTUNE_OFF && !cached;
  c->tune_index = 0, c->tune_rep = 0;
  c->spmm_cand = 0, c->spmm_tune = g_options.autotune == BLAST_AUTOTUNE_OFF ? (int)kSpmmNCand : 0;
  const int maxblocks = (int)Blocks(nz, 1);  // zpb >= 1
  c->nred = maxblocks + 1;
  BlastCallCuda(cudaMalloc((void **)&c->red, 2 * (size_t)c->nred * sizeof(double)));
  BlastCallCuda(cudaMalloc((void **)&c->red_zone, (size_t)c->nred * sizeof(int)));
  BlastCallCuda(cudaMalloc((void **)&c->red_out, 4 * sizeof(double)));
  BlastCallCuda(cudaDeviceSynchronize());
  size_t free1 = 0;
  BlastCallCuda(cudaMemGetInfo(&free1, &total));
  g_mem_used = free0 > free1 ? free0 - free1 : 0;
  *ctx = c;
  return 0;
}

static void ProfilePrint(int nranks) {
  if (!g_prof.on) return;
  if (nranks == 1 && g_mem_in_use)  // one rank only: others' allocations would count
    printf(
        "\n  GPU memory: %.3f GiB taken by the backend's data and the front end's vectors "
        "(at the first update), %.3f GiB estimated before allocating\n",
        g_mem_in_use / 1073741824.0, g_mem_estimate / 1073741824.0);
  printf("\n  GPU kernel profile (modeled bytes and flops):\n");
  printf("  %-24s %8s %10s %10s %10s %10s\n", "kernel", "calls", "total ms", "ms/call", "GB/s", "GFLOP/s");
  for (int k = 0; k < P_NPROF; k++) {
    if (!g_prof.calls[k]) continue;
    const double s = g_prof.ms[k] * 1e-3;
    printf("  %-24s %8lld %10.2f %10.4f %10.1f %10.1f\n", kProfName[k], g_prof.calls[k], g_prof.ms[k],
           g_prof.ms[k] / g_prof.calls[k], g_prof.bytes[k] / s * 1e-9, g_prof.flops[k] / s * 1e-9);
  }
  fflush(stdout);
}

static int CudaDestroy(void **ctx) {
  if (!ctx || !*ctx) return 0;
  CudaCtx *c = (CudaCtx *)*ctx;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int nranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (rank == 0) ProfilePrint(nranks);
  DevData *d = &c->dd;
  // clang-format off
  void *bufs[] = {d->edof,       d->toff,     d->tidx,     d->qw,         d->B,
                  d->L2B,        d->R0,       d->J0inv,    d->gamma,      d->F,
                  d->rE,         d->Gt,       d->Gn,       d->L2Bt,       d->L2Bp,
                  d->S,          d->b,        d->tg,       c->mv_rows,    c->y_perm,
                  c->mv_dinv,    c->ess_idx,  c->dbuf,     c->dot_part,   c->energy_zone,
                  c->spmv_buf,   c->red,      c->red_zone, c->red_out,    c->sell_row,
                  c->sell_len,   c->sell_off, c->sell_col, c->sell_val,   c->xil,
                  c->me_inv_blocks, c->stage};
  // clang-format on
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) BlastCallCuda(cudaFree(bufs[i]));
  for (int w = 0; w < 2; w++) {
    void *hb[] = {c->halo[w].send_idx, c->halo[w].recv_idx, c->halo[w].target, c->halo[w].toff, c->halo[w].tpos};
    for (size_t i = 0; i < sizeof hb / sizeof *hb; i++) BlastCallCuda(cudaFree(hb[i]));
  }
  BlastCallCuda(cudaFreeHost(c->dot_host));
  BlastCallCuda(cudaFreeHost(c->red_host));
  BlastCallCuda(cudaFreeHost(c->energy_host));
  BlastCall(FreeCsr(&c->mv_int));
  BlastCall(FreeCsr(&c->mv_bnd));
  BlastCall(FreeCsr(&c->me_inv));
  cusparseDnVecDescr_t vs[] = {c->vx_int, c->vy_int, c->vx_bnd, c->vy_bnd, c->ve_in, c->ve_out};
  for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
    if (vs[i]) BlastCallCusparse(cusparseDestroyDnVec(vs[i]));
  BlastCallCusparse(cusparseDestroy(c->cusparse));
  BlastCallCublas(cublasDestroy(c->cublas));
  BlastCallCuda(cudaEventDestroy(c->ev0));
  BlastCallCuda(cudaEventDestroy(c->ev1));
  BlastCallCuda(cudaEventDestroy(c->ev_mid));
  BlastCallCuda(cudaEventDestroy(c->ev_copy));
  BlastCallCuda(cudaEventDestroy(c->ev_s0));
  BlastCallCuda(cudaEventDestroy(c->ev_s1));
  BlastCallCuda(cudaStreamDestroy(c->stream));
  BlastFree(&c->ess_off);
  BlastFree(ctx);
  return 0;
}

// ---------------------------------------------------------------------------------------
// Memory and vectors

static int CudaAlloc(void *ctx, size_t n, double **p) {
  BlastCallCuda(cudaMalloc((void **)p, (n ? n : 1) * sizeof(double)));
  BlastCallCuda(cudaMemsetAsync(*p, 0, (n ? n : 1) * sizeof(double), ((CudaCtx *)ctx)->stream));
  return 0;
}
static int CudaFreeVec(void *ctx, double **p) {
  BlastCallCuda(cudaFree(*p));
  *p = NULL;
  return 0;
}
static int CudaHostAlloc(void *ctx, size_t n, double **p) {
  BlastCallCuda(cudaMallocHost((void **)p, (n ? n : 1) * sizeof(double)));
  return 0;
}
static int CudaHostFree(void *ctx, double **p) {
  BlastCallCuda(cudaFreeHost(*p));
  *p = NULL;
  return 0;
}
static int CudaToHost(void *ctx, size_t n, const double *src, double *dst) {
  CudaCtx *c = (CudaCtx *)ctx;
  BlastCallCuda(cudaMemcpyAsync(dst, src, n * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  return 0;
}
static int CudaFromHost(void *ctx, size_t n, const double *src, double *dst) {
  CudaCtx *c = (CudaCtx *)ctx;
  BlastCallCuda(cudaMemcpyAsync(dst, src, n * sizeof(double), cudaMemcpyHostToDevice, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  return 0;
}
static int CudaCopy(void *ctx, size_t n, const double *src, double *dst) {
  if (n && src != dst)
    BlastCallCuda(cudaMemcpyAsync(dst, src, n * sizeof(double), cudaMemcpyDeviceToDevice, ((CudaCtx *)ctx)->stream));
  return 0;
}

static int GridFor(size_t n) {
  const size_t b = Blocks(n, 256);
  return (int)(b < 65535 ? (b ? b : 1) : 65535);
}

static int CudaSet(void *ctx, size_t n, double a, double *x) {
  k_set<<<GridFor(n), 256, 0, ((CudaCtx *)ctx)->stream>>>(n, a, x);
  BlastCheckKernel("k_set");
  return 0;
}
static int CudaAxpby(void *ctx, size_t n, double a, const double *x, double b, double *y) {
  ProfBegin(((CudaCtx *)ctx)->stream);
  k_axpby<<<GridFor(n), 256, 0, ((CudaCtx *)ctx)->stream>>>(n, a, x, b, y);
  BlastCheckKernel("k_axpby");
  ProfEnd(((CudaCtx *)ctx)->stream, P_VEC, 24.0 * n, 3.0 * n);
  return 0;
}
static int CudaWaxpby(void *ctx, size_t n, double a, const double *x, double b, const double *y, double *w) {
  ProfBegin(((CudaCtx *)ctx)->stream);
  k_waxpby<<<GridFor(n), 256, 0, ((CudaCtx *)ctx)->stream>>>(n, a, x, b, y, w);
  BlastCheckKernel("k_waxpby");
  ProfEnd(((CudaCtx *)ctx)->stream, P_VEC, 24.0 * n, 3.0 * n);
  return 0;
}

static int CudaDot(void *ctx, size_t n, const double *x, const double *y, double *result) {
  CudaCtx *c = (CudaCtx *)ctx;
  ProfBegin(c->stream);
  k_dot_dd<<<kDotBlocks, kDotThreads, 0, c->stream>>>(n, x, y, c->dot_part);
  BlastCheckKernel("k_dot_dd");
  ProfEnd(c->stream, P_DOT, 16.0 * n, 2.0 * n);
  BlastCallCuda(cudaMemcpyAsync(c->dot_host, c->dot_part, 2 * kDotBlocks * sizeof(double), cudaMemcpyDeviceToHost,
                                c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  BlastDD acc = {0.0, 0.0};
  for (int k = 0; k < kDotBlocks; k++) BlastDDAddDD(&acc, c->dot_host[2 * k], c->dot_host[2 * k + 1]);
  BlastDDNormalize(&acc);
  result[0] = acc.hi, result[1] = acc.lo;
  return 0;
}

// ---------------------------------------------------------------------------------------
// The operator

// The quadrature kernel and the force GEMM on zones [0, nz), and the reduction of the
// quadrature kernel's block results.
static int LaunchQData(CudaCtx *c, QConfig q, int nz, const double *x, const double *v, const double *e) {
  QArgs a;
  a.d = c->dd, a.x = x, a.v = v, a.e = e, a.cfg = q;
  a.d.nz = nz;
  const int blocks = (int)Blocks(nz, q.zpb);
  a.blk_dt = c->red, a.blk_det = c->red + c->nred, a.blk_zone = c->red_zone;
  const size_t smem = QSharedBytes(c, q);
  const int threads = q.zpb * q.tpz;
  void *args[] = {&a};
  BlastCallCuda(cudaLaunchKernel(QKernel(c->dd.dim, q.reg), dim3(blocks), dim3(threads), args, smem,
                                 c->stream));
  BlastCheckKernel("k_qdata_force");
  BlastCallCuda(cudaEventRecord(c->ev_mid, c->stream));
  const int jt = GemmColumns(c->dd.ne);
  const size_t items = (size_t)nz * c->dd.nd * ((c->dd.ne + jt - 1) / jt);
  int qc = GemmChunk(&c->dd, q.gtb, g_smem_limit);
  void *gargs[] = {&a.d, &qc};
  BlastCallCuda(cudaLaunchKernel(GemmKernel(c->dd.dim, jt, qc < c->dd.nqp),
                                 dim3((unsigned)Blocks(items, q.gtb)), dim3(q.gtb), gargs,
                                 GemmSharedBytes(&c->dd, q.gtb, qc), c->stream));
  BlastCheckKernel("k_force_gemm");
  k_reduce_min<<<1, 256, 0, c->stream>>>(blocks, c->red, c->red_zone, c->red + c->nred, c->red_out);
  BlastCheckKernel("k_reduce_min");
  return 0;
}

// Modeled bytes and flops of the quadrature kernel ([0]) and the force GEMM ([1]) on nz
// zones (profile): the zone data each must read and write once, and the products and sums
// of J and the velocity gradient, the per-point physics (~400), A and F = A B^T.
static void QDataModel(const DevData *dd, int nz, double bytes[2], double flops[2]) {
  const double D2 = (double)dd->dim * dd->dim, rows = dd->rows, ne = dd->ne, nqp = dd->nqp, nd = dd->nd;
  bytes[0] = nz * (8.0 * (2 * rows + ne + nqp * (1 + 2 * D2)) + 4.0 * nd);  // x, v, e, R0, J0^-1, S
  bytes[1] = nz * 8.0 * (nqp * D2 + rows * ne);                             // S, F
  flops[0] = nz * nqp * (4.0 * nd * D2 + 2.0 * ne + 400.0);
  flops[1] = nz * nqp * (2.0 * rows * dd->dim + 2.0 * rows * ne);
}

// Start the quadrature kernel on zones [0, n), n > 0 (the current tuning candidate or the
// tuned configuration), timed by ev0/ev1, its reduced result copied to red_host. Does not
// wait.
static int QDataStart(CudaCtx *c, int n, const double *x, const double *v, const double *e) {
  const QConfig q = c->tune_active ? c->tune_cand[c->tune_index] : c->qcfg;
  c->q_ndev = n, c->q_tuning = c->tune_active;
  BlastCallCuda(cudaEventRecord(c->ev0, c->stream));
  BlastCall(LaunchQData(c, q, n, x, v, e));
  BlastCallCuda(cudaEventRecord(c->ev1, c->stream));
  BlastCallCuda(cudaMemcpyAsync(c->red_host, c->red_out, 3 * sizeof(double), cudaMemcpyDeviceToHost,
                                c->stream));
  return 0;
}


// Wait for QDataStart's kernel: its result and time; advances the autotuning.
static int QDataFinish(CudaCtx *c, BlastQDataResult *res, double *seconds) {
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  float ms = 0.0f;
  BlastCallCuda(cudaEventElapsedTime(&ms, c->ev0, c->ev1));
  *seconds = 1e-3 * ms;
  if (c->q_tuning) {  // each candidate runs twice (the first warms up); keep the fastest
    // A candidate whose first call is 1.3x slower than the best so far is not repeated.
    const int sofar = ArgMin(c->tune_time, c->tune_index);
    const int skip = c->tune_rep == 0 && sofar >= 0 && ms > 1.3f * c->tune_time[sofar];
    if (c->tune_rep == 1 || skip) {
      c->tune_time[c->tune_index] = ms;
      if (g_options.verbose > 1) {
        const QConfig *t = &c->tune_cand[c->tune_index];
        printf(
            "  autotune: candidate %d/%d: %d zones/block x %d threads/zone, registers <= %d, "
            "GEMM %d threads/block: %.3f ms%s\n",
            c->tune_index + 1, c->tune_ncand, t->zpb, t->tpz, kQRegCap[t->reg], t->gtb, ms,
            skip ? " (first call, not repeated)" : "");
      }
    }
    if (skip || ++c->tune_rep == 2) c->tune_rep = 0, c->tune_index++;
    if (c->tune_index == c->tune_ncand && c->tune_ncand == c->tune_n1) {
      // second round: the best shape with the GEMM's other block sizes
      const QConfig best = c->tune_cand[ArgMin(c->tune_time, c->tune_ncand)];
      for (int i = 1; i < 3; i++) {
        QConfig q = best;
        q.gtb = kGemmThreads[i];
        if (QConfigFit(c, &q, g_smem_limit)) c->tune_cand[c->tune_ncand++] = q;
      }
    }
    if (c->tune_index == c->tune_ncand) {
      const int best = ArgMin(c->tune_time, c->tune_ncand);
      c->qcfg = c->tune_cand[best];
      c->tune_active = 0;
      CacheStore(c, c->qcfg, c->tune_time[best]);
      if (g_options.verbose)
        printf(
            "  autotune: k_qdata_force %d zones/block x %d threads/zone (registers <= %d), "
            "k_force_gemm %d threads/block: %.3f ms\n",
            c->qcfg.zpb, c->qcfg.tpz, kQRegCap[c->qcfg.reg], c->qcfg.gtb, c->tune_time[best]);
    }
  } else if (g_prof.on) {
    double bytes[2], flops[2];
    float ms_q = 0.0f;
    BlastCallCuda(cudaEventElapsedTime(&ms_q, c->ev0, c->ev_mid));
    QDataModel(&c->dd, c->q_ndev, bytes, flops);
    const double part[2] = {ms_q, ms - ms_q};  // the GEMM's part includes k_reduce_min
    for (int k = 0; k < 2; k++) {
      g_prof.ms[P_QDATA + k] += part[k], g_prof.calls[P_QDATA + k]++;
      g_prof.bytes[P_QDATA + k] += bytes[k], g_prof.flops[P_QDATA + k] += flops[k];
    }
  }
  res->dt_est = c->red_host[0];
  res->tangled_det = c->red_host[1];
  res->tangled_zone = c->red_host[2] >= (double)INT_MAX ? -1 : (int)c->red_host[2];
  return 0;
}

static int CudaQDataForce(void *ctx, const double *x, const double *v, const double *e,
                          BlastQDataResult *res) {
  CudaCtx *c = (CudaCtx *)ctx;
  if (!g_mem_in_use) {  // the first update, in the setup: every buffer exists now
    size_t fr = 0, tot = 0;
    BlastCallCuda(cudaMemGetInfo(&fr, &tot));
    g_mem_in_use = g_mem_free0 > fr ? g_mem_free0 - fr : 1;
  }
  nvtxRangePushA("qdata_force");
  BlastCall(QDataStart(c, c->dd.nz, x, v, e));
  double seconds;
  BlastCall(QDataFinish(c, res, &seconds));
  nvtxRangePop();
  return 0;
}

// -F_z 1 of zones [0, n) into rE (kernel 8).
static int ForceOnes(CudaCtx *c, int n) {
  if (n <= 0) return 0;
  DevData d = c->dd;
  d.nz = n;
  const double nzr = (double)n * d.rows;
  ProfBegin(c->stream);
  k_force_ones<<<GridFor((size_t)n * d.rows), 256, 0, c->stream>>>(d);
  BlastCheckKernel("k_force_ones");
  ProfEnd(c->stream, P_FORCE_ONES, 8.0 * nzr * (d.ne + 1), nzr * d.ne);
  return 0;
}

// The L-vector of rE summed over each dof's zones (double-double pairs).
static int GatherRhs(CudaCtx *c, double *rhs) {
  const double nzr = (double)c->dd.nz * c->dd.rows;
  ProfBegin(c->stream);
  k_gather_dd<<<GridFor((size_t)c->dd.nl * c->dd.dim), 256, 0, c->stream>>>(c->dd, rhs);
  BlastCheckKernel("k_gather_dd");
  ProfEnd(c->stream, P_GATHER, 12.0 * nzr + 16.0 * c->dd.nl * c->dd.dim, 0.0);
  return 0;
}

static int CudaMomentumRhs(void *ctx, double *rhs) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("force_ones");
  BlastCall(ForceOnes(c, c->dd.nz));
  BlastCall(GatherRhs(c, rhs));
  nvtxRangePop();
  return 0;
}

static int SpMV(CudaCtx *c, const DevCsr *m, cusparseDnVecDescr_t vx, const double *x, cusparseDnVecDescr_t vy,
                double *y) {
  if (m->nrows == 0) return 0;
  const double one = 1.0, zero = 0.0;
  BlastCallCusparse(cusparseDnVecSetValues(vx, (void *)x));
  BlastCallCusparse(cusparseDnVecSetValues(vy, (void *)y));
  BlastCallCusparse(cusparseSpMV(c->cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m->mat, vx, &zero, vy,
                                 CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, c->spmv_buf));
  return 0;
}

// b_z = F_z^T v_z (+ source) of zones [0, n) (kernel 10).
static int ForceT(CudaCtx *c, int n, const double *v) {
  if (n <= 0) return 0;
  DevData d = c->dd;
  d.nz = n;
  const double nzr = (double)n * d.rows, nzne = (double)n * d.ne;
  ProfBegin(c->stream);
  k_force_t<<<GridFor((size_t)n * d.ne), 256, 0, c->stream>>>(d, v);
  BlastCheckKernel("k_force_t");
  ProfEnd(c->stream, P_FORCE_T, 8.0 * nzr * d.ne + 12.0 * nzr + 8.0 * nzne, 2.0 * nzr * d.ne);
  return 0;
}

// de = M_E^{-1} b for every zone (kernel 11).
static int MeApply(CudaCtx *c, double *de) {
  const double nzne = (double)c->dd.nz * c->dd.ne;
  ProfBegin(c->stream);
  if (g_options.spmv_cusparse) {
    BlastCall(SpMV(c, &c->me_inv, c->ve_in, c->dd.b, c->ve_out, de));
  } else {
    k_me_apply<<<GridFor((size_t)c->dd.nz * c->dd.ne), 256, 0, c->stream>>>(c->dd.nz, c->dd.ne, c->me_inv_blocks,
                                                                          c->dd.b, de);
    BlastCheckKernel("k_me_apply");
  }
  ProfEnd(c->stream, P_ME_APPLY, 8.0 * nzne * (c->dd.ne + 2), 2.0 * nzne * c->dd.ne);
  return 0;
}

static int CudaEnergyRate(void *ctx, const double *v, double *de) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("energy_rate");
  BlastCall(ForceT(c, c->dd.nz, v));
  BlastCall(MeApply(c, de));
  nvtxRangePop();
  return 0;
}

// ---------------------------------------------------------------------------------------
// CPU+GPU hybrid (solver/hybrid.h): zones [0, ndev) here, the rest on host threads.

// out[(z - z0) * rows + c * nd + a] = u[c * nl + edof[z][a]] for z in [z0, z0 + n).
__global__ void k_gather_zones(DevData d, int z0, int n, const double *u, double *out) {
  const size_t tot = (size_t)n * d.rows;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < tot; i += (size_t)gridDim.x * blockDim.x) {
    const size_t k = i / d.rows;
    const int r = (int)(i % d.rows), c = r / d.nd, a = r % d.nd;
    out[i] = u[(size_t)c * d.nl + d.edof[(size_t)(z0 + k) * d.nd + a]];
  }
}

static int StageReserve(CudaCtx *c, size_t n) {
  if (n <= c->stage_n) return 0;
  BlastCallCuda(cudaFree(c->stage));
  c->stage = NULL, c->stage_n = 0;
  BlastCallCuda(cudaMalloc((void **)&c->stage, n * sizeof(double)));
  c->stage_n = n;
  return 0;
}

// E-vectors of h1 for zones [z0, z1) into `host` (pinned), queued on the stream.
static int GatherZonesAsync(CudaCtx *c, int z0, int z1, const double *h1, double *stage, double *host) {
  const int n = z1 - z0;
  if (n <= 0) return 0;
  const size_t m = (size_t)n * c->dd.rows;
  k_gather_zones<<<GridFor(m), 256, 0, c->stream>>>(c->dd, z0, n, h1, stage);
  BlastCheckKernel("k_gather_zones");
  BlastCallCuda(cudaMemcpyAsync(host, stage, m * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  return 0;
}

static int CudaSplitGather(void *ctx, int z0, int z1, const double *h1, double *host) {
  CudaCtx *c = (CudaCtx *)ctx;
  if (z1 <= z0) return 0;
  BlastCall(StageReserve(c, (size_t)(z1 - z0) * c->dd.rows));
  BlastCall(GatherZonesAsync(c, z0, z1, h1, c->stage, host));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  return 0;
}

static int CudaSplitQDataBegin(void *ctx, int ndev, const double *x, const double *v, const double *e,
                               double *host_x, double *host_v, double *host_e) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("qdata_force (split)");
  const int nz = c->dd.nz, nh = nz - ndev;
  if (nh > 0) {  // the host zones' inputs first, so that the host can start at once
    const size_t m = (size_t)nh * c->dd.rows;
    BlastCall(StageReserve(c, 2 * m));
    BlastCall(GatherZonesAsync(c, ndev, nz, x, c->stage, host_x));
    BlastCall(GatherZonesAsync(c, ndev, nz, v, c->stage + m, host_v));
    BlastCallCuda(cudaMemcpyAsync(host_e, e + (size_t)ndev * c->dd.ne, (size_t)nh * c->dd.ne * sizeof(double),
                                  cudaMemcpyDeviceToHost, c->stream));
    BlastCallCuda(cudaEventRecord(c->ev_copy, c->stream));
  }
  c->q_ndev = 0, c->q_tuning = 0;
  if (ndev > 0) BlastCall(QDataStart(c, ndev, x, v, e));
  if (nh > 0) BlastCallCuda(cudaEventSynchronize(c->ev_copy));
  nvtxRangePop();
  return 0;
}

static int CudaSplitQDataEnd(void *ctx, BlastQDataResult *res, double *seconds, int *tuning) {
  CudaCtx *c = (CudaCtx *)ctx;
  *tuning = c->q_tuning;
  if (c->q_ndev == 0) {
    res->dt_est = HUGE_VAL, res->tangled_zone = -1, res->tangled_det = 0.0;
    *seconds = 0.0;
    return 0;
  }
  return QDataFinish(c, res, seconds);
}

static int CudaSplitMomentumRhs(void *ctx, int ndev, const double *host_rows, double *rhs) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("force_ones (split)");
  const int nh = c->dd.nz - ndev;
  BlastCall(ForceOnes(c, ndev));
  if (nh > 0)
    BlastCallCuda(cudaMemcpyAsync(c->dd.rE + (size_t)ndev * c->dd.rows, host_rows,
                                  (size_t)nh * c->dd.rows * sizeof(double), cudaMemcpyHostToDevice, c->stream));
  BlastCall(GatherRhs(c, rhs));
  nvtxRangePop();
  return 0;
}

static int CudaSplitEnergyRate(void *ctx, int ndev, const double *host_b, const double *v, double *de) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("energy_rate (split)");
  const int nh = c->dd.nz - ndev;
  BlastCall(ForceT(c, ndev, v));
  if (nh > 0)
    BlastCallCuda(cudaMemcpyAsync(c->dd.b + (size_t)ndev * c->dd.ne, host_b, (size_t)nh * c->dd.ne * sizeof(double),
                                  cudaMemcpyHostToDevice, c->stream));
  BlastCall(MeApply(c, de));
  nvtxRangePop();
  return 0;
}

// The tuner (gpu.autotune = online or cached): the interior products with 3 components
// of the first CG iterations run each candidate kSpmmReps times; the fastest (least time
// of its repeats) is kept for the run. Every candidate gives the same bits (a thread per
// row, entries in their stored order).
static int SpmmTuneCollect(CudaCtx *c) {
  if (!c->spmm_pending) return 0;
  c->spmm_pending = 0;
  BlastCallCuda(cudaEventSynchronize(c->ev_s1));
  float ms = 0.0f;
  BlastCallCuda(cudaEventElapsedTime(&ms, c->ev_s0, c->ev_s1));
  float *t = &c->spmm_time[c->spmm_tune];
  if (c->spmm_rep == 0 || ms < *t) *t = ms;
  if (++c->spmm_rep < kSpmmReps) return 0;
  c->spmm_rep = 0;
  if (g_options.verbose > 1) {
    const SpmmCand *k = &kSpmmCand[c->spmm_tune];
    printf(
        "  autotune: mass-matrix candidate %d/%d: %d threads/block, >= %d blocks/SM, unroll %d: "
        "%.3f ms\n",
        c->spmm_tune + 1, (int)kSpmmNCand, k->threads, k->minb, k->unr, *t);
  }
  if (++c->spmm_tune < kSpmmNCand) return 0;
  const int best = ArgMin(c->spmm_time, kSpmmNCand);
  c->spmm_cand = best;
  if (g_options.verbose) {
    const SpmmCand *k = &kSpmmCand[best];
    printf("  autotune: mass-matrix kernel %d threads/block, >= %d blocks/SM, unroll %d: %.3f ms\n",
           k->threads, k->minb, k->unr, c->spmm_time[best]);
  }
  return 0;
}

static int CudaMassMult(void *ctx, int rows, int ncomp, unsigned mask, const double *x, double *y) {
  CudaCtx *c = (CudaCtx *)ctx;
  nvtxRangePushA("mass_spmm");
  const size_t st = (size_t)c->dd.next;
  if (!g_options.spmv_cusparse) {
    const int t0 = rows == BLAST_ROWS_BOUNDARY ? c->sell_slots_int : 0;
    const int t1 = rows == BLAST_ROWS_INTERIOR ? c->sell_slots_int : c->sell_slots;
    // Components side by side in xil: one gather per entry instead of ncomp. The INTERIOR
    // call packs the owned part (even without interior rows) and the BOUNDARY call that
    // follows on the same x only the ghosts, which arrived in between.
    const double *xs = x;
    if (t1 > t0 && ncomp > 0) ProfBegin(c->stream);  // the packing counts as the product's time
    if (ncomp > 1 && (t1 > t0 || rows == BLAST_ROWS_INTERIOR)) {
      const int partial = rows == BLAST_ROWS_BOUNDARY && c->xil_src == x && c->xil_ncomp == ncomp;
      const int n0 = partial ? c->dd.nown : 0;
      const int n1 = rows == BLAST_ROWS_INTERIOR ? c->dd.nown : c->dd.next;
      if (n1 > n0) {
        k_interleave<<<GridFor((size_t)(n1 - n0)), 256, 0, c->stream>>>(n0, n1, ncomp, st, x,
                                                                        c->xil);
        BlastCheckKernel("k_interleave");
      }
      xs = c->xil;
    }
    c->xil_src = rows == BLAST_ROWS_INTERIOR && ncomp > 1 ? x : NULL, c->xil_ncomp = ncomp;
    if (t1 > t0 && ncomp > 0) {
      int nact = 0;
      for (int k = 0; k < ncomp; k++) nact += (mask >> k) & 1u;
      BlastCall(SpmmTuneCollect(c));
      // timed: interior rows with all 3 components active (the same work for every candidate)
      const int timed =
          c->spmm_tune < kSpmmNCand && ncomp == 3 && mask == 7u && rows == BLAST_ROWS_INTERIOR;
      const SpmmCand *k = &kSpmmCand[timed ? c->spmm_tune : c->spmm_cand];
      const SpmmKernel k_spmm = ncomp == 1   ? SpmmPick<1, false>(k)
                                : ncomp == 2 ? SpmmPick<2, true>(k)
                                             : SpmmPick<3, true>(k);
      if (timed) BlastCallCuda(cudaEventRecord(c->ev_s0, c->stream));
      k_spmm<<<(int)Blocks((size_t)(t1 - t0), k->threads), k->threads, 0, c->stream>>>(
          t0, t1, c->sell_row, c->sell_len, c->sell_off, c->sell_col, c->sell_val, mask, st, xs, y);
      BlastCheckKernel("k_spmm");
      if (timed) {
        BlastCallCuda(cudaEventRecord(c->ev_s1, c->stream));
        c->spmm_pending = 1;
      }
      // bytes and flops of the rows (padding not counted), by the owned rows' average
      const int ni = c->hd.mv_ninterior, nrows = rows == BLAST_ROWS_ALL        ? c->dd.nown
                                                 : rows == BLAST_ROWS_INTERIOR ? ni
                                                                               : c->dd.nown - ni;
      const double nnz =
          (double)c->hd.mv_rowptr[c->dd.nown] * nrows / (c->dd.nown ? c->dd.nown : 1);
      ProfEnd(c->stream, P_SPMV, 12.0 * nnz + 16.0 * nrows * nact, 2.0 * nnz * nact);
    }
    nvtxRangePop();
    return 0;
  }
  const int ni = c->mv_int.nrows, nb = c->mv_bnd.nrows;
  for (int k = 0; k < ncomp; k++) {  // cuSPARSE: one SpMV per component
    if (!((mask >> k) & 1u)) continue;
    if (rows != BLAST_ROWS_BOUNDARY && ni) {
      BlastCall(SpMV(c, &c->mv_int, c->vx_int, x + k * st, c->vy_int, c->y_perm));
      k_scatter<<<(int)Blocks(ni, 256), 256, 0, c->stream>>>(ni, c->mv_rows, c->y_perm, y + k * st);
      BlastCheckKernel("k_scatter");
    }
    if (rows != BLAST_ROWS_INTERIOR && nb) {
      BlastCall(SpMV(c, &c->mv_bnd, c->vx_bnd, x + k * st, c->vy_bnd, c->y_perm + ni));
      k_scatter<<<(int)Blocks(nb, 256), 256, 0, c->stream>>>(nb, c->mv_rows + ni, c->y_perm + ni, y + k * st);
      BlastCheckKernel("k_scatter");
    }
  }
  nvtxRangePop();
  return 0;
}

static dim3 GridMulti(size_t n, int ncomp) {
  const size_t b = Blocks(n, 256);
  return dim3((unsigned)(b < 4096 ? (b ? b : 1) : 4096), (unsigned)ncomp);
}

static int CudaJacobi(void *ctx, int ncomp, unsigned mask, const double *r, double *z) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int n = c->dd.nown;
  if (!n) return 0;
  ProfBegin(c->stream);
  k_jacobi_multi<<<GridMulti(n, ncomp), 256, 0, c->stream>>>(n, mask, (size_t)c->dd.next, c->mv_dinv, r, z);
  BlastCheckKernel("k_jacobi_multi");
  ProfEnd(c->stream, P_VEC, 24.0 * n * ncomp, (double)n * ncomp);
  return 0;
}

static int CudaZeroEssential(void *ctx, int ncomp, unsigned mask, double *y) {
  CudaCtx *c = (CudaCtx *)ctx;
  Off4 off = {{0, 0, 0, 0}};
  int maxn = 0;
  for (int k = 0; k <= ncomp; k++) off.v[k] = c->ess_off[k];
  for (int k = 0; k < ncomp; k++) maxn = maxn > off.v[k + 1] - off.v[k] ? maxn : off.v[k + 1] - off.v[k];
  if (!maxn) return 0;
  k_zero_multi<<<GridMulti(maxn, ncomp), 256, 0, c->stream>>>(mask, (size_t)c->dd.next, off, c->ess_idx, y);
  BlastCheckKernel("k_zero_multi");
  return 0;
}

static int CudaAxpbyMulti(void *ctx, int ncomp, unsigned mask, const double *a, const double *x,
                          const double *b, double *y) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int n = c->dd.nown;
  if (!n) return 0;
  Coef3 ca = {{0, 0, 0}}, cb = {{0, 0, 0}};
  for (int k = 0; k < ncomp; k++) ca.v[k] = a[k], cb.v[k] = b[k];
  ProfBegin(c->stream);
  k_axpby_multi<<<GridMulti(n, ncomp), 256, 0, c->stream>>>(n, mask, (size_t)c->dd.next, ca, x, cb, y);
  BlastCheckKernel("k_axpby_multi");
  ProfEnd(c->stream, P_VEC, 24.0 * n * ncomp, 3.0 * n * ncomp);
  return 0;
}

static int CudaDotMulti(void *ctx, int ncomp, unsigned mask, const double *x, const double *y,
                        double *result) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int n = c->dd.nown;
  ProfBegin(c->stream);
  k_dot_dd_multi<<<dim3(kDotBlocks, ncomp), kDotThreads, 0, c->stream>>>(n, mask, (size_t)c->dd.next, x, y,
                                                                        c->dot_part);
  BlastCheckKernel("k_dot_dd_multi");
  BlastCallCuda(cudaMemcpyAsync(c->dot_host, c->dot_part, 2 * (size_t)kDotBlocks * ncomp * sizeof(double),
                                cudaMemcpyDeviceToHost, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  ProfEnd(c->stream, P_DOT, 16.0 * n * ncomp, 2.0 * n * ncomp);
  for (int k = 0; k < ncomp; k++) {
    BlastDD acc = {0.0, 0.0};
    if ((mask >> k) & 1u)
      for (int b = 0; b < kDotBlocks; b++)
        BlastDDAddDD(&acc, c->dot_host[2 * (k * kDotBlocks + b)], c->dot_host[2 * (k * kDotBlocks + b) + 1]);
    BlastDDNormalize(&acc);
    result[2 * k] = acc.hi, result[2 * k + 1] = acc.lo;
  }
  return 0;
}

static int CudaHaloPack(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *x, double *buf) {
  CudaCtx *c = (CudaCtx *)ctx;
  const DevHalo *h = &c->halo[which];
  const int n = reverse ? h->nrecv : h->nsend;
  if (!n) return 0;
  k_pack<<<GridFor((size_t)n * ncomp), 256, 0, c->stream>>>(n, ncomp, stride, reverse ? h->recv_idx : h->send_idx, x,
                                                          c->dbuf);
  BlastCheckKernel("k_pack");
  BlastCallCuda(cudaMemcpyAsync(buf, c->dbuf, (size_t)n * ncomp * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  return 0;
}

static int CudaHaloUnpack(void *ctx, int which, int reverse, int ncomp, size_t stride, const double *buf, double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  const DevHalo *h = &c->halo[which];
  const int n = reverse ? h->nsend : h->nrecv;
  if (!n) return 0;
  BlastCallCuda(cudaMemcpyAsync(c->dbuf, buf, (size_t)n * ncomp * sizeof(double), cudaMemcpyHostToDevice, c->stream));
  if (!reverse) {
    k_unpack_set<<<GridFor((size_t)n * ncomp), 256, 0, c->stream>>>(n, ncomp, stride, h->recv_idx, c->dbuf, x);
    BlastCheckKernel("k_unpack_set");
  } else {
    k_unpack_add<<<GridFor((size_t)h->ntarget * ncomp), 256, 0, c->stream>>>(*h, ncomp, stride, c->dbuf, x, 0);
    BlastCheckKernel("k_unpack_add");
  }
  return 0;
}

static int CudaHaloUnpackDD(void *ctx, int which, int ndd, size_t stride, const double *buf, double *x) {
  CudaCtx *c = (CudaCtx *)ctx;
  const DevHalo *h = &c->halo[which];
  if (!h->nsend) return 0;
  BlastCallCuda(cudaMemcpyAsync(c->dbuf, buf, (size_t)h->nsend * 2 * ndd * sizeof(double), cudaMemcpyHostToDevice,
                                c->stream));
  k_unpack_add<<<GridFor((size_t)h->ntarget * ndd), 256, 0, c->stream>>>(*h, ndd, stride, c->dbuf, x, 1);
  BlastCheckKernel("k_unpack_add(dd)");
  return 0;
}

static int CudaEnergies(void *ctx, const double *v, const double *e, double *ie, double *ke) {
  CudaCtx *c = (CudaCtx *)ctx;
  const int nz = c->dd.nz;
  k_energies<<<GridFor(nz), 256, 0, c->stream>>>(c->dd, v, e, c->energy_zone);
  BlastCheckKernel("k_energies");
  BlastCallCuda(cudaMemcpyAsync(c->energy_host, c->energy_zone, 2 * (size_t)nz * sizeof(double),
                                cudaMemcpyDeviceToHost, c->stream));
  BlastCallCuda(cudaStreamSynchronize(c->stream));
  double si = 0.0, sk = 0.0;
  for (int z = 0; z < nz; z++) si += c->energy_host[2 * z], sk += c->energy_host[2 * z + 1];
  *ie = si, *ke = sk;
  return 0;
}

static int CudaSync(void *ctx) {
  BlastCallCuda(cudaStreamSynchronize(((CudaCtx *)ctx)->stream));
  return 0;
}

// Positional, in the order of the groups in backend.h (C++17 has no designated
// initialisers); tests/backend checks every entry.
extern "C" const BlastBackendOps blast_backend_cuda = {
    "cuda",
    {CudaCreate, CudaDestroy, CudaSync},
    {CudaAlloc, CudaFreeVec, CudaHostAlloc, CudaHostFree, CudaToHost, CudaFromHost, CudaCopy,
     CudaSet, CudaAxpby, CudaWaxpby, CudaDot},
    {CudaQDataForce, CudaMomentumRhs, CudaEnergyRate, CudaEnergies},
    {CudaMassMult, CudaJacobi, CudaZeroEssential, CudaAxpbyMulti, CudaDotMulti},
    {CudaHaloPack, CudaHaloUnpack, CudaHaloUnpackDD},
    {CudaSplitQDataBegin, CudaSplitQDataEnd, CudaSplitGather, CudaSplitMomentumRhs,
     CudaSplitEnergyRate},
};
