#pragma once
/// The functor machinery of the CPU binary ops past add/sub/mul/div (Note [Binary
/// functors]): the element helpers, `computes`, `binary_functor_cpu` and the kernel macros
/// that cpu/binary.cpp (arithmetic functors) and cpu/binary_bitwise.cpp (bitwise, shifts,
/// logical) share.

#include <climits>
#include <cmath>
#include <optional>
#include <string_view>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/binary.h"
#include "aten/native/cpu/Loops.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty_like.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {



template <class T>
constexpr bool kInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;
// float, double and the 16-bit floats (which compute in float).
template <class T>
constexpr bool kReal = std::is_floating_point_v<Acc<T>>;

// Unsigned arithmetic at least as wide as int, so that products wrap instead of overflowing
// after integer promotion.
template <class T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T>
T wrapping_neg(T a) {
  return static_cast<T>(Wide<T>(0) - static_cast<Wide<T>>(a));
}

// a / b rounded toward zero; the minimum divided by -1 wraps instead of trapping.
template <class T>
T trunc_div(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrapping_neg(a);
  }
  return static_cast<T>(a / b);
}

// PyTorch's div_floor_integer: truncation, one lower when the signs differ and b does not
// divide a.
template <class T>
T floor_div_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if ((a < 0) != (b < 0)) {
      const T q = static_cast<T>(a / b);
      return a % b != 0 ? static_cast<T>(q - 1) : q;
    }
  }
  return trunc_div(a, b);
}

// PyTorch's div_floor_floating: floor of the exact quotient (a - fmod(a, b)) / b, rounded
// to the nearest integer where the division was inexact; IEEE results for b == 0.
template <class F>
F floor_div_float(F a, F b) {
  if (b == 0) return a / b;
  const F mod = std::fmod(a, b);
  F div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= F(1);
  if (div == 0) return std::copysign(F(0), a / b);
  F floordiv = std::floor(div);
  if (div - floordiv > F(0.5)) floordiv += F(1);
  return floordiv;
}

// Python's %: the result takes the sign of b.
template <class T>
T remainder_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  T r = static_cast<T>(a % b);
  if (r != 0 && (r < 0) != (b < 0)) r = static_cast<T>(r + b);
  return r;
}

template <class F>
F remainder_float(F a, F b) {
  F mod = std::fmod(a, b);
  if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
  return mod;
}

// C's %: the result takes the sign of a.
template <class T>
T fmod_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// PyTorch's powi: square-and-multiply, wrapping; a negative exponent gives 1 / a^|b|
// truncated (only 1 and -1 survive).
template <class T>
T powi(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return b % 2 != 0 ? T(-1) : T(1);
      return 0;
    }
  }
  Wide<T> result = 1, base = static_cast<Wide<T>>(a);
  for (T e = b; e != 0; e = static_cast<T>(e / 2)) {
    if (e & 1) result *= base;
    base *= base;
  }
  return static_cast<T>(result);
}

// PyTorch's shifts: a shift by a negative amount or past the width gives 0 (left) or the
// sign fill (right).
template <class T>
T shift_left(T a, T b) {
  constexpr T kBits = sizeof(T) * CHAR_BIT;
  if (static_cast<std::make_signed_t<T>>(b) < 0 || b >= kBits) return 0;
  return static_cast<T>(static_cast<Wide<T>>(a) << b);
}

template <class T>
T shift_right(T a, T b) {
  constexpr T kMax = sizeof(T) * CHAR_BIT - std::is_signed_v<T>;
  if (static_cast<std::make_signed_t<T>>(b) < 0 || b >= kMax) return static_cast<T>(a >> kMax);
  return static_cast<T>(a >> b);
}

// maximum()/minimum(): a NaN operand wins, else `pick`.
template <class T>
Acc<T> nan_or(Acc<T> a, Acc<T> b, Acc<T> pick) {
  if constexpr (kReal<T>) return a != a ? a : (b != b ? b : pick);
  else return pick;
}

template <class A>
bool truth(A v) {
  if constexpr (kIsComplex<A>) return v.real() != 0 || v.imag() != 0;
  else return v != A(0);
}

// A number as a constant of a loop computing in T: 16-bit floats round to T first (PyTorch
// converts the number to the compute dtype).
template <class T>
Acc<T> constant(const Scalar& s) {
  return static_cast<Acc<T>>(scalar_to<T>(s));
}

// The operands of one call, converted to the compute dtype T.
template <class T>
struct Args {
  const Tensor& out;
  const Tensor* a;
  const Tensor* b;
  Acc<T> ca{};  // a's value when a is a number
  Acc<T> cb{};  // b's value when b is a number
  const char* name;
};

