#pragma once
/// The argument check every backend of masked_fill, masked_select and masked_scatter shares
/// (masking.cpp); the CPU kernels are in cpu/masking.cpp.

#include "c10/core/Tensor.h"

namespace ember::native {

/// Checks that `mask` is a bool tensor (RuntimeError naming `op` otherwise).
void check_mask(const char* op, const Tensor& mask);

}  // namespace ember::native
