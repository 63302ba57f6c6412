/// @file fault.h
/// @brief Fault injection for testing failure handling (BLAST_FAULT_INJECT, read at setup).
/// Documented in docs/robustness.md:
/// BLAST_FAULT_INJECT="<rank>:setup" or "<rank>:step:<n>" makes that rank alone fail there;
/// "<rank>:nan:<n>[:<field>]" or "<rank>:inf:<n>[:<field>]" (n >= 2) makes step n of that
/// rank produce a NaN or Inf in one entry of <field> (energy, the default, or position_x,
/// ..., velocity_z), which the solver's check must report. A value not of these forms is
/// an error on every rank.
#ifndef BLAST_FAULT_H
#define BLAST_FAULT_H

#include "hydro.h"

enum { kFaultError = 0, kFaultValue = 1 };
typedef struct {
  int rank, step;      // step -1: at setup
  int kind;            // kFaultError: an error on that rank; kFaultValue: a non-finite value
  int quantity, comp;  // kFaultValue: BlastHydroPoisonForTest's arguments
  double value;
} BlastFaultPlan;

/// The plan from BLAST_FAULT_INJECT (rank -1: none); a value not understood fails every
/// rank at setup (BlastFaultInject).
BlastFaultPlan BlastFaultParse(void);
/// The injected error of this rank, raised "during <where>".
int BlastFaultInject(const char *where);
/// The fault planned for an accepted step of this rank, if any.
int BlastFaultInjectStep(const BlastFaultPlan *f, int rank, BlastHydro h,
                         const BlastStepInfo *info);

#endif  // BLAST_FAULT_H
