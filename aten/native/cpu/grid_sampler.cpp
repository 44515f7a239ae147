// grid_sampler_2d on the CPU: samples input (N, C, H, W) at the normalized (x, y) points of
// grid (N, H_out, W_out, 2), bilinear, nearest or bicubic, with zeros, border or
// reflection padding, and the backward that returns (grad_input, grad_grid).
// CPU copies: baseline only (gathers at computed coordinates, not vector loops).
//
// Note [Grid sampler arithmetic]: the coordinate maths follows PyTorch's vectorized CPU
// kernel (GridSamplerKernel.cpp) operation for operation, in the element type: unnormalize
// is (x + 1) * scale (- 0.5 without align_corners), reflection folds |x - low| by its
// double span, clipping is a clamp whose gradient is 0 on and past either border, nearest
// rounds half to even, and bilinear weights are products of (x - floor x) and its
// complement. Each output point computes its location once and then walks the channels.
// The kernels read input, grid and grad_output through their strides (no copies).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/clip.h"
#include "ember/generated/ops/clip_native.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

enum class Interp : int64_t { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class Pad : int64_t { Zeros = 0, Border = 1, Reflection = 2 };

// The sizes of one grid_sampler_2d call.
struct GridGeom {
  int64_t n = 0, c = 0, h = 0, w = 0, ho = 0, wo = 0;
};

GridGeom check_grid_sampler(const char* op, const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                            int64_t padding_mode) {
  EMBER_CHECK(input.dim() == 4 && grid.dim() == 4, op, "(): expected 4-D input (N, C, H, W) and 4-D grid "
              "(N, H_out, W_out, 2), but got input of shape ", input.sizes(), " and grid of shape ", grid.sizes());
  EMBER_CHECK(input.sizes()[0] == grid.sizes()[0], op, "(): expected grid and input to have the same batch "
              "size, but got input of shape ", input.sizes(), " and grid of shape ", grid.sizes());
  EMBER_CHECK(grid.sizes()[3] == 2, op, "(): expected grid of shape (N, H_out, W_out, 2), but got ",
              grid.sizes());
  EMBER_CHECK(input.sizes()[2] > 0 && input.sizes()[3] > 0, op, "(): expected input to have non-empty "
              "spatial dimensions, but got input of shape ", input.sizes());
  EMBER_CHECK_NOT_IMPLEMENTED(input.scalar_type() == ScalarType::Float || input.scalar_type() == ScalarType::Double,
                              op, "(): not implemented for input of dtype ", input.scalar_type(),
                              " (float32 and float64 are)");
  EMBER_CHECK(grid.scalar_type() == input.scalar_type(), op, "(): expected grid of input's dtype ",
              input.scalar_type(), ", but got ", grid.scalar_type());
  EMBER_CHECK_VALUE(interpolation_mode >= 0 && interpolation_mode <= 2, op, "(): expected interpolation_mode "
                    "0 (bilinear), 1 (nearest) or 2 (bicubic), but got ", interpolation_mode);
  EMBER_CHECK_VALUE(padding_mode >= 0 && padding_mode <= 2, op, "(): expected padding_mode 0 (zeros), "
                    "1 (border) or 2 (reflection), but got ", padding_mode);
  return {input.sizes()[0], input.sizes()[1], input.sizes()[2], input.sizes()[3], grid.sizes()[1], grid.sizes()[2]};
}

// One spatial axis of the input: maps a normalized grid coordinate to a pixel coordinate
// (Note [Grid sampler arithmetic]), optionally with d(pixel)/d(grid).
template <class T>
struct Axis {
  int64_t size;
  Pad pad;
  T max_val, scale, low, twice_span;
  bool align, empty;

  Axis(int64_t n, Pad p, bool align_corners)
      : size(n), pad(p), max_val(static_cast<T>(n - 1)),
        scale(align_corners ? static_cast<T>(n - 1) / 2 : static_cast<T>(n) / 2),
        low(align_corners ? T(0) : T(-0.5)),
        twice_span(align_corners ? static_cast<T>(n - 1) * 2 : static_cast<T>(n) * 2),
        align(align_corners), empty(align_corners ? n <= 1 : n <= 0) {}

