#pragma once
/// The binary elementwise family (add, sub, mul, div, rounding division, remainders, powers,
/// min/max, atan2, hypot, copysign, bitwise, shifts, logical): the argument checks and the
/// dtype each op computes in, shared by the meta functions (binary.cpp) and the loops of
/// every backend (cpu/binary.cpp).

#include <optional>
#include <string_view>

#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/core/Tensor.h"
#include "c10/core/TensorMeta.h"

namespace ember::native {

/// PyTorch's alpha rules: bool only for bool results, no float alpha for integral results,
/// no complex alpha for real results; TypeError naming op otherwise.
EMBER_API void check_alpha(const char* op, ScalarType dtype, const Scalar& alpha);
/// sub() takes no bool operand (TypeError with PyTorch's advice).
EMBER_API void check_sub_operands(ScalarType a, ScalarType b);
/// div()'s true division: integral (and bool) results become the default float dtype.
EMBER_API ScalarType div_result_type(ScalarType t);

/// The dtype rule of a binary op (Note [Binary functors] in cpu/binary.cpp): which
/// promoted dtypes it takes, and the dtype it computes in.
enum class BinaryDtypes {
  TrueDiv,   ///< any; integral and bool compute in the default float dtype (div)
  Rounding,  ///< no bool, no complex; integers refuse a zero divisor (floor_divide, fmod...)
  Pow,       ///< no bool
  Ordered,   ///< no complex (maximum, fmin...; RuntimeError, as PyTorch)
  ToFloat,   ///< no complex; integral and bool compute in the default float dtype (atan2)
  Floating,  ///< floating dtypes only (hypot)
  Inexact,   ///< floating and complex dtypes
  Bitwise,   ///< integral or bool
  Integral,  ///< integral only (shifts)
  Logical,   ///< any; the result is bool
};

/// div()'s rounding mode.
enum class DivMode { True, Trunc, Floor };

/// One operand of a binary op: a tensor, or a number. A number is never wrapped into a
/// tensor: it joins type promotion as a weak scalar and the loop as a constant.
struct Operand {
  const Tensor* tensor = nullptr;
  const Scalar* scalar = nullptr;

  Operand(const Tensor& t) : tensor(&t) {}  // NOLINT(google-explicit-constructor)
  Operand(const Scalar& s) : scalar(&s) {}  // NOLINT(google-explicit-constructor)
};

/// The dtype a binary op of rule r computes in for operands a and b (PyTorch's promotion);
/// NotImplementedError (RuntimeError for the Ordered rule, as PyTorch) when r refuses it.
/// `what` goes before "not implemented" in the message (div's "rounding_mode='floor' is ").
ScalarType binary_compute_type(BinaryDtypes r, const char* name, Operand a, Operand b,
                               std::string_view what = {});

/// The dtype of the result: bool for the Logical rule, else the compute dtype.
ScalarType binary_result_type(BinaryDtypes r, ScalarType compute);

/// div()'s rounding mode: None, "trunc" or "floor"; RuntimeError naming the mode otherwise.
DivMode div_mode(std::optional<std::string_view> rounding_mode);

/// pow()'s check of a number exponent: integral bases refuse negative integer exponents.
void check_pow_exponent(ScalarType base, const Scalar& exponent);

/// The meta of a binary op's result: the tensor operands' broadcast shape and memory
/// order, the result dtype.
TensorMeta binary_op_meta(BinaryDtypes r, const char* name, Operand a, Operand b,
                          std::string_view what = {});

/// Whether a pow() exponent is 0 or 1 (the result is ones or a copy of the base).
bool pow_is_trivial(const Scalar& exponent);

/// The meta helpers of the YAML's `meta:` key (Note [Shared meta helpers] in
/// codegen/model.py), one per rule, for a Tensor or a number `other`.
#define EMBER_BINARY_META_HELPER(helper)                                                  \
  TensorMeta helper(const char* op, const Tensor& self, const Tensor& other);             \
  TensorMeta helper(const char* op, const Tensor& self, const Scalar& other);
EMBER_BINARY_META_HELPER(binary_rounding_meta)
EMBER_BINARY_META_HELPER(binary_ordered_meta)
EMBER_BINARY_META_HELPER(binary_to_float_meta)
EMBER_BINARY_META_HELPER(binary_floating_meta)
EMBER_BINARY_META_HELPER(binary_inexact_meta)
EMBER_BINARY_META_HELPER(binary_bitwise_meta)
EMBER_BINARY_META_HELPER(binary_integral_meta)
EMBER_BINARY_META_HELPER(binary_logical_meta)
#undef EMBER_BINARY_META_HELPER

}  // namespace ember::native
