// nn::functional: libtorch's functional forms over the generated operators (the kernels
// Python's ember.nn.functional calls).

#include "frontend/nn/functional.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "aten/TensorFactories.h"
#include "aten/TensorOperators.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/avg_pool2d.h"
#include "ember/generated/ops/batch_norm.h"
#include "ember/generated/ops/binary_cross_entropy.h"
#include "ember/generated/ops/binary_cross_entropy_with_logits.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/clamp.h"
#include "ember/generated/ops/convolution.h"
#include "ember/generated/ops/cross_entropy_loss.h"
#include "ember/generated/ops/dropout.h"
#include "ember/generated/ops/dropout_.h"
#include "ember/generated/ops/elu.h"
#include "ember/generated/ops/elu_.h"
#include "ember/generated/ops/embedding.h"
#include "ember/generated/ops/feature_dropout.h"
#include "ember/generated/ops/feature_dropout_.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/gelu.h"
#include "ember/generated/ops/group_norm.h"
#include "ember/generated/ops/hardtanh.h"
#include "ember/generated/ops/l1_loss.h"
#include "ember/generated/ops/layer_norm.h"
#include "ember/generated/ops/leaky_relu.h"
#include "ember/generated/ops/leaky_relu_.h"
#include "ember/generated/ops/linalg_vector_norm.h"
#include "ember/generated/ops/linear.h"
#include "ember/generated/ops/log_softmax.h"
#include "ember/generated/ops/max_pool2d_with_indices.h"
#include "ember/generated/ops/mish.h"
#include "ember/generated/ops/mse_loss.h"
#include "ember/generated/ops/nll_loss.h"
#include "ember/generated/ops/relu.h"
#include "ember/generated/ops/relu6.h"
#include "ember/generated/ops/relu6_.h"
#include "ember/generated/ops/relu_.h"
#include "ember/generated/ops/selu.h"
#include "ember/generated/ops/selu_.h"
#include "ember/generated/ops/sigmoid.h"
#include "ember/generated/ops/silu.h"
#include "ember/generated/ops/smooth_l1_loss.h"
#include "ember/generated/ops/softmax.h"
#include "ember/generated/ops/softplus.h"
#include "ember/generated/ops/tanh.h"

namespace ember::nn::functional {

namespace {

std::optional<Tensor> opt(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

void check_dropout_p(const char* name, double p) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, name, "(): expected the dropout probability p to be ",
                    "between 0 and 1, but got ", p);
}

// A (N, C, *spatial) view of a batched or unbatched input, and whether it was unbatched.
template <size_t D>
std::pair<Tensor, bool> batched(const char* name, const Tensor& input) {
  if (input.dim() == static_cast<int64_t>(D) + 1) return {input.unsqueeze(0), true};
  EMBER_CHECK_VALUE(input.dim() == static_cast<int64_t>(D) + 2, name, "(): expected ", D + 1,
                    "D (unbatched) or ", D + 2, "D (batched) input, but got input of size: ",
                    input.sizes());
  return {input, false};
}

template <size_t D>
Tensor conv_nd(const char* name, const Tensor& input, const Tensor& weight,
               const ConvFuncOptions<D>& options) {
  auto [x, unbatched] = batched<D>(name, input);
  EMBER_CHECK_VALUE(weight.dim() == static_cast<int64_t>(D) + 2, name, "(): expected a ", D + 2,
                    "-D weight, but got weight of size ", weight.sizes());
  std::vector<int64_t> padding(D, 0);
  if (const auto* sizes = std::get_if<ExpandingArray<D>>(&options.padding())) {
    padding = sizes->vec();
  } else if (std::holds_alternative<enumtype::kSame>(options.padding())) {
    for (size_t i = 0; i < D; ++i) {
      EMBER_CHECK_VALUE(options.stride()[i] == 1, name,
                        "(): padding='same' is not supported for strided convolutions");
    }
    // The odd pixel of padding goes after the input, as in PyTorch.
    std::vector<int64_t> extra;
    for (size_t i = D; i-- > 0;) {
      const int64_t total = options.dilation()[i] * (weight.size(static_cast<int64_t>(i) + 2) - 1);
      padding[i] = total / 2;
      extra.push_back(0);
      extra.push_back(total % 2);
    }
    bool any = false;
    for (int64_t e : extra) any = any || e != 0;
    if (any) x = pad(x, PadFuncOptions(extra));
  }
  const std::vector<int64_t> no_output_padding(D, 0);
  Tensor out = ::ember::convolution(x, weight, opt(options.bias()), options.stride(), padding,
                                    options.dilation(), false, no_output_padding,
                                    options.groups());
  return unbatched ? out.squeeze(0) : out;
}

template <size_t D>
Tensor conv_transpose_nd(const char* name, const Tensor& input, const Tensor& weight,
                         const ConvTransposeFuncOptions<D>& options) {
  auto [x, unbatched] = batched<D>(name, input);
  Tensor out = ::ember::convolution(x, weight, opt(options.bias()), options.stride(),
                                    options.padding(), options.dilation(), true,
                                    options.output_padding(), options.groups());
  return unbatched ? out.squeeze(0) : out;
}

// The indices of a dim of size n padded by (before, after) in a non-constant mode.
Tensor pad_indices(int64_t n, int64_t before, int64_t after, const PadFuncOptions::mode_t& mode) {
  std::vector<int64_t> idx;
  for (int64_t i = -before; i < n + after; ++i) {
    int64_t j = i;
    if (std::holds_alternative<enumtype::kReplicate>(mode)) {
      j = i < 0 ? 0 : (i >= n ? n - 1 : i);
    } else if (std::holds_alternative<enumtype::kReflect>(mode)) {
      j = i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i);
    } else {
      j = ((i % n) + n) % n;
    }
    idx.push_back(j);
  }
  return ::ember::tensor(idx);
}

}  // namespace

