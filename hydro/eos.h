/// @file eos.h
/// @brief Equations of state: a material is a small parameter block (its kind and the
/// kind's parameters), and one function per kind gives the pressure and the sound speed
/// from the density and the specific internal energy. Host and device (CUDA) code, and the
/// CPU's vector lanes, call the same functions.
///
/// The first part of this header (the material block) is ordinary. The second part, the
/// functions, is written once over a value type: point_physics.h includes it with the type
/// macros set (BP_T: double on host and device, or a vector of points' values on the CPU
/// lanes), so the functions exist as BlastEos... for doubles and BlastQVEos... for lanes.
/// A material is uniform over the points a call handles (one zone's points).
///
/// Where to add an equation of state:
///  1. a kind in BlastEosKind and its parameters in BlastMaterial (plain numbers, or a
///     pointer to tabulated data that the backends copy with the block);
///  2. one function BP_FN(Eos<Kind>) below, and its case in BP_FN(Eos);
///  3. its row in the deck schema (io/deck_schema.c) and its name in BlastEosKindName.
/// Every point kernel (CPU scalar, CPU lanes, GPU), the initial-data check and the
/// visualization dumps then use it; nothing else changes.
#ifndef BLAST_EOS_H
#define BLAST_EOS_H

#include "host_device.h"

/// Kinds of equation of state.
typedef enum {
  BLAST_EOS_IDEAL_GAS = 0,
  BLAST_EOS_STIFFENED_GAS = 1,
  BLAST_EOS_NKINDS
} BlastEosKind;

/// A material: its equation of state and the parameters of that kind. Plain data, copied
/// to the device as it is (a tabulated kind would add a table pointer that the backend
/// translates when it copies the block).
typedef struct {
  int kind;      ///< BlastEosKind
  double gamma;  ///< ratio of specific heats
  double p_inf;  ///< stiffened gas: the stiffening pressure (0 for an ideal gas)
} BlastMaterial;

/// The deck name of an equation-of-state kind.
static inline const char *BlastEosKindName(int kind) {
  return kind == BLAST_EOS_IDEAL_GAS       ? "ideal_gas"
         : kind == BLAST_EOS_STIFFENED_GAS ? "stiffened_gas"
                                           : "unknown";
}

/// An ideal gas of ratio gamma.
static inline BlastMaterial BlastMaterialIdealGas(double gamma) {
  BlastMaterial m = {BLAST_EOS_IDEAL_GAS, gamma, 0.0};
  return m;
}

/// A stiffened gas: p = (gamma - 1) rho e - gamma p_inf.
static inline BlastMaterial BlastMaterialStiffenedGas(double gamma, double p_inf) {
  BlastMaterial m = {BLAST_EOS_STIFFENED_GAS, gamma, p_inf};
  return m;
}

/// The specific internal energy e of material m at density rho and pressure p (initial
/// data given by pressure): the inverse of the pressure law. For an ideal gas it is
/// p / (rho (gamma - 1)), the operations the built-in problems write.
static inline double BlastEosSpecificEnergy(const BlastMaterial *m, double rho, double p) {
  switch (m->kind) {
    case BLAST_EOS_STIFFENED_GAS:
      return (p + m->gamma * m->p_inf) / (rho * (m->gamma - 1.0));
    default:
      return p / (rho * (m->gamma - 1.0));
  }
}

#endif  // BLAST_EOS_H

// ---- the functions, over the value type of the including point_physics.h ----
#ifdef BP_T

/// Ideal gas: p = (gamma - 1) rho e, c = sqrt(gamma (gamma - 1) e).
BP_DEV static inline void BP_FN(EosIdealGas)(const BlastMaterial *m, BP_T rho, BP_T e, BP_T *p,
                                             BP_T *cs) {
  const double gamma = m->gamma;
  *p = (gamma - 1.0) * rho * e;
  *cs = BP_SQRT(gamma * (gamma - 1.0) * e);
}

/// Stiffened gas: p = (gamma - 1) rho e - gamma p_inf, c^2 = gamma (p + p_inf) / rho,
/// taken as 0 where it is negative (e below p_inf / rho: tension beyond what the law
/// describes; the initial-data check refuses it at t = 0). A NaN stays NaN.
BP_DEV static inline void BP_FN(EosStiffenedGas)(const BlastMaterial *m, BP_T rho, BP_T e, BP_T *p,
                                                 BP_T *cs) {
  const double gamma = m->gamma, p_inf = m->p_inf;
  *p = (gamma - 1.0) * rho * e - gamma * p_inf;
  const BP_T c2 = gamma * (*p + p_inf) / rho;
  *cs = BP_SQRT(BP_SEL(c2 < 0.0, BP_SET(0.0), c2));
}

/// Pressure p and sound speed cs of material m at density rho and specific internal
/// energy e (e >= 0: the point kernel clamps it first). The kind is uniform over a zone,
/// so the branch is taken the same way at every point of a zone (and a zone's lanes).
BP_DEV static inline void BP_FN(Eos)(const BlastMaterial *m, BP_T rho, BP_T e, BP_T *p, BP_T *cs) {
  if (m->kind == BLAST_EOS_STIFFENED_GAS)
    BP_FN(EosStiffenedGas)(m, rho, e, p, cs);
  else
    BP_FN(EosIdealGas)(m, rho, e, p, cs);
}

#endif  // BP_T
