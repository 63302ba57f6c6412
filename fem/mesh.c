// Meshes: creation, validation, multilinear zone maps, uniform refinement (see mesh.h).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fe.h"
#include "geom.h"
#include "geom_basis.h"
#include "memory.h"
#include "mesh-curved.h"
#include "mesh-impl.h"
#include "topology.h"

int BlastMeshCreate(int dim, int nverts, const double *coords, int nzones, const int *zone_verts,
                    const int *zone_attr, int nbdr, const int *bdr_verts, const int *bdr_attr,
                    BlastMesh *mesh) {
  const BlastMeshDesc d = {.dim = dim,
                           .nverts = nverts,
                           .nzones = nzones,
                           .nbdr = nbdr,
                           .coords = coords,
                           .zone_verts = zone_verts,
                           .zone_attr = zone_attr,
                           .bdr_verts = bdr_verts,
                           .bdr_attr = bdr_attr};
  BlastCall(BlastMeshCreateFrom(&d, mesh));
  return 0;
}

// The geometries a zone (fdim = dim) or a boundary face (fdim = dim - 1) may have.
static int GeomAllowed(int fdim, int g) {
  return BlastGeomDim(g) == fdim && g >= 0 && g <= BLAST_GEOM_CUBE;
}

// Vertices of entity e with `stride` slots and geometry g: in range, distinct, padding -1.
static int CheckVerts(const char *what, int e, const int *v, int stride, int g, int nverts) {
  const int nv = BlastGeomNumVertices(g);
  for (int c = 0; c < stride; c++) {
    if (c >= nv) {
      BlastCheck(v[c] == -1, BLAST_ERR_INPUT, "%s %d (%s): unused vertex slot %d holds %d, not -1",
                 what, e, BlastGeomName(g), c, v[c]);
      continue;
    }
    BlastCheck(v[c] >= 0 && v[c] < nverts, BLAST_ERR_INPUT,
               "%s %d: vertex index %d out of range [0, %d)", what, e, v[c], nverts);
    for (int c2 = 0; c2 < c; c2++)
      BlastCheck(v[c2] != v[c], BLAST_ERR_INPUT, "%s %d: vertex %d appears twice", what, e, v[c]);
  }
  return 0;
}

static int CheckDesc(const BlastMeshDesc *d) {
  const int dim = d->dim;
  BlastCheck(dim >= 1 && dim <= 3, BLAST_ERR_INPUT, "mesh dimension %d is not 1, 2 or 3", dim);
  BlastCheck(d->nverts > 0 && d->nzones > 0, BLAST_ERR_INPUT, "mesh has %d vertices and %d zones",
             d->nverts, d->nzones);
  BlastCheck(d->nbdr >= 0, BLAST_ERR_INPUT, "negative number of boundary faces");
  const int nc = 1 << dim, nf = 1 << (dim - 1);
  for (int z = 0; z < d->nzones; z++) {
    const int g = d->zone_geom ? d->zone_geom[z] : BlastGeomTensor(dim);
    BlastCheck(GeomAllowed(dim, g), BLAST_ERR_INPUT, "zone %d: a %s in a %dD mesh", z,
               BlastGeomName(g), dim);
    BlastCall(CheckVerts("zone", z, &d->zone_verts[(size_t)z * nc], nc, g, d->nverts));
    BlastCheck(!d->zone_attr || d->zone_attr[z] >= 1, BLAST_ERR_INPUT,
               "zone %d: attribute %d (must be >= 1)", z, d->zone_attr ? d->zone_attr[z] : 1);
  }
  for (int f = 0; f < d->nbdr; f++) {
    const int g = d->bdr_geom ? d->bdr_geom[f] : BlastGeomTensor(dim - 1);
    BlastCheck(GeomAllowed(dim - 1, g), BLAST_ERR_INPUT, "boundary face %d: a %s in a %dD mesh", f,
               BlastGeomName(g), dim);
    BlastCall(CheckVerts("boundary face", f, &d->bdr_verts[(size_t)f * nf], nf, g, d->nverts));
    BlastCheck(d->bdr_attr[f] >= 1, BLAST_ERR_INPUT,
               "boundary face %d: attribute %d (must be >= 1)", f, d->bdr_attr[f]);
  }
  for (size_t i = 0; i < (size_t)d->nverts * dim; i++)
    BlastCheck(isfinite(d->coords[i]), BLAST_ERR_INPUT, "vertex %zu: coordinate is not finite",
               i / dim);
  if (d->curve_order > 1) {
    const int p = d->curve_order, nn = BlastGeomNumNodes(BlastGeomTensor(dim), p);
    BlastCheck(p <= BLAST_MAX_CURVE_ORDER, BLAST_ERR_INPUT,
               "curved mesh of order %d (blast_gpu reads orders up to %d)", p,
               BLAST_MAX_CURVE_ORDER);
    BlastCheck(d->nnodes > 0 && d->node_coords && d->zone_nodes, BLAST_ERR_INPUT,
               "curved mesh of order %d without nodes", p);
    for (size_t i = 0; i < (size_t)d->nnodes * dim; i++)
      BlastCheck(isfinite(d->node_coords[i]), BLAST_ERR_INPUT, "node %zu: coordinate is not finite",
                 i / dim);
    for (int z = 0; z < d->nzones; z++) {
      const int g = d->zone_geom ? d->zone_geom[z] : BlastGeomTensor(dim);
      const int used = BlastGeomNumNodes(g, p);
      for (int a = 0; a < nn; a++) {
        const int n = d->zone_nodes[(size_t)z * nn + a];
        if (a >= used)
          BlastCheck(n == -1, BLAST_ERR_INPUT, "zone %d: unused node slot %d holds %d, not -1", z,
                     a, n);
        else
          BlastCheck(n >= 0 && n < d->nnodes, BLAST_ERR_INPUT,
                     "zone %d: node index %d out of range [0, %d)", z, n, d->nnodes);
      }
    }
  }
  BlastCheck(d->nnames >= 0 && (!d->nnames || d->names), BLAST_ERR_INPUT, "bad attribute names");
  for (int i = 0; i < d->nnames; i++) {
    const BlastMeshName *a = &d->names[i];
    BlastCheck((a->dim == dim || a->dim == dim - 1) && a->attr >= 1 && a->name[0] &&
                   memchr(a->name, '\0', BLAST_MESH_NAME_MAX),
               BLAST_ERR_INPUT, "attribute name %d: dimension %d, attribute %d", i, a->dim,
               a->attr);
    for (int j = 0; j < i; j++) {
      const BlastMeshName *b = &d->names[j];
      BlastCheck(b->dim != a->dim || (b->attr != a->attr && strcmp(b->name, a->name)),
                 BLAST_ERR_INPUT, "attribute name '%s' (attribute %d) given twice", a->name,
                 a->attr);
    }
  }
  return 0;
}

