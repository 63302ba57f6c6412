// Visualization dumps on a mesh of triangles and quadrilaterals (io/viz.h): the unit square
// of 4 x 4 quadrilaterals whose lower half is split into triangles (16 triangles, 8
// quadrilaterals), Taylor-Green at k = 2 and 3 (H1 order k, L2 order k - 1) with
// viz_refine = k and k + 1, dumps at t = 0 and after a few steps, read back (every rank its
// own block) and compared with the state:
//   - /topology is XDMF's Mixed list: each zone's refine^2 sub-cells in turn, each the type
//     number of the zone's geometry (4 triangle, 5 quadrilateral) and its 3 or 4 vertices,
//     all among the zone's own vertices ((r+1)(r+2)/2 or (r+1)^2), positive area, and at
//     t = 0 (straight zones) their areas add up to the zone's (from its mesh corners);
//   - every vertex (the zone's reference points i/refine in lattice order) holds the
//     position, velocity, energy and density (rho0 det J0 / det J) of the zone's own basis
//     (BlastH1BasisEval / BlastL2BasisEval of its tables), and the vertices on H1 nodes the
//     nodal dofs bit for bit;
//   - the .vtu piece of the rank: one cell per zone of type 69 (triangle) or 70
//     (quadrilateral) with the zone's own (k+1)(k+2)/2 or (k+1)^2 nodes (no padding), the
//     points those of the HDF5 file (viz_refine = k).
// Usage (mpirun -n 1 or 2): test_viz_mixed SCRATCH_DIR
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blast_hdf5.h"
#include "blast_mpi.h"
#include "meshio.h"
#include "regression_common.h"
#include "split_quads.h"
#include "testlib.h"
#include "viz.h"
#include "viz_read.h"

static double Det2(const double *J) {
  return J[0] * J[3] - J[1] * J[2];
}

static double TriArea(const double *a, const double *b, const double *c) {
  return 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
}

// The reference point p of a zone's points of order r (lattice order, fem/geom.h).
static void RefPoint(int tri, int r, int p, double *xi) {
  for (int j = 0, q = 0; j <= r; j++)
    for (int i = 0; i <= (tri ? r - j : r); i++, q++)
      if (q == p) xi[0] = (double)i / r, xi[1] = (double)j / r;
}

typedef struct {
  long long nv, nc, nt, voff, coff, toff, nvg, ncg, ntg;
} Sizes;

static void SizesOf(MPI_Comm comm, const BlastSpace *s, int r, Sizes *S) {
  long long loc[3] = {0, 0, 0};
  for (int z = 0; z < s->nz; z++) {
    const int tri = BlastSpaceZoneGeom(s, z) == BLAST_GEOM_TRIANGLE;
    loc[0] += tri ? (r + 1) * (r + 2) / 2 : (r + 1) * (r + 1);
    loc[1] += r * r;
    loc[2] += r * r * (tri ? 4 : 5);
  }
  long long off[3] = {0, 0, 0}, glob[3];
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Exscan(loc, off, 3, MPI_LONG_LONG, MPI_SUM, comm);
  if (!rank) off[0] = off[1] = off[2] = 0;
  MPI_Allreduce(loc, glob, 3, MPI_LONG_LONG, MPI_SUM, comm);
  *S = (Sizes){loc[0], loc[1], loc[2], off[0], off[1], off[2], glob[0], glob[1], glob[2]};
}

