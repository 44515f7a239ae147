#pragma once
/// Vectorized<T>: one SIMD register of T, as wide as the capability being compiled (16
/// bytes at baseline x86-64, 32 with AVX2, 64 with AVX-512; Note [CPU capabilities]), and
/// the transcendental functions on it, from SLEEF (1.0 ulp, 0.5 for sqrt) except float tanh,
/// which is Ember's own (below).
///
/// It is a thin layer over GCC's vector extensions: arithmetic, comparisons and blends are
/// the compiler's; only loads, stores, broadcasts and SLEEF calls are spelled out here.
/// Kernels give a functor a `vec` member next to its scalar operator() for the ops the
/// compiler cannot vectorise by itself (calls into libm); plain arithmetic loops are left to
/// the auto-vectoriser, which emits the same instructions.

#include <sleef.h>

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

EMBER_VEC_SLEEF(exp, u10)
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

inline Vectorized<double> tanh(Vectorized<double> x) { return EMBER_SLEEF_D(tanh, u10)(x.v); }

/// tanh in float. SLEEF's 1-ulp tanhf works in double-float arithmetic and costs three
/// exps (tanh of 64M floats ran 2.4x slower than PyTorch's), so float takes its own form:
/// below |x| = 0.625 the odd polynomial x + x^3 P(x^2), P fitted here by iteratively
/// reweighted least squares on the relative error (1.6e-10 before rounding; 0.8 ulp in
/// float arithmetic); above it 1 - 2e/(1 + e) with e = exp(-2|x|) <= 0.29, so nothing
/// cancels and the error stays under 2 ulp (test_cpu_kernels.py checks the whole range
/// against float64). -0.0, ±inf and NaN come out as tanh's.
inline Vectorized<float> tanh(Vectorized<float> x) {
  using Raw = Vectorized<float>::Raw;
  using Bits = decltype(Raw{} < 0);
  const Raw v = x.v;
  const Bits sign = reinterpret_cast<Bits>(v) & static_cast<int>(0x80000000u);
  const Raw ax = reinterpret_cast<Raw>(reinterpret_cast<Bits>(v) ^ sign);
  const Raw z = ax * ax;
  Raw p = Raw{} + 0.00214356f;
  p = p * z - 0.00817804f;
  p = p * z + 0.02170096f;
  p = p * z - 0.05394681f;
  p = p * z + 0.13333206f;
  p = p * z - 0.3333333f;
  const Raw small = ax + ax * z * p;
  const Raw e = EMBER_SLEEF_F(exp, u10)(-(ax + ax));
  const Raw big = 1.0f - (e + e) / (1.0f + e);
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
