// Energy meters of a run: NVML (GPU board energy, library loaded at run time) and RAPL
// (CPU package and DRAM energy from the Linux powercap sysfs). See energy.h.
#define _POSIX_C_SOURCE 200809L  // dlopen(), opendir(), pthreads, clock_gettime()
#include "energy.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blast.h"
#include "blast_mpi.h"

enum { SRC_GPU = 0, SRC_PACKAGE, SRC_DRAM, NSRC };
enum { ST_NONE = 0, ST_OK, ST_FAILED };  // per rank and source: not a reader, read, failed
enum { MAX_DOMAINS = 32, MAX_VISIBLE = 64, ZONE_NAME = 32 };
// RAPL counters wrap every few minutes at full power (max_energy_range_uj, ~262 kJ): a
// thread reads them this often so that no wrap is missed however long the loop runs.
static const int kPollSeconds = 5;

// The part of the NVML C API used here, declared by us (no header or link dependency).
typedef struct nvmlDevice_st *NvmlDevice;
typedef struct {
  void *lib;
  int (*init)(void);
  int (*shutdown)(void);
  const char *(*error_string)(int);
  int (*count)(unsigned *);
  int (*by_index)(unsigned, NvmlDevice *);
  int (*by_pci)(const char *, NvmlDevice *);  // optional: only with a PCI bus id
  int (*uuid)(NvmlDevice, char *, unsigned);
  int (*index)(NvmlDevice, unsigned *);
  int (*energy)(NvmlDevice, unsigned long long *);  // millijoules since the driver loaded
} Nvml;

typedef struct {
  char path[PATH_MAX];          // .../energy_uj
  unsigned long long max_uj;    // max_energy_range_uj (0: unknown)
  unsigned long long last_uj;   // last reading
  unsigned long long total_uj;  // accumulated since the start, wraps included
} RaplDomain;

typedef struct {
  int status;
  double joules;
  int count;  // devices or domains read
  char reason[BLAST_ENERGY_NOTE_LEN];
} SourceState;

struct BlastEnergy_private {
  MPI_Comm comm, node;
  int rank, node_rank, node_size;
  int use_gpu;
  double t0;
  Nvml nvml;
  int nvml_initialized;
  NvmlDevice gpu;
  unsigned long long gpu_mj0;
  RaplDomain dom[MAX_DOMAINS];
  int ndom, npackage;  // domains [0, npackage) are packages, the rest dram
  SourceState src[NSRC];
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int thread_running, stop;
};

static void SetReason(SourceState *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void SetReason(SourceState *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->reason, sizeof s->reason, fmt, ap);
  va_end(ap);
  s->status = ST_FAILED;
}

// ---- NVML --------------------------------------------------------------------------------

static const char *NvmlError(const Nvml *n, int code) {
  static char buf[32];
  if (n->error_string) return n->error_string(code);
  snprintf(buf, sizeof buf, "NVML error %d", code);
  return buf;
}

// Load libnvidia-ml.so.1 and resolve the functions; on failure the reason says why.
static int NvmlLoad(Nvml *n, SourceState *s) {
  memset(n, 0, sizeof *n);
  n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!n->lib) {
    const char *why = dlerror();
    if (!why || strstr(why, "No such file"))
      SetReason(s, "libnvidia-ml.so.1 not found (no NVIDIA driver on this node)");
    else
      SetReason(s, "cannot load libnvidia-ml.so.1: %s", why);
    return 0;
  }
  // POSIX guarantees that a dlsym result converts to a function pointer.
  struct {
    const char *name;
    void **slot;
    int required;
  } sym[] = {{"nvmlInit_v2", (void **)&n->init, 1},
             {"nvmlShutdown", (void **)&n->shutdown, 1},
             {"nvmlErrorString", (void **)&n->error_string, 0},
             {"nvmlDeviceGetCount_v2", (void **)&n->count, 1},
             {"nvmlDeviceGetHandleByIndex_v2", (void **)&n->by_index, 1},
             {"nvmlDeviceGetHandleByPciBusId_v2", (void **)&n->by_pci, 0},
             {"nvmlDeviceGetUUID", (void **)&n->uuid, 1},
             {"nvmlDeviceGetIndex", (void **)&n->index, 1},
             {"nvmlDeviceGetTotalEnergyConsumption", (void **)&n->energy, 1}};
  for (size_t i = 0; i < sizeof sym / sizeof sym[0]; i++) {
    void *f = dlsym(n->lib, sym[i].name);
    memcpy(sym[i].slot, &f, sizeof f);
    if (!f && sym[i].required) {
      SetReason(s, "libnvidia-ml.so.1 has no %s (driver too old)", sym[i].name);
      dlclose(n->lib);
      n->lib = NULL;
      return 0;
    }
  }
  return 1;
}

