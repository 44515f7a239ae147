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
#include "aten/native/cpu/Widen.h"
#include "c10/util/Half.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

/// The type a kernel computes in: float for the 16-bit floats (rounded once on store),
/// the element type otherwise.
template <class T>
using Acc = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
constexpr bool kHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// The type whose functors a loop over T takes: float for the 16-bit floats (their loops
/// run the float loop over widened blocks, Note [16-bit floats in blocks]), T otherwise.
template <class T>
using Kern = std::conditional_t<kHalfLike<T>, float, T>;

/// f with its second (BindSecond) or first (BindFirst) argument fixed: named types, so
/// that a T loop and a float loop over the same functor share one instantiation.
template <class F, class A>
struct BindSecond {
  F f;
  A b;
  auto operator()(A a) const { return f(a, b); }
};
template <class F, class A>
struct BindFirst {
  F f;
  A a;
  auto operator()(A b) const { return f(a, b); }
};

// Note [16-bit floats in blocks]: a loop over Half or BFloat16 operands does not
// instantiate its op for them. It widens a block of each input to float (widen, below),
// runs the op's float loop over the block (run_contiguous, the same code the float32
// operands take for a functor of one type) and rounds the results once (narrow). So the
// 16-bit dtypes cost a few conversion loops per file rather than a loop nest per op, and
// the conversions are vector instructions where the capability has them (F16C for Half,
// integer shifts for BFloat16) instead of the scalar bit manipulation of c10/util/Half.h.
// Values are the same: the op computed in float before (Acc<T>), and rounds once on store.

/// out[i] = f(in_0[i], ..., in_{N-1}[i]) over contiguous arrays: the loop the compiler
/// vectorises, shared by the contiguous runs and the 16-bit blocks.
template <class Out, class A, size_t N, class F>
__attribute__((noinline)) void run_contiguous(Out* out, std::array<const A*, N> in, int64_t n, F f) {
  [&]<size_t... K>(std::index_sequence<K...>) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(in[K][i]...));
  }(std::make_index_sequence<N>{});
}

/// Stores n values of buf into a run of Out of stride `stride` bytes.
template <class Out, class B>
void store_run(const B* buf, char* out, int64_t stride, int64_t n) {
  if constexpr (kHalfLike<Out>) {
    narrow<Out>(buf, out, stride, n);
  } else if (stride == static_cast<int64_t>(sizeof(Out))) {
    std::memcpy(out, buf, static_cast<size_t>(n) * sizeof(Out));
  } else {
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<Out*>(out + i * stride) = buf[i];
  }
}

/// out[i] = f(in_0[i], ...) over contiguous arrays of T, 16-bit floats through float blocks.
template <class T, size_t N, class F>
void flat_loop(T* out, const std::array<const T*, N>& in, int64_t n, const F& f) {
  if constexpr (kHalfLike<T>) {
    constexpr int64_t kBlock = 256;
    alignas(64) float buf[N + 1][kBlock];
    std::array<const float*, N> ins;
    for (size_t k = 0; k < N; ++k) ins[k] = buf[k + 1];
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t m = std::min(kBlock, n - i);
      for (size_t k = 0; k < N; ++k) widen<T>(reinterpret_cast<const char*>(in[k] + i), sizeof(T), m, buf[k + 1]);
      run_contiguous<float, float, N>(buf[0], ins, m, f);
      narrow<T>(buf[0], reinterpret_cast<char*>(out + i), sizeof(T), m);
    }
  } else {
    run_contiguous<T, T, N>(out, in, n, f);
  }
}

/// elementwise_loop for 16-bit float inputs (Note [16-bit floats in blocks]).
template <class Out, class In, size_t N, class F>
void widened_loop(const TensorIterator& it, const F& f) {
  constexpr int64_t kBlock = 256;
  constexpr int64_t kNt = N + 1;
  using B = std::conditional_t<kHalfLike<Out>, float, Out>;
  it.for_each([&](char** data, const int64_t* s, int64_t n, int64_t rows) {
    alignas(64) float in[N][kBlock];
    alignas(64) B out[kBlock];
    std::array<const float*, N> ins;
    for (size_t k = 0; k < N; ++k) ins[k] = in[k];
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < n; i += kBlock) {
        const int64_t m = std::min(kBlock, n - i);
        for (size_t k = 0; k < N; ++k) {
          widen<In>(data[k + 1] + r * s[kNt + k + 1] + i * s[k + 1], s[k + 1], m, in[k]);
        }
        run_contiguous<B, float, N>(out, ins, m, f);
        store_run<Out>(out, data[0] + r * s[kNt] + i * s[0], s[0], m);
      }
    }
  });
}

/// buf[0..n) = f.vec(buf[0..n)), n a multiple of the vector size: one instantiation per
/// functor, which the 16-bit dtypes share with float (Note [16-bit floats in blocks]).
template <class A, class F>
__attribute__((noinline)) void vec_block(A* buf, int64_t n, F f) {
  constexpr int64_t K = Vectorized<A>::kSize;
  for (int64_t k = 0; k < n; k += K) f.vec(Vectorized<A>::loadu(buf + k)).store(buf + k);
}

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
      if constexpr (kHalfLike<In>) {
        widen<In>(in + i * si, si, m, buf);
      } else if (std::is_same_v<In, A> && si == sizeof(A)) {
        std::memcpy(buf, in + i * si, static_cast<size_t>(m) * sizeof(A));
      } else {
        for (int64_t k = 0; k < m; ++k) buf[k] = A(*reinterpret_cast<const In*>(in + (i + k) * si));
      }
      for (int64_t k = m; k < padded; ++k) buf[k] = A(0);
      vec_block<A>(buf, padded, f);
      if constexpr (kHalfLike<Out>) {
        narrow<Out>(buf, out + i * so, so, m);
      } else if (std::is_same_v<Out, A> && so == sizeof(A)) {
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

/// elementwise_loop for the other element types: each run contiguous, broadcast or strided.
template <class Out, class In, size_t N, class F>
void plain_loop(const TensorIterator& it, const F& f) {
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
          run_contiguous<Out, In, N>(out, in, n, f);
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

/// Whether a loop of N inputs of In runs f's `vec` form: unary, computing in float or double.
template <class In, size_t N, class F>
constexpr bool has_vec_form() {
  if constexpr (N == 1 && (std::is_same_v<Acc<In>, float> || std::is_same_v<Acc<In>, double>)) {
    return HasVec<F, Acc<In>>;
  }
  return false;
}

/// Runs out[i] = f(in_0[i], ..., in_{N-1}[i]) over an iterator whose operands are (out,
/// N inputs), of element types Out and In; f takes Acc<In> values. A run where every
/// operand is contiguous is a plain indexed loop the compiler vectorises; a broadcast last
/// input (stride 0) is loaded once per run. A unary f with a `vec` form runs through it;
/// 16-bit float inputs run the float loop over widened blocks (Note [16-bit floats in
/// blocks]).
template <class Out, class In, size_t N, class F>
void elementwise_loop(const TensorIterator& it, const F& f) {
  if constexpr (has_vec_form<In, N, F>()) {
    vectorized_unary_loop<Out, In>(it, f);
  } else if constexpr (kHalfLike<In>) {
    widened_loop<Out, In, N>(it, f);
  } else {
    plain_loop<Out, In, N>(it, f);
  }
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
