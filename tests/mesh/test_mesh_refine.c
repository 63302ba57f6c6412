// (e) BlastMeshRefine on every verification mesh, levels 0..3: counts, volumes, inherited
// attributes, child geometry, closed-form vertex counts, conformity (no duplicated
// vertices, every interior facet shared by exactly two zones); then the same on randomly
// renumbered and reoriented ("unstructured") copies, which must refine to the same mesh.
// Usage: test_mesh_refine MESH_DIR
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "meshtest.h"

// Checks that hold for the refinement `r` of `m` by `levels` (K = 2^levels per direction).
// `nverts_expected` < 0 skips the closed-form vertex count.
static void CheckRefined(const char *name, BlastMesh m, BlastMesh r, int levels,
                         long nverts_expected, double extent) {
  const int dim = BlastMeshDim(m), nc = 1 << dim, nf = 1 << (dim - 1), K = 1 << levels;
  int nchild = 1;
  for (int g = 0; g < dim; g++) nchild *= K;
  const int nbchild = nchild / K;
  const int nz0 = BlastMeshNumZones(m), nb0 = BlastMeshNumBoundary(m);
  TEST_ASSERT(BlastMeshDim(r) == dim, "%s L%d: dimension", name, levels);
  TEST_ASSERT(BlastMeshNumZones(r) == nz0 * nchild, "%s L%d: %d zones, expected %d", name, levels,
              BlastMeshNumZones(r), nz0 * nchild);
  TEST_ASSERT(BlastMeshNumBoundary(r) == nb0 * nbchild, "%s L%d: %d boundary faces, expected %d",
              name, levels, BlastMeshNumBoundary(r), nb0 * nbchild);
  if (BlastMeshNumZones(r) != nz0 * nchild || BlastMeshNumBoundary(r) != nb0 * nbchild) return;
  if (nverts_expected >= 0)
    TEST_ASSERT(BlastMeshNumVertices(r) == nverts_expected, "%s L%d: %d vertices, expected %ld",
                name, levels, BlastMeshNumVertices(r), nverts_expected);
  int c0[8], c1[8];
  MTBoundaryAttrCounts(m, c0, 8);
  MTBoundaryAttrCounts(r, c1, 8);
  for (int a = 0; a < 8; a++)
    TEST_ASSERT(c1[a] == c0[a] * nbchild, "%s L%d: %d faces with attribute %d, expected %d", name,
                levels, c1[a], a, c0[a] * nbchild);
  TEST_CLOSE(BlastMeshVolume(r), BlastMeshVolume(m), 1e-13);
  TEST_CALL(BlastMeshCheckJacobians(r, 2));

  // Children of zone z: consecutive, lexicographic, attribute inherited, corners at the
  // parent's map of the lattice points, volume parent/2^(d levels).
  int bad_attr = 0, bad_geom = 0, bad_vol = 0;
  const double tol = 1e-13 * extent;
  for (int z = 0; z < nz0; z++) {
    double pvol = MTZoneVolume(m, z);
    for (int c = 0; c < nchild; c++) {
      int child = z * nchild + c, ci[3] = {0, 0, 0};
      for (int g = 0, q = c; g < dim; g++) ci[g] = q % K, q /= K;
      bad_attr += BlastMeshZoneAttr(r)[child] != BlastMeshZoneAttr(m)[z];
      bad_vol += fabs(MTZoneVolume(r, child) - pvol / nchild) > 1e-13 * fabs(pvol);
      for (int corner = 0; corner < nc; corner++) {
        double xi[3], X[3];
        for (int g = 0; g < dim; g++) xi[g] = (double)(ci[g] + ((corner >> g) & 1)) / K;
        BlastMeshZoneMap(m, z, xi, X);
        const double *Y =
            &BlastMeshCoords(r)[(size_t)BlastMeshZoneVerts(r)[child * nc + corner] * dim];
        for (int g = 0; g < dim; g++) bad_geom += fabs(X[g] - Y[g]) > tol;
      }
    }
  }
  TEST_ASSERT(bad_attr == 0, "%s L%d: %d children with a different attribute", name, levels,
              bad_attr);
  TEST_ASSERT(bad_geom == 0, "%s L%d: %d child corner coordinates off the parent's map", name,
              levels, bad_geom);
  TEST_ASSERT(bad_vol == 0, "%s L%d: %d children without 1/2^(d levels) of the volume", name,
              levels, bad_vol);

  // Children of boundary face f: consecutive, same attribute, inside the parent face (the
  // verification meshes have axis-aligned boundaries: attribute a fixes coordinate a-1).
  int bad_battr = 0, bad_bgeom = 0;
  for (int f = 0; f < nb0; f++) {
    const int *pv = &BlastMeshBdrVerts(m)[(size_t)f * nf];
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < nf; k++)
      for (int g = 0; g < dim; g++) {
        double v = BlastMeshCoords(m)[(size_t)pv[k] * dim + g];
        lo[g] = fmin(lo[g], v), hi[g] = fmax(hi[g], v);
      }
    for (int c = 0; c < nbchild; c++) {
      int child = f * nbchild + c;
      bad_battr += BlastMeshBdrAttr(r)[child] != BlastMeshBdrAttr(m)[f];
      for (int k = 0; k < nf; k++)
        for (int g = 0; g < dim; g++) {
          double v = BlastMeshCoords(r)[(size_t)BlastMeshBdrVerts(r)[child * nf + k] * dim + g];
          bad_bgeom += v < lo[g] - tol || v > hi[g] + tol;
        }
    }
  }
  TEST_ASSERT(bad_battr == 0, "%s L%d: %d boundary children with another attribute", name, levels,
              bad_battr);
  TEST_ASSERT(bad_bgeom == 0, "%s L%d: %d boundary child corners outside the parent face", name,
              levels, bad_bgeom);

  // Conformity.
  const double h = extent / K;
  int ncoinc = MTCountCoincident(r, 1e-6 * h);
  TEST_ASSERT(ncoinc == 0, "%s L%d: %d pairs of coincident vertices", name, levels, ncoinc);
  int ns, nmulti, nmissing;
  MTFacetStats(r, &ns, &nmulti, &nmissing);
  TEST_ASSERT(ns == BlastMeshNumBoundary(r) && nmulti == 0 && nmissing == 0,
              "%s L%d: %d facets in one zone (expected %d), %d in more than two, %d boundary "
              "faces not outer",
              name, levels, ns, BlastMeshNumBoundary(r), nmulti, nmissing);
}

