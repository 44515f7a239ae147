// Convolution over 1 to 3 spatial dimensions, plain and transposed: the argument checks and
// geometry the kernels share (convolution.h), and the stand-ins for the oneDNN path in a
// build without it. The im2col + GEMM kernels are in cpu/convolution.cpp.
#include "aten/native/convolution.h"

#include <string>

#include "aten/native/MemoryFormats.h"
#include "aten/native/onednn/Conv.h"
#include "c10/util/Exception.h"

#if !EMBER_HAVE_ONEDNN
// A build without oneDNN (EMBER_ONEDNN=OFF): every convolution takes the im2col + GEMM path.
namespace ember::native::onednn {
bool available() { return false; }
bool enabled() { return false; }
void set_enabled(bool) {}
int64_t cached_weights() { return 0; }
bool conv_forward_supported(const Tensor&, const Tensor&) { return false; }
bool conv_backward_supported(const Tensor&, const Tensor&) { return false; }
bool conv_transpose_supported(const Tensor&, const Tensor&, int64_t) { return false; }
Tensor conv_backward_data(const Tensor&, IntArrayRef, const Tensor&, const ConvShape&, IntArrayRef) {
  EMBER_INTERNAL_ASSERT(false, "conv_transpose(): oneDNN is not part of this build");
}
Tensor conv_forward(const Tensor&, const Tensor&, const std::optional<Tensor>&, const ConvShape&, IntArrayRef) {
  EMBER_INTERNAL_ASSERT(false, "convolution(): oneDNN is not part of this build");
}
std::tuple<Tensor, Tensor> conv_backward(const Tensor&, const Tensor&, const Tensor&, const ConvShape&, IntArrayRef,
                                         bool, bool) {
  EMBER_INTERNAL_ASSERT(false, "convolution_backward(): oneDNN is not part of this build");
}
}  // namespace ember::native::onednn
#endif

