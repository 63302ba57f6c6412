// MFEM mesh v1.0 reader/writer and the built-in Cartesian box mesh (see meshio.h).
#define _POSIX_C_SOURCE 200809L  // fstat(), fileno(), getpid()

#include "meshio.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memory.h"
#include "meshio-nodes.h"
#include "safefile.h"
#include "topology.h"

// ---------------------------------------------------------------------------------------
// MFEM geometry types and vertex orders

enum {
  kGeomPoint = 0,
  kGeomSegment = 1,
  kGeomTriangle = 2,
  kGeomSquare = 3,
  kGeomTet = 4,
  kGeomCube = 5,
  kNumGeoms = 8
};

static const char *const kGeomName[kNumGeoms] = {"point",       "segment", "triangle", "square",
                                                 "tetrahedron", "cube",    "prism",    "pyramid"};
static const int kGeomVerts[kNumGeoms] = {1, 2, 3, 4, 4, 8, 6, 5};
// The tensor-product geometry of each dimension.
static const int kTensorGeom[4] = {kGeomPoint, kGeomSegment, kGeomSquare, kGeomCube};

// Lexicographic corner c is MFEM vertex kLexToMfem[c] (quads: ccw; hexes: bottom ccw,
// top ccw). The map is its own inverse, so it also gives MFEM vertex c from lex corners.
static const int kLexToMfem[8] = {0, 1, 3, 2, 4, 5, 7, 6};

// ---------------------------------------------------------------------------------------
// Reader: the whole file in memory, split into significant lines of whitespace tokens.

typedef struct {
  int lineno;  // 1-based physical line number
  int first;   // index of the first token in Reader.tok
  int ntok;
} Line;

typedef struct {
  const char *path;
  char *buf;
  char **tok;
  size_t ntok, cap_tok;
  Line *lines;
  int nlines, cap_lines;
  int cur;       // next line to consume
  int eof_line;  // line number reported for an unexpected end of file
} Reader;

// Everything parsed from a file, in blast_gpu's conventions (lexicographic corners).
typedef struct {
  int dim, nverts, nzones, nbdr;
  double *coords;
  int *zone_verts, *zone_attr, *zone_line;
  int *bdr_verts, *bdr_attr, *bdr_line;
  unsigned char *zone_geom, *bdr_geom;
  // Curved nodes (curve_order > 1): MFEM's dof values, then blast_gpu's nodes.
  int curve_order, uniform, ndofs, nodes_line;
  double *values, *node_coords;
  int *zone_nodes;
} MeshData;

