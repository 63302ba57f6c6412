// Velocity boundary conditions from [boundary.NAME] sections (boundary.h,
// docs/boundaries.md): sections checked against the mesh's boundary attributes, outward
// face normals from the faces' geometry, and per node the constraints of the faces that
// hold it (velocity over wall over free; walls grouped by angle, their normals
// orthonormalised).
#include "boundary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"
#include "expr.h"
#include "geom_basis.h"
#include "simplex.h"

typedef struct {
  int64_t gid;
  int face;
  int z, lf;    // the face as local face lf of mesh zone z
  int64_t p;    // the node's index on it (BlastSpaceFacetNodeIds)
  int plane;    // 1: a plane normal to an axis (its normal that axis at every node)
  double n[3];  // the outward normal at the node: the face's, or on a curved face its own
} FaceDof;

static int CompareFaceDof(const void *pa, const void *pb) {
  const FaceDof *a = pa, *b = pb;
  if (a->gid != b->gid) return (a->gid > b->gid) - (a->gid < b->gid);
  return (a->face > b->face) - (a->face < b->face);
}

static const char *MeshName(const BlastConfig *cfg) {
  return cfg->mesh_file[0] ? cfg->mesh_file : "the generated box";
}

// The section naming attribute a (-1: none). A search, not a table indexed by a: an
// attribute may be any positive int (a table up to 2147483647 would overflow its size).
static int SectionOf(const BlastConfig *cfg, int a) {
  for (int k = 0; k < cfg->nboundaries; k++)
    for (int i = 0; i < cfg->boundaries[k].nattr; i++)
      if (cfg->boundaries[k].attr[i] == a) return k;
  return -1;
}

// Every named attribute present in the mesh and named once, every mesh attribute named.
static int SectionsOfAttributes(const BlastConfig *cfg, const int *bdr_attr, int nbdr) {
  for (int k = 0; k < cfg->nboundaries; k++) {
    const BlastBoundarySpec *b = &cfg->boundaries[k];
    for (int i = 0; i < b->nattr; i++) {
      const int a = b->attr[i];
      int present = 0;
      for (int f = 0; f < nbdr && !present; f++) present = bdr_attr[f] == a;
      BlastCheck(present, BLAST_ERR_INPUT,
                 "%s: [boundary.%s] attributes: the mesh %s has no boundary face with "
                 "attribute %d",
                 b->where, b->name, MeshName(cfg), a);
      int first = SectionOf(cfg, a), twice = first < k;
      for (int j = 0; j < i && !twice; j++) twice = b->attr[j] == a;
      BlastCheck(!twice, BLAST_ERR_INPUT,
                 "%s: [boundary.%s] attributes: attribute %d is also named by [boundary.%s]",
                 b->where, b->name, a, cfg->boundaries[first].name);
    }
  }
  for (int f = 0; f < nbdr; f++)
    BlastCheck(SectionOf(cfg, bdr_attr[f]) >= 0, BLAST_ERR_INPUT,
               "%s: boundary attribute %d of the mesh %s is named by no [boundary.*] section "
               "(every boundary attribute needs one: type = wall, free or velocity)",
               cfg->deck_path[0] ? cfg->deck_path : "the deck", bdr_attr[f], MeshName(cfg));
  return 0;
}

// The prescribed velocity of a type = velocity section: dim expressions (numbers or
// expressions of t), compiled into b->vel_expr[k], their values at t = 0 into b->vel[k].
static int SectionVelocity(const BlastConfig *cfg, int k, int dim, BlastBoundaryDofs *b) {
  const BlastBoundarySpec *s = &cfg->boundaries[k];
  BlastCheck(s->nvelocity == dim, BLAST_ERR_INPUT,
             "%s: [boundary.%s] velocity: %d value%s given, the mesh is %dD (type = velocity "
             "needs %d)",
             s->where, s->name, s->nvelocity, s->nvelocity == 1 ? "" : "s", dim, dim);
  char what[BLAST_NAME_MAX + 32];
  snprintf(what, sizeof what, "[boundary.%s] velocity", s->name);
  for (int c = 0; c < dim; c++) {
    const BlastExprText *e = &s->velocity[c];
    BlastCall(
        BlastExprCompile(e->text, e->where[0] ? e->where : s->where, what, &b->vel_expr[k][c]));
    double value = 0.0;
    if (!BlastExprIsConstant(b->vel_expr[k][c], &value)) {
      const double x0[3] = {0, 0, 0};
      value = BlastExprEval(b->vel_expr[k][c], dim, x0, 0.0);
      b->time_dependent |= BlastExprUsesTime(b->vel_expr[k][c]);
    }
    BlastCheck(isfinite(value), BLAST_ERR_INPUT,
               "%s: [boundary.%s] velocity: component %d of '%s' is %g at t = 0",
               e->where[0] ? e->where : s->where, s->name, c + 1, e->text, value);
    b->vel[k][c] = value;
  }
  return 0;
}

void BlastBoundaryVelocity(const BlastBoundaryDofs *b, int k, double t, double *v) {
  const double x0[3] = {0, 0, 0};
  for (int c = 0; c < b->dim; c++)
    v[c] = b->vel_expr[k][c] ? BlastExprEval(b->vel_expr[k][c], b->dim, x0, t) : b->vel[k][c];
}

