// The several-input pointwise ops: where, clamp (clamp_min, clamp_max, clip), lerp,
// addcmul, addcdiv: meta functions (result dtype and shape, argument checks) and the
// composites (where with numbers, clip). The loops are in cpu/pointwise.cpp.
#include "aten/native/pointwise.h"

#include "aten/native/Dispatch.h"
#include "aten/native/TensorIterator.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/addcdiv_native.h"
#include "ember/generated/ops/addcmul_native.h"
#include "ember/generated/ops/clamp.h"
#include "ember/generated/ops/clamp_.h"
#include "ember/generated/ops/clamp_max_native.h"
#include "ember/generated/ops/clamp_min_native.h"
#include "ember/generated/ops/clamp_native.h"
#include "ember/generated/ops/lerp_native.h"
#include "ember/generated/ops/scalar_tensor.h"
#include "ember/generated/ops/where.h"
#include "ember/generated/ops/where_native.h"

namespace ember::native {
namespace {

void check_condition(const Tensor& condition) {
  EMBER_CHECK_TYPE(condition.dtype() == ScalarType::Bool || condition.dtype() == ScalarType::Byte,
                   "where(): expected 'condition' to be a bool tensor, but got a tensor of dtype ",
                   condition.dtype());
}

void check_real(const char* op, const Tensor& t) {
  EMBER_CHECK_TYPE(!is_complex(t.dtype()), op, "(): not supported for complex tensors");
}

}  // namespace

// ---- where --------------------------------------------------------------------------------

TensorMeta where_self_out_meta(const Tensor& condition, const Tensor& self, const Tensor& other) {
  check_condition(condition);
  return elementwise_meta({&condition, &self, &other}, ResultType().add(self).add(other).get(), "where");
}

namespace {

// A number operand of where as a 0-d tensor of the result dtype (checked to fit it), so
// that where.self promotes to exactly that dtype.
Tensor where_operand(const Scalar& s, ScalarType dtype, const Tensor& condition, const char* arg) {
  dispatch_all_types(dtype, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    static_cast<void>(checked_scalar_to<T>(s, "where", arg));
  });
  return ember::scalar_tensor(s, TensorOptions().dtype(dtype).device(condition.device()));
}

}  // namespace

Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  check_condition(condition);
  const ScalarType dtype = ResultType().add(self).add(other).get();
  return ember::where(condition, where_operand(self, dtype, condition, "self"), other);
}

Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  check_condition(condition);
  const ScalarType dtype = ResultType().add(self).add(other).get();
  return ember::where(condition, self, where_operand(other, dtype, condition, "other"));
}

Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  check_condition(condition);
  const ScalarType dtype = ResultType().add(self).add(other).get();
  return ember::where(condition, where_operand(self, dtype, condition, "self"),
                      where_operand(other, dtype, condition, "other"));
}

// ---- clamp --------------------------------------------------------------------------------

ScalarType clamp_result_type(const Tensor& self, const std::optional<Scalar>& min,
                             const std::optional<Scalar>& max) {
  ResultType r;
  r.add(self);
  if (min) r.add(*min);
  if (max) r.add(*max);
  return r.get();
}

ScalarType clamp_tensor_result_type(const Tensor& self, const std::optional<Tensor>& min,
                                    const std::optional<Tensor>& max) {
  ResultType r;
  r.add(self);
  if (min) r.add(*min);
  if (max) r.add(*max);
  return r.get();
}

TensorMeta clamp_meta(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  EMBER_CHECK(min || max, "clamp(): expected at least one of 'min' and 'max' to be given, but both are None");
  check_real("clamp", self);
  EMBER_CHECK_TYPE(!(min && min->is_complex()) && !(max && max->is_complex()),
                   "clamp(): not supported for complex bounds");
  return elementwise_meta({&self}, clamp_result_type(self, min, max), "clamp");
}