// The dump `path` made with `refine` against the state of h; initial: t = 0.
static void CheckDump(MPI_Comm comm, BlastHydro h, const char *path, int r, int initial,
                      double **Xout) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const BlastSpace *s = BlastHydroGetSpace(h);
  const double *x0 = BlastHydroGetInitialPositions(h);
  const int nd = s->h1_nd, ne = s->l2_nd, nl = s->h1_nl, nz = s->nz;
  Sizes S;
  SizesOf(comm, s, r, &S);
  TEST_ASSERT(S.ncg == s->nz_global * r * r, "%lld sub-cells", S.ncg);
  double *x = NULL, *v = NULL, *e = NULL, *X = NULL, *V = NULL, *rho = NULL, *ev = NULL;
  long long *topo = NULL, *zone = NULL;
  int *attr = NULL, *rk = NULL;
  TEST_CALL(BlastMalloc(2 * (size_t)nl, &x));
  TEST_CALL(BlastMalloc(2 * (size_t)nl, &v));
  TEST_CALL(BlastMalloc((size_t)nz * ne, &e));
  TEST_CALL(BlastHydroGetState(h, x, v, e));
  TEST_CALL(BlastMalloc(3 * S.nv, &X));
  TEST_CALL(BlastMalloc(3 * S.nv, &V));
  TEST_CALL(BlastMalloc(S.nv, &rho));
  TEST_CALL(BlastMalloc(S.nv, &ev));
  TEST_CALL(BlastMalloc(S.nt, &topo));
  TEST_CALL(BlastMalloc(S.nc, &zone));
  TEST_CALL(BlastMalloc(S.nc, &attr));
  TEST_CALL(BlastMalloc(S.nc, &rk));
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  TEST_ASSERT(f >= 0, "cannot open %s", path);
  if (f < 0) return;
  const hid_t D = H5T_NATIVE_DOUBLE;
  TEST_CALL(ReadRows(f, "coordinates", D, S.nvg, 3, S.voff, S.nv, X));
  TEST_CALL(ReadRows(f, "velocity", D, S.nvg, 3, S.voff, S.nv, V));
  TEST_CALL(ReadRows(f, "density", D, S.nvg, 0, S.voff, S.nv, rho));
  TEST_CALL(ReadRows(f, "specific_internal_energy", D, S.nvg, 0, S.voff, S.nv, ev));
  TEST_CALL(ReadRows(f, "topology", H5T_NATIVE_LLONG, S.ntg, 0, S.toff, S.nt, topo));
  TEST_CALL(ReadRows(f, "zone", H5T_NATIVE_LLONG, S.ncg, 0, S.coff, S.nc, zone));
  TEST_CALL(ReadRows(f, "attribute", H5T_NATIVE_INT, S.ncg, 0, S.coff, S.nc, attr));
  TEST_CALL(ReadRows(f, "rank", H5T_NATIVE_INT, S.ncg, 0, S.coff, S.nc, rk));
  H5Fclose(f);
  const int *mattr = BlastMeshZoneAttr(BlastHydroGetMesh(h));
  long long pv = 0, pc = 0, pt = 0;  // this zone's first vertex, cell, topology entry
  int bad_node = 0, bad_val = 0, bad_cell = 0, nodes = 0, ntri = 0;
  double err = 0.0, err_area = 0.0;
  for (int z = 0; z < nz; z++) {
    const int tri = BlastSpaceZoneGeom(s, z) == BLAST_GEOM_TRIANGLE;
    ntri += tri;
    const BlastTensorTables *tab = BlastHydroGetZoneTables(h, z);
    const int *edof = &s->h1_edof[(size_t)z * nd];
    const int nvz = tri ? (r + 1) * (r + 2) / 2 : (r + 1) * (r + 1);
    const int k = s->k;
    for (int p = 0; p < nvz; p++) {
      double xi[2], val[81], grad[162], psi[81];
      RefPoint(tri, r, p, xi);
      BlastH1BasisEval(tab, xi, val, grad);
      BlastL2BasisEval(tab, xi, psi);
      double P[2] = {0, 0}, W[2] = {0, 0}, J[4] = {0}, J0[4] = {0}, E = 0.0, Es = 0.0;
      for (int a = 0; a < nd; a++)
        for (int c = 0; c < 2; c++) {
          P[c] += val[a] * x[(size_t)c * nl + edof[a]];
          W[c] += val[a] * v[(size_t)c * nl + edof[a]];
          for (int g = 0; g < 2; g++) {
            J[c * 2 + g] += x[(size_t)c * nl + edof[a]] * grad[a * 2 + g];
            J0[c * 2 + g] += x0[(size_t)c * nl + edof[a]] * grad[a * 2 + g];
          }
        }
      for (int j = 0; j < ne; j++)
        E += psi[j] * e[(size_t)z * ne + j], Es += fabs(psi[j] * e[(size_t)z * ne + j]);
      const size_t vi = (size_t)(pv + p);
      // on an H1 node (the lattice of order k): the dof itself
      const int i = (int)lround(xi[0] * r), j = (int)lround(xi[1] * r);
      if ((i * k) % r == 0 && (j * k) % r == 0) {
        const int ik = i * k / r, jk = j * k / r;
        int a = -1;
        if (tri) {  // lattice index of (ik, jk) of order k
          a = ik;
          for (int jj = 0; jj < jk; jj++) a += k - jj + 1;
        } else {
          a = ik + jk * (k + 1);
        }
        nodes++;
        for (int c = 0; c < 2; c++)
          if (X[3 * vi + c] != x[(size_t)c * nl + edof[a]] ||
              V[3 * vi + c] != v[(size_t)c * nl + edof[a]])
            bad_node++;
      }
      const double want_rho = Det2(J0) / Det2(J);  // Taylor-Green: rho0 = 1
      for (int c = 0; c < 2; c++) {
        err = fmax(err, fabs(X[3 * vi + c] - P[c]));
        if (fabs(X[3 * vi + c] - P[c]) > 1e-14 || fabs(V[3 * vi + c] - W[c]) > 1e-13) bad_val++;
      }
      if (X[3 * vi + 2] != 0.0 || V[3 * vi + 2] != 0.0 ||
          (initial ? rho[vi] != 1.0 : fabs(rho[vi] - want_rho) > 1e-12) ||
          fabs(ev[vi] - E) > 1e-14 * Es + 1e-300)
        bad_val++;
    }
    double area = 0.0;
    for (int c = 0; c < r * r; c++) {
      const long long *T = &topo[pt];
      const int ncv = tri ? 3 : 4;
      if (T[0] != (tri ? 4 : 5)) bad_cell++;
      double Q[4][3];
      for (int q = 0; q < ncv; q++) {
        const long long vl = T[1 + q] - S.voff;
        if (vl < pv || vl >= pv + nvz) bad_cell++;
        const long long vv = vl < 0 || vl >= S.nv ? 0 : vl;
        for (int g = 0; g < 3; g++) Q[q][g] = X[3 * vv + g];
      }
      const double A = TriArea(Q[0], Q[1], Q[2]) + (tri ? 0.0 : TriArea(Q[0], Q[2], Q[3]));
      if (!(A > 0)) bad_cell++;
      area += A;
      const size_t ci = (size_t)(pc + c);
      if (zone[ci] != s->zone_gid[z] || attr[ci] != mattr[s->zone_macro[z]] ||
          attr[ci] != (tri ? 2 : 1) || rk[ci] != rank)
        bad_cell++;
      pt += 1 + ncv;
    }
    if (initial) {  // the straight zone's own area, from its mesh corners
      double C[4][3];
      for (int q = 0; q < (tri ? 3 : 4); q++) BlastSpaceZoneCorner(s, z, q, C[q]);
      const double want =
          tri ? TriArea(C[0], C[1], C[2]) : TriArea(C[0], C[1], C[3]) + TriArea(C[0], C[3], C[2]);
      err_area = fmax(err_area, fabs(area - want));
    }
    pv += nvz, pc += r * r;
  }
  TEST_ASSERT(pt == S.nt, "topology entries %lld, want %lld", pt, S.nt);
  TEST_ASSERT(nodes >= 3 * nz, "only %d vertices on nodes", nodes);
  TEST_ASSERT(bad_node == 0, "%s: %d node values differ from the dofs", path, bad_node);
  TEST_ASSERT(bad_val == 0, "%s: %d vertices with wrong values (position error %.3g)", path,
              bad_val, err);
  TEST_ASSERT(bad_cell == 0, "%s: %d bad sub-cells", path, bad_cell);
  TEST_ASSERT(err_area < 1e-15, "%s: sub-cell areas off the zones' by %.3g", path, err_area);
  printf(
      "  rank %d %s: %d zones (%d triangles), %lld vertices, %lld cells, %d on nodes, "
      "position error %.2g, area error %.2g\n",
      rank, path, nz, ntri, S.nv, S.nc, nodes, err, err_area);
  BlastFree(&x), BlastFree(&v), BlastFree(&e), BlastFree(&V), BlastFree(&rho), BlastFree(&ev);
  BlastFree(&topo), BlastFree(&zone), BlastFree(&attr), BlastFree(&rk);
  if (Xout)
    *Xout = X;
  else
    BlastFree(&X);
}

