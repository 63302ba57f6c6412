// The partitioner's multilevel path for large meshes (BlastPartitionGraph above
// BlastPartitionSetMultilevelMin) and the threaded dual graph:
//  (a) the dual graph of boxes of quadrilaterals, hexahedra, triangles and tetrahedra on
//      1 and 2 threads equals the serial sweep over the facets (neighbours in ascending
//      facet id), with the closed-form entry count 2 * interior facets;
//  (b) a box of 28^3 hexahedra and one of 6 * 12^3 tetrahedra, split into 2, 3 and 8 parts
//      through the multilevel path: the same parts on 1 and 2 threads; every part non-empty
//      and connected; at most 1.05 times the mean zones per part; the statistics' edge cut
//      and counts match a recount; the edge cut within 1.25 times METIS's on the whole
//      graph (and for 2 hexahedral parts within 1.25 times a plane's n^2).
// With --time N (not a ctest case): times the dual graph, METIS on the whole graph and the
// multilevel path on an N^3 box, and prints the edge cuts and imbalances.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meshio.h"
#include "partition.h"
#include "testlib.h"
#include "topology.h"

// The serial reference: every facet with two zones adds each to the other's list.
static void ReferenceDual(const BlastTopology *t, int *xadj, int *adj) {
  const int *off = t->dim == 2 ? t->edge_zoff : t->face_zoff;
  const int *zn = t->dim == 2 ? t->edge_zones : t->face_zones;
  for (int z = 0; z <= t->nzones; z++) xadj[z] = 0;
  for (int f = 0; f < t->nfacets; f++)
    if (off[f + 1] - off[f] == 2) xadj[zn[off[f]] + 1]++, xadj[zn[off[f] + 1] + 1]++;
  for (int z = 0; z < t->nzones; z++) xadj[z + 1] += xadj[z];
  int *fill = malloc(sizeof *fill * (size_t)(t->nzones + 1));
  for (int z = 0; z <= t->nzones; z++) fill[z] = xadj[z];
  for (int f = 0; f < t->nfacets; f++)
    if (off[f + 1] - off[f] == 2) {
      const int a = zn[off[f]], b = zn[off[f] + 1];
      adj[fill[a]++] = b, adj[fill[b]++] = a;
    }
  free(fill);
}

static int MakeBox(int simplex, int dim, int n, BlastMesh *mesh, BlastTopology **topo) {
  const int ns[3] = {n, n, n};
  const double size[3] = {1.0, 1.0, 1.0};
  BlastCall(simplex ? BlastMeshCreateBoxSimplex(dim, ns, size, mesh)
                    : BlastMeshCreateBox(dim, ns, size, mesh));
  BlastCall(BlastTopologyCreate(*mesh, topo));
  return 0;
}

static void CheckDual(int simplex, int dim, int n) {
  BlastMesh mesh = NULL;
  BlastTopology *t = NULL;
  TEST_CALL(MakeBox(simplex, dim, n, &mesh, &t));
  if (!t) return;
  // Interior facets: d n^{d-1} (n - 1) between boxes (2 triangles each between boxes of
  // tetrahedra), plus those inside each box (1 diagonal of a square, 6 faces of a cube).
  long long interior = (long long)dim * (dim == 2 ? n : (long long)n * n) * (n - 1);
  if (simplex && dim == 3) interior *= 2;
  if (simplex)
    interior += (long long)(dim == 2 ? 1 : 6) * (dim == 2 ? n * n : (long long)n * n * n);
  int *rx = malloc(sizeof *rx * (size_t)(t->nzones + 1)),
      *ra = malloc(sizeof *ra * (2 * interior + 1));
  ReferenceDual(t, rx, ra);
  for (int th = 1; th <= 2; th++) {
    omp_set_num_threads(th);
    int *xadj = NULL, *adj = NULL;
    TEST_CALL(BlastTopologyDualGraph(t, &xadj, &adj));
    if (!xadj) continue;
    TEST_ASSERT(xadj[t->nzones] == 2 * interior, "dim %d simplex %d: %d entries, expected %lld",
                dim, simplex, xadj[t->nzones], 2 * interior);
    TEST_ASSERT(!memcmp(xadj, rx, sizeof *rx * (size_t)(t->nzones + 1)) &&
                    !memcmp(adj, ra, sizeof *ra * (size_t)rx[t->nzones]),
                "dim %d simplex %d, %d threads: not the serial sweep's graph", dim, simplex, th);
    BlastFree(&xadj);
    BlastFree(&adj);
  }
  free(rx);
  free(ra);
  BlastTopologyDestroy(&t);
  BlastMeshDestroy(&mesh);
}

