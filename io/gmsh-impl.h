// Private state of the Gmsh .msh reader (io/gmsh.c parses, io/gmsh_build.c makes the mesh).
#ifndef BLAST_GMSH_IMPL_H
#define BLAST_GMSH_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"

// One element as the file gives it: Gmsh type, tag, where it starts, its node tags
// (nodes[first .. first + count) in Gmsh's node order) and its physical group: 2.2
// files give the tag directly (0: none); 4.1 files give the entity, whose physical groups
// $Entities lists.
typedef struct {
  int type;
  int edim;      // dimension of the element (and of its entity)
  int entity;    // 4.1: entity tag
  int phys;      // 2.2: physical tag (0: none)
  int64_t tag;   // element tag (for messages)
  size_t where;  // byte offset of the element's first byte
  size_t first;  // first node tag in Gmsh.enodes
} GmshElem;

// A 4.1 entity: dimension, tag and its physical tags (phys[first .. first + nphys)).
typedef struct {
  int dim, tag, nphys;
  size_t first;
} GmshEntity;

typedef struct {
  int dim, tag;
  size_t where;
  char name[BLAST_MESH_NAME_MAX];
} GmshName;

typedef struct {
  const char *name;  // file name for messages
  const char *buf;
  size_t len, pos;
  int binary, swap;  // binary data; byte order opposite to this machine's
  int version;       // 2 (format 2.2) or 4 (format 4.1)
  // $Nodes: tags and x, y, z
  int nnodes;
  size_t cap_nodes, cap_xyz, cap_at;
  int *node_tag;
  size_t *node_at;  // byte offset of each node's record
  double *node_xyz;
  // $Elements
  int nelem;
  size_t cap_elem;
  GmshElem *elem;
  int *enodes;
  size_t nenodes, cap_enodes;
  // $Entities (4.1)
  int nent;
  size_t cap_ent;
  GmshEntity *ent;
  int *ent_phys;
  size_t nent_phys, cap_ent_phys;
  // $PhysicalNames
  int nnames;
  size_t cap_names;
  GmshName *names;
  int seen_nodes, seen_elements, seen_entities, seen_names;
} Gmsh;

// What the reader knows about each Gmsh element type.
typedef enum {
  GMSH_OK,           // a complete Lagrange element blast_gpu reads
  GMSH_POINT,        // a point: boundary of a 1D mesh, skipped otherwise
  GMSH_SERENDIPITY,  // incomplete high-order elements: refused
  GMSH_PRISM,        // refused
  GMSH_PYRAMID,      // refused
  GMSH_TOO_HIGH,     // complete elements of order > BLAST_MAX_CURVE_ORDER: refused
  GMSH_UNKNOWN
} GmshTypeKind;

typedef struct {
  GmshTypeKind kind;
  int geom;    // BlastGeom (GMSH_OK, GMSH_POINT)
  int order;   // order of the geometry
  int nnodes;  // nodes per element (0: unknown type)
  int dim;
  const char *name;
} GmshType;

/// The description of Gmsh element type `type` (kind GMSH_UNKNOWN for unknown numbers).
GmshType GmshTypeInfo(int type);

/// For Gmsh element type of geometry `geom` and order p: lat[a] = lattice index (geom.h)
/// of Gmsh node a; `flip` swaps the first two reference axes (a 2D zone mirrored).
/// Returns 0, or -1 if the rules do not give a permutation (a bug: never in a release).
int GmshLatticeOrder(int geom, int p, int flip, int *lat);

/// "path:LINE" (ASCII files) or "path: byte OFFSET" (binary files) of byte `pos`.
void GmshWhere(const Gmsh *g, size_t pos, char *out, size_t size);

/// Raise BLAST_ERR_INPUT "WHERE: message" for byte `pos`.
int GmshFailAt(const char *file, int line, const char *func, const Gmsh *g, size_t pos,
               const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
#define GmshFail(g, pos, ...) return GmshFailAt(__FILE__, __LINE__, __func__, g, pos, __VA_ARGS__)

/// Parse the whole buffer into `g` (g->name, buf, len set by the caller).
int GmshParse(Gmsh *g);
/// Make the mesh from a parsed file.
int GmshBuild(Gmsh *g, BlastMesh *mesh);
void GmshFree(Gmsh *g);

#endif  // BLAST_GMSH_IMPL_H
