// Helpers shared by the mesh tests (see meshtest.h).
#include "meshtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The verification meshes of the method spec, section 12 (vertex coordinates per axis,
// zones, boundary faces per attribute, total volume).
const MTSpecMesh mt_spec_meshes[] = {
    {"square01_quad", 2, {3, 3, 1}, {{0, 0.5, 1}, {0, 0.5, 1}, {0}}, 4, {0, 4, 4, 0}, 1.0},
    {"cube01_hex", 3, {3, 3, 3}, {{0, 0.5, 1}, {0, 0.5, 1}, {0, 0.5, 1}}, 8, {0, 8, 8, 8}, 1.0},
    {"rectangle01_quad",
     2,
     {8, 4, 1},
     {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3}, {0}},
     21,
     {0, 6, 14, 0},
     21.0},
    {"box01_hex",
     3,
     {5, 3, 3},
     {{0, 1, 3, 5, 7}, {0, 1.5, 3}, {0, 1.5, 3}},
     16,
     {0, 8, 16, 16},
     63.0},
    {"square_gresho", 2, {3, 3, 1}, {{-0.5, 0, 0.5}, {-0.5, 0, 0.5}, {0}}, 4, {0, 4, 4, 0}, 1.0},
    {"rt2D", 2, {2, 5, 1}, {{0, 0.5}, {-1, -0.5, 0, 0.5, 1}, {0}}, 4, {0, 8, 2, 0}, 1.0},
    {"segment01", 1, {3, 1, 1}, {{0, 0.5, 1}, {0}, {0}}, 2, {0, 2, 0, 0}, 1.0},
};
const int mt_num_spec_meshes = (int)(sizeof mt_spec_meshes / sizeof mt_spec_meshes[0]);

int MTReadMesh(const char *dir, const char *name, BlastMesh *mesh) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.mesh", dir, name);
  BlastCall(BlastMeshRead(path, mesh));
  return 0;
}

// ---------------------------------------------------------------------------------------
// Canonical form: records of integers (attribute, then sorted quantized corner points),
// sorted.

enum { kMaxRec = 1 + 8 * 3 };
typedef struct {
  int64_t k[kMaxRec];
} Record;

