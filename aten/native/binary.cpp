// Binary arithmetic: the meta functions of add, sub, mul, div (shape, dtype and argument
// checks, shared by every backend). The loops are in cpu/binary.cpp.
#include "aten/native/TensorIterator.h"
#include "aten/native/binary.h"
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

}  // namespace ember::native

namespace ember::native {

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

}  // namespace ember::native
