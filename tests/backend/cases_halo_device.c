// Cases of the device-to-device halo transports (halo.peer_*: CUDA IPC; halo.nccl_*:
// NCCL). One process has no neighbour: the cases route the synthetic halo lists of hdm
// through the context itself (its own IPC area; a one-rank NCCL communicator sending to
// itself), against the host path's unpack (RefHalo). Backends without a transport (the
// CPU backend) must decline it consistently.
#include <stdio.h>
#include <string.h>

#include "conformance.h"

// ---- halo.peer_* (the device-to-device transport) ----
// One process has no neighbour: the cases connect a context to its own area (a peer of
// the exporting process is used in place) and route the synthetic lists through it.
// A forward exchange writes the send list's pack into the receive layout (nrecv entries
// per component), a reverse one the receive list's pack into the send layout; when the
// lists differ in length, the routes repeat the source list (several routes, offsets and
// strides all exercised). The unpack is then the host path's, which RefHalo computes.
// Backends that decline (the CPU backend) must decline consistently.

// The area layout of the cases: each halo's part holds 2 dim components of its longer
// list (the largest a run sends: reverse double-double pairs).
static int64_t PeerLayout(const BlastHydroData *hd, int64_t base[2]) {
  int64_t half = 0;
  for (int w = 0; w < 2; w++) {
    const int ns = hd->halo[w].nsend, nr = hd->halo[w].nrecv;
    base[w] = half;
    half += 2 * (int64_t)hd->dim * (ns > nr ? ns : nr);
  }
  return half;
}

// Routes of halo `which`, direction rev: the source list (length S) repeated over the
// destination layout (length L), at most kMaxRoutes routes.
enum { kMaxRoutes = 64 };
static int PeerRoutes(const BlastHaloIndex *hi, int rev, int64_t base, BlastPeerRoute *r) {
  const int S = rev ? hi->nrecv : hi->nsend, L = rev ? hi->nsend : hi->nrecv;
  int n = 0;
  if (!S) return 0;
  for (int at = 0; at < L && n < kMaxRoutes; at += S, n++) {
    const int cnt = L - at < S ? L - at : S;
    r[n] = (BlastPeerRoute){0, 0, cnt, base + at, L};
  }
  return n;
}

static int PeerConnect(Env *E, Bk b, const BlastHydroData *hd, int which, int rev,
                       BlastPeerRoute *routes, int *ok) {
  int64_t base[2];
  const int64_t half = PeerLayout(hd, base);
  unsigned char blob[BLAST_PEER_BLOB];
  CK(E, b.o->halo.peer_export(b.ctx, (size_t)half, blob, ok));
  if (!*ok) return 0;
  BlastHaloPeers hp = {.npeer = 1, .blobs = blob, .half = &half, .base = {base[0], base[1]}};
  const int n = PeerRoutes(&hd->halo[which], rev, base[which], routes);
  hp.nroute[which][rev] = n, hp.route[which][rev] = routes;
  CK(E, b.o->halo.peer_import(b.ctx, &hp, ok));
  return n;
}

static void PeerRelease(Env *E, Bk b) {
  int ok;
  CK(E, b.o->halo.peer_import(b.ctx, NULL, &ok));
}

// export and import: the CUDA backend offers the transport and reaches its own area; the
// CPU backend declines both.
static void PeerOffer(Env *E, int import) {
  for (int p = 0; p < E->np; p++) {
    const Data D = DataOf(E, p, 1);
    BlastPeerRoute routes[kMaxRoutes];
    int ok = -1;
    if (import) {
      PeerConnect(E, D.dev, D.hd, BLAST_HALO_COL, 0, routes, &ok);
    } else {
      int64_t base[2];
      unsigned char blob[BLAST_PEER_BLOB];
      CK(E, D.dev.o->halo.peer_export(D.dev.ctx, (size_t)PeerLayout(D.hd, base), blob, &ok));
    }
    PeerRelease(E, D.dev);
    char what[160], det[64];
    snprintf(what, sizeof what, "%s %s", D.label, import ? "import of its own area" : "export");
    const int expect = E->B != &blast_backend_cpu;  // the CPU backend declines
    snprintf(det, sizeof det, "ok = %d (expected %d)", ok, expect);
    ReportOk(E, what, ok == expect, det);
  }
}

