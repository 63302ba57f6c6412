// The CPU backend's host memory model and the size checks before the setup (see
// memory_cpu.h).
#include "memory_cpu.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fe.h"
#include "mesh-impl.h"

static const double kGiB = 1073741824.0;

double BlastCpuMemoryEstimate(const BlastCpuMemorySizes *s) {
  const int d = s->dim;
  double nd = 1, ne = 1, nqp = 1, dof = 1, row = 1;
  for (int g = 0; g < d; g++) {
    nd *= s->k + 1;   // H1 nodes per zone
    ne *= s->m + 1;   // L2 basis functions per zone
    nqp *= s->q1d;    // quadrature points per zone
    dof *= s->k;      // H1 dofs per zone (shared nodes counted once)
    row *= s->k + 2;  // mean mass-matrix row length: (2k+1) at vertices, k+1 inside
  }
  if (s->simplex) {  // binomial(k+d, d) nodes, binomial(m+d, d) functions, k^d/d! dofs
    for (int g = 1; g <= d; g++) {
      nd = nd * (s->k + g) / (s->k + 1) / g;
      ne = ne * (s->m + g) / (s->m + 1) / g;
      dof /= g;
    }
  }
  dof *= 1.15;  // ghosts and the halo zones' dofs (the rank's surface)
  const double nstate = 2.0 * d * dof + ne;
  // H1/L2 spaces (fem/space.c): zone ids, E->L maps, dof ids, owners, transpose and
  // mass assembly lists; while they are built, sorted node ids and dof groups.
  const double space = 16.0 + 12.0 * nd + 20.0 * dof;
  const double space_tmp = 24.0 * nd + 36.0 * dof;
  // Hydro setup (hydro/hydro.c): mass matrix CSR (int col, double val) with row data
  // (64-bit offset, int order, reciprocal diagonal), M_E^{-1} blocks, J0^{-1} and rho0|J0|w
  // at the points, gamma, initial positions.
  // Partial assembly: no CSR but the reciprocal diagonal and the row order; no J0^{-1}
  // (the zone kernels recompute it); w|J0|, rho0|J0|w of the energy and of the mass
  // operator at the points.
  const double hydro = s->partial
                           ? dof * 16.0 + 8.0 * ne * ne + 8.0 * nqp * 3.0 + 12.0 + 8.0 * d * dof
                           : dof * (20.0 + 12.0 * row) + 8.0 * ne * ne + 8.0 * nqp * (d * d + 1.0) +
                                 8.0 + 8.0 * d * dof;
  // The setup's temporaries still alive when the backend allocates: the initial state.
  const double hydro_tmp = 8.0 * nstate;
  // Backend (backends/cpu/backend_cpu.c, hydro.c): F_z (dim*nd x ne) and -F_z.1 per zone, the
  // Taylor-Green source, six state vectors, the double-double right-hand side, six CG
  // vectors, and the extra stage vectors of RK6.
  // (partial: the zone rows and mass values of 3 components, J0^{-1}, b or the stress)
  const double zone = s->partial ? 3.0 * nd + d * d * nqp + 2.0 * ne : d * nd * ne + d * nd + ne;
  const double backend = s->backend_host
                             ? 8.0 * zone + 8.0 * (6.0 * nstate + 2.0 * d * dof + 6.0 * d * dof) +
                                   8.0 * s->extra_states * nstate
                             : 0.0;
  const double setup_peak = space + space_tmp;
  const double run_peak = space + hydro + hydro_tmp + backend;
  const double per_zone = setup_peak > run_peak ? setup_peak : run_peak;
  return per_zone * (double)s->zones;
}

// a * b with overflow check (int64).
static int Mul64(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_mul_overflow(a, b, r);
}

// Raise the same input error on every rank (all of them reach it with the same numbers).
#define SameError(...)                                                           \
  do {                                                                           \
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT, __VA_ARGS__); \
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);                              \
    return BLAST_ERR_INPUT;                                                      \
  } while (0)