  T unnormalize(T x) const { return align ? (x + T(1)) * scale : (x + T(1)) * scale - T(0.5); }

  // The clamp to [0, size - 1] (NaN becomes 0); *grad is 0 on and past either border.
  T clip(T x, T* grad) const {
    const T lo = x > T(0) ? x : T(0);
    const T res = lo < max_val ? lo : max_val;
    if (grad) *grad = (lo != T(0) && res != max_val) ? T(1) : T(0);
    return res;
  }

  T reflect(T x, T* grad) const {
    if (empty) {
      if (grad) *grad = T(0);
      return T(0);
    }
    const T in = x - low;
    const T a = std::fabs(in);
    const T extra = a - std::trunc(a / twice_span) * twice_span;
    const T reflected = twice_span - extra;
    const bool flip = extra > reflected;
    if (grad) *grad = (flip != (in < T(0))) ? T(-1) : T(1);
    return (flip ? reflected : extra) + low;
  }

  // Padding applied to an unnormalized coordinate (bicubic applies it per tap).
  T pad_coord(T x) const {
    if (pad == Pad::Border) return clip(x, nullptr);
    if (pad == Pad::Reflection) return clip(reflect(x, nullptr), nullptr);
    return x;
  }

  // The pixel coordinate of grid value g; *grad (when given) its derivative.
  T locate(T g, T* grad) const {
    T x = unnormalize(g);
    T d = scale;
    if (pad == Pad::Border) {
      T dc;
      x = clip(x, &dc);
      d = dc * d;
    } else if (pad == Pad::Reflection) {
      T dr, dc;
      x = clip(reflect(x, &dr), &dc);
      d = dc * (dr * d);
    }
    if (grad) *grad = d;
    return x;
  }

