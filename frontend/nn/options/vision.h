#pragma once
/// Options of F::pad, F::interpolate and Upsample.

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "frontend/nn/arg.h"
#include "frontend/nn/enum.h"

namespace ember::nn::functional {

/// F::pad(x, PadFuncOptions({1, 1, 2, 2}).mode(kConstant).value(0)).
struct PadFuncOptions {
  using mode_t = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate,
                              enumtype::kCircular>;
  /*implicit*/ PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}
  /// (left of the last dim, right of the last dim, left of the one before, ...).
  EMBER_ARG(std::vector<int64_t>, pad);
  /// kConstant, kReflect, kReplicate or kCircular.
  EMBER_ARG(mode_t, mode) = enumtype::kConstant{};
  /// The fill of constant padding.
  EMBER_ARG(double, value) = 0;
};

/// F::interpolate(x, InterpolateFuncOptions().size({8, 8}).mode(kBilinear)
/// .align_corners(false)); give size or scale_factor.
struct InterpolateFuncOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear,
                              enumtype::kBicubic, enumtype::kTrilinear, enumtype::kArea,
                              enumtype::kNearestExact>;
  /// The output's spatial size.
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  /// The factor each spatial dim is scaled by.
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  /// kNearest, kLinear, kBilinear or kTrilinear (kBicubic, kArea, kNearestExact: not yet).
  EMBER_ARG(mode_t, mode) = enumtype::kNearest{};
  /// Whether the corner pixels of input and output align (linear modes only).
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  /// Whether to recompute the scale from the output size (accepted; sizes are always exact).
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
};

}  // namespace ember::nn::functional

namespace ember::nn {

/// Upsample(UpsampleOptions().scale_factor({2, 2}).mode(kBilinear)).
struct UpsampleOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear,
                              enumtype::kBicubic, enumtype::kTrilinear>;
  /// The output's spatial size.
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  /// The factor each spatial dim is scaled by.
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  /// The interpolation.
  EMBER_ARG(mode_t, mode) = enumtype::kNearest{};
  /// Whether the corner pixels of input and output align (linear modes only).
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

}  // namespace ember::nn
