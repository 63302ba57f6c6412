// The device-to-device halo transport between the ranks of one node (halo_peer.c).
#ifndef BLAST_HALO_PEER_H
#define BLAST_HALO_PEER_H

#include <stddef.h>

#include "hydro.h"

/// Choose the transport ([gpu] halo_transport = BlastHaloTransport `mode`): the device
/// path when every rank's backend exported its area, every neighbour is on the same node
/// and every area could be opened; else the host buffers (an input error for `device`).
/// Collective; sets h->peer (NULL: host buffers) and h->shape.halo_transport.
int BlastHydroPeerSetup(BlastHydro h, int mode);
void BlastHydroPeerDestroy(BlastHydro h);
/// 1 where the device transport lets the backend run the momentum solve resident across
/// the ranks (BlastHaloPeers.resident on every rank), the same on every rank; else 0.
int BlastHydroPeerResident(BlastHydro h);
/// The input error of a transport demanded where it cannot be had (name: the deck's value;
/// why: the reason, the same on every rank; fallback: what auto would use instead).
int BlastHydroTransportRefused(const char *name, const char *why, const char *fallback);
/// One exchange (the order of every rank's exchanges is the same): Begin starts writing
/// this rank's messages of halo `which` into its neighbours' areas; End waits for them,
/// exchanges the notices and unpacks (halo.peer_recv's dd and ncomp).
int BlastHydroPeerBegin(BlastHydro h, int which, int reverse, int ncomp, size_t stride,
                        const double *x);
int BlastHydroPeerEnd(BlastHydro h, int which, int reverse, int dd, int ncomp, size_t stride,
                      double *x);

#endif  // BLAST_HALO_PEER_H
