// VTK XML files of the visualization dumps: .vtu pieces, .pvtu, blast.pvd (viz_vtu.h).
#define _POSIX_C_SOURCE 200809L  // readdir

#include "viz_vtu.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"
#include "blast_hdf5.h"
#include "blast_mpi.h"
#include "safefile.h"

enum { VTU_PATH = 1024 + 64 };  // BLAST_PATH_MAX (hydro/config.h) and a file name

static const char *ByteOrder(void) {
  const uint16_t one = 1;
  return *(const unsigned char *)&one ? "LittleEndian" : "BigEndian";
}

static int TypeSize(const char *type) {
  return !strcmp(type, "UInt8") ? 1 : !strcmp(type, "Int32") ? 4 : 8;
}

// Close fp after writing `what` to path; a failed write or close removes the file.
static int Finish(FILE *fp, const char *what, const char *path) {
  int bad = fflush(fp) != 0 || ferror(fp);
  int err = bad ? errno : 0;
  if (fclose(fp) != 0 && !bad) bad = 1, err = errno;
  if (bad) {
    const int code = BlastWriteFailure(what, path, err ? err : EIO);
    remove(path);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, code);
  }
  return 0;
}

static int Rename(const char *tmp, const char *path) {
  BlastCheck(rename(tmp, path) == 0, BLAST_ERR_IO, "cannot rename %s to %s: %s", tmp, path,
             strerror(errno));
  return 0;
}

// The XML element of an appended array; *offset advances past its block.
static void ArrayTag(FILE *fp, const BlastVtuArray *a, long long ntuples, uint64_t *offset) {
  fprintf(fp, "        <DataArray type=\"%s\"", a->type);
  if (a->name) fprintf(fp, " Name=\"%s\"", a->name);
  fprintf(fp, " NumberOfComponents=\"%d\" format=\"appended\" offset=\"%llu\"/>\n", a->ncomp,
          (unsigned long long)*offset);
  *offset += sizeof(uint64_t) + (uint64_t)ntuples * a->ncomp * TypeSize(a->type);
}

static void ArrayData(FILE *fp, const BlastVtuArray *a, long long ntuples) {
  const uint64_t bytes = (uint64_t)ntuples * a->ncomp * TypeSize(a->type);
  fwrite(&bytes, sizeof bytes, 1, fp);
  if (bytes) fwrite(a->data, 1, bytes, fp);
}

int BlastVtuWritePiece(const char *path, const BlastVtuPiece *pc) {
  BlastCheck(path && pc, BLAST_ERR_ARG, "NULL argument");
  const BlastVtuArray pts = {NULL, "Float64", 3, pc->points};
  const BlastVtuArray cells[3] = {{"connectivity", "Int64", 1, pc->connectivity},
                                  {"offsets", "Int64", 1, pc->offsets},
                                  {"types", "UInt8", 1, pc->types}};
  const long long nconn = pc->ncells ? pc->offsets[pc->ncells - 1] : 0;
  const long long cell_tuples[3] = {nconn, pc->ncells, pc->ncells};
  FILE *fp = NULL;
  BlastCall(BlastCreateNewFile(path, &fp));
  fprintf(fp,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"UnstructuredGrid\" version=\"2.2\" byte_order=\"%s\" "
          "header_type=\"UInt64\">\n"
          "  <UnstructuredGrid>\n"
          "    <FieldData>\n"
          "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
          "format=\"ascii\">%.17g</DataArray>\n"
          "    </FieldData>\n"
          "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n",
          ByteOrder(), pc->time, pc->npoints, pc->ncells);
  uint64_t offset = 0;
  fprintf(fp, "      <PointData>\n");
  for (int i = 0; i < pc->npoint_arrays; i++)
    ArrayTag(fp, &pc->point_arrays[i], pc->npoints, &offset);
  fprintf(fp, "      </PointData>\n      <CellData>\n");
  for (int i = 0; i < pc->ncell_arrays; i++) ArrayTag(fp, &pc->cell_arrays[i], pc->ncells, &offset);
  fprintf(fp, "      </CellData>\n      <Points>\n");
  ArrayTag(fp, &pts, pc->npoints, &offset);
  fprintf(fp, "      </Points>\n      <Cells>\n");
  for (int i = 0; i < 3; i++) ArrayTag(fp, &cells[i], cell_tuples[i], &offset);
  fprintf(fp,
          "      </Cells>\n"
          "    </Piece>\n"
          "  </UnstructuredGrid>\n"
          "  <AppendedData encoding=\"raw\">\n   _");
  for (int i = 0; i < pc->npoint_arrays; i++) ArrayData(fp, &pc->point_arrays[i], pc->npoints);
  for (int i = 0; i < pc->ncell_arrays; i++) ArrayData(fp, &pc->cell_arrays[i], pc->ncells);
  ArrayData(fp, &pts, pc->npoints);
  for (int i = 0; i < 3; i++) ArrayData(fp, &cells[i], cell_tuples[i]);
  fprintf(fp, "\n  </AppendedData>\n</VTKFile>\n");
  BlastCall(Finish(fp, "a visualization piece", path));
  return 0;
}

