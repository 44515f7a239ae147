#pragma once
/// nn::utils: gradient clipping and flattening parameters to a vector (libtorch's
/// torch::nn::utils).

#include <vector>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"

namespace ember::nn::utils {

/// Scales the gradients so that their joint norm_type-norm is at most max_norm; returns
/// the norm before clipping. error_if_nonfinite: throw when that norm is inf or nan.
EMBER_API double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                                 double norm_type = 2.0, bool error_if_nonfinite = false);
/// clip_grad_norm_ of one parameter.
EMBER_API double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                                 bool error_if_nonfinite = false);
/// Clamps every gradient to [-clip_value, clip_value].
EMBER_API void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
/// The parameters flattened and concatenated into one vector.
EMBER_API Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
/// Copies consecutive slices of vec into the parameters (the inverse of parameters_to_vector).
EMBER_API void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
