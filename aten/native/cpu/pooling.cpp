// Pooling on the CPU: max (with indices) and average pooling over 1 to 3 spatial
// dimensions, their adaptive forms, and the backward of each.
//
// Note [Pooling walk]: every pool runs on a contiguous [planes, D, H, W] view of its input
// (planes = N * C; a 2-d pool has D = 1, a 1-d pool H = D = 1), one output element at a
// time over its window, planes split across threads. A max pool's index is the offset of
// the chosen element within its plane (PyTorch's convention: h * W + w in 2-d), NaN wins
// over any number. The backward ops scatter (max) or spread (average) each output's
// gradient over the same windows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "c10/util/DimVector.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// The geometry of one pool: per spatial dimension (D, H, W; unused ones size 1).
struct PoolGeom {
  int nsp = 2;                         // spatial dimensions pooled
  int64_t planes = 1;                  // N * C
  int64_t in[3] = {1, 1, 1};           // input sizes
  int64_t out[3] = {1, 1, 1};          // output sizes
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  DimVector out_shape;                 // the output's full shape
};

// PoolGeom's sizes as a value the kernels capture by copy: the compiler then knows the
// output stores (an int64 index array among them) cannot change them, and keeps them in
// registers instead of reloading every bound after every store.
struct PoolDims {
  int64_t in[3], out[3], k[3], s[3], p[3], d[3];
};

PoolDims dims_of(const PoolGeom& g) {
  PoolDims r;
  for (int i = 0; i < 3; ++i) {
    r.in[i] = g.in[i];
    r.out[i] = g.out[i];
    r.k[i] = g.k[i];
    r.s[i] = g.s[i];
    r.p[i] = g.p[i];
    r.d[i] = g.d[i];
  }
  return r;
}

// One int[N] argument: N values, or one for all (PyTorch accepts both).
int64_t pick(IntArrayRef v, int i, int64_t fallback) {
  if (v.empty()) return fallback;
  return v.size() == 1 ? v[0] : v[static_cast<size_t>(i)];
}

int64_t pooled_size(const char* op, int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil_mode) {
  // Floor division (PyTorch's div_rtn): a kernel longer than the padded input gives 0.
  const int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  // With ceil_mode the last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  (void)op;
  return out;
}

// Checks the arguments of a pool over nsp spatial dims and computes its geometry.
PoolGeom pool_geom(const char* op, const Tensor& self, int nsp, IntArrayRef kernel, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, bool check_half_pad = true) {
  const int64_t nd = self.dim();
  EMBER_CHECK(nd == nsp + 1 || nd == nsp + 2, op, "(): Expected ", nsp + 1, "D or ", nsp + 2,
              "D (batch mode) tensor with optional 0 dim batch size for input, but got ", nd, "D ",
              self.sizes());
  for (int64_t i = nd - nsp - 1 + 1; i < nd; ++i) {
    EMBER_CHECK(self.sizes()[i] > 0, op, "(): Expected input's non-batch dimensions to have positive "
                "length, but input has a shape of ", self.sizes());
  }
  EMBER_CHECK(nd == nsp + 1 || self.sizes()[1] > 0, op, "(): Expected input's non-batch dimensions to "
              "have positive length, but input has a shape of ", self.sizes());
  auto check_len = [&](IntArrayRef v, const char* name, bool may_be_empty) {
    EMBER_CHECK(v.size() == 1 || v.size() == static_cast<size_t>(nsp) || (may_be_empty && v.empty()),
                op, "(): ", name, " must either be a single int, or a tuple of ", nsp, " ints");
  };
  check_len(kernel, "kernel_size", false);
  check_len(stride, "stride", true);
  check_len(padding, "padding", false);
  check_len(dilation, "dilation", false);
  PoolGeom g;
  g.nsp = nsp;
  g.planes = 1;
  for (int64_t i = 0; i < nd - nsp; ++i) g.planes *= self.sizes()[i];
  g.out_shape.assign(IntArrayRef(self.sizes().data(), static_cast<size_t>(nd - nsp)));
  for (int i = 0; i < nsp; ++i) {
    const int j = 3 - nsp + i;  // D, H, W slots from the right
    g.in[j] = self.sizes()[nd - nsp + i];
    g.k[j] = pick(kernel, i, 1);
    g.s[j] = pick(stride, i, g.k[j]);
    g.p[j] = pick(padding, i, 0);
    g.d[j] = pick(dilation, i, 1);
    EMBER_CHECK(g.k[j] > 0, op, "(): kernel_size should be greater than zero, but got ", kernel);
    EMBER_CHECK(g.s[j] > 0, op, "(): stride should be greater than zero, but got ", stride);
    EMBER_CHECK(g.d[j] > 0, op, "(): dilation should be greater than zero, but got ", dilation);
    EMBER_CHECK(g.p[j] >= 0, op, "(): pad should be non-negative, but got ", padding);
    if (check_half_pad) {
      EMBER_CHECK(g.p[j] <= ((g.k[j] - 1) * g.d[j] + 1) / 2, op, "(): pad should be at most half of "
                  "effective kernel size, but got pad=", g.p[j], ", kernel_size=", g.k[j], " and dilation=", g.d[j]);
    }
    g.out[j] = pooled_size(op, g.in[j], g.k[j], g.p[j], g.s[j], g.d[j], ceil_mode);
    EMBER_CHECK(g.out[j] > 0, op, "(): Given input size ", self.sizes(), ", the calculated output "
                "size is too small (", g.out[j], " along spatial dimension ", i, ")");
    g.out_shape.push_back(g.out[j]);
  }
  return g;
}