// Record "path:line: message" as a BLAST_ERR_INPUT raised at the caller's location.
static int InputError(const char *file, int line, const char *func, const Reader *r, int lineno,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
static int InputError(const char *file, int line, const char *func, const Reader *r, int lineno,
                      const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return BlastErrorRaise(file, line, func, BLAST_ERR_INPUT, "%s:%d: %s", r->path, lineno, msg);
}
#define ReadFail(r, lineno, ...) \
  return InputError(__FILE__, __LINE__, __func__, r, lineno, __VA_ARGS__)

// Only a regular file of at most BLAST_MESH_MAX_BYTES is read (a FIFO, /dev/zero, a
// directory or a huge file is refused before any read, without blocking), into one buffer
// of its size: the memory of the read is bounded by the cap.
static int ReadWholeFile(const char *path, char **out, size_t *len) {
  FILE *fp = NULL;
  BlastFileProbe probe;
  BlastProbeRegularFile(path, BLAST_MESH_MAX_BYTES, &probe, &fp);
  BlastCheck(probe.status != BLAST_FILE_TOO_BIG, BLAST_ERR_INPUT,
             "'%s' has %zu bytes (%.2f GiB), more than the %.2f GiB a mesh file may "
             "have (every rank reads the serial mesh: make large meshes by refinement, [mesh] "
             "refine_serial and refine_parallel)",
             path, probe.size, (double)probe.size / 1073741824.0,
             (double)BLAST_MESH_MAX_BYTES / 1073741824.0);
  BlastCall(BlastFileProbeError(path, "mesh", BLAST_MESH_MAX_BYTES, &probe));
  const size_t size = probe.size;
  // One byte more than the size: a file that grew since fstat is noticed, not followed.
  const size_t cap = size + 1;
  char *buf = NULL;
  int ierr = BlastMalloc(cap + 1, &buf);
  size_t n = 0;
  while (!ierr && n < cap) {
    const size_t got = fread(buf + n, 1, cap - n, fp);
    if (!got) break;
    n += got;
  }
  int read_errno = errno, failed = !ierr && ferror(fp);
  fclose(fp);
  if (ierr) {
    BlastFree(&buf);
    BlastCall(ierr);
  }
  if (failed) {
    BlastFree(&buf);
    BlastError(BLAST_ERR_INPUT, "cannot read mesh file '%s': %s", path, strerror(read_errno));
  }
  if (n > size) {
    BlastFree(&buf);
    BlastError(BLAST_ERR_INPUT,
               "'%s': the mesh file grew while it was read (another program is writing it?)", path);
  }
  buf[n] = '\0';
  *out = buf;
  *len = n;
  return 0;
}

static int IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Split the buffer into lines (comments from '#' dropped) and whitespace tokens, in place.
static int Tokenize(Reader *r, size_t len) {
  char *p = r->buf, *end = r->buf + len;
  int lineno = 0;
  while (p < end) {
    char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    lineno++;
    char *nul = memchr(p, '\0', (size_t)(eol - p));
    if (nul) ReadFail(r, lineno, "NUL byte in the file (expected a text mesh file)");
    *eol = '\0';
    char *hash = strchr(p, '#');
    if (hash) *hash = '\0';
    Line line = {lineno, (int)r->ntok, 0};
    for (char *q = p; *q;) {
      while (IsSpace(*q)) q++;
      if (!*q) break;
      if (r->ntok == r->cap_tok) {
        r->cap_tok = r->cap_tok ? 2 * r->cap_tok : 1024;
        BlastCall(BlastRealloc(r->cap_tok, &r->tok));
      }
      r->tok[r->ntok++] = q;
      line.ntok++;
      while (*q && !IsSpace(*q)) q++;
      if (*q) *q++ = '\0';
    }
    BlastCheck(r->ntok < INT_MAX, BLAST_ERR_INPUT, "%s: too many tokens", r->path);
    if (line.ntok) {
      if (r->nlines == r->cap_lines) {
        r->cap_lines = r->cap_lines ? 2 * r->cap_lines : 256;
        BlastCall(BlastRealloc(r->cap_lines, &r->lines));
      }
      r->lines[r->nlines++] = line;
    }
    p = eol + 1;
  }
  r->eof_line = lineno > 0 ? lineno : 1;
  return 0;
}

static const char *Tok(const Reader *r, const Line *l, int i) {
  return r->tok[l->first + i];
}

// The tokens of a line joined by spaces (shortened), for messages.
static const char *LineText(const Reader *r, const Line *l, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < l->ntok && n + 1 < size; i++) {
    int w = snprintf(buf + n, size - n, "%s%s", i ? " " : "", Tok(r, l, i));
    if (w < 0) break;
    n += (size_t)w;
  }
  if (n + 1 >= size && size > 4) strcpy(buf + size - 4, "...");
  return buf;
}

static int ParseInt(const char *s, int *v) {
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (end == s || *end || errno == ERANGE || x < INT_MIN || x > INT_MAX) return 0;
  *v = (int)x;
  return 1;
}

static int ParseDouble(const char *s, double *v) {
  char *end;
  double x = strtod(s, &end);
  if (end == s || *end || !isfinite(x)) return 0;
  *v = x;
  return 1;
}

// Counts read from the file size the arrays, so a corrupt count must not make the reader
// allocate more than the rest of the file can fill: a count larger than that fails at the
// end of the file anyway (with the same message), not in malloc.
static int LinesLeft(const Reader *r) {
  return r->nlines - r->cur;
}
static size_t TokensLeft(const Reader *r) {
  return r->cur < r->nlines ? r->ntok - (size_t)r->lines[r->cur].first : 0;
}
static size_t AtMost(size_t n, size_t left) {
  return n < left ? n : left;
}

static int NextLine(Reader *r, const char *expected, const Line **line) {
  if (r->cur >= r->nlines)
    ReadFail(r, r->eof_line, "unexpected end of file (expected %s)", expected);
  *line = &r->lines[r->cur++];
  return 0;
}

static int ExpectKeyword(Reader *r, const char *keyword, const char *order_hint) {
  const Line *l = NULL;
  char what[64], text[96];
  snprintf(what, sizeof what, "the '%s' section", keyword);
  BlastCall(NextLine(r, what, &l));
  if (l->ntok != 1 || strcmp(Tok(r, l, 0), keyword))
    ReadFail(r, l->lineno, "found '%s' where the '%s' section was expected (%s)",
             LineText(r, l, text, sizeof text), keyword, order_hint);
  return 0;
}

