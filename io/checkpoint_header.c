// The root attributes of a checkpoint: one table of fields, written and read with exact
// types, one checksum over all of them, and the mesh fingerprint (checkpoint_header.h).
#define _POSIX_C_SOURCE 200809L

#include "checkpoint_header.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast_hdf5.h"
#include "blast_mpi.h"
#include "deck.h"
#include "problems/problems.h"
#include "safefile.h"

// ---------------------------------------------------------------------------------------
// Hashing (the same mixer as the datasets' checksums)

uint64_t BlastHashMix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t MixBytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = BlastHashMix64(h ^ (uint64_t)c[i] ^ ((uint64_t)i << 8));
  return BlastHashMix64(h ^ (uint64_t)n);
}

static uint64_t MixDouble(uint64_t h, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return BlastHashMix64(h ^ bits);
}

// ---------------------------------------------------------------------------------------
// The fields

typedef enum { kInt, kLong, kDouble, kU64, kString } Kind;
typedef struct {
  const char *name;
  Kind kind;
  size_t offset, size;  // size: the buffer of a string
} Field;

#define H(f) offsetof(BlastCheckpointHeader, f)
#define S(f) sizeof(((BlastCheckpointHeader *)0)->f)
static const Field kFields[] = {
    {"format_version", kInt, H(format_version), 0},
    {"build", kString, H(build), S(build)},
    {"problem", kString, H(problem), S(problem)},
    {"run_id", kString, H(run_id), S(run_id)},
    {"dim", kInt, H(dim), 0},
    {"order_kinematic", kInt, H(order_kinematic), 0},
    {"order_thermo", kInt, H(order_thermo), 0},
    {"quadrature_points", kInt, H(quadrature_points), 0},
    {"l2_nd", kInt, H(l2_nd), 0},
    {"assembly", kString, H(assembly), S(assembly)},
    {"zones_global", kLong, H(zones_global), 0},
    {"h1_global", kLong, H(h1_global), 0},
    {"t", kDouble, H(t), 0},
    {"dt", kDouble, H(dt), 0},
    {"dt_initial", kDouble, H(dt_initial), 0},
    {"energy_initial", kDouble, H(energy_initial), 0},
    {"gpu_fraction", kDouble, H(gpu_fraction), 0},
    {"steps", kInt, H(steps), 0},
    {"step_attempts", kInt, H(step_attempts), 0},
    {"mesh_fingerprint", kU64, H(mesh_fingerprint), 0},
    {"mesh_geometry", kU64, H(mesh_geometry), 0},
    {"mesh", kString, H(mesh), S(mesh)},
    {"options", kString, H(options), S(options)},
    {"materials", kString, H(materials), S(materials)},
    {"problem_digest", kU64, H(problem_digest), 0},
};
#undef H
#undef S
enum { kNumFields = sizeof kFields / sizeof kFields[0] };
static const char kChecksumName[] = "header_checksum";

static hid_t NativeType(Kind k) {
  switch (k) {
    case kInt:
      return H5T_NATIVE_INT;
    case kLong:
      return H5T_NATIVE_LLONG;
    case kDouble:
      return H5T_NATIVE_DOUBLE;
    case kU64:
      return H5T_NATIVE_UINT64;
    case kString:
      break;
  }
  return H5T_C_S1;
}

static const char *KindName(Kind k) {
  switch (k) {
    case kInt:
      return "a 32-bit integer";
    case kLong:
      return "a 64-bit integer";
    case kDouble:
      return "a 64-bit float";
    case kU64:
      return "an unsigned 64-bit integer";
    case kString:
      break;
  }
  return "a string";
}

static uint64_t Checksum(const BlastCheckpointHeader *hd) {
  uint64_t h = 0x626c617374686472ull;  // "blasthdr"
  for (int i = 0; i < kNumFields; i++) {
    const Field *fd = &kFields[i];
    const char *p = (const char *)hd + fd->offset;
    h = MixBytes(h, fd->name, strlen(fd->name));
    switch (fd->kind) {
      case kInt:
        h = MixBytes(h, p, sizeof(int));
        break;
      case kLong:
        h = MixBytes(h, p, sizeof(long long));
        break;
      case kDouble:
        h = MixBytes(h, p, sizeof(double));
        break;
      case kU64:
        h = MixBytes(h, p, sizeof(uint64_t));
        break;
      case kString:
        h = MixBytes(h, p, strnlen(p, fd->size));
        break;
    }
  }
  return h;
}

