#pragma once
/// Options of the convolutions (Conv1d-3d, ConvTranspose1d-3d) and of F::conv*d.

#include <cstdint>
#include <variant>

#include "c10/core/Tensor.h"
#include "frontend/nn/arg.h"
#include "frontend/nn/enum.h"
#include "frontend/nn/expanding_array.h"

namespace ember::nn {

namespace detail {
/// How a convolution pads its input: a size per spatial dim, kValid or kSame.
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
/// How padded values are chosen: kZeros, kReflect, kReplicate or kCircular.
using conv_padding_mode_t =
    std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;
}  // namespace detail

/// The options every convolution module shares (libtorch's ConvOptions<D>).
template <size_t D>
struct ConvOptions {
  using padding_t = detail::conv_padding_t<D>;
  using padding_mode_t = detail::conv_padding_mode_t;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  /// Channels of the input.
  EMBER_ARG(int64_t, in_channels);
  /// Channels of the output.
  EMBER_ARG(int64_t, out_channels);
  /// The kernel's spatial size.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// The step between windows.
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  /// Implicit padding on both sides (or kValid / kSame).
  EMBER_ARG(padding_t, padding) = 0;
  /// The spacing of kernel elements.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  /// Whether the convolution is transposed.
  EMBER_ARG(bool, transposed) = false;
  /// Extra size added to one side of a transposed convolution's output.
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  /// Blocked connections from input to output channels.
  EMBER_ARG(int64_t, groups) = 1;
  /// Whether to learn an additive bias.
  EMBER_ARG(bool, bias) = true;
  /// How the padding is filled.
  EMBER_ARG(padding_mode_t, padding_mode) = enumtype::kZeros{};
};

/// Conv1d/2d/3d's options (no output_padding).
template <size_t D>
using ConvNdOptions = ConvOptions<D>;
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

/// ConvTranspose1d/2d/3d's options.
template <size_t D>
struct ConvTransposeOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  /// Channels of the input.
  EMBER_ARG(int64_t, in_channels);
  /// Channels of the output.
  EMBER_ARG(int64_t, out_channels);
  /// The window's spatial size.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// The step between windows.
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  /// Implicit padding on both sides.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  /// Extra size added to one side of the output.
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  /// Blocked connections from input to output channels.
  EMBER_ARG(int64_t, groups) = 1;
  /// Whether to learn an additive bias.
  EMBER_ARG(bool, bias) = true;
  /// The spacing of kernel elements.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  /// Only kZeros is supported by transposed convolutions.
  EMBER_ARG(padding_mode_t, padding_mode) = enumtype::kZeros{};
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace functional {

/// F::conv2d(x, w, Conv2dFuncOptions().stride(2).padding(1)).
template <size_t D>
struct ConvFuncOptions {
  using padding_t = detail::conv_padding_t<D>;
  /// An optional bias of shape (out_channels).
  EMBER_ARG(Tensor, bias) = Tensor();
  /// The step between windows.
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  /// Implicit padding on both sides.
  EMBER_ARG(padding_t, padding) = 0;
  /// The spacing of kernel elements.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  /// Blocked connections from input to output channels.
  EMBER_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

/// F::conv_transpose2d(x, w, ConvTranspose2dFuncOptions().stride(2)).
template <size_t D>
struct ConvTransposeFuncOptions {
  /// An optional bias.
  EMBER_ARG(Tensor, bias) = Tensor();
  /// The step between windows.
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  /// Implicit padding on both sides.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  /// Extra size added to one side of the output.
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  /// Blocked connections from input to output channels.
  EMBER_ARG(int64_t, groups) = 1;
  /// The spacing of kernel elements.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

}  // namespace functional
}  // namespace ember::nn
