// (c) BlastMeshRead on valid variants (explicit vertices, nodes by NODES and by VDIM,
// comments, CRLF) and on every class of malformed input: each must fail with
// BLAST_ERR_INPUT and a message "file:LINE: ..." naming the right line.
// The files are generated into the working directory from small base meshes with edits.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meshtest.h"

// Two unit squares side by side, attributes 1 and 2, explicit vertices.
static const char *const kBase2D =
    "MFEM mesh v1.0\n"                   // 1
    "# two unit squares side by side\n"  // 2
    "dimension\n"                        // 3
    "2\n"                                // 4
    "\n"                                 // 5
    "elements\n"                         // 6
    "2\n"                                // 7
    "1 3 0 1 4 3\n"                      // 8
    "2 3 1 2 5 4\n"                      // 9
    "\n"                                 // 10
    "boundary\n"                         // 11
    "6\n"                                // 12
    "2 1 0 1\n"                          // 13
    "2 1 1 2\n"                          // 14
    "1 1 2 5\n"                          // 15
    "2 1 5 4\n"                          // 16
    "2 1 4 3\n"                          // 17
    "1 1 3 0\n"                          // 18
    "\n"                                 // 19
    "vertices\n"                         // 20
    "6\n"                                // 21
    "2\n"                                // 22
    "0 0\n"                              // 23
    "1 0\n"                              // 24
    "2 0\n"                              // 25
    "0 1\n"                              // 26
    "1 1\n"                              // 27
    "2 1\n";                             // 28

// The same mesh with a `nodes` section (byNODES).
static const char *const kNodes2D =
    "MFEM mesh v1.0\n"                     // 1
    "# two unit squares side by side\n"    // 2
    "dimension\n"                          // 3
    "2\n"                                  // 4
    "\n"                                   // 5
    "elements\n"                           // 6
    "2\n"                                  // 7
    "1 3 0 1 4 3\n"                        // 8
    "2 3 1 2 5 4\n"                        // 9
    "\n"                                   // 10
    "boundary\n"                           // 11
    "6\n"                                  // 12
    "2 1 0 1\n"                            // 13
    "2 1 1 2\n"                            // 14
    "1 1 2 5\n"                            // 15
    "2 1 5 4\n"                            // 16
    "2 1 4 3\n"                            // 17
    "1 1 3 0\n"                            // 18
    "\n"                                   // 19
    "vertices\n"                           // 20
    "6\n"                                  // 21
    "\n"                                   // 22
    "nodes\n"                              // 23
    "FiniteElementSpace\n"                 // 24
    "FiniteElementCollection: H1_2D_P1\n"  // 25
    "VDim: 2\n"                            // 26
    "Ordering: 0\n"                        // 27
    "\n"                                   // 28
    "0 1 2 0 1 2\n"                        // 29
    "0 0 0 1 1 1\n";                       // 30

// One unit cube.
static const char *const kBase3D =
    "MFEM mesh v1.0\n"                                           // 1
    "dimension\n"                                                // 2
    "3\n"                                                        // 3
    "elements\n"                                                 // 4
    "1\n"                                                        // 5
    "1 5 0 1 2 3 4 5 6 7\n"                                      // 6
    "boundary\n"                                                 // 7
    "6\n"                                                        // 8
    "3 3 0 3 2 1\n"                                              // 9
    "3 3 4 5 6 7\n"                                              // 10
    "2 3 0 1 5 4\n"                                              // 11
    "2 3 3 7 6 2\n"                                              // 12
    "1 3 0 4 7 3\n"                                              // 13
    "1 3 1 2 6 5\n"                                              // 14
    "vertices\n"                                                 // 15
    "8\n"                                                        // 16
    "3\n"                                                        // 17
    "0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n";  // 18-25

static const char *const kBase1D =
    "MFEM mesh v1.0\n"  // 1
    "dimension\n"       // 2
    "1\n"               // 3
    "elements\n"        // 4
    "2\n"               // 5
    "1 1 0 1\n"         // 6
    "1 1 1 2\n"         // 7
    "boundary\n"        // 8
    "2\n"               // 9
    "1 0 0\n"           // 10
    "1 0 2\n"           // 11
    "vertices\n"        // 12
    "3\n"               // 13
    "1\n"               // 14
    "0\n0.5\n1\n";      // 15-17

