// The binary elementwise family on the CPU past add, sub, mul and div (those are
// cpu/binary_arith.cpp), over TensorIterator (Note [TensorIterator]): one functor per op
// (Note [Binary functors]): rounding division, remainder, fmod, pow, maximum, minimum, fmax,
// fmin, atan2, hypot, copysign, bitwise and/or/xor/not, shifts and the logical ops. A number
// operand is a constant of the loop, never a tensor. Operands are converted to the compute
// dtype first (aten/native/binary.h); an out= of another dtype receives a converted copy.
// Integers wrap on overflow as in PyTorch; 16-bit floats compute in float32 and round once.
#include <atomic>
#include <climits>
#include <cmath>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/binary.h"
#include "aten/native/cpu/Loops.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/atan2_native.h"
#include "ember/generated/ops/bitwise_and_native.h"
#include "ember/generated/ops/bitwise_left_shift_native.h"
#include "ember/generated/ops/bitwise_or_native.h"
#include "ember/generated/ops/bitwise_right_shift_native.h"
#include "ember/generated/ops/bitwise_xor_native.h"
#include "ember/generated/ops/copysign_native.h"
#include "ember/generated/ops/div_native.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/floor_divide_native.h"
#include "ember/generated/ops/fmax_native.h"
#include "ember/generated/ops/fmin_native.h"
#include "ember/generated/ops/fmod_native.h"
#include "ember/generated/ops/hypot_native.h"
#include "ember/generated/ops/logaddexp_native.h"
#include "ember/generated/ops/logical_and_native.h"
#include "ember/generated/ops/logical_or_native.h"
#include "ember/generated/ops/logical_xor_native.h"
#include "ember/generated/ops/maximum_native.h"
#include "ember/generated/ops/minimum_native.h"
#include "ember/generated/ops/pow_native.h"
#include "ember/generated/ops/remainder_native.h"

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

struct DivTrue {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::TrueDiv;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return a / b; }
};
struct DivTrunc {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Rounding;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return std::trunc(a / b);
    else return trunc_div<T>(a, b);
  }
};
struct DivFloor {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Rounding;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return floor_div_float(a, b);
    else return floor_div_int<T>(a, b);
  }
};
struct Remainder {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Rounding;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return remainder_float(a, b);
    else return remainder_int<T>(a, b);
  }
};
struct Fmod {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Rounding;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return std::fmod(a, b);
    else return fmod_int<T>(a, b);
  }
};
struct Pow {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Pow;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kInteger<T>) return powi<T>(a, b);
    else return std::pow(a, b);
  }
  template <class T> static void run(const Args<T>& x) {
    if (!x.b) pow_scalar_exponent(x);
    else loop<T>(x, [](Acc<T> a, Acc<T> b) { return apply<T>(a, b); });
  }
};
struct Maximum {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Ordered;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return nan_or<T>(a, b, a < b ? b : a); }
};
struct Minimum {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Ordered;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return nan_or<T>(a, b, b < a ? b : a); }
};
struct Fmax {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Ordered;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return std::fmax(a, b);
    else return a < b ? b : a;
  }
};
struct Fmin {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Ordered;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return std::fmin(a, b);
    else return b < a ? b : a;
  }
};
struct Atan2 {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::ToFloat;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return std::atan2(a, b); }
};
struct Hypot {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Floating;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return std::hypot(a, b); }
};
struct Copysign {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::ToFloat;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return std::copysign(a, b); }
};
// log(exp(a) + exp(b)) without overflow: the larger (by real part) plus log1p(exp(the
// difference)); equal infinities give themselves, as PyTorch.
struct Logaddexp {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Inexact;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    using A = Acc<T>;
    if constexpr (kIsComplex<A>) {
      const A m = a.real() >= b.real() ? a : b;
      const A n = a.real() >= b.real() ? b : a;
      if (std::isinf(m.real()) && m == n) return m;
      return m + std::log(A(1) + std::exp(n - m));
    } else {
      if (std::isinf(a) && a == b) return a;
      return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
    }
  }
};
struct BitAnd {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Bitwise;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return T(a & b); }
};
struct BitOr {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Bitwise;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return T(a | b); }
};
struct BitXor {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Bitwise;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return T(a ^ b); }
};
struct LeftShift {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Integral;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return shift_left<T>(a, b); }
};
struct RightShift {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Integral;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return shift_right<T>(a, b); }
};
struct LogicalAnd {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Logical;
  template <class T> static bool apply(Acc<T> a, Acc<T> b) { return truth(a) && truth(b); }
};
struct LogicalOr {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Logical;
  template <class T> static bool apply(Acc<T> a, Acc<T> b) { return truth(a) || truth(b); }
};
struct LogicalXor {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Logical;
  template <class T> static bool apply(Acc<T> a, Acc<T> b) { return truth(a) != truth(b); }
};

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
// width (pow, atan2, fmod, hypot and logaddexp of 1M floats measured the same at the
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

