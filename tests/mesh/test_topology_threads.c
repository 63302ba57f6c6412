// The threaded setup structures against direct serial constructions: the entity numbering
// (edges and faces numbered in ascending order of their sorted vertex ids), the entity ->
// zone lists (ascending, each zone once) and the facets' first zones of BlastTopologyCreate
// on hexahedra, tetrahedra, triangles, quadrilaterals, segments and a fan of 80 triangles
// around one vertex (buckets larger than the small-bucket sort), each with 1, 2 and 3
// threads, and the space numbering built on it alike for any thread count;
// BlastEntitiesNumber and BlastEntitiesZones on hand-made lists (a zone that lists
// an entity twice); the CUDA halo's send-list grouping (BlastHaloGroupTargets) against a
// hand-made list and a stable insertion sort of a long random one; the batched transpose
// of the CUDA full path's J0^-1 upload (BlastTransposeBlocks).
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "entities.h"
#include "halo.h"
#include "linalg.h"
#include "meshtest.h"
#include "space.h"
#include "topology.h"

// The local edges of topology.h's convention: tensor edge g*2^(d-1) + (bits of the other
// directions, in order) runs along g; a triangle's edge e is opposite vertex e; a
// tetrahedron's edges are (0,1) (0,2) (0,3) (1,2) (1,3) (2,3). Returns 0 for no such edge.
static int RefEdge(int geom, int e, int *c) {
  static const int tet[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  if (geom == BLAST_GEOM_TRIANGLE) {
    if (e >= 3) return 0;
    int n = 0;
    for (int v = 0; v < 3; v++)
      if (v != e) c[n++] = v;
    return 2;
  }
  if (geom == BLAST_GEOM_TETRAHEDRON) {
    if (e >= 6) return 0;
    c[0] = tet[e][0], c[1] = tet[e][1];
    return 2;
  }
  const int dim = geom == BLAST_GEOM_CUBE ? 3 : 2, per = 1 << (dim - 1), g = e / per;
  int bits = 0;
  for (int h = 0, r = 0; h < dim; h++)
    if (h != g && ((e % per) >> r++) & 1) bits |= 1 << h;
  c[0] = bits, c[1] = bits | (1 << g);
  return 2;
}

typedef struct {
  int v[4], slot;
} Key;

static int CompareKey(const void *pa, const void *pb) {
  const Key *a = pa, *b = pb;
  for (int i = 0; i < 4; i++)
    if (a->v[i] != b->v[i]) return a->v[i] < b->v[i] ? -1 : 1;
  return (a->slot > b->slot) - (a->slot < b->slot);
}

// Entities of per_zone slots a zone (faces: len 4, else edges) by one global sort.
static int RefEntities(BlastMesh m, int len, int per_zone, int *ids, int *verts) {
  BlastMeshDesc d;
  BlastMeshDescribe(m, &d);
  const int nc = 1 << d.dim;
  Key *k = malloc(sizeof(Key) * ((size_t)d.nzones * per_zone + 1));
  size_t nk = 0;
  for (int z = 0; z < d.nzones; z++)
    for (int e = 0; e < per_zone; e++) {
      int c[4], n = len == 2 ? RefEdge(d.zone_geom[z], e, c)
                             : BlastZoneFacetCorners(d.zone_geom[z], e, c);
      ids[z * per_zone + e] = -1;
      if (!n) continue;
      Key *q = &k[nk++];
      for (int i = 0; i < 4; i++) q->v[i] = i < n ? d.zone_verts[z * nc + c[i]] : -1;
      for (int i = 1; i < n; i++)  // ascending
        for (int j = i; j > 0 && q->v[j - 1] > q->v[j]; j--) {
          const int t = q->v[j];
          q->v[j] = q->v[j - 1], q->v[j - 1] = t;
        }
      q->slot = z * per_zone + e;
    }
  qsort(k, nk, sizeof *k, CompareKey);
  int n = 0;
  for (size_t i = 0; i < nk; i++) {
    if (i == 0 || memcmp(k[i].v, k[i - 1].v, sizeof(int) * len)) {
      memcpy(&verts[(size_t)n * len], k[i].v, sizeof(int) * len);
      n++;
    }
    ids[k[i].slot] = n - 1;
  }
  free(k);
  return n;
}

// The zones of each entity, ascending, each once; compared with the CSR (off, zn).
static void CheckZones(const char *what, int nent, int nzones, int per_zone, const int *ent,
                       const int *off, const int *zn) {
  int *pos = malloc(sizeof(int) * (nent + 1)), bad = 0;
  for (int e = 0; e < nent; e++) pos[e] = off[e];
  for (int z = 0; z < nzones && !bad; z++)
    for (int k = 0; k < per_zone && !bad; k++) {
      const int e = ent[z * per_zone + k];
      if (e < 0 || (pos[e] > off[e] && zn[pos[e] - 1] == z)) continue;
      bad = pos[e] >= off[e + 1] || zn[pos[e]] != z;
      pos[e]++;
    }
  for (int e = 0; e < nent && !bad; e++) bad = pos[e] != off[e + 1];
  TEST_ASSERT(!bad, "%s: the entity -> zone lists differ from the serial construction", what);
  free(pos);
}

static void CheckTopology(const char *name, BlastMesh m) {
  BlastMeshDesc d;
  BlastMeshDescribe(m, &d);
  const int dim = d.dim, nz = d.nzones, pe = dim == 3 ? 12 : dim == 2 ? 4 : 0;
  int *eids = malloc(sizeof(int) * ((size_t)nz * pe + 1));
  int *everts = malloc(sizeof(int) * ((size_t)nz * pe * 2 + 1));
  int *fids = malloc(sizeof(int) * ((size_t)nz * 6 + 1));
  int *fverts = malloc(sizeof(int) * ((size_t)nz * 6 * 4 + 1));
  const int ne = pe ? RefEntities(m, 2, pe, eids, everts) : 0;
  const int nf = dim == 3 ? RefEntities(m, 4, 6, fids, fverts) : 0;
  for (int nth = 1; nth <= 3; nth++) {
    omp_set_num_threads(nth);
    BlastTopology *t = NULL;
    TEST_CALL(BlastTopologyCreate(m, &t));
    if (!t) continue;
    TEST_ASSERT(t->nedges == ne && t->nfaces == nf,
                "%s, %d threads: %d edges, %d faces; expected %d, %d", name, nth, t->nedges,
                t->nfaces, ne, nf);
    if (t->nedges != ne || t->nfaces != nf) {
      BlastTopologyDestroy(&t);
      continue;
    }
    TEST_ASSERT(!pe || (!memcmp(t->zone_edges, eids, sizeof(int) * nz * pe) &&
                        !memcmp(t->edge_verts, everts, sizeof(int) * 2 * ne)),
                "%s, %d threads: edge numbering", name, nth);
    TEST_ASSERT(dim < 3 || (!memcmp(t->zone_faces, fids, sizeof(int) * nz * 6) &&
                            !memcmp(t->face_verts, fverts, sizeof(int) * 4 * nf)),
                "%s, %d threads: face numbering", name, nth);
    CheckZones(name, t->nverts, nz, 1 << dim, d.zone_verts, t->vert_zoff, t->vert_zones);
    if (pe) CheckZones(name, ne, nz, pe, t->zone_edges, t->edge_zoff, t->edge_zones);
    if (dim == 3) CheckZones(name, nf, nz, 6, t->zone_faces, t->face_zoff, t->face_zones);
    // Facets' first zone and its first local facet, zones and facets in order.
    int *fz = malloc(sizeof(int) * (2 * (size_t)t->nfacets + 1));
    for (int f = 0; f < 2 * t->nfacets; f++) fz[f] = -1;
    for (int z = 0; z < nz; z++) {
      const int g = d.zone_geom[z],
                simplex = g == BLAST_GEOM_TRIANGLE || g == BLAST_GEOM_TETRAHEDRON;
      for (int lf = 0; lf < BlastZoneNumFacets(g); lf++) {
        const int id = dim == 1 ? d.zone_verts[z * 2 + lf]
                       : dim == 2
                           ? t->zone_edges[z * 4 + (simplex ? lf : (1 - lf / 2) * 2 + lf % 2)]
                           : t->zone_faces[z * 6 + lf];
        if (fz[2 * id] < 0) fz[2 * id] = z, fz[2 * id + 1] = lf;
      }
    }
    TEST_ASSERT(!memcmp(fz, t->facet_zone, sizeof(int) * 2 * t->nfacets),
                "%s, %d threads: facet -> first zone", name, nth);
    free(fz);
    BlastTopologyDestroy(&t);
  }
  omp_set_num_threads(1);
  free(eids), free(everts), free(fids), free(fverts);
}

static const double kTwoPi = 6.283185307179586;

// n triangles around vertex 0 (vertex i + 1 on the unit circle at angle 2 pi i / n).
static int Fan(int n, BlastMesh *m) {
  double *x = malloc(sizeof(double) * 2 * (n + 1));
  int *zv = malloc(sizeof(int) * 4 * n), *at = malloc(sizeof(int) * n);
  int *bv = malloc(sizeof(int) * 2 * n), *ba = malloc(sizeof(int) * n);
  unsigned char *g = malloc(n), *bg = malloc(n);
  x[0] = x[1] = 0.0;
  for (int i = 0; i < n; i++) {
    x[2 * i + 2] = cos(kTwoPi * i / n), x[2 * i + 3] = sin(kTwoPi * i / n);
    zv[4 * i] = 0, zv[4 * i + 1] = 1 + i, zv[4 * i + 2] = 1 + (i + 1) % n, zv[4 * i + 3] = -1;
    g[i] = BLAST_GEOM_TRIANGLE, at[i] = 1;
    bv[2 * i] = 1 + i, bv[2 * i + 1] = 1 + (i + 1) % n, ba[i] = 1, bg[i] = BLAST_GEOM_SEGMENT;
  }
  BlastMeshDesc d;
  memset(&d, 0, sizeof d);
  d.dim = 2, d.nverts = n + 1, d.nzones = n, d.nbdr = n, d.coords = x;
  d.zone_verts = zv, d.zone_attr = at, d.zone_geom = g;
  d.bdr_verts = bv, d.bdr_attr = ba, d.bdr_geom = bg;
  const int ierr = BlastMeshCreateFrom(&d, m);
  free(x), free(zv), free(at), free(bv), free(ba), free(g), free(bg);
  return ierr;
}

// The space's numbering (dofs, owners, gather lists, halo zones) is the same for 1, 2 and
// 3 threads, on each rank of a partition (a mesh zone's owner: its number times a prime
// modulo the zones, scaled to nparts).
static void CheckSpaceThreads(const char *name, BlastMesh m, int k, int rp, int nparts) {
  BlastTopology *t = NULL;
  TEST_CALL(BlastTopologyCreate(m, &t));
  if (!t) return;
  const int nz = t->nzones;
  int *part = malloc(sizeof(int) * nz);
  for (int z = 0; z < nz; z++) part[z] = (int)((long long)(z * 7919LL % nz) * nparts / nz);
  for (int r = 0; r < nparts; r++) {
    BlastSpace *s[3] = {NULL, NULL, NULL};
    for (int nth = 1; nth <= 3; nth++) {
      omp_set_num_threads(nth);
      TEST_CALL(BlastSpaceCreate(m, t, k, k - 1, rp, nparts > 1 ? part : NULL, r, &s[nth - 1]));
    }
    omp_set_num_threads(1);
    for (int i = 1; i < 3 && s[0] && s[i]; i++) {
      const BlastSpace *a = s[0], *b = s[i];
      const size_t ne = (size_t)a->nz_ext * a->h1_nd, nl = (size_t)a->nz * a->h1_nd;
      int same = a->nz == b->nz && a->nz_ext == b->nz_ext && a->h1_nown == b->h1_nown &&
                 a->h1_nl == b->h1_nl && a->h1_next == b->h1_next;
      same = same && !memcmp(a->h1_edof, b->h1_edof, sizeof(int) * ne) &&
             !memcmp(a->h1_gid, b->h1_gid, sizeof(int64_t) * a->h1_next) &&
             !memcmp(a->h1_owner, b->h1_owner, sizeof(int) * a->h1_next) &&
             !memcmp(a->h1_toff, b->h1_toff, sizeof(int) * (a->h1_nl + 1)) &&
             !memcmp(a->h1_tidx, b->h1_tidx, sizeof(int) * nl) &&
             !memcmp(a->mass_toff, b->mass_toff, sizeof(int) * (a->h1_nown + 1)) &&
             !memcmp(a->mass_tidx, b->mass_tidx, sizeof(int) * a->mass_toff[a->h1_nown]) &&
             !memcmp(a->zone_gid, b->zone_gid, sizeof(int64_t) * a->nz_ext);
      TEST_ASSERT(same, "%s, order %d, rank %d of %d: the space with %d threads differs from 1",
                  name, k, r, nparts, i + 1);
    }
    for (int i = 0; i < 3; i++) BlastSpaceDestroy(&s[i]);
  }
  free(part);
  BlastTopologyDestroy(&t);
}

static void CheckLists(void) {
  // Edges of 6 slots (one without an entity) of vertices 0..4, numbered by hand.
  const int keys[] = {3, 4, -1, -1, 0, 3, 3, 4, 0, 1, 0, 3};
  const int want_ids[] = {2, -1, 1, 2, 0, 1}, want_verts[] = {0, 1, 0, 3, 3, 4};
  int *ids = NULL, *verts = NULL, n = 0, *zoff = NULL, *zn = NULL;
  // with 2 slots a zone: (0,1) in zone 2, (0,3) in zones 1 and 2, (3,4) in zones 0 and 1
  const int want_zoff[] = {0, 1, 3, 5}, want_zn[] = {2, 1, 2, 0, 1};
  TEST_CALL(BlastEntitiesNumber(6, 2, 5, keys, 2, &ids, &verts, &n, &zoff, &zn));
  TEST_ASSERT(n == 3 && !memcmp(ids, want_ids, sizeof want_ids) &&
                  !memcmp(verts, want_verts, sizeof want_verts) &&
                  !memcmp(zoff, want_zoff, sizeof want_zoff) &&
                  !memcmp(zn, want_zn, sizeof want_zn),
              "BlastEntitiesNumber: %d entities", n);
  BlastFree(&ids), BlastFree(&verts), BlastFree(&zoff), BlastFree(&zn);
  // all 6 slots in zone 0: each entity's list is zone 0, once
  const int one_zoff[] = {0, 1, 2, 3}, one_zn[] = {0, 0, 0};
  TEST_CALL(BlastEntitiesNumber(6, 2, 5, keys, 6, &ids, &verts, &n, &zoff, &zn));
  TEST_ASSERT(
      n == 3 && !memcmp(zoff, one_zoff, sizeof one_zoff) && !memcmp(zn, one_zn, sizeof one_zn),
      "BlastEntitiesNumber: a zone with an entity twice");
  BlastFree(&zoff), BlastFree(&zn);
  BlastFree(&ids), BlastFree(&verts);
  // 3 zones of 3 slots; zones 0 and 2 list an entity twice.
  const int ent[] = {2, 0, 2, -1, 1, 0, 0, 2, 2};
  const int want_off[] = {0, 3, 4, 6}, want_zones[] = {0, 1, 2, 1, 0, 2};
  int *off = NULL, *zones = NULL;
  TEST_CALL(BlastEntitiesZones(3, 3, 3, ent, &off, &zones));
  TEST_ASSERT(
      !memcmp(off, want_off, sizeof want_off) && !memcmp(zones, want_zones, sizeof want_zones),
      "BlastEntitiesZones: repeated entities");
  BlastFree(&off), BlastFree(&zones);
}

static void CheckHaloGroups(void) {
  const int idx[] = {5, 2, 5, 7, 2, 5};
  const int want_t[] = {2, 5, 7}, want_off[] = {0, 2, 5, 6}, want_pos[] = {1, 4, 0, 2, 5, 3};
  int t[7], off[8], pos[7], nt = 0;
  TEST_CALL(BlastHaloGroupTargets(6, idx, &nt, t, off, pos));
  TEST_ASSERT(nt == 3 && !memcmp(t, want_t, sizeof want_t) &&
                  !memcmp(off, want_off, sizeof want_off) &&
                  !memcmp(pos, want_pos, sizeof want_pos),
              "BlastHaloGroupTargets: %d targets", nt);
  // A long list (an owned dof sent to several neighbours appears several times).
  enum { N = 20000 };
  int *list = malloc(sizeof(int) * N), *order = malloc(sizeof(int) * N);
  int *tt = malloc(sizeof(int) * (N + 1)), *to = malloc(sizeof(int) * (N + 2));
  int *tp = malloc(sizeof(int) * (N + 1));
  unsigned s = 12345u;
  for (int i = 0; i < N; i++) s = s * 1103515245u + 12345u, list[i] = (int)((s >> 8) % 7000u);
  for (int i = 0; i < N; i++) order[i] = i;
  for (int i = 1; i < N; i++)  // stable insertion sort by target
    for (int j = i; j > 0 && list[order[j - 1]] > list[order[j]]; j--) {
      const int x = order[j];
      order[j] = order[j - 1], order[j - 1] = x;
    }
  TEST_CALL(BlastHaloGroupTargets(N, list, &nt, tt, to, tp));
  int bad = memcmp(tp, order, sizeof(int) * N) != 0 || to[0] != 0 || to[nt] != N;
  for (int k = 0; k < nt && !bad; k++)
    for (int i = to[k]; i < to[k + 1] && !bad; i++)
      bad = list[tp[i]] != tt[k] || (k > 0 && tt[k] <= tt[k - 1]);
  TEST_ASSERT(!bad, "BlastHaloGroupTargets: %d targets of a random list of %d", nt, N);
  free(list), free(order), free(tt), free(to), free(tp);
}

// BlastTransposeBlocks on 3 blocks of 2 x 3: block b's entry (r, c) is 10 b + 3 r + c.
static void CheckTranspose(void) {
  double src[18], dst[18];
  for (int i = 0; i < 18; i++) src[i] = 10.0 * (i / 6) + i % 6;
  BlastTransposeBlocks(3, 2, 3, src, dst);
  int bad = 0;
  for (int b = 0; b < 3; b++)
    for (int c = 0; c < 3; c++)
      for (int r = 0; r < 2; r++) bad += dst[b * 6 + c * 2 + r] != 10.0 * b + 3 * r + c;
  TEST_ASSERT(!bad, "BlastTransposeBlocks: %d entries misplaced", bad);
}

int main(void) {
  const double size[3] = {1.0, 2.0, 3.0};
  const int n3[3] = {7, 5, 4}, s3[3] = {4, 3, 3}, n2[2] = {6, 5}, n1[1] = {9};
  BlastMesh m = NULL, scr = NULL;
  TEST_CALL(BlastMeshCreateBox(3, n3, size, &m));
  CheckTopology("hexahedra", m);
  CheckSpaceThreads("hexahedra", m, 2, 0, 3);
  CheckSpaceThreads("hexahedra", m, 3, 1, 2);
  TEST_CALL(MTScramble(m, 7, &scr));  // vertex ids not in zone order
  CheckTopology("hexahedra, scrambled", scr);
  BlastMeshDestroy(&scr), BlastMeshDestroy(&m);
  TEST_CALL(BlastMeshCreateBoxSimplex(3, s3, size, &m));
  CheckTopology("tetrahedra", m);
  CheckSpaceThreads("tetrahedra", m, 2, 1, 3);
  BlastMeshDestroy(&m);
  TEST_CALL(BlastMeshCreateBoxSimplex(2, n2, size, &m));
  CheckTopology("triangles", m);
  BlastMeshDestroy(&m);
  TEST_CALL(BlastMeshCreateBox(2, n2, size, &m));
  CheckTopology("quadrilaterals", m);
  BlastMeshDestroy(&m);
  TEST_CALL(BlastMeshCreateBox(1, n1, size, &m));
  CheckTopology("segments", m);
  BlastMeshDestroy(&m);
  TEST_CALL(Fan(80, &m));
  CheckTopology("fan of 80 triangles", m);
  BlastMeshDestroy(&m);
  CheckLists();
  CheckHaloGroups();
  CheckTranspose();
  return BlastTestFinish("test_topology_threads");
}
