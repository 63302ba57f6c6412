/// @file ddsum.h
/// @brief Double-double ("compensated") accumulation: sums of doubles carried as an
/// unevaluated pair hi + lo with error-free transformations (Knuth's TwoSum). The final
/// rounded value is the correctly rounded sum except in pathological cases, so it does
/// not depend on the order of the terms: dot products and assemblies give the same bits
/// on any number of ranks and threads. Host and device.
#ifndef BLAST_DDSUM_H
#define BLAST_DDSUM_H

#include "host_device.h"

typedef struct {
  double hi, lo;
} BlastDD;

/// s + e = a + b exactly (no branch, any magnitudes).
BLAST_HOST_DEVICE static inline double BlastTwoSum(double a, double b, double *e) {
  const double s = a + b, bb = s - a;
  *e = (a - (s - bb)) + (b - bb);
  return s;
}

/// acc += x: the running sum in hi, the exact rounding errors accumulated in lo (not
/// renormalised: call BlastDDNormalize when the accumulation is complete).
BLAST_HOST_DEVICE static inline void BlastDDAdd(BlastDD *acc, double x) {
  double e;
  acc->hi = BlastTwoSum(acc->hi, x, &e);
  acc->lo += e;
}

/// acc += (hi, lo)
BLAST_HOST_DEVICE static inline void BlastDDAddDD(BlastDD *acc, double hi, double lo) {
  double e;
  acc->hi = BlastTwoSum(acc->hi, hi, &e);
  acc->lo += e + lo;
}

/// Renormalise so that hi is the rounded value of hi + lo and lo the remainder.
BLAST_HOST_DEVICE static inline void BlastDDNormalize(BlastDD *acc) {
  const double s = acc->hi + acc->lo;
  acc->lo = acc->lo - (s - acc->hi);
  acc->hi = s;
}

/// The sum of the n pairs p[2i], p[2i + 1] in order, normalised.
BLAST_HOST_DEVICE static inline BlastDD BlastDDSumPairs(const double *p, int n) {
  BlastDD acc = {0.0, 0.0};
  for (int i = 0; i < n; i++) BlastDDAddDD(&acc, p[2 * i], p[2 * i + 1]);
  BlastDDNormalize(&acc);
  return acc;
}

/// The per-zone internal and kinetic energies ie[z * stride_i], ke[z * stride_k] summed in
/// double-double: dd = {ie hi, ie lo, ke hi, ke lo} (normalised).
BLAST_HOST_DEVICE static inline void BlastEnergySums(int nz, const double *ie, int stride_i,
                                                     const double *ke, int stride_k, double dd[4]) {
  BlastDD si = {0.0, 0.0}, sk = {0.0, 0.0};
  for (int z = 0; z < nz; z++) {
    BlastDDAdd(&si, ie[(long)z * stride_i]);
    BlastDDAdd(&sk, ke[(long)z * stride_k]);
  }
  BlastDDNormalize(&si);
  BlastDDNormalize(&sk);
  dd[0] = si.hi, dd[1] = si.lo, dd[2] = sk.hi, dd[3] = sk.lo;
}

#endif  // BLAST_DDSUM_H
