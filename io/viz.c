// Visualization dumps: sub-cells of the high-order zones in parallel HDF5, one XDMF time
// series (viz.h).
#define _POSIX_C_SOURCE 200809L  // readdir

#include "viz.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast_hdf5.h"
#include "blast_mpi.h"
#include "problems/problems.h"
#include "safefile.h"
#include "viz-impl.h"
#include "vtk_lagrange.h"

// ---------------------------------------------------------------------------------------
// HDF5

// Collective write of rows [row0, row0 + nrows) of a [rows][cols] dataset (cols = 0: 1D).
static int WriteBlock(hid_t f, const char *name, hid_t ftype, hid_t mtype, hsize_t rows,
                      hsize_t cols, hsize_t row0, hsize_t nrows, const void *buf) {
  const int nd = cols ? 2 : 1;
  const hsize_t dims[2] = {rows, cols}, start[2] = {row0, 0}, count[2] = {nrows, cols};
  hid_t fs = H5Screate_simple(nd, dims, NULL);
  BlastCallHDF5(fs);
  hid_t d = H5Dcreate2(f, name, ftype, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  BlastCallHDF5(d);
  const hsize_t mcount[2] = {nrows ? nrows : 1, cols};
  hid_t ms = H5Screate_simple(nd, mcount, NULL);
  BlastCallHDF5(ms);
  if (nrows) {
    BlastCallHDF5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
  } else {
    BlastCallHDF5(H5Sselect_none(fs));
    BlastCallHDF5(H5Sselect_none(ms));
  }
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  BlastCallHDF5(dxpl);
  BlastCallHDF5(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
  const double dummy[8] = {0};
  // A failed write (a full disk) still closes the dataset, a collective call the other
  // ranks make.
  const herr_t written = H5Dwrite(d, mtype, ms, fs, dxpl, nrows ? buf : (const void *)dummy);
  const int ierr = written < 0 ? BlastHDF5Error(__FILE__, __LINE__, __func__, "H5Dwrite") : 0;
  H5Pclose(dxpl);
  H5Sclose(ms);
  const herr_t closed = H5Dclose(d);
  H5Sclose(fs);
  if (ierr) return ierr;
  BlastCallHDF5(closed);
  return 0;
}

static int AttrInt(hid_t obj, const char *name, long long val) {
  return BlastHDF5AttrWrite(obj, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &val);
}

// After a stage of writing the dump `path`: an HDF5 failure (a write that found the disk
// full) is told with the file and its cause; then every rank learns whether any failed, so
// that none goes on into a collective call the failed one skips.
static int Stage(MPI_Comm comm, int ierr, const char *path) {
  if (ierr == BLAST_ERR_HDF5) ierr = BlastWriteFailure("visualization dump", path, 0);
  // Ranks that all failed to write say the same: printed once.
  return BlastAgree(comm, ierr, ierr == BLAST_ERR_IO);
}

// The materials as one line of text, "0: gas (ideal_gas, gamma = 1.4, p_inf = 0); 1: ...":
// the names of the `material` field's values. Characters that XML or the list itself would
// read otherwise (<>&"';) become '_' in names.
// The shortest of %.15g, %.16g, %.17g that reads back as v.
static void Real(double v, char *buf, size_t n) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, n, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) return;
  }
}

static void MaterialsText(BlastHydro h, char *buf, size_t n) {
  int nmat;
  const BlastMaterial *mats = BlastHydroGetMaterials(h, &nmat);
  const BlastProblem *prob = BlastHydroGetProblem(h);
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < nmat && len < n; i++) {
    char name[128];
    snprintf(name, sizeof name, "%s", BlastProblemMaterialName(prob, i));
    for (char *c = name; *c; c++)
      if (strchr("<>&\"';", *c)) *c = '_';
    char g[32], pinf[32];
    Real(mats[i].gamma, g, sizeof g);
    Real(mats[i].p_inf, pinf, sizeof pinf);
    const int w = snprintf(buf + len, n - len, "%s%d: %s (%s, gamma = %s, p_inf = %s)",
                           i ? "; " : "", i, name, BlastEosKindName(mats[i].kind), g, pinf);
    if (w < 0) break;
    len += (size_t)w;
  }
}

