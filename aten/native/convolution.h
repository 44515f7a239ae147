#pragma once
/// Shared by the convolution kernels (im2col + GEMM and oneDNN on the CPU): the geometry of
/// one convolution, the checks that compute it, and the shape and memory format of its
/// result.

#include <cstdint>
#include <optional>

#include "c10/core/MemoryFormat.h"
#include "c10/core/Tensor.h"
#include "c10/util/DimVector.h"

namespace ember::native {

/// The geometry of one convolution, per spatial dimension (D, H, W; unused ones size 1).
struct ConvGeom {
  int nsp = 2;
  int64_t img[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};

  int64_t img_size() const { return img[0] * img[1] * img[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t kernel_size() const { return k[0] * k[1] * k[2]; }
  bool pointwise() const {
    for (int i = 0; i < 3; ++i) {
      if (k[i] != 1 || s[i] != 1 || p[i] != 0 || img[i] != out[i]) return false;
    }
    return true;
  }
};

/// Checks a convolution() call and returns its geometry (img = the input's spatial sizes
/// for a convolution, the output's for a transposed one).
ConvGeom conv_geometry(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                       IntArrayRef output_padding, int64_t groups);

/// The shape (n, c, spatial...) of a convolution's output (image false) or image (true).
DimVector full_shape(int64_t n, int64_t c, const ConvGeom& g, bool image);

/// The memory format PyTorch gives a convolution's result: channels_last when the input or
/// the weight is (and is not also plainly contiguous), else contiguous.
MemoryFormat conv_memory_format(const Tensor& input, const Tensor& weight);

/// Checks convolution_backward's grad_output (the output's shape and input's dtype) and
/// bias_sizes (the output channels) against the geometry of its other arguments.
void check_convolution_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                                std::optional<IntArrayRef> bias_sizes, const ConvGeom& g, bool transposed,
                                int64_t groups);

}  // namespace ember::native
