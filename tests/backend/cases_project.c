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
// node with 0 to 3 face records (random slots below dim - 1, signs, tangent stencils of
// 3 points, or of 10 as on triangular faces at k = 3, over ext dofs), random positions
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

void CaseMassWallNormals(Env *E) {
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