static int WriteAttributes(BlastViz v, hid_t f, int step, double t) {
  const BlastSpace *s = BlastHydroGetSpace(v->h);
  BlastCall(BlastHDF5AttrWrite(f, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &t));
  BlastCall(AttrInt(f, "step", step));
  BlastCall(AttrInt(f, "dim", v->dim));
  BlastCall(AttrInt(f, "order_kinematic", s->k));
  BlastCall(AttrInt(f, "order_thermo", s->m));
  BlastCall(AttrInt(f, "refine", v->sub[0].refine));
  BlastCall(AttrInt(f, "zones_global", s->nz_global));
  BlastCall(AttrInt(f, "ranks", v->size));
  BlastCall(AttrInt(f, "format_version", BLAST_VIZ_FORMAT));
  BlastCall(BlastHDF5AttrString(f, "problem", BlastProblemName(BlastHydroGetProblem(v->h)->id)));
  char materials[4096];
  MaterialsText(v->h, materials, sizeof materials);
  BlastCall(BlastHDF5AttrString(f, "materials", materials));
  return 0;
}

// Write this rank's block of every dataset and the attributes into the new file `path`
// (collective; every rank returns the same outcome). A stale entry of that name (a crash,
// or a symbolic link put there) is removed by rank 0 -- the link itself, never its target
// -- and the file is created with H5F_ACC_EXCL (O_EXCL): should anything take the name in
// between, the creation fails instead of writing through it. On failure the incomplete
// file is removed.
static int WriteFile(BlastViz v, const char *path, int step, double t, const VizFields *F,
                     int64_t voff, int64_t coff, int64_t nv, int64_t nc, int64_t nvg, int64_t ncg,
                     int64_t toff, int64_t nt, int64_t ntg) {
  hid_t f;
  int ierr = BlastHDF5CreateNew(v->comm, path, "visualization dump", 0, &f);
  const hid_t F64 = H5T_IEEE_F64LE, D = H5T_NATIVE_DOUBLE;
  const hsize_t V = (hsize_t)nvg, C = (hsize_t)ncg, v0 = (hsize_t)voff, c0 = (hsize_t)coff;
  const hsize_t mv = (hsize_t)nv, mc = (hsize_t)nc;
  const struct {
    const char *name;
    hid_t ftype, mtype;
    hsize_t rows, cols, row0, nrows;
    const void *buf;
  } blocks[] = {
      {"coordinates", F64, D, V, 3, v0, mv, F->coords},
      // one-type meshes [ncell][ncv]; mixed meshes the 1D list of XDMF's Mixed topology
      {"topology", H5T_STD_I64LE, H5T_NATIVE_INT64, v->ncv ? C : (hsize_t)ntg, (hsize_t)v->ncv,
       v->ncv ? c0 : (hsize_t)toff, v->ncv ? mc : (hsize_t)nt, F->topo},
      {"density", F64, D, V, 0, v0, mv, F->rho},
      {"velocity", F64, D, V, 3, v0, mv, F->vel},
      {"specific_internal_energy", F64, D, V, 0, v0, mv, F->e},
      {"pressure", F64, D, V, 0, v0, mv, F->p},
      {"sound_speed", F64, D, V, 0, v0, mv, F->cs},
      {"material", H5T_STD_I32LE, H5T_NATIVE_INT, C, 0, c0, mc, F->mat},
      {"attribute", H5T_STD_I32LE, H5T_NATIVE_INT, C, 0, c0, mc, F->attr},
      {"rank", H5T_STD_I32LE, H5T_NATIVE_INT, C, 0, c0, mc, F->rank},
      {"zone", H5T_STD_I64LE, H5T_NATIVE_INT64, C, 0, c0, mc, F->zid},
  };
  for (size_t i = 0; i < sizeof blocks / sizeof *blocks && !ierr; i++)
    ierr = Stage(v->comm,
                 WriteBlock(f, blocks[i].name, blocks[i].ftype, blocks[i].mtype, blocks[i].rows,
                            blocks[i].cols, blocks[i].row0, blocks[i].nrows, blocks[i].buf),
                 path);
  if (!ierr) ierr = Stage(v->comm, WriteAttributes(v, f, step, t), path);
  if (f >= 0) {
    // Closing writes the metadata: where a full disk shows up last.
    const herr_t closed = H5Fclose(f);
    if (!ierr)
      ierr = Stage(v->comm,
                   closed < 0 ? BlastHDF5Error(__FILE__, __LINE__, __func__, "H5Fclose") : 0, path);
    H5Eclear2(H5E_DEFAULT);
  }
  if (ierr) {
    BlastCallMPI(MPI_Barrier(v->comm));  // every rank has closed the file
    if (!v->rank && f >= 0) remove(path);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// Files (rank 0)

static void DumpName(const BlastViz v, int number, char *path, size_t n) {
  snprintf(path, n, "%s/viz_%06d.h5", v->dir, number);
}

// The number of a dump file name ("viz_000012.h5" -> 12), -1 for other names.
static int DumpNumber(const char *name) {
  int number = -1, len = 0;
  if (sscanf(name, "viz_%9d.h5%n", &number, &len) != 1 || len != (int)strlen(name) || number < 0)
    return -1;
  char canon[32];
  snprintf(canon, sizeof canon, "viz_%06d.h5", number);
  return strcmp(canon, name) ? -1 : number;
}

static int AppendEntry(BlastViz v, const VizEntry *e) {
  if (v->count == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 16;
    BlastCall(BlastRealloc(v->cap, &v->entries));
  }
  v->entries[v->count++] = *e;
  return 0;
}

// Read time, step and shapes of an existing dump; 0 if it is not a usable dump.
static int ProbeDump(const char *path, int number, VizEntry *e) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    H5Eclear2(H5E_DEFAULT);
    return 0;
  }
  long long step = -1, dim = 0;
  double t = NAN;
  hsize_t cdims[2] = {0, 0}, tdims[2] = {0, 0}, zdims[2] = {0, 0};
  int ok = 1;
  const char *anames[3] = {"time", "step", "dim"};
  void *avals[3] = {&t, &step, &dim};
  const hid_t atypes[3] = {H5T_NATIVE_DOUBLE, H5T_NATIVE_LLONG, H5T_NATIVE_LLONG};
  for (int i = 0; i < 3 && ok; i++) {
    hid_t a = H5Aopen(f, anames[i], H5P_DEFAULT);
    ok = a >= 0 && H5Aread(a, atypes[i], avals[i]) >= 0;
    if (a >= 0) H5Aclose(a);
  }
  // /topology: [ncell][ncv], or 1D (a mixed mesh's Mixed list; the cells counted by /zone)
  const char *dnames[3] = {"coordinates", "topology", "zone"};
  hsize_t *dd[3] = {cdims, tdims, zdims};
  int rank[3] = {0, 0, 0};
  for (int i = 0; i < 3 && ok; i++) {
    hid_t d = H5Dopen2(f, dnames[i], H5P_DEFAULT);
    hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
    rank[i] = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    ok = rank[i] == (i ? rank[i] : 2) && rank[i] >= 1 && rank[i] <= 2 &&
         H5Sget_simple_extent_dims(sp, dd[i], NULL) == rank[i];
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
  }
  H5Fclose(f);
  H5Eclear2(H5E_DEFAULT);
  const int mixed = ok && rank[1] == 1;
  if (!ok || !isfinite(t) || step < 0 || dim < 1 || dim > 3 || rank[2] != 1 ||
      (mixed && dim != 2) ||
      (!mixed && tdims[1] != (1u << dim) && (dim < 2 || tdims[1] != (hsize_t)dim + 1)))
    return 0;
  const long long ncell = mixed ? (long long)zdims[0] : (long long)tdims[0];
  *e = (VizEntry){
      number, (int)step,           (int)dim, mixed ? 0 : (int)tdims[1],
      t,      (long long)cdims[0], ncell,    (long long)(tdims[0] * (mixed ? 1 : tdims[1]))};
  return 1;
}

