// Sliced ELLPACK layout of the scalar H1 mass matrix (sell.h).
#include "sell.h"

#include <string.h>

#include "ddsum.h"

// Entries of row r (a row has at most as many entries as there are columns: an int).
static int RowLength(const int64_t *rowptr, int r) {
  return (int)(rowptr[r + 1] - rowptr[r]);
}

// Order the n rows `part` by length within windows of `sig` rows, longest first, equal
// lengths in their given order (counting sort per window); write them to row/len.
static int OrderPart(int n, const int *part, const int64_t *rowptr, int sig, int maxlen, int *row,
                     int *len) {
  int *count;
  BlastCall(BlastCalloc((size_t)maxlen + 2, &count));
  for (int w0 = 0; w0 < n; w0 += sig) {
    const int w1 = n - w0 < sig ? n : w0 + sig;
    memset(count, 0, sizeof(int) * ((size_t)maxlen + 2));
    for (int i = w0; i < w1; i++) count[maxlen - RowLength(rowptr, part[i])]++;
    for (int b = 0, at = w0; b <= maxlen; b++) {  // count[b]: first position of key b
      const int c = count[b];
      count[b] = at;
      at += c;
    }
    for (int i = w0; i < w1; i++) {
      const int r = part[i], l = RowLength(rowptr, r), at = count[maxlen - l]++;
      row[at] = r, len[at] = l;
    }
  }
  BlastFree(&count);
  return 0;
}

int BlastSellBuild(int nown, int ninterior, const int *rows, const int64_t *rowptr, const int *col,
                   const double *val, int sigma, BlastSell *s) {
  memset(s, 0, sizeof *s);
  BlastCheck(nown >= 0 && ninterior >= 0 && ninterior <= nown, BLAST_ERR_INTERNAL,
             "SELL layout: %d interior rows of %d", ninterior, nown);
  BlastCheck(sigma >= 0 && sigma % BLAST_SELL_C == 0, BLAST_ERR_INPUT,
             "SELL layout: sigma = %d must be 0 or a positive multiple of %d", sigma, BLAST_SELL_C);
  const int C = BLAST_SELL_C;
  const int si = (ninterior + C - 1) / C * C, sb = (nown - ninterior + C - 1) / C * C;
  s->nslots_interior = si, s->nslots = si + sb;
  for (int i = 0; i < nown; i++) {
    const int l = RowLength(rowptr, rows[i]);
    if (l > s->maxlen) s->maxlen = l;
    s->nnz_rows += l;
  }
  BlastCall(BlastMalloc((size_t)s->nslots + 1, &s->row));
  BlastCall(BlastMalloc((size_t)s->nslots + 1, &s->len));
  BlastCall(BlastMalloc((size_t)s->nslots / C + 1, &s->off));
  for (int t = 0; t < s->nslots; t++) s->row[t] = -1, s->len[t] = 0;
  for (int p = 0; p < 2; p++) {
    const int n = p ? nown - ninterior : ninterior, t0 = p ? si : 0;
    if (n > 0)
      BlastCall(OrderPart(n, rows + (p ? ninterior : 0), rowptr, sigma ? sigma : n, s->maxlen,
                          s->row + t0, s->len + t0));
  }
  s->off[0] = 0;
  for (int sl = 0; sl < s->nslots / C; sl++) {
    int m = 0;
    for (int t = sl * C; t < (sl + 1) * C; t++) m = s->len[t] > m ? s->len[t] : m;
    s->off[sl + 1] = s->off[sl] + (long long)C * m;
  }
  s->nnz = s->off[s->nslots / C];
  if (col) {
    BlastCall(BlastCalloc((size_t)s->nnz + 1, &s->col));
#pragma omp parallel for schedule(static)
    for (int t = 0; t < s->nslots; t++) {
      if (s->row[t] < 0) continue;
      const long long base = s->off[t / C] + t % C;
      const int64_t k0 = rowptr[s->row[t]];
      for (int k = 0; k < s->len[t]; k++) s->col[base + (long long)C * k] = col[k0 + k];
    }
  }
  if (val) {
    BlastCall(BlastCalloc((size_t)s->nnz + 1, &s->val));
    BlastSellValues(s->nslots, s->row, s->len, s->off, rowptr, val, s->val);
  }
  return 0;
}

void BlastSellValues(int nslots, const int *row, const int *len, const long long *off,
                     const int64_t *rowptr, const double *val, double *out) {
  const int C = BLAST_SELL_C;
  // Slots are independent (disjoint entries); padding stays as it is.
#pragma omp parallel for schedule(static)
  for (int t = 0; t < nslots; t++) {
    if (row[t] < 0) continue;
    const long long base = off[t / C] + t % C;
    const int64_t k0 = rowptr[row[t]];
    for (int k = 0; k < len[t]; k++) out[base + (long long)C * k] = val[k0 + k];
  }
}

void BlastSellFree(BlastSell *s) {
  BlastFree(&s->row);
  BlastFree(&s->len);
  BlastFree(&s->off);
  BlastFree(&s->col);
  BlastFree(&s->val);
  memset(s, 0, sizeof *s);
}

void BlastSellMultDD(const BlastSell *s, int t0, int t1, int ncomp, unsigned mask, size_t st,
                     const double *x, double *y) {
  for (int t = t0; t < t1; t++) {
    if (s->row[t] < 0) continue;
    const long long base = s->off[t / BLAST_SELL_C] + t % BLAST_SELL_C;
    for (int c = 0; c < ncomp; c++) {
      if (!((mask >> c) & 1u)) continue;
      BlastDD acc = {0.0, 0.0};
      for (int k = 0; k < s->len[t]; k++) {
        const long long e = base + (long long)BLAST_SELL_C * k;
        BlastDDAdd(&acc, s->val[e] * x[c * st + (size_t)s->col[e]]);
      }
      BlastDDNormalize(&acc);
      y[c * st + (size_t)s->row[t]] = acc.hi;
    }
  }
}
