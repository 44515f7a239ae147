// Convolution on the CPU over 1 to 3 spatial dimensions, plain and transposed, and its
// backward op.
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
// image itself is the column matrix. The GEMMs run on MKL (Blas.h); the column matrix of
// one sample is built in parallel by rows.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "aten/TensorOperators.h"
#include "aten/native/Dispatch.h"
#include "aten/native/MemoryFormats.h"
#include "aten/native/Parallel.h"
#include "aten/native/linalg/Blas.h"
#include "aten/native/onednn/Conv.h"
#include "c10/core/Threads.h"
#include "c10/util/Exception.h"
#include "ember/generated/Functions.h"
#include "ember/generated/NativeFunctions.h"

#if !EMBER_HAVE_ONEDNN
// A build without oneDNN (EMBER_ONEDNN=OFF): every convolution takes the im2col + GEMM path.
namespace ember::native::onednn {
bool available() { return false; }
bool enabled() { return false; }
void set_enabled(bool) {}
int64_t cached_weights() { return 0; }
bool conv_forward_supported(const Tensor&, const Tensor&) { return false; }
bool conv_backward_supported(const Tensor&, const Tensor&) { return false; }
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

// The geometry of one convolution, per spatial dimension (D, H, W; unused ones size 1).
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

// The spatial shape of a (N, C, spatial...) tensor's output or image.
DimVector full_shape(int64_t n, int64_t c, const ConvGeom& g, bool image) {
  DimVector shape{n, c};
  for (int i = 3 - g.nsp; i < 3; ++i) shape.push_back(image ? g.img[i] : g.out[i]);
  return shape;
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

// One int[] argument of a convolution: nsp values, or one for all.
int64_t pick(const char* arg, IntArrayRef v, int nsp, int i) {
  EMBER_CHECK(v.size() == 1 || static_cast<int>(v.size()) == nsp, "convolution(): expected ", arg,
              " to be a single integer or a list of ", nsp, " integers, but got ", v.size(), " values ", v);
  return v.size() == 1 ? v[0] : v[static_cast<size_t>(i)];
}

// Checks a call and returns its geometry (img = the input's spatial sizes for a convolution,
// the output's for a transposed one).
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
  EMBER_CHECK_NOT_IMPLEMENTED(dt == ScalarType::Float || dt == ScalarType::Double, "convolution(): not "
                              "implemented for dtype ", dt, " (float32 and float64 are)");
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

// The weight (O, I/G, k...) as (G, O/G, I/G * K), the GEMMs' operand.
Tensor weight3(const Tensor& w, int64_t groups) {
  return w.contiguous().view({groups, w.sizes()[0] / groups, -1});
}

// The memory format PyTorch gives a convolution's result: channels_last when the input or
// the weight is (and is not also plainly contiguous), else contiguous.
MemoryFormat conv_memory_format(const Tensor& input, const Tensor& weight) {
  if (input.dim() != 4 && input.dim() != 5) return MemoryFormat::Contiguous;
  const MemoryFormat cl = input.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
  for (const Tensor* t : {&input, &weight}) {
    if (!t->is_contiguous() && is_contiguous_in(t->sizes(), t->strides(), cl)) return cl;
  }
  return MemoryFormat::Contiguous;
}

Tensor bias_view(const Tensor& bias, int64_t dim) {
  DimVector shape(static_cast<size_t>(dim), 1);
  shape[1] = bias.sizes()[0];
  return bias.view(shape);
}

}  // namespace

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

Tensor convolution_cpu(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                       IntArrayRef output_padding, int64_t groups) {
  const ConvGeom g = conv_geometry(input, weight, bias, stride, padding, dilation, transposed,
                                   output_padding, groups);
  if (!transposed && onednn::enabled() && onednn::conv_forward_supported(input, weight)) {
    DimVector out_spatial;
    const onednn::ConvShape shape = onednn_shape(g, groups, out_spatial);
    return onednn::conv_forward(input, weight, bias, shape, IntArrayRef(out_spatial));
  }
  Tensor out;
  if (!transposed) {
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
  const Tensor w3 = weight3(weight, groups);
  Tensor gi, gw, gb;
  if (!transposed && (output_mask[0] || output_mask[1]) && onednn::enabled() &&
      onednn::conv_backward_supported(input, weight) && g.nsp >= 2) {
    DimVector out_spatial;
    const onednn::ConvShape shape = onednn_shape(g, groups, out_spatial);
    std::tie(gi, gw) = onednn::conv_backward(grad_output, input, weight, shape, IntArrayRef(out_spatial),
                                             output_mask[0], output_mask[1]);
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

}  // namespace ember::native
