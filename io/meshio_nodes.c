// Curved MFEM meshes: MFEM's H1 `nodes` of order p to nodes in lattice order (see
// meshio-nodes.h).
//
// MFEM numbers the dofs of an H1 space as: one per vertex (the vertex number), then p-1
// per edge (edges numbered by first appearance in the element loop, each element's edges
// in MFEM's local order; dofs from the edge's lower vertex number to the higher), then
// (p-1)^2 per quadrilateral face in 3D (faces numbered by first appearance; dofs
// lexicographic in the frame of the face as the first element lists it), then each
// element's interior dofs (lexicographic, elements in order). Tensor dofs sit at
// Gauss-Lobatto points (or equispaced ones for uniform collections).
#include "meshio-nodes.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "blast.h"
#include "geom.h"
#include "geom_basis.h"
#include "linalg.h"
#include "memory.h"

int BlastMfemCollection(const char *name, int dim, int *p, int *uniform, char *why, size_t len) {
  *uniform = 0;
  if (!strcmp(name, "Linear")) return *p = 1, 0;
  if (!strcmp(name, "Quadratic")) return *p = 2, 0;
  // H1_<d>D_P<k>; H1@<b>_<d>D_P<k> with MFEM's basis letter b: G (Gauss-Lobatto, the
  // default) or U (closed uniform) for k > 1; H1Pos_ (Bernstein, not nodal) only for k = 1.
  const char *s = name;
  int pos = 0;
  char basis = 'G';
  if (!strncmp(s, "H1Pos_", 6)) {
    s += 5, pos = 1;
  } else if (!strncmp(s, "H1@", 3)) {
    basis = s[3];
    s += 3;
    while (*s && *s != '_') s++;
    if (s != name + 4) basis = '?';
  } else if (!strncmp(s, "H1_", 3)) {
    s += 2;
  } else {
    snprintf(why, len, "not an H1 collection (expected Linear, Quadratic or H1_%dD_P<order>)", dim);
    return 1;
  }
  int d = 0, k = 0, n = 0;
  if (sscanf(s, "_%dD_P%d%n", &d, &k, &n) != 2 || s[n] != '\0' || k < 1) {
    snprintf(why, len, "expected Linear, Quadratic or H1_%dD_P<order>", dim);
    return 1;
  }
  if (d != dim) {
    snprintf(why, len, "the collection is for dimension %d (expected H1_%dD_P<order>)", d, dim);
    return 1;
  }
  if (k > 1 && !pos && basis != 'G' && basis != 's' && basis != 'U') {
    snprintf(why, len,
             "order %d with MFEM basis '%s' (curved nodes: Gauss-Lobatto H1_ or H1@G_, or "
             "uniform H1@U_)",
             k, name + 3);
    return 1;
  }
  *uniform = basis == 'U';
  if (k > BLAST_MAX_CURVE_ORDER || (pos && k > 1) || (dim == 1 && k > 1)) {
    snprintf(why, len, "order %d%s: blast_gpu reads curved nodes of orders 2..%d in 2D and 3D", k,
             pos && k > 1 ? " with the positive (Bernstein) basis" : "", BLAST_MAX_CURVE_ORDER);
    return 1;
  }
  *p = k;
  return 0;
}

