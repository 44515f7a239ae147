// The fused elementwise kernel's checks and outputs (fused.h); the loop is cpu/fused_elementwise.cpp.
#include "aten/native/fused.h"

#include <limits>

#include "aten/tracing/Fusion.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"

namespace ember::native {

bool fused_loads(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Bool: case ScalarType::Byte: case ScalarType::Char: case ScalarType::Short:
    case ScalarType::Int: case ScalarType::Long: case ScalarType::Half: case ScalarType::BFloat16:
    case ScalarType::Float: case ScalarType::Double:
      return true;
    default:
      return false;
  }
}

std::vector<Tensor> fused_elementwise(const jit::FusedProgram& p, const std::vector<Tensor>& inputs) {
  EMBER_CHECK_VALUE(static_cast<int>(inputs.size()) == p.num_inputs, "fused_elementwise(): expected ",
                    p.num_inputs, " inputs, but got ", inputs.size());
  std::vector<Tensor> expanded;
  expanded.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    EMBER_CHECK_VALUE(t.device().is_cpu(), "fused_elementwise(): expected input ", i,
                      " on the CPU, but got ", t.device());
    // A where() condition or a cast's source keeps its dtype: the tile loader converts it.
    EMBER_CHECK_TYPE(fused_loads(t.dtype()), "fused_elementwise(): expected input ", i,
                     " to be bool, an integer or a floating dtype, but got ", t.dtype());
    // With a memory order (p.perm) the kernel walks the permuted dims: the inputs are
    // permuted views, the outputs row-major there and permuted back below.
    expanded.push_back(p.perm.empty() ? t.expand(p.sizes) : t.expand(p.sizes).permute(p.perm));
  }
  std::vector<int64_t> walked = p.sizes;
  for (size_t k = 0; k < p.perm.size(); ++k) walked[k] = p.sizes[static_cast<size_t>(p.perm[k])];
  std::vector<Tensor> outputs;
  outputs.reserve(p.outputs.size());
  for (size_t k = 0; k < p.elementwise_outputs(); ++k) {
    outputs.push_back(ember::empty(walked, TensorOptions().dtype(p.dtype)));
  }
  if (p.reduces()) {
    // An empty chain reduces to what the op gives an empty input: 0 for sum, NaN for mean
    // (the fusion pass leaves empty amax/amin, which raise, unfused).
    outputs.push_back(ember::empty(p.reduction.sizes, TensorOptions().dtype(p.dtype)));
    int64_t numel = 1;
    for (int64_t s : p.sizes) numel *= s;
    if (numel == 0) {
      outputs.back().fill_(p.reduction.op == jit::FusedReduce::Mean ? std::numeric_limits<double>::quiet_NaN() : 0.0);
    }
  }
  EMBER_CPU_KERNEL(fused_elementwise_kernel_cpu)(p, expanded, outputs);
  if (!p.perm.empty()) {
    std::vector<int64_t> inverse(p.perm.size());
    for (size_t k = 0; k < p.perm.size(); ++k) inverse[static_cast<size_t>(p.perm[k])] = static_cast<int64_t>(k);
    for (size_t k = 0; k < p.elementwise_outputs(); ++k) outputs[k] = outputs[k].permute(inverse);
  }
  return outputs;
}

}  // namespace ember::native