// A line holding one integer in [lo, hi].
static int ReadIntLine(Reader *r, const char *what, int lo, int hi, int *v) {
  const Line *l = NULL;
  char text[96];
  BlastCall(NextLine(r, what, &l));
  if (l->ntok != 1 || !ParseInt(Tok(r, l, 0), v) || *v < lo || *v > hi)
    ReadFail(r, l->lineno, "found '%s' (expected %s: one integer in [%d, %d])",
             LineText(r, l, text, sizeof text), what, lo, hi);
  return 0;
}

// A line "Key: value" (the value an integer in [lo, hi]).
static int ReadKeyInt(Reader *r, const char *key, int lo, int hi, int *v) {
  const Line *l = NULL;
  char text[96], what[64];
  snprintf(what, sizeof what, "'%s <integer>'", key);
  BlastCall(NextLine(r, what, &l));
  if (l->ntok != 2 || strcmp(Tok(r, l, 0), key) || !ParseInt(Tok(r, l, 1), v) || *v < lo || *v > hi)
    ReadFail(r, l->lineno, "found '%s' (expected '%s <integer in [%d, %d]>')",
             LineText(r, l, text, sizeof text), key, lo, hi);
  return 0;
}

// `n` element lines of the given entity dimension: "attr geom v0 v1 ...", converted to
// lexicographic corner order. `kind` is "element" or "boundary element".
static int ReadElementLines(Reader *r, int mesh_dim, int entity_dim, const char *kind, int n,
                            int *verts, int *attr, int *lineof, unsigned char *geoms) {
  const int geom = kTensorGeom[entity_dim], stride = kGeomVerts[geom];
  for (int e = 0; e < n; e++) {
    const Line *l = NULL;
    char what[96], text[96];
    snprintf(what, sizeof what, "%s %d of %d", kind, e + 1, n);
    BlastCall(NextLine(r, what, &l));
    lineof[e] = l->lineno;
    int a, g;
    if (!ParseInt(Tok(r, l, 0), &a) || l->ntok < 2)
      ReadFail(r, l->lineno,
               "found '%s' where %s was expected ('<attribute> <geometry> <vertices>')",
               LineText(r, l, text, sizeof text), what);
    if (a < 1)
      ReadFail(r, l->lineno, "%s %d has attribute %d (expected a positive integer)", kind, e, a);
    if (!ParseInt(Tok(r, l, 1), &g))
      ReadFail(r, l->lineno, "%s %d: geometry type '%s' is not an integer (expected %d, %s)", kind,
               e, Tok(r, l, 1), geom, kGeomName[geom]);
    if (g < 0 || g >= kNumGeoms)
      ReadFail(r, l->lineno, "%s %d: unknown geometry type %d (expected %d, %s)", kind, e, g, geom,
               kGeomName[geom]);
    if (g > kGeomCube)
      ReadFail(r, l->lineno,
               "%s %d: unsupported element type %d (%s) (expected segments (1), triangles (2), "
               "squares (3), tetrahedra (4) or cubes (5); boundary points (0) in 1D)",
               kind, e, g, kGeomName[g]);
    const int simplex = entity_dim >= 2 ? entity_dim * 2 - 2 : geom;  // triangle, tet
    if (g != geom && g != simplex)
      ReadFail(r, l->lineno,
               "%s %d has geometry %d (%s), but %ss of a %dD mesh have geometry %d (%s)%s", kind, e,
               g, kGeomName[g], kind, mesh_dim, geom, kGeomName[geom],
               entity_dim >= 2 ? " or that of a simplex" : "");
    const int nv = kGeomVerts[g];
    if (l->ntok - 2 != nv)
      ReadFail(r, l->lineno, "%s %d (%s) lists %d vertices (expected %d)", kind, e, kGeomName[g],
               l->ntok - 2, nv);
    int mv[8];
    for (int c = 0; c < nv; c++) {
      if (!ParseInt(Tok(r, l, 2 + c), &mv[c]))
        ReadFail(r, l->lineno, "%s %d: vertex index '%s' is not an integer", kind, e,
                 Tok(r, l, 2 + c));
      if (mv[c] < 0)
        ReadFail(r, l->lineno, "%s %d: vertex index %d is negative (expected >= 0)", kind, e,
                 mv[c]);
      for (int c2 = 0; c2 < c; c2++)
        if (mv[c2] == mv[c])
          ReadFail(r, l->lineno, "%s %d: vertex %d appears twice (expected %d distinct vertices)",
                   kind, e, mv[c], nv);
    }
    // Tensor corners lexicographic; simplex vertices as MFEM lists them, slots padded.
    for (int c = 0; c < stride; c++)
      verts[(size_t)e * stride + c] = c >= nv                                ? -1
                                      : (g == kGeomSquare || g == kGeomCube) ? mv[kLexToMfem[c]]
                                                                             : mv[c];
    attr[e] = a;
    geoms[e] = (unsigned char)g;
  }
  return 0;
}

