#pragma once
/// Convolutions on oneDNN (Debian's libdnnl 2.6, OpenMP-threaded like the rest of Ember).
/// No oneDNN type appears here: only aten/native/onednn/ includes oneDNN's headers.

#include <cstdint>
#include <optional>
#include <tuple>

#include "c10/core/Tensor.h"

namespace ember::native::onednn {

/// The geometry of a plain (not transposed) convolution: per spatial dim, from the first.
struct ConvShape {
  int nsp = 2;
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  int64_t groups = 1;
};

/// Whether the oneDNN path takes this forward convolution: float32, non-empty, 2 or 3
/// spatial dims in channels_last (the caller checked the arguments and that it is not
/// transposed).
bool conv_forward_supported(const Tensor& input, const Tensor& weight);

/// out = conv(input, weight) + bias on oneDNN primitives (Note [oneDNN convolution]).
/// Returns the result in input's memory format (NCHW or channels_last).
Tensor conv_forward(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                    const ConvShape& shape, IntArrayRef out_spatial);

/// Whether conv_backward takes this convolution's backward: float32, non-empty, 2 or 3
/// spatial dims, a contiguous (NCHW) input that oneDNN is measured faster on (Note [oneDNN
/// convolution]).
bool conv_backward_supported(const Tensor& input, const Tensor& weight);

/// (grad_input, grad_weight) of out = conv(input, weight), each where asked (else
/// undefined), on oneDNN's backward primitives; contiguous results.
std::tuple<Tensor, Tensor> conv_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                                         const ConvShape& shape, IntArrayRef out_spatial, bool need_input,
                                         bool need_weight);

/// The input gradient alone of out = conv(input, weight), for an input of input_sizes: the
/// forward of the transposed convolution whose weight is `weight` (Note [Transposed
/// convolution on oneDNN]). A contiguous result.
Tensor conv_backward_data(const Tensor& grad_output, IntArrayRef input_sizes, const Tensor& weight,
                          const ConvShape& shape, IntArrayRef out_spatial);

/// Whether a transposed convolution of input by weight runs on oneDNN: float32, non-empty,
/// 2 or 3 spatial dims, 3 or more channels in and out (the caller checks its geometry's
/// right padding is not negative).
bool conv_transpose_supported(const Tensor& input, const Tensor& weight, int64_t groups);

/// The number of prepacked weights held (for tests of the cache's invalidation).
EMBER_API int64_t cached_weights();

/// Whether float32 convolutions use oneDNN (default true; ember.backends.mkldnn.enabled).
/// Whether this build has oneDNN (EMBER_ONEDNN=ON); without it the functions above are
/// never called (the *_supported checks say no) and enabled() is always false.
EMBER_API bool available();
EMBER_API bool enabled();
EMBER_API void set_enabled(bool on);

}  // namespace ember::native::onednn
