// The trigonometric and hyperbolic ops of the unary float family on the CPU, one line each
// (EMBER_FLOAT_VEC_FN, cpu/unary_kernel.h): real floating types through SLEEF's vector
// functions (Vectorized.h), complex ones through the C library. Their meta is the YAML's
// `meta: float_unary_meta`. The rest of the family is cpu/unary.cpp.
#include <cmath>
#include <complex>

#include "aten/native/CpuCapability.h"
#include "aten/native/cpu/Vectorized.h"
#include "aten/native/cpu/unary_kernel.h"
#include "aten/native/unary.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

EMBER_FLOAT_VEC_FN(sin, true, std::sin(x), vec::sin(x))
EMBER_FLOAT_VEC_FN(cos, true, std::cos(x), vec::cos(x))
EMBER_FLOAT_VEC_FN(tan, true, std::tan(x), vec::tan(x))
EMBER_FLOAT_VEC_FN(asin, true, std::asin(x), vec::asin(x))
EMBER_FLOAT_VEC_FN(acos, true, std::acos(x), vec::acos(x))
EMBER_FLOAT_VEC_FN(atan, true, std::atan(x), vec::atan(x))
EMBER_FLOAT_VEC_FN(sinh, true, std::sinh(x), vec::sinh(x))
EMBER_FLOAT_VEC_FN(cosh, true, std::cosh(x), vec::cosh(x))
EMBER_FLOAT_VEC_FN(tanh, true, std::tanh(x), vec::tanh(x))
EMBER_FLOAT_VEC_FN(asinh, true, std::asinh(x), vec::asinh(x))
EMBER_FLOAT_VEC_FN(acosh, true, std::acosh(x), vec::acosh(x))
EMBER_FLOAT_VEC_FN(atanh, true, std::atanh(x), vec::atanh(x))

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
