// Gmsh .msh reader: from the parsed file (io/gmsh.c) to a mesh (see meshio.h).
//
// Zones are the elements of the highest dimension d, boundary faces those of dimension
// d - 1 that belong to a physical group; attributes are physical tags. The zones' corner
// nodes become the vertices; for order p >= 2 all their nodes become the curved
// geometry's nodes, reordered into lattice order.
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom.h"
#include "gmsh-impl.h"
#include "meshio.h"

// Everything GmshBuild allocates, freed at once.
typedef struct {
  int *node_order;  // node indices sorted by tag
  int *node_id;     // per node: vertex id (or -1)
  int *node_hid;    // per node: curved-geometry node id (or -1)
  int *zone, *bdr;  // element indices of zones and boundary faces
  int *zone_attr, *bdr_attr;
  int *elem_node;  // nodes of zones and faces (node indices), element k's from eoff[k]
  size_t *eoff;
  double *coords, *ncoords;
  int *zone_verts, *bdr_verts, *zone_nodes;
  unsigned char *zone_geom, *bdr_geom;
  BlastMeshName *names;
  int64_t *facets;  // facet table: 4 sorted vertex ids, zone, boundary element
  int p;            // order of the geometry
} Work;

static void FreeWork(Work *w) {
  free(w->node_order), free(w->node_id), free(w->node_hid), free(w->zone), free(w->bdr);
  free(w->zone_attr), free(w->bdr_attr), free(w->elem_node), free(w->eoff), free(w->coords),
      free(w->ncoords);
  free(w->zone_verts), free(w->bdr_verts), free(w->zone_nodes), free(w->zone_geom);
  free(w->bdr_geom), free(w->names), free(w->facets);
}

#define ALLOC(p, n)                                                                               \
  do {                                                                                            \
    (p) = calloc((size_t)(n) + 1, sizeof *(p));                                                   \
    BlastCheck((p), BLAST_ERR_MEM, "out of memory reading a Gmsh file (%zu items)", (size_t)(n)); \
  } while (0)

static const Gmsh *g_sort;  // for the qsort comparators (the reader is not threaded)

static int CmpNodeTag(const void *a, const void *b) {
  const int x = g_sort->node_tag[*(const int *)a], y = g_sort->node_tag[*(const int *)b];
  return (x > y) - (x < y);
}

static int CmpEntity(const void *a, const void *b) {
  const GmshEntity *x = a, *y = b;
  if (x->dim != y->dim) return x->dim - y->dim;
  return (x->tag > y->tag) - (x->tag < y->tag);
}

