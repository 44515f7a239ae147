#pragma once
/// The fused elementwise kernel that graph fusion emits (aten/tracing/Fusion.h): checks and
/// output allocation here, the tile loop in cpu/fused_elementwise.cpp.

#include <vector>

#include "aten/native/CpuCapability.h"
#include "c10/core/Tensor.h"

namespace ember::jit {
struct FusedProgram;
}

namespace ember::native {

/// Whether the tile loader converts inputs of this dtype (bool, the integers, the floats):
/// a where() condition or a cast's source is read in its own dtype.
EMBER_API bool fused_loads(ScalarType dtype);

/// Runs program p on inputs (one per input register, each broadcastable to p.sizes and of
/// p's dtype, on the CPU) and returns its outputs, new contiguous tensors.
EMBER_API std::vector<Tensor> fused_elementwise(const jit::FusedProgram& p, const std::vector<Tensor>& inputs);

/// The tile loop: inputs already expanded to p.sizes; outputs contiguous, of p.sizes.
EMBER_DECLARE_CPU_KERNEL(void, fused_elementwise_kernel_cpu,
                         (const jit::FusedProgram& p, const std::vector<Tensor>& inputs,
                          const std::vector<Tensor>& outputs))

}  // namespace ember::native
