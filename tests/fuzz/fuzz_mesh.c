// libFuzzer harness for the mesh reader (io/meshio.c: MFEM mesh v1.0 text).
//
// Input: the bytes of a mesh file, parsed with BlastMeshReadBuffer (the reader of
// BlastMeshRead without the file). Checked beyond "no crash, no leak, no undefined
// behaviour" (ASan, UBSan, LSan):
//   - a rejected mesh gives BLAST_ERR_INPUT with a message "fuzz.mesh:LINE: ...";
//   - an accepted mesh is written (BlastMeshWrite) and read back (BlastMeshRead) to the
//     same mesh, bit for bit; small ones are also refined once (topology, refinement).
// Any violation aborts, which libFuzzer reports as a crash with the input saved.
#define _POSIX_C_SOURCE 200809L  // mkdtemp

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blast.h"
#include "mesh.h"
#include "meshio.h"

static const char kName[] = "fuzz.mesh";
static char g_dir[64], g_path[96];

static void Fail(const char *what) {
  fprintf(stderr, "fuzz_mesh: %s\n", what);
  BlastErrorPrint();
  abort();
}

static void RemoveScratch(void) {
  if (g_path[0]) unlink(g_path);
  if (g_dir[0]) rmdir(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  // A private scratch folder for the round trip (one per fuzzing process).
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/blast_fuzz_mesh.XXXXXX",
           tmp && strlen(tmp) < 32 ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) {
    perror("fuzz_mesh: mkdtemp");
    abort();
  }
  snprintf(g_path, sizeof g_path, "%s/roundtrip.mesh", g_dir);
  atexit(RemoveScratch);
  return 0;
}

static int SameInts(const int *a, const int *b, size_t n) {
  return !n || !memcmp(a, b, n * sizeof *a);
}

static void CheckRoundTrip(BlastMesh m) {
  if (BlastMeshWrite(m, g_path)) Fail("BlastMeshWrite failed on an accepted mesh");
  BlastMesh r = NULL;
  if (BlastMeshRead(g_path, &r)) Fail("the written mesh does not read back");
  const int dim = BlastMeshDim(m), nv = BlastMeshNumVertices(m);
  const int nz = BlastMeshNumZones(m), nb = BlastMeshNumBoundary(m);
  if (BlastMeshDim(r) != dim || BlastMeshNumVertices(r) != nv || BlastMeshNumZones(r) != nz ||
      BlastMeshNumBoundary(r) != nb)
    Fail("the mesh read back has other sizes");
  const size_t nc = (size_t)1 << dim, nf = (size_t)1 << (dim - 1);
  if (memcmp(BlastMeshCoords(m), BlastMeshCoords(r), (size_t)nv * dim * sizeof(double)) ||
      !SameInts(BlastMeshZoneVerts(m), BlastMeshZoneVerts(r), nz * nc) ||
      !SameInts(BlastMeshZoneAttr(m), BlastMeshZoneAttr(r), (size_t)nz) ||
      !SameInts(BlastMeshBdrVerts(m), BlastMeshBdrVerts(r), nb * nf) ||
      !SameInts(BlastMeshBdrAttr(m), BlastMeshBdrAttr(r), (size_t)nb))
    Fail("the mesh read back differs");
  BlastMeshDestroy(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  BlastMesh m = NULL;
  int ierr = BlastMeshReadBuffer(kName, (const char *)data, size, &m);
  if (ierr) {
    if (ierr != BLAST_ERR_INPUT) Fail("a bad mesh gave an error other than BLAST_ERR_INPUT");
    if (strncmp(BlastErrorMessage(), "fuzz.mesh:", 10)) Fail("the message does not name the mesh");
    if (m) Fail("a failed read returned a mesh");
    BlastErrorClear();
    return 0;
  }
  CheckRoundTrip(m);
  if (BlastMeshNumZones(m) <= 64) {
    BlastMesh fine = NULL;
    if (BlastMeshRefine(m, 1, &fine)) Fail("refining an accepted mesh failed");
    if (BlastMeshNumZones(fine) != BlastMeshNumZones(m) << BlastMeshDim(m))
      Fail("refinement gave a wrong zone count");
    BlastMeshDestroy(&fine);
  }
  BlastMeshDestroy(&m);
  return 0;
}
