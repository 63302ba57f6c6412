// Entity numbering and entity -> zone lists (see entities.h). Both are bucket sorts: the
// items are counted per bucket (the key's first vertex, or the entity), scattered to their
// bucket in any order (atomic positions, so threads may interleave), and each bucket is
// then sorted by a total order of its own: the result is the same for any number of
// threads, and the same as one global sort.
#include "entities.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"

// Slot a's key before slot b's (lexicographic over len entries, then the slot): a total
// order, so a bucket has one sorted order whatever order its slots arrived in.
static int KeyLess(const int *keys, int len, int a, int b) {
  const int *ka = &keys[(size_t)a * len], *kb = &keys[(size_t)b * len];
  for (int i = 0; i < len; i++)
    if (ka[i] != kb[i]) return ka[i] < kb[i];
  return a < b;
}

// Heap sort of the slots v[0..n) by KeyLess (buckets of many slots: a vertex with many
// zones around it), in place.
static void SiftDown(const int *keys, int len, int *v, int root, int n) {
  for (int child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && KeyLess(keys, len, v[child], v[child + 1])) child++;
    if (!KeyLess(keys, len, v[root], v[child])) return;
    const int t = v[root];
    v[root] = v[child], v[child] = t;
  }
}

static void SortSlots(const int *keys, int len, int *v, int n) {
  if (n <= 32) {  // buckets of structured meshes hold a dozen slots
    for (int i = 1; i < n; i++)
      for (int j = i; j > 0 && KeyLess(keys, len, v[j], v[j - 1]); j--) {
        const int t = v[j];
        v[j] = v[j - 1], v[j - 1] = t;
      }
    return;
  }
  for (int i = n / 2 - 1; i >= 0; i--) SiftDown(keys, len, v, i, n);
  for (int end = n - 1; end > 0; end--) {
    const int t = v[0];
    v[0] = v[end], v[end] = t;
    SiftDown(keys, len, v, 0, end);
  }
}

// Slots a and b have the same key.
static int KeySame(const int *keys, int len, int a, int b) {
  const int *ka = &keys[(size_t)a * len], *kb = &keys[(size_t)b * len];
  for (int i = 0; i < len; i++)
    if (ka[i] != kb[i]) return 0;
  return 1;
}

int BlastEntitiesNumber(size_t nslots, int len, int nverts, const int *keys, int per_zone,
                        int **ids, int **verts, int *n, int **zoff, int **zones) {
  BlastCheck(nslots < INT_MAX, BLAST_ERR_INPUT,
             "the mesh has %zu entity slots (zones times edges or faces per zone): more than "
             "the %d a topology can index",
             nslots, INT_MAX);
  const int ns = (int)nslots;
  // bucket v (first vertex v): slots [start[v], start[v+1]); then its first entity and
  // its first (entity, zone) pair
  int64_t *start = NULL, *fill = NULL, *pair = NULL;
  int *slot = NULL;
  *ids = NULL, *verts = NULL, *n = 0;
  if (zoff) *zoff = NULL, *zones = NULL;
  int ierr = BlastCalloc((size_t)nverts + 1, &start);
  if (!ierr) ierr = BlastMalloc((size_t)nverts + 1, &fill);
  if (!ierr) ierr = BlastMalloc((size_t)nverts + 1, &pair);
  if (!ierr) ierr = BlastMalloc(nslots + 1, &slot);
  if (!ierr) ierr = BlastMalloc(nslots + 1, ids);
  if (ierr) {
    BlastFree(&start), BlastFree(&fill), BlastFree(&pair), BlastFree(&slot), BlastFree(ids);
    BlastCall(ierr);
  }
#pragma omp parallel for schedule(static)
  for (int s = 0; s < ns; s++) {
    (*ids)[s] = -1;
    const int v = keys[(size_t)s * len];
    if (v < 0) continue;
#pragma omp atomic
    start[v + 1]++;
  }
  for (int v = 0; v < nverts; v++) start[v + 1] += start[v];
  memcpy(fill, start, sizeof *fill * nverts);
#pragma omp parallel for schedule(static)
  for (int s = 0; s < ns; s++) {
    const int v = keys[(size_t)s * len];
    if (v < 0) continue;
    int64_t at;
#pragma omp atomic capture
    at = fill[v]++;
    slot[at] = s;
  }
  // Each bucket sorted (an entity's slots, hence its zones, ascending); its distinct keys
  // (fill[v]) and distinct (entity, zone) pairs (pair[v]) counted, then numbered from the
  // buckets before it.
#pragma omp parallel for schedule(dynamic, 1024)
  for (int v = 0; v < nverts; v++) {
    int *b = &slot[start[v]];
    const int m = (int)(start[v + 1] - start[v]);
    SortSlots(keys, len, b, m);
    int64_t d = 0, p = 0;
    for (int i = 0; i < m; i++) {
      const int same = i > 0 && KeySame(keys, len, b[i], b[i - 1]);
      d += !same, p += !same || b[i] / per_zone != b[i - 1] / per_zone;
    }
    fill[v] = d, pair[v] = p;
  }
  int64_t total = 0, npair = 0;
  for (int v = 0; v < nverts; v++) {
    const int64_t d = fill[v], p = pair[v];
    fill[v] = total, pair[v] = npair;
    total += d, npair += p;
  }
  ierr = total < INT_MAX ? 0 : BLAST_ERR_INPUT;
  if (ierr)
    BlastErrorRaise(__FILE__, __LINE__, __func__, ierr,
                    "the mesh has %lld edges or faces: more than the %d a topology can index",
                    (long long)total, INT_MAX);
  if (!ierr) ierr = BlastMalloc((size_t)total * len + 1, verts);
  if (!ierr && zoff) ierr = BlastMalloc((size_t)total + 1, zoff);
  if (!ierr && zoff) ierr = BlastMalloc((size_t)npair + 1, zones);
  if (!ierr) {
    int *zo = zoff ? *zoff : NULL, *zn = zoff ? *zones : NULL;
#pragma omp parallel for schedule(dynamic, 1024)
    for (int v = 0; v < nverts; v++) {
      const int *b = &slot[start[v]];
      const int m = (int)(start[v + 1] - start[v]);
      int64_t id = fill[v] - 1, at = pair[v];
      for (int i = 0; i < m; i++) {
        const int *k = &keys[(size_t)b[i] * len];
        const int same = i > 0 && KeySame(keys, len, b[i], b[i - 1]);
        if (!same) {
          memcpy(&(*verts)[++id * len], k, sizeof(int) * len);
          if (zo) zo[id] = (int)at;
        }
        if (zo && (!same || b[i] / per_zone != b[i - 1] / per_zone)) zn[at++] = b[i] / per_zone;
        (*ids)[b[i]] = (int)id;
      }
    }
    if (zo) zo[total] = (int)npair;
    *n = (int)total;
  }
  BlastFree(&start);
  BlastFree(&fill);
  BlastFree(&pair);
  BlastFree(&slot);
  if (ierr) {
    BlastFree(ids), BlastFree(verts);
    if (zoff) BlastFree(zoff), BlastFree(zones);
  }
  BlastCall(ierr);
  return 0;
}

