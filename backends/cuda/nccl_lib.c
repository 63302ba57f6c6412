// libnccl.so.2 resolved at run time (nccl_lib.h).
#include "nccl_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static BlastNcclLib g_lib;
static char g_why[256];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void Load(void) {
  const char *env = getenv("BLAST_NCCL_LIBRARY");
  const char *file = env && *env ? env : "libnccl.so.2";
  void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(g_why, sizeof g_why, "cannot load %s: %s", file, e ? e : "unknown error");
    return;
  }
  BlastNcclLib l;
  memset(&l, 0, sizeof l);
  struct {
    const char *name;
    void **slot;
  } sym[] = {{"ncclGetVersion", (void **)&l.get_version},
             {"ncclGetUniqueId", (void **)&l.get_unique_id},
             {"ncclCommInitRank", (void **)&l.comm_init_rank},
             {"ncclCommDestroy", (void **)&l.comm_destroy},
             {"ncclCommAbort", (void **)&l.comm_abort},
             {"ncclCommGetAsyncError", (void **)&l.async_error},
             {"ncclGetErrorString", (void **)&l.error_string},
             {"ncclSend", (void **)&l.send},
             {"ncclRecv", (void **)&l.recv},
             {"ncclGroupStart", (void **)&l.group_start},
             {"ncclGroupEnd", (void **)&l.group_end}};
  for (size_t i = 0; i < sizeof sym / sizeof sym[0]; i++) {
    void *f = dlsym(lib, sym[i].name);  // POSIX: a dlsym result converts to a function pointer
    if (!f) {
      snprintf(g_why, sizeof g_why, "%s has no %s (NCCL older than 2.7)", file, sym[i].name);
      dlclose(lib);
      return;
    }
    memcpy(sym[i].slot, &f, sizeof f);
  }
  int v = 0;
  if (l.get_version(&v) != kNcclSuccess || (v < 10000 ? v < 2700 : v < 20700)) {
    snprintf(g_why, sizeof g_why, "%s is NCCL version code %d: 2.7 or newer is needed", file, v);
    dlclose(lib);
    return;
  }
  l.lib = lib, l.version = v;
  g_lib = l;
}

const BlastNcclLib *BlastNcclLoad(char *why, size_t n) {
  pthread_once(&g_once, Load);
  if (g_lib.lib) return &g_lib;
  if (why && n) snprintf(why, n, "%s", g_why);
  return NULL;
}
