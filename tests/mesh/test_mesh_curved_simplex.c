// Refinement of curved simplex meshes in reference space (BlastMeshRefine): triangles and
// tetrahedra of order 2 and 3 over a known quadratic map (every refined node lies on the
// map at a point of the fine lattice, one node per point, the refined maps reproduce the
// map, the volume its closed-form integral); quadratic Gmsh meshes of a disc and a ball
// (every refined node on the coarse zone's map, the volume kept; the disc's volume
// converging to pi at the rate of quadratic boundary arcs, h^4, over three mesh sizes);
// MFEM triangles with nodes of order 3 and 4 (io/meshio_nodes.c).
// Usage: test_mesh_curved_simplex GMSH_DIR (the .msh files of gmsh_meshes.cmake)
#include <math.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom.h"
#include "mesh.h"
#include "meshio.h"
#include "testlib.h"
#include "topology.h"

static const double kA = 0.2, kB = 0.1, kC = 0.3;

// 2D (u + a v^2, v + b u^2); 3D (u + a v^2, v + b w^2, w + c u v).
static void Poly(int dim, const double *u, double *x) {
  if (dim == 2) {
    x[0] = u[0] + kA * u[1] * u[1], x[1] = u[1] + kB * u[0] * u[0];
  } else {
    x[0] = u[0] + kA * u[1] * u[1], x[1] = u[1] + kB * u[2] * u[2], x[2] = u[2] + kC * u[0] * u[1];
  }
}

// The u with Poly(u) = x (fixed-point iteration: the map is a small perturbation).
static void PolyInverse(int dim, const double *x, double *u) {
  for (int g = 0; g < dim; g++) u[g] = x[g];
  for (int it = 0; it < 200; it++) {
    double y[3];
    Poly(dim, u, y);
    for (int g = 0; g < dim; g++) u[g] -= y[g] - x[g];
  }
}

// Lattice index (order p, x fastest, sum <= p) of node a of a d-simplex.
static void LatticePoint(int dim, int p, int a, int *j) {
  for (int l = 0, n = 0; l <= (dim == 3 ? p : 0); l++)
    for (int y = 0; y <= p - l; y++)
      for (int x = 0; x <= p - l - y; x++, n++)
        if (n == a) {
          j[0] = x, j[1] = y, j[2] = l;
          return;
        }
}

