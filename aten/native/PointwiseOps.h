#pragma once
/// The element maths of where, clamp, lerp, addcmul and addcdiv, one function each for every
/// backend (Note [Shared functors] in ArithOps.h): the CPU loops (cpu/pointwise.cpp) and the
/// CUDA kernels (cuda/pointwise.cu) call these, in the compute type A (float for the 16-bit
/// floats).
#include <cmath>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "c10/macros/HostDevice.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

/// x clamped to [lo, hi] (a missing bound is the type's extreme); a NaN bound makes every
/// element that NaN (nan_bound), as PyTorch's. Branch-free, so the CPU loop vectorises.
template <class A>
EMBER_HOST_DEVICE A clamp_between(A x, A lo, A hi, bool nan_bound, A nan_value) {
  A y = x < lo ? lo : x;
  y = y > hi ? hi : y;
  return nan_bound ? nan_value : y;
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