Tensor relu(const Tensor& input, const ReLUFuncOptions& options) {
  return options.inplace() ? ::ember::relu_(input) : ::ember::relu(input);
}
Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options) {
  return options.inplace() ? ::ember::relu6_(input) : ::ember::relu6(input);
}
Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options) {
  return options.inplace() ? ::ember::leaky_relu_(input, options.negative_slope())
                           : ::ember::leaky_relu(input, options.negative_slope());
}
Tensor elu(const Tensor& input, const ELUFuncOptions& options) {
  return options.inplace() ? ::ember::elu_(input, options.alpha())
                           : ::ember::elu(input, options.alpha());
}
Tensor selu(const Tensor& input, const SELUFuncOptions& options) {
  return options.inplace() ? ::ember::selu_(input) : ::ember::selu(input);
}
Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  EMBER_CHECK_VALUE(options.approximate() == "none" || options.approximate() == "tanh",
                    "gelu(): expected approximate to be 'none' or 'tanh', but got '",
                    options.approximate(), "'");
  return ::ember::gelu(input, options.approximate());
}
Tensor silu(const Tensor& input) { return ::ember::silu(input); }
Tensor mish(const Tensor& input) { return ::ember::mish(input); }
Tensor sigmoid(const Tensor& input) { return ::ember::sigmoid(input); }
Tensor tanh(const Tensor& input) { return ::ember::tanh(input); }
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  return ::ember::softplus(input, options.beta(), options.threshold());
}
Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options) {
  EMBER_CHECK_VALUE(options.max_val() > options.min_val(),
                    "hardtanh(): expected max_val to be greater than min_val, but got min_val=",
                    options.min_val(), " and max_val=", options.max_val());
  return ::ember::hardtanh(input, options.min_val(), options.max_val());
}
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ::ember::softmax(input, options.dim(), options.dtype());
}
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ::ember::log_softmax(input, options.dim(), options.dtype());
}

