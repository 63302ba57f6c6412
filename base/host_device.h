/// @file host_device.h
/// @brief Qualifiers for code compiled for the host (C11) and the device (CUDA).
#ifndef BLAST_HOST_DEVICE_H
#define BLAST_HOST_DEVICE_H

#if defined(__CUDACC__)
#define BLAST_HOST_DEVICE __host__ __device__
#else
#define BLAST_HOST_DEVICE
#endif
#if defined(__CUDA_ARCH__)  // device compilation pass only
#define BLAST_UNROLL _Pragma("unroll")
#else
#define BLAST_UNROLL
#endif

#endif  // BLAST_HOST_DEVICE_H
