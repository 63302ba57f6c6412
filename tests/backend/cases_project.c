// Case of mass.project (the wall projection of the coupled momentum PCG): on each
// problem's data with a node list and orthonormal normals added (1 to dim normals per
// node, some axis-aligned), y <- (I - sum n n^T) y at the listed owned dofs. CPU part:
// against the same IEEE expressions evaluated here, the other entries untouched, and the
// result normal to every wall to round-off (1e-12 relative: the test's normals are orthonormal to
// ~1e-13); GPU part: the CPU backend's bits.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blast.h"
#include "boundary.h"
#include "conformance.h"

// The normals of node i: nq of them (zero rows after), orthonormalised here.
static int MakeNormals(Rng *r, int dim, int i, double *nrm) {
  const int nq = 1 + i % dim;
  memset(nrm, 0, 9 * sizeof(double));
  for (int j = 0; j < nq; j++) {
    double *n = nrm + 3 * j, len = 0.0;
    if (i % 5 == 0) {
      n[(i + j) % dim] = 1.0;  // an axis
    } else {
      for (int c = 0; c < dim; c++) n[c] = RandU(r);
    }
    for (int k = 0; k < j; k++) {
      double s = 0.0;
      for (int c = 0; c < dim; c++) s += nrm[3 * k + c] * n[c];
      for (int c = 0; c < dim; c++) n[c] -= s * nrm[3 * k + c];
    }
    for (int c = 0; c < dim; c++) len += n[c] * n[c];
    len = sqrt(len);
    if (len < 1e-3) {  // nearly dependent: fewer normals
      for (int c = 0; c < 3; c++) n[c] = 0.0;
      return j;
    }
    for (int c = 0; c < dim; c++) n[c] /= len;
  }
  return nq;
}

static void RunProject(Env *E, const BlastBackendOps *B, const BlastHydroData *hd, int dim,
                       const double *y, double *out) {
  const size_t n = 3 * (size_t)hd->h1_next;
  Bk b = {B, NULL};
  CK(E, B->ctx.create(hd, &b.ctx));
  double *dy = Up(E, b, n, y);
  CK(E, B->mass.project(b.ctx, dim, dy));
  Down(E, b, n, dy, out);
  Drop(E, b, &dy);
  CK(E, B->ctx.destroy(&b.ctx));
}

void CaseMassProject(Env *E) {
  for (int p = 0; p < E->np; p++) {
    const Problem *P = &E->P[p];
    BlastHydroData hd = P->hd;
    const int dim = hd.dim, nown = hd.h1_nown;
    const size_t st = (size_t)hd.h1_next, n = 3 * st;
    int *idx = NULL;
    double *nrm = NULL;
    if (BlastMalloc(nown / 3 + 1, &idx) || BlastMalloc(9 * (size_t)(nown / 3 + 1), &nrm))
      Fatal(E, "BlastMalloc", BLAST_ERR_MEM);
    Rng r = RngSeed(900 + (unsigned long long)p);
    int np = 0;
    for (int i = 1; i < nown; i += 3, np++) {
      idx[np] = i;
      MakeNormals(&r, dim, np, nrm + 9 * (size_t)np);
    }
    hd.nproj = np, hd.proj_idx = idx, hd.proj_normal = nrm;
    double *y = HostNew(n), *out = HostNew(n), *ref = HostNew(n);
    FillMixed(&r, y, n);
    RunProject(E, E->B, &hd, dim, y, out);
    char what[160];
    if (E->gpu) {
      RunProject(E, &blast_backend_cpu, &hd, dim, y, ref);
      snprintf(what, sizeof what, "%s: %d nodes, = CPU", P->label, np);
      Report(E, what, CompareBits(out, ref, n));
    } else {
      memcpy(ref, y, n * sizeof(double));
      double worst = 0.0;
      for (int k = 0; k < np; k++) {
        const double *nk = nrm + 9 * (size_t)k;
        double v[3] = {0, 0, 0}, scale = 0.0;
        for (int c = 0; c < dim; c++) v[c] = y[c * st + idx[k]], scale = fmax(scale, fabs(v[c]));
        for (int j = 0; j < dim; j++) {
          double s = 0.0;
          for (int c = 0; c < dim; c++) s = s + nk[3 * j + c] * v[c];
          for (int c = 0; c < dim; c++) v[c] = v[c] - s * nk[3 * j + c];
        }
        for (int c = 0; c < dim; c++) ref[c * st + idx[k]] = v[c];
        for (int j = 0; j < dim; j++) {  // the backend's result is normal to every wall
          double s = 0.0;
          for (int c = 0; c < dim; c++) s += nk[3 * j + c] * out[c * st + idx[k]];
          worst = fmax(worst, fabs(s) / fmax(scale, DBL_MIN));
        }
      }
      snprintf(what, sizeof what, "%s: %d nodes, the expressions, other dofs untouched", P->label,
               np);
      Report(E, what, CompareBits(out, ref, n));
      snprintf(what, sizeof what, "%s: |n.y| / |y| = %.1e <= 1e-12 at every node", P->label, worst);
      ReportOk(E, what, worst <= 1e-12, worst <= 1e-12 ? NULL : "not normal to the walls");
    }
    HostFree(&y), HostFree(&out), HostFree(&ref);
    BlastFree(&idx);
    BlastFree(&nrm);
  }
}

