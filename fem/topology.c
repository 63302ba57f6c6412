// Mesh entities and conforming lattice numbering (see topology.h).
#include "topology.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "entities.h"
#include "mesh-impl.h"

static void SortInts(int *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      int tmp = v[j];
      v[j] = v[j - 1];
      v[j - 1] = tmp;
    }
}

// Local edges and facets of the zones. Tensor zones: edge g*2^(d-1) + (bits of the other
// directions) runs along direction g; facet 2g+s is normal to g at side s, its corners
// lexicographic in the other directions. Simplices: a triangle's edge e and a simplex's
// facet f are those opposite vertex f (corners ascending); a tetrahedron's edges are
// (0,1) (0,2) (0,3) (1,2) (1,3) (2,3).
static int EdgesPerZone(int dim) {
  return dim == 3 ? 12 : dim == 2 ? 4 : 0;
}
static const int kTetEdges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const int kTetEdgeOf[4][4] = {{-1, 0, 1, 2}, {0, -1, 3, 4}, {1, 3, -1, 5}, {2, 4, 5, -1}};

// The two corners of local edge e of a zone of geometry geom (0: no such edge).
static int EdgeCorners(int geom, int e, int *c0, int *c1) {
  if (geom == BLAST_GEOM_TRIANGLE) {
    if (e >= 3) return 0;
    *c0 = e == 0 ? 1 : 0, *c1 = e == 2 ? 1 : 2;
    return 2;
  }
  if (geom == BLAST_GEOM_TETRAHEDRON) {
    if (e >= 6) return 0;
    *c0 = kTetEdges[e][0], *c1 = kTetEdges[e][1];
    return 2;
  }
  const int dim = BlastGeomDim(geom);
  int per = 1 << (dim - 1), g = e / per, rest = e % per, bits = 0, r = 0;
  for (int h = 0; h < dim; h++) {
    if (h == g) continue;
    if ((rest >> r) & 1) bits |= 1 << h;
    r++;
  }
  *c0 = bits;
  *c1 = bits | (1 << g);
  return 2;
}

int BlastZoneNumFacets(int geom) {
  return BlastGeomIsSimplex(geom) ? BlastGeomDim(geom) + 1 : 2 * BlastGeomDim(geom);
}

int BlastZoneFacetCorners(int geom, int facet, int *corners) {
  const int dim = BlastGeomDim(geom);
  if (BlastGeomIsSimplex(geom)) {
    if (facet < 0 || facet > dim) return 0;
    int n = 0;
    for (int v = 0; v <= dim; v++)
      if (v != facet) corners[n++] = v;
    return n;
  }
  if (facet < 0 || facet >= 2 * dim) return 0;
  int g = facet / 2, s = facet % 2, n = 1 << (dim - 1);
  for (int j = 0; j < n; j++) {
    int bits = s << g, r = 0;
    for (int h = 0; h < dim; h++) {
      if (h == g) continue;
      if ((j >> r) & 1) bits |= 1 << h;
      r++;
    }
    corners[j] = bits;
  }
  return n;
}

static int FacetCorners(int geom, int facet, int *corners) {
  return BlastZoneFacetCorners(geom, facet, corners);
}

// Entities of length len (2: edges; otherwise the facets of 3D zones), per_zone slots per
// zone; slots a zone does not have (simplices) get id -1. Each slot's key is its corners'
// vertex ids ascending, -1 padded (a triangle among quadrilateral faces); entities are
// numbered in the order of their keys (BlastEntitiesNumber).
static int BuildEntities(const BlastMesh mesh, int len, int per_zone, int **zone_ids,
                         int **entity_verts, int *nentities, int **zoff, int **zones) {
  const int nz = mesh->nzones, nc = 1 << mesh->dim;
  enum { kGeoms = BLAST_GEOM_CUBE + 1 };
  int ncorner[kGeoms][12], corner[kGeoms][12][4];  // each geometry's slots
  for (int g = 0; g < kGeoms; g++)
    for (int e = 0; e < per_zone; e++) {
      int *c = corner[g][e];
      ncorner[g][e] = BlastGeomDim(g) != mesh->dim ? 0
                      : len == 2                   ? EdgeCorners(g, e, &c[0], &c[1])
                                                   : FacetCorners(g, e, c);
    }
  int *keys;
  BlastCall(BlastMalloc((size_t)nz * per_zone * len + 1, &keys));
#pragma omp parallel for schedule(static)
  for (int z = 0; z < nz; z++) {
    const int *zv = &mesh->zone_verts[(size_t)z * nc], geom = mesh->zone_geom[z];
    for (int e = 0; e < per_zone; e++) {
      const int n = ncorner[geom][e], *corners = corner[geom][e];
      int v[4];
      for (int i = 0; i < n; i++) v[i] = zv[corners[i]];
      SortInts(v, n);
      int *k = &keys[((size_t)z * per_zone + e) * len];
      for (int i = 0; i < len; i++) k[i] = i < n ? v[i] : -1;
    }
  }
  const int ierr = BlastEntitiesNumber((size_t)nz * per_zone, len, mesh->nverts, keys, per_zone,
                                       zone_ids, entity_verts, nentities, zoff, zones);
  BlastFree(&keys);
  BlastCall(ierr);
  return 0;
}