// ---------------------------------------------------------------------------------------
// What the run writes

// The shortest of %.15g, %.16g, %.17g that reads back as v.
static void Real(double v, char *buf, size_t n) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, n, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) return;
  }
}

void BlastCheckpointOptions(const BlastConfig *cfg, char *buf, size_t n) {
  char cfl[32], tol[32];
  Real(cfg->cfl, cfl, sizeof cfl);
  Real(cfg->cg_tol, tol, sizeof tol);
  snprintf(buf, n,
           "time.ode_solver=%d time.cfl=%s solver.cg_tol=%s solver.cg_max_iter=%d "
           "solver.viscosity=%d solver.energy_solve=%d",
           cfg->ode_solver, cfl, tol, cfg->cg_max_iter, cfg->viscosity, cfg->energy_solve);
}

void BlastCheckpointMaterials(BlastHydro h, char *buf, size_t n) {
  int nmat;
  const BlastMaterial *mats = BlastHydroGetMaterials(h, &nmat);
  const BlastProblem *prob = BlastHydroGetProblem(h);
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < nmat && len < n; i++) {
    char g[32], pinf[32];
    Real(mats[i].gamma, g, sizeof g);
    Real(mats[i].p_inf, pinf, sizeof pinf);
    const int w =
        snprintf(buf + len, n - len, "%s%s: %s gamma=%s p_inf=%s", i ? "; " : "",
                 BlastProblemMaterialName(prob, i), BlastEosKindName(mats[i].kind), g, pinf);
    if (w < 0) break;
    len += (size_t)w;
  }
}

// Entry i of a materials record ("; "-separated) into out ("" past the last one); returns
// the number of entries.
static int MaterialEntry(const char *rec, int i, char *out, size_t n) {
  int k = 0;
  out[0] = '\0';
  while (*rec) {
    const char *end = strstr(rec, "; ");
    const size_t len = end ? (size_t)(end - rec) : strlen(rec);
    if (k == i) snprintf(out, n, "%.*s", (int)len, rec);
    k++;
    rec += len + (end ? 2 : 0);
  }
  return k;
}

int BlastCheckpointCheckMaterials(const BlastCheckpointHeader *got,
                                  const BlastCheckpointHeader *mine, const char *path) {
  if (!strcmp(got->materials, mine->materials)) return 0;
  char a[sizeof got->materials], b[sizeof mine->materials];
  const int na = MaterialEntry(got->materials, 0, a, sizeof a);
  const int nb = MaterialEntry(mine->materials, 0, b, sizeof b);
  if (na != nb)
    BlastError(BLAST_ERR_INPUT,
               "checkpoint %s has %d material%s (%s), this run has %d (%s): a restart cannot "
               "change the materials",
               path, na, na == 1 ? "" : "s", got->materials, nb, mine->materials);
  int i = 0;
  for (; i < na; i++) {
    MaterialEntry(got->materials, i, a, sizeof a);
    MaterialEntry(mine->materials, i, b, sizeof b);
    if (strcmp(a, b)) break;
  }
  BlastError(BLAST_ERR_INPUT,
             "checkpoint %s has material %d as '%s', this run has '%s': a restart cannot "
             "change the materials (names, equations of state or their parameters)",
             path, i, a, b);
}

// Bytes [p, p + n) into the running digest h, 8 at a time (the tail zero-padded).
static uint64_t DigestBytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w = 0;
    memcpy(&w, b + i, n - i < 8 ? n - i : 8);
    h = BlastHashMix64(h ^ w);
  }
  return BlastHashMix64(h ^ (uint64_t)n);
}

// The bytes of n structs of `size` bytes at p with the `cut` bytes at offset `at` of each
// left out, one after the other into out (the attribute names: the digest covers the
// resolved numbers, and keeps the value it had before the structs held names).
static size_t CutBytes(const void *p, int n, size_t size, size_t at, size_t cut,
                       unsigned char *out) {
  const unsigned char *b = p;
  size_t len = 0;
  for (int i = 0; i < n; i++, b += size) {
    memcpy(out + len, b, at);
    len += at;
    memcpy(out + len, b + at + cut, size - at - cut);
    len += size - at - cut;
  }
  return len;
}

