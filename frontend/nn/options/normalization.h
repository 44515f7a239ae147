#pragma once
/// Options of BatchNorm1d-3d, LayerNorm and GroupNorm, and of their F:: forms.

#include <cstdint>
#include <optional>
#include <vector>

#include "c10/core/Tensor.h"
#include "frontend/nn/arg.h"

namespace ember::nn {

/// BatchNorm2d(BatchNormOptions(features).eps(1e-5).momentum(0.1).affine(true)).
struct BatchNormOptions {
  /*implicit*/ BatchNormOptions(int64_t num_features) : num_features_(num_features) {}
  /// C of an (N, C, ...) input.
  EMBER_ARG(int64_t, num_features);
  /// Added to the variance for stability.
  EMBER_ARG(double, eps) = 1e-5;
  /// The running statistics' update factor; nullopt: a cumulative average.
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  /// Whether to learn a per-channel weight and bias.
  EMBER_ARG(bool, affine) = true;
  /// Whether to keep running statistics (used in eval mode).
  EMBER_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

/// LayerNorm(LayerNormOptions({n}).eps(1e-5).elementwise_affine(true)).
struct LayerNormOptions {
  /*implicit*/ LayerNormOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  /// The trailing shape normalised over.
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  /// Added to the denominator for stability.
  EMBER_ARG(double, eps) = 1e-5;
  /// Whether to learn an elementwise weight and bias.
  EMBER_ARG(bool, elementwise_affine) = true;
  /// Whether the affine part has a bias.
  EMBER_ARG(bool, bias) = true;
};

/// GroupNorm(GroupNormOptions(groups, channels)).
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  /// The number of channel groups.
  EMBER_ARG(int64_t, num_groups);
  /// C of an (N, C, ...) input.
  EMBER_ARG(int64_t, num_channels);
  /// Added to the denominator for stability.
  EMBER_ARG(double, eps) = 1e-5;
  /// Whether to learn a per-channel weight and bias.
  EMBER_ARG(bool, affine) = true;
};

namespace functional {

/// F::batch_norm(x, mean, var, BatchNormFuncOptions().weight(w).training(true)).
struct BatchNormFuncOptions {
  /// An optional per-element or per-class weight.
  EMBER_ARG(Tensor, weight) = Tensor();
  /// An optional bias.
  EMBER_ARG(Tensor, bias) = Tensor();
  /// Whether to use (and update) batch statistics rather than the running ones.
  EMBER_ARG(bool, training) = false;
  /// The running statistics' update factor; nullopt: a cumulative average.
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  /// Added to the denominator for stability.
  EMBER_ARG(double, eps) = 1e-5;
};

/// F::layer_norm(x, LayerNormFuncOptions({n}).weight(w).bias(b)).
struct LayerNormFuncOptions {
  /*implicit*/ LayerNormFuncOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  /// The trailing shape normalised over.
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  /// An optional per-element or per-class weight.
  EMBER_ARG(Tensor, weight) = Tensor();
  /// An optional bias.
  EMBER_ARG(Tensor, bias) = Tensor();
  /// Added to the denominator for stability.
  EMBER_ARG(double, eps) = 1e-5;
};

/// F::group_norm(x, GroupNormFuncOptions(groups)).
struct GroupNormFuncOptions {
  /*implicit*/ GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}
  /// The number of channel groups.
  EMBER_ARG(int64_t, num_groups);
  /// An optional per-element or per-class weight.
  EMBER_ARG(Tensor, weight) = Tensor();
  /// An optional bias.
  EMBER_ARG(Tensor, bias) = Tensor();
  /// Added to the denominator for stability.
  EMBER_ARG(double, eps) = 1e-5;
};

}  // namespace functional
}  // namespace ember::nn
