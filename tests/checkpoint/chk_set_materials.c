// Test tool: rewrite the header of checkpoint FILE with another materials record (and
// its checksum), as a run with other materials would have written it, so that a restart
// test can show the refusal of a checkpoint whose materials differ from the deck's.
// Usage: chk_set_materials FILE MATERIALS   (MATERIALS as in docs/checkpoint.md)
#include <stdio.h>

#include "blast_mpi.h"
#include "checkpoint_header.h"

typedef struct {
  int n;
  char name[64][64];
} Names;

static herr_t Collect(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
  (void)loc, (void)info;
  Names *s = data;
  if (s->n == 64) return -1;
  snprintf(s->name[s->n++], sizeof s->name[0], "%s", name);
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc = 1;
  if (argc != 3) {
    fprintf(stderr, "usage: chk_set_materials FILE MATERIALS\n");
    MPI_Finalize();
    return 2;
  }
  hid_t f = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
  BlastCheckpointHeader hd;
  if (f >= 0 && !BlastCheckpointHeaderRead(f, argv[1], &hd)) {
    snprintf(hd.materials, sizeof hd.materials, "%s", argv[2]);
    // The root attributes are the header alone: remove them all, write the new one.
    Names names = {0};
    int ok = H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, Collect, &names) >= 0;
    for (int i = 0; ok && i < names.n; i++) ok = H5Adelete(f, names.name[i]) >= 0;
    if (ok && !BlastCheckpointHeaderWrite(f, &hd)) rc = 0;
  }
  if (f >= 0) H5Fclose(f);
  if (rc) {
    BlastErrorPrint();
    fprintf(stderr, "chk_set_materials: cannot rewrite the header of %s\n", argv[1]);
  }
  MPI_Finalize();
  return rc;
}