// The unit square (cube) of n^d cells, each split into 2 triangles (6 Kuhn tetrahedra),
// with nodes of order p at Poly of the points of the global lattice of order n p;
// boundary faces (attribute 1) the facets on the square's sides.
static int MakeSimplexGrid(int dim, int n, int p, BlastMesh *mesh) {
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int N = n * p + 1, nv1 = n + 1, per = dim == 2 ? 2 : 6, nc = 1 << dim, nf = 1 << (dim - 1);
  const int nn = dim == 2 ? (p + 1) * (p + 1) : (p + 1) * (p + 1) * (p + 1);
  const int ns = dim == 2 ? (p + 1) * (p + 2) / 2 : (p + 1) * (p + 2) * (p + 3) / 6;
  int ncell = 1, nverts = 1, nnodes = 1;
  for (int g = 0; g < dim; g++) ncell *= n, nverts *= nv1, nnodes *= N;
  const int nz = ncell * per, maxb = nz * (dim + 1);
  double *coords = malloc(sizeof(double) * nverts * dim),
         *nodes = malloc(sizeof(double) * nnodes * dim);
  int *zv = malloc(sizeof(int) * nz * nc), *zn = malloc(sizeof(int) * nz * nn);
  int *bv = malloc(sizeof(int) * maxb * nf), *ba = malloc(sizeof(int) * maxb), nb = 0;
  for (int v = 0; v < nnodes; v++) {
    double u[3];
    for (int g = 0, r = v; g < dim; g++, r /= N) u[g] = (double)(r % N) / (n * p);
    Poly(dim, u, &nodes[v * dim]);
  }
  for (int v = 0; v < nverts; v++) {
    int id = 0;
    for (int g = 0, r = v, s = 1; g < dim; g++, r /= nv1, s *= N) id += (r % nv1) * p * s;
    for (int g = 0; g < dim; g++) coords[v * dim + g] = nodes[id * dim + g];
  }
  for (int cell = 0; cell < ncell; cell++) {
    int c0[3] = {0, 0, 0};
    for (int g = 0, r = cell; g < dim; g++, r /= n) c0[g] = r % n;
    for (int t = 0; t < per; t++) {
      const int z = cell * per + t;
      int V[4][3];
      for (int g = 0; g < 3; g++) V[0][g] = c0[g];
      for (int a = 1; a <= dim; a++) {
        for (int g = 0; g < 3; g++) V[a][g] = V[a - 1][g];
        V[a][dim == 2 ? (t == 0 ? a - 1 : 2 - a) : perm[t][a - 1]]++;
      }
      // Kuhn simplices of odd permutations (and the second triangle) are negative: swap.
      const int odd = dim == 2 ? t == 1 : (t == 1 || t == 2 || t == 5);
      if (odd)
        for (int g = 0; g < 3; g++) {
          const int tmp = V[1][g];
          V[1][g] = V[2][g], V[2][g] = tmp;
        }
      for (int a = 0; a < nc; a++) {
        int id = 0;
        for (int g = 0, s = 1; g < dim && a <= dim; g++, s *= nv1) id += V[a][g] * s;
        zv[z * nc + a] = a <= dim ? id : -1;
      }
      for (int a = 0; a < nn; a++) {
        int j[3] = {0, 0, 0}, id = 0;
        if (a >= ns) {
          zn[z * nn + a] = -1;
          continue;
        }
        LatticePoint(dim, p, a, j);
        for (int g = 0, s = 1; g < dim; g++, s *= N) {
          int i = p * V[0][g];
          for (int h = 0; h < dim; h++) i += j[h] * (V[h + 1][g] - V[0][g]);
          id += i * s;
        }
        zn[z * nn + a] = id;
      }
      for (int f = 0; f <= dim; f++) {  // the facet opposite vertex f on a side
        for (int g = 0; g < dim; g++)
          for (int side = 0; side <= n; side += n) {
            int on = 1;
            for (int a = 0; a <= dim; a++)
              if (a != f && V[a][g] != side) on = 0;
            if (!on) continue;
            for (int a = 0, k = 0; a <= dim; a++)
              if (a != f) bv[nb * nf + k++] = zv[z * nc + a];
            if (dim == 3) bv[nb * nf + 3] = -1;
            ba[nb++] = 1;
          }
      }
    }
  }
  unsigned char *zg = malloc((size_t)nz), *bg = malloc((size_t)nb + 1);
  memset(zg, dim == 2 ? BLAST_GEOM_TRIANGLE : BLAST_GEOM_TETRAHEDRON, (size_t)nz);
  memset(bg, dim == 2 ? BLAST_GEOM_SEGMENT : BLAST_GEOM_TRIANGLE, (size_t)nb + 1);
  const BlastMeshDesc d = {.dim = dim,
                           .nverts = nverts,
                           .nzones = nz,
                           .nbdr = nb,
                           .coords = coords,
                           .zone_verts = zv,
                           .zone_geom = zg,
                           .zone_attr = NULL,
                           .bdr_verts = bv,
                           .bdr_geom = bg,
                           .bdr_attr = ba,
                           .curve_order = p,
                           .nnodes = nnodes,
                           .node_coords = nodes,
                           .zone_nodes = zn};
  const int ierr = BlastMeshCreateFrom(&d, mesh);
  free(coords), free(nodes), free(zv), free(zn), free(bv), free(ba), free(zg), free(bg);
  return ierr;
}

static double Rand01(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (double)((*s >> 8) & 0xffff) / 65535.0;
}

