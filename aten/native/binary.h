#pragma once
/// Checks shared by the binary arithmetic ops' meta functions and their Scalar forms.

#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"

namespace ember::native {

/// PyTorch's alpha rules: bool only for bool results, no float alpha for integral results,
/// no complex alpha for real results; TypeError naming op otherwise.
void check_alpha(const char* op, ScalarType dtype, const Scalar& alpha);
/// sub() takes no bool operand (TypeError with PyTorch's advice).
void check_sub_operands(ScalarType a, ScalarType b);
/// div()'s true division: integral (and bool) results become the default float dtype.
ScalarType div_result_type(ScalarType t);

}  // namespace ember::native
