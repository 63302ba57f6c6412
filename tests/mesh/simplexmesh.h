// Test meshes of simplices built in C: the unit square split into triangles (or a
// checkerboard of triangles and quadrilaterals) and the unit cube split into Kuhn
// tetrahedra (6 per cube of an n^3 grid), with randomly numbered vertices, random vertex
// order inside each simplex (kept positive), zone attributes z % 3 + 1 and boundary faces
// with the legacy attribute c + 1 on the sides normal to axis c.
#ifndef BLAST_TEST_SIMPLEXMESH_H
#define BLAST_TEST_SIMPLEXMESH_H

#include <stdlib.h>
#include <string.h>

#include "blast.h"
#include "geom.h"
#include "memory.h"
#include "mesh.h"
#include "topology.h"

static unsigned sm_seed = 2024;
static int SMRand(int n) {
  sm_seed = sm_seed * 1103515245u + 12345u;
  return (int)((sm_seed >> 8) % (unsigned)n);
}

// Orientation of simplex v (vertex ids) with coordinates x (dim per vertex).
static double SMDet(int dim, const double *x, const int *v) {
  double e[3][3];
  for (int a = 0; a < dim; a++)
    for (int c = 0; c < dim; c++) e[a][c] = x[v[a + 1] * dim + c] - x[v[0] * dim + c];
  if (dim == 2) return e[0][0] * e[1][1] - e[0][1] * e[1][0];
  return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
         e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

// Shuffle the vertices of a simplex and make it positive again.
static void SMShuffle(int dim, const double *x, int *v) {
  for (int a = dim; a > 0; a--) {
    const int b = SMRand(a + 1), t = v[a];
    v[a] = v[b], v[b] = t;
  }
  if (SMDet(dim, x, v) < 0) {
    const int t = v[0];
    v[0] = v[1], v[1] = t;
  }
}

// mode 0: all simplices; 1 (2D): quadrilaterals where (i + j) is even; flip_y (3D): the
// cubes with i >= n/2 use the Kuhn split of the cube mirrored in y (their faces at
// x = (n/2)/n do not match the neighbours': a non-conforming mesh). scramble: random
// vertex numbers and orders.
static int SMBox(int dim, int n, int mode, int flip_y, int scramble, BlastMesh *out) {
  const int n1 = n + 1, nv = dim == 2 ? n1 * n1 : n1 * n1 * n1, nc = 1 << dim;
  const int maxz = dim == 2 ? 2 * n * n : 6 * n * n * n;
  double *x = malloc(sizeof(double) * nv * dim);
  int *perm = malloc(sizeof(int) * nv), *zv = malloc(sizeof(int) * maxz * nc);
  unsigned char *zg = malloc(maxz);
  int *za = malloc(sizeof(int) * maxz), nz = 0;
  for (int v = 0; v < nv; v++) {
    perm[v] = v;
    for (int c = 0, r = v; c < dim; c++, r /= n1) x[v * dim + c] = (double)(r % n1) / n;
  }
  if (scramble)
    for (int v = nv - 1; v > 0; v--) {
      const int b = SMRand(v + 1), t = perm[v];
      perm[v] = perm[b], perm[b] = t;
    }
  double *xs = malloc(sizeof(double) * nv * dim);  // coordinates by new id
  for (int v = 0; v < nv; v++) memcpy(&xs[perm[v] * dim], &x[v * dim], sizeof(double) * dim);
  if (dim == 2) {
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        const int c[4] = {perm[j * n1 + i], perm[j * n1 + i + 1], perm[(j + 1) * n1 + i],
                          perm[(j + 1) * n1 + i + 1]};
        if (mode == 1 && (i + j) % 2 == 0) {
          memcpy(&zv[nz * 4], c, sizeof c), zg[nz] = BLAST_GEOM_SQUARE, nz++;
          continue;
        }
        const int d = scramble ? SMRand(2) : 0;  // which diagonal
        const int t[2][3] = {{c[0], c[1], d ? c[2] : c[3]}, {d ? c[1] : c[0], c[3], c[2]}};
        for (int s = 0; s < 2; s++) {
          int *o = &zv[nz * 4];
          memcpy(o, t[s], sizeof t[s]), o[3] = -1;
          if (SMDet(2, xs, o) < 0) o[1] = t[s][2], o[2] = t[s][1];
          if (scramble) SMShuffle(2, xs, o);
          zg[nz++] = BLAST_GEOM_TRIANGLE;
        }
      }
  } else {
    static const int kPerm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
          for (int p = 0; p < 6; p++) {
            const int flip = flip_y && i >= n / 2;
            int b[3] = {0, 0, 0}, *o = &zv[nz * 8];
            for (int a = 0; a < 4; a++) {
              if (a > 0) b[kPerm[p][a - 1]] = 1;
              const int yy = flip ? 1 - b[1] : b[1];
              o[a] = perm[((k + b[2]) * n1 + j + yy) * n1 + i + b[0]];
            }
            for (int a = 4; a < 8; a++) o[a] = -1;
            if (SMDet(3, xs, o) < 0) {
              const int t = o[1];
              o[1] = o[2], o[2] = t;
            }
            if (scramble) SMShuffle(3, xs, o);
            zg[nz++] = BLAST_GEOM_TETRAHEDRON;
          }
  }
  for (int z = 0; z < nz; z++) za[z] = z % 3 + 1;
  // Boundary faces: facets whose corners all lie on one side of the box.
  const int nf = nc / 2;
  int *bv = malloc(sizeof(int) * nz * 6 * nf), *ba = malloc(sizeof(int) * nz * 6), nb = 0;
  unsigned char *bg = malloc(nz * 6);
  for (int z = 0; z < nz; z++)
    for (int lf = 0; lf < BlastZoneNumFacets(zg[z]); lf++) {
      int corners[4], v[4] = {-1, -1, -1, -1};
      const int m = BlastZoneFacetCorners(zg[z], lf, corners);
      for (int a = 0; a < m; a++) v[a] = zv[z * nc + corners[a]];
      for (int c = 0; c < dim; c++)
        for (int side = 0; side < 2; side++) {
          int on = 1;
          for (int a = 0; a < m; a++) on = on && xs[v[a] * dim + c] == side;
          if (!on) continue;
          memcpy(&bv[nb * nf], v, sizeof(int) * nf);
          bg[nb] = m == 2 ? BLAST_GEOM_SEGMENT : m == 3 ? BLAST_GEOM_TRIANGLE : BLAST_GEOM_SQUARE;
          ba[nb++] = c + 1;
        }
    }
  const BlastMeshDesc d = {.dim = dim,
                           .nverts = nv,
                           .nzones = nz,
                           .nbdr = nb,
                           .coords = xs,
                           .zone_verts = zv,
                           .zone_geom = zg,
                           .zone_attr = za,
                           .bdr_verts = bv,
                           .bdr_geom = bg,
                           .bdr_attr = ba};
  const int ierr = BlastMeshCreateFrom(&d, out);
  free(x), free(xs), free(perm), free(zv), free(zg), free(za), free(bv), free(ba), free(bg);
  return ierr;
}

#endif  // BLAST_TEST_SIMPLEXMESH_H