static int CompareInts(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

// Keep the dumps 0, 1, ... of dir (consecutive, readable, step <= `step`) as the start of
// the time series; delete the others and stale temporary files.
static int ScanDir(BlastViz v, int step) {
  BlastCall(BlastMakeDirs(v->dir));
  DIR *d = opendir(v->dir);
  BlastCheck(d, BLAST_ERR_IO, "cannot list %s: %s", v->dir, strerror(errno));
  int *numbers = NULL, n = 0, cap = 0, ierr = 0;
  for (struct dirent *de; (de = readdir(d)) && !ierr;) {
    const size_t len = strlen(de->d_name);
    if (!strncmp(de->d_name, ".viz_", 5) && len > 8 && !strcmp(de->d_name + len - 4, ".tmp")) {
      char path[BLAST_PATH_MAX + 300];
      snprintf(path, sizeof path, "%s/%s", v->dir, de->d_name);
      remove(path);  // left by a crash during a write
      continue;
    }
    const int number = DumpNumber(de->d_name);
    if (number < 0) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      ierr = BlastRealloc(cap, &numbers);
    }
    if (!ierr) numbers[n++] = number;
  }
  closedir(d);
  if (ierr) {
    BlastFree(&numbers);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  if (n) qsort(numbers, n, sizeof *numbers, CompareInts);
  BlastVtuDump *pvd = NULL;
  int npvd = 0, keep = 1;
  ierr = BlastVtuReadSeries(v->dir, &npvd, &pvd);
  const int xdmf = v->formats & BLAST_VIZ_XDMF, vtu = v->formats & BLAST_VIZ_VTU;
  for (int i = 0; i < (xdmf ? n : npvd) && keep && !ierr; i++) {
    char path[BLAST_PATH_MAX + 32];
    DumpName(v, i, path, sizeof path);
    VizEntry e = {i, i < npvd ? pvd[i].step : -1, v->dim, v->ncv, i < npvd ? pvd[i].t : NAN, 0, 0,
                  0};
    if (xdmf) keep = numbers[i] == i && ProbeDump(path, i, &e);
    if (vtu) keep = keep && i < npvd && pvd[i].step == e.step && pvd[i].t == e.t;
    keep = keep && e.step <= step &&
           (!v->count ||
            (e.step >= v->entries[v->count - 1].step && e.t >= v->entries[v->count - 1].t));
    if (keep) ierr = AppendEntry(v, &e);
  }
  for (int i = 0; i < n && !ierr; i++) {  // the dumps after those kept, of either format
    char path[BLAST_PATH_MAX + 32];
    DumpName(v, numbers[i], path, sizeof path);
    if (numbers[i] >= v->count && remove(path) != 0)
      ierr =
          BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_IO,
                          "cannot remove stale visualization dump %s: %s", path, strerror(errno));
    if (numbers[i] >= v->count && !xdmf)  // blast.xdmf listed it: gone with it
      snprintf(path, sizeof path, "%s/blast.xdmf", v->dir), remove(path);
  }
  if (!ierr) ierr = BlastVtuRemoveFrom(v->dir, v->count);
  if (!ierr && !vtu && npvd > v->count) ierr = BlastVtuWriteSeries(v->dir, v->count, pvd);
  BlastFree(&pvd);
  BlastFree(&numbers);
  return ierr ? BlastErrorTrace(__FILE__, __LINE__, __func__, ierr) : 0;
}