void CaseHaloPeerExport(Env *E) {
  PeerOffer(E, 0);
}
void CaseHaloPeerImport(Env *E) {
  PeerOffer(E, 1);
}

// One round trip of halo `which` in mode 0 (forward), 1 (reverse) or 2 (reverse
// double-double): x and y (ncs components `stride` apart; dd: low parts below the rounded
// values' last bit), and `area`, what the transport must deliver: the source list's pack
// repeated over the destination layout (ncs components of L entries).
typedef struct {
  const BlastHaloIndex *hi;
  int rev, dd, nc, ncs, S, L;
  size_t stride, nx;
  double *x, *y, *area;
  char what[160];
} Trip;

// The sizes and label of a trip (tag: "" or " parity 1"), without its arrays.
static Trip TripOf(const Data *D, int which, int mode, const char *tag) {
  Trip t;
  memset(&t, 0, sizeof t);
  t.hi = &D->hd->halo[which];
  t.rev = mode > 0, t.dd = mode == 2, t.nc = D->hd->dim, t.ncs = t.dd ? 2 * t.nc : t.nc;
  t.S = t.rev ? t.hi->nrecv : t.hi->nsend, t.L = t.rev ? t.hi->nsend : t.hi->nrecv;
  t.stride = StrideOf(D->hd, which), t.nx = (size_t)t.ncs * t.stride;
  snprintf(t.what, sizeof t.what, "%s %s %s%s (%d -> %d entries)", D->label,
           which == BLAST_HALO_L ? "L" : "COL",
           t.dd    ? "reverse dd"
           : t.rev ? "reverse"
                   : "forward",
           tag, t.S, t.L);
  return t;
}

// The trip's inputs from the seed.
static void TripFill(Trip *t, unsigned long long seed) {
  const int *src = t->rev ? t->hi->recv_idx : t->hi->send_idx;
  const size_t st = t->stride;
  t->x = HostNew(t->nx), t->y = HostNew(t->nx), t->area = HostNew((size_t)t->ncs * t->L + 1);
  Rng r = RngSeed(seed);
  FillMixed(&r, t->x, t->nx), FillMixed(&r, t->y, t->nx);
  if (t->dd)
    for (int c = t->nc; c < 2 * t->nc; c++)
      for (size_t i = 0; i < st; i++) {
        t->x[c * st + i] = t->x[(c - t->nc) * st + i] * 0x1p-54 * RandU(&r);
        t->y[c * st + i] = t->y[(c - t->nc) * st + i] * 0x1p-54 * RandU(&r);
      }
  for (int c = 0; c < t->ncs; c++)
    for (int j = 0; j < t->L; j++) t->area[(size_t)c * t->L + j] = t->x[c * st + src[j % t->S]];
}

// dy (the unpack's result on the backend) against the host path's unpack of area into y;
// releases the trip's arrays.
static void TripCheck(Env *E, Bk b, Trip *t, const double *dy) {
  double *out = HostNew(t->nx), *ref = HostNew(t->nx);
  Down(E, b, t->nx, dy, out);
  RefHalo(t->hi, t->dd ? H_UNPACK_DD : H_UNPACK, t->rev, t->nc, t->stride, t->nx, 0, t->y, t->area,
          ref);
  Report(E, t->what, CompareBits(out, ref, t->nx));
  HostFree(&t->x), HostFree(&t->y), HostFree(&t->area), HostFree(&out), HostFree(&ref);
}

