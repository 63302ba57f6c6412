// The mesh read on rank 0 and sent to every rank (meshdist.h).
#include "meshdist.h"

#include <stdio.h>
#include <string.h>

#include "blast_mpi.h"
#include "meshio.h"

// Pieces of at most this many elements per MPI call (counts are int).
enum { kChunk = 1 << 30 };

static int BcastChunks(MPI_Comm comm, int root, void *buf, size_t count, MPI_Datatype type,
                       size_t elem) {
  char *p = buf;
  for (size_t off = 0; off < count; off += (size_t)kChunk) {
    const size_t n = count - off < (size_t)kChunk ? count - off : (size_t)kChunk;
    BlastCallMPI(MPI_Bcast(p + off * elem, (int)n, type, root, comm));
  }
  return 0;
}

// Header of a mesh: the sizes and which optional arrays it has.
enum {
  kDim,
  kNverts,
  kNzones,
  kNbdr,
  kZoneGeom,
  kZoneAttr,
  kBdrGeom,
  kBdrAttr,
  kCurveOrder,
  kNnodes,
  kNnames,
  kHeader
};

// The arrays of a mesh (receivers: allocated by Alloc).
typedef struct {
  double *coords, *node_coords;
  int *zone_verts, *zone_attr, *bdr_verts, *bdr_attr, *zone_nodes;
  unsigned char *zone_geom, *bdr_geom;
  BlastMeshName *names;
} Arrays;

static size_t NodesPerZone(const long long *h) {
  size_t per = 1;
  for (int g = 0; g < h[kDim]; g++) per *= (size_t)(h[kCurveOrder] + 1);
  return h[kCurveOrder] > 1 ? per : 0;
}

static int Alloc(const long long *h, Arrays *a) {
  const size_t dim = (size_t)h[kDim], nz = (size_t)h[kNzones], nb = (size_t)h[kNbdr];
  BlastCall(BlastMalloc((size_t)h[kNverts] * dim + 1, &a->coords));
  BlastCall(BlastMalloc(nz * ((size_t)1 << dim) + 1, &a->zone_verts));
  if (h[kZoneGeom]) BlastCall(BlastMalloc(nz + 1, &a->zone_geom));
  if (h[kZoneAttr]) BlastCall(BlastMalloc(nz + 1, &a->zone_attr));
  BlastCall(BlastMalloc(nb * ((size_t)1 << (dim - 1)) + 1, &a->bdr_verts));
  if (h[kBdrGeom]) BlastCall(BlastMalloc(nb + 1, &a->bdr_geom));
  if (h[kBdrAttr]) BlastCall(BlastMalloc(nb + 1, &a->bdr_attr));
  if (NodesPerZone(h)) {
    BlastCall(BlastMalloc((size_t)h[kNnodes] * dim + 1, &a->node_coords));
    BlastCall(BlastMalloc(nz * NodesPerZone(h) + 1, &a->zone_nodes));
  }
  if (h[kNnames]) BlastCall(BlastMalloc((size_t)h[kNnames], &a->names));
  return 0;
}

static void FreeArrays(Arrays *a) {
  BlastFree(&a->coords);
  BlastFree(&a->node_coords);
  BlastFree(&a->zone_verts);
  BlastFree(&a->zone_attr);
  BlastFree(&a->bdr_verts);
  BlastFree(&a->bdr_attr);
  BlastFree(&a->zone_nodes);
  BlastFree(&a->zone_geom);
  BlastFree(&a->bdr_geom);
  BlastFree(&a->names);
}

// Send (root: from d's arrays) or receive (into a's) every array the header lists.
static int Arrays_Bcast(MPI_Comm comm, int root, const long long *h, int me, const BlastMeshDesc *d,
                        Arrays *a) {
  const size_t dim = (size_t)h[kDim], nz = (size_t)h[kNzones], nb = (size_t)h[kNbdr];
#define BUF(field) (me ? (void *)d->field : (void *)a->field)
  BlastCall(
      BcastChunks(comm, root, BUF(coords), (size_t)h[kNverts] * dim, MPI_DOUBLE, sizeof(double)));
  BlastCall(BcastChunks(comm, root, BUF(zone_verts), nz << dim, MPI_INT, sizeof(int)));
  if (h[kZoneGeom]) BlastCall(BcastChunks(comm, root, BUF(zone_geom), nz, MPI_UNSIGNED_CHAR, 1));
  if (h[kZoneAttr]) BlastCall(BcastChunks(comm, root, BUF(zone_attr), nz, MPI_INT, sizeof(int)));
  BlastCall(BcastChunks(comm, root, BUF(bdr_verts), nb << (dim - 1), MPI_INT, sizeof(int)));
  if (h[kBdrGeom]) BlastCall(BcastChunks(comm, root, BUF(bdr_geom), nb, MPI_UNSIGNED_CHAR, 1));
  if (h[kBdrAttr]) BlastCall(BcastChunks(comm, root, BUF(bdr_attr), nb, MPI_INT, sizeof(int)));
  if (NodesPerZone(h)) {
    BlastCall(BcastChunks(comm, root, BUF(node_coords), (size_t)h[kNnodes] * dim, MPI_DOUBLE,
                          sizeof(double)));
    BlastCall(BcastChunks(comm, root, BUF(zone_nodes), nz * NodesPerZone(h), MPI_INT, sizeof(int)));
  }
  if (h[kNnames])
    BlastCall(BcastChunks(comm, root, BUF(names), (size_t)h[kNnames] * sizeof(BlastMeshName),
                          MPI_BYTE, 1));
#undef BUF
  return 0;
}

