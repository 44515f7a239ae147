#pragma once
/// The indexing family's CPU kernel that a composite calls directly (not through the
/// dispatcher): the loop of repeat_interleave.Tensor (cpu/indexing.cpp).

#include <cstdint>
#include <optional>

#include "aten/native/CpuCapability.h"
#include "c10/core/Tensor.h"

namespace ember::native {

/// i repeated repeats[i] times for each i of the 1-d int64 or int32 repeats (checked by
/// the caller), in repeats' dtype; checks that no count is negative and that they add up
/// to output_size when it is given.
EMBER_DECLARE_CPU_KERNEL(Tensor, repeat_interleave_kernel_cpu,
                         (const Tensor& repeats, std::optional<int64_t> output_size))

}  // namespace ember::native