#define TRUNCATE "<truncate>"

typedef struct {
  int line;          // 1-based line of the base text
  const char *text;  // replacement (may hold '\n'), or TRUNCATE: drop this line and all after
} Edit;

typedef struct {
  const char *base;
  Edit edits[3];
  int expect_line;
  const char *expect;  // substring of the message
} BadCase;

// The base text with edits applied (edits refer to the base's line numbers).
static char *ApplyEdits(const char *base, const Edit *edits) {
  size_t cap = strlen(base) + 4096, n = 0;
  char *out = malloc(cap);
  int line = 1;
  const char *p = base;
  while (*p) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    const Edit *e = NULL;
    for (int i = 0; i < 3 && edits[i].line; i++)
      if (edits[i].line == line) e = &edits[i];
    if (e && !strcmp(e->text, TRUNCATE)) break;
    if (e)
      n += (size_t)snprintf(out + n, cap - n, "%s\n", e->text);
    else
      n += (size_t)snprintf(out + n, cap - n, "%.*s\n", (int)len, p);
    p += len + (eol ? 1 : 0);
    line++;
  }
  out[n] = '\0';
  return out;
}

static void WriteFile(const char *path, const char *text, size_t len) {
  FILE *fp = fopen(path, "wb");
  if (!fp) {
    perror(path);
    exit(1);
  }
  fwrite(text, 1, len, fp);
  fclose(fp);
}

static BlastMesh ReadText(const char *path, const char *text, int *ierr) {
  WriteFile(path, text, strlen(text));
  BlastMesh m = NULL;
  *ierr = BlastMeshRead(path, &m);
  return m;
}

// Read `text`, expect BLAST_ERR_INPUT with "path:LINE:" and `expect` in the message.
static void ExpectFailure(const char *path, const char *text, size_t len, int line,
                          const char *expect) {
  WriteFile(path, text, len);
  BlastMesh m = NULL;
  int ierr = BlastMeshRead(path, &m);
  char where[512];
  snprintf(where, sizeof where, "%s:%d: ", path, line);
  const char *msg = BlastErrorMessage();
  TEST_ASSERT(ierr == BLAST_ERR_INPUT, "%s: returned %d (expected BLAST_ERR_INPUT)", path, ierr);
  TEST_ASSERT(strstr(msg, where) == msg, "%s: message does not start with '%s': %s", path, where,
              msg);
  TEST_ASSERT(strstr(msg, expect) != NULL, "%s: message lacks '%s': %s", path, expect, msg);
  TEST_ASSERT(m == NULL, "%s: mesh returned on error", path);
  if (ierr == BLAST_ERR_INPUT && strstr(msg, where) == msg && strstr(msg, expect))
    printf("ok  %s\n", msg);
  BlastMeshDestroy(&m);
  BlastErrorClear();
}

