#pragma once
/// Options of max and average pooling (modules and F::max_pool2d / F::avg_pool2d).

#include <cstdint>
#include <optional>

#include "frontend/nn/arg.h"
#include "frontend/nn/expanding_array.h"

namespace ember::nn {

/// MaxPool2d(MaxPool2dOptions(2).stride(2).padding(0).dilation(1).ceil_mode(false));
/// stride defaults to kernel_size.
template <size_t D>
struct MaxPoolOptions {
  /*implicit*/ MaxPoolOptions(ExpandingArray<D> kernel_size)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /// The window's spatial size.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// The step between windows.
  EMBER_ARG(ExpandingArray<D>, stride);
  /// Implicit padding on both sides.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  /// The spacing of kernel elements.
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  /// Whether the output size rounds up.
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;

/// AvgPool2d(AvgPool2dOptions(2).stride(2).padding(0).count_include_pad(true)).
template <size_t D>
struct AvgPoolOptions {
  /*implicit*/ AvgPoolOptions(ExpandingArray<D> kernel_size)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /// The window's spatial size.
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  /// The step between windows.
  EMBER_ARG(ExpandingArray<D>, stride);
  /// Implicit padding on both sides.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  /// Whether the output size rounds up.
  EMBER_ARG(bool, ceil_mode) = false;
  /// Whether padding counts in the average's divisor.
  EMBER_ARG(bool, count_include_pad) = true;
  /// A divisor that replaces the window size.
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;

/// AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({7, 7})).
template <size_t D>
struct AdaptiveAvgPoolOptions {
  /*implicit*/ AdaptiveAvgPoolOptions(ExpandingArray<D> output_size) : output_size_(output_size) {}
  /// The output's spatial size.
  EMBER_ARG(ExpandingArray<D>, output_size);
};
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<2>;

namespace functional {
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
}  // namespace functional

}  // namespace ember::nn
