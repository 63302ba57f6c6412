/// @file memory_cpu.h
/// @brief What the CPU backend will need of host memory, estimated from the sizes of a
/// run and checked against the rank's budget (fem/memory.h) before the spaces are built.
#ifndef BLAST_MEMORY_CPU_H
#define BLAST_MEMORY_CPU_H

#include <stdint.h>

#include "backend.h"
#include "config.h"
#include "memory.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Sizes that decide the host memory of one rank.
typedef struct {
  int dim, k, m, q1d;  ///< dimension, kinematic and thermodynamic orders, 1D points
  int64_t zones;       ///< zones of this rank (after parallel refinement)
  int backend_host;    ///< 1: the backend's state and zone arrays are in host memory (CPU)
  int extra_states;    ///< extra state vectors of the integrator (RK6: 8 stage rates)
  int partial;         ///< partial assembly (no mass matrix, no F_z)
  int simplex;         ///< triangles or tetrahedra (P_k, P_m: fewer nodes per zone)
} BlastCpuMemorySizes;

/// @brief Estimated peak host memory of one rank for the setup and the run (bytes):
/// spaces, mass matrix (CSR), M_E^{-1} blocks, quadrature data, state and solver vectors,
/// the CPU backend's corner forces. Not counted: the serial mesh (already allocated when
/// this is used) and the process itself (libraries, MPI), see BLAST_CPU_MEMORY_FIXED.
double BlastCpuMemoryEstimate(const BlastCpuMemorySizes *s);

/// @brief The size checks before the spaces are built (collective over `comm`): with the
/// partition `part` of the serial `mesh` (NULL on one rank), the zone and node counts of
/// every rank must fit the 32-bit indices, and the estimated memory the budget. Every
/// rank raises the same BLAST_ERR_INPUT (marked BLAST_COLLECTIVE_SAME), naming the deck
/// keys and the numbers, with a suggestion.
int BlastCpuMemoryCheck(MPI_Comm comm, const BlastConfig *cfg, BlastMesh mesh, const int *part,
                        const BlastBackendOps *ops);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_MEMORY_CPU_H
