/// @file linalg.h
/// @brief Small dense linear algebra on the host (column-major).
#ifndef BLAST_LINALG_H
#define BLAST_LINALG_H

#include <stddef.h>

#include "blast.h"

/// Inverse of the n x n matrix A (column-major) by LU factorisation with partial pivoting.
/// Returns BLAST_ERR_NUMERIC if A is singular to working precision.
int BlastDenseInverse(int n, const double *A, double *Ainv);
/// The same without allocating or raising errors (safe in threads): `work` holds 2 n^2
/// doubles, `piv` n ints. Returns 0, or 1 if A is singular (Ainv is then undefined).
int BlastDenseInverseWork(int n, const double *A, double *Ainv, double *work, int *piv);

/// dst[b][c][r] = src[b][r][c] for nblocks blocks of rows x cols (threaded over blocks).
void BlastTransposeBlocks(size_t nblocks, size_t rows, size_t cols, const double *src, double *dst);

#endif  // BLAST_LINALG_H
