// The binary elementwise family: the meta functions (shape, dtype and argument checks,
// shared by every backend) of add, sub, mul, div, the comparisons, and the ops of
// the functor ops, with their dtype rules. The loops are in cpu/binary.cpp and
// cpu/compare.cpp.
#include "aten/native/binary.h"

#include <complex>

#include "aten/native/TensorIterator.h"
#include "c10/util/Exception.h"
// The meta functions' declarations (exported: libember_cuda's registrations call them).
#include "ember/generated/ops/add_native.h"
#include "ember/generated/ops/div_native.h"
#include "ember/generated/ops/eq_native.h"
#include "ember/generated/ops/ge_native.h"
#include "ember/generated/ops/gt_native.h"
#include "ember/generated/ops/le_native.h"
#include "ember/generated/ops/lt_native.h"
#include "ember/generated/ops/maximum.h"
#include "ember/generated/ops/minimum.h"
#include "ember/generated/ops/mul_native.h"
#include "ember/generated/ops/ne_native.h"
#include "ember/generated/ops/sub_native.h"

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

// ---- the functor ops (Note [Binary functors] in cpu/binary.cpp) -------------------------------

namespace {

ScalarType promoted(Operand a, Operand b) {
  ResultType r;
  for (Operand x : {a, b}) {
    if (x.tensor) r.add(*x.tensor);
    else r.add(*x.scalar);
  }
  return r.get();
}

}  // namespace

ScalarType binary_compute_type(BinaryDtypes r, const char* name, Operand a, Operand b,
                               std::string_view what) {
  const ScalarType t = promoted(a, b);
  const bool boolean = t == ScalarType::Bool;
  const bool integral = is_integral(t, /*include_bool=*/false);
  switch (r) {
    case BinaryDtypes::TrueDiv:
      return div_result_type(t);
    case BinaryDtypes::Rounding:
      EMBER_CHECK_NOT_IMPLEMENTED(!boolean && !is_complex(t), name, "(): ", what,
                                  "not implemented for '", t, "'");
      return t;
    case BinaryDtypes::Pow:
      EMBER_CHECK_NOT_IMPLEMENTED(!boolean, name, "(): not implemented for 'Bool' (convert the "
                                  "base or the exponent to an integer or floating dtype)");
      return t;
    case BinaryDtypes::Ordered:
      EMBER_CHECK(!is_complex(t), name, "(): not implemented for complex tensors (got '", t,
                  "'; complex numbers are not ordered)");
      return t;
    case BinaryDtypes::ToFloat:
      EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(t), name, "(): not implemented for '", t, "'");
      return div_result_type(t);
    case BinaryDtypes::Floating:
      EMBER_CHECK_NOT_IMPLEMENTED(is_floating_point(t), name, "(): not implemented for '", t,
                                  "' (expected a floating dtype)");
      return t;
    case BinaryDtypes::Inexact:
      EMBER_CHECK_NOT_IMPLEMENTED(is_floating_point(t) || is_complex(t), name, "(): not implemented for '",
                                  t, "' (expected a floating or complex dtype)");
      return t;
    case BinaryDtypes::Bitwise:
      EMBER_CHECK_NOT_IMPLEMENTED(integral || boolean, name, "(): not implemented for '", t,
                                  "' (expected an integral or bool dtype)");
      return t;
    case BinaryDtypes::Integral:
      EMBER_CHECK_NOT_IMPLEMENTED(integral, name, "(): not implemented for '", t,
                                  "' (expected an integral dtype)");
      return t;
    case BinaryDtypes::Logical:
      return t;
  }
  return t;
}

ScalarType binary_result_type(BinaryDtypes r, ScalarType compute) {
  return r == BinaryDtypes::Logical ? ScalarType::Bool : compute;
}

DivMode div_mode(std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return DivMode::True;
  if (*rounding_mode == "trunc") return DivMode::Trunc;
  EMBER_CHECK(*rounding_mode == "floor", "div(): expected rounding_mode to be one of None, "
              "'trunc', or 'floor', but got '", *rounding_mode, "'");
  return DivMode::Floor;
}

void check_pow_exponent(ScalarType base, const Scalar& exponent) {
  EMBER_CHECK(!(is_integral(base, /*include_bool=*/true) &&
                (exponent.is_integral() || exponent.is_bool()) && exponent.to_long() < 0),
              "pow(): Integers to negative integer powers are not allowed. (got exponent ",
              exponent, " for a base of dtype ", base, "; use a floating base)");
}