  // Whether the integral coordinate i (a float holding an integer) lies in [0, size).
  bool inside(T i) const { return i > T(-1) && i < static_cast<T>(size); }
};

// Bicubic convolution weights of the four taps at offsets -1..2 from floor(x), t = x - floor(x)
// (A = -0.75, as PyTorch), and their derivatives in t.
template <class T>
std::array<T, 4> cubic_coeffs(T t) {
  const T a = T(-0.75);
  std::array<T, 4> c;
  T x = t + T(1);
  c[0] = ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a;
  x = t;
  c[1] = ((a + T(2)) * x - (a + T(3))) * x * x + T(1);
  x = T(1) - t;
  c[2] = ((a + T(2)) * x - (a + T(3))) * x * x + T(1);
  x = T(2) - t;
  c[3] = ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a;
  return c;
}

template <class T>
std::array<T, 4> cubic_coeffs_grad(T t) {
  const T a = T(-0.75);
  std::array<T, 4> c;
  T x = T(-1) - t;
  c[0] = (T(-3) * a * x - T(10) * a) * x - T(8) * a;
  x = T(0) - t;
  c[1] = (T(-3) * (a + T(2)) * x - T(2) * (a + T(3))) * x;
  x = T(1) - t;
  c[2] = (T(3) * (a + T(2)) * x - T(2) * (a + T(3))) * x;
  x = T(2) - t;
  c[3] = (T(3) * a * x - T(10) * a) * x + T(8) * a;
  return c;
}

// Strided views of the tensors a kernel reads and writes.
template <class T>
struct Plane4 {
  T* data;
  int64_t s0, s1, s2, s3;
  explicit Plane4(const Tensor& t)
      : data(static_cast<T*>(t.data_ptr())), s0(t.strides()[0]), s1(t.strides()[1]), s2(t.strides()[2]),
        s3(t.strides()[3]) {}
};

// A bicubic tap's offset within a channel plane, or -1 outside the input (after padding).
template <class T>
int64_t tap_offset(const Axis<T>& ax, const Axis<T>& ay, T x, T y, int64_t sx, int64_t sy) {
  const T px = ax.pad_coord(x), py = ay.pad_coord(y);
  if (!(ax.inside(px) && ay.inside(py))) return -1;
  return static_cast<int64_t>(py) * sy + static_cast<int64_t>(px) * sx;
}

template <class T>
void sample_forward(const GridGeom& g, const Tensor& input, const Tensor& grid, const Tensor& out, Interp mode,
                    Pad pad, bool align) {
  const Plane4<T> in(input), gr(grid), o(out);
  const Axis<T> ax(g.w, pad, align), ay(g.h, pad, align);
  const int64_t points = g.n * g.ho * g.wo;
  parallel_for(0, points, std::max<int64_t>(1, 2048 / std::max<int64_t>(g.c, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t n = p / (g.ho * g.wo), ho = (p / g.wo) % g.ho, wo = p % g.wo;
      const T* gp = gr.data + n * gr.s0 + ho * gr.s1 + wo * gr.s2;
      const T* src = in.data + n * in.s0;
      T* dst = o.data + n * o.s0 + ho * o.s2 + wo * o.s3;
      if (mode == Interp::Bilinear) {
        const T x = ax.locate(gp[0], nullptr), y = ay.locate(gp[gr.s3], nullptr);
        const T xw = std::floor(x), yn = std::floor(y);
        const T w = x - xw, e = T(1) - w, nn = y - yn, s = T(1) - nn;
        const T nw = s * e, ne = s * w, sw = nn * e, se = nn * w;
        const bool in_w = ax.inside(xw), in_e = ax.inside(xw + T(1));
        const bool in_n = ay.inside(yn), in_s = ay.inside(yn + T(1));
        const int64_t ix = in_w || in_e ? static_cast<int64_t>(xw) : 0;
        const int64_t iy = in_n || in_s ? static_cast<int64_t>(yn) : 0;
        const int64_t onw = iy * in.s2 + ix * in.s3;
        for (int64_t c = 0; c < g.c; ++c) {
          const T* pc = src + c * in.s1 + onw;
          const T vnw = in_n && in_w ? pc[0] : T(0);
          const T vne = in_n && in_e ? pc[in.s3] : T(0);
          const T vsw = in_s && in_w ? pc[in.s2] : T(0);
          const T vse = in_s && in_e ? pc[in.s2 + in.s3] : T(0);
          dst[c * o.s1] = vnw * nw + vne * ne + vsw * sw + vse * se;
        }
      } else if (mode == Interp::Nearest) {
        const T x = std::nearbyint(ax.locate(gp[0], nullptr)), y = std::nearbyint(ay.locate(gp[gr.s3], nullptr));
        const bool inside = ax.inside(x) && ay.inside(y);
        const int64_t off = inside ? static_cast<int64_t>(y) * in.s2 + static_cast<int64_t>(x) * in.s3 : 0;
        for (int64_t c = 0; c < g.c; ++c) dst[c * o.s1] = inside ? src[c * in.s1 + off] : T(0);
      } else {
        const T x = ax.unnormalize(gp[0]), y = ay.unnormalize(gp[gr.s3]);
        const T fx = std::floor(x), fy = std::floor(y);
        const std::array<T, 4> cx = cubic_coeffs(x - fx), cy = cubic_coeffs(y - fy);
        int64_t off[4][4];
        for (int j = 0; j < 4; ++j) {
          for (int i = 0; i < 4; ++i) {
            off[j][i] = tap_offset(ax, ay, fx + T(i - 1), fy + T(j - 1), in.s3, in.s2);
          }
        }
        for (int64_t c = 0; c < g.c; ++c) {
          const T* pc = src + c * in.s1;
          auto val = [&](int j, int i) { return off[j][i] < 0 ? T(0) : pc[off[j][i]]; };
          T row[4];
          for (int j = 0; j < 4; ++j) {
            row[j] = cx[0] * val(j, 0) + cx[1] * val(j, 1) + cx[2] * val(j, 2) + cx[3] * val(j, 3);
          }
          dst[c * o.s1] = cy[0] * row[0] + cy[1] * row[1] + cy[2] * row[2] + cy[3] * row[3];
        }
      }
    }
  });
}

template <class T>
void sample_backward(const GridGeom& g, const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                     const Tensor& grad_input, const Tensor& grad_grid, Interp mode, Pad pad, bool align) {
  const Plane4<T> go(grad_output), in(input), gr(grid);
  const bool want_input = grad_input.defined(), want_grid = grad_grid.defined();
  // grad_input and grad_grid are fresh contiguous tensors.
  T* gi = want_input ? static_cast<T*>(grad_input.data_ptr()) : nullptr;
  T* gg = want_grid ? static_cast<T*>(grad_grid.data_ptr()) : nullptr;
  const int64_t gi_s1 = g.h * g.w, gi_s0 = g.c * gi_s1;
  const Axis<T> ax(g.w, pad, align), ay(g.h, pad, align);
  // Each batch element writes only its own slices of grad_input and grad_grid.
  parallel_for(0, g.n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const T* src = in.data + n * in.s0;
      T* dgi = want_input ? gi + n * gi_s0 : nullptr;
      for (int64_t ho = 0; ho < g.ho; ++ho) {
        for (int64_t wo = 0; wo < g.wo; ++wo) {
          const T* gp = gr.data + n * gr.s0 + ho * gr.s1 + wo * gr.s2;
          const T* gout = go.data + n * go.s0 + ho * go.s2 + wo * go.s3;
          T* dgrid = want_grid ? gg + ((n * g.ho + ho) * g.wo + wo) * 2 : nullptr;
          T gx = T(0), gy = T(0);
          if (mode == Interp::Bilinear) {
            T mx, my;
            const T x = ax.locate(gp[0], &mx), y = ay.locate(gp[gr.s3], &my);
            const T xw = std::floor(x), yn = std::floor(y);
            const T w = x - xw, e = T(1) - w, nn = y - yn, s = T(1) - nn;
            const T nw = s * e, ne = s * w, sw = nn * e, se = nn * w;
            const bool in_w = ax.inside(xw), in_e = ax.inside(xw + T(1));
            const bool in_n = ay.inside(yn), in_s = ay.inside(yn + T(1));
            const int64_t ix = in_w || in_e ? static_cast<int64_t>(xw) : 0;
            const int64_t iy = in_n || in_s ? static_cast<int64_t>(yn) : 0;
            const int64_t onw = iy * in.s2 + ix * in.s3, gnw = iy * g.w + ix;
            for (int64_t c = 0; c < g.c; ++c) {
              const T d = gout[c * go.s1];
              if (want_input) {
                T* pc = dgi + c * gi_s1 + gnw;
                if (in_n && in_w) pc[0] += d * nw;
                if (in_n && in_e) pc[1] += d * ne;
                if (in_s && in_w) pc[g.w] += d * sw;
                if (in_s && in_e) pc[g.w + 1] += d * se;
              }
              const T* pc = src + c * in.s1 + onw;
              const T vnw = in_n && in_w ? pc[0] : T(0);
              const T vne = in_n && in_e ? pc[in.s3] : T(0);
              const T vsw = in_s && in_w ? pc[in.s2] : T(0);
              const T vse = in_s && in_e ? pc[in.s2 + in.s3] : T(0);
              gx = gx + ((vne - vnw) * s + (vse - vsw) * nn) * d;
              gy = gy + ((vsw - vnw) * e + (vse - vne) * w) * d;
            }
            gx = gx * mx;
            gy = gy * my;
          } else if (mode == Interp::Nearest) {
            if (want_input) {
              const T x = std::nearbyint(ax.locate(gp[0], nullptr)), y = std::nearbyint(ay.locate(gp[gr.s3], nullptr));
              if (ax.inside(x) && ay.inside(y)) {
                T* pc = dgi + static_cast<int64_t>(y) * g.w + static_cast<int64_t>(x);
                for (int64_t c = 0; c < g.c; ++c) pc[c * gi_s1] += gout[c * go.s1];
              }
            }
          } else {
            const T x = ax.unnormalize(gp[0]), y = ay.unnormalize(gp[gr.s3]);
            const T fx = std::floor(x), fy = std::floor(y);
            const std::array<T, 4> cx = cubic_coeffs(x - fx), cy = cubic_coeffs(y - fy);
            const std::array<T, 4> dx = cubic_coeffs_grad(x - fx), dy = cubic_coeffs_grad(y - fy);
            int64_t off[4][4], goff[4][4];
            for (int i = 0; i < 4; ++i) {
              for (int j = 0; j < 4; ++j) {
                off[i][j] = tap_offset(ax, ay, fx + T(i - 1), fy + T(j - 1), in.s3, in.s2);
                goff[i][j] = tap_offset(ax, ay, fx + T(i - 1), fy + T(j - 1), int64_t(1), g.w);
              }
            }
            for (int64_t c = 0; c < g.c; ++c) {
              const T d = gout[c * go.s1];
              const T* pc = src + c * in.s1;
              for (int i = 0; i < 4; ++i) {
                for (int j = 0; j < 4; ++j) {
                  if (want_input && goff[i][j] >= 0) dgi[c * gi_s1 + goff[i][j]] += d * cx[i] * cy[j];
                  const T v = off[i][j] < 0 ? T(0) : pc[off[i][j]];
                  gx = gx - v * d * dx[i] * cy[j];
                  gy = gy - v * d * dy[j] * cx[i];
                }
              }
            }
            gx = ax.scale * gx;
            gy = ay.scale * gy;
          }
          if (want_grid) {
            dgrid[0] = gx;
            dgrid[1] = gy;
          }
        }
      }
    }
  });
}

