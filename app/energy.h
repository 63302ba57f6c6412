/// @file energy.h
/// @brief Energy of a run: NVML board energy of the GPUs in use and RAPL package and DRAM
/// energy of the CPUs (Linux powercap sysfs), measured over an interval (the time-stepping
/// loop) and summed over the job, each GPU and each node counted once.
///
/// Nothing here is fatal: a missing libnvidia-ml.so.1 (loaded at run time, never linked),
/// a GPU without an energy counter, an absent or unreadable powercap tree are reported in
/// BlastEnergyReport::unavailable with the reason, and the value is NAN (null in JSON).
///
/// Which GPU a rank uses: the PCI bus id when the caller passes one; otherwise the node-local
/// rank modulo the number of visible devices, as app/backend_select.c selects the CUDA device, with
/// the visible devices taken from CUDA_VISIBLE_DEVICES (indices or UUID prefixes) or, if it
/// is unset, all NVML devices in NVML (PCI bus) order. CUDA numbers devices in the same order
/// when CUDA_DEVICE_ORDER=PCI_BUS_ID (the job scripts set it). Ranks sharing a GPU read it
/// once; the RAPL counters are read by the node-local rank 0.
///
/// Environment: BLAST_POWERCAP_ROOT replaces /sys/class/powercap (tests, unusual mounts).
#ifndef BLAST_ENERGY_H
#define BLAST_ENERGY_H

#include <mpi.h>

typedef struct BlastEnergy_private *BlastEnergy;

enum { BLAST_ENERGY_MAX_NOTES = 4, BLAST_ENERGY_NOTE_LEN = 384 };

/// The energy of the measured interval, the same on every rank.
typedef struct {
  double seconds;             ///< length of the interval (rank 0's clock), s
  double gpu_joules;          ///< sum over the GPUs in use, J; NAN if not measured
  double cpu_package_joules;  ///< sum over the RAPL package domains of the nodes, J; or NAN
  double dram_joules;         ///< sum over the RAPL dram domains, J; or NAN
  double total_joules;        ///< sum of the measured parts above, J; NAN if none
  double average_watts;       ///< total_joules / seconds, W; or NAN
  int gpus, cpu_packages, dram_domains, nodes;  ///< what was counted
  int nsources, nunavailable;
  char sources[BLAST_ENERGY_MAX_NOTES][BLAST_ENERGY_NOTE_LEN];      ///< "nvml: 2 GPUs", ...
  char unavailable[BLAST_ENERGY_MAX_NOTES][BLAST_ENERGY_NOTE_LEN];  ///< "rapl: <reason>", ...
} BlastEnergyReport;

/// Start the meters. Collective over `comm` (one barrier, a few node-local collectives).
/// @param use_gpu        1 if this rank runs its kernels on a GPU: only those GPUs are read
/// @param gpu_pci_bus_id the PCI bus id of this rank's GPU ("0000:65:00.0"), or NULL
/// @param meter          the new meter; destroy with BlastEnergyDestroy
/// Errors: MPI and allocation failures only.
int BlastEnergyStart(MPI_Comm comm, int use_gpu, const char *gpu_pci_bus_id, BlastEnergy *meter);
/// Stop the meters and sum over the job. Collective. Fills `report` on every rank.
int BlastEnergyStop(BlastEnergy meter, BlastEnergyReport *report);
/// Free a meter (stops its sampling thread if still running). NULL allowed.
int BlastEnergyDestroy(BlastEnergy *meter);
/// Energy per zone and step attempt, J (NAN when the total is unknown or no work was done).
double BlastEnergyPerZoneStep(const BlastEnergyReport *report, long long zones, int steps);

#endif  // BLAST_ENERGY_H
