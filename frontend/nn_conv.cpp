// The convolution modules (frontend/nn/modules/conv.h).

#include <cmath>
#include <ios>

#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "frontend/nn/functional.h"
#include "frontend/nn/init.h"
#include "frontend/nn/modules/conv.h"

namespace ember::nn {

namespace F = functional;

namespace detail {

void conv_reset(Module& module, const ConvSpec& spec, bool same_padding, bool strided,
                Tensor& weight, Tensor& bias) {
  const char* kind = spec.transposed ? "ConvTranspose" : "Conv";
  EMBER_CHECK_VALUE(spec.in_channels > 0 && spec.out_channels > 0, kind, spec.dims,
                    "d: expected positive in_channels and out_channels, but got ",
                    spec.in_channels, " and ", spec.out_channels);
  EMBER_CHECK_VALUE(spec.groups > 0, kind, spec.dims, "d: expected groups to be positive, but got ",
                    spec.groups);
  EMBER_CHECK_VALUE(spec.in_channels % spec.groups == 0, kind, spec.dims,
                    "d: in_channels (", spec.in_channels, ") must be divisible by groups (",
                    spec.groups, ")");
  EMBER_CHECK_VALUE(spec.out_channels % spec.groups == 0, kind, spec.dims,
                    "d: out_channels (", spec.out_channels, ") must be divisible by groups (",
                    spec.groups, ")");
  for (int64_t k : spec.kernel_size) {
    EMBER_CHECK_VALUE(k > 0, kind, spec.dims, "d: expected a positive kernel_size, but got ",
                      ArrayRef<int64_t>(spec.kernel_size));
  }
  EMBER_CHECK_VALUE(!(same_padding && strided), kind, spec.dims,
                    "d: padding='same' is not supported for strided convolutions");
  std::vector<int64_t> shape = spec.transposed
      ? std::vector<int64_t>{spec.in_channels, spec.out_channels / spec.groups}
      : std::vector<int64_t>{spec.out_channels, spec.in_channels / spec.groups};
  shape.insert(shape.end(), spec.kernel_size.begin(), spec.kernel_size.end());
  weight = module.register_parameter("weight", ::ember::empty(shape));
  if (spec.bias) {
    bias = module.register_parameter("bias", ::ember::empty({spec.out_channels}));
  } else {
    bias = module.register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  conv_reset_parameters(weight, bias);
}

void conv_reset_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    if (fan_in != 0) {
      const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
      init::uniform_(bias, -bound, bound);
    }
  }
}

void conv_print(std::ostream& stream, const char* kind, const ConvSpec& spec,
                const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                const char* padding_name, const std::vector<int64_t>& dilation,
                const std::vector<int64_t>& output_padding, const char* padding_mode) {
  auto list = [&](const std::vector<int64_t>& v) {
    if (v.size() == 1) {
      stream << v[0];
      return;
    }
    stream << '[';
    for (size_t i = 0; i < v.size(); ++i) stream << (i ? ", " : "") << v[i];
    stream << ']';
  };
  auto all = [](const std::vector<int64_t>& v, int64_t x) {
    for (int64_t e : v) {
      if (e != x) return false;
    }
    return true;
  };
  stream << kModulePrefix << kind << spec.dims << "d(" << spec.in_channels << ", "
         << spec.out_channels << ", kernel_size=";
  list(spec.kernel_size);
  stream << ", stride=";
  list(stride);
  if (*padding_name) {
    stream << ", padding='" << padding_name << "'";
  } else if (!all(padding, 0)) {
    stream << ", padding=";
    list(padding);
  }
  if (!all(dilation, 1)) {
    stream << ", dilation=";
    list(dilation);
  }
  if (!all(output_padding, 0)) {
    stream << ", output_padding=";
    list(output_padding);
  }
  if (spec.groups != 1) stream << ", groups=" << spec.groups;
  if (!spec.bias) stream << ", bias=false";
  if (std::string(padding_mode) != "kZeros") stream << ", padding_mode=" << padding_mode;
  stream << ")";
}

}  // namespace detail

