// Reference tables of the visualization dumps on triangles and tetrahedra (viz_tables.h).
#include <math.h>
#include <stdint.h>

#include "blast.h"
#include "geom.h"
#include "geom_basis.h"
#include "topology.h"
#include "viz_tables.h"

void BlastVizSimplexBernstein(int dim, int m, const double *xi, double *b) {
  double lam[4] = {1.0, 0.0, 0.0, 0.0};
  for (int g = 0; g < dim; g++) lam[g + 1] = xi[g], lam[0] -= xi[g];
  double fact[BLAST_GEOM_BASIS_MAX_ORDER + 1] = {1.0};
  for (int i = 1; i <= m && i <= BLAST_GEOM_BASIS_MAX_ORDER; i++) fact[i] = fact[i - 1] * i;
  int a = 0;
  for (int l = 0; l <= (dim > 2 ? m : 0); l++)
    for (int j = 0; j <= (dim > 1 ? m - l : 0); j++)
      for (int i = 0; i <= m - l - j; i++, a++) {
        const int idx[4] = {m - i - j - l, i, j, l};
        double v = fact[m];
        for (int c = 0; c <= dim; c++) v *= pow(lam[c], idx[c]) / fact[idx[c]];
        b[a] = v;
      }
}

// Lattice index (order p) of the integer point i (dim entries).
static int LatticeIndex(int dim, int p, const int *i) {
  int a = 0;
  for (int l = 0; l < (dim > 2 ? i[2] : 0); l++) a += (p - l + 1) * (p - l + 2) / 2;
  const int q = dim > 2 ? p - i[2] : p;  // the triangle layer of order q
  for (int j = 0; j < (dim > 1 ? i[1] : 0); j++) a += q - j + 1;
  return a + i[0];
}

int BlastVizSimplexTables(int geom, int k, int m, VizTables *tab, double *Bc) {
  const int dim = BlastGeomDim(geom), r = tab->refine;
  const int nd = BlastGeomNumNodes(geom, k), ne = BlastGeomNumNodes(geom, m);
  BlastCheck(BlastGeomIsSimplex(geom) && k >= 1 && k <= BLAST_GEOM_BASIS_MAX_ORDER && m >= 0,
             BLAST_ERR_ARG, "simplex visualization tables of a %s, k = %d, m = %d",
             BlastGeomName(geom), k, m);
  tab->np1 = r + 1;
  tab->geom = geom, tab->nd = nd, tab->ne = ne, tab->ncv = dim + 1;
  tab->nvz = BlastGeomNumNodes(geom, r);
  tab->ncz = 1;
  for (int g = 0; g < dim; g++) tab->ncz *= r;
  BlastCall(BlastMalloc((size_t)tab->nvz * nd, &tab->B));
  BlastCall(BlastMalloc((size_t)tab->nvz * nd * dim, &tab->G));
  BlastCall(BlastMalloc((size_t)tab->nvz * ne, &tab->L));
  BlastCall(BlastMalloc((size_t)tab->ncz * (dim + 1), &tab->cellv));
  int p = 0;
  for (int l = 0; l <= (dim > 2 ? r : 0); l++)
    for (int j = 0; j <= (dim > 1 ? r - l : 0); j++)
      for (int i0 = 0; i0 <= r - l - j; i0++, p++) {
        const int ir[3] = {i0, j, l};
        double xi[3] = {0, 0, 0};
        int i[3] = {0, 0, 0}, on = 1;  // on an H1 node: the Kronecker delta, exactly
        for (int g = 0; g < dim; g++) {
          xi[g] = (double)ir[g] / r;
          on = on && (ir[g] * k) % r == 0;
          i[g] = ir[g] * k / r;
        }
        BlastGeomLagrange(geom, k, xi, &tab->B[(size_t)p * nd], &tab->G[(size_t)p * nd * dim]);
        BlastVizSimplexBernstein(dim, m, xi, &tab->L[(size_t)p * ne]);
        const int node = on ? LatticeIndex(dim, k, i) : -1;
        for (int a = 0; on && a < nd; a++) tab->B[(size_t)p * nd + a] = a == node ? 1.0 : 0.0;
      }
  int *verts = NULL;
  BlastCall(BlastMalloc((size_t)tab->ncz * (dim + 1) * dim, &verts));
  const int64_t nc = BlastSimplexChildren(dim, r, verts);
  for (int64_t c = 0; c < nc; c++)
    for (int a = 0; a <= dim; a++)
      tab->cellv[c * (dim + 1) + a] = LatticeIndex(dim, r, &verts[(c * (dim + 1) + a) * dim]);
  BlastFree(&verts);
  BlastCheck(nc == tab->ncz, BLAST_ERR_INTERNAL, "%lld sub-cells of a %s, want %d", (long long)nc,
             BlastGeomName(geom), tab->ncz);
  const double centroid[3] = {1.0 / (dim + 1), 1.0 / (dim + 1), 1.0 / (dim + 1)};
  BlastGeomLagrange(geom, k, centroid, Bc, NULL);
  return 0;
}
