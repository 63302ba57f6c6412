/// @file halo.h
/// @brief Point-to-point communication patterns between owners of dofs and the ranks that
/// hold ghost copies of them. Built once (one count exchange and one id exchange at
/// setup); every exchange afterwards is non-blocking point-to-point with neighbours only.
///
/// Buffers are host memory, packed by the caller (a backend) in the order of the index
/// lists, with `ncomp` components stored as [c*n + i]. One message per neighbour and
/// component.
#ifndef BLAST_HALO_H
#define BLAST_HALO_H

#include <mpi.h>
#include <stdint.h>

#include "blast.h"

typedef struct BlastHalo_private *BlastHalo;

/// Build a pattern from this rank's ghosts: ghost k lives at local index ghost_idx[k], has
/// global id ghost_gid[k] and is owned by rank ghost_owner[k] (!= this rank). Owners find
/// each requested id among their `nowned` owned entries (owned_gid[i] is the global id of
/// local index i). Collective on comm.
int BlastHaloCreate(MPI_Comm comm, int nghost, const int64_t *ghost_gid, const int *ghost_owner,
                    const int *ghost_idx, int nowned, const int64_t *owned_gid, BlastHalo *halo);
int BlastHaloDestroy(BlastHalo *halo);

/// Owned local indices whose values go to other ranks (grouped by neighbour, ascending
/// rank; an owned entry appears once per neighbour that holds it).
int BlastHaloSendCount(BlastHalo halo);
const int *BlastHaloSendIdx(BlastHalo halo);
/// Ghost local indices that receive those values (grouped by owner, ascending rank).
int BlastHaloRecvCount(BlastHalo halo);
const int *BlastHaloRecvIdx(BlastHalo halo);
/// Distinct ranks this rank exchanges with (either direction).
int BlastHaloNeighbors(BlastHalo halo);
/// Forward-direction messages: to each of the `nto` ranks `to_rank` goes the part
/// [to_off[k], to_off[k+1]) of the send list; from each of the `nfrom` ranks `from_rank`
/// comes the part [from_off[k], from_off[k+1]) of the receive list (ranks ascending).
void BlastHaloRoutes(BlastHalo halo, int *nto, const int **to_rank, const int **to_off, int *nfrom,
                     const int **from_rank, const int **from_off);

/// The send list grouped by target (for an unpack that adds each target's values in list
/// order): the distinct entries of idx[0..n) ascending in target[0..*ntarget), and for the
/// t-th of them the list positions holding it, ascending, in tpos[toff[t]..toff[t+1]).
/// Arrays of n + 1 (target, tpos) and n + 2 (toff) entries, filled here; O(n log n).
int BlastHaloGroupTargets(int n, const int *idx, int *ntarget, int *target, int *toff, int *tpos);

/// Forward (owners -> ghost holders): sendbuf[c*nsend + i] packed from the send list
/// arrives in recvbuf[c*nrecv + i] for the receive list. Begin posts the messages;
/// BlastHaloWait completes them. Buffers must stay valid until then.
int BlastHaloForwardBegin(BlastHalo halo, int ncomp, const double *sendbuf, double *recvbuf);
/// Reverse (ghost holders -> owners): ghostbuf[c*nrecv + i] packed from the receive list
/// arrives in ownerbuf[c*nsend + i] for the send list (the caller adds it).
int BlastHaloReverseBegin(BlastHalo halo, int ncomp, const double *ghostbuf, double *ownerbuf);
int BlastHaloWait(BlastHalo halo);

#endif  // BLAST_HALO_H