template <class F>
void dispatch_grid_type(ScalarType dt, F&& f) {
  if (dt == ScalarType::Float) f(TypeTag<float>{});
  else f(TypeTag<double>{});
}

}  // namespace

Tensor grid_sampler_2d_cpu(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                           bool align_corners) {
  const GridGeom g = check_grid_sampler("grid_sampler_2d", input, grid, interpolation_mode, padding_mode);
  Tensor out = ember::empty({g.n, g.c, g.ho, g.wo}, input.options());
  if (out.numel() == 0) return out;
  dispatch_grid_type(input.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    sample_forward<T>(g, input, grid, out, static_cast<Interp>(interpolation_mode), static_cast<Pad>(padding_mode),
                      align_corners);
  });
  return out;
}

std::tuple<Tensor, Tensor> grid_sampler_2d_backward_cpu(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& grid, int64_t interpolation_mode,
                                                        int64_t padding_mode, bool align_corners,
                                                        std::array<bool, 2> output_mask) {
  const char* op = "grid_sampler_2d_backward";
  const GridGeom g = check_grid_sampler(op, input, grid, interpolation_mode, padding_mode);
  EMBER_CHECK(grad_output.dim() == 4 && grad_output.sizes()[0] == g.n && grad_output.sizes()[1] == g.c &&
                  grad_output.sizes()[2] == g.ho && grad_output.sizes()[3] == g.wo,
              op, "(): expected grad_output of shape (", g.n, ", ", g.c, ", ", g.ho, ", ", g.wo, "), but got ",
              grad_output.sizes());
  EMBER_CHECK(grad_output.scalar_type() == input.scalar_type(), op, "(): expected grad_output of input's dtype ",
              input.scalar_type(), ", but got ", grad_output.scalar_type());
  Tensor grad_input = output_mask[0] ? ember::zeros(input.sizes(), input.options()) : Tensor();
  // Nearest sampling is piecewise constant in the grid: its gradient there is zero.
  Tensor grad_grid;
  if (output_mask[1]) {
    grad_grid = static_cast<Interp>(interpolation_mode) == Interp::Nearest
                    ? ember::zeros(grid.sizes(), grid.options())
                    : ember::empty(grid.sizes(), grid.options());
  }
  if (grad_output.numel() == 0 || (!grad_input.defined() && !grad_grid.defined())) {
    if (grad_grid.defined()) grad_grid.zero_();
    return {grad_input, grad_grid};
  }
  dispatch_grid_type(input.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    sample_backward<T>(g, grad_output, input, grid, grad_input, grad_grid, static_cast<Interp>(interpolation_mode),
                       static_cast<Pad>(padding_mode), align_corners);
  });
  return {grad_input, grad_grid};
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
