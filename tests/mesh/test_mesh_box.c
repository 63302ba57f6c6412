// (d) BlastMeshCreateBox: numbering, geometry, boundary attributes by face centre (spec
// 3.1), equality with the verification meshes, argument validation.
// Usage: test_mesh_box MESH_DIR
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "meshtest.h"

// Attribute of a boundary face from its centre, spec 3.1.
static int SpecAttr(int dim, const double *c, const double *size) {
  const double tol = 1e-6;
  if (dim == 1) return 1;
  if (c[0] <= tol || c[0] >= size[0] - tol) return 1;
  if (dim == 2) return 2;
  return (c[1] <= tol || c[1] >= size[1] - tol) ? 2 : 3;
}

static void CheckBox(int dim, const int *n, const double *size) {
  BlastMesh m = NULL;
  TEST_CALL(BlastMeshCreateBox(dim, n, size, &m));
  if (!m) return;
  const int nc = 1 << dim, nf = 1 << (dim - 1);
  int nv = 1, nz = 1, N[3] = {1, 1, 1};
  for (int g = 0; g < dim; g++) nv *= n[g] + 1, nz *= n[g], N[g] = n[g];
  TEST_ASSERT(BlastMeshDim(m) == dim && BlastMeshNumVertices(m) == nv && BlastMeshNumZones(m) == nz,
              "box %dD: %d vertices, %d zones", dim, BlastMeshNumVertices(m), BlastMeshNumZones(m));
  if (BlastMeshNumVertices(m) != nv || BlastMeshNumZones(m) != nz) {
    BlastMeshDestroy(&m);
    return;
  }
  // Vertex i + (nx+1)(j + (ny+1) l) at (i Sx/nx, j Sy/ny, l Sz/nz).
  const double *x = BlastMeshCoords(m);
  int bad = 0;
  for (int v = 0; v < nv; v++) {
    int idx[3] = {v % (N[0] + 1), (v / (N[0] + 1)) % (N[1] + 1), v / ((N[0] + 1) * (N[1] + 1))};
    for (int g = 0; g < dim; g++)
      bad += fabs(x[(size_t)v * dim + g] - size[g] * idx[g] / N[g]) > 1e-15 * size[g];
  }
  TEST_ASSERT(bad == 0, "box %dD: %d vertex coordinates off the grid", dim, bad);
  // Zones lexicographic, corners lexicographic.
  bad = 0;
  const int *zv = BlastMeshZoneVerts(m);
  for (int z = 0; z < nz; z++) {
    int cell[3] = {z % N[0], (z / N[0]) % N[1], z / (N[0] * N[1])};
    for (int c = 0; c < nc; c++) {
      int id = 0, stride = 1;
      for (int g = 0; g < dim; g++) id += (cell[g] + ((c >> g) & 1)) * stride, stride *= N[g] + 1;
      bad += zv[(size_t)z * nc + c] != id;
    }
    TEST_ASSERT(BlastMeshZoneAttr(m)[z] == 1, "zone attribute");
  }
  TEST_ASSERT(bad == 0, "box %dD: %d zone corners not lexicographic", dim, bad);
  double vol = 1.0;
  for (int g = 0; g < dim; g++) vol *= size[g];
  TEST_CLOSE(BlastMeshVolume(m), vol, 1e-13);
  TEST_CALL(BlastMeshCheckJacobians(m, 2));
  // Boundary: every outer facet exactly once, attributes by face centre.
  int nbdr = 0;
  for (int g = 0; g < dim; g++) nbdr += 2 * nz / N[g];
  TEST_ASSERT(BlastMeshNumBoundary(m) == nbdr, "box %dD: %d boundary faces, expected %d", dim,
              BlastMeshNumBoundary(m), nbdr);
  int ns, nmulti, nmissing;
  MTFacetStats(m, &ns, &nmulti, &nmissing);
  TEST_ASSERT(ns == nbdr && nmulti == 0 && nmissing == 0, "box %dD: facets %d %d %d", dim, ns,
              nmulti, nmissing);
  int counts[4] = {0, 0, 0, 0};
  bad = 0;
  for (int f = 0; f < BlastMeshNumBoundary(m); f++) {
    double c[3] = {0, 0, 0};
    for (int k = 0; k < nf; k++)
      for (int g = 0; g < dim; g++)
        c[g] += x[(size_t)BlastMeshBdrVerts(m)[f * nf + k] * dim + g] / nf;
    int a = BlastMeshBdrAttr(m)[f];
    bad += a != SpecAttr(dim, c, size);
    if (a >= 1 && a <= 3) counts[a]++;
  }
  TEST_ASSERT(bad == 0, "box %dD: %d boundary attributes differ from spec 3.1", dim, bad);
  // Which is: x-faces 1; in 2D the others 2; in 3D y-faces 2 and z-faces 3.
  int expect[4] = {0, 2 * nz / N[0], 0, 0};
  if (dim == 2) expect[2] = 2 * nz / N[1];
  if (dim == 3) expect[2] = 2 * nz / N[1], expect[3] = 2 * nz / N[2];
  if (dim == 1) expect[1] = 2;
  for (int a = 1; a <= 3; a++)
    TEST_ASSERT(counts[a] == expect[a], "box %dD: %d faces with attribute %d, expected %d", dim,
                counts[a], a, expect[a]);
  BlastMeshDestroy(&m);
}

