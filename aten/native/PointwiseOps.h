#pragma once
/// The element maths of where, clamp, lerp, addcmul and addcdiv, one function each for every
/// backend (Note [Shared functors] in ArithOps.h): the CPU loops (cpu/pointwise.cpp) and the
/// CUDA kernels (cuda/pointwise.cu) call these, in the compute type A (float for the 16-bit
/// floats).
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "c10/core/Scalar.h"
#include "c10/macros/HostDevice.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

/// clamp with number bounds, as a functor of the compute type A: a missing bound is the
/// type's extreme, so one branch-free form (selects the CPU loop vectorises) serves every
/// call; a NaN bound makes every element that NaN, as PyTorch's.
template <class A>
struct ClampBounds {
  A lo, hi;
  bool nan_bound = false;
  A nan_value = A(0);
  EMBER_HOST_DEVICE A operator()(A x) const {
    A y = x < lo ? lo : x;
    y = y > hi ? hi : y;
    return nan_bound ? nan_value : y;
  }
};

/// The bounds of clamp(min, max) for element type T (ValueError naming op when a bound
/// does not fit T); host code.
template <class T, class A>
ClampBounds<A> clamp_bounds(const std::optional<Scalar>& min, const std::optional<Scalar>& max, const char* op) {
  constexpr A kLowest = std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                             : std::numeric_limits<A>::lowest();
  constexpr A kHighest = std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                                              : std::numeric_limits<A>::max();
  ClampBounds<A> b{min ? A(checked_scalar_to<T>(*min, op, "min")) : kLowest,
                   max ? A(checked_scalar_to<T>(*max, op, "max")) : kHighest};
  if constexpr (std::is_floating_point_v<A>) {
    b.nan_bound = std::isnan(b.lo) || std::isnan(b.hi);
    b.nan_value = std::isnan(b.lo) ? b.lo : b.hi;
  }
  return b;
}

/// PyTorch's lerp: from the nearer end, so that weight 0 and 1 give the ends exactly.
template <class A, class W>
EMBER_HOST_DEVICE A lerp_value(A self, A end, W weight) {
  using std::abs;
  return abs(weight) < RealType<W>(0.5) ? self + weight * (end - self) : end - (end - self) * (W(1) - weight);
}

/// self + value * t1 * t2; integers wrap (computed unsigned).
template <class A>
EMBER_HOST_DEVICE A addcmul_value(A self, A t1, A t2, A value) {
  if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(self) + static_cast<U>(value) * static_cast<U>(t1) * static_cast<U>(t2));
  } else {
    return self + value * t1 * t2;
  }
}

/// self + value * t1 / t2 (floating and complex types).
template <class A>
EMBER_HOST_DEVICE A addcdiv_value(A self, A t1, A t2, A value) {
  return self + value * t1 / t2;
}

/// where's element: the condition joins the loop as 0/1 of the compute type.
template <class A>
EMBER_HOST_DEVICE A where_value(A c, A a, A b) {
  return c != A(0) ? a : b;
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