// A refined grid of order p, lattice of order L = n K p: every node is Poly at a lattice
// point (its preimage a multiple of 1/L within 1e-12, the node Poly of that point within
// 1e-15); the (L+1)^d nodes, one per point (a shared point is one node, the same bits in
// every zone); each zone's corner nodes are its vertices, bitwise; the zone maps are Poly
// of the affine map of the zone's corner points at random points.
static void CheckRefinedGrid(const char *what, BlastMesh r, int L) {
  const int dim = BlastMeshDim(r), p = BlastMeshCurveOrder(r), nn = BlastMeshNumNodes(r);
  const double *X = BlastMeshNodeCoords(r), *V = BlastMeshCoords(r);
  const int *zn = BlastMeshZoneNodes(r), *zv = BlastMeshZoneVerts(r);
  int want = 1;
  for (int g = 0; g < dim; g++) want *= L + 1;
  TEST_ASSERT(nn == want, "%s: %d nodes, %d lattice points", what, nn, want);
  double off = 0.0, onmap = 0.0, maps = 0.0;
  for (int a = 0; a < nn; a++) {
    double u[3], y[3];
    PolyInverse(dim, &X[a * dim], u);
    for (int g = 0; g < dim; g++) {
      const double i = round(u[g] * L);
      off = fmax(off, fabs(u[g] * L - i));
      u[g] = i / L;
    }
    Poly(dim, u, y);
    for (int g = 0; g < dim; g++) onmap = fmax(onmap, fabs(y[g] - X[a * dim + g]));
  }
  TEST_ASSERT(off < 1e-9 && onmap < 1e-15, "%s: nodes off the lattice by %.2e, off the map by %.2e",
              what, off, onmap);
  const int stride = dim == 2 ? (p + 1) * (p + 1) : (p + 1) * (p + 1) * (p + 1), nc = 1 << dim;
  // the lattice-order index of the corners (0,0,0), (p,0,0), (0,p,0), (0,0,p)
  const int corner[4] = {0, p, (p + 1) * (p + 2) / 2 - 1, (p + 1) * (p + 2) * (p + 3) / 6 - 1};
  int bad = 0;
  unsigned s = 3;
  for (int z = 0; z < BlastMeshNumZones(r); z++) {
    double uc[4][3];
    for (int a = 0; a <= dim; a++) {
      const int node = zn[z * stride + corner[a]];
      bad += memcmp(&X[node * dim], &V[zv[z * nc + a] * dim], sizeof(double) * dim) != 0;
      PolyInverse(dim, &V[zv[z * nc + a] * dim], uc[a]);
    }
    for (int q = 0; q < 3; q++) {
      double xi[3] = {0, 0, 0}, u[3], x[3], y[3], sum = 0.0;
      for (int g = 0; g < dim; g++) xi[g] = Rand01(&s) / dim, sum += xi[g];
      for (int g = 0; g < dim; g++) {
        u[g] = uc[0][g];
        for (int h = 0; h < dim; h++) u[g] += xi[h] * (uc[h + 1][g] - uc[0][g]);
      }
      BlastMeshZoneMap(r, z, xi, x);
      Poly(dim, u, y);
      for (int g = 0; g < dim; g++) maps = fmax(maps, fabs(x[g] - y[g]));
    }
  }
  TEST_ASSERT(!bad, "%s: %d zone corners whose node is not their vertex, bitwise", what, bad);
  TEST_ASSERT(maps < 1e-12, "%s: zone maps off the exact map by %.2e", what, maps);
}

static BlastMesh Read(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  BlastMesh m = NULL;
  TEST_CALL(BlastMeshRead(path, &m));
  return m;
}