int BlastMeshCreateFrom(const BlastMeshDesc *d, BlastMesh *mesh) {
  BlastCheck(d && mesh, BLAST_ERR_ARG, "NULL argument");
  BlastCall(CheckDesc(d));
  const int dim = d->dim, nc = 1 << dim, nf = 1 << (dim - 1);
  const int nverts = d->nverts, nzones = d->nzones, nbdr = d->nbdr;
  BlastMesh m;
  BlastCall(BlastCalloc(1, &m));
  m->dim = dim, m->nverts = nverts, m->nzones = nzones, m->nbdr = nbdr;
  int ierr = BlastMalloc((size_t)nverts * dim, &m->coords);
  if (!ierr) ierr = BlastMalloc((size_t)nzones * nc, &m->zone_verts);
  if (!ierr) ierr = BlastMalloc(nzones, &m->zone_attr);
  if (!ierr) ierr = BlastMalloc(nzones, &m->zone_geom);
  if (!ierr) ierr = BlastMalloc((size_t)nbdr * nf + 1, &m->bdr_verts);
  if (!ierr) ierr = BlastMalloc(nbdr + 1, &m->bdr_attr);
  if (!ierr) ierr = BlastMalloc(nbdr + 1, &m->bdr_geom);
  if (ierr) {
    BlastMeshDestroy(&m);
    BlastCall(ierr);
  }
  memcpy(m->coords, d->coords, sizeof(double) * nverts * dim);
  memcpy(m->zone_verts, d->zone_verts, sizeof(int) * nzones * nc);
  for (int z = 0; z < nzones; z++) {
    m->zone_attr[z] = d->zone_attr ? d->zone_attr[z] : 1;
    m->zone_geom[z] = d->zone_geom ? d->zone_geom[z] : (unsigned char)BlastGeomTensor(dim);
    m->nsimplex += BlastGeomIsSimplex(m->zone_geom[z]);
  }
  if (nbdr) {
    memcpy(m->bdr_verts, d->bdr_verts, sizeof(int) * nbdr * nf);
    memcpy(m->bdr_attr, d->bdr_attr, sizeof(int) * nbdr);
  }
  for (int f = 0; f < nbdr; f++)
    m->bdr_geom[f] = d->bdr_geom ? d->bdr_geom[f] : (unsigned char)BlastGeomTensor(dim - 1);
  m->curve_order = d->curve_order > 1 ? d->curve_order : 1;
  if (m->curve_order > 1) {
    const size_t nn = (size_t)BlastGeomNumNodes(BlastGeomTensor(dim), m->curve_order);
    m->nnodes = d->nnodes;
    ierr = BlastMalloc((size_t)d->nnodes * dim, &m->node_coords);
    if (!ierr) ierr = BlastMalloc(nzones * nn, &m->zone_nodes);
    if (!ierr) {
      memcpy(m->node_coords, d->node_coords, sizeof(double) * d->nnodes * dim);
      memcpy(m->zone_nodes, d->zone_nodes, sizeof(int) * nzones * nn);
    }
  }
  if (!ierr && d->nnames) {
    ierr = BlastMalloc(d->nnames, &m->names);
    if (!ierr) memcpy(m->names, d->names, sizeof(BlastMeshName) * d->nnames), m->nnames = d->nnames;
  }
  if (ierr) {
    BlastMeshDestroy(&m);
    BlastCall(ierr);
  }
  *mesh = m;
  return 0;
}

