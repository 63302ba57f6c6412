// Visualization dumps (io/viz.h): a 1D Sod, a 2D Sedov and a 3D Sedov run write
// dumps at t = 0, from the step callback in mid-run and at the end; each dump is read back
// (every rank its own block) and compared with the state:
//   - sub-cell vertices that lie on GLL nodes (the zone corners always) hold exactly the
//     nodal positions and velocities; every vertex holds sum_a phi_a(xi) x_a computed here
//     with BlastH1BasisEval (equispaced reference points i/refine);
//   - energy, density (rho0 det J0 / det J), pressure and sound speed at every vertex; at
//     t = 0 the density is exactly rho0 of the zone, also on both sides of Sod's interface;
//   - topology: global vertex ids of each sub-cell in VTK order, positive area (2D) or
//     volume (3D) of the sub-cells; material, rank and zone id of every cell;
//   - attributes; the time series: count, restart (dumps after the current step are
//     deleted, a dump at the same step is replaced).
// The last case's folder is left for test_viz_files.py and test_viz_tools.py.
// Usage (mpirun -n 1 or 3): test_viz SCRATCH_DIR
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "blast_hdf5.h"
#include "blast_mpi.h"
#include "io_test_meshes.h"
#include "regression_common.h"
#include "testlib.h"
#include "viz.h"
#include "viz_read.h"

enum { BOTH = BLAST_VIZ_XDMF | BLAST_VIZ_VTU };

typedef struct {
  const char *name;
  int dim, n, problem, k, refine;
  double t_final;
  int mid_step;  // accepted step at which the callback writes a dump
} Case;

// ---------------------------------------------------------------------------------------
// Reading a dump back (serial HDF5, this rank's rows only)

static int ReadAttr(hid_t f, const char *name, hid_t type, void *v) {
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  BlastCallHDF5(a);
  BlastCallHDF5(H5Aread(a, type, v));
  BlastCallHDF5(H5Aclose(a));
  return 0;
}

typedef struct {
  double *X, *V, *rho, *e, *p, *cs;
  long long *topo, *zone;
  int *mat, *attr, *rank;
} Dump;

static void DumpFree(Dump *d) {
  BlastFree(&d->X), BlastFree(&d->V), BlastFree(&d->rho), BlastFree(&d->e);
  BlastFree(&d->p), BlastFree(&d->cs), BlastFree(&d->topo), BlastFree(&d->zone);
  BlastFree(&d->mat), BlastFree(&d->attr), BlastFree(&d->rank);
}

// ---------------------------------------------------------------------------------------
// The check of one dump against the state of h

static double Det(int dim, const double *J) {
  if (dim == 1) return J[0];
  if (dim == 2) return J[0] * J[3] - J[1] * J[2];
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}

// Signed area of a quadrilateral (shoelace) or volume of a hexahedron (VTK order) from the
// 12 tetrahedra of its face-centre decomposition (exact for planar faces; sign check only).
static double CellMeasure(int dim, const double (*P)[3]) {
  if (dim == 1) return P[1][0] - P[0][0];
  if (dim == 2) {
    double a = 0.0;
    for (int i = 0; i < 4; i++) a += P[i][0] * P[(i + 1) % 4][1] - P[(i + 1) % 4][0] * P[i][1];
    return 0.5 * a;
  }
  static const int faces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                  {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};  // outward
  double c[3] = {0, 0, 0}, vol = 0.0;
  for (int i = 0; i < 8; i++)
    for (int g = 0; g < 3; g++) c[g] += P[i][g] / 8;
  for (int f = 0; f < 6; f++) {
    double fc[3] = {0, 0, 0};
    for (int i = 0; i < 4; i++)
      for (int g = 0; g < 3; g++) fc[g] += P[faces[f][i]][g] / 4;
    for (int i = 0; i < 4; i++) {
      const double *a = P[faces[f][i]], *b = P[faces[f][(i + 1) % 4]];
      double u[3], w[3], z[3];
      for (int g = 0; g < 3; g++) u[g] = a[g] - c[g], w[g] = b[g] - c[g], z[g] = fc[g] - c[g];
      vol += (u[0] * (w[1] * z[2] - w[2] * z[1]) - u[1] * (w[0] * z[2] - w[2] * z[0]) +
              u[2] * (w[0] * z[1] - w[1] * z[0])) /
             6.0;
    }
  }
  return vol;
}