// Every part connected (breadth-first search inside each part).
static int PartsConnected(int n, const int *xadj, const int *adj, const int *part, int nparts) {
  int *seen = calloc((size_t)n, sizeof *seen), *queue = malloc(sizeof *queue * (size_t)n);
  int *started = calloc((size_t)nparts, sizeof *started), ok = 1;
  for (int s = 0; s < n && ok; s++) {
    if (seen[s]) continue;
    if (started[part[s]]) ok = 0;  // a second component of the same part
    started[part[s]] = 1;
    int head = 0, tail = 0;
    queue[tail++] = s, seen[s] = 1;
    while (head < tail) {
      const int v = queue[head++];
      for (int k = xadj[v]; k < xadj[v + 1]; k++)
        if (!seen[adj[k]] && part[adj[k]] == part[v]) seen[adj[k]] = 1, queue[tail++] = adj[k];
    }
  }
  for (int p = 0; p < nparts; p++) ok = ok && started[p];
  free(seen), free(queue), free(started);
  return ok;
}

static long long Cut(int n, const int *xadj, const int *adj, const int *part) {
  long long c = 0;
  for (int v = 0; v < n; v++)
    for (int k = xadj[v]; k < xadj[v + 1]; k++) c += part[adj[k]] != part[v];
  return c / 2;
}

static void CheckMultilevel(int simplex, int n) {
  BlastMesh mesh = NULL;
  BlastTopology *t = NULL;
  TEST_CALL(MakeBox(simplex, 3, n, &mesh, &t));
  if (!t) return;
  const int nz = t->nzones;
  int *xadj = NULL, *adj = NULL;
  TEST_CALL(BlastTopologyDualGraph(t, &xadj, &adj));
  int *p1 = malloc(sizeof *p1 * (size_t)nz), *p2 = malloc(sizeof *p2 * (size_t)nz);
  const int nps[3] = {2, 3, 8};
  for (int i = 0; i < 3 && xadj; i++) {
    const int np = nps[i];
    BlastPartStats st1 = {0}, st2 = {0}, sm = {0};
    TEST_CALL(BlastPartitionSetMultilevelMin(nz + 1));  // METIS on the whole graph
    TEST_CALL(BlastPartitionGraph(MPI_COMM_SELF, BLAST_PART_METIS, nz, xadj, adj, np, p1, &sm));
    TEST_CALL(BlastPartitionSetMultilevelMin(nz / 8));
    omp_set_num_threads(1);
    TEST_CALL(BlastPartitionGraph(MPI_COMM_SELF, BLAST_PART_METIS, nz, xadj, adj, np, p1, &st1));
    omp_set_num_threads(2);
    TEST_CALL(BlastPartitionGraph(MPI_COMM_SELF, BLAST_PART_METIS, nz, xadj, adj, np, p2, &st2));
    TEST_ASSERT(!memcmp(p1, p2, sizeof *p1 * (size_t)nz),
                "%s n=%d, %d parts: 1 and 2 threads differ", simplex ? "tet" : "hex", n, np);
    int *count = calloc((size_t)np, sizeof *count);
    for (int v = 0; v < nz; v++) count[p1[v]]++;
    int mx = 0;
    for (int p = 0; p < np; p++) mx = count[p] > mx ? count[p] : mx;
    free(count);
    const long long cut = Cut(nz, xadj, adj, p1);
    const double imb = mx / ((double)nz / np);
    TEST_ASSERT(imb <= 1.05, "%s n=%d, %d parts: imbalance %.4f", simplex ? "tet" : "hex", n, np,
                imb);
    TEST_ASSERT(st1.zones_max == mx && st1.edge_cut == cut && st1.nparts == np,
                "statistics: max %d cut %lld, recount %d %lld", st1.zones_max, st1.edge_cut, mx,
                cut);
    TEST_ASSERT(PartsConnected(nz, xadj, adj, p1, np),
                "%s n=%d, %d parts: a part is empty or split", simplex ? "tet" : "hex", n, np);
    TEST_ASSERT(cut <= 1.25 * sm.edge_cut, "%s n=%d, %d parts: edge cut %lld, METIS alone %lld",
                simplex ? "tet" : "hex", n, np, cut, sm.edge_cut);
    if (!simplex && np == 2)
      TEST_ASSERT(cut <= 1.25 * n * n, "hex n=%d, 2 parts: edge cut %lld, a plane cuts %d", n, cut,
                  n * n);
    printf("%s n=%d, %d parts: edge cut %lld (METIS alone %lld), imbalance %.4f (%.4f)\n",
           simplex ? "tet" : "hex", n, np, cut, sm.edge_cut, imb, sm.imbalance);
  }
  TEST_CALL(BlastPartitionSetMultilevelMin(200000));
  free(p1), free(p2);
  BlastFree(&xadj);
  BlastFree(&adj);
  BlastTopologyDestroy(&t);
  BlastMeshDestroy(&mesh);
}