void BlastMeshDescribe(BlastMesh m, BlastMeshDesc *d) {
  *d = (BlastMeshDesc){.dim = m->dim,
                       .nverts = m->nverts,
                       .nzones = m->nzones,
                       .nbdr = m->nbdr,
                       .coords = m->coords,
                       .zone_verts = m->zone_verts,
                       .zone_geom = m->zone_geom,
                       .zone_attr = m->zone_attr,
                       .bdr_verts = m->bdr_verts,
                       .bdr_geom = m->bdr_geom,
                       .bdr_attr = m->bdr_attr,
                       .curve_order = m->curve_order,
                       .nnodes = m->nnodes,
                       .node_coords = m->node_coords,
                       .zone_nodes = m->zone_nodes,
                       .nnames = m->nnames,
                       .names = m->names};
}

int BlastMeshDestroy(BlastMesh *mesh) {
  if (!mesh || !*mesh) return 0;
  BlastFree(&(*mesh)->coords);
  BlastFree(&(*mesh)->zone_verts);
  BlastFree(&(*mesh)->zone_attr);
  BlastFree(&(*mesh)->zone_geom);
  BlastFree(&(*mesh)->bdr_verts);
  BlastFree(&(*mesh)->bdr_attr);
  BlastFree(&(*mesh)->bdr_geom);
  BlastFree(&(*mesh)->node_coords);
  BlastFree(&(*mesh)->zone_nodes);
  BlastFree(&(*mesh)->names);
  BlastFree(mesh);
  return 0;
}

int BlastMeshZoneGeom(BlastMesh mesh, int z) {
  return mesh->zone_geom[z];
}
int BlastMeshBdrGeom(BlastMesh mesh, int f) {
  return mesh->bdr_geom[f];
}
int BlastMeshIsTensor(BlastMesh mesh) {
  return mesh->nsimplex == 0;
}
int BlastMeshHasSimplices(BlastMesh mesh) {
  return mesh->nsimplex > 0;
}
int BlastMeshCurveOrder(BlastMesh mesh) {
  return mesh->curve_order;
}
int BlastMeshNumNodes(BlastMesh mesh) {
  return mesh->nnodes;
}
const double *BlastMeshNodeCoords(BlastMesh mesh) {
  return mesh->node_coords;
}
const int *BlastMeshZoneNodes(BlastMesh mesh) {
  return mesh->zone_nodes;
}
int BlastMeshNumNames(BlastMesh mesh) {
  return mesh->nnames;
}
const BlastMeshName *BlastMeshNames(BlastMesh mesh) {
  return mesh->names;
}
int BlastMeshAttributeOfName(BlastMesh mesh, int dim, const char *name) {
  for (int i = 0; i < mesh->nnames; i++)
    if (mesh->names[i].dim == dim && !strcmp(mesh->names[i].name, name)) return mesh->names[i].attr;
  return -1;
}
const char *BlastMeshNameOfAttribute(BlastMesh mesh, int dim, int attr) {
  for (int i = 0; i < mesh->nnames; i++)
    if (mesh->names[i].dim == dim && mesh->names[i].attr == attr) return mesh->names[i].name;
  return NULL;
}

int BlastMeshDim(BlastMesh mesh) {
  return mesh->dim;
}
int BlastMeshNumVertices(BlastMesh mesh) {
  return mesh->nverts;
}
int BlastMeshNumZones(BlastMesh mesh) {
  return mesh->nzones;
}
int BlastMeshNumBoundary(BlastMesh mesh) {
  return mesh->nbdr;
}
const double *BlastMeshCoords(BlastMesh mesh) {
  return mesh->coords;
}
const int *BlastMeshZoneVerts(BlastMesh mesh) {
  return mesh->zone_verts;
}
const int *BlastMeshZoneAttr(BlastMesh mesh) {
  return mesh->zone_attr;
}
const int *BlastMeshBdrVerts(BlastMesh mesh) {
  return mesh->bdr_verts;
}
const int *BlastMeshBdrAttr(BlastMesh mesh) {
  return mesh->bdr_attr;
}

// Straight simplex zones: the affine map x_0 + sum_g xi_g (x_{g+1} - x_0) (geom.h).
static void AffineSimplexMap(BlastMesh mesh, int z, const double *xi, double *x) {
  const int dim = mesh->dim;
  const int *zv = &mesh->zone_verts[(size_t)z << dim];
  const double *X0 = &mesh->coords[(size_t)zv[0] * dim];
  for (int c = 0; c < dim; c++) x[c] = X0[c];
  for (int g = 0; g < dim; g++) {
    const double *X = &mesh->coords[(size_t)zv[g + 1] * dim];
    for (int c = 0; c < dim; c++) x[c] += xi[g] * (X[c] - X0[c]);
  }
}

