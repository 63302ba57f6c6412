/// @file meshdist.h
/// @brief A mesh read once and given to every rank: rank 0 reads the file, then sends the
/// whole mesh (BlastMeshDesc: vertices, zones and boundary faces with their geometries and
/// attributes, curved nodes, attribute names) to the other ranks.
#ifndef BLAST_MESHDIST_H
#define BLAST_MESHDIST_H

#include <mpi.h>

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Collective: `root`'s *mesh (a complete mesh) is copied to every other rank of comm,
/// whose *mesh is created (it must be NULL there). Arrays of more than INT_MAX entries go
/// in pieces. Errors agree on every rank.
int BlastMeshBcast(MPI_Comm comm, int root, BlastMesh *mesh);

/// Collective: rank 0 reads `path` (BlastMeshRead), every rank gets the mesh. Only rank 0
/// opens the file (the other ranks' `path` is used in no message and never opened). A
/// read error is every rank's error, with rank 0's message (BLAST_ERR_INPUT: exit 2).
int BlastMeshReadShared(MPI_Comm comm, const char *path, BlastMesh *mesh);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_MESHDIST_H