static int CmpFacet(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  for (int i = 0; i < 4; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

// Node index of a tag (binary search in the sorted order), -1 if absent.
static int FindNode(const Gmsh *g, const int *order, int tag) {
  int lo = 0, hi = g->nnodes - 1;
  while (lo <= hi) {
    const int mid = lo + (hi - lo) / 2, t = g->node_tag[order[mid]];
    if (t == tag) return order[mid];
    if (t < tag)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

// The physical tag of element e: 0 for none; >1 groups of one entity refused.
static int PhysOf(const Gmsh *g, const GmshElem *e, int *phys) {
  if (g->version == 2) {
    *phys = e->phys;
    return 0;
  }
  const GmshEntity key = {.dim = e->edim, .tag = e->entity};
  const GmshEntity *ent =
      g->nent ? bsearch(&key, g->ent, (size_t)g->nent, sizeof key, CmpEntity) : NULL;
  if (!ent)
    GmshFail(g, e->where, "element %lld: its entity (dimension %d, tag %d) is not in $Entities",
             (long long)e->tag, e->edim, e->entity);
  if (ent->nphys > 1)
    GmshFail(g, e->where,
             "element %lld: its entity (dimension %d, tag %d) is in %d physical groups (tags %d, "
             "%d...): blast_gpu gives an element one attribute, so put it in one group",
             (long long)e->tag, e->edim, e->entity, ent->nphys, g->ent_phys[ent->first],
             g->ent_phys[ent->first + 1]);
  *phys = ent->nphys ? g->ent_phys[ent->first] : 0;
  return 0;
}

// Local facets of each geometry in blast_gpu's corner order (geom.h).
static const int kFacetSeg[2][4] = {{0, -1}, {1, -1}};
static const int kFacetTri[3][4] = {{0, 1, -1}, {1, 2, -1}, {2, 0, -1}};
static const int kFacetQuad[4][4] = {{0, 1, -1}, {1, 3, -1}, {3, 2, -1}, {2, 0, -1}};
static const int kFacetTet[4][4] = {{1, 2, 3, -1}, {0, 2, 3, -1}, {0, 1, 3, -1}, {0, 1, 2, -1}};
static const int kFacetHex[6][4] = {{0, 2, 4, 6}, {1, 3, 5, 7}, {0, 1, 4, 5},
                                    {2, 3, 6, 7}, {0, 1, 2, 3}, {4, 5, 6, 7}};

static int Facets(int geom, const int (**f)[4]) {
  switch (geom) {
    case BLAST_GEOM_SEGMENT:
      *f = kFacetSeg;
      return 2;
    case BLAST_GEOM_TRIANGLE:
      *f = kFacetTri;
      return 3;
    case BLAST_GEOM_SQUARE:
      *f = kFacetQuad;
      return 4;
    case BLAST_GEOM_TETRAHEDRON:
      *f = kFacetTet;
      return 4;
    default:
      *f = kFacetHex;
      return 6;
  }
}

// Sorted key of a facet's vertex ids (unused slots INT64_MAX).
static void FacetKey(const int *v, int n, int64_t *key) {
  for (int i = 0; i < 4; i++) key[i] = i < n ? v[i] : INT64_MAX;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && key[j - 1] > key[j]; j--) {
      const int64_t t = key[j];
      key[j] = key[j - 1], key[j - 1] = t;
    }
}

static void VertexText(const double *x, int dim, char *out, size_t size) {
  if (dim == 1)
    snprintf(out, size, "(%g)", x[0]);
  else if (dim == 2)
    snprintf(out, size, "(%g, %g)", x[0], x[1]);
  else
    snprintf(out, size, "(%g, %g, %g)", x[0], x[1], x[2]);
}

// Boundary faces: each is a facet of a zone, none repeated; every facet of exactly one
// zone has one (else "missing boundary faces"); no facet of three zones.
static int CheckFacets(const Gmsh *g, Work *w, int dim, int nzones, int nbdr) {
  const int nfv = 1 << (dim - 1), nc = 1 << dim;
  size_t n = 0;
  for (int z = 0; z < nzones; z++) {
    const int(*f)[4];
    const int geom = w->zone_geom[z], nf = Facets(geom, &f);
    for (int k = 0; k < nf; k++) {
      int v[4], m = 0;
      for (int i = 0; i < 4 && f[k][i] >= 0; i++) v[m++] = w->zone_verts[(size_t)z * nc + f[k][i]];
      int64_t *row = &w->facets[6 * n++];
      FacetKey(v, m, row);
      row[4] = z, row[5] = -1;
    }
  }
  qsort(w->facets, n, 6 * sizeof(int64_t), CmpFacet);
  for (int b = 0; b < nbdr; b++) {
    const GmshElem *e = &g->elem[w->bdr[b]];
    const int geom = w->bdr_geom[b], m = BlastGeomNumVertices(geom);
    int64_t key[6];
    FacetKey(&w->bdr_verts[(size_t)b * nfv], m, key);
    int64_t *row = bsearch(key, w->facets, n, 6 * sizeof(int64_t), CmpFacet);
    if (!row)
      GmshFail(g, e->where, "boundary element %lld (physical group %d) is not a face of any zone",
               (long long)e->tag, w->bdr_attr[b]);
    while (row > w->facets && !CmpFacet(row - 6, key)) row -= 6;
    if (row[5] >= 0)
      GmshFail(g, e->where,
               "boundary element %lld (physical group %d) repeats the face of boundary element "
               "%lld (physical group %d): a face can be in one physical group only",
               (long long)e->tag, w->bdr_attr[b], (long long)g->elem[w->bdr[row[5]]].tag,
               w->bdr_attr[row[5]]);
    for (int64_t *r = row; r < w->facets + 6 * n && !CmpFacet(r, key); r += 6) r[5] = b;
  }
  size_t missing = 0, first = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && !CmpFacet(&w->facets[6 * j], &w->facets[6 * i])) j++;
    if (j - i > 2) {
      const GmshElem *e = &g->elem[w->zone[w->facets[6 * i + 4]]];
      GmshFail(g, e->where,
               "element %lld shares a face with %zu other zones (a duplicated zone or a "
               "non-conforming mesh)",
               (long long)e->tag, j - i - 1);
    }
    if (j - i == 1 && w->facets[6 * i + 5] < 0 && !missing++) first = i;
    i = j;
  }
  if (missing) {
    const int64_t *row = &w->facets[6 * first];
    const GmshElem *e = &g->elem[w->zone[row[4]]];
    char text[256] = "", vt[96];
    for (int i = 0; i < 4 && row[i] != INT64_MAX; i++) {
      VertexText(&w->coords[row[i] * dim], dim, vt, sizeof vt);
      strncat(text, i ? " " : "", sizeof text - strlen(text) - 1);
      strncat(text, vt, sizeof text - strlen(text) - 1);
    }
    static const char *kGroup[4] = {"", "Physical Point", "Physical Curve", "Physical Surface"};
    GmshFail(g, e->where,
             "missing boundary faces: %zu zone faces on the boundary of the domain have no "
             "boundary element (physical group), e.g. the face of vertices %s of element %lld: "
             "add them to a %s",
             missing, text, (long long)e->tag, kGroup[dim]);
  }
  return 0;
}

// Simplices and mixed meshes: the corners' determinant of every simplex, and of a
// quadrilateral at its 4 corners (det J of a bilinear map is affine: positive at the
// corners is positive everywhere), must be positive.
static int CheckCorners(const Gmsh *g, const Work *w, int dim, int nzones) {
  const int nc = 1 << dim;
  for (int z = 0; z < nzones; z++) {
    const int geom = w->zone_geom[z], *v = &w->zone_verts[(size_t)z * nc];
    double det = INFINITY;
    if (BlastGeomIsSimplex(geom)) {
      double J[3][3];
      for (int gg = 0; gg < dim; gg++)
        for (int c = 0; c < dim; c++)
          J[c][gg] = w->coords[(size_t)v[gg + 1] * dim + c] - w->coords[(size_t)v[0] * dim + c];
      det = dim == 2 ? J[0][0] * J[1][1] - J[0][1] * J[1][0]
                     : J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                           J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                           J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    } else if (geom == BLAST_GEOM_CUBE) {
      for (int c = 0; c < 8; c++) {
        double J[3][3];
        for (int gg = 0; gg < 3; gg++)
          for (int k = 0; k < 3; k++)
            J[k][gg] =
                (((c >> gg) & 1) ? -1.0 : 1.0) *
                (w->coords[(size_t)v[c ^ (1 << gg)] * 3 + k] - w->coords[(size_t)v[c] * 3 + k]);
        const double d = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                         J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
        if (!(d > det)) det = d;
      }
    } else if (geom == BLAST_GEOM_SEGMENT) {
      det = w->coords[v[1]] - w->coords[v[0]];
    } else if (geom == BLAST_GEOM_SQUARE) {
      static const int kNext[4][2] = {{1, 2}, {3, 0}, {0, 3}, {2, 1}};  // ccw neighbours
      for (int c = 0; c < 4; c++) {
        const double *x0 = &w->coords[(size_t)v[c] * 2],
                     *x1 = &w->coords[(size_t)v[kNext[c][0]] * 2],
                     *x2 = &w->coords[(size_t)v[kNext[c][1]] * 2];
        const double d = (x1[0] - x0[0]) * (x2[1] - x0[1]) - (x1[1] - x0[1]) * (x2[0] - x0[0]);
        if (!(d > det)) det = d;
      }
    }
    if (!(det > 0.0)) {
      const GmshElem *e = &g->elem[w->zone[z]];
      GmshFail(g, e->where,
               "element %lld (a %s) is inverted or degenerate (corner determinant %.3e): "
               "check its vertex order (Gmsh surfaces of normal -z give clockwise elements; "
               "blast_gpu turns them over only when all are)",
               (long long)e->tag, BlastGeomName(geom), det);
    }
  }
  return 0;
}

// The mesh module's Jacobian and conformity check (as for MFEM files); "zone N" in its
// message is named as the element and its place in the file.
static int CheckMeshModule(const Gmsh *g, const Work *w, int nzones, BlastMesh mesh) {
  int ierr = BlastMeshCheckJacobians(mesh, 2);
  if (!ierr) return 0;
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
  int z;
  if (ierr == BLAST_ERR_INPUT && sscanf(msg, "zone %d", &z) == 1 && z >= 0 && z < nzones) {
    const GmshElem *e = &g->elem[w->zone[z]];
    GmshFail(g, e->where, "element %lld: %s", (long long)e->tag, msg);
  }
  if (ierr == BLAST_ERR_INPUT) BlastError(ierr, "%s: %s", g->name, msg);
  BlastCall(ierr);
  return 0;
}

// Zones (dim), boundary faces (dim - 1, in a physical group), their attributes; the
// order p of the geometry; refusals of elements in no group, mixed orders and tet/hex.
static int Classify(const Gmsh *g, Work *w, int *pdim, int *pnz, int *pnb, int *porder) {
  int dim = 0, groups = 0;
  for (int i = 0; i < g->nelem; i++)
    if (g->elem[i].edim > dim) dim = g->elem[i].edim;
  if (dim == 0) GmshFail(g, g->len, "no elements of dimension 1, 2 or 3 in '$Elements'");
  if (g->version == 2) {
    for (int i = 0; i < g->nelem && !groups; i++) groups = g->elem[i].phys != 0;
  } else {
    for (int i = 0; i < g->nent && !groups; i++) groups = g->ent[i].nphys > 0;
  }
  if (!groups)
    GmshFail(g, g->len,
             "no physical groups: blast_gpu takes the zone attributes and the boundary faces "
             "from physical groups; add a Physical %s for the zones and Physical %s for the "
             "boundary to the .geo file",
             dim == 3   ? "Volume"
             : dim == 2 ? "Surface"
                        : "Curve",
             dim == 3   ? "Surfaces"
             : dim == 2 ? "Curves"
                        : "Points");
  ALLOC(w->zone, g->nelem);
  ALLOC(w->bdr, g->nelem);
  ALLOC(w->zone_attr, g->nelem);
  ALLOC(w->bdr_attr, g->nelem);
  int nz = 0, nb = 0, order = 0, first = -1, tet = -1, hex = -1;
  for (int i = 0; i < g->nelem; i++) {
    const GmshElem *e = &g->elem[i];
    if (e->edim < dim - 1) continue;
    const GmshType t = GmshTypeInfo(e->type);
    int phys = 0;
    BlastCall(PhysOf(g, e, &phys));
    if (e->edim == dim - 1 && phys == 0) continue;  // not a boundary face
    if (e->edim == dim && phys == 0)
      GmshFail(g, e->where,
               "element %lld (a %s) is in no physical group: every zone needs one (its "
               "attribute); add its %s to a Physical %s",
               (long long)e->tag, t.name,
               dim == 3   ? "volume"
               : dim == 2 ? "surface"
                          : "curve",
               dim == 3   ? "Volume"
               : dim == 2 ? "Surface"
                          : "Curve");
    if (phys < 1)
      GmshFail(g, e->where, "element %lld has physical tag %d (expected a positive tag)",
               (long long)e->tag, phys);
    if (e->edim > 0) {
      if (first < 0) first = i, order = t.order;
      if (t.order != order)
        GmshFail(g, e->where,
                 "mixed orders: element %lld is a %s of order %d, element %lld a %s of order %d "
                 "(blast_gpu reads meshes of one order)",
                 (long long)e->tag, t.name, t.order, (long long)g->elem[first].tag,
                 GmshTypeInfo(g->elem[first].type).name, order);
    }
    if (e->edim == dim) {
      if (t.geom == BLAST_GEOM_TETRAHEDRON && tet < 0) tet = i;
      if (t.geom == BLAST_GEOM_CUBE && hex < 0) hex = i;
      if (tet >= 0 && hex >= 0) {
        const GmshElem *o = &g->elem[tet == i ? hex : tet];
        GmshFail(g, e->where,
                 "element %lld is a %s and element %lld a %s: blast_gpu reads 3D meshes of "
                 "tetrahedra or of hexahedra, not both",
                 (long long)e->tag, t.name, (long long)o->tag, GmshTypeInfo(o->type).name);
      }
      w->zone_attr[nz] = phys, w->zone[nz++] = i;
    } else {
      w->bdr_attr[nb] = phys, w->bdr[nb++] = i;
    }
  }
  if (!nz) GmshFail(g, g->len, "no zones (elements of dimension %d in a physical group)", dim);
  *pdim = dim, *pnz = nz, *pnb = nb, *porder = order ? order : 1;
  return 0;
}

// The nodes of zones and faces as node indices (the tags looked up): those of zone k
// (face k - nz) at w->elem_node[w->eoff[k] + a].
static int ResolveNodes(const Gmsh *g, Work *w, int nz, int nb) {
  ALLOC(w->node_order, g->nnodes);
  for (int i = 0; i < g->nnodes; i++) w->node_order[i] = i;
  g_sort = g;
  qsort(w->node_order, (size_t)g->nnodes, sizeof(int), CmpNodeTag);
  for (int i = 1; i < g->nnodes; i++)
    if (g->node_tag[w->node_order[i]] == g->node_tag[w->node_order[i - 1]]) {
      const int a = w->node_order[i - 1], b = w->node_order[i];
      GmshFail(g, g->node_at[a > b ? a : b], "node tag %d is given twice", g->node_tag[a]);
    }
  ALLOC(w->eoff, (size_t)nz + nb + 1);
  for (int k = 0; k < nz + nb; k++)
    w->eoff[k + 1] =
        w->eoff[k] +
        (size_t)GmshTypeInfo(g->elem[k < nz ? w->zone[k] : w->bdr[k - nz]].type).nnodes;
  ALLOC(w->elem_node, w->eoff[nz + nb]);
  for (int k = 0; k < nz + nb; k++) {
    const GmshElem *e = &g->elem[k < nz ? w->zone[k] : w->bdr[k - nz]];
    const int nn = GmshTypeInfo(e->type).nnodes;
    for (int a = 0; a < nn; a++) {
      const int tag = g->enodes[e->first + (size_t)a];
      const int n = FindNode(g, w->node_order, tag);
      if (n < 0)
        GmshFail(g, e->where, "element %lld: node %d (tag %d) is not in '$Nodes'",
                 (long long)e->tag, a + 1, tag);
      // Distinct from the vertices (the first nodes; all pairs would cost p^6 in 3D).
      const int nv = BlastGeomNumVertices(GmshTypeInfo(e->type).geom);
      for (int b = 0; b < a && b < nv; b++)
        if (w->elem_node[w->eoff[k] + (size_t)b] == n)
          GmshFail(g, e->where, "element %lld: node tag %d appears twice", (long long)e->tag, tag);
      w->elem_node[w->eoff[k] + (size_t)a] = n;
    }
  }
  return 0;
}

// Gmsh vertex order of each geometry's reference corners (tensor: [0,1]^d).
static const int kGmshCorner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                      {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const int kGmshSimplexCorner[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

// The Gmsh vertex at blast_gpu corner c of geometry geom (flip: first two axes swapped).
static int GmshVertexOfCorner(int geom, int c, int flip) {
  const int simplex = BlastGeomIsSimplex(geom), nv = BlastGeomNumVertices(geom);
  int r[3] = {0, 0, 0};
  if (simplex) {
    if (c > 0) r[c - 1] = 1;
  } else {
    for (int gg = 0; gg < 3; gg++) r[gg] = (c >> gg) & 1;
  }
  for (int a = 0; a < nv; a++) {
    const int *x = simplex ? kGmshSimplexCorner[a] : kGmshCorner[a];
    const int y[3] = {flip ? x[1] : x[0], flip ? x[0] : x[1], x[2]};
    if (y[0] == r[0] && y[1] == r[1] && y[2] == r[2]) return a;
  }
  return 0;
}

// Node coordinates of the zones: within the plane (2D) or line (1D), not huge.
static int CheckNodes(const Gmsh *g, const Work *w, int dim, int nz) {
  for (int z = 0; z < nz; z++) {
    const GmshElem *e = &g->elem[w->zone[z]];
    const int nn = GmshTypeInfo(e->type).nnodes;
    for (int a = 0; a < nn; a++) {
      const int n = w->elem_node[w->eoff[z] + (size_t)a];
      const double *x = &g->node_xyz[3 * (size_t)n];
      for (int c = 0; c < 3; c++) {
        if (c >= dim && x[c] != 0.0)
          GmshFail(g, g->node_at[n],
                   "node %d (of element %lld) has %c = %g in a %dD mesh: a %dD mesh must lie in "
                   "the %s",
                   g->node_tag[n], (long long)e->tag, "xyz"[c], x[c], dim, dim,
                   dim == 2 ? "plane z = 0" : "x axis (y = z = 0)");
        if (fabs(x[c]) > BLAST_MAX_COORDINATE)
          GmshFail(g, g->node_at[n],
                   "node %d: coordinates too large (|%c| = %g > %g, which the method's squared "
                   "lengths would overflow): scale the mesh",
                   g->node_tag[n], "xyz"[c], fabs(x[c]), BLAST_MAX_COORDINATE);
      }
    }
  }
  return 0;
}

// In 2D, zones that are all clockwise (a Gmsh surface of normal -z) are turned over.
static int AllClockwise(const Gmsh *g, const Work *w, int dim, int nz) {
  if (dim != 2) return 0;
  for (int z = 0; z < nz; z++) {
    const int nv = BlastGeomNumVertices(GmshTypeInfo(g->elem[w->zone[z]].type).geom);
    double area = 0.0;
    for (int a = 0; a < nv; a++) {
      const double *x0 = &g->node_xyz[3 * (size_t)w->elem_node[w->eoff[z] + (size_t)a]];
      const double *x1 =
          &g->node_xyz[3 * (size_t)w->elem_node[w->eoff[z] + (size_t)((a + 1) % nv)]];
      area += x0[0] * x1[1] - x1[0] * x0[1];
    }
    if (!(area < 0.0)) return 0;
  }
  return 1;
}

// Names of the physical groups of zones and boundary faces.
static int Names(const Gmsh *g, Work *w, int dim, int *nnames) {
  ALLOC(w->names, g->nnames);
  int n = 0;
  for (int i = 0; i < g->nnames; i++) {
    const GmshName *a = &g->names[i];
    if ((a->dim != dim && a->dim != dim - 1) || !a->name[0]) continue;
    if (a->tag < 1)
      GmshFail(g, a->where, "physical name '%s' has tag %d (expected a positive tag)", a->name,
               a->tag);
    for (int j = 0; j < n; j++)
      if (w->names[j].dim == a->dim &&
          (w->names[j].attr == a->tag || !strcmp(w->names[j].name, a->name)))
        GmshFail(g, a->where,
                 "physical name '%s' (dimension %d, tag %d) repeats the tag or the name of '%s' "
                 "(tag %d)",
                 a->name, a->dim, a->tag, w->names[j].name, w->names[j].attr);
    w->names[n].dim = a->dim, w->names[n].attr = a->tag;
    snprintf(w->names[n].name, BLAST_MESH_NAME_MAX, "%s", a->name);
    n++;
  }
  *nnames = n;
  return 0;
}

static int Assemble(const Gmsh *g, Work *w, int dim, int nz, int nb, BlastMesh *mesh) {
  const int nc = 1 << dim, nfv = 1 << (dim - 1), p = w->p;
  const int NN = BlastGeomNumNodes(BlastGeomTensor(dim), p);
  BlastCall(CheckNodes(g, w, dim, nz));
  const int flip = AllClockwise(g, w, dim, nz);
  // Lattice tables of each zone geometry.
  int lat[6][125];
  for (int geom = 1; geom < 6; geom++)
    if (BlastGeomDim(geom) == dim)
      BlastCheck(!GmshLatticeOrder(geom, p, flip, lat[geom]), BLAST_ERR_ARG,
                 "no Gmsh node order for a %s of order %d", BlastGeomName(geom), p);
  // Vertices (the zones' corners) and curved nodes, numbered in the order of their tags.
  ALLOC(w->node_id, g->nnodes);
  ALLOC(w->node_hid, g->nnodes);
  for (int n = 0; n < g->nnodes; n++) w->node_id[n] = w->node_hid[n] = -1;
  ALLOC(w->zone_geom, nz);
  ALLOC(w->zone_verts, (size_t)nz * nc);
  for (int z = 0; z < nz; z++) {
    const GmshType t = GmshTypeInfo(g->elem[w->zone[z]].type);
    w->zone_geom[z] = (unsigned char)t.geom;
    for (int a = 0; a < t.nnodes; a++) {
      const int n = w->elem_node[w->eoff[z] + (size_t)a];
      if (a < BlastGeomNumVertices(t.geom)) w->node_id[n] = 0;
      w->node_hid[n] = 0;
    }
  }
  int nverts = 0, nnodes = 0;
  for (int i = 0; i < g->nnodes; i++) {
    const int n = w->node_order[i];
    if (w->node_id[n] == 0) w->node_id[n] = nverts++;
    if (w->node_hid[n] == 0) w->node_hid[n] = nnodes++;
  }
  ALLOC(w->coords, (size_t)nverts * dim);
  if (p > 1) {
    ALLOC(w->ncoords, (size_t)nnodes * dim);
    ALLOC(w->zone_nodes, (size_t)nz * NN);
  }
  for (int n = 0; n < g->nnodes; n++)
    for (int c = 0; c < dim; c++) {
      if (w->node_id[n] >= 0)
        w->coords[(size_t)w->node_id[n] * dim + c] = g->node_xyz[3 * (size_t)n + c];
      if (p > 1 && w->node_hid[n] >= 0)
        w->ncoords[(size_t)w->node_hid[n] * dim + c] = g->node_xyz[3 * (size_t)n + c];
    }
  for (int z = 0; z < nz; z++) {
    const int geom = w->zone_geom[z], nv = BlastGeomNumVertices(geom);
    const int *en = &w->elem_node[w->eoff[z]];
    for (int c = 0; c < nc; c++)
      w->zone_verts[(size_t)z * nc + c] =
          c < nv ? w->node_id[en[GmshVertexOfCorner(geom, c, flip)]] : -1;
    if (p > 1) {
      for (int a = 0; a < NN; a++) w->zone_nodes[(size_t)z * NN + a] = -1;
      for (int a = 0; a < BlastGeomNumNodes(geom, p); a++)
        w->zone_nodes[(size_t)z * NN + lat[geom][a]] = w->node_hid[en[a]];
    }
  }
  // Boundary faces: their corners (lexicographic for quadrilaterals).
  static const int kFaceCorner[4] = {0, 1, 3, 2};
  ALLOC(w->bdr_geom, nb);
  ALLOC(w->bdr_verts, (size_t)nb * nfv);
  for (int b = 0; b < nb; b++) {
    const GmshElem *e = &g->elem[w->bdr[b]];
    const int geom = GmshTypeInfo(e->type).geom, nv = BlastGeomNumVertices(geom);
    w->bdr_geom[b] = (unsigned char)geom;
    for (int c = 0; c < nfv; c++) {
      int v = -1;
      if (c < nv) {
        const int n = w->elem_node[w->eoff[nz + b] + (size_t)(nv == 4 ? kFaceCorner[c] : c)];
        v = w->node_id[n];
        if (v < 0)
          GmshFail(g, e->where,
                   "boundary element %lld (physical group %d) is not a face of any zone (its "
                   "node %d is no zone's vertex)",
                   (long long)e->tag, w->bdr_attr[b], g->node_tag[n]);
      }
      w->bdr_verts[(size_t)b * nfv + c] = v;
    }
  }
  BlastCall(CheckCorners(g, w, dim, nz));
  ALLOC(w->facets, (size_t)6 * 6 * nz);
  BlastCall(CheckFacets(g, w, dim, nz, nb));
  int nnames = 0;
  BlastCall(Names(g, w, dim, &nnames));
  const BlastMeshDesc d = {.dim = dim,
                           .nverts = nverts,
                           .nzones = nz,
                           .nbdr = nb,
                           .coords = w->coords,
                           .zone_verts = w->zone_verts,
                           .zone_geom = w->zone_geom,
                           .zone_attr = w->zone_attr,
                           .bdr_verts = w->bdr_verts,
                           .bdr_geom = w->bdr_geom,
                           .bdr_attr = w->bdr_attr,
                           .curve_order = p,
                           .nnodes = nnodes,
                           .node_coords = w->ncoords,
                           .zone_nodes = w->zone_nodes,
                           .nnames = nnames,
                           .names = w->names};
  int ierr = BlastMeshCreateFrom(&d, mesh);
  if (ierr == BLAST_ERR_INPUT) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
    BlastError(ierr, "%s: %s", g->name, msg);
  }
  BlastCall(ierr);
  BlastCall(CheckMeshModule(g, w, nz, *mesh));
  return 0;
}

int GmshBuild(Gmsh *g, BlastMesh *mesh) {
  Work w = {0};
  int dim = 0, nz = 0, nb = 0;
  BlastMesh m = NULL;
  int ierr = Classify(g, &w, &dim, &nz, &nb, &w.p);
  if (!ierr) ierr = ResolveNodes(g, &w, nz, nb);
  if (!ierr) ierr = Assemble(g, &w, dim, nz, nb, &m);
  FreeWork(&w);
  if (ierr) {
    BlastMeshDestroy(&m);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  *mesh = m;
  return 0;
}