static const BadCase kBadCases[] = {
    // header and sections
    {kBase2D, {{1, "MFEM mesh v1.3"}}, 1, "unsupported mesh format 'MFEM mesh v1.3'"},
    {kBase2D, {{1, "MFEM NC mesh v1.0"}}, 1, "unsupported mesh format"},
    {kBase2D, {{1, "hello world"}}, 1, "not an MFEM mesh file"},
    {kBase2D, {{3, "elements"}}, 3, "'dimension' section was expected"},
    {kBase2D, {{3, "dimension 2"}, {4, ""}}, 3, "where the 'dimension' section was expected"},
    {kBase2D, {{4, "4"}}, 4, "expected the mesh dimension"},
    {kBase2D, {{4, "two"}}, 4, "expected the mesh dimension"},
    {kBase2D, {{6, "element"}}, 6, "'elements' section was expected"},
    {kBase2D, {{11, "vertices"}}, 11, "'boundary' section was expected"},
    {kBase2D, {{20, "vertex"}}, 20, "'vertices' section was expected"},
    // counts
    {kBase2D, {{7, "x"}}, 7, "expected the number of elements"},
    {kBase2D, {{7, "0"}}, 7, "expected the number of elements"},
    {kBase2D, {{7, "2 3"}}, 7, "expected the number of elements"},
    {kBase2D, {{7, "3"}}, 11, "where element 3 of 3 was expected"},
    {kBase2D, {{12, "-1"}}, 12, "expected the number of boundary elements"},
    {kBase2D, {{12, "7"}}, 20, "where boundary element 7 of 7 was expected"},
    {kBase2D, {{12, "5"}}, 18, "where the 'vertices' section was expected"},
    {kBase2D, {{21, "0"}}, 21, "expected the number of vertices"},
    {kBase2D,
     {{21, "7"}},
     28,
     "unexpected end of file (expected the coordinates of vertex 6 of 7)"},
    {kBase2D, {{21, "5"}}, 28, "unexpected '2 1' after the vertex coordinates"},
    {kBase2D, {{28, "2 1\nmfem_mesh_end"}}, 29, "unexpected 'mfem_mesh_end'"},
    // elements
    {kBase2D, {{8, "1 3 0 1 a 3"}}, 8, "vertex index 'a' is not an integer"},
    {kBase2D, {{8, "1.5 3 0 1 4 3"}}, 8, "where element 1 of 2 was expected"},
    {kBase2D, {{8, "1"}}, 8, "where element 1 of 2 was expected"},
    {kBase2D, {{8, "1 x 0 1 4 3"}}, 8, "geometry type 'x' is not an integer"},
    {kBase2D, {{9, "2 3 1 2 5 6"}}, 9, "element 1: vertex index 6 out of range (expected < 6"},
    {kBase2D, {{8, "1 3 0 -1 4 3"}}, 8, "vertex index -1 is negative"},
    {kBase2D, {{8, "1 3 0 1 4"}}, 8, "lists 3 vertices (expected 4)"},
    {kBase2D, {{8, "1 3 0 1 4 3 2"}}, 8, "lists 5 vertices (expected 4)"},
    {kBase2D, {{8, "1 2 0 1 4 3"}}, 8, "element 0 (triangle) lists 4 vertices (expected 3)"},
    {kBase2D,
     {{8, "1 5 0 1 2 3 4 5 6 7"}},
     8,
     "element 0 has geometry 5 (cube), but elements of a 2D mesh have geometry 3 (square)"},
    {kBase2D, {{8, "1 1 0 1"}}, 8, "element 0 has geometry 1 (segment), but elements of a 2D mesh"},
    {kBase2D, {{8, "1 9 0 1 4 3"}}, 8, "unknown geometry type 9"},
    {kBase2D, {{8, "0 3 0 1 4 3"}}, 8, "attribute 0 (expected a positive integer)"},
    {kBase2D, {{8, "1 3 0 1 1 3"}}, 8, "vertex 1 appears twice"},
    {kBase2D, {{9, "2 3 1 4 5 2"}}, 9, "element 1: zone 1"},  // clockwise: inverted
    {kBase2D, {{9, TRUNCATE}}, 8, "unexpected end of file (expected element 2 of 2)"},
    // boundary
    {kBase2D,
     {{13, "2 3 0 1 4 3"}},
     13,
     "boundary element 0 has geometry 3 (square), but boundary elements of a 2D mesh have geometry "
     "1 (segment)"},
    {kBase2D, {{14, "2 1 1 9"}}, 14, "boundary element 1: vertex index 9 out of range"},
    {kBase2D, {{13, "2 1 0 4"}}, 13, "boundary element 0 is not a face of any element"},
    {kBase2D, {{13, "2 1 0 0"}}, 13, "vertex 0 appears twice"},
    {kBase2D, {{13, "2 1 0"}}, 13, "lists 1 vertices (expected 2)"},
    {kBase2D, {{19, TRUNCATE}}, 18, "unexpected end of file (expected the 'vertices' section)"},
    // explicit vertices
    {kBase2D, {{22, "3"}}, 22, "vertex space dimension 3 differs from the mesh dimension 2"},
    {kBase2D, {{22, "two"}}, 22, "expected the space dimension or 'nodes'"},
    {kBase2D, {{23, "0"}}, 23, "vertex 0 has 1 coordinates (expected 2)"},
    {kBase2D, {{28, "2 1 0"}}, 28, "vertex 5 has 3 coordinates (expected 2)"},
    {kBase2D, {{24, "nan 0"}}, 24, "vertex 1: coordinate 'nan' is not a finite number"},
    {kBase2D, {{24, "1 inf"}}, 24, "coordinate 'inf' is not a finite number"},
    {kBase2D, {{24, "1e999 0"}}, 24, "coordinate '1e999' is not a finite number"},
    {kBase2D, {{24, "1 abc"}}, 24, "coordinate 'abc' is not a finite number"},
    {kBase2D, {{24, "1 0,5"}}, 24, "coordinate '0,5' is not a finite number"},
    {kBase2D, {{26, TRUNCATE}}, 25, "unexpected end of file (expected the coordinates of vertex 3"},
    {kBase2D,
     {{22, TRUNCATE}},
     21,
     "unexpected end of file (expected the space dimension or 'nodes')"},
    // nodes
    {kNodes2D, {{24, "FiniteElementSpac"}}, 24, "expected 'FiniteElementSpace'"},
    {kNodes2D,
     {{25, "FiniteElementCollection:"}},
     25,
     "expected 'FiniteElementCollection: <name>'"},
    // Curved nodes of order 2: 6 vertices + 7 edges + 2 interiors = 15 nodes.
    {kNodes2D,
     {{25, "FiniteElementCollection: H1_2D_P2"}},
     30,
     "unexpected end of file (expected node value 13 of 30 (15 nodes x VDim 2))"},
    {kNodes2D,
     {{25, "FiniteElementCollection: Quadratic"}},
     30,
     "unexpected end of file (expected node value 13 of 30 (15 nodes x VDim 2))"},
    {kNodes2D, {{25, "FiniteElementCollection: H1_2D_P5"}}, 25, "order 5: blast_gpu reads"},
    {kNodes2D, {{25, "FiniteElementCollection: H1Pos_2D_P2"}}, 25, "positive (Bernstein)"},
    {kNodes2D, {{25, "FiniteElementCollection: H1@P_2D_P2"}}, 25, "with MFEM basis 'P_2D_P2'"},
    {kNodes2D,
     {{25, "FiniteElementCollection: L2_2D_P1"}},
     25,
     "unsupported nodes collection 'L2_2D_P1'"},
    {kNodes2D, {{25, "FiniteElementCollection: H1_3D_P1"}}, 25, "is for dimension 3"},
    {kNodes2D, {{26, "VDim: 3"}}, 26, "nodes have VDim 3 but the mesh has dimension 2"},
    {kNodes2D, {{26, "VDim 2"}}, 26, "expected 'VDim: <integer"},
    {kNodes2D, {{27, "Ordering: 2"}}, 27, "expected 'Ordering: <integer in [0, 1]>'"},
    {kNodes2D, {{30, "0 0 0 1 1"}}, 30, "unexpected end of file (expected node value 12 of 12"},
    {kNodes2D, {{30, "0 0 0 1 1 1 7"}}, 30, "more node values than 6 nodes x VDim 2"},
    {kNodes2D, {{29, "0 1 nan 0 1 2"}}, 29, "node value 3 is 'nan' (expected a finite number)"},
    {kNodes2D, {{29, "0 1 2 0 1 1e400"}}, 29, "node value 6 is '1e400'"},
    {kNodes2D, {{29, "0 1 2 0 2 1"}, {30, "0 0 0 1 1 1"}}, 9, "element 1: zone 1"},  // tangled
    // 3D
    {kBase3D, {{6, "1 5 0 1 2 3 4 5 6"}}, 6, "lists 7 vertices (expected 8)"},
    {kBase3D, {{6, "1 4 0 1 2"}}, 6, "element 0 (tetrahedron) lists 3 vertices (expected 4)"},
    {kBase3D, {{6, "1 6 0 1 2 3 4 5"}}, 6, "unsupported element type 6 (prism)"},
    {kBase3D, {{9, "3 3 0 3 2"}}, 9, "lists 3 vertices (expected 4)"},
    {kBase3D, {{9, "3 2 0 3 2"}}, 9, "boundary element 0 is not a face of any element"},
    {kBase3D, {{9, "3 3 0 1 5 4"}, {11, "2 3 0 3 2 1"}}, 0, ""},  // valid: faces swapped
    {kBase3D, {{9, "3 3 0 3 2 4"}}, 9, "boundary element 0 is not a face of any element"},
    {kBase3D, {{6, "1 5 4 5 6 7 0 1 2 3"}}, 6, "element 0: zone 0"},  // top first: inverted
    {kBase3D, {{6, "1 5 0 1 2 3 4 5 7 6"}}, 6, "element 0: zone 0"},  // twisted top face
    {kBase3D,
     {{3, "2"}},
     6,
     "element 0 has geometry 5 (cube), but elements of a 2D mesh have geometry 3 (square)"},
    {kBase3D, {{18, "0 0"}}, 18, "vertex 0 has 2 coordinates (expected 3)"},
    // 1D
    {kBase1D,
     {{10, "1 1 0 1"}},
     10,
     "boundary element 0 has geometry 1 (segment), but boundary elements of a 1D mesh have "
     "geometry 0 (point)"},
    {kBase1D,
     {{6, "1 3 0 1 2 3"}},
     6,
     "element 0 has geometry 3 (square), but elements of a 1D mesh have geometry 1 (segment)"},
    {kBase1D, {{7, "1 1 2 1"}}, 7, "element 1: zone 1"},
    {kBase1D, {{10, "1 0 5"}}, 10, "out of range"},
    {kBase1D, {{17, "-inf"}}, 17, "not a finite number"},
    {kBase1D,
     {{11, "1 0 3"}, {13, "4"}, {17, "1\n2"}},
     11,
     "boundary element 1 is not a face of any element"},
    {kBase1D, {{11, "1 0 1"}}, 0, ""},  // valid: an interior point may carry an attribute
};

