// HDF5 error checks (blast_hdf5.h).
#include "blast_hdf5.h"

#include <stdio.h>
#include <string.h>

void BlastHDF5Quiet(void) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

typedef struct {
  char msg[256];
} Innermost;

static herr_t Walk(unsigned n, const H5E_error2_t *err, void *data) {
  Innermost *in = data;
  if (n == 0 && err->desc)
    snprintf(in->msg, sizeof in->msg, "%s (in %s)", err->desc, err->func_name);
  return 0;
}

int BlastHDF5Error(const char *file, int line, const char *func, const char *call) {
  Innermost in = {""};
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, Walk, &in);
  H5Eclear2(H5E_DEFAULT);
  return BlastErrorRaise(file, line, func, BLAST_ERR_HDF5, "HDF5 call failed: %s%s%s", call,
                         in.msg[0] ? ": " : "", in.msg);
}
