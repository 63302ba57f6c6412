// MFEM mesh v1.0 writer (see meshio.h): explicit vertices, any zone geometry; the nodes of
// a curved mesh are not written (its vertices are: the straight-sided mesh).
#define _POSIX_C_SOURCE 200809L  // getpid()

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memory.h"
#include "meshio.h"
#include "safefile.h"

// Lexicographic corner c is MFEM vertex kLexToMfem[c] (its own inverse).
static const int kLexToMfem[8] = {0, 1, 3, 2, 4, 5, 7, 6};

// ---------------------------------------------------------------------------------------
// Writer

static void WriteMeshText(BlastMesh mesh, FILE *fp) {
  const int dim = BlastMeshDim(mesh), nc = 1 << dim, nf = 1 << (dim - 1);
  const int nz = BlastMeshNumZones(mesh), nb = BlastMeshNumBoundary(mesh);
  const int nv = BlastMeshNumVertices(mesh);
  const int *zv = BlastMeshZoneVerts(mesh), *za = BlastMeshZoneAttr(mesh);
  const int *bv = BlastMeshBdrVerts(mesh), *ba = BlastMeshBdrAttr(mesh);
  const double *x = BlastMeshCoords(mesh);
  fprintf(fp, "MFEM mesh v1.0\n\n# written by blast_gpu\n\ndimension\n%d\n\nelements\n%d\n", dim,
          nz);
  // Geometry numbers are MFEM's; tensor corners in MFEM order, simplices as they are.
  for (int z = 0; z < nz; z++) {
    const int g = BlastMeshZoneGeom(mesh, z), n = BlastGeomNumVertices(g);
    const int tensor = !BlastGeomIsSimplex(g) && n >= 4;
    fprintf(fp, "%d %d", za[z], g);
    for (int c = 0; c < n; c++)
      fprintf(fp, " %d", zv[(size_t)z * nc + (tensor ? kLexToMfem[c] : c)]);
    fputc('\n', fp);
  }
  fprintf(fp, "\nboundary\n%d\n", nb);
  for (int f = 0; f < nb; f++) {
    const int g = BlastMeshBdrGeom(mesh, f), n = BlastGeomNumVertices(g);
    const int tensor = !BlastGeomIsSimplex(g) && n >= 4;
    fprintf(fp, "%d %d", ba[f], g);
    for (int c = 0; c < n; c++)
      fprintf(fp, " %d", bv[(size_t)f * nf + (tensor ? kLexToMfem[c] : c)]);
    fputc('\n', fp);
  }
  fprintf(fp, "\nvertices\n%d\n%d\n", nv, dim);
  for (int v = 0; v < nv; v++)
    for (int c = 0; c < dim; c++)
      fprintf(fp, "%.17g%c", x[(size_t)v * dim + c], c == dim - 1 ? '\n' : ' ');
}

int BlastMeshWrite(BlastMesh mesh, const char *path) {
  BlastCheck(mesh && path, BLAST_ERR_ARG, "NULL argument");
  char *tmp;
  size_t len = strlen(path) + 32;
  BlastCall(BlastMalloc(len, &tmp));
  snprintf(tmp, len, "%s.tmp%ld", path, (long)getpid());
  // A new file, never through a link or into a file left at the temporary's name.
  FILE *fp = NULL;
  if (BlastCreateNewFile(tmp, &fp)) {
    BlastFree(&tmp);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, BLAST_ERR_IO);
  }
  WriteMeshText(mesh, fp);
  int bad = fflush(fp) != 0 || ferror(fp);
  int e = errno;
  if (fclose(fp) != 0 && !bad) bad = 1, e = errno;
  if (!bad && rename(tmp, path) != 0) {
    e = errno;
    remove(tmp);
    BlastFree(&tmp);
    BlastError(BLAST_ERR_IO, "cannot rename the temporary mesh file to '%s': %s", path,
               strerror(e));
  }
  if (bad) {
    remove(tmp);
    BlastFree(&tmp);
    BlastError(BLAST_ERR_IO, "cannot write mesh file '%s': %s", path, strerror(e));
  }
  BlastFree(&tmp);
  return 0;
}