// The NVML indices of the devices CUDA sees, in CUDA's order: CUDA_VISIBLE_DEVICES
// (indices or UUID prefixes; like CUDA, stop at the first entry that names no device),
// else every device. Returns the count, or -1 with a reason.
static int NvmlVisible(const Nvml *n, unsigned *vis, SourceState *s) {
  unsigned count = 0;
  int rc = n->count(&count);
  if (rc) {
    SetReason(s, "nvmlDeviceGetCount: %s", NvmlError(n, rc));
    return -1;
  }
  const char *env = getenv("CUDA_VISIBLE_DEVICES");
  if (!env) {
    unsigned nv = count < MAX_VISIBLE ? count : MAX_VISIBLE;
    for (unsigned i = 0; i < nv; i++) vis[i] = i;
    if (nv == 0) SetReason(s, "no visible GPU (NVML finds no device)");
    return nv ? (int)nv : -1;
  }
  int nv = 0;
  const char *p = env;
  while (*p && nv < MAX_VISIBLE) {
    char tok[128];
    size_t len = strcspn(p, ",");
    while (len && isspace((unsigned char)*p)) p++, len--;
    snprintf(tok, sizeof tok, "%.*s", (int)len, p);
    for (size_t e = strlen(tok); e && isspace((unsigned char)tok[e - 1]); e--) tok[e - 1] = '\0';
    p += len + (p[len] == ',');
    char *end;
    long idx = strtol(tok, &end, 10);
    if (tok[0] && !*end) {
      if (idx < 0 || (unsigned long)idx >= count) break;
      vis[nv++] = (unsigned)idx;
      continue;
    }
    if (!strncmp(tok, "MIG-", 4)) {
      SetReason(s,
                "CUDA_VISIBLE_DEVICES names a MIG instance (%s): energy counters are per "
                "physical GPU",
                tok);
      return -1;
    }
    int found = -1;
    for (unsigned i = 0; i < count && found < 0 && tok[0]; i++) {
      NvmlDevice d;
      char uuid[96];
      if (n->by_index(i, &d) || n->uuid(d, uuid, sizeof uuid)) continue;
      if (!strncmp(uuid, tok, strlen(tok))) found = (int)i;
    }
    if (found < 0) break;
    vis[nv++] = (unsigned)found;
  }
  if (nv == 0) SetReason(s, "no visible GPU (CUDA_VISIBLE_DEVICES='%s')", env);
  return nv ? nv : -1;
}

// This rank's device: by PCI bus id, or node-local rank modulo the visible devices. Sets
// *key to its NVML index (-1 on failure, with the reason).
static void NvmlFindDevice(BlastEnergy m, const char *pci, int *key) {
  SourceState *s = &m->src[SRC_GPU];
  Nvml *n = &m->nvml;
  *key = -1;
  if (!NvmlLoad(n, s)) return;
  int rc = n->init();
  if (rc) {
    SetReason(s, "nvmlInit: %s", NvmlError(n, rc));
    return;
  }
  m->nvml_initialized = 1;
  if (pci && pci[0]) {
    if (!n->by_pci) {
      SetReason(s, "libnvidia-ml.so.1 has no nvmlDeviceGetHandleByPciBusId_v2");
      return;
    }
    rc = n->by_pci(pci, &m->gpu);
    if (rc) {
      SetReason(s, "no NVML device at PCI bus id %s: %s", pci, NvmlError(n, rc));
      return;
    }
  } else {
    unsigned vis[MAX_VISIBLE];
    const int nv = NvmlVisible(n, vis, s);
    if (nv < 0) return;
    const unsigned idx = vis[m->node_rank % nv];
    rc = n->by_index(idx, &m->gpu);
    if (rc) {
      SetReason(s, "nvmlDeviceGetHandleByIndex(%u): %s", idx, NvmlError(n, rc));
      return;
    }
  }
  unsigned idx = 0;
  rc = n->index(m->gpu, &idx);
  if (rc) {
    SetReason(s, "nvmlDeviceGetIndex: %s", NvmlError(n, rc));
    return;
  }
  *key = (int)idx;
}