// "FiniteElementCollection: NAME": H1 collections of order 1..4 (meshio-nodes.h).
static int CheckCollection(const Reader *r, const Line *l, int dim, MeshData *m) {
  char text[96], why[160];
  if (l->ntok != 2 || strcmp(Tok(r, l, 0), "FiniteElementCollection:"))
    ReadFail(r, l->lineno, "found '%s' (expected 'FiniteElementCollection: <name>')",
             LineText(r, l, text, sizeof text));
  if (BlastMfemCollection(Tok(r, l, 1), dim, &m->curve_order, &m->uniform, why, sizeof why))
    ReadFail(r, l->lineno, "unsupported nodes collection '%s': %s", Tok(r, l, 1), why);
  m->nodes_line = l->lineno;
  return 0;
}

// Vertex numbers below the number of vertices; one kind of 3D zone (tets or hexes).
static int CheckVertexIndices(Reader *r, const MeshData *m) {
  const int nc = 1 << m->dim, nf = 1 << (m->dim - 1);
  for (int z = 0; z < m->nzones; z++) {
    for (int c = 0; c < nc; c++)
      if (m->zone_verts[(size_t)z * nc + c] >= m->nverts)
        ReadFail(r, m->zone_line[z],
                 "element %d: vertex index %d out of range (expected < %d, the "
                 "number of vertices)",
                 z, m->zone_verts[(size_t)z * nc + c], m->nverts);
    if (m->dim == 3 && m->zone_geom[z] != m->zone_geom[0])
      ReadFail(r, m->zone_line[z],
               "element %d is a %s but element 0 is a %s (3D meshes are all tetrahedra or all "
               "hexahedra)",
               z, kGeomName[m->zone_geom[z]], kGeomName[m->zone_geom[0]]);
  }
  for (int f = 0; f < m->nbdr; f++)
    for (int c = 0; c < nf; c++)
      if (m->bdr_verts[(size_t)f * nf + c] >= m->nverts)
        ReadFail(r, m->bdr_line[f],
                 "boundary element %d: vertex index %d out of range (expected < %d, the number "
                 "of vertices)",
                 f, m->bdr_verts[(size_t)f * nf + c], m->nverts);
  return 0;
}

// Curved nodes: blast_gpu's nodes in lattice order from MFEM's dof values; the vertices
// are the vertex dofs.
static int ConvertNodes(MeshData *m) {
  const int dim = m->dim;
  BlastCall(BlastMalloc((size_t)m->ndofs * dim, &m->node_coords));
  BlastCall(BlastMalloc((size_t)m->nverts * dim, &m->coords));
  memcpy(m->node_coords, m->values, sizeof(double) * m->ndofs * dim);
  BlastMfemNodesToLattice(dim, m->nzones, m->zone_geom, m->curve_order, m->uniform, m->zone_nodes,
                          m->values, m->node_coords);
  memcpy(m->coords, m->node_coords, sizeof(double) * m->nverts * dim);
  return 0;
}