// send then recv through the context's own area, against RefHalo on the packed area.
static void PeerRoundTrip(Env *E) {
  for (int p = 0; p < E->np; p++)
    for (int which = 0; which < 2; which++)
      for (int mode = 0; mode < 3; mode++)  // forward, reverse, reverse double-double
        for (int parity = 0; parity < 2; parity++) {
          const Data D = DataOf(E, p, 1);
          Trip t = TripOf(&D, which, mode, parity ? " parity 1" : " parity 0");
          BlastPeerRoute routes[kMaxRoutes];
          int ok = 0;
          const int nr = PeerConnect(E, D.dev, D.hd, which, t.rev, routes, &ok);
          if (!ok) {  // a backend without the transport refuses to send or receive
            const int es =
                D.dev.o->halo.peer_send(D.dev.ctx, which, t.rev, t.ncs, t.stride, NULL, parity);
            const int et = D.dev.o->halo.peer_sent(D.dev.ctx);
            const int er = D.dev.o->halo.peer_recv(D.dev.ctx, which, t.rev, t.dd, t.nc, t.stride,
                                                   parity, NULL);
            BlastErrorClear();
            ReportOk(E, t.what,
                     E->B == &blast_backend_cpu && es == BLAST_ERR_UNSUPPORTED &&
                         et == BLAST_ERR_UNSUPPORTED && er == BLAST_ERR_UNSUPPORTED,
                     "declined: send and recv refuse");
            continue;
          }
          if (!t.S || (size_t)nr * t.S < (size_t)t.L) {
            PeerRelease(E, D.dev);
            continue;
          }
          TripFill(&t, 900 + 8 * (unsigned long long)p + 4 * which + 2 * mode + parity);
          double *dx = Up(E, D.dev, t.nx, t.x), *dy = Up(E, D.dev, t.nx, t.y);
          CK(E, D.dev.o->halo.peer_send(D.dev.ctx, which, t.rev, t.ncs, t.stride, dx, parity));
          CK(E, D.dev.o->halo.peer_sent(D.dev.ctx));
          CK(E, D.dev.o->halo.peer_recv(D.dev.ctx, which, t.rev, t.dd, t.nc, t.stride, parity, dy));
          TripCheck(E, D.dev, &t, dy);
          Drop(E, D.dev, &dx), Drop(E, D.dev, &dy);
          PeerRelease(E, D.dev);
        }
}

void CaseHaloPeerSend(Env *E) {
  PeerRoundTrip(E);
}
void CaseHaloPeerSent(Env *E) {
  PeerRoundTrip(E);
}
void CaseHaloPeerRecv(Env *E) {
  PeerRoundTrip(E);
}

// ---- halo.nccl_* (the NCCL transport) ----
// A one-rank communicator whose messages go to the rank itself: each halo and direction
// routes the source list (length S) repeated over the destination layout (length L), as
// PeerRoutes does, one message per repetition (NCCL pairs a rank's sends and receives to
// one peer in issue order).

// The messages of halo `which`, direction rev, into send and recv (kMaxRoutes each).
static int NcclRoutes(const BlastHaloIndex *hi, int rev, BlastNcclMsg *send, BlastNcclMsg *recv) {
  const int S = rev ? hi->nrecv : hi->nsend, L = rev ? hi->nsend : hi->nrecv;
  int n = 0;
  if (!S) return 0;
  for (int at = 0; at < L && n < kMaxRoutes; at += S, n++) {
    const int cnt = L - at < S ? L - at : S;
    send[n] = (BlastNcclMsg){0, 0, cnt}, recv[n] = (BlastNcclMsg){0, at, cnt};
  }
  return n;
}

// probe, then (ok) the communicator of every halo's messages: *ok as the backend says.
static void NcclConnect(Env *E, Bk b, const BlastHydroData *hd, char *bus, int *ok,
                        BlastNcclMsg send[2][2][kMaxRoutes], BlastNcclMsg recv[2][2][kMaxRoutes]) {
  BlastHaloNccl p;
  memset(&p, 0, sizeof p);
  memset(bus, 0, BLAST_NCCL_BUS);
  CK(E, b.o->halo.nccl_probe(b.ctx, p.id, bus, ok));
  if (!*ok) return;
  p.nranks = 1, p.rank = 0;
  for (int w = 0; w < 2; w++)
    for (int r = 0; r < 2; r++) {
      p.nsend[w][r] = p.nrecv[w][r] = NcclRoutes(&hd->halo[w], r, send[w][r], recv[w][r]);
      p.send[w][r] = send[w][r], p.recv[w][r] = recv[w][r];
    }
  CK(E, b.o->halo.nccl_init(b.ctx, &p, ok));
}