// Refined mesh r of coarse mesh m (levels): every node of every child equals m's map at
// the child's node (the point of the parent's lattice of order K p) within tol, and the
// volume is m's.
static void CheckOnCoarseMap(const char *what, BlastMesh m, BlastMesh r, int levels, double tol) {
  const int dim = BlastMeshDim(m), p = BlastMeshCurveOrder(m), K = 1 << levels;
  const int nchild = dim == 2 ? K * K : K * K * K;
  const int stride = dim == 2 ? (p + 1) * (p + 1) : (p + 1) * (p + 1) * (p + 1);
  const int ns = dim == 2 ? (p + 1) * (p + 2) / 2 : (p + 1) * (p + 2) * (p + 3) / 6;
  int *verts = malloc(sizeof(int) * nchild * (dim + 1) * dim);
  BlastSimplexChildren(dim, K, verts);
  const double *X = BlastMeshNodeCoords(r);
  const int *zn = BlastMeshZoneNodes(r);
  double worst = 0.0;
  for (int z = 0; z < BlastMeshNumZones(r); z++) {
    const int parent = z / nchild, *cv = &verts[(z % nchild) * (dim + 1) * dim];
    for (int a = 0; a < ns; a++) {
      int j[3] = {0, 0, 0};
      double xi[3] = {0, 0, 0}, x[3];
      LatticePoint(dim, p, a, j);
      for (int g = 0; g < dim; g++) {
        int i = p * cv[g];
        for (int h = 0; h < dim; h++) i += j[h] * (cv[(h + 1) * dim + g] - cv[g]);
        xi[g] = (double)i / (K * p);
      }
      BlastMeshZoneMap(m, parent, xi, x);
      for (int g = 0; g < dim; g++)
        worst = fmax(worst, fabs(x[g] - X[zn[z * stride + a] * dim + g]));
    }
  }
  free(verts);
  const double vm = BlastMeshVolume(m), vr = BlastMeshVolume(r);
  TEST_ASSERT(worst <= tol && fabs(vr - vm) <= 1e-13 * vm,
              "%s: refined nodes off the coarse map by %.2e (tol %.0e), volume %.15g vs %.15g",
              what, worst, tol, vr, vm);
  printf("%s: refined nodes on the coarse map to %.1e, volume %.15g (coarse %.15g)\n", what, worst,
         vr, vm);
}

static void CheckGmsh(const char *dir) {
  // The quadratic disc at three sizes: volume -> pi at the rate h^4.
  const char *disc[3] = {"disc_tri_v41a.msh", "disc_tri_o2_h1.msh", "disc_tri_o2_h2.msh"};
  double err[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) {
    BlastMesh m = Read(dir, disc[k]);
    if (!m) return;
    TEST_ASSERT(BlastMeshCurveOrder(m) == 2 && BlastMeshHasSimplices(m), "%s: quadratic", disc[k]);
    err[k] = fabs(BlastMeshVolume(m) - M_PI);
    for (int levels = 1; levels <= (k == 0 ? 2 : 1); levels++) {
      BlastMesh r = NULL;
      char what[96];
      snprintf(what, sizeof what, "%s refined %d", disc[k], levels);
      TEST_CALL(BlastMeshRefine(m, levels, &r));
      if (r) CheckOnCoarseMap(what, m, r, levels, 2e-15);
      if (r) TEST_CALL(BlastMeshCheckJacobians(r, 3));
      BlastMeshDestroy(&r);
    }
    BlastMeshDestroy(&m);
  }
  const double r1 = log2(err[0] / err[1]), r2 = log2(err[1] / err[2]);
  printf("disc volume errors %.3e %.3e %.3e, rates %.2f %.2f\n", err[0], err[1], err[2], r1, r2);
  TEST_ASSERT(r1 > 3.2 && r2 > 3.7 && err[2] < 1e-6,
              "quadratic disc: volume errors %.2e %.2e %.2e, rates %.2f %.2f (want ~4)", err[0],
              err[1], err[2], r1, r2);
  BlastMesh b = Read(dir, "ball_tet_o2.msh");
  if (b) {
    TEST_ASSERT(BlastMeshCurveOrder(b) == 2, "ball: quadratic");
    BlastMesh r = NULL;
    TEST_CALL(BlastMeshRefine(b, 1, &r));
    if (r) CheckOnCoarseMap("quadratic ball refined 1", b, r, 1, 2e-15);
    if (r) TEST_CALL(BlastMeshCheckJacobians(r, 3));
    BlastMeshDestroy(&r);
    BlastMeshDestroy(&b);
  }
}

// The cubic map of the MFEM files below: (u + a v^3, v + b u^2 v).
static void Cubic(const double *u, double *x) {
  x[0] = u[0] + kA * u[1] * u[1] * u[1], x[1] = u[1] + kB * u[0] * u[0] * u[1];
}