static double Det(int dim, const double *J) {
  if (dim == 1) return J[0];
  if (dim == 2) return J[0] * J[3] - J[1] * J[2];
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}

// Its constant Jacobian J[c*dim + g] = x_{g+1,c} - x_{0,c}; returns det J.
static double AffineSimplexJacobian(BlastMesh mesh, int z, double *J) {
  const int dim = mesh->dim;
  const int *zv = &mesh->zone_verts[(size_t)z << dim];
  const double *X0 = &mesh->coords[(size_t)zv[0] * dim];
  for (int g = 0; g < dim; g++) {
    const double *X = &mesh->coords[(size_t)zv[g + 1] * dim];
    for (int c = 0; c < dim; c++) J[c * dim + g] = X[c] - X0[c];
  }
  return Det(dim, J);
}

void BlastMeshZoneMap(BlastMesh mesh, int z, const double *xi, double *x) {
  if (mesh->curve_order > 1) {
    BlastMeshCurvedMap(mesh, z, mesh->zone_geom[z], xi, x, NULL);
    return;
  }
  const int dim = mesh->dim, nc = 1 << dim;
  if (BlastGeomIsSimplex(mesh->zone_geom[z])) {
    AffineSimplexMap(mesh, z, xi, x);
    return;
  }
  // The corner weights are products of xi_g or 1 - xi_g, in direction order (each factor
  // formed once); the sums run over the corners in order.
  const int *zv = &mesh->zone_verts[(size_t)z * nc];
  double f[2][3];
  for (int g = 0; g < dim; g++) f[0][g] = 1.0 - xi[g], f[1][g] = xi[g];
  if (dim == 3) {
    double x0 = 0.0, x1 = 0.0, x2 = 0.0;
    for (int corner = 0; corner < 8; corner++) {
      double w = 1.0;
      w *= f[corner & 1][0], w *= f[(corner >> 1) & 1][1], w *= f[corner >> 2][2];
      const double *X = &mesh->coords[(size_t)zv[corner] * 3];
      x0 += w * X[0], x1 += w * X[1], x2 += w * X[2];
    }
    x[0] = x0, x[1] = x1, x[2] = x2;
    return;
  }
  for (int c = 0; c < dim; c++) x[c] = 0.0;
  for (int corner = 0; corner < nc; corner++) {
    double w = 1.0;
    for (int g = 0; g < dim; g++) w *= f[(corner >> g) & 1][g];
    const double *X = &mesh->coords[(size_t)zv[corner] * dim];
    for (int c = 0; c < dim; c++) x[c] += w * X[c];
  }
}

// Jacobian of the multilinear map, J[c*dim + g] = dx_c / dxi_g; returns det J.
static double ZoneMapJacobian(BlastMesh mesh, int z, const double *xi, double *J) {
  if (mesh->curve_order > 1) {
    BlastMeshCurvedMap(mesh, z, mesh->zone_geom[z], xi, NULL, J);
    return Det(mesh->dim, J);
  }
  const int dim = mesh->dim, nc = 1 << dim;
  if (BlastGeomIsSimplex(mesh->zone_geom[z])) return AffineSimplexJacobian(mesh, z, J);
  for (int i = 0; i < dim * dim; i++) J[i] = 0.0;
  for (int corner = 0; corner < nc; corner++) {
    const double *X = &mesh->coords[(size_t)mesh->zone_verts[(size_t)z * nc + corner] * dim];
    for (int g = 0; g < dim; g++) {
      double w = 1.0;
      for (int h = 0; h < dim; h++) {
        int bit = (corner >> h) & 1;
        w *= (h == g) ? (bit ? 1.0 : -1.0) : (bit ? xi[h] : 1.0 - xi[h]);
      }
      for (int c = 0; c < dim; c++) J[c * dim + g] += w * X[c];
    }
  }
  return Det(dim, J);
}

// BlastMeshCheckJacobians on a straight simplex zone: its constant Jacobian.
static int CheckSimplexJacobian(BlastMesh mesh, int z) {
  const int dim = mesh->dim, g = mesh->zone_geom[z];
  double J[9];
  const double det = AffineSimplexJacobian(mesh, z, J);
  int finite = isfinite(det);
  for (int i = 0; i < dim * dim; i++) finite = finite && isfinite(J[i]);
  const double *X = &mesh->coords[(size_t)mesh->zone_verts[(size_t)z << dim] * dim];
  BlastCheck(finite, BLAST_ERR_INPUT,
             "zone %d (%s, attribute %d, vertex 0 at (%g, %g, %g)): coordinates too large or "
             "not finite: the Jacobian of the zone's map is not a finite number (det J = %g): "
             "the geometry overflows double precision; scale the mesh so that its coordinates "
             "and their products stay far below 1e308",
             z, BlastGeomName(g), mesh->zone_attr[z], X[0], dim > 1 ? X[1] : 0.0,
             dim > 2 ? X[2] : 0.0, det);
  BlastCheck(det != 0.0, BLAST_ERR_INPUT,
             "zone %d (%s, attribute %d) is degenerate: det J = 0 (its vertices lie on one "
             "%s; vertex 0 at (%g, %g, %g))",
             z, BlastGeomName(g), mesh->zone_attr[z], dim == 2 ? "line" : "plane", X[0],
             dim > 1 ? X[1] : 0.0, dim > 2 ? X[2] : 0.0);
  BlastCheck(det > 0.0, BLAST_ERR_INPUT,
             "zone %d (%s, attribute %d) is inverted: det J = %.3e < 0 (vertex 0 at (%g, %g, "
             "%g)): its vertices are listed in the negative orientation; swap two of them in "
             "the mesh file",
             z, BlastGeomName(g), mesh->zone_attr[z], det, X[0], dim > 1 ? X[1] : 0.0,
             dim > 2 ? X[2] : 0.0);
  return 0;
}

