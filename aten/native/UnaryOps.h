#pragma once
/// The real maths of the unary float family (exp, log, sqrt, sigmoid, the trigonometric and
/// hyperbolic ops...), one functor per op for every backend (Note [Shared functors] in
/// ArithOps.h): the CPU kernels (cpu/unary.cpp, cpu/unary_trig.cpp) run them on their
/// scalar paths (their vector forms are SLEEF's), the CUDA kernels (cuda/unary.cu) on the
/// device. Each takes its compute type A: float for the 16-bit floats, as on the CPU.
#include <cmath>

#include "aten/native/CpuCapability.h"
#include "c10/macros/HostDevice.h"

/// X(op, expression of x): the real form of each op of the family.
#define EMBER_FLOAT_UNARY_OPS(X) \
  X(exp, std::exp(x)) \
  X(exp2, std::exp2(x)) \
  X(expm1, std::expm1(x)) \
  X(log, std::log(x)) \
  X(log2, std::log2(x)) \
  X(log10, std::log10(x)) \
  X(log1p, std::log1p(x)) \
  X(sqrt, std::sqrt(x)) \
  X(rsqrt, A(1) / std::sqrt(x)) \
  X(sigmoid, A(1) / (A(1) + std::exp(-x))) \
  X(erf, std::erf(x)) \
  X(erfc, std::erfc(x)) \
  X(reciprocal, A(1) / x) \
  X(deg2rad, x * A(0.017453292519943295)) \
  X(rad2deg, x * A(57.29577951308232)) \
  X(sin, std::sin(x)) \
  X(cos, std::cos(x)) \
  X(tan, std::tan(x)) \
  X(asin, std::asin(x)) \
  X(acos, std::acos(x)) \
  X(atan, std::atan(x)) \
  X(sinh, std::sinh(x)) \
  X(cosh, std::cosh(x)) \
  X(tanh, std::tanh(x)) \
  X(asinh, std::asinh(x)) \
  X(acosh, std::acosh(x)) \
  X(atanh, std::atanh(x))

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace real_ops {

#define EMBER_REAL_UNARY_FUNCTOR(op, expr)               \
  struct op {                                            \
    template <class A>                                   \
    EMBER_HOST_DEVICE A operator()(A x) const {          \
      return expr;                                       \
    }                                                    \
  };
EMBER_FLOAT_UNARY_OPS(EMBER_REAL_UNARY_FUNCTOR)
#undef EMBER_REAL_UNARY_FUNCTOR

}  // namespace real_ops
EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