// An MFEM file of the unit square's 2 x 2 cells split into 8 triangles with nodes of
// order p (H1_2D_Pp at Gauss-Lobatto points, or H1@U_2D_Pp equispaced) at Cubic of
// MFEM's node points, numbered as MFEM numbers them: the vertices, each edge's p - 1 dofs
// (edges by first appearance, the element's edges (0,1) (1,2) (2,0)) from its
// lower-numbered vertex, then each element's interior dofs (row i1 outer, i0 inner) at
// (c[i0], c[i1]) / (c[i0] + c[i1] + c[p - i0 - i1]) of its reference triangle. The zone
// maps then reproduce Cubic (degree 3 <= p).
static int MfemTriangles(int p, int uniform, char *buf, size_t len) {
  double c[5];
  for (int i = 0; i <= p; i++) c[i] = (double)i / p;
  if (!uniform && p == 3) c[1] = 0.5 - 0.5 / sqrt(5.0), c[2] = 0.5 + 0.5 / sqrt(5.0);
  if (!uniform && p == 4) c[1] = 0.5 - 0.5 * sqrt(3.0 / 7.0), c[3] = 0.5 + 0.5 * sqrt(3.0 / 7.0);
  int E[8][3], edges[32][2], ne = 0;
  for (int cell = 0; cell < 4; cell++) {
    const int i = cell % 2, j = cell / 2, v = i + 3 * j;
    const int t0[3] = {v, v + 1, v + 4}, t1[3] = {v, v + 4, v + 3};
    memcpy(E[2 * cell], t0, sizeof t0), memcpy(E[2 * cell + 1], t1, sizeof t1);
  }
  size_t n = (size_t)snprintf(buf, len, "MFEM mesh v1.0\ndimension\n2\nelements\n8\n");
  for (int e = 0; e < 8; e++)
    n += (size_t)snprintf(buf + n, len - n, "1 2 %d %d %d\n", E[e][0], E[e][1], E[e][2]);
  n += (size_t)snprintf(buf + n, len - n, "boundary\n8\n");
  const int B[8][2] = {{0, 1}, {1, 2}, {2, 5}, {5, 8}, {8, 7}, {7, 6}, {6, 3}, {3, 0}};
  for (int f = 0; f < 8; f++)
    n += (size_t)snprintf(buf + n, len - n, "1 1 %d %d\n", B[f][0], B[f][1]);
  n += (size_t)snprintf(buf + n, len - n,
                        "vertices\n9\nnodes\nFiniteElementSpace\nFiniteElementCollection: "
                        "H1%s_2D_P%d\nVDim: 2\nOrdering: 1\n",
                        uniform ? "@U" : "", p);
  double U[9][2];
  for (int v = 0; v < 9; v++) U[v][0] = 0.5 * (v % 3), U[v][1] = 0.5 * (v / 3);
  for (int v = 0; v < 9; v++) {
    double x[2];
    Cubic(U[v], x);
    n += (size_t)snprintf(buf + n, len - n, "%.17g %.17g\n", x[0], x[1]);
  }
  for (int e = 0; e < 8; e++)
    for (int k = 0; k < 3; k++) {
      const int a = E[e][k], b = E[e][(k + 1) % 3], lo = a < b ? a : b, hi = a < b ? b : a;
      int seen = 0;
      for (int m = 0; m < ne; m++) seen |= edges[m][0] == lo && edges[m][1] == hi;
      if (seen) continue;
      edges[ne][0] = lo, edges[ne++][1] = hi;
      for (int t = 1; t < p; t++) {
        double u[2], x[2];
        for (int g = 0; g < 2; g++) u[g] = U[lo][g] + c[t] * (U[hi][g] - U[lo][g]);
        Cubic(u, x);
        n += (size_t)snprintf(buf + n, len - n, "%.17g %.17g\n", x[0], x[1]);
      }
    }
  for (int e = 0; e < 8; e++)
    for (int i1 = 1; i1 < p; i1++)
      for (int i0 = 1; i0 + i1 < p; i0++) {
        const double w = c[i0] + c[i1] + c[p - i0 - i1], r0 = c[i0] / w, r1 = c[i1] / w;
        double u[2], x[2];
        for (int g = 0; g < 2; g++)
          u[g] = U[E[e][0]][g] + r0 * (U[E[e][1]][g] - U[E[e][0]][g]) +
                 r1 * (U[E[e][2]][g] - U[E[e][0]][g]);
        Cubic(u, x);
        n += (size_t)snprintf(buf + n, len - n, "%.17g %.17g\n", x[0], x[1]);
      }
  return (int)n;
}

