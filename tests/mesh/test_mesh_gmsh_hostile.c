// Hostile and malformed Gmsh .msh input (no gmsh needed): each edit of a small valid file
// fails with BLAST_ERR_INPUT and a message naming the line and the element; every prefix
// of the .msh seeds of the mesh fuzzer's corpus and every byte of them changed fails the
// same way or reads a mesh, without a crash, under an address-space limit (a corrupt
// count must fail before it allocates); binary 2.2 seeds byte-swapped (a big-endian
// writer) read to the same mesh.
// usage: test_mesh_gmsh_hostile CORPUS_DIR
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "meshtest.h"

// Two triangles in the unit square, four boundary segments (format 2.2, ASCII).
static const char *const kBase =
    "$MeshFormat\n"        // 1
    "2.2 0 8\n"            // 2
    "$EndMeshFormat\n"     // 3
    "$PhysicalNames\n"     // 4
    "2\n"                  // 5
    "1 5 \"wall\"\n"       // 6
    "2 9 \"gas\"\n"        // 7
    "$EndPhysicalNames\n"  // 8
    "$Nodes\n"             // 9
    "4\n"                  // 10
    "1 0 0 0\n"            // 11
    "2 1 0 0\n"            // 12
    "3 1 1 0\n"            // 13
    "4 0 1 0\n"            // 14
    "$EndNodes\n"          // 15
    "$Elements\n"          // 16
    "6\n"                  // 17
    "1 1 2 5 1 1 2\n"      // 18
    "2 1 2 5 2 2 3\n"      // 19
    "3 1 2 5 3 3 4\n"      // 20
    "4 1 2 5 4 4 1\n"      // 21
    "5 2 2 9 1 1 2 3\n"    // 22
    "6 2 2 9 1 1 3 4\n"    // 23
    "$EndElements\n";      // 24

// The base with `from` replaced by `to` (first occurrence).
static char *Edit(const char *from, const char *to) {
  const char *at = strstr(kBase, from);
  if (!at) {
    fprintf(stderr, "edit '%s' not found\n", from);
    abort();
  }
  char *s = malloc(strlen(kBase) + strlen(to) + 1);
  const size_t head = (size_t)(at - kBase);
  memcpy(s, kBase, head);
  strcpy(s + head, to);
  strcat(s, at + strlen(from));
  return s;
}

static void Refused(const char *from, const char *to, const char *where, const char *what) {
  char *text = Edit(from, to);
  BlastMesh m = NULL;
  const int ierr = BlastMeshReadBuffer("t.msh", text, strlen(text), &m);
  const char *msg = BlastErrorMessage();
  TEST_ASSERT(ierr == BLAST_ERR_INPUT && !m, "'%s' -> '%s': error %d", from, to, ierr);
  TEST_ASSERT(!strncmp(msg, where, strlen(where)) && strstr(msg, what),
              "'%s' -> '%s': message '%s' (expected '%s' ... '%s')", from, to, msg, where, what);
  BlastErrorClear();
  BlastMeshDestroy(&m);
  free(text);
}

static void Accepted(const char *from, const char *to) {
  char *text = Edit(from, to);
  BlastMesh m = NULL;
  TEST_CALL(BlastMeshReadBuffer("t.msh", text, strlen(text), &m));
  TEST_ASSERT(m && BlastMeshNumZones(m) == 2 && BlastMeshNumBoundary(m) == 4, "'%s' -> '%s'", from,
              to);
  BlastMeshDestroy(&m);
  free(text);
}

