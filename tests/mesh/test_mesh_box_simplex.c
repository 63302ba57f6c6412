// The box split into simplices ([mesh] generator = box_simplex, BlastMeshCreateBoxSimplex):
// counts, every simplex positively oriented (det computed here from the vertices), the
// volumes adding up to the box's, and conformity checked here from scratch: every facet
// (sorted vertex set) belongs to one or two simplices, and the facets of one simplex are
// exactly the boundary faces, each with the attribute of the box face it lies on.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meshio.h"
#include "testlib.h"

typedef struct {
  int v[3], count, bdr;
} Facet;

static int CmpFacet(const void *a, const void *b) {
  const Facet *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x->v[i] != y->v[i]) return x->v[i] < y->v[i] ? -1 : 1;
  return 0;
}

static void Sort3(int *v, int n) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (v[j] < v[i]) {
        int t = v[i];
        v[i] = v[j], v[j] = t;
      }
}

static int Check(int dim, const int *n, const double *size) {
  BlastMesh m;
  if (BlastMeshCreateBoxSimplex(dim, n, size, &m)) {
    printf("create failed: %s\n", BlastErrorMessage());
    return 1;
  }
  const int nz = BlastMeshNumZones(m), nb = BlastMeshNumBoundary(m), nc = 1 << dim;
  const int nf = 1 << (dim - 1);
  const int *zv = BlastMeshZoneVerts(m), *bv = BlastMeshBdrVerts(m), *ba = BlastMeshBdrAttr(m);
  const double *X = BlastMeshCoords(m);
  int boxz = 1, boxf = 0, fails = 0;
  for (int g = 0; g < dim; g++) boxz *= n[g];
  for (int g = 0; g < dim; g++) boxf += 2 * boxz / n[g];
  const int expect_z = boxz * (dim == 2 ? 2 : 6), expect_b = boxf * (dim == 2 ? 1 : 2);
  double vol = 0.0, minvol = 1e300, box = 1.0;
  for (int g = 0; g < dim; g++) box *= size[g];
  Facet *fs = malloc(sizeof(Facet) * ((size_t)nz * (dim + 1) + nb));
  int nfs = 0;
  for (int z = 0; z < nz; z++) {
    const int *v = &zv[(size_t)z * nc];
    if (BlastMeshZoneGeom(m, z) != (dim == 2 ? BLAST_GEOM_TRIANGLE : BLAST_GEOM_TETRAHEDRON))
      fails++;
    for (int c = dim + 1; c < nc; c++) fails += v[c] != -1;
    double e[3][3];
    for (int a = 0; a < dim; a++)
      for (int c = 0; c < dim; c++) e[a][c] = X[v[a + 1] * dim + c] - X[v[0] * dim + c];
    const double det = dim == 2 ? e[0][0] * e[1][1] - e[0][1] * e[1][0]
                                : e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                                      e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                                      e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
    const double vz = det / (dim == 2 ? 2.0 : 6.0);
    vol += vz, minvol = fmin(minvol, vz);
    for (int o = 0; o <= dim; o++) {  // facet opposite vertex o
      Facet *f = &fs[nfs++];
      int k = 0;
      f->v[2] = -1;
      for (int c = 0; c <= dim; c++)
        if (c != o) f->v[k++] = v[c];
      Sort3(f->v, dim);
      f->count = 1, f->bdr = 0;
    }
  }
  for (int b = 0; b < nb; b++) {
    Facet *f = &fs[nfs++];
    f->v[2] = -1;
    for (int c = 0; c < dim; c++) f->v[c] = bv[(size_t)b * nf + c];
    Sort3(f->v, dim);
    f->count = 0, f->bdr = 1;
    // attribute: the box rule (x faces 1; 2D others 2; 3D y faces 2, z faces 3)
    double ctr[3] = {0, 0, 0};
    for (int c = 0; c < dim; c++)
      for (int h = 0; h < dim; h++) ctr[h] += X[f->v[c] * dim + h] / dim;
    int on[3] = {0, 0, 0};
    for (int h = 0; h < dim; h++) {
      int all = 1;
      for (int c = 0; c < dim && all; c++) {
        const double x = X[f->v[c] * dim + h];
        all = x == X[f->v[0] * dim + h] && (x == 0.0 || fabs(x - size[h]) < 1e-12);
      }
      on[h] = all;
    }
    const int want = on[0] ? 1 : (dim == 2 || on[1]) ? 2 : 3;
    fails += ba[b] != want;
  }
  qsort(fs, nfs, sizeof(Facet), CmpFacet);
  int bad_conf = 0;
  for (int i = 0; i < nfs;) {
    int j = i, zones = 0, bdr = 0;
    while (j < nfs && !CmpFacet(&fs[i], &fs[j])) zones += fs[j].count, bdr += fs[j].bdr, j++;
    if (!(zones == 2 && bdr == 0) && !(zones == 1 && bdr == 1)) bad_conf++;
    i = j;
  }
  free(fs);
  const int ok = !fails && !bad_conf && nz == expect_z && nb == expect_b && minvol > 0 &&
                 fabs(vol - box) < 1e-12 * box;
  printf(
      "%dD %d x %d x %d: %d simplices (expect %d), %d boundary faces (expect %d), volume %.15g "
      "(box %.15g), min volume %.3g, bad facets %d, bad entries %d: %s\n",
      dim, n[0], dim > 1 ? n[1] : 1, dim > 2 ? n[2] : 1, nz, expect_z, nb, expect_b, vol, box,
      minvol, bad_conf, fails, ok ? "ok" : "FAIL");
  BlastMeshDestroy(&m);
  return !ok;
}

int main(void) {
  int fails = 0;
  fails += Check(2, (int[]){3, 2}, (double[]){1.0, 0.5});
  fails += Check(2, (int[]){1, 1}, (double[]){2.0, 3.0});
  fails += Check(3, (int[]){2, 3, 2}, (double[]){1.0, 1.5, 0.25});
  fails += Check(3, (int[]){1, 1, 1}, (double[]){1.0, 1.0, 1.0});
  printf("%s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
