// CUDA errors name what failed: BlastCudaError's messages for a failed launch,
// for a kernel's execution error surfacing at a later call (names the last kernel
// launched), and for out of memory (free/total and advice). Host code: the error values
// are CUDA's enums, no GPU is needed. Every launch in gpu/*.cu being followed by its
// BlastCheckKernel("name") is checked by check_kernel_launches.py.
#define BLAST_CUDA_CHECKS 1
#include <string.h>

#include "blast_cuda.h"
#include "testlib.h"

static int Has(const char *what) {
  const int ok = strstr(BlastErrorMessage(), what) != NULL;
  if (!ok) fprintf(stderr, "  message: %s\n  lacks: %s\n", BlastErrorMessage(), what);
  return ok;
}

int main(void) {
  // A launch that fails (bad configuration): the macro passes "launch of kernel <name>".
  int code = BlastCudaError(__FILE__, __LINE__, __func__, (int)cudaErrorInvalidConfiguration,
                            "launch of kernel k_qdata_force", "invalid configuration argument");
  printf("launch:    %s\n", BlastErrorMessage());
  TEST_ASSERT(code == BLAST_ERR_CUDA, "code %d", code);
  TEST_ASSERT(Has("launch of kernel k_qdata_force failed: invalid configuration argument"), "launch");
  BlastErrorClear();

  // An illegal address found by a later copy: the last kernel launched is named.
  blast_cuda_last_kernel = "k_spmm_dd";
  code = BlastCudaError(__FILE__, __LINE__, __func__, (int)cudaErrorIllegalAddress,
                        "cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, s)",
                        "an illegal memory access was encountered");
  printf("execution: %s\n", BlastErrorMessage());
  TEST_ASSERT(code == BLAST_ERR_CUDA, "code %d", code);
  TEST_ASSERT(Has("most likely the last one launched: k_spmm_dd"), "last kernel");
  TEST_ASSERT(Has("BLAST_CUDA_SYNC=1"), "advice");
  BlastErrorClear();

  // With BLAST_CUDA_SYNC=1 the error comes from the kernel's own check: named exactly.
  code = BlastCudaError(__FILE__, __LINE__, __func__, (int)cudaErrorIllegalAddress,
                        "kernel k_gather_dd", "an illegal memory access was encountered");
  printf("sync:      %s\n", BlastErrorMessage());
  TEST_ASSERT(Has("kernel k_gather_dd failed: an illegal memory access"), "sync");
  TEST_ASSERT(!strstr(BlastErrorMessage(), "k_spmm_dd"), "no guess when the kernel is known");
  BlastErrorClear();

  // Out of memory: BLAST_ERR_MEM with the free/total figures (0 without a GPU) and advice.
  code = BlastCudaError(__FILE__, __LINE__, __func__, (int)cudaErrorMemoryAllocation,
                        "cudaMalloc(&p, bytes)", "out of memory");
  printf("memory:    %s\n", BlastErrorMessage());
  TEST_ASSERT(code == BLAST_ERR_MEM, "code %d", code);
  TEST_ASSERT(Has("GiB free of") && Has("fewer ranks per GPU"), "memory advice");
  BlastErrorClear();
  return BlastTestFinish("test_cuda_errors");
}
