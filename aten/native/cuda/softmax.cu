// softmax and log_softmax on CUDA, forward and backward, as the CPU's (cpu/softmax.cpp):
// over a contiguous copy in the computation dtype (float32 for the 16-bit floats and
// float32, float64 for float64), the result converted back. With dim the fastest one (inner
// == 1), one block per row reduces the maximum and the sum in shared memory; otherwise each
// thread walks one (outer, inner) column, neighbouring threads reading neighbouring memory.
#include <cuda_runtime.h>

#include <cmath>

#include "aten/native/DimUtils.h"
#include "aten/native/Dispatch.h"
#include "aten/native/cuda/CudaUtils.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"

namespace ember::native {
namespace {

constexpr int kRowThreads = 256;

template <class T>
__device__ T block_reduce(T v, T* shared, bool max) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      const T a = shared[threadIdx.x], b = shared[threadIdx.x + s];
      shared[threadIdx.x] = max ? (a > b || a != a ? a : b) : a + b;
    }
    __syncthreads();
  }
  const T r = shared[0];
  __syncthreads();
  return r;
}

template <class T, bool Log>
__global__ void softmax_rows(const T* in, T* out, int64_t n) {
  __shared__ T shared[kRowThreads];
  const T* x = in + blockIdx.x * n;
  T* y = out + blockIdx.x * n;
  T m = -INFINITY;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) m = (x[i] > m || x[i] != x[i]) ? x[i] : m;
  m = block_reduce(m, shared, true);
  T s = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += exp(x[i] - m);
  s = block_reduce(s, shared, false);
  const T ls = log(s);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) y[i] = Log ? x[i] - m - ls : exp(x[i] - m) / s;
}

template <class T, bool Log>
__global__ void softmax_columns(const T* in, T* out, int64_t outer, int64_t n, int64_t inner) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= outer * inner) return;
  const int64_t base = (c / inner) * n * inner + c % inner;
  T m = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    const T v = in[base + i * inner];
    m = (v > m || v != v) ? v : m;
  }
  T s = 0;
  for (int64_t i = 0; i < n; ++i) s += exp(in[base + i * inner] - m);
  const T ls = log(s);
  for (int64_t i = 0; i < n; ++i) {
    const T v = in[base + i * inner];
    out[base + i * inner] = Log ? v - m - ls : exp(v - m) / s;
  }
}

// softmax: gi = y * (g - sum(g * y)); log_softmax: gi = g - exp(y) * sum(g).
template <class T, bool Log>
__global__ void backward_columns(const T* g, const T* y, T* gi, int64_t outer, int64_t n, int64_t inner) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= outer * inner) return;
  const int64_t base = (c / inner) * n * inner + c % inner;
  T s = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = base + i * inner;
    s += Log ? g[k] : g[k] * y[k];
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = base + i * inner;
    gi[k] = Log ? g[k] - exp(y[k]) * s : y[k] * (g[k] - s);
  }
}

template <class T, bool Log>
__global__ void backward_rows(const T* g, const T* y, T* gi, int64_t n) {
  __shared__ T shared[kRowThreads];
  const int64_t off = blockIdx.x * n;
  T s = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += Log ? g[off + i] : g[off + i] * y[off + i];
  s = block_reduce(s, shared, false);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const int64_t k = off + i;
    gi[k] = Log ? g[k] - exp(y[k]) * s : y[k] * (g[k] - s);
  }
}

void check_floating(const char* op, const char* arg, const Tensor& t) {
  EMBER_CHECK_NOT_IMPLEMENTED(is_floating_point(t.scalar_type()), op, "(): expected '", arg,
                              "' of a floating dtype, but got ", t.scalar_type());
}

ScalarType compute_type(ScalarType dt) { return dt == ScalarType::Double ? dt : ScalarType::Float; }

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kRowThreads - 1) / kRowThreads); }