void BlastBoundaryAccel(const BlastBoundaryDofs *b, int k, double t, double *a) {
  const double x0[3] = {0, 0, 0}, h = 1e-3 * (1.0 + fabs(t));
  for (int c = 0; c < b->dim; c++) {
    BlastExpr e = b->vel_expr[k][c];
    if (!e || !BlastExprUsesTime(e)) {
      a[c] = 0.0;
      continue;
    }
    const double f2 = BlastExprEval(e, b->dim, x0, t + 2 * h),
                 f1 = BlastExprEval(e, b->dim, x0, t + h);
    const double m1 = BlastExprEval(e, b->dim, x0, t - h),
                 m2 = BlastExprEval(e, b->dim, x0, t - 2 * h);
    a[c] = (-f2 + 8.0 * f1 - 8.0 * m1 + m2) / (12.0 * h);
  }
}

// Outward unit normal of mesh boundary face f (a face of mesh zone z, local face lf).
static void FaceNormal(BlastMesh mesh, int dim, int z, int lf, double *n) {
  const int g = lf / 2, side = lf % 2, simplex = BlastGeomIsSimplex(BlastMeshZoneGeom(mesh, z));
  int other[2] = {0, 0}, no = 0;
  for (int h = 0; h < dim; h++)
    if (h != g) other[no++] = h;
  double p[4][3] = {{0}}, xi[3], centre[3] = {0, 0, 0}, fc[3] = {0, 0, 0};
  if (simplex) {  // the face opposite vertex lf: its corners, the zone's centroid
    int corners[3];
    no = dim - 1;
    BlastZoneFacetCorners(BlastMeshZoneGeom(mesh, z), lf, corners);
    for (int q = 0; q < dim; q++) {
      for (int h = 0; h < dim; h++) xi[h] = corners[q] == h + 1;
      BlastMeshZoneMap(mesh, z, xi, p[q]);
    }
    if (dim == 3)  // a triangle: the normal of (p0, p1, p2) from the tangents below
      for (int c = 0; c < 3; c++) p[3][c] = p[1][c] + p[2][c] - p[0][c];
    for (int h = 0; h < dim; h++) xi[h] = 1.0 / (dim + 1);
  } else {
    for (int q = 0; q < (1 << no); q++) {
      xi[g] = side;
      for (int o = 0; o < no; o++) xi[other[o]] = (q >> o) & 1;
      BlastMeshZoneMap(mesh, z, xi, p[q]);
    }
    for (int h = 0; h < dim; h++) xi[h] = 0.5;
  }
  BlastMeshZoneMap(mesh, z, xi, centre);
  n[0] = n[1] = n[2] = 0.0;
  if (dim == 1) {
    n[0] = 1.0;
  } else if (dim == 2) {
    const double t[2] = {p[1][0] - p[0][0], p[1][1] - p[0][1]};
    n[0] = t[1], n[1] = -t[0];
  } else {
    double t1[3], t2[3];
    for (int c = 0; c < 3; c++) {
      t1[c] = (p[1][c] + p[3][c]) - (p[0][c] + p[2][c]);
      t2[c] = (p[2][c] + p[3][c]) - (p[0][c] + p[1][c]);
    }
    n[0] = t1[1] * t2[2] - t1[2] * t2[1];
    n[1] = t1[2] * t2[0] - t1[0] * t2[2];
    n[2] = t1[0] * t2[1] - t1[1] * t2[0];
  }
  for (int q = 0; q < (1 << no); q++)
    for (int c = 0; c < dim; c++) fc[c] += p[q][c];
  double out = 0.0, len = 0.0;
  for (int c = 0; c < dim; c++) out += (fc[c] / (1 << no) - centre[c]) * n[c], len += n[c] * n[c];
  len = sqrt(len);
  const double sgn = out < 0.0 ? -1.0 : 1.0;
  for (int c = 0; c < dim; c++) n[c] = len > 0.0 ? sgn * n[c] / len : 0.0;
}

// The position of node p (the order of BlastSpaceFacetNodeIds) on tensor face lf of a
// mesh zone: per face axis o its lattice index i[o] (order N k), the
// fine segment j[o] holding it (the last for the end node) and the face axes other[].
static int FaceNodeLattice(const BlastSpace *s, int lf, int64_t p, int *i, int *j, int *other) {
  const int dim = s->dim, k = s->k, N = s->N, K = N * k, g = lf / 2;
  int no = 0;
  for (int h = 0; h < dim; h++)
    if (h != g) other[no++] = h;
  for (int o = 0; o < no; o++, p /= K + 1) {
    i[o] = (int)(p % (K + 1));
    j[o] = i[o] / k < N ? i[o] / k : N - 1;
  }
  return no;
}

// The lattice index P (order K = N k, dim - 1 entries) of node p of a simplex face in the
// face's own frame (the order of BlastSpaceFacetNodeIds: P[1] outer, P[0] inner).
static void SimplexFaceLattice(int dim, int K, int64_t p, int *P) {
  P[0] = (int)p, P[1] = 0;
  if (dim < 3) return;
  while (P[0] > K - P[1]) P[0] -= K - P[1] + 1, P[1]++;
}

// The position (BlastSpaceFacetNodeIds order) of face lattice index P (order K).
static int64_t SimplexFaceIndex(int dim, int K, const int *P) {
  if (dim < 3) return P[0];
  return (int64_t)P[1] * (K + 1) - (int64_t)P[1] * (P[1] - 1) / 2 + P[0];
}

