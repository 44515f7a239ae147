#pragma once
/// The arithmetic of add, sub, mul and div, one functor for every backend (Note [Shared
/// functors]): the CPU loops (cpu/binary_arith.cpp) and the CUDA kernels (cuda/binary.cu)
/// compute with the same code, so the CPU suites test the CUDA kernels' maths too.
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "c10/macros/HostDevice.h"

// Note [Shared functors]: a functor both backends run is written once, marked
// EMBER_HOST_DEVICE (__host__ __device__ under nvcc), in a header of aten/native/ that the
// CPU kernel files include inside their capability namespace (EMBER_CPU_NAMESPACE_BEGIN, so
// each ISA copy has its own instantiations) and the CUDA files outside it. It takes its
// compute type (float for the 16-bit floats) and uses nothing of the host library.

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

enum class ArithOp { Add, Mul, Div };

/// a + alpha * b, a * b or a / b in the compute type C; integers wrap, bools are logical.
template <ArithOp op, class C>
struct Arith {
  C alpha;
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    constexpr bool wraps = std::is_integral_v<C> && !std::is_same_v<C, bool>;
    if constexpr (op == ArithOp::Add) {
      if constexpr (wraps) {
        using U = std::make_unsigned_t<C>;
        return static_cast<C>(static_cast<U>(a) + static_cast<U>(static_cast<U>(alpha) * static_cast<U>(b)));
      } else if constexpr (std::is_same_v<C, bool>) {
        return a || (alpha && b);
      } else {
        return a + alpha * b;
      }
    } else if constexpr (op == ArithOp::Mul) {
      if constexpr (wraps) {
        using U = std::make_unsigned_t<C>;
        return static_cast<C>(static_cast<U>(a) * static_cast<U>(b));
      } else if constexpr (std::is_same_v<C, bool>) {
        return a && b;
      } else {
        return a * b;
      }
    } else {
      return a / b;
    }
  }
};

/// f with its second argument fixed (a number operand).
template <class F, class C>
struct WithSecond {
  F f;
  C b;
  EMBER_HOST_DEVICE C operator()(C a) const { return f(a, b); }
};

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
