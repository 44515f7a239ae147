#pragma once
/// Loop helpers shared by the CPU random kernels (random.cpp, random_sampling.cpp): dtype
/// visitors, per-type uniform conversion, chunked work split, logical-order output.

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/RandomOps.h"
#include "c10/core/Tensor.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"

namespace ember {
namespace native {
EMBER_CPU_NAMESPACE_BEGIN

/// Splits the random kernels' work into chunks of `grain` elements run on up to `threads`
/// std::threads (defaults: 65536, 1). Only the speed changes: see Note [Philox stream
/// layout]; tests set odd values to check that. grain <= 0 or threads <= 0 restores a default.
EMBER_API void set_random_threading(int64_t grain, int threads);

namespace random_detail {

/// Runs f(begin, end) over chunks covering [0, n) (see set_random_threading).
void run_chunks(int64_t n, const std::function<void(int64_t, int64_t)>& f);

/// Calls f(TypeTag<T>{}) for the floating dtypes (complex: pass the component dtype).
template <class F>
void visit_floating(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Half: return f(TypeTag<Half>{});
    case ScalarType::BFloat16: return f(TypeTag<BFloat16>{});
    case ScalarType::Float: return f(TypeTag<float>{});
    case ScalarType::Double: return f(TypeTag<double>{});
    default: EMBER_INTERNAL_ASSERT(false, "not a floating dtype: ", t);
  }
}

/// Calls f(TypeTag<T>{}) for every real dtype: integral, bool and floating.
template <class F>
void visit_real(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Byte: return f(TypeTag<uint8_t>{});
    case ScalarType::Char: return f(TypeTag<int8_t>{});
    case ScalarType::Short: return f(TypeTag<int16_t>{});
    case ScalarType::Int: return f(TypeTag<int32_t>{});
    case ScalarType::Long: return f(TypeTag<int64_t>{});
    case ScalarType::Bool: return f(TypeTag<bool>{});
    default: return visit_floating(t, std::forward<F>(f));
  }
}

/// An integer value (exactly representable in T, checked by the caller) as a T.
template <class T>
T from_int64(int64_t v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v);
  } else {
    return Floating<T>::from(static_cast<typename Floating<T>::Acc>(v));
  }
}

/// The component dtype of a complex dtype; the dtype itself otherwise.
inline ScalarType real_component(ScalarType t) {
  if (t == ScalarType::ComplexFloat) return ScalarType::Float;
  if (t == ScalarType::ComplexDouble) return ScalarType::Double;
  return t;
}

/// Copies `src` (dst.numel() elements of dst's item size, in logical row-major order) into
/// dst at its strides.
void scatter_logical(const void* src, const Tensor& dst);

/// Calls fill(out, begin, end), chunk by chunk, to write values [begin, end) of `count`
/// values of type T into self in logical order (complex tensors: count = 2 * numel, real
/// and imaginary parts interleaved). Strided tensors are filled through a staging buffer.
template <class T, class Fill>
void fill_logical(const Tensor& self, int64_t count, Fill&& fill) {
  if (self.is_contiguous()) {
    T* out = static_cast<T*>(self.data_ptr());
    run_chunks(count, [&](int64_t b, int64_t e) { fill(out, b, e); });
    return;
  }
  // Not std::vector: vector<bool> has no data().
  std::unique_ptr<T[]> staging(new T[static_cast<size_t>(count)]);
  T* out = staging.get();
  run_chunks(count, [&](int64_t b, int64_t e) { fill(out, b, e); });
  scatter_logical(out, self);
}

/// Calls f(i, offset) for each element of a tensor of `sizes` and `strides` in logical
/// order (offset in elements from the first one).
template <class F>
void for_each_offset(IntArrayRef sizes, IntArrayRef strides, F&& f) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (n == 0) return;
  const size_t dim = sizes.size();
  std::vector<int64_t> index(dim, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(i, offset);
    for (size_t d = dim; d-- > 0;) {
      if (++index[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
}

/// The floating tensor t's elements as doubles, in logical order (t broadcast to `sizes`
/// with `strides`, 0 for broadcast dimensions).
std::vector<double> read_floating(const Tensor& t, IntArrayRef sizes, IntArrayRef strides);

/// Two words as one 64-bit number.
inline uint64_t word64(const uint32_t* w) { return (static_cast<uint64_t>(w[1]) << 32) | w[0]; }

}  // namespace random_detail
EMBER_CPU_NAMESPACE_END
}  // namespace native
}  // namespace ember
