// The normalisation modules (frontend/nn/modules/normalization.h).

#include <ios>

#include "aten/autograd/GradMode.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/ones.h"
#include "ember/generated/ops/zeros.h"
#include "frontend/nn/functional.h"
#include "frontend/nn/init.h"
#include "frontend/nn/modules/normalization.h"

namespace ember::nn {

namespace F = functional;
using detail::kModulePrefix;

BatchNormImplBase::BatchNormImplBase(const BatchNormOptions& options_, int dims)
    : options(options_), dims_(dims) {
  reset();
}

void BatchNormImplBase::reset() {
  const int64_t c = options.num_features();
  EMBER_CHECK_VALUE(c > 0, "BatchNorm", dims_, "d: expected num_features to be positive, but got ",
                    c);
  EMBER_CHECK_VALUE(!options.momentum() || (*options.momentum() >= 0 && *options.momentum() <= 1),
                    "BatchNorm", dims_, "d: expected momentum in [0, 1], but got ",
                    options.momentum().value_or(0));
  EMBER_CHECK_VALUE(options.eps() >= 0, "BatchNorm", dims_,
                    "d: expected a non-negative eps, but got ", options.eps());
  if (options.affine()) {
    weight = register_parameter("weight", ::ember::empty({c}));
    bias = register_parameter("bias", ::ember::empty({c}));
  } else {
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", ::ember::zeros({c}));
    running_var = register_buffer("running_var", ::ember::ones({c}));
    num_batches_tracked = register_buffer(
        "num_batches_tracked", ::ember::zeros({}, TensorOptions().dtype(ScalarType::Long)));
  } else {
    running_mean = register_buffer("running_mean", Tensor());
    running_var = register_buffer("running_var", Tensor());
    num_batches_tracked = register_buffer("num_batches_tracked", Tensor());
  }
  reset_parameters();
}

void BatchNormImplBase::reset_running_stats() {
  if (!options.track_running_stats()) return;
  autograd::NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

void BatchNormImplBase::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

void BatchNormImplBase::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << kModulePrefix << "BatchNorm" << dims_ << "d("
         << options.num_features() << ", eps=" << options.eps() << ", momentum=";
  if (options.momentum()) {
    stream << *options.momentum();
  } else {
    stream << "None";
  }
  stream << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

Tensor BatchNormImplBase::forward(const Tensor& input) {
  if (dims_ == 1) {
    EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3,
                      "BatchNorm1d: expected 2D or 3D input (got ", input.dim(), "D input)");
  } else {
    EMBER_CHECK_VALUE(input.dim() == dims_ + 2, "BatchNorm", dims_, "d: expected ", dims_ + 2,
                      "D input (got ", input.dim(), "D input)");
  }
  EMBER_CHECK(input.size(1) == options.num_features(), "BatchNorm", dims_,
              "d: expected input with ", options.num_features(),
              " channels (num_features) in dim 1, but got input of size ", input.sizes());
  double factor = options.momentum().value_or(0.0);
  if (is_training() && options.track_running_stats()) {
    {
      autograd::NoGradGuard no_grad;
      num_batches_tracked.add_(1);
    }
    // momentum=None: a cumulative moving average.
    if (!options.momentum()) factor = 1.0 / num_batches_tracked.item<double>();
  }
  const bool use_batch_stats = is_training() || !options.track_running_stats();
  const bool pass_stats = !is_training() || options.track_running_stats();
  return F::batch_norm(input, pass_stats ? running_mean : Tensor(),
                       pass_stats ? running_var : Tensor(),
                       F::BatchNormFuncOptions()
                           .weight(weight)
                           .bias(bias)
                           .training(use_batch_stats)
                           .momentum(factor)
                           .eps(options.eps()));
}

LayerNormImpl::LayerNormImpl(LayerNormOptions options_) : options(std::move(options_)) { reset(); }

void LayerNormImpl::reset() {
  for (int64_t n : options.normalized_shape()) {
    EMBER_CHECK_VALUE(n >= 0, "LayerNorm: expected a non-negative normalized_shape, but got ",
                      ArrayRef<int64_t>(options.normalized_shape()));
  }
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ::ember::empty(options.normalized_shape()));
    bias = options.bias() ? register_parameter("bias", ::ember::empty(options.normalized_shape()))
                          : register_parameter("bias", Tensor(), /*requires_grad=*/false);
  } else {
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << kModulePrefix << "LayerNorm("
         << ArrayRef<int64_t>(options.normalized_shape()) << ", eps=" << options.eps()
         << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return F::layer_norm(input, F::LayerNormFuncOptions(options.normalized_shape())
                                  .weight(weight)
                                  .bias(bias)
                                  .eps(options.eps()));
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) { reset(); }

void GroupNormImpl::reset() {
  EMBER_CHECK_VALUE(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
                    "GroupNorm: num_channels (", options.num_channels(),
                    ") must be divisible by num_groups (", options.num_groups(), ")");
  if (options.affine()) {
    weight = register_parameter("weight", ::ember::empty({options.num_channels()}));
    bias = register_parameter("bias", ::ember::empty({options.num_channels()}));
  } else {
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (weight.defined()) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << kModulePrefix << "GroupNorm(" << options.num_groups() << ", "
         << options.num_channels() << ", eps=" << options.eps()
         << ", affine=" << options.affine() << ")";
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return F::group_norm(input, F::GroupNormFuncOptions(options.num_groups())
                                  .weight(weight)
                                  .bias(bias)
                                  .eps(options.eps()));
}

}  // namespace ember::nn
