// Activations and the special unary functions: meta functions (result dtype and argument
// checks) and the composites (relu, relu6, hardtanh, selu, celu). The loops are in
// cpu/activation.cpp and cpu/unary_special.cpp.
#include <string_view>

#include "aten/native/TensorIterator.h"
#include "aten/native/unary.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/clamp.h"
#include "ember/generated/ops/clamp_.h"
#include "ember/generated/ops/clamp_min.h"
#include "ember/generated/ops/clamp_min_.h"
#include "ember/generated/ops/elu.h"
#include "ember/generated/ops/elu_.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/hardtanh.h"
#include "ember/generated/ops/hardtanh_.h"

namespace ember::native {
namespace {

TensorMeta same_meta(const Tensor& self, const char* op) {
  return elementwise_meta({&self}, self.dtype(), op);
}

TensorMeta float_meta(const Tensor& self, const char* op) {
  return elementwise_meta({&self}, float_result_type(self.dtype()), op);
}

}  // namespace

// ---- special functions ------------------------------------------------------------------

TensorMeta sgn_meta(const Tensor& self) { return same_meta(self, "sgn"); }

TensorMeta square_meta(const Tensor& self) {
  // PyTorch's square is pow(self, 2): a bool tensor meets an integer and gives int64.
  return elementwise_meta({&self}, ResultType().add(self).add(Scalar(2)).get(), "square");
}

TensorMeta logit_meta(const Tensor& self, std::optional<double>) { return float_meta(self, "logit"); }
TensorMeta erfinv_meta(const Tensor& self) { return float_meta(self, "erfinv"); }
TensorMeta lgamma_meta(const Tensor& self) { return float_meta(self, "lgamma"); }
TensorMeta digamma_meta(const Tensor& self) { return float_meta(self, "digamma"); }
TensorMeta round_decimals_out_meta(const Tensor& self, int64_t) { return same_meta(self, "round"); }

TensorMeta nan_to_num_meta(const Tensor& self, std::optional<double>, std::optional<double>,
                           std::optional<double>) {
  return like_self_meta(self, self.dtype(), "nan_to_num");
}

// ---- activations ------------------------------------------------------------------------

TensorMeta leaky_relu_meta(const Tensor& self, const Scalar&) { return same_meta(self, "leaky_relu"); }

TensorMeta elu_meta(const Tensor& self, const Scalar&, const Scalar&, const Scalar&) {
  return same_meta(self, "elu");
}

TensorMeta gelu_meta(const Tensor& self, std::string_view approximate) {
  EMBER_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                    "gelu(): expected 'approximate' to be 'none' or 'tanh', but got '", approximate, "'");
  return same_meta(self, "gelu");
}

TensorMeta silu_meta(const Tensor& self) { return same_meta(self, "silu"); }
TensorMeta mish_meta(const Tensor& self) { return same_meta(self, "mish"); }
TensorMeta softplus_meta(const Tensor& self, const Scalar&, const Scalar&) { return same_meta(self, "softplus"); }
TensorMeta hardswish_meta(const Tensor& self) { return same_meta(self, "hardswish"); }
TensorMeta hardsigmoid_meta(const Tensor& self) { return same_meta(self, "hardsigmoid"); }

namespace {

void check_not_bool(const Tensor& self, const char* op) {
  EMBER_CHECK_TYPE(self.dtype() != ScalarType::Bool, op, "(): bool inputs are not supported");
}

// hardtanh's bounds do not promote an integral self (PyTorch's legacy rule): they truncate
// to integers, which must not be negative for uint8.
std::pair<Scalar, Scalar> hardtanh_bounds(const Tensor& self, const Scalar& lo, const Scalar& hi,
                                          const char* op) {
  check_not_bool(self, op);
  if (!is_integral(self.dtype(), /*include_bool=*/false)) return {lo, hi};
  const int64_t l = lo.to_long(), h = hi.to_long();
  EMBER_CHECK_VALUE(self.dtype() != ScalarType::Byte || (l >= 0 && h >= 0), op,
                    "(): expected 'min_val' and 'max_val' to be non-negative for a uint8 tensor, "
                    "but got ", lo, " and ", hi);
  return {Scalar(l), Scalar(h)};
}

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

void check_celu_alpha(const Scalar& alpha) {
  EMBER_CHECK_VALUE(alpha.to_double() != 0, "celu(): expected 'alpha' to be nonzero (it divides x)");
}

}  // namespace

Tensor relu(const Tensor& self) {
  check_not_bool(self, "relu");
  return ember::clamp_min(self, 0);
}

Tensor& relu_(Tensor& self) {
  check_not_bool(self, "relu_");
  ember::clamp_min_(self, 0);
  return self;
}

Tensor relu6(const Tensor& self) { return ember::hardtanh(self, 0, 6); }

Tensor& relu6_(Tensor& self) {
  ember::hardtanh_(self, 0, 6);
  return self;
}

Tensor& hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val, Tensor& out) {
  const auto [lo, hi] = hardtanh_bounds(self, min_val, max_val, "hardtanh");
  ember::clamp_out(out, self, lo, hi);
  return out;
}

Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  const auto [lo, hi] = hardtanh_bounds(self, min_val, max_val, "hardtanh");
  // As PyTorch: the result is allocated like self (an empty self's strides kept).
  Tensor out = ember::empty_like(self);
  ember::clamp_out(out, self, lo, hi);
  return out;
}

Tensor& hardtanh_(Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  const auto [lo, hi] = hardtanh_bounds(self, min_val, max_val, "hardtanh_");
  ember::clamp_(self, lo, hi);
  return self;
}

Tensor selu(const Tensor& self) { return ember::elu(self, kSeluAlpha, kSeluScale, 1); }

Tensor& selu_(Tensor& self) {
  ember::elu_(self, kSeluAlpha, kSeluScale, 1);
  return self;
}

Tensor celu(const Tensor& self, const Scalar& alpha) {
  check_celu_alpha(alpha);
  return ember::elu(self, alpha, 1, 1.0 / alpha.to_double());
}

Tensor& celu_(Tensor& self, const Scalar& alpha) {
  check_celu_alpha(alpha);
  ember::elu_(self, alpha, 1, 1.0 / alpha.to_double());
  return self;
}

}  // namespace ember::native
