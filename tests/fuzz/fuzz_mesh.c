// libFuzzer harness for the mesh readers (io/meshio.c: MFEM mesh v1.0 text; io/gmsh*.c:
// Gmsh .msh, formats 2.2 and 4.1, ASCII and binary, for input starting "$MeshFormat").
//
// Input: the bytes of a mesh file, parsed with BlastMeshReadBuffer (the reader of
// BlastMeshRead without the file). Checked beyond "no crash, no leak, no undefined
// behaviour" (ASan, UBSan, LSan):
//   - a rejected mesh gives BLAST_ERR_INPUT with a message "fuzz.mesh:LINE: ..." (binary
//     .msh: "fuzz.mesh: byte OFFSET: ...");
//   - an accepted mesh is written (BlastMeshWrite) and read back (BlastMeshRead) to the
//     same mesh, bit for bit; small ones are also refined once (topology, refinement);
//   - small ones also get the velocity constraints of [boundary.*] sections derived from
//     the mesh (hydro/boundary.c on an order 1 or 2 space): every boundary attribute a
//     wall, one a type = velocity section, must build (or give BLAST_ERR_INPUT with a
//     message) to consistent lists; an attribute left unnamed or an absent attribute
//     named must give BLAST_ERR_INPUT.
// Any violation aborts, which libFuzzer reports as a crash with the input saved.
#define _POSIX_C_SOURCE 200809L  // mkdtemp

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blast.h"
#include "boundary.h"
#include "config.h"
#include "mesh.h"
#include "meshio.h"
#include "space.h"
#include "topology.h"

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

