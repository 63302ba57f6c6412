// Reading a dump's HDF5 rows back in the viz tests (serial HDF5, a rank's rows only).
#ifndef BLAST_TEST_VIZ_READ_H
#define BLAST_TEST_VIZ_READ_H

#include "blast.h"
#include "blast_hdf5.h"

// Rows [row0, row0 + nrows) of the dataset /name of shape [rows][cols] (cols 0: 1D) into
// buf, as mtype; the shape is checked.
static int ReadRows(hid_t f, const char *name, hid_t mtype, hsize_t rows, hsize_t cols,
                    hsize_t row0, hsize_t nrows, void *buf) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  BlastCallHDF5(d);
  hid_t fs = H5Dget_space(d);
  BlastCallHDF5(fs);
  hsize_t dims[2] = {0, 0};
  const int nd = H5Sget_simple_extent_ndims(fs);
  BlastCallHDF5(nd);
  H5Sget_simple_extent_dims(fs, dims, NULL);
  BlastCheck(nd == (cols ? 2 : 1) && dims[0] == rows && (!cols || dims[1] == cols),
             BLAST_ERR_INTERNAL, "/%s: rank %d shape [%llu][%llu], want [%llu][%llu]", name, nd,
             (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)rows,
             (unsigned long long)cols);
  const hsize_t start[2] = {row0, 0}, count[2] = {nrows, cols};
  BlastCallHDF5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
  hid_t ms = H5Screate_simple(nd, count, NULL);
  BlastCallHDF5(ms);
  BlastCallHDF5(H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf));
  BlastCallHDF5(H5Sclose(ms));
  BlastCallHDF5(H5Sclose(fs));
  BlastCallHDF5(H5Dclose(d));
  return 0;
}

#endif  // BLAST_TEST_VIZ_READ_H
