/// @file sell.h
/// @brief Sliced ELLPACK (SELL-32-sigma) layout of the scalar H1 mass matrix for the GPU's
/// mass-matrix product: rows in slices of 32, one row per GPU thread, the k-th entries of
/// a slice's 32 rows stored next to each other so that a warp reads the matrix coalesced.
/// Within windows of sigma rows the rows are ordered by length (longest first, stable),
/// so that rows of one slice have nearly equal lengths and little padding. Interior rows
/// and boundary rows (hd->mv_rows order) form separate runs of slices, so each can be
/// multiplied on its own. Host code (built and tested without CUDA).
#ifndef BLAST_SELL_H
#define BLAST_SELL_H

#include <stdint.h>

#include "blast.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BLAST_SELL_C = 32 };  ///< rows per slice
/// The GPU backend's window (BLAST_SELL_SIGMA overrides): rows stay near their mesh order,
/// which keeps the x entries a warp gathers close together.
enum { BLAST_SELL_SIGMA_DEFAULT = 256 };

typedef struct {
  int nslots;           ///< row slots: each part's rows rounded up to a multiple of 32
  int nslots_interior;  ///< slots of the interior rows (a multiple of 32); boundary after
  int maxlen;           ///< the longest row
  long long nnz;        ///< stored entries, padding included
  long long nnz_rows;   ///< entries of the rows (no padding)
  int *row;             ///< [nslots] local row of each slot, -1 for a padding slot
  int *len;             ///< [nslots] its entries (0 for a padding slot)
  long long *off;       ///< [nslots/32 + 1] first stored entry of each slice
  int *col;             ///< [nnz] column of entry k of slot t: col[off[t/32] + 32 k + t%32]
  double *val;          ///< [nnz] its value (padding: column 0, value 0)
} BlastSell;

/// Build the layout of the rows `rows[0..nown)` (interior rows first: `ninterior` of
/// them) of the CSR matrix (rowptr, col, val; 64-bit row offsets: only the rows listed
/// are read, at rowptr[r] .. rowptr[r + 1] - 1), ordered by length within windows of
/// `sigma` rows (a positive multiple of 32; 0: the whole part). The row order, lengths and
/// slice offsets are always built (the memory model needs nnz); the stored columns only
/// with col, the values only with val (either may be NULL).
int BlastSellBuild(int nown, int ninterior, const int *rows, const int64_t *rowptr, const int *col,
                   const double *val, int sigma, BlastSell *s);
/// The values of the CSR matrix (rowptr, val) into the SELL entries `out` of the layout
/// (nslots, row, len, off) of BlastSellBuild (padding entries are not written).
void BlastSellValues(int nslots, const int *row, const int *len, const long long *off,
                     const int64_t *rowptr, const double *val, double *out);
void BlastSellFree(BlastSell *s);

/// y_c = A x_c for the components c < ncomp in `mask` (component c of x and y at c * st),
/// slots [t0, t1): each row summed in double-double in the order of its stored entries,
/// as the GPU kernel does (the host reference of the kernel, for tests).
void BlastSellMultDD(const BlastSell *s, int t0, int t1, int ncomp, unsigned mask, size_t st,
                     const double *x, double *y);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_SELL_H