static void CheckEdits(void) {
  BlastMesh m = NULL;
  TEST_CALL(BlastMeshReadBuffer("t.msh", kBase, strlen(kBase), &m));
  if (m) {
    TEST_ASSERT(BlastMeshDim(m) == 2 && BlastMeshNumZones(m) == 2 && BlastMeshNumVertices(m) == 4,
                "base sizes");
    TEST_ASSERT(BlastMeshHasSimplices(m) && BlastMeshZoneAttr(m)[0] == 9, "base zones");
    TEST_ASSERT(
        BlastMeshAttributeOfName(m, 2, "gas") == 9 && BlastMeshAttributeOfName(m, 1, "wall") == 5,
        "names");
    BlastMeshDestroy(&m);
  }
  Accepted("$EndElements\n",
           "$EndElements\n$NodeData\n1\n\"T\"\n$EndNodeData\n$Comments\n$End\n$EndComments\n");
  Accepted("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n",
           "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Periodic\n0\n$EndPeriodic\n");
  Refused("5 2 2 9 1", "5 2 2 0 1",
          "t.msh:22:", "element 5 (a 3-node triangle) is in no physical group");
  Refused("6\n1 1 2 5 1 1 2\n2 1 2 5 2 2 3\n3 1 2 5 3 3 4\n4 1 2 5 4 4 1\n",
          "5\n1 1 2 5 1 1 2\n2 1 2 5 2 2 3\n3 1 2 5 3 3 4\n",
          "t.msh:22:", "missing boundary faces: 1 zone faces");
  Refused("5 2 2 9 1 1 2 3", "5 16 2 9 1 1 2 3 4 1 2 3 4", "t.msh:22:", "serendipity");
  Refused("5 2 2 9 1 1 2 3", "5 6 2 9 1 1 2 3 4 1 2", "t.msh:22:", "not prisms or pyramids");
  Refused("5 2 2 9 1 1 2 3", "5 7 2 9 1 1 2 3 4 1", "t.msh:22:", "not prisms or pyramids");
  Refused("5 2 2 9 1 1 2 3", "5 25 2 9 1 1 2 3 4 1 2 3 4 1 2 3 4 1 2 3 4 1 2 3 4 1",
          "t.msh:22:", "orders up to 4");
  Refused("1 1 2 5 1 1 2", "1 8 2 5 1 1 2 3", "t.msh:19:", "mixed orders: element 2");
  Refused("6 2 2 9 1 1 3 4", "6 2 2 9 1 1 3 7", "t.msh:23:", "node 3 (tag 7) is not in");
  Refused("3 1 1 0\n", "3 1 1 0.5\n", "t.msh:13:", "has z = 0.5 in a 2D mesh");
  Refused("$Nodes\n4\n", "$Nodes\n400000000000\n", "t.msh:10:", "the number of nodes");
  Refused("$Nodes\n4\n", "$Nodes\n40000000\n", "t.msh:10:", "cannot fit");
  Refused("$Elements\n6\n", "$Elements\n60000000\n", "t.msh:17:", "cannot fit");
  Refused("2 1 0 0\n", "1 1 0 0\n", "t.msh:12:", "node tag 1 is given twice");
  Refused("6 2 2 9 1 1 3 4", "6 2 2 9 1 1 4 3", "t.msh:23:", "inverted");
  Refused("$EndElements\n", "$EndElements\n$Foo\n1 2 3\n", "t.msh:25:", "has no '$EndFoo'");
  Refused("2.2 0 8", "3.0 0 8", "t.msh:2:", "format version '3.0'");
  Refused("2.2 0 8", "2.2 0 4", "t.msh:2:", "data size 4");
  Refused("2 9 \"gas\"", "2 9 \"gas", "t.msh:7:", "closing double quote");
  Refused("2\n1 5 \"wall\"\n", "3\n1 6 \"wall\"\n1 5 \"wall\"\n", "t.msh:7:", "repeats");
  Refused("$EndElements\n", "", "t.msh:24:", "unexpected end of file (expected '$EndElements')");
  Refused("6 2 2 9 1 1 3 4\n", "6 2 2 9 1 1 3\n",
          "t.msh:24:", "found '$EndElements' (expected node 3 of element 6");
  Refused("5 2 2 9 1 1 2 3", "5 2 2 9 1 1 2 2", "t.msh:22:", "node tag 2 appears twice");
  Refused("5 2 2 9 1 1 2 3", "5 2 2 -9 1 1 2 3", "t.msh:22:", "physical tag -9");
  Refused("1 1 2 5 1 1 2\n", "1 1 2 5 1 2 4\n", "t.msh:18:", "not a face of any zone");
  // A boundary element on an interior face is accepted (then the face 1-2 misses one).
  Refused("1 1 2 5 1 1 2\n", "1 1 2 5 1 1 3\n", "t.msh:22:", "missing boundary faces");
  Refused("2 1 2 5 2 2 3\n", "2 1 2 5 2 1 2\n",
          "t.msh:19:", "repeats the face of boundary element 1");
  // No physical group anywhere.
  char *text = Edit(
      "1 1 2 5 1 1 2\n2 1 2 5 2 2 3\n3 1 2 5 3 3 4\n4 1 2 5 4 4 1\n5 2 2 9 1 1 2 3\n"
      "6 2 2 9 1 1 3 4\n",
      "1 1 2 0 1 1 2\n2 1 2 0 2 2 3\n3 1 2 0 3 3 4\n4 1 2 0 4 4 1\n5 2 2 0 1 1 2 3\n"
      "6 2 2 0 1 1 3 4\n");
  TEST_ASSERT(BlastMeshReadBuffer("t.msh", text, strlen(text), &m) == BLAST_ERR_INPUT &&
                  strstr(BlastErrorMessage(), "no physical groups"),
              "no physical groups: '%s'", BlastErrorMessage());
  BlastErrorClear();
  free(text);
}

