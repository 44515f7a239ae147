#pragma once
/// BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm and GroupNorm.

#include <ostream>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/module.h"
#include "frontend/nn/options/normalization.h"
#include "frontend/nn/pimpl.h"

namespace ember::nn {

/// The base of BatchNorm1d-3d: a per-channel weight and bias (affine) and the buffers
/// running_mean, running_var and num_batches_tracked (track_running_stats).
class EMBER_API BatchNormImplBase : public Module {
 public:
  BatchNormImplBase(const BatchNormOptions& options, int dims);
  /// (Re)creates the parameters and buffers.
  void reset();
  /// Zeroes the running mean and count and sets the running variance to one.
  void reset_running_stats();
  /// reset_running_stats(), weight = 1, bias = 0.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// Normalises by batch statistics in training (updating the running ones), by the
  /// running statistics in eval mode.
  Tensor forward(const Tensor& input);

  BatchNormOptions options;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
  Tensor num_batches_tracked;

 private:
  int dims_;  // 1, 2 or 3: which BatchNorm this is (its input checks and printed name)
};

/// Batch normalisation over (N, C) or (N, C, L) input.
class EMBER_API BatchNorm1dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm1dImpl(const BatchNorm1dOptions& options) : BatchNormImplBase(options, 1) {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return clone_as(*this, device);
  }

 protected:
  void clone_(Module& other, const std::optional<Device>& device) override {
    *this = clone_checked<BatchNorm1dImpl>(other, device);
  }
};
EMBER_MODULE(BatchNorm1d);

/// Batch normalisation over (N, C, H, W) input.
class EMBER_API BatchNorm2dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm2dImpl(const BatchNorm2dOptions& options) : BatchNormImplBase(options, 2) {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return clone_as(*this, device);
  }

 protected:
  void clone_(Module& other, const std::optional<Device>& device) override {
    *this = clone_checked<BatchNorm2dImpl>(other, device);
  }
};
EMBER_MODULE(BatchNorm2d);

/// Batch normalisation over (N, C, D, H, W) input.
class EMBER_API BatchNorm3dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm3dImpl(const BatchNorm3dOptions& options) : BatchNormImplBase(options, 3) {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return clone_as(*this, device);
  }

 protected:
  void clone_(Module& other, const std::optional<Device>& device) override {
    *this = clone_checked<BatchNorm3dImpl>(other, device);
  }
};
EMBER_MODULE(BatchNorm3d);

/// Normalises over the trailing normalized_shape dims, with an elementwise weight (ones)
/// and bias (zeros).
class EMBER_API LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape)  // NOLINT(google-explicit-constructor)
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(LayerNormOptions options);
  void reset() override;
  /// weight = 1, bias = 0.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  LayerNormOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(LayerNorm);

/// Normalises over groups of channels, with a per-channel weight and bias.
class EMBER_API GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  GroupNormOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(GroupNorm);

}  // namespace ember::nn