Tensor dropout(const Tensor& input, const DropoutFuncOptions& options) {
  check_dropout_p("dropout", options.p());
  return options.inplace() ? ::ember::dropout_(input, options.p(), options.training())
                           : ::ember::dropout(input, options.p(), options.training());
}
Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options) {
  check_dropout_p("dropout2d", options.p());
  EMBER_CHECK_VALUE(input.dim() == 3 || input.dim() == 4,
                    "dropout2d(): expected a 3-D (unbatched) or 4-D (batched) input, but got ",
                    input.dim(), "-D");
  // An unbatched (C, H, W) input drops whole channels too: give it a batch of one.
  const bool unbatched = input.dim() == 3;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  Tensor out = options.inplace() ? ::ember::feature_dropout_(x, options.p(), options.training())
                                 : ::ember::feature_dropout(x, options.p(), options.training());
  return unbatched ? out.squeeze(0) : out;
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return ::ember::linear(input, weight, opt(bias));
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  return conv_nd<1>("conv1d", input, weight, options);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return conv_nd<2>("conv2d", input, weight, options);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options) {
  return conv_nd<3>("conv3d", input, weight, options);
}
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options) {
  return conv_transpose_nd<1>("conv_transpose1d", input, weight, options);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options) {
  return conv_transpose_nd<2>("conv_transpose2d", input, weight, options);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose3dFuncOptions& options) {
  return conv_transpose_nd<3>("conv_transpose3d", input, weight, options);
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3,
                    "max_pool1d(): expected a 2-D or 3-D input, but got ", input.dim(), "-D");
  // A 2-d pool of height 1, as Python's max_pool1d.
  auto [out, idx] = ::ember::max_pool2d_with_indices(
      input.unsqueeze(-2), {1, options.kernel_size()[0]}, {1, options.stride()[0]},
      {0, options.padding()[0]}, {1, options.dilation()[0]}, options.ceil_mode());
  return out.squeeze(-2);
}
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return std::get<0>(max_pool2d_with_indices(input, options));
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& options) {
  return ::ember::max_pool2d_with_indices(input, options.kernel_size(), options.stride(),
                                          options.padding(), options.dilation(),
                                          options.ceil_mode());
}
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options) {
  EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3,
                    "avg_pool1d(): expected a 2-D or 3-D input, but got ", input.dim(), "-D");
  return ::ember::avg_pool2d(input.unsqueeze(-2), {1, options.kernel_size()[0]},
                             {1, options.stride()[0]}, {0, options.padding()[0]},
                             options.ceil_mode(), options.count_include_pad())
      .squeeze(-2);
}
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options) {
  return ::ember::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(),
                             options.ceil_mode(), options.count_include_pad(),
                             options.divisor_override());
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options) {
  if (options.training()) {
    int64_t per_channel = input.numel() / std::max<int64_t>(input.dim() > 1 ? input.size(1) : 1, 1);
    EMBER_CHECK_VALUE(per_channel > 1,
                      "batch_norm(): expected more than 1 value per channel when training, got ",
                      "input size ", input.sizes());
  }
  return ::ember::batch_norm(input, opt(options.weight()), opt(options.bias()), opt(running_mean),
                             opt(running_var), options.training(),
                             options.momentum().value_or(0.0), options.eps(), false);
}
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return ::ember::layer_norm(input, options.normalized_shape(), opt(options.weight()),
                             opt(options.bias()), options.eps(), false);
}
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  return ::ember::group_norm(input, options.num_groups(), opt(options.weight()),
                             opt(options.bias()), options.eps(), false);
}

