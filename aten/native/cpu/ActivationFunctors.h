#pragma once
/// The activation functors that both the eager kernels (cpu/activation.cpp) and the fused
/// elementwise kernel (cpu/fused_elementwise.cpp) run, so a fused chain computes each
/// element with the same instructions as the eager op (Note [Fused tiles]).

#include <cmath>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/cpu/Vectorized.h"
#include "aten/native/cpu/unary_kernel.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

// Φ(x) = erfc(-x/√2)/2 in float, the normal CDF of gelu. PyTorch's float gelu writes it
// as (1 + erf(x/√2))/2, which cancels for x < 0: its results there are off by up to 100%
// (x < -5) and by up to 28% on [-5, -1]. Here the tail erfc(|u|), u = x/√2, is computed
// directly and nothing cancels: Φ(x) = tail/2 for x <= 0 and 1 - tail/2 above, with
//   erfc(|u|) = exp(-u²) t R(t),  t = 1/(1 + 0.4|u|),
// R a degree-10 polynomial fitted to erfc(u) e^{u²}/t on [0, 10] by iteratively
// reweighted least squares on the relative error (1.9e-9), evaluated in Estrin's form
// (short dependency chains). u² = x²/2 is taken exactly: x splits into a 12-bit head
// (whose square is exact) and a tail, exp(-x²/2) = exp(-head²/2) exp(-d) with d < 0.09 and
// exp(-d) a fifth-order series; rounding u² instead costs up to 250 ulp at x = -13.
// Measured over [-13, 10] against float64: under 9 ulp for x < 1, 2.1 ulp above (PyTorch:
// 2.6 ulp on [-1, 1], 5.2 above 1).
//
// With FMA (AVX2, AVX-512) the same expansion is evaluated with fused multiply-adds, and
// x²/2 is split exactly by FMA instead: s = round(x·x/2), err = x·x/2 - s (one fma), and
// exp(-x²/2) = exp(-s)(1 - err) (|err| <= half an ulp of s). Measured over [-13, 10]: 7.6
// ulp for x < 1, 1.9 above; the exp is vec::exp's inline form, so nothing is called.
//
// The tail is computed at |x| clamped to 16, where it has underflowed to 0 already
// (erfc(16/√2) ~ 1e-57): beyond it x²/2 would overflow and make the tail inf * 0 = NaN
// (gelu(-1e20) gave NaN); clamped, gelu(x) is x above 16 and -0.0 below -16, as float64's.
inline Vectorized<float> gelu_float(Vectorized<float> xv) {
  using Raw = Vectorized<float>::Raw;
  const Raw x = xv.v;
  using Bits = decltype(Raw{} < 0);
  // |x| (its sign bit cleared) clamped at 16, NaN passing (min returns its second operand).
  const Raw ax = vec::min_nan_passes(16.0f, reinterpret_cast<Raw>(reinterpret_cast<Bits>(x) & 0x7fffffff));
#if EMBER_VEC_HAVE_FMA
  {
    using vec::fma;
    const Raw t = 1.0f / fma(ax, 0.4f * 0.70710678118654752440f, 1.0f);
    const Raw t2 = t * t, t4 = t2 * t2, t8 = t4 * t4;
    const Raw r = (fma(t, 0.22542699f, 0.22568631f) + fma(t, 0.15680416f, 0.21016942f) * t2) +
                  (fma(t, -0.04976603f, 0.1740295f) + fma(t, -0.09640689f, 0.17044091f) * t2) * t4 +
                  (fma(t, 0.07754919f, -0.07553851f) - 0.018395068f * t2) * t8;
    const Raw hx = 0.5f * x;
    const Raw hax = 0.5f * ax;
    const Raw s = hax * ax;
    const Raw err = fma(hax, ax, -s);
    const Raw exp_s = vec::exp(Vectorized<float>(-s)).v;
    const Raw tail = fma(-err, exp_s, exp_s) * t * r;
    return hx * (x > 0 ? 2.0f - tail : tail);
  }
#else
  const Raw t = 1.0f / (1.0f + 0.4f * (ax * 0.70710678118654752440f));
  const Raw t2 = t * t, t4 = t2 * t2, t8 = t4 * t4;
  const Raw r = ((0.22568631f + 0.22542699f * t) + (0.21016942f + 0.15680416f * t) * t2) +
                ((0.1740295f - 0.04976603f * t) + (0.17044091f - 0.09640689f * t) * t2) * t4 +
                ((-0.07553851f + 0.07754919f * t) - 0.018395068f * t2) * t8;
  const Raw head = reinterpret_cast<Raw>(reinterpret_cast<Bits>(ax) & -4096);
  const Raw d = (ax - head) * (ax + head) * 0.5f;
  const Raw exp_d = 1.0f - d * (1.0f - d * (0.5f - d * (1.0f / 6 - d * (1.0f / 24))));
  const Raw e = vec::exp(Vectorized<float>(-(head * head * 0.5f))).v * exp_d;
  const Raw tail = e * t * r;
  // +inf takes its limit, +inf, as the float64 form gives (PyTorch's float kernel gives NaN
  // there, its 16-bit ones +inf or NaN by CPU); -inf gives NaN (-inf * 0), as PyTorch's.
  return 0.5f * x * (x > 0 ? 2.0f - tail : tail);
#endif
}

struct gelu_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  template <class A>
  A operator()(A x) const {  // double (float and the 16-bit floats take vec)
    return A(0.5) * x * std::erfc(x * A(-0.70710678118654752440084436210484903));
  }
  Vectorized<float> vec(Vectorized<float> x) const { return gelu_float(x); }
};

struct gelu_tanh_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  template <class A>
  A operator()(A x) const {
    const A inner = A(0.79788456080286535587989211986876373) * (x + A(0.044715) * x * x * x);
    return A(0.5) * x * (A(1) + std::tanh(inner));
  }
  template <class V>
  V vec(V x) const {
    using A = std::remove_cvref_t<decltype(x.v[0])>;
    const V inner = V(A(0.79788456080286535587989211986876373)) * (x + V(A(0.044715)) * x * x * x);
    return V(A(0.5)) * x * (V(A(1)) + vec::tanh(inner));
  }
};

struct silu_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T> || kIsComplex<T>;
  template <class A>
  A operator()(A x) const { return x / (A(1) + std::exp(-x)); }
};

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
