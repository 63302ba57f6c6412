// H1 and L2 spaces on a rank's zones, with ownership and ghosts (see space.h).
#include "space.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "mesh-impl.h"

typedef struct {
  int64_t gid;
  int eidx;
} GidEntry;

static int CompareInt64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

// Stable LSD radix sort of n entries by gid (>= 0, at most maxkey), 11 bits a pass. The
// threads take contiguous chunks and scatter through exclusive prefix sums over (digit,
// thread), so equal keys keep their order: the result is the unique stable order, the
// same for any number of threads. With the entries in ascending eidx, that is the order
// (gid, eidx).
static int SortByGid(GidEntry *a, size_t n, int64_t maxkey) {
  enum { kBits = 11, kBuckets = 1 << kBits };
  int passes = 0;
  for (int64_t m = maxkey; m > 0; m >>= kBits) passes++;
  if (n < 2 || passes == 0) return 0;
  const int nth = omp_get_max_threads();
  GidEntry *tmp = NULL;
  size_t *hist = NULL;
  int ierr = BlastMalloc(n, &tmp);
  if (!ierr) ierr = BlastMalloc((size_t)nth * kBuckets, &hist);
  if (ierr) {
    BlastFree(&tmp);
    BlastCall(ierr);
  }
  GidEntry *src = a, *dst = tmp;
  for (int p = 0; p < passes; p++) {
    const int shift = kBits * p;
#pragma omp parallel num_threads(nth)
    {
      const int T = omp_get_num_threads(), th = omp_get_thread_num();
      const size_t lo = n * th / T, hi = n * (th + 1) / T;
      size_t *hs = &hist[(size_t)th * kBuckets];
      for (int d = 0; d < kBuckets; d++) hs[d] = 0;
      for (size_t i = lo; i < hi; i++) hs[(src[i].gid >> shift) & (kBuckets - 1)]++;
#pragma omp barrier
#pragma omp single
      {
        size_t sum = 0;
        for (int d = 0; d < kBuckets; d++)
          for (int u = 0; u < T; u++) {
            const size_t c = hist[(size_t)u * kBuckets + d];
            hist[(size_t)u * kBuckets + d] = sum;
            sum += c;
          }
      }
      for (size_t i = lo; i < hi; i++) dst[hs[(src[i].gid >> shift) & (kBuckets - 1)]++] = src[i];
    }
    GidEntry *swap = src;
    src = dst, dst = swap;
  }
  if (src != a) memcpy(a, src, sizeof *a * n);
  BlastFree(&tmp);
  BlastFree(&hist);
  return 0;
}

// b^e for the small powers of this file (children per zone, nodes per zone); callers use
// it only once BlastSpaceCreate has checked that the result fits an int.
static int IPow(int b, int e) {
  int r = 1;
  while (e-- > 0) r *= b;
  return r;
}

// b^e in 64 bits; 0 when it overflows.
static int64_t IPow64(int64_t b, int e) {
  int64_t r = 1;
  while (e-- > 0)
    if (__builtin_mul_overflow(r, b, &r)) return 0;
  return r;
}

// Simplex zones: vertex v of child `child` of its mesh zone in lattice coordinates of
// order N (BlastSimplexChildren).
static const int *ChildVertex(const BlastSpace *s, int child, int v) {
  return &s->simplex_child[((size_t)child * (s->dim + 1) + v) * s->dim];
}

// Lattice index i of order N k of the point with lattice index j of order k (or any real
// point xi * k) of child `child` of a simplex: its affine map in integer coordinates.
static void SimplexChildPoint(const BlastSpace *s, int child, const int *j, int *i) {
  const int *V0 = ChildVertex(s, child, 0);
  for (int g = 0; g < s->dim; g++) i[g] = V0[g] * s->k;
  for (int h = 0; h < s->dim; h++) {
    const int *V = ChildVertex(s, child, h + 1);
    for (int g = 0; g < s->dim; g++) i[g] += j[h] * (V[g] - V0[g]);
  }
}

