// Curved zones of a mesh: maps of order p from the zone's nodes, their checks, volumes
// and refinement in reference space (see mesh-curved.h).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fe.h"
#include "geom.h"
#include "geom_basis.h"
#include "mesh-curved.h"
#include "simplex.h"

static double Det(int dim, const double *J) {
  if (dim == 1) return J[0];
  if (dim == 2) return J[0] * J[3] - J[1] * J[2];
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}

// Nodes of a curved zone: at most (BLAST_MAX_CURVE_ORDER+1)^3.
enum {
  kMaxZoneNodes =
      (BLAST_MAX_CURVE_ORDER + 1) * (BLAST_MAX_CURVE_ORDER + 1) * (BLAST_MAX_CURVE_ORDER + 1)
};

// Curved zone of order p = curve_order on geometry geom: x(xi) = sum_a X_a phi_a(xi) over
// the zone's nodes (lattice order); x and/or J (J[c*dim + g] = dx_c/dxi_g) may be NULL.
void BlastMeshCurvedMap(BlastMesh mesh, int z, int geom, const double *xi, double *x, double *J) {
  const int dim = mesh->dim, p = mesh->curve_order, nn = BlastGeomNumNodes(geom, p);
  const size_t stride = (size_t)BlastGeomNumNodes(BlastGeomTensor(dim), p);
  double phi[kMaxZoneNodes], dphi[kMaxZoneNodes * 3];
  BlastGeomLagrange(geom, p, xi, x ? phi : NULL, J ? dphi : NULL);
  if (x)
    for (int c = 0; c < dim; c++) x[c] = 0.0;
  if (J)
    for (int i = 0; i < dim * dim; i++) J[i] = 0.0;
  for (int a = 0; a < nn; a++) {
    const double *X = &mesh->node_coords[(size_t)mesh->zone_nodes[(size_t)z * stride + a] * dim];
    for (int c = 0; c < dim; c++) {
      if (x) x[c] += phi[a] * X[c];
      if (J)
        for (int g = 0; g < dim; g++) J[c * dim + g] += X[c] * dphi[a * dim + g];
    }
  }
}

// Point k of the checks of a curved zone: the tensor Gauss-Legendre points (collapsed
// into the simplex on simplices), then the nodes of order 2p (vertices included).
static void CurvedCheckPoint(int geom, int dim, int p, int nq, const double *x1, int k,
                             double *xi) {
  int npts = 1;
  for (int g = 0; g < dim; g++) npts *= nq;
  if (k >= npts) {
    BlastGeomNode(geom, 2 * p, k - npts, xi);
    return;
  }
  double u[3] = {0.0, 0.0, 0.0};
  for (int g = 0, r = k; g < dim; g++, r /= nq) u[g] = x1[r % nq];
  if (!BlastGeomIsSimplex(geom)) {
    for (int g = 0; g < dim; g++) xi[g] = u[g];
  } else if (dim == 2) {
    xi[0] = u[0] * (1.0 - u[1]), xi[1] = u[1];
  } else {
    xi[0] = u[0] * (1.0 - u[1]) * (1.0 - u[2]), xi[1] = u[1] * (1.0 - u[2]), xi[2] = u[2];
  }
}

