// Convolution on the CPU over 1 to 3 spatial dimensions, plain and transposed, and its
// backward op: im2col + GEMM, or oneDNN where it takes the call (Note [oneDNN convolution]).
// CPU copies: baseline only (the GEMMs run on the BLAS; im2col and col2im are strided copies).
//
// Note [Convolution as GEMM]: every product here is one of three routines over an image
// (N, Ci, img...) and a smaller-or-equal grid of output positions (N, Co, out...), tied by
// the geometry out = (img + 2p - d(k-1) - 1) / s + 1 and a weight viewed as
// (G, Co/G, Ci/G * K), K the kernel's volume:
//   forward_gemm:   out[n]   = W @ im2col(img[n])         (a convolution)
//   backward_gemm:  img[n]   = col2im(W^T @ out[n])       (its adjoint: a transposed one)
//   weight_gemm:    dW      += out[n] @ im2col(img[n])^T   (a weight gradient)
// A convolution is forward_gemm (input gradient backward_gemm, weight gradient
// weight_gemm(grad, input)); a transposed convolution swaps the roles: forward is
// backward_gemm, input gradient forward_gemm, weight gradient weight_gemm(input, grad).
// Groups are the GEMM batch. A 1x1 kernel at stride 1 without padding needs no im2col: the
// image itself is the column matrix. The GEMMs run on the BLAS (Blas.h); the column matrix of
// one sample is built in parallel by rows.
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <tuple>
#include <vector>

#include "aten/TensorOperators.h"
#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/convolution.h"
#include "aten/native/linalg/Blas.h"
#include "aten/native/onednn/Conv.h"
#include "c10/core/Threads.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// ceil(a / b) for b > 0 and any a.
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The output positions [lo, hi) of one kernel offset whose input index off + o * s lies in
// [0, n).
void valid_range(int64_t off, int64_t s, int64_t n, int64_t count, int64_t* lo, int64_t* hi) {
  *lo = std::clamp<int64_t>(ceil_div(-off, s), 0, count);
  *hi = std::clamp<int64_t>(ceil_div(n - off, s), *lo, count);
}

// The kernel offset (kd, kh, kw) of row r % K of a column matrix.
void kernel_offset(const ConvGeom& g, int64_t kk, int64_t* kd, int64_t* kh, int64_t* kw) {
  *kw = kk % g.k[2];
  kk /= g.k[2];
  *kh = kk % g.k[1];
  *kd = kk / g.k[1];
}

// cols [C * K, (r1 - r0) * out_w] of one sample's image x [C, img...] (contiguous): the
// output rows (od, oh) in [r0, r1) of the flattened (D, H) grid, every column of each.
template <class T>
void im2col(const T* x, T* cols, int64_t C, const ConvGeom& g, int64_t r0, int64_t r1) {
  const int64_t K = g.kernel_size(), L = (r1 - r0) * g.out[2], isz = g.img_size();
  parallel_for(0, C * K, std::max<int64_t>(1, 16384 / std::max<int64_t>(L, 1)), [&](int64_t k0, int64_t k1) {
    for (int64_t r = k0; r < k1; ++r) {
      int64_t kd, kh, kw;
      kernel_offset(g, r % K, &kd, &kh, &kw);
      const T* xc = x + (r / K) * isz;
      T* row = cols + r * L;
      const int64_t woff = kw * g.d[2] - g.p[2];
      int64_t lo, hi;
      valid_range(woff, g.s[2], g.img[2], g.out[2], &lo, &hi);
      for (int64_t rr = r0; rr < r1; ++rr) {
        const int64_t od = rr / g.out[1], oh = rr % g.out[1];
        const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
        const int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
        T* dst = row + (rr - r0) * g.out[2];
        if (id < 0 || id >= g.img[0] || ih < 0 || ih >= g.img[1]) {
          std::fill(dst, dst + g.out[2], T(0));
          continue;
        }
        const T* src = xc + (id * g.img[1] + ih) * g.img[2] + woff;
        std::fill(dst, dst + lo, T(0));
        if (g.s[2] == 1) {
          std::copy(src + lo, src + hi, dst + lo);
        } else {
          for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * g.s[2]];
        }
        std::fill(dst + hi, dst + g.out[2], T(0));
      }
    }
  });
}