// out[i] = f(a[i], b[i]), one side possibly a constant; Out is T, or bool for logical ops.
template <class Out, class T, class F>
void loop(const Args<T>& x, const F& f) {
  if (x.a && x.b) {
    elementwise_loop<Out, T, 2>(TensorIterator({&x.out}, {x.a, x.b}, x.name), f);
  } else if (x.a) {
    elementwise_loop<Out, T, 1>(TensorIterator({&x.out}, {x.a}, x.name), BindSecond<F, Acc<T>>{f, x.cb});
  } else {
    elementwise_loop<Out, T, 1>(TensorIterator({&x.out}, {x.b}, x.name), BindFirst<F, Acc<T>>{f, x.ca});
  }
}

// Whether a tensor holds a zero (a pass before integer division, so that a zero divisor
// fails before anything is written).
template <class T>
bool any_zero(const Tensor& t) {
  std::atomic<bool> found{false};
  const TensorIterator it({&t}, {}, "any_zero");
  it.for_each([&](char** data, const int64_t* s, int64_t n, int64_t rows) {
    bool zero = false;
    for (int64_t r = 0; r < rows; ++r) {
      const char* row = data[0] + r * s[1];
      for (int64_t i = 0; i < n; ++i) zero |= *reinterpret_cast<const T*>(row + i * s[0]) == T(0);
    }
    if (zero) found.store(true, std::memory_order_relaxed);
  });
  return found.load();
}

// pow() with a number exponent: PyTorch's shortcuts for the common exponents.
template <class T>
void pow_scalar_exponent(const Args<T>& x) {
  using A = Acc<T>;
  const A e = x.cb;
  if constexpr (kInteger<T>) {
    loop<T>(x, [](A a, A b) { return powi<T>(a, b); });
  } else if constexpr (std::is_same_v<T, Half>) {
    // PyTorch takes no shortcut for float16 (pow(-0, 0.5) is +0, sqrt(-0) is -0).
    loop<T>(x, [](A a, A b) { return std::pow(a, b); });
  } else if (e == A(1)) {
    loop<T>(x, [](A a, A) { return a; });
  } else if (e == A(2)) {
    loop<T>(x, [](A a, A) { return a * a; });
  } else if (e == A(0.5)) {
    loop<T>(x, [](A a, A) { return std::sqrt(a); });
  } else if (e == A(-1)) {
    loop<T>(x, [](A a, A) { return A(1) / a; });
  } else if constexpr (kReal<T>) {
    if (e == A(3)) loop<T>(x, [](A a, A) { return a * a * a; });
    else if (e == A(-0.5)) loop<T>(x, [](A a, A) { return A(1) / std::sqrt(a); });
    else if (e == A(-2)) loop<T>(x, [](A a, A) { return A(1) / (a * a); });
    else loop<T>(x, [](A a, A b) { return std::pow(a, b); });
  } else {
    loop<T>(x, [](A a, A b) { return std::pow(a, b); });
  }
}

// Note [Binary functors]: each op of the family past add/sub/mul/div is one functor here:
// its dtype rule (binary.h's BinaryDtypes, which its YAML `meta:` helper also checks) and
// its formula in the compute type T, `apply<T>(a, b)`. EMBER_BINARY_KERNEL makes the
// functor the kernel the YAML names; a functor with a faster path for some operands (pow
// with a number exponent) adds `run<T>(args)`.

// A functor's formula in compute type K, as a callable of one type per K (Kern<T>: the
// 16-bit floats share float's, Note [16-bit floats in blocks]).
template <class F, class K>
struct Apply {
  auto operator()(Acc<K> p, Acc<K> q) const { return F::template apply<K>(p, q); }
};

// Whether a functor of rule r has a loop for compute type T (the meta refused the others).
template <class T>
constexpr bool computes(BinaryDtypes r) {
  constexpr bool kBool = std::is_same_v<T, bool>;
  switch (r) {
    case BinaryDtypes::TrueDiv: return kReal<T> || kIsComplex<T>;
    case BinaryDtypes::Rounding: return kReal<T> || kInteger<T>;
    case BinaryDtypes::Pow: return !kBool;
    case BinaryDtypes::Ordered: return !kIsComplex<T>;
    case BinaryDtypes::ToFloat:
    case BinaryDtypes::Floating: return kReal<T>;
    case BinaryDtypes::Inexact: return kReal<T> || kIsComplex<T>;
    case BinaryDtypes::Bitwise: return kInteger<T> || kBool;
    case BinaryDtypes::Integral: return kInteger<T>;
    case BinaryDtypes::Logical: return true;
  }
  return false;
}

