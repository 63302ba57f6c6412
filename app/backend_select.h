/// @file backend_select.h
/// @brief The backend of each rank and the run-time options that come from the
/// environment rather than the deck. Apart from BLAST_ERROR_TRACE (main.c), the fault
/// hooks (fault.c, run_loop.c) and the energy meter's (energy.c), this is where the
/// environment is read; the libraries take options.
#ifndef BLAST_BACKEND_SELECT_H
#define BLAST_BACKEND_SELECT_H

#include <mpi.h>
#include <stddef.h>

#include "backend.h"
#include "config.h"

/// Run-time options from the environment (not deck keys): BLAST_MEMORY_CHECK=0 turns the
/// host memory checks off, BLAST_BALANCE_TRACE=1 sets cfg->balance_trace.
void BlastRunOptionsFromEnvironment(BlastConfig *cfg);

/// The backend table for this rank: CUDA when built with it, asked for ([gpu] backend =
/// cuda or auto) and a device is visible (device = node-local rank modulo devices), else
/// the CPU. Sets the CUDA backend's options (deck and environment: BLAST_GPU_PROFILE,
/// BLAST_CUDA_SYNC, BLAST_GPU_PDL, BLAST_SELL_SIGMA, BLAST_AUTOTUNE_TRACE, the autotune cache under
/// XDG_CACHE_HOME or HOME). `desc` describes the choice for the banner. Collective.
/// Errors: BLAST_ERR_UNSUPPORTED for [gpu] backend = cuda without a CUDA device or build.
int BlastBackendSelect(MPI_Comm comm, const BlastConfig *cfg, const BlastBackendOps **ops,
                       char *desc, size_t ndesc);

#endif  // BLAST_BACKEND_SELECT_H
