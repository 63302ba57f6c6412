// Small dense linear algebra (see linalg.h).
#include "linalg.h"

#include <math.h>
#include <string.h>

int BlastDenseInverseWork(int n, const double *A, double *Ainv, double *work, int *piv) {
  double *LU = work, *X = work + (size_t)n * n;
  memcpy(LU, A, sizeof(double) * n * n);
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(LU[i + n * k]) > fabs(LU[p + n * k])) p = i;
    piv[k] = p;
    if (LU[p + n * k] == 0.0) return 1;
    if (p != k)
      for (int j = 0; j < n; j++) {
        double tmp = LU[k + n * j];
        LU[k + n * j] = LU[p + n * j], LU[p + n * j] = tmp;
      }
    const double inv = 1.0 / LU[k + n * k];
    for (int i = k + 1; i < n; i++) LU[i + n * k] *= inv;
    for (int j = k + 1; j < n; j++) {
      const double ukj = LU[k + n * j];
      for (int i = k + 1; i < n; i++) LU[i + n * j] -= LU[i + n * k] * ukj;
    }
  }
  // Solve A X = I for all columns at once: P A = L U. X is row-major (X[i n + col]) so that
  // the innermost loops run over the columns; each column sees exactly the operations, in
  // the same order, of a solve of that column alone.
  for (int i = 0; i < n; i++)
    for (int col = 0; col < n; col++) X[(size_t)i * n + col] = (i == col);
  for (int k = 0; k < n; k++)
    if (piv[k] != k)
      for (int col = 0; col < n; col++) {
        double tmp = X[(size_t)k * n + col];
        X[(size_t)k * n + col] = X[(size_t)piv[k] * n + col], X[(size_t)piv[k] * n + col] = tmp;
      }
  for (int i = 0; i < n; i++) {
    double *xi = &X[(size_t)i * n];
    for (int k = 0; k < i; k++) {
      const double lik = LU[i + n * k], *xk = &X[(size_t)k * n];
      for (int col = 0; col < n; col++) xi[col] -= lik * xk[col];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    double *xi = &X[(size_t)i * n];
    for (int k = i + 1; k < n; k++) {
      const double uik = LU[i + n * k], *xk = &X[(size_t)k * n];
      for (int col = 0; col < n; col++) xi[col] -= uik * xk[col];
    }
    const double uii = LU[i + n * i];
    for (int col = 0; col < n; col++) xi[col] /= uii;
  }
  for (int col = 0; col < n; col++)
    for (int i = 0; i < n; i++) Ainv[(size_t)n * col + i] = X[(size_t)i * n + col];
  return 0;
}

int BlastDenseInverse(int n, const double *A, double *Ainv) {
  double *work;
  int *piv;
  BlastCall(BlastMalloc(2 * (size_t)n * n, &work));
  const int ierr = BlastMalloc(n, &piv);
  if (ierr) BlastFree(&work);
  BlastCall(ierr);
  const int singular = BlastDenseInverseWork(n, A, Ainv, work, piv);
  BlastFree(&work);
  BlastFree(&piv);
  BlastCheck(!singular, BLAST_ERR_NUMERIC, "singular %dx%d matrix", n, n);
  return 0;
}

void BlastTransposeBlocks(size_t nblocks, size_t rows, size_t cols, const double *src,
                          double *dst) {
#pragma omp parallel for schedule(static)
  for (size_t b = 0; b < nblocks; b++) {
    const double *s = src + b * rows * cols;
    double *d = dst + b * rows * cols;
    for (size_t r = 0; r < rows; r++)
      for (size_t c = 0; c < cols; c++) d[c * rows + r] = s[r * cols + c];
  }
}