static void DataItem(FILE *fp, const char *file, const char *dset, long long rows, int cols,
                     const char *type, int precision) {
  if (cols)
    fprintf(fp,
            "          <DataItem Dimensions=\"%lld %d\" NumberType=\"%s\" Precision=\"%d\" "
            "Format=\"HDF\">%s:/%s</DataItem>\n",
            rows, cols, type, precision, file, dset);
  else
    fprintf(fp,
            "          <DataItem Dimensions=\"%lld\" NumberType=\"%s\" Precision=\"%d\" "
            "Format=\"HDF\">%s:/%s</DataItem>\n",
            rows, type, precision, file, dset);
}

// Rewrite <dir>/blast.xdmf with every entry (temporary file, then rename).
static int WriteXdmf(BlastViz v) {
  char path[BLAST_PATH_MAX + 32], tmp[BLAST_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/blast.xdmf", v->dir);
  snprintf(tmp, sizeof tmp, "%s/.viz_blast.xdmf.tmp", v->dir);
  FILE *fp = NULL;
  BlastCall(BlastCreateNewFile(tmp, &fp));  // never through a link left at that name
  fprintf(fp,
          "<?xml version=\"1.0\" ?>\n"
          "<Xdmf Version=\"3.0\">\n"
          "  <Domain>\n");
  char materials[4096];
  MaterialsText(v->h, materials, sizeof materials);
  fprintf(fp, "    <Information Name=\"materials\" Value=\"%s\"/>\n", materials);
  fprintf(fp,
          "    <Grid Name=\"blast_gpu\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  static const struct {
    const char *name, *type;
    int cell, vector;
  } fields[] = {{"density", "Float", 0, 0},
                {"velocity", "Float", 0, 1},
                {"specific_internal_energy", "Float", 0, 0},
                {"pressure", "Float", 0, 0},
                {"sound_speed", "Float", 0, 0},
                {"material", "Int", 1, 0},
                {"attribute", "Int", 1, 0},
                {"rank", "Int", 1, 0},
                {"zone", "Int", 1, 0}};
  for (int i = 0; i < v->count; i++) {
    const VizEntry *e = &v->entries[i];
    char file[32];
    snprintf(file, sizeof file, "viz_%06d.h5", e->number);
    fprintf(fp, "      <Grid Name=\"step_%d\" GridType=\"Uniform\">\n", e->step);
    fprintf(fp, "        <Time Value=\"%.17g\"/>\n", e->t);
    if (e->dim == 1)  // XDMF has no segment type: 2-node polylines
      fprintf(fp,
              "        <Topology TopologyType=\"Polyline\" NodesPerElement=\"2\" "
              "NumberOfElements=\"%lld\">\n",
              e->ncell);
    else
      fprintf(fp, "        <Topology TopologyType=\"%s\" NumberOfElements=\"%lld\">\n",
              e->ncv == 0            ? "Mixed"  // triangles and quadrilaterals
              : e->ncv == e->dim + 1 ? (e->dim == 2 ? "Triangle" : "Tetrahedron")
              : e->dim == 2          ? "Quadrilateral"
                                     : "Hexahedron",
              e->ncell);
    if (e->ncv)
      DataItem(fp, file, "topology", e->ncell, e->ncv, "Int", 8);
    else
      DataItem(fp, file, "topology", e->ntopo, 0, "Int", 8);
    fprintf(fp, "        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n");
    DataItem(fp, file, "coordinates", e->nvert, 3, "Float", 8);
    fprintf(fp, "        </Geometry>\n");
    for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
      const int cell = fields[k].cell;
      fprintf(fp, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"%s\">\n",
              fields[k].name, fields[k].vector ? "Vector" : "Scalar", cell ? "Cell" : "Node");
      const int prec = !strcmp(fields[k].type, "Float") || !strcmp(fields[k].name, "zone") ? 8 : 4;
      DataItem(fp, file, fields[k].name, cell ? e->ncell : e->nvert, fields[k].vector ? 3 : 0,
               fields[k].type, prec);
      fprintf(fp, "        </Attribute>\n");
    }
    fprintf(fp, "      </Grid>\n");
  }
  fprintf(fp, "    </Grid>\n  </Domain>\n</Xdmf>\n");
  int bad = fflush(fp) != 0 || ferror(fp);
  int err = bad ? errno : 0;
  if (fclose(fp) != 0 && !bad) bad = 1, err = errno;
  if (bad) {
    const int code = BlastWriteFailure("the visualization series", tmp, err);
    remove(tmp);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, code);
  }
  BlastCheck(rename(tmp, path) == 0, BLAST_ERR_IO, "cannot rename %s to %s: %s", tmp, path,
             strerror(errno));
  return 0;
}

