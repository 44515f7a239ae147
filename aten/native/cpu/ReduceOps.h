#pragma once
/// The op structs of the CPU reductions (Note [Reduction plan] in aten/native/Reduce.h): one
/// per ReduceKind, each an identity, a step, a combine and a write, over one input type T.
/// The walks that run them are cpu/ReduceLoops.h; the kernels, cpu/reduce*.cpp.

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Reduce.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

template <class T>
constexpr bool kHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// What a sum of T accumulates in: float for the 16-bit floats, uint64 for integers and bool
// (wrapping, as PyTorch's int64 sums do), T otherwise.
template <class T>
using SumAcc = std::conditional_t<
    kHalfLike<T>, float,
    std::conditional_t<std::is_integral_v<T>, uint64_t, T>>;
// What a comparison of T compares in: float for the 16-bit floats, T otherwise.
template <class T>
using CmpAcc = std::conditional_t<kHalfLike<T>, float, T>;
// The real type a norm of T accumulates in.
template <class T>
using RealAcc = RealType<SumAcc<T>>;

template <class T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else if constexpr (kIsComplex<T>) return std::isnan(x.real()) || std::isnan(x.imag());
  else return false;
}

template <class T>
bool nonzero(T x) {
  if constexpr (kHalfLike<T>) return static_cast<float>(x) != 0.0f;
  else if constexpr (kIsComplex<T>) return x != T(0);
  else return x != T(0);
}

// An accumulated sum as the output type T (integers wrap, bool is "not zero").
template <class T, class A>
T from_acc(A a) {
  if constexpr (std::is_same_v<T, bool>) return a != A(0);
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(a);
  else return convert<T>(a);
}

// Where an op writes its results of type T: T's elements. For T = float the output may
// hold Half or BFloat16 instead (the 16-bit inputs reduce in the float ops, Note [16-bit
// floats in reductions] in cpu/ReduceLoops.h), chosen at run time; a store rounds once.
template <class T>
struct OutPtr {
  using value_type = T;
  T* p = nullptr;
  explicit operator bool() const { return p != nullptr; }
  void store(int64_t off, T v) const { p[off] = v; }
  T rounded(T v) const { return v; }
};

template <>
struct OutPtr<float> {
  using value_type = float;
  void* p = nullptr;
  ScalarType dtype = ScalarType::Float;
  explicit operator bool() const { return p != nullptr; }
  void store(int64_t off, float v) const {
    if (dtype == ScalarType::Float) static_cast<float*>(p)[off] = v;
    else if (dtype == ScalarType::Half) static_cast<Half*>(p)[off] = Half(v);
    else static_cast<BFloat16*>(p)[off] = BFloat16(v);
  }
  // v rounded to the output's dtype and back.
  float rounded(float v) const {
    if (dtype == ScalarType::Half) return float(Half(v));
    if (dtype == ScalarType::BFloat16) return float(BFloat16(v));
    return v;
  }
};

// The output pointer of an op writing T into `out` (whose dtype is T's, or a 16-bit float's
// for T = float).
template <class T>
OutPtr<T> out_of(const Tensor& out) {
  if constexpr (std::is_same_v<T, float>) {
    const ScalarType t = out.dtype();
    EMBER_INTERNAL_ASSERT(t == ScalarType::Float || t == ScalarType::Half || t == ScalarType::BFloat16,
                          "reduce_kernel_cpu(): a float reduction writes ", t);
    return {out.impl()->data(), t};
  } else {
    return {static_cast<T*>(out.impl()->data())};
  }
}

struct NoCenter {};

// Members every op shares; an op overrides what differs.
template <class T, class A>
struct OpBase {
  using In = T;
  using acc_t = A;
  using center_t = NoCenter;
  static constexpr bool kAdditive = false;  // step adds a term: cascade summation applies
  // step_vec(acc, x) is step on registers of A (for In = A): see fold_lanes.
  static constexpr bool kVectorStep = false;
  center_t center(int64_t) const { return {}; }
};

// ---- the ops ---------------------------------------------------------------------------------

template <class T, bool kNan>
struct SumOp : OpBase<T, SumAcc<T>> {
  using A = SumAcc<T>;
  static constexpr bool kAdditive = true;
  OutPtr<T> out;
  A scale;
  A identity() const { return A(0); }
  A step(A a, T x, int64_t, NoCenter) const {
    if constexpr (std::is_integral_v<T>) return a + static_cast<A>(static_cast<int64_t>(x));
    else if constexpr (kNan) return is_nan(x) ? a : a + A(x);
    else return a + A(x);
  }
  A combine(A a, A b) const { return a + b; }
  void write(int64_t off, A a, NoCenter) const {
    if constexpr (!std::is_integral_v<T>) a = a * scale;
    out.store(off, from_acc<T>(a));
  }
};