Tensor converted(const Tensor& t, ScalarType dtype) {
  return t.dtype() == dtype ? t : t.to(dtype);
}

// Runs functor F elementwise into dst (the result's shape; of the result dtype or one it
// casts to), from a and b, at least one a tensor. `baseline` runs the same kernel's
// baseline copy.
//
// Note [Binary copies]: the wide-vector copies of these loops hold the floating dtypes
// only (float, double, float16, bfloat16: the loops float workloads run); integers, bool
// and complex go to the baseline copy, whose SSE2 loops the integer ops (bitwise, shifts,
// integer division) are memory-bound in anyway. Each (op, dtype) pair is a loop of its
// own, and the other eight dtypes were two thirds of every wide copy's compile time.
// A functor whose formula is a libm call per element (fmod, atan2, hypot, log1p: marked
// kScalarCalls) has no wide copy at all: its loop is those calls whatever the vector
// width (pow, atan2, fmod, hypot and their like, on 1M floats, measured the same at the
// baseline, AVX2 and AVX-512), and the copies were a quarter of the wide binary objects.
template <class F>
constexpr bool kHasWideCopy = !requires { requires F::kScalarCalls; };

template <class F, class Baseline>
void binary_functor_cpu(const char* name, Operand a, Operand b, const Tensor& dst, const Baseline& baseline) {
  const ScalarType compute = binary_compute_type(F::kDtypes, name, a, b);
  if (kWideCpuCopy && (!kHasWideCopy<F> || !is_floating_point(compute))) {
    baseline();
    return;
  }
  const ScalarType result = binary_result_type(F::kDtypes, compute);
  if (a.tensor && b.tensor) check_output_overlap(dst, {a.tensor, b.tensor});
  else check_output_overlap(dst, {a.tensor ? a.tensor : b.tensor});
  Tensor ta, tb;
  if (a.tensor) ta = converted(*a.tensor, compute);
  if (b.tensor) tb = converted(*b.tensor, compute);
  const bool direct = dst.dtype() == result;
  const Tensor out = direct ? dst : ember::empty_like(dst, TensorOptions().dtype(result));
  dispatch_all_types(compute, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr ((!kWideCpuCopy || (kReal<T> && kHasWideCopy<F>)) && computes<T>(F::kDtypes)) {
      Args<T> x{out, a.tensor ? &ta : nullptr, b.tensor ? &tb : nullptr, {}, {}, name};
      if (a.scalar) x.ca = constant<T>(*a.scalar);
      if (b.scalar) x.cb = constant<T>(*b.scalar);
      if constexpr (kInteger<T> && F::kDtypes == BinaryDtypes::Rounding) {
        EMBER_CHECK(b.tensor ? !any_zero<T>(tb) : x.cb != 0, name, "(): ZeroDivisionError: "
                    "integer division by zero (a divisor in 'other' is 0)");
      }
      if constexpr (requires { F::template run<T>(x); }) {
        F::template run<T>(x);
      } else {
        using Out = std::conditional_t<F::kDtypes == BinaryDtypes::Logical, bool, T>;
        loop<Out>(x, Apply<F, Kern<T>>{});
      }
    }
  });
  if (!direct) dst.copy_(out);
}


}  // namespace
EMBER_CPU_NAMESPACE_END
}  // namespace ember::native

// The kernel `kernel` the YAML names, running functor F: Tensor and Tensor, Tensor and
// number, and number and Tensor (which has no out= overload: it allocates its result here).
#define EMBER_BINARY_KERNEL(kernel, F, name)                                                \
  void kernel(const Tensor& self, const Tensor& other, const Tensor& out) {                 \
    binary_functor_cpu<F>(name, self, other, out,                                           \
                          [&] { ::ember::native::kernel(self, other, out); });              \
  }
#define EMBER_SCALAR_KERNEL(kernel, F, name)                                                \
  void kernel(const Tensor& self, const Scalar& other, const Tensor& out) {                 \
    binary_functor_cpu<F>(name, self, other, out,                                           \
                          [&] { ::ember::native::kernel(self, other, out); });              \
  }
#define EMBER_SCALAR_TENSOR_KERNEL(kernel, F, name)                                         \
  Tensor kernel(const Scalar& self, const Tensor& other) {                                  \
    if (kWideCpuCopy && (!kHasWideCopy<F> ||                                                \
                         !is_floating_point(binary_compute_type(F::kDtypes, name, self, other)))) { \
      return ::ember::native::kernel(self, other);                                          \
    }                                                                                       \
    Tensor out = make_output(binary_op_meta(F::kDtypes, name, self, other), other.device()); \
    binary_functor_cpu<F>(name, self, other, out, [] {});                                   \
    return out;                                                                             \
  }