static void PArrays(FILE *fp, const char *tag, int n, const BlastVtuArray *a) {
  fprintf(fp, "    <%s>\n", tag);
  for (int i = 0; i < n; i++)
    fprintf(fp, "      <PDataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\"/>\n",
            a[i].type, a[i].name, a[i].ncomp);
  fprintf(fp, "    </%s>\n", tag);
}

static int WritePvtu(const char *dir, int number, int npieces, const BlastVtuPiece *pc) {
  char path[VTU_PATH], tmp[VTU_PATH];
  snprintf(path, sizeof path, "%s/viz_%06d.pvtu", dir, number);
  snprintf(tmp, sizeof tmp, "%s/.viz_%06d.pvtu.tmp", dir, number);
  FILE *fp = NULL;
  BlastCall(BlastCreateNewFile(tmp, &fp));
  fprintf(fp,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PUnstructuredGrid\" version=\"2.2\" byte_order=\"%s\" "
          "header_type=\"UInt64\">\n"
          "  <PUnstructuredGrid GhostLevel=\"0\">\n",
          ByteOrder());
  PArrays(fp, "PPointData", pc->npoint_arrays, pc->point_arrays);
  PArrays(fp, "PCellData", pc->ncell_arrays, pc->cell_arrays);
  fprintf(fp,
          "    <PPoints>\n"
          "      <PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n"
          "    </PPoints>\n");
  for (int r = 0; r < npieces; r++)
    fprintf(fp, "    <Piece Source=\"viz_%06d_p%06d.vtu\"/>\n", number, r);
  fprintf(fp, "  </PUnstructuredGrid>\n</VTKFile>\n");
  BlastCall(Finish(fp, "a visualization dump", tmp));
  BlastCall(Rename(tmp, path));
  return 0;
}

// Agree on the ranks' own file errors with one message: the lowest failing rank reports
// (every rank writing its own piece to a full disk fails alike); the others stop with it.
static int AgreeLowest(MPI_Comm comm, int rank, int ierr) {
  int mine = ierr ? rank : INT_MAX, low = INT_MAX;
  BlastCallMPI(MPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, comm));
  if (low == INT_MAX) return 0;
  return BlastAgree(comm, rank == low ? ierr : 0, 0);
}

int BlastVtuWriteDump(MPI_Comm comm, const char *dir, int number, const BlastVtuPiece *piece) {
  int rank, size;
  BlastCallMPI(MPI_Comm_rank(comm, &rank));
  BlastCallMPI(MPI_Comm_size(comm, &size));
  char path[VTU_PATH], tmp[VTU_PATH];
  snprintf(path, sizeof path, "%s/viz_%06d_p%06d.vtu", dir, number, rank);
  snprintf(tmp, sizeof tmp, "%s/.viz_%06d_p%06d.vtu.tmp", dir, number, rank);
  int ierr = BlastVtuWritePiece(tmp, piece);
  if (!ierr) ierr = Rename(tmp, path);
  ierr = AgreeLowest(comm, rank, ierr);
  if (ierr) return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  if (!rank) ierr = WritePvtu(dir, number, size, piece);
  for (int r = size; !rank && !ierr; r++) {  // pieces of a replaced dump from more ranks
    snprintf(path, sizeof path, "%s/viz_%06d_p%06d.vtu", dir, number, r);
    if (remove(path) != 0) break;
  }
  BlastCallAgree(comm, 0, ierr);
  return 0;
}

int BlastVtuWriteSeries(const char *dir, int n, const BlastVtuDump *dumps) {
  char path[VTU_PATH], tmp[VTU_PATH];
  snprintf(path, sizeof path, "%s/blast.pvd", dir);
  snprintf(tmp, sizeof tmp, "%s/.viz_blast.pvd.tmp", dir);
  FILE *fp = NULL;
  BlastCall(BlastCreateNewFile(tmp, &fp));
  fprintf(fp,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"%s\">\n"
          "  <Collection>\n",
          ByteOrder());
  for (int i = 0; i < n; i++)
    fprintf(fp,
            "    <DataSet timestep=\"%.17g\" step=\"%d\" part=\"0\" "
            "file=\"viz_%06d.pvtu\"/>\n",
            dumps[i].t, dumps[i].step, dumps[i].number);
  fprintf(fp, "  </Collection>\n</VTKFile>\n");
  BlastCall(Finish(fp, "the visualization series", tmp));
  BlastCall(Rename(tmp, path));
  return 0;
}