double BlastMeshZoneJacobian(BlastMesh mesh, int z, const double *xi, double *J) {
  return ZoneMapJacobian(mesh, z, xi, J);
}

int BlastMeshCheckJacobians(BlastMesh mesh, int nq) {
  double x1[BLAST_MAX_Q1D], w1[BLAST_MAX_Q1D], J[9];
  BlastCall(BlastGaussLegendre(nq, x1, w1));
  const int dim = mesh->dim, nc = 1 << dim;
  int npts = 1;
  for (int g = 0; g < dim; g++) npts *= nq;
  for (int z = 0; z < mesh->nzones; z++) {
    if (mesh->curve_order > 1) {
      BlastCall(BlastMeshCheckCurvedZone(mesh, z, nq, x1));
      continue;
    }
    for (int c = 0; c < BlastGeomNumVertices(mesh->zone_geom[z]); c++) {
      const int v = mesh->zone_verts[(size_t)z * nc + c];
      const double *X = &mesh->coords[(size_t)v * dim];
      for (int g = 0; g < dim; g++)
        BlastCheck(fabs(X[g]) <= BLAST_MAX_COORDINATE, BLAST_ERR_INPUT,
                   "zone %d (attribute %d): coordinates too large or not finite: its vertex %d is "
                   "at (%g, %g, %g), beyond the %g that blast_gpu accepts (the method squares "
                   "lengths and Jacobian entries, which would overflow double precision); scale "
                   "the mesh",
                   z, mesh->zone_attr[z], v, X[0], dim > 1 ? X[1] : 0.0, dim > 2 ? X[2] : 0.0,
                   BLAST_MAX_COORDINATE);
    }
    if (BlastGeomIsSimplex(mesh->zone_geom[z])) {
      BlastCall(CheckSimplexJacobian(mesh, z));
      continue;
    }
    for (int p = 0; p < npts + nc; p++) {
      double xi[3];
      for (int g = 0, r = p; g < dim; g++, r /= nq)
        xi[g] = p < npts ? x1[r % nq] : (double)(((p - npts) >> g) & 1);
      double det = ZoneMapJacobian(mesh, z, xi, J);
      int finite = isfinite(det);
      for (int i = 0; i < dim * dim; i++) finite = finite && isfinite(J[i]);
      const double *X = &mesh->coords[(size_t)mesh->zone_verts[(size_t)z * nc] * dim];
      // Huge coordinates overflow here (NaN or +-Inf: +Inf would pass det > 0).
      if (!finite)
        BlastError(BLAST_ERR_INPUT,
                   "zone %d (attribute %d, first corner at (%g, %g, %g)): coordinates too large "
                   "or not finite: the Jacobian of the zone's map at reference point (%g, %g, "
                   "%g) is not a finite number (det J = %g): the geometry overflows double "
                   "precision; scale the mesh so that its coordinates and their products stay "
                   "far below 1e308",
                   z, mesh->zone_attr[z], X[0], dim > 1 ? X[1] : 0.0, dim > 2 ? X[2] : 0.0, xi[0],
                   dim > 1 ? xi[1] : 0.0, dim > 2 ? xi[2] : 0.0, det);
      if (!(det > 0.0)) {
        BlastError(BLAST_ERR_INPUT,
                   "zone %d (attribute %d, first corner at (%g, %g, %g)) has a non-positive "
                   "Jacobian determinant %.3e at reference point (%g, %g, %g): the zone is "
                   "inverted or degenerate; check the order of its vertices in the mesh file",
                   z, mesh->zone_attr[z], X[0], dim > 1 ? X[1] : 0.0, dim > 2 ? X[2] : 0.0, det,
                   xi[0], dim > 1 ? xi[1] : 0.0, dim > 2 ? xi[2] : 0.0);
      }
    }
  }
  // Conformity, once every zone is known to be a proper hexahedron (a twisted zone has
  // "faces" that match no neighbour).
  BlastTopology *t;
  BlastCall(BlastTopologyCreate(mesh, &t));
  const int ierr = BlastTopologyCheckConforming(t, mesh);
  BlastTopologyDestroy(&t);
  BlastCall(ierr);
  return 0;
}

