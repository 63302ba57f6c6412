// Meshes that mix triangles and quadrilaterals (space.h): every zone padded to the
// quadrilateral's sizes, one set of padded element tables per zone geometry ("slot": 0
// quadrilaterals, 1 triangles), the slot of every zone, and the slots' tables concatenated
// for the backend (backend.h: BlastHydroData.zone_slot).
#include <string.h>

#include "hydro_setup.h"

int BlastSetupElementTables(BlastHydro h, int geom, int k, int m, int order_quadrature) {
  const BlastSpace *s = h->space;
  if (!s->mixed) {
    BlastCall(BlastElementTablesCreate(geom, k, m, order_quadrature, &h->tab));
    return 0;
  }
  BlastTensorTables *raw[2] = {NULL, NULL};
  int ierr = BlastElementTablesCreate(BLAST_GEOM_SQUARE, k, m, order_quadrature, &raw[0]);
  if (!ierr) ierr = BlastTensorTablesEquispaced(raw[0]);  // the triangles' edge nodes
  if (!ierr) ierr = BlastElementTablesCreate(BLAST_GEOM_TRIANGLE, k, m, order_quadrature, &raw[1]);
  const int nqp = !ierr && raw[1]->nqp > raw[0]->nqp ? raw[1]->nqp : raw[0] ? raw[0]->nqp : 0;
  for (int sl = 0; sl < 2 && !ierr; sl++)
    ierr = BlastElementTablesPad(raw[sl], nqp, s->h1_nd, s->l2_nd, &h->tabs[sl]);
  BlastTensorTablesDestroy(&raw[0]);
  BlastTensorTablesDestroy(&raw[1]);
  BlastCall(ierr);
  h->tab = h->tabs[0];  // owned through h->tab
  const int dim = s->dim, nd = s->h1_nd, ne = s->l2_nd;
  const size_t b = (size_t)nqp * nd, l = (size_t)nqp * ne;
  BlastCall(BlastMalloc(s->nz_ext + 1, &h->zone_slot));
  BlastCall(BlastMalloc(2 * (size_t)nqp, &h->mix_qp_w));
  BlastCall(BlastMalloc(2 * b, &h->mix_h1_B));
  BlastCall(BlastMalloc(2 * b * dim, &h->mix_h1_G));
  BlastCall(BlastMalloc(2 * l, &h->mix_l2_B));
  for (int z = 0; z < s->nz_ext; z++)
    h->zone_slot[z] = BlastSpaceZoneGeom(s, z) == BLAST_GEOM_TRIANGLE;
  for (int sl = 0; sl < 2; sl++) {
    const BlastTensorTables *t = h->tabs[sl];
    memcpy(h->mix_qp_w + sl * nqp, t->qp_wk, sizeof(double) * nqp);
    memcpy(h->mix_h1_B + sl * b, t->h1_B, sizeof(double) * b);
    memcpy(h->mix_h1_G + sl * b * dim, t->h1_G, sizeof(double) * b * dim);
    memcpy(h->mix_l2_B + sl * l, t->l2_B, sizeof(double) * l);
  }
  return 0;
}

void BlastSetupMixedBackendData(BlastHydro h) {
  if (!h->zone_slot) return;
  BlastHydroData *hd = &h->hd;
  hd->zone_slot = h->zone_slot;
  hd->qp_w = h->mix_qp_w, hd->h1_B = h->mix_h1_B, hd->h1_G = h->mix_h1_G;
  hd->l2_B = h->mix_l2_B;
}

void BlastSetupPaddedPoints(BlastHydro h, double *qp_R0) {
  if (!h->zone_slot) return;
  const int nqp = h->tab->nqp;
#pragma omp parallel for schedule(static)
  for (int z = 0; z < h->space->nz; z++) {
    const BlastTensorTables *t = BlastHydroZoneTab(h, z);
    for (int q = 1; q < nqp; q++)
      if (t->qp_w[q] == 0.0) qp_R0[(size_t)z * nqp + q] = qp_R0[(size_t)z * nqp];
  }
}

void BlastMixedDestroy(BlastHydro h) {
  if (h->zone_slot) BlastTensorTablesDestroy(&h->tabs[1]);
  h->tabs[0] = h->tabs[1] = NULL;
  BlastFree(&h->zone_slot);
  BlastFree(&h->mix_qp_w);
  BlastFree(&h->mix_h1_B);
  BlastFree(&h->mix_h1_G);
  BlastFree(&h->mix_l2_B);
}