static int CmpInt(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void CheckAscending(const int *idx, int n, int ndof, const char *what) {
  for (int i = 0; i < n; i++)
    if (idx[i] < 0 || idx[i] >= ndof || (i && idx[i] <= idx[i - 1])) Fail(what);
}

// The lists of a built BlastBoundaryDofs: ascending dofs below the dof count, unit normals.
static void CheckBoundaryDofs(const BlastBoundaryDofs *b, const BlastSpace *s, int vel_k) {
  const int dim = s->dim, ndof = s->h1_next;
  if (b->dim != dim || !b->ess_off || b->ess_off[0] != 0) Fail("boundary: bad ess_off");
  for (int c = 0; c < dim; c++) {
    if (b->ess_off[c + 1] < b->ess_off[c]) Fail("boundary: ess_off decreases");
    CheckAscending(b->ess_idx + b->ess_off[c], b->ess_off[c + 1] - b->ess_off[c], ndof,
                   "boundary: ess_idx not ascending below the dof count");
  }
  CheckAscending(b->proj_idx, b->nproj, ndof,
                 "boundary: proj_idx not ascending below the dof count");
  for (int i = 0; i < b->nproj; i++) {
    int rows = 0;
    for (int j = 0; j < 3; j++) {
      const double *n = b->proj_normal + 9 * (size_t)i + 3 * j;
      double nn = 0.0;
      for (int c = 0; c < 3; c++) {
        if (!isfinite(n[c])) Fail("boundary: a wall normal is not finite");
        nn += n[c] * n[c];
      }
      if (nn == 0.0) continue;
      if (j >= dim || fabs(nn - 1.0) > 1e-10) Fail("boundary: a wall normal is not of unit length");
      rows++;
    }
    if (rows < 1 || rows >= dim) Fail("boundary: a projected node has no or dim normals");
  }
  CheckAscending(b->vel_idx, b->nvel, ndof, "boundary: vel_idx not ascending below the dof count");
  for (int i = 0; i < b->nvel; i++) {
    if (b->vel_section[i] != vel_k) Fail("boundary: a velocity node of another section");
    for (int c = 0; c < dim; c++)
      if (!bsearch(&b->vel_idx[i], b->ess_idx + b->ess_off[c], b->ess_off[c + 1] - b->ess_off[c],
                   sizeof(int), CmpInt))
        Fail("boundary: a velocity node is not fixed in every component");
  }
}

// Sections naming the attributes attr[0..na): attr[0] (if any) type = velocity (1 0 0),
// the others walls, 32 to a section. Returns the index of the velocity section (or -1);
// 0 sections (cfg->nboundaries = 0) when they do not fit.
static int MakeSections(BlastConfig *cfg, const int *attr, int na, int dim) {
  memset(cfg, 0, sizeof *cfg);
  const int nwall = na > 1 ? (na - 2) / BLAST_MAX_SELECT_ATTRS + 1 : 0;
  if (na == 0 || 1 + nwall > BLAST_MAX_BOUNDARIES) return -1;
  cfg->nboundaries = 1 + nwall;
  for (int k = 0; k < cfg->nboundaries; k++) {
    BlastBoundarySpec *bs = &cfg->boundaries[k];
    snprintf(bs->name, sizeof bs->name, k ? "wall%d" : "piston", k);
    snprintf(bs->where, sizeof bs->where, "fuzz.ini:%d", 10 * k + 1);
    bs->type = k ? BLAST_BOUNDARY_WALL : BLAST_BOUNDARY_VELOCITY;
  }
  BlastBoundarySpec *v = &cfg->boundaries[0];
  v->nattr = 1, v->attr[0] = attr[0];
  v->nvelocity = dim;
  for (int c = 0; c < dim; c++) {
    snprintf(v->velocity[c].text, sizeof v->velocity[c].text, "%s", c ? "0" : "1");
    snprintf(v->velocity[c].where, sizeof v->velocity[c].where, "fuzz.ini:3");
  }
  for (int i = 1; i < na; i++) {
    BlastBoundarySpec *bs = &cfg->boundaries[1 + (i - 1) / BLAST_MAX_SELECT_ATTRS];
    bs->attr[bs->nattr++] = attr[i];
  }
  return 0;
}

static void CheckBoundary(BlastMesh m, int order) {
  BlastTopology *topo = NULL;
  BlastSpace *s = NULL;
  int ierr = BlastTopologyCreate(m, &topo);
  if (!ierr) ierr = BlastSpaceCreate(m, topo, order, order - 1, 0, NULL, 0, &s);
  if (ierr) {
    if (ierr != BLAST_ERR_INPUT) Fail("building the space of an accepted mesh failed");
    BlastErrorClear();
    BlastSpaceDestroy(&s);
    BlastTopologyDestroy(&topo);
    return;
  }
  // The distinct boundary attributes.
  const int nb = BlastMeshNumBoundary(m);
  int *attr = malloc((size_t)nb * sizeof *attr + 1);
  BlastConfig *cfg = malloc(sizeof *cfg);
  if (!attr || !cfg) Fail("out of memory");
  if (nb) memcpy(attr, BlastMeshBdrAttr(m), (size_t)nb * sizeof *attr);
  qsort(attr, (size_t)nb, sizeof *attr, CmpInt);
  int na = 0;
  for (int i = 0; i < nb; i++)
    if (!na || attr[i] != attr[na - 1]) attr[na++] = attr[i];
  for (int variant = 0; variant < 3; variant++) {
    // 0: every attribute named; 1: the last one left unnamed; 2: an absent one named too.
    if (variant == 1 && na < 2) continue;
    int absent = 1;
    for (int i = 0; i < na && attr[i] == absent; i++) absent++;
    const int n = variant == 1 ? na - 1 : na;
    if (MakeSections(cfg, attr, n, BlastMeshDim(m)) < 0) {
      if (variant != 2) continue;
      cfg->nboundaries = 1;  // no boundary, or too many attributes: just the absent one
      cfg->boundaries[0].type = BLAST_BOUNDARY_WALL;
      snprintf(cfg->boundaries[0].name, BLAST_NAME_MAX, "walls");
      snprintf(cfg->boundaries[0].where, BLAST_WHERE_MAX, "fuzz.ini:1");
      cfg->boundaries[0].nattr = 0;
    }
    if (variant == 2) {
      BlastBoundarySpec *bs = &cfg->boundaries[cfg->nboundaries - 1];
      if (bs->nattr == BLAST_MAX_SELECT_ATTRS) bs->nattr--;  // replace its last: unnamed too
      bs->attr[bs->nattr++] = absent;
    }
    BlastBoundaryDofs b;
    ierr = BlastBoundaryBuild(cfg, s, &b);
    if (ierr) {
      if (ierr != BLAST_ERR_INPUT) Fail("boundary: an error other than BLAST_ERR_INPUT");
      if (!BlastErrorMessage()[0]) Fail("boundary: BLAST_ERR_INPUT without a message");
      BlastErrorClear();
    } else {
      if (variant) Fail("boundary: an unnamed or absent attribute was accepted");
      CheckBoundaryDofs(&b, s, 0);
    }
    BlastBoundaryFree(&b);
  }
  free(cfg);
  free(attr);
  BlastSpaceDestroy(&s);
  BlastTopologyDestroy(&topo);
}

// An accepted mesh of any geometry: its description is valid (BlastMeshCreateFrom takes it
// again) and every zone's vertices are in range.
static void CheckDescription(BlastMesh m) {
  BlastMeshDesc d;
  BlastMeshDescribe(m, &d);
  BlastMesh copy = NULL;
  if (BlastMeshCreateFrom(&d, &copy)) Fail("the description of an accepted mesh is refused");
  if (BlastMeshNumZones(copy) != d.nzones) Fail("the copy has another zone count");
  BlastMeshDestroy(&copy);
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
  // The writer, refinement and the spaces take straight tensor meshes (quadrilaterals,
  // hexahedra); a .msh of simplices or curved zones is checked for its description only.
  if (!BlastMeshIsTensor(m) || BlastMeshCurveOrder(m) > 1) {
    CheckDescription(m);
    BlastMeshDestroy(&m);
    return 0;
  }
  CheckRoundTrip(m);
  if (BlastMeshNumZones(m) <= 64) {
    BlastMesh fine = NULL;
    if (BlastMeshRefine(m, 1, &fine)) Fail("refining an accepted mesh failed");
    if (BlastMeshNumZones(fine) != BlastMeshNumZones(m) << BlastMeshDim(m))
      Fail("refinement gave a wrong zone count");
    BlastMeshDestroy(&fine);
    CheckBoundary(m, 1 + (int)(size & 1));
  }
  BlastMeshDestroy(&m);
  return 0;
}
