#pragma once
/// nn::init: libtorch's in-place parameter initialisers (run under NoGradGuard, return
/// the tensor), with PyTorch's formulas.

#include <cstdint>
#include <tuple>
#include <variant>

#include "c10/core/Scalar.h"
#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/enum.h"

namespace ember::nn::init {

/// The nonlinearities calculate_gain knows.
using NonlinearityType =
    std::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D,
                 enumtype::kConvTranspose1D, enumtype::kConvTranspose2D,
                 enumtype::kConvTranspose3D, enumtype::kSigmoid, enumtype::kTanh,
                 enumtype::kReLU, enumtype::kLeakyReLU, enumtype::kSELU>;
/// Whether kaiming_* scales by the fan in or the fan out.
using FanModeType = std::variant<enumtype::kFanIn, enumtype::kFanOut>;

/// The recommended gain for a nonlinearity (param: leaky_relu's negative slope).
EMBER_API double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);
/// Fills tensor with value.
EMBER_API Tensor constant_(Tensor tensor, Scalar value);
/// Fills tensor with ones.
EMBER_API Tensor ones_(Tensor tensor);
/// Fills tensor with zeros.
EMBER_API Tensor zeros_(Tensor tensor);
/// Fills a 2-D tensor with the identity.
EMBER_API Tensor eye_(Tensor matrix);
/// Fills tensor from U(low, high).
EMBER_API Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
/// Fills tensor from N(mean, std^2).
EMBER_API Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
/// Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)).
EMBER_API Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
/// Glorot normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).
EMBER_API Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
/// He uniform: U(-b, b) with b = gain * sqrt(3 / fan).
EMBER_API Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanModeType mode = kFanIn,
                                  NonlinearityType nonlinearity = kLeakyReLU);
/// He normal: N(0, std^2) with std = gain / sqrt(fan).
EMBER_API Tensor kaiming_normal_(Tensor tensor, double a = 0, FanModeType mode = kFanIn,
                                 NonlinearityType nonlinearity = kLeakyReLU);
/// (fan_in, fan_out) of a weight with at least 2 dims.
EMBER_API std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

}  // namespace ember::nn::init