// A curved zone: its nodes within BLAST_MAX_COORDINATE, det J finite and positive at the
// Gauss points and at the nodes of order 2p.
int BlastMeshCheckCurvedZone(BlastMesh mesh, int z, int nq, const double *x1) {
  const int dim = mesh->dim, p = mesh->curve_order, geom = mesh->zone_geom[z];
  const size_t stride = (size_t)BlastGeomNumNodes(BlastGeomTensor(dim), p);
  for (int a = 0; a < BlastGeomNumNodes(geom, p); a++) {
    const int n = mesh->zone_nodes[(size_t)z * stride + a];
    const double *X = &mesh->node_coords[(size_t)n * dim];
    for (int g = 0; g < dim; g++)
      BlastCheck(fabs(X[g]) <= BLAST_MAX_COORDINATE, BLAST_ERR_INPUT,
                 "zone %d (attribute %d): coordinates too large or not finite: its node %d is at "
                 "(%g, %g, %g), beyond the %g that blast_gpu accepts; scale the mesh",
                 z, mesh->zone_attr[z], n, X[0], dim > 1 ? X[1] : 0.0, dim > 2 ? X[2] : 0.0,
                 BLAST_MAX_COORDINATE);
  }
  int npts = 1;
  for (int g = 0; g < dim; g++) npts *= nq;
  npts += BlastGeomNumNodes(geom, 2 * p);
  const double *X = &mesh->node_coords[(size_t)mesh->zone_nodes[(size_t)z * stride] * dim];
  for (int k = 0; k < npts; k++) {
    double xi[3] = {0.0, 0.0, 0.0}, J[9];
    CurvedCheckPoint(geom, dim, p, nq, x1, k, xi);
    BlastMeshCurvedMap(mesh, z, geom, xi, NULL, J);
    const double det = Det(dim, J);
    int finite = isfinite(det);
    for (int i = 0; i < dim * dim; i++) finite = finite && isfinite(J[i]);
    BlastCheck(finite, BLAST_ERR_INPUT,
               "zone %d (attribute %d, curved %s of order %d, first node at (%g, %g, %g)): "
               "coordinates too large or not finite: the Jacobian at reference point (%g, %g, "
               "%g) is not a finite number (det J = %g); scale the mesh",
               z, mesh->zone_attr[z], BlastGeomName(geom), p, X[0], dim > 1 ? X[1] : 0.0,
               dim > 2 ? X[2] : 0.0, xi[0], xi[1], xi[2], det);
    BlastCheck(det > 0.0, BLAST_ERR_INPUT,
               "zone %d (attribute %d, curved %s of order %d, first node at (%g, %g, %g)) has a "
               "non-positive Jacobian determinant %.3e at reference point (%g, %g, %g): the "
               "curved zone is inverted or folded; check the order of its vertices and the "
               "positions of its nodes",
               z, mesh->zone_attr[z], BlastGeomName(geom), p, X[0], dim > 1 ? X[1] : 0.0,
               dim > 2 ? X[2] : 0.0, det, xi[0], xi[1], xi[2]);
  }
  return 0;
}

// Volume of the curved zones: det J of a tensor map of order p has degree <= dim*p - 1
// per direction, so dim*p/2 + 1 Gauss points per direction are exact (collapsed onto
// simplices with the Jacobian of the collapse, exact with one point more).
double BlastMeshCurvedVolume(BlastMesh mesh) {
  const int dim = mesh->dim, p = mesh->curve_order, nq = dim * p / 2 + 2;
  double x1[BLAST_MAX_Q1D], w1[BLAST_MAX_Q1D], J[9], vol = 0.0;
  BlastGaussLegendre(nq, x1, w1);
  int npts = 1;
  for (int g = 0; g < dim; g++) npts *= nq;
  for (int z = 0; z < mesh->nzones; z++) {
    const int geom = mesh->zone_geom[z];
    for (int k = 0; k < npts; k++) {
      double xi[3] = {0.0, 0.0, 0.0}, u[3] = {0.0, 0.0, 0.0}, w = 1.0;
      for (int g = 0, r = k; g < dim; g++, r /= nq) u[g] = x1[r % nq], w *= w1[r % nq];
      CurvedCheckPoint(geom, dim, p, nq, x1, k, xi);
      if (BlastGeomIsSimplex(geom))
        w *= dim == 2 ? 1.0 - u[1] : (1.0 - u[1]) * (1.0 - u[2]) * (1.0 - u[2]);
      BlastMeshCurvedMap(mesh, z, geom, xi, NULL, J);
      vol += w * fabs(Det(dim, J));
    }
  }
  return vol;
}