int BlastVtuReadSeries(const char *dir, int *n, BlastVtuDump **dumps) {
  BlastCheck(dir && n && dumps, BLAST_ERR_ARG, "NULL argument");
  *n = 0;
  *dumps = NULL;
  char path[VTU_PATH];
  snprintf(path, sizeof path, "%s/blast.pvd", dir);
  FILE *fp = NULL;
  BlastFileProbe probe;
  if (BlastProbeRegularFile(path, (size_t)1 << 30, &probe, &fp) != BLAST_FILE_OK) return 0;
  int cap = 0, ierr = 0;
  char line[512];
  while (!ierr && fgets(line, sizeof line, fp)) {
    BlastVtuDump d;
    int len = 0;
    if (sscanf(line, " <DataSet timestep=\"%lf\" step=\"%d\" part=\"0\" file=\"viz_%d.pvtu\"/>%n",
               &d.t, &d.step, &d.number, &len) != 3 ||
        !len || d.number != *n)
      continue;
    char pvtu[VTU_PATH];
    snprintf(pvtu, sizeof pvtu, "%s/viz_%06d.pvtu", dir, d.number);
    BlastFileProbe pv;
    if (BlastProbeRegularFile(pvtu, 0, &pv, NULL) != BLAST_FILE_OK) break;
    if (*n == cap) {
      cap = cap ? 2 * cap : 64;
      ierr = BlastRealloc(cap, dumps);
    }
    if (!ierr) (*dumps)[(*n)++] = d;
  }
  fclose(fp);
  BlastCall(ierr);
  return 0;
}

int BlastVtuRemoveFrom(const char *dir, int first) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int err = 0;
  char path[VTU_PATH] = "";
  for (struct dirent *de; (de = readdir(d)) && !err;) {
    int number = -1, rank = -1, len = 0;
    const char *nm = de->d_name;
    const size_t n = strlen(nm);
    const int piece = sscanf(nm, "viz_%d_p%d.vtu%n", &number, &rank, &len) == 2 && len == (int)n;
    len = 0;
    const int pvtu = !piece && sscanf(nm, "viz_%d.pvtu%n", &number, &len) == 1 && len == (int)n;
    if ((piece || pvtu) && number >= first) {
      snprintf(path, sizeof path, "%s/%s", dir, nm);
      if (remove(path) != 0 && errno != ENOENT) err = errno;
    }
  }
  closedir(d);
  snprintf(path, sizeof path, "%s/blast.pvd", dir);
  if (!err && !first && remove(path) != 0 && errno != ENOENT) err = errno;
  BlastCheck(!err, BLAST_ERR_IO, "cannot remove stale visualization file %s: %s", path,
             strerror(err));
  return 0;
}

int BlastVtuWriteZones(MPI_Comm comm, const char *dir, int number, double t, int nz,
                       const BlastVtuShape *shapes, const uint8_t *zone_shape,
                       const BlastVizFields *F) {
  int64_t *conn = NULL, *offs = NULL, *zid = NULL, nconn = 0;
  for (int z = 0; z < nz; z++) nconn += shapes[zone_shape ? zone_shape[z] : 0].nn;
  uint8_t *types = NULL;
  int *mat = NULL, *attr = NULL, *rank = NULL;
  int ierr = BlastMalloc((size_t)nconn + 1, &conn);
  if (!ierr) ierr = BlastMalloc((size_t)nz + 1, &offs);
  if (!ierr) ierr = BlastMalloc((size_t)nz + 1, &types);
  if (!ierr) ierr = BlastMalloc(3 * ((size_t)nz + 1), &mat);
  if (!ierr) ierr = BlastMalloc((size_t)nz + 1, &zid);
  if (!ierr) {
    attr = mat + nz + 1, rank = attr + nz + 1;
    int64_t p0 = 0;  // the zone's first point
    size_t c = 0;    // its first cell in F
    for (int z = 0; z < nz; z++) {
      const BlastVtuShape *sh = &shapes[zone_shape ? zone_shape[z] : 0];
      for (int a = 0; a < sh->nn; a++) conn[p0 + a] = p0 + sh->lattice[a];
      p0 += sh->nn;
      offs[z] = p0;
      types[z] = (uint8_t)sh->type;
      mat[z] = F->mat[c], attr[z] = F->attr[c], rank[z] = F->rank[c], zid[z] = F->zid[c];
      c += (size_t)sh->cstride;
    }
  }
  const BlastVtuArray pa[] = {{"density", "Float64", 1, F->rho},
                              {"velocity", "Float64", 3, F->vel},
                              {"specific_internal_energy", "Float64", 1, F->e},
                              {"pressure", "Float64", 1, F->p},
                              {"sound_speed", "Float64", 1, F->cs}};
  const BlastVtuArray ca[] = {{"material", "Int32", 1, mat},
                              {"attribute", "Int32", 1, attr},
                              {"rank", "Int32", 1, rank},
                              {"zone", "Int64", 1, zid}};
  const BlastVtuPiece piece = {(long long)nconn, nz, F->coords, conn, offs, types, 5, 4, pa, ca, t};
  ierr = BlastAgree(comm, ierr, 0);
  if (!ierr) ierr = BlastVtuWriteDump(comm, dir, number, &piece);  // agreed inside
  BlastFree(&conn), BlastFree(&offs), BlastFree(&types), BlastFree(&mat), BlastFree(&zid);
  return ierr;
}