// Vertex coordinates: explicit lines, or a linear `nodes` grid function.
static int ReadVertices(Reader *r, MeshData *m) {
  BlastCall(ExpectKeyword(r, "vertices", "after 'boundary'"));
  BlastCall(ReadIntLine(r, "the number of vertices", 1, INT_MAX / 3, &m->nverts));
  const int dim = m->dim, nv = m->nverts;
  const Line *l = NULL;
  char text[96];
  BlastCall(NextLine(r, "the space dimension or 'nodes'", &l));
  if (l->ntok == 1 && !strcmp(Tok(r, l, 0), "nodes")) {
    BlastCall(NextLine(r, "'FiniteElementSpace'", &l));
    if (l->ntok != 1 || strcmp(Tok(r, l, 0), "FiniteElementSpace"))
      ReadFail(r, l->lineno, "found '%s' (expected 'FiniteElementSpace')",
               LineText(r, l, text, sizeof text));
    BlastCall(NextLine(r, "'FiniteElementCollection: <name>'", &l));
    BlastCall(CheckCollection(r, l, dim, m));
    // Curved: MFEM's dof numbering needs the elements (read before); vertex numbers are
    // checked first, as for explicit vertices.
    if (m->curve_order > 1) BlastCall(CheckVertexIndices(r, m));
    int vdim, ordering;
    BlastCall(ReadKeyInt(r, "VDim:", 1, 3, &vdim));
    if (vdim != dim)
      ReadFail(r, r->lines[r->cur - 1].lineno,
               "nodes have VDim %d but the mesh has dimension %d (expected VDim: %d; surface "
               "meshes are not supported)",
               vdim, dim, dim);
    BlastCall(ReadKeyInt(r, "Ordering:", 0, 1, &ordering));
    int nd = nv;  // the dofs: the vertices, or (curved) MFEM's H1 dofs of order p
    if (m->curve_order > 1) {
      const int stride = BlastGeomNumNodes(kTensorGeom[dim], m->curve_order);
      int bad = -1;
      BlastCall(BlastMalloc((size_t)m->nzones * stride, &m->zone_nodes));
      if (BlastMfemNodeDofs(dim, nv, m->nzones, m->zone_verts, m->zone_geom, m->curve_order,
                            m->zone_nodes, &m->ndofs, &bad)) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
        BlastErrorClear();
        ReadFail(r, bad >= 0 ? m->zone_line[bad] : m->nodes_line, "element %d: %s", bad, msg);
      }
      nd = m->ndofs;
    }
    // nd*dim numbers, any number per line. byNODES: all x, then all y, ...; byVDIM: x y z.
    // Fewer numbers left in the file than that: the loop fails before the end, no storage.
    size_t count = 0, total = (size_t)nd * dim;
    double **dest = m->curve_order > 1 ? &m->values : &m->coords;
    if (total <= TokensLeft(r)) BlastCall(BlastMalloc(total, dest));
    while (count < total) {
      char what[96];
      snprintf(what, sizeof what, "node value %zu of %zu (%d nodes x VDim %d)", count + 1, total,
               nd, dim);
      BlastCall(NextLine(r, what, &l));
      for (int i = 0; i < l->ntok; i++, count++) {
        if (count >= total)
          ReadFail(r, l->lineno, "more node values than %d nodes x VDim %d = %zu", nd, dim, total);
        double x;
        if (!ParseDouble(Tok(r, l, i), &x))
          ReadFail(r, l->lineno, "node value %zu is '%s' (expected a finite number)", count + 1,
                   Tok(r, l, i));
        size_t v = ordering == 0 ? count % nd : count / dim;
        int c = ordering == 0 ? (int)(count / nd) : (int)(count % dim);
        if (*dest) (*dest)[v * dim + c] = x;
      }
    }
    if (m->curve_order > 1) BlastCall(ConvertNodes(m));
  } else {
    int sdim;
    if (l->ntok != 1 || !ParseInt(Tok(r, l, 0), &sdim))
      ReadFail(r, l->lineno,
               "found '%s' after the number of vertices (expected the space dimension or 'nodes')",
               LineText(r, l, text, sizeof text));
    if (sdim != dim)
      ReadFail(r, l->lineno,
               "vertex space dimension %d differs from the mesh dimension %d (expected %d; "
               "surface meshes are not supported)",
               sdim, dim, dim);
    BlastCall(BlastMalloc(AtMost((size_t)nv, (size_t)LinesLeft(r)) * dim, &m->coords));
    for (int v = 0; v < nv; v++) {
      char what[96];
      snprintf(what, sizeof what, "the coordinates of vertex %d of %d", v, nv);
      BlastCall(NextLine(r, what, &l));
      if (l->ntok != dim)
        ReadFail(r, l->lineno, "vertex %d has %d coordinates (expected %d)", v, l->ntok, dim);
      for (int c = 0; c < dim; c++)
        if (!ParseDouble(Tok(r, l, c), &m->coords[(size_t)v * dim + c]))
          ReadFail(r, l->lineno, "vertex %d: coordinate '%s' is not a finite number", v,
                   Tok(r, l, c));
    }
  }
  if (r->cur < r->nlines) {
    l = &r->lines[r->cur];
    ReadFail(r, l->lineno, "unexpected '%s' after the vertex coordinates (expected end of file)",
             LineText(r, l, text, sizeof text));
  }
  return 0;
}