static int NvmlRead(BlastEnergy m, unsigned long long *mj) {
  const int rc = m->nvml.energy(m->gpu, mj);
  if (rc)
    SetReason(&m->src[SRC_GPU], "nvmlDeviceGetTotalEnergyConsumption: %s", NvmlError(&m->nvml, rc));
  return rc == 0;
}

// ---- RAPL --------------------------------------------------------------------------------

static const char *PowercapRoot(void) {
  const char *root = getenv("BLAST_POWERCAP_ROOT");
  return root && root[0] ? root : "/sys/class/powercap";
}

// Read one unsigned integer file; 0 on failure with errno set (EINVAL: not a number).
static int ReadU64(const char *path, unsigned long long *v) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char buf[64];
  errno = 0;
  const int ok = fgets(buf, sizeof buf, f) != NULL;
  const int err = errno;
  fclose(f);
  if (!ok) {
    errno = err ? err : EIO;  // EISDIR, EACCES (some kernels refuse at read time), ...
    return 0;
  }
  char *end;
  errno = 0;
  *v = strtoull(buf, &end, 10);
  if (end == buf || errno) {
    errno = errno ? errno : EINVAL;
    return 0;
  }
  return 1;
}

static void ReadName(const char *root, const char *zone, char *name, size_t n) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s/name", root, zone);
  name[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  if (fgets(name, (int)n, f)) name[strcspn(name, "\r\n")] = '\0';
  fclose(f);
}

static int CompareNames(const void *a, const void *b) {
  return strcmp(a, b);
}

// Find the package zones intel-rapl:N (name "package-N") and their dram subzones
// intel-rapl:N:M (name "dram"), and take the first readings.
static void RaplOpen(BlastEnergy m) {
  SourceState *pkg = &m->src[SRC_PACKAGE], *dram = &m->src[SRC_DRAM];
  const char *root = PowercapRoot();
  DIR *dir = opendir(root);
  if (!dir) {
    SetReason(pkg, "%s: %s", root,
              errno == ENOENT ? "not present (no RAPL driver, or not Linux)" : strerror(errno));
    dram->status = ST_FAILED;  // the package reason covers it
    return;
  }
  // Zone names ("intel-rapl:0", "intel-rapl:0:0"), sorted for a stable order.
  char pk[MAX_DOMAINS][ZONE_NAME], dr[MAX_DOMAINS][ZONE_NAME];
  int npk = 0, ndr = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    unsigned a, b;
    int len = -1, len2 = -1;
    char name[64];
    if (strlen(e->d_name) >= ZONE_NAME) continue;
    if (sscanf(e->d_name, "intel-rapl:%u%n:%u%n", &a, &len, &b, &len2) < 1) continue;
    const int is_sub = len2 > 0 && e->d_name[len2] == '\0';
    const int is_top = len2 < 0 && len > 0 && e->d_name[len] == '\0';
    if (!is_sub && !is_top) continue;
    ReadName(root, e->d_name, name, sizeof name);
    // psys, core, uncore: the platform, or parts of a package
    if (is_top && !strncmp(name, "package", 7) && npk < MAX_DOMAINS)
      memcpy(pk[npk++], e->d_name, strlen(e->d_name) + 1);
    if (is_sub && !strcmp(name, "dram") && ndr < MAX_DOMAINS)
      memcpy(dr[ndr++], e->d_name, strlen(e->d_name) + 1);
  }
  closedir(dir);
  if (npk == 0) {
    SetReason(pkg, "no intel-rapl package domain under %s", root);
    dram->status = ST_FAILED;
    return;
  }
  qsort(pk, (size_t)npk, sizeof pk[0], CompareNames);
  qsort(dr, (size_t)ndr, sizeof dr[0], CompareNames);
  for (int i = 0; i < npk + ndr; i++)
    snprintf(m->dom[i].path, sizeof m->dom[i].path, "%s/%s/energy_uj", root,
             i < npk ? pk[i] : dr[i - npk]);
  m->npackage = npk, m->ndom = npk + ndr;
  pkg->status = ST_OK, pkg->count = npk;
  if (ndr == 0)
    SetReason(dram, "no dram domain under %s (not exposed by this CPU or kernel)", root);
  else
    dram->status = ST_OK, dram->count = ndr;
  for (int i = 0; i < m->ndom; i++) {
    RaplDomain *d = &m->dom[i];
    SourceState *s = i < npk ? pkg : dram;
    if (s->status != ST_OK) continue;
    if (!ReadU64(d->path, &d->last_uj)) {
      const int err = errno;
      SetReason(s, "cannot read %s: %s%s", d->path, strerror(err),
                err == EACCES ? " (root only since Linux 5.10: ask for read access)" : "");
      continue;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.*s/max_energy_range_uj",
             (int)(strlen(d->path) - strlen("/energy_uj")), d->path);
    if (!ReadU64(path, &d->max_uj)) d->max_uj = 0;
  }
}

