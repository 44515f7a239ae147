#pragma once
/// Shared by the loss composites and the nll_loss kernels: the checks of nll_loss's
/// arguments that do not read tensor data. `reduction` is a Reduction (c10/core/Reduction.h).

#include <cstdint>
#include <optional>

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

/// Checks nll_loss_backward's grad_output (target's shape unreduced, one element reduced)
/// and the dtypes of grad_output and total_weight (self's).
EMBER_API void check_nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                             const Tensor& total_weight, int64_t reduction);

}  // namespace ember::native