// Global lattice id (order K = N k) of node a of child `child` of mesh zone `macro`.
static int64_t NodeGid(const BlastSpace *s, int macro, int child, int a) {
  const int geom = s->mesh->zone_geom[macro];
  if (a >= BlastGeomNumNodes(geom, s->k)) a = 0;  // padding of a mixed mesh's smaller zones
  if (BlastGeomIsSimplex(geom)) {
    int i[3];
    SimplexChildPoint(s, child, &s->node_lattice[a * s->dim], i);
    return BlastLatticeId(s->topo, s->mesh->zone_verts, macro, s->N * s->k, i);
  }
  const int n = s->k + 1;
  int i[3];
  for (int g = 0; g < s->dim; g++, a /= n, child /= s->N) i[g] = (child % s->N) * s->k + a % n;
  return BlastLatticeId(s->topo, s->mesh->zone_verts, macro, s->N * s->k, i);
}

// Owner of a dof: the lowest part among the mesh zones that contain it.
static int Owner(const BlastSpace *s, const int *part, int64_t gid) {
  if (!part) return s->rank;
  int own, owner = -1;
  const int *zones;
  const int nzn = BlastLatticeZones(s->topo, s->N * s->k, gid, &own, &zones);
  for (int i = 0; i < nzn; i++)
    if (owner < 0 || part[zones[i]] < owner) owner = part[zones[i]];
  return owner;
}

// Dof categories and sort keys for the local numbering.
typedef struct {
  int64_t gid;
  int first;  // smallest E-index (start of the group in the sorted entries)
  int start, count;
  int cat;  // 0 owned, 1 ghost (local zones), 2 column ghost (halo zones only)
  int owner;
} Group;

static int CompareGroup(const void *pa, const void *pb) {
  const Group *a = pa, *b = pb;
  if (a->cat != b->cat) return a->cat < b->cat ? -1 : 1;
  if (a->cat == 0) return (a->first > b->first) - (a->first < b->first);
  if (a->owner != b->owner) return a->owner < b->owner ? -1 : 1;
  return (a->gid > b->gid) - (a->gid < b->gid);
}

// The entries of e[0..n) (sorted by gid) where a gid starts, ascending: their gids into
// gid (NULL: none), their positions into the start of grp's groups (NULL: none); returns
// their number (0 on an allocation failure, with the error raised). Threads take
// contiguous chunks and write after the starts of the chunks before theirs.
static size_t GidStarts(const GidEntry *e, size_t n, int64_t *gid, Group *grp, int *ierr) {
  const int nth = omp_get_max_threads();
  size_t *before = NULL, total = 0;
  *ierr = BlastCalloc((size_t)nth + 1, &before);
  if (*ierr) return 0;
#pragma omp parallel num_threads(nth)
  {
    const int T = omp_get_num_threads(), th = omp_get_thread_num();
    const size_t lo = n * th / T, hi = n * (th + 1) / T;
    size_t c = 0;
    for (size_t i = lo; i < hi; i++) c += i == 0 || e[i].gid != e[i - 1].gid;
    before[th + 1] = c;
#pragma omp barrier
#pragma omp single
    {
      for (int u = 0; u < T; u++) before[u + 1] += before[u];
      total = before[T];
    }
    size_t k = before[th];
    if (gid || grp)
      for (size_t i = lo; i < hi; i++) {
        if (i != 0 && e[i].gid == e[i - 1].gid) continue;
        if (gid) gid[k] = e[i].gid;
        if (grp) grp[k].start = (int)i;
        k++;
      }
  }
  BlastFree(&before);
  return total;
}