// The normal of the tangents of face lf of mesh zone z at its node p under the mesh's map
// (not unit, orientation of the face frame): 2D (t_y, -t_x), 3D t_0 x t_1.
static void NodeTangentNormal(const BlastSpace *s, int z, int lf, int64_t p, double *m) {
  const int dim = s->dim, k = s->k, N = s->N;
  double xi[3] = {0, 0, 0}, J[9], t[2][3] = {{0, 0, 0}, {0, 0, 0}};
  if (BlastGeomIsSimplex(BlastMeshZoneGeom(s->mesh, z))) {
    // the face frame: its vertices c[] (the zone's other than lf, ascending), tangent o
    // from vertex c0 to vertex c_{o+1} (vertex v > 0 at reference axis v - 1)
    int P[2], i[3] = {0, 0, 0}, c[3], n = 0;
    SimplexFaceLattice(dim, N * k, p, P);
    BlastSimplexFacetPoint(dim, lf, N * k, P, i);
    for (int g = 0; g < dim; g++) xi[g] = (double)i[g] / (N * k);
    for (int v = 0; v <= dim; v++)
      if (v != lf) c[n++] = v;
    BlastMeshZoneJacobian(s->mesh, z, xi, J);
    for (int o = 0; o < dim - 1; o++)
      for (int x = 0; x < dim; x++)
        t[o][x] =
            (c[o + 1] ? J[x * dim + c[o + 1] - 1] : 0.0) - (c[0] ? J[x * dim + c[0] - 1] : 0.0);
  } else {
    int i[2], j[2], other[2] = {0, 0};
    const int no = FaceNodeLattice(s, lf, p, i, j, other);
    xi[lf / 2] = lf % 2;
    for (int o = 0; o < no; o++) xi[other[o]] = (j[o] + s->gll[i[o] - j[o] * k]) / N;
    BlastMeshZoneJacobian(s->mesh, z, xi, J);
    for (int o = 0; o < no; o++)
      for (int c = 0; c < dim; c++) t[o][c] = J[c * dim + other[o]];
  }
  m[0] = m[1] = m[2] = 0.0;
  if (dim == 2) {
    m[0] = t[0][1], m[1] = -t[0][0];
  } else if (dim == 3) {
    m[0] = t[0][1] * t[1][2] - t[0][2] * t[1][1], m[1] = t[0][2] * t[1][0] - t[0][0] * t[1][2];
    m[2] = t[0][0] * t[1][1] - t[0][1] * t[1][0];
  }
}

// The outward unit normal of curved face lf of mesh zone z at its node p (the order of
// BlastSpaceFacetNodeIds), oriented as the face's chord normal n (replaced).
static void CurvedNodeNormal(const BlastSpace *s, int z, int lf, int64_t p, double *n) {
  const int dim = s->dim;
  if (dim < 2) return;
  double m[3];
  NodeTangentNormal(s, z, lf, p, m);
  double len = 0.0, dot = 0.0;
  for (int c = 0; c < dim; c++) len += m[c] * m[c], dot += m[c] * n[c];
  len = sqrt(len);
  if (!(len > 0.0)) return;
  for (int c = 0; c < dim; c++) n[c] = (dot < 0.0 ? -m[c] : m[c]) / len;
}

// The axis of a unit vector within round-off of one (-1: none).
static int AxisOf(int dim, const double *n) {
  for (int c = 0; c < dim; c++) {
    int ok = fabs(fabs(n[c]) - 1.0) <= 1e-12;
    for (int h = 0; h < dim && ok; h++)
      if (h != c && fabs(n[h]) > 1e-12) ok = 0;
    if (ok) return c;
  }
  return -1;
}

// The wall normals of one node (its faces' normals, in face order): grouped by angle,
// orthonormalised into q[0..*nq). Returns the count. slot (optional): per face normal
// the index of the q it went into, -1 for none.
static int NodeNormals(int dim, int nn, const double (*fn)[3], double q[3][3], int *slot) {
  const double cos_sharp = cos(BLAST_WALL_SHARP_ANGLE_DEG * acos(-1.0) / 180.0);
  double grp[16][3], first[16][3];
  int ng = 0, group[64], kept[16];
  for (int i = 0; i < nn; i++) {
    int k = 0;
    group[i] = -1;
    for (; k < ng; k++) {
      double d = 0.0;
      for (int c = 0; c < dim; c++) d += first[k][c] * fn[i][c];
      if (d >= cos_sharp) break;
    }
    if (k == ng) {
      if (ng == 16) continue;
      for (int c = 0; c < 3; c++) grp[ng][c] = 0.0, first[ng][c] = fn[i][c];
      ng++;
    }
    group[i] = k;
    for (int c = 0; c < dim; c++) grp[k][c] += fn[i][c];
  }
  int nq = 0;
  for (int k = 0; k < ng; k++) kept[k] = -1;
  for (int k = 0; k < ng && nq < dim; k++) {
    double u[3] = {0, 0, 0}, len = 0.0;
    for (int c = 0; c < dim; c++) len += grp[k][c] * grp[k][c];
    len = sqrt(len);
    if (len == 0.0) continue;
    for (int c = 0; c < dim; c++) u[c] = grp[k][c] / len;
    for (int j = 0; j < nq; j++) {
      double s = 0.0;
      for (int c = 0; c < dim; c++) s += q[j][c] * u[c];
      for (int c = 0; c < dim; c++) u[c] -= s * q[j][c];
    }
    len = 0.0;
    for (int c = 0; c < dim; c++) len += u[c] * u[c];
    len = sqrt(len);
    if (len < 1e-6) continue;  // in the span of the walls before it
    for (int c = 0; c < 3; c++) q[nq][c] = c < dim ? u[c] / len : 0.0;
    // an axis within round-off is that axis exactly (the component constraint)
    const int ax = AxisOf(dim, q[nq]);
    if (ax >= 0)
      for (int c = 0; c < 3; c++) q[nq][c] = c == ax ? 1.0 : 0.0;
    kept[k] = nq++;
  }
  for (int i = 0; slot && i < nn; i++) slot[i] = group[i] >= 0 ? kept[group[i]] : -1;
  return nq;
}