// Case of mass.wall_normals (the normals of mass.project from the current positions, and
// the walls' normal accelerations): on each problem's sizes, every third owned dof a wall
// node with 0 to 3 face records (random slots below dim - 1, signs, unit or raw, tangent
// stencils of 3 points, or of 10 as on triangular faces at k = 3, over ext dofs; raw
// records in 3D are pair records, the same entries read as pairs), random positions
// and velocities. Observed through a0 and mass.project of a random y. CPU part: against
// BlastWallNodeNormals and BlastProjectNode evaluated here (a node without records keeps
// the normals it was created with), the normals orthonormal; GPU part: the CPU backend's
// bits.
static void RunWallNormals(Env *E, const BlastBackendOps *B, const BlastHydroData *hd, int dim,
                           const double *x, const double *v, const double *y, double *out) {
  const size_t n = 3 * (size_t)hd->h1_next;
  Bk b = {B, NULL};
  CK(E, B->ctx.create(hd, &b.ctx));
  double *dx = Up(E, b, n, x), *dv = Up(E, b, n, v), *da = Up(E, b, n, y), *dy = Up(E, b, n, y);
  CK(E, B->mass.wall_normals(b.ctx, dim, dx, dv, da));
  CK(E, B->mass.project(b.ctx, dim, dy));
  Down(E, b, n, da, out);
  Down(E, b, n, dy, out + n);
  Drop(E, b, &dx), Drop(E, b, &dv), Drop(E, b, &da), Drop(E, b, &dy);
  CK(E, B->ctx.destroy(&b.ctx));
}

