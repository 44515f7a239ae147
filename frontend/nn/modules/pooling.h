#pragma once
/// MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d.

#include <ostream>
#include <tuple>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/module.h"
#include "frontend/nn/options/pooling.h"
#include "frontend/nn/options/vision.h"
#include "frontend/nn/pimpl.h"

namespace ember::nn {

/// Maxima of sliding windows over the last dim.
class EMBER_API MaxPool1dImpl : public Cloneable<MaxPool1dImpl> {
 public:
  explicit MaxPool1dImpl(const MaxPool1dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  MaxPool1dOptions options;
};
EMBER_MODULE(MaxPool1d);

/// Maxima of sliding windows over the last two dims.
class EMBER_API MaxPool2dImpl : public Cloneable<MaxPool2dImpl> {
 public:
  explicit MaxPool2dImpl(const MaxPool2dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  /// The maxima and their flat indices in each plane.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  MaxPool2dOptions options;
};
EMBER_MODULE(MaxPool2d);

/// Means of sliding windows over the last dim.
class EMBER_API AvgPool1dImpl : public Cloneable<AvgPool1dImpl> {
 public:
  explicit AvgPool1dImpl(const AvgPool1dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  AvgPool1dOptions options;
};
EMBER_MODULE(AvgPool1d);

/// Means of sliding windows over the last two dims.
class EMBER_API AvgPool2dImpl : public Cloneable<AvgPool2dImpl> {
 public:
  explicit AvgPool2dImpl(const AvgPool2dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  AvgPool2dOptions options;
};
EMBER_MODULE(AvgPool2d);

/// Means over PyTorch's adaptive windows of the last two dims.
class EMBER_API AdaptiveAvgPool2dImpl : public Cloneable<AdaptiveAvgPool2dImpl> {
 public:
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  AdaptiveAvgPool2dOptions options;
};
EMBER_MODULE(AdaptiveAvgPool2d);

/// Resizes the spatial dims (F::interpolate with the module's options).
class EMBER_API UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  UpsampleOptions options;
};
EMBER_MODULE(Upsample);

}  // namespace ember::nn