int BlastMeshBcast(MPI_Comm comm, int root, BlastMesh *mesh) {
  BlastCheck(mesh, BLAST_ERR_ARG, "mesh must not be NULL");
  int rank = 0;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  const int me = rank == root;
  BlastCallAgree(comm, 0,
                 me ? (*mesh ? 0
                             : BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_ARG,
                                               "the root rank has no mesh to send"))
                    : (*mesh ? BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_ARG,
                                               "a receiving rank already has a mesh")
                             : 0));
  BlastMeshDesc d;
  memset(&d, 0, sizeof d);
  long long h[kHeader] = {0};
  if (me) {
    BlastMeshDescribe(*mesh, &d);
    h[kDim] = d.dim, h[kNverts] = d.nverts, h[kNzones] = d.nzones, h[kNbdr] = d.nbdr;
    h[kZoneGeom] = d.zone_geom != NULL, h[kZoneAttr] = d.zone_attr != NULL;
    h[kBdrGeom] = d.bdr_geom != NULL, h[kBdrAttr] = d.bdr_attr != NULL;
    h[kCurveOrder] = d.curve_order, h[kNnodes] = d.nnodes, h[kNnames] = d.nnames;
    if (d.curve_order > 1 && (!d.node_coords || !d.zone_nodes)) h[kCurveOrder] = 1;
  }
  BlastCallMPI(MPI_Bcast(h, kHeader, MPI_LONG_LONG, root, comm));
  Arrays a;
  memset(&a, 0, sizeof a);
  int ierr = me ? 0 : Alloc(h, &a);
  BlastCallAgree(comm, 0, ierr);
  ierr = Arrays_Bcast(comm, root, h, me, &d, &a);
  if (!ierr && !me) {
    const BlastMeshDesc r = {.dim = (int)h[kDim],
                             .nverts = (int)h[kNverts],
                             .nzones = (int)h[kNzones],
                             .nbdr = (int)h[kNbdr],
                             .coords = a.coords,
                             .zone_verts = a.zone_verts,
                             .zone_geom = a.zone_geom,
                             .zone_attr = a.zone_attr,
                             .bdr_verts = a.bdr_verts,
                             .bdr_geom = a.bdr_geom,
                             .bdr_attr = a.bdr_attr,
                             .curve_order = (int)h[kCurveOrder],
                             .nnodes = (int)h[kNnodes],
                             .node_coords = a.node_coords,
                             .zone_nodes = a.zone_nodes,
                             .nnames = (int)h[kNnames],
                             .names = a.names};
    ierr = BlastMeshCreateFrom(&r, mesh);
  }
  FreeArrays(&a);
  BlastCallAgree(comm, 0, ierr);
  return 0;
}

int BlastMeshReadShared(MPI_Comm comm, const char *path, BlastMesh *mesh) {
  BlastCheck(path && mesh, BLAST_ERR_ARG, "path and mesh must not be NULL");
  int rank = 0;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  *mesh = NULL;
  // Rank 0's status and message, so that every rank raises the same error.
  int st[2] = {0, 0};
  enum { kMsg = 2048 };
  char msg[kMsg] = "";
  if (!rank) {
    st[0] = BlastMeshRead(path, mesh);
    if (st[0]) {
      snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
      st[1] = (int)strlen(msg) + 1;
    }
  }
  BlastCallMPI(MPI_Bcast(st, 2, MPI_INT, 0, comm));
  if (st[0]) {
    BlastCallMPI(MPI_Bcast(msg, st[1], MPI_CHAR, 0, comm));
    msg[kMsg - 1] = '\0';
    int ierr = st[0];
    if (rank) ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, st[0], "%s", msg);
    BlastCallAgree(comm, 1, ierr);
  }
  const int ierr = BlastMeshBcast(comm, 0, mesh);
  if (ierr) BlastMeshDestroy(mesh);
  BlastCall(ierr);
  return 0;
}
