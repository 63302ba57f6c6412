// The backend table itself: every member of BlastBackendOps is an entry of
// BLAST_BACKEND_OPERATIONS (so the conformance test and BlastBackendCheck see it), names
// are "group.member" and distinct, every compiled backend's table is complete, and a table
// that lacks any one entry is refused by BlastBackendCheck with a message naming the
// backend and that entry.
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "blast.h"
#include "testlib.h"
#ifdef BLAST_HAVE_CUDA
#include "blast_cuda.h"
#endif

typedef void (*Fn)(void);

static void CheckTable(const BlastBackendOps *ops) {
  const int n = BlastBackendOpCount();
  // The struct is `name` followed by function pointers only, all of one size: its slots.
  const size_t nslots = (sizeof *ops - sizeof ops->name) / sizeof(Fn);
  TEST_ASSERT(nslots == (size_t)n && sizeof *ops == sizeof ops->name + (size_t)n * sizeof(Fn),
              "BlastBackendOps has %zu function slots, BLAST_BACKEND_OPERATIONS lists %d", nslots,
              n);
  TEST_CALL(BlastBackendCheck(ops));
  for (int i = 0; i < n; i++)
    TEST_ASSERT(BlastBackendOpPresent(ops, i), "%s: entry %s is NULL", ops->name,
                BlastBackendOpName(i));
  // Each slot removed in turn: exactly one entry goes missing, and the check names it.
  for (size_t k = 0; k < nslots; k++) {
    BlastBackendOps t = *ops;
    memset((char *)&t + sizeof t.name + k * sizeof(Fn), 0, sizeof(Fn));
    int missing = -1, nmissing = 0;
    for (int i = 0; i < n; i++)
      if (!BlastBackendOpPresent(&t, i)) missing = i, nmissing++;
    TEST_ASSERT(nmissing == 1, "%s: slot %zu removed, %d entries report missing", ops->name, k,
                nmissing);
    if (nmissing != 1) continue;
    const int ierr = BlastBackendCheck(&t);
    const char *msg = BlastErrorMessage();
    TEST_ASSERT(ierr == BLAST_ERR_UNSUPPORTED, "%s without %s: BlastBackendCheck returned %d",
                ops->name, BlastBackendOpName(missing), ierr);
    char want[96];
    snprintf(want, sizeof want, "has no operation %s:", BlastBackendOpName(missing));
    TEST_ASSERT(strstr(msg, want) && strstr(msg, ops->name), "%s without %s: message '%s'",
                ops->name, BlastBackendOpName(missing), msg);
    BlastErrorClear();
  }
}

int main(void) {
  const int n = BlastBackendOpCount();
  TEST_ASSERT(n == 48, "%d entries (update this test and docs/verification.md when adding one)", n);
  TEST_ASSERT(BlastBackendOpName(-1) == NULL && BlastBackendOpName(n) == NULL,
              "names out of range are not NULL");
  for (int i = 0; i < n; i++) {
    const char *a = BlastBackendOpName(i), *dot = a ? strchr(a, '.') : NULL;
    TEST_ASSERT(dot && dot > a && dot[1], "entry %d: name '%s' is not group.member", i, a ? a : "");
    for (int j = 0; j < i; j++)
      TEST_ASSERT(strcmp(a, BlastBackendOpName(j)) != 0, "entries %d and %d are both %s", j, i, a);
  }
  TEST_ASSERT(BlastBackendCheck(NULL) == BLAST_ERR_ARG, "a NULL table is accepted");
  BlastErrorClear();
  CheckTable(&blast_backend_cpu);
#ifdef BLAST_HAVE_CUDA
  CheckTable(&blast_backend_cuda);
  printf("tables checked: cpu, cuda\n");
#else
  printf("tables checked: cpu (the CUDA backend is not compiled in this build)\n");
#endif
  return BlastTestFinish("test_backend_table");
}
