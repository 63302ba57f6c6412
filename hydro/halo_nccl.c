// The NCCL halo transport ([gpu] halo_transport = nccl, or auto where CUDA IPC is not
// possible): each rank's backend packs its messages on its device, NCCL moves them from
// device memory to device memory (NVLink, PCIe or the network, within a node or across
// nodes) and the unpack follows on the backend's stream, so neither the host nor MPI is
// on the path of an exchange. The messages carry the same entries in the same layout as
// the host buffers' (halo.pack / halo.unpack): the same bits on every transport.
//
// NCCL refuses two ranks on one GPU: ranks sharing a device keep CUDA IPC or the host
// buffers.
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "halo_nccl.h"
#include "halo_peer.h"
#include "hydro_setup.h"

// The messages of halo w, direction rev, of this rank: send (the pack of its list, in
// that list's layout) and recv (in the unpack's layout), per neighbour in the order of
// the host path (partition/halo.c), so that each pair of ranks lists them alike.
static int Messages(BlastHydro h, int w, int rev, BlastNcclMsg **send, int *nsend,
                    BlastNcclMsg **recv, int *nrecv) {
  int nto, nfrom;
  const int *tr, *to, *fr, *fo;
  BlastHaloRoutes(h->halo[w], &nto, &tr, &to, &nfrom, &fr, &fo);
  const int ns = rev ? nfrom : nto, nr = rev ? nto : nfrom;
  const int *sr = rev ? fr : tr, *so = rev ? fo : to, *rr = rev ? tr : fr, *ro = rev ? to : fo;
  BlastCall(BlastMalloc(ns + 1, send));
  BlastCall(BlastMalloc(nr + 1, recv));
  for (int k = 0; k < ns; k++) (*send)[k] = (BlastNcclMsg){sr[k], so[k], so[k + 1] - so[k]};
  for (int k = 0; k < nr; k++) (*recv)[k] = (BlastNcclMsg){rr[k], ro[k], ro[k + 1] - ro[k]};
  *nsend = ns, *nrecv = nr;
  return 0;
}

// 1 on every rank when no two ranks of a node report the same device (bus).
static int DistinctDevices(BlastHydro h, const char *bus, int *distinct) {
  MPI_Comm node;
  int size, mine = 1;
  char *all;
  BlastCallMPI(MPI_Comm_split_type(h->comm, MPI_COMM_TYPE_SHARED, h->rank, MPI_INFO_NULL, &node));
  BlastCallMPI(MPI_Comm_size(node, &size));
  int ierr = BlastMalloc((size_t)size * BLAST_NCCL_BUS, &all);
  if (!ierr) {
    ierr = MPI_Allgather(bus, BLAST_NCCL_BUS, MPI_CHAR, all, BLAST_NCCL_BUS, MPI_CHAR, node);
    for (int i = 0; i < size && !ierr; i++)
      for (int j = i + 1; j < size; j++)
        if (!strncmp(all + (size_t)i * BLAST_NCCL_BUS, all + (size_t)j * BLAST_NCCL_BUS,
                     BLAST_NCCL_BUS))
          mine = 0;
    BlastFree(&all);
  }
  BlastCallMPI(MPI_Comm_free(&node));
  BlastCallMPI(ierr);
  BlastCallMPI(MPI_Allreduce(&mine, distinct, 1, MPI_INT, MPI_MIN, h->comm));
  return 0;
}

// Every rank's messages to the backend and the communicator made: *ok = 1 on every rank
// or on none (then nothing is kept).
static int Connect(BlastHydro h, const unsigned char *id, int *ok) {
  BlastHaloNccl p;
  memset(&p, 0, sizeof p);
  memcpy(p.id, id, BLAST_NCCL_ID);
  p.nranks = h->nranks, p.rank = h->rank;
  BlastNcclMsg *send[2][2] = {{NULL, NULL}, {NULL, NULL}},
               *recv[2][2] = {{NULL, NULL}, {NULL, NULL}};
  int ierr = 0, mine = 0, dropped;
  for (int w = 0; w < 2 && !ierr; w++)
    for (int r = 0; r < 2 && !ierr; r++) {
      ierr = Messages(h, w, r, &send[w][r], &p.nsend[w][r], &recv[w][r], &p.nrecv[w][r]);
      p.send[w][r] = send[w][r], p.recv[w][r] = recv[w][r];
    }
  if (!ierr) ierr = h->ops->halo.nccl_init(h->bctx, &p, &mine);
  for (int w = 0; w < 2; w++)
    for (int r = 0; r < 2; r++) BlastFree(&send[w][r]), BlastFree(&recv[w][r]);
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  BlastCallMPI(MPI_Allreduce(&mine, ok, 1, MPI_INT, MPI_MIN, h->comm));
  if (!*ok && mine) BlastCall(h->ops->halo.nccl_init(h->bctx, NULL, &dropped));
  return 0;
}

int BlastHydroNcclSetup(BlastHydro h, int mode) {
  h->nccl = 0;
  if (h->nranks == 1 || (mode != BLAST_HALO_TRANSPORT_AUTO && mode != BLAST_HALO_TRANSPORT_NCCL))
    return 0;
  unsigned char id[BLAST_NCCL_ID];
  char bus[BLAST_NCCL_BUS];
  memset(id, 0, sizeof id), memset(bus, 0, sizeof bus);
  int probed = 0, all = 0;
  int ierr = h->ops->halo.nccl_probe(h->bctx, h->rank == 0 ? id : NULL, bus, &probed);
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  BlastCallMPI(MPI_Allreduce(&probed, &all, 1, MPI_INT, MPI_MIN, h->comm));
  const char *why =
      "some rank's backend has no NCCL transport (the CPU backend) or cannot load "
      "libnccl.so.2 (set BLAST_NCCL_LIBRARY to its path)";
  if (all) {
    BlastCall(DistinctDevices(h, bus, &all));
    why = "ranks of one node share a GPU, which NCCL refuses (use device or host)";
  }
  if (all) {
    BlastCallMPI(MPI_Bcast(id, BLAST_NCCL_ID, MPI_BYTE, 0, h->comm));
    BlastCall(Connect(h, id, &all));
    why = "NCCL could not make the communicator of the ranks' GPUs";
  }
  if (!all) {
    if (mode == BLAST_HALO_TRANSPORT_NCCL)
      return BlastHydroTransportRefused("nccl", why, "CUDA IPC or the host buffers");
    return 0;
  }
  h->nccl = 1;
  h->shape.halo_transport = BLAST_HALO_TRANSPORT_NCCL;
  return 0;
}

int BlastHydroTransportSetup(BlastHydro h, int mode) {
  BlastCall(BlastHydroPeerSetup(h, mode));
  if (h->peer) return 0;
  return BlastHydroNcclSetup(h, mode);
}

int BlastHydroNcclBegin(BlastHydro h, int which, int reverse, int ncomp, size_t stride,
                        const double *x) {
  return h->ops->halo.nccl_begin(h->bctx, which, reverse, ncomp, stride, x);
}

int BlastHydroNcclEnd(BlastHydro h, int which, int reverse, int dd, int ncomp, size_t stride,
                      double *x) {
  return h->ops->halo.nccl_end(h->bctx, which, reverse, dd, ncomp, stride, x);
}