// Per node kind and data, filled by the node loop.
enum { NODE_FREE = 0, NODE_WALL = 1, NODE_VELOCITY = 2 };
typedef struct {
  unsigned char kind, axes;  // axes: bit c = component c fixed
  signed char nq;            // wall normals (not all axis-aligned), else 0
  int section;               // velocity: its section
  double q[3][3];
} NodeBc;

// slot (optional): per record the wall normal it adds to (NodeNormals), -1 for none.
static void ClassifyNode(const BlastConfig *cfg, int dim, const FaceDof *rec, size_t nrec,
                         const int *fsec, NodeBc *nb, int *slot) {
  memset(nb, 0, sizeof *nb);
  nb->section = -1;
  double fn[64][3];
  int nn = 0, rec_of[64], planes = 1;
  for (size_t r = 0; r < nrec; r++) {
    const int k = fsec[rec[r].face];
    if (slot) slot[r] = -1;
    const int type = cfg->nboundaries ? cfg->boundaries[k].type : BLAST_BOUNDARY_WALL;
    if (type == BLAST_BOUNDARY_VELOCITY) {
      if (nb->kind != NODE_VELOCITY || k < nb->section) nb->section = k;
      nb->kind = NODE_VELOCITY;
    } else if (type == BLAST_BOUNDARY_WALL && nn < 64) {
      if (nb->kind == NODE_FREE) nb->kind = NODE_WALL;
      for (int c = 0; c < 3; c++) fn[nn][c] = rec[r].n[c];
      rec_of[nn++] = (int)r;
      planes &= rec[r].plane;
    }
  }
  if (nb->kind == NODE_VELOCITY) {
    nb->axes = (unsigned char)((1u << dim) - 1u);
    return;
  }
  if (nb->kind != NODE_WALL) return;
  double q[3][3] = {{0}};
  int fslot[64];
  const int nq = NodeNormals(dim, nn, (const double(*)[3])fn, q, fslot);
  for (int i = 0; slot && i < nn; i++) slot[rec_of[i]] = fslot[i];
  int all_axes = 1;
  unsigned axes = 0;
  for (int j = 0; j < nq; j++) {
    const int ax = AxisOf(dim, q[j]);
    if (ax < 0)
      all_axes = 0;
    else
      axes |= 1u << ax;
  }
  // component constraints where the normals are axes of axis planes; a node of a curved or
  // oblique face whose normal is an axis now is projected (its normal follows the mesh)
  if (nq == dim || (all_axes && planes)) {
    nb->axes = (unsigned char)(nq == dim ? (1u << dim) - 1u : axes);
    return;
  }
  nb->nq = (signed char)nq;
  memcpy(nb->q, q, sizeof q);
}

typedef struct {
  int64_t gid;
  int l;
} GidDof;

static int CompareGidDof(const void *pa, const void *pb) {
  const GidDof *a = pa, *b = pb;
  return (a->gid > b->gid) - (a->gid < b->gid);
}

// The first record of global id gid in rec (sorted by CompareFaceDof), and its end.
static size_t RecordsOf(const FaceDof *rec, size_t nrec, int64_t gid, size_t *end) {
  size_t lo = 0, hi = nrec;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (rec[mid].gid < gid)
      lo = mid + 1;
    else
      hi = mid;
  }
  *end = lo;
  while (*end < nrec && rec[*end].gid == gid) (*end)++;
  return lo;
}

// D[a][m] = derivative of the GLL Lagrange polynomial m of order k at GLL node a.
static void GllDerivatives(int k, const double *x,
                           double D[BLAST_MAX_ORDER + 1][BLAST_MAX_ORDER + 1]) {
  for (int a = 0; a <= k; a++)
    for (int m = 0; m <= k; m++) {
      double v = 0.0;
      if (a == m) {
        for (int l = 0; l <= k; l++)
          if (l != a) v += 1.0 / (x[a] - x[l]);
      } else {
        double num = 1.0, den = 1.0;
        for (int l = 0; l <= k; l++) {
          if (l != m) den *= x[m] - x[l];
          if (l != m && l != a) num *= x[a] - x[l];
        }
        v = num / den;
      }
      D[a][m] = v;
    }
}

