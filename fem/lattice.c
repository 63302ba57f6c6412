// Lattice subdivision of simplices and the lattice points of simplex facets (see
// topology.h).
#include "topology.h"

// Integer determinant of the edge vectors of a child (dim 2 or 3).
static long Det(int dim, const int (*v)[3]) {
  long e[3][3];
  for (int a = 0; a < dim; a++)
    for (int c = 0; c < dim; c++) e[a][c] = v[a + 1][c] - v[0][c];
  if (dim == 2) return e[0][0] * e[1][1] - e[0][1] * e[1][0];
  return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
         e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

// Append the child with vertices p[0..dim] (lattice coordinates), made positive.
static void Put(int dim, int (*p)[3], int *out, int64_t *n) {
  if (Det(dim, (const int(*)[3])p) < 0)
    for (int c = 0; c < 3; c++) {
      const int tmp = p[1][c];
      p[1][c] = p[2][c], p[2][c] = tmp;
    }
  int *o = &out[*n * (dim + 1) * dim];
  for (int a = 0; a <= dim; a++)
    for (int c = 0; c < dim; c++) o[a * dim + c] = p[a][c];
  (*n)++;
}

int64_t BlastSimplexChildren(int dim, int K, int *verts) {
  int64_t n = 0;
  if (dim == 1) {
    for (int i = 0; i < K; i++) verts[2 * i] = i, verts[2 * i + 1] = i + 1;
    return K;
  }
  if (dim == 2) {
    for (int j = 0; j < K; j++)
      for (int i = 0; i + j < K; i++) {
        int up[3][3] = {{i, j, 0}, {i + 1, j, 0}, {i, j + 1, 0}};
        Put(2, up, verts, &n);
        if (i + j > K - 2) continue;
        int down[3][3] = {{i + 1, j + 1, 0}, {i, j + 1, 0}, {i + 1, j, 0}};
        Put(2, down, verts, &n);
      }
    return n;
  }
  for (int k = 0; k < K; k++)
    for (int j = 0; j + k < K; j++)
      for (int i = 0; i + j + k < K; i++) {
        const int s = i + j + k;
        int up[4][3] = {{i, j, k}, {i + 1, j, k}, {i, j + 1, k}, {i, j, k + 1}};
        Put(3, up, verts, &n);
        if (s > K - 2) continue;
        // The octahedron between the levels s+1 and s+2, split along its diagonal a-f
        // around the ring b, c, e, d.
        const int a[3] = {i + 1, j, k}, b[3] = {i, j + 1, k}, c[3] = {i, j, k + 1},
                  d[3] = {i + 1, j + 1, k}, e[3] = {i + 1, j, k + 1}, f[3] = {i, j + 1, k + 1};
        const int *ring[5] = {b, c, e, d, b};
        for (int r = 0; r < 4; r++) {
          int t[4][3];
          for (int x = 0; x < 3; x++)
            t[0][x] = a[x], t[1][x] = f[x], t[2][x] = ring[r][x], t[3][x] = ring[r + 1][x];
          Put(3, t, verts, &n);
        }
        if (s > K - 3) continue;
        int down[4][3] = {
            {i + 1, j + 1, k}, {i + 1, j, k + 1}, {i, j + 1, k + 1}, {i + 1, j + 1, k + 1}};
        Put(3, down, verts, &n);
      }
  return n;
}

void BlastSimplexFacetPoint(int dim, int facet, int K, const int *p, int *i) {
  int b[4] = {0, 0, 0, 0}, c[3], sum = 0, n = 0;
  for (int v = 0; v <= dim; v++)
    if (v != facet) c[n++] = v;
  for (int g = 0; g < dim - 1; g++) b[c[g + 1]] = p[g], sum += p[g];
  b[c[0]] = K - sum;
  for (int g = 0; g < dim; g++) i[g] = b[g + 1];
}
