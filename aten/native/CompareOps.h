#pragma once
/// The comparisons eq, ne, lt, le, gt, ge, one functor for every backend (Note [Shared
/// functors] in ArithOps.h): the CPU loops (cpu/compare.cpp) and the CUDA kernels
/// (cuda/compare.cu) compare with the same code, in the operands' promoted dtype.
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "c10/macros/HostDevice.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

/// a <op> b in the compute type A; complex numbers are not ordered (the front ends refuse
/// them before any loop runs).
template <Cmp c, class A>
EMBER_HOST_DEVICE bool compare(A a, A b) {
  if constexpr (c == Cmp::Eq) return a == b;
  else if constexpr (c == Cmp::Ne) return a != b;
  else if constexpr (kIsComplex<A>) return false;
  else if constexpr (c == Cmp::Lt) return a < b;
  else if constexpr (c == Cmp::Le) return a <= b;
  else if constexpr (c == Cmp::Gt) return a > b;
  else return a >= b;
}

/// compare<c> as a callable of one type per computation type.
template <Cmp c, class A>
struct Compare {
  EMBER_HOST_DEVICE bool operator()(A a, A b) const { return compare<c>(a, b); }
};

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