template <class T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class F>
void dispatch_pool(ScalarType dt, const char* op, F&& f) {
  EMBER_CHECK_NOT_IMPLEMENTED(is_floating_point(dt), op, "(): not implemented for dtype ", dt);
  dispatch_all_types(dt, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || Float16<T>) f(tag);
  });
}

// Max pooling takes every real dtype but bool (it only compares), as PyTorch's.
template <class F>
void dispatch_max_pool(ScalarType dt, const char* op, F&& f) {
  EMBER_CHECK_NOT_IMPLEMENTED(dt != ScalarType::Bool && !is_complex(dt), op, "(): not implemented for dtype ", dt);
  dispatch_all_types(dt, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool> && !kIsComplex<T>) f(tag);
  });
}

template <class V>
bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) return std::isnan(v);
  else return false;
}

}  // namespace

// ---- max pooling ------------------------------------------------------------------------------

namespace {

std::tuple<Tensor, Tensor> max_pool_nd(const char* op, const Tensor& self, int nsp, IntArrayRef kernel,
                                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                       bool ceil_mode) {
  const PoolGeom g = pool_geom(op, self, nsp, kernel, stride, padding, dilation, ceil_mode);
  const Tensor x = self.contiguous();
  Tensor out = ember::empty(g.out_shape, TensorOptions().dtype(self.scalar_type()));
  Tensor idx = ember::empty(g.out_shape, TensorOptions().dtype(ScalarType::Long));
  if (out.numel() == 0) return {out, idx};
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  dispatch_max_pool(self.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using V = std::conditional_t<Float16<T>, float, T>;
    const T* px = static_cast<const T*>(x.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
    int64_t* pi = static_cast<int64_t*>(idx.data_ptr());
    parallel_for(0, g.planes, std::max<int64_t>(1, 4096 / std::max<int64_t>(out_plane, 1)),
                 [&, g = dims_of(g)](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        const T* src = px + pl * in_plane;
        T* dst = po + pl * out_plane;
        int64_t* dix = pi + pl * out_plane;
        for (int64_t od = 0; od < g.out[0]; ++od) {
          const int64_t d0 = od * g.s[0] - g.p[0];
          for (int64_t oh = 0; oh < g.out[1]; ++oh) {
            const int64_t h0 = oh * g.s[1] - g.p[1];
            // Windows wholly inside the input (every column in [ow_lo, ow_hi) of a row whose
            // window rows are all inside) take a loop without bounds checks.
            const bool rows_inside = d0 >= 0 && d0 + (g.k[0] - 1) * g.d[0] < g.in[0] && h0 >= 0 &&
                                     h0 + (g.k[1] - 1) * g.d[1] < g.in[1];
            int64_t ow_lo = g.out[2], ow_hi = g.out[2];
            if (rows_inside) {
              ow_lo = std::min<int64_t>(g.out[2], (g.p[2] + g.s[2] - 1) / g.s[2]);
              const int64_t last = g.in[2] - 1 - (g.k[2] - 1) * g.d[2] + g.p[2];  // w0 + span - 1 < W
              ow_hi = last < 0 ? ow_lo : std::clamp<int64_t>(last / g.s[2] + 1, ow_lo, g.out[2]);
            }
            for (int64_t ow = ow_lo; ow < ow_hi; ++ow) {
              const int64_t w0 = ow * g.s[2] - g.p[2];
              const T* base = src + (d0 * g.in[1] + h0) * g.in[2] + w0;
              // Two passes. The maximum first, with no data-dependent branch (on real data which
              // element wins is random: the one-pass loop's branch per element, mispredicted
              // that often, cost more than the rest), noting any NaN; then the winner's offset,
              // leaving at the first element equal to the maximum (PyTorch's rule: a later
              // equal one does not take over), or the last NaN, which always does. Measured on
              // 3x3/2 windows: 31 ms against the one-pass loop's 34 (branches) or 43 (selects);
              // torch 37.
              V best = static_cast<V>(base[0]);
              bool any_nan = false;
              for (int64_t kd = 0; kd < g.k[0]; ++kd) {
                for (int64_t kh = 0; kh < g.k[1]; ++kh) {
                  const T* row = base + (kd * g.d[0] * g.in[1] + kh * g.d[1]) * g.in[2];
                  for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                    const V v = static_cast<V>(row[kw * g.d[2]]);
                    best = v > best ? v : best;
                    any_nan |= is_nan(v);
                  }
                }
              }
              int64_t best_off = 0;
              for (int64_t kd = 0; kd < g.k[0]; ++kd) {
                for (int64_t kh = 0; kh < g.k[1]; ++kh) {
                  const int64_t off = (kd * g.d[0] * g.in[1] + kh * g.d[1]) * g.in[2];
                  for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                    const V v = static_cast<V>(base[off + kw * g.d[2]]);
                    if (any_nan ? is_nan(v) : v == best) {
                      best_off = off + kw * g.d[2];
                      if (!any_nan) goto found;
                    }
                  }
                }
              }
            found:
              if (any_nan) best = static_cast<V>(base[best_off]);
              const int64_t o = (od * g.out[1] + oh) * g.out[2] + ow;
              dst[o] = static_cast<T>(best);
              dix[o] = (d0 * g.in[1] + h0) * g.in[2] + w0 + best_off;
            }
            for (int64_t ow = 0; ow < g.out[2]; ++ow) {
              if (ow == ow_lo) ow = ow_hi;  // (done above)
              if (ow >= g.out[2]) break;
              const int64_t w0 = ow * g.s[2] - g.p[2];
              V best{};
              int64_t best_i = -1;
              for (int64_t kd = 0; kd < g.k[0]; ++kd) {
                const int64_t id = d0 + kd * g.d[0];
                if (id < 0 || id >= g.in[0]) continue;
                for (int64_t kh = 0; kh < g.k[1]; ++kh) {
                  const int64_t ih = h0 + kh * g.d[1];
                  if (ih < 0 || ih >= g.in[1]) continue;
                  const int64_t row = (id * g.in[1] + ih) * g.in[2];
                  for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                    const int64_t iw = w0 + kw * g.d[2];
                    if (iw < 0 || iw >= g.in[2]) continue;
                    const V v = static_cast<V>(src[row + iw]);
                    // PyTorch's rule: a NaN always takes over (so the last NaN's index).
                    if (best_i < 0 || v > best || is_nan(v)) {
                      best = v;
                      best_i = row + iw;
                    }
                  }
                }
              }
              const int64_t o = (od * g.out[1] + oh) * g.out[2] + ow;
              dst[o] = static_cast<T>(best);
              dix[o] = best_i;
            }
          }
        }
      }
    });
  });
  return {out, idx};
}

