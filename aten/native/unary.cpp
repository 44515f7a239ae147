// Unary elementwise ops: the meta functions (result dtype and argument checks). The loops
// are in cpu/unary.cpp.
#include "aten/native/TensorIterator.h"
#include "aten/native/unary.h"
#include "c10/util/Exception.h"
#include "ember/generated/Functions.h"
#include "ember/generated/NativeFunctions.h"

namespace ember::native {

ScalarType float_result_type(ScalarType t) {
  return is_integral(t, /*include_bool=*/true) ? get_default_dtype() : t;
}

TensorMeta like_self_meta(const Tensor& self, ScalarType dtype, const char* op) {
  TensorMeta meta = elementwise_meta({&self}, dtype, op);
  if (self.numel() == 0) meta.strides = DimVector(self.strides());
  return meta;
}

namespace {

TensorMeta float_meta(const Tensor& self, const char* op) {
  return elementwise_meta({&self}, float_result_type(self.dtype()), op);
}

TensorMeta same_meta(const Tensor& self, const char* op) {
  return elementwise_meta({&self}, self.dtype(), op);
}

}  // namespace

#define EMBER_FLOAT_UNARY_META(op) \
  TensorMeta op##_meta(const Tensor& self) { return float_meta(self, #op); }
#define EMBER_SAME_UNARY_META(op) \
  TensorMeta op##_meta(const Tensor& self) { return same_meta(self, #op); }

EMBER_FLOAT_UNARY_META(exp)
EMBER_FLOAT_UNARY_META(exp2)
EMBER_FLOAT_UNARY_META(expm1)
EMBER_FLOAT_UNARY_META(log)
EMBER_FLOAT_UNARY_META(log2)
EMBER_FLOAT_UNARY_META(log10)
EMBER_FLOAT_UNARY_META(log1p)
EMBER_FLOAT_UNARY_META(sqrt)
EMBER_FLOAT_UNARY_META(rsqrt)
EMBER_FLOAT_UNARY_META(sin)
EMBER_FLOAT_UNARY_META(cos)
EMBER_FLOAT_UNARY_META(tan)
EMBER_FLOAT_UNARY_META(asin)
EMBER_FLOAT_UNARY_META(acos)
EMBER_FLOAT_UNARY_META(atan)
EMBER_FLOAT_UNARY_META(sinh)
EMBER_FLOAT_UNARY_META(cosh)
EMBER_FLOAT_UNARY_META(tanh)
EMBER_FLOAT_UNARY_META(asinh)
EMBER_FLOAT_UNARY_META(acosh)
EMBER_FLOAT_UNARY_META(atanh)
EMBER_FLOAT_UNARY_META(sigmoid)
EMBER_FLOAT_UNARY_META(erf)
EMBER_FLOAT_UNARY_META(erfc)
EMBER_FLOAT_UNARY_META(reciprocal)

TensorMeta neg_meta(const Tensor& self) {
  EMBER_CHECK_TYPE(self.dtype() != ScalarType::Bool,
                   "neg(): Negation, the `-` operator, on a bool tensor is not supported. If you "
                   "are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  return same_meta(self, "neg");
}

TensorMeta abs_meta(const Tensor& self) {
  // The absolute value of a complex number is real.
  const ScalarType t = self.dtype();
  const ScalarType real = t == ScalarType::ComplexFloat ? ScalarType::Float
                          : t == ScalarType::ComplexDouble ? ScalarType::Double : t;
  return is_complex(t) ? like_self_meta(self, real, "abs") : elementwise_meta({&self}, t, "abs");
}

Tensor& abs_(Tensor& self) {
  EMBER_CHECK(!is_complex(self.dtype()), "abs_(): in-place abs is not supported for complex "
              "tensors (the result is real); use abs()");
  ember::abs_out(self, self);
  return self;
}

EMBER_SAME_UNARY_META(sign)
EMBER_SAME_UNARY_META(floor)
EMBER_SAME_UNARY_META(ceil)
EMBER_SAME_UNARY_META(trunc)
EMBER_SAME_UNARY_META(frac)
EMBER_SAME_UNARY_META(round)

#undef EMBER_FLOAT_UNARY_META
#undef EMBER_SAME_UNARY_META

}  // namespace ember::native