template <class T>
struct ProdOp : OpBase<T, SumAcc<T>> {
  using A = SumAcc<T>;
  OutPtr<T> out;
  A identity() const { return A(1); }
  A step(A a, T x, int64_t, NoCenter) const {
    if constexpr (std::is_integral_v<T>) return a * static_cast<A>(static_cast<int64_t>(x));
    else return a * A(x);
  }
  A combine(A a, A b) const { return a * b; }
  void write(int64_t off, A a, NoCenter) const { out.store(off, from_acc<T>(a)); }
};

// max (kMax) or min with NaN propagating.
// Without branches: `|` rather than `||`, and b != b for NaN, so that the compiler turns a
// lane array of these into vector compares and blends (with `||` it kept one compare and
// branch per element: amax over rows ran 19x PyTorch's time).
template <class A, bool kMax>
A better_of(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) {
    const bool take = (kMax ? b > a : b < a) | (b != b);
    return take ? b : a;
  } else {
    return (kMax ? b > a : b < a) ? b : a;
  }
}

template <class A, bool kMax>
constexpr A worst() {
  if constexpr (std::is_same_v<A, bool>) return !kMax;
  else if constexpr (std::is_floating_point_v<A>)
    return kMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
  else return kMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
}

template <class T, bool kMax>
struct MaxOp : OpBase<T, CmpAcc<T>> {
  using A = CmpAcc<T>;
  static constexpr bool kVectorStep = std::is_floating_point_v<T>;
  OutPtr<T> out;
  A identity() const { return worst<A, kMax>(); }
  template <class R>
  R step_vec(R a, R x) const { return ((kMax ? x > a : x < a) | (x != x)) ? x : a; }
  A step(A a, T x, int64_t, NoCenter) const { return better_of<A, kMax>(a, A(x)); }
  A combine(A a, A b) const { return better_of<A, kMax>(a, b); }
  void write(int64_t off, A a, NoCenter) const { out.store(off, convert<T>(a)); }
};

// Writes through uint8_t for both output dtypes: a bool holds 0 or 1 in one byte, as a
// uint8 does, so one instantiation serves both.
template <class T, bool kAll>
struct AllOp : OpBase<T, bool> {
  OutPtr<uint8_t> out;
  bool identity() const { return kAll; }
  bool step(bool a, T x, int64_t, NoCenter) const {
    if constexpr (kAll) return a && nonzero(x);
    else return a || nonzero(x);
  }
  bool combine(bool a, bool b) const { return kAll ? (a && b) : (a || b); }
  void write(int64_t off, bool a, NoCenter) const { out.store(off, static_cast<uint8_t>(a)); }
};

// Counts of elements: nonzero ones (into int64, scaled) or non-NaN ones (into T).
template <class T, bool kNotNan>
struct CountOp : OpBase<T, int64_t> {
  static constexpr bool kAdditive = true;
  std::conditional_t<kNotNan, OutPtr<T>, OutPtr<int64_t>> out;
  double scale;
  int64_t identity() const { return 0; }
  int64_t step(int64_t a, T x, int64_t, NoCenter) const {
    if constexpr (kNotNan) return a + !is_nan(x);
    else return a + nonzero(x);
  }
  int64_t combine(int64_t a, int64_t b) const { return a + b; }
  void write(int64_t off, int64_t a, NoCenter) const {
    if constexpr (kNotNan) out.store(off, convert<T>(static_cast<double>(a)));
    else out.store(off, a);
  }
};

// A value and the index it was found at (-1: none yet).
template <class A>
struct ValueIndex {
  A value;
  int64_t index;
};

// The better of two candidates: NaN first, then the larger (smaller), then the lower index.
template <class A, bool kMax>
ValueIndex<A> better_indexed(ValueIndex<A> a, ValueIndex<A> b) {
  if (a.index < 0) return b;
  if (b.index < 0) return a;
  const bool na = is_nan(a.value), nb = is_nan(b.value);
  if (na || nb) return (na && (!nb || a.index < b.index)) ? a : b;
  if (kMax ? b.value > a.value : b.value < a.value) return b;
  if (b.value == a.value && b.index < a.index) return b;
  return a;
}

// argmax/argmin (values null) and max/min with indices.
template <class T, bool kMax>
struct ArgOp : OpBase<T, ValueIndex<CmpAcc<T>>> {
  using A = CmpAcc<T>;
  using V = ValueIndex<A>;
  OutPtr<T> values;  // null for argmax/argmin
  OutPtr<int64_t> indices;
  V identity() const { return {worst<A, kMax>(), -1}; }
  V step(V a, T x, int64_t i, NoCenter) const {
    const A v = A(x);
    // Indices grow along a walk, so ties keep the earlier element.
    const bool take = a.index < 0 || (!is_nan(a.value) && (kMax ? v > a.value : v < a.value)) ||
                      (is_nan(v) && !is_nan(a.value));
    return take ? V{v, i} : a;
  }
  V combine(V a, V b) const { return better_indexed<A, kMax>(a, b); }
  void write(int64_t off, V a, NoCenter) const {
    if (values) values.store(off, convert<T>(a.value));
    indices.store(off, a.index);
  }
};

