// softmax and log_softmax on the CPU, forward and backward.
//
// Note [Softmax walk]: the input is viewed as [outer, n, inner] (n the softmax dimension)
// of a contiguous tensor. With inner == 1 each row of n elements is done whole while it
// sits in L1/L2: one pass for the maximum, one for exp(x - max) (stored, for softmax) and
// its sum, one to scale (softmax) or shift (log_softmax: x - max - log(sum)). One exp per
// element, rows split across threads. With inner > 1 the same three passes run over
// [n, inner] slabs with the vectors along inner. float16 and bfloat16 compute in float32.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "aten/native/CpuCapability.h"
#include "aten/native/DimUtils.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/cpu/Vectorized.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

template <class T>
using Vec = Vectorized<T>;

// Lane-wise maximum (NaN lanes stay whatever they were: a NaN input makes every output
// NaN through the sum anyway).
template <class T>
Vec<T> vmax(Vec<T> a, Vec<T> b) {
  return a.v > b.v ? a.v : b.v;
}

template <class T>
T row_max(const T* x, int64_t n) {
  constexpr int K = Vec<T>::kSize;
  int64_t j = 0;
  T m = -std::numeric_limits<T>::infinity();
  if (n >= K) {
    Vec<T> acc = Vec<T>::loadu(x);
    for (j = K; j + K <= n; j += K) acc = vmax(acc, Vec<T>::loadu(x + j));
    T lanes[K];
    acc.store(lanes);
    for (int l = 0; l < K; ++l) m = std::max(m, lanes[l]);
  }
  for (; j < n; ++j) m = x[j] > m ? x[j] : m;
  return m;
}

template <class T>
T lanes_sum(Vec<T> v) {
  constexpr int K = Vec<T>::kSize;
  T lanes[K];
  v.store(lanes);
  T s = 0;
  for (int l = 0; l < K; ++l) s += lanes[l];
  return s;
}

// sum of exp(x - m), storing each term in out when out is non-null.
template <class T>
T exp_sum(const T* x, T m, T* out, int64_t n) {
  constexpr int K = Vec<T>::kSize;
  const Vec<T> vm(m);
  Vec<T> acc(T(0));
  int64_t j = 0;
  for (; j + K <= n; j += K) {
    const Vec<T> e = vec::exp(Vec<T>::loadu(x + j) - vm);
    if (out) e.store(out + j);
    acc = acc + e;
  }
  T s = lanes_sum(acc);
  for (; j < n; ++j) {
    const T e = std::exp(x[j] - m);
    if (out) out[j] = e;
    s += e;
  }
  return s;
}

template <class T, bool Log>
void softmax_rows(const T* in, T* out, int64_t rows, int64_t n) {
  parallel_for(0, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const T* x = in + r * n;
      T* y = out + r * n;
      const T m = row_max(x, n);
      if constexpr (Log) {
        // (x - max) - log(sum), in that order: x - (max + log(sum)) loses log(sum) when
        // max is large.
        const T lse = std::log(exp_sum<T>(x, m, nullptr, n));
        for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - m) - lse;
      } else {
        const T inv = T(1) / exp_sum<T>(x, m, y, n);
        for (int64_t j = 0; j < n; ++j) y[j] *= inv;
      }
    }
  });
}

// [outer, n, inner] with inner > 1: vectors along inner, a block of inner columns at a time.
template <class T, bool Log>
void softmax_inner(const T* in, T* out, int64_t outer, int64_t n, int64_t inner) {
  constexpr int64_t kBlock = 256;
  const int64_t blocks = (inner + kBlock - 1) / kBlock;
  parallel_for(0, outer * blocks, std::max<int64_t>(1, 16384 / std::max<int64_t>(n * kBlock, 1)),
               [&](int64_t b, int64_t e) {
    std::vector<T> m(kBlock), s(kBlock);
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / blocks, i0 = (t % blocks) * kBlock;
      const int64_t w = std::min(kBlock, inner - i0);
      const T* x = in + o * n * inner + i0;
      T* y = out + o * n * inner + i0;
      std::fill(m.begin(), m.begin() + w, -std::numeric_limits<T>::infinity());
      std::fill(s.begin(), s.begin() + w, T(0));
      for (int64_t d = 0; d < n; ++d) {
        const T* xr = x + d * inner;
        for (int64_t i = 0; i < w; ++i) m[i] = xr[i] > m[i] ? xr[i] : m[i];
      }
      constexpr int K = Vec<T>::kSize;
      for (int64_t d = 0; d < n; ++d) {
        const T* xr = x + d * inner;
        T* yr = y + d * inner;
        int64_t i = 0;
        for (; i + K <= w; i += K) {
          const Vec<T> ev = vec::exp(Vec<T>::loadu(xr + i) - Vec<T>::loadu(m.data() + i));
          if constexpr (!Log) ev.store(yr + i);
          (Vec<T>::loadu(s.data() + i) + ev).store(s.data() + i);
        }
        for (; i < w; ++i) {
          const T ev = std::exp(xr[i] - m[i]);
          if constexpr (!Log) yr[i] = ev;
          s[i] += ev;
        }
      }
      if constexpr (Log) {
        for (int64_t i = 0; i < w; ++i) s[i] = std::log(s[i]);
        for (int64_t d = 0; d < n; ++d) {
          for (int64_t i = 0; i < w; ++i) y[d * inner + i] = (x[d * inner + i] - m[i]) - s[i];
        }
      } else {
        for (int64_t i = 0; i < w; ++i) s[i] = T(1) / s[i];
        for (int64_t d = 0; d < n; ++d) {
          for (int64_t i = 0; i < w; ++i) y[d * inner + i] *= s[i];
        }
      }
    }
  });
}

