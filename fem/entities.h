/// @file entities.h
/// @brief Numbering of mesh entities (edges, faces) from per-slot vertex keys, and the
/// transpose of per-zone entity lists (entity -> zones), threaded with OpenMP. Used by the
/// topology (topology.c); the results do not depend on the number of threads.
#ifndef BLAST_ENTITIES_H
#define BLAST_ENTITIES_H

#include <stddef.h>

/// Entities of `nslots` slots: keys[s*len .. s*len+len) are slot s's corner vertex ids
/// (in [0, nverts)) ascending, padded with -1; keys[s*len] < 0: the slot has no entity.
/// Slots with equal keys are one entity; entities are numbered in ascending lexicographic
/// order of their keys. Fills ids[nslots] (-1 for no entity), the entities' keys
/// verts[n*len] and their number *n; with zoff non-NULL also the zones of each entity
/// (slot s belongs to zone s / per_zone), ascending and each once, as the CSR
/// zoff[n+1], zones (as BlastEntitiesZones would). Arrays are allocated here.
int BlastEntitiesNumber(size_t nslots, int len, int nverts, const int *keys, int per_zone,
                        int **ids, int **verts, int *n, int **zoff, int **zones);

/// The zones of each of `nent` entities (CSR *off[nent+1], *zones), ascending and each
/// once, from the per-zone lists ent[z*per_zone + k] (-1: none) of nzones zones.
int BlastEntitiesZones(int nent, int nzones, int per_zone, const int *ent, int **off, int **zones);

#endif  // BLAST_ENTITIES_H