// Facet id of local facet lf of zone z (tensor: normal to direction lf/2 at side lf%2;
// simplex: opposite vertex lf).
static int ZoneFacet(const BlastTopology *t, const int *zone_verts, int z, int lf) {
  const int nc = 1 << t->dim;
  if (t->dim == 1) return zone_verts[(size_t)z * nc + lf];
  if (t->dim == 2)
    return t->zone_edges[(size_t)z * 4 +
                         (BlastGeomIsSimplex(t->zone_geom[z]) ? lf : (1 - lf / 2) * 2 + lf % 2)];
  return t->zone_faces[(size_t)z * 6 + lf];
}

int BlastTopologyCreate(BlastMesh mesh, BlastTopology **topo) {
  BlastTopology *t;
  BlastCall(BlastCalloc(1, &t));
  t->dim = mesh->dim, t->nverts = mesh->nverts, t->nzones = mesh->nzones;
  BlastCall(BlastMalloc((size_t)t->nzones + 1, &t->zone_geom));
  BlastCall(BlastMalloc((size_t)t->nzones + 1, &t->zone_simplex_before));
  memcpy(t->zone_geom, mesh->zone_geom, (size_t)t->nzones);
  t->zone_simplex_before[0] = 0;
  for (int z = 0; z < t->nzones; z++)
    t->zone_simplex_before[z + 1] = t->zone_simplex_before[z] + BlastGeomIsSimplex(t->zone_geom[z]);
  // Edges and faces with the zones around each (ascending zone ids).
  if (t->dim >= 2)
    BlastCall(BuildEntities(mesh, 2, EdgesPerZone(t->dim), &t->zone_edges, &t->edge_verts,
                            &t->nedges, &t->edge_zoff, &t->edge_zones));
  if (t->dim == 3)
    BlastCall(BuildEntities(mesh, 4, 6, &t->zone_faces, &t->face_verts, &t->nfaces, &t->face_zoff,
                            &t->face_zones));
  BlastCall(BlastMalloc((size_t)t->nfaces + 1, &t->face_tri_before));
  t->face_tri_before[0] = 0;
  for (int f = 0; f < t->nfaces; f++)
    t->face_tri_before[f + 1] = t->face_tri_before[f] + (t->face_verts[(size_t)f * 4 + 3] < 0);
  // The zones around each vertex (ascending zone ids).
  BlastCall(BlastEntitiesZones(t->nverts, t->nzones, 1 << t->dim, mesh->zone_verts, &t->vert_zoff,
                               &t->vert_zones));
  // Facets: vertices (1D), edges (2D), faces (3D); each one's first zone and, in it, its
  // first local facet. The zones around a facet are those that have it as a facet (the
  // adjacency lists each zone's facets: its vertices, edges or faces).
  t->nfacets = t->dim == 1 ? t->nverts : t->dim == 2 ? t->nedges : t->nfaces;
  BlastCall(BlastMalloc((size_t)t->nfacets * 2 + 1, &t->facet_zone));
  const int *foff = t->dim == 1 ? t->vert_zoff : t->dim == 2 ? t->edge_zoff : t->face_zoff;
  const int *fzn = t->dim == 1 ? t->vert_zones : t->dim == 2 ? t->edge_zones : t->face_zones;
#pragma omp parallel for schedule(static)
  for (int f = 0; f < t->nfacets; f++) {
    int z = -1, lf = -1;
    if (foff[f + 1] > foff[f]) {
      z = fzn[foff[f]];
      const int nf = BlastZoneNumFacets(t->zone_geom[z]);
      for (lf = 0; lf < nf && ZoneFacet(t, mesh->zone_verts, z, lf) != f; lf++) continue;
    }
    t->facet_zone[2 * f] = z, t->facet_zone[2 * f + 1] = lf;
  }
  *topo = t;
  return 0;
}

void BlastTopologyDestroy(BlastTopology **topo) {
  if (!topo || !*topo) return;
  BlastFree(&(*topo)->zone_geom);
  BlastFree(&(*topo)->zone_simplex_before);
  BlastFree(&(*topo)->face_tri_before);
  BlastFree(&(*topo)->zone_edges);
  BlastFree(&(*topo)->zone_faces);
  BlastFree(&(*topo)->edge_verts);
  BlastFree(&(*topo)->face_verts);
  BlastFree(&(*topo)->facet_zone);
  BlastFree(&(*topo)->vert_zoff);
  BlastFree(&(*topo)->vert_zones);
  BlastFree(&(*topo)->edge_zoff);
  BlastFree(&(*topo)->edge_zones);
  BlastFree(&(*topo)->face_zoff);
  BlastFree(&(*topo)->face_zones);
  BlastFree(topo);
}

