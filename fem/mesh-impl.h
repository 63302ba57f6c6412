// Private layout of BlastMesh (see mesh.h).
#ifndef BLAST_MESH_IMPL_H
#define BLAST_MESH_IMPL_H

#include "mesh.h"

struct BlastMesh_private {
  int dim;
  int nverts, nzones, nbdr;
  double *coords;            // [nverts*dim]
  int *zone_verts;           // [nzones*2^dim] lexicographic corners
  int *zone_attr;            // [nzones]
  int *bdr_verts;            // [nbdr*2^(dim-1)]
  int *bdr_attr;             // [nbdr]
  unsigned char *zone_geom;  // [nzones] BlastGeom
  unsigned char *bdr_geom;   // [nbdr]
  int nsimplex;              // zones that are simplices
  int curve_order;           // 1: straight
  int nnodes;
  double *node_coords;  // [nnodes*dim] (curve_order > 1)
  int *zone_nodes;      // [nzones*(p+1)^dim]
  int nnames;
  BlastMeshName *names;
};

#endif  // BLAST_MESH_IMPL_H