static double Extent(BlastMesh m) {
  const int dim = BlastMeshDim(m);
  double e = 0.0;
  for (int g = 0; g < dim; g++) {
    double lo = INFINITY, hi = -INFINITY;
    for (int v = 0; v < BlastMeshNumVertices(m); v++) {
      double x = BlastMeshCoords(m)[(size_t)v * dim + g];
      lo = fmin(lo, x), hi = fmax(hi, x);
    }
    e = fmax(e, hi - lo);
  }
  return e;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MESH_DIR\n", argv[0]);
    return 2;
  }
  for (int i = 0; i < mt_num_spec_meshes; i++) {
    const MTSpecMesh *s = &mt_spec_meshes[i];
    BlastMesh file = NULL, m = NULL;
    TEST_CALL(MTReadMesh(argv[1], s->name, &file));
    if (!file) continue;
    // Distinct zone attributes, so that inheritance is visible.
    int *attr = malloc(sizeof(int) * BlastMeshNumZones(file));
    for (int z = 0; z < BlastMeshNumZones(file); z++) attr[z] = 1 + (z * 7) % 5;
    TEST_CALL(MTCopyWithAttr(file, attr, &m));
    free(attr);
    const double extent = Extent(m);
    BlastMesh ref[4] = {NULL, NULL, NULL, NULL};
    for (int levels = 0; levels <= 3; levels++) {
      long nv = 1;
      for (int g = 0; g < s->dim; g++) nv *= (long)(s->nbreaks[g] - 1) * (1 << levels) + 1;
      TEST_CALL(BlastMeshRefine(m, levels, &ref[levels]));
      if (ref[levels]) CheckRefined(s->name, m, ref[levels], levels, nv, extent);
    }
    // Refining twice once equals refining once twice (as meshes; numbering may differ).
    BlastMesh twice = NULL;
    if (ref[1]) TEST_CALL(BlastMeshRefine(ref[1], 1, &twice));
    if (twice && ref[2]) {
      char why[256];
      TEST_ASSERT(MTSameMesh(twice, ref[2], 1e-12, why, sizeof why), "%s: 1+1 vs 2 levels: %s",
                  s->name, why);
    }
    BlastMeshDestroy(&twice);

    // Unstructured copies of the mesh: random vertex numbering and zone orientations.
    int nseeds = s->dim == 3 ? 12 : 20;
    for (int seed = 1; seed <= nseeds; seed++) {
      BlastMesh scr = NULL;
      TEST_CALL(MTScramble(m, (uint64_t)seed, &scr));
      if (!scr) continue;
      for (int levels = 1; levels <= (seed <= 3 ? 3 : 2); levels++) {
        long nv = 1;
        for (int g = 0; g < s->dim; g++) nv *= (long)(s->nbreaks[g] - 1) * (1 << levels) + 1;
        BlastMesh r = NULL;
        TEST_CALL(BlastMeshRefine(scr, levels, &r));
        if (!r) continue;
        char name[128];
        snprintf(name, sizeof name, "%s (scrambled, seed %d)", s->name, seed);
        CheckRefined(name, scr, r, levels, nv, extent);
        char why[256];
        TEST_ASSERT(MTSameMesh(r, ref[levels], 1e-12, why, sizeof why),
                    "%s L%d: differs from the refined original: %s", name, levels, why);
        BlastMeshDestroy(&r);
      }
      BlastMeshDestroy(&scr);
    }
    for (int l = 0; l <= 3; l++) BlastMeshDestroy(&ref[l]);
    BlastMeshDestroy(&m);
    BlastMeshDestroy(&file);
  }
  // Levels outside 0..12 are refused.
  BlastMesh m = NULL, r = NULL;
  const int n[1] = {2};
  const double size[1] = {1.0};
  TEST_CALL(BlastMeshCreateBox(1, n, size, &m));
  TEST_ASSERT(BlastMeshRefine(m, -1, &r) == BLAST_ERR_INPUT && !r, "levels -1");
  BlastErrorClear();
  BlastMeshDestroy(&m);
  return BlastTestFinish("test_mesh_refine");
}
