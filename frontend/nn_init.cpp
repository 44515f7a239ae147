// nn::init: parameter initialisers with PyTorch's formulas (python/ember/nn/init.py).

#include "frontend/nn/init.h"

#include <cmath>

#include "aten/autograd/GradMode.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/eye.h"

namespace ember::nn::init {

namespace {

void check_defined(const char* name, const Tensor& t) {
  EMBER_CHECK_VALUE(t.defined(), name, "(): expected a defined tensor");
}

int64_t correct_fan(const Tensor& tensor, const FanModeType& mode) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return std::holds_alternative<enumtype::kFanIn>(mode) ? fan_in : fan_out;
}

}  // namespace

double calculate_gain(NonlinearityType nonlinearity, double param) {
  if (std::holds_alternative<enumtype::kTanh>(nonlinearity)) return 5.0 / 3.0;
  if (std::holds_alternative<enumtype::kReLU>(nonlinearity)) return std::sqrt(2.0);
  if (std::holds_alternative<enumtype::kLeakyReLU>(nonlinearity)) {
    return std::sqrt(2.0 / (1 + param * param));
  }
  if (std::holds_alternative<enumtype::kSELU>(nonlinearity)) return 3.0 / 4.0;
  return 1.0;  // linear, conv*, sigmoid
}

Tensor constant_(Tensor tensor, Scalar value) {
  check_defined("constant_", tensor);
  autograd::NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}

Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }

Tensor zeros_(Tensor tensor) { return constant_(std::move(tensor), 0); }

Tensor eye_(Tensor matrix) {
  check_defined("eye_", matrix);
  EMBER_CHECK_VALUE(matrix.dim() == 2, "eye_(): expected a 2-D tensor, but got ", matrix.dim(),
                    "-D");
  autograd::NoGradGuard no_grad;
  matrix.copy_(::ember::eye(matrix.size(0), matrix.size(1),
                            TensorOptions().dtype(matrix.scalar_type())));
  return matrix;
}

Tensor uniform_(Tensor tensor, double low, double high) {
  check_defined("uniform_", tensor);
  autograd::NoGradGuard no_grad;
  tensor.uniform_(low, high);
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std) {
  check_defined("normal_", tensor);
  autograd::NoGradGuard no_grad;
  tensor.normal_(mean, std);
  return tensor;
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK_VALUE(tensor.dim() >= 2, "Fan in and fan out can not be computed for tensor with ",
                    "fewer than 2 dimensions (got ", tensor.dim(), "-D)");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double a = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -a, a);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return normal_(std::move(tensor), 0, std);
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  check_defined("kaiming_uniform_", tensor);
  const double std = calculate_gain(nonlinearity, a) /
                     std::sqrt(static_cast<double>(correct_fan(tensor, mode)));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  check_defined("kaiming_normal_", tensor);
  const double std = calculate_gain(nonlinearity, a) /
                     std::sqrt(static_cast<double>(correct_fan(tensor, mode)));
  return normal_(std::move(tensor), 0, std);
}

}  // namespace ember::nn::init
