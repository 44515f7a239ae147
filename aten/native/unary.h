#pragma once
/// Shared by the unary ops' meta functions and kernels.

#include "c10/core/ScalarType.h"
#include "c10/macros/Export.h"
#include "c10/core/Tensor.h"
#include "c10/core/TensorMeta.h"

namespace ember::native {

/// The result dtype of exp, log, sin...: integral and bool inputs give the default float
/// dtype; floating and complex ones keep theirs.
EMBER_API ScalarType float_result_type(ScalarType t);

/// The meta of an op of the float family (exp, sin...): self's shape, float_result_type.
EMBER_API TensorMeta float_unary_meta(const char* op, const Tensor& self);
/// float_unary_meta for an op without a complex form: RuntimeError for complex;
/// an empty self keeps its strides (like_self_meta).
EMBER_API TensorMeta float_real_unary_meta(const char* op, const Tensor& self);
/// The meta of an op whose result has self's dtype (floor, sign...).
EMBER_API TensorMeta same_unary_meta(const char* op, const Tensor& self);

/// The meta of a result PyTorch allocates with empty_like(self) rather than through
/// TensorIterator (nan_to_num, complex abs): elementwise_meta's, except that an empty self
/// keeps its strides.
TensorMeta like_self_meta(const Tensor& self, ScalarType dtype, const char* op);

}  // namespace ember::native