// x [C, img...] += col2im(cols [C * K, (r1 - r0) * out_w]), the output rows [r0, r1) of
// im2col's layout; channels split across threads.
template <class T>
void col2im_add(const T* cols, T* x, int64_t C, const ConvGeom& g, int64_t r0, int64_t r1) {
  const int64_t K = g.kernel_size(), L = (r1 - r0) * g.out[2], isz = g.img_size();
  parallel_for(0, C, std::max<int64_t>(1, 16384 / std::max<int64_t>(K * L, 1)), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      T* xc = x + c * isz;
      for (int64_t kk = 0; kk < K; ++kk) {
        int64_t kd, kh, kw;
        kernel_offset(g, kk, &kd, &kh, &kw);
        const T* row = cols + (c * K + kk) * L;
        const int64_t woff = kw * g.d[2] - g.p[2];
        int64_t lo, hi;
        valid_range(woff, g.s[2], g.img[2], g.out[2], &lo, &hi);
        for (int64_t rr = r0; rr < r1; ++rr) {
          const int64_t od = rr / g.out[1], oh = rr % g.out[1];
          const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
          const int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
          if (id < 0 || id >= g.img[0] || ih < 0 || ih >= g.img[1]) continue;
          const T* src = row + (rr - r0) * g.out[2];
          T* dst = xc + (id * g.img[1] + ih) * g.img[2] + woff;
          if (g.s[2] == 1) {
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow] += src[ow];
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow * g.s[2]] += src[ow];
          }
        }
      }
    }
  });
}

template <class F>
void dispatch_conv(ScalarType t, F&& f) {
  dispatch_all_types(t, "convolution", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) f(tag);
  });
}

// How many output rows (od, oh) one column block of forward_gemm takes: enough for the
// GEMM to run well, few enough that the block's column matrix stays in L2 (about 1 MiB,
// measured best of 128 KiB to 16 MiB on the 3x3 benchmark).
int64_t block_rows(const ConvGeom& g, int64_t rows_k, size_t elem) {
  const int64_t per_row = std::max<int64_t>(rows_k * g.out[2] * static_cast<int64_t>(elem), 1);
  return std::clamp<int64_t>((int64_t{1024} << 10) / per_row, 1, g.out[0] * g.out[1]);
}

// out (N, Co, out...) = W (G, Co/G, Ci/G * K) applied to img (N, Ci, img...). Samples are
// split across threads (each with its own column block; the GEMM then runs on one thread),
// and within a sample the output is made a block of rows at a time (block_rows).
Tensor forward_gemm(const Tensor& img, const Tensor& w3, const ConvGeom& g) {
  const int64_t N = img.sizes()[0], Ci = img.sizes()[1], G = w3.sizes()[0];
  const int64_t Co = G * w3.sizes()[1], L = g.out_size(), K = g.kernel_size();
  Tensor out = ember::empty(full_shape(N, Co, g, false), img.options());
  if (out.numel() == 0) return out;
  if (w3.sizes()[2] == 0) return out.zero_();
  const Tensor x = img.contiguous();
  const bool direct = g.pointwise();
  const int64_t rows = g.out[0] * g.out[1];
  const int64_t block = direct ? rows : block_rows(g, Ci * K, x.element_size());
  dispatch_conv(img.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_for(0, N, 1, [&](int64_t n0, int64_t n1) {
      Tensor cols = direct ? Tensor() : ember::empty({Ci * K * block * g.out[2]}, img.options());
      for (int64_t n = n0; n < n1; ++n) {
        const Tensor on = out.select(0, n).view({G, Co / G, L});
        if (direct) {
          gemm_batched(on, w3, x.select(0, n).view({G, Ci / G, L}), 1, 0);
          continue;
        }
        for (int64_t r0 = 0; r0 < rows; r0 += block) {
          const int64_t r1 = std::min(rows, r0 + block), width = (r1 - r0) * g.out[2];
          im2col(static_cast<const T*>(x.data_ptr()) + n * Ci * g.img_size(), static_cast<T*>(cols.data_ptr()), Ci,
                 g, r0, r1);
          gemm_batched(on.narrow(2, r0 * g.out[2], width), w3,
                       cols.narrow(0, 0, Ci * K * width).view({G, (Ci / G) * K, width}), 1, 0);
        }
      }
    });
  });
  return out;
}

