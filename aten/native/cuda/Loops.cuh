#pragma once
/// The CUDA elementwise launcher (Note [CUDA elementwise]): a functor over N inputs of one
/// compute type, written once for host and device (EMBER_HOST_DEVICE), run over a
/// TensorIterator's operands on the current stream of their device.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <type_traits>

#include "aten/native/Dispatch.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cuda/CudaUtils.h"
#include "aten/native/cuda/OffsetCalc.h"
#include "c10/macros/HostDevice.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"

namespace ember::native::cuda {

// Note [CUDA elementwise]: one thread per element over the iterator's shape (reordered and
// merged, fastest dimension first, Note [TensorIterator]), with per-operand byte strides.
//  - When every operand is contiguous (the iterator merged it to one dimension of unit
//    strides) and 16-byte aligned, each thread loads and stores kVec elements at once
//    (128-bit memory transactions), the bandwidth-bound case.
//  - Otherwise each thread turns its linear index into per-operand offsets, dividing by the
//    sizes in 32-bit arithmetic when the tensor has fewer than 2^31 elements.
//  - 16-bit floats compute in float (OpMath) and round once on store, as on the CPU.
inline constexpr int kThreads = 256;

template <class T>
using OpMath = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

// out[i] = f(in_0[i], ..., in_{NIN-1}[i]) over contiguous arrays, V elements per thread.
template <int V, class Out, class In, int NIN, class F>
__global__ void contiguous_kernel(int64_t n, Out* out, std::array<const In*, NIN> in, F f) {
  const int64_t base = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V;
  if (base + V <= n) {
    Pack<In, V> a[NIN > 0 ? NIN : 1];
#pragma unroll
    for (int k = 0; k < NIN; ++k) a[k] = *reinterpret_cast<const Pack<In, V>*>(in[k] + base);
    Pack<Out, V> r;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if constexpr (NIN == 0) r.v[j] = static_cast<Out>(f());
      else if constexpr (NIN == 1) r.v[j] = static_cast<Out>(f(static_cast<OpMath<In>>(a[0].v[j])));
      else if constexpr (NIN == 2)
        r.v[j] = static_cast<Out>(f(static_cast<OpMath<In>>(a[0].v[j]), static_cast<OpMath<In>>(a[1].v[j])));
      else
        r.v[j] = static_cast<Out>(f(static_cast<OpMath<In>>(a[0].v[j]), static_cast<OpMath<In>>(a[1].v[j]),
                                    static_cast<OpMath<In>>(a[2].v[j])));
    }
    *reinterpret_cast<Pack<Out, V>*>(out + base) = r;
  } else {
    for (int64_t i = base; i < n; ++i) {
      if constexpr (NIN == 0) out[i] = static_cast<Out>(f());
      else if constexpr (NIN == 1) out[i] = static_cast<Out>(f(static_cast<OpMath<In>>(in[0][i])));
      else if constexpr (NIN == 2)
        out[i] = static_cast<Out>(f(static_cast<OpMath<In>>(in[0][i]), static_cast<OpMath<In>>(in[1][i])));
      else
        out[i] = static_cast<Out>(f(static_cast<OpMath<In>>(in[0][i]), static_cast<OpMath<In>>(in[1][i]),
                                    static_cast<OpMath<In>>(in[2][i])));
    }
  }
}

// The same over any strides: data[0] is the output, data[1..] the inputs.
template <class Out, class In, int NIN, class Index, class F>
__global__ void strided_kernel(Index n, OffsetCalc<NIN + 1, Index> calc, std::array<char*, NIN + 1> data, F f) {
  const Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Index off[NIN + 1];
  calc.get(i, off);
  auto in = [&](int k) { return static_cast<OpMath<In>>(*reinterpret_cast<const In*>(data[k + 1] + off[k + 1])); };
  Out* o = reinterpret_cast<Out*>(data[0] + off[0]);
  if constexpr (NIN == 0) *o = static_cast<Out>(f());
  else if constexpr (NIN == 1) *o = static_cast<Out>(f(in(0)));
  else if constexpr (NIN == 2) *o = static_cast<Out>(f(in(0), in(1)));
  else *o = static_cast<Out>(f(in(0), in(1), in(2)));
}

inline bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

/// Runs f over the iterator (output 0 of type Out, NIN inputs of type In) on the current
/// stream of the output's device.
template <class Out, class In, int NIN, class F>
void launch(const TensorIterator& it, const F& f, const char* op) {
  static_assert(NIN >= 0 && NIN <= 3);
  const int64_t n = it.numel();
  if (n == 0) return;
  const Tensor& out = it.operand(0);
  const cudaStream_t stream = current_stream_of(out);
  std::array<char*, NIN + 1> data;
  for (int k = 0; k <= NIN; ++k) data[static_cast<size_t>(k)] = static_cast<char*>(it.operand(k).impl()->data());
  bool contiguous = it.shape().size() == 1 && it.strides(0)[0] == static_cast<int64_t>(sizeof(Out));
  for (int k = 1; k <= NIN; ++k) contiguous = contiguous && it.strides(k)[0] == static_cast<int64_t>(sizeof(In));
  if (contiguous) {
    std::array<const In*, NIN> in{};
    bool vec = aligned16(data[0]);
    for (int k = 0; k < NIN; ++k) {
      in[static_cast<size_t>(k)] = reinterpret_cast<const In*>(data[static_cast<size_t>(k + 1)]);
      vec = vec && aligned16(in[static_cast<size_t>(k)]);
    }
    constexpr int V = 16 / (sizeof(Out) > sizeof(In) ? sizeof(Out) : sizeof(In)) > 0
                          ? 16 / (sizeof(Out) > sizeof(In) ? sizeof(Out) : sizeof(In))
                          : 1;
    if (vec && V > 1) {
      const int64_t threads = (n + V - 1) / V;
      const auto blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
      contiguous_kernel<V, Out, In, NIN><<<blocks, kThreads, 0, stream>>>(n, reinterpret_cast<Out*>(data[0]), in, f);
    } else {
      const auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
      contiguous_kernel<1, Out, In, NIN><<<blocks, kThreads, 0, stream>>>(n, reinterpret_cast<Out*>(data[0]), in, f);
    }
    check_launch(op);
    return;
  }
  const auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  // 32-bit index arithmetic when the elements and every operand's furthest byte fit.
  const bool fits32 = fits_32bit(it, NIN + 1);
  if (fits32) {
    strided_kernel<Out, In, NIN, uint32_t><<<blocks, kThreads, 0, stream>>>(
        static_cast<uint32_t>(n), offset_calc<NIN + 1, uint32_t>(it, op), data, f);
  } else {
    strided_kernel<Out, In, NIN, int64_t><<<blocks, kThreads, 0, stream>>>(n, offset_calc<NIN + 1, int64_t>(it, op),
                                                                             data, f);
  }
  check_launch(op);
}

}  // namespace ember::native::cuda