static int ParseMesh(Reader *r, MeshData *m) {
  const Line *l = NULL;
  char text[96];
  BlastCall(NextLine(r, "'MFEM mesh v1.0'", &l));
  int is_mfem = l->ntok >= 2 && !strcmp(Tok(r, l, 0), "MFEM");
  if (!is_mfem || l->ntok != 3 || strcmp(Tok(r, l, 1), "mesh") || strcmp(Tok(r, l, 2), "v1.0"))
    ReadFail(r, l->lineno, "%s '%s' (expected 'MFEM mesh v1.0')",
             is_mfem ? "unsupported mesh format" : "not an MFEM mesh file: first line is",
             LineText(r, l, text, sizeof text));
  BlastCall(ExpectKeyword(r, "dimension", "the first section"));
  BlastCall(ReadIntLine(r, "the mesh dimension", 1, 3, &m->dim));
  const int dim = m->dim, nc = 1 << dim, nf = 1 << (dim - 1);
  BlastCall(ExpectKeyword(r, "elements", "after 'dimension'"));
  BlastCall(ReadIntLine(r, "the number of elements", 1, INT_MAX / 8, &m->nzones));
  const size_t zcap = AtMost((size_t)m->nzones, (size_t)LinesLeft(r));
  BlastCall(BlastMalloc(zcap * nc, &m->zone_verts));
  BlastCall(BlastMalloc(zcap, &m->zone_attr));
  BlastCall(BlastMalloc(zcap, &m->zone_line));
  BlastCall(BlastMalloc(zcap, &m->zone_geom));
  BlastCall(ReadElementLines(r, dim, dim, "element", m->nzones, m->zone_verts, m->zone_attr,
                             m->zone_line, m->zone_geom));
  BlastCall(ExpectKeyword(r, "boundary", "after the elements"));
  BlastCall(ReadIntLine(r, "the number of boundary elements", 0, INT_MAX / 4, &m->nbdr));
  const size_t bcap = AtMost((size_t)m->nbdr, (size_t)LinesLeft(r));
  BlastCall(BlastMalloc(bcap * nf + 1, &m->bdr_verts));
  BlastCall(BlastMalloc(bcap + 1, &m->bdr_attr));
  BlastCall(BlastMalloc(bcap + 1, &m->bdr_line));
  BlastCall(BlastMalloc(bcap + 1, &m->bdr_geom));
  BlastCall(ReadElementLines(r, dim, dim - 1, "boundary element", m->nbdr, m->bdr_verts,
                             m->bdr_attr, m->bdr_line, m->bdr_geom));
  BlastCall(ReadVertices(r, m));
  if (m->curve_order <= 1) BlastCall(CheckVertexIndices(r, m));
  return 0;
}

// Checks that need the mesh: zones are not inverted (first: a twisted zone also has
// "faces" that no boundary element matches); boundary elements are zone faces.
static int CheckMesh(const Reader *r, const MeshData *d, BlastMesh mesh) {
  int ierr = BlastMeshCheckJacobians(mesh, 2);
  if (ierr) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
    int z;
    if (ierr == BLAST_ERR_INPUT && sscanf(msg, "zone %d", &z) == 1 && z >= 0 && z < d->nzones)
      ReadFail(r, d->zone_line[z], "element %d: %s", z, msg);
    if (ierr == BLAST_ERR_INPUT) BlastError(ierr, "%s: %s", r->path, msg);  // the whole mesh's
    BlastCall(ierr);
  }
  BlastTopology *t;
  BlastCall(BlastTopologyCreate(mesh, &t));
  const int nf = 1 << (d->dim - 1);
  for (int f = 0; f < d->nbdr; f++) {
    // In 1D every vertex id is a "facet"; one that no zone uses is not a face.
    int facet = BlastTopologyFindFacet(t, &d->bdr_verts[(size_t)f * nf]);
    if (facet < 0 || t->facet_zone[2 * facet] < 0) {
      BlastTopologyDestroy(&t);
      ReadFail(r, d->bdr_line[f], "boundary element %d is not a face of any element", f);
    }
  }
  BlastTopologyDestroy(&t);
  return 0;
}

static void FreeMeshData(MeshData *m) {
  BlastFree(&m->coords);
  BlastFree(&m->zone_verts);
  BlastFree(&m->zone_attr);
  BlastFree(&m->zone_line);
  BlastFree(&m->bdr_verts);
  BlastFree(&m->bdr_attr);
  BlastFree(&m->bdr_line);
  BlastFree(&m->zone_geom);
  BlastFree(&m->bdr_geom);
  BlastFree(&m->values);
  BlastFree(&m->node_coords);
  BlastFree(&m->zone_nodes);
}

static int IsGmsh(const char *buf, size_t len) {
  return len >= 11 && !memcmp(buf, "$MeshFormat", 11);
}