int BlastCpuMemoryCheck(MPI_Comm comm, const BlastConfig *cfg, BlastMesh mesh, const int *part,
                        const BlastBackendOps *ops) {
  int rank = 0, nranks = 1;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastCallMPI(MPI_Comm_size(comm, &nranks));
  const int dim = mesh->dim, k = cfg->order_kinematic, rp = cfg->refine_parallel;
  const int m = cfg->order_thermo >= 0 ? cfg->order_thermo : k - 1;
  // Mesh zones of this rank, then the most on any rank.
  int64_t mine = 0, most = 0, nodes = 1, nchild = 1;
  for (int z = 0; z < mesh->nzones; z++) mine += !part || part[z] == rank;
  BlastCallMPI(MPI_Allreduce(&mine, &most, 1, MPI_INT64_T, MPI_MAX, comm));
  for (int g = 0; g < dim; g++) nodes *= k + 1, nchild *= (int64_t)1 << (rp < 0 ? 0 : rp);
  // The key names for messages.
  char keys[256];
  snprintf(keys, sizeof keys,
           "[mesh] refine_serial = %d, refine_parallel = %d, [fem] order_kinematic = %d (%dD, "
           "%d mesh zones after serial refinement)",
           cfg->refine_serial, rp, k, dim, mesh->nzones);
  int64_t zones_global, zones_rank, nodes_rank;
  if (!Mul64(mesh->nzones, nchild, &zones_global) || !Mul64(most, nchild, &zones_rank) ||
      !Mul64(zones_rank, nodes, &nodes_rank) || nodes_rank >= INT32_MAX) {
    const double zr = (double)most * (double)nchild;
    const double need_ranks =
        ceil((double)mesh->nzones * (double)nchild * (double)nodes / INT32_MAX);
    SameError(
        "%s: %.0f zones in all, %.0f on the busiest of %d rank%s, with %lld nodes each: "
        "%.3g zone nodes on one rank, more than the %d a rank can index (32-bit). Use fewer "
        "zones (lower [mesh] refine_parallel or refine_serial: each level divides the zones by "
        "%d) or more ranks (at least %.0f)",
        keys, (double)mesh->nzones * (double)nchild, zr, nranks, nranks == 1 ? "" : "s",
        (long long)nodes, zr * (double)nodes, INT32_MAX, 1 << dim, need_ranks);
  }
  // Memory: the same model on every rank, for its own zones; the largest need against the
  // smallest budget.
  BlastCpuMemorySizes sz;
  memset(&sz, 0, sizeof sz);
  sz.dim = dim, sz.k = k, sz.m = m;
  sz.q1d = BlastQuadraturePoints1D(k, m, cfg->order_quadrature);
  sz.zones = zones_rank;
  sz.backend_host = !ops || !strcmp(ops->name, "cpu") || cfg->balance_mode != 0;
  sz.extra_states = cfg->ode_solver == BLAST_ODE_RK6 ? 8 : 0;
  sz.partial =
      BlastAssemblyResolveMesh(cfg->assembly, dim, k, mesh->nsimplex > 0) == BLAST_ASSEMBLY_PARTIAL;
  sz.simplex = mesh->nsimplex == mesh->nzones;  // mixed meshes: padded to the quadrilateral's
  const double need = BlastCpuMemoryEstimate(&sz) + BLAST_CPU_MEMORY_FIXED;
  BlastMemoryBudget b;
  BlastCall(BlastMemoryBudgetAgree(comm, &b));
  if (BlastMemoryTooLarge(need, &b)) {
    char avail[400];
    BlastMemoryBudgetText(&b, avail, sizeof avail);
    const double per_zone = need / (double)(zones_rank > 0 ? zones_rank : 1);
    const double fit = b.bytes > BLAST_CPU_MEMORY_FIXED
                           ? floor((b.bytes - BLAST_CPU_MEMORY_FIXED) / per_zone)
                           : 0.0;
    const double ranks_needed = fit > 0 ? ceil((double)zones_global / fit) : 0.0;
    SameError(
        "%s: %.0f zones in all, %.0f on the busiest of %d rank%s: the %s backend would need "
        "about %.2f GiB on that rank (%.1f KB per zone, estimated before allocating), but only "
        "%s is available. Use fewer zones (lower [mesh] refine_parallel or refine_serial: each "
        "level divides the zones by %d; about %.0f zones fit on one rank), or more ranks on more "
        "nodes (about %.0f ranks with this much memory each)%s",
        keys, (double)zones_global, (double)zones_rank, nranks, nranks == 1 ? "" : "s",
        ops ? ops->name : "cpu", need / kGiB, per_zone / 1024.0, avail, 1 << dim, fit, ranks_needed,
        sz.backend_host ? ", or the GPU backend ([gpu] backend = cuda)" : "");
  }
  return 0;
}
