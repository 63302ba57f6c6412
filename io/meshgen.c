// Generated meshes made of simplices: the Cartesian box split into triangles or tetrahedra
// (see meshio.h, BlastMeshCreateBoxSimplex).
#include <string.h>

#include "meshio.h"

// Split every square of the box into 2 triangles and every cube into the 6 tetrahedra
// around its main diagonal (corner 0 to corner 2^d - 1, the same in every zone, so that
// the faces' diagonals match: the result is conforming). Vertex order of a child: corner
// 0, then one corner per step along the axes in the permutation's order, so that vertex
// g+1 - vertex g is one unit step; odd permutations swap the last two vertices to keep
// det J > 0. Boundary squares split as the zones' faces do.
static const int kPerm3[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
static const int kOdd3[6] = {0, 1, 1, 0, 0, 1};

// The simplices of a tensor entity of dimension d with lexicographic corners c (d = 1:
// the segment itself); out receives nsimplex * (d + 1) vertex ids. Returns the count.
static int SplitTensor(int d, const int *c, int *out) {
  if (d == 1) {
    out[0] = c[0], out[1] = c[1];
    return 1;
  }
  if (d == 2) {  // (00, 10, 11) and (00, 11, 01): counter-clockwise
    const int t[6] = {c[0], c[1], c[3], c[0], c[3], c[2]};
    memcpy(out, t, sizeof t);
    return 2;
  }
  for (int s = 0; s < 6; s++) {
    int corner = 0, *v = &out[4 * s];
    v[0] = c[0];
    for (int g = 0; g < 3; g++) corner |= 1 << kPerm3[s][g], v[g + 1] = c[corner];
    if (kOdd3[s]) {
      const int tmp = v[2];
      v[2] = v[3], v[3] = tmp;
    }
  }
  return 6;
}

int BlastMeshCreateBoxSimplex(int dim, const int *n, const double *size, BlastMesh *mesh) {
  BlastCheck(n && size && mesh, BLAST_ERR_ARG, "NULL argument");
  BlastMesh box = NULL;
  BlastCall(BlastMeshCreateBox(dim, n, size, &box));
  if (dim == 1) {
    *mesh = box;
    return 0;
  }
  const int nc = 1 << dim, nf = 1 << (dim - 1);
  const int per_zone = dim == 2 ? 2 : 6, per_face = dim == 2 ? 1 : 2;
  const int nz = BlastMeshNumZones(box), nb = BlastMeshNumBoundary(box);
  const int64_t nz64 = (int64_t)nz * per_zone, nb64 = (int64_t)nb * per_face;
  int ierr = nz64 < INT32_MAX && nb64 < INT32_MAX
                 ? 0
                 : BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                                   "[mesh] generator = box_simplex: %lld simplices, more than "
                                   "32-bit ids allow: use fewer elements and refine",
                                   (long long)nz64);
  int *zv = NULL, *bv = NULL, *za = NULL, *ba = NULL;
  unsigned char *zg = NULL, *bg = NULL;
  if (!ierr) ierr = BlastMalloc((size_t)nz64 * nc, &zv);
  if (!ierr) ierr = BlastMalloc((size_t)nz64, &za);
  if (!ierr) ierr = BlastMalloc((size_t)nz64, &zg);
  if (!ierr) ierr = BlastMalloc((size_t)nb64 * nf + 1, &bv);
  if (!ierr) ierr = BlastMalloc((size_t)nb64 + 1, &ba);
  if (!ierr) ierr = BlastMalloc((size_t)nb64 + 1, &bg);
  if (!ierr) {
    const int *bzv = BlastMeshZoneVerts(box), *bbv = BlastMeshBdrVerts(box);
    const int *bba = BlastMeshBdrAttr(box);
    int t[24];
    for (int z = 0; z < nz; z++) {
      SplitTensor(dim, &bzv[(size_t)z * nc], t);
      for (int s = 0; s < per_zone; s++) {
        const size_t child = (size_t)z * per_zone + s;
        for (int c = 0; c < nc; c++) zv[child * nc + c] = c <= dim ? t[s * (dim + 1) + c] : -1;
        za[child] = 1;
        zg[child] = (unsigned char)BlastGeomSimplex(dim);
      }
    }
    for (int f = 0; f < nb; f++) {
      SplitTensor(dim - 1, &bbv[(size_t)f * nf], t);  // 2D: the segment itself
      for (int s = 0; s < per_face; s++) {
        const size_t child = (size_t)f * per_face + s;
        for (int c = 0; c < nf; c++) bv[child * nf + c] = c < dim ? t[s * dim + c] : -1;
        ba[child] = bba[f];
        bg[child] = (unsigned char)BlastGeomSimplex(dim - 1);
      }
    }
    const BlastMeshDesc d = {.dim = dim,
                             .nverts = BlastMeshNumVertices(box),
                             .nzones = (int)nz64,
                             .nbdr = (int)nb64,
                             .coords = BlastMeshCoords(box),
                             .zone_verts = zv,
                             .zone_geom = zg,
                             .zone_attr = za,
                             .bdr_verts = bv,
                             .bdr_geom = bg,
                             .bdr_attr = ba};
    ierr = BlastMeshCreateFrom(&d, mesh);
  }
  BlastMeshDestroy(&box);
  BlastFree(&zv), BlastFree(&za), BlastFree(&zg);
  BlastFree(&bv), BlastFree(&ba), BlastFree(&bg);
  BlastCall(ierr);
  return 0;
}
