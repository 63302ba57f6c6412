// H1 and L2 spaces on a rank's zones (see space.h).
#include "space.h"

#include <stdlib.h>
#include <string.h>

#include "mesh-impl.h"

typedef struct {
  int64_t gid;
  int eidx;
} GidEntry;

static int CompareGidEntry(const void *pa, const void *pb) {
  const GidEntry *a = pa, *b = pb;
  if (a->gid != b->gid) return a->gid < b->gid ? -1 : 1;
  return (a->eidx > b->eidx) - (a->eidx < b->eidx);
}

static int CompareInt2(const void *pa, const void *pb) {
  const int *a = pa, *b = pb;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

static int IPow(int b, int e) {
  int r = 1;
  while (e-- > 0) r *= b;
  return r;
}

// Lattice coordinate (order K = N k) of node a of zone z in its mesh zone.
static void NodeLattice(const BlastSpace *s, int z, int a, int *i) {
  const int n = s->k + 1;
  int child = s->zone_child[z];
  for (int g = 0; g < s->dim; g++) {
    int ag = a % n, cg = child % s->N;
    a /= n, child /= s->N;
    i[g] = cg * s->k + ag;
  }
}

int BlastSpaceCreate(BlastMesh mesh, const BlastTopology *topo, int k, int m, int rp, int nz,
                     const int *zones, BlastSpace **space) {
  BlastCheck(k >= 1 && k <= BLAST_MAX_ORDER, BLAST_ERR_INPUT, "kinematic order %d outside 1..%d",
             k, BLAST_MAX_ORDER);
  BlastCheck(m >= 0 && m < BLAST_MAX_ORDER, BLAST_ERR_INPUT,
             "thermodynamic order %d outside 0..%d", m, BLAST_MAX_ORDER - 1);
  BlastCheck(rp >= 0 && rp <= 12, BLAST_ERR_INPUT, "parallel refinement %d outside 0..12", rp);
  BlastSpace *s;
  BlastCall(BlastCalloc(1, &s));
  s->dim = mesh->dim, s->k = k, s->m = m, s->rp = rp, s->N = 1 << rp;
  s->mesh = mesh, s->topo = topo;
  const int dim = s->dim, nchild = IPow(s->N, dim);
  s->h1_nd = IPow(k + 1, dim), s->l2_nd = IPow(m + 1, dim);
  BlastCall(BlastGaussLobatto(k + 1, s->gll, NULL));
  // Zones: every child of every listed mesh zone, in order.
  const int nmacro = zones ? nz : mesh->nzones;
  BlastCheck((int64_t)nmacro * nchild < INT32_MAX, BLAST_ERR_INPUT,
             "%d zones refined %d times exceed 2^31 zones on one rank", nmacro, rp);
  s->nz = nmacro * nchild;
  s->nz_global = (int64_t)mesh->nzones * nchild;
  BlastCall(BlastMalloc(s->nz, &s->zone_macro));
  BlastCall(BlastMalloc(s->nz, &s->zone_child));
  BlastCall(BlastMalloc(s->nz, &s->zone_gid));
  for (int iz = 0; iz < nmacro; iz++) {
    int mz = zones ? zones[iz] : iz;
    BlastCheck(mz >= 0 && mz < mesh->nzones, BLAST_ERR_ARG, "zone %d out of range", mz);
    for (int c = 0; c < nchild; c++) {
      int z = iz * nchild + c;
      s->zone_macro[z] = mz, s->zone_child[z] = c;
      s->zone_gid[z] = (int64_t)mz * nchild + c;
    }
  }
  // Global ids of every zone node, then local numbering by first appearance.
  const int K = s->N * k, nd = s->h1_nd;
  const size_t ne = (size_t)s->nz * nd;
  GidEntry *ent;
  BlastCall(BlastMalloc(ne, &ent));
  for (int z = 0; z < s->nz; z++)
    for (int a = 0; a < nd; a++) {
      int i[3];
      NodeLattice(s, z, a, i);
      ent[(size_t)z * nd + a].gid = BlastLatticeId(topo, mesh->zone_verts, s->zone_macro[z], K, i);
      ent[(size_t)z * nd + a].eidx = z * nd + a;
    }
  qsort(ent, ne, sizeof *ent, CompareGidEntry);
  // Groups of equal gid: first appearance = smallest E-index (the group's first entry).
  int ngroups = 0;
  for (size_t i = 0; i < ne; i++)
    if (i == 0 || ent[i].gid != ent[i - 1].gid) ngroups++;
  int (*first)[2];  // (first E-index, group start in ent)
  BlastCall(BlastMalloc(ngroups, &first));
  for (size_t i = 0, g = 0; i < ne; i++)
    if (i == 0 || ent[i].gid != ent[i - 1].gid) first[g][0] = ent[i].eidx, first[g][1] = (int)i, g++;
  qsort(first, ngroups, sizeof *first, CompareInt2);
  s->h1_nl = s->h1_nown = ngroups;
  s->h1_nglobal = BlastLatticeSize(topo, K);
  BlastCall(BlastMalloc(ne, &s->h1_edof));
  BlastCall(BlastMalloc(ngroups, &s->h1_gid));
  BlastCall(BlastMalloc(ngroups + 1, &s->h1_toff));
  BlastCall(BlastMalloc(ne, &s->h1_tidx));
  s->h1_toff[0] = 0;
  for (int l = 0; l < ngroups; l++) {
    size_t i = (size_t)first[l][1];
    s->h1_gid[l] = ent[i].gid;
    int cnt = 0;
    for (size_t j = i; j < ne && ent[j].gid == ent[i].gid; j++) {
      s->h1_edof[ent[j].eidx] = l;
      s->h1_tidx[s->h1_toff[l] + cnt++] = ent[j].eidx;  // ascending: ent sorted by eidx
    }
    s->h1_toff[l + 1] = s->h1_toff[l] + cnt;
  }
  BlastFree(&first);
  BlastFree(&ent);
  *space = s;
  return 0;
}

void BlastSpaceDestroy(BlastSpace **space) {
  if (!space || !*space) return;
  BlastSpace *s = *space;
  BlastFree(&s->zone_macro);
  BlastFree(&s->zone_child);
  BlastFree(&s->zone_gid);
  BlastFree(&s->h1_edof);
  BlastFree(&s->h1_gid);
  BlastFree(&s->h1_toff);
  BlastFree(&s->h1_tidx);
  BlastFree(space);
}

void BlastSpaceZoneRefToMacro(const BlastSpace *s, int z, const double *xi, double *xi_macro) {
  int child = s->zone_child[z];
  for (int g = 0; g < s->dim; g++) {
    int cg = child % s->N;
    child /= s->N;
    xi_macro[g] = s->N == 1 ? xi[g] : (cg + xi[g]) / s->N;
  }
}

void BlastSpaceNodeRef(const BlastSpace *s, int z, int a, double *xi) {
  const int n = s->k + 1;
  double local[3];
  for (int g = 0; g < s->dim; g++, a /= n) local[g] = s->gll[a % n];
  BlastSpaceZoneRefToMacro(s, z, local, xi);
}

void BlastSpaceZoneCorner(const BlastSpace *s, int z, int corner, double *x) {
  double xi[3], xm[3];
  for (int g = 0; g < s->dim; g++) xi[g] = (corner >> g) & 1;
  BlastSpaceZoneRefToMacro(s, z, xi, xm);
  BlastMeshZoneMap(s->mesh, s->zone_macro[z], xm, x);
}

void BlastSpaceInitialPositions(const BlastSpace *s, double *x) {
  const int dim = s->dim, nd = s->h1_nd, nl = s->h1_nl;
  // Each dof is written by the last zone that visits it (as the reference does).
  for (int z = 0; z < s->nz; z++)
    for (int a = 0; a < nd; a++) {
      double xi[3], X[3];
      BlastSpaceNodeRef(s, z, a, xi);
      BlastMeshZoneMap(s->mesh, s->zone_macro[z], xi, X);
      int l = s->h1_edof[(size_t)z * nd + a];
      for (int c = 0; c < dim; c++) x[(size_t)c * nl + l] = X[c];
    }
}

static int CompareInt64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

int BlastSpaceEssentialDofs(const BlastSpace *s, int **ess_off, int **ess_idx) {
  const BlastMesh mesh = s->mesh;
  const int dim = s->dim, nf = 1 << (dim - 1), K = s->N * s->k;
  // Global ids on every boundary face with attribute 1..dim, per component; then the
  // local dofs whose gid is in the set. The mesh is replicated, so this needs no messages.
  int64_t per_face = 1;
  for (int g = 0; g < dim - 1; g++) per_face *= K + 1;
  int64_t *gids[3] = {NULL, NULL, NULL};
  size_t ng[3] = {0, 0, 0};
  for (int c = 0; c < dim; c++) {
    size_t cnt = 0;
    for (int f = 0; f < mesh->nbdr; f++) cnt += mesh->bdr_attr[f] == c + 1;
    BlastCall(BlastMalloc(cnt * per_face + 1, &gids[c]));
  }
  for (int f = 0; f < mesh->nbdr; f++) {
    int c = mesh->bdr_attr[f] - 1;
    if (c < 0 || c >= dim) continue;  // other attributes: free boundary
    int facet = BlastTopologyFindFacet(s->topo, &mesh->bdr_verts[(size_t)f * nf]);
    BlastCheck(facet >= 0, BLAST_ERR_INPUT,
               "boundary face %d (attribute %d) is not a face of any zone", f, mesh->bdr_attr[f]);
    int z = s->topo->facet_zone[2 * facet], lf = s->topo->facet_zone[2 * facet + 1];
    int g = lf / 2, side = lf % 2, other[2] = {0, 0}, no = 0;
    for (int h = 0; h < dim; h++)
      if (h != g) other[no++] = h;
    for (int64_t p = 0; p < per_face; p++) {
      int i[3];
      i[g] = side * K;
      int64_t r = p;
      for (int o = 0; o < no; o++) i[other[o]] = (int)(r % (K + 1)), r /= K + 1;
      gids[c][ng[c]++] = BlastLatticeId(s->topo, mesh->zone_verts, z, K, i);
    }
  }
  BlastCall(BlastMalloc(dim + 1, ess_off));
  size_t total = 0;
  for (int c = 0; c < dim; c++) {
    qsort(gids[c], ng[c], sizeof(int64_t), CompareInt64);
    for (int l = 0; l < s->h1_nl; l++)
      total += bsearch(&s->h1_gid[l], gids[c], ng[c], sizeof(int64_t), CompareInt64) != NULL;
  }
  BlastCall(BlastMalloc(total + 1, ess_idx));
  (*ess_off)[0] = 0;
  for (int c = 0, n = 0; c < dim; c++) {
    for (int l = 0; l < s->h1_nl; l++)
      if (bsearch(&s->h1_gid[l], gids[c], ng[c], sizeof(int64_t), CompareInt64)) (*ess_idx)[n++] = l;
    (*ess_off)[c + 1] = n;
    BlastFree(&gids[c]);
  }
  return 0;
}
