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

typedef struct {
  int64_t gid;
  int face;
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

// The outward unit normal of curved face lf of mesh zone z at its node p (the order of
// BlastSpaceFacetNodeIds), oriented as the face's chord normal n (replaced).
static void CurvedNodeNormal(const BlastSpace *s, int z, int lf, int64_t p, double *n) {
  const int dim = s->dim, k = s->k, N = s->N, K = N * k, g = lf / 2;
  int other[2] = {0, 0}, no = 0;
  for (int h = 0; h < dim; h++)
    if (h != g) other[no++] = h;
  double xi[3], J[9], m[3] = {0, 0, 0};
  xi[g] = lf % 2;
  for (int o = 0; o < no; o++, p /= K + 1) {
    const int i = (int)(p % (K + 1)), j = i / k < N ? i / k : N - 1;
    xi[other[o]] = (j + s->gll[i - j * k]) / N;
  }
  BlastMeshZoneJacobian(s->mesh, z, xi, J);
  if (dim == 2) {
    m[0] = J[1 * 2 + other[0]], m[1] = -J[0 * 2 + other[0]];
  } else if (dim == 3) {
    const double a[3] = {J[other[0]], J[3 + other[0]], J[6 + other[0]]};
    const double b[3] = {J[other[1]], J[3 + other[1]], J[6 + other[1]]};
    m[0] = a[1] * b[2] - a[2] * b[1], m[1] = a[2] * b[0] - a[0] * b[2];
    m[2] = a[0] * b[1] - a[1] * b[0];
  } else {
    return;
  }
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
// orthonormalised into q[0..*nq). Returns the count.
static int NodeNormals(int dim, int nn, const double (*fn)[3], double q[3][3]) {
  const double cos_sharp = cos(BLAST_WALL_SHARP_ANGLE_DEG * acos(-1.0) / 180.0);
  double grp[16][3], first[16][3];
  int ng = 0;
  for (int i = 0; i < nn; i++) {
    int k = 0;
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
    for (int c = 0; c < dim; c++) grp[k][c] += fn[i][c];
  }
  int nq = 0;
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
    nq++;
  }
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

static void ClassifyNode(const BlastConfig *cfg, int dim, const FaceDof *rec, size_t nrec,
                         const int *fsec, NodeBc *nb) {
  memset(nb, 0, sizeof *nb);
  nb->section = -1;
  double fn[64][3];
  int nn = 0;
  for (size_t r = 0; r < nrec; r++) {
    const int k = fsec[rec[r].face];
    const int type = cfg->nboundaries ? cfg->boundaries[k].type : BLAST_BOUNDARY_WALL;
    if (type == BLAST_BOUNDARY_VELOCITY) {
      if (nb->kind != NODE_VELOCITY || k < nb->section) nb->section = k;
      nb->kind = NODE_VELOCITY;
    } else if (type == BLAST_BOUNDARY_WALL && nn < 64) {
      if (nb->kind == NODE_FREE) nb->kind = NODE_WALL;
      for (int c = 0; c < 3; c++) fn[nn][c] = rec[r].n[c];
      nn++;
    }
  }
  if (nb->kind == NODE_VELOCITY) {
    nb->axes = (unsigned char)((1u << dim) - 1u);
    return;
  }
  if (nb->kind != NODE_WALL) return;
  double q[3][3] = {{0}};
  const int nq = NodeNormals(dim, nn, (const double(*)[3])fn, q);
  int all_axes = 1;
  unsigned axes = 0;
  for (int j = 0; j < nq; j++) {
    const int ax = AxisOf(dim, q[j]);
    if (ax < 0)
      all_axes = 0;
    else
      axes |= 1u << ax;
  }
  if (nq == dim || all_axes) {
    nb->axes = (unsigned char)(nq == dim ? (1u << dim) - 1u : axes);
    return;
  }
  nb->nq = (signed char)nq;
  memcpy(nb->q, q, sizeof q);
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
    for (int64_t p = 0; p < per_face; p++, nrec++) {
      rec[nrec].gid = ids[p], rec[nrec].face = f;
      memcpy(rec[nrec].n, &fnorm[3 * (size_t)f], sizeof rec[nrec].n);
      if (BlastMeshCurveOrder(mesh) > 1) CurvedNodeNormal(s, z, lf, p, rec[nrec].n);
    }
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
      ClassifyNode(cfg, dim, rec + lo, end - lo, fsec, &nodes[l]);
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
