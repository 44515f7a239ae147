// The binary elementwise family: the meta functions (shape, dtype and argument checks,
// shared by every backend) of add, sub, mul, div, the comparisons, and the ops of
// binary.h's BinaryOp, with their dtype rules. The loops are in cpu/binary.cpp and
// cpu/compare.cpp.
#include "aten/native/binary.h"

#include <complex>

#include "aten/native/TensorIterator.h"
#include "c10/util/Exception.h"
#include "ember/generated/NativeFunctions.h"

namespace ember::native {

void check_alpha(const char* op, ScalarType dtype, const Scalar& alpha) {
  EMBER_CHECK_TYPE(!alpha.is_bool() || dtype == ScalarType::Bool, op,
                   "(): Boolean alpha only supported for Boolean results.");
  EMBER_CHECK_TYPE(is_floating_point(dtype) || is_complex(dtype) || alpha.is_integral() ||
                       alpha.is_bool(),
                   op, "(): For integral input tensors, argument alpha must not be a floating "
                   "point number.");
  EMBER_CHECK_TYPE(is_complex(dtype) || !alpha.is_complex(), op,
                   "(): For non-complex input tensors, argument alpha must not be a complex number.");
}

void check_sub_operands(ScalarType a, ScalarType b) {
  EMBER_CHECK_TYPE(!(a == ScalarType::Bool && b == ScalarType::Bool),
                   "sub(): Subtraction, the `-` operator, with two bool tensors is not supported. "
                   "Use the `^` or `logical_xor()` operator instead.");
  EMBER_CHECK_TYPE(a != ScalarType::Bool && b != ScalarType::Bool,
                   "sub(): Subtraction, the `-` operator, with a bool tensor is not supported. If "
                   "you are trying to invert a mask, use the `~` or `logical_not()` operator "
                   "instead.");
}

ScalarType div_result_type(ScalarType t) {
  return is_integral(t, /*include_bool=*/true) ? get_default_dtype() : t;
}

TensorMeta add_meta(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const ScalarType dtype = ResultType().add(self).add(other).get();
  check_alpha("add", dtype, alpha);
  return elementwise_meta({&self, &other}, dtype, "add");
}

TensorMeta sub_meta(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub_operands(self.dtype(), other.dtype());
  const ScalarType dtype = ResultType().add(self).add(other).get();
  check_alpha("sub", dtype, alpha);
  return elementwise_meta({&self, &other}, dtype, "sub");
}

TensorMeta mul_meta(const Tensor& self, const Tensor& other) {
  return elementwise_meta({&self, &other}, ResultType().add(self).add(other).get(), "mul");
}

TensorMeta div_meta(const Tensor& self, const Tensor& other) {
  return elementwise_meta({&self, &other}, div_result_type(ResultType().add(self).add(other).get()),
                          "div");
}

// ---- comparisons ---------------------------------------------------------------------------

#define EMBER_COMPARISON_META(op)                                                           \
  TensorMeta op##_Tensor_out_meta(const Tensor& self, const Tensor& other) {                \
    return elementwise_meta({&self, &other}, ScalarType::Bool, #op);                        \
  }
EMBER_COMPARISON_META(eq)
EMBER_COMPARISON_META(ne)
EMBER_COMPARISON_META(lt)
EMBER_COMPARISON_META(le)
EMBER_COMPARISON_META(gt)
EMBER_COMPARISON_META(ge)
#undef EMBER_COMPARISON_META

// ---- the ops of BinaryOp ---------------------------------------------------------------------

namespace {

ScalarType promoted(Operand a, Operand b) {
  ResultType r;
  for (Operand x : {a, b}) {
    if (x.tensor) r.add(*x.tensor);
    else r.add(*x.scalar);
  }
  return r.get();
}

// How an error names the rounding of div(): "rounding_mode='floor' is ".
const char* mode_name(BinaryOp op) {
  if (op == BinaryOp::DivTrunc) return "rounding_mode='trunc' is ";
  return op == BinaryOp::DivFloor ? "rounding_mode='floor' is " : "";
}

}  // namespace

ScalarType binary_compute_type(BinaryOp op, const char* name, Operand a, Operand b) {
  const ScalarType t = promoted(a, b);
  const bool boolean = t == ScalarType::Bool;
  const bool integral = is_integral(t, /*include_bool=*/false);
  switch (op) {
    case BinaryOp::DivTrue:
      return div_result_type(t);
    case BinaryOp::DivTrunc:
    case BinaryOp::DivFloor:
    case BinaryOp::Remainder:
    case BinaryOp::Fmod:
      EMBER_CHECK_NOT_IMPLEMENTED(!boolean && !is_complex(t), name, "(): ",
                                  std::string_view(name) == "div" ? mode_name(op) : "",
                                  "not implemented for '", t, "'");
      return t;
    case BinaryOp::Pow:
      EMBER_CHECK_NOT_IMPLEMENTED(!boolean, name, "(): not implemented for 'Bool' (convert the "
                                  "base or the exponent to an integer or floating dtype)");
      return t;
    case BinaryOp::Maximum:
    case BinaryOp::Minimum:
    case BinaryOp::Fmax:
    case BinaryOp::Fmin:
      EMBER_CHECK(!is_complex(t), name, "(): not implemented for complex tensors (got '", t,
                  "'; complex numbers are not ordered)");
      return t;
    case BinaryOp::Atan2:
    case BinaryOp::Copysign:
      EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(t), name, "(): not implemented for '", t, "'");
      return div_result_type(t);
    case BinaryOp::Hypot:
      EMBER_CHECK_NOT_IMPLEMENTED(is_floating_point(t), name, "(): not implemented for '", t,
                                  "' (expected a floating dtype)");
      return t;
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor:
      EMBER_CHECK_NOT_IMPLEMENTED(integral || boolean, name, "(): not implemented for '", t,
                                  "' (expected an integral or bool dtype)");
      return t;
    case BinaryOp::LeftShift:
    case BinaryOp::RightShift:
      EMBER_CHECK_NOT_IMPLEMENTED(integral, name, "(): not implemented for '", t,
                                  "' (expected an integral dtype)");
      return t;
    case BinaryOp::LogicalAnd:
    case BinaryOp::LogicalOr:
    case BinaryOp::LogicalXor:
      return t;
  }
  return t;
}