// Read `len` bytes: an accepted mesh or BLAST_ERR_INPUT naming the file; returns 1 if read.
static int Hostile(const char *data, size_t len, const char *what, size_t i) {
  BlastMesh m = NULL;
  const int ierr = BlastMeshReadBuffer("h.msh", data, len, &m);
  if (ierr) {
    TEST_ASSERT(ierr == BLAST_ERR_INPUT && !m && !strncmp(BlastErrorMessage(), "h.msh", 5),
                "%s %zu: error %d '%s'", what, i, ierr, BlastErrorMessage());
    BlastErrorClear();
    return 0;
  }
  BlastMeshDestroy(&m);
  return 1;
}

static void CheckCorpusFile(const char *path) {
  FILE *fp = fopen(path, "rb");
  TEST_ASSERT(fp, "open %s", path);
  if (!fp) return;
  static char buf[1 << 16];
  const size_t len = fread(buf, 1, sizeof buf, fp);
  fclose(fp);
  TEST_ASSERT(len < sizeof buf && Hostile(buf, len, path, 0), "%s: the seed reads", path);
  int ok = 0, flips = 0;
  size_t end = len;  // the file without trailing whitespace: shorter prefixes must fail
  while (end > 0 && (buf[end - 1] == '\n' || buf[end - 1] == ' ' || buf[end - 1] == '\r')) end--;
  for (size_t n = 0; n < len; n++) {
    const int read = Hostile(buf, n, "prefix", n);
    TEST_ASSERT(!read || n >= end, "%s: the prefix of %zu bytes (of %zu) was accepted", path, n,
                len);
  }
  static const unsigned char kFlip[3] = {0xff, 0x01, 0x80};
  char *copy = malloc(len);
  for (size_t i = 0; i < len; i++)
    for (int k = 0; k < 3; k++) {
      memcpy(copy, buf, len);
      copy[i] = (char)(copy[i] ^ kFlip[k]);
      ok += Hostile(copy, len, "byte flip at", i);
      flips++;
    }
  free(copy);
  printf("%s: %zu prefixes refused, %d byte changes (%d still read)\n", path, len, flips, ok);
}

// The byte-order check of a binary file: another integer than 1 (in either order) fails.
static void CheckByteOrder(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return;
  static char buf[1 << 16];
  const size_t len = fread(buf, 1, sizeof buf, fp);
  fclose(fp);
  char *nl = memchr(buf, '\n', len);
  nl = nl ? memchr(nl + 1, '\n', len - (size_t)(nl + 1 - buf)) : NULL;  // after "2.2 1 8"
  TEST_ASSERT(nl && nl[1] == 1, "%s: no byte-order integer", path);
  if (!nl) return;
  nl[1] = 2;
  BlastMesh m = NULL;
  TEST_ASSERT(BlastMeshReadBuffer("h.msh", buf, len, &m) == BLAST_ERR_INPUT &&
                  strstr(BlastErrorMessage(), "h.msh: byte ") &&
                  strstr(BlastErrorMessage(), "byte-order check"),
              "byte order: '%s'", BlastErrorMessage());
  BlastErrorClear();
}

static void Swap(char *b, int n) {
  for (int i = 0; i < n / 2; i++) {
    const char t = b[i];
    b[i] = b[n - 1 - i], b[n - 1 - i] = t;
  }
}

