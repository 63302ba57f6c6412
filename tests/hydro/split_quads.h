// A mesh of quadrilaterals with some of them split into triangles, for the tests of
// triangle and mixed triangle/quadrilateral meshes.
#ifndef BLAST_TEST_SPLIT_QUADS_H
#define BLAST_TEST_SPLIT_QUADS_H

#include <stdlib.h>
#include <string.h>

#include "blast.h"
#include "geom.h"
#include "mesh.h"

// Every quadrilateral of `quad` among its first `nsplit` zones (-1: all) split into two
// triangles, in place; the triangles get attribute tri_attr (0: their quadrilateral's),
// the other zones keep theirs; boundary faces and attributes kept.
static int SplitQuads(BlastMesh quad, int nsplit, int tri_attr, BlastMesh *out) {
  BlastMeshDesc d;
  BlastMeshDescribe(quad, &d);
  if (nsplit < 0 || nsplit > d.nzones) nsplit = d.nzones;
  const int nz = d.nzones + nsplit;
  int *zv = malloc(sizeof(int) * 4 * nz), *za = malloc(sizeof(int) * nz);
  unsigned char *zg = malloc(nz);
  BlastCheck(zv && za && zg, BLAST_ERR_MEM, "out of memory");
  int n = 0;
  for (int z = 0; z < d.nzones; z++) {
    const int *c = &d.zone_verts[4 * z];
    const int attr = d.zone_attr ? d.zone_attr[z] : 1;
    if (z >= nsplit) {
      memcpy(&zv[4 * n], c, sizeof(int) * 4);
      za[n] = attr, zg[n++] = BLAST_GEOM_SQUARE;
      continue;
    }
    const int t[2][3] = {{c[0], c[1], c[2]}, {c[3], c[2], c[1]}};
    for (int i = 0; i < 2; i++) {
      zv[4 * n] = t[i][0], zv[4 * n + 1] = t[i][1], zv[4 * n + 2] = t[i][2], zv[4 * n + 3] = -1;
      za[n] = tri_attr ? tri_attr : attr, zg[n++] = BLAST_GEOM_TRIANGLE;
    }
  }
  d.nzones = n, d.zone_verts = zv, d.zone_attr = za, d.zone_geom = zg;
  const int ierr = BlastMeshCreateFrom(&d, out);
  free(zv), free(za), free(zg);
  return ierr;
}

#endif  // BLAST_TEST_SPLIT_QUADS_H