ScalarType binary_result_type(BinaryOp op, ScalarType compute) {
  const bool logical = op == BinaryOp::LogicalAnd || op == BinaryOp::LogicalOr ||
                       op == BinaryOp::LogicalXor;
  return logical ? ScalarType::Bool : compute;
}

BinaryOp div_mode(std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return BinaryOp::DivTrue;
  if (*rounding_mode == "trunc") return BinaryOp::DivTrunc;
  EMBER_CHECK(*rounding_mode == "floor", "div(): expected rounding_mode to be one of None, "
              "'trunc', or 'floor', but got '", *rounding_mode, "'");
  return BinaryOp::DivFloor;
}

void check_pow_exponent(ScalarType base, const Scalar& exponent) {
  EMBER_CHECK(!(is_integral(base, /*include_bool=*/true) &&
                (exponent.is_integral() || exponent.is_bool()) && exponent.to_long() < 0),
              "pow(): Integers to negative integer powers are not allowed. (got exponent ",
              exponent, " for a base of dtype ", base, "; use a floating base)");
}

// ---- meta functions ----------------------------------------------------------------------

TensorMeta binary_op_meta(BinaryOp op, const char* name, Operand a, Operand b) {
  const ScalarType dtype = binary_result_type(op, binary_compute_type(op, name, a, b));
  if (a.tensor && b.tensor) return elementwise_meta({a.tensor, b.tensor}, dtype, name);
  return elementwise_meta({a.tensor ? a.tensor : b.tensor}, dtype, name);
}

TensorMeta div_out_mode_meta(const Tensor& self, const Tensor& other,
                             std::optional<std::string_view> rounding_mode) {
  return binary_op_meta(div_mode(rounding_mode), "div", self, other);
}

TensorMeta div_Scalar_mode_out_meta(const Tensor& self, const Scalar& other,
                                    std::optional<std::string_view> rounding_mode) {
  return binary_op_meta(div_mode(rounding_mode), "div", self, other);
}

TensorMeta pow_Tensor_Tensor_out_meta(const Tensor& self, const Tensor& exponent) {
  return binary_op_meta(BinaryOp::Pow, "pow", self, exponent);
}

bool pow_is_trivial(const Scalar& exponent) {
  if (exponent.is_complex()) {
    const std::complex<double> e = exponent.to_complex();
    return e == std::complex<double>(0.0) || e == std::complex<double>(1.0);
  }
  return exponent.to_double() == 0.0 || exponent.to_double() == 1.0;
}

TensorMeta pow_Tensor_Scalar_out_meta(const Tensor& self, const Scalar& exponent) {
  check_pow_exponent(self.dtype(), exponent);
  if (pow_is_trivial(exponent)) {
    // x ** 0 and x ** 1 need no loop, so PyTorch takes them for every dtype, bool included.
    return elementwise_meta({&self}, ResultType().add(self).add(exponent).get(), "pow");
  }
  return binary_op_meta(BinaryOp::Pow, "pow", self, exponent);
}