static int CompareInt(const void *pa, const void *pb) {
  const int a = *(const int *)pa, b = *(const int *)pb;
  return (a > b) - (a < b);
}

int BlastEntitiesZones(int nent, int nzones, int per_zone, const int *ent, int **off, int **zones) {
  int *fill = NULL;
  *zones = NULL;
  int ierr = BlastCalloc((size_t)nent + 1, off);
  if (!ierr) ierr = BlastMalloc((size_t)nent + 1, &fill);
  if (ierr) {
    BlastFree(off);
    BlastCall(ierr);
  }
  int *o = *off;
#pragma omp parallel for schedule(static)
  for (int z = 0; z < nzones; z++)
    for (int k = 0; k < per_zone; k++) {
      const int e = ent[(size_t)z * per_zone + k];
      if (e < 0) continue;
#pragma omp atomic
      o[e + 1]++;
    }
  for (int e = 0; e < nent; e++) o[e + 1] += o[e];
  memcpy(fill, o, sizeof *fill * nent);
  ierr = BlastMalloc((size_t)o[nent] + 1, zones);
  if (ierr) {
    BlastFree(&fill);
    BlastFree(off);
    BlastCall(ierr);
  }
  int *zn = *zones;
#pragma omp parallel for schedule(static)
  for (int z = 0; z < nzones; z++)
    for (int k = 0; k < per_zone; k++) {
      const int e = ent[(size_t)z * per_zone + k];
      if (e < 0) continue;
      int at;
#pragma omp atomic capture
      at = fill[e]++;
      zn[at] = z;
    }
  // Each list ascending with each zone once (a zone that lists an entity twice: only in
  // invalid meshes, which the conformity check reports); fill[e]: its length.
  int repeated = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(| : repeated)
  for (int e = 0; e < nent; e++) {
    int *l = &zn[o[e]];
    const int m = o[e + 1] - o[e];
    if (m > 32) {
      qsort(l, (size_t)m, sizeof *l, CompareInt);
    } else {
      for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && l[j] < l[j - 1]; j--) {
          const int t = l[j];
          l[j] = l[j - 1], l[j - 1] = t;
        }
    }
    int u = 0;
    for (int i = 0; i < m; i++)
      if (!u || l[u - 1] != l[i]) l[u++] = l[i];
    fill[e] = u;
    repeated |= u < m;
  }
  if (repeated) {  // compact the lists (their starts only move down)
    int at = 0;
    for (int e = 0; e < nent; e++) {
      const int s = o[e];
      o[e] = at;
      memmove(&zn[at], &zn[s], sizeof *zn * fill[e]);
      at += fill[e];
    }
    o[nent] = at;
  }
  BlastFree(&fill);
  return 0;
}