static int g_rec_len, g_point_len;
static int CompareRecords(const void *pa, const void *pb) {
  const int64_t *a = ((const Record *)pa)->k, *b = ((const Record *)pb)->k;
  for (int i = 0; i < g_rec_len; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
static int ComparePoints(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;
  for (int i = 0; i < g_point_len; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

// One record per entity: attr (or 0) followed by its `nc` corners' quantized coordinates,
// corners sorted. Returns the record length.
static int BuildRecords(BlastMesh m, int n, int nc, const int *verts, const int *attr,
                        double quantum, Record *rec) {
  const int dim = BlastMeshDim(m);
  const double *x = BlastMeshCoords(m);
  for (int e = 0; e < n; e++) {
    Record *r = &rec[e];
    memset(r, 0, sizeof *r);
    r->k[0] = attr ? attr[e] : 0;
    for (int c = 0; c < nc; c++) {
      int v = verts ? verts[(size_t)e * nc + c] : e;
      for (int g = 0; g < dim; g++)
        r->k[1 + c * dim + g] = llround(x[(size_t)v * dim + g] / quantum);
    }
    g_point_len = dim;
    qsort(&r->k[1], (size_t)nc, sizeof(int64_t) * dim, ComparePoints);
  }
  g_rec_len = 1 + nc * dim;
  qsort(rec, (size_t)n, sizeof *rec, CompareRecords);
  return g_rec_len;
}

static int CompareSets(BlastMesh a, BlastMesh b, int kind, double quantum, char *why, size_t len) {
  static const char *const names[] = {"vertices", "zones", "boundary faces"};
  const int dim = BlastMeshDim(a);
  int na, nb, nc;
  const int *va, *vb, *aa, *ab;
  if (kind == 0) {
    na = BlastMeshNumVertices(a), nb = BlastMeshNumVertices(b), nc = 1;
    va = vb = aa = ab = NULL;
  } else if (kind == 1) {
    na = BlastMeshNumZones(a), nb = BlastMeshNumZones(b), nc = 1 << dim;
    va = BlastMeshZoneVerts(a), vb = BlastMeshZoneVerts(b);
    aa = BlastMeshZoneAttr(a), ab = BlastMeshZoneAttr(b);
  } else {
    na = BlastMeshNumBoundary(a), nb = BlastMeshNumBoundary(b), nc = 1 << (dim - 1);
    va = BlastMeshBdrVerts(a), vb = BlastMeshBdrVerts(b);
    aa = BlastMeshBdrAttr(a), ab = BlastMeshBdrAttr(b);
  }
  if (na != nb) {
    snprintf(why, len, "%d vs %d %s", na, nb, names[kind]);
    return 0;
  }
  Record *ra = malloc(sizeof(Record) * (size_t)(na + 1)),
         *rb = malloc(sizeof(Record) * (size_t)(nb + 1));
  int rl = BuildRecords(a, na, nc, va, aa, quantum, ra);
  BuildRecords(b, nb, nc, vb, ab, quantum, rb);
  int same = 1;
  for (int i = 0; i < na && same; i++) {
    if (memcmp(ra[i].k, rb[i].k, sizeof(int64_t) * rl)) {
      same = 0;
      int n = snprintf(why, len, "%s differ: sorted entry %d: attr %lld / %lld, first corner",
                       names[kind], i, (long long)ra[i].k[0], (long long)rb[i].k[0]);
      for (int g = 0; g < dim && n > 0 && (size_t)n < len; g++)
        n += snprintf(why + n, len - n, " %g/%g", ra[i].k[1 + g] * quantum,
                      rb[i].k[1 + g] * quantum);
    }
  }
  free(ra);
  free(rb);
  return same;
}

int MTSameMesh(BlastMesh a, BlastMesh b, double quantum, char *why, size_t len) {
  if (BlastMeshDim(a) != BlastMeshDim(b)) {
    snprintf(why, len, "dimension %d vs %d", BlastMeshDim(a), BlastMeshDim(b));
    return 0;
  }
  for (int kind = 0; kind < 3; kind++)
    if (!CompareSets(a, b, kind, quantum, why, len)) return 0;
  snprintf(why, len, "same");
  return 1;
}

// ---------------------------------------------------------------------------------------

double MTZoneVolume(BlastMesh mesh, int z) {
  const int dim = BlastMeshDim(mesh);
  const double gp[2] = {0.5 - sqrt(3.0) / 6.0, 0.5 + sqrt(3.0) / 6.0};
  double vol = 0.0;
  for (int p = 0; p < (1 << dim); p++) {
    double xi[3], J[3][3];
    for (int g = 0; g < dim; g++) xi[g] = gp[(p >> g) & 1];
    // The map is linear in each reference coordinate: a column of J is a difference.
    for (int g = 0; g < dim; g++) {
      double lo[3], hi[3], x0[3], x1[3];
      memcpy(lo, xi, sizeof lo), memcpy(hi, xi, sizeof hi);
      lo[g] = 0.0, hi[g] = 1.0;
      BlastMeshZoneMap(mesh, z, lo, x0);
      BlastMeshZoneMap(mesh, z, hi, x1);
      for (int c = 0; c < dim; c++) J[c][g] = x1[c] - x0[c];
    }
    double det = dim == 1   ? J[0][0]
                 : dim == 2 ? J[0][0] * J[1][1] - J[0][1] * J[1][0]
                            : J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                                  J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                                  J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    vol += det / (1 << dim);
  }
  return vol;
}

static const double *g_sort_x;
static int g_sort_dim;
static int CompareByX(const void *pa, const void *pb) {
  double a = g_sort_x[(size_t) * (const int *)pa * g_sort_dim];
  double b = g_sort_x[(size_t) * (const int *)pb * g_sort_dim];
  return (a > b) - (a < b);
}

int MTCountCoincident(BlastMesh mesh, double tol) {
  const int nv = BlastMeshNumVertices(mesh), dim = BlastMeshDim(mesh);
  const double *x = BlastMeshCoords(mesh);
  int *order = malloc(sizeof(int) * (size_t)nv), count = 0;
  for (int v = 0; v < nv; v++) order[v] = v;
  g_sort_x = x, g_sort_dim = dim;
  qsort(order, (size_t)nv, sizeof(int), CompareByX);
  for (int i = 0; i < nv; i++) {
    const double *a = &x[(size_t)order[i] * dim];
    for (int j = i + 1; j < nv; j++) {
      const double *b = &x[(size_t)order[j] * dim];
      if (b[0] - a[0] > tol) break;
      double d2 = 0.0;
      for (int g = 0; g < dim; g++) d2 += (a[g] - b[g]) * (a[g] - b[g]);
      if (d2 <= tol * tol) count++;
    }
  }
  free(order);
  return count;
}

// ---------------------------------------------------------------------------------------

typedef struct {
  int v[4];
} FacetKey;
static int g_facet_len;
static int CompareFacets(const void *pa, const void *pb) {
  const int *a = ((const FacetKey *)pa)->v, *b = ((const FacetKey *)pb)->v;
  for (int i = 0; i < g_facet_len; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
static void SortSmall(int *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      int t = v[j];
      v[j] = v[j - 1], v[j - 1] = t;
    }
}

void MTFacetStats(BlastMesh mesh, int *nsingle, int *nmulti, int *nbdr_not_single) {
  const int dim = BlastMeshDim(mesh), nz = BlastMeshNumZones(mesh), nc = 1 << dim;
  const int nf = 1 << (dim - 1), nbdr = BlastMeshNumBoundary(mesh);
  const int *zv = BlastMeshZoneVerts(mesh), *bv = BlastMeshBdrVerts(mesh);
  size_t n = (size_t)nz * 2 * dim;
  FacetKey *keys = calloc(n, sizeof *keys), *single = calloc(n, sizeof *keys);
  for (int z = 0; z < nz; z++)
    for (int g = 0; g < dim; g++)
      for (int s = 0; s < 2; s++) {
        FacetKey *k = &keys[((size_t)z * dim + g) * 2 + s];
        int m = 0;
        for (int c = 0; c < nc; c++)
          if (((c >> g) & 1) == s) k->v[m++] = zv[(size_t)z * nc + c];
        SortSmall(k->v, nf);
      }
  g_facet_len = nf;
  qsort(keys, n, sizeof *keys, CompareFacets);
  int ns = 0, nm = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && !CompareFacets(&keys[i], &keys[j])) j++;
    if (j - i == 1) single[ns++] = keys[i];
    if (j - i > 2) nm++;
    i = j;
  }
  int missing = 0;
  for (int f = 0; f < nbdr; f++) {
    FacetKey k;
    memset(&k, 0, sizeof k);
    memcpy(k.v, &bv[(size_t)f * nf], sizeof(int) * nf);
    SortSmall(k.v, nf);
    if (!bsearch(&k, single, (size_t)ns, sizeof k, CompareFacets)) missing++;
  }
  free(keys);
  free(single);
  *nsingle = ns, *nmulti = nm, *nbdr_not_single = missing;
}

void MTBoundaryAttrCounts(BlastMesh mesh, int *counts, int maxattr) {
  for (int a = 0; a < maxattr; a++) counts[a] = 0;
  const int *ba = BlastMeshBdrAttr(mesh);
  for (int f = 0; f < BlastMeshNumBoundary(mesh); f++)
    if (ba[f] < maxattr) counts[ba[f]]++;
}

int MTCopyWithAttr(BlastMesh m, const int *zone_attr, BlastMesh *copy) {
  BlastCall(BlastMeshCreate(BlastMeshDim(m), BlastMeshNumVertices(m), BlastMeshCoords(m),
                            BlastMeshNumZones(m), BlastMeshZoneVerts(m),
                            zone_attr ? zone_attr : BlastMeshZoneAttr(m), BlastMeshNumBoundary(m),
                            BlastMeshBdrVerts(m), BlastMeshBdrAttr(m), copy));
  return 0;
}

int MTRandom(uint64_t *state, int n) {
  uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
  *state = x;
  return (int)((x * 0x2545F4914F6CDD1Dull >> 33) % (uint64_t)n);
}

// Symmetries of the reference [0,1]^d: xi_old[perm[h]] = flip[h] ? 1 - xi_new[h] : xi_new[h].
// New corner c' takes old corner c with bit perm[h] of c = bit h of c' xor flip[h].
typedef struct {
  int perm[3], flip[3], det;
} Symmetry;

static int Symmetries(int dim, Symmetry *sym) {
  static const int perms3[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  static const int sign3[6] = {1, -1, -1, 1, 1, -1};
  static const int perms2[2][3] = {{0, 1, 2}, {1, 0, 2}};
  static const int sign2[2] = {1, -1};
  int np = dim == 3 ? 6 : dim == 2 ? 2 : 1, n = 0;
  for (int p = 0; p < np; p++)
    for (int f = 0; f < (1 << dim); f++) {
      Symmetry s = {{0, 1, 2}, {0, 0, 0}, dim == 3 ? sign3[p] : dim == 2 ? sign2[p] : 1};
      for (int h = 0; h < dim; h++) {
        s.perm[h] = dim == 3 ? perms3[p][h] : perms2[p][h];
        s.flip[h] = (f >> h) & 1;
        if (s.flip[h]) s.det = -s.det;
      }
      sym[n++] = s;
    }
  return n;
}

static void ApplySymmetry(int dim, const Symmetry *s, const int *old, int *out) {
  for (int cn = 0; cn < (1 << dim); cn++) {
    int c = 0;
    for (int h = 0; h < dim; h++)
      if (((cn >> h) & 1) ^ s->flip[h]) c |= 1 << s->perm[h];
    out[cn] = old[c];
  }
}

int MTScramble(BlastMesh m, uint64_t seed, BlastMesh *scrambled) {
  const int dim = BlastMeshDim(m), nv = BlastMeshNumVertices(m), nz = BlastMeshNumZones(m);
  const int nb = BlastMeshNumBoundary(m), nc = 1 << dim, nf = 1 << (dim - 1);
  uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
  int *perm = malloc(sizeof(int) * (size_t)nv);  // old id -> new id
  for (int v = 0; v < nv; v++) perm[v] = v;
  for (int v = nv - 1; v > 0; v--) {
    int j = MTRandom(&st, v + 1), t = perm[v];
    perm[v] = perm[j], perm[j] = t;
  }
  double *x = malloc(sizeof(double) * (size_t)nv * dim);
  for (int v = 0; v < nv; v++)
    memcpy(&x[(size_t)perm[v] * dim], &BlastMeshCoords(m)[(size_t)v * dim], sizeof(double) * dim);
  Symmetry zsym[48], fsym[8], rot[24];
  int nzs = Symmetries(dim, zsym), nfs = dim > 1 ? Symmetries(dim - 1, fsym) : 0, nrot = 0;
  for (int i = 0; i < nzs; i++)
    if (zsym[i].det > 0) rot[nrot++] = zsym[i];
  int *zv = malloc(sizeof(int) * (size_t)nz * nc),
      *bv = malloc(sizeof(int) * ((size_t)nb * nf + 1));
  for (int z = 0; z < nz; z++) {
    int old[8];
    for (int c = 0; c < nc; c++) old[c] = perm[BlastMeshZoneVerts(m)[(size_t)z * nc + c]];
    ApplySymmetry(dim, &rot[MTRandom(&st, nrot)], old, &zv[(size_t)z * nc]);
  }
  for (int f = 0; f < nb; f++) {
    int old[4];
    for (int c = 0; c < nf; c++) old[c] = perm[BlastMeshBdrVerts(m)[(size_t)f * nf + c]];
    if (dim > 1)
      ApplySymmetry(dim - 1, &fsym[MTRandom(&st, nfs)], old, &bv[(size_t)f * nf]);
    else
      bv[f] = old[0];
  }
  int ierr = BlastMeshCreate(dim, nv, x, nz, zv, BlastMeshZoneAttr(m), nb, bv, BlastMeshBdrAttr(m),
                             scrambled);
  free(perm), free(x), free(zv), free(bv);
  BlastCall(ierr);
  return 0;
}
