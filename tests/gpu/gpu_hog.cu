// gpu_hog LEAVE_GIB: takes all but LEAVE_GIB of the free memory of GPU 0 (1 GiB pieces,
// then smaller), prints "gpu_hog: holding H GiB, free F GiB" and waits until it is
// terminated. test_gpu_oom.sh uses it to provoke the out-of-memory checks of the CUDA
// backend on a GPU of any size.
#include <cuda_runtime.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 2 || atof(argv[1]) < 0.0) {
    fprintf(stderr, "usage: gpu_hog LEAVE_GIB\n");
    return 2;
  }
  const double gib = 1073741824.0, leave = atof(argv[1]) * gib;
  size_t fr = 0, tot = 0, held = 0;
  cudaError_t st = cudaMemGetInfo(&fr, &tot);
  if (st != cudaSuccess) {
    fprintf(stderr, "gpu_hog: cudaMemGetInfo failed: %s\n", cudaGetErrorString(st));
    return 1;
  }
  for (size_t piece = (size_t)1 << 30; piece >= ((size_t)1 << 20);) {
    if ((double)fr - (double)piece < leave) {
      piece /= 2;
      continue;
    }
    void *p;
    if (cudaMalloc(&p, piece) != cudaSuccess) {
      cudaGetLastError();
      piece /= 2;
      continue;
    }
    held += piece;
    if ((st = cudaMemGetInfo(&fr, &tot)) != cudaSuccess) {
      fprintf(stderr, "gpu_hog: cudaMemGetInfo failed: %s\n", cudaGetErrorString(st));
      return 1;
    }
  }
  printf("gpu_hog: holding %.2f GiB, free %.2f GiB of %.2f GiB\n", held / gib, fr / gib, tot / gib);
  fflush(stdout);
  for (;;) pause();  // until SIGTERM or SIGKILL; the driver frees the memory
}
