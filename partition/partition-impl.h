/// @file partition-impl.h
/// @brief Internals of the partitioner shared by partition.c and coarsen.c.
#ifndef BLAST_PARTITION_IMPL_H
#define BLAST_PARTITION_IMPL_H

#include "blast.h"

/// A graph in CSR form with vertex weights vw and edge weights ew (NULL: all 1).
typedef struct {
  int n;
  const int *xadj, *adj, *vw, *ew;
} BlastPartGraph;

/// METIS k-way on g (contiguous parts when the graph allows), part[i] in [0, nparts).
int BlastPartitionMetis(const BlastPartGraph *g, int nparts, int *part);

/// The multilevel path for large graphs: coarsen g by rounds of a deterministic parallel
/// matching until it has at most `coarse` vertices, partition the coarsest graph with
/// METIS (vertex weights: the zones each coarse vertex holds; edge weights: the fine edges
/// between them), then project back level by level with a greedy boundary refinement.
/// The result depends only on the graph and nparts, never on the thread count.
int BlastPartitionMultilevel(const BlastPartGraph *g, int nparts, int coarse, int *part);

#endif  // BLAST_PARTITION_IMPL_H