TensorMeta clamp_Tensor_out_meta(const Tensor& self, const std::optional<Tensor>& min,
                                 const std::optional<Tensor>& max) {
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  EMBER_CHECK(has_min || has_max, "clamp(): expected at least one of 'min' and 'max' to be given, but both are None");
  check_real("clamp", self);
  if (has_min) check_real("clamp", *min);
  if (has_max) check_real("clamp", *max);
  const ScalarType dtype = clamp_tensor_result_type(self, has_min ? min : std::nullopt, has_max ? max : std::nullopt);
  if (has_min && has_max) return elementwise_meta({&self, &*min, &*max}, dtype, "clamp");
  return elementwise_meta({&self, has_min ? &*min : &*max}, dtype, "clamp");
}

TensorMeta clamp_min_meta(const Tensor& self, const Scalar& min) {
  return clamp_meta(self, min, std::nullopt);
}

TensorMeta clamp_max_meta(const Tensor& self, const Scalar& max) {
  return clamp_meta(self, std::nullopt, max);
}

TensorMeta clamp_min_Tensor_out_meta(const Tensor& self, const Tensor& min) {
  return clamp_Tensor_out_meta(self, min, std::nullopt);
}

TensorMeta clamp_max_Tensor_out_meta(const Tensor& self, const Tensor& max) {
  return clamp_Tensor_out_meta(self, std::nullopt, max);
}

Tensor clip(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return ember::clamp(self, min, max);
}

Tensor clip(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return ember::clamp(self, min, max);
}

Tensor& clip_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  ember::clamp_(self, min, max);
  return self;
}

Tensor& clip_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  ember::clamp_(self, min, max);
  return self;
}

Tensor& clip(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max, Tensor& out) {
  ember::clamp_out(out, self, min, max);
  return out;
}

Tensor& clip(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max, Tensor& out) {
  ember::clamp_out(out, self, min, max);
  return out;
}

// ---- lerp ---------------------------------------------------------------------------------

namespace {

void check_lerp_end(const Tensor& self, const Tensor& end) {
  EMBER_CHECK_TYPE(end.dtype() == self.dtype(), "lerp(): expected 'end' to have self's dtype ",
                   self.dtype(), ", but got ", end.dtype());
}

}  // namespace

ScalarType lerp_tensor_result_type(const Tensor& self, const Tensor& end, const Tensor& weight) {
  if (weight.dim() != 0) return self.dtype();
  return ResultType().add(self).add(end).add(weight).get();
}

TensorMeta lerp_Scalar_out_meta(const Tensor& self, const Tensor& end, const Scalar&) {
  check_lerp_end(self, end);
  return elementwise_meta({&self, &end}, self.dtype(), "lerp");
}

TensorMeta lerp_Tensor_out_meta(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_lerp_end(self, end);
  EMBER_CHECK_TYPE(weight.dim() == 0 || weight.dtype() == self.dtype(),
                   "lerp(): expected 'weight' to have self's dtype ", self.dtype(),
                   " (or to be 0-d), but got ", weight.dtype());
  return elementwise_meta({&self, &end, &weight}, lerp_tensor_result_type(self, end, weight), "lerp");
}

// ---- addcmul, addcdiv ---------------------------------------------------------------------

TensorMeta addcmul_meta(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar&) {
  return elementwise_meta({&self, &tensor1, &tensor2},
                          ResultType().add(self).add(tensor1).add(tensor2).get(), "addcmul");
}

TensorMeta addcdiv_meta(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar&) {
  EMBER_CHECK(!(is_integral(tensor1.dtype(), true) && is_integral(tensor2.dtype(), true)),
              "addcdiv(): integer division is not supported (tensor1 and tensor2 are ",
              tensor1.dtype(), " and ", tensor2.dtype(), "); convert tensor1 or tensor2 to a "
              "floating dtype for true division, or use torch.div with rounding_mode");
  return elementwise_meta({&self, &tensor1, &tensor2},
                          ResultType().add(self).add(tensor1).add(tensor2).get(), "addcdiv");
}

}  // namespace ember::native
