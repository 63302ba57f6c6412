// H1 spaces on simplex meshes (triangles, tetrahedra) built in C with random vertex
// numbering and orders, orders k = 1..4 (tetrahedra 1..3), parallel refinement rp = 0, 1:
//  1. the number of global dofs is (n N k + 1)^d, the grid points of the box's lattice;
//  2. continuity: the nodes of every zone placed by BlastSpaceNodeRef and the mesh map sit
//     on that grid; one local dof is one point and distinct dofs are distinct points;
//  3. corners: BlastSpaceZoneCorner / ZoneCornerId agree with the nodes at the vertices;
//  4. rank independence: the spaces of 2 and 3 parts give every zone node the global id
//     of the 1-part space, each dof is owned by one part, the lowest whose zones touch it,
//     and the owned dofs' mass lists hold every zone entry of the 1-part space;
//  5. essential dofs (attribute c + 1 on the sides normal to axis c): exactly the dofs
//     with x_c in {0, 1};
//  6. METIS partitions of the dual graph of a tetrahedral mesh into 3 parts: every part
//     non-empty and connected through faces, and 4 holds on them;
//  7. a mesh of triangles and quadrilaterals is refused with a clear message;
//  8. walls on every side of the box ([boundary.*] sections, BlastBoundaryBuild: normals
//     of simplex faces) constrain exactly the dofs of the legacy convention.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast_mpi.h"
#include "boundary.h"
#include "partition.h"
#include "simplexmesh.h"
#include "space.h"
#include "testlib.h"

