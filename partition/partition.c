// Zone partitioning: METIS k-way (contiguous parts when the graph allows) or blocks.
#include "partition.h"

#include <metis.h>
#include <stdio.h>
#include <stdlib.h>

#include "blast_mpi.h"
#include "partition-impl.h"

static const char *MetisStatus(int status) {
  switch (status) {
    case METIS_ERROR_INPUT:
      return "METIS_ERROR_INPUT (invalid graph)";
    case METIS_ERROR_MEMORY:
      return "METIS_ERROR_MEMORY (out of memory)";
    default:
      return "METIS_ERROR";
  }
}

int BlastPartitionMetis(const BlastPartGraph *g, int nparts, int *part) {
  const int n = g->n, nnz = g->xadj[n];
  idx_t nv = n, ncon = 1, np = nparts, objval = 0;
  idx_t *xa = NULL, *adj = NULL, *pt = NULL, *vw = NULL, *ew = NULL;
  int ierr = BlastMalloc(n + 1, &xa);
  if (!ierr) ierr = BlastMalloc((size_t)nnz + 1, &adj);
  if (!ierr) ierr = BlastMalloc(n + 1, &pt);
  if (!ierr && g->vw) ierr = BlastMalloc(n + 1, &vw);
  if (!ierr && g->ew) ierr = BlastMalloc((size_t)nnz + 1, &ew);
  int status = METIS_OK;
  if (!ierr) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i <= n; i++) xa[i] = g->xadj[i];
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nnz; i++) adj[i] = g->adj[i];
    if (vw) {
#pragma omp parallel for schedule(static)
      for (int i = 0; i < n; i++) vw[i] = g->vw[i];
    }
    if (ew) {
#pragma omp parallel for schedule(static)
      for (int i = 0; i < nnz; i++) ew[i] = g->ew[i];
    }
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_CONTIG] = 1;  // connected parts keep halos small
    options[METIS_OPTION_SEED] = 1;    // reproducible
    status = METIS_PartGraphKway(&nv, &ncon, xa, adj, vw, NULL, ew, &np, NULL, NULL, options,
                                 &objval, pt);
    if (status != METIS_OK) {
      // Disconnected graphs cannot have contiguous parts: retry without that wish.
      options[METIS_OPTION_CONTIG] = 0;
      status = METIS_PartGraphKway(&nv, &ncon, xa, adj, vw, NULL, ew, &np, NULL, NULL, options,
                                   &objval, pt);
    }
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) part[i] = (int)pt[i];
  }
  BlastFree(&xa);
  BlastFree(&adj);
  BlastFree(&pt);
  BlastFree(&vw);
  BlastFree(&ew);
  BlastCall(ierr);
  BlastCheck(status == METIS_OK, BLAST_ERR_METIS,
             "METIS_PartGraphKway could not split %d zones into %d parts: %s", n, nparts,
             MetisStatus(status));
  return 0;
}

// Graphs above this many vertices take the multilevel path (BlastPartitionMultilevel),
// which coarsens them to kCoarseVertices before METIS.
static int g_multilevel_min = 200000;
enum { kCoarseVertices = 50000 };

int BlastPartitionSetMultilevelMin(int n) {
  BlastCheck(n >= 2, BLAST_ERR_ARG, "BlastPartitionSetMultilevelMin: %d is below 2", n);
  g_multilevel_min = n;
  return 0;
}

// On rank 0 only: compute the partition; any error is broadcast afterwards.
static int PartitionRoot(int method, int n, const int *xadj, const int *adjncy, int nparts,
                         int *part) {
  BlastCheck(nparts <= n, BLAST_ERR_INPUT,
             "%d MPI ranks but only %d zones after serial refinement: every rank needs at least "
             "one zone (raise [mesh] refine_serial or use fewer ranks)",
             nparts, n);
  if (nparts == 1) {
    for (int i = 0; i < n; i++) part[i] = 0;
  } else if (method == BLAST_PART_BLOCK) {
    for (int i = 0; i < n; i++) part[i] = (int)((long long)i * nparts / n);
  } else {
    const BlastPartGraph g = {n, xadj, adjncy, NULL, NULL};
    const int min = g_multilevel_min;
    if (n > min && min >= 2) {
      const int coarse = min / 4 < kCoarseVertices ? min / 4 : kCoarseVertices;
      BlastCall(BlastPartitionMultilevel(&g, nparts, coarse > 1 ? coarse : 1, part));
    } else {
      BlastCall(BlastPartitionMetis(&g, nparts, part));
    }
  }
  int *count;
  BlastCall(BlastCalloc(nparts, &count));
  for (int i = 0; i < n; i++) count[part[i]]++;
  int empty = -1;
  for (int p = 0; p < nparts && empty < 0; p++)
    if (!count[p]) empty = p;
  BlastFree(&count);
  BlastCheck(empty < 0, BLAST_ERR_INPUT,
             "the partitioner left rank %d without zones (%d zones, %d ranks); use fewer ranks or "
             "more serial refinement",
             empty, n, nparts);
  return 0;
}

int BlastPartitionGraph(MPI_Comm comm, int method, int n, const int *xadj, const int *adjncy,
                        int nparts, int *part, BlastPartStats *stats) {
  int rank;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  int ierr = rank ? 0 : PartitionRoot(method, n, xadj, adjncy, nparts, part);
  // Rank 0's outcome, with its message, becomes every rank's outcome.
  char msg[1024] = "";
  if (ierr) snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
  int head[2] = {ierr, 0};
  BlastCallMPI(MPI_Bcast(head, 2, MPI_INT, 0, comm));
  BlastCallMPI(MPI_Bcast(msg, sizeof msg, MPI_CHAR, 0, comm));
  if (head[0]) {
    if (rank) BlastErrorRaise(__FILE__, __LINE__, __func__, head[0], "%s", msg);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return head[0];
  }
  BlastCallMPI(MPI_Bcast(part, n, MPI_INT, 0, comm));
  if (stats) {
    int *count;
    BlastCall(BlastCalloc(nparts, &count));
    long long cut = 0;
#pragma omp parallel for schedule(static) reduction(+ : cut) reduction(+ : count[:nparts])
    for (int i = 0; i < n; i++) {
      count[part[i]]++;
      for (int k = xadj[i]; k < xadj[i + 1]; k++) cut += part[adjncy[k]] != part[i];
    }
    stats->nparts = nparts;
    stats->zones_min = n, stats->zones_max = 0;
    for (int p = 0; p < nparts; p++) {
      if (count[p] < stats->zones_min) stats->zones_min = count[p];
      if (count[p] > stats->zones_max) stats->zones_max = count[p];
    }
    stats->imbalance = stats->zones_max / ((double)n / nparts);
    stats->edge_cut = cut / 2;
    BlastFree(&count);
  }
  return 0;
}
