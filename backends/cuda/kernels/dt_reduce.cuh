// The block reduction of the quadrature kernels' per-thread results (the dt minimum, the
// lowest tangled zone with its determinant), shared by kernels/qdata.cuh and
// kernels/pa_qdata.cuh (each included by one translation unit).
#ifndef BLAST_GPU_KERNELS_DT_REDUCE_CUH
#define BLAST_GPU_KERNELS_DT_REDUCE_CUH

// Thread t's (m, zz, dd) into shared sd[t], sz[t], sdet[t], then the tree reduction over
// the block (blockDim.x a power of two, at most the arrays' length): entry 0 ends with the
// smallest dt and the lowest zone with its det (a zone is in one entry: no ties).
__device__ __forceinline__ void BlastBlockMinReduce(double m, int zz, double dd, double *sd,
                                                    int *sz, double *sdet) {
  sd[threadIdx.x] = m, sz[threadIdx.x] = zz, sdet[threadIdx.x] = dd;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      if (sd[threadIdx.x + s] < sd[threadIdx.x]) sd[threadIdx.x] = sd[threadIdx.x + s];
      if (sz[threadIdx.x + s] < sz[threadIdx.x])
        sz[threadIdx.x] = sz[threadIdx.x + s], sdet[threadIdx.x] = sdet[threadIdx.x + s];
    }
    __syncthreads();
  }
}

#endif  // BLAST_GPU_KERNELS_DT_REDUCE_CUH
