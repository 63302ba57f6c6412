// H1/L2 spaces and geometry:
//  1. continuity: a smooth vector field interpolated zone by zone on refined, perturbed and
//     scrambled (random vertex numbering, random zone orientation) meshes gives one value
//     per shared dof, for orders 1-4 in 2D and 3D;
//  2. the number of H1 dofs equals (k nx + 1)(k ny + 1)(k nz + 1) on structured boxes,
//     with and without parallel refinement;
//  3. the total volume of the reference meshes from the high-order positions equals the
//     analytic value to 1e-13 for k = 1..4 and refinement 0..2;
//  4. the entries of the scalar H1 mass matrix with density 1 sum to the volume.
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blast_mpi.h"
#include "ddsum.h"
#include "hydro-impl.h"
#include "meshio.h"
#include "regression_common.h"
#include "space.h"
#include "testlib.h"

static double Field(const double *x, int c) {
  return sin(1.3 * x[0] + 0.7 * c) * cos(0.9 * x[1] - 0.2 * c) +
         (x[2] + 0.5) * exp(0.3 * x[0] * (c + 1));
}

static unsigned g_seed = 12345;
static double Rand(void) {
  g_seed = g_seed * 1103515245u + 12345u;
  return ((g_seed >> 8) & 0xffffff) / (double)0x1000000;
}

// Symmetries of the reference square/cube that keep the orientation (det +1): permute
// axes and flip some, with an even total number of transpositions + flips.
static int MapCorner(int dim, const int *perm, const int *flip, int corner) {
  int out = 0;
  for (int g = 0; g < dim; g++) {
    int bit = (corner >> perm[g]) & 1;
    if (flip[g]) bit ^= 1;
    out |= bit << g;
  }
  return out;
}

static int Parity(int dim, const int *perm, const int *flip) {
  int inv = 0, f = 0;
  for (int i = 0; i < dim; i++)
    for (int j = i + 1; j < dim; j++) inv += perm[i] > perm[j];
  for (int g = 0; g < dim; g++) f += flip[g];
  return (inv + f) % 2;
}

// A perturbed, renumbered, reoriented copy of an n^dim box mesh.
static int Scrambled(int dim, int n, BlastMesh *out) {
  int ne[3] = {n, n, n};
  double size[3] = {1, 1, 1};
  BlastMesh box;
  BlastCall(BlastMeshCreateBox(dim, ne, size, &box));
  const int nv = BlastMeshNumVertices(box), nz = BlastMeshNumZones(box),
            nb = BlastMeshNumBoundary(box);
  const int nc = 1 << dim, nf = 1 << (dim - 1);
  double *x = malloc(sizeof(double) * nv * dim);
  int *perm = malloc(sizeof(int) * nv), *zv = malloc(sizeof(int) * nz * nc),
      *bv = malloc(sizeof(int) * nb * nf);
  for (int v = 0; v < nv; v++) perm[v] = v;
  for (int v = nv - 1; v > 0; v--) {
    int j = (int)(Rand() * (v + 1)), t = perm[v];
    perm[v] = perm[j], perm[j] = t;
  }
  const double h = 1.0 / n;
  for (int v = 0; v < nv; v++) {
    const double *X = &BlastMeshCoords(box)[v * dim];
    for (int c = 0; c < dim; c++) {
      const int interior = X[c] > 1e-12 && X[c] < 1 - 1e-12;
      x[perm[v] * dim + c] = X[c] + (interior ? 0.2 * h * (Rand() - 0.5) : 0.0);
    }
  }
  for (int z = 0; z < nz; z++) {
    int p[3] = {0, 1, 2}, f[3] = {0, 0, 0};
    do {
      for (int g = dim - 1; g > 0; g--) {
        int j = (int)(Rand() * (g + 1)), t = p[g];
        p[g] = p[j], p[j] = t;
      }
      for (int g = 0; g < dim; g++) f[g] = Rand() < 0.5;
    } while (Parity(dim, p, f));
    for (int corner = 0; corner < nc; corner++)
      zv[z * nc + corner] = perm[BlastMeshZoneVerts(box)[z * nc + MapCorner(dim, p, f, corner)]];
  }
  for (int b = 0; b < nb * nf; b++) bv[b] = perm[BlastMeshBdrVerts(box)[b]];
  int ierr = BlastMeshCreate(dim, nv, x, nz, zv, NULL, nb, bv, BlastMeshBdrAttr(box), out);
  free(x), free(perm), free(zv), free(bv);
  BlastMeshDestroy(&box);
  return ierr;
}