double BlastMeshVolume(BlastMesh mesh) {
  if (mesh->curve_order > 1) return BlastMeshCurvedVolume(mesh);
  // Multilinear maps: det J has degree <= dim-1 per direction; 2 points are exact.
  double x1[2], w1[2], J[9], vol = 0.0;
  BlastGaussLegendre(2, x1, w1);
  const int dim = mesh->dim;
  for (int z = 0; z < mesh->nzones; z++) {
    if (BlastGeomIsSimplex(mesh->zone_geom[z])) {  // |det J| / dim!
      vol += fabs(AffineSimplexJacobian(mesh, z, J)) / (dim == 2 ? 2.0 : 6.0);
      continue;
    }
    for (int p = 0; p < (1 << dim); p++) {
      double xi[3], w = 1.0;
      for (int g = 0; g < dim; g++) xi[g] = x1[(p >> g) & 1], w *= w1[(p >> g) & 1];
      vol += w * fabs(ZoneMapJacobian(mesh, z, xi, J));
    }
  }
  return vol;
}

// The lattice subdivisions of the simplices (BlastSimplexChildren) of a refinement of
// order K: zones (dim) and boundary faces (dim - 1).
typedef struct {
  int *zone, *face;
} SimplexChildren;

// Refine simplex zone z: its lattice points of order K (new vertices at their lattice ids)
// and its K^dim children (lattice subdivision, positively oriented).
static int RefineSimplexZone(BlastMesh mesh, const BlastTopology *t, int K, int64_t nchild,
                             const SimplexChildren *sc, int z, double *coords, int *zv, int *za) {
  const int dim = mesh->dim, nc = 1 << dim;
  for (int i2 = 0; i2 <= (dim == 3 ? K : 0); i2++)
    for (int i1 = 0; i1 + i2 <= K; i1++)
      for (int i0 = 0; i0 + i1 + i2 <= K; i0++) {
        const int i[3] = {i0, i1, i2};
        const double xi[3] = {(double)i0 / K, (double)i1 / K, (double)i2 / K};
        const int64_t id = BlastLatticeId(t, mesh->zone_verts, z, K, i);
        BlastMeshZoneMap(mesh, z, xi, &coords[id * dim]);
        for (int c = 0; c < dim; c++)
          BlastCheck(isfinite(coords[id * dim + c]), BLAST_ERR_INPUT,
                     "zone %d: coordinates too large or not finite: serial refinement ([mesh] "
                     "refine_serial) gives the zone's point (%g, %g, %g) of reference "
                     "coordinates the non-finite coordinate %g; scale the mesh",
                     z, xi[0], xi[1], xi[2], coords[id * dim + c]);
      }
  for (int64_t c = 0; c < nchild; c++) {
    const int64_t child = (int64_t)z * nchild + c;
    for (int a = 0; a < nc; a++) {
      const int *i = &sc->zone[(c * (dim + 1) + a) * dim];
      zv[child * nc + a] = a <= dim ? (int)BlastLatticeId(t, mesh->zone_verts, z, K, i) : -1;
    }
    za[child] = mesh->zone_attr[z];
  }
  return 0;
}

// Refine boundary face f, local facet lf of simplex zone z: its K^(dim-1) children.
static void RefineSimplexFacet(BlastMesh mesh, const BlastTopology *t, int K, int64_t nbchild,
                               const SimplexChildren *sc, int f, int z, int lf, int *bv, int *ba) {
  const int dim = mesh->dim, nf = 1 << (dim - 1);
  for (int64_t c = 0; c < nbchild; c++) {
    const int64_t child = (int64_t)f * nbchild + c;
    for (int a = 0; a < nf; a++) {
      int i[3];
      if (a >= dim) {
        bv[child * nf + a] = -1;
        continue;
      }
      BlastSimplexFacetPoint(dim, lf, K, &sc->face[(c * dim + a) * (dim - 1)], i);
      bv[child * nf + a] = (int)BlastLatticeId(t, mesh->zone_verts, z, K, i);
    }
    ba[child] = mesh->bdr_attr[f];
  }
}

