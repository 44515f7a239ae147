#pragma once
/// Vectorized<T>: one SIMD register of T, as wide as the capability being compiled (16
/// bytes at baseline x86-64, 32 with AVX2, 64 with AVX-512; Note [CPU capabilities]), and
/// the transcendental functions on it, from SLEEF (1.0 ulp, 0.5 for sqrt) except float exp
/// (where the capability has FMA) and float tanh, which are Ember's own (below).
///
/// It is a thin layer over GCC's vector extensions: arithmetic, comparisons and blends are
/// the compiler's; only loads, stores, broadcasts and SLEEF calls are spelled out here.
/// Kernels give a functor a `vec` member next to its scalar operator() for the ops the
/// compiler cannot vectorise by itself (calls into libm); plain arithmetic loops are left to
/// the auto-vectoriser, which emits the same instructions.

#include <immintrin.h>
#include <sleef.h>

#include <concepts>
#include <cstring>
#include <type_traits>

#include "aten/native/CpuCapability.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

#if defined(EMBER_CPU_CAPABILITY_AVX512)
inline constexpr int kVectorBytes = 64;
#elif defined(EMBER_CPU_CAPABILITY_AVX2)
inline constexpr int kVectorBytes = 32;
#else
inline constexpr int kVectorBytes = 16;
#endif

// The register types (an attribute on a dependent type would be dropped).
template <class T> struct VectorRaw;
template <> struct VectorRaw<float> { typedef float type __attribute__((vector_size(kVectorBytes))); };
template <> struct VectorRaw<double> { typedef double type __attribute__((vector_size(kVectorBytes))); };

template <class T>
struct Vectorized {
  using Raw = typename VectorRaw<T>::type;
  static constexpr int kSize = kVectorBytes / static_cast<int>(sizeof(T));

  Raw v;

  Vectorized() = default;
  Vectorized(Raw r) : v(r) {}  // NOLINT(google-explicit-constructor): a view of the register
  /// Every lane x.
  explicit Vectorized(T x) : v(Raw{} + x) {}

  static Vectorized loadu(const T* p) {
    Raw r;
    std::memcpy(&r, p, sizeof r);
    return r;
  }
  void store(T* p) const { std::memcpy(p, &v, sizeof v); }

  friend Vectorized operator+(Vectorized a, Vectorized b) { return a.v + b.v; }
  friend Vectorized operator-(Vectorized a, Vectorized b) { return a.v - b.v; }
  friend Vectorized operator*(Vectorized a, Vectorized b) { return a.v * b.v; }
  friend Vectorized operator/(Vectorized a, Vectorized b) { return a.v / b.v; }
  friend Vectorized operator-(Vectorized a) { return -a.v; }
};

