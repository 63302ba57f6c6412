// The sliced ELLPACK layout of the mass matrix (fem/sell.c), the GPU mass-matrix
// kernel's format: every row exactly once, interior and boundary rows in their own
// slices, rows ordered by length within each window, and its double-double product equal
// bit for bit to the same sums over the CSR rows (and to a long-double reference within
// round-off).
#include <stdlib.h>
#include <string.h>

#include "ddsum.h"
#include "sell.h"
#include "testlib.h"

static unsigned long long rng = 88172645463325252ULL;
static unsigned Next(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (unsigned)(rng >> 11);
}
static double Uniform(void) {
  return (Next() & 0xFFFFFFu) / 16777216.0;
}

// Row r of the CSR matrix times x, summed in double-double in the order of its entries;
// *ref and *mag (if not NULL): the long-double sum and the sum of |terms|.
static double RowDD(const int64_t *rowptr, const int *col, const double *val, const double *x,
                    int r, long double *ref, long double *mag) {
  BlastDD acc = {0.0, 0.0};
  long double s = 0.0L, m = 0.0L;
  for (int64_t k = rowptr[r]; k < rowptr[r + 1]; k++) {
    const double term = val[k] * x[col[k]];
    BlastDDAdd(&acc, term);
    s += (long double)term, m += fabsl((long double)term);
  }
  BlastDDNormalize(&acc);
  if (ref) *ref = s, *mag = m;
  return acc.hi;
}

