// Visualization dumps: reference tables of the sub-cells and the point values of the state
// at their vertices (viz.h, viz-impl.h). On a mesh of triangles and quadrilaterals every
// zone is sampled with the tables of its own geometry, from its own (unpadded) nodes.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "viz-impl.h"

// ---------------------------------------------------------------------------------------
// Reference tables

// 1D H1 basis at x; exactly the Kronecker delta where x is a node, so that sub-cell
// vertices on GLL nodes (the zone corners always) reproduce the nodal positions bit for bit.
static void H1Values1D(const BlastTensorTables *t, double x, double *phi, double *dphi) {
  const int n = t->k + 1;
  BlastLagrange1D(n, t->h1_nodes, x, phi, dphi);
  for (int a = 0; a < n; a++)
    if (x == t->h1_nodes[a]) {
      for (int b = 0; b < n; b++) phi[b] = b == a ? 1.0 : 0.0;
      break;
    }
}

static int BuildTables(BlastViz v, const BlastTensorTables *t, VizTables *tab, double *Bc) {
  const int dim = v->dim, np1 = tab->np1, n = t->k + 1, nm = t->m + 1;
  const int nd = tab->nd, ne = tab->ne;
  double phi[VIZ_MAX_REFINE + 1][BLAST_MAX_ORDER + 1],
      dphi[VIZ_MAX_REFINE + 1][BLAST_MAX_ORDER + 1];
  double psi[VIZ_MAX_REFINE + 1][BLAST_MAX_ORDER + 1];
  for (int i = 0; i < np1; i++) {
    const double x = (double)i / tab->refine;
    H1Values1D(t, x, phi[i], dphi[i]);
    BlastBernstein1D(t->m, x, psi[i], NULL);
  }
  BlastCall(BlastMalloc((size_t)tab->nvz * nd, &tab->B));
  BlastCall(BlastMalloc((size_t)tab->nvz * nd * dim, &tab->G));
  BlastCall(BlastMalloc((size_t)tab->nvz * ne, &tab->L));
  for (int p = 0; p < tab->nvz; p++) {
    const int ip[3] = {p % np1, (p / np1) % np1, p / (np1 * np1)};
    for (int a = 0; a < nd; a++) {
      const int ia[3] = {a % n, (a / n) % n, a / (n * n)};
      double val = 1.0;
      for (int g = 0; g < dim; g++) val *= phi[ip[g]][ia[g]];
      tab->B[(size_t)p * nd + a] = val;
      for (int g = 0; g < dim; g++) {
        double d = 1.0;
        for (int hh = 0; hh < dim; hh++) d *= hh == g ? dphi[ip[hh]][ia[hh]] : phi[ip[hh]][ia[hh]];
        tab->G[((size_t)p * nd + a) * dim + g] = d;
      }
    }
    for (int j = 0; j < ne; j++) {
      const int ij[3] = {j % nm, (j / nm) % nm, j / (nm * nm)};
      double val = 1.0;
      for (int g = 0; g < dim; g++) val *= psi[ip[g]][ij[g]];
      tab->L[(size_t)p * ne + j] = val;
    }
  }
  const double center[3] = {0.5, 0.5, 0.5};
  BlastH1BasisEval(t, center, Bc, NULL);
  // Sub-cell corners: segment 0-1; quadrilateral counter-clockwise; hexahedron the bottom
  // face counter-clockwise, then the top face (VTK_HEXAHEDRON, XDMF Hexahedron).
  static const int quad[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  BlastCall(BlastMalloc((size_t)tab->ncz * tab->ncv, &tab->cellv));
  const int r = tab->refine;
  for (int c = 0; c < tab->ncz; c++) {
    const int ic[3] = {c % r, (c / r) % r, c / (r * r)};
    for (int q = 0; q < tab->ncv; q++) {
      int off[3] = {0, 0, 0};
      if (dim == 1)
        off[0] = q;
      else
        off[0] = quad[q % 4][0], off[1] = quad[q % 4][1], off[2] = q / 4;
      int vid = 0;
      for (int g = dim - 1; g >= 0; g--) vid = vid * np1 + ic[g] + off[g];
      tab->cellv[(size_t)c * tab->ncv + q] = vid;
    }
  }
  return 0;
}

int BlastVizInitTables(BlastViz v, int slot, VizTables *tab, int refine) {
  const BlastSpace *s = BlastHydroGetSpace(v->h);
  const int geom = slot ? BLAST_GEOM_TRIANGLE : s->geom;
  tab->refine = refine, tab->np1 = refine + 1;
  tab->nvz = tab->ncz = 1;
  for (int g = 0; g < v->dim; g++) tab->nvz *= tab->np1, tab->ncz *= refine;
  if (!v->Bc[slot]) BlastCall(BlastMalloc(v->h1_nd, &v->Bc[slot]));
  if (BlastGeomIsSimplex(geom)) return BlastVizSimplexTables(geom, s->k, s->m, tab, v->Bc[slot]);
  tab->geom = geom, tab->nd = v->h1_nd, tab->ne = v->l2_nd, tab->ncv = 1 << v->dim;
  BlastCall(BuildTables(v, BlastHydroGetTables(v->h), tab, v->Bc[slot]));
  return 0;
}

// ---------------------------------------------------------------------------------------
// Layout

int BlastVizLayoutCreate(BlastViz v, const VizTables *tabs, VizLayout *L) {
  const int nz = BlastHydroGetSpace(v->h)->nz;
  *L = (VizLayout){NULL, NULL, NULL};
  BlastCall(BlastMalloc((size_t)nz + 1, &L->v));
  BlastCall(BlastMalloc((size_t)nz + 1, &L->c));
  BlastCall(BlastMalloc((size_t)nz + 1, &L->t));
  L->v[0] = L->c[0] = L->t[0] = 0;
  for (int z = 0; z < nz; z++) {
    const VizTables *tab = &tabs[v->slot ? v->slot[z] : 0];
    L->v[z + 1] = L->v[z] + tab->nvz;
    L->c[z + 1] = L->c[z] + tab->ncz;
    // a Mixed topology: each sub-cell's type number, then its corners
    L->t[z + 1] = L->t[z] + (int64_t)tab->ncz * (tab->ncv + (v->ncv == 0));
  }
  return 0;
}

void BlastVizLayoutFree(VizLayout *L) {
  BlastFree(&L->v), BlastFree(&L->c), BlastFree(&L->t);
}

// ---------------------------------------------------------------------------------------
// Point values

static double Det(int dim, const double *J) {  // J[c*dim + g] = dx_c / dxi_g
  if (dim == 1) return J[0];
  if (dim == 2) return J[0] * J[3] - J[1] * J[2];
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}

// The fields of zone z (its tables tab; zx, zx0, zv [nd*dim] its nodes' positions,
// initial positions and velocities, ez its L2 coefficients) into F.
static void ZoneFields(BlastViz v, int z, const VizTables *tab, const double *Bc, const double *zx,
                       const double *zx0, const double *zv, const double *ez, const VizLayout *L,
                       int64_t voff, VizFields *F) {
  const BlastSpace *s = BlastHydroGetSpace(v->h);
  const int *attr = BlastMeshZoneAttr(BlastHydroGetMesh(v->h));
  const int *zone_mat = BlastHydroGetZoneMaterials(v->h);
  int nmat;
  const BlastMaterial *mats = BlastHydroGetMaterials(v->h, &nmat);
  const int dim = v->dim, nd = tab->nd, ne = tab->ne;
  // The zone's material (the solver's), rho0 at the initial position moved a hair
  // towards the center (zone faces on material interfaces).
  double Xc[3] = {0, 0, 0};
  for (int a = 0; a < nd; a++)
    for (int c = 0; c < dim; c++) Xc[c] += Bc[a] * zx0[a * dim + c];
  const BlastMaterial *mat = &mats[zone_mat[z]];
  for (int p = 0; p < tab->nvz; p++) {
    const double *B = &tab->B[(size_t)p * nd], *G = &tab->G[(size_t)p * nd * dim];
    double X[3] = {0, 0, 0}, X0[3] = {0, 0, 0}, V[3] = {0, 0, 0}, J[9] = {0}, J0[9] = {0};
    for (int a = 0; a < nd; a++)
      for (int c = 0; c < dim; c++) {
        X[c] += B[a] * zx[a * dim + c];
        X0[c] += B[a] * zx0[a * dim + c];
        V[c] += B[a] * zv[a * dim + c];
        for (int g = 0; g < dim; g++) {
          J[c * dim + g] += zx[a * dim + c] * G[a * dim + g];
          J0[c * dim + g] += zx0[a * dim + c] * G[a * dim + g];
        }
      }
    double ev = 0.0;
    for (int j = 0; j < ne; j++) ev += tab->L[(size_t)p * ne + j] * ez[j];
    double Xin[3] = {0, 0, 0};
    for (int c = 0; c < dim; c++) Xin[c] = Xc[c] + (1.0 - 1e-9) * (X0[c] - Xc[c]);
    const double detJ = Det(dim, J), detJ0 = Det(dim, J0);
    const double rho = detJ != 0.0 ? BlastHydroInitialDensity(v->h, z, Xin) * (detJ0 / detJ) : NAN;
    double pr, cs;
    BlastEos(mat, rho, ev, &pr, &cs);
    const size_t vi = (size_t)L->v[z] + p;
    for (int c = 0; c < 3; c++) {
      F->coords[3 * vi + c] = c < dim ? X[c] : 0.0;
      F->vel[3 * vi + c] = c < dim ? V[c] : 0.0;
    }
    F->rho[vi] = rho;
    F->e[vi] = ev;
    F->p[vi] = pr;
    // 0 where the state has no sound speed (rho <= 0, e < 0 for an ideal gas: for it
    // the same as p > 0 and rho > 0).
    F->cs[vi] = rho > 0.0 && cs == cs ? cs : 0.0;
  }
  const int mixed = v->ncv == 0, code = tab->ncv == 3 ? VIZ_XDMF_TRIANGLE : VIZ_XDMF_QUADRILATERAL;
  int64_t *topo = F->topo + L->t[z];
  for (int c = 0; c < tab->ncz; c++) {
    const size_t ci = (size_t)L->c[z] + c;
    if (mixed) *topo++ = code;
    for (int q = 0; q < tab->ncv; q++)
      *topo++ = voff + L->v[z] + tab->cellv[(size_t)c * tab->ncv + q];
    F->mat[ci] = zone_mat[z];
    F->attr[ci] = attr[s->zone_macro[z]];
    F->rank[ci] = v->rank;
    F->zid[ci] = s->zone_gid[z];
  }
}

int BlastVizComputeFields(BlastViz v, const VizTables *tabs, const VizLayout *L, int64_t voff,
                          VizFields *F) {
  const BlastSpace *s = BlastHydroGetSpace(v->h);
  const double *x0 = BlastHydroGetInitialPositions(v->h);
  const int dim = v->dim, nd = v->h1_nd, ne = v->l2_nd, nl = s->h1_nl, nz = s->nz;
  double *x = NULL, *vel = NULL, *e = NULL;
  BlastCall(BlastMalloc((size_t)dim * nl + 1, &x));
  BlastCall(BlastMalloc((size_t)dim * nl + 1, &vel));
  BlastCall(BlastMalloc((size_t)nz * ne + 1, &e));
  BlastCall(BlastHydroGetState(v->h, x, vel, e));
  int ierr = 0;
#pragma omp parallel
  {
    double *zx = NULL, *zx0 = NULL, *zv = NULL;
    int lerr = BlastMalloc((size_t)3 * nd, &zx);
    if (!lerr) lerr = BlastMalloc((size_t)3 * nd, &zx0);
    if (!lerr) lerr = BlastMalloc((size_t)3 * nd, &zv);
#pragma omp for schedule(static)
    for (int z = 0; z < nz; z++) {
      if (lerr) continue;
      const int sl = v->slot ? v->slot[z] : 0;
      const VizTables *tab = &tabs[sl];
      for (int a = 0; a < tab->nd; a++) {  // the zone's own nodes (before any padding)
        const int l = s->h1_edof[(size_t)z * nd + a];
        for (int c = 0; c < dim; c++) {
          zx[a * dim + c] = x[(size_t)c * nl + l];
          zx0[a * dim + c] = x0[(size_t)c * nl + l];
          zv[a * dim + c] = vel[(size_t)c * nl + l];
        }
      }
      ZoneFields(v, z, tab, v->Bc[sl], zx, zx0, zv, e + (size_t)z * ne, L, voff, F);
    }
    BlastFree(&zx), BlastFree(&zx0), BlastFree(&zv);
    if (lerr) {
#pragma omp atomic write
      ierr = lerr;
    }
  }
  BlastFree(&x), BlastFree(&vel), BlastFree(&e);
  BlastCall(ierr);
  return 0;
}

int BlastVizAllocFields(VizFields *F, size_t mv, size_t mc, size_t mt) {
  double **d[6] = {&F->coords, &F->vel, &F->rho, &F->e, &F->p, &F->cs};
  for (int i = 0; i < 6; i++) BlastCall(BlastMalloc((i < 2 ? 3 : 1) * mv, d[i]));
  int **c[3] = {&F->mat, &F->attr, &F->rank};
  for (int i = 0; i < 3; i++) BlastCall(BlastMalloc(mc, c[i]));
  BlastCall(BlastMalloc(mt, &F->topo));
  BlastCall(BlastMalloc(mc, &F->zid));
  return 0;
}

void BlastVizFreeFields(VizFields *F) {
  BlastFree(&F->coords), BlastFree(&F->vel), BlastFree(&F->rho), BlastFree(&F->e);
  BlastFree(&F->p), BlastFree(&F->cs), BlastFree(&F->topo), BlastFree(&F->zid);
  BlastFree(&F->mat), BlastFree(&F->attr), BlastFree(&F->rank);
}