// The face lattice index P (order N k) of node a (lattice order k) of the fine face with
// vertices V (lattice of order N, fd entries each).
static void ChildFacePoint(int fd, int k, const int *V, int a, int *P) {
  int j[3] = {0, 0, 0};
  BlastSimplexLatticePoint(fd, k, a, j);
  for (int g = 0; g < fd; g++) {
    P[g] = k * V[g];
    for (int h = 0; h < fd; h++) P[g] += j[h] * (V[(h + 1) * fd + g] - V[g]);
  }
}

// Simplex faces: per face node p (BlastSpaceFacetNodeIds order) a fine face holding it,
// child fc[p] of the face's lattice subdivision of order N (BlastSimplexChildren, d - 1),
// and its local node fj[p] (lattice order of order k); the first child found. verts: the
// children's vertices. Every face of a simplex zone is divided alike by the zone's
// children (the regular lattice triangulation, whatever the face's frame).
static void SimplexFaceChildren(const BlastSpace *s, const int *verts, int *fc, int *fj) {
  const int fd = s->dim - 1, k = s->k, K = s->N * k,
            nn = BlastGeomNumNodes(BlastGeomSimplex(fd), k);
  const int64_t nf = BlastSpaceFacetNumNodes(s), nchild = fd == 1 ? s->N : (int64_t)s->N * s->N;
  for (int64_t p = 0; p < nf; p++) fc[p] = -1;
  for (int64_t c = 0; c < nchild; c++) {
    const int *V = &verts[c * (fd + 1) * fd];
    for (int a = 0; a < nn; a++) {
      int P[2] = {0, 0};
      ChildFacePoint(fd, k, V, a, P);
      const int64_t idx = SimplexFaceIndex(s->dim, K, P);
      if (fc[idx] < 0) fc[idx] = (int)c, fj[idx] = a;
    }
  }
}

// The tangent stencils of the simplex face record fr (its nt = d - 1 tangents along the
// local axes of the fine face holding its node, the equispaced Lagrange basis of order k
// differentiated there), written at e0 = record * nt * np; map: ext dofs by global id.
static int SimplexStencil(const BlastSpace *s, const FaceDof *fr, const int *verts, const int *fc,
                          const int *fj, const GidDof *map, int64_t *ids, int np, size_t e0,
                          BlastBoundaryDofs *b) {
  const int fd = s->dim - 1, k = s->k, K = s->N * k, c = fc[fr->p];
  const int *V = &verts[(size_t)c * (fd + 1) * fd];
  int j0[3] = {0, 0, 0};
  double eta[3] = {0, 0, 0}, dphi[(BLAST_MAX_ORDER + 1) * (BLAST_MAX_ORDER + 2)];
  BlastSimplexLatticePoint(fd, k, fj[fr->p], j0);
  for (int g = 0; g < fd; g++) eta[g] = (double)j0[g] / k;
  BlastGeomLagrange(BlastGeomSimplex(fd), k, eta, NULL, dphi);
  BlastSpaceFacetNodeIds(s, fr->z, fr->lf, ids);
  for (int a = 0; a < np; a++) {
    int P[2] = {0, 0};
    ChildFacePoint(fd, k, V, a, P);
    const GidDof key = {ids[SimplexFaceIndex(s->dim, K, P)], 0};
    const GidDof *hit = bsearch(&key, map, (size_t)s->h1_next, sizeof *map, CompareGidDof);
    BlastCheck(hit, BLAST_ERR_ARG, "wall face node %lld is not a local dof", (long long)key.gid);
    for (int o = 0; o < fd; o++) {
      b->wall_idx[e0 + (size_t)o * np + a] = hit->l;
      b->wall_w[e0 + (size_t)o * np + a] = dphi[a * fd + o];
    }
  }
  return 0;
}

// The tangent stencil of the triangle edge record fr (raw, boundary.h): over the fine
// edges of its face that hold its node (one, or two at a fine vertex inside the face),
// w_b = the integral of phi_a phi_b' over the edge (Gauss-Legendre, k + 1 points: exact),
// phi_a the node's basis function there; the np = 2 k + 2 entries at e0, unused ones 0.
static int SimplexEdgeStencil(const BlastSpace *s, const FaceDof *fr, const GidDof *map,
                              int64_t *ids, int np, size_t e0, BlastBoundaryDofs *b) {
  const int k = s->k, N = s->N, P = (int)fr->p;
  int seg[2], nseg = 0;
  if (P % k)
    seg[nseg++] = P / k;
  else {
    if (P / k > 0) seg[nseg++] = P / k - 1;
    if (P / k < N) seg[nseg++] = P / k;
  }
  double xg[BLAST_MAX_ORDER + 1], wg[BLAST_MAX_ORDER + 1];
  BlastCall(BlastGaussLegendre(k + 1, xg, wg));
  BlastSpaceFacetNodeIds(s, fr->z, fr->lf, ids);
  int first = -1;
  for (int e = 0; e < np; e++) b->wall_w[e0 + e] = 0.0, b->wall_idx[e0 + e] = -1;
  for (int i = 0; i < nseg; i++) {
    const int jn = P - seg[i] * k;
    for (int q = 0; q <= k; q++) {
      double phi[BLAST_MAX_ORDER + 1], dphi[BLAST_MAX_ORDER + 1];
      BlastGeomLagrange(BLAST_GEOM_SEGMENT, k, &xg[q], phi, dphi);
      for (int c = 0; c <= k; c++) b->wall_w[e0 + i * (k + 1) + c] += wg[q] * phi[jn] * dphi[c];
    }
    for (int c = 0; c <= k; c++) {
      const GidDof key = {ids[seg[i] * k + c], 0};
      const GidDof *hit = bsearch(&key, map, (size_t)s->h1_next, sizeof *map, CompareGidDof);
      BlastCheck(hit, BLAST_ERR_ARG, "wall face node %lld is not a local dof", (long long)key.gid);
      b->wall_idx[e0 + i * (k + 1) + c] = hit->l;
      if (first < 0) first = hit->l;
    }
  }
  for (int e = 0; e < np; e++)
    if (b->wall_idx[e0 + e] < 0) b->wall_idx[e0 + e] = first;
  return 0;
}