// div(a, b, rounding_mode) as its functor.
template <class G>
void with_div_mode(std::optional<std::string_view> rounding_mode, const G& go) {
  switch (div_mode(rounding_mode)) {
    case DivMode::True: go(DivTrue{}); return;
    case DivMode::Trunc: go(DivTrunc{}); return;
    case DivMode::Floor: go(DivFloor{}); return;
  }
}

}  // namespace

// ---- the kernels the YAML names ------------------------------------------------------------

void div_out_mode_cpu(const Tensor& self, const Tensor& other,
                      std::optional<std::string_view> rounding_mode, const Tensor& out) {
  with_div_mode(rounding_mode, [&](auto f) {
    binary_functor_cpu<decltype(f)>("div", self, other, out, [&] {
      ::ember::native::div_out_mode_cpu(self, other, rounding_mode, out);
    });
  });
}

void div_scalar_mode_out_cpu(const Tensor& self, const Scalar& other,
                             std::optional<std::string_view> rounding_mode, const Tensor& out) {
  with_div_mode(rounding_mode, [&](auto f) {
    binary_functor_cpu<decltype(f)>("div", self, other, out, [&] {
      ::ember::native::div_scalar_mode_out_cpu(self, other, rounding_mode, out);
    });
  });
}

void pow_tensor_tensor_out_cpu(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  binary_functor_cpu<Pow>("pow", self, exponent, out,
                          [&] { ::ember::native::pow_tensor_tensor_out_cpu(self, exponent, out); });
}

void pow_tensor_scalar_out_cpu(const Tensor& self, const Scalar& exponent, const Tensor& out) {
  if (pow_is_trivial(exponent)) {
    check_output_overlap(out, {&self});
    if (exponent.is_complex() ? exponent.to_complex() == std::complex<double>(0.0)
                              : exponent.to_double() == 0.0) {
      out.fill_(1);
    } else {
      out.copy_(self);
    }
    return;
  }
  binary_functor_cpu<Pow>("pow", self, exponent, out,
                          [&] { ::ember::native::pow_tensor_scalar_out_cpu(self, exponent, out); });
}