int BlastCheckpointProblemDigest(const BlastConfig *cfg, uint64_t *digest) {
  BlastConfig *c = NULL;  // a copy with the deck positions blanked (it is large: the heap)
  unsigned char *buf = NULL;
  BlastCall(BlastMalloc(1, &c));
  const size_t most =
      sizeof c->regions > sizeof c->boundaries ? sizeof c->regions : sizeof c->boundaries;
  const int ierr = BlastMalloc(most, &buf);
  if (ierr) BlastFree(&c);
  BlastCall(ierr);
  memcpy(c, cfg, sizeof *c);
  BlastDeckClearWhere(c);
  const int nr = c->nregions < BLAST_MAX_REGIONS ? c->nregions : BLAST_MAX_REGIONS;
  const int nb = c->nboundaries < BLAST_MAX_BOUNDARIES ? c->nboundaries : BLAST_MAX_BOUNDARIES;
  uint64_t h = 0x9e3779b97f4a7c15ull;
  h = DigestBytes(h, &c->problem, sizeof c->problem);
  h = DigestBytes(h, &c->ngravity, sizeof c->ngravity);
  h = DigestBytes(h, c->gravity, sizeof c->gravity);
  h = DigestBytes(h, &c->nregions, sizeof c->nregions);
  h = DigestBytes(h, buf,
                  CutBytes(c->regions, nr, sizeof c->regions[0],
                           offsetof(BlastRegionSpec, select) + offsetof(BlastSelector, attr_name),
                           sizeof c->regions[0].select.attr_name, buf));
  h = DigestBytes(h, &c->nsources, sizeof c->nsources);
  h = DigestBytes(h, c->sources, sizeof c->sources[0] * (size_t)c->nsources);
  h = DigestBytes(h, &c->nboundaries, sizeof c->nboundaries);
  h = DigestBytes(
      h, buf,
      CutBytes(c->boundaries, nb, sizeof c->boundaries[0], offsetof(BlastBoundarySpec, attr_name),
               sizeof c->boundaries[0].attr_name, buf));
  BlastFree(&buf);
  BlastFree(&c);
  *digest = h;
  return 0;
}

int BlastCheckpointCheckProblem(const BlastCheckpointHeader *got, const BlastCheckpointHeader *mine,
                                const char *path) {
  BlastCheck(got->problem_digest == mine->problem_digest, BLAST_ERR_INPUT,
             "checkpoint %s was written by a run with other problem sections (digest %016llx, "
             "this run's %016llx): a restart cannot change [region.*] (their density gives "
             "the zones' masses), [source.*], [boundary.*] or [problem] gravity; restart with "
             "the deck the run started with",
             path, (unsigned long long)got->problem_digest,
             (unsigned long long)mine->problem_digest);
  return 0;
}

void BlastCheckpointMeshDescription(const BlastConfig *cfg, char *buf, size_t n) {
  char src[BLAST_PATH_MAX + 64];
  if (cfg->mesh_file[0]) {
    snprintf(src, sizeof src, "mesh.file=%s", cfg->mesh_file);
  } else {
    int len = snprintf(src, sizeof src, "generated box, mesh.elements=");
    for (int d = 0; d < cfg->dim && len > 0 && (size_t)len < sizeof src; d++)
      len += snprintf(src + len, sizeof src - (size_t)len, "%s%d", d ? "," : "", cfg->elements[d]);
    for (int d = 0; d < cfg->dim && len > 0 && (size_t)len < sizeof src; d++)
      len += snprintf(src + len, sizeof src - (size_t)len, "%s%.17g",
                      d ? "," : " mesh.size=", cfg->size[d]);
  }
  snprintf(buf, n, "%s mesh.refine_serial=%d mesh.refine_parallel=%d", src, cfg->refine_serial,
           cfg->refine_parallel);
}