// Halo zones: children of neighbouring mesh zones (sharing a vertex) of other ranks that
// contain at least one dof owned here. Fills macro/child lists (ascending global id).
static int FindHaloZones(BlastSpace *s, const int *part, const int64_t *lgid, int nlgid,
                         const int *lowner, int **hmacro, int **hchild, int *nhalo) {
  const BlastMesh mesh = s->mesh;
  const int nc = 1 << s->dim, nchild = IPow(s->N, s->dim), nd = s->h1_nd;
  // Other ranks' zones around the vertices of this rank's zones, marked on all threads
  // (every mark writes 1), then listed in ascending order.
  unsigned char *mark;
  BlastCall(BlastCalloc((size_t)mesh->nzones + 1, &mark));
#pragma omp parallel for schedule(dynamic, 4096)
  for (int Z = 0; Z < mesh->nzones; Z++) {
    if (part[Z] != s->rank) continue;
    for (int c = 0; c < BlastGeomNumVertices(mesh->zone_geom[Z]); c++) {
      const int v = mesh->zone_verts[(size_t)Z * nc + c];
      for (int j = s->topo->vert_zoff[v]; j < s->topo->vert_zoff[v + 1]; j++) {
        const int Y = s->topo->vert_zones[j];
        if (part[Y] == s->rank) continue;
#pragma omp atomic write
        mark[Y] = 1;
      }
    }
  }
  int nu = 0;
  for (int Y = 0; Y < mesh->nzones; Y++) nu += mark[Y];
  int *cand = NULL;
  BlastCall(BlastMalloc((size_t)nu + 1, &cand));
  nu = 0;
  for (int Y = 0; Y < mesh->nzones; Y++)
    if (mark[Y]) cand[nu++] = Y;
  BlastFree(&mark);
  BlastCall(BlastMalloc((size_t)nu * nchild + 1, hmacro));
  BlastCall(BlastMalloc((size_t)nu * nchild + 1, hchild));
  BlastCall(BlastCalloc((size_t)nu * nchild + 1, &mark));  // keep child c of cand[i]
#pragma omp parallel for schedule(dynamic, 64)
  for (int i = 0; i < nu; i++)
    for (int c = 0; c < nchild; c++) {
      int keep = 0;
      for (int a = 0; a < nd && !keep; a++) {
        const int64_t gid = NodeGid(s, cand[i], c, a);
        const int64_t *hit = bsearch(&gid, lgid, nlgid, sizeof(int64_t), CompareInt64);
        keep = hit && lowner[hit - lgid] == s->rank;
      }
      mark[(size_t)i * nchild + c] = (unsigned char)keep;
    }
  int n = 0;
  for (int i = 0; i < nu; i++)
    for (int c = 0; c < nchild; c++)
      if (mark[(size_t)i * nchild + c]) (*hmacro)[n] = cand[i], (*hchild)[n++] = c;
  BlastFree(&mark);
  *nhalo = n;
  BlastFree(&cand);
  return 0;
}

// Simplex spaces: the children of a mesh zone (lattice subdivision of order N) and the
// lattice index of each node (order k, lattice order).
static int SimplexTables(BlastSpace *s, int nchild) {
  const int dim = s->dim, k = s->k;
  BlastCall(BlastMalloc((size_t)nchild * (dim + 1) * dim, &s->simplex_child));
  BlastSimplexChildren(dim, s->N, s->simplex_child);
  BlastCall(
      BlastMalloc((size_t)BlastGeomNumNodes(BlastGeomSimplex(dim), k) * dim, &s->node_lattice));
  int a = 0;
  for (int i2 = 0; i2 <= (dim == 3 ? k : 0); i2++)
    for (int i1 = 0; i1 + i2 <= k; i1++)
      for (int i0 = 0; i0 + i1 + i2 <= k; i0++, a++) {
        const int i[3] = {i0, i1, i2};
        for (int g = 0; g < dim; g++) s->node_lattice[a * dim + g] = i[g];
      }
  return 0;
}