Tensor normalize(const Tensor& input, const NormalizeFuncOptions& options) {
  const Tensor norm = ::ember::linalg_vector_norm(input, options.p(), {options.dim()}, true);
  return input / ::ember::clamp(norm, Scalar(options.eps()), std::nullopt).expand_as(input);
}

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  EMBER_CHECK_VALUE(weight.dim() == 2, "embedding(): expected a 2-D weight, but got ",
                    weight.dim(), "-D");
  EMBER_CHECK_NOT_IMPLEMENTED(!options.sparse(),
                              "embedding(): sparse gradients are not supported; use sparse(false)");
  int64_t padding_idx = -1;
  if (options.padding_idx()) {
    padding_idx = *options.padding_idx();
    const int64_t rows = weight.size(0);
    EMBER_CHECK_VALUE(padding_idx < rows && padding_idx >= -rows,
                      "embedding(): expected padding_idx to be within num_embeddings (", rows,
                      "), but got ", padding_idx);
    if (padding_idx < 0) padding_idx += rows;
  }
  return ::ember::embedding(weight, input, padding_idx, options.scale_grad_by_freq(), false);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  return ::ember::mse_loss(input, target, reduction_enum(options.reduction()));
}
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  return ::ember::l1_loss(input, target, reduction_enum(options.reduction()));
}
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options) {
  return ::ember::smooth_l1_loss(input, target, reduction_enum(options.reduction()),
                                 options.beta());
}
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  return ::ember::nll_loss(input, target, opt(options.weight()),
                           reduction_enum(options.reduction()), options.ignore_index());
}
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options) {
  return ::ember::cross_entropy_loss(input, target, opt(options.weight()),
                                     reduction_enum(options.reduction()), options.ignore_index(),
                                     options.label_smoothing());
}
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options) {
  return ::ember::binary_cross_entropy(input, target, opt(options.weight()),
                                       reduction_enum(options.reduction()));
}
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  return ::ember::binary_cross_entropy_with_logits(input, target, opt(options.weight()),
                                                   opt(options.pos_weight()),
                                                   reduction_enum(options.reduction()));
}

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  const std::vector<int64_t>& amounts = options.pad();
  EMBER_CHECK_VALUE(amounts.size() % 2 == 0, "pad(): expected the padding length to be ",
                    "divisible by 2, but got ", amounts.size());
  const int64_t k = static_cast<int64_t>(amounts.size()) / 2;
  EMBER_CHECK_VALUE(k <= input.dim(), "pad(): expected the padding length to be at most two ",
                    "times the input dimension, but got padding length ", amounts.size(),
                    " and input of dimension ", input.dim());
  const bool constant = std::holds_alternative<enumtype::kConstant>(options.mode());
  EMBER_CHECK_VALUE(constant || options.value() == 0,
                    "pad(): only constant padding takes a value");
  Tensor out = input;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t dim = input.dim() - 1 - i;
    int64_t before = amounts[2 * i], after = amounts[2 * i + 1];
    if (before < 0) {
      out = out.narrow(dim, -before, out.size(dim) + before);
      before = 0;
    }
    if (after < 0) {
      out = out.narrow(dim, 0, out.size(dim) + after);
      after = 0;
    }
    if (before == 0 && after == 0) continue;
    const int64_t n = out.size(dim);
    if (constant) {
      std::vector<Tensor> parts;
      std::vector<int64_t> shape = out.sizes().vec();
      if (before) {
        shape[dim] = before;
        parts.push_back(::ember::full(shape, options.value(), TensorOptions().dtype(out.scalar_type())));
      }
      parts.push_back(out);
      if (after) {
        shape[dim] = after;
        parts.push_back(::ember::full(shape, options.value(), TensorOptions().dtype(out.scalar_type())));
      }
      out = ::ember::cat(parts, dim);
      continue;
    }
    const bool reflect = std::holds_alternative<enumtype::kReflect>(options.mode());
    EMBER_CHECK_VALUE(n > 0, "pad(): expected a non-empty dim ", dim, " to pad");
    EMBER_CHECK_VALUE(!reflect || (before < n && after < n),
                      "pad(): expected reflect padding (", before, ", ", after,
                      ") to be smaller than the size of dim ", dim, " (", n, ")");
    EMBER_CHECK_VALUE(reflect || !std::holds_alternative<enumtype::kCircular>(options.mode()) ||
                          (before <= n && after <= n),
                      "pad(): expected circular padding (", before, ", ", after,
                      ") to be at most the size of dim ", dim, " (", n, ")");
    out = out.index_select(dim, pad_indices(n, before, after, options.mode()));
  }
  return out;
}

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  const int64_t spatial = input.dim() - 2;
  EMBER_CHECK_VALUE(spatial >= 1 && spatial <= 3, "interpolate(): expected a 3-D, 4-D or 5-D ",
                    "input, but got ", input.dim(), "-D");
  EMBER_CHECK_VALUE(options.size().has_value() != options.scale_factor().has_value(),
                    "interpolate(): give exactly one of size and scale_factor");
  const auto& mode = options.mode();
  const bool nearest = std::holds_alternative<enumtype::kNearest>(mode);
  const bool linear = std::holds_alternative<enumtype::kLinear>(mode) ||
                      std::holds_alternative<enumtype::kBilinear>(mode) ||
                      std::holds_alternative<enumtype::kTrilinear>(mode);
  EMBER_CHECK_NOT_IMPLEMENTED(nearest || linear, "interpolate(): mode ", get_enum_name(mode),
                              " is not supported; use kNearest, kLinear, kBilinear or kTrilinear");
  const int64_t want_dims = std::holds_alternative<enumtype::kLinear>(mode) ? 1
                            : std::holds_alternative<enumtype::kBilinear>(mode) ? 2
                            : std::holds_alternative<enumtype::kTrilinear>(mode) ? 3 : spatial;
  EMBER_CHECK_VALUE(want_dims == spatial, "interpolate(): mode ", get_enum_name(mode), " expects a ",
                    want_dims + 2, "-D input, but got ", input.dim(), "-D");
  EMBER_CHECK_VALUE(linear || !options.align_corners().has_value(),
                    "interpolate(): align_corners applies only to the linear modes");
  const bool align = options.align_corners().value_or(false);
  const auto count = static_cast<size_t>(spatial);
  if (options.size()) {
    EMBER_CHECK_VALUE(options.size()->size() == count || options.size()->size() == 1,
                      "interpolate(): expected size to have 1 or ", spatial, " values");
  } else {
    EMBER_CHECK_VALUE(options.scale_factor()->size() == count || options.scale_factor()->size() == 1,
                      "interpolate(): expected scale_factor to have 1 or ", spatial, " values");
  }
  // One spatial dim at a time, the last first: nearest picks rows, linear blends two
  // neighbours; both are separable, and blending the innermost dim first is the order of
  // PyTorch's kernels (h0 * (w0 * x00 + w1 * x01) + h1 * (...)).
  Tensor out = input;
  for (size_t k = count; k-- > 0;) {
    const int64_t dim = 2 + static_cast<int64_t>(k);
    const int64_t in = input.size(dim);
    int64_t n = 0;
    std::optional<double> factor;
    if (options.size()) {
      n = (*options.size())[options.size()->size() == 1 ? 0 : k];
    } else {
      factor = (*options.scale_factor())[options.scale_factor()->size() == 1 ? 0 : k];
      n = static_cast<int64_t>(std::floor(static_cast<double>(in) * *factor));
    }
    EMBER_CHECK_VALUE(n > 0, "interpolate(): expected a positive output size, but got ", n);
    // PyTorch's area_pixel_compute_scale, in float as its CPU kernels compute it.
    const float scale = (linear && align) ? (n > 1 ? static_cast<float>(in - 1) / static_cast<float>(n - 1) : 0.0f)
                        : factor ? static_cast<float>(1.0 / *factor)
                                 : static_cast<float>(in) / static_cast<float>(n);
    std::vector<int64_t> lo, hi;
    std::vector<float> lam;
    for (int64_t i = 0; i < n; ++i) {
      if (nearest) {
        lo.push_back(std::min(static_cast<int64_t>(std::floor(static_cast<float>(i) * scale)), in - 1));
        continue;
      }
      float src = align ? scale * static_cast<float>(i) : scale * (static_cast<float>(i) + 0.5f) - 0.5f;
      if (src < 0) src = 0;
      const int64_t i0 = std::min(static_cast<int64_t>(src), in - 1);
      lo.push_back(i0);
      hi.push_back(i0 < in - 1 ? i0 + 1 : i0);
      lam.push_back(src - static_cast<float>(i0));
    }
    if (nearest) {
      out = out.index_select(dim, ::ember::tensor(lo));
      continue;
    }
    std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
    shape[static_cast<size_t>(dim)] = n;
    const Tensor l1 = ::ember::tensor(std::vector<double>(lam.begin(), lam.end()),
                                      TensorOptions().dtype(ScalarType::Float))
                          .to(out.scalar_type())
                          .reshape(shape);
    const Tensor l0 = 1 - l1;
    out = out.index_select(dim, ::ember::tensor(lo)) * l0 + out.index_select(dim, ::ember::tensor(hi)) * l1;
  }
  return out;
}