// img (N, Ci, img...) = the adjoint of forward_gemm applied to src (N, Co, out...); samples
// split across threads, as in forward_gemm.
Tensor backward_gemm(const Tensor& src, const Tensor& w3, const ConvGeom& g, int64_t Ci) {
  const int64_t N = src.sizes()[0], Co = src.sizes()[1], G = w3.sizes()[0];
  const int64_t L = g.out_size(), K = g.kernel_size();
  Tensor img = ember::empty(full_shape(N, Ci, g, true), src.options());
  if (img.numel() == 0) return img;
  if (Co == 0 || L == 0) return img.zero_();
  const Tensor y = src.contiguous();
  const Tensor wt = w3.transpose(1, 2);  // (G, Ci/G * K, Co/G)
  const bool direct = g.pointwise();
  if (!direct) img.zero_();
  const int64_t rows = g.out[0] * g.out[1];
  const int64_t block = direct ? rows : block_rows(g, Ci * K, y.element_size());
  dispatch_conv(src.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_for(0, N, 1, [&](int64_t n0, int64_t n1) {
      Tensor cols = direct ? Tensor() : ember::empty({Ci * K * block * g.out[2]}, src.options());
      for (int64_t n = n0; n < n1; ++n) {
        const Tensor yn = y.select(0, n).view({G, Co / G, L});
        if (direct) {
          gemm_batched(img.select(0, n).view({G, Ci / G, L}), wt, yn, 1, 0);
          continue;
        }
        for (int64_t r0 = 0; r0 < rows; r0 += block) {
          const int64_t r1 = std::min(rows, r0 + block), width = (r1 - r0) * g.out[2];
          gemm_batched(cols.narrow(0, 0, Ci * K * width).view({G, (Ci / G) * K, width}), wt,
                       yn.narrow(2, r0 * g.out[2], width), 1, 0);
          col2im_add(static_cast<const T*>(cols.data_ptr()), static_cast<T*>(img.data_ptr()) + n * Ci * g.img_size(),
                     Ci, g, r0, r1);
        }
      }
    });
  });
  return img;
}

// dW (G, Co/G, Ci/G * K) = sum over n of src[n] @ im2col(img[n])^T: each thread sums its
// samples into its own buffer, a block of output rows at a time, and the buffers are added.
Tensor weight_gemm(const Tensor& src, const Tensor& img, const ConvGeom& g, int64_t G) {
  const int64_t N = src.sizes()[0], Co = src.sizes()[1], Ci = img.sizes()[1];
  const int64_t L = g.out_size(), K = g.kernel_size();
  Tensor dw = ember::empty({G, Co / G, (Ci / G) * K}, src.options());
  if (dw.numel() == 0) return dw;
  if (N == 0 || L == 0) return dw.zero_();
  const Tensor y = src.contiguous(), x = img.contiguous();
  const bool direct = g.pointwise();
  const int64_t rows = g.out[0] * g.out[1];
  const int64_t block = direct ? rows : block_rows(g, Ci * K, x.element_size());
  const int64_t parts = std::min<int64_t>(N, get_num_threads());
  Tensor partial = ember::zeros({parts, G, Co / G, (Ci / G) * K}, src.options());
  dispatch_conv(src.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
      Tensor cols = direct ? Tensor() : ember::empty({Ci * K * block * g.out[2]}, src.options());
      for (int64_t p = p0; p < p1; ++p) {
        const Tensor acc = partial.select(0, p);
        for (int64_t n = p * N / parts; n < (p + 1) * N / parts; ++n) {
          const Tensor yn = y.select(0, n).view({G, Co / G, L});
          if (direct) {
            gemm_batched(acc, yn, x.select(0, n).view({G, Ci / G, L}).transpose(1, 2), 1, 1);
            continue;
          }
          for (int64_t r0 = 0; r0 < rows; r0 += block) {
            const int64_t r1 = std::min(rows, r0 + block), width = (r1 - r0) * g.out[2];
            im2col(static_cast<const T*>(x.data_ptr()) + n * Ci * g.img_size(), static_cast<T*>(cols.data_ptr()),
                   Ci, g, r0, r1);
            const Tensor b = cols.narrow(0, 0, Ci * K * width).view({G, (Ci / G) * K, width});
            gemm_batched(acc, yn.narrow(2, r0 * g.out[2], width), b.transpose(1, 2), 1, 1);
          }
        }
      }
    });
  });
  return parts == 1 ? partial.select(0, 0) : partial.sum(IntArrayRef{0});
}

