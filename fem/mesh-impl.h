// Private layout of BlastMesh (see mesh.h).
#ifndef BLAST_MESH_IMPL_H
#define BLAST_MESH_IMPL_H

#include "mesh.h"

struct BlastMesh_private {
  int dim;
  int nverts, nzones, nbdr;
  double *coords;   // [nverts*dim]
  int *zone_verts;  // [nzones*2^dim] lexicographic corners
  int *zone_attr;   // [nzones]
  int *bdr_verts;   // [nbdr*2^(dim-1)]
  int *bdr_attr;    // [nbdr]
};

#endif  // BLAST_MESH_IMPL_H
