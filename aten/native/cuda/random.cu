// uniform_ and bernoulli_ (a number p) on CUDA, drawing the CPU's stream layout (Note
// [Philox stream layout] in aten/PhiloxGenerator.h) from CUDA's default generator: element i
// of the result (in logical order) takes the same words, converted by the same functions
// (aten/native/RandomOps.h), as on the CPU, so a CUDA and a CPU generator seeded alike give
// the same values. One thread per Philox block (4 words: 4 / W elements of W words each).
// A non-contiguous tensor is filled through a contiguous buffer.
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>

#include "aten/PhiloxGenerator.h"
#include "aten/native/RandomOps.h"
#include "aten/native/Dispatch.h"
#include "aten/native/cuda/CudaDispatch.h"
#include "aten/native/cuda/CudaUtils.h"
#include "aten/native/random.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"

namespace ember::native {
namespace {

using random_detail::Floating;
using random_detail::unit_uniform;

constexpr int kThreads = 256;

__device__ PhiloxBlock block_of(uint64_t seed, uint64_t first_block, uint64_t b) {
  const uint64_t c = first_block + b;
  return philox4x32_10({static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0u, 0u},
                       {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

// Element i's value from its W words: f(words) -> T.
template <class T, int W, class F>
__global__ void fill_kernel(T* out, int64_t n, uint64_t seed, uint64_t first_block, F f) {
  const int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  constexpr int kPer = 4 / W;
  if (b * kPer >= n) return;
  const PhiloxBlock words = block_of(seed, first_block, static_cast<uint64_t>(b));
#pragma unroll
  for (int k = 0; k < kPer; ++k) {
    const int64_t i = b * kPer + k;
    if (i < n) out[i] = f(&words[static_cast<size_t>(k * W)]);
  }
}

template <class T>
struct Uniform {
  using Acc = typename Floating<T>::Acc;
  Acc lo, width;
  double cap;
  __device__ T operator()(const uint32_t* w) const {
    const Acc x = static_cast<Acc>(unit_uniform<Floating<T>::kDigits>(w));
    T v = Floating<T>::from(x * width + lo);
    if (Floating<T>::to_double(v) > cap) v = Floating<T>::from(static_cast<Acc>(cap));
    return v;
  }
};

template <class T>
struct Bernoulli {
  double p;
  __device__ T operator()(const uint32_t* w) const { return unit_uniform<53>(w) < p ? T(1) : T(0); }
};

// Runs fill_kernel into self (through a buffer when self is not contiguous).
template <class T, int W, class F>
void fill(Tensor& self, const PhiloxStream& s, const F& f, const char* op) {
  const int64_t n = self.numel();
  Tensor dst = self.is_contiguous() ? self : ember::empty(self.sizes(), self.options());
  const int64_t blocks_needed = (n * W + 3) / 4;
  fill_kernel<T, W><<<static_cast<unsigned>((blocks_needed + kThreads - 1) / kThreads), kThreads, 0,
                      cuda::current_stream_of(self)>>>(static_cast<T*>(dst.data_ptr()), n, s.seed, s.first_block, f);
  cuda::check_launch(op);
  if (!dst.is_same(self)) self.copy_(dst);
}

}  // namespace

Tensor& uniform_cuda(Tensor& self, double from, double to, std::optional<Generator> generator) {
  check_uniform_args(self, from, to);
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(self.dtype()), "uniform_(): complex tensors have no CUDA kernel yet");
  cuda::check_same_device("uniform_", {&self});
  cuda::DeviceGuard guard(self.device());
  const int64_t n = self.numel();
  const ScalarType t = self.scalar_type();
  const uint64_t words = static_cast<uint64_t>(n) * (t == ScalarType::Double ? 2 : 1);
  const PhiloxStream s = philox_reserve(generator, words, "uniform_", DeviceType::CUDA);
  if (n == 0) return self;
  auto go = [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = typename Floating<T>::Acc;
    constexpr int W = Floating<T>::kDigits > 32 ? 2 : 1;
    const double cap = from < to ? random_detail::largest_below<T>(to) : from;
    fill<T, W>(self, s, Uniform<T>{static_cast<Acc>(from), static_cast<Acc>(to - from), cap}, "uniform_");
  };
  switch (t) {
    case ScalarType::Half: go(TypeTag<Half>{}); break;
    case ScalarType::BFloat16: go(TypeTag<BFloat16>{}); break;
    case ScalarType::Float: go(TypeTag<float>{}); break;
    case ScalarType::Double: go(TypeTag<double>{}); break;
    default: EMBER_INTERNAL_ASSERT(false, "uniform_(): check_uniform_args let ", t, " through");
  }
  return self;
}

Tensor& bernoulli_float_cuda(Tensor& self, double p, std::optional<Generator> generator) {
  check_bernoulli_args(self, p);
  cuda::check_same_device("bernoulli_", {&self});
  cuda::DeviceGuard guard(self.device());
  const int64_t n = self.numel();
  // Two words per element: a 53-bit uniform, so small p keep their precision.
  const PhiloxStream s = philox_reserve(generator, static_cast<uint64_t>(n) * 2, "bernoulli_", DeviceType::CUDA);
  if (n == 0) return self;
  cuda::dispatch_types(self.scalar_type(), "bernoulli_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill<T, 2>(self, s, Bernoulli<T>{p}, "bernoulli_");
  });
  return self;
}

}  // namespace ember::native