// The pair records of tetrahedron faces (raw records in 3D, boundary.h), CPU part.
// (1) BlastWallTrianglePairs(k) on the flat reference face x_b = (s_b, t_b, 0): the z
// component of sum A x_b x x_c is the integral of phi_a over the triangle, exact values
// (Newton-Cotes: k = 1: 1/6; k = 2: vertices 0, edges 1/6; k = 3: 1/60, 3/80, interior
// 9/40; k = 4: 0, edge nodes 2/45, edge midpoints -1/90, interior 4/45). (2) A record
// of a tilted flat face of order 2 (x = O + s e1 + t e2) at its edge node 1 and at its
// vertex 0 (whose weighted normal vanishes: setup writes its first weights 0, and the
// second weights give the unit normal at the node), the velocity a rigid rotation v = w x x:
// the normal is (e1 x e2) / |e1 x e2| and a0 = -(v_l . (w x q)) q (the normal turns with
// the body), to 1e-14.
static void WallPairsFlat(Env *E) {
  static const int lat[6][2] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {0, 2}};  // order 2
  double A[15 * 105], worst = 0.0;
  for (int k = 1; k <= 4; k++) {
    const int nn = (k + 1) * (k + 2) / 2, npair = nn * (nn - 1) / 2;
    int ij[15][2], n = 0;
    for (int j = 0; j <= k; j++)
      for (int i = 0; i + j <= k; i++) ij[n][0] = i, ij[n][1] = j, n++;
    CK(E, BlastWallTrianglePairs(k, A));
    for (int a = 0; a < nn; a++) {
      const int i = ij[a][0], j = ij[a][1], l = k - i - j;
      const int zeros = (i == 0) + (j == 0) + (l == 0);
      double want = 0.0;
      if (k == 1) want = 1.0 / 6;
      if (k == 2) want = zeros == 2 ? 0.0 : 1.0 / 6;
      if (k == 3) want = zeros == 2 ? 1.0 / 60 : zeros == 1 ? 3.0 / 80 : 9.0 / 40;
      if (k == 4)
        want = zeros == 2                     ? 0.0
               : zeros == 0                   ? 4.0 / 45
               : (i == 2 || j == 2 || l == 2) ? -1.0 / 90
                                              : 2.0 / 45;
      double z = 0.0;
      for (int b = 0, q = 0; b < nn; b++)
        for (int c = b + 1; c < nn; c++, q++)
          z += A[a * npair + q] * ((double)ij[b][0] * ij[c][1] - (double)ij[b][1] * ij[c][0]) /
               (k * k);
      worst = fmax(worst, fabs(z - want));
    }
  }
  char what[160];
  snprintf(what, sizeof what, "pair tables k = 1..4: flat face integrals of phi_a to %.1e", worst);
  ReportOk(E, what, worst <= 1e-15, worst <= 1e-15 ? NULL : "not the integrals");
  // (2) the tilted flat quadratic face, node 1 (an edge node) and node 0 (a vertex: the
  // weighted normal vanishes, the unit normal at the node of the second weights is used)
  const double O[3] = {0.3, -0.2, 0.7}, e1[3] = {0.9, 0.2, -0.4}, e2[3] = {0.1, 1.1, 0.5},
               om[3] = {0.4, -0.7, 1.3};
  const int nn = 6, np = 10;
  double x[18], v[18], w[40], G[15], n[3], len = 0.0;
  int idx[40], slot[1] = {2};
  CK(E, BlastWallTrianglePairs(2, A));
  for (int b = 0; b < nn; b++) {
    const double s = lat[b][0] / 2.0, t = lat[b][1] / 2.0;
    for (int c = 0; c < 3; c++) x[c * nn + b] = O[c] + s * e1[c] + t * e2[c];
  }
  for (int b = 0; b < nn; b++)
    for (int c = 0; c < 3; c++) {
      const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
      v[c * nn + b] = om[c1] * x[c2 * nn + b] - om[c2] * x[c1 * nn + b];
    }
  for (int c = 0; c < 3; c++) {
    const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    n[c] = e1[c1] * e2[c2] - e1[c2] * e2[c1], len += n[c] * n[c];
  }
  for (int c = 0; c < 3; c++) n[c] /= sqrt(len);
  for (int at = 1; at >= 0; at--) {
    double nrm[9] = {0}, a0[3], g = 0.0, err = 0.0;
    int e = 0;
    CK(E, BlastWallTriangleNodePairs(2, at, G));
    for (int b = 0, q = 0; b < nn; b++)
      for (int c = b + 1; c < nn; c++, q++) {
        if (b == at || c == at) continue;
        idx[e] = b, idx[np + e] = c,
        w[e] = at ? A[at * 15 + q] : 0.0 /* 15 pairs; a flat vertex: 0 */, w[np + e] = G[q];
        e++;
      }
    BlastWallNodeNormals(3, np, 0, 1, slot, idx, w, x, v, (size_t)nn, at, nrm, a0);
    for (int c = 0; c < 3; c++) {
      const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
      g -= v[c * nn + at] * (om[c1] * n[c2] - om[c2] * n[c1]);
    }
    for (int c = 0; c < 3; c++) err = fmax(err, fmax(fabs(nrm[c] - n[c]), fabs(a0[c] - g * n[c])));
    for (int c = 3; c < 9; c++) err = fmax(err, fabs(nrm[c]));
    snprintf(what, sizeof what, "tilted flat P2 face, rigid rotation, %s node: normal, a0 to %.1e",
             at ? "edge" : "vertex", err);
    ReportOk(E, what, err <= 1e-14, err <= 1e-14 ? NULL : "not the plane's normal");
  }
}

