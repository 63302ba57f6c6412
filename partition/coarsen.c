// Multilevel partitioning of large dual graphs: a threaded, deterministic coarsening in
// front of METIS (which runs serially), and a greedy boundary refinement on the way back.
//
// Matching: every unmatched vertex proposes the incident edge of highest priority (the
// heavier edge first, then a hash of the edge's two ends, a fixed order); an edge chosen
// from both ends is matched. Each round reads only the previous round's state, so the
// matching is the same for any thread count. Matched pairs become one coarse vertex
// (numbered by its lower fine vertex, in order), unmatched vertices stay alone.
#include <stdint.h>
#include <stdlib.h>
#include <omp.h>
#include <string.h>

#include "partition-impl.h"

enum {
  kRounds = 4,      // matching rounds per level
  kMaxLevels = 16,  // levels at most
  kPasses = 8       // refinement sweeps per level at most
};

// A coarser level: its graph (owned arrays) and the map from the finer level's vertices.
typedef struct {
  BlastPartGraph g;
  int *xadj, *adj, *vw, *ew;
  int *cmap;  // [finer n] coarse vertex of each finer vertex
} Level;

static void LevelFree(Level *l) {
  BlastFree(&l->xadj);
  BlastFree(&l->adj);
  BlastFree(&l->vw);
  BlastFree(&l->ew);
  BlastFree(&l->cmap);
}

static inline uint64_t EdgeHash(int a, int b) {
  uint64_t x = a < b ? ((uint64_t)(uint32_t)a << 32 | (uint32_t)b)
                     : ((uint64_t)(uint32_t)b << 32 | (uint32_t)a);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// In place: a[0..n) counts become a[0..n] their exclusive prefix sums (a[n]: the total),
// in chunks of the threads, the same integers for any thread count.
static int Scan(int n, int *a) {
  long long *base;
  BlastCall(BlastCalloc((size_t)omp_get_max_threads() + 1, &base));
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int lo = (int)((long long)n * t / nt), hi = (int)((long long)n * (t + 1) / nt);
    long long sum = 0;
    for (int i = lo; i < hi; i++) sum += a[i];
    base[t + 1] = sum;
#pragma omp barrier
#pragma omp single
    for (int j = 0; j < nt; j++) base[j + 1] += base[j];
    long long off = base[t];
    for (int i = lo; i < hi; i++) {
      const int c = a[i];
      a[i] = (int)off, off += c;
    }
    if (t == nt - 1) a[n] = (int)off;
  }
  BlastFree(&base);
  return 0;
}

static inline int VW(const BlastPartGraph *g, int v) {
  return g->vw ? g->vw[v] : 1;
}

static inline int EW(const BlastPartGraph *g, int k) {
  return g->ew ? g->ew[k] : 1;
}

// match[v]: v's partner, or v itself when it stays alone. Pairs weigh at most maxvw.
// act: scratch of n ints (the vertices still unmatched, ascending).
static void Match(const BlastPartGraph *g, int maxvw, int *match, int *prop, int *act) {
  const int n = g->n;
  int na = n;
#pragma omp parallel for schedule(static)
  for (int v = 0; v < n; v++) match[v] = -1, act[v] = v;
  for (int r = 0; r < kRounds && na > 0; r++) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < na; i++) {
      const int v = act[i];
      int best = -1;
      double bw2 = 0.0, bvu = 1.0;
      uint64_t bh = 0;
      for (int k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
        const int u = g->adj[k];
        if (u == v || match[u] >= 0 || VW(g, v) + VW(g, u) > maxvw) continue;
        // The edge's rating w^2 / (c_u c_v), heavy edges between light vertices first; c_v
        // is v's for every candidate: compare w^2 / c_u as w^2 c_u' against w'^2 c_u.
        const double w = EW(g, k), w2 = w * w, vu = VW(g, u);
        const uint64_t h = EdgeHash(u, v);
        const double lhs = w2 * bvu, rhs = bw2 * vu;
        if (best < 0 || lhs > rhs || (lhs == rhs && (h > bh || (h == bh && u < best))))
          best = u, bw2 = w2, bvu = vu, bh = h;
      }
      prop[v] = best;
    }
    // Only unmatched vertices' proposals are read: those of this round.
#pragma omp parallel for schedule(static)
    for (int i = 0; i < na; i++) {
      const int v = act[i];
      if (prop[v] >= 0 && prop[prop[v]] == v) match[v] = prop[v];
    }
    int m = 0;
    for (int i = 0; i < na; i++)
      if (match[act[i]] < 0) act[m++] = act[i];
    na = m;
  }
  for (int i = 0; i < na; i++) match[act[i]] = act[i];
}