template <bool Log>
Tensor forward(const char* op, const Tensor& self, int64_t dim, bool half_to_float) {
  check_floating(op, "self", self);
  cuda::check_same_device(op, {&self});
  const int64_t d = wrap_dim(op, "dim", dim, self.dim());
  cuda::DeviceGuard guard(self.device());
  const ScalarType ct = compute_type(self.scalar_type());
  const Tensor x = self.contiguous().to(ct);
  Tensor out = ember::empty(self.sizes(), self.options().dtype(ct));
  const ScalarType result = half_to_float ? ct : self.scalar_type();
  if (out.numel() == 0) return out.to(result);
  const DimWalk w = dim_walk(self.sizes(), self.dim() == 0 ? 0 : d);
  const cudaStream_t stream = cuda::current_stream_of(self);
  auto go = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(x.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    if (w.inner == 1) softmax_rows<T, Log><<<static_cast<unsigned>(w.outer), kRowThreads, 0, stream>>>(in, o, w.n);
    else softmax_columns<T, Log><<<blocks_for(w.outer * w.inner), kRowThreads, 0, stream>>>(in, o, w.outer, w.n, w.inner);
  };
  if (ct == ScalarType::Double) go(TypeTag<double>{});
  else go(TypeTag<float>{});
  cuda::check_launch(op);
  return out.to(result);
}

template <bool Log>
Tensor backward(const char* op, const Tensor& grad_output, const Tensor& output, int64_t dim) {
  check_floating(op, "grad_output", grad_output);
  cuda::check_same_device(op, {&grad_output, &output});
  EMBER_CHECK(grad_output.sizes() == output.sizes(), op, "(): expected 'grad_output' and 'output' of one shape, but got ",
              grad_output.sizes(), " and ", output.sizes());
  EMBER_CHECK(grad_output.scalar_type() == output.scalar_type(), op, "(): expected 'grad_output' and 'output' of "
              "one dtype, but got ", grad_output.scalar_type(), " and ", output.scalar_type());
  const int64_t d = wrap_dim(op, "dim", dim, output.dim());
  cuda::DeviceGuard guard(output.device());
  const ScalarType ct = compute_type(output.scalar_type());
  const Tensor g = grad_output.contiguous().to(ct), y = output.contiguous().to(ct);
  Tensor gi = ember::empty(output.sizes(), output.options().dtype(ct));
  if (gi.numel() == 0) return gi.to(grad_output.scalar_type());
  const DimWalk w = dim_walk(output.sizes(), output.dim() == 0 ? 0 : d);
  const cudaStream_t stream = cuda::current_stream_of(output);
  auto go = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gp = static_cast<const T*>(g.data_ptr());
    const T* yp = static_cast<const T*>(y.data_ptr());
    T* o = static_cast<T*>(gi.data_ptr());
    if (w.inner == 1) backward_rows<T, Log><<<static_cast<unsigned>(w.outer), kRowThreads, 0, stream>>>(gp, yp, o, w.n);
    else backward_columns<T, Log><<<blocks_for(w.outer * w.inner), kRowThreads, 0, stream>>>(gp, yp, o, w.outer, w.n, w.inner);
  };
  if (ct == ScalarType::Double) go(TypeTag<double>{});
  else go(TypeTag<float>{});
  cuda::check_launch(op);
  return gi.to(grad_output.scalar_type());
}

}  // namespace

Tensor _softmax_cuda(const Tensor& self, int64_t dim, bool half_to_float) {
  return forward<false>("softmax", self, dim, half_to_float);
}

Tensor _log_softmax_cuda(const Tensor& self, int64_t dim, bool half_to_float) {
  return forward<true>("log_softmax", self, dim, half_to_float);
}

Tensor _softmax_backward_data_cuda(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType) {
  return backward<false>("_softmax_backward_data", grad_output, output, dim);
}

Tensor _log_softmax_backward_data_cuda(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType) {
  return backward<true>("_log_softmax_backward_data", grad_output, output, dim);
}

}  // namespace ember::native
