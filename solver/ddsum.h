/// @file ddsum.h
/// @brief Double-double ("compensated") accumulation: sums of doubles carried as an
/// unevaluated pair hi + lo with error-free transformations (Knuth's TwoSum). The final
/// rounded value is the correctly rounded sum except in pathological cases, so it does
/// not depend on the order of the terms: dot products and assemblies give the same bits
/// on any number of ranks and threads. Host and device.
#ifndef BLAST_DDSUM_H
#define BLAST_DDSUM_H

#include "qpoint.h"  // BLAST_HOST_DEVICE

typedef struct {
  double hi, lo;
} BlastDD;

/// s + e = a + b exactly (no branch, any magnitudes).
BLAST_HOST_DEVICE static inline double BlastTwoSum(double a, double b, double *e) {
  const double s = a + b, bb = s - a;
  *e = (a - (s - bb)) + (b - bb);
  return s;
}

/// acc += x
BLAST_HOST_DEVICE static inline void BlastDDAdd(BlastDD *acc, double x) {
  double e;
  const double s = BlastTwoSum(acc->hi, x, &e);
  const double lo = acc->lo + e;
  acc->hi = s + lo;  // renormalise
  acc->lo = lo - (acc->hi - s);
}

/// acc += (hi, lo)
BLAST_HOST_DEVICE static inline void BlastDDAddDD(BlastDD *acc, double hi, double lo) {
  double e;
  const double s = BlastTwoSum(acc->hi, hi, &e);
  const double t = e + acc->lo + lo;
  acc->hi = s + t;
  acc->lo = t - (acc->hi - s);
}

#endif  // BLAST_DDSUM_H