// The face records of the owned projected nodes (b->wall_*, boundary.h), on tensor
// meshes: per record its slot and sign (the normal of the mesh's tangents at the node
// against its setup normal) and the tangent stencils along the face axes, each on the
// fine segment holding the node (FaceNodeLattice), over ext dofs. nown: owned dofs.
static int WallStencils(const BlastConfig *cfg, const BlastSpace *s, const FaceDof *rec,
                        size_t nrec, const int *fsec, int nown, BlastBoundaryDofs *b) {
  const int dim = s->dim, k = s->k, K = s->N * k, nt = dim - 1;
  const int simplex = BlastGeomIsSimplex(s->geom) || s->mixed;
  const int np = !simplex   ? k + 1
                 : dim == 2 ? 2 * k + 2
                            : BlastGeomNumNodes(BLAST_GEOM_TRIANGLE, k);
  b->wall_np = np;
  BlastCall(BlastCalloc((size_t)b->nproj + 1, &b->wall_off));
  if (dim < 2 || b->nproj == 0) return 0;
  double D[BLAST_MAX_ORDER + 1][BLAST_MAX_ORDER + 1];
  GllDerivatives(k, s->gll, D);
  GidDof *map = NULL;
  int64_t *ids = NULL;
  int *verts = NULL, *fc = NULL, *fj = NULL;
  const int64_t nfn = BlastSpaceFacetNumNodes(s);
  int slot[256], nr = 0, ierr = BlastMalloc((size_t)s->h1_next + 1, &map);
  if (!ierr) ierr = BlastMalloc((size_t)nfn, &ids);
  if (!ierr && simplex && dim == 3) {
    ierr = BlastMalloc((size_t)s->N * s->N * dim * (dim - 1), &verts);
    if (!ierr) ierr = BlastMalloc((size_t)nfn, &fc);
    if (!ierr) ierr = BlastMalloc((size_t)nfn, &fj);
    if (!ierr) BlastSimplexChildren(dim - 1, s->N, verts);
    if (!ierr) SimplexFaceChildren(s, verts, fc, fj);
  }
  for (int l = 0; l < s->h1_next && !ierr; l++) map[l].gid = s->h1_gid[l], map[l].l = l;
  if (!ierr) qsort(map, (size_t)s->h1_next, sizeof *map, CompareGidDof);
  for (int pass = 0; pass < 2 && !ierr; pass++) {
    nr = 0;
    for (int i = 0; i < b->nproj && !ierr; i++) {
      const int l = b->proj_idx[i];
      if (pass == 0) b->wall_off[i] = nr;
      if (l >= nown) continue;
      size_t end, lo = RecordsOf(rec, nrec, s->h1_gid[l], &end);
      if (end - lo > 256) end = lo + 256;
      NodeBc nb;
      ClassifyNode(cfg, dim, rec + lo, end - lo, fsec, &nb, slot);
      for (size_t r = lo; r < end && !ierr; r++) {
        if (slot[r - lo] < 0) continue;
        if (pass == 1) {
          const FaceDof *fr = &rec[r];
          double m[3], dot = 0.0;
          NodeTangentNormal(s, fr->z, fr->lf, fr->p, m);
          for (int c = 0; c < dim; c++) dot += m[c] * fr->n[c];
          // Triangle edges, and a mixed mesh's quad edges: the consistent normal.
          const int zsimplex = BlastGeomIsSimplex(BlastMeshZoneGeom(s->mesh, fr->z));
          const int consistent = dim == 2 && (zsimplex || s->mixed);
          b->wall_slot[nr] = 4 * slot[r - lo] + 2 * consistent + (dot < 0.0);
          if (zsimplex || consistent) {
            const size_t e0 = (size_t)nr * nt * np;
            ierr = dim == 2 ? SimplexEdgeStencil(s, fr, map, ids, np, e0, b)
                            : SimplexStencil(s, fr, verts, fc, fj, map, ids, np, e0, b);
            nr++;
            continue;
          }
          int li[2], lj[2], other[2];
          FaceNodeLattice(s, fr->lf, fr->p, li, lj, other);
          BlastSpaceFacetNodeIds(s, fr->z, fr->lf, ids);
          for (int o = 0; o < nt && !ierr; o++)
            for (int q = 0; q < np; q++) {
              int at[2] = {li[0], nt > 1 ? li[1] : 0};
              at[o] = lj[o] * k + q;
              const GidDof key = {ids[at[0] + (int64_t)(K + 1) * at[1]], 0};
              const GidDof *hit =
                  bsearch(&key, map, (size_t)s->h1_next, sizeof *map, CompareGidDof);
              const size_t e = ((size_t)nr * nt + o) * np + q;
              if (!hit) {
                ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_ARG,
                                       "wall node %lld: face node %lld is not a local dof",
                                       (long long)s->h1_gid[l], (long long)key.gid);
                break;
              }
              b->wall_idx[e] = hit->l;
              b->wall_w[e] = D[li[o] - lj[o] * k][q];
            }
        }
        nr++;
      }
    }
    if (pass == 0) {
      b->wall_off[b->nproj] = nr;
      if (!ierr) ierr = BlastMalloc((size_t)nr + 1, &b->wall_slot);
      if (!ierr) ierr = BlastMalloc((size_t)nr * nt * np + 1, &b->wall_idx);
      if (!ierr) ierr = BlastMalloc((size_t)nr * nt * np + 1, &b->wall_w);
    }
  }
  BlastFree(&map);
  BlastFree(&ids);
  BlastFree(&verts);
  BlastFree(&fc);
  BlastFree(&fj);
  return ierr;
}

