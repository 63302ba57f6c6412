/// @file lanes.h
/// @brief 4-wide vectors of doubles for the host code (GCC/Clang vector extension): each
/// lane performs the IEEE operations of the scalar code on its own value, so a loop over
/// lanes gives the scalar code's bits (C11 without contraction: no fused multiply-adds).
#ifndef BLAST_LANES_H
#define BLAST_LANES_H

#include <stdint.h>

/// Four doubles; lanes past the number of values in use repeat work and are not stored.
typedef double BlastV4 __attribute__((vector_size(4 * sizeof(double))));
/// A lane mask or lane integers of the same width.
typedef int64_t BlastV4I __attribute__((vector_size(4 * sizeof(int64_t))));

#endif  // BLAST_LANES_H
