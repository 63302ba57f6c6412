// Case of ctx.rebuild: a context built on a problem's data is given new reference data
// (every array BlastHydroData marks as reference, changed: rho0 |J0| w, two materials
// instead of one, M_E^{-1}, the mass matrix values and diagonal, J0^{-1} or the initial
// positions, h0) and must then give, on every zone and mass entry, the bits of a context
// created from that data; rebuilt back to the problem's own data, it gives its first bits
// again (the other cases share the context).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"

// Arrays behind the changed reference data.
typedef struct {
  BlastHydroData hd;
  BlastMaterial mats[2];
  double *R0, *me_inv, *dinv, *val, *J0inv, *qmass, *x0;
  int *zmat;
} NewRef;

static double *Scaled(Rng *r, const double *a, size_t n, double amp) {
  double *b = HostNew(n + 1);
  for (size_t i = 0; i < n; i++) b[i] = a[i] * (1.0 + amp * RandU(r));
  return b;
}

static void NewRefMake(const Problem *P, unsigned long long seed, NewRef *R) {
  const BlastHydroData *hd = &P->hd;
  Rng r = RngSeed(seed);
  memset(R, 0, sizeof *R);
  R->hd = *hd;
  const size_t nz = hd->nz, nq = hd->nqp, ne = hd->l2_nd, d2 = (size_t)hd->dim * hd->dim;
  R->R0 = Scaled(&r, hd->qp_R0, nz * nq, 0.2);
  R->me_inv = Scaled(&r, hd->me_inv, nz * ne * ne, 0.1);
  R->dinv = Scaled(&r, hd->mv_dinv, (size_t)hd->h1_nown, 0.1);
  R->zmat = (int *)malloc((nz + 1) * sizeof(int));
  for (size_t z = 0; z < nz; z++) R->zmat[z] = (int)(z % 2);
  R->mats[0] = BlastMaterialIdealGas(1.4), R->mats[1] = BlastMaterialIdealGas(1.8);
  R->hd.qp_R0 = R->R0, R->hd.me_inv = R->me_inv, R->hd.mv_dinv = R->dinv;
  R->hd.zone_mat = R->zmat, R->hd.mats = R->mats, R->hd.nmat = 2;
  R->hd.qpar.h0 = 1.25 * hd->qpar.h0;
  if (hd->assembly == BLAST_ASSEMBLY_PARTIAL) {
    R->qmass = Scaled(&r, hd->pa.qmass, (size_t)hd->pa.nz_ext * nq, 0.1);
    const size_t nx = (size_t)hd->dim * hd->h1_nl;
    R->x0 = HostNew(nx);  // the positions moved by a few percent of a zone
    for (size_t i = 0; i < nx; i++) R->x0[i] = hd->pa.x0[i] + 0.03 * P->hz * RandU(&r);
    R->hd.pa.qmass = R->qmass, R->hd.pa.x0 = R->x0;
  } else {
    const size_t nnz = (size_t)(hd->full.rowptr[hd->h1_nown] - hd->full.rowptr[0]);
    R->val = Scaled(&r, hd->full.val, nnz, 0.1);
    R->J0inv = Scaled(&r, hd->full.J0inv, nz * nq * d2, 0.05);
    R->hd.full.val = R->val, R->hd.full.J0inv = R->J0inv;
  }
}

static void NewRefFree(NewRef *R) {
  HostFree(&R->R0), HostFree(&R->me_inv), HostFree(&R->dinv), HostFree(&R->val);
  HostFree(&R->J0inv), HostFree(&R->qmass), HostFree(&R->x0);
  free(R->zmat);
}