int BlastSpaceCreate(BlastMesh mesh, const BlastTopology *topo, int k, int m, int rp,
                     const int *part, int rank, BlastSpace **space) {
  BlastCheck(k >= 1 && k <= BLAST_MAX_ORDER, BLAST_ERR_INPUT, "kinematic order %d outside 1..%d", k,
             BLAST_MAX_ORDER);
  BlastCheck(m >= 0 && m < BLAST_MAX_ORDER, BLAST_ERR_INPUT, "thermodynamic order %d outside 0..%d",
             m, BLAST_MAX_ORDER - 1);
  BlastCheck(rp >= 0 && rp <= 12, BLAST_ERR_INPUT, "parallel refinement %d outside 0..12", rp);
  // One zone type, or a 2D mix of triangles and quadrilaterals: every zone padded to the
  // quadrilateral's sizes (space.h).
  int geom = mesh->zone_geom[0], mixed = 0;
  for (int Z = 1; Z < mesh->nzones; Z++) {
    if (mesh->zone_geom[Z] == geom) continue;
    const int a = mesh->zone_geom[Z] < geom ? mesh->zone_geom[Z] : geom;
    const int b = mesh->zone_geom[Z] < geom ? geom : mesh->zone_geom[Z];
    BlastCheck(a == BLAST_GEOM_TRIANGLE && b == BLAST_GEOM_SQUARE, BLAST_ERR_INPUT,
               "the mesh mixes %ss (zone 0) and %ss (zone %d): only triangles and "
               "quadrilaterals may be mixed",
               BlastGeomName(mesh->zone_geom[0]), BlastGeomName(mesh->zone_geom[Z]), Z);
    geom = BLAST_GEOM_SQUARE, mixed = 1;
  }
  BlastSpace *s;
  BlastCall(BlastCalloc(1, &s));
  s->dim = mesh->dim, s->k = k, s->m = m, s->rp = rp, s->N = 1 << rp, s->rank = rank;
  s->mesh = mesh, s->topo = topo, s->geom = geom, s->mixed = mixed;
  const int dim = s->dim;
  s->h1_nd = BlastGeomNumNodes(geom, k), s->l2_nd = BlastGeomNumNodes(geom, m);
  const int nd = s->h1_nd;
  int nmacro = 0;
  for (int Z = 0; Z < mesh->nzones; Z++) nmacro += !part || part[Z] == rank;
  // Every size in 64 bits with overflow checks; the E-vector indices (zone * nd + node)
  // are ints. (BlastCpuMemoryCheck refuses these sizes earlier, on every rank at once.)
  const int64_t nchild64 = IPow64(s->N, dim);
  int64_t nz64 = 0, nodes64 = 0, nzg64 = 0;
  const int fits = nchild64 > 0 && !__builtin_mul_overflow((int64_t)nmacro, nchild64, &nz64) &&
                   !__builtin_mul_overflow(nz64, (int64_t)nd, &nodes64) && nodes64 < INT32_MAX &&
                   !__builtin_mul_overflow((int64_t)mesh->nzones, nchild64, &nzg64);
  if (!fits) {
    BlastFree(&s);
    BlastError(BLAST_ERR_INPUT,
               "[mesh] refine_parallel = %d with [fem] order_kinematic = %d: the %d mesh zones "
               "of this rank refined into %.0f zones of %d nodes each exceed the %d zone nodes a "
               "rank can index (32-bit): lower refine_parallel or refine_serial, or use more "
               "ranks",
               rp, k, nmacro, (double)nmacro * pow(2.0, (double)rp * dim), nd, INT32_MAX);
  }
  const int nchild = (int)nchild64;
  // The quadrilaterals of a mesh mixed with triangles take the triangles' equispaced edge
  // nodes (Gauss-Lobatto's differ from k = 3 on: the traces on shared edges would differ).
  if (s->mixed)
    for (int j = 0; j <= k; j++) s->gll[j] = (double)j / k;
  else
    BlastCall(BlastGaussLobatto(k + 1, s->gll, NULL));
  if (BlastMeshHasSimplices(mesh)) BlastCall(SimplexTables(s, nchild));
  s->nz = (int)nz64;
  s->nz_global = nzg64;
  s->h1_nglobal = BlastLatticeSize(topo, s->N * k);

  // Pass 1: the dofs of this rank's zones, with their owners. Entries (gid, E-index) of
  // the zones in E-index order, sorted stably by gid: the order (gid, E-index).
  size_t nloc = (size_t)s->nz * nd;
  int *lmacro;  // this rank's mesh zones, ascending
  BlastCall(BlastMalloc(nmacro + 1, &lmacro));
  for (int Z = 0, i = 0; Z < mesh->nzones; Z++)
    if (!part || part[Z] == rank) lmacro[i++] = Z;
  GidEntry *eloc;
  const int ierr0 = BlastMalloc(nloc + 1, &eloc);
  if (ierr0) BlastFree(&lmacro);
  BlastCall(ierr0);
#pragma omp parallel for schedule(static)
  for (int z = 0; z < s->nz; z++)
    for (int a = 0; a < nd; a++)
      eloc[(size_t)z * nd + a] =
          (GidEntry){NodeGid(s, lmacro[z / nchild], z % nchild, a), z * nd + a};
  BlastFree(&lmacro);
  BlastCall(SortByGid(eloc, nloc, s->h1_nglobal - 1));
  int64_t *lgid;
  int *lowner, nlgid = 0, ierr1 = 0;
  BlastCall(BlastMalloc(nloc + 1, &lgid));
  nlgid = (int)GidStarts(eloc, nloc, lgid, NULL, &ierr1);
  BlastCall(ierr1);
  BlastCall(BlastMalloc(nlgid + 1, &lowner));
#pragma omp parallel for schedule(static)
  for (int i = 0; i < nlgid; i++) lowner[i] = Owner(s, part, lgid[i]);

  // Pass 2: halo zones (other ranks' zones containing owned dofs).
  int *hmacro = NULL, *hchild = NULL, nhalo = 0;
  if (part) BlastCall(FindHaloZones(s, part, lgid, nlgid, lowner, &hmacro, &hchild, &nhalo));
  BlastCheck(((int64_t)s->nz + nhalo) * nd < INT32_MAX, BLAST_ERR_INPUT,
             "[mesh] refine_parallel = %d with [fem] order_kinematic = %d: %d zones and %d halo "
             "zones of %d nodes each exceed the %d zone nodes a rank can index (32-bit): lower "
             "refine_parallel or refine_serial, or use more ranks",
             rp, k, s->nz, nhalo, nd, INT32_MAX);
  s->nz_ext = s->nz + nhalo;
  BlastCall(BlastMalloc(s->nz_ext, &s->zone_macro));
  BlastCall(BlastMalloc(s->nz_ext, &s->zone_child));
  BlastCall(BlastMalloc(s->nz_ext, &s->zone_gid));
  for (int Z = 0, z = 0; Z < mesh->nzones; Z++) {
    if (part && part[Z] != rank) continue;
    for (int c = 0; c < nchild; c++, z++) s->zone_macro[z] = Z, s->zone_child[z] = c;
  }
  for (int i = 0; i < nhalo; i++)
    s->zone_macro[s->nz + i] = hmacro[i], s->zone_child[s->nz + i] = hchild[i];
  for (int z = 0; z < s->nz_ext; z++)
    s->zone_gid[z] = (int64_t)s->zone_macro[z] * nchild + s->zone_child[z];
  BlastFree(&hmacro);
  BlastFree(&hchild);
  BlastFree(&lgid);
  BlastFree(&lowner);

  // Pass 3: number every dof of every zone: owned, ghosts, column ghosts. The entries of
  // all zones in the order (gid, E-index): the halo zones' entries (E-indices after the
  // local ones) sorted alike and merged in.
  const size_t ne = (size_t)s->nz_ext * nd;
  GidEntry *ent = eloc;
  if (nhalo) {
    GidEntry *eh = NULL;
    int ierr = BlastMalloc(ne - nloc, &eh);
    if (!ierr) ierr = BlastMalloc(ne + 1, &ent);
    if (ierr) {
      BlastFree(&eloc);
      BlastFree(&eh);
      BlastCall(ierr);
    }
    for (int z = s->nz; z < s->nz_ext; z++)
      for (int a = 0; a < nd; a++)
        eh[(size_t)(z - s->nz) * nd + a] =
            (GidEntry){NodeGid(s, s->zone_macro[z], s->zone_child[z], a), z * nd + a};
    ierr = SortByGid(eh, ne - nloc, s->h1_nglobal - 1);
    if (ierr) {
      BlastFree(&eloc);
      BlastFree(&eh);
      BlastFree(&ent);
      BlastCall(ierr);
    }
    for (size_t i = 0, j = 0, o = 0; o < ne; o++)  // equal gids: the local entry first
      ent[o] = j == ne - nloc || (i < nloc && eloc[i].gid <= eh[j].gid) ? eloc[i++] : eh[j++];
    BlastFree(&eloc);
    BlastFree(&eh);
  }
  int ierr3 = 0;
  const int ngroups = (int)GidStarts(ent, ne, NULL, NULL, &ierr3);
  BlastCall(ierr3);
  Group *grp;
  int *order = NULL;
  BlastCall(BlastMalloc(ngroups + 1, &grp));
  BlastCall(BlastMalloc(ngroups + 1, &order));
  GidStarts(ent, ne, NULL, grp, &ierr3);
  BlastCall(ierr3);
  int bad = INT_MAX;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int g = 0; g < ngroups; g++) {
    Group *G = &grp[g];
    G->count = (g + 1 < ngroups ? grp[g + 1].start : (int)ne) - G->start;
    G->gid = ent[G->start].gid, G->first = ent[G->start].eidx;
    const int local = (size_t)G->first < nloc;  // entries ascend by E-index within a group
    G->owner = Owner(s, part, G->gid);
    G->cat = local ? (G->owner == rank ? 0 : 1) : 2;
    if (!local && G->owner == rank && g < bad) bad = g;
  }
  BlastCheck(bad == INT_MAX, BLAST_ERR_INTERNAL,
             "dof %lld owned here but touched only by halo zones", (long long)grp[bad].gid);
  // The local numbering (CompareGroup): owned dofs by first appearance, then ghosts and
  // column ghosts by owner and gid. The owned ones by a radix sort of their first
  // E-indices (distinct), the others (few: the rank's surface) by qsort.
  s->h1_next = ngroups;
  int nown = 0, nl = 0;
