#pragma once
/// Activation modules: ReLU, ReLU6, LeakyReLU, ELU, SELU, GELU, SiLU, Mish, Sigmoid, Tanh,
/// Softplus, Hardtanh, Softmax, LogSoftmax.

#include <ostream>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/module.h"
#include "frontend/nn/options/activation.h"
#include "frontend/nn/pimpl.h"

namespace ember::nn {

// An activation module whose state is an options object (Opts = void: none).
#define EMBER_ACTIVATION_MODULE(Name, Opts)                                  \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> {                \
   public:                                                                   \
    explicit Name##Impl(const Opts& options = {}) : options(options) {}     \
    void reset() override {}                                                 \
    void pretty_print(std::ostream& stream) const override;                  \
    Tensor forward(Tensor input);                                            \
    Opts options;                                                            \
  };                                                                         \
  EMBER_MODULE(Name)
#define EMBER_PLAIN_ACTIVATION_MODULE(Name)                                  \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> {                \
   public:                                                                   \
    void reset() override {}                                                 \
    void pretty_print(std::ostream& stream) const override;                  \
    Tensor forward(const Tensor& input);                                     \
  };                                                                         \
  EMBER_MODULE(Name)

/// max(x, 0).
EMBER_ACTIVATION_MODULE(ReLU, ReLUOptions);
/// min(max(x, 0), 6).
EMBER_ACTIVATION_MODULE(ReLU6, ReLU6Options);
/// x, or negative_slope * x below 0.
EMBER_ACTIVATION_MODULE(LeakyReLU, LeakyReLUOptions);
/// x, or alpha * (exp(x) - 1) below 0.
EMBER_ACTIVATION_MODULE(ELU, ELUOptions);
/// The scaled ELU.
EMBER_ACTIVATION_MODULE(SELU, SELUOptions);
/// x * Phi(x).
EMBER_ACTIVATION_MODULE(GELU, GELUOptions);
/// log(1 + exp(beta x)) / beta.
EMBER_ACTIVATION_MODULE(Softplus, SoftplusOptions);
/// x clamped to [min_val, max_val].
EMBER_ACTIVATION_MODULE(Hardtanh, HardtanhOptions);
/// x * sigmoid(x).
EMBER_PLAIN_ACTIVATION_MODULE(SiLU);
/// x * tanh(softplus(x)).
EMBER_PLAIN_ACTIVATION_MODULE(Mish);
/// 1 / (1 + exp(-x)).
EMBER_PLAIN_ACTIVATION_MODULE(Sigmoid);
/// tanh(x).
EMBER_PLAIN_ACTIVATION_MODULE(Tanh);

#undef EMBER_ACTIVATION_MODULE
#undef EMBER_PLAIN_ACTIVATION_MODULE

/// softmax along options.dim.
class EMBER_API SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  explicit SoftmaxImpl(int64_t dim) : SoftmaxImpl(SoftmaxOptions(dim)) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

/// log_softmax along options.dim.
class EMBER_API LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : LogSoftmaxImpl(LogSoftmaxOptions(dim)) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LogSoftmaxOptions options;
};
EMBER_MODULE(LogSoftmax);

}  // namespace ember::nn