namespace ember::native {
namespace {

// One int[] argument of a convolution: nsp values, or one for all.
int64_t pick(const char* arg, IntArrayRef v, int nsp, int i) {
  EMBER_CHECK(v.size() == 1 || static_cast<int>(v.size()) == nsp, "convolution(): expected ", arg,
              " to be a single integer or a list of ", nsp, " integers, but got ", v.size(), " values ", v);
  return v.size() == 1 ? v[0] : v[static_cast<size_t>(i)];
}

}  // namespace

ConvGeom conv_geometry(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                       IntArrayRef output_padding, int64_t groups) {
  const int64_t dim = input.dim();
  EMBER_CHECK(dim >= 3 && dim <= 5, "convolution(): expected a 3-d, 4-d or 5-d (batched) input, but got "
              "input of shape ", input.sizes());
  EMBER_CHECK(weight.dim() == dim, "convolution(): expected weight to be ", dim, "-d for ", dim,
              "-d input, but got weight of shape ", weight.sizes());
  EMBER_CHECK(input.scalar_type() == weight.scalar_type(), "convolution(): expected input and weight "
              "to have the same dtype, but got ", input.scalar_type(), " and ", weight.scalar_type());
  const ScalarType dt = input.scalar_type();
  EMBER_CHECK_NOT_IMPLEMENTED(dt == ScalarType::Float || dt == ScalarType::Double || dt == ScalarType::BFloat16 ||
                              dt == ScalarType::Half, "convolution(): not implemented for dtype ", dt,
                              " (float32, float64, bfloat16 and float16 are)");
  EMBER_CHECK(groups > 0, "convolution(): non-positive groups is not supported, got groups=", groups);
  ConvGeom g;
  g.nsp = static_cast<int>(dim - 2);
  const int64_t C = input.sizes()[1], O = weight.sizes()[0];
  for (int i = 0; i < g.nsp; ++i) {
    const int j = 3 - g.nsp + i;
    g.k[j] = weight.sizes()[2 + i];
    g.s[j] = pick("stride", stride, g.nsp, i);
    g.p[j] = pick("padding", padding, g.nsp, i);
    g.d[j] = pick("dilation", dilation, g.nsp, i);
    EMBER_CHECK(g.s[j] > 0, "convolution(): non-positive stride is not supported, got stride=", stride);
    EMBER_CHECK(g.p[j] >= 0, "convolution(): negative padding is not supported, got padding=", padding);
    EMBER_CHECK(g.d[j] > 0, "convolution(): dilation should be greater than zero, got dilation=", dilation);
  }
  if (!transposed) {
    EMBER_CHECK(O >= groups && O % groups == 0, "convolution(): expected weight's first dimension (",
                O, " output channels) to be divisible by groups=", groups);
    EMBER_CHECK(weight.sizes()[1] * groups == C, "convolution(): expected input of shape ", input.sizes(),
                " to have ", weight.sizes()[1] * groups, " channels (weight of shape ", weight.sizes(),
                ", groups=", groups, "), but got ", C, " channels instead");
    for (int i = 0; i < g.nsp; ++i) {
      const int j = 3 - g.nsp + i;
      g.img[j] = input.sizes()[2 + i];
      const int64_t padded = g.img[j] + 2 * g.p[j], span = g.d[j] * (g.k[j] - 1) + 1;
      EMBER_CHECK(padded >= span, "convolution(): calculated padded input size per channel (", padded,
                  ") is smaller than the dilated kernel size (", span, ") in spatial dimension ", i,
                  " (input of shape ", input.sizes(), ", weight of shape ", weight.sizes(), ")");
      g.out[j] = (padded - span) / g.s[j] + 1;
    }
  } else {
    EMBER_CHECK(O == C, "convolution(): expected transposed weight's first dimension (", O,
                ") to equal the input's channels (", C, "), input of shape ", input.sizes());
    EMBER_CHECK(C % groups == 0, "convolution(): expected input channels (", C, ") to be divisible by groups=",
                groups);
    for (int i = 0; i < g.nsp; ++i) {
      const int j = 3 - g.nsp + i;
      const int64_t op = pick("output_padding", output_padding, g.nsp, i);
      EMBER_CHECK(op >= 0 && (op < g.s[j] || op < g.d[j]), "convolution(): output padding must be "
                  "smaller than either stride or dilation, got output_padding=", output_padding,
                  " stride=", stride, " dilation=", dilation);
      g.out[j] = input.sizes()[2 + i];
      g.img[j] = (g.out[j] - 1) * g.s[j] - 2 * g.p[j] + g.d[j] * (g.k[j] - 1) + op + 1;
      EMBER_CHECK(g.img[j] > 0, "convolution(): the transposed convolution's output size ", g.img[j],
                  " in spatial dimension ", i, " is too small (input of shape ", input.sizes(), ")");
    }
  }
  if (bias) {
    const int64_t oc = transposed ? weight.sizes()[1] * groups : O;
    EMBER_CHECK(bias->dim() == 1 && bias->sizes()[0] == oc, "convolution(): expected bias of shape [", oc,
                "], but got bias of shape ", bias->sizes());
    EMBER_CHECK(bias->scalar_type() == dt, "convolution(): expected bias to have dtype ", dt, ", but got ",
                bias->scalar_type());
  }
  return g;
}

DimVector full_shape(int64_t n, int64_t c, const ConvGeom& g, bool image) {
  DimVector shape{n, c};
  for (int i = 3 - g.nsp; i < 3; ++i) shape.push_back(image ? g.img[i] : g.out[i]);
  return shape;
}

MemoryFormat conv_memory_format(const Tensor& input, const Tensor& weight) {
  if (input.dim() != 4 && input.dim() != 5) return MemoryFormat::Contiguous;
  const MemoryFormat cl = input.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
  for (const Tensor* t : {&input, &weight}) {
    if (!t->is_contiguous() && is_contiguous_in(t->sizes(), t->strides(), cl)) return cl;
  }
  return MemoryFormat::Contiguous;
}

void check_convolution_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                                std::optional<IntArrayRef> bias_sizes, const ConvGeom& g, bool transposed,
                                int64_t groups) {
  const DimVector expected = transposed ? full_shape(input.sizes()[0], weight.sizes()[1] * groups, g, true)
                                        : full_shape(input.sizes()[0], weight.sizes()[0], g, false);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(expected), "convolution_backward(): expected grad_output of "
              "shape ", IntArrayRef(expected), ", but got ", grad_output.sizes());
  EMBER_CHECK(grad_output.scalar_type() == input.scalar_type(), "convolution_backward(): expected grad_output "
              "of dtype ", input.scalar_type(), ", but got ", grad_output.scalar_type());
  if (bias_sizes) {
    const int64_t oc = expected[1];
    EMBER_CHECK(bias_sizes->size() == 1 && (*bias_sizes)[0] == oc, "convolution_backward(): expected "
                "bias_sizes [", oc, "], but got ", *bias_sizes);
  }
}

}  // namespace ember::native