// MFEM's local edges and hexahedron faces, in MFEM's local vertex numbers.
static const int kTriEdges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
static const int kQuadEdges[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
static const int kTetEdges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const int kHexEdges[12][2] = {{0, 1}, {1, 2}, {3, 2}, {0, 3}, {4, 5}, {5, 6},
                                     {7, 6}, {4, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
static const int kHexFaces[6][4] = {{3, 2, 1, 0}, {0, 1, 5, 4}, {1, 2, 6, 5},
                                    {2, 3, 7, 6}, {3, 0, 4, 7}, {4, 5, 6, 7}};
// Lexicographic corner of MFEM's local vertex k (tensor zones; its own inverse).
static const int kLexToMfem[8] = {0, 1, 3, 2, 4, 5, 7, 6};

// Open-addressing table of sorted vertex tuples (edges: 2, faces: 4) -> number.
typedef struct {
  int width, cap, count;
  int *keys;   // [cap*width], -1: empty
  int *val;    // [cap] number; for faces the first lister's vertices follow in frame
  int *frame;  // [cap*4] (faces)
} Table;

static uint64_t Hash(const int *k, int w) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < w; i++) h = (h ^ (uint64_t)(uint32_t)k[i]) * 1099511628211ull;
  return h ^ (h >> 29);
}

static int TableInit(Table *t, int width, int64_t n) {
  t->width = width, t->count = 0, t->cap = 16;
  while (t->cap < 2 * n + 16) t->cap *= 2;
  t->keys = NULL, t->val = NULL, t->frame = NULL;
  int ierr = BlastMalloc((size_t)t->cap * width, &t->keys);
  if (!ierr) ierr = BlastMalloc((size_t)t->cap, &t->val);
  if (!ierr && width == 4) ierr = BlastMalloc((size_t)t->cap * 4, &t->frame);
  if (!ierr) memset(t->keys, 0xff, sizeof(int) * (size_t)t->cap * width);
  return ierr;
}

static void TableFree(Table *t) {
  BlastFree(&t->keys);
  BlastFree(&t->val);
  BlastFree(&t->frame);
}

// The slot of the tuple v (unsorted, w entries); inserts it (numbered in order) if new.
static int TableFind(Table *t, const int *v, int insert) {
  int k[4];
  const int w = t->width;
  for (int i = 0; i < w; i++) {
    int x = v[i], j = i;
    while (j > 0 && k[j - 1] > x) k[j] = k[j - 1], j--;
    k[j] = x;
  }
  size_t s = (size_t)(Hash(k, w) & (uint64_t)(t->cap - 1));
  for (;; s = (s + 1) & (size_t)(t->cap - 1)) {
    int *key = &t->keys[s * w];
    if (key[0] == -1) {
      if (!insert) return -1;
      memcpy(key, k, sizeof(int) * w);
      t->val[s] = t->count++;
      if (t->frame) memcpy(&t->frame[s * 4], v, sizeof(int) * 4);
      return (int)s;
    }
    if (!memcmp(key, k, sizeof(int) * w)) return (int)s;
  }
}

// Global vertex of MFEM local vertex k of zone z.
static int MfemVertex(const int *zv, int nc, int z, int geom, int k) {
  return zv[(size_t)z * nc + (BlastGeomIsSimplex(geom) ? k : kLexToMfem[k])];
}

int BlastMfemNodeDofs(int dim, int nverts, int nzones, const int *zv, const unsigned char *zgeom,
                      int p, int *zone_dofs, int *ndofs, int *bad_zone) {
  const int nc = 1 << dim, stride = BlastGeomNumNodes(BlastGeomTensor(dim), p);
  *bad_zone = -1;
  for (int z = 0; z < nzones; z++) {
    const int g = zgeom ? zgeom[z] : BlastGeomTensor(dim);
    if ((g == BLAST_GEOM_TETRAHEDRON && p > 2) || dim == 1) {
      *bad_zone = z;
      BlastError(BLAST_ERR_INPUT,
                 "curved %s of order %d: blast_gpu reads curved tetrahedra of order 2 and "
                 "curved triangles, quadrilaterals and hexahedra of orders 2..%d",
                 BlastGeomName(g), p, BLAST_MAX_CURVE_ORDER);
    }
  }
  Table edges = {0}, faces = {0};
  int ierr = TableInit(&edges, 2, (int64_t)nzones * (dim == 3 ? 12 : 4));
  if (!ierr && dim == 3) ierr = TableInit(&faces, 4, (int64_t)nzones * 6);
  if (ierr) {
    TableFree(&edges);
    TableFree(&faces);
    BlastCall(ierr);
  }
  // Edges and faces numbered as MFEM numbers them; interior dof offsets.
  for (int z = 0; z < nzones; z++) {
    const int g = zgeom ? zgeom[z] : BlastGeomTensor(dim);
    const int(*e)[2] = g == BLAST_GEOM_TRIANGLE      ? kTriEdges
                       : g == BLAST_GEOM_SQUARE      ? kQuadEdges
                       : g == BLAST_GEOM_TETRAHEDRON ? kTetEdges
                                                     : kHexEdges;
    const int ne = g == BLAST_GEOM_TRIANGLE ? 3 : g == BLAST_GEOM_SQUARE ? 4 : g == 4 ? 6 : 12;
    for (int j = 0; j < ne; j++) {
      int v[2] = {MfemVertex(zv, nc, z, g, e[j][0]), MfemVertex(zv, nc, z, g, e[j][1])};
      TableFind(&edges, v, 1);
    }
    if (g == BLAST_GEOM_CUBE)
      for (int j = 0; j < 6; j++) {
        int v[4];
        for (int c = 0; c < 4; c++) v[c] = MfemVertex(zv, nc, z, g, kHexFaces[j][c]);
        TableFind(&faces, v, 1);
      }
  }
  const int64_t q = p - 1, edge0 = nverts, face0 = edge0 + (int64_t)edges.count * q;
  int64_t next = face0 + (int64_t)faces.count * q * q;
  for (int z = 0; z < nzones && !ierr; z++) {
    const int g = zgeom ? zgeom[z] : BlastGeomTensor(dim), nn = BlastGeomNumNodes(g, p);
    const int *V = &zv[(size_t)z * nc];
    int64_t interior = 0;
    for (int a = 0; a < stride; a++) {
      int64_t dof = -1;
      if (a >= nn) {
        zone_dofs[(size_t)z * stride + a] = -1;
        continue;
      }
      int i[3] = {0, 0, 0};
      if (BlastGeomIsSimplex(g)) {
        double xi[3] = {0.0, 0.0, 0.0};
        BlastGeomNode(g, p, a, xi);
        for (int h = 0; h < dim; h++) i[h] = (int)lround(xi[h] * p);
        int b[4] = {p - i[0] - i[1] - i[2], i[0], i[1], i[2]}, s[4], ns = 0;
        for (int k = 0; k <= dim; k++)
          if (b[k]) s[ns++] = k;
        if (ns == 1) {
          dof = V[s[0]];
        } else if (ns == 2) {  // on the edge s[0] s[1], b[s[1]] steps from V[s[0]]
          int v[2] = {V[s[0]], V[s[1]]}, t = b[s[1]];
          const int slot = TableFind(&edges, v, 0);
          dof = edge0 + edges.val[slot] * q + (v[0] < v[1] ? t : p - t) - 1;
        } else {  // a triangle's interior: MFEM's order, i[1] outer, i[0] inner
          int64_t k = i[0] - 1;
          for (int j = 1; j < i[1]; j++) k += p - 1 - j;
          dof = next + k;
          interior++;
        }
      } else {
        int fixed = 0, freed[3], nfree = 0;
        for (int h = 0, r = a; h < dim; h++, r /= p + 1) {
          i[h] = r % (p + 1);
          if (i[h] == 0 || i[h] == p)
            fixed |= (i[h] == p) << h;
          else
            freed[nfree++] = h;
        }
        if (nfree == 0) {
          dof = V[fixed];
        } else if (nfree == 1) {
          const int f = freed[0];
          int v[2] = {V[fixed], V[fixed | (1 << f)]};
          const int slot = TableFind(&edges, v, 0), t = i[f];
          dof = edge0 + edges.val[slot] * q + (v[0] < v[1] ? t : p - t) - 1;
        } else if (nfree == 2 && dim == 3) {
          // The face's frame: corners (0,0) (1,0) (1,1) (0,1) of the first lister.
          static const int fpos[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
          const int f1 = freed[0], f2 = freed[1];
          int v[4], P[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
          for (int c = 0; c < 4; c++) v[c] = V[fixed | ((c & 1) << f1) | ((c >> 1) << f2)];
          const int slot = TableFind(&faces, v, 0);
          for (int c = 0; c < 4; c++)
            for (int k = 0; k < 4; k++)
              if (faces.frame[slot * 4 + k] == v[c]) P[c][0] = fpos[k][0], P[c][1] = fpos[k][1];
          int ci[2];
          for (int d = 0; d < 2; d++)
            ci[d] = P[0][d] * p + (P[1][d] - P[0][d]) * i[f1] + (P[2][d] - P[0][d]) * i[f2];
          dof = face0 + faces.val[slot] * q * q + (ci[1] - 1) * q + (ci[0] - 1);
        } else {
          int64_t k = 0;
          for (int h = dim - 1; h >= 0; h--) k = k * q + (i[h] - 1);
          dof = next + k;
          interior++;
        }
      }
      zone_dofs[(size_t)z * stride + a] = (int)dof;
    }
    next += interior;
    if (next >= INT32_MAX) {
      *bad_zone = z;
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                             "the curved nodes of order %d have more than %d dofs", p, INT32_MAX);
    }
  }
  TableFree(&edges);
  TableFree(&faces);
  BlastCall(ierr);
  *ndofs = (int)next;
  return 0;
}

// Gauss-Lobatto points of order p on [0,1] (p <= 4), or the equispaced ones.
static void Points1D(int p, int uniform, double *x) {
  for (int i = 0; i <= p; i++) x[i] = (double)i / p;
  if (uniform) return;
  if (p == 3) x[1] = 0.5 - 0.5 / sqrt(5.0), x[2] = 0.5 + 0.5 / sqrt(5.0);
  if (p == 4) x[1] = 0.5 - 0.5 * sqrt(3.0 / 7.0), x[3] = 0.5 + 0.5 * sqrt(3.0 / 7.0);
}

void BlastMfemNodesToLattice(int dim, int nzones, const unsigned char *zone_geom, int p,
                             int uniform, const int *zone_dofs, const double *values,
                             double *node_coords) {
  const int stride = BlastGeomNumNodes(BlastGeomTensor(dim), p);
  double x[BLAST_MAX_CURVE_ORDER + 1], L[BLAST_MAX_CURVE_ORDER + 1][BLAST_MAX_CURVE_ORDER + 1];
  Points1D(p, uniform, x);
  // L[i][j]: the Lagrange polynomial of point j at i/p.
  for (int i = 0; i <= p; i++)
    for (int j = 0; j <= p; j++) {
      double l = 1.0;
      for (int m = 0; m <= p; m++)
        if (m != j) l *= ((double)i / p - x[m]) / (x[j] - x[m]);
      L[i][j] = l;
    }
  const int exact = uniform || p <= 2;  // the dofs sit at the lattice points
  // Triangles of order p >= 3 at Gauss-Lobatto points: MFEM's node of lattice index
  // (i0, i1, i2 = p - i0 - i1) at (x[i0], x[i1]) / (x[i0] + x[i1] + x[i2]); the values at
  // the lattice points are Tinv times the dof values, T[m][a] = the equispaced Lagrange
  // function a at MFEM's node m (column-major).
  enum { kTriMax = (BLAST_MAX_CURVE_ORDER + 1) * (BLAST_MAX_CURVE_ORDER + 2) / 2 };
  double T[kTriMax * kTriMax], Tinv[kTriMax * kTriMax], work[2 * kTriMax * kTriMax];
  int piv[kTriMax], tri_ok = 0;
  const int ntri = BlastGeomNumNodes(BLAST_GEOM_TRIANGLE, p);
  if (!exact && dim == 2) {
    for (int m = 0; m < ntri; m++) {
      double xi[2], phi[kTriMax];
      BlastGeomNode(BLAST_GEOM_TRIANGLE, p, m, xi);
      const int i0 = (int)lround(xi[0] * p), i1 = (int)lround(xi[1] * p);
      const double w = x[i0] + x[i1] + x[p - i0 - i1];
      xi[0] = x[i0] / w, xi[1] = x[i1] / w;
      BlastGeomLagrange(BLAST_GEOM_TRIANGLE, p, xi, phi, NULL);
      for (int a = 0; a < ntri; a++) T[a * ntri + m] = phi[a];
    }
    tri_ok = !BlastDenseInverseWork(ntri, T, Tinv, work, piv);
  }
  for (int z = 0; z < nzones; z++) {
    const int g = zone_geom ? zone_geom[z] : BlastGeomTensor(dim), nn = BlastGeomNumNodes(g, p);
    const int *D = &zone_dofs[(size_t)z * stride];
    for (int a = 0; a < nn; a++) {
      double *X = &node_coords[(size_t)D[a] * dim];
      if (!exact && g == BLAST_GEOM_TRIANGLE && tri_ok && a != 0 && a != p && a != ntri - 1) {
        double acc[2] = {0.0, 0.0};
        for (int m = 0; m < ntri; m++)
          for (int c = 0; c < 2; c++) acc[c] += Tinv[m * ntri + a] * values[(size_t)D[m] * 2 + c];
        memcpy(X, acc, sizeof acc);
        continue;
      }
      if (exact || BlastGeomIsSimplex(g)) {
        memcpy(X, &values[(size_t)D[a] * dim], sizeof(double) * dim);
        continue;
      }
      int i[3] = {0, 0, 0};
      for (int h = 0, r = a; h < dim; h++, r /= p + 1) i[h] = r % (p + 1);
      double acc[3] = {0.0, 0.0, 0.0};
      for (int b = 0; b < stride; b++) {
        double w = 1.0;
        for (int h = 0, r = b; h < dim; h++, r /= p + 1) w *= L[i[h]][r % (p + 1)];
        if (w == 0.0) continue;
        for (int c = 0; c < dim; c++) acc[c] += w * values[(size_t)D[b] * dim + c];
      }
      memcpy(X, acc, sizeof(double) * dim);
    }
  }
}