// ---- meta functions ----------------------------------------------------------------------

TensorMeta binary_op_meta(BinaryDtypes r, const char* name, Operand a, Operand b, std::string_view what) {
  const ScalarType dtype = binary_result_type(r, binary_compute_type(r, name, a, b, what));
  if (a.tensor && b.tensor) return elementwise_meta({a.tensor, b.tensor}, dtype, name);
  return elementwise_meta({a.tensor ? a.tensor : b.tensor}, dtype, name);
}

namespace {

// div()'s rule and how an error names its rounding: "rounding_mode='floor' is ".
TensorMeta div_mode_meta(const Tensor& self, Operand other, std::optional<std::string_view> rounding_mode) {
  switch (div_mode(rounding_mode)) {
    case DivMode::True: return binary_op_meta(BinaryDtypes::TrueDiv, "div", self, other);
    case DivMode::Trunc:
      return binary_op_meta(BinaryDtypes::Rounding, "div", self, other, "rounding_mode='trunc' is ");
    case DivMode::Floor: break;
  }
  return binary_op_meta(BinaryDtypes::Rounding, "div", self, other, "rounding_mode='floor' is ");
}

}  // namespace

TensorMeta div_out_mode_meta(const Tensor& self, const Tensor& other,
                             std::optional<std::string_view> rounding_mode) {
  return div_mode_meta(self, other, rounding_mode);
}

TensorMeta div_Scalar_mode_out_meta(const Tensor& self, const Scalar& other,
                                    std::optional<std::string_view> rounding_mode) {
  return div_mode_meta(self, other, rounding_mode);
}

TensorMeta pow_Tensor_Tensor_out_meta(const Tensor& self, const Tensor& exponent) {
  return binary_op_meta(BinaryDtypes::Pow, "pow", self, exponent);
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
  return binary_op_meta(BinaryDtypes::Pow, "pow", self, exponent);
}

TensorMeta pow_Scalar_out_meta(const Scalar& self, const Tensor& exponent) {
  // As PyTorch: a new result is contiguous whatever the exponent's memory order.
  TensorMeta meta;
  meta.sizes = DimVector(exponent.sizes());
  meta.dtype = binary_compute_type(BinaryDtypes::Pow, "pow", self, exponent);
  return meta;
}

#define EMBER_BINARY_META_HELPER(helper, rule)                                            \
  TensorMeta helper(const char* op, const Tensor& self, const Tensor& other) {            \
    return binary_op_meta(rule, op, self, other);                                         \
  }                                                                                       \
  TensorMeta helper(const char* op, const Tensor& self, const Scalar& other) {            \
    return binary_op_meta(rule, op, self, other);                                         \
  }
EMBER_BINARY_META_HELPER(binary_rounding_meta, BinaryDtypes::Rounding)
EMBER_BINARY_META_HELPER(binary_ordered_meta, BinaryDtypes::Ordered)
EMBER_BINARY_META_HELPER(binary_to_float_meta, BinaryDtypes::ToFloat)
EMBER_BINARY_META_HELPER(binary_floating_meta, BinaryDtypes::Floating)
EMBER_BINARY_META_HELPER(binary_inexact_meta, BinaryDtypes::Inexact)
EMBER_BINARY_META_HELPER(binary_bitwise_meta, BinaryDtypes::Bitwise)
EMBER_BINARY_META_HELPER(binary_integral_meta, BinaryDtypes::Integral)
EMBER_BINARY_META_HELPER(binary_logical_meta, BinaryDtypes::Logical)
#undef EMBER_BINARY_META_HELPER

TensorMeta bitwise_not_meta(const Tensor& self) {
  EMBER_CHECK_NOT_IMPLEMENTED(is_integral(self.dtype(), /*include_bool=*/true), "bitwise_not(): "
                              "not implemented for '", self.dtype(),
                              "' (expected an integral or bool dtype)");
  return elementwise_meta({&self}, self.dtype(), "bitwise_not");
}

TensorMeta logical_not_meta(const Tensor& self) {
  return elementwise_meta({&self}, ScalarType::Bool, "logical_not");
}

// torch.max(a, b) and torch.min(a, b): the binary overloads of the reductions.
Tensor max(const Tensor& self, const Tensor& other) { return ember::maximum(self, other); }
Tensor min(const Tensor& self, const Tensor& other) { return ember::minimum(self, other); }

}  // namespace ember::native
