// Small dense linear algebra (see linalg.h).
#include "linalg.h"

#include <math.h>
#include <string.h>

int BlastDenseInverse(int n, const double *A, double *Ainv) {
  double *LU;
  int *piv;
  BlastCall(BlastMalloc((size_t)n * n, &LU));
  BlastCall(BlastMalloc(n, &piv));
  memcpy(LU, A, sizeof(double) * n * n);
  int singular = 0;
  for (int k = 0; k < n && !singular; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(LU[i + n * k]) > fabs(LU[p + n * k])) p = i;
    piv[k] = p;
    if (LU[p + n * k] == 0.0) {
      singular = 1;
      break;
    }
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
  if (!singular) {
    // Solve A X = I column by column: P A = L U.
    for (int col = 0; col < n; col++) {
      double *x = &Ainv[(size_t)n * col];
      for (int i = 0; i < n; i++) x[i] = (i == col);
      for (int k = 0; k < n; k++)
        if (piv[k] != k) {
          double tmp = x[k];
          x[k] = x[piv[k]], x[piv[k]] = tmp;
        }
      for (int i = 0; i < n; i++)
        for (int k = 0; k < i; k++) x[i] -= LU[i + n * k] * x[k];
      for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k < n; k++) x[i] -= LU[i + n * k] * x[k];
        x[i] /= LU[i + n * i];
      }
    }
  }
  BlastFree(&LU);
  BlastFree(&piv);
  BlastCheck(!singular, BLAST_ERR_NUMERIC, "singular %dx%d matrix", n, n);
  return 0;
}
