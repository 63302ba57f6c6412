// (a) The project's verification meshes (inputs/meshes) against the method spec, section
// 12: vertex coordinates by id, zones as lexicographic grid cells, zone and total volumes,
// boundary faces per attribute and their position. Usage: test_mesh_inputs MESH_DIR
#include <math.h>
#include <stdio.h>

#include "meshtest.h"

static void CheckSpecMesh(const char *dir, const MTSpecMesh *s) {
  BlastMesh m = NULL;
  TEST_CALL(MTReadMesh(dir, s->name, &m));
  if (!m) return;
  const int dim = s->dim, nc = 1 << dim, nf = 1 << (dim - 1);
  TEST_ASSERT(BlastMeshDim(m) == dim, "%s: dimension %d", s->name, BlastMeshDim(m));
  int nvx[3] = {1, 1, 1}, nzx[3] = {1, 1, 1}, nverts = 1;
  for (int g = 0; g < dim; g++) nvx[g] = s->nbreaks[g], nzx[g] = nvx[g] - 1, nverts *= nvx[g];
  TEST_ASSERT(BlastMeshNumVertices(m) == nverts, "%s: %d vertices, expected %d", s->name,
              BlastMeshNumVertices(m), nverts);
  TEST_ASSERT(BlastMeshNumZones(m) == s->nzones, "%s: %d zones, expected %d", s->name,
              BlastMeshNumZones(m), s->nzones);
  if (BlastMeshNumVertices(m) != nverts || BlastMeshNumZones(m) != s->nzones) {
    BlastMeshDestroy(&m);
    return;
  }
  // Vertex id i + nx*j + nx*ny*l at (breaks_x[i], breaks_y[j], breaks_z[l]), exactly.
  const double *x = BlastMeshCoords(m);
  int bad = 0;
  for (int v = 0; v < nverts; v++) {
    int idx[3] = {v % nvx[0], (v / nvx[0]) % nvx[1], v / (nvx[0] * nvx[1])};
    for (int g = 0; g < dim; g++) bad += x[(size_t)v * dim + g] != s->breaks[g][idx[g]];
  }
  TEST_ASSERT(bad == 0, "%s: %d vertex coordinates differ from the spec", s->name, bad);
  // Zone k is grid cell (i,j,l) in lexicographic order; corners lexicographic.
  const int *zv = BlastMeshZoneVerts(m), *za = BlastMeshZoneAttr(m);
  double total = 0.0;
  bad = 0;
  for (int z = 0; z < s->nzones; z++) {
    int cell[3] = {z % nzx[0], (z / nzx[0]) % nzx[1], z / (nzx[0] * nzx[1])};
    double expected_vol = 1.0;
    for (int g = 0; g < dim; g++) expected_vol *= s->breaks[g][cell[g] + 1] - s->breaks[g][cell[g]];
    for (int c = 0; c < nc; c++) {
      int id = 0, stride = 1;
      for (int g = 0; g < dim; g++) id += (cell[g] + ((c >> g) & 1)) * stride, stride *= nvx[g];
      bad += zv[(size_t)z * nc + c] != id;
    }
    double vol = MTZoneVolume(m, z);
    TEST_CLOSE(vol, expected_vol, 1e-14);
    TEST_ASSERT(za[z] == 1, "%s: zone %d attribute %d", s->name, z, za[z]);
    total += vol;
  }
  TEST_ASSERT(bad == 0, "%s: %d zone corners differ from the spec's lexicographic grid", s->name,
              bad);
  TEST_CLOSE(total, s->volume, 1e-14);
  TEST_CLOSE(BlastMeshVolume(m), s->volume, 1e-14);
  // Boundary: counts per attribute; a face with attribute a lies on the plane x_{a-1} = min
  // or max of the domain.
  int counts[8];
  MTBoundaryAttrCounts(m, counts, 8);
  for (int a = 1; a <= 3; a++)
    TEST_ASSERT(counts[a] == s->nbdr_attr[a],
                "%s: %d boundary faces with attribute %d, expected %d", s->name, counts[a], a,
                s->nbdr_attr[a]);
  int total_bdr = s->nbdr_attr[1] + s->nbdr_attr[2] + s->nbdr_attr[3];
  TEST_ASSERT(BlastMeshNumBoundary(m) == total_bdr, "%s: %d boundary faces, expected %d", s->name,
              BlastMeshNumBoundary(m), total_bdr);
  const int *bv = BlastMeshBdrVerts(m), *ba = BlastMeshBdrAttr(m);
  bad = 0;
  for (int f = 0; f < BlastMeshNumBoundary(m); f++) {
    int g = ba[f] - 1;
    if (g < 0 || g >= dim) {
      bad++;
      continue;
    }
    double lo = s->breaks[g][0], hi = s->breaks[g][nvx[g] - 1];
    double x0 = x[(size_t)bv[(size_t)f * nf] * dim + g];
    if (x0 != lo && x0 != hi) bad++;
    for (int c = 1; c < nf; c++) bad += x[(size_t)bv[(size_t)f * nf + c] * dim + g] != x0;
  }
  TEST_ASSERT(bad == 0, "%s: %d boundary faces off their attribute's domain side", s->name, bad);
  int ns, nmulti, nmissing;
  MTFacetStats(m, &ns, &nmulti, &nmissing);
  TEST_ASSERT(ns == total_bdr && nmulti == 0 && nmissing == 0,
              "%s: %d outer facets, %d facets in > 2 zones, %d boundary faces not outer", s->name,
              ns, nmulti, nmissing);
  TEST_CALL(BlastMeshCheckJacobians(m, 3));
  BlastMeshDestroy(&m);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MESH_DIR\n", argv[0]);
    return 2;
  }
  for (int i = 0; i < mt_num_spec_meshes; i++) CheckSpecMesh(argv[1], &mt_spec_meshes[i]);
  // Spec 12 lists some zones explicitly (bottom ccw, top ccw); in lexicographic order:
  BlastMesh m = NULL;
  TEST_CALL(MTReadMesh(argv[1], "square01_quad", &m));
  if (m) {
    const int expect[4][4] = {{0, 1, 3, 4}, {1, 2, 4, 5}, {3, 4, 6, 7}, {4, 5, 7, 8}};
    for (int z = 0; z < 4; z++)
      for (int c = 0; c < 4; c++)
        TEST_ASSERT(BlastMeshZoneVerts(m)[z * 4 + c] == expect[z][c], "square01 zone %d", z);
    BlastMeshDestroy(&m);
  }
  TEST_CALL(MTReadMesh(argv[1], "rt2D", &m));
  if (m) {  // zone j = (2j, 2j+1, 2j+3, 2j+2) ccw
    for (int z = 0; z < 4; z++) {
      const int *zv = &BlastMeshZoneVerts(m)[z * 4];
      TEST_ASSERT(zv[0] == 2 * z && zv[1] == 2 * z + 1 && zv[2] == 2 * z + 2 && zv[3] == 2 * z + 3,
                  "rt2D zone %d", z);
    }
    BlastMeshDestroy(&m);
  }
  TEST_CALL(MTReadMesh(argv[1], "cube01_hex", &m));
  if (m) {  // lower corner v in {0,1,3,4,9,10,12,13}: (v,v+1,v+4,v+3,v+9,v+10,v+13,v+12) ccw
    const int lower[8] = {0, 1, 3, 4, 9, 10, 12, 13}, off[8] = {0, 1, 3, 4, 9, 10, 12, 13};
    for (int z = 0; z < 8; z++)
      for (int c = 0; c < 8; c++)
        TEST_ASSERT(BlastMeshZoneVerts(m)[z * 8 + c] == lower[z] + off[c], "cube01 zone %d", z);
    BlastMeshDestroy(&m);
  }
  return BlastTestFinish("test_mesh_inputs");
}