static void Time(int n, int np) {
  BlastMesh mesh = NULL;
  BlastTopology *t = NULL;
  TEST_CALL(MakeBox(0, 3, n, &mesh, &t));
  if (!t) return;
  const int nz = t->nzones;
  int *xadj = NULL, *adj = NULL, *part = malloc(sizeof *part * (size_t)nz);
  double t0 = MPI_Wtime();
  TEST_CALL(BlastTopologyDualGraph(t, &xadj, &adj));
  printf("%d zones, %d parts, %d threads: dual graph %.3f s\n", nz, np, omp_get_max_threads(),
         MPI_Wtime() - t0);
  for (int ml = 0; ml < 2; ml++) {
    BlastPartStats st = {0};
    TEST_CALL(BlastPartitionSetMultilevelMin(ml ? 200000 : nz + 1));
    double best = 1e300;
    for (int rep = 0; rep < 3; rep++) {
      t0 = MPI_Wtime();
      TEST_CALL(BlastPartitionGraph(MPI_COMM_SELF, BLAST_PART_METIS, nz, xadj, adj, np, part, &st));
      const double dt = MPI_Wtime() - t0;
      best = dt < best ? dt : best;
    }
    printf("  %s: %.3f s (best of 3), edge cut %lld, imbalance %.4f\n",
           ml ? "multilevel" : "METIS alone", best, st.edge_cut, st.imbalance);
  }
  free(part);
  BlastFree(&xadj);
  BlastFree(&adj);
  BlastTopologyDestroy(&t);
  BlastMeshDestroy(&mesh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc >= 3 && !strcmp(argv[1], "--time")) {
    Time(atoi(argv[2]), argc >= 4 ? atoi(argv[3]) : 2);
  } else {
    CheckDual(0, 2, 9);
    CheckDual(1, 2, 7);
    CheckDual(0, 3, 6);
    CheckDual(1, 3, 5);
    CheckMultilevel(0, 28);
    CheckMultilevel(1, 12);
  }
  const int r = BlastTestFinish("test_partition_multilevel");
  MPI_Finalize();
  return r;
}
