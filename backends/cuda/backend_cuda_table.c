// The CUDA backend table (hydro/backend.h), by designated initialisers: C11, since C++17
// has none. The entries are implemented in setup.cu and ops_*.cu (ops.h);
// BlastBackendCheck and tests/backend check that every one is filled.
#include "blast_cuda.h"
#include "cpu_zones.h"
#include "ops.h"

const BlastBackendOps blast_backend_cuda = {
    .name = "cuda",
    .ctx = {.create = BlastCudaCreate,
            .destroy = BlastCudaDestroy,
            .rebuild = BlastCudaRebuild,
            .sync = BlastCudaSync},
    .vec = {.alloc = BlastCudaAlloc,
            .free = BlastCudaFree,
            .host_alloc = BlastCudaHostAlloc,
            .host_free = BlastCudaHostFree,
            .to_host = BlastCudaToHost,
            .from_host = BlastCudaFromHost,
            .copy = BlastCudaCopy,
            .set = BlastCudaSet,
            .axpby = BlastCudaAxpby,
            .waxpby = BlastCudaWaxpby,
            .dot = BlastCudaDot},
    .zone = {.qdata_force = BlastCudaQDataForce,
             .momentum_rhs = BlastCudaMomentumRhs,
             .energy_rate = BlastCudaEnergyRate,
             .energies = BlastCudaEnergies},
    .mass = {.mult = BlastCudaMassMult,
             .jacobi = BlastCudaJacobi,
             .zero_essential = BlastCudaZeroEssential,
             .project = BlastCudaProject,
             .wall_normals = BlastCudaWallNormals,
             .axpby_multi = BlastCudaAxpbyMulti,
             .dot_multi = BlastCudaDotMulti,
             .mult_dot = BlastCudaMassMultDot,
             .cg_update = BlastCudaCgUpdate,
             .cg_advance = BlastCudaCgAdvance,
             .pcg = BlastCudaPcg},
    .halo = {.pack = BlastCudaHaloPack,
             .unpack = BlastCudaHaloUnpack,
             .unpack_dd = BlastCudaHaloUnpackDD},
    .split = {.qdata_begin = BlastCudaSplitQDataBegin,
              .qdata_end = BlastCudaSplitQDataEnd,
              .gather = BlastCudaSplitGather,
              .momentum_rhs = BlastCudaSplitMomentumRhs,
              .energy_rate = BlastCudaSplitEnergyRate,
              .host_zones = BlastCpuHostZones},
};