int BlastBoundaryBuild(const BlastConfig *cfg, const BlastSpace *s, BlastBoundaryDofs *b) {
  memset(b, 0, sizeof *b);
  const BlastMesh mesh = s->mesh;
  const int dim = s->dim, nf = 1 << (dim - 1);
  b->dim = dim;
  b->nsections = cfg->nboundaries;
  if (cfg->nboundaries == 0) return BlastSpaceEssentialDofs(s, &b->ess_off, &b->ess_idx);
  const int nbdr = BlastMeshNumBoundary(mesh);
  const int *bdr_attr = BlastMeshBdrAttr(mesh), *bdr_verts = BlastMeshBdrVerts(mesh);
  int *fsec = NULL;
  int ierr = SectionsOfAttributes(cfg, bdr_attr, nbdr);
  for (int k = 0; k < cfg->nboundaries && !ierr; k++) {
    const BlastBoundarySpec *bs = &cfg->boundaries[k];
    if (bs->type == BLAST_BOUNDARY_VELOCITY)
      ierr = SectionVelocity(cfg, k, dim, b);
    else if (bs->nvelocity > 0)
      ierr =
          BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                          "%s: [boundary.%s] velocity: only a type = velocity boundary "
                          "takes a velocity (this one is type = %s)",
                          bs->where, bs->name, bs->type == BLAST_BOUNDARY_WALL ? "wall" : "free");
  }
  if (ierr) {
    BlastBoundaryFree(b);
    return ierr;
  }
  // Each face's section and outward normal, and the global ids of its nodes.
  const int64_t per_face = BlastSpaceFacetNumNodes(s);
  double *fnorm = NULL;
  FaceDof *rec = NULL;
  int64_t *ids = NULL;  // one face's node ids
  ierr = BlastMalloc(nbdr + 1, &fsec);
  if (!ierr) ierr = BlastMalloc((size_t)per_face, &ids);
  if (!ierr) ierr = BlastMalloc(3 * (size_t)nbdr + 1, &fnorm);
  if (!ierr) ierr = BlastMalloc((size_t)nbdr * per_face + 1, &rec);
  size_t nrec = 0;
  for (int f = 0; f < nbdr && !ierr; f++) {
    fsec[f] = SectionOf(cfg, bdr_attr[f]);
    const int facet = BlastTopologyFindFacet(s->topo, &bdr_verts[(size_t)f * nf]);
    if (facet < 0) {
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                             "boundary face %d (attribute %d) of the mesh %s is not a face of "
                             "any zone",
                             f, bdr_attr[f], MeshName(cfg));
      break;
    }
    const int z = s->topo->facet_zone[2 * facet], lf = s->topo->facet_zone[2 * facet + 1];
    FaceNormal(mesh, dim, z, lf, &fnorm[3 * (size_t)f]);
    if (cfg->boundaries[fsec[f]].type == BLAST_BOUNDARY_FREE) continue;
    BlastSpaceFacetNodeIds(s, z, lf, ids);
    const size_t nrec0 = nrec;
    for (int64_t p = 0; p < per_face; p++, nrec++) {
      rec[nrec].gid = ids[p], rec[nrec].face = f;
      rec[nrec].z = z, rec[nrec].lf = lf, rec[nrec].p = p;
      memcpy(rec[nrec].n, &fnorm[3 * (size_t)f], sizeof rec[nrec].n);
      if (BlastMeshCurveOrder(mesh) > 1) CurvedNodeNormal(s, z, lf, p, rec[nrec].n);
    }
    int plane = AxisOf(dim, rec[nrec0].n) >= 0;
    for (size_t r = nrec0 + 1; r < nrec && plane; r++)
      plane = AxisOf(dim, rec[r].n) == AxisOf(dim, rec[nrec0].n);
    for (size_t r = nrec0; r < nrec; r++) rec[r].plane = plane;
  }
  NodeBc *nodes = NULL;
  if (!ierr) ierr = BlastMalloc((size_t)s->h1_next + 1, &nodes);
  if (!ierr) {
    qsort(rec, nrec, sizeof *rec, CompareFaceDof);
#pragma omp parallel for schedule(static)
    for (int l = 0; l < s->h1_next; l++) {
      // the records of this node's global id: a binary search for the first
      size_t lo = 0, hi = nrec;
      while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rec[mid].gid < s->h1_gid[l])
          lo = mid + 1;
        else
          hi = mid;
      }
      size_t end = lo;
      while (end < nrec && rec[end].gid == s->h1_gid[l]) end++;
      ClassifyNode(cfg, dim, rec + lo, end - lo, fsec, &nodes[l], NULL);
    }
  }
  // The lists, ascending.
  size_t ness = 0;
  for (int l = 0; l < s->h1_next && !ierr; l++) {
    for (int c = 0; c < dim; c++) ness += (nodes[l].axes >> c) & 1u;
    b->nproj += nodes[l].nq > 0;
    b->nvel += nodes[l].kind == NODE_VELOCITY;
  }
  if (!ierr) ierr = BlastMalloc(dim + 1, &b->ess_off);
  if (!ierr) ierr = BlastMalloc(ness + 1, &b->ess_idx);
  if (!ierr) ierr = BlastMalloc((size_t)b->nproj + 1, &b->proj_idx);
  if (!ierr) ierr = BlastMalloc(9 * (size_t)b->nproj + 1, &b->proj_normal);
  if (!ierr) ierr = BlastMalloc((size_t)b->nvel + 1, &b->vel_idx);
  if (!ierr) ierr = BlastMalloc((size_t)b->nvel + 1, &b->vel_section);
  if (!ierr) {
    b->ess_off[0] = 0;
    for (int c = 0, n = 0; c < dim; c++) {
      for (int l = 0; l < s->h1_next; l++)
        if ((nodes[l].axes >> c) & 1u) b->ess_idx[n++] = l;
      b->ess_off[c + 1] = n;
    }
    for (int l = 0, np = 0, nv = 0; l < s->h1_next; l++) {
      if (nodes[l].nq > 0) {
        b->proj_idx[np] = l;
        for (int j = 0; j < 3; j++)
          for (int c = 0; c < 3; c++) b->proj_normal[9 * (size_t)np + 3 * j + c] = nodes[l].q[j][c];
        np++;
      }
      if (nodes[l].kind == NODE_VELOCITY)
        b->vel_idx[nv] = l, b->vel_section[nv++] = nodes[l].section;
    }
  }
  BlastFree(&nodes);
  if (!ierr) ierr = WallStencils(cfg, s, rec, nrec, fsec, s->h1_nown, b);
  BlastFree(&rec);
  BlastFree(&ids);
  BlastFree(&fnorm);
  BlastFree(&fsec);
  if (ierr) BlastBoundaryFree(b);
  return ierr;
}