// Parse the text in r->buf (len bytes, NUL-terminated; freed here) into a mesh.
static int ReadFromBuffer(Reader *r, size_t len, BlastMesh *mesh) {
  MeshData d = {0};
  BlastMesh m = NULL;
  if (IsGmsh(r->buf, len)) {  // a Gmsh .msh file (io/gmsh.c)
    int ierr = BlastMeshReadGmshBuffer(r->path, r->buf, len, mesh);
    BlastFree(&r->buf);
    BlastCall(ierr);
    return 0;
  }
  int ierr = Tokenize(r, len);
  if (!ierr) ierr = ParseMesh(r, &d);
  if (!ierr) {
    BlastMeshDesc desc = {0};
    desc.dim = d.dim, desc.nverts = d.nverts, desc.nzones = d.nzones, desc.nbdr = d.nbdr;
    desc.coords = d.coords, desc.zone_verts = d.zone_verts, desc.zone_geom = d.zone_geom;
    desc.zone_attr = d.zone_attr, desc.bdr_verts = d.bdr_verts, desc.bdr_geom = d.bdr_geom;
    desc.bdr_attr = d.bdr_attr, desc.curve_order = d.curve_order, desc.nnodes = d.ndofs;
    desc.node_coords = d.node_coords, desc.zone_nodes = d.zone_nodes;
    ierr = BlastMeshCreateFrom(&desc, &m);
  }
  if (!ierr) ierr = CheckMesh(r, &d, m);
  FreeMeshData(&d);
  BlastFree(&r->buf);
  BlastFree(&r->tok);
  BlastFree(&r->lines);
  if (ierr) BlastMeshDestroy(&m);
  BlastCall(ierr);
  *mesh = m;
  return 0;
}

int BlastMeshRead(const char *path, BlastMesh *mesh) {
  BlastCheck(path && mesh, BLAST_ERR_ARG, "NULL argument");
  Reader r = {0};
  size_t len = 0;
  r.path = path;
  BlastCall(ReadWholeFile(path, &r.buf, &len));
  BlastCall(ReadFromBuffer(&r, len, mesh));
  return 0;
}

int BlastMeshReadBuffer(const char *name, const char *text, size_t len, BlastMesh *mesh) {
  BlastCheck(name && (text || !len) && mesh, BLAST_ERR_ARG, "NULL argument");
  Reader r = {0};
  r.path = name;
  BlastCall(BlastMalloc(len + 1, &r.buf));
  if (len) memcpy(r.buf, text, len);
  r.buf[len] = '\0';
  BlastCall(ReadFromBuffer(&r, len, mesh));
  return 0;
}

// ---------------------------------------------------------------------------------------
// Cartesian box