// The mass entries on a random vector: mult (all rows, every component) and jacobi.
static void MassRun(Env *E, Bk b, const Problem *P, const double *x, double *y, double *z) {
  const BlastHydroData *hd = &P->hd;
  const size_t n = (size_t)hd->dim * hd->h1_next;
  const unsigned mask = (1u << hd->dim) - 1u;
  double *dx = Up(E, b, n, x), *dy = Up(E, b, n, NULL), *dz = Up(E, b, n, NULL);
  CK(E, b.o->vec.set(b.ctx, n, 0.0, dy));
  CK(E, b.o->vec.set(b.ctx, n, 0.0, dz));
  CK(E, b.o->mass.mult(b.ctx, BLAST_ROWS_ALL, hd->dim, mask, dx, dy));
  CK(E, b.o->mass.jacobi(b.ctx, hd->dim, mask, dx, dz));
  Down(E, b, n, dy, y), Down(E, b, n, dz, z);
  Drop(E, b, &dx), Drop(E, b, &dy), Drop(E, b, &dz);
}

// Zone and mass results of contexts a and b on the same inputs, compared bit for bit.
static void Compare(Env *E, const Problem *P, Bk a, Bk b, const char *label) {
  const BlastHydroData *hd = &P->hd;
  const size_t n = (size_t)hd->dim * hd->h1_next;
  double *x = HostNew(P->nx), *v = HostNew(P->nx), *e = HostNew(P->ne);
  ProblemState(P, STATE_SMOOTH, x, v, e);
  ZoneOut oa, ob;
  ZoneRun(E, a, P, x, v, e, &oa);
  ZoneRun(E, b, P, x, v, e, &ob);
  char what[200];
  double ra[3], rb[3];
  ResultBits(&oa.res, ra), ResultBits(&ob.res, rb);
  snprintf(what, sizeof what, "%s: %s (dt_est, tangled zone, det)", P->label, label);
  Report(E, what, CompareBits(ra, rb, 3));
  snprintf(what, sizeof what, "%s: %s rhs pairs", P->label, label);
  Report(E, what, CompareBits(oa.rhs, ob.rhs, 2 * P->nx));
  snprintf(what, sizeof what, "%s: %s de", P->label, label);
  Report(E, what, CompareBits(oa.de, ob.de, P->ne));
  const double ea[2] = {oa.ie, oa.ke}, eb[2] = {ob.ie, ob.ke};
  snprintf(what, sizeof what, "%s: %s (ie, ke)", P->label, label);
  Report(E, what, CompareBits(ea, eb, 2));
  ZoneFree(&oa), ZoneFree(&ob);
  double *xm = HostNew(n), *ya = HostNew(n), *yb = HostNew(n), *za = HostNew(n), *zb = HostNew(n);
  Rng r = RngSeed(4711);
  FillU(&r, xm, n);
  MassRun(E, a, P, xm, ya, za);
  MassRun(E, b, P, xm, yb, zb);
  for (int c = 0; c < hd->dim; c++) {  // the owned rows of each component
    const size_t o = (size_t)c * hd->h1_next, m = (size_t)hd->h1_nown;
    snprintf(what, sizeof what, "%s: %s mass.mult component %d", P->label, label, c);
    Report(E, what, CompareBits(ya + o, yb + o, m));
    snprintf(what, sizeof what, "%s: %s mass.jacobi component %d", P->label, label, c);
    Report(E, what, CompareBits(za + o, zb + o, m));
  }
  HostFree(&x), HostFree(&v), HostFree(&e);
  HostFree(&xm), HostFree(&ya), HostFree(&yb), HostFree(&za), HostFree(&zb);
}

void CaseCtxRebuild(Env *E) {
  for (int p = 0; p < E->np; p++) {
    const Problem *P = &E->P[p];
    NewRef R;
    NewRefMake(P, 1000 + (unsigned long long)p, &R);
    Bk a = E->dev[p], fresh = {E->B, NULL};
    CK(E, a.o->ctx.rebuild(a.ctx, &R.hd));
    CK(E, E->B->ctx.create(&R.hd, &fresh.ctx));
    Compare(E, P, a, fresh, "rebuilt = created on the new reference:");
    CK(E, E->B->ctx.destroy(&fresh.ctx));
    // back to the problem's own reference data
    CK(E, a.o->ctx.rebuild(a.ctx, &P->hd));
    CK(E, E->B->ctx.create(&P->hd, &fresh.ctx));
    Compare(E, P, a, fresh, "rebuilt back = created on the problem's data:");
    CK(E, E->B->ctx.destroy(&fresh.ctx));
    NewRefFree(&R);
  }
}