// Fill the refined mesh arrays (see BlastMeshRefine); separated so that every early
// return leaves the caller to free the arrays.
static int RefineFill(BlastMesh mesh, const BlastTopology *t, int K, int64_t nchild,
                      int64_t nbchild, const SimplexChildren *sc, double *coords, int *zv, int *za,
                      int *bv, int *ba) {
  const int dim = mesh->dim, nc = 1 << dim, nf = 1 << (dim - 1);
  // Vertices keep their ids; those used by no zone keep their coordinates too.
  memcpy(coords, mesh->coords, sizeof(double) * mesh->nverts * dim);
  for (int z = 0; z < mesh->nzones; z++) {
    if (BlastGeomIsSimplex(mesh->zone_geom[z])) {
      BlastCall(RefineSimplexZone(mesh, t, K, nchild, sc, z, coords, zv, za));
      continue;
    }
    int64_t npts = 1;
    for (int g = 0; g < dim; g++) npts *= K + 1;
    for (int64_t p = 0; p < npts; p++) {
      int i[3] = {0, 0, 0};
      double xi[3];
      int64_t r = p;
      for (int g = 0; g < dim; g++) i[g] = (int)(r % (K + 1)), r /= K + 1, xi[g] = (double)i[g] / K;
      int64_t id = BlastLatticeId(t, mesh->zone_verts, z, K, i);
      BlastMeshZoneMap(mesh, z, xi, &coords[id * dim]);
      for (int c = 0; c < dim; c++)
        BlastCheck(isfinite(coords[id * dim + c]), BLAST_ERR_INPUT,
                   "zone %d: coordinates too large or not finite: serial refinement ([mesh] "
                   "refine_serial) gives the zone's point (%g, %g, %g) of reference coordinates "
                   "the non-finite coordinate %g; scale the mesh",
                   z, xi[0], dim > 1 ? xi[1] : 0.0, dim > 2 ? xi[2] : 0.0, coords[id * dim + c]);
    }
    for (int64_t c = 0; c < nchild; c++) {
      int ci[3] = {0, 0, 0};
      int64_t r = c;
      for (int g = 0; g < dim; g++) ci[g] = (int)(r % K), r /= K;
      int64_t child = (int64_t)z * nchild + c;
      for (int corner = 0; corner < nc; corner++) {
        int i[3];
        for (int g = 0; g < dim; g++) i[g] = ci[g] + ((corner >> g) & 1);
        zv[child * nc + corner] = (int)BlastLatticeId(t, mesh->zone_verts, z, K, i);
      }
      za[child] = mesh->zone_attr[z];
    }
  }
  for (int f = 0; f < mesh->nbdr; f++) {
    int facet = BlastTopologyFindFacet(t, &mesh->bdr_verts[(size_t)f * nf]);
    BlastCheck(facet >= 0, BLAST_ERR_INPUT,
               "boundary face %d (attribute %d) is not a face of any zone", f, mesh->bdr_attr[f]);
    int z = t->facet_zone[2 * facet], lf = t->facet_zone[2 * facet + 1], g = lf / 2, s = lf % 2;
    if (BlastGeomIsSimplex(mesh->zone_geom[z])) {
      RefineSimplexFacet(mesh, t, K, nbchild, sc, f, z, lf, bv, ba);
      continue;
    }
    int other[2] = {0, 0}, no = 0;
    for (int h = 0; h < dim; h++)
      if (h != g) other[no++] = h;
    for (int64_t c = 0; c < nbchild; c++) {
      int ci[2] = {(int)(c % K), (int)(c / K)};
      int64_t child = (int64_t)f * nbchild + c;
      for (int corner = 0; corner < nf; corner++) {
        int i[3];
        i[g] = s * K;
        for (int r = 0; r < no; r++) i[other[r]] = ci[r] + ((corner >> r) & 1);
        bv[child * nf + corner] = (int)BlastLatticeId(t, mesh->zone_verts, z, K, i);
      }
      ba[child] = mesh->bdr_attr[f];
    }
  }
  return 0;
}