template <class A>
struct MinMax {
  A min;
  A max;
};

template <class T>
struct MinMaxOp : OpBase<T, MinMax<CmpAcc<T>>> {
  using A = CmpAcc<T>;
  using M = MinMax<A>;
  OutPtr<T> mins;
  OutPtr<T> maxs;
  M identity() const { return {worst<A, false>(), worst<A, true>()}; }
  M step(M a, T x, int64_t, NoCenter) const {
    return {better_of<A, false>(a.min, A(x)), better_of<A, true>(a.max, A(x))};
  }
  M combine(M a, M b) const {
    return {better_of<A, false>(a.min, b.min), better_of<A, true>(a.max, b.max)};
  }
  void write(int64_t off, M a, NoCenter) const {
    mins.store(off, convert<T>(a.min));
    maxs.store(off, convert<T>(a.max));
  }
};

template <class T>
RealAcc<T> magnitude(T x) {
  if constexpr (kIsComplex<T>) return std::abs(SumAcc<T>(x));
  else return std::abs(RealAcc<T>(x));
}

enum class Norm { Zero, One, Two, General };

// sum |x|^p, then the p-th root (p = 0: the count of nonzeros).
template <class T, Norm kNorm>
struct NormOp : OpBase<T, RealAcc<T>> {
  using R = RealAcc<T>;
  using Out = RealType<T>;
  static constexpr bool kAdditive = true;
  OutPtr<Out> out;
  R p;
  R identity() const { return R(0); }
  R step(R a, T x, int64_t, NoCenter) const {
    if constexpr (kNorm == Norm::Zero) {
      return a + R(nonzero(x));
    } else if constexpr (kNorm == Norm::One) {
      return a + magnitude(x);
    } else if constexpr (kNorm == Norm::Two) {
      if constexpr (kIsComplex<T>) return a + std::norm(SumAcc<T>(x));
      else return a + R(x) * R(x);
    } else {
      return a + std::pow(magnitude(x), p);
    }
  }
  R combine(R a, R b) const { return a + b; }
  void write(int64_t off, R a, NoCenter) const {
    if constexpr (kNorm == Norm::Two) a = std::sqrt(a);
    else if constexpr (kNorm == Norm::General) a = std::pow(a, R(1) / p);
    out.store(off, convert<Out>(a));
  }
};

// max |x| (kMax) or min |x|.
template <class T, bool kMax>
struct NormInfOp : OpBase<T, RealAcc<T>> {
  using R = RealAcc<T>;
  using Out = RealType<T>;
  OutPtr<Out> out;
  R identity() const { return kMax ? R(0) : std::numeric_limits<R>::infinity(); }
  R step(R a, T x, int64_t, NoCenter) const { return better_of<R, kMax>(a, magnitude(x)); }
  R combine(R a, R b) const { return better_of<R, kMax>(a, b); }
  void write(int64_t off, R a, NoCenter) const { out.store(off, convert<Out>(a)); }
};

// scale * sum |x - mean|^2 (var), its square root (std).
template <class T>
struct SquaredDeviationOp : OpBase<T, RealAcc<T>> {
  using R = RealAcc<T>;
  using C = SumAcc<T>;
  using Out = RealType<T>;
  using center_t = C;
  static constexpr bool kAdditive = true;
  OutPtr<Out> out;
  const C* centers;
  R scale;
  bool root;
  C center(int64_t off) const { return centers[off]; }
  R identity() const { return R(0); }
  R step(R a, T x, int64_t, C c) const {
    const C d = C(x) - c;
    if constexpr (kIsComplex<T>) return a + std::norm(d);
    else return a + d * d;
  }
  R combine(R a, R b) const { return a + b; }
  void write(int64_t off, R a, C) const {
    a = a * scale;
    out.store(off, convert<Out>(root ? std::sqrt(a) : a));
  }
};

// log(sum exp(x - m)) + m with m the maximum (0 where it is infinite).
template <class T>
struct ExpShiftedOp : OpBase<T, SumAcc<T>> {
  using A = SumAcc<T>;
  using center_t = A;
  static constexpr bool kAdditive = true;
  OutPtr<T> out;
  const A* centers;
  A center(int64_t off) const {
    const A m = centers[off];
    return std::isinf(m) ? A(0) : m;
  }
  A identity() const { return A(0); }
  A step(A a, T x, int64_t, A m) const { return a + std::exp(A(x) - m); }
  A combine(A a, A b) const { return a + b; }
  void write(int64_t off, A a, A m) const {
    // 16-bit floats round the log before adding the maximum, as PyTorch's composite does
    // (log(sum) + m cancels: rounding only at the end would differ by a lot).
    out.store(off, convert<T>(out.rounded(std::log(a)) + m));
  }
};

template <class T>
constexpr bool kOrdered = !kIsComplex<T>;
template <class T>
constexpr bool kFloating = std::is_floating_point_v<T> || kHalfLike<T> || kIsComplex<T>;

}  // namespace
EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