// Rank 0: rewrite blast.pvd with every entry.
static int WriteSeries(BlastViz v) {
  BlastVtuDump *d = NULL;
  BlastCall(BlastMalloc(v->count + 1, &d));
  for (int i = 0; i < v->count; i++)
    d[i] = (BlastVtuDump){v->entries[i].number, v->entries[i].step, v->entries[i].t};
  const int ierr = BlastVtuWriteSeries(v->dir, v->count, d);
  BlastFree(&d);
  return ierr;
}

// The newest dump's path for messages: its HDF5 file, or with VTK files only its .pvtu.
static void LastName(BlastViz v, int number) {
  snprintf(v->last, sizeof v->last,
           v->formats & BLAST_VIZ_XDMF ? "%s/viz_%06d.h5" : "%s/viz_%06d.pvtu", v->dir, number);
}

// Rank 0 after the dump's files are complete: publish them, record the dump, rewrite the
// time series.
static int Publish(BlastViz v, const char *tmp, const char *path, const VizEntry *e) {
  if (v->formats & BLAST_VIZ_XDMF)
    BlastCheck(rename(tmp, path) == 0, BLAST_ERR_IO, "cannot rename %s to %s: %s", tmp, path,
               strerror(errno));
  if (v->count && v->entries[v->count - 1].number == e->number)
    v->entries[v->count - 1] = *e;
  else
    BlastCall(AppendEntry(v, e));
  if (v->formats & BLAST_VIZ_XDMF) BlastCall(WriteXdmf(v));
  if (v->formats & BLAST_VIZ_VTU) BlastCall(WriteSeries(v));
  return 0;
}