static void Continuity(int dim) {
  BlastMesh m0, mesh;
  TEST_CALL(Scrambled(dim, dim == 3 ? 2 : 3, &m0));
  TEST_CALL(BlastMeshCheckJacobians(m0, 4));
  TEST_CALL(BlastMeshRefine(m0, 1, &mesh));
  BlastTopology *topo;
  TEST_CALL(BlastTopologyCreate(mesh, &topo));
  for (int k = 1; k <= 4; k++)
    for (int rp = 0; rp <= 1; rp++) {
      BlastSpace *s;
      TEST_CALL(BlastSpaceCreate(mesh, topo, k, k - 1, rp, NULL, 0, &s));
      double *val = malloc(sizeof(double) * s->h1_next * dim);
      char *set = calloc(s->h1_next, 1);
      double maxdiff = 0.0;
      int shared = 0;
      for (int z = 0; z < s->nz; z++)
        for (int a = 0; a < s->h1_nd; a++) {
          double xi[3], X[3] = {0, 0, 0};
          BlastSpaceNodeRef(s, z, a, xi);
          BlastMeshZoneMap(mesh, s->zone_macro[z], xi, X);
          const int l = s->h1_edof[z * s->h1_nd + a];
          for (int c = 0; c < dim; c++) {
            const double f = Field(X, c);
            if (set[l]) maxdiff = fmax(maxdiff, fabs(f - val[l * dim + c])), shared += c == 0;
            val[l * dim + c] = f;
          }
          set[l] = 1;
        }
      TEST_ASSERT(maxdiff < 1e-13, "%dD k=%d rp=%d: shared dofs disagree by %.2e", dim, k, rp,
                  maxdiff);
      TEST_ASSERT(shared > 0, "no shared dofs tested");
      printf("continuity %dD k=%d rp=%d: %d zones, %d dofs, %d shared visits, max diff %.1e\n", dim,
             k, rp, s->nz, s->h1_nl, shared, maxdiff);
      free(val), free(set);
      BlastSpaceDestroy(&s);
    }
  BlastTopologyDestroy(&topo);
  BlastMeshDestroy(&mesh);
  BlastMeshDestroy(&m0);
}

static void DofCounts(void) {
  const int boxes[][3] = {{3, 2, 1}, {2, 3, 2}, {1, 1, 4}};
  for (int dim = 1; dim <= 3; dim++)
    for (int b = 0; b < 3; b++) {
      double size[3] = {1, 2, 3};
      BlastMesh mesh;
      TEST_CALL(BlastMeshCreateBox(dim, boxes[b], size, &mesh));
      BlastTopology *topo;
      TEST_CALL(BlastTopologyCreate(mesh, &topo));
      for (int k = 1; k <= 4; k++)
        for (int rp = 0; rp <= 1; rp++) {
          BlastSpace *s;
          TEST_CALL(BlastSpaceCreate(mesh, topo, k, k - 1, rp, NULL, 0, &s));
          long long expect = 1;
          for (int g = 0; g < dim; g++) expect *= (long long)k * boxes[b][g] * (1 << rp) + 1;
          TEST_ASSERT(s->h1_nglobal == expect && s->h1_nl == expect,
                      "%dD box %dx%dx%d k=%d rp=%d: %lld dofs, expected %lld", dim, boxes[b][0],
                      boxes[b][1], boxes[b][2], k, rp, (long long)s->h1_nglobal, expect);
          BlastSpaceDestroy(&s);
        }
      BlastTopologyDestroy(&topo);
      BlastMeshDestroy(&mesh);
    }
}

// Volume from the high-order positions and the sum of the density-1 mass matrix.
static void Volumes(void) {
  const struct {
    const char *file;
    double volume;
  } meshes[] = {{"square01_quad.mesh", 1.0},
                {"cube01_hex.mesh", 1.0},
                {"rectangle01_quad.mesh", 21.0},
                {"box01_hex.mesh", 63.0}};
  for (int i = 0; i < 4; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", BLAST_MESH_DIR, meshes[i].file);
    BlastMesh m0;
    TEST_CALL(BlastMeshRead(path, &m0));
    for (int rs = 0; rs <= 2; rs++) {
      BlastMesh mesh;
      TEST_CALL(BlastMeshRefine(m0, rs, &mesh));
      for (int k = 1; k <= 4; k++)
        for (int pa = 0; pa < 2; pa++) {
          BlastConfig cfg;
          RegressionConfig(&cfg, BLAST_PROBLEM_TAYLOR_GREEN);  // rho0 = 1
          cfg.order_kinematic = k, cfg.order_thermo = k - 1;
          cfg.assembly = pa ? BLAST_ASSEMBLY_PARTIAL : BLAST_ASSEMBLY_FULL;
          BlastHydro h = NULL;
          TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
          if (!h) continue;
          // 1^T M 1: the sum of the matrix entries (full) or of the matrix-free product with
          // ones (partial). Up to ~1e7 entries: a plain sum would lose ~1e-10 to round-off,
          // so compensate.
          BlastDD acc = {0.0, 0.0};
          if (!pa) {
            for (int64_t j = 0; j < h->mv_rowptr[h->space->h1_nown]; j++)
              BlastDDAdd(&acc, h->mv_val[j]);
          } else {
            const int nown = h->space->h1_nown, next = h->space->h1_next;
            double *one = malloc(sizeof(double) * (size_t)next),
                   *y = malloc(sizeof(double) * (size_t)next);
            for (int j = 0; j < next; j++) one[j] = 1.0;
            TEST_CALL(h->ops->mass.mult(h->bctx, BLAST_ROWS_ALL, 1, 1u, one, y));
            for (int j = 0; j < nown; j++) BlastDDAdd(&acc, y[j]);
            free(one), free(y);
          }
          const double msum = acc.hi + acc.lo;
          TEST_CLOSE(h->volume0, meshes[i].volume, 1e-13);
          TEST_CLOSE(msum, meshes[i].volume, 1e-13);
          BlastHydroDestroy(&h);
        }
      BlastMeshDestroy(&mesh);
    }
    BlastMeshDestroy(&m0);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Continuity(2);
  Continuity(3);
  DofCounts();
  Volumes();
  int r = BlastTestFinish("test_space");
  MPI_Finalize();
  return r;
}
