// Host memory budget of a rank and the serial mesh check (see memory.h).
#define _POSIX_C_SOURCE 200809L

#include "memory.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fe.h"
#include "mesh-impl.h"

static const double kGiB = 1073741824.0;
static int g_node_ranks = 1;

int BlastMemorySetNode(MPI_Comm comm) {
  MPI_Comm node;
  int n = 1;
  BlastCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  BlastCallMPI(MPI_Comm_size(node, &n));
  BlastCallMPI(MPI_Comm_free(&node));
  int most = n;  // the same number on every rank: the fullest node
  BlastCallMPI(MPI_Allreduce(&n, &most, 1, MPI_INT, MPI_MAX, comm));
  g_node_ranks = most > 0 ? most : 1;
  return 0;
}

// "Key:   123 kB" from a /proc file, in bytes; < 0 if absent.
static double ProcKiB(const char *path, const char *key) {
  FILE *f = fopen(path, "r");
  if (!f) return -1.0;
  char line[256];
  double v = -1.0;
  const size_t len = strlen(key);
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, len) && line[len] == ':') {
      v = 1024.0 * strtod(line + len + 1, NULL);
      break;
    }
  fclose(f);
  return v;
}

static int g_checks_on = 1;  // BlastMemorySetChecks

void BlastMemorySetChecks(int on) {
  g_checks_on = on != 0;
}

static int ChecksOn(void) {
  return g_checks_on;
}

void BlastMemoryBudgetLocal(BlastMemoryBudget *b) {
  memset(b, 0, sizeof *b);
  b->node_ranks = g_node_ranks;
  b->mem_available = ProcKiB("/proc/meminfo", "MemAvailable");
  b->limit_left = -1.0;
  // Address space (ulimit -v) and data segment (ulimit -d) limits, less what is used.
  struct rlimit rl;
  const struct {
    int res;
    const char *key;
    int kind;
  } lim[2] = {{RLIMIT_AS, "VmSize", 1}, {RLIMIT_DATA, "VmData", 2}};
  for (int i = 0; i < 2; i++) {
    if (getrlimit(lim[i].res, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) continue;
    const double used = ProcKiB("/proc/self/status", lim[i].key);
    double left = (double)rl.rlim_cur - (used > 0 ? used : 0.0);
    if (left < 0) left = 0;
    if (b->limit_left < 0 || left < b->limit_left)
      b->limit_left = left, b->limit_kind = lim[i].kind;
  }
  b->bytes = b->mem_available >= 0 ? b->mem_available / b->node_ranks : -1.0;
  if (b->limit_left >= 0 && (b->bytes < 0 || b->limit_left < b->bytes)) b->bytes = b->limit_left;
}

int BlastMemoryBudgetAgree(MPI_Comm comm, BlastMemoryBudget *b) {
  BlastCall(BlastMemorySetNode(comm));
  BlastMemoryBudgetLocal(b);
  // Unknown values (< 0) must not win the minimum: map them to +inf and back.
  double v[3] = {b->bytes, b->mem_available, b->limit_left}, all[3];
  for (int i = 0; i < 3; i++)
    if (v[i] < 0) v[i] = INFINITY;
  BlastCallMPI(MPI_Allreduce(v, all, 3, MPI_DOUBLE, MPI_MIN, comm));
  int kind = b->limit_left == all[2] ? b->limit_kind : 0, kinds = 0;
  BlastCallMPI(MPI_Allreduce(&kind, &kinds, 1, MPI_INT, MPI_MAX, comm));
  b->bytes = isinf(all[0]) ? -1.0 : all[0];
  b->mem_available = isinf(all[1]) ? -1.0 : all[1];
  b->limit_left = isinf(all[2]) ? -1.0 : all[2];
  b->limit_kind = b->limit_left >= 0 ? (kinds ? kinds : 1) : 0;
  return 0;
}

void BlastMemoryBudgetText(const BlastMemoryBudget *b, char *buf, size_t n) {
  size_t k = 0;
#define ADD(...) (k += (size_t)snprintf(buf + (k < n ? k : n), k < n ? n - k : 0, __VA_ARGS__))
  buf[0] = '\0';
  if (b->bytes < 0) {
    ADD("an unknown amount of memory per rank");
    return;
  }
  ADD("%.2f GiB per rank (", b->bytes / kGiB);
  if (b->mem_available >= 0)
    ADD("%.2f GiB MemAvailable on this node / %d rank%s", b->mem_available / kGiB, b->node_ranks,
        b->node_ranks == 1 ? "" : "s");
  if (b->limit_left >= 0)
    ADD("%s%s leaves %.2f GiB", b->mem_available >= 0 ? "; " : "",
        b->limit_kind == 2 ? "the data size limit (ulimit -d)"
                           : "the address space limit (ulimit -v)",
        b->limit_left / kGiB);
  ADD(")");
#undef ADD
}

int BlastMemoryTooLarge(double need, const BlastMemoryBudget *b) {
  return ChecksOn() && b->bytes >= 0 && need > b->bytes;
}

double BlastSerialMeshBytesPerZone(int dim) {
  const double nc = 1 << dim;
  // Mesh arrays (a vertex per zone, asymptotically) twice while refining; topology:
  // vertex/edge/face zone lists, entity vertices and zone entities; the dual graph.
  return 2.0 * (4.0 * nc + 4.0 + 8.0 * dim) + 48.0 * nc;
}

int BlastSerialMeshMemoryCheck(int dim, int64_t zones, int from_zones, const char *what) {
  BlastMemoryBudget b;
  BlastMemoryBudgetLocal(&b);
  const double per_zone = BlastSerialMeshBytesPerZone(dim);
  const double need = per_zone * (double)zones + BLAST_CPU_MEMORY_FIXED;
  if (!BlastMemoryTooLarge(need, &b)) return 0;
  char avail[400], from[96] = "";
  BlastMemoryBudgetText(&b, avail, sizeof avail);
  if (from_zones > 0) snprintf(from, sizeof from, " (from %d)", from_zones);
  const double fit =
      b.bytes > BLAST_CPU_MEMORY_FIXED ? (b.bytes - BLAST_CPU_MEMORY_FIXED) / per_zone : 0;
  BlastError(BLAST_ERR_INPUT,
             "%s: the serial mesh would have %lld zones%s, and every rank holds all of them: "
             "about %.2f GiB per rank (%.0f bytes per zone, estimated before allocating), but "
             "only %s is available (about %.0f zones fit). Make the serial mesh smaller (lower "
             "[mesh] refine_serial, fewer [mesh] elements) and refine in parallel instead "
             "([mesh] refine_parallel divides the zones among the ranks)",
             what, (long long)zones, from, need / kGiB, per_zone, avail, fit);
}