// MFEM triangles of order 3 and 4 (Gauss-Lobatto and equispaced nodes): the maps are the
// cubic map of the straight zones' affine maps, at random points.
static void CheckMfemTriangles(void) {
  static char buf[16384];
  for (int p = 3; p <= 4; p++)
    for (int uniform = 0; uniform <= 1; uniform++) {
      const int len = MfemTriangles(p, uniform, buf, sizeof buf);
      BlastMesh m = NULL;
      TEST_CALL(BlastMeshReadBuffer("triangles.mesh", buf, (size_t)len, &m));
      if (!m) continue;
      TEST_ASSERT(BlastMeshCurveOrder(m) == p, "MFEM triangles P%d: order %d", p,
                  BlastMeshCurveOrder(m));
      const double *V = BlastMeshCoords(m);
      const int *zv = BlastMeshZoneVerts(m);
      unsigned s = 9;
      double worst = 0.0;
      for (int z = 0; z < BlastMeshNumZones(m); z++) {
        double uc[3][2];
        for (int a = 0; a < 3; a++) {  // the vertices' preimages: grid points of 1/2
          const double *x = &V[zv[z * 4 + a] * 2];
          uc[a][1] = round(2.0 * x[1]) / 2.0, uc[a][0] = round(2.0 * x[0]) / 2.0;
        }
        for (int q = 0; q < 6; q++) {
          double xi[2] = {Rand01(&s) / 2, Rand01(&s) / 2}, u[2], x[2], y[2];
          for (int g = 0; g < 2; g++)
            u[g] = uc[0][g] + xi[0] * (uc[1][g] - uc[0][g]) + xi[1] * (uc[2][g] - uc[0][g]);
          BlastMeshZoneMap(m, z, xi, x);
          Cubic(u, y);
          for (int g = 0; g < 2; g++) worst = fmax(worst, fabs(x[g] - y[g]));
        }
      }
      TEST_ASSERT(worst < 1e-13, "MFEM triangles P%d%s: maps off the cubic map by %.2e", p,
                  uniform ? " (equispaced)" : "", worst);
      printf("MFEM triangles P%d%s: maps on the cubic map to %.1e\n", p,
             uniform ? " (equispaced)" : "", worst);
      BlastMeshDestroy(&m);
    }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_mesh_curved_simplex GMSH_DIR\n");
    return 2;
  }
  for (int dim = 2; dim <= 3; dim++)
    for (int p = 2; p <= 3; p++) {
      const int n = dim == 2 ? 2 : 1;
      BlastMesh m = NULL;
      TEST_CALL(MakeSimplexGrid(dim, n, p, &m));
      if (!m) continue;
      const double exact =
          dim == 2 ? 1.0 - kA * kB : 1.0 - kB * kC / 2.0 + 2.0 * kA * kB * kC / 3.0;
      TEST_CLOSE(BlastMeshVolume(m), exact, 1e-14);
      for (int levels = 0; levels <= (dim == 2 ? 2 : 1); levels++) {
        BlastMesh r = NULL;
        char what[64];
        snprintf(what, sizeof what, "%dD order %d, %d levels", dim, p, levels);
        TEST_CALL(BlastMeshRefine(m, levels, &r));
        if (!r) continue;
        TEST_ASSERT(BlastMeshCurveOrder(r) == p && BlastMeshHasSimplices(r), "%s: order", what);
        CheckRefinedGrid(what, r, n * (1 << levels) * p);
        TEST_CLOSE(BlastMeshVolume(r), exact, 1e-13);
        TEST_CALL(BlastMeshCheckJacobians(r, 3));
        BlastMeshDestroy(&r);
      }
      BlastMeshDestroy(&m);
    }
  CheckGmsh(argv[1]);
  CheckMfemTriangles();
  return BlastTestFinish("test_mesh_curved_simplex");
}