void pow_scalar_out_cpu(const Scalar& self, const Tensor& exponent, const Tensor& out) {
  // 1 ** anything is 1 (NaN and infinite exponents included), as in PyTorch.
  const bool one = self.is_complex() ? self.to_complex() == std::complex<double>(1.0)
                                     : self.to_double() == 1.0;
  if (one) {
    check_output_overlap(out, {&exponent});
    out.fill_(1);
    return;
  }
  binary_functor_cpu<Pow>("pow", self, exponent, out,
                          [&] { ::ember::native::pow_scalar_out_cpu(self, exponent, out); });
}

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
EMBER_BINARY_KERNEL(floor_divide_out_cpu, DivFloor, "floor_divide")
EMBER_SCALAR_KERNEL(floor_divide_scalar_out_cpu, DivFloor, "floor_divide")
EMBER_BINARY_KERNEL(remainder_out_cpu, Remainder, "remainder")
EMBER_SCALAR_KERNEL(remainder_scalar_out_cpu, Remainder, "remainder")
EMBER_SCALAR_TENSOR_KERNEL(remainder_scalar_tensor_cpu, Remainder, "remainder")
EMBER_BINARY_KERNEL(fmod_out_cpu, Fmod, "fmod")
EMBER_SCALAR_KERNEL(fmod_scalar_out_cpu, Fmod, "fmod")
EMBER_BINARY_KERNEL(maximum_out_cpu, Maximum, "maximum")
EMBER_BINARY_KERNEL(minimum_out_cpu, Minimum, "minimum")
EMBER_BINARY_KERNEL(fmax_out_cpu, Fmax, "fmax")
EMBER_BINARY_KERNEL(fmin_out_cpu, Fmin, "fmin")
EMBER_BINARY_KERNEL(atan2_out_cpu, Atan2, "atan2")
EMBER_BINARY_KERNEL(hypot_out_cpu, Hypot, "hypot")
EMBER_BINARY_KERNEL(copysign_out_cpu, Copysign, "copysign")
EMBER_BINARY_KERNEL(logaddexp_out_cpu, Logaddexp, "logaddexp")
EMBER_SCALAR_KERNEL(copysign_scalar_out_cpu, Copysign, "copysign")
EMBER_BINARY_KERNEL(bitwise_and_out_cpu, BitAnd, "bitwise_and")
EMBER_SCALAR_KERNEL(bitwise_and_scalar_out_cpu, BitAnd, "bitwise_and")
EMBER_SCALAR_TENSOR_KERNEL(bitwise_and_scalar_tensor_cpu, BitAnd, "bitwise_and")
EMBER_BINARY_KERNEL(bitwise_or_out_cpu, BitOr, "bitwise_or")
EMBER_SCALAR_KERNEL(bitwise_or_scalar_out_cpu, BitOr, "bitwise_or")
EMBER_SCALAR_TENSOR_KERNEL(bitwise_or_scalar_tensor_cpu, BitOr, "bitwise_or")
EMBER_BINARY_KERNEL(bitwise_xor_out_cpu, BitXor, "bitwise_xor")
EMBER_SCALAR_KERNEL(bitwise_xor_scalar_out_cpu, BitXor, "bitwise_xor")
EMBER_SCALAR_TENSOR_KERNEL(bitwise_xor_scalar_tensor_cpu, BitXor, "bitwise_xor")
EMBER_BINARY_KERNEL(bitwise_left_shift_out_cpu, LeftShift, "bitwise_left_shift")
EMBER_SCALAR_KERNEL(bitwise_left_shift_scalar_out_cpu, LeftShift, "bitwise_left_shift")
EMBER_SCALAR_TENSOR_KERNEL(bitwise_left_shift_scalar_tensor_cpu, LeftShift,
                           "bitwise_left_shift")
EMBER_BINARY_KERNEL(bitwise_right_shift_out_cpu, RightShift, "bitwise_right_shift")
EMBER_SCALAR_KERNEL(bitwise_right_shift_scalar_out_cpu, RightShift,
                    "bitwise_right_shift")
EMBER_SCALAR_TENSOR_KERNEL(bitwise_right_shift_scalar_tensor_cpu, RightShift,
                           "bitwise_right_shift")
EMBER_BINARY_KERNEL(logical_and_out_cpu, LogicalAnd, "logical_and")
EMBER_BINARY_KERNEL(logical_or_out_cpu, LogicalOr, "logical_or")
EMBER_BINARY_KERNEL(logical_xor_out_cpu, LogicalXor, "logical_xor")
#undef EMBER_BINARY_KERNEL
#undef EMBER_SCALAR_KERNEL
#undef EMBER_SCALAR_TENSOR_KERNEL

void bitwise_not_out_cpu(const Tensor& self, const Tensor& out) {
  // As PyTorch's unary ops: out= must have self's dtype.
  EMBER_CHECK(out.dtype() == self.dtype(), "bitwise_not(): expected 'out' to have the dtype of "
              "'self' (", self.dtype(), "), but got ", out.dtype());
  check_output_overlap(out, {&self});
  dispatch_all_types(self.dtype(), "bitwise_not", [&](auto tag) {
    using T = typename decltype(tag)::type;
    TensorIterator it({&out}, {&self}, "bitwise_not");
    if constexpr (std::is_same_v<T, bool>) elementwise_loop<T, T, 1>(it, [](bool a) { return !a; });
    else if constexpr (kInteger<T>) elementwise_loop<T, T, 1>(it, [](T a) { return T(~a); });
  });
}

void logical_not_out_cpu(const Tensor& self, const Tensor& dst) {
  check_output_overlap(dst, {&self});
  const bool direct = dst.dtype() == ScalarType::Bool;
  const Tensor out = direct ? dst : ember::empty_like(dst, TensorOptions().dtype(ScalarType::Bool));
  dispatch_all_types(self.dtype(), "logical_not", [&](auto tag) {
    using T = typename decltype(tag)::type;
    elementwise_loop<bool, T, 1>(TensorIterator({&out}, {&self}, "logical_not"),
                                 [](Acc<T> a) { return !truth(a); });
  });
  if (!direct) dst.copy_(out);
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