// Add the energy since the last reading to each domain, across one counter wrap.
static void RaplSample(BlastEnergy m) {
  for (int i = 0; i < m->ndom; i++) {
    RaplDomain *d = &m->dom[i];
    SourceState *s = &m->src[i < m->npackage ? SRC_PACKAGE : SRC_DRAM];
    if (s->status != ST_OK) continue;
    unsigned long long v;
    if (!ReadU64(d->path, &v)) {
      SetReason(s, "cannot read %s during the run: %s", d->path, strerror(errno));
      continue;
    }
    if (v >= d->last_uj)
      d->total_uj += v - d->last_uj;
    else if (d->max_uj >= d->last_uj)
      d->total_uj += d->max_uj - d->last_uj + v;
    else
      SetReason(s, "%s went backwards and max_energy_range_uj is unknown", d->path);
    d->last_uj = v;
  }
}

static void *PollMain(void *arg) {
  BlastEnergy m = arg;
  pthread_mutex_lock(&m->lock);
  while (!m->stop) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += kPollSeconds;
    const int rc = pthread_cond_timedwait(&m->cond, &m->lock, &ts);
    if (!m->stop && rc == ETIMEDOUT) RaplSample(m);
  }
  pthread_mutex_unlock(&m->lock);
  return NULL;
}

static void StopThread(BlastEnergy m) {
  if (!m->thread_running) return;
  pthread_mutex_lock(&m->lock);
  m->stop = 1;
  pthread_cond_signal(&m->cond);
  pthread_mutex_unlock(&m->lock);
  pthread_join(m->thread, NULL);
  m->thread_running = 0;
}

// ---- the meter ---------------------------------------------------------------------------

