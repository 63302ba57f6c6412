// Gmsh .msh reader, formats 2.2 and 4.1, ASCII and binary: the parser (see meshio.h;
// io/gmsh_build.c turns what is parsed here into a mesh).
//
// The whole file is in memory. Every count read from the file is checked against the
// bytes left before anything of that size is allocated, and arrays grow with what was
// actually read, so a corrupt count fails at the end of the data, never in malloc.
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmsh-impl.h"
#include "meshio.h"

// ---------------------------------------------------------------------------------------
// Messages

void GmshWhere(const Gmsh *g, size_t pos, char *out, size_t size) {
  if (pos > g->len) pos = g->len;
  if (g->binary) {
    snprintf(out, size, "%s: byte %zu", g->name, pos);
    return;
  }
  size_t line = 1;
  for (const char *p = g->buf, *end = g->buf + pos; (p = memchr(p, '\n', (size_t)(end - p)));)
    p++, line++;
  snprintf(out, size, "%s:%zu", g->name, line);
}

int GmshFailAt(const char *file, int line, const char *func, const Gmsh *g, size_t pos,
               const char *fmt, ...) {
  char msg[1024], where[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  GmshWhere(g, pos, where, sizeof where);
  return BlastErrorRaise(file, line, func, BLAST_ERR_INPUT, "%s: %s", where, msg);
}

// ---------------------------------------------------------------------------------------
// ASCII tokens

static int IsWs(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static void SkipWs(Gmsh *g) {
  while (g->pos < g->len && IsWs(g->buf[g->pos])) g->pos++;
}

// Where the next value starts (ASCII: after whitespace; binary data has none).
static size_t Here(Gmsh *g) {
  if (!g->binary) SkipWs(g);
  return g->pos;
}

// The next whitespace-separated token, copied (shortened, non-printable bytes as '?')
// into tok for parsing and messages; *at is where it starts.
static int Token(Gmsh *g, const char *what, char *tok, size_t size, size_t *at) {
  SkipWs(g);
  if (g->pos >= g->len) GmshFail(g, g->len, "unexpected end of file (expected %s)", what);
  *at = g->pos;
  size_t n = 0;
  while (g->pos < g->len && !IsWs(g->buf[g->pos])) {
    const char c = g->buf[g->pos++];
    if (n + 1 < size) tok[n++] = (c >= 32 && c < 127) ? c : '?';
  }
  if (n + 1 == size && size > 4) memcpy(tok + size - 4, "...", 3);
  tok[n] = '\0';
  return 0;
}

static int ReadI64(Gmsh *g, const char *what, int64_t lo, int64_t hi, int64_t *v) {
  char tok[40], *end;
  size_t at = 0;
  BlastCall(Token(g, what, tok, sizeof tok, &at));
  errno = 0;
  const long long x = strtoll(tok, &end, 10);
  if (end == tok || *end || errno == ERANGE || x < lo || x > hi)
    GmshFail(g, at, "found '%s' (expected %s: an integer in [%lld, %lld])", tok, what,
             (long long)lo, (long long)hi);
  *v = x;
  return 0;
}

static int ReadInt(Gmsh *g, const char *what, int lo, int hi, int *v) {
  int64_t x;
  BlastCall(ReadI64(g, what, lo, hi, &x));
  *v = (int)x;
  return 0;
}

static int ReadF64(Gmsh *g, const char *what, double *v) {
  char tok[40], *end;
  size_t at = 0;
  BlastCall(Token(g, what, tok, sizeof tok, &at));
  const double x = strtod(tok, &end);
  if (end == tok || *end || !isfinite(x))
    GmshFail(g, at, "found '%s' (expected %s: a finite number)", tok, what);
  *v = x;
  return 0;
}

static int ExpectWord(Gmsh *g, const char *word) {
  char tok[40], what[64];
  size_t at = 0;
  snprintf(what, sizeof what, "'%s'", word);
  BlastCall(Token(g, what, tok, sizeof tok, &at));
  if (strcmp(tok, word)) GmshFail(g, at, "found '%s' (expected '%s')", tok, word);
  return 0;
}

// Binary data starts after the newline that ends the ASCII line before it.
static int EndAsciiLine(Gmsh *g) {
  while (g->pos < g->len &&
         (g->buf[g->pos] == ' ' || g->buf[g->pos] == '\t' || g->buf[g->pos] == '\r'))
    g->pos++;
  if (g->pos >= g->len || g->buf[g->pos] != '\n')
    GmshFail(g, g->pos, "expected the end of the line before the binary data");
  g->pos++;
  return 0;
}

// ---------------------------------------------------------------------------------------
// Binary values (4-byte ints, 8-byte size_t and doubles, the file's byte order)

static int Need(Gmsh *g, size_t n, const char *what) {
  if (g->len - g->pos < n)
    GmshFail(g, g->pos, "truncated file: %s needs %zu bytes, %zu are left", what, n,
             g->len - g->pos);
  return 0;
}

static void Swap(unsigned char *b, int n) {
  for (int i = 0; i < n / 2; i++) {
    unsigned char t = b[i];
    b[i] = b[n - 1 - i], b[n - 1 - i] = t;
  }
}

static void Get(Gmsh *g, void *out, int n) {
  memcpy(out, g->buf + g->pos, (size_t)n);
  if (g->swap) Swap(out, n);
  g->pos += (size_t)n;
}

static int BinInt(Gmsh *g, const char *what, int64_t lo, int64_t hi, int *v) {
  int32_t x;
  BlastCall(Need(g, 4, what));
  const size_t at = Here(g);
  Get(g, &x, 4);
  if (x < lo || x > hi)
    GmshFail(g, at, "%s is %d (expected an integer in [%lld, %lld])", what, (int)x, (long long)lo,
             (long long)hi);
  *v = x;
  return 0;
}

static int BinSize(Gmsh *g, const char *what, uint64_t hi, int64_t *v) {
  uint64_t x;
  BlastCall(Need(g, 8, what));
  const size_t at = Here(g);
  Get(g, &x, 8);
  if (x > hi)
    GmshFail(g, at, "%s is %llu (expected at most %llu)", what, (unsigned long long)x,
             (unsigned long long)hi);
  *v = (int64_t)x;
  return 0;
}

static int BinF64(Gmsh *g, const char *what, double *v) {
  BlastCall(Need(g, 8, what));
  const size_t at = Here(g);
  Get(g, v, 8);
  if (!isfinite(*v)) GmshFail(g, at, "%s is not a finite number", what);
  return 0;
}

// Integers and sizes in the file's encoding: ASCII tokens, binary int32 or size_t.
static int Int(Gmsh *g, const char *what, int lo, int hi, int *v) {
  return g->binary ? BinInt(g, what, lo, hi, v) : ReadInt(g, what, lo, hi, v);
}
static int Size(Gmsh *g, const char *what, int64_t hi, int64_t *v) {
  return g->binary ? BinSize(g, what, (uint64_t)hi, v) : ReadI64(g, what, 0, hi, v);
}
static int F64(Gmsh *g, const char *what, double *v) {
  return g->binary ? BinF64(g, what, v) : ReadF64(g, what, v);
}
// A 4.1 tag (size_t in binary files) that blast_gpu stores as an int in [1, INT_MAX].
static int Tag(Gmsh *g, const char *what, int *v) {
  int64_t x;
  if (g->version == 2) return Int(g, what, 1, INT_MAX, v);
  if (g->binary) {
    BlastCall(Need(g, 8, what));
    const size_t at = Here(g);
    uint64_t u;
    Get(g, &u, 8);
    if (u < 1 || u > INT_MAX)
      GmshFail(g, at, "%s is %llu (expected a tag in [1, %d])", what, (unsigned long long)u,
               INT_MAX);
    *v = (int)u;
    return 0;
  }
  BlastCall(ReadI64(g, what, 1, INT_MAX, &x));
  *v = (int)x;
  return 0;
}

// A count of items of at least `min_bytes` bytes each must fit in the bytes left.
static int CheckCount(Gmsh *g, size_t at, int64_t n, size_t min_bytes, const char *what) {
  if ((uint64_t)n > (g->len - g->pos) / min_bytes)
    GmshFail(g, at, "%lld %s cannot fit in the %zu bytes left in the file", (long long)n, what,
             g->len - g->pos);
  return 0;
}

// ---------------------------------------------------------------------------------------
// Storage

// Room for item `n` in *p (capacity *cap items of `elem` bytes), doubling.
static int Grow(void *pp, size_t *cap, size_t n, size_t elem) {
  void **p = pp;
  if (n < *cap) return 0;
  size_t c = *cap ? 2 * *cap : 256;
  while (c <= n) c *= 2;
  void *q = realloc(*p, c * elem);
  BlastCheck(q, BLAST_ERR_MEM, "out of memory reading a Gmsh file (%zu items)", c);
  *p = q, *cap = c;
  return 0;
}

static int AddNode(Gmsh *g, size_t at, int tag, const double *x) {
  if (g->nnodes >= INT_MAX / 4) GmshFail(g, at, "more than %d nodes", INT_MAX / 4);
  BlastCall(Grow(&g->node_tag, &g->cap_nodes, (size_t)g->nnodes, sizeof(int)));
  BlastCall(Grow(&g->node_xyz, &g->cap_xyz, 3 * (size_t)g->nnodes + 2, sizeof(double)));
  BlastCall(Grow(&g->node_at, &g->cap_at, (size_t)g->nnodes, sizeof(size_t)));
  g->node_at[g->nnodes] = at;
  g->node_tag[g->nnodes] = tag;
  memcpy(&g->node_xyz[3 * (size_t)g->nnodes], x, 3 * sizeof(double));
  g->nnodes++;
  return 0;
}

void GmshFree(Gmsh *g) {
  free(g->node_tag), free(g->node_xyz), free(g->elem), free(g->enodes), free(g->ent);
  free(g->ent_phys), free(g->names), free(g->node_at);
  g->node_at = NULL;
  g->node_tag = NULL, g->node_xyz = NULL, g->elem = NULL, g->enodes = NULL, g->ent = NULL;
  g->ent_phys = NULL, g->names = NULL;
}

// One element: its type checked (refused types named here, where the file says them),
// its node tags appended.
static int AddElem(Gmsh *g, size_t at, int type, int edim, int entity, int phys, int64_t tag) {
  const GmshType t = GmshTypeInfo(type);
  switch (t.kind) {
    case GMSH_OK:
    case GMSH_POINT:
      break;
    case GMSH_SERENDIPITY:
      GmshFail(g, at,
               "element %lld is a %s (Gmsh type %d), an incomplete (serendipity) element: "
               "blast_gpu reads complete Lagrange elements only (Gmsh: Mesh.SecondOrderIncomplete "
               "= 0)",
               (long long)tag, t.name, type);
    case GMSH_PRISM:
    case GMSH_PYRAMID:
      GmshFail(g, at,
               "element %lld is a %s (Gmsh type %d): blast_gpu reads tetrahedra or hexahedra in "
               "3D, not prisms or pyramids",
               (long long)tag, t.name, type);
    case GMSH_TOO_HIGH:
      GmshFail(g, at,
               "element %lld is a %s (Gmsh type %d) of order %d: blast_gpu reads orders "
               "up to %d",
               (long long)tag, t.name, type, t.order, BLAST_MAX_CURVE_ORDER);
    default:
      GmshFail(g, at,
               "element %lld has Gmsh type %d, which blast_gpu does not read (points, lines, "
               "triangles, quadrilaterals, tetrahedra and hexahedra of orders 1 to %d)",
               (long long)tag, type, BLAST_MAX_CURVE_ORDER);
  }
  if (edim >= 0 && edim != t.dim)
    GmshFail(g, at, "element %lld is a %s (dimension %d) in a block of entities of dimension %d",
             (long long)tag, t.name, t.dim, edim);
  if (g->nelem >= INT_MAX / 8) GmshFail(g, at, "more than %d elements", INT_MAX / 8);
  BlastCall(Grow(&g->elem, &g->cap_elem, (size_t)g->nelem, sizeof(GmshElem)));
  BlastCall(Grow(&g->enodes, &g->cap_enodes, g->nenodes + (size_t)t.nnodes, sizeof(int)));
  GmshElem *e = &g->elem[g->nelem++];
  *e = (GmshElem){.type = type,
                  .edim = t.dim,
                  .entity = entity,
                  .phys = phys,
                  .tag = tag,
                  .where = at,
                  .first = g->nenodes};
  for (int a = 0; a < t.nnodes; a++) {
    char what[96];
    snprintf(what, sizeof what, "node %d of element %lld", a + 1, (long long)tag);
    BlastCall(Tag(g, what, &g->enodes[g->nenodes++]));
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// Sections

static int ReadPhysicalNames(Gmsh *g) {
  int64_t n;
  size_t at = Here(g);
  BlastCall(ReadI64(g, "the number of physical names", 0, INT_MAX, &n));
  BlastCall(CheckCount(g, at, n, 6, "physical names"));
  for (int64_t i = 0; i < n; i++) {
    int dim = 0, tag = 0;
    SkipWs(g);
    const size_t where = Here(g);
    BlastCall(ReadInt(g, "the dimension of a physical name", 0, 3, &dim));
    BlastCall(ReadInt(g, "the tag of a physical name", INT_MIN, INT_MAX, &tag));
    SkipWs(g);
    if (g->pos >= g->len || g->buf[g->pos] != '"')
      GmshFail(g, g->pos, "physical name %lld: expected a name in double quotes", (long long)i + 1);
    const size_t start = ++g->pos;
    while (g->pos < g->len && g->buf[g->pos] != '"' && g->buf[g->pos] != '\n') g->pos++;
    if (g->pos >= g->len || g->buf[g->pos] != '"')
      GmshFail(g, start - 1, "physical name %lld: the closing double quote is missing",
               (long long)i + 1);
    const size_t len = g->pos++ - start;
    if (len >= BLAST_MESH_NAME_MAX)
      GmshFail(g, where, "physical name %lld has %zu bytes (at most %d)", (long long)i + 1, len,
               BLAST_MESH_NAME_MAX - 1);
    BlastCall(Grow(&g->names, &g->cap_names, (size_t)g->nnames, sizeof(GmshName)));
    GmshName *nm = &g->names[g->nnames++];
    nm->dim = dim, nm->tag = tag, nm->where = where;
    memcpy(nm->name, g->buf + start, len);
    nm->name[len] = '\0';
    for (size_t c = 0; c < len; c++)
      if ((unsigned char)nm->name[c] < 32)
        GmshFail(g, where, "physical name %lld holds a control character", (long long)i + 1);
  }
  return ExpectWord(g, "$EndPhysicalNames");
}

static int ReadEntities(Gmsh *g) {
  int64_t count[4];
  if (g->binary) BlastCall(EndAsciiLine(g));
  for (int d = 0; d < 4; d++) {
    static const char *what[4] = {"the number of point entities", "the number of curve entities",
                                  "the number of surface entities",
                                  "the number of volume entities"};
    const size_t at = Here(g);
    BlastCall(Size(g, what[d], INT_MAX, &count[d]));
    BlastCall(CheckCount(g, at, count[d], g->binary ? 36 : 8, "entities"));
  }
  for (int d = 0; d < 4; d++) {
    for (int64_t i = 0; i < count[d]; i++) {
      int tag;
      int64_t nphys, nbound;
      double box[6];
      const size_t at = Here(g);
      BlastCall(Int(g, "an entity tag", INT_MIN, INT_MAX, &tag));
      for (int c = 0; c < (d ? 6 : 3); c++) BlastCall(F64(g, "an entity's bounding box", &box[c]));
      const size_t atn = Here(g);
      BlastCall(Size(g, "the number of physical tags of an entity", INT_MAX, &nphys));
      BlastCall(CheckCount(g, atn, nphys, g->binary ? 4 : 2, "physical tags"));
      if (g->nent >= INT_MAX / 2) GmshFail(g, at, "too many entities");
      BlastCall(Grow(&g->ent, &g->cap_ent, (size_t)g->nent, sizeof(GmshEntity)));
      g->ent[g->nent++] =
          (GmshEntity){.dim = d, .tag = tag, .nphys = (int)nphys, .first = g->nent_phys};
      for (int64_t k = 0; k < nphys; k++) {
        BlastCall(Grow(&g->ent_phys, &g->cap_ent_phys, g->nent_phys, sizeof(int)));
        BlastCall(Int(g, "a physical tag", INT_MIN, INT_MAX, &g->ent_phys[g->nent_phys++]));
      }
      if (d) {
        const size_t atb = Here(g);
        BlastCall(Size(g, "the number of bounding entities", INT_MAX, &nbound));
        BlastCall(CheckCount(g, atb, nbound, g->binary ? 4 : 2, "bounding entities"));
        for (int64_t k = 0; k < nbound; k++) {
          int b;
          BlastCall(Int(g, "a bounding entity tag", INT_MIN, INT_MAX, &b));
        }
      }
    }
  }
  return ExpectWord(g, "$EndEntities");
}

static int ReadNodes2(Gmsh *g) {
  int64_t n;
  size_t at = Here(g);
  BlastCall(ReadI64(g, "the number of nodes", 0, INT_MAX / 4, &n));
  if (g->binary) BlastCall(EndAsciiLine(g));
  BlastCall(CheckCount(g, at, n, g->binary ? 28 : 8, "nodes"));
  for (int64_t i = 0; i < n; i++) {
    int tag;
    double x[3];
    at = Here(g);
    BlastCall(Int(g, "a node tag", 1, INT_MAX, &tag));
    for (int c = 0; c < 3; c++) BlastCall(F64(g, "a node coordinate", &x[c]));
    BlastCall(AddNode(g, at, tag, x));
  }
  return ExpectWord(g, "$EndNodes");
}

static int ReadNodes4(Gmsh *g) {
  int64_t nblocks, n, minmax;
  if (g->binary) BlastCall(EndAsciiLine(g));
  size_t at = Here(g);
  BlastCall(Size(g, "the number of node blocks", INT_MAX, &nblocks));
  BlastCall(CheckCount(g, at, nblocks, g->binary ? 20 : 8, "node blocks"));
  at = Here(g);
  BlastCall(Size(g, "the number of nodes", INT_MAX / 4, &n));
  BlastCall(CheckCount(g, at, n, g->binary ? 32 : 8, "nodes"));
  BlastCall(Size(g, "the smallest node tag", INT64_MAX, &minmax));
  BlastCall(Size(g, "the largest node tag", INT64_MAX, &minmax));
  int64_t total = 0;
  for (int64_t b = 0; b < nblocks; b++) {
    int edim, etag, param;
    int64_t nb;
    BlastCall(Int(g, "the dimension of a node block", 0, 3, &edim));
    BlastCall(Int(g, "the entity tag of a node block", INT_MIN, INT_MAX, &etag));
    BlastCall(Int(g, "the parametric flag of a node block", 0, 1, &param));
    at = Here(g);
    BlastCall(Size(g, "the number of nodes in a block", n - total, &nb));
    const size_t first = (size_t)g->nnodes;
    for (int64_t i = 0; i < nb; i++) {
      int tag;
      const double zero[3] = {0.0, 0.0, 0.0};
      const size_t att = Here(g);
      BlastCall(Tag(g, "a node tag", &tag));
      BlastCall(AddNode(g, att, tag, zero));
    }
    for (int64_t i = 0; i < nb; i++) {
      double *x = &g->node_xyz[3 * (first + (size_t)i)], u;
      for (int c = 0; c < 3; c++) BlastCall(F64(g, "a node coordinate", &x[c]));
      for (int c = 0; c < (param ? edim : 0); c++)
        BlastCall(F64(g, "a parametric node coordinate", &u));
    }
    total += nb;
  }
  if (total != n)
    GmshFail(g, g->pos, "the node blocks hold %lld nodes, not the %lld the section announced",
             (long long)total, (long long)n);
  return ExpectWord(g, "$EndNodes");
}

static int ReadElements2(Gmsh *g) {
  int64_t n;
  size_t at = Here(g);
  BlastCall(ReadI64(g, "the number of elements", 0, INT_MAX / 8, &n));
  if (g->binary) BlastCall(EndAsciiLine(g));
  BlastCall(CheckCount(g, at, n, 8, "elements"));
  for (int64_t i = 0; i < n;) {
    int type = 0, nfollow = 1, ntags = 0, tag = 0, phys = 0, t = 0;
    at = Here(g);
    if (g->binary) {
      BlastCall(BinInt(g, "the element type of a block", 0, INT_MAX, &type));
      BlastCall(BinInt(g, "the number of elements of a block", 1, (int)(n - i), &nfollow));
      BlastCall(BinInt(g, "the number of tags of a block", 0, 1000, &ntags));
    }
    for (int k = 0; k < nfollow; k++, i++) {
      const size_t ate = Here(g);
      if (g->binary) {
        BlastCall(BinInt(g, "an element tag", 1, INT_MAX, &tag));
      } else {
        BlastCall(ReadInt(g, "an element tag", 1, INT_MAX, &tag));
        BlastCall(ReadInt(g, "an element type", 0, INT_MAX, &type));
        BlastCall(ReadInt(g, "the number of tags of an element", 0, 1000, &ntags));
      }
      for (int j = 0; j < ntags; j++) {
        BlastCall(Int(g, "an element's tag", INT_MIN, INT_MAX, &t));
        if (j == 0) phys = t;
      }
      BlastCall(AddElem(g, ate, type, -1, 0, phys, tag));
    }
  }
  return ExpectWord(g, "$EndElements");
}

static int ReadElements4(Gmsh *g) {
  int64_t nblocks, n, minmax;
  if (g->binary) BlastCall(EndAsciiLine(g));
  size_t at = Here(g);
  BlastCall(Size(g, "the number of element blocks", INT_MAX, &nblocks));
  BlastCall(CheckCount(g, at, nblocks, g->binary ? 20 : 8, "element blocks"));
  at = Here(g);
  BlastCall(Size(g, "the number of elements", INT_MAX / 8, &n));
  BlastCall(CheckCount(g, at, n, g->binary ? 16 : 4, "elements"));
  BlastCall(Size(g, "the smallest element tag", INT64_MAX, &minmax));
  BlastCall(Size(g, "the largest element tag", INT64_MAX, &minmax));
  int64_t total = 0;
  for (int64_t b = 0; b < nblocks; b++) {
    int edim, etag, type;
    int64_t nb, tag;
    BlastCall(Int(g, "the dimension of an element block", 0, 3, &edim));
    BlastCall(Int(g, "the entity tag of an element block", INT_MIN, INT_MAX, &etag));
    BlastCall(Int(g, "the element type of a block", 0, INT_MAX, &type));
    BlastCall(Size(g, "the number of elements in a block", n - total, &nb));
    for (int64_t i = 0; i < nb; i++) {
      at = Here(g);
      BlastCall(Size(g, "an element tag", INT64_MAX, &tag));
      BlastCall(AddElem(g, at, type, edim, etag, 0, tag));
    }
    total += nb;
  }
  if (total != n)
    GmshFail(g, g->pos, "the element blocks hold %lld elements, not the %lld the section announced",
             (long long)total, (long long)n);
  return ExpectWord(g, "$EndElements");
}

// Skip a section this reader does not use ($Periodic, $NodeData, ...): up to its end
// marker, which must exist.
static int SkipSection(Gmsh *g, size_t at, const char *name) {
  char end[48];
  const int n = snprintf(end, sizeof end, "$End%s", name + 1);
  if (n <= 0 || (size_t)n >= sizeof end)
    GmshFail(g, at, "unknown section '%s' (name too long)", name);
  for (size_t p = g->pos; p + (size_t)n <= g->len; p++) {
    const char *q = memchr(g->buf + p, '$', g->len - p);
    if (!q) break;
    p = (size_t)(q - g->buf);
    if (p + (size_t)n <= g->len && !memcmp(q, end, (size_t)n) &&
        (p + (size_t)n == g->len || IsWs(g->buf[p + (size_t)n]))) {
      g->pos = p + (size_t)n;
      return 0;
    }
  }
  GmshFail(g, at, "section '%s' has no '%s'", name, end);
}

static int ReadFormat(Gmsh *g) {
  char tok[40];
  size_t at = 0;
  BlastCall(ExpectWord(g, "$MeshFormat"));
  BlastCall(Token(g, "the format version", tok, sizeof tok, &at));
  if (!strcmp(tok, "2.2"))
    g->version = 2;
  else if (!strcmp(tok, "4.1"))
    g->version = 4;
  else
    GmshFail(g, at,
             "Gmsh format version '%s' (blast_gpu reads versions 2.2 and 4.1: gmsh -format msh41 "
             "or -format msh22)",
             tok);
  int type = 0, size = 0;
  BlastCall(ReadInt(g, "the file type (0 ASCII, 1 binary)", 0, 1, &type));
  at = Here(g);
  BlastCall(ReadInt(g, "the data size", INT_MIN, INT_MAX, &size));
  if (size != 8) GmshFail(g, at, "data size %d (expected 8: 64-bit doubles and sizes)", size);
  if (type == 1) {
    BlastCall(EndAsciiLine(g));
    g->binary = 1;
    uint32_t one;
    BlastCall(Need(g, 4, "the byte-order check (the integer 1)"));
    memcpy(&one, g->buf + g->pos, 4);
    if (one != 1) {
      g->swap = 1;
      uint32_t s = one;
      Swap((unsigned char *)&s, 4);
      if (s != 1)
        GmshFail(g, g->pos,
                 "byte-order check: found 0x%08x, expected the integer 1 (a damaged "
                 "binary file?)",
                 (unsigned)one);
    }
    g->pos += 4;
  }
  return ExpectWord(g, "$EndMeshFormat");
}

static int CmpEntityKey(const void *a, const void *b) {
  const GmshEntity *x = a, *y = b;
  if (x->dim != y->dim) return x->dim - y->dim;
  return (x->tag > y->tag) - (x->tag < y->tag);
}

int GmshParse(Gmsh *g) {
  BlastCall(ReadFormat(g));
  for (;;) {
    char tok[40];
    size_t at = 0;
    SkipWs(g);
    if (g->pos >= g->len) break;
    BlastCall(Token(g, "a section", tok, sizeof tok, &at));
    if (tok[0] != '$') GmshFail(g, at, "found '%s' (expected a section: '$Nodes', ...)", tok);
    int *seen = !strcmp(tok, "$Nodes")           ? &g->seen_nodes
                : !strcmp(tok, "$Elements")      ? &g->seen_elements
                : !strcmp(tok, "$Entities")      ? &g->seen_entities
                : !strcmp(tok, "$PhysicalNames") ? &g->seen_names
                                                 : NULL;
    if (!seen) {
      BlastCall(SkipSection(g, at, tok));
      continue;
    }
    if (*seen) GmshFail(g, at, "a second '%s' section", tok);
    *seen = 1;
    if (!strcmp(tok, "$PhysicalNames"))
      BlastCall(ReadPhysicalNames(g));
    else if (!strcmp(tok, "$Entities")) {
      if (g->version == 2) GmshFail(g, at, "'$Entities' in a file of format 2.2");
      BlastCall(ReadEntities(g));
    } else if (!strcmp(tok, "$Nodes")) {
      BlastCall(g->version == 2 ? ReadNodes2(g) : ReadNodes4(g));
    } else {
      BlastCall(g->version == 2 ? ReadElements2(g) : ReadElements4(g));
    }
  }
  if (!g->seen_nodes) GmshFail(g, g->len, "no '$Nodes' section");
  if (!g->seen_elements) GmshFail(g, g->len, "no '$Elements' section");
  if (g->version == 4 && !g->seen_entities)
    GmshFail(g, g->len, "no '$Entities' section (format 4.1 gives physical groups there)");
  if (g->nent > 1) qsort(g->ent, (size_t)g->nent, sizeof *g->ent, CmpEntityKey);
  for (int i = 1; i < g->nent; i++)
    if (!CmpEntityKey(&g->ent[i - 1], &g->ent[i]))
      GmshFail(g, g->len, "'$Entities' lists the entity of dimension %d and tag %d twice",
               g->ent[i].dim, g->ent[i].tag);
  return 0;
}

int BlastMeshReadGmshBuffer(const char *name, const char *data, size_t len, BlastMesh *mesh) {
  BlastCheck(name && (data || !len) && mesh, BLAST_ERR_ARG, "NULL argument");
  Gmsh g = {.name = name, .buf = data ? data : "", .len = len};
  BlastMesh m = NULL;
  int ierr = GmshParse(&g);
  if (!ierr) ierr = GmshBuild(&g, &m);
  GmshFree(&g);
  BlastCall(ierr);
  *mesh = m;
  return 0;
}