static int CompareInt64Test(const void *pa, const void *pb) {
  const int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

// Physical point of node a of space zone z.
static void NodePoint(const BlastSpace *s, int z, int a, double *x) {
  double xi[3];
  BlastSpaceNodeRef(s, z, a, xi);
  BlastMeshZoneMap(s->mesh, s->zone_macro[z], xi, x);
}

// Grid index of x on the lattice of spacing 1/M; -1 if x is off the lattice.
static int64_t GridKey(int dim, int M, const double *x) {
  int64_t key = 0;
  for (int c = dim - 1; c >= 0; c--) {
    const double y = x[c] * M;
    if (fabs(y - round(y)) > 1e-9 * M) return -1;
    key = key * (M + 1) + (int64_t)lround(y);
  }
  return key;
}

static void CheckSerial(const char *name, BlastMesh m, const BlastTopology *t, int n, int k,
                        int rp) {
  const int dim = BlastMeshDim(m), N = 1 << rp, M = n * N * k;
  BlastSpace *s = NULL;
  TEST_CALL(BlastSpaceCreate(m, t, k, k - 1, rp, NULL, 0, &s));
  if (!s) return;
  int64_t grid = 1;
  for (int c = 0; c < dim; c++) grid *= M + 1;
  TEST_ASSERT(s->h1_nglobal == grid && s->h1_next == grid && s->h1_nown == grid,
              "%s k=%d rp=%d: %lld global dofs (%d local), expected %lld", name, k, rp,
              (long long)s->h1_nglobal, s->h1_next, (long long)grid);
  TEST_ASSERT(
      s->h1_nd == BlastGeomNumNodes(s->geom, k) && s->l2_nd == BlastGeomNumNodes(s->geom, k - 1),
      "%s: %d and %d nodes per zone", name, s->h1_nd, s->l2_nd);
  int64_t *key_of = malloc(sizeof(int64_t) * s->h1_next);
  for (int l = 0; l < s->h1_next; l++) key_of[l] = -2;
  int bad_key = 0, bad_corner = 0;
  for (int z = 0; z < s->nz; z++) {
    for (int a = 0; a < s->h1_nd; a++) {
      double x[3];
      NodePoint(s, z, a, x);
      const int64_t key = GridKey(dim, M, x);
      const int l = s->h1_edof[z * s->h1_nd + a];
      if (key < 0 || (key_of[l] != -2 && key_of[l] != key)) bad_key++;
      key_of[l] = key;
    }
    for (int c = 0; c <= dim; c++) {  // node at vertex c: lattice index k e_{c-1}
      int a = 0;
      while (a < s->h1_nd) {
        int hit = 1;
        for (int g = 0; g < dim; g++) hit &= s->node_lattice[a * dim + g] == (c == g + 1 ? k : 0);
        if (hit) break;
        a++;
      }
      double x[3], y[3];
      NodePoint(s, z, a, x);
      BlastSpaceZoneCorner(s, z, c, y);
      bad_corner += BlastSpaceZoneCornerId(s, z, c) != s->h1_gid[s->h1_edof[z * s->h1_nd + a]];
      for (int g = 0; g < dim; g++) bad_corner += fabs(x[g] - y[g]) > 1e-14;
    }
  }
  qsort(key_of, s->h1_next, sizeof(int64_t), CompareInt64Test);
  int dup = 0;
  for (int l = 1; l < s->h1_next; l++) dup += key_of[l] == key_of[l - 1];
  TEST_ASSERT(!bad_key && !dup && !bad_corner,
              "%s k=%d rp=%d: %d nodes off the grid or not matching their dof, %d dofs at one "
              "point, %d bad corners",
              name, k, rp, bad_key, dup, bad_corner);
  free(key_of);
  BlastSpaceDestroy(&s);
}

// Spaces of nparts parts (part[Z] = (Z * 7 / 3) % nparts: scattered, every part
// non-empty; or the given partition) against the 1-part space.
static void CheckParts(const char *name, BlastMesh m, const BlastTopology *t, int k, int rp,
                       int nparts, const int *given) {
  const int nz = BlastMeshNumZones(m);
  BlastSpace *s1 = NULL;
  TEST_CALL(BlastSpaceCreate(m, t, k, k - 1, rp, NULL, 0, &s1));
  if (!s1) return;
  const int nd = s1->h1_nd, nchild = s1->nz / nz;
  int *part = malloc(sizeof(int) * nz);
  for (int Z = 0; Z < nz; Z++) part[Z] = given ? given[Z] : (Z * 7 / 3) % nparts;
  // Owner of each global dof: the lowest part of the zones holding it (from the 1-part
  // space's zones); the zone entries of each global dof.
  int *owner = malloc(sizeof(int) * s1->h1_nglobal), *count = calloc(s1->h1_nglobal, sizeof(int));
  int *owned = calloc(s1->h1_nglobal, sizeof(int));
  for (int64_t g = 0; g < s1->h1_nglobal; g++) owner[g] = nparts;
  for (int z = 0; z < s1->nz; z++)
    for (int a = 0; a < nd; a++) {
      const int64_t g = s1->h1_gid[s1->h1_edof[z * nd + a]];
      if (part[s1->zone_macro[z]] < owner[g]) owner[g] = part[s1->zone_macro[z]];
      count[g]++;
    }
  int bad_gid = 0, bad_owner = 0, bad_mass = 0;
  for (int r = 0; r < nparts; r++) {
    BlastSpace *s = NULL;
    TEST_CALL(BlastSpaceCreate(m, t, k, k - 1, rp, part, r, &s));
    if (!s) continue;
    for (int z = 0; z < s->nz_ext; z++) {
      const int z1 = (int)s->zone_gid[z];  // the 1-part space holds every zone in gid order
      for (int a = 0; a < nd; a++)
        bad_gid += s->h1_gid[s->h1_edof[z * nd + a]] != s1->h1_gid[s1->h1_edof[z1 * nd + a]];
    }
    for (int l = 0; l < s->h1_next; l++) {
      const int64_t g = s->h1_gid[l];
      bad_owner += s->h1_owner[l] != owner[g] || (l < s->h1_nown) != (owner[g] == r);
      if (l < s->h1_nown) {
        owned[g]++;
        bad_mass += s->mass_toff[l + 1] - s->mass_toff[l] != count[g];
      }
    }
    BlastSpaceDestroy(&s);
  }
  int bad_own = 0;
  for (int64_t g = 0; g < s1->h1_nglobal; g++) bad_own += owned[g] != 1;
  TEST_ASSERT(
      !bad_gid && !bad_owner && !bad_mass && !bad_own && nchild == (1 << (rp * BlastMeshDim(m))),
      "%s k=%d rp=%d, %d parts: %d global ids differ from the 1-part space, %d wrong "
      "owners, %d incomplete mass lists, %d dofs not owned once",
      name, k, rp, nparts, bad_gid, bad_owner, bad_mass, bad_own);
  free(part), free(owner), free(count), free(owned);
  BlastSpaceDestroy(&s1);
}

static void CheckEssential(const char *name, BlastMesh m, const BlastTopology *t, int k, int rp) {
  const int dim = BlastMeshDim(m);
  BlastSpace *s = NULL;
  TEST_CALL(BlastSpaceCreate(m, t, k, k - 1, rp, NULL, 0, &s));
  if (!s) return;
  int *off = NULL, *idx = NULL;
  TEST_CALL(BlastSpaceEssentialDofs(s, &off, &idx));
  // Coordinates of every dof from the zones.
  double *x = malloc(sizeof(double) * 3 * s->h1_next);
  for (int z = 0; z < s->nz; z++)
    for (int a = 0; a < s->h1_nd; a++) NodePoint(s, z, a, &x[3 * s->h1_edof[z * s->h1_nd + a]]);
  int bad = 0;
  for (int c = 0; c < dim && off; c++) {
    int expect = 0;
    for (int l = 0; l < s->h1_next; l++) {
      const int on = fabs(x[3 * l + c]) < 1e-12 || fabs(x[3 * l + c] - 1.0) < 1e-12;
      expect += on;
      int listed = 0;
      for (int j = off[c]; j < off[c + 1]; j++) listed |= idx[j] == l;
      bad += on != listed;
    }
    bad += off[c + 1] - off[c] != expect;
  }
  TEST_ASSERT(!bad, "%s k=%d rp=%d: %d essential dofs wrong", name, k, rp, bad);
  BlastFree(&off);
  BlastFree(&idx);
  free(x);
  BlastSpaceDestroy(&s);
}

static void CheckWalls(const char *name, BlastMesh m, const BlastTopology *t, int k) {
  const int dim = BlastMeshDim(m);
  BlastSpace *s = NULL;
  TEST_CALL(BlastSpaceCreate(m, t, k, k - 1, 0, NULL, 0, &s));
  if (!s) return;
  static BlastConfig cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.nboundaries = 1;
  BlastBoundarySpec *b = &cfg.boundaries[0];
  snprintf(b->name, sizeof b->name, "walls");
  snprintf(b->where, sizeof b->where, "test.ini:7");
  b->type = BLAST_BOUNDARY_WALL;
  b->nattr = dim;
  for (int g = 0; g < dim; g++) b->attr[g] = g + 1;
  BlastBoundaryDofs bd;
  memset(&bd, 0, sizeof bd);
  int *off = NULL, *idx = NULL;
  TEST_CALL(BlastSpaceEssentialDofs(s, &off, &idx));
  TEST_CALL(BlastBoundaryBuild(&cfg, s, &bd));
  int same = off && bd.ess_off && bd.nproj == 0;
  for (int c = 0; c < dim && same; c++) {
    same = off[c + 1] - off[c] == bd.ess_off[c + 1] - bd.ess_off[c];
    for (int j = 0; j < off[c + 1] - off[c] && same; j++)
      same = idx[off[c] + j] == bd.ess_idx[bd.ess_off[c] + j];
  }
  TEST_ASSERT(same, "%s k=%d: wall constraints differ from the legacy convention (%d projected)",
              name, k, bd.nproj);
  BlastBoundaryFree(&bd);
  BlastFree(&off);
  BlastFree(&idx);
  BlastSpaceDestroy(&s);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  BlastMesh tri = NULL, tet = NULL, mix = NULL;
  TEST_CALL(SMBox(2, 3, 0, 0, 1, &tri));
  TEST_CALL(SMBox(3, 2, 0, 0, 1, &tet));
  TEST_CALL(SMBox(2, 2, 1, 0, 1, &mix));
  BlastTopology *ttri = NULL, *ttet = NULL, *tmix = NULL;
  TEST_CALL(BlastTopologyCreate(tri, &ttri));
  TEST_CALL(BlastTopologyCreate(tet, &ttet));
  TEST_CALL(BlastTopologyCreate(mix, &tmix));
  for (int rp = 0; rp <= 1; rp++) {
    for (int k = 1; k <= 4; k++) {
      CheckSerial("triangles", tri, ttri, 3, k, rp);
      if (k <= 3) CheckSerial("tetrahedra", tet, ttet, 2, k, rp);
      CheckEssential("triangles", tri, ttri, k, rp);
    }
    for (int nparts = 2; nparts <= 3; nparts++) {
      CheckParts("triangles", tri, ttri, 3, rp, nparts, NULL);
      CheckParts("tetrahedra", tet, ttet, 2, rp, nparts, NULL);
    }
  }
  CheckEssential("tetrahedra", tet, ttet, 2, 0);
  CheckWalls("triangles", tri, ttri, 2);
  CheckWalls("tetrahedra", tet, ttet, 2);
  {  // METIS on the dual graph
    int *xadj = NULL, *adj = NULL, *part = malloc(sizeof(int) * BlastMeshNumZones(tet));
    TEST_CALL(BlastTopologyDualGraph(ttet, &xadj, &adj));
    TEST_CALL(BlastPartitionGraph(MPI_COMM_WORLD, BLAST_PART_METIS, BlastMeshNumZones(tet), xadj,
                                  adj, 3, part, NULL));
    // Each part connected: a flood fill through the dual graph from its first zone.
    const int nz = BlastMeshNumZones(tet);
    int *seen = calloc(nz, sizeof(int)), *stack = malloc(sizeof(int) * nz), reached = 0;
    for (int p = 0; p < 3; p++) {
      int first = 0;
      while (first < nz && part[first] != p) first++;
      if (first == nz) continue;
      int top = 0;
      stack[top++] = first, seen[first] = 1;
      while (top) {
        const int z = stack[--top];
        reached++;
        for (int j = xadj[z]; j < xadj[z + 1]; j++)
          if (!seen[adj[j]] && part[adj[j]] == p) seen[adj[j]] = 1, stack[top++] = adj[j];
      }
    }
    TEST_ASSERT(reached == nz, "METIS parts: %d of %d zones reached from the parts' first zones",
                reached, nz);
    CheckParts("tetrahedra, METIS", tet, ttet, 2, 1, 3, part);
    free(seen), free(stack), free(part);
    BlastFree(&xadj);
    BlastFree(&adj);
  }
  // Triangles and quadrilaterals: every zone has the quadrilateral's 9 nodes (P2/Q2); a
  // triangle's last 3 repeat its node 0; every lattice point a dof; partitions as above.
  BlastSpace *s = NULL;
  TEST_CALL(BlastSpaceCreate(mix, tmix, 2, 1, 0, NULL, 0, &s));
  if (s) {
    int ntri = 0, bad_pad = 0;
    for (int z = 0; z < s->nz; z++) {
      if (BlastSpaceZoneGeom(s, z) != BLAST_GEOM_TRIANGLE) continue;
      ntri++;
      for (int a = 6; a < 9; a++) bad_pad += s->h1_edof[z * 9 + a] != s->h1_edof[z * 9];
    }
    TEST_ASSERT(s->mixed && s->h1_nd == 9 && s->l2_nd == 4 && ntri > 0 && ntri < s->nz,
                "mixed mesh: mixed %d, %d and %d dofs per zone, %d of %d zones triangles", s->mixed,
                s->h1_nd, s->l2_nd, ntri, s->nz);
    TEST_ASSERT(!bad_pad && s->h1_nl == s->h1_nglobal, "mixed mesh: %d bad padding, %d of %lld",
                bad_pad, s->h1_nl, (long long)s->h1_nglobal);
    BlastSpaceDestroy(&s);
  }
  CheckParts("mixed", mix, tmix, 2, 0, 3, NULL);
  CheckParts("mixed, refined in parallel", mix, tmix, 2, 1, 2, NULL);
  BlastTopologyDestroy(&ttri);
  BlastTopologyDestroy(&ttet);
  BlastTopologyDestroy(&tmix);
  BlastMeshDestroy(&tri);
  BlastMeshDestroy(&tet);
  BlastMeshDestroy(&mix);
  const int status = BlastTestFinish("test_space_simplex");
  MPI_Finalize();
  return status;
}
