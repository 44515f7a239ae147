#pragma once
/// elementwise_loop: the one inner loop of the CPU elementwise kernels (unary, binary,
/// comparisons), over a TensorIterator (Note [TensorIterator]).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "aten/native/CpuCapability.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Vectorized.h"
#include "c10/util/Half.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

/// The type a kernel computes in: float for the 16-bit floats (rounded once on store),
/// the element type otherwise.
template <class T>
using Acc = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

/// The unary loop of a functor with a `vec` form (Vectorized.h), for float and double
/// computation: every element goes through f.vec, a block of Vectorized<A>::kSize at a
/// time. A run that is not contiguous, or of a 16-bit float, is gathered kBlock elements at
/// a time into a buffer, computed there and scattered back (a whole block, because a vector
/// load right after scalar stores to the same bytes waits for them to retire: gathering 16
/// and loading them cost more than exp itself). So a value's result does not depend on
/// where it sits (contiguous or not, in a tail or not, on which thread): the same vector
/// function computes it. In a 2-D tile whose input runs along the second dimension (M.t()
/// into a contiguous out=), the tile is walked along the input, so loads stay contiguous
/// and only the stores scatter.
template <class Out, class In, class F>
void vectorized_unary_loop(const TensorIterator& it, const F& f) {
  using A = Acc<In>;
  constexpr int64_t K = Vectorized<A>::kSize;
  constexpr int64_t kBlock = 256;
  constexpr bool kSame = std::is_same_v<In, A> && std::is_same_v<Out, A>;
  // One run: n elements, output stride so and input stride si in bytes.
  auto run = [&](char* out, const char* in, int64_t n, int64_t so, int64_t si) {
    int64_t i = 0;
    if constexpr (kSame) {
      if (so == sizeof(A) && si == sizeof(A)) {
        for (; i + K <= n; i += K) {
          f.vec(Vectorized<A>::loadu(reinterpret_cast<const A*>(in) + i))
              .store(reinterpret_cast<A*>(out) + i);
        }
      }
    }
    alignas(64) A buf[kBlock];
    for (; i < n; i += kBlock) {
      const int64_t m = std::min<int64_t>(kBlock, n - i);
      const int64_t padded = (m + K - 1) / K * K;
      if (std::is_same_v<In, A> && si == sizeof(A)) {
        std::memcpy(buf, in + i * si, static_cast<size_t>(m) * sizeof(A));
      } else {
        for (int64_t k = 0; k < m; ++k) buf[k] = A(*reinterpret_cast<const In*>(in + (i + k) * si));
      }
      for (int64_t k = m; k < padded; ++k) buf[k] = A(0);
      for (int64_t k = 0; k < padded; k += K) f.vec(Vectorized<A>::loadu(buf + k)).store(buf + k);
      if (std::is_same_v<Out, A> && so == sizeof(A)) {
        std::memcpy(out + i * so, buf, static_cast<size_t>(m) * sizeof(A));
      } else {
        for (int64_t k = 0; k < m; ++k) *reinterpret_cast<Out*>(out + (i + k) * so) = static_cast<Out>(buf[k]);
      }
    }
  };
  it.for_each([&](char** data, const int64_t* s, int64_t n, int64_t rows) {
    if (rows > 1 && s[1] != sizeof(In) && s[3] == sizeof(In)) {
      for (int64_t c = 0; c < n; ++c) run(data[0] + c * s[0], data[1] + c * s[1], rows, s[2], s[3]);
    } else {
      for (int64_t r = 0; r < rows; ++r) run(data[0] + r * s[2], data[1] + r * s[3], n, s[0], s[1]);
    }
  });
}

/// Runs out[i] = f(in_0[i], ..., in_{N-1}[i]) over an iterator whose operands are (out,
/// N inputs), of element types Out and In; f takes Acc<In> values. A run where every
/// operand is contiguous is a plain indexed loop the compiler vectorises; a broadcast last
/// input (stride 0) is loaded once per run. A unary f with a `vec` form runs through it.
template <class Out, class In, size_t N, class F>
void elementwise_loop(const TensorIterator& it, const F& f) {
  if constexpr (N == 1 && (std::is_same_v<Acc<In>, float> || std::is_same_v<Acc<In>, double>)) {
    if constexpr (HasVec<F, Acc<In>>) {
      vectorized_unary_loop<Out, In>(it, f);
      return;
    }
  }
  constexpr int64_t kNt = N + 1;
  it.for_each([&](char** data, const int64_t* s, int64_t n, int64_t rows) {
    for (int64_t r = 0; r < rows; ++r) {
      Out* out = reinterpret_cast<Out*>(data[0] + r * s[kNt]);
      std::array<const In*, N> in;
      bool contiguous = s[0] == sizeof(Out);
      for (size_t k = 0; k < N; ++k) {
        in[k] = reinterpret_cast<const In*>(data[k + 1] + r * s[kNt + k + 1]);
        contiguous = contiguous && s[k + 1] == sizeof(In);
      }
      [&]<size_t... K>(std::index_sequence<K...>) {
        if (contiguous) {
          for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(Acc<In>(in[K][i])...));
          return;
        }
        constexpr size_t kLast = N - 1;
        if (s[0] == sizeof(Out) && s[kLast + 1] == 0 &&
            ((K == kLast || s[K + 1] == sizeof(In)) && ...)) {
          const Acc<In> last = Acc<In>(*in[kLast]);
          for (int64_t i = 0; i < n; ++i) {
            out[i] = static_cast<Out>(f((K == kLast ? last : Acc<In>(in[K][i]))...));
          }
          return;
        }
        auto at = [&](size_t k, int64_t i) {
          return Acc<In>(*reinterpret_cast<const In*>(reinterpret_cast<const char*>(in[k]) + i * s[k + 1]));
        };
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<Out*>(reinterpret_cast<char*>(out) + i * s[0]) =
              static_cast<Out>(f(at(K, i)...));
        }
      }(std::make_index_sequence<N>{});
    }
  });
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
