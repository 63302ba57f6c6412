/// @file blast_hdf5.h
/// @brief BlastCallHDF5: check an HDF5 call (negative herr_t / hid_t = failure) and record
/// the innermost message of HDF5's error stack with file:line and rank.
#ifndef BLAST_HDF5_H
#define BLAST_HDF5_H

#include <hdf5.h>

#include "blast.h"

/// Silence HDF5's own error printing (once per process); errors are reported through
/// BlastCallHDF5 instead.
void BlastHDF5Quiet(void);
int BlastHDF5Error(const char *file, int line, const char *func, const char *call);

#define BlastCallHDF5(...)                                                                    \
  do {                                                                                        \
    if ((__VA_ARGS__) < 0) return BlastHDF5Error(__FILE__, __LINE__, __func__, #__VA_ARGS__); \
  } while (0)

#endif  // BLAST_HDF5_H