static void NcclRelease(Env *E, Bk b) {
  int ok;
  CK(E, b.o->halo.nccl_init(b.ctx, NULL, &ok));
}

// probe and init: the CPU backend declines both; a backend that offers the transport
// names its device and joins a one-rank communicator.
static void NcclOffer(Env *E, int init) {
  static BlastNcclMsg send[2][2][kMaxRoutes], recv[2][2][kMaxRoutes];
  for (int p = 0; p < E->np; p++) {
    const Data D = DataOf(E, p, 1);
    char bus[BLAST_NCCL_BUS], what[160], det[160];
    int ok = -1;
    if (init) {
      NcclConnect(E, D.dev, D.hd, bus, &ok, send, recv);
    } else {
      memset(bus, 0, sizeof bus);
      CK(E, D.dev.o->halo.nccl_probe(D.dev.ctx, NULL, bus, &ok));
    }
    NcclRelease(E, D.dev);
    snprintf(what, sizeof what, "%s %s", D.label, init ? "one-rank communicator" : "probe");
    if (E->B == &blast_backend_cpu) {
      snprintf(det, sizeof det, "ok = %d (expected 0: declined)", ok);
      ReportOk(E, what, ok == 0, det);
    } else {
      bus[BLAST_NCCL_BUS - 1] = '\0';
      snprintf(det, sizeof det, "ok = %d%s%s", ok, ok ? ", device " : " (no libnccl.so.2)",
               ok ? bus : "");
      ReportOk(E, what, ok == 0 || (ok == 1 && bus[0]), det);
    }
  }
}

void CaseHaloNcclProbe(Env *E) {
  NcclOffer(E, 0);
}
void CaseHaloNcclInit(Env *E) {
  NcclOffer(E, 1);
}

// begin then end through the one-rank communicator, against RefHalo on the packed layout.
static void NcclRoundTrip(Env *E) {
  static BlastNcclMsg send[2][2][kMaxRoutes], recv[2][2][kMaxRoutes];
  for (int p = 0; p < E->np; p++) {
    const Data D = DataOf(E, p, 1);
    char bus[BLAST_NCCL_BUS];
    int ok = 0;
    NcclConnect(E, D.dev, D.hd, bus, &ok, send, recv);
    for (int which = 0; which < 2; which++)
      for (int mode = 0; mode < 3; mode++) {  // forward, reverse, reverse double-double
        Trip t = TripOf(&D, which, mode, "");
        if (!ok) {  // a backend without the transport refuses to send or receive
          const int eb = D.dev.o->halo.nccl_begin(D.dev.ctx, which, t.rev, t.ncs, t.stride, NULL);
          const int ee =
              D.dev.o->halo.nccl_end(D.dev.ctx, which, t.rev, t.dd, t.nc, t.stride, NULL);
          BlastErrorClear();
          ReportOk(E, t.what,
                   eb != 0 && ee != 0 &&
                       (E->B != &blast_backend_cpu ||
                        (eb == BLAST_ERR_UNSUPPORTED && ee == BLAST_ERR_UNSUPPORTED)),
                   "declined: begin and end refuse");
          continue;
        }
        if (!t.S || (size_t)kMaxRoutes * t.S < (size_t)t.L) continue;
        TripFill(&t, 950 + 8 * (unsigned long long)p + 4 * which + mode);
        double *dx = Up(E, D.dev, t.nx, t.x), *dy = Up(E, D.dev, t.nx, t.y);
        CK(E, D.dev.o->halo.nccl_begin(D.dev.ctx, which, t.rev, t.ncs, t.stride, dx));
        CK(E, D.dev.o->halo.nccl_end(D.dev.ctx, which, t.rev, t.dd, t.nc, t.stride, dy));
        TripCheck(E, D.dev, &t, dy);
        Drop(E, D.dev, &dx), Drop(E, D.dev, &dy);
      }
    NcclRelease(E, D.dev);
  }
}

void CaseHaloNcclBegin(Env *E) {
  NcclRoundTrip(E);
}
void CaseHaloNcclEnd(Env *E) {
  NcclRoundTrip(E);
}
