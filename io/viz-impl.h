/// @file viz-impl.h
/// @brief Internals of the visualization dumps shared by io/viz.c (files, time series) and
/// io/viz_fields.c (reference tables, point values). Internal to io/.
#ifndef BLAST_VIZ_IMPL_H
#define BLAST_VIZ_IMPL_H

#include <stdint.h>

#include "viz.h"
#include "viz_tables.h"
#include "viz_vtu.h"

enum { VIZ_MAX_REFINE = 64 };

/// XDMF's cell type numbers in a Mixed topology (a cell: its number, then its vertices).
enum { VIZ_XDMF_TRIANGLE = 4, VIZ_XDMF_QUADRILATERAL = 5 };

/// One dump of the time series (identical on every rank).
typedef struct {
  int number, step, dim, ncv;  // ncv: vertices per cell; 0: XDMF Mixed topology
  double t;
  long long nvert, ncell;
  long long ntopo;  // entries of /topology (ncell*ncv, or the Mixed list's length)
} VizEntry;

struct BlastViz_private {
  MPI_Comm comm;
  int rank, size;
  BlastHydro h;
  char dir[BLAST_PATH_MAX];
  char last[BLAST_PATH_MAX + 32];
  int dim, ncv;  // vertices per sub-cell; 0 on a mixed mesh (sub[slot].ncv per zone)
  int formats;   // BLAST_VIZ_XDMF | BLAST_VIZ_VTU
  int h1_nd, l2_nd;
  // Zone slots: one on a one-type mesh; on a mesh of triangles and quadrilaterals slot 0
  // the quadrilaterals, 1 the triangles, slot[z] that of zone z (NULL on one-type meshes).
  int nslot;
  uint8_t *slot;
  VizTables sub[2], lag[2];  // the sub-cells of refine; the Lagrange cells' nodes (refine = k)
  double *Bc[2];             // H1 values at the zone center
  int *vtk[2];               // [nodes] lattice index of each node of VTK's Lagrange cell
  VizEntry *entries;
  int count, cap;
};

typedef BlastVizFields VizFields;

/// Where each of this rank's zones starts in the arrays of a dump made with the tables
/// tabs[slot]: v[z] its first vertex, c[z] its first sub-cell, t[z] its first /topology
/// entry ([nz+1] each; the totals at [nz]).
typedef struct {
  int64_t *v, *c, *t;
} VizLayout;

/// The tables of slot `slot` with `refine` sub-cells per direction (its H1 values at the
/// zone center in v->Bc[slot] too).
int BlastVizInitTables(BlastViz v, int slot, VizTables *tab, int refine);
/// The layout of this rank's zones with tables tabs (BlastVizLayoutFree frees it).
int BlastVizLayoutCreate(BlastViz v, const VizTables *tabs, VizLayout *L);
void BlastVizLayoutFree(VizLayout *L);
/// All fields of this rank's vertices and cells with tables tabs[slot] laid out as L;
/// vertex ids of the topology start at voff.
int BlastVizComputeFields(BlastViz v, const VizTables *tabs, const VizLayout *L, int64_t voff,
                          VizFields *F);
int BlastVizAllocFields(VizFields *F, size_t mv, size_t mc, size_t mt);
void BlastVizFreeFields(VizFields *F);

#endif  // BLAST_VIZ_IMPL_H