#pragma omp parallel for schedule(static) reduction(+ : nown, nl)
  for (int g = 0; g < ngroups; g++) nown += grp[g].cat == 0, nl += grp[g].cat <= 1;
  s->h1_nown = nown, s->h1_nl = nl;
  {
    GidEntry *key = NULL;
    Group *rest = NULL;
    int *before = NULL;  // owned groups in the threads' chunks before each
    const int nth = omp_get_max_threads();
    int ierr = BlastMalloc(s->h1_nown + 1, &key);
    if (!ierr) ierr = BlastMalloc(ngroups - s->h1_nown + 1, &rest);
    if (!ierr) ierr = BlastCalloc((size_t)nth + 1, &before);
    if (!ierr) {
#pragma omp parallel num_threads(nth)
      {  // the owned groups and the others, each in group order
        const int T = omp_get_num_threads(), th = omp_get_thread_num();
        const int lo = (int)((int64_t)ngroups * th / T),
                  hi = (int)((int64_t)ngroups * (th + 1) / T);
        int c = 0;
        for (int g = lo; g < hi; g++) c += grp[g].cat == 0;
        before[th + 1] = c;
#pragma omp barrier
#pragma omp single
        for (int u = 0; u < T; u++) before[u + 1] += before[u];
        for (int g = lo, n0 = before[th], n1 = lo - before[th]; g < hi; g++)
          if (grp[g].cat == 0)
            key[n0++] = (GidEntry){grp[g].first, g};
          else
            rest[n1] = grp[g], rest[n1++].start = g;  // start: the group's index, for now
      }
      ierr = SortByGid(key, s->h1_nown, (int64_t)ne);
    }
    BlastFree(&before);
    if (!ierr) {
      qsort(rest, ngroups - s->h1_nown, sizeof *rest, CompareGroup);
#pragma omp parallel for schedule(static)
      for (int l = 0; l < s->h1_nown; l++) order[l] = key[l].eidx;
      for (int l = s->h1_nown; l < ngroups; l++) order[l] = rest[l - s->h1_nown].start;
    }
    BlastFree(&key);
    BlastFree(&rest);
    BlastCall(ierr);
  }
  BlastCall(BlastMalloc(ne + 1, &s->h1_edof));
  BlastCall(BlastMalloc(ngroups + 1, &s->h1_gid));
  BlastCall(BlastMalloc(ngroups + 1, &s->h1_owner));
  BlastCall(BlastMalloc(s->h1_nl + 1, &s->h1_toff));
  BlastCall(BlastMalloc(nloc + 1, &s->h1_tidx));
  BlastCall(BlastMalloc(s->h1_nown + 1, &s->mass_toff));
  // Offsets of the L-dofs' local entries (a group's leading entries) and of the owned
  // dofs' mass lists (all their entries), then the lists, a dof per thread at a time.
  s->h1_toff[0] = 0, s->mass_toff[0] = 0;