Tensor max_pool_backward_nd(const char* op, const Tensor& grad_output, const Tensor& self, int nsp,
                            IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                            bool ceil_mode, const Tensor& indices) {
  const PoolGeom g = pool_geom(op, self, nsp, kernel, stride, padding, dilation, ceil_mode);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(g.out_shape) && indices.sizes() == IntArrayRef(g.out_shape),
              op, "(): expected 'grad_output' and 'indices' of the pooled shape ", IntArrayRef(g.out_shape),
              ", but got ", grad_output.sizes(), " and ", indices.sizes());
  EMBER_CHECK(indices.scalar_type() == ScalarType::Long, op, "(): expected 'indices' of dtype int64, but got ",
              indices.scalar_type());
  EMBER_CHECK(grad_output.scalar_type() == self.scalar_type(), op, "(): expected 'grad_output' of self's "
              "dtype ", self.scalar_type(), ", but got ", grad_output.scalar_type());
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  const Tensor go = grad_output.contiguous(), ix = indices.contiguous();
  Tensor gi = ember::zeros(self.sizes(), TensorOptions().dtype(self.scalar_type()));
  if (go.numel() == 0) return gi;
  const int64_t* pix = static_cast<const int64_t*>(ix.data_ptr());
  for (int64_t i = 0; i < ix.numel(); ++i) {
    EMBER_CHECK_INDEX(pix[i] >= -1 && pix[i] < in_plane, op, "(): index ", pix[i], " of 'indices' is out of "
                      "bounds for a plane of ", in_plane, " elements");
  }
  dispatch_max_pool(self.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using V = std::conditional_t<Float16<T>, float, T>;
    const T* pg = static_cast<const T*>(go.data_ptr());
    T* pd = static_cast<T*>(gi.data_ptr());
    parallel_for(0, g.planes, std::max<int64_t>(1, 4096 / std::max<int64_t>(out_plane, 1)),
                 [&, g = dims_of(g)](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        for (int64_t o = 0; o < out_plane; ++o) {
          const int64_t i = pix[pl * out_plane + o];
          if (i < 0) continue;
          T& dst = pd[pl * in_plane + i];
          dst = static_cast<T>(static_cast<V>(dst) + static_cast<V>(pg[pl * out_plane + o]));
        }
      }
    });
  });
  return gi;
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices_cpu(const Tensor& self, IntArrayRef kernel_size,
                                                       IntArrayRef stride, IntArrayRef padding,
                                                       IntArrayRef dilation, bool ceil_mode) {
  return max_pool_nd("max_pool2d", self, 2, kernel_size, stride, padding, dilation, ceil_mode);
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices_cpu(const Tensor& self, IntArrayRef kernel_size,
                                                       IntArrayRef stride, IntArrayRef padding,
                                                       IntArrayRef dilation, bool ceil_mode) {
  return max_pool_nd("max_pool3d", self, 3, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor max_pool2d_with_indices_backward_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                            IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                            bool ceil_mode, const Tensor& indices) {
  return max_pool_backward_nd("max_pool2d_with_indices_backward", grad_output, self, 2, kernel_size, stride,
                              padding, dilation, ceil_mode, indices);
}

Tensor max_pool3d_with_indices_backward_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                            IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                            bool ceil_mode, const Tensor& indices) {
  return max_pool_backward_nd("max_pool3d_with_indices_backward", grad_output, self, 3, kernel_size, stride,
                              padding, dilation, ceil_mode, indices);
}

// ---- average pooling ------------------------------------------------------------------------

namespace {

// The window of output o along one dim, clamped to the input, and its size with padding.
struct Window {
  int64_t start, end, padded;
};

Window avg_window(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p) {
  int64_t start = o * s - p;
  int64_t end = std::min(start + k, in + p);
  const int64_t padded = end - start;
  start = std::max<int64_t>(start, 0);
  end = std::min(end, in);
  return {start, end, padded};
}

template <bool Backward>
Tensor avg_pool_nd(const char* op, const Tensor& self, const Tensor* grad_output, int nsp, IntArrayRef kernel,
                   IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                   std::optional<int64_t> divisor_override) {
  const int64_t one[] = {1};
  const PoolGeom g = pool_geom(op, self, nsp, kernel, stride, padding, one, ceil_mode);
  EMBER_CHECK(!divisor_override || *divisor_override != 0, op, "(): divisor must be not zero");
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  const Tensor x = self.contiguous();
  Tensor go;
  if constexpr (Backward) {
    EMBER_CHECK(grad_output->sizes() == IntArrayRef(g.out_shape), op, "(): expected 'grad_output' of the "
                "pooled shape ", IntArrayRef(g.out_shape), ", but got ", grad_output->sizes());
    EMBER_CHECK(grad_output->scalar_type() == self.scalar_type(), op, "(): expected 'grad_output' of self's "
                "dtype ", self.scalar_type(), ", but got ", grad_output->scalar_type());
    go = grad_output->contiguous();
  }
  Tensor out = Backward ? ember::zeros(self.sizes(), TensorOptions().dtype(self.scalar_type()))
                        : ember::empty(g.out_shape, TensorOptions().dtype(self.scalar_type()));
  if (g.planes * out_plane == 0) return out;
  dispatch_pool(self.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = static_cast<const T*>(x.data_ptr());
    const T* pg = Backward ? static_cast<const T*>(go.data_ptr()) : nullptr;
    T* po = static_cast<T*>(out.data_ptr());
    parallel_for(0, g.planes, std::max<int64_t>(1, 4096 / std::max<int64_t>(out_plane, 1)),
                 [&, g = dims_of(g)](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        for (int64_t od = 0; od < g.out[0]; ++od) {
          const Window wd = avg_window(od, g.in[0], g.k[0], g.s[0], g.p[0]);
          for (int64_t oh = 0; oh < g.out[1]; ++oh) {
            const Window wh = avg_window(oh, g.in[1], g.k[1], g.s[1], g.p[1]);
            for (int64_t ow = 0; ow < g.out[2]; ++ow) {
              const Window ww = avg_window(ow, g.in[2], g.k[2], g.s[2], g.p[2]);
              const int64_t count = (wd.end - wd.start) * (wh.end - wh.start) * (ww.end - ww.start);
              const int64_t divisor = divisor_override ? *divisor_override
                                      : count_include_pad ? wd.padded * wh.padded * ww.padded : count;
              const int64_t o = pl * out_plane + (od * g.out[1] + oh) * g.out[2] + ow;
              if constexpr (Backward) {
                const Acc<T> share = static_cast<Acc<T>>(pg[o]) / static_cast<Acc<T>>(divisor);
                for (int64_t id = wd.start; id < wd.end; ++id) {
                  for (int64_t ih = wh.start; ih < wh.end; ++ih) {
                    T* row = po + pl * in_plane + (id * g.in[1] + ih) * g.in[2];
                    for (int64_t iw = ww.start; iw < ww.end; ++iw) {
                      row[iw] = static_cast<T>(static_cast<Acc<T>>(row[iw]) + share);
                    }
                  }
                }
              } else {
                Acc<T> sum = 0;
                for (int64_t id = wd.start; id < wd.end; ++id) {
                  for (int64_t ih = wh.start; ih < wh.end; ++ih) {
                    const T* row = px + pl * in_plane + (id * g.in[1] + ih) * g.in[2];
                    for (int64_t iw = ww.start; iw < ww.end; ++iw) sum += static_cast<Acc<T>>(row[iw]);
                  }
                }
                po[o] = static_cast<T>(sum / static_cast<Acc<T>>(divisor));
              }
            }
          }
        }
      }
    });
  });
  return out;
}

}  // namespace

Tensor avg_pool2d_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool_nd<false>("avg_pool2d", self, nullptr, 2, kernel_size, stride, padding, ceil_mode,
                            count_include_pad, divisor_override);
}

Tensor avg_pool3d_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool_nd<false>("avg_pool3d", self, nullptr, 3, kernel_size, stride, padding, ceil_mode,
                            count_include_pad, divisor_override);
}

Tensor avg_pool2d_backward_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                               IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                               std::optional<int64_t> divisor_override) {
  return avg_pool_nd<true>("avg_pool2d_backward", self, &grad_output, 2, kernel_size, stride, padding, ceil_mode,
                           count_include_pad, divisor_override);
}

Tensor avg_pool3d_backward_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                               IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                               std::optional<int64_t> divisor_override) {
  return avg_pool_nd<true>("avg_pool3d_backward", self, &grad_output, 3, kernel_size, stride, padding, ceil_mode,
                           count_include_pad, divisor_override);
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