static void CheckDump(MPI_Comm comm, BlastHydro h, const char *path, int refine, int step, double t,
                      int initial) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const BlastSpace *s = BlastHydroGetSpace(h);
  const BlastTensorTables *tab = BlastHydroGetTables(h);
  const BlastProblem *prob = BlastHydroGetProblem(h);
  const int *attr = BlastMeshZoneAttr(BlastHydroGetMesh(h));
  const double *x0 = BlastHydroGetInitialPositions(h);
  const int dim = s->dim, nd = s->h1_nd, ne = s->l2_nd, nl = s->h1_nl, nz = s->nz;
  const int np1 = refine + 1, ncv = 1 << dim;
  int nvz = 1, ncz = 1;
  for (int g = 0; g < dim; g++) nvz *= np1, ncz *= refine;
  long long nv = (long long)nz * nvz, nc = (long long)nz * ncz, voff = 0, coff = 0, nvg, ncg;
  MPI_Exscan(&nv, &voff, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Exscan(&nc, &coff, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (!rank) voff = coff = 0;
  MPI_Allreduce(&nv, &nvg, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(&nc, &ncg, 1, MPI_LONG_LONG, MPI_SUM, comm);
  TEST_ASSERT(nvg == s->nz_global * nvz && ncg == s->nz_global * ncz, "global sizes");

  double *x = NULL, *v = NULL, *e = NULL;
  TEST_CALL(BlastMalloc((size_t)dim * nl, &x));
  TEST_CALL(BlastMalloc((size_t)dim * nl, &v));
  TEST_CALL(BlastMalloc((size_t)nz * ne, &e));
  TEST_CALL(BlastHydroGetState(h, x, v, e));
  Dump D = {0};
  TEST_CALL(BlastMalloc(3 * nv, &D.X));
  TEST_CALL(BlastMalloc(3 * nv, &D.V));
  TEST_CALL(BlastMalloc(nv, &D.rho));
  TEST_CALL(BlastMalloc(nv, &D.e));
  TEST_CALL(BlastMalloc(nv, &D.p));
  TEST_CALL(BlastMalloc(nv, &D.cs));
  TEST_CALL(BlastMalloc(nc * ncv, &D.topo));
  TEST_CALL(BlastMalloc(nc, &D.zone));
  TEST_CALL(BlastMalloc(nc, &D.mat));
  TEST_CALL(BlastMalloc(nc, &D.attr));
  TEST_CALL(BlastMalloc(nc, &D.rank));
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  TEST_ASSERT(f >= 0, "cannot open %s", path);
  if (f < 0) return;
  const hid_t Dbl = H5T_NATIVE_DOUBLE;
  TEST_CALL(ReadRows(f, "coordinates", Dbl, nvg, 3, voff, nv, D.X));
  TEST_CALL(ReadRows(f, "velocity", Dbl, nvg, 3, voff, nv, D.V));
  TEST_CALL(ReadRows(f, "density", Dbl, nvg, 0, voff, nv, D.rho));
  TEST_CALL(ReadRows(f, "specific_internal_energy", Dbl, nvg, 0, voff, nv, D.e));
  TEST_CALL(ReadRows(f, "pressure", Dbl, nvg, 0, voff, nv, D.p));
  TEST_CALL(ReadRows(f, "sound_speed", Dbl, nvg, 0, voff, nv, D.cs));
  TEST_CALL(ReadRows(f, "topology", H5T_NATIVE_LLONG, ncg, ncv, coff, nc, D.topo));
  TEST_CALL(ReadRows(f, "zone", H5T_NATIVE_LLONG, ncg, 0, coff, nc, D.zone));
  TEST_CALL(ReadRows(f, "material", H5T_NATIVE_INT, ncg, 0, coff, nc, D.mat));
  TEST_CALL(ReadRows(f, "attribute", H5T_NATIVE_INT, ncg, 0, coff, nc, D.attr));
  TEST_CALL(ReadRows(f, "rank", H5T_NATIVE_INT, ncg, 0, coff, nc, D.rank));
  double ft = NAN;
  long long fstep = -1, fdim = 0, frefine = 0;
  TEST_CALL(ReadAttr(f, "time", H5T_NATIVE_DOUBLE, &ft));
  TEST_CALL(ReadAttr(f, "step", H5T_NATIVE_LLONG, &fstep));
  TEST_CALL(ReadAttr(f, "dim", H5T_NATIVE_LLONG, &fdim));
  TEST_CALL(ReadAttr(f, "refine", H5T_NATIVE_LLONG, &frefine));
  H5Fclose(f);
  TEST_ASSERT(ft == t && fstep == step && fdim == dim && frefine == refine,
              "attributes time %g step %lld dim %lld refine %lld, want %g %d %d %d", ft, fstep,
              fdim, frefine, t, step, dim, refine);

  // Every vertex against an independent evaluation of the high-order fields.
  double val[729], grad[3 * 729], psi[729];
  int bad_node = 0, bad_pos = 0, bad_fields = 0, bad_cells = 0, nodes_checked = 0;
  double err_pos = 0.0, err_rho = 0.0;
  for (int z = 0; z < nz; z++) {
    const int *edof = &s->h1_edof[(size_t)z * nd];
    const double center[3] = {0.5, 0.5, 0.5};
    double Xc[3] = {0, 0, 0};
    BlastH1BasisEval(tab, center, val, NULL);
    for (int a = 0; a < nd; a++)
      for (int c = 0; c < dim; c++) Xc[c] += val[a] * x0[(size_t)c * nl + edof[a]];
    const double gamma = BlastProblemGamma(prob, Xc), rho0 = BlastProblemRho0(prob, Xc);
    for (int p = 0; p < nvz; p++) {
      const int ip[3] = {p % np1, (p / np1) % np1, p / (np1 * np1)};
      double xi[3] = {0, 0, 0};
      for (int g = 0; g < dim; g++) xi[g] = (double)ip[g] / refine;
      BlastH1BasisEval(tab, xi, val, grad);
      BlastL2BasisEval(tab, xi, psi);
      const size_t vi = (size_t)z * nvz + p;
      const double *Xf = &D.X[3 * vi], *Vf = &D.V[3 * vi];
      // The vertex on a GLL node: the nodal dof itself, bit for bit.
      int node = 0, stride = 1, on_node = 1;
      for (int g = 0; g < dim; g++, stride *= tab->k + 1) {
        int a = -1;
        for (int b = 0; b <= tab->k; b++)
          if (xi[g] == tab->h1_nodes[b]) a = b;
        if (a < 0) on_node = 0;
        node += (a < 0 ? 0 : a) * stride;
      }
      if (on_node) {
        nodes_checked++;
        for (int c = 0; c < dim; c++)
          if (Xf[c] != x[(size_t)c * nl + edof[node]] || Vf[c] != v[(size_t)c * nl + edof[node]])
            bad_node++;
      }
      double X[3] = {0, 0, 0}, V[3] = {0, 0, 0}, J[9] = {0}, J0[9] = {0}, ev = 0.0, escale = 0.0;
      for (int a = 0; a < nd; a++)
        for (int c = 0; c < dim; c++) {
          const double xa = x[(size_t)c * nl + edof[a]], x0a = x0[(size_t)c * nl + edof[a]];
          X[c] += val[a] * xa;
          V[c] += val[a] * v[(size_t)c * nl + edof[a]];
          for (int g = 0; g < dim; g++) {
            J[c * dim + g] += xa * grad[a * dim + g];
            J0[c * dim + g] += x0a * grad[a * dim + g];
          }
        }
      for (int j = 0; j < ne; j++) {
        ev += psi[j] * e[(size_t)z * ne + j];
        escale += fabs(psi[j] * e[(size_t)z * ne + j]);
      }
      for (int c = 0; c < 3; c++) {
        const double want = c < dim ? X[c] : 0.0, d = fabs(Xf[c] - want);
        err_pos = fmax(err_pos, d);
        if (d > 1e-14 || (c >= dim && (Xf[c] != 0.0 || Vf[c] != 0.0))) bad_pos++;
        if (c < dim && fabs(Vf[c] - V[c]) > 1e-13 * (1.0 + fabs(V[c]))) bad_pos++;
      }
      const double rho = initial ? rho0 : rho0 * (Det(dim, J0) / Det(dim, J));
      const double pr = (gamma - 1.0) * rho * ev, cs = pr > 0 ? sqrt(gamma * pr / rho) : 0.0;
      const double erho = fabs(D.rho[vi] - rho) / rho;
      err_rho = fmax(err_rho, erho);
      if ((initial ? D.rho[vi] != rho0 : erho > 1e-12) ||
          fabs(D.e[vi] - ev) > 1e-14 * escale + 1e-300 ||
          fabs(D.p[vi] - pr) > 1e-12 * (gamma - 1.0) * rho * escale + 1e-300 ||
          fabs(D.cs[vi] - cs) > 1e-12 * (1.0 + cs))
        bad_fields++;
    }
    // Sub-cells: VTK-ordered global vertex ids, positive measure, cell fields.
    for (int c = 0; c < ncz; c++) {
      const size_t ci = (size_t)z * ncz + c;
      const int ic[3] = {c % refine, (c / refine) % refine, c / (refine * refine)};
      static const int quad[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
      double P[8][3];
      for (int q = 0; q < ncv; q++) {
        const int off[3] = {dim == 1 ? q : quad[q % 4][0], dim == 1 ? 0 : quad[q % 4][1], q / 4};
        long long want = 0;
        for (int g = dim - 1; g >= 0; g--) want = want * np1 + ic[g] + off[g];
        want += voff + (long long)z * nvz;
        if (D.topo[ci * ncv + q] != want) bad_cells++;
        for (int g = 0; g < 3; g++) P[q][g] = D.X[3 * (want - voff) + g];
      }
      if (!(CellMeasure(dim, (const double(*)[3])P) > 0)) bad_cells++;
      if (D.zone[ci] != s->zone_gid[z] || D.mat[ci] != BlastProblemMaterialAt(prob, Xc) ||
          D.attr[ci] != attr[s->zone_macro[z]] || D.rank[ci] != rank)
        bad_cells++;
    }
  }
  TEST_ASSERT(nodes_checked >= nz * (1 << dim), "only %d vertices on nodes", nodes_checked);
  TEST_ASSERT(bad_node == 0, "%s: %d node values differ from the nodal dofs", path, bad_node);
  TEST_ASSERT(bad_pos == 0, "%s: %d positions/velocities off (max position error %.3e)", path,
              bad_pos, err_pos);
  TEST_ASSERT(bad_fields == 0, "%s: %d vertices with wrong fields (max density error %.3e)", path,
              bad_fields, err_rho);
  TEST_ASSERT(bad_cells == 0, "%s: %d bad sub-cells", path, bad_cells);
  if (!rank)
    printf(
        "  %s: step %d t %.6g, %lld vertices, %lld cells, %d on GLL nodes (rank 0), max "
        "position error %.2e, density error %.2e\n",
        path, step, t, nvg, ncg, nodes_checked, err_pos, err_rho);
  DumpFree(&D);
  BlastFree(&x), BlastFree(&v), BlastFree(&e);
}

// ---------------------------------------------------------------------------------------

typedef struct {
  MPI_Comm comm;
  BlastHydro h;
  BlastViz viz;
  const Case *c;
  int written;
} Hook;

// What main does: a dump after an accepted step.
static int OnStep(void *user, const BlastStepInfo *info) {
  Hook *k = user;
  if (info->rejected || info->step != k->c->mid_step) return 0;
  BlastCall(BlastVizWrite(k->viz, info->step, info->t));
  k->written++;
  CheckDump(k->comm, k->h, BlastVizLastPath(k->viz), k->c->refine, info->step, info->t, 0);
  return 0;
}

static int Exists(const char *path) {
  return access(path, F_OK) == 0;
}

// Empty a case folder left by an earlier run of the test (rank 0).
static void Clean(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *de; (de = readdir(d));) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    remove(path);
  }
  closedir(d);
}

// The mesh of the case with materials 1, 2, 3 in turn (zone attributes).
static int CaseMesh(const Case *c, BlastMesh *mesh) {
  BlastMesh box;
  BlastCall(TestUnitBoxMesh(c->dim, c->n, &box));
  const int nz = BlastMeshNumZones(box);
  int *attr;
  BlastCall(BlastMalloc(nz, &attr));
  for (int z = 0; z < nz; z++) attr[z] = 1 + z % 3;
  BlastCall(BlastMeshCreate(c->dim, BlastMeshNumVertices(box), BlastMeshCoords(box), nz,
                            BlastMeshZoneVerts(box), attr, BlastMeshNumBoundary(box),
                            BlastMeshBdrVerts(box), BlastMeshBdrAttr(box), mesh));
  BlastFree(&attr);
  BlastCall(BlastMeshDestroy(&box));
  return 0;
}

static void RunCase(MPI_Comm comm, const Case *c, const char *scratch) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  char dir[512], path[600];
  snprintf(dir, sizeof dir, "%s/%s", scratch, c->name);
  if (!rank) Clean(dir);
  MPI_Barrier(comm);
  if (!rank)
    printf("case %s: %dD, %d^%d zones, k = %d, refine %d\n", c->name, c->dim, c->n, c->dim, c->k,
           c->refine);
  BlastMesh mesh = NULL;
  TEST_CALL(CaseMesh(c, &mesh));
  BlastConfig cfg;
  RegressionConfig(&cfg, c->problem);
  cfg.order_kinematic = c->k;
  cfg.order_thermo = c->k - 1;
  cfg.t_final = c->t_final;
  cfg.cg_tol = 1e-10;
  BlastHydro h = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, comm, &blast_backend_cpu, &h));
  if (!h) return;
  Hook k = {comm, h, NULL, c, 0};
  TEST_CALL(BlastVizCreateWith(comm, h, dir, c->refine, BOTH, &k.viz));
  TEST_ASSERT(BlastVizCount(k.viz) == 0, "fresh folder: %d dumps", BlastVizCount(k.viz));
  TEST_CALL(BlastVizWrite(k.viz, 0, 0.0));
  CheckDump(comm, h, BlastVizLastPath(k.viz), c->refine, 0, 0.0, 1);
  TEST_CALL(BlastHydroRun(h, OnStep, &k));
  TEST_ASSERT(k.written == 1, "the callback wrote %d dumps", k.written);
  double t, dt;
  int steps, attempts;
  BlastHydroGetProgress(h, &t, &dt, &steps, &attempts);
  TEST_CALL(BlastVizWrite(k.viz, steps, t));
  CheckDump(comm, h, BlastVizLastPath(k.viz), c->refine, steps, t, 0);
  TEST_ASSERT(BlastVizCount(k.viz) == 3, "%d dumps, want 3", BlastVizCount(k.viz));
  snprintf(path, sizeof path, "%s/viz_000002.h5", dir);
  TEST_ASSERT(!strcmp(BlastVizLastPath(k.viz), path), "last path %s", BlastVizLastPath(k.viz));
  // The same step again replaces the dump.
  TEST_CALL(BlastVizWrite(k.viz, steps, t));
  TEST_ASSERT(BlastVizCount(k.viz) == 3, "rewrite of the last step: %d dumps, want 3",
              BlastVizCount(k.viz));
  TEST_CALL(BlastVizDestroy(&k.viz));
  TEST_ASSERT(k.viz == NULL, "destroy sets NULL");

  // A run continued at the current step keeps all dumps; a run at step 0 keeps dump 0
  // only, deletes the others and overwrites dump 0.
  TEST_CALL(BlastVizCreateWith(comm, h, dir, c->refine, BOTH, &k.viz));
  TEST_ASSERT(BlastVizCount(k.viz) == 3, "continued at step %d: %d dumps, want 3", steps,
              BlastVizCount(k.viz));
  TEST_CALL(BlastVizDestroy(&k.viz));
  BlastHydro h0 = NULL;
  TEST_CALL(BlastHydroCreate(&cfg, mesh, comm, &blast_backend_cpu, &h0));
  TEST_CALL(BlastVizCreateWith(comm, h0, dir, c->refine, BOTH, &k.viz));
  TEST_ASSERT(BlastVizCount(k.viz) == 1, "restarted at step 0: %d dumps, want 1",
              BlastVizCount(k.viz));
  static const char *const gone[3] = {"viz_000001.h5", "viz_000001.pvtu", "viz_000002_p000000.vtu"};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, gone[i]);
    TEST_ASSERT(!Exists(path), "%s was not deleted", path);
  }
  TEST_CALL(BlastVizWrite(k.viz, 0, 0.0));
  TEST_ASSERT(BlastVizCount(k.viz) == 1, "%d dumps, want 1", BlastVizCount(k.viz));
  TEST_CALL(BlastVizDestroy(&k.viz));
  TEST_CALL(BlastHydroDestroy(&h0));
  // Leave a complete series of two dumps (t = 0 and the end) for the Python tests.
  TEST_CALL(BlastVizCreateWith(comm, h, dir, c->refine, BOTH, &k.viz));
  TEST_CALL(BlastVizWrite(k.viz, steps, t));
  TEST_ASSERT(BlastVizCount(k.viz) == 2, "%d dumps, want 2", BlastVizCount(k.viz));
  CheckDump(comm, h, BlastVizLastPath(k.viz), c->refine, steps, t, 0);
  TEST_CALL(BlastVizDestroy(&k.viz));
  static const char *const kept[5] = {"blast.xdmf", "blast.pvd", "viz_000001.h5", "viz_000001.pvtu",
                                      "viz_000001_p000000.vtu"};
  for (int i = 0; i < 5; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, kept[i]);
    TEST_ASSERT(Exists(path), "%s missing", path);
  }
  // VTK files only: blast.pvd is the series (2 dumps at the current step, 1 at step 0,
  // which deletes dump 1 of both formats); the newest dump's path is its .pvtu.
  TEST_CALL(BlastVizCreateWith(comm, h, dir, c->refine, BLAST_VIZ_VTU, &k.viz));
  TEST_ASSERT(BlastVizCount(k.viz) == 2, "VTK only, continued: %d dumps, want 2",
              BlastVizCount(k.viz));
  snprintf(path, sizeof path, "%s/viz_000001.pvtu", dir);
  TEST_ASSERT(!strcmp(BlastVizLastPath(k.viz), path), "last path %s", BlastVizLastPath(k.viz));
  TEST_CALL(BlastVizDestroy(&k.viz));
  TEST_CALL(BlastHydroCreate(&cfg, mesh, comm, &blast_backend_cpu, &h0));
  TEST_CALL(BlastVizCreateWith(comm, h0, dir, c->refine, BLAST_VIZ_VTU, &k.viz));
  TEST_ASSERT(BlastVizCount(k.viz) == 1, "VTK only, at step 0: %d dumps, want 1",
              BlastVizCount(k.viz));
  for (int i = 2; i < 5; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, kept[i]);
    TEST_ASSERT(!Exists(path), "%s was not deleted", path);
  }
  TEST_CALL(BlastVizDestroy(&k.viz));
  TEST_CALL(BlastHydroDestroy(&h0));
  // The complete series again for the Python tests.
  TEST_CALL(BlastVizCreateWith(comm, h, dir, c->refine, BOTH, &k.viz));
  TEST_CALL(BlastVizWrite(k.viz, steps, t));
  TEST_ASSERT(BlastVizCount(k.viz) == 2, "%d dumps, want 2", BlastVizCount(k.viz));
  TEST_CALL(BlastVizDestroy(&k.viz));
  TEST_CALL(BlastHydroDestroy(&h));
  TEST_CALL(BlastMeshDestroy(&mesh));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  BlastErrorSetRank(rank);
  const char *scratch = argc > 1 ? argv[1] : "viz_scratch";
  // k = 3 with refine 3 puts vertices off the GLL nodes (except the corners); k = 2 with
  // refine 2 puts every GLL node on a vertex.
  static const Case cases[] = {
      {"sod1d", 1, 6, BLAST_PROBLEM_SOD, 3, 3, 0.05, 3},
      {"sedov3d", 3, 3, BLAST_PROBLEM_SEDOV, 2, 3, 0.05, 2},
      {"sedov2d", 2, 8, BLAST_PROBLEM_SEDOV, 2, 2, 0.15, 5},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    RunCase(MPI_COMM_WORLD, &cases[i], scratch);
  // Bad arguments.
  BlastViz viz = NULL;
  const int ierr = BlastVizCreate(MPI_COMM_WORLD, NULL, scratch, 2, &viz);
  BlastErrorClear();
  TEST_ASSERT(ierr == BLAST_ERR_ARG && viz == NULL, "NULL hydro: error %d", ierr);
  TEST_CALL(BlastVizDestroy(NULL));
  int fails = blast_test_failures, total;
  MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  blast_test_failures = total;
  const int status = rank ? (total != 0) : BlastTestFinish("test_viz");
  MPI_Finalize();
  return status;
}