uint64_t BlastMeshFingerprintExtra(BlastMesh mesh) {
  if (!mesh || (!BlastMeshHasSimplices(mesh) && BlastMeshCurveOrder(mesh) <= 1 &&
                BlastMeshNumNames(mesh) == 0))
    return 0;
  BlastMeshDesc d;
  BlastMeshDescribe(mesh, &d);
  uint64_t h = 0x6d657368ull;  // "mesh"
  const int nzv = 1 << d.dim, nfv = 1 << (d.dim - 1);
  for (int z = 0; z < d.nzones; z++) {
    h = BlastHashMix64(h ^ (uint64_t)BlastMeshZoneGeom(mesh, z));
    for (int a = 0; a < nzv; a++)
      h = BlastHashMix64(h ^ (uint64_t)(uint32_t)d.zone_verts[(size_t)z * nzv + a]);
  }
  for (int f = 0; f < d.nbdr; f++) {
    h = BlastHashMix64(h ^ (uint64_t)BlastMeshBdrGeom(mesh, f));
    for (int a = 0; a < nfv; a++)
      h = BlastHashMix64(h ^ (uint64_t)(uint32_t)d.bdr_verts[(size_t)f * nfv + a]);
  }
  const int p = BlastMeshCurveOrder(mesh);
  h = BlastHashMix64(h ^ (uint64_t)p);
  if (p > 1) {
    const int *zn = BlastMeshZoneNodes(mesh);
    const double *xn = BlastMeshNodeCoords(mesh);
    size_t per = 1;
    for (int g = 0; g < d.dim; g++) per *= (size_t)(p + 1);
    for (size_t i = 0; i < (size_t)d.nzones * per; i++) {
      const int a = zn[i];
      h = BlastHashMix64(h ^ (uint64_t)(uint32_t)a);
      for (int c = 0; a >= 0 && c < d.dim; c++) h = MixDouble(h, xn[(size_t)a * d.dim + c]);
    }
  }
  // The names as a set (the order they were listed in does not matter).
  const BlastMeshName *nm = BlastMeshNames(mesh);
  uint64_t names = 0;
  for (int i = 0; i < BlastMeshNumNames(mesh); i++) {
    const uint64_t key = ((uint64_t)(uint32_t)nm[i].dim << 32) ^ (uint64_t)(uint32_t)nm[i].attr;
    names += MixBytes(BlastHashMix64(key), nm[i].name, strlen(nm[i].name));
  }
  h = BlastHashMix64(h ^ names);
  return h ? h : 1;
}

// Two sums over the zones, so the same on any partition: `full` hashes each zone's global
// id, its nodes' global ids and their initial positions (the numbering the file's fields
// follow); `geom` only each zone's initial node positions (the shape of the mesh).
static int MeshFingerprint(MPI_Comm comm, BlastHydro h, uint64_t *full, uint64_t *geom) {
  const BlastSpace *s = BlastHydroGetSpace(h);
  const double *x0 = BlastHydroGetInitialPositions(h);
  uint64_t loc[2] = {0, 0};
  for (int z = 0; z < s->nz; z++) {
    uint64_t hf = BlastHashMix64((uint64_t)s->zone_gid[z]), hg = 0x67656f6dull;
    for (int a = 0; a < s->h1_nd; a++) {
      const int i = s->h1_edof[(size_t)z * s->h1_nd + a];
      hf = BlastHashMix64(hf ^ (uint64_t)s->h1_gid[i]);
      for (int c = 0; c < s->dim; c++) {
        const double xc = x0[(size_t)c * s->h1_nl + i];
        hf = MixDouble(hf, xc);
        hg = MixDouble(hg, xc);
      }
    }
    loc[0] += hf, loc[1] += BlastHashMix64(hg);
  }
  uint64_t glob[2];
  BlastCallMPI(MPI_Allreduce(loc, glob, 2, MPI_UINT64_T, MPI_SUM, comm));
  *full = glob[0], *geom = glob[1];
  // Element types, curved nodes and attribute names: every rank holds the whole mesh.
  const uint64_t extra = BlastMeshFingerprintExtra(BlastHydroGetMesh(h));
  if (extra) *full = BlastHashMix64(*full ^ extra), *geom = BlastHashMix64(*geom ^ extra);
  return 0;
}