// The weight (O, I/G, k...) as (G, O/G, I/G * K), the GEMMs' operand.
Tensor weight3(const Tensor& w, int64_t groups) {
  return w.contiguous().view({groups, w.sizes()[0] / groups, -1});
}

Tensor bias_view(const Tensor& bias, int64_t dim) {
  DimVector shape(static_cast<size_t>(dim), 1);
  shape[1] = bias.sizes()[0];
  return bias.view(shape);
}

// The oneDNN path's description of a plain convolution, and its output's spatial sizes.
onednn::ConvShape onednn_shape(const ConvGeom& g, int64_t groups, DimVector& out_spatial) {
  onednn::ConvShape shape;
  shape.nsp = g.nsp;
  shape.groups = groups;
  for (int i = 0; i < g.nsp; ++i) {
    const int j = 3 - g.nsp + i;
    shape.k[i] = g.k[j];
    shape.s[i] = g.s[j];
    shape.p[i] = g.p[j];
    shape.d[i] = g.d[j];
    out_spatial.push_back(g.out[j]);
  }
  return shape;
}

// Note [Transposed convolution on oneDNN]: a transposed convolution of x by W (Ci, Co/G, k...)
// is the input gradient of the plain convolution that maps an image of the output's shape
// to x's shape by the same W read as (O = Ci, I/G = Co/G, k...): ConvGeom already describes
// that plain convolution (img = the output's spatial sizes, out = x's). So its forward is
// oneDNN's convolution_backward_data, its input gradient that plain convolution's forward
// of grad_output, and its weight gradient the plain convolution's weight gradient with
// grad_output as the input and x as the output gradient. oneDNN takes it whenever the
// right padding it needs (padding - output_padding) is not negative; dcgan's generator ran
// 1.5-5x torch's time on im2col + GEMM there (benchmarks/README.md, "Convolution").
bool transpose_on_onednn(const Tensor& input, const Tensor& weight, const ConvGeom& g, int64_t groups) {
  if (g.nsp < 2 || !onednn::enabled() || !onednn::conv_transpose_supported(input, weight, groups)) return false;
  for (int i = 3 - g.nsp; i < 3; ++i) {
    const int64_t span = g.d[i] * (g.k[i] - 1) + 1;
    if ((g.out[i] - 1) * g.s[i] + span - g.img[i] - g.p[i] < 0) return false;
  }
  return true;
}

bool is_reduced_float(ScalarType t) { return t == ScalarType::BFloat16 || t == ScalarType::Half; }

}  // namespace