// The coarse graph of a matching: *l gets its arrays and the map; *nc its vertex count.
static int Contract(const BlastPartGraph *g, const int *match, int *lead, Level *l) {
  const int n = g->n;
  BlastCall(BlastMalloc(n + 1, &l->cmap));
  int *cm = l->cmap;
#pragma omp parallel for schedule(static)
  for (int v = 0; v < n; v++) cm[v] = match[v] >= v;  // the pair's lower vertex leads
  BlastCall(Scan(n, cm));
  const int nc = cm[n];
#pragma omp parallel for schedule(static)
  for (int v = 0; v < n; v++)
    if (match[v] >= v) lead[cm[v]] = v;
#pragma omp parallel for schedule(static)
  for (int v = 0; v < n; v++)
    if (match[v] < v) cm[v] = cm[match[v]];
  int *ub, *cnt;
  BlastCall(BlastMalloc(nc + 1, &ub));
  BlastCall(BlastMalloc(nc + 1, &cnt));
#pragma omp parallel for schedule(static)
  for (int c = 0; c < nc; c++) {
    const int v = lead[c], u = match[v];
    ub[c] = (g->xadj[v + 1] - g->xadj[v]) + (u != v ? g->xadj[u + 1] - g->xadj[u] : 0);
  }
  BlastCall(Scan(nc, ub));
  int *tadj, *tew;
  BlastCall(BlastMalloc((size_t)ub[nc] + 1, &tadj));
  BlastCall(BlastMalloc((size_t)ub[nc] + 1, &tew));
  BlastCall(BlastMalloc(nc + 1, &l->vw));
  const int *cmap = l->cmap;
  int *vw = l->vw;
#pragma omp parallel for schedule(dynamic, 1024)
  for (int c = 0; c < nc; c++) {
    const int v = lead[c], u = match[v], s = ub[c];
    int k = 0;
    vw[c] = VW(g, v) + (u != v ? VW(g, u) : 0);
    for (int e = 0; e < 2; e++) {
      const int x = e ? u : v;
      if (e && u == v) break;
      for (int j = g->xadj[x]; j < g->xadj[x + 1]; j++) {
        const int cw = cmap[g->adj[j]];
        if (cw == c) continue;
        int i = 0;
        while (i < k && tadj[s + i] != cw) i++;
        if (i == k) tadj[s + k] = cw, tew[s + k] = 0, k++;
        tew[s + i] += EW(g, j);
      }
    }
    cnt[c] = k;
  }
  BlastCall(BlastMalloc(nc + 1, &l->xadj));
#pragma omp parallel for schedule(static)
  for (int c = 0; c < nc; c++) l->xadj[c] = cnt[c];
  BlastCall(Scan(nc, l->xadj));
  BlastCall(BlastMalloc((size_t)l->xadj[nc] + 1, &l->adj));
  BlastCall(BlastMalloc((size_t)l->xadj[nc] + 1, &l->ew));
  int *xadj = l->xadj, *adj = l->adj, *ew = l->ew;
#pragma omp parallel for schedule(static)
  for (int c = 0; c < nc; c++)
    for (int i = 0; i < cnt[c]; i++)
      adj[xadj[c] + i] = tadj[ub[c] + i], ew[xadj[c] + i] = tew[ub[c] + i];
  BlastFree(&tadj);
  BlastFree(&tew);
  BlastFree(&ub);
  BlastFree(&cnt);
  l->g = (BlastPartGraph){nc, l->xadj, l->adj, l->vw, l->ew};
  return 0;
}

static int CompareInt(const void *pa, const void *pb) {
  const int a = *(const int *)pa, b = *(const int *)pb;
  return (a > b) - (a < b);
}

static inline int OnBoundary(const BlastPartGraph *g, const int *part, int v) {
  for (int k = g->xadj[v]; k < g->xadj[v + 1]; k++)
    if (part[g->adj[k]] != part[v]) return 1;
  return 0;
}

