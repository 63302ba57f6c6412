// Fault injection for testing failure handling (see fault.h).
#define _POSIX_C_SOURCE 200809L

#include "fault.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"


static const char *g_fault_invalid = NULL;  // the BLAST_FAULT_INJECT text not understood

BlastFaultPlan BlastFaultParse(void) {
  BlastFaultPlan f = {-1, -1, kFaultError, 0, 0, 0.0};
  const char *env = getenv("BLAST_FAULT_INJECT");
  if (!env) return f;
  static const char *const kFields[] = {"energy",     "position_x", "position_y", "position_z",
                                        "velocity_x", "velocity_y", "velocity_z"};
  char kind[8] = "", field[16] = "energy";
  int r, n, end = -1, end2 = -1;
  if (sscanf(env, "%d:step:%d%n", &r, &n, &end) == 2 && env[end] == '\0') {
    f.rank = r, f.step = n;
    return f;
  }
  if (sscanf(env, "%d:setup%n", &r, &end) == 1 && end > 0 && env[end] == '\0') {
    f.rank = r;
    return f;
  }
  if (sscanf(env, "%d:%3[a-z]:%d%n:%15[a-z_]%n", &r, kind, &n, &end, field, &end2) >= 3 &&
      (!strcmp(kind, "nan") || !strcmp(kind, "inf")) && n >= 2 &&
      (env[end] == '\0' || (end2 > 0 && env[end2] == '\0'))) {
    for (int i = 0; i < 7; i++) {
      if (strcmp(field, kFields[i])) continue;
      f.rank = r, f.step = n, f.kind = kFaultValue;
      f.quantity = i == 0 ? 2 : i <= 3 ? 0 : 1;
      f.comp = i == 0 ? 0 : (i - 1) % 3;
      f.value = kind[0] == 'n' ? NAN : HUGE_VAL;
      return f;
    }
  }
  // Not understood: every rank fails "at setup" with the explanation (BlastFaultInject).
  g_fault_invalid = env;
  MPI_Comm_rank(MPI_COMM_WORLD, &f.rank);
  return f;
}

int BlastFaultInject(const char *where) {
  // The environment may differ between ranks: abort rather than wait for the others.
  BlastCheck(!g_fault_invalid, BLAST_ERR_INPUT,
             "BLAST_FAULT_INJECT=\"%s\" is not understood: use <rank>:setup, <rank>:step:<n>, or "
             "<rank>:nan:<n>[:<field>] / <rank>:inf:<n>[:<field>] with n >= 2 and field one of "
             "energy, position_x, position_y, position_z, velocity_x, velocity_y, velocity_z "
             "(docs/robustness.md)",
             g_fault_invalid);
  BlastError(BLAST_ERR_INTERNAL, "injected fault (BLAST_FAULT_INJECT) during %s on this rank only",
             where);
}

// The fault planned for an accepted step of this rank, if any: an error now, or a
// non-finite value written by the next step (so that step n reports it).
int BlastFaultInjectStep(const BlastFaultPlan *f, int rank, BlastHydro h, const BlastStepInfo *info) {
  if (f->rank != rank || info->rejected) return 0;
  if (f->kind == kFaultError && f->step == info->step) BlastCall(BlastFaultInject("a time step"));
  if (f->kind == kFaultValue && f->step == info->step + 1)
    BlastCall(BlastHydroPoisonForTest(h, f->quantity, f->comp, f->value));
  return 0;
}

