#pragma once
/// Options of F::pad.

#include <cstdint>
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

}  // namespace ember::nn::functional
