#pragma once
/// Shared by the unary ops' meta functions and kernels.

#include "c10/core/ScalarType.h"

namespace ember::native {

/// The result dtype of exp, log, sin...: integral and bool inputs give the default float
/// dtype; floating and complex ones keep theirs.
ScalarType float_result_type(ScalarType t);

}  // namespace ember::native