int BlastEnergyStart(MPI_Comm comm, int use_gpu, const char *gpu_pci_bus_id, BlastEnergy *meter) {
  BlastCheck(meter, BLAST_ERR_ARG, "meter must not be NULL");
  BlastEnergy m;
  BlastCall(BlastCalloc(1, &m));
  *meter = m;
  m->comm = comm;
  m->use_gpu = use_gpu != 0;
  m->node = MPI_COMM_NULL;
  pthread_mutex_init(&m->lock, NULL);
  pthread_cond_init(&m->cond, NULL);
  BlastCallMPI(MPI_Comm_rank(comm, &m->rank));
  BlastCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &m->node));
  BlastCallMPI(MPI_Comm_rank(m->node, &m->node_rank));
  BlastCallMPI(MPI_Comm_size(m->node, &m->node_size));

  // GPUs: each device read by the lowest node-local rank that uses it.
  int key = -1;
  if (use_gpu) NvmlFindDevice(m, gpu_pci_bus_id, &key);
  int *keys;
  BlastCall(BlastMalloc(m->node_size, &keys));
  int ierr = MPI_Allgather(&key, 1, MPI_INT, keys, 1, MPI_INT, m->node);
  // A device is read by the first rank using it; a failure to find one is reported by the
  // first rank of the node that failed, so that a missing library counts once per node.
  int reader = key >= 0, first_failure = key < 0;
  for (int r = 0; r < m->node_rank && ierr == MPI_SUCCESS; r++)
    if (keys[r] == key) reader = 0, first_failure = 0;
  BlastFree(&keys);
  BlastCallMPI(ierr);
  if (!first_failure && m->src[SRC_GPU].status == ST_FAILED) m->src[SRC_GPU].status = ST_NONE;
  if (reader) {
    m->src[SRC_GPU].count = 1;
    if (NvmlRead(m, &m->gpu_mj0)) m->src[SRC_GPU].status = ST_OK;
  }
  if (m->node_rank == 0) RaplOpen(m);

  BlastCallMPI(MPI_Barrier(comm));
  m->t0 = MPI_Wtime();
  if (m->node_rank == 0) {
    RaplSample(m);  // the start: drop the energy used while the others reached the barrier
    for (int i = 0; i < m->ndom; i++) m->dom[i].total_uj = 0;
    if (m->src[SRC_PACKAGE].status == ST_OK || m->src[SRC_DRAM].status == ST_OK)
      m->thread_running = pthread_create(&m->thread, NULL, PollMain, m) == 0;
  }
  return 0;
}

// Collect one source over the job into the report.
static int Reduce(BlastEnergy m, int src, const char *name, double *value, int *count,
                  BlastEnergyReport *rep) {
  SourceState *s = &m->src[src];
  double j = s->status == ST_OK ? s->joules : 0.0, jsum;
  int loc[3] = {s->status == ST_OK, s->status == ST_FAILED, s->status == ST_OK ? s->count : 0};
  int glob[3];
  int fail_rank = s->status == ST_FAILED ? m->rank : INT_MAX, first;
  BlastCallMPI(MPI_Allreduce(&j, &jsum, 1, MPI_DOUBLE, MPI_SUM, m->comm));
  BlastCallMPI(MPI_Allreduce(loc, glob, 3, MPI_INT, MPI_SUM, m->comm));
  BlastCallMPI(MPI_Allreduce(&fail_rank, &first, 1, MPI_INT, MPI_MIN, m->comm));
  *value = NAN;
  *count = glob[2];
  if (glob[1] > 0) {
    char reason[BLAST_ENERGY_NOTE_LEN];
    memcpy(reason, s->reason, sizeof reason);
    BlastCallMPI(MPI_Bcast(reason, (int)sizeof reason, MPI_CHAR, first, m->comm));
    if (reason[0] && rep->nunavailable < BLAST_ENERGY_MAX_NOTES) {
      char *note = rep->unavailable[rep->nunavailable++];
      if (glob[0] + glob[1] > 1)
        snprintf(note, BLAST_ENERGY_NOTE_LEN, "%s: %.280s (%d of %d failed, first on rank %d)",
                 name, reason, glob[1], glob[0] + glob[1], first);
      else
        snprintf(note, BLAST_ENERGY_NOTE_LEN, "%s: %.320s", name, reason);
    }
    *count = 0;
  } else if (glob[0] > 0) {
    *value = jsum;
  }
  return 0;
}