// ---------------------------------------------------------------------------------------

// Tables, then rank 0 continues the dumps already in dir (a restart) and everyone learns them.
static int Setup(BlastViz v, int refine) {
  const MPI_Comm comm = v->comm;
  const BlastSpace *s = BlastHydroGetSpace(v->h);
  const int xdmf = v->formats & BLAST_VIZ_XDMF, vtu = v->formats & BLAST_VIZ_VTU;
  int ierr = 0;
  for (int sl = 0; sl < v->nslot && !ierr; sl++) {
    ierr = BlastVizInitTables(v, sl, &v->sub[sl], refine);
    if (!ierr && vtu && s->k != refine) ierr = BlastVizInitTables(v, sl, &v->lag[sl], s->k);
    if (!ierr && vtu) ierr = BlastMalloc(v->h1_nd, &v->vtk[sl]);
    if (!ierr && vtu) ierr = BlastVtkLagrangeOrder(v->sub[sl].geom, s->k, v->vtk[sl]);
  }
  double t, dt;
  int steps, attempts;
  BlastHydroGetProgress(v->h, &t, &dt, &steps, &attempts);
  if (!ierr && !v->rank) {
    ierr = ScanDir(v, steps);
    if (!ierr && v->count && xdmf) ierr = WriteXdmf(v);
    if (!ierr && v->count && vtu) ierr = WriteSeries(v);
    char path[BLAST_PATH_MAX + 32];  // blast.pvd: BlastVtuRemoveFrom
    snprintf(path, sizeof path, "%s/blast.xdmf", v->dir);
    if (!ierr && !v->count && remove(path) != 0 && errno != ENOENT)
      ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_IO, "cannot remove %s: %s",
                             path, strerror(errno));
  }
  BlastCallAgree(comm, 0, ierr);
  BlastCallMPI(MPI_Bcast(&v->count, 1, MPI_INT, 0, comm));
  if (v->rank && v->count) {
    v->cap = v->count;
    BlastCall(BlastMalloc(v->cap, &v->entries));
  }
  if (v->count)
    BlastCallMPI(MPI_Bcast(v->entries, (int)(v->count * sizeof(VizEntry)), MPI_BYTE, 0, comm));
  if (v->count) LastName(v, v->entries[v->count - 1].number);
  return 0;
}