static void CheckSameAsFile(const char *dir, const char *name, int dim, const int *n,
                            const double *size) {
  BlastMesh box = NULL, file = NULL;
  TEST_CALL(BlastMeshCreateBox(dim, n, size, &box));
  TEST_CALL(MTReadMesh(dir, name, &file));
  if (box && file) {
    char why[256];
    TEST_ASSERT(MTSameMesh(box, file, 1e-12, why, sizeof why), "box vs %s: %s", name, why);
    // Same numbering too: both lexicographic.
    TEST_ASSERT(!memcmp(BlastMeshZoneVerts(box), BlastMeshZoneVerts(file),
                        sizeof(int) * BlastMeshNumZones(box) * (1 << dim)),
                "box vs %s: zone numbering", name);
  }
  BlastMeshDestroy(&box);
  BlastMeshDestroy(&file);
}

static void ExpectInvalid(int dim, const int *n, const double *size, int code, const char *what) {
  BlastMesh m = NULL;
  int ierr = BlastMeshCreateBox(dim, n, size, &m);
  TEST_ASSERT(ierr == code && !m, "%s: returned %d (expected %d)", what, ierr, code);
  printf("ok  %s: %s\n", what, BlastErrorMessage());
  BlastErrorClear();
  BlastMeshDestroy(&m);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MESH_DIR\n", argv[0]);
    return 2;
  }
  const int n1[1] = {5}, n2[2] = {3, 4}, n3[3] = {3, 4, 5}, n11[3] = {1, 1, 1};
  const double s1[1] = {2.5}, s2[2] = {2.0, 0.3}, s3[3] = {2.0, 3.0, 0.1}, s11[3] = {1, 1, 1};
  CheckBox(1, n1, s1);
  CheckBox(2, n2, s2);
  CheckBox(3, n3, s3);
  CheckBox(1, n11, s11);
  CheckBox(2, n11, s11);
  CheckBox(3, n11, s11);
  const int n2x2[3] = {2, 2, 2}, n73[2] = {7, 3};
  const double unit[3] = {1, 1, 1}, s73[2] = {7, 3};
  CheckSameAsFile(argv[1], "segment01", 1, n2x2, unit);
  CheckSameAsFile(argv[1], "square01_quad", 2, n2x2, unit);
  CheckSameAsFile(argv[1], "cube01_hex", 3, n2x2, unit);
  CheckSameAsFile(argv[1], "rectangle01_quad", 2, n73, s73);

  const int zero[3] = {2, 0, 2}, neg[3] = {-1, 2, 2};
  const double nan3[3] = {1, NAN, 1}, inf3[3] = {1, 1, INFINITY}, zs[3] = {1, 0, 1},
               ns[3] = {-1, 1, 1};
  ExpectInvalid(2, zero, unit, BLAST_ERR_INPUT, "n_y = 0");
  ExpectInvalid(3, neg, unit, BLAST_ERR_INPUT, "n_x = -1");
  ExpectInvalid(2, n2x2, nan3, BLAST_ERR_INPUT, "S_y = NaN");
  ExpectInvalid(3, n2x2, inf3, BLAST_ERR_INPUT, "S_z = inf");
  ExpectInvalid(2, n2x2, zs, BLAST_ERR_INPUT, "S_y = 0");
  ExpectInvalid(1, n2x2, ns, BLAST_ERR_INPUT, "S_x = -1");
  ExpectInvalid(0, n2x2, unit, BLAST_ERR_INPUT, "dim 0");
  ExpectInvalid(4, n2x2, unit, BLAST_ERR_INPUT, "dim 4");
  const int huge[3] = {100000, 100000, 100000};
  ExpectInvalid(3, huge, unit, BLAST_ERR_INPUT, "10^15 zones");
  ExpectInvalid(2, NULL, unit, BLAST_ERR_ARG, "NULL n");
  return BlastTestFinish("test_mesh_box");
}