int BlastMeshCreateBox(int dim, const int *n, const double *size, BlastMesh *mesh) {
  BlastCheck(n && size && mesh, BLAST_ERR_ARG, "NULL argument");
  BlastCheck(dim >= 1 && dim <= 3, BLAST_ERR_INPUT, "box mesh dimension %d (expected 1, 2 or 3)",
             dim);
  const char axis[] = "xyz";
  int64_t nverts = 1, nzones = 1, nbdr = 0;
  char elements[96];  // "[mesh] elements = 4 4 4" for messages
  int w = snprintf(elements, sizeof elements, "[mesh] elements =");
  for (int g = 0; g < dim && w > 0 && (size_t)w < sizeof elements; g++)
    w += snprintf(elements + w, sizeof elements - (size_t)w, " %d", n[g]);
  for (int g = 0; g < dim; g++) {
    BlastCheck(n[g] >= 1, BLAST_ERR_INPUT, "box mesh: %d zones along %c (expected >= 1)", n[g],
               axis[g]);
    BlastCheck(isfinite(size[g]) && size[g] > 0.0, BLAST_ERR_INPUT,
               "box mesh: size %g along %c (expected a finite number > 0)", size[g], axis[g]);
    nverts *= n[g] + 1;  // < 2^28 * (2^31 + 1): no overflow
    nzones *= n[g];
    BlastCheck(nverts < INT_MAX / 8 && nzones < INT_MAX / 8, BLAST_ERR_INPUT,
               "%s: %d zones along %c makes more than 2^28 zones or vertices, the most the mesh "
               "generator makes (32-bit ids; every rank holds the serial mesh): use fewer "
               "elements and refine ([mesh] refine_parallel divides the zones among the ranks)",
               elements, n[g], axis[g]);
  }
  BlastCall(BlastSerialMeshMemoryCheck(dim, nzones, 0, elements));
  for (int g = 0; g < dim; g++) nbdr += 2 * nzones / n[g];
  const int nc = 1 << dim, nf = 1 << (dim - 1);
  int N[3] = {1, 1, 1}, stride[3];  // zones per direction; vertex id strides
  for (int g = 0; g < dim; g++) N[g] = n[g];
  stride[0] = 1, stride[1] = N[0] + 1, stride[2] = (N[0] + 1) * (N[1] + 1);
  double *coords = NULL;
  int *zv = NULL, *bv = NULL, *ba = NULL;
  int ierr = BlastMalloc(nverts * dim, &coords);
  if (!ierr) ierr = BlastMalloc(nzones * nc, &zv);
  if (!ierr) ierr = BlastMalloc(nbdr * nf, &bv);
  if (!ierr) ierr = BlastMalloc(nbdr, &ba);
  if (!ierr) {
    for (int64_t v = 0; v < nverts; v++) {
      int64_t r = v;
      for (int g = 0; g < dim; g++) {
        int i = (int)(r % (N[g] + 1));
        r /= N[g] + 1;
        coords[v * dim + g] = ((double)i / N[g]) * size[g];  // as MFEM's Cartesian meshes
      }
    }
    for (int64_t z = 0; z < nzones; z++) {
      int64_t r = z, base = 0;
      for (int g = 0; g < dim; g++) base += (r % N[g]) * stride[g], r /= N[g];
      for (int c = 0; c < nc; c++) {
        int64_t id = base;
        for (int g = 0; g < dim; g++)
          if ((c >> g) & 1) id += stride[g];
        zv[z * nc + c] = (int)id;
      }
    }
    // Boundary faces: for each normal direction g and side s, the faces lexicographic in
    // the other directions; corners lexicographic in the face.
    int64_t f = 0;
    const double tol = 1e-6;
    for (int g = 0; g < dim; g++) {
      int other[2] = {0, 0}, no = 0;
      for (int h = 0; h < dim; h++)
        if (h != g) other[no++] = h;
      int64_t nface = nzones / N[g];
      for (int s = 0; s < 2; s++) {
        for (int64_t k = 0; k < nface; k++, f++) {
          int idx[3] = {0, 0, 0};
          idx[g] = s * N[g];
          int64_t r = k;
          for (int o = 0; o < no; o++) idx[other[o]] = (int)(r % N[other[o]]), r /= N[other[o]];
          double center[3] = {0.0, 0.0, 0.0};
          for (int c = 0; c < nf; c++) {
            int64_t id = 0;
            for (int h = 0; h < dim; h++) id += (int64_t)idx[h] * stride[h];
            for (int o = 0; o < no; o++)
              if ((c >> o) & 1) id += stride[other[o]];
            bv[f * nf + c] = (int)id;
            for (int h = 0; h < dim; h++) center[h] += coords[id * dim + h] / nf;
          }
          // Attribute by the face centre (spec 3.1).
          int attr;
          if (center[0] <= tol || center[0] >= size[0] - tol)
            attr = 1;
          else if (dim == 2)
            attr = 2;
          else
            attr = (center[1] <= tol || center[1] >= size[1] - tol) ? 2 : 3;
          ba[f] = attr;
        }
      }
    }
    ierr =
        BlastMeshCreate(dim, (int)nverts, coords, (int)nzones, zv, NULL, (int)nbdr, bv, ba, mesh);
  }
  BlastFree(&coords);
  BlastFree(&zv);
  BlastFree(&bv);
  BlastFree(&ba);
  BlastCall(ierr);
  return 0;
}

int BlastMeshPeekDim(const char *path, int *dim) {
  *dim = 0;
  FILE *fp = NULL;
  BlastFileProbe probe;
  if (BlastProbeRegularFile(path, BLAST_MESH_MAX_BYTES, &probe, &fp) != BLAST_FILE_OK) return 0;
  char line[256];
  if (fgets(line, sizeof line, fp) && IsGmsh(line, strlen(line))) {
    // A .msh file: its dimension is that of its highest elements; read it.
    fclose(fp);
    BlastMesh m = NULL;
    if (BlastMeshRead(path, &m)) {
      BlastErrorClear();
      return 0;
    }
    *dim = BlastMeshDim(m);
    BlastMeshDestroy(&m);
    return 0;
  }
  rewind(fp);
  int want = 0;  // the line after "dimension" holds it
  for (int n = 0; n < 1000 && fgets(line, sizeof line, fp); n++) {
    char word[32] = "";
    if (sscanf(line, "%31s", word) != 1 || word[0] == '#') continue;
    if (want) {
      int d = 0;
      if (sscanf(word, "%d", &d) == 1 && d >= 1 && d <= 3) *dim = d;
      break;
    }
    want = !strcmp(word, "dimension");
  }
  fclose(fp);
  return 0;
}
