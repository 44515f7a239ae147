// The float family of unary ops on the CPU over TensorIterator (Note [TensorIterator]), past
// the trigonometric ones (cpu/unary_trig.cpp): one line each (EMBER_FLOAT_VEC_FN,
// cpu/unary_kernel.h). 16-bit floats compute in float32 and round once. Float and double run
// through SLEEF's vector functions (Vectorized.h); complex ones through the C library. The
// ops that compute in self's dtype (abs, neg, sign, roundings, predicates) are
// cpu/unary_exact.cpp.
#include <cmath>
#include <complex>

#include "aten/native/CpuCapability.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/unary_kernel.h"
#include "aten/native/unary.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

EMBER_FLOAT_VEC_FN(exp, true, std::exp(x), vec::exp(x))
EMBER_FLOAT_VEC_FN(exp2, true, std::exp(x * R(0.693147180559945309417232121458176568)), vec::exp2(x))
EMBER_FLOAT_VEC_FN(expm1, true, std::exp(x) - A(1), vec::expm1(x))
EMBER_FLOAT_VEC_FN(log, true, std::log(x), vec::log(x))
EMBER_FLOAT_VEC_FN(log2, true, std::log(x) * R(1.442695040888963407359924681001892137), vec::log2(x))
EMBER_FLOAT_VEC_FN(log10, true, std::log10(x), vec::log10(x))
EMBER_FLOAT_VEC_FN(log1p, true, std::log(A(1) + x), vec::log1p(x))
EMBER_FLOAT_VEC_FN(sqrt, true, std::sqrt(x), vec::sqrt(x))
EMBER_FLOAT_VEC_FN(rsqrt, true, A(1) / std::sqrt(x), V(1) / vec::sqrt(x))
EMBER_FLOAT_VEC_FN(sigmoid, true, A(1) / (A(1) + std::exp(-x)), V(1) / (V(1) + vec::exp(-x)))
EMBER_FLOAT_VEC_FN(erf, false, x, vec::erf(x))
EMBER_FLOAT_VEC_FN(erfc, false, x, vec::erfc(x))
EMBER_FLOAT_FN(reciprocal, true, A(1) / x)
EMBER_FLOAT_VEC_FN(deg2rad, false, x, x * V(0.017453292519943295))
EMBER_FLOAT_VEC_FN(rad2deg, false, x, x * V(57.29577951308232))

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