Tensor convolution_cpu(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                       IntArrayRef output_padding, int64_t groups) {
  const ConvGeom g = conv_geometry(input, weight, bias, stride, padding, dilation, transposed,
                                   output_padding, groups);
  if (is_reduced_float(input.scalar_type())) {
    // bfloat16 / float16 (autocast's convolutions): computed in float32, rounded once at the end.
    const ScalarType dt = input.scalar_type();
    std::optional<Tensor> b32;
    if (bias) b32 = bias->to(ScalarType::Float);
    return convolution_cpu(input.to(ScalarType::Float), weight.to(ScalarType::Float), b32, stride, padding,
                           dilation, transposed, output_padding, groups).to(dt);
  }
  if (!transposed && onednn::enabled() && onednn::conv_forward_supported(input, weight)) {
    DimVector out_spatial;
    const onednn::ConvShape shape = onednn_shape(g, groups, out_spatial);
    return onednn::conv_forward(input, weight, bias, shape, IntArrayRef(out_spatial));
  }
  Tensor out;
  if (transposed && transpose_on_onednn(input, weight, g, groups)) {
    DimVector in_spatial;
    const onednn::ConvShape shape = onednn_shape(g, groups, in_spatial);
    const DimVector out_shape = full_shape(input.sizes()[0], weight.sizes()[1] * groups, g, true);
    out = onednn::conv_backward_data(input, IntArrayRef(out_shape), weight, shape, IntArrayRef(in_spatial));
  } else if (!transposed) {
    out = forward_gemm(input, weight3(weight, groups), g);
  } else {
    // weight (Ci, Co/G, k...): its (G, Ci/G, Co/G * K) view maps the output image to the input.
    out = backward_gemm(input, weight3(weight, groups), g, weight.sizes()[1] * groups);
  }
  if (bias && out.numel() > 0) out.add_(bias_view(*bias, out.dim()));
  const MemoryFormat format = conv_memory_format(input, weight);
  return format == MemoryFormat::Contiguous ? out : out.contiguous(format);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_cpu(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight, std::optional<IntArrayRef> bias_sizes,
    IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
    int64_t groups, std::array<bool, 3> output_mask) {
  const ConvGeom g = conv_geometry(input, weight, std::nullopt, stride, padding, dilation, transposed,
                                   output_padding, groups);
  check_convolution_backward(grad_output, input, weight, bias_sizes, g, transposed, groups);
  if (is_reduced_float(input.scalar_type())) {
    const ScalarType dt = input.scalar_type();
    auto [gi, gw, gb] = convolution_backward_cpu(grad_output.to(ScalarType::Float), input.to(ScalarType::Float),
                                                 weight.to(ScalarType::Float), bias_sizes, stride, padding,
                                                 dilation, transposed, output_padding, groups, output_mask);
    const auto back = [dt](const Tensor& t) { return t.defined() ? t.to(dt) : t; };
    return {back(gi), back(gw), back(gb)};
  }
  const Tensor w3 = weight3(weight, groups);
  Tensor gi, gw, gb;
  if (!transposed && (output_mask[0] || output_mask[1]) && onednn::enabled() &&
      onednn::conv_backward_supported(input, weight) && g.nsp >= 2) {
    DimVector out_spatial;
    const onednn::ConvShape shape = onednn_shape(g, groups, out_spatial);
    std::tie(gi, gw) = onednn::conv_backward(grad_output, input, weight, shape, IntArrayRef(out_spatial),
                                             output_mask[0], output_mask[1]);
  } else if (transposed && (output_mask[0] || output_mask[1]) && transpose_on_onednn(input, weight, g, groups)) {
    DimVector in_spatial;
    const onednn::ConvShape shape = onednn_shape(g, groups, in_spatial);
    if (output_mask[0]) {
      gi = onednn::conv_forward(grad_output.contiguous(), weight, std::nullopt, shape, IntArrayRef(in_spatial));
      const MemoryFormat format = conv_memory_format(input, weight);
      if (format != MemoryFormat::Contiguous) gi = gi.contiguous(format);
    }
    if (output_mask[1]) {
      gw = std::get<1>(onednn::conv_backward(input, grad_output, weight, shape, IntArrayRef(in_spatial), false, true));
    }
  }
  if (output_mask[0] && !gi.defined()) {
    gi = transposed ? forward_gemm(grad_output, w3, g) : backward_gemm(grad_output, w3, g, input.sizes()[1]);
    const MemoryFormat format = conv_memory_format(input, weight);
    if (format != MemoryFormat::Contiguous) gi = gi.contiguous(format);
  }
  if (output_mask[1] && !gw.defined()) {
    gw = (transposed ? weight_gemm(input, grad_output, g, groups) : weight_gemm(grad_output, input, g, groups))
             .view(weight.sizes());
  }
  if (output_mask[2]) {
    DimVector dims{0};
    for (int64_t i = 2; i < grad_output.dim(); ++i) dims.push_back(i);
    gb = grad_output.sum(IntArrayRef(dims));
  }
  return {gi, gw, gb};
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
