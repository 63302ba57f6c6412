// Programmatic dependent launch (compute capability 9.0 and newer): a kernel launched with
// LaunchDep (context.h) as a programmatic dependent of the kernel before it on its stream
// starts while that kernel still runs. Each kernel that can be launched so calls PdlWait on
// every path, before it reads anything a kernel of the solve writes (what it reads before:
// the mesh's zone maps, the basis, qmass, written at setup only; k_pcg_update also the
// solve's state, last written two kernels back or earlier: PcgStateAhead), then PdlTrigger.
// Device functions only, no kernel: any number of translation units include it. Both are
// no-ops on older devices and in a kernel launched the ordinary way.
#ifndef BLAST_GPU_KERNELS_PDL_CUH
#define BLAST_GPU_KERNELS_PDL_CUH

// Until the kernel before has completed and its writes are visible (griddepcontrol.wait).
// The kernel before waited for its own predecessor, so every earlier kernel has too.
__device__ __forceinline__ void PdlWait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The next kernel may be scheduled once every block of this one has called it (or exited):
// called after PdlWait, so a dependent's early part overlaps this kernel's work, never its
// predecessor's.
__device__ __forceinline__ void PdlTrigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// Both, for a kernel with nothing to do before its wait.
__device__ __forceinline__ void PdlEnter() {
  PdlWait();
  PdlTrigger();
}

#endif  // BLAST_GPU_KERNELS_PDL_CUH
