// The attributes a deck names, given their numbers by the mesh's names (deck.h).
#include <stdio.h>
#include <string.h>

#include "deck.h"
#include "mesh.h"

// The mesh's names of attributes of dimension `dim`, as "'a', 'b'" (or a note that it has
// none), and the closest to `name` ("" if none is close).
static void NamesOfKind(BlastMesh mesh, int dim, const char *name, char *list, size_t n, char *hint,
                        size_t nh) {
  const BlastMeshName *nm = BlastMeshNames(mesh);
  BlastDeckSuggestion sg;
  BlastDeckSuggestInit(&sg, name);
  list[0] = hint[0] = '\0';
  int count = 0;
  for (int i = 0; i < BlastMeshNumNames(mesh); i++) {
    if (nm[i].dim != dim) continue;
    const size_t len = strlen(list);
    if (len + 8 < n)
      snprintf(list + len, n - len, "%s'%s' (%d)", count ? ", " : "", nm[i].name, nm[i].attr);
    BlastDeckSuggestOffer(&sg, nm[i].name);
    count++;
  }
  if (!count) snprintf(list, n, "none: give the attribute's number");
  if (sg.best) snprintf(hint, nh, "; did you mean '%s'?", sg.best);
}

static int Resolve(BlastMesh mesh, int dim, const char *where, const char *what, int *attr,
                   const char *name, const char *mesh_name) {
  const int a = BlastMeshAttributeOfName(mesh, dim, name);
  if (a >= 1) {
    *attr = a;
    return 0;
  }
  char list[1024], hint[BLAST_ATTR_NAME_MAX + 32];
  NamesOfKind(mesh, dim, name, list, sizeof list, hint, sizeof hint);
  BlastError(BLAST_ERR_INPUT,
             "%s: %s: the mesh %s has no %s attribute named '%s' (its %s attribute names: "
             "%s)%s",
             where, what, mesh_name, dim == BlastMeshDim(mesh) ? "zone" : "boundary", name,
             dim == BlastMeshDim(mesh) ? "zone" : "boundary", list, hint);
}

int BlastDeckResolveAttributeNames(BlastConfig *cfg, BlastDeckMesh mesh) {
  BlastCheck(cfg && mesh, BLAST_ERR_ARG, "cfg and mesh must not be NULL");
  const int dim = BlastMeshDim(mesh);
  const char *mesh_name = cfg->mesh_file[0] ? cfg->mesh_file : "(the generated box)";
  char what[BLAST_NAME_MAX + 64];
  for (int r = 0; r < cfg->nregions && r < BLAST_MAX_REGIONS; r++) {
    BlastRegionSpec *reg = &cfg->regions[r];
    BlastSelector *s = &reg->select;
    if (s->kind != BLAST_SELECT_ATTRIBUTES) continue;
    snprintf(what, sizeof what, "[region.%s] select = attributes", reg->name);
    const char *where = s->where[0] ? s->where : reg->where;
    for (int i = 0; i < s->n && i < BLAST_MAX_SELECT_ATTRS; i++)
      if (s->attr_name[i][0])
        BlastCall(Resolve(mesh, dim, where, what, &s->attr[i], s->attr_name[i], mesh_name));
  }
  for (int k = 0; k < cfg->nboundaries && k < BLAST_MAX_BOUNDARIES; k++) {
    BlastBoundarySpec *b = &cfg->boundaries[k];
    snprintf(what, sizeof what, "[boundary.%s] attributes", b->name);
    for (int i = 0; i < b->nattr && i < BLAST_MAX_SELECT_ATTRS; i++)
      if (b->attr_name[i][0])
        BlastCall(Resolve(mesh, dim - 1, b->where, what, &b->attr[i], b->attr_name[i], mesh_name));
  }
  return 0;
}
