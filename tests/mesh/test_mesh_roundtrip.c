// (f) BlastMeshWrite -> BlastMeshRead gives back the same arrays, bit for bit (vertex
// coordinates, zone corners in lexicographic order, attributes, boundary faces), for the
// verification meshes, refined, scrambled and box meshes with awkward coordinates; the
// write replaces an existing file atomically and reports I/O errors.
// Usage: test_mesh_roundtrip MESH_DIR
#define _POSIX_C_SOURCE 200809L  // mkdir(), getpid()

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "meshtest.h"

static int SameArrays(BlastMesh a, BlastMesh b) {
  const int dim = BlastMeshDim(a), nc = 1 << dim, nf = 1 << (dim - 1);
  if (dim != BlastMeshDim(b) || BlastMeshNumVertices(a) != BlastMeshNumVertices(b) ||
      BlastMeshNumZones(a) != BlastMeshNumZones(b) ||
      BlastMeshNumBoundary(a) != BlastMeshNumBoundary(b))
    return 0;
  const int nv = BlastMeshNumVertices(a), nz = BlastMeshNumZones(a), nb = BlastMeshNumBoundary(a);
  return !memcmp(BlastMeshCoords(a), BlastMeshCoords(b), sizeof(double) * nv * dim) &&
         !memcmp(BlastMeshZoneVerts(a), BlastMeshZoneVerts(b), sizeof(int) * nz * nc) &&
         !memcmp(BlastMeshZoneAttr(a), BlastMeshZoneAttr(b), sizeof(int) * nz) &&
         !memcmp(BlastMeshBdrVerts(a), BlastMeshBdrVerts(b), sizeof(int) * nb * nf) &&
         !memcmp(BlastMeshBdrAttr(a), BlastMeshBdrAttr(b), sizeof(int) * nb);
}

