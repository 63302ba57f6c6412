/// @file memory.h
/// @brief Host memory: what this rank may allocate, checked (here for the serial mesh,
/// in hydro/memory_cpu.h for the run) before the large allocations so that a problem too large for
/// the node stops with the numbers (exit code 2) instead of being killed by the kernel.
///
/// The memory a rank may use is the node's MemAvailable (/proc/meminfo) divided by the
/// ranks on the node (MPI_COMM_TYPE_SHARED), and at most what RLIMIT_AS (`ulimit -v`) and
/// RLIMIT_DATA (`ulimit -d`) leave above the process's current size. BlastMemorySetChecks(0)
/// turns the checks off (they then only never refuse): app/main.c does so for the
/// environment variable BLAST_MEMORY_CHECK=0.
#ifndef BLAST_MEMORY_H
#define BLAST_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "blast_mpi.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What a rank may allocate.
typedef struct {
  double bytes;          ///< for this rank (the smallest of the limits below); < 0: unknown
  double mem_available;  ///< MemAvailable of the node, bytes; < 0: unknown
  int node_ranks;        ///< ranks sharing the node (1 unless known)
  double limit_left;     ///< what RLIMIT_AS / RLIMIT_DATA leave, bytes; < 0: no limit
  int limit_kind;        ///< 0 none, 1 RLIMIT_AS (ulimit -v), 2 RLIMIT_DATA (ulimit -d)
} BlastMemoryBudget;

/// @brief Remember the number of ranks on this node (collective over `comm`), for the
/// checks that run without a communicator (the serial mesh: box generator, serial
/// refinement). Without it they assume one rank per node.
int BlastMemorySetNode(MPI_Comm comm);

/// @brief Turn the refusals of the memory checks on (the default) or off, for the whole
/// process (the checks that run without a configuration, the serial mesh, need it too).
void BlastMemorySetChecks(int on);

/// @brief This rank's budget now, without communication (node ranks as remembered).
void BlastMemoryBudgetLocal(BlastMemoryBudget *b);

/// @brief The budget agreed over `comm` (collective): the smallest on any rank, so that
/// every rank takes the same decision and prints the same numbers.
int BlastMemoryBudgetAgree(MPI_Comm comm, BlastMemoryBudget *b);

/// @brief "5.81 GiB per rank (23.25 GiB MemAvailable on this node / 4 ranks)" and the
/// limit, if any, that decided it.
void BlastMemoryBudgetText(const BlastMemoryBudget *b, char *buf, size_t n);

/// @brief 1 when `need` bytes do not fit the budget (and the checks are on).
int BlastMemoryTooLarge(double need, const BlastMemoryBudget *b);

/// Bytes allowed for what the model does not count (allocator slack, small arrays).
#define BLAST_CPU_MEMORY_FIXED (64.0 * 1048576.0)

/// @brief Estimated bytes per zone of the serial mesh while it is made and then used:
/// coordinates, corners, attributes (twice while refining), its topology (entities and
/// zone lists) and the dual graph for the partitioner.
double BlastSerialMeshBytesPerZone(int dim);

/// @brief Check without communication (every rank computes the same) that a serial mesh of
/// `zones` zones, held by every rank, fits this rank's budget (BlastMemoryBudgetLocal).
/// @param from_zones  zones before refinement (0: a generated mesh), for the message
/// @param what        the deck key and value that asked for it, e.g. "[mesh] refine_serial = 9"
/// @return BLAST_ERR_INPUT with the numbers and a suggestion when it does not fit.
int BlastSerialMeshMemoryCheck(int dim, int64_t zones, int from_zones, const char *what);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_MEMORY_H