void CaseMassWallNormals(Env *E) {
  if (!E->gpu) WallPairsFlat(E);
  for (int p = 0; p < E->np; p++) {
    const Problem *P = &E->P[p];
    BlastHydroData hd = P->hd;
    const int dim = hd.dim, nown = hd.h1_nown, nst = p % 2 ? 10 : 3, nt = dim > 1 ? dim - 1 : 1;
    const size_t st = (size_t)hd.h1_next, n = 3 * st;
    const int cap = nown / 3 + 1;
    int *idx = NULL, *off = NULL, *slot = NULL, *widx = NULL;
    double *nrm = NULL, *w = NULL;
    if (BlastMalloc(cap, &idx) || BlastMalloc(9 * (size_t)cap, &nrm) ||
        BlastMalloc(cap + 1, &off) || BlastMalloc(3 * (size_t)cap, &slot) ||
        BlastMalloc(3 * (size_t)cap * nt * nst, &widx) ||
        BlastMalloc(3 * (size_t)cap * nt * nst, &w))
      Fatal(E, "BlastMalloc", BLAST_ERR_MEM);
    Rng r = RngSeed(950 + (unsigned long long)p);
    int np = 0, nr = 0;
    for (int i = 1; i < nown; i += 3, np++) {
      idx[np] = i, off[np] = nr;
      MakeNormals(&r, dim, np, nrm + 9 * (size_t)np);
      const int nrec = dim < 2 ? 0 : np % 4;
      for (int k = 0; k < nrec; k++, nr++) {
        slot[nr] = 4 * ((np + k) % (dim - 1)) + RandInt(&r, 4);  // unit or raw, signs
        for (int e = 0; e < nt * nst; e++) {
          widx[(size_t)nr * nt * nst + e] = RandInt(&r, (int)st);
          w[(size_t)nr * nt * nst + e] = RandU(&r) - 0.5;
        }
      }
    }
    off[np] = nr;
    hd.nproj = np, hd.proj_idx = idx, hd.proj_normal = nrm;
    hd.wall_np = nst, hd.wall_off = off, hd.wall_slot = slot, hd.wall_idx = widx, hd.wall_w = w;
    double *x = HostNew(n), *v = HostNew(n), *y = HostNew(n), *out = HostNew(2 * n),
           *ref = HostNew(2 * n);
    FillU(&r, x, n);
    FillU(&r, v, n);
    FillMixed(&r, y, n);
    RunWallNormals(E, E->B, &hd, dim, x, v, y, out);
    char what[160];
    if (E->gpu) {
      RunWallNormals(E, &blast_backend_cpu, &hd, dim, x, v, y, ref);
      snprintf(what, sizeof what, "%s: %d nodes, %d records, = CPU", P->label, np, nr);
      Report(E, what, CompareBits(out, ref, 2 * n));
    } else {
      memcpy(ref, y, n * sizeof(double));
      memcpy(ref + n, y, n * sizeof(double));
      double worst = 0.0;
      for (int k = 0; k < np; k++) {
        double q[9], a[3], u[3] = {0, 0, 0};
        memcpy(q, nrm + 9 * (size_t)k, sizeof q);
        BlastWallNodeNormals(dim, nst, off[k], off[k + 1], slot, widx, w, x, v, st, idx[k], q, a);
        for (int c = 0; c < dim; c++) ref[c * st + idx[k]] = a[c], u[c] = y[c * st + idx[k]];
        BlastProjectNode(dim, q, u);
        for (int c = 0; c < dim; c++) ref[n + c * st + idx[k]] = u[c];
        for (int i = 0; i < 3; i++)
          for (int j = 0; j <= i; j++) {
            double s = 0.0, l2 = 0.0;
            for (int c = 0; c < 3; c++)
              s += q[3 * i + c] * q[3 * j + c], l2 += q[3 * i + c] * q[3 * i + c];
            const double want = i == j ? (l2 > 0.5 ? 1.0 : 0.0) : 0.0;
            worst = fmax(worst, fabs(s - want));
          }
      }
      snprintf(what, sizeof what, "%s: %d nodes, %d records, the expressions", P->label, np, nr);
      Report(E, what, CompareBits(out, ref, 2 * n));
      snprintf(what, sizeof what, "%s: normals orthonormal to %.1e <= 1e-13", P->label, worst);
      ReportOk(E, what, worst <= 1e-13, worst <= 1e-13 ? NULL : "not orthonormal");
    }
    HostFree(&x), HostFree(&v), HostFree(&y), HostFree(&out), HostFree(&ref);
    BlastFree(&idx), BlastFree(&nrm), BlastFree(&off), BlastFree(&slot), BlastFree(&widx);
    BlastFree(&w);
  }
}