int BlastEnergyStop(BlastEnergy m, BlastEnergyReport *rep) {
  BlastCheck(m && rep, BLAST_ERR_ARG, "meter and report must not be NULL");
  memset(rep, 0, sizeof *rep);
  BlastCallMPI(MPI_Barrier(m->comm));
  const double seconds = MPI_Wtime() - m->t0;
  if (m->src[SRC_GPU].status == ST_OK) {
    unsigned long long mj;
    if (NvmlRead(m, &mj)) m->src[SRC_GPU].joules = 1e-3 * (double)(mj - m->gpu_mj0);
  }
  if (m->node_rank == 0) {
    StopThread(m);
    RaplSample(m);
    double pj = 0.0, dj = 0.0;
    for (int i = 0; i < m->ndom; i++)
      *(i < m->npackage ? &pj : &dj) += 1e-6 * (double)m->dom[i].total_uj;
    m->src[SRC_PACKAGE].joules = pj, m->src[SRC_DRAM].joules = dj;
  }
  BlastCallMPI(MPI_Allreduce(&seconds, &rep->seconds, 1, MPI_DOUBLE, MPI_MAX, m->comm));
  const int head = m->node_rank == 0;
  BlastCallMPI(MPI_Allreduce(&head, &rep->nodes, 1, MPI_INT, MPI_SUM, m->comm));

  int any;
  BlastCallMPI(MPI_Allreduce(&m->use_gpu, &any, 1, MPI_INT, MPI_MAX, m->comm));
  BlastCall(Reduce(m, SRC_GPU, "nvml", &rep->gpu_joules, &rep->gpus, rep));
  if (!any && rep->nunavailable < BLAST_ENERGY_MAX_NOTES)
    snprintf(rep->unavailable[rep->nunavailable++], BLAST_ENERGY_NOTE_LEN,
             "nvml: GPU energy not measured: no rank runs on a GPU (backend cpu)");
  BlastCall(Reduce(m, SRC_PACKAGE, "rapl", &rep->cpu_package_joules, &rep->cpu_packages, rep));
  BlastCall(Reduce(m, SRC_DRAM, "rapl-dram", &rep->dram_joules, &rep->dram_domains, rep));

  const double part[NSRC] = {rep->gpu_joules, rep->cpu_package_joules, rep->dram_joules};
  rep->total_joules = NAN;
  for (int i = 0; i < NSRC; i++)
    if (!isnan(part[i]))
      rep->total_joules = (isnan(rep->total_joules) ? 0.0 : rep->total_joules) + part[i];
  rep->average_watts = rep->seconds > 0 ? rep->total_joules / rep->seconds : NAN;
  if (!isnan(rep->gpu_joules))
    snprintf(rep->sources[rep->nsources++], BLAST_ENERGY_NOTE_LEN, "nvml: %d GPU%s", rep->gpus,
             rep->gpus == 1 ? "" : "s");
  if (!isnan(rep->cpu_package_joules))
    snprintf(rep->sources[rep->nsources++], BLAST_ENERGY_NOTE_LEN,
             "rapl-package: %d domain%s on %d node%s", rep->cpu_packages,
             rep->cpu_packages == 1 ? "" : "s", rep->nodes, rep->nodes == 1 ? "" : "s");
  if (!isnan(rep->dram_joules))
    snprintf(rep->sources[rep->nsources++], BLAST_ENERGY_NOTE_LEN,
             "rapl-dram: %d domain%s on %d node%s", rep->dram_domains,
             rep->dram_domains == 1 ? "" : "s", rep->nodes, rep->nodes == 1 ? "" : "s");
  return 0;
}

int BlastEnergyDestroy(BlastEnergy *meter) {
  if (!meter || !*meter) return 0;
  BlastEnergy m = *meter;
  StopThread(m);
  if (m->nvml_initialized) m->nvml.shutdown();
  if (m->nvml.lib) dlclose(m->nvml.lib);
  pthread_mutex_destroy(&m->lock);
  pthread_cond_destroy(&m->cond);
  if (m->node != MPI_COMM_NULL) BlastCallMPI(MPI_Comm_free(&m->node));
  BlastFree(meter);
  return 0;
}

double BlastEnergyPerZoneStep(const BlastEnergyReport *r, long long zones, int steps) {
  if (!r || isnan(r->total_joules) || zones <= 0 || steps <= 0) return NAN;
  return r->total_joules / ((double)zones * (double)steps);
}
