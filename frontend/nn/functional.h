#pragma once
/// nn::functional (`namespace F = torch::nn::functional;`): libtorch's stateless forms of
/// the modules, each with an options object; they call the same operators Python's
/// ember.nn.functional does.

#include <optional>
#include <tuple>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/options/activation.h"
#include "frontend/nn/options/conv.h"
#include "frontend/nn/options/linear.h"
#include "frontend/nn/options/loss.h"
#include "frontend/nn/options/normalization.h"
#include "frontend/nn/options/pooling.h"
#include "frontend/nn/options/vision.h"

namespace ember::nn::functional {

// Activations.
/// max(x, 0).
EMBER_API Tensor relu(const Tensor& input, const ReLUFuncOptions& options = {});
/// min(max(x, 0), 6).
EMBER_API Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options = {});
/// x for x >= 0, negative_slope * x otherwise.
EMBER_API Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options = {});
/// x for x > 0, alpha * (exp(x) - 1) otherwise.
EMBER_API Tensor elu(const Tensor& input, const ELUFuncOptions& options = {});
/// The scaled ELU with PyTorch's constants.
EMBER_API Tensor selu(const Tensor& input, const SELUFuncOptions& options = {});
/// x * Phi(x) (exact or tanh-approximated).
EMBER_API Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
/// x * sigmoid(x).
EMBER_API Tensor silu(const Tensor& input);
/// x * tanh(softplus(x)).
EMBER_API Tensor mish(const Tensor& input);
/// 1 / (1 + exp(-x)).
EMBER_API Tensor sigmoid(const Tensor& input);
/// The hyperbolic tangent.
EMBER_API Tensor tanh(const Tensor& input);
/// log(1 + exp(beta * x)) / beta (linear above threshold).
EMBER_API Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
/// x clamped to [min_val, max_val].
EMBER_API Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options = {});
/// exp(x) / sum(exp(x)) along options.dim(); `F::softmax(x, 1)` also works.
EMBER_API Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
/// log(softmax(x)) along options.dim(), computed stably.
EMBER_API Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);

// Dropout.
/// Zeroes elements with probability p and scales the rest by 1 / (1 - p) when training.
EMBER_API Tensor dropout(const Tensor& input, const DropoutFuncOptions& options = {});
/// Zeroes whole channels of an (N, C, H, W) or (C, H, W) input.
EMBER_API Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options = {});

// Linear and convolution.
/// input @ weight^T + bias.
EMBER_API Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor());
/// 1-d convolution of (N, C, L) or (C, L) input with weight (O, C / groups, k).
EMBER_API Tensor conv1d(const Tensor& input, const Tensor& weight,
                        const Conv1dFuncOptions& options = {});
/// 2-d convolution of (N, C, H, W) or (C, H, W) input with weight (O, C / groups, kh, kw).
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight,
                        const Conv2dFuncOptions& options = {});
/// 3-d convolution.
EMBER_API Tensor conv3d(const Tensor& input, const Tensor& weight,
                        const Conv3dFuncOptions& options = {});
/// 1-d transposed convolution with weight (C, O / groups, k).
EMBER_API Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose1dFuncOptions& options = {});
/// 2-d transposed convolution with weight (C, O / groups, kh, kw).
EMBER_API Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose2dFuncOptions& options = {});
/// 3-d transposed convolution.
EMBER_API Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose3dFuncOptions& options = {});

// Pooling.
/// Maxima of sliding windows over the last dim.
EMBER_API Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
/// Maxima of sliding windows over the last two dims.
EMBER_API Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
/// max_pool2d and the flat indices of the maxima.
EMBER_API std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                             const MaxPool2dFuncOptions& options);
/// Means of sliding windows over the last dim.
EMBER_API Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
/// Means of sliding windows over the last two dims.
EMBER_API Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);

// Normalisation.
/// Normalises each channel by batch statistics (training, updating the running ones) or
/// by the running statistics.
EMBER_API Tensor batch_norm(const Tensor& input, const Tensor& running_mean,
                            const Tensor& running_var, const BatchNormFuncOptions& options = {});
/// Normalises over the trailing normalized_shape dims.
EMBER_API Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);
/// Normalises over groups of channels.
EMBER_API Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);

/// input divided by its p-norm over dim (at least eps).
EMBER_API Tensor normalize(const Tensor& input, const NormalizeFuncOptions& options = {});

// Embedding.
/// The rows of weight at the indices in input.
EMBER_API Tensor embedding(const Tensor& input, const Tensor& weight,
                           const EmbeddingFuncOptions& options = {});

// Losses.
/// The mean (or sum) of squared differences.
EMBER_API Tensor mse_loss(const Tensor& input, const Tensor& target,
                          const MSELossFuncOptions& options = {});
/// The mean (or sum) of absolute differences.
EMBER_API Tensor l1_loss(const Tensor& input, const Tensor& target,
                         const L1LossFuncOptions& options = {});
/// Quadratic below beta, linear above.
EMBER_API Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                                const SmoothL1LossFuncOptions& options = {});
/// The negative log likelihood of class targets, input being log-probabilities.
EMBER_API Tensor nll_loss(const Tensor& input, const Tensor& target,
                          const NLLLossFuncOptions& options = {});
/// nll_loss(log_softmax(input, 1), target), or against class probabilities.
EMBER_API Tensor cross_entropy(const Tensor& input, const Tensor& target,
                               const CrossEntropyFuncOptions& options = {});
/// The binary cross entropy of probabilities input against target.
EMBER_API Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                                      const BinaryCrossEntropyFuncOptions& options = {});
/// binary_cross_entropy(sigmoid(input), target), computed stably.
EMBER_API Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target,
    const BinaryCrossEntropyWithLogitsFuncOptions& options = {});

// Padding.
/// Pads (or, with negative amounts, crops) the last len(pad) / 2 dims.
EMBER_API Tensor pad(const Tensor& input, const PadFuncOptions& options);

// Interpolation.
/// Resizes the spatial dims of (N, C, *spatial) input: nearest or (bi/tri)linear.
EMBER_API Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

// Adaptive pooling.
/// Means over PyTorch's adaptive windows: output (*, output_size[0], output_size[1]).
EMBER_API Tensor adaptive_avg_pool2d(const Tensor& input, ExpandingArray<2> output_size);

}  // namespace ember::nn::functional

namespace ember {

// libtorch's top-level spellings of ops that Ember has only as composites (no YAML entry):
// a single-element size list expands to every spatial dim, as in libtorch.
/// 1-d convolution.
EMBER_API Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                        IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef dilation = {1},
                        int64_t groups = 1);
/// 2-d convolution.
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                        IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef dilation = {1},
                        int64_t groups = 1);
/// 3-d convolution.
EMBER_API Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                        IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef dilation = {1},
                        int64_t groups = 1);
/// 2-d transposed convolution.
EMBER_API Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                                  const std::optional<Tensor>& bias = {}, IntArrayRef stride = {1},
                                  IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                                  int64_t groups = 1, IntArrayRef dilation = {1});
/// Maxima of sliding windows over the last two dims (stride defaults to kernel_size).
EMBER_API Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = {0}, IntArrayRef dilation = {1},
                            bool ceil_mode = false);
/// Maxima of sliding windows over the last dim.
EMBER_API Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = {0}, IntArrayRef dilation = {1},
                            bool ceil_mode = false);
/// Means over adaptive windows of the last two dims.
EMBER_API Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size);

}  // namespace ember