// The points of zone z's lattice of order Kp, each from the zone's map at i / Kp, stored
// at its lattice id (a point shared by zones: the last zone's value).
static int CurvedLatticePoints(BlastMesh mesh, const BlastTopology *t, int z, int Kp,
                               double *nodes) {
  const int dim = mesh->dim, geom = mesh->zone_geom[z];
  const int64_t npts = BlastGeomNumNodes(geom, Kp);
  for (int64_t q = 0; q < npts; q++) {
    int i[3] = {0, 0, 0};
    double xi[3] = {0.0, 0.0, 0.0};
    if (BlastGeomIsSimplex(geom)) {
      BlastSimplexLatticePoint(dim, Kp, (int)q, i);
    } else {
      int64_t r = q;
      for (int g = 0; g < dim; g++) i[g] = (int)(r % (Kp + 1)), r /= Kp + 1;
    }
    for (int g = 0; g < dim; g++) xi[g] = (double)i[g] / Kp;
    const int64_t id = BlastLatticeId(t, mesh->zone_verts, z, Kp, i);
    BlastMeshCurvedMap(mesh, z, geom, xi, &nodes[id * dim], NULL);
    for (int c = 0; c < dim; c++)
      BlastCheck(isfinite(nodes[id * dim + c]), BLAST_ERR_INPUT,
                 "zone %d: coordinates too large or not finite: refinement gives the curved "
                 "zone's point of reference coordinates (%g, %g, %g) the non-finite "
                 "coordinate %g; scale the mesh",
                 z, xi[0], xi[1], xi[2], nodes[id * dim + c]);
  }
  return 0;
}

// Curved geometry of the refined mesh: the nodes of order p of the children are the
// points of the parent's lattice of order K p, each computed once from the parent's map
// (a point shared by zones: the last zone's value, the same for every child that uses
// it), so the refined geometry is continuous. A simplex child with vertices V_0..V_d
// (lattice of order K) has its node j (lattice order p) at p V_0 + sum_h j_h (V_{h+1} -
// V_0) of the parent's lattice of order K p: the parent's map composed with the child's
// affine map, which the child's nodes of order p interpolate exactly.
int BlastMeshRefineCurvedNodes(BlastMesh mesh, const BlastTopology *t, int K, int64_t nchild,
                               const int *simplex_children, double *nodes, int *zn) {
  const int dim = mesh->dim, p = mesh->curve_order, Kp = K * p;
  const int nn = BlastGeomNumNodes(BlastGeomTensor(dim), p);
  for (int z = 0; z < mesh->nzones; z++) {
    BlastCall(CurvedLatticePoints(mesh, t, z, Kp, nodes));
    if (BlastGeomIsSimplex(mesh->zone_geom[z])) {
      const int ns = BlastGeomNumNodes(mesh->zone_geom[z], p);
      for (int64_t c = 0; c < nchild; c++) {
        const int *V = &simplex_children[c * (dim + 1) * dim];
        const int64_t child = (int64_t)z * nchild + c;
        for (int a = 0; a < nn; a++) {
          int j[3] = {0, 0, 0}, i[3] = {0, 0, 0};
          if (a >= ns) {
            zn[child * nn + a] = -1;
            continue;
          }
          BlastSimplexLatticePoint(dim, p, a, j);
          for (int g = 0; g < dim; g++) {
            i[g] = p * V[g];
            for (int h = 0; h < dim; h++) i[g] += j[h] * (V[(h + 1) * dim + g] - V[g]);
          }
          zn[child * nn + a] = (int)BlastLatticeId(t, mesh->zone_verts, z, Kp, i);
        }
      }
      continue;
    }
    for (int64_t c = 0; c < nchild; c++) {
      int ci[3] = {0, 0, 0};
      int64_t r = c;
      for (int g = 0; g < dim; g++) ci[g] = (int)(r % K), r /= K;
      const int64_t child = (int64_t)z * nchild + c;
      for (int a = 0; a < nn; a++) {
        int i[3] = {0, 0, 0};
        for (int g = 0, ra = a; g < dim; g++, ra /= p + 1) i[g] = ci[g] * p + ra % (p + 1);
        zn[child * nn + a] = (int)BlastLatticeId(t, mesh->zone_verts, z, Kp, i);
      }
    }
  }
  return 0;
}
