// Introspection of the backend table (backend.h): names and presence of every entry.
#include "backend.h"

#include <stddef.h>
#include <string.h>

#include "blast.h"

#define BLAST_OP_ENTRY(g, m) {#g "." #m, offsetof(BlastBackendOps, g.m)},
static const struct {
  const char *name;
  size_t offset;
} kOps[] = {BLAST_BACKEND_OPERATIONS(BLAST_OP_ENTRY)};
#undef BLAST_OP_ENTRY

int BlastBackendOpCount(void) { return (int)(sizeof kOps / sizeof kOps[0]); }

const char *BlastBackendOpName(int i) {
  return i >= 0 && i < BlastBackendOpCount() ? kOps[i].name : NULL;
}

int BlastBackendOpPresent(const BlastBackendOps *ops, int i) {
  if (!ops || i < 0 || i >= BlastBackendOpCount()) return 0;
  void (*fn)(void) = NULL;  // every entry is a function pointer of the same size
  memcpy(&fn, (const char *)ops + kOps[i].offset, sizeof fn);
  return fn != NULL;
}

int BlastBackendCheck(const BlastBackendOps *ops) {
  BlastCheck(ops && ops->name, BLAST_ERR_ARG, "no backend table");
  for (int i = 0; i < BlastBackendOpCount(); i++)
    BlastCheck(BlastBackendOpPresent(ops, i), BLAST_ERR_UNSUPPORTED,
               "the %s backend of this build has no operation %s: it cannot run the solver "
               "(a bug in the backend; choose another with [gpu] backend)",
               ops->name, kOps[i].name);
  return 0;
}
