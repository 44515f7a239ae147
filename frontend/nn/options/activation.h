#pragma once
/// Options of the activation modules and functions (LeakyReLU, GELU, ELU, Softmax, ...).

#include <cstdint>
#include <optional>
#include <string>

#include "c10/core/ScalarType.h"
#include "frontend/nn/arg.h"

namespace ember::nn {

/// ReLU(ReLUOptions().inplace(false)).
struct ReLUOptions {
  /*implicit*/ ReLUOptions(bool inplace = false) : inplace_(inplace) {}
  /// Whether to overwrite the input.
  EMBER_ARG(bool, inplace);
};
using ReLU6Options = ReLUOptions;
using SELUOptions = ReLUOptions;

/// LeakyReLU(LeakyReLUOptions().negative_slope(0.01)).
struct LeakyReLUOptions {
  /// The slope for negative inputs.
  EMBER_ARG(double, negative_slope) = 1e-2;
  /// Whether to overwrite the input.
  EMBER_ARG(bool, inplace) = false;
};

/// ELU(ELUOptions().alpha(1.0)).
struct ELUOptions {
  /// The scale of the negative part.
  EMBER_ARG(double, alpha) = 1.0;
  /// Whether to overwrite the input.
  EMBER_ARG(bool, inplace) = false;
};

/// GELU(GELUOptions().approximate("tanh")).
struct GELUOptions {
  /// "none" (exact, with erf) or "tanh".
  EMBER_ARG(std::string, approximate) = "none";
};

/// Softplus(SoftplusOptions().beta(1).threshold(20)).
struct SoftplusOptions {
  /// The sharpness (softplus) or the quadratic-to-linear switch point (smooth L1).
  EMBER_ARG(double, beta) = 1.0;
  /// Above threshold / beta the function is the identity.
  EMBER_ARG(double, threshold) = 20.0;
};

/// Hardtanh(HardtanhOptions().min_val(-1).max_val(1)).
struct HardtanhOptions {
  /// The lower clamp.
  EMBER_ARG(double, min_val) = -1.0;
  /// The upper clamp.
  EMBER_ARG(double, max_val) = 1.0;
  /// Whether to overwrite the input.
  EMBER_ARG(bool, inplace) = false;
};

/// Softmax(SoftmaxOptions(dim)).
struct SoftmaxOptions {
  /*implicit*/ SoftmaxOptions(int64_t dim) : dim_(dim) {}
  /// The dim the softmax runs along.
  EMBER_ARG(int64_t, dim);
};
using LogSoftmaxOptions = SoftmaxOptions;

namespace functional {

using ReLUFuncOptions = ReLUOptions;
using ReLU6FuncOptions = ReLUOptions;
using SELUFuncOptions = ReLUOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using ELUFuncOptions = ELUOptions;
using GELUFuncOptions = GELUOptions;
using SoftplusFuncOptions = SoftplusOptions;
using HardtanhFuncOptions = HardtanhOptions;

/// F::softmax(x, SoftmaxFuncOptions(1).dtype(kDouble)); an int converts (`F::softmax(x, 1)`).
struct SoftmaxFuncOptions {
  /*implicit*/ SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}
  /// The dim the softmax runs along.
  EMBER_ARG(int64_t, dim);
  /// The dtype the input is cast to first.
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
/// F::log_softmax(x, LogSoftmaxFuncOptions(1)).
using LogSoftmaxFuncOptions = SoftmaxFuncOptions;

}  // namespace functional
}  // namespace ember::nn