static void RoundTrip(BlastMesh m, const char *what) {
  const char *path = "roundtrip.mesh";
  TEST_CALL(BlastMeshWrite(m, path));
  BlastMesh back = NULL;
  TEST_CALL(BlastMeshRead(path, &back));
  if (back) TEST_ASSERT(SameArrays(m, back), "%s: the mesh read back differs", what);
  BlastMeshDestroy(&back);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MESH_DIR\n", argv[0]);
    return 2;
  }
  for (int i = 0; i < mt_num_spec_meshes; i++) {
    BlastMesh m = NULL, r = NULL, s = NULL;
    TEST_CALL(MTReadMesh(argv[1], mt_spec_meshes[i].name, &m));
    if (!m) continue;
    RoundTrip(m, mt_spec_meshes[i].name);
    TEST_CALL(BlastMeshRefine(m, 2, &r));
    if (r) RoundTrip(r, "refined");
    TEST_CALL(MTScramble(m, 5, &s));
    if (s) RoundTrip(s, "scrambled");
    BlastMeshDestroy(&m);
    BlastMeshDestroy(&r);
    BlastMeshDestroy(&s);
  }
  // Coordinates that need all 17 digits, and zone attributes > 1.
  const int n[3] = {3, 2, 5};
  const double size[3] = {1.0 / 3.0, 4.0 * atan(1.0), 1e-7 * sqrt(2.0)};
  for (int dim = 1; dim <= 3; dim++) {
    BlastMesh m = NULL, a = NULL;
    TEST_CALL(BlastMeshCreateBox(dim, n, size, &m));
    if (!m) continue;
    int attr[30];
    for (int z = 0; z < BlastMeshNumZones(m); z++) attr[z] = 1 + z % 4;
    TEST_CALL(MTCopyWithAttr(m, attr, &a));
    if (a) RoundTrip(a, "box");
    BlastMeshDestroy(&m);
    BlastMeshDestroy(&a);
  }
  // Overwriting: the new content replaces the old, no temporary file is left behind.
  BlastMesh m = NULL, back = NULL;
  const int n2[2] = {1, 1};
  const double s2[2] = {1, 1};
  TEST_CALL(BlastMeshCreateBox(2, n2, s2, &m));
  FILE *fp = fopen("overwrite.mesh", "w");
  if (fp) fputs("old content\n", fp), fclose(fp);
  TEST_CALL(BlastMeshWrite(m, "overwrite.mesh"));
  TEST_CALL(BlastMeshRead("overwrite.mesh", &back));
  if (back) TEST_ASSERT(SameArrays(m, back), "overwritten file differs");
  BlastMeshDestroy(&back);
  // No temporary file left behind.
  char tmpname[64];
  snprintf(tmpname, sizeof tmpname, "overwrite.mesh.tmp%ld", (long)getpid());
  fp = fopen(tmpname, "r");
  TEST_ASSERT(fp == NULL, "temporary file %s left", tmpname);
  if (fp) fclose(fp);
  // I/O errors: a folder that does not exist, a "folder" that is a file, a target that
  // cannot be replaced (a directory: the rename fails; the temporary is removed).
  const char *bad_paths[] = {"no_such_dir/out.mesh", "overwrite.mesh/out.mesh", "a_directory"};
  mkdir("a_directory", 0755);
  for (int i = 0; i < 3; i++) {
    int ierr = BlastMeshWrite(m, bad_paths[i]);
    TEST_ASSERT(ierr == BLAST_ERR_IO && strstr(BlastErrorMessage(), bad_paths[i]),
                "write to %s: %d %s", bad_paths[i], ierr, BlastErrorMessage());
    printf("ok  %s\n", BlastErrorMessage());
    BlastErrorClear();
  }
  snprintf(tmpname, sizeof tmpname, "a_directory.tmp%ld", (long)getpid());
  fp = fopen(tmpname, "r");
  TEST_ASSERT(fp == NULL, "temporary file %s left after a failed rename", tmpname);
  if (fp) fclose(fp);
  // Symbolic links are never written through: one at the temporary's name (left there, or
  // dangling), one at the final name. The files they point to keep their content (or are
  // not created), and the mesh file is a regular file.
  static const char kOutside[] = "outside content\n";
  const char *targets[] = {"outside_a.txt", "outside_b.txt", "outside_missing.txt"};
  for (int i = 0; i < 2; i++) {
    fp = fopen(targets[i], "w");
    if (fp) fputs(kOutside, fp), fclose(fp);
  }
  remove(targets[2]);
  const char *finals[] = {"linked_tmp.mesh", "linked_final.mesh", "linked_dangling.mesh"};
  for (int i = 0; i < 3; i++) {
    char link_at[96];
    if (i == 1)
      snprintf(link_at, sizeof link_at, "%s", finals[i]);
    else
      snprintf(link_at, sizeof link_at, "%s.tmp%ld", finals[i], (long)getpid());
    remove(link_at);
    TEST_ASSERT(symlink(targets[i], link_at) == 0, "symlink %s", link_at);
    TEST_CALL(BlastMeshWrite(m, finals[i]));
    struct stat st;
    TEST_ASSERT(lstat(finals[i], &st) == 0 && S_ISREG(st.st_mode), "%s is not a regular file",
                finals[i]);
    TEST_CALL(BlastMeshRead(finals[i], &back));
    if (back) TEST_ASSERT(SameArrays(m, back), "%s differs", finals[i]);
    BlastMeshDestroy(&back);
    if (i < 2) {
      char got[64] = "";
      fp = fopen(targets[i], "r");
      if (fp) {
        const size_t got_n = fread(got, 1, sizeof got - 1, fp);
        got[got_n] = 0;
        fclose(fp);
      }
      TEST_ASSERT(!strcmp(got, kOutside), "%s was written through a link: '%s'", targets[i], got);
    } else {
      TEST_ASSERT(access(targets[i], F_OK) != 0, "%s was created through a dangling link",
                  targets[i]);
    }
    TEST_ASSERT(access(link_at, F_OK) != 0 || i == 1, "%s left", link_at);
  }
  printf("ok  no mesh file written through a symbolic link\n");
  BlastMeshDestroy(&m);
  return BlastTestFinish("test_mesh_roundtrip");
}