// The first `needle` in buf[from, len) (binary data holds NUL bytes: no strstr).
static char *Find(char *buf, size_t len, char *from, const char *needle) {
  const size_t n = strlen(needle);
  for (char *p = from; p + n <= buf + len; p++)
    if (!memcmp(p, needle, n)) return p;
  return NULL;
}

// A binary 2.2 file as a machine of the other byte order writes it: the byte-order
// integer, the node records and the element blocks swapped value by value.
static int SwapV22(char *buf, size_t len) {
  char *p = Find(buf, len, buf, "2.2 1 8\n");
  if (!p) return 0;
  Swap(p + 8, 4);
  p = Find(buf, len, buf, "$Nodes\n");
  if (!p) return 0;
  long n = strtol(p + 7, &p, 10);
  p++;
  for (long i = 0; i < n; i++, p += 28) {
    Swap(p, 4);
    for (int c = 0; c < 3; c++) Swap(p + 4 + 8 * c, 8);
  }
  p = Find(buf, len, p, "$Elements\n");
  if (!p) return 0;
  n = strtol(p + 10, &p, 10);
  p++;
  for (long i = 0; i < n;) {
    int h[3];
    memcpy(h, p, sizeof h);
    for (int k = 0; k < 3; k++) Swap(p + 4 * k, 4);
    p += 12;
    static const int kNodes[16] = {0, 2, 3, 4, 4, 8, 6, 5, 3, 6, 9, 10, 27, 18, 14, 1};
    if (h[0] < 1 || h[0] > 15 || h[1] < 1) return 0;
    const int per = 1 + h[2] + kNodes[h[0]];
    for (int e = 0; e < h[1] * per; e++, p += 4) Swap(p, 4);
    i += h[1];
  }
  return p <= buf + len;
}

static void CheckOtherByteOrder(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return;
  static char buf[1 << 16], swapped[1 << 16];
  const size_t len = fread(buf, 1, sizeof buf - 1, fp);
  fclose(fp);
  buf[len] = '\0';
  memcpy(swapped, buf, len + 1);
  TEST_ASSERT(SwapV22(swapped, len), "%s: cannot swap", path);
  BlastMesh a = NULL, b = NULL;
  TEST_CALL(BlastMeshReadBuffer("a.msh", buf, len, &a));
  TEST_CALL(BlastMeshReadBuffer("b.msh", swapped, len, &b));
  if (a && b) {
    const int dim = BlastMeshDim(a), nz = BlastMeshNumZones(a), nv = BlastMeshNumVertices(a);
    TEST_ASSERT(
        BlastMeshNumZones(b) == nz && BlastMeshNumVertices(b) == nv &&
            !memcmp(BlastMeshCoords(a), BlastMeshCoords(b), sizeof(double) * nv * dim) &&
            !memcmp(BlastMeshZoneVerts(a), BlastMeshZoneVerts(b), sizeof(int) * nz * (1 << dim)),
        "%s: the byte-swapped file reads to another mesh", path);
  }
  BlastMeshDestroy(&a);
  BlastMeshDestroy(&b);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
#if defined(__SANITIZE_ADDRESS__)
  const int asan = 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  const int asan = 1;
#else
  const int asan = 0;
#endif
#else
  const int asan = 0;
#endif
  if (!asan) {  // 2 GiB of address space: a count trusted to allocate would fail here
    struct rlimit rl = {(rlim_t)2 << 30, (rlim_t)2 << 30};
    TEST_ASSERT(!setrlimit(RLIMIT_AS, &rl), "setrlimit");
  }
  CheckEdits();
  DIR *d = opendir(argv[1]);
  TEST_ASSERT(d, "open %s", argv[1]);
  int nfiles = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    const size_t n = strlen(e->d_name);
    if (n < 4 || strcmp(e->d_name + n - 4, ".msh")) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    CheckCorpusFile(path);
    if (strstr(e->d_name, "v22b")) CheckByteOrder(path), CheckOtherByteOrder(path);
    nfiles++;
  }
  if (d) closedir(d);
  TEST_ASSERT(nfiles >= 4, "%d .msh seeds in %s", nfiles, argv[1]);
  return BlastTestFinish("test_mesh_gmsh_hostile");
}