void BlastBoundaryKeepOwned(BlastBoundaryDofs *b, int nown) {
  int orig[4];
  for (int c = 0; c <= b->dim; c++) orig[c] = b->ess_off[c];
  for (int c = 0, n = 0; c < b->dim; c++) {
    b->ess_off[c] = n;
    for (int i = orig[c]; i < orig[c + 1]; i++)
      if (b->ess_idx[i] < nown) b->ess_idx[n++] = b->ess_idx[i];
    b->ess_off[c + 1] = n;
  }
  int n = 0;
  for (int i = 0; i < b->nproj; i++)
    if (b->proj_idx[i] < nown) {
      b->proj_idx[n] = b->proj_idx[i];
      memmove(&b->proj_normal[9 * (size_t)n], &b->proj_normal[9 * (size_t)i], 9 * sizeof(double));
      n++;
    }
  b->nproj = n;
  n = 0;
  for (int i = 0; i < b->nvel; i++)
    if (b->vel_idx[i] < nown)
      b->vel_idx[n] = b->vel_idx[i], b->vel_section[n++] = b->vel_section[i];
  b->nvel = n;
}

void BlastBoundaryFree(BlastBoundaryDofs *b) {
  BlastFree(&b->ess_off);
  BlastFree(&b->ess_idx);
  BlastFree(&b->proj_idx);
  BlastFree(&b->proj_normal);
  BlastFree(&b->vel_idx);
  BlastFree(&b->vel_section);
  BlastFree(&b->wall_off);
  BlastFree(&b->wall_slot);
  BlastFree(&b->wall_idx);
  BlastFree(&b->wall_w);
  BlastFree(&b->host_a);
  for (int k = 0; k < BLAST_MAX_BOUNDARIES; k++)
    for (int c = 0; c < 3; c++) BlastExprDestroy(&b->vel_expr[k][c]);
  b->nproj = b->nvel = 0;
}

void BlastBoundaryApplyInitial(const BlastBoundaryDofs *b, int nl, double *v) {
  const int dim = b->dim;
  for (int c = 0; c < dim; c++)
    for (int i = b->ess_off[c]; i < b->ess_off[c + 1]; i++)
      if (b->ess_idx[i] < nl) v[(size_t)c * nl + b->ess_idx[i]] = 0.0;
  for (int i = 0; i < b->nvel; i++) {
    const int l = b->vel_idx[i];
    if (l >= nl) continue;
    for (int c = 0; c < dim; c++) v[(size_t)c * nl + l] = b->vel[b->vel_section[i]][c];
  }
  for (int i = 0; i < b->nproj; i++) {
    const int l = b->proj_idx[i];
    if (l >= nl) continue;
    double w[3] = {0, 0, 0};
    for (int c = 0; c < dim; c++) w[c] = v[(size_t)c * nl + l];
    BlastProjectNode(dim, &b->proj_normal[9 * (size_t)i], w);
    for (int c = 0; c < dim; c++) v[(size_t)c * nl + l] = w[c];
  }
}