int BlastCheckpointHeaderFill(MPI_Comm comm, BlastHydro h, const BlastConfig *cfg,
                              const char *run_id, const char *build, BlastCheckpointHeader *hd) {
  memset(hd, 0, sizeof *hd);
  const BlastHydroShape shape = BlastHydroGetShape(h);
  const BlastSpace *s = BlastHydroGetSpace(h);
  hd->format_version = BLAST_CHECKPOINT_FORMAT;
  snprintf(hd->build, sizeof hd->build, "%s", build ? build : "");
  snprintf(hd->problem, sizeof hd->problem, "%s", BlastProblemName(cfg->problem));
  snprintf(hd->run_id, sizeof hd->run_id, "%s", run_id ? run_id : "");
  hd->dim = shape.dim, hd->order_kinematic = shape.k, hd->order_thermo = shape.m;
  hd->quadrature_points = shape.nqp, hd->l2_nd = s->l2_nd;
  snprintf(hd->assembly, sizeof hd->assembly, "%s",
           BlastCheckpointAssemblyName(BlastAssemblyResolveMesh(
               cfg->assembly, shape.dim, shape.k, BlastMeshHasSimplices(s->mesh))));
  hd->zones_global = (long long)s->nz_global, hd->h1_global = (long long)s->h1_nglobal;
  BlastCall(MeshFingerprint(comm, h, &hd->mesh_fingerprint, &hd->mesh_geometry));
  BlastCheckpointMeshDescription(cfg, hd->mesh, sizeof hd->mesh);
  BlastCheckpointOptions(cfg, hd->options, sizeof hd->options);
  BlastCheckpointMaterials(h, hd->materials, sizeof hd->materials);
  BlastCall(BlastCheckpointProblemDigest(cfg, &hd->problem_digest));
  return 0;
}

// ---------------------------------------------------------------------------------------
// Writing

int BlastCheckpointHeaderWrite(hid_t f, const BlastCheckpointHeader *hd) {
  for (int i = 0; i < kNumFields; i++) {
    const Field *fd = &kFields[i];
    const char *p = (const char *)hd + fd->offset;
    if (fd->kind == kString) {
      char tmp[sizeof hd->mesh > sizeof hd->materials ? sizeof hd->mesh : sizeof hd->materials];
      snprintf(tmp, sizeof tmp, "%.*s", (int)strnlen(p, fd->size), p);
      BlastCall(BlastHDF5AttrString(f, fd->name, tmp));
    } else {
      BlastCall(BlastHDF5AttrWrite(f, fd->name, NativeType(fd->kind), NativeType(fd->kind), p));
    }
  }
  const uint64_t sum = Checksum(hd);
  BlastCall(BlastHDF5AttrWrite(f, kChecksumName, H5T_NATIVE_UINT64, H5T_NATIVE_UINT64, &sum));
  return 0;
}

// ---------------------------------------------------------------------------------------
// Reading: any failure is a corrupt (or foreign) file, exit 2.

#define Corrupt(...) BlastError(BLAST_ERR_INPUT, __VA_ARGS__)

// An HDF5 call that fails on a file that opened: its metadata is damaged.
static int CorruptHDF5(const char *path, const char *what) {
  char msg[300];
  BlastHDF5Innermost(msg, sizeof msg);
  Corrupt("checkpoint %s is corrupt: HDF5 cannot %s (%s)", path, what, msg);
}
#define CallCorrupt(call, path, what)               \
  do {                                              \
    if ((call) < 0) return CorruptHDF5(path, what); \
  } while (0)

static const char *ClassName(hid_t t) {
  switch (H5Tget_class(t)) {
    case H5T_INTEGER:
      return "an integer";
    case H5T_FLOAT:
      return "a float";
    case H5T_STRING:
      return "a string";
    default:
      return "another type";
  }
}

