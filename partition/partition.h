/// @file partition.h
/// @brief Zone partitioning for domain decomposition (METIS k-way on the dual graph, or
/// contiguous blocks). Works on a generic CSR graph; the solver builds the dual graph.
#ifndef BLAST_PARTITION_H
#define BLAST_PARTITION_H

#include <mpi.h>

#include "blast.h"

typedef enum { BLAST_PART_METIS = 0, BLAST_PART_BLOCK = 1 } BlastPartMethod;

/// Statistics of a partition, for the start-up report.
typedef struct {
  int nparts;
  int zones_min, zones_max;  ///< zones per part
  double imbalance;          ///< max / mean zones per part
  long long edge_cut;        ///< dual-graph edges between different parts
} BlastPartStats;

/// Partition the n vertices of the graph (xadj, adjncy) into `nparts` parts:
/// part[i] in [0, nparts). Rank 0 computes, every rank receives the same result.
/// Collective. Errors (BLAST_ERR_INPUT, agreed on every rank): more parts than
/// vertices, a part left empty; BLAST_ERR_METIS with METIS's status.
/// METIS on a graph of more than 200,000 vertices runs behind a threaded multilevel
/// coarsening (deterministic: the same parts for any thread count) that hands METIS a
/// graph of at most 50,000 weighted vertices; smaller graphs go to METIS as they are.
int BlastPartitionGraph(MPI_Comm comm, int method, int n, const int *xadj, const int *adjncy,
                        int nparts, int *part, BlastPartStats *stats);

/// Tests: graphs above n vertices (n >= 2) take the multilevel path, coarsened to at most
/// min(n / 4, 50,000) vertices (the default n is 200,000). BLAST_ERR_ARG for n < 2.
int BlastPartitionSetMultilevelMin(int n);

#endif  // BLAST_PARTITION_H