TensorMeta pow_Scalar_out_meta(const Scalar& self, const Tensor& exponent) {
  // As PyTorch: a new result is contiguous whatever the exponent's memory order.
  TensorMeta meta;
  meta.sizes = DimVector(exponent.sizes());
  meta.dtype = binary_compute_type(BinaryOp::Pow, "pow", self, exponent);
  return meta;
}

#define EMBER_BINARY_META(meta, op, name)                                                   \
  TensorMeta meta(const Tensor& self, const Tensor& other) {                                \
    return binary_op_meta(op, name, self, other);                                                  \
  }
#define EMBER_SCALAR_META(meta, op, name)                                                   \
  TensorMeta meta(const Tensor& self, const Scalar& other) {                                \
    return binary_op_meta(op, name, self, other);                                                  \
  }
EMBER_BINARY_META(floor_divide_meta, BinaryOp::DivFloor, "floor_divide")
EMBER_SCALAR_META(floor_divide_Scalar_out_meta, BinaryOp::DivFloor, "floor_divide")
EMBER_BINARY_META(remainder_Tensor_out_meta, BinaryOp::Remainder, "remainder")
EMBER_SCALAR_META(remainder_Scalar_out_meta, BinaryOp::Remainder, "remainder")
EMBER_BINARY_META(fmod_Tensor_out_meta, BinaryOp::Fmod, "fmod")
EMBER_SCALAR_META(fmod_Scalar_out_meta, BinaryOp::Fmod, "fmod")
EMBER_BINARY_META(maximum_meta, BinaryOp::Maximum, "maximum")
EMBER_BINARY_META(minimum_meta, BinaryOp::Minimum, "minimum")
EMBER_BINARY_META(fmax_meta, BinaryOp::Fmax, "fmax")
EMBER_BINARY_META(fmin_meta, BinaryOp::Fmin, "fmin")
EMBER_BINARY_META(atan2_meta, BinaryOp::Atan2, "atan2")
EMBER_BINARY_META(hypot_meta, BinaryOp::Hypot, "hypot")
EMBER_BINARY_META(copysign_meta, BinaryOp::Copysign, "copysign")
EMBER_SCALAR_META(copysign_Scalar_out_meta, BinaryOp::Copysign, "copysign")
EMBER_BINARY_META(bitwise_and_Tensor_out_meta, BinaryOp::BitAnd, "bitwise_and")
EMBER_SCALAR_META(bitwise_and_Scalar_out_meta, BinaryOp::BitAnd, "bitwise_and")
EMBER_BINARY_META(bitwise_or_Tensor_out_meta, BinaryOp::BitOr, "bitwise_or")
EMBER_SCALAR_META(bitwise_or_Scalar_out_meta, BinaryOp::BitOr, "bitwise_or")
EMBER_BINARY_META(bitwise_xor_Tensor_out_meta, BinaryOp::BitXor, "bitwise_xor")
EMBER_SCALAR_META(bitwise_xor_Scalar_out_meta, BinaryOp::BitXor, "bitwise_xor")
EMBER_BINARY_META(bitwise_left_shift_Tensor_out_meta, BinaryOp::LeftShift, "bitwise_left_shift")
EMBER_SCALAR_META(bitwise_left_shift_Tensor_Scalar_out_meta, BinaryOp::LeftShift,
                  "bitwise_left_shift")
EMBER_BINARY_META(bitwise_right_shift_Tensor_out_meta, BinaryOp::RightShift, "bitwise_right_shift")
EMBER_SCALAR_META(bitwise_right_shift_Tensor_Scalar_out_meta, BinaryOp::RightShift,
                  "bitwise_right_shift")
EMBER_BINARY_META(logical_and_meta, BinaryOp::LogicalAnd, "logical_and")
EMBER_BINARY_META(logical_or_meta, BinaryOp::LogicalOr, "logical_or")
EMBER_BINARY_META(logical_xor_meta, BinaryOp::LogicalXor, "logical_xor")
#undef EMBER_BINARY_META
#undef EMBER_SCALAR_META

TensorMeta bitwise_not_meta(const Tensor& self) {
  EMBER_CHECK_NOT_IMPLEMENTED(is_integral(self.dtype(), /*include_bool=*/true), "bitwise_not(): "
                              "not implemented for '", self.dtype(),
                              "' (expected an integral or bool dtype)");
  return elementwise_meta({&self}, self.dtype(), "bitwise_not");
}

TensorMeta logical_not_meta(const Tensor& self) {
  return elementwise_meta({&self}, ScalarType::Bool, "logical_not");
}

}  // namespace ember::native
