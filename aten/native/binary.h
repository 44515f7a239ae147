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
void check_alpha(const char* op, ScalarType dtype, const Scalar& alpha);
/// sub() takes no bool operand (TypeError with PyTorch's advice).
void check_sub_operands(ScalarType a, ScalarType b);
/// div()'s true division: integral (and bool) results become the default float dtype.
ScalarType div_result_type(ScalarType t);

/// Which elementwise function a binary op computes.
enum class BinaryOp {
  DivTrue, DivTrunc, DivFloor, Remainder, Fmod, Pow, Maximum, Minimum, Fmax, Fmin, Atan2,
  Hypot, Copysign, BitAnd, BitOr, BitXor, LeftShift, RightShift, LogicalAnd, LogicalOr,
  LogicalXor,
};

/// One operand of a binary op: a tensor, or a number. A number is never wrapped into a
/// tensor: it joins type promotion as a weak scalar and the loop as a constant.
struct Operand {
  const Tensor* tensor = nullptr;
  const Scalar* scalar = nullptr;

  Operand(const Tensor& t) : tensor(&t) {}  // NOLINT(google-explicit-constructor)
  Operand(const Scalar& s) : scalar(&s) {}  // NOLINT(google-explicit-constructor)
};

/// The dtype `op` computes in for operands a and b (PyTorch's promotion, true division and
/// atan2/copysign taking integers to the default float dtype); NotImplementedError (or
/// RuntimeError, as PyTorch raises for min/max of complex) when op has no loop for it.
ScalarType binary_compute_type(BinaryOp op, const char* name, Operand a, Operand b);

/// The dtype of op's result: bool for the logical ops, else the compute dtype.
ScalarType binary_result_type(BinaryOp op, ScalarType compute);

/// div()'s rounding mode as an op: DivTrue (None), DivTrunc ("trunc") or DivFloor ("floor");
/// RuntimeError naming the mode otherwise (as PyTorch).
BinaryOp div_mode(std::optional<std::string_view> rounding_mode);

/// Whether op divides integers (and so refuses a zero divisor).
constexpr bool divides(BinaryOp op) {
  return op == BinaryOp::DivTrunc || op == BinaryOp::DivFloor || op == BinaryOp::Remainder ||
         op == BinaryOp::Fmod;
}

/// pow()'s check of a number exponent: integral bases refuse negative integer exponents.
void check_pow_exponent(ScalarType base, const Scalar& exponent);

/// The meta of op's result: the tensor operands' broadcast shape and memory order, the
/// result dtype.
TensorMeta binary_op_meta(BinaryOp op, const char* name, Operand a, Operand b);

/// Whether a pow() exponent is 0 or 1 (the result is ones or a copy of the base).
bool pow_is_trivial(const Scalar& exponent);

}  // namespace ember::native
