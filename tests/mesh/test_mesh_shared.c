// (b) The project's verification meshes against the reference copies in the shared folder
// (MFEM's own files, with `nodes` sections and their own numbering), compared
// independently of numbering: vertex sets, zones and boundary faces as (attribute, set of
// corner coordinates). Usage: test_mesh_shared MESH_DIR SHARED_DIR
// The test is registered only when SHARED_DIR exists at configure time; a missing
// folder at run time is a failure.
#define _POSIX_C_SOURCE 200809L  // stat()

#include <stdio.h>
#include <sys/stat.h>

#include "meshtest.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MESH_DIR SHARED_DIR\n", argv[0]);
    return 2;
  }
  struct stat st;
  if (stat(argv[2], &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr,
            "FAIL: the reference meshes folder '%s' does not exist (reconfigure, or pass "
            "-DBLAST_SHARED_MESHES=<folder with the reference .mesh files>)\n",
            argv[2]);
    return 1;
  }
  for (int i = 0; i < mt_num_spec_meshes; i++) {
    const char *name = mt_spec_meshes[i].name;
    BlastMesh ours = NULL, ref = NULL;
    TEST_CALL(MTReadMesh(argv[1], name, &ours));
    TEST_CALL(MTReadMesh(argv[2], name, &ref));
    if (ours && ref) {
      char why[256];
      int same = MTSameMesh(ours, ref, 1e-12, why, sizeof why);
      TEST_ASSERT(same, "%s: ours and the reference differ: %s", name, why);
      TEST_CLOSE(BlastMeshVolume(ours), BlastMeshVolume(ref), 1e-14);
    }
    BlastMeshDestroy(&ours);
    BlastMeshDestroy(&ref);
  }
  return BlastTestFinish("test_mesh_shared");
}
