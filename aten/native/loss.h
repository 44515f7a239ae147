#pragma once
/// Shared by the loss composites and the nll_loss kernels: the checks of nll_loss's
/// arguments that do not read tensor data. `reduction` is a Reduction (c10/core/Reduction.h).

#include <cstdint>
#include <optional>

#include "aten/native/Dispatch.h"
#include "c10/core/Reduction.h"
#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"

namespace ember::native {

/// ValueError unless `reduction` is 0 (none), 1 (mean) or 2 (sum).
EMBER_API void check_reduction(const char* op, int64_t reduction);

/// The (N, C, S) walk of an nll_loss input [C], [N, C] or [N, C, d1, ...].
struct NllShape {
  int64_t n = 1, c = 1, s = 1;
};

/// Checks nll_loss's self, target ([], [N] or [N, d1, ...] of int64 or uint8, matching self)
/// and weight (one per class, self's dtype), and returns self's walk.
EMBER_API NllShape nll_shape(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight);

/// CPU targets as int64, each checked to be a class or ignore_index (IndexError "Target t
/// is out of bounds."); cpu/loss.cpp. A device's kernels check a host copy of theirs.
EMBER_API Tensor nll_targets(const Tensor& target, int64_t classes, int64_t ignore_index);

/// Calls f(TypeTag<T>{}) for the dtypes the nll_loss kernels take (float32, float64);
/// NotImplementedError naming op otherwise.
template <class F>
void dispatch_loss_type(ScalarType dt, const char* op, F&& f) {
  EMBER_CHECK_NOT_IMPLEMENTED(dt == ScalarType::Float || dt == ScalarType::Double, op,
                              "(): not implemented for dtype ", dt);
  if (dt == ScalarType::Float) f(TypeTag<float>{});
  else f(TypeTag<double>{});
}

/// Checks nll_loss_backward's grad_output (target's shape unreduced, one element reduced)
/// and the dtypes of grad_output and total_weight (self's).
EMBER_API void check_nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                             const Tensor& total_weight, int64_t reduction);

}  // namespace ember::native
