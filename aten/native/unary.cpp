// Unary elementwise ops: the meta functions (result dtype and argument checks). The loops
// are in cpu/unary.cpp.
#include "aten/native/TensorIterator.h"
#include "aten/native/unary.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/_conj_physical.h"
#include "ember/generated/ops/abs.h"

namespace ember::native {

ScalarType float_result_type(ScalarType t) {
  return is_integral(t, /*include_bool=*/true) ? get_default_dtype() : t;
}

TensorMeta like_self_meta(const Tensor& self, ScalarType dtype, const char* op) {
  TensorMeta meta = elementwise_meta({&self}, dtype, op);
  if (self.numel() == 0) meta.strides = DimVector(self.strides());
  return meta;
}

// The metas of the ops whose YAML entry says `meta: float_unary_meta`, `meta:
// float_real_unary_meta` or `meta: same_unary_meta` (Note [Shared meta helpers] in codegen/model.py).
TensorMeta float_unary_meta(const char* op, const Tensor& self) {
  return elementwise_meta({&self}, float_result_type(self.dtype()), op);
}

TensorMeta float_real_unary_meta(const char* op, const Tensor& self) {
  EMBER_CHECK(!is_complex(self.dtype()), op, " is not supported for complex tensors.");
  // PyTorch computes these ops as a mul by a number: an empty self keeps its strides.
  return like_self_meta(self, float_result_type(self.dtype()), op);
}

TensorMeta same_unary_meta(const char* op, const Tensor& self) {
  return elementwise_meta({&self}, self.dtype(), op);
}

TensorMeta neg_meta(const Tensor& self) {
  EMBER_CHECK_TYPE(self.dtype() != ScalarType::Bool,
                   "neg(): Negation, the `-` operator, on a bool tensor is not supported. If you "
                   "are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  return same_unary_meta("neg", self);
}

// PyTorch's conj_physical keeps an empty self's strides.
TensorMeta conj_physical_meta(const Tensor& self) {
  return like_self_meta(self, self.dtype(), "conj_physical");
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

// Ember has no conjugate bit (PyTorch's lazy conj): conj computes the conjugate of a complex
// tensor and is the identity, without a copy, for real ones.
Tensor conj(const Tensor& self) {
  return is_complex(self.dtype()) ? ember::_conj_physical(self) : self;
}

Tensor conj_physical(const Tensor& self) {
  return is_complex(self.dtype()) ? ember::_conj_physical(self) : self;
}

}  // namespace ember::native