// Check that attribute `a` holds one value of the type `fd` wants.
static int CheckType(hid_t a, const char *path, const Field *fd) {
  hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
  int ok = t >= 0 && sp >= 0;
  const hssize_t npts = ok ? H5Sget_simple_extent_npoints(sp) : -1;
  char got[96] = "";
  if (ok) {
    const int same = fd->kind == kString ? H5Tget_class(t) == H5T_STRING &&
                                               !H5Tis_variable_str(t) && H5Tget_size(t) <= fd->size
                                         : H5Tequal(t, NativeType(fd->kind)) > 0;
    if (!same)
      snprintf(got, sizeof got, "%s of %zu bytes", ClassName(t), H5Tget_size(t));
    else if (npts != 1)
      snprintf(got, sizeof got, "%lld values", (long long)npts);
  }
  if (t >= 0) H5Tclose(t);
  if (sp >= 0) H5Sclose(sp);
  if (!ok) {
    H5Eclear2(H5E_DEFAULT);
    Corrupt("checkpoint %s is corrupt: the type of root attribute '%s' cannot be read", path,
            fd->name);
  }
  if (got[0])
    Corrupt(
        "checkpoint %s is corrupt: root attribute '%s' holds %s, blast_gpu writes one value "
        "of %s (was the file modified?)",
        path, fd->name, got, KindName(fd->kind));
  return 0;
}

static int ReadField(hid_t f, const char *path, const Field *fd, void *dst) {
  const htri_t ex = H5Aexists(f, fd->name);
  CallCorrupt(ex, path, "look up a root attribute");
  if (!ex) Corrupt("checkpoint %s is corrupt: the root attribute '%s' is missing", path, fd->name);
  hid_t a = H5Aopen(f, fd->name, H5P_DEFAULT);
  CallCorrupt(a, path, "open a root attribute");
  int ierr = CheckType(a, path, fd);
  if (!ierr) {
    herr_t rc;
    if (fd->kind == kString) {
      hid_t mt = H5Tcopy(H5T_C_S1);
      rc = mt < 0 ? -1 : H5Tset_size(mt, fd->size);
      if (rc >= 0) {
        memset(dst, 0, fd->size);
        rc = H5Aread(a, mt, dst);
        ((char *)dst)[fd->size - 1] = '\0';
      }
      if (mt >= 0) H5Tclose(mt);
    } else {
      rc = H5Aread(a, NativeType(fd->kind), dst);
    }
    if (rc < 0) ierr = CorruptHDF5(path, "read a root attribute");
  }
  H5Aclose(a);
  return ierr ? BlastErrorTrace(__FILE__, __LINE__, __func__, ierr) : 0;
}

int BlastCheckpointHeaderRead(hid_t f, const char *path, BlastCheckpointHeader *hd) {
  memset(hd, 0, sizeof *hd);
  // The version first: another version's header has other fields.
  const htri_t ex = H5Aexists(f, kFields[0].name);
  CallCorrupt(ex, path, "look up a root attribute");
  if (!ex)
    Corrupt("checkpoint %s has no format_version attribute: not a blast_gpu checkpoint", path);
  BlastCall(ReadField(f, path, &kFields[0], &hd->format_version));
  if (hd->format_version != BLAST_CHECKPOINT_FORMAT)
    Corrupt("checkpoint %s has format version %d, this blast_gpu reads version %d%s", path,
            hd->format_version, BLAST_CHECKPOINT_FORMAT,
            hd->format_version == 1   ? " (version 1 files have no header checksum and no mesh "
                                        "fingerprint: rerun with the blast_gpu that wrote it)"
            : hd->format_version == 2 ? " (version 2 files do not record [fem] assembly: "
                                        "continue the run with the blast_gpu that wrote it)"
            : hd->format_version == 3 ? " (version 3 files do not record the materials: "
                                        "continue the run with the blast_gpu that wrote it)"
                                      : "");
  for (int i = 1; i < kNumFields; i++)
    BlastCall(ReadField(f, path, &kFields[i], (char *)hd + kFields[i].offset));
  const Field sum_field = {kChecksumName, kU64, 0, 0};
  uint64_t stored = 0;
  BlastCall(ReadField(f, path, &sum_field, &stored));
  if (stored != Checksum(hd))
    Corrupt(
        "checkpoint %s is corrupt: its root attributes do not match their checksum (an "
        "attribute was changed after the file was written)",
        path);
  // Values no writer produces.
  if (!(isfinite(hd->t) && hd->t >= 0 && isfinite(hd->dt) && hd->dt > 0 &&
        isfinite(hd->dt_initial) && hd->dt_initial > 0 && isfinite(hd->energy_initial) &&
        isfinite(hd->gpu_fraction) && hd->gpu_fraction >= 0 && hd->gpu_fraction <= 1 &&
        hd->steps >= 0 && hd->step_attempts >= hd->steps))
    Corrupt(
        "checkpoint %s is corrupt: inconsistent values (t %g, dt %g, steps %d, attempts %d, "
        "gpu_fraction %g)",
        path, hd->t, hd->dt, hd->steps, hd->step_attempts, hd->gpu_fraction);
  if (strcmp(hd->assembly, "full") && strcmp(hd->assembly, "partial"))
    Corrupt("checkpoint %s is corrupt: assembly '%s' is neither 'full' nor 'partial'", path,
            hd->assembly);
  if (strspn(hd->run_id, "0123456789abcdef") != BLAST_RUN_ID_LEN - 1)
    Corrupt("checkpoint %s is corrupt: run_id '%s' is not 32 hexadecimal digits", path, hd->run_id);
  return 0;
}