int BlastMeshRefine(BlastMesh mesh, int levels, BlastMesh *refined) {
  BlastCheck(levels >= 0 && levels <= 12, BLAST_ERR_INPUT, "refinement levels %d outside 0..12",
             levels);
  const int dim = mesh->dim, nc = 1 << dim, nf = 1 << (dim - 1), K = 1 << levels;
  int64_t nchild = 1;
  for (int g = 0; g < dim; g++) nchild *= K;  // at most 2^36
  // The serial mesh is held by every rank, with 32-bit zone and vertex ids.
  int64_t nz64 = 0;
  BlastCheck(!__builtin_mul_overflow((int64_t)mesh->nzones, nchild, &nz64) && nz64 < INT32_MAX,
             BLAST_ERR_INPUT,
             "[mesh] refine_serial = %d: refining the %d zones of the mesh %d times gives %.0f "
             "zones, more than the %d the serial mesh can number (32-bit ids; every rank holds "
             "it): lower refine_serial and refine the rest in parallel ([mesh] refine_parallel "
             "divides the zones among the ranks)",
             levels, mesh->nzones, levels, (double)mesh->nzones * (double)nchild, INT32_MAX);
  int64_t nb64 = 0;
  BlastCheck(!__builtin_mul_overflow((int64_t)mesh->nbdr, nchild / K, &nb64) && nb64 < INT32_MAX,
             BLAST_ERR_INPUT,
             "[mesh] refine_serial = %d: refining the %d boundary faces of the mesh %d times gives "
             "more than %d (32-bit ids): lower refine_serial and use [mesh] refine_parallel",
             levels, mesh->nbdr, levels, INT32_MAX);
  if (levels > 0) {
    char what[64];
    snprintf(what, sizeof what, "[mesh] refine_serial = %d", levels);
    BlastCall(BlastSerialMeshMemoryCheck(dim, nz64, mesh->nzones, what));
  }
  BlastTopology *t;
  BlastCall(BlastTopologyCreate(mesh, &t));
  const int64_t nv64 = BlastLatticeSize(t, K), nbchild = nchild / K;
  const int nz = (int)(mesh->nzones * nchild), nb = (int)(mesh->nbdr * nbchild);
  double *coords = NULL;
  int *zv = NULL, *za = NULL, *bv = NULL, *ba = NULL;
  int ierr = nv64 < INT32_MAX
                 ? 0
                 : BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                                   "[mesh] refine_serial = %d: refining the %d "
                                   "zones of the mesh %d times gives %lld vertices, "
                                   "more than %d (32-bit ids): lower refine_serial "
                                   "and use [mesh] refine_parallel",
                                   levels, mesh->nzones, levels, (long long)nv64, INT32_MAX);
  if (!ierr) ierr = BlastMalloc((size_t)nv64 * dim, &coords);
  if (!ierr) ierr = BlastMalloc((size_t)nz * nc, &zv);
  if (!ierr) ierr = BlastMalloc(nz, &za);
  if (!ierr) ierr = BlastMalloc((size_t)nb * nf + 1, &bv);
  if (!ierr) ierr = BlastMalloc(nb + 1, &ba);
  SimplexChildren sc = {NULL, NULL};
  unsigned char *zg = NULL, *bg = NULL;
  if (!ierr && mesh->nsimplex) {
    ierr = BlastMalloc((size_t)nchild * (dim + 1) * dim, &sc.zone);
    if (!ierr) ierr = BlastMalloc((size_t)nbchild * dim * (dim - 1) + 1, &sc.face);
    if (!ierr) ierr = BlastMalloc(nz, &zg);
    if (!ierr) ierr = BlastMalloc(nb + 1, &bg);
    if (!ierr) {
      BlastSimplexChildren(dim, K, sc.zone);
      if (dim > 1) BlastSimplexChildren(dim - 1, K, sc.face);
      for (int64_t c = 0; c < nz; c++) zg[c] = mesh->zone_geom[c / nchild];
      for (int64_t c = 0; c < nb; c++) bg[c] = mesh->bdr_geom[c / nbchild];
    }
  }
  if (!ierr) ierr = RefineFill(mesh, t, K, nchild, nbchild, &sc, coords, zv, za, bv, ba);
  double *nodes = NULL;
  int *zn = NULL;
  int64_t nn64 = 0;
  const int p = mesh->curve_order, nn = BlastGeomNumNodes(BlastGeomTensor(dim), p);
  if (!ierr && p > 1) {
    nn64 = BlastLatticeSize(t, K * p);
    if (nn64 >= INT32_MAX)
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                             "[mesh] refine_serial = %d: refining the curved mesh (order %d) "
                             "gives %lld nodes, more than %d (32-bit ids): lower refine_serial "
                             "and use [mesh] refine_parallel",
                             levels, p, (long long)nn64, INT32_MAX);
    if (!ierr) ierr = BlastMalloc((size_t)nn64 * dim, &nodes);
    if (!ierr) ierr = BlastMalloc((size_t)nz * nn, &zn);
    if (!ierr) ierr = BlastMeshRefineCurvedNodes(mesh, t, K, nchild, sc.zone, nodes, zn);
  }
  if (!ierr && p <= 1) {  // zg, bg: NULL for tensor meshes
    const BlastMeshDesc d = {.dim = dim,
                             .nverts = (int)nv64,
                             .nzones = nz,
                             .nbdr = nb,
                             .coords = coords,
                             .zone_verts = zv,
                             .zone_geom = zg,
                             .zone_attr = za,
                             .bdr_verts = bv,
                             .bdr_geom = bg,
                             .bdr_attr = ba,
                             .nnames = mesh->nnames,
                             .names = mesh->names};
    ierr = BlastMeshCreateFrom(&d, refined);
  }
  if (!ierr && p > 1) {
    BlastMeshDesc d;
    BlastMeshDescribe(mesh, &d);
    d.nverts = (int)nv64, d.coords = coords, d.nzones = nz, d.zone_verts = zv, d.zone_attr = za;
    d.nbdr = nb, d.bdr_verts = bv, d.bdr_attr = ba;
    d.zone_geom = zg, d.bdr_geom = bg;  // NULL for tensor meshes
    d.nnodes = (int)nn64, d.node_coords = nodes, d.zone_nodes = zn;
    ierr = BlastMeshCreateFrom(&d, refined);
  }
  BlastFree(&nodes);
  BlastFree(&zn);
  BlastFree(&sc.zone);
  BlastFree(&sc.face);
  BlastFree(&zg);
  BlastFree(&bg);
  BlastTopologyDestroy(&t);
  BlastFree(&coords);
  BlastFree(&zv);
  BlastFree(&za);
  BlastFree(&bv);
  BlastFree(&ba);
  BlastCall(ierr);
  return 0;
}
