// The normalization composites: batch_norm, instance_norm, layer_norm, group_norm (each
// one call of its native_* kernel, aten/native/cpu/normalization.cpp) and rms_norm.
#include <limits>

#include "aten/TensorOperators.h"
#include "aten/autograd/GradMode.h"
#include "c10/util/DimVector.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/batch_norm.h"
#include "ember/generated/ops/native_batch_norm.h"
#include "ember/generated/ops/native_group_norm.h"
#include "ember/generated/ops/native_layer_norm.h"
#include "ember/generated/ops/rsqrt.h"

namespace ember::native {

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                  bool training, double momentum, double eps, bool /*cudnn_enabled*/) {
  return std::get<0>(ember::native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                              momentum, eps));
}

Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                     const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                     bool use_input_stats, double momentum, double eps, bool cudnn_enabled) {
  EMBER_CHECK(input.dim() >= 2, "instance_norm(): expected input with at least 2 dims (N, C, ...), but got "
              "input of shape ", input.sizes());
  const bool has_running = running_mean && running_mean->defined() && running_var && running_var->defined();
  EMBER_CHECK(use_input_stats || has_running, "instance_norm(): expected running_mean and running_var to be "
              "defined when use_input_stats is false");
  const int64_t N = input.sizes()[0], C = input.sizes()[1];
  // Each (sample, channel) is one channel of a batch norm over a batch of one.
  DimVector shape(input.sizes());
  shape[0] = 1;
  shape[1] = N * C;
  auto repeated = [&](const std::optional<Tensor>& t) -> std::optional<Tensor> {
    if (!t || !t->defined()) return std::nullopt;
    return t->repeat({N});
  };
  std::optional<Tensor> rm = repeated(running_mean), rv = repeated(running_var);
  Tensor out = ember::batch_norm(input.reshape(IntArrayRef(shape)), repeated(weight), repeated(bias), rm, rv,
                                 use_input_stats, momentum, eps, cudnn_enabled);
  if (has_running && use_input_stats) {
    // The per-sample running statistics of this call, averaged over the batch.
    autograd::NoGradGuard no_grad;
    running_mean->copy_(rm->view({N, C}).mean(IntArrayRef{0}));
    running_var->copy_(rv->view({N, C}).mean(IntArrayRef{0}));
  }
  return out.view(input.sizes());
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return std::get<0>(ember::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool /*cudnn_enabled*/) {
  EMBER_CHECK(input.dim() >= 2, "group_norm(): expected input with at least 2 dims (N, C, ...), but got input "
              "of shape ", input.sizes());
  const int64_t N = input.sizes()[0], C = input.sizes()[1];
  EMBER_CHECK(num_groups > 0 && C % num_groups == 0, "group_norm(): expected the number of channels (", C,
              ") to be divisible by num_groups (", num_groups, ")");
  int64_t HxW = 1;
  for (int64_t i = 2; i < input.dim(); ++i) HxW *= input.sizes()[i];
  return std::get<0>(ember::native_group_norm(input, weight, bias, N, C, HxW, num_groups, eps));
}

Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                std::optional<double> eps) {
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  bool ok = nd >= 1 && input.dim() >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) ok = input.sizes()[input.dim() - nd + i] == normalized_shape[i];
  EMBER_CHECK(ok, "rms_norm(): given normalized_shape=", normalized_shape, ", expected input with shape [*, ",
              normalized_shape, "], but got input of size ", input.sizes());
  EMBER_CHECK(is_floating_point(input.scalar_type()), "rms_norm(): expected a floating-point input, but got ",
              input.scalar_type());
  if (weight && weight->defined()) {
    EMBER_CHECK(weight->sizes() == normalized_shape, "rms_norm(): expected weight of shape ", normalized_shape,
                ", but got ", weight->sizes());
  }
  // eps defaults to the machine epsilon of input's dtype (torch.finfo(dtype).eps).
  const ScalarType dt = input.scalar_type();
  const double e = eps                         ? *eps
                   : dt == ScalarType::Double   ? std::numeric_limits<double>::epsilon()
                   : dt == ScalarType::Half     ? 0.0009765625
                   : dt == ScalarType::BFloat16 ? 0.0078125
                                                : std::numeric_limits<float>::epsilon();
  DimVector dims;
  for (int64_t i = input.dim() - nd; i < input.dim(); ++i) dims.push_back(i);
  // A contiguous result of input's dtype, as PyTorch's fused kernel gives.
  Tensor out = input * ember::rsqrt(input.pow(2).mean(IntArrayRef(dims), true) + e);
  if (weight && weight->defined()) out = (out * *weight).to(dt);
  return out.contiguous();
}

}  // namespace ember::native