int BlastCheckpointPeek(const char *path, BlastCheckpointHeader *hd) {
  BlastHDF5Quiet();
  // A FIFO or device would block or never end: look before HDF5 opens it.
  BlastCall(BlastCheckRegularFile(path, "checkpoint", 0));
  if (H5Fis_hdf5(path) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    Corrupt("checkpoint %s is not a readable HDF5 file (truncated or damaged?)", path);
  }
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    H5Eclear2(H5E_DEFAULT);
    Corrupt("checkpoint %s cannot be opened as HDF5 (truncated or damaged?)", path);
  }
  const int ierr = BlastCheckpointHeaderRead(f, path, hd);
  H5Fclose(f);
  H5Eclear2(H5E_DEFAULT);
  return ierr ? BlastErrorTrace(__FILE__, __LINE__, __func__, ierr) : 0;
}

// ---------------------------------------------------------------------------------------
// The assembly mode a restart must keep

const char *BlastCheckpointAssemblyName(int mode) {
  return mode == BLAST_ASSEMBLY_FULL ? "full" : mode == BLAST_ASSEMBLY_PARTIAL ? "partial" : "?";
}

int BlastCheckpointCheckAssembly(const BlastCheckpointHeader *hd, const char *path, int requested,
                                 int dim, int k) {
  const char *mine = BlastCheckpointAssemblyName(BlastAssemblyResolve(requested, dim, k));
  if (!strcmp(hd->assembly, mine)) return 0;
  char how[96] = "";
  if (requested == BLAST_ASSEMBLY_DEFAULT)
    snprintf(how, sizeof how, " ([fem] assembly = default, which is %s in %dD)", mine, dim);
  BlastError(BLAST_ERR_INPUT,
             "checkpoint %s was written with [fem] assembly = %s, but this run uses %s%s: a "
             "restart cannot change the assembly mode (the operators round differently). Set "
             "[fem] assembly = %s (on the command line: fem.assembly=%s) to continue this run",
             path, hd->assembly, mine, how, hd->assembly, hd->assembly);
}

// ---------------------------------------------------------------------------------------
// Options a restart changes

void BlastCheckpointOptionChanges(const BlastCheckpointHeader *hd, const BlastConfig *cfg,
                                  char *buf, size_t n) {
  char mine[sizeof hd->options];
  BlastCheckpointOptions(cfg, mine, sizeof mine);
  buf[0] = '\0';
  size_t len = 0;
  // Both strings list the same keys in the same order: compare token by token.
  const char *a = hd->options, *b = mine;
  while (*a && *b && len + 1 < n) {
    const size_t la = strcspn(a, " "), lb = strcspn(b, " ");
    const char *ea = memchr(a, '=', la), *eb = memchr(b, '=', lb);
    if (ea && eb && (la != lb || memcmp(a, b, la))) {
      const int lk = (int)(ea - a);
      len += (size_t)snprintf(buf + len, n - len, "%s%.*s %.*s -> %.*s", len ? ", " : "", lk, a,
                              (int)(la - (size_t)lk - 1), ea + 1, (int)(lb - (size_t)(eb - b) - 1),
                              eb + 1);
    }
    a += la, b += lb;
    a += *a == ' ', b += *b == ' ';
  }
  if (len >= n) buf[n - 1] = '\0';
}