static int64_t IPow(int64_t b, int e) {
  int64_t r = 1;
  while (e-- > 0) r *= b;
  return r;
}

// Interior lattice points of order K of a d-simplex: binomial(K-1, d).
static int64_t SimplexInterior(int d, int64_t K) {
  if (K <= d) return 0;
  return d == 1 ? K - 1 : d == 2 ? (K - 1) * (K - 2) / 2 : (K - 1) * (K - 2) * (K - 3) / 6;
}

// Index of point p (p_g >= 0, sum <= M) in the lattice order of a d-simplex of order M.
static int64_t SimplexIndex(int d, int64_t M, const int *p) {
  int64_t idx = 0;
  if (d == 3) {  // the slices p_2 < p[2]: tetrahedral numbers
    const int64_t a = M, b = M - p[2];
    idx += (a + 1) * (a + 2) * (a + 3) / 6 - (b + 1) * (b + 2) * (b + 3) / 6;
    M = b;
  }
  if (d >= 2) idx += (int64_t)p[1] * (M + 1) - (int64_t)p[1] * (p[1] - 1) / 2;
  return idx + p[0];
}

// First lattice id of each kind of entity and the offsets of face f's and zone z's points.
typedef struct {
  int64_t Km1, edge, face, cell, face_quad, face_tri, cell_tensor, cell_simplex;
} LatticeBases;

static LatticeBases Bases(const BlastTopology *t, int K) {
  LatticeBases b;
  b.Km1 = K - 1;
  b.face_quad = b.Km1 * b.Km1, b.face_tri = SimplexInterior(2, K);
  b.cell_tensor = IPow(b.Km1, t->dim), b.cell_simplex = SimplexInterior(t->dim, K);
  const int64_t ntri = t->face_tri_before[t->nfaces];
  b.edge = t->nverts;
  b.face = b.edge + (int64_t)t->nedges * b.Km1;
  b.cell = b.face + (t->nfaces - ntri) * b.face_quad + ntri * b.face_tri;
  return b;
}
static int64_t FaceOffset(const BlastTopology *t, const LatticeBases *b, int f) {
  const int64_t tri = t->face_tri_before[f];
  return (f - tri) * b->face_quad + tri * b->face_tri;
}
static int64_t ZoneOffset(const BlastTopology *t, const LatticeBases *b, int z) {
  const int64_t simp = t->zone_simplex_before[z];
  return (z - simp) * b->cell_tensor + simp * b->cell_simplex;
}

int64_t BlastLatticeSize(const BlastTopology *t, int K) {
  const LatticeBases b = Bases(t, K);
  return b.cell + ZoneOffset(t, &b, t->nzones);
}

// BlastLatticeId on a simplex zone: the point's barycentric indices b (sum K) name the
// vertex, edge, face or interior it lies in.
static int64_t SimplexLatticeId(const BlastTopology *t, const int *zv, int z, int K, const int *i) {
  const int dim = t->dim;
  const LatticeBases B = Bases(t, K);
  int b[4], sup[4], ns = 0;
  b[0] = K;
  for (int g = 0; g < dim; g++) b[g + 1] = i[g], b[0] -= i[g];
  for (int v = 0; v <= dim; v++)
    if (b[v] > 0) sup[ns++] = v;
  if (ns == 1) return zv[sup[0]];
  if (ns == 2) {
    const int va = sup[0], vb = sup[1];
    const int le = dim == 2 ? 3 - va - vb : kTetEdgeOf[va][vb];
    const int eid = t->zone_edges[(size_t)z * EdgesPerZone(dim) + le];
    const int pos = zv[va] < zv[vb] ? b[vb] : b[va];  // steps from the lower vertex
    return B.edge + (int64_t)eid * B.Km1 + (pos - 1);
  }
  if (ns == 3 && dim == 3) {  // a face, in the frame of its ascending global vertex ids
    const int lf = 6 - sup[0] - sup[1] - sup[2];
    const int fid = t->zone_faces[(size_t)z * 6 + lf];
    int gv[3], c[3];
    for (int a = 0; a < 3; a++) gv[a] = zv[sup[a]], c[a] = b[sup[a]];
    for (int a = 1; a < 3; a++)
      for (int j = a; j > 0 && gv[j - 1] > gv[j]; j--) {
        int tmp = gv[j];
        gv[j] = gv[j - 1], gv[j - 1] = tmp;
        tmp = c[j], c[j] = c[j - 1], c[j - 1] = tmp;
      }
    const int p[2] = {c[1] - 1, c[2] - 1};
    return B.face + FaceOffset(t, &B, fid) + SimplexIndex(2, K - 3, p);
  }
  int p[3];
  for (int g = 0; g < dim; g++) p[g] = i[g] - 1;
  return B.cell + ZoneOffset(t, &B, z) + SimplexIndex(dim, K - dim - 1, p);
}