namespace vec {

// The SLEEF function for this capability's width: Sleef_<f><f|d><lanes>_<ulp><isa>.
#if defined(EMBER_CPU_CAPABILITY_AVX512)
#define EMBER_SLEEF_F(f, ulp) Sleef_##f##f16_##ulp##avx512f
#define EMBER_SLEEF_D(f, ulp) Sleef_##f##d8_##ulp##avx512f
#elif defined(EMBER_CPU_CAPABILITY_AVX2)
#define EMBER_SLEEF_F(f, ulp) Sleef_##f##f8_##ulp##avx2
#define EMBER_SLEEF_D(f, ulp) Sleef_##f##d4_##ulp##avx2
#else
#define EMBER_SLEEF_F(f, ulp) Sleef_##f##f4_##ulp##sse2
#define EMBER_SLEEF_D(f, ulp) Sleef_##f##d2_##ulp##sse2
#endif

#define EMBER_VEC_SLEEF(name, ulp)                                                     \
  inline Vectorized<float> name(Vectorized<float> x) { return EMBER_SLEEF_F(name, ulp)(x.v); } \
  inline Vectorized<double> name(Vectorized<double> x) { return EMBER_SLEEF_D(name, ulp)(x.v); }

inline Vectorized<double> exp(Vectorized<double> x) { return EMBER_SLEEF_D(exp, u10)(x.v); }
EMBER_VEC_SLEEF(exp2, u10)
EMBER_VEC_SLEEF(expm1, u10)
EMBER_VEC_SLEEF(log, u10)
EMBER_VEC_SLEEF(log2, u10)
EMBER_VEC_SLEEF(log10, u10)
EMBER_VEC_SLEEF(log1p, u10)
EMBER_VEC_SLEEF(sqrt, u05)
EMBER_VEC_SLEEF(sin, u10)
EMBER_VEC_SLEEF(cos, u10)
EMBER_VEC_SLEEF(tan, u10)
EMBER_VEC_SLEEF(asin, u10)
EMBER_VEC_SLEEF(acos, u10)
EMBER_VEC_SLEEF(atan, u10)
EMBER_VEC_SLEEF(sinh, u10)
EMBER_VEC_SLEEF(cosh, u10)
EMBER_VEC_SLEEF(asinh, u10)
EMBER_VEC_SLEEF(acosh, u10)
EMBER_VEC_SLEEF(atanh, u10)
EMBER_VEC_SLEEF(erf, u10)
EMBER_VEC_SLEEF(erfc, u15)

/// min(hi, x), and x clamped to [lo, hi], in one min (and one max) instruction, NaN passing through: the x86
/// max/min return their second operand when either is NaN, and x is always that operand.
/// (`x < lo ? lo : x` compiles to a compare and a masked move, twice the instructions.)
inline Vectorized<float>::Raw min_nan_passes(float hi, Vectorized<float>::Raw x) {
  using Raw = Vectorized<float>::Raw;
#if defined(EMBER_CPU_CAPABILITY_AVX512)
  return _mm512_min_ps(Raw{} + hi, x);
#elif defined(EMBER_CPU_CAPABILITY_AVX2)
  return _mm256_min_ps(Raw{} + hi, x);
#else
  return _mm_min_ps(Raw{} + hi, x);
#endif
}
inline Vectorized<float>::Raw clamp_nan_passes(Vectorized<float>::Raw x, float lo, float hi) {
  using Raw = Vectorized<float>::Raw;
#if defined(EMBER_CPU_CAPABILITY_AVX512)
  return _mm512_min_ps(Raw{} + hi, _mm512_max_ps(Raw{} + lo, x));
#elif defined(EMBER_CPU_CAPABILITY_AVX2)
  return _mm256_min_ps(Raw{} + hi, _mm256_max_ps(Raw{} + lo, x));
#else
  return _mm_min_ps(Raw{} + hi, _mm_max_ps(Raw{} + lo, x));
#endif
}

/// Whether this capability has fused multiply-add (AVX2 and AVX-512 do; the x86-64 baseline
/// does not). The build contracts nothing by itself (-ffp-contract=off, so results do not
/// depend on the compiler's choices); the forms below that need a single rounding of a*b + c
/// call fma() explicitly, and the baseline keeps SLEEF's and the older forms.
#if defined(EMBER_CPU_CAPABILITY_AVX512) || defined(EMBER_CPU_CAPABILITY_AVX2)
#define EMBER_VEC_HAVE_FMA 1
inline Vectorized<float>::Raw fma(Vectorized<float>::Raw a, Vectorized<float>::Raw b, Vectorized<float>::Raw c) {
#if defined(EMBER_CPU_CAPABILITY_AVX512)
  return _mm512_fmadd_ps(a, b, c);
#else
  return _mm256_fmadd_ps(a, b, c);
#endif
}
inline Vectorized<float>::Raw fma(Vectorized<float>::Raw a, float b, float c) {
  using Raw = Vectorized<float>::Raw;
  return fma(a, Raw{} + b, Raw{} + c);
}
#else
#define EMBER_VEC_HAVE_FMA 0
#endif

/// exp in float. SLEEF's is a call that the compiler cannot inline into a loop or a larger
/// function (gelu, tanh, sigmoid, softmax), so with FMA float takes this inline form:
/// n = round(x log2 e), r = x - n ln2 in two FMA steps (Cody and Waite: ln2's head has 16
/// bits, so n * head is exact), e^r = 1 + r + r^2 P(r) with P of degree 5 (the minimax
/// coefficients of the usual single-precision form), and 2^n applied as two exact power-of-two
/// factors so that results down to the subnormals are rounded once. x is clamped to
/// [-104, 89] first (e^-104 rounds to 0, e^89 overflows to inf); NaN passes the clamps.
/// Measured over [-110, 90] against float64: 0.97 ulp, as SLEEF's u10 (test_cpu_kernels.py).
inline Vectorized<float> exp(Vectorized<float> x) {
#if EMBER_VEC_HAVE_FMA
  {
    using Raw = Vectorized<float>::Raw;
    const Raw xc = clamp_nan_passes(x.v, -104.0f, 89.0f);
#if defined(EMBER_CPU_CAPABILITY_AVX512)
    // The zero-masked forms: the unmasked ones start from an undefined register, which GCC 12
    // warns about (-Wmaybe-uninitialized); all 16 lanes are selected either way.
    const Raw n = _mm512_maskz_roundscale_ps(0xffff, xc * 1.44269504088896341f,
                                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#else
    // Round to nearest even by adding and removing 1.5 * 2^23 (|x log2 e| < 151).
    const Raw n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
#endif
    Raw r = fma(n, Raw{} - 0.693145751953125f, xc);
    r = fma(n, Raw{} - 1.428606765330187045e-06f, r);
    Raw p = fma(r, 0.00019790372f, 0.0013944651f);
    p = fma(p, r, Raw{} + 0.008333497f);
    p = fma(p, r, Raw{} + 0.041666295f);
    p = fma(p, r, Raw{} + 0.16666666f);
    p = fma(p, r, Raw{} + 0.5f);
    p = 1.0f + fma(p, r * r, r);
#if defined(EMBER_CPU_CAPABILITY_AVX512)
    return _mm512_maskz_scalef_ps(0xffff, p, n);  // p 2^n, rounded once (as the two factors below)
#else
    // 2^n = 2^n1 2^n2 with n1 = n >> 1: both factors are normal floats over the whole range,
    // p 2^n1 is exact, and the second product rounds once.
    using Bits = decltype(Raw{} < 0);
    const Bits ni = __builtin_convertvector(n, Bits);
    const Bits n1 = ni >> 1;
    const Bits n2 = ni - n1;
    const Raw f1 = reinterpret_cast<Raw>((n1 + 127) << 23);
    const Raw f2 = reinterpret_cast<Raw>((n2 + 127) << 23);
    return (p * f1) * f2;
#endif
  }
#else
  return EMBER_SLEEF_F(exp, u10)(x.v);
#endif
}

inline Vectorized<double> tanh(Vectorized<double> x) { return EMBER_SLEEF_D(tanh, u10)(x.v); }

/// tanh in float. SLEEF's 1-ulp tanhf works in double-float arithmetic and costs three
/// exps (tanh of 64M floats ran 2.4x slower than PyTorch's), so float takes its own form:
/// below |x| = 0.625 the odd polynomial x + x^3 P(x^2), P fitted here by iteratively
/// reweighted least squares on the relative error (1.6e-10 before rounding; 0.8 ulp in
/// float arithmetic); above it (1 - e)/(1 + e) with e = exp(-2|x|) <= 0.29, so nothing
/// cancels and the error stays under 2 ulp (test_cpu_kernels.py checks the whole range
/// against float64). -0.0, ±inf and NaN come out as tanh's. With FMA the polynomial is
/// evaluated in fused multiply-adds and the exp is the inline form above (1.5 ulp measured).
inline Vectorized<float> tanh(Vectorized<float> x) {
  using Raw = Vectorized<float>::Raw;
  using Bits = decltype(Raw{} < 0);
  const Raw v = x.v;
  const Bits sign = reinterpret_cast<Bits>(v) & static_cast<int>(0x80000000u);
  const Raw ax = reinterpret_cast<Raw>(reinterpret_cast<Bits>(v) ^ sign);
  const Raw z = ax * ax;
  Raw small;
#if EMBER_VEC_HAVE_FMA
  {
    Raw p = fma(z, 0.00214356f, -0.00817804f);
    p = fma(p, z, Raw{} + 0.02170096f);
    p = fma(p, z, Raw{} - 0.05394681f);
    p = fma(p, z, Raw{} + 0.13333206f);
    p = fma(p, z, Raw{} - 0.3333333f);
    small = fma(ax * z, p, ax);
  }
#else
  {
    Raw p = Raw{} + 0.00214356f;
    p = p * z - 0.00817804f;
    p = p * z + 0.02170096f;
    p = p * z - 0.05394681f;
    p = p * z + 0.13333206f;
    p = p * z - 0.3333333f;
    small = ax + ax * z * p;
  }
#endif
  const Raw e = exp(Vectorized<float>(-(ax + ax))).v;
  const Raw big = (1.0f - e) / (1.0f + e);
  // Both halves are computed for |x| and take x's sign bit last, so tanh(-0.0) is -0.0.
  return reinterpret_cast<Raw>(reinterpret_cast<Bits>(ax < 0.625f ? small : big) | sign);
}

#undef EMBER_VEC_SLEEF
#undef EMBER_SLEEF_F
#undef EMBER_SLEEF_D

}  // namespace vec

/// Whether functor F has a `vec` form for Vectorized<T>.
template <class F, class T>
concept HasVec = requires(const F& f, Vectorized<T> x) {
  { f.vec(x) } -> std::same_as<Vectorized<T>>;
};

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