// The appended data block of the array whose XML element carries `name`.
static const char *Block(const char *xml, const char *data, const char *name, uint64_t *bytes) {
  const char *tag = strstr(xml, name);
  const char *o = tag ? strstr(tag, "offset=\"") : NULL;
  if (!o) return NULL;
  const char *blk = data + strtoull(o + 8, NULL, 10);
  memcpy(bytes, blk, sizeof *bytes);
  return blk + sizeof *bytes;
}

// This rank's .vtu piece of dump 0 in dir (viz_refine = k) against the HDF5 vertices X.
static void CheckPiece(MPI_Comm comm, BlastHydro h, const char *dir, const double *X) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const BlastSpace *s = BlastHydroGetSpace(h);
  char path[600];
  snprintf(path, sizeof path, "%s/viz_000000_p%06d.vtu", dir, rank);
  FILE *fp = fopen(path, "rb");
  TEST_ASSERT(fp != NULL, "cannot open %s", path);
  if (!fp) return;
  char *buf = malloc(1 << 22);
  const size_t n = fread(buf, 1, (1 << 22) - 1, fp);
  fclose(fp);
  buf[n] = '\0';
  const char *us = strstr(buf, "<AppendedData");
  us = us ? strchr(us, '_') : NULL;
  long long np = -1, nc = -1;
  const char *pc = strstr(buf, "<Piece ");
  TEST_ASSERT(
      us && pc &&
          sscanf(pc, "<Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\"", &np, &nc) == 2,
      "%s: no piece or appended data", path);
  if (!us || np < 0) {
    free(buf);
    return;
  }
  const char *data = us + 1;
  long long want_np = 0;
  for (int z = 0; z < s->nz; z++) want_np += BlastSpaceZoneNumNodes(s, z, s->k);
  TEST_ASSERT(np == want_np && nc == s->nz, "%s: %lld points, %lld cells; want %lld, %d", path, np,
              nc, want_np, s->nz);
  uint64_t b[4] = {0, 0, 0, 0};
  const char *pts_tag = strstr(buf, "<Points>");
  // The appended blocks are not aligned in the file: each copied to its own buffer.
  const void *raw[4] = {Block(pts_tag ? pts_tag : buf, data, "Float64", &b[0]),
                        Block(buf, data, "Name=\"connectivity\"", &b[1]),
                        Block(buf, data, "Name=\"offsets\"", &b[2]),
                        Block(buf, data, "Name=\"types\"", &b[3])};
  void *al[4] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < 4; i++)
    if (raw[i] && b[i] <= (uint64_t)(buf + n - (const char *)raw[i]) && (al[i] = malloc(b[i] + 8)))
      memcpy(al[i], raw[i], b[i]);
  const double *P = al[0];
  const int64_t *conn = al[1], *offs = al[2];
  const uint8_t *types = al[3];
  int bad = 0;
  if (P && conn && offs && types && b[0] == 24 * (uint64_t)np && b[2] == 8 * (uint64_t)nc &&
      b[1] == 8 * (uint64_t)np) {
    long long p0 = 0;
    for (int z = 0; z < s->nz; z++) {
      const int tri = BlastSpaceZoneGeom(s, z) == BLAST_GEOM_TRIANGLE;
      const int nn = BlastSpaceZoneNumNodes(s, z, s->k);
      if (types[z] != (tri ? 69 : 70) || offs[z] != p0 + nn) bad++;
      int seen[64] = {0};
      for (int a = 0; a < nn; a++) {  // the zone's own points, each once
        const long long q = conn[p0 + a] - p0;
        if (q < 0 || q >= nn || seen[q]++) bad++;
      }
      for (long long q = p0; q < p0 + nn; q++)
        for (int g = 0; g < 3; g++)
          if (P[3 * q + g] != X[3 * q + g]) bad++;
      p0 += nn;
    }
  } else {
    bad = -1;
  }
  TEST_ASSERT(bad == 0, "%s: %d bad cells or points (-1: arrays missing)", path, bad);
  printf("  rank %d %s: %lld points, %lld cells (types 69/70, own nodes)\n", rank, path, np, nc);
  for (int i = 0; i < 4; i++) free(al[i]);
  free(buf);
}