int64_t BlastLatticeId(const BlastTopology *t, const int *zone_verts, int z, int K, const int *i) {
  const int dim = t->dim, nc = 1 << dim;
  const int *zv = &zone_verts[(size_t)z * nc];
  if (BlastGeomIsSimplex(t->zone_geom[z])) return SimplexLatticeId(t, zv, z, K, i);
  int dirs[3], ni = 0, bits = 0;
  for (int g = 0; g < dim; g++) {
    if (i[g] == 0) continue;
    if (i[g] == K)
      bits |= 1 << g;
    else
      dirs[ni++] = g;
  }
  if (ni == 0) return zv[bits];
  const LatticeBases B = Bases(t, K);
  const int64_t Km1 = B.Km1;
  if (ni == dim) {
    int64_t off = 0, stride = 1;
    for (int g = 0; g < dim; g++) off += (i[g] - 1) * stride, stride *= Km1;
    return B.cell + ZoneOffset(t, &B, z) + off;
  }
  if (ni == 1) {  // an edge (2D/3D)
    int g = dirs[0], c0 = bits, c1 = bits | (1 << g), r = 0, rest = 0;
    for (int h = 0; h < dim; h++) {
      if (h == g) continue;
      if ((bits >> h) & 1) rest |= 1 << r;
      r++;
    }
    int le = g * (1 << (dim - 1)) + rest;
    int eid = t->zone_edges[(size_t)z * (dim == 3 ? 12 : 4) + le];
    int pos = zv[c0] < zv[c1] ? i[g] : K - i[g];
    return B.edge + (int64_t)eid * Km1 + (pos - 1);
  }
  // a face of a hexahedron (ni == 2, dim == 3)
  int g1 = dirs[0], g2 = dirs[1], g3 = 3 - g1 - g2, s3 = (bits >> g3) & 1;
  int fid = t->zone_faces[(size_t)z * 6 + 2 * g3 + s3];
  int w[2][2];
  for (int s = 0; s < 2; s++)
    for (int u = 0; u < 2; u++) w[s][u] = zv[bits | (s << g1) | (u << g2)];
  int s0 = 0, u0 = 0;
  for (int s = 0; s < 2; s++)
    for (int u = 0; u < 2; u++)
      if (w[s][u] < w[s0][u0]) s0 = s, u0 = u;
  int a = s0 ? K - i[g1] : i[g1], b = u0 ? K - i[g2] : i[g2];
  int P = a, Q = b;
  if (w[1 - s0][u0] > w[s0][1 - u0]) P = b, Q = a;  // first axis towards the lower neighbour
  return B.face + FaceOffset(t, &B, fid) + (P - 1) + Km1 * (Q - 1);
}