// Greedy boundary refinement, serial over the candidates in ascending order (so the same
// for any thread count): move a vertex to the adjacent part it is most connected to when
// that lowers the cut, or keeps it and either evens the weights or moves the vertex for
// the first time (which lets the boundary slide out of local minima), provided the target
// stays within maxw. The first sweep visits the boundary, the next ones the vertices next
// to those that moved.
static int Refine(const BlastPartGraph *g, int nparts, long long maxw, int *part) {
  const int n = g->n;
  long long *pw;
  int *cand, *conn, *seen, *mv;
  unsigned char *moved, *mark;
  BlastCall(BlastCalloc(n + 1, &moved));
  BlastCall(BlastCalloc(n + 1, &mark));
  BlastCall(BlastMalloc(n + 1, &cand));
  BlastCall(BlastMalloc(n + 1, &mv));
  BlastCall(BlastCalloc(nparts, &pw));
  BlastCall(BlastCalloc(nparts, &conn));
  BlastCall(BlastMalloc(nparts, &seen));
#pragma omp parallel for schedule(static) reduction(+ : pw[:nparts])
  for (int v = 0; v < n; v++) pw[part[v]] += VW(g, v);
#pragma omp parallel for schedule(static)
  for (int v = 0; v < n; v++) mv[v] = OnBoundary(g, part, v);
  BlastCall(Scan(n, mv));
  int nc = mv[n];
#pragma omp parallel for schedule(static)
  for (int v = 0; v < n; v++)
    if (mv[v + 1] > mv[v]) cand[mv[v]] = v;
  for (int pass = 0; pass < kPasses && nc > 0; pass++) {
    int nm = 0, gains = 0;
    for (int i = 0; i < nc; i++) {
      const int v = cand[i], a = part[v], w = VW(g, v);
      int ns = 0;
      for (int k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
        const int p = part[g->adj[k]];
        if (!conn[p] && p != a) seen[ns++] = p;
        conn[p] += EW(g, k);
      }
      int b = -1;
      for (int j = 0; j < ns; j++)
        if (b < 0 || conn[seen[j]] > conn[b] || (conn[seen[j]] == conn[b] && seen[j] < b))
          b = seen[j];
      if (b >= 0 && pw[a] > w && pw[b] + w <= maxw) {
        const int gain = conn[b] - conn[a];
        if (gain > 0 || (gain == 0 && (pw[a] > pw[b] + w || !moved[v]))) {
          part[v] = b, pw[a] -= w, pw[b] += w, moved[v] = 1, mv[nm++] = v, gains += gain > 0;
        }
      }
      conn[a] = 0;
      for (int j = 0; j < ns; j++) conn[seen[j]] = 0;
    }
    if (!gains) break;
    // The next candidates: the moved vertices and their neighbours on the boundary.
    nc = 0;
    for (int i = 0; i < nm; i++) {
      const int v = mv[i];
      for (int k = g->xadj[v] - 1; k < g->xadj[v + 1]; k++) {
        const int u = k < g->xadj[v] ? v : g->adj[k];
        if (!mark[u] && OnBoundary(g, part, u)) mark[u] = 1, cand[nc++] = u;
      }
    }
    for (int i = 0; i < nc; i++) mark[cand[i]] = 0;
    qsort(cand, (size_t)nc, sizeof *cand, CompareInt);
  }
  BlastFree(&moved);
  BlastFree(&mark);
  BlastFree(&cand);
  BlastFree(&mv);
  BlastFree(&pw);
  BlastFree(&conn);
  BlastFree(&seen);
  return 0;
}

int BlastPartitionMultilevel(const BlastPartGraph *g, int nparts, int coarse, int *part) {
  Level lev[kMaxLevels];
  memset(lev, 0, sizeof lev);
  int nlev = 0, ierr = 0;
  long long total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
  for (int v = 0; v < g->n; v++) total += VW(g, v);
  // A coarse vertex holds at most a tenth of a part: the coarsest graph can still balance.
  const long long cap = total / (10LL * nparts);
  const int maxvw = cap < 2 ? 2 : cap > 1000000000 ? 1000000000 : (int)cap;
  int *match = NULL, *prop = NULL, *lead = NULL;
  ierr = BlastMalloc(g->n + 1, &match);
  if (!ierr) ierr = BlastMalloc(g->n + 1, &prop);
  if (!ierr) ierr = BlastMalloc(g->n + 1, &lead);
  const BlastPartGraph *cur = g;
  while (!ierr && nlev < kMaxLevels && cur->n > coarse) {
    Match(cur, maxvw, match, prop, lead);
    ierr = Contract(cur, match, lead, &lev[nlev]);
    if (ierr) break;
    const int shrunk = lev[nlev].g.n < cur->n - cur->n / 10;  // at least 10 % fewer
    cur = &lev[nlev++].g;
    if (!shrunk) break;
  }
  BlastFree(&match);
  BlastFree(&prop);
  BlastFree(&lead);
  // Partition the coarsest graph, then project it back through the levels.
  int *cpart = NULL;
  if (!ierr) ierr = BlastMalloc(cur->n + 1, &cpart);
  if (!ierr) ierr = BlastPartitionMetis(cur, nparts, cpart);
  const long long maxw = (total * 103 + 100LL * nparts - 1) / (100LL * nparts);
  for (int l = nlev - 1; l >= 0 && !ierr; l--) {
    const BlastPartGraph *fine = l ? &lev[l - 1].g : g;
    int *fpart = NULL;
    ierr = l ? BlastMalloc(fine->n + 1, &fpart) : 0;
    if (ierr) break;
    if (!l) fpart = part;
    const int *cmap = lev[l].cmap;
#pragma omp parallel for schedule(static)
    for (int v = 0; v < fine->n; v++) fpart[v] = cpart[cmap[v]];
    BlastFree(&cpart);
    cpart = fpart;
    ierr = Refine(fine, nparts, maxw, cpart);
  }
  if (!ierr && nlev == 0)
    for (int v = 0; v < g->n; v++) part[v] = cpart[v];
  if (cpart != part) BlastFree(&cpart);
  for (int l = 0; l < nlev; l++) LevelFree(&lev[l]);
  BlastCall(ierr);
  return 0;
}