namespace {

Tensor conv_nd_dispatch(const Tensor& x, const Tensor& w, const F::Conv1dFuncOptions& o) {
  return F::conv1d(x, w, o);
}
Tensor conv_nd_dispatch(const Tensor& x, const Tensor& w, const F::Conv2dFuncOptions& o) {
  return F::conv2d(x, w, o);
}
Tensor conv_nd_dispatch(const Tensor& x, const Tensor& w, const F::Conv3dFuncOptions& o) {
  return F::conv3d(x, w, o);
}

// A convolution module's forward: non-zero padding modes pad first, as PyTorch's modules do.
template <size_t D>
Tensor conv_module_forward(const ConvOptions<D>& options, const Tensor& input,
                           const Tensor& weight, const Tensor& bias) {
  EMBER_CHECK(input.dim() == static_cast<int64_t>(D) + 1 || input.dim() == static_cast<int64_t>(D) + 2,
              "Conv", D, "d: expected ", D + 1, "D (unbatched) or ", D + 2,
              "D (batched) input, but got input of size: ", input.sizes());
  const int64_t channels = input.size(input.dim() - static_cast<int64_t>(D) - 1);
  EMBER_CHECK(channels == options.in_channels(), "Conv", D, "d: expected input to have ",
              options.in_channels(), " channels (in_channels), but got ", channels,
              " channels: input of size ", input.sizes());
  F::ConvFuncOptions<D> func;
  func.bias(bias).stride(options.stride()).dilation(options.dilation()).groups(options.groups());
  if (std::holds_alternative<enumtype::kZeros>(options.padding_mode())) {
    func.padding(options.padding());
    return conv_nd_dispatch(input, weight, func);
  }
  const auto* sizes = std::get_if<ExpandingArray<D>>(&options.padding());
  EMBER_CHECK_NOT_IMPLEMENTED(sizes != nullptr, "Conv", D,
                              "d: padding='same'/'valid' with a padding_mode other than kZeros");
  std::vector<int64_t> amounts;
  for (size_t i = D; i-- > 0;) {
    amounts.push_back((*sizes)[i]);
    amounts.push_back((*sizes)[i]);
  }
  F::PadFuncOptions pad(amounts);
  std::visit(
      [&](const auto& mode) {
        using M = std::decay_t<decltype(mode)>;
        if constexpr (!std::is_same_v<M, enumtype::kZeros>) pad.mode(mode);
      },
      options.padding_mode());
  func.padding(ExpandingArray<D>(0));
  return conv_nd_dispatch(F::pad(input, pad), weight, func);
}

template <size_t D>
void check_transpose_input(const ConvTransposeOptions<D>& options, const Tensor& input) {
  EMBER_CHECK(input.dim() == static_cast<int64_t>(D) + 1 || input.dim() == static_cast<int64_t>(D) + 2,
              "ConvTranspose", D, "d: expected ", D + 1, "D (unbatched) or ", D + 2,
              "D (batched) input, but got input of size: ", input.sizes());
  const int64_t channels = input.size(input.dim() - static_cast<int64_t>(D) - 1);
  EMBER_CHECK(channels == options.in_channels(), "ConvTranspose", D, "d: expected input to have ",
              options.in_channels(), " channels (in_channels), but got ", channels,
              " channels: input of size ", input.sizes());
  EMBER_CHECK_NOT_IMPLEMENTED(std::holds_alternative<enumtype::kZeros>(options.padding_mode()),
                              "ConvTranspose", D, "d: only padding_mode kZeros is supported");
}

template <size_t D>
F::ConvTransposeFuncOptions<D> transpose_func_options(const ConvTransposeOptions<D>& options,
                                                      const Tensor& bias) {
  F::ConvTransposeFuncOptions<D> func;
  func.bias(bias)
      .stride(options.stride())
      .padding(options.padding())
      .output_padding(options.output_padding())
      .groups(options.groups())
      .dilation(options.dilation());
  return func;
}

}  // namespace

Conv1dImpl::Conv1dImpl(Conv1dOptions options_) : ConvNdImpl(std::move(options_)) {}
Tensor Conv1dImpl::forward(const Tensor& input) {
  return conv_module_forward<1>(options, input, weight, bias);
}
Conv2dImpl::Conv2dImpl(Conv2dOptions options_) : ConvNdImpl(std::move(options_)) {}
Tensor Conv2dImpl::forward(const Tensor& input) {
  return conv_module_forward<2>(options, input, weight, bias);
}
Conv3dImpl::Conv3dImpl(Conv3dOptions options_) : ConvNdImpl(std::move(options_)) {}
Tensor Conv3dImpl::forward(const Tensor& input) {
  return conv_module_forward<3>(options, input, weight, bias);
}

ConvTranspose1dImpl::ConvTranspose1dImpl(ConvTranspose1dOptions options_)
    : ConvTransposeNdImpl(std::move(options_)) {}
Tensor ConvTranspose1dImpl::forward(const Tensor& input) {
  check_transpose_input<1>(options, input);
  return F::conv_transpose1d(input, weight, transpose_func_options<1>(options, bias));
}
ConvTranspose2dImpl::ConvTranspose2dImpl(ConvTranspose2dOptions options_)
    : ConvTransposeNdImpl(std::move(options_)) {}
Tensor ConvTranspose2dImpl::forward(const Tensor& input) {
  check_transpose_input<2>(options, input);
  return F::conv_transpose2d(input, weight, transpose_func_options<2>(options, bias));
}
ConvTranspose3dImpl::ConvTranspose3dImpl(ConvTranspose3dOptions options_)
    : ConvTransposeNdImpl(std::move(options_)) {}
Tensor ConvTranspose3dImpl::forward(const Tensor& input) {
  check_transpose_input<3>(options, input);
  return F::conv_transpose3d(input, weight, transpose_func_options<3>(options, bias));
}

}  // namespace ember::nn
