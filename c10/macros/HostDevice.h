#pragma once
/// EMBER_HOST_DEVICE marks a function both backends run (Note [Shared functors] in
/// aten/native/ArithOps.h): __host__ __device__ under nvcc, nothing for the host compiler.
#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

/// Unrolls the loop that follows under nvcc (a host compiler would warn about the pragma).
#if defined(__CUDACC__)
#define EMBER_UNROLL _Pragma("unroll")
#else
#define EMBER_UNROLL
#endif
