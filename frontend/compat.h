#pragma once
/// What a libtorch program takes from <torch/torch.h> beyond the tensor, nn, optim, data and
/// serialize APIs: `torch::cuda::is_available()` and friends, and c10's check macros
/// (TORCH_CHECK, AT_ASSERT, TORCH_INTERNAL_ASSERT), spelled as there.

#include <cstdint>
#include <iostream>

#include "c10/cuda/CudaRuntime.h"
#include "c10/util/Exception.h"

namespace ember::cuda {
/// Whether a CUDA device can be used: the driver reports one (device_count(),
/// c10/cuda/CudaRuntime.h), as Python's ember.cuda.is_available().
inline bool is_available() { return device_count() > 0; }
/// Whether cuDNN can be used: not yet (the CUDA issue brings cuDNN).
inline bool cudnn_is_available() { return false; }
}  // namespace ember::cuda

// c10's macros, for code written against libtorch (each left alone if already defined).
#ifndef TORCH_CHECK
/// TORCH_CHECK(cond, message parts...): throws ember::Error with the message when cond fails.
#define TORCH_CHECK(cond, ...) EMBER_CHECK(cond, "Expected " #cond " to be true, but got false. " __VA_OPT__(,) __VA_ARGS__)
#endif
#ifndef AT_ASSERT
/// AT_ASSERT(cond): an internal-invariant check that throws ember::Error naming the condition.
#define AT_ASSERT(cond, ...) EMBER_CHECK(cond, "Assertion failed: " #cond)
#endif
#ifndef TORCH_INTERNAL_ASSERT
#define TORCH_INTERNAL_ASSERT(cond, ...) EMBER_CHECK(cond, "Internal assertion failed: " #cond)
#endif
