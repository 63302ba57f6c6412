// The NCCL halo transport between ranks on distinct GPUs (halo_nccl.c).
#ifndef BLAST_HALO_NCCL_H
#define BLAST_HALO_NCCL_H

#include <stddef.h>

#include "hydro.h"

/// Choose NCCL for the halos ([gpu] halo_transport = auto or nccl, `mode`) when every
/// rank's backend has the transport and its library, no two ranks of a node share a GPU
/// and the communicator is made on every rank; else the host buffers (an input error for
/// nccl). Collective; called after BlastHydroPeerSetup left the host buffers; sets h->nccl
/// and h->shape.halo_transport.
int BlastHydroNcclSetup(BlastHydro h, int mode);
/// The halo transport of [gpu] halo_transport = `mode`, in auto's order: CUDA IPC
/// (BlastHydroPeerSetup), then NCCL, then the host buffers. Collective.
int BlastHydroTransportSetup(BlastHydro h, int mode);
/// One exchange through NCCL (halo.nccl_begin / nccl_end): Begin starts the messages of
/// halo `which`, End orders the unpack after them on the backend's stream (no host wait).
int BlastHydroNcclBegin(BlastHydro h, int which, int reverse, int ncomp, size_t stride,
                        const double *x);
int BlastHydroNcclEnd(BlastHydro h, int which, int reverse, int dd, int ncomp, size_t stride,
                      double *x);

#endif  // BLAST_HALO_NCCL_H