static void TestBadCases(void) {
  const int n = (int)(sizeof kBadCases / sizeof kBadCases[0]);
  for (int i = 0; i < n; i++) {
    char path[64];
    snprintf(path, sizeof path, "bad_%02d.mesh", i);
    char *text = ApplyEdits(kBadCases[i].base, kBadCases[i].edits);
    if (kBadCases[i].expect_line == 0) {  // a valid variant
      int ierr;
      BlastMesh m = ReadText(path, text, &ierr);
      TEST_ASSERT(ierr == 0, "%s: %s", path, BlastErrorMessage());
      BlastErrorClear();
      BlastMeshDestroy(&m);
    } else {
      ExpectFailure(path, text, strlen(text), kBadCases[i].expect_line, kBadCases[i].expect);
    }
    free(text);
  }
  // Files that are not plain text or not there at all.
  ExpectFailure("bad_empty.mesh", "", 0, 1, "unexpected end of file (expected 'MFEM mesh v1.0')");
  ExpectFailure("bad_comments.mesh", "# nothing\n\n   # here\n", 21, 3,
                "unexpected end of file (expected 'MFEM mesh v1.0')");
  static const char nul[] = "MFEM mesh v1.0\ndimension\n2\nele\0ments\n";
  ExpectFailure("bad_nul.mesh", nul, sizeof nul - 1, 4, "NUL byte");
  BlastMesh m = NULL;
  int ierr = BlastMeshRead("no_such_dir/missing.mesh", &m);
  TEST_ASSERT(ierr == BLAST_ERR_INPUT && strstr(BlastErrorMessage(), "no_such_dir/missing.mesh") &&
                  strstr(BlastErrorMessage(), "No such file or directory"),
              "missing file: %d %s", ierr, BlastErrorMessage());
  BlastErrorClear();
  ierr = BlastMeshRead(".", &m);
  TEST_ASSERT(ierr == BLAST_ERR_INPUT && strstr(BlastErrorMessage(), "'.'"), "directory: %d %s",
              ierr, BlastErrorMessage());
  printf("ok  %s\n", BlastErrorMessage());
  BlastErrorClear();
}

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