#pragma omp parallel for schedule(static)
  for (int l = 0; l < s->h1_nl; l++) {
    const Group *G = &grp[order[l]];
    int cnt = 0;
    while (cnt < G->count && (size_t)ent[G->start + cnt].eidx < nloc) cnt++;
    s->h1_toff[l + 1] = cnt;
    if (l < s->h1_nown) s->mass_toff[l + 1] = G->count;
  }
  for (int l = 0; l < s->h1_nl; l++) s->h1_toff[l + 1] += s->h1_toff[l];
  for (int l = 0; l < s->h1_nown; l++) s->mass_toff[l + 1] += s->mass_toff[l];
  BlastCall(BlastMalloc((size_t)s->mass_toff[s->h1_nown] + 1, &s->mass_tidx));
#pragma omp parallel for schedule(static)
  for (int l = 0; l < ngroups; l++) {
    const Group *G = &grp[order[l]];
    s->h1_gid[l] = G->gid, s->h1_owner[l] = G->owner;
    for (int j = G->start; j < G->start + G->count; j++) s->h1_edof[ent[j].eidx] = l;
    if (l < s->h1_nl)
      for (int j = 0; j < s->h1_toff[l + 1] - s->h1_toff[l]; j++)
        s->h1_tidx[s->h1_toff[l] + j] = ent[G->start + j].eidx;
    if (l >= s->h1_nown) continue;
    // Mass assembly list, ordered by global zone id (then node).
    int *list = &s->mass_tidx[s->mass_toff[l]];
    for (int j = 0; j < G->count; j++) list[j] = ent[G->start + j].eidx;
    for (int i = 1; i < G->count; i++)  // insertion sort by (zone gid, node)
      for (int j = i; j > 0; j--) {
        const int a = list[j - 1], b = list[j];
        const int64_t za = s->zone_gid[a / nd], zb = s->zone_gid[b / nd];
        if (za < zb || (za == zb && a % nd <= b % nd)) break;
        list[j - 1] = b, list[j] = a;
      }
  }
  BlastFree(&grp);
  BlastFree(&order);
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
  BlastFree(&s->h1_owner);
  BlastFree(&s->h1_toff);
  BlastFree(&s->h1_tidx);
  BlastFree(&s->mass_toff);
  BlastFree(&s->mass_tidx);
  BlastFree(&s->simplex_child);
  BlastFree(&s->node_lattice);
  BlastFree(space);
}

