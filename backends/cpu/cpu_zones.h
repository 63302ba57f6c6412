/// @file cpu_zones.h
/// @brief The host-thread part of the CPU+GPU hybrid (hybrid.h): quadrature data, force
/// matrices and the per-zone force actions of a contiguous range of zones, from
/// E-vectors, with the CPU backend's kernels (the same arithmetic, so the same bits).
#ifndef BLAST_CPU_ZONES_H
#define BLAST_CPU_ZONES_H

#include "backend.h"
#include "hybrid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BlastCpuZones_private *BlastCpuZones;

int BlastCpuZonesCreate(const BlastHydroData *hd, BlastCpuZones *cz);
int BlastCpuZonesDestroy(BlastCpuZones *cz);
/// Zones [z0, z1): x, v as E-vectors (dim * h1_nd per zone), e as zone blocks; keeps F_z
/// (and the Taylor-Green source) of these zones for the two calls below.
int BlastCpuZonesQData(BlastCpuZones cz, int z0, int z1, const double *xE, const double *vE,
                       const double *eE, BlastQDataResult *res);
/// rows_out[k] = -F_z 1 for the n zones of the last BlastCpuZonesQData.
void BlastCpuZonesForceOnes(BlastCpuZones cz, int n, double *rows_out);
/// b_out[k] = F_z^T v_z (+ source) for those zones, v as E-vectors.
void BlastCpuZonesForceT(BlastCpuZones cz, int n, const double *vE, double *b_out);

/// These functions as the host part of a hybrid (BlastBackendOps.host_zones).
extern const BlastHostZoneOps blast_cpu_host_zones;
/// BlastSplitOps.host_zones of a backend whose host part these kernels are.
int BlastCpuHostZones(void *ctx, const BlastHostZoneOps **ops);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_CPU_ZONES_H
