#pragma once
/// Shared by the meta functions and CPU kernels of the several-input pointwise ops
/// (where, clamp, lerp, addcmul, addcdiv).

#include <optional>

#include "c10/core/Scalar.h"
#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"

namespace ember::native {

/// The computation dtype of clamp with number bounds: self with the bounds as weak scalars.
EMBER_API ScalarType clamp_result_type(const Tensor& self, const std::optional<Scalar>& min,
                             const std::optional<Scalar>& max);

/// The computation dtype of clamp with tensor bounds: all operands promoted.
EMBER_API ScalarType clamp_tensor_result_type(const Tensor& self, const std::optional<Tensor>& min,
                                    const std::optional<Tensor>& max);

/// The computation dtype of lerp with a tensor weight: self's, unless weight is 0-d, which
/// takes part in promotion as a 0-d tensor does.
EMBER_API ScalarType lerp_tensor_result_type(const Tensor& self, const Tensor& end, const Tensor& weight);

}  // namespace ember::native