int BlastSpaceZoneGeom(const BlastSpace *s, int z) {
  return s->mesh->zone_geom[s->zone_macro[z]];
}

int BlastSpaceZoneNumNodes(const BlastSpace *s, int z, int p) {
  return BlastGeomNumNodes(BlastSpaceZoneGeom(s, z), p);
}

void BlastSpaceZoneRefToMacro(const BlastSpace *s, int z, const double *xi, double *xi_macro) {
  int child = s->zone_child[z];
  if (BlastGeomIsSimplex(BlastSpaceZoneGeom(s, z))) {
    const int *V0 = ChildVertex(s, child, 0);
    for (int g = 0; g < s->dim; g++) {
      double x = V0[g];
      for (int h = 0; h < s->dim; h++) x += xi[h] * (ChildVertex(s, child, h + 1)[g] - V0[g]);
      xi_macro[g] = s->N == 1 ? x : x / s->N;
    }
    return;
  }
  for (int g = 0; g < s->dim; g++) {
    int cg = child % s->N;
    child /= s->N;
    xi_macro[g] = s->N == 1 ? xi[g] : (cg + xi[g]) / s->N;
  }
}

void BlastSpaceNodeRef(const BlastSpace *s, int z, int a, double *xi) {
  const int n = s->k + 1;
  double local[3];
  if (a >= BlastSpaceZoneNumNodes(s, z, s->k)) a = 0;  // padding (mixed meshes)
  if (BlastGeomIsSimplex(BlastSpaceZoneGeom(s, z))) {
    for (int g = 0; g < s->dim; g++) local[g] = (double)s->node_lattice[a * s->dim + g] / s->k;
  } else {
    for (int g = 0; g < s->dim; g++, a /= n) local[g] = s->gll[a % n];
  }
  BlastSpaceZoneRefToMacro(s, z, local, xi);
}

void BlastSpaceZoneCorner(const BlastSpace *s, int z, int corner, double *x) {
  double xi[3], xm[3];
  const int simplex = BlastGeomIsSimplex(BlastSpaceZoneGeom(s, z));
  for (int g = 0; g < s->dim; g++) xi[g] = simplex ? (corner == g + 1) : (corner >> g) & 1;
  BlastSpaceZoneRefToMacro(s, z, xi, xm);
  BlastMeshZoneMap(s->mesh, s->zone_macro[z], xm, x);
}

