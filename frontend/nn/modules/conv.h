#pragma once
/// Conv1d, Conv2d, Conv3d and ConvTranspose1d, ConvTranspose2d, ConvTranspose3d.

#include <ostream>
#include <variant>
#include <vector>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/module.h"
#include "frontend/nn/options/conv.h"
#include "frontend/nn/pimpl.h"

namespace ember::nn {

namespace detail {
// What every convolution shares, out of line (frontend/nn_conv.cpp): D is the number of
// spatial dims, kernel/stride/... the options' values.
struct ConvSpec {
  int64_t dims;
  bool transposed;
  int64_t in_channels, out_channels, groups;
  bool bias;
  std::vector<int64_t> kernel_size;
};
/// Checks the options, registers weight and bias on module and initialises them.
EMBER_API void conv_reset(Module& module, const ConvSpec& spec, bool same_padding,
                          bool strided, Tensor& weight, Tensor& bias);
/// weight ~ kaiming_uniform(a = sqrt(5)), bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
EMBER_API void conv_reset_parameters(Tensor& weight, Tensor& bias);
/// What a convolution's pretty_print writes (libtorch's format); padding is "" for
/// kValid / kSame, which padding_name names.
EMBER_API void conv_print(std::ostream& stream, const char* kind, const ConvSpec& spec,
                          const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                          const char* padding_name, const std::vector<int64_t>& dilation,
                          const std::vector<int64_t>& output_padding,
                          const char* padding_mode);
}  // namespace detail

/// The base of Conv1d-3d: a weight (out, in / groups, *kernel_size) and a bias (out).
template <size_t D, class Derived>
class ConvNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvNdImpl(ConvOptions<D> options_) : options(std::move(options_)) { reset(); }
  void reset() override {
    bool strided = false;
    for (size_t i = 0; i < D; ++i) strided = strided || options.stride()[i] != 1;
    detail::conv_reset(*this, spec(), std::holds_alternative<enumtype::kSame>(options.padding()),
                       strided, weight, bias);
  }
  /// Re-draws the weight and bias.
  void reset_parameters() { detail::conv_reset_parameters(weight, bias); }
  void pretty_print(std::ostream& stream) const override {
    const auto* sizes = std::get_if<ExpandingArray<D>>(&options.padding());
    const char* padding_name =
        sizes ? "" : (std::holds_alternative<enumtype::kSame>(options.padding()) ? "same" : "valid");
    detail::conv_print(stream, "Conv", spec(), options.stride().vec(),
                       sizes ? sizes->vec() : std::vector<int64_t>(), padding_name,
                       options.dilation().vec(), std::vector<int64_t>(D, 0),
                       std::visit([](const auto& tag) { return tag.str(); }, options.padding_mode()));
  }

  ConvOptions<D> options;
  Tensor weight;
  Tensor bias;

 protected:
  detail::ConvSpec spec() const {
    return {static_cast<int64_t>(D), options.transposed(), options.in_channels(),
            options.out_channels(), options.groups(), options.bias(),
            options.kernel_size().vec()};
  }
};

#define EMBER_CONV_MODULE(D)                                                                  \
  class EMBER_API Conv##D##dImpl : public ConvNdImpl<D, Conv##D##dImpl> {                      \
   public:                                                                                    \
    Conv##D##dImpl(int64_t input_channels, int64_t output_channels,                           \
                   ExpandingArray<D> kernel_size)                                             \
        : Conv##D##dImpl(Conv##D##dOptions(input_channels, output_channels, kernel_size)) {}  \
    explicit Conv##D##dImpl(Conv##D##dOptions options_);                                      \
    /** (N, C_in, *spatial) or (C_in, *spatial) -> the convolution. */                        \
    Tensor forward(const Tensor& input);                                                      \
  };                                                                                          \
  EMBER_MODULE(Conv##D##d)

/// 1-d convolution over (N, C, L) input.
EMBER_CONV_MODULE(1);
/// 2-d convolution over (N, C, H, W) input.
EMBER_CONV_MODULE(2);
/// 3-d convolution over (N, C, D, H, W) input.
EMBER_CONV_MODULE(3);
#undef EMBER_CONV_MODULE

/// The base of ConvTranspose1d-3d: a weight (in, out / groups, *kernel_size).
template <size_t D, class Derived>
class ConvTransposeNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvTransposeNdImpl(ConvTransposeOptions<D> options_) : options(std::move(options_)) {
    reset();
  }
  void reset() override {
    const detail::ConvSpec spec{static_cast<int64_t>(D), true, options.in_channels(),
                                options.out_channels(), options.groups(), options.bias(),
                                options.kernel_size().vec()};
    detail::conv_reset(*this, spec, false, false, weight, bias);
  }
  /// Re-draws the weight and bias.
  void reset_parameters() { detail::conv_reset_parameters(weight, bias); }
  void pretty_print(std::ostream& stream) const override {
    const detail::ConvSpec spec{static_cast<int64_t>(D), true, options.in_channels(),
                                options.out_channels(), options.groups(), options.bias(),
                                options.kernel_size().vec()};
    detail::conv_print(stream, "ConvTranspose", spec, options.stride().vec(),
                       options.padding().vec(), "", options.dilation().vec(),
                       options.output_padding().vec(),
                       std::visit([](const auto& tag) { return tag.str(); }, options.padding_mode()));
  }

  ConvTransposeOptions<D> options;
  Tensor weight;
  Tensor bias;
};

#define EMBER_CONV_TRANSPOSE_MODULE(D)                                                        \
  class EMBER_API ConvTranspose##D##dImpl                                                     \
      : public ConvTransposeNdImpl<D, ConvTranspose##D##dImpl> {                              \
   public:                                                                                    \
    ConvTranspose##D##dImpl(int64_t input_channels, int64_t output_channels,                  \
                            ExpandingArray<D> kernel_size)                                    \
        : ConvTranspose##D##dImpl(                                                            \
              ConvTranspose##D##dOptions(input_channels, output_channels, kernel_size)) {}    \
    explicit ConvTranspose##D##dImpl(ConvTranspose##D##dOptions options_);                    \
    /** The transposed convolution (the gradient of Conv##D##d with respect to its input). */ \
    Tensor forward(const Tensor& input);                                                      \
  };                                                                                          \
  EMBER_MODULE(ConvTranspose##D##d)

/// 1-d transposed convolution.
EMBER_CONV_TRANSPOSE_MODULE(1);
/// 2-d transposed convolution.
EMBER_CONV_TRANSPOSE_MODULE(2);
/// 3-d transposed convolution.
EMBER_CONV_TRANSPOSE_MODULE(3);
#undef EMBER_CONV_TRANSPOSE_MODULE

}  // namespace ember::nn
