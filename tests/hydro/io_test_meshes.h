// A structured n^d mesh of the unit square/cube with the spec's boundary attributes
// (local to the hydro tests until io/meshio provides the generator).
#ifndef BLAST_IO_TEST_MESHES_H
#define BLAST_IO_TEST_MESHES_H

#include "mesh.h"

static inline int TestUnitBoxMesh(int dim, int n, BlastMesh *mesh) {
  int nv = 1, nzn = 1;
  for (int g = 0; g < dim; g++) nv *= n + 1, nzn *= n;
  double coords[3 * 729];
  int zv[8 * 512], bv[4 * 2048], ba[2048], nb = 0;
  for (int v = 0; v < nv; v++)
    for (int g = 0, r = v; g < dim; g++, r /= n + 1) coords[v * dim + g] = (double)(r % (n + 1)) / n;
  for (int z = 0; z < nzn; z++) {
    int i[3] = {0, 0, 0};
    for (int g = 0, r = z; g < dim; g++, r /= n) i[g] = r % n;
    for (int c = 0; c < (1 << dim); c++) {
      int v = 0, stride = 1;
      for (int g = 0; g < dim; g++) v += (i[g] + ((c >> g) & 1)) * stride, stride *= n + 1;
      zv[z * (1 << dim) + c] = v;
    }
    for (int g = 0; g < dim; g++)
      for (int s = 0; s < 2; s++) {
        if (i[g] != (s ? n - 1 : 0)) continue;
        int k = 0;
        for (int c = 0; c < (1 << dim); c++)
          if (((c >> g) & 1) == s) bv[nb * (1 << (dim - 1)) + k++] = zv[z * (1 << dim) + c];
        ba[nb++] = g + 1;
      }
  }
  return BlastMeshCreate(dim, nv, coords, nzn, zv, NULL, nb, bv, ba, mesh);
}

#endif