int64_t BlastSpaceZoneCornerId(const BlastSpace *s, int z, int corner) {
  int i[3], child = s->zone_child[z];
  if (BlastGeomIsSimplex(BlastSpaceZoneGeom(s, z))) {
    const int *V = ChildVertex(s, child, corner);
    for (int g = 0; g < s->dim; g++) i[g] = V[g] * s->k;
  } else {
    for (int g = 0; g < s->dim; g++, child /= s->N)
      i[g] = (child % s->N + ((corner >> g) & 1)) * s->k;
  }
  return BlastLatticeId(s->topo, s->mesh->zone_verts, s->zone_macro[z], s->N * s->k, i);
}

int BlastSpaceFacetNumNodes(const BlastSpace *s) {
  const int K = s->N * s->k;
  int per_face = 1;
  if (BlastGeomIsSimplex(s->geom)) return BlastGeomNumNodes(BlastGeomSimplex(s->dim - 1), K);
  for (int g = 0; g < s->dim - 1; g++) per_face *= K + 1;
  return per_face;
}

int BlastSpaceFacetNodeIds(const BlastSpace *s, int z, int lf, int64_t *gids) {
  const int dim = s->dim, K = s->N * s->k;
  if (BlastGeomIsSimplex(s->mesh->zone_geom[z])) {
    int n = 0;
    for (int q = 0; q <= (dim == 3 ? K : 0); q++)
      for (int p = 0; p + q <= K; p++) {
        const int pq[2] = {p, q};
        int i[3];
        BlastSimplexFacetPoint(dim, lf, K, pq, i);
        gids[n++] = BlastLatticeId(s->topo, s->mesh->zone_verts, z, K, i);
      }
    return n;
  }
  int64_t per_face = 1;
  for (int g = 0; g < dim - 1; g++) per_face *= K + 1;
  const int g = lf / 2, side = lf % 2;
  int other[2] = {0, 0}, no = 0;
  for (int h = 0; h < dim; h++)
    if (h != g) other[no++] = h;
  for (int64_t p = 0; p < per_face; p++) {
    int i[3];
    i[g] = side * K;
    int64_t r = p;
    for (int o = 0; o < no; o++) i[other[o]] = (int)(r % (K + 1)), r /= K + 1;
    gids[p] = BlastLatticeId(s->topo, s->mesh->zone_verts, z, K, i);
  }
  return (int)per_face;
}

int BlastSpaceEssentialDofs(const BlastSpace *s, int **ess_off, int **ess_idx) {
  const BlastMesh mesh = s->mesh;
  const int dim = s->dim, nf = 1 << (dim - 1);
  // Global ids on every boundary face with attribute 1..dim, per component; then the
  // local dofs whose gid is in the set. The mesh is replicated, so this needs no messages.
  const int64_t per_face = BlastSpaceFacetNumNodes(s);
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
    BlastSpaceFacetNodeIds(s, s->topo->facet_zone[2 * facet], s->topo->facet_zone[2 * facet + 1],
                           &gids[c][ng[c]]);
    ng[c] += (size_t)per_face;
  }
  // Which local dofs are constrained, per component (a dof at a time, in parallel), then
  // their lists in ascending order.
  unsigned char *on;
  BlastCall(BlastMalloc((size_t)s->h1_next + 1, &on));
  for (int c = 0; c < dim; c++) qsort(gids[c], ng[c], sizeof(int64_t), CompareInt64);
  size_t total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
  for (int l = 0; l < s->h1_next; l++) {
    unsigned bits = 0;
    for (int c = 0; c < dim; c++)
      if (bsearch(&s->h1_gid[l], gids[c], ng[c], sizeof(int64_t), CompareInt64))
        bits |= 1u << c, total++;
    on[l] = (unsigned char)bits;
  }
  int ierr = BlastMalloc(dim + 1, ess_off);
  if (!ierr) ierr = BlastMalloc(total + 1, ess_idx);
  if (!ierr) {
    (*ess_off)[0] = 0;
    for (int c = 0, n = 0; c < dim; c++) {
      for (int l = 0; l < s->h1_next; l++)
        if (on[l] >> c & 1) (*ess_idx)[n++] = l;
      (*ess_off)[c + 1] = n;
    }
  }
  for (int c = 0; c < dim; c++) BlastFree(&gids[c]);
  BlastFree(&on);
  BlastCall(ierr);
  return 0;
}