Tensor adaptive_avg_pool2d(const Tensor& input, ExpandingArray<2> output_size) {
  EMBER_CHECK_VALUE(input.dim() == 3 || input.dim() == 4,
                    "adaptive_avg_pool2d(): expected a 3-D or 4-D input, but got ", input.dim(), "-D");
  // A window of the output is a product of ranges per dim, so its mean is the mean over
  // one dim of the means over the other: pool the two dims one after the other.
  Tensor out = input;
  for (int64_t k = 0; k < 2; ++k) {
    const int64_t dim = input.dim() - 2 + k, in = out.size(dim), n = output_size[static_cast<size_t>(k)];
    EMBER_CHECK_VALUE(n > 0, "adaptive_avg_pool2d(): expected a positive output_size, but got ",
                      output_size);
    std::vector<Tensor> parts;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t start = (i * in) / n, end = ((i + 1) * in + n - 1) / n;
      parts.push_back(out.narrow(dim, start, end - start).mean({dim}, /*keepdim=*/true));
    }
    out = ::ember::cat(parts, dim);
  }
  return out;
}

}  // namespace ember::nn::functional

namespace ember {

namespace {

template <size_t D>
ExpandingArray<D> expand_sizes(const char* op, const char* what, IntArrayRef v) {
  EMBER_CHECK_VALUE(v.size() == 1 || v.size() == D, op, "(): expected ", what, " to have 1 or ", D,
                    " values, but got ", v);
  return v.size() == 1 ? ExpandingArray<D>(v[0]) : ExpandingArray<D>(v);
}

template <size_t D>
Tensor conv_top_level(const char* op, const Tensor& input, const Tensor& weight,
                      const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                      IntArrayRef dilation, int64_t groups) {
  nn::functional::ConvFuncOptions<D> o;
  o.bias(bias.value_or(Tensor()))
      .stride(expand_sizes<D>(op, "stride", stride))
      .padding(expand_sizes<D>(op, "padding", padding))
      .dilation(expand_sizes<D>(op, "dilation", dilation))
      .groups(groups);
  if constexpr (D == 1) return nn::functional::conv1d(input, weight, o);
  else if constexpr (D == 2) return nn::functional::conv2d(input, weight, o);
  else return nn::functional::conv3d(input, weight, o);
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_top_level<1>("conv1d", input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_top_level<2>("conv2d", input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_top_level<3>("conv3d", input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  const char* op = "conv_transpose2d";
  nn::functional::ConvTranspose2dFuncOptions o;
  o.bias(bias.value_or(Tensor()))
      .stride(expand_sizes<2>(op, "stride", stride))
      .padding(expand_sizes<2>(op, "padding", padding))
      .output_padding(expand_sizes<2>(op, "output_padding", output_padding))
      .groups(groups)
      .dilation(expand_sizes<2>(op, "dilation", dilation));
  return nn::functional::conv_transpose2d(input, weight, o);
}
Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool2d";
  const ExpandingArray<2> k = expand_sizes<2>(op, "kernel_size", kernel_size);
  nn::functional::MaxPool2dFuncOptions o(k);
  o.stride(stride.empty() ? k : expand_sizes<2>(op, "stride", stride))
      .padding(expand_sizes<2>(op, "padding", padding))
      .dilation(expand_sizes<2>(op, "dilation", dilation))
      .ceil_mode(ceil_mode);
  return nn::functional::max_pool2d(self, o);
}
Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool1d";
  const ExpandingArray<1> k = expand_sizes<1>(op, "kernel_size", kernel_size);
  nn::functional::MaxPool1dFuncOptions o(k);
  o.stride(stride.empty() ? k : expand_sizes<1>(op, "stride", stride))
      .padding(expand_sizes<1>(op, "padding", padding))
      .dilation(expand_sizes<1>(op, "dilation", dilation))
      .ceil_mode(ceil_mode);
  return nn::functional::max_pool1d(self, o);
}
Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return nn::functional::adaptive_avg_pool2d(
      self, expand_sizes<2>("adaptive_avg_pool2d", "output_size", output_size));
}

}  // namespace ember