static void TestValid(void) {
  int ierr;
  BlastMesh base = ReadText("good_base2d.mesh", kBase2D, &ierr);
  TEST_ASSERT(ierr == 0 && base, "base 2D mesh: %s", BlastErrorMessage());
  if (!base) return;
  // MFEM ccw (0 1 4 3) -> lexicographic (0 1 3 4).
  const int zv[8] = {0, 1, 3, 4, 1, 2, 4, 5}, za[2] = {1, 2};
  TEST_ASSERT(!memcmp(BlastMeshZoneVerts(base), zv, sizeof zv), "2D zone corners");
  TEST_ASSERT(!memcmp(BlastMeshZoneAttr(base), za, sizeof za), "2D zone attributes");
  TEST_ASSERT(BlastMeshNumBoundary(base) == 6 && BlastMeshBdrAttr(base)[2] == 1 &&
                  BlastMeshBdrVerts(base)[4] == 2 && BlastMeshBdrVerts(base)[5] == 5,
              "2D boundary");
  TEST_CLOSE(BlastMeshVolume(base), 2.0, 1e-15);

  // The same mesh through nodes (byNODES, byVDIM, one line, other collection names),
  // with comments, tabs and CRLF line ends.
  const Edit variants[][3] = {
      {{0, NULL}},
      {{27, "Ordering: 1"}, {29, "0 0 1 0 2 0"}, {30, "0 1 1 1 2 1"}},
      {{25, "FiniteElementCollection: Linear"}, {29, "0 1 2 0 1 2 0 0 0 1 1 1"}, {30, ""}},
      {{25, "FiniteElementCollection: H1Pos_2D_P1"},
       {29, "0 1 2\n# comment\n0 1 2 0"},
       {30, "0 0 1 1 1"}},
      {{25, "  FiniteElementCollection:\tH1@GL_2D_P1   # comment"}, {22, "# between\n\n"}},
  };
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    char *text = ApplyEdits(kNodes2D, variants[v]);
    char path[64];
    snprintf(path, sizeof path, "good_nodes%zu.mesh", v);
    BlastMesh m = ReadText(path, text, &ierr);
    TEST_ASSERT(ierr == 0 && m, "%s: %s", path, BlastErrorMessage());
    if (m) TEST_ASSERT(SameArrays(base, m), "%s differs from the explicit mesh", path);
    BlastMeshDestroy(&m);
    BlastErrorClear();
    free(text);
  }
  // CRLF, tabs, comments after every token line.
  {
    size_t n = strlen(kBase2D);
    char *text = malloc(4 * n + 64), *q = text;
    for (const char *p = kBase2D; *p; p++) {
      if (*p == '\n') {
        q += sprintf(q, "\t# c\r\n");
      } else if (*p == ' ') {
        q += sprintf(q, " \t ");
      } else {
        *q++ = *p;
      }
    }
    *q = '\0';
    BlastMesh m = ReadText("good_crlf.mesh", text, &ierr);
    TEST_ASSERT(ierr == 0 && m, "CRLF: %s", BlastErrorMessage());
    if (m) TEST_ASSERT(SameArrays(base, m), "CRLF variant differs");
    BlastMeshDestroy(&m);
    BlastErrorClear();
    free(text);
  }
  BlastMeshDestroy(&base);

  // 3D: MFEM bottom-ccw/top-ccw -> lexicographic, corner c at (c&1, c>>1&1, c>>2&1).
  BlastMesh m = ReadText("good_base3d.mesh", kBase3D, &ierr);
  TEST_ASSERT(ierr == 0 && m, "3D: %s", BlastErrorMessage());
  if (m) {
    for (int c = 0; c < 8; c++) {
      const double *x = &BlastMeshCoords(m)[3 * BlastMeshZoneVerts(m)[c]];
      TEST_ASSERT(x[0] == (c & 1) && x[1] == ((c >> 1) & 1) && x[2] == ((c >> 2) & 1),
                  "hex corner %d at (%g %g %g)", c, x[0], x[1], x[2]);
    }
    // Boundary quad (0 3 2 1) -> (0 3 1 2): a lexicographic parametrisation of z = 0.
    const int *bv = BlastMeshBdrVerts(m);
    TEST_ASSERT(bv[0] == 0 && bv[1] == 3 && bv[2] == 1 && bv[3] == 2, "3D boundary face corners");
    TEST_CLOSE(BlastMeshVolume(m), 1.0, 1e-15);
  }
  BlastMeshDestroy(&m);
  m = ReadText("good_base1d.mesh", kBase1D, &ierr);
  TEST_ASSERT(ierr == 0 && m, "1D: %s", BlastErrorMessage());
  if (m) {
    TEST_ASSERT(BlastMeshNumBoundary(m) == 2 && BlastMeshBdrVerts(m)[1] == 2, "1D boundary");
    TEST_CLOSE(BlastMeshVolume(m), 1.0, 1e-15);
  }
  BlastMeshDestroy(&m);
}

int main(void) {
  TestValid();
  TestBadCases();
  return BlastTestFinish("test_mesh_read");
}