// Order k: dumps with refine = k (both formats) and refine = k + 1 (XDMF), at t = 0 and
// after the run; the latter continued.
static void RunCase(BlastMesh mesh, int k, const char *scratch) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  BlastConfig cfg;
  RegressionConfig(&cfg, BLAST_PROBLEM_TAYLOR_GREEN);
  cfg.order_kinematic = k, cfg.order_thermo = k - 1;
  cfg.t_final = 0.02;
  cfg.print_every = 1 << 30;
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, MPI_COMM_WORLD, &blast_backend_cpu, &h));
  const int r = k + 1;
  char dk[512], dr[512], path[600];
  snprintf(dk, sizeof dk, "%s/mixed_k%d_r%d", scratch, k, k);
  snprintf(dr, sizeof dr, "%s/mixed_k%d_r%d", scratch, k, r);
  BlastViz vk = NULL, vr = NULL;
  TEST_CALL(BlastVizCreateWith(MPI_COMM_WORLD, h, dk, k, BLAST_VIZ_XDMF | BLAST_VIZ_VTU, &vk));
  TEST_CALL(BlastVizCreateWith(MPI_COMM_WORLD, h, dr, r, BLAST_VIZ_XDMF, &vr));
  if (h && vk && vr) {
    TEST_CALL(BlastVizWrite(vk, 0, 0.0));
    TEST_CALL(BlastVizWrite(vr, 0, 0.0));
    double *X = NULL;
    CheckDump(MPI_COMM_WORLD, h, BlastVizLastPath(vk), k, 1, &X);
    if (X) CheckPiece(MPI_COMM_WORLD, h, dk, X);
    BlastFree(&X);
    CheckDump(MPI_COMM_WORLD, h, BlastVizLastPath(vr), r, 1, NULL);
    TEST_CALL(BlastHydroRun(h, NULL, NULL));
    double t, dt;
    int steps, attempts;
    BlastHydroGetProgress(h, &t, &dt, &steps, &attempts);
    TEST_CALL(BlastVizWrite(vr, steps, t));
    CheckDump(MPI_COMM_WORLD, h, BlastVizLastPath(vr), r, 0, NULL);
    // A continued series keeps the mixed dumps (their 1D /topology).
    TEST_CALL(BlastVizDestroy(&vr));
    TEST_CALL(BlastVizCreateWith(MPI_COMM_WORLD, h, dr, r, BLAST_VIZ_XDMF, &vr));
    TEST_ASSERT(BlastVizCount(vr) == 2, "continued mixed series: %d dumps, want 2",
                BlastVizCount(vr));
    snprintf(path, sizeof path, "%s/blast.xdmf", dr);
    if (!rank) {
      // 16 triangles and 8 quadrilaterals of r^2 sub-cells, each 1 + 3 or 1 + 4 entries
      char want_cells[128], want_len[128], text[8192];
      snprintf(want_cells, sizeof want_cells, "TopologyType=\"Mixed\" NumberOfElements=\"%d\"",
               24 * r * r);
      snprintf(want_len, sizeof want_len, "<DataItem Dimensions=\"%d\" NumberType=\"Int\"",
               16 * r * r * 4 + 8 * r * r * 5);
      FILE *fp = fopen(path, "r");
      const size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
      if (fp) fclose(fp);
      text[n] = '\0';
      TEST_ASSERT(strstr(text, want_cells) && strstr(text, want_len), "%s: no '%s' or '%s'", path,
                  want_cells, want_len);
    }
  }
  TEST_CALL(BlastVizDestroy(&vk));
  TEST_CALL(BlastVizDestroy(&vr));
  TEST_CALL(BlastHydroDestroy(&h));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  BlastErrorSetRank(rank);
  const char *scratch = argc > 1 ? argv[1] : "viz_mixed_scratch";
  BlastMesh box = NULL, mesh = NULL;
  const int nn[2] = {4, 4};
  const double size[2] = {1.0, 1.0};
  TEST_CALL(BlastMeshCreateBox(2, nn, size, &box));
  TEST_CALL(SplitQuads(box, 8, 2, &mesh));
  // k = 2 and 3 (a quadrilateral of a mixed mesh has equispaced nodes, fem/space.h)
  for (int k = 2; k <= 3; k++) RunCase(mesh, k, scratch);
  TEST_CALL(BlastMeshDestroy(&mesh));
  TEST_CALL(BlastMeshDestroy(&box));
  int fails = blast_test_failures, total;
  MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  blast_test_failures = total;
  const int status = rank ? (total != 0) : BlastTestFinish("test_viz_mixed");
  MPI_Finalize();
  return status;
}