// grad_input from grad_output g and the forward's output y, over [outer, n, inner]:
// softmax: y * (g - sum(g * y)); log_softmax: g - exp(y) * sum(g).
template <class T, bool Log>
void softmax_backward(const T* g, const T* y, T* gi, int64_t outer, int64_t n, int64_t inner) {
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
      constexpr int K = Vec<T>::kSize;
      for (int64_t r = b; r < e; ++r) {
        const T* gr = g + r * n;
        const T* yr = y + r * n;
        T* o = gi + r * n;
        Vec<T> acc(T(0));
        int64_t j = 0;
        for (; j + K <= n; j += K) {
          acc = acc + (Log ? Vec<T>::loadu(gr + j) : Vec<T>::loadu(gr + j) * Vec<T>::loadu(yr + j));
        }
        T s = lanes_sum(acc);
        for (; j < n; ++j) s += Log ? gr[j] : gr[j] * yr[j];
        if constexpr (Log) {
          const Vec<T> vs(s);
          for (j = 0; j + K <= n; j += K) {
            (Vec<T>::loadu(gr + j) - vec::exp(Vec<T>::loadu(yr + j)) * vs).store(o + j);
          }
          for (; j < n; ++j) o[j] = gr[j] - std::exp(yr[j]) * s;
        } else {
          for (j = 0; j < n; ++j) o[j] = yr[j] * (gr[j] - s);
        }
      }
    });
    return;
  }
  parallel_for(0, outer * inner, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)),
               [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / inner, i = t % inner;
      const int64_t base = o * n * inner + i;
      T s = 0;
      for (int64_t d = 0; d < n; ++d) s += Log ? g[base + d * inner] : g[base + d * inner] * y[base + d * inner];
      for (int64_t d = 0; d < n; ++d) {
        const int64_t k = base + d * inner;
        gi[k] = Log ? g[k] - std::exp(y[k]) * s : y[k] * (g[k] - s);
      }
    }
  });
}

void check_floating(const char* op, const char* arg, const Tensor& t) {
  EMBER_CHECK_NOT_IMPLEMENTED(is_floating_point(t.scalar_type()), op, "(): expected '", arg,
                              "' of a floating dtype, but got ", t.scalar_type());
}

// Runs fn(TypeTag<T>) for the computation type of dt (float for the 16-bit floats).
template <class F>
void dispatch_compute(ScalarType dt, F&& fn) {
  if (dt == ScalarType::Double) fn(TypeTag<double>{});
  else fn(TypeTag<float>{});
}

ScalarType compute_type(ScalarType dt) { return dt == ScalarType::Double ? dt : ScalarType::Float; }

template <bool Log>
Tensor softmax_forward(const char* op, const Tensor& self, int64_t dim, bool half_to_float) {
  check_floating(op, "self", self);
  EMBER_CHECK(!half_to_float, op, "(): conversion from half to float is not supported on the CPU");
  const int64_t d = wrap_dim(op, "dim", dim, self.dim());
  const ScalarType ct = compute_type(self.scalar_type());
  const Tensor x = self.contiguous().to(ct);
  Tensor out = ember::empty(self.sizes(), self.options().dtype(ct));
  if (out.numel() == 0) return out.to(self.scalar_type());
  const DimWalk w = dim_walk(self.sizes(), self.dim() == 0 ? 0 : d);
  dispatch_compute(ct, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(x.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    if (w.inner == 1) softmax_rows<T, Log>(in, o, w.outer, w.n);
    else softmax_inner<T, Log>(in, o, w.outer, w.n, w.inner);
  });
  return out.to(self.scalar_type());
}

template <bool Log>
Tensor softmax_backward_op(const char* op, const Tensor& grad_output, const Tensor& output, int64_t dim,
                           ScalarType input_dtype) {
  check_floating(op, "grad_output", grad_output);
  EMBER_CHECK(grad_output.sizes() == output.sizes(), op, "(): expected 'grad_output' and 'output' "
              "of one shape, but got ", grad_output.sizes(), " and ", output.sizes());
  EMBER_CHECK(grad_output.scalar_type() == output.scalar_type(), op, "(): expected 'grad_output' and "
              "'output' of one dtype, but got ", grad_output.scalar_type(), " and ", output.scalar_type());
  const int64_t d = wrap_dim(op, "dim", dim, output.dim());
  const ScalarType ct = compute_type(output.scalar_type());
  const Tensor g = grad_output.contiguous().to(ct), y = output.contiguous().to(ct);
  Tensor gi = ember::empty(output.sizes(), output.options().dtype(ct));
  // The gradient takes grad_output's dtype, as PyTorch's CPU kernel (input_dtype only
  // matters for its half-to-float CUDA path).
  (void)input_dtype;
  const ScalarType result_type = grad_output.scalar_type();
  if (gi.numel() == 0) return gi.to(result_type);
  const DimWalk w = dim_walk(output.sizes(), output.dim() == 0 ? 0 : d);
  dispatch_compute(ct, [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax_backward<T, Log>(static_cast<const T*>(g.data_ptr()), static_cast<const T*>(y.data_ptr()),
                             static_cast<T*>(gi.data_ptr()), w.outer, w.n, w.inner);
  });
  return gi.to(result_type);
}

}  // namespace

Tensor _softmax_cpu(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_forward<false>("softmax", self, dim, half_to_float);
}

Tensor _log_softmax_cpu(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_forward<true>("log_softmax", self, dim, half_to_float);
}

Tensor _softmax_backward_data_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  return softmax_backward_op<false>("_softmax_backward_data", grad_output, output, dim, input_dtype);
}

Tensor _log_softmax_backward_data_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                      ScalarType input_dtype) {
  return softmax_backward_op<true>("_log_softmax_backward_data", grad_output, output, dim, input_dtype);
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