int BlastTopologyFindFacet(const BlastTopology *t, const int *corners) {
  if (t->dim == 1)  // a vertex is a facet only if some zone has it
    return (corners[0] >= 0 && corners[0] < t->nverts && t->facet_zone[2 * corners[0]] >= 0)
               ? corners[0]
               : -1;
  int len = t->dim == 2 ? 2 : 4, key[4] = {-1, -1, -1, -1}, n = 0;
  for (int i = 0; i < len; i++)
    if (corners[i] >= 0) key[n++] = corners[i];
  if (n < 2) return -1;
  SortInts(key, n);
  const int *verts = t->dim == 2 ? t->edge_verts : t->face_verts;
  int lo = 0, hi = t->dim == 2 ? t->nedges - 1 : t->nfaces - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, c = 0;
    for (int i = 0; i < len && !c; i++) {
      int v = verts[(size_t)mid * len + i];
      c = (v > key[i]) - (v < key[i]);
    }
    if (!c) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

// The largest entity e in [0, n) whose first point offset(e) <= off.
static int FindByOffset(const BlastTopology *t, const LatticeBases *B, int n, int64_t off,
                        int64_t (*offset)(const BlastTopology *, const LatticeBases *, int)) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (offset(t, B, mid) <= off)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

int BlastLatticeZones(const BlastTopology *t, int K, int64_t gid, int *own, const int **zones) {
  const LatticeBases B = Bases(t, K);
  if (gid < B.edge) {
    *zones = &t->vert_zones[t->vert_zoff[gid]];
    return t->vert_zoff[gid + 1] - t->vert_zoff[gid];
  }
  if (gid < B.face) {
    const int e = (int)((gid - B.edge) / B.Km1);
    *zones = &t->edge_zones[t->edge_zoff[e]];
    return t->edge_zoff[e + 1] - t->edge_zoff[e];
  }
  if (gid < B.cell) {
    const int ntri = t->face_tri_before[t->nfaces];
    const int64_t per = ntri == 0 ? B.face_quad : ntri == t->nfaces ? B.face_tri : 0;
    const int f = per ? (int)((gid - B.face) / per)
                      : FindByOffset(t, &B, t->nfaces, gid - B.face, FaceOffset);
    *zones = &t->face_zones[t->face_zoff[f]];
    return t->face_zoff[f + 1] - t->face_zoff[f];
  }
  const int nsimp = t->zone_simplex_before[t->nzones];
  const int64_t per = nsimp == 0 ? B.cell_tensor : nsimp == t->nzones ? B.cell_simplex : 0;
  *own =
      per ? (int)((gid - B.cell) / per) : FindByOffset(t, &B, t->nzones, gid - B.cell, ZoneOffset);
  *zones = own;
  return 1;
}

// The facets of zone z (2D: edges, 3D: faces) in ascending id: the order in which the
// serial sweep over facets meets them. Returns their count.
static int ZoneFacetsSorted(const BlastTopology *t, int z, int *f) {
  const int stride = t->dim == 2 ? 4 : 6;
  const int *zf = t->dim == 2 ? &t->zone_edges[(size_t)z * 4] : &t->zone_faces[(size_t)z * 6];
  int n = 0;
  for (int i = 0; i < stride; i++) {
    const int x = zf[i];
    if (x < 0) continue;
    int j = n++;
    for (; j > 0 && f[j - 1] > x; j--) f[j] = f[j - 1];
    f[j] = x;
  }
  return n;
}

int BlastTopologyDualGraph(const BlastTopology *t, int **xadj, int **adjncy) {
  // Facets shared by two zones are the dual edges: vertices (1D), edges (2D), faces (3D).
  // Each zone lists its neighbours in ascending facet id (the graph METIS sees, and so its
  // partition, must not depend on the thread count).
  const int *off = t->dim == 1 ? t->vert_zoff : t->dim == 2 ? t->edge_zoff : t->face_zoff;
  const int *zn = t->dim == 1 ? t->vert_zones : t->dim == 2 ? t->edge_zones : t->face_zones;
  const int nz = t->nzones;
  BlastCall(BlastCalloc(nz + 1, xadj));
  int *xa = *xadj;
  if (t->dim == 1) {
    for (int f = 0; f < t->nfacets; f++)
      if (off[f + 1] - off[f] == 2) xa[zn[off[f]] + 1]++, xa[zn[off[f] + 1] + 1]++;
  } else {
#pragma omp parallel for schedule(static)
    for (int z = 0; z < nz; z++) {
      int f[6], c = 0;
      const int nf = ZoneFacetsSorted(t, z, f);
      for (int i = 0; i < nf; i++) c += off[f[i] + 1] - off[f[i]] == 2;
      xa[z + 1] = c;
    }
  }
  for (int z = 0; z < nz; z++) xa[z + 1] += xa[z];
  BlastCall(BlastMalloc((size_t)xa[nz] + 1, adjncy));
  int *adj = *adjncy;
  if (t->dim == 1) {
    int *fill;
    BlastCall(BlastMalloc(nz + 1, &fill));
    for (int z = 0; z <= nz; z++) fill[z] = xa[z];
    for (int f = 0; f < t->nfacets; f++)
      if (off[f + 1] - off[f] == 2) {
        const int a = zn[off[f]], b = zn[off[f] + 1];
        adj[fill[a]++] = b;
        adj[fill[b]++] = a;
      }
    BlastFree(&fill);
    return 0;
  }
#pragma omp parallel for schedule(static)
  for (int z = 0; z < nz; z++) {
    int f[6], k = xa[z];
    const int nf = ZoneFacetsSorted(t, z, f);
    for (int i = 0; i < nf; i++)
      if (off[f[i] + 1] - off[f[i]] == 2) {
        const int a = zn[off[f[i]]], b = zn[off[f[i]] + 1];
        adj[k++] = a == z ? b : a;
      }
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// Conformity

// The zones around facet f (CSR of the topology).
static int FacetZones(const BlastTopology *t, int f, const int **zones) {
  const int *off = t->dim == 1 ? t->vert_zoff : t->dim == 2 ? t->edge_zoff : t->face_zoff;
  *zones = (t->dim == 1 ? t->vert_zones : t->dim == 2 ? t->edge_zones : t->face_zones) + off[f];
  return off[f + 1] - off[f];
}

// "vertices 3, 4, 8, 7" of facet f (file numbering: the mesh keeps the file's vertex ids).
static const char *FacetText(const BlastTopology *t, int f, char *buf, size_t n) {
  if (t->dim == 1) {
    snprintf(buf, n, "vertex %d", f);
    return buf;
  }
  const int len = t->dim == 2 ? 2 : t->face_verts[(size_t)f * 4 + 3] < 0 ? 3 : 4;
  const int *v = t->dim == 2 ? &t->edge_verts[(size_t)f * 2] : &t->face_verts[(size_t)f * 4];
  if (len == 2)
    snprintf(buf, n, "vertices %d, %d", v[0], v[1]);
  else if (len == 3)
    snprintf(buf, n, "vertices %d, %d, %d", v[0], v[1], v[2]);
  else
    snprintf(buf, n, "vertices %d, %d, %d, %d", v[0], v[1], v[2], v[3]);
  return buf;
}

typedef struct {
  int v[8];
  int zone;
} ZoneKey;

static int CompareZoneKeys(const void *pa, const void *pb) {
  const ZoneKey *a = pa, *b = pb;
  for (int i = 0; i < 8; i++)
    if (a->v[i] != b->v[i]) return a->v[i] < b->v[i] ? -1 : 1;
  return (a->zone > b->zone) - (a->zone < b->zone);
}

// Duplicated elements: the zone with the lowest number that repeats an earlier one.
static int CheckDuplicates(const BlastTopology *t, const int *zone_verts) {
  const int nz = t->nzones, nc = 1 << t->dim;
  ZoneKey *keys;
  BlastCall(BlastMalloc((size_t)nz, &keys));
  for (int z = 0; z < nz; z++) {
    for (int i = 0; i < 8; i++) keys[z].v[i] = i < nc ? zone_verts[(size_t)z * nc + i] : -1;
    SortInts(keys[z].v, nc);
    keys[z].zone = z;
  }
  qsort(keys, (size_t)nz, sizeof *keys, CompareZoneKeys);
  int dup = -1, first = -1;  // the lowest repeating zone and the zone it repeats
  for (int i = 1; i < nz; i++) {
    if (memcmp(keys[i].v, keys[i - 1].v, sizeof keys[i].v)) continue;
    int j = i - 1;  // the first of this run: the lowest zone with these vertices
    while (j > 0 && !memcmp(keys[j - 1].v, keys[i].v, sizeof keys[i].v)) j--;
    if (dup < 0 || keys[i].zone < dup) dup = keys[i].zone, first = keys[j].zone;
  }
  BlastFree(&keys);
  BlastCheck(dup < 0, BLAST_ERR_INPUT,
             "zone %d has the same %d vertices as zone %d (a duplicated element): every zone must "
             "appear once in the mesh",
             dup, dup < 0 ? 0 : BlastGeomNumVertices(t->zone_geom[dup]), first);
  return 0;
}

// A facet with one zone that is not a boundary element: zone z's local facet lf (facet f).
typedef struct {
  int z, lf, f;
} Unmatched;

// The corners of zone z's local facet lf in cyclic order (2 in 2D, 3 or 4 in 3D).
static int FacetCycle(const BlastMesh mesh, int z, int lf, int *v) {
  const int nc = 1 << mesh->dim;
  int c[4];
  const int n = FacetCorners(mesh->zone_geom[z], lf, c);
  const int *zv = &mesh->zone_verts[(size_t)z * nc];
  static const int kCycle[4] = {0, 1, 3, 2};  // lexicographic -> cyclic
  for (int i = 0; i < n; i++) v[i] = zv[c[n == 4 ? kCycle[i] : i]];
  return n;
}

// Whether point p lies on triangle (a, b, c) within `tol` (relative to the triangle's size),
// away from its corners.
static int OnTriangle(const double *a, const double *b, const double *c, const double *p,
                      double tol) {
  double u[3], w[3], q[3], n[3];
  for (int i = 0; i < 3; i++) u[i] = b[i] - a[i], w[i] = c[i] - a[i], q[i] = p[i] - a[i];
  n[0] = u[1] * w[2] - u[2] * w[1], n[1] = u[2] * w[0] - u[0] * w[2];
  n[2] = u[0] * w[1] - u[1] * w[0];
  const double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
  const double size2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  if (!(nn > 0.0)) return 0;
  const double dist = (q[0] * n[0] + q[1] * n[1] + q[2] * n[2]) / sqrt(nn);
  if (fabs(dist) > tol * sqrt(size2)) return 0;
  // Barycentric coordinates of the projection.
  const double uu = size2, uw = u[0] * w[0] + u[1] * w[1] + u[2] * w[2],
               ww = w[0] * w[0] + w[1] * w[1] + w[2] * w[2],
               qu = q[0] * u[0] + q[1] * u[1] + q[2] * u[2],
               qw = q[0] * w[0] + q[1] * w[1] + q[2] * w[2], det = uu * ww - uw * uw;
  const double s = (ww * qu - uw * qw) / det, r = (uu * qw - uw * qu) / det;
  return s >= -tol && r >= -tol && s + r <= 1.0 + tol;
}

// Whether vertex p lies on the facet with cyclic corners v (n = 2: a segment; n = 4: a
// quadrilateral, as two triangles) and is none of them: a hanging node of that facet.
static int HangsOn(const BlastMesh mesh, const int *v, int n, int p) {
  const int dim = mesh->dim;
  for (int i = 0; i < n; i++)
    if (v[i] == p) return 0;
  double x[4][3] = {{0}}, y[3] = {0};
  for (int i = 0; i < n; i++)
    for (int d = 0; d < dim; d++) x[i][d] = mesh->coords[(size_t)v[i] * dim + d];
  for (int d = 0; d < dim; d++) y[d] = mesh->coords[(size_t)p * dim + d];
  const double tol = 1e-8;
  if (n == 2) {
    double e[3], q[3], ee = 0.0, qe = 0.0, qq = 0.0;
    for (int d = 0; d < 3; d++) e[d] = x[1][d] - x[0][d], q[d] = y[d] - x[0][d];
    for (int d = 0; d < 3; d++) ee += e[d] * e[d], qe += q[d] * e[d], qq += q[d] * q[d];
    if (!(ee > 0.0)) return 0;
    const double s = qe / ee, off2 = qq - s * qe;  // squared distance from the line
    return s > tol && s < 1.0 - tol && off2 <= tol * tol * ee;
  }
  if (n == 3) return OnTriangle(x[0], x[1], x[2], y, tol);
  return OnTriangle(x[0], x[1], x[2], y, tol) || OnTriangle(x[0], x[2], x[3], y, tol);
}

// Whether the triangular facets v and w (distinct) overlap: w's centroid lies on v (two
// faces that tile one surface touch only along their edges, away from the centroids).
static int Overlaps(const BlastMesh mesh, const int *v, const int *w) {
  const int dim = mesh->dim;
  double x[3][3] = {{0}}, y[3] = {0};
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < dim; d++) {
      x[i][d] = mesh->coords[(size_t)v[i] * dim + d];
      y[d] += mesh->coords[(size_t)w[i] * dim + d] / 3.0;
    }
  return OnTriangle(x[0], x[1], x[2], y, 1e-8);
}

// Among the unmatched facets, the first one on which a vertex of another unmatched facet
// that touches it lies: the big face of a hanging node, or which another unmatched
// triangle overlaps (*other: its index): the two sides split a surface differently (-1:
// none, every unmatched facet lies on the boundary of the domain).
static int FindHanging(const BlastMesh mesh, const Unmatched *um, int n, int *found, int *other) {
  *found = -1, *other = -1;
  const int nv = mesh->nverts;
  int *off, *list;
  BlastCall(BlastCalloc((size_t)nv + 1, &off));
  BlastCall(BlastMalloc((size_t)n * 4 + 1, &list));
  int v[4];
  for (int i = 0; i < n; i++) {
    const int k = FacetCycle(mesh, um[i].z, um[i].lf, v);
    for (int j = 0; j < k; j++) off[v[j] + 1]++;
  }
  for (int i = 0; i < nv; i++) off[i + 1] += off[i];
  int *fill;
  BlastCall(BlastMalloc((size_t)nv + 1, &fill));
  memcpy(fill, off, sizeof(int) * ((size_t)nv + 1));
  for (int i = 0; i < n; i++) {
    const int k = FacetCycle(mesh, um[i].z, um[i].lf, v);
    for (int j = 0; j < k; j++) list[fill[v[j]]++] = i;
  }
  BlastFree(&fill);
  for (int i = 0; i < n && *found < 0; i++) {
    const int k = FacetCycle(mesh, um[i].z, um[i].lf, v);
    for (int j = 0; j < k && *found < 0; j++)
      for (int a = off[v[j]]; a < off[v[j] + 1] && *found < 0; a++) {
        int w[4];
        const int kw = FacetCycle(mesh, um[list[a]].z, um[list[a]].lf, w);
        if (k == 3 && kw == 3 && list[a] != i && Overlaps(mesh, v, w)) {
          *found = i, *other = list[a];
          break;
        }
        for (int b = 0; b < kw; b++)
          if (HangsOn(mesh, v, k, w[b])) {
            *found = i;
            break;
          }
      }
  }
  BlastFree(&off);
  BlastFree(&list);
  return 0;
}

// "reference side x = 0 of the zone" (long) or "side x = 0" (tensor), "opposite its
// vertex 2" (simplex).
static const char *SideText(const BlastTopology *t, int z, int lf, int lng, char *buf) {
  static const char *side[] = {"x = 0", "x = 1", "y = 0", "y = 1", "z = 0", "z = 1"};
  if (BlastGeomIsSimplex(t->zone_geom[z]))
    snprintf(buf, 48, "opposite its vertex %d", lf);
  else
    snprintf(buf, 48, lng ? "reference side %s of the zone" : "side %s", side[lf]);
  return buf;
}

int BlastTopologyCheckConforming(const BlastTopology *t, BlastMesh mesh) {
  BlastCheck(t && mesh && t->nzones == mesh->nzones && t->dim == mesh->dim, BLAST_ERR_ARG,
             "the topology was not built from this mesh");
  BlastCall(CheckDuplicates(t, mesh->zone_verts));
  const int nfacet = t->nfacets, nf = 1 << (t->dim - 1);
  char *boundary;
  BlastCall(BlastCalloc((size_t)nfacet + 1, &boundary));
  // A boundary element that is no face is the reader's error (it names its line): the
  // unmatched-face check waits for it. In 1D there are no hanging nodes, and an end point
  // without a boundary element is a free end.
  int check_unmatched = t->dim >= 2;
  for (int b = 0; b < mesh->nbdr; b++) {
    const int f = BlastTopologyFindFacet(t, &mesh->bdr_verts[(size_t)b * nf]);
    if (f >= 0)
      boundary[f] = 1;
    else
      check_unmatched = 0;
  }
  // The lowest zone with a facet of three or more zones, then the lowest zone with an
  // unmatched facet.
  int bad3 = -1, bad3_facet = -1, nunmatched = 0;
  Unmatched *um = NULL;
  int ierr = 0;
  for (int z = 0; z < t->nzones && bad3 < 0; z++)
    for (int lf = 0; lf < BlastZoneNumFacets(t->zone_geom[z]); lf++) {
      const int f = ZoneFacet(t, mesh->zone_verts, z, lf);
      const int *zones;
      const int n = FacetZones(t, f, &zones);
      if (n > 2 && bad3 < 0) bad3 = z, bad3_facet = f;
      if (n == 1 && !boundary[f] && check_unmatched) {
        if (!um) ierr = BlastMalloc((size_t)2 * t->dim * t->nzones, &um);
        if (ierr) break;
        um[nunmatched++] = (Unmatched){z, lf, f};
      }
    }
  BlastFree(&boundary);
  BlastCall(ierr);
  char text[96];
  if (bad3 >= 0) {
    BlastFree(&um);
    const int *zones;
    const int n = FacetZones(t, bad3_facet, &zones);
    char list[160] = "";
    for (int i = 0, len = 0; i < n && len < (int)sizeof list - 16; i++)
      len += snprintf(list + len, sizeof list - (size_t)len, "%s%d",
                      i ? (i == n - 1 ? " and " : ", ") : "", zones[i]);
    BlastError(BLAST_ERR_INPUT,
               "zone %d: its face with %s is shared by %d zones (%s): a face can belong to at "
               "most two zones (overlapping, duplicated or non-manifold elements)",
               bad3, FacetText(t, bad3_facet, text, sizeof text), n, list);
  }
  if (nunmatched > 0) {
    int hang = -1, other = -1;
    char sides[2][48];
    ierr = FindHanging(mesh, um, nunmatched, &hang, &other);
    if (ierr) {
      BlastFree(&um);
      return ierr;
    }
    if (other >= 0) {
      const Unmatched u = um[hang], o = um[other];
      char text2[96];
      BlastFree(&um);
      BlastError(BLAST_ERR_INPUT,
                 "zone %d: its face with %s (%s) overlaps the face with %s of zone %d without "
                 "matching it: the mesh is not conforming (the zones on either side split a "
                 "common surface into different triangles, e.g. a quadrilateral cut along "
                 "different diagonals); every interior face must be shared by exactly two zones",
                 u.z, FacetText(t, u.f, text, sizeof text), SideText(t, u.z, u.lf, 1, sides[0]),
                 FacetText(t, o.f, text2, sizeof text2), o.z);
    }
    if (hang >= 0) {
      const Unmatched u = um[hang];
      BlastFree(&um);
      BlastError(BLAST_ERR_INPUT,
                 "zone %d: its face with %s (%s) has no "
                 "neighbouring zone and is not a boundary element: the mesh is not conforming "
                 "(a hanging node: the zones across this face do not share its vertices, e.g. a "
                 "neighbour split into smaller zones); blast_gpu needs conforming meshes in "
                 "which every interior face is shared by exactly two zones and every other face "
                 "is listed in the 'boundary' section",
                 u.z, FacetText(t, u.f, text, sizeof text), SideText(t, u.z, u.lf, 1, sides[0]));
    }
    // Every unmatched face lies on the boundary of the domain: the boundary section omits
    // them. Name a few; they are not added silently, since a boundary attribute says which
    // condition holds there, and only the user knows.
    char list[400] = "";
    const int show = nunmatched < 4 ? nunmatched : 4;
    for (int i = 0, len = 0; i < show && len < (int)sizeof list - 1; i++)
      len += snprintf(list + len, sizeof list - (size_t)len, "%szone %d's face with %s (%s)",
                      i ? "; " : "", um[i].z, FacetText(t, um[i].f, text, sizeof text),
                      SideText(t, um[i].z, um[i].lf, 0, sides[1]));
    const int nb = mesh->nbdr;
    BlastFree(&um);
    BlastError(BLAST_ERR_INPUT,
               "%d face(s) on the boundary of the domain are missing from the 'boundary' section "
               "(it lists %d), e.g. %s%s: list every boundary face with the attribute of its "
               "boundary condition (blast_gpu does not add them: an attribute must be one you "
               "chose)",
               nunmatched, nb, list, nunmatched > show ? ", ..." : "");
  }
  return 0;
}