int main(void) {
  // A random matrix with the row lengths of a 3D Q2 mass matrix (27, 45, 75, 125) and a
  // few others, 1000 owned rows of which 613 interior, 1200 columns (ext dofs).
  const int nown = 1000, ninterior = 613, ncol = 1200, lens[6] = {27, 45, 75, 125, 1, 60};
  int64_t *rowptr = malloc(sizeof(int64_t) * (nown + 1));
  int *rows = malloc(sizeof(int) * nown);
  rowptr[0] = 0;
  for (int r = 0; r < nown; r++) rowptr[r + 1] = rowptr[r] + lens[Next() % 6];
  const int nnz = (int)rowptr[nown];
  int *col = malloc(sizeof(int) * nnz);
  double *val = malloc(sizeof(double) * nnz);
  for (int k = 0; k < nnz; k++)
    col[k] = (int)(Next() % ncol), val[k] = (Uniform() - 0.3) * (1 + Next() % 1000);
  // interior rows first, in a scrambled order, as hd->mv_rows lists them
  for (int i = 0; i < nown; i++) rows[i] = i;
  for (int i = nown - 1; i > 0; i--) {
    const int j = (int)(Next() % (unsigned)(i + 1)), t = rows[i];
    rows[i] = rows[j], rows[j] = t;
  }
  const size_t st = ncol + 7;
  double *x = malloc(sizeof(double) * 3 * st), *y = malloc(sizeof(double) * 3 * st);
  for (size_t i = 0; i < 3 * st; i++) x[i] = (Uniform() - 0.5) * 1e3;

  const int sigmas[5] = {0, 32, 64, 256, 1024};
  for (int is = 0; is < 5; is++) {
    const int sigma = sigmas[is];
    BlastSell s, sz;
    TEST_CALL(BlastSellBuild(nown, ninterior, rows, rowptr, col, val, sigma, &s));
    TEST_CALL(BlastSellBuild(nown, ninterior, rows, rowptr, NULL, NULL, sigma, &sz));
    TEST_ASSERT(sz.nnz == s.nnz && sz.nslots == s.nslots && !sz.col,
                "sizes-only build: %lld vs %lld", sz.nnz, s.nnz);
    BlastSellFree(&sz);
    // columns only (the GPU's build: the values come later, by BlastSellValues)
    TEST_CALL(BlastSellBuild(nown, ninterior, rows, rowptr, col, NULL, sigma, &sz));
    double *v = calloc((size_t)s.nnz + 1, sizeof(double));
    BlastSellValues(sz.nslots, sz.row, sz.len, sz.off, rowptr, val, v);
    TEST_ASSERT(sz.col && !sz.val && !memcmp(sz.col, s.col, sizeof(int) * s.nnz) &&
                    !memcmp(v, s.val, sizeof(double) * s.nnz),
                "sigma %d: columns-only build and values", sigma);
    free(v);
    BlastSellFree(&sz);
    TEST_ASSERT(s.nslots_interior == 640 && s.nslots == 640 + 416, "slots %d (interior %d)",
                s.nslots, s.nslots_interior);
    TEST_ASSERT(s.nnz_rows == nnz && s.nnz >= nnz && s.maxlen == 125, "nnz %lld/%lld, maxlen %d",
                s.nnz_rows, s.nnz, s.maxlen);
    // every row once, interior rows in interior slots, padding only at each part's end
    char *seen = calloc(nown, 1);
    int bad = 0, pad = 0;
    for (int t = 0; t < s.nslots; t++) {
      const int r = s.row[t];
      if (r < 0) {
        pad++;
        bad += s.len[t] != 0;
        continue;
      }
      bad += seen[r]++ != 0;
      bad += s.len[t] != rowptr[r + 1] - rowptr[r];
      int is_int = 0;
      for (int i = 0; i < ninterior; i++) is_int |= rows[i] == r;
      bad += is_int != (t < s.nslots_interior);
      bad += t < s.nslots_interior ? t >= ninterior : t - s.nslots_interior >= nown - ninterior;
    }
    TEST_ASSERT(!bad && pad == s.nslots - nown, "sigma %d: %d layout errors, %d padding slots",
                sigma, bad, pad);
    free(seen);
    // within a window, longest first; equal lengths keep their order in `rows`
    const int part_n[2] = {ninterior, nown - ninterior}, part_t[2] = {0, s.nslots_interior};
    int order_bad = 0;
    for (int p = 0; p < 2; p++) {
      const int w = sigma ? sigma : part_n[p];
      for (int i = 1; i < part_n[p]; i++) {
        if (i % w == 0) continue;
        const int t = part_t[p] + i;
        if (s.len[t] > s.len[t - 1]) order_bad++;
        if (s.len[t] == s.len[t - 1]) {
          int pa = -1, pb = -1;
          for (int k = 0; k < nown; k++)
            pa = rows[k] == s.row[t - 1] ? k : pa, pb = rows[k] == s.row[t] ? k : pb;
          order_bad += pa > pb;
        }
      }
    }
    TEST_ASSERT(!order_bad, "sigma %d: %d rows out of order", sigma, order_bad);
    for (int sl = 0; sl < s.nslots / BLAST_SELL_C; sl++) {
      int m = 0;
      for (int t = sl * BLAST_SELL_C; t < (sl + 1) * BLAST_SELL_C; t++)
        m = s.len[t] > m ? s.len[t] : m;
      if (s.off[sl + 1] - s.off[sl] != (long long)BLAST_SELL_C * m) order_bad++;
    }
    TEST_ASSERT(!order_bad, "sigma %d: slice offsets", sigma);

    // products: components 0 and 2 (mask 101b); component 1 must stay untouched
    for (size_t i = 0; i < 3 * st; i++) y[i] = -7.0;
    BlastSellMultDD(&s, 0, s.nslots_interior, 3, 5u, st, x, y);
    BlastSellMultDD(&s, s.nslots_interior, s.nslots, 3, 5u, st, x, y);
    int diff = 0, untouched = 0;
    double worst = 0.0;
    for (int c = 0; c < 3; c++)
      for (int r = 0; r < nown; r++) {
        if (c == 1) {
          untouched += y[c * st + r] == -7.0;
          continue;
        }
        long double ref, mag;
        const double hi = RowDD(rowptr, col, val, x + c * st, r, &ref, &mag);
        diff += memcmp(&hi, &y[c * st + r], sizeof(double)) != 0;
        const double e = (double)(fabsl((long double)y[c * st + r] - ref) / mag);
        worst = e > worst ? e : worst;
      }
    TEST_ASSERT(diff == 0, "sigma %d: %d of %d row sums differ from the CSR order's", sigma, diff,
                2 * nown);
    TEST_ASSERT(untouched == nown, "sigma %d: component 1 written (%d of %d untouched)", sigma,
                untouched, nown);
    TEST_ASSERT(worst < 4e-16, "sigma %d: %.3e from the long-double sum (relative to sum |terms|)",
                sigma, worst);
    printf(
        "sigma %4d: %d slots (%d interior), %lld stored entries for %lld (%.1f%% padding), "
        "max error %.2e\n",
        sigma, s.nslots, s.nslots_interior, s.nnz, s.nnz_rows,
        100.0 * (s.nnz - s.nnz_rows) / s.nnz_rows, worst);
    BlastSellFree(&s);
  }
  BlastSell s;
  // all rows interior, or all boundary (a rank whose every row touches a ghost column)
  const int nis[2] = {0, nown};
  for (int i = 0; i < 2; i++) {
    TEST_CALL(BlastSellBuild(nown, nis[i], rows, rowptr, col, val, 256, &s));
    const int want = (nis[i] + 31) / 32 * 32;
    TEST_ASSERT(s.nslots_interior == want && s.nslots == 1024,
                "%d interior rows: %d interior slots of %d", nis[i], s.nslots_interior, s.nslots);
    for (size_t j = 0; j < 3 * st; j++) y[j] = -7.0;
    BlastSellMultDD(&s, 0, s.nslots_interior, 3, 7u, st, x, y);
    BlastSellMultDD(&s, s.nslots_interior, s.nslots, 3, 7u, st, x, y);
    int diff = 0;
    for (int c = 0; c < 3; c++)
      for (int r = 0; r < nown; r++) {
        const double hi = RowDD(rowptr, col, val, x + c * st, r, NULL, NULL);
        diff += memcmp(&hi, &y[c * st + r], sizeof(double)) != 0;
      }
    TEST_ASSERT(diff == 0, "%d interior rows: %d of %d row sums differ", nis[i], diff, 3 * nown);
    BlastSellFree(&s);
  }
  TEST_ASSERT(BlastSellBuild(nown, ninterior, rows, rowptr, col, val, 48, &s) == BLAST_ERR_INPUT,
              "sigma 48 refused");
  BlastErrorClear();
  TEST_CALL(BlastSellBuild(0, 0, rows, rowptr, col, val, 0, &s));
  TEST_ASSERT(s.nslots == 0 && s.nnz == 0, "empty matrix: %d slots", s.nslots);
  BlastSellFree(&s);
  free(rowptr), free(rows), free(col), free(val), free(x), free(y);
  return BlastTestFinish("test_sell");
}
