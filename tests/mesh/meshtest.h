/// @file meshtest.h
/// @brief Helpers shared by the mesh tests: the verification meshes' descriptions from
/// the method spec (section 12), numbering-independent comparison of meshes, zone
/// volumes, conformity checks and random renumbering.
#ifndef BLAST_MESHTEST_H
#define BLAST_MESHTEST_H

#include <stdint.h>

#include "mesh.h"
#include "meshio.h"
#include "testlib.h"

/// One verification mesh as the spec describes it: a tensor grid given by its vertex
/// coordinates per axis (vertex id i + nx*j + nx*ny*l), with boundary face counts per
/// attribute and the total volume.
typedef struct {
  const char *name;
  int dim;
  int nbreaks[3];
  double breaks[3][8];
  int nzones;
  int nbdr_attr[4];  ///< expected number of boundary faces with attribute 1, 2, 3 (index 1..3)
  double volume;
} MTSpecMesh;

extern const MTSpecMesh mt_spec_meshes[];
extern const int mt_num_spec_meshes;

/// Read dir/name.mesh.
int MTReadMesh(const char *dir, const char *name, BlastMesh *mesh);

/// Numbering-independent comparison: same vertex set, same zones (attribute and set of
/// corner coordinates) and same boundary faces (attribute and set of corner coordinates),
/// coordinates compared after rounding to multiples of `quantum`. Returns 1 if equal;
/// otherwise 0 and a reason in `why`.
int MTSameMesh(BlastMesh a, BlastMesh b, double quantum, char *why, size_t len);

/// Volume of zone z (2-point Gauss quadrature of det J; exact for multilinear zones).
double MTZoneVolume(BlastMesh mesh, int z);

/// Number of vertex pairs closer than `tol` (coincident vertices: a non-conforming mesh).
int MTCountCoincident(BlastMesh mesh, double tol);

/// Zone facets (vertex/edge/face, by vertex ids): the number used by exactly one zone,
/// the number used by more than two zones, and how many of the mesh's boundary faces are
/// not among the facets used by exactly one zone.
void MTFacetStats(BlastMesh mesh, int *nsingle, int *nmulti, int *nbdr_not_single);

/// Count of boundary faces per attribute (counts[a] for a < maxattr; larger ones ignored).
void MTBoundaryAttrCounts(BlastMesh mesh, int *counts, int maxattr);

/// A copy of `mesh` with zone attributes replaced by `zone_attr` (NULL: unchanged).
int MTCopyWithAttr(BlastMesh mesh, const int *zone_attr, BlastMesh *copy);

/// A copy of `mesh` with a random vertex numbering, each zone's corners rotated by a random
/// orientation-preserving symmetry of the reference cube/square, and each boundary face's
/// corners by a random symmetry of its reference face. Zone and face order are kept.
int MTScramble(BlastMesh mesh, uint64_t seed, BlastMesh *scrambled);

/// Small deterministic generator (xorshift64*), values in [0, n).
int MTRandom(uint64_t *state, int n);

#endif  // BLAST_MESHTEST_H