int BlastVizCreate(MPI_Comm comm, BlastHydro h, const char *dir, int refine, BlastViz *viz) {
  return BlastVizCreateWith(comm, h, dir, refine, BLAST_VIZ_XDMF, viz);
}

int BlastVizCreateWith(MPI_Comm comm, BlastHydro h, const char *dir, int refine, int formats,
                       BlastViz *viz) {
  BlastCheck(viz && h && dir, BLAST_ERR_ARG, "NULL argument");
  *viz = NULL;
  BlastCheck(refine >= 1 && refine <= VIZ_MAX_REFINE, BLAST_ERR_ARG,
             "visualization refinement %d out of range [1, %d]", refine, VIZ_MAX_REFINE);
  BlastCheck(formats >= 1 && formats <= (BLAST_VIZ_XDMF | BLAST_VIZ_VTU), BLAST_ERR_ARG,
             "visualization formats %d", formats);
  BlastCheck(strlen(dir) + 1 < BLAST_PATH_MAX, BLAST_ERR_ARG, "visualization path too long: %s",
             dir);
  BlastHDF5Quiet();
  const BlastSpace *s = BlastHydroGetSpace(h);
  struct BlastViz_private *v;
  BlastCall(BlastCalloc(1, &v));
  v->comm = comm;
  BlastCallMPI(MPI_Comm_rank(comm, &v->rank));
  BlastCallMPI(MPI_Comm_size(comm, &v->size));
  v->h = h;
  snprintf(v->dir, sizeof v->dir, "%s", dir);
  v->dim = s->dim;
  v->formats = formats;
  v->ncv = s->mixed ? 0 : BlastGeomIsSimplex(s->geom) ? v->dim + 1 : 1 << v->dim;
  v->h1_nd = s->h1_nd;
  v->l2_nd = s->l2_nd;
  v->nslot = s->mixed ? 2 : 1;
  int ierr = s->mixed ? BlastMalloc((size_t)s->nz + 1, &v->slot) : 0;
  for (int z = 0; !ierr && s->mixed && z < s->nz; z++)
    v->slot[z] = BlastSpaceZoneGeom(s, z) == BLAST_GEOM_TRIANGLE;
  if (!ierr) ierr = Setup(v, refine);
  if (ierr) {
    BlastVizDestroy(&v);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  *viz = v;
  return 0;
}

int BlastVizWrite(BlastViz v, int step, double t) {
  BlastCheck(v, BLAST_ERR_ARG, "NULL visualization object");
  const BlastSpace *s = BlastHydroGetSpace(v->h);
  const int xdmf = v->formats & BLAST_VIZ_XDMF, vtu = v->formats & BLAST_VIZ_VTU;
  // The sub-cells' fields; the Lagrange cells' are the same where refine = k.
  const VizTables *lag = v->lag[0].B ? v->lag : v->sub;  // LL: the Lagrange cells' own
  const int sub = xdmf || lag == v->sub, own = vtu && lag != v->sub;
  VizLayout LS = {0}, LL = {0};
  int ierr = BlastVizLayoutCreate(v, v->sub, &LS);
  if (!ierr && own) ierr = BlastVizLayoutCreate(v, lag, &LL);
  if (ierr) {
    BlastVizLayoutFree(&LS), BlastVizLayoutFree(&LL);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  const int64_t nv = LS.v[s->nz], nc = LS.c[s->nz], nt = LS.t[s->nz];
  int64_t voff = 0, coff = 0, toff = 0, nvg = 0, ncg = 0, ntg = 0;
  BlastCallMPI(MPI_Exscan(&nv, &voff, 1, MPI_INT64_T, MPI_SUM, v->comm));
  BlastCallMPI(MPI_Exscan(&nc, &coff, 1, MPI_INT64_T, MPI_SUM, v->comm));
  BlastCallMPI(MPI_Exscan(&nt, &toff, 1, MPI_INT64_T, MPI_SUM, v->comm));
  if (!v->rank) voff = coff = toff = 0;  // MPI_Exscan leaves rank 0's result undefined
  BlastCallMPI(MPI_Allreduce(&nv, &nvg, 1, MPI_INT64_T, MPI_SUM, v->comm));
  BlastCallMPI(MPI_Allreduce(&nc, &ncg, 1, MPI_INT64_T, MPI_SUM, v->comm));
  BlastCallMPI(MPI_Allreduce(&nt, &ntg, 1, MPI_INT64_T, MPI_SUM, v->comm));

  const int replace = v->count && v->entries[v->count - 1].step == step;
  const int number = replace ? v->entries[v->count - 1].number : v->count;
  char path[BLAST_PATH_MAX + 32], tmp[BLAST_PATH_MAX + 32];
  DumpName(v, number, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s/.viz_%06d.h5.tmp", v->dir, number);

  VizFields F = {0}, L = {0};
  if (sub) ierr = BlastVizAllocFields(&F, (size_t)nv + 1, (size_t)nc + 1, (size_t)nt + 1);
  if (!ierr && own)
    ierr = BlastVizAllocFields(&L, (size_t)LL.v[s->nz] + 1, (size_t)LL.c[s->nz] + 1,
                               (size_t)LL.t[s->nz] + 1);
  // Agreed before the collective file creation, so that no rank waits for a failed one.
  if (!ierr && sub) ierr = BlastVizComputeFields(v, v->sub, &LS, voff, &F);
  ierr = BlastAgree(v->comm, ierr, 0);
  if (!ierr && own) ierr = BlastAgree(v->comm, BlastVizComputeFields(v, lag, &LL, 0, &L), 0);
  if (!ierr && xdmf)  // agreed inside
    ierr = WriteFile(v, tmp, step, t, &F, voff, coff, nv, nc, nvg, ncg, toff, nt, ntg);
  if (!ierr && vtu) {  // every zone one Lagrange cell of its own geometry
    BlastVtuShape shapes[2];
    for (int sl = 0; sl < v->nslot; sl++)
      shapes[sl] = (BlastVtuShape){BlastVtkLagrangeType(v->sub[sl].geom), lag[sl].nvz, lag[sl].ncz,
                                   v->vtk[sl]};
    ierr = BlastVtuWriteZones(v->comm, v->dir, number, t, s->nz, shapes, v->slot, own ? &L : &F);
  }
  BlastVizFreeFields(&F), BlastVizFreeFields(&L);
  BlastVizLayoutFree(&LS), BlastVizLayoutFree(&LL);
  if (ierr && xdmf && !v->rank) remove(tmp);  // the HDF5 file of a dump whose VTK pieces failed
  BlastCall(ierr);
  // Every rank has closed the files: rank 0 publishes them and the time series.
  const VizEntry e = {number, step,           v->dim,         v->ncv,
                      t,      (long long)nvg, (long long)ncg, (long long)ntg};
  if (!v->rank) ierr = Publish(v, tmp, path, &e);
  BlastCallAgree(v->comm, 0, ierr);
  if (v->rank) {
    if (replace)
      v->entries[v->count - 1] = e;
    else
      BlastCall(AppendEntry(v, &e));
  }
  LastName(v, number);
  return 0;
}

int BlastVizCount(BlastViz viz) {
  return viz ? viz->count : 0;
}

const char *BlastVizLastPath(BlastViz viz) {
  return viz ? viz->last : "";
}

int BlastVizDestroy(BlastViz *viz) {
  if (!viz || !*viz) return 0;
  BlastViz v = *viz;
  VizTables *tabs[4] = {&v->sub[0], &v->lag[0], &v->sub[1], &v->lag[1]};
  for (int i = 0; i < 4; i++)
    BlastFree(&tabs[i]->B), BlastFree(&tabs[i]->G), BlastFree(&tabs[i]->L),
        BlastFree(&tabs[i]->cellv);
  for (int sl = 0; sl < 2; sl++) BlastFree(&v->Bc[sl]), BlastFree(&v->vtk[sl]);
  BlastFree(&v->slot), BlastFree(&v->entries);
  BlastFree(viz);
  return 0;
}
