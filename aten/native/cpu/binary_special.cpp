// The special functions of two arguments on the CPU: the regularized incomplete gamma
// functions igamma (P) and igammac (Q), the Hurwitz zeta function, and polygamma (an int
// order and a tensor). They compute in double and round once; igamma and igammac take every
// floating dtype, zeta float32 and float64 only, as PyTorch.
#include <cmath>
#include <cstdint>
#include <limits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/binary.h"
#include "aten/native/cpu/BinaryFunctors.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/unary_kernel.h"
#include "aten/native/unary.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/digamma.h"
#include "ember/generated/ops/igamma_native.h"
#include "ember/generated/ops/igammac_native.h"
#include "ember/generated/ops/polygamma_native.h"
#include "ember/generated/ops/special_zeta_native.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = 1e-17;
constexpr double kPi = 3.14159265358979323846264338327950288;

double lgamma_of(double x) {
#if defined(__GLIBC__) || defined(__APPLE__)
  int sign = 0;
  return ::lgamma_r(x, &sign);  // the reentrant form: std::lgamma writes the global signgam
#else
  return std::lgamma(x);
#endif
}

// log(1 + u) - u, without the cancellation of the difference for small u.
double log1pmx(double u) {
  if (std::fabs(u) > 0.2) return std::log1p(u) - u;
  // -u^2/2 + u^3/3 - u^4/4 + ...: |u| <= 0.2, so 24 terms leave less than 1e-18.
  double term = u, sum = 0;  // (-1)^(k+1) u^k
  for (int k = 2; k < 40; ++k) {
    term *= -u;
    const double t = term / k;
    sum += t;
    if (std::fabs(t) <= kEps * std::fabs(sum)) break;
  }
  return sum;
}

// Note [Incomplete gamma]: P(a, x) = gamma(a, x) / Gamma(a) and Q = 1 - P from the
// prefactor f = x^a e^-x / Gamma(a) and either the series
//   P = f / a * sum_k x^k / ((a + 1) ... (a + k))        (x < a + 1, positive terms)
// or the continued fraction (evaluated by the modified Lentz method)
//   Q = f / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...)))  (x >= a + 1),
// the other one as the complement (it is not small there). For a >= 20 the prefactor is
// exp(a log1pmx((x - a) / a) - s(a)) sqrt(a / (2 pi)) with Stirling's remainder
// s(a) = lgamma(a) - (a - 1/2) log a + a - log(2 pi) / 2, which keeps its relative accuracy
// where a log x and lgamma(a) are both large. Edge values are PyTorch's.
double igamma_prefactor(double a, double x) {
  if (a < 20) return std::exp(a * std::log(x) - x - lgamma_of(a));
  // a log(x / a) + a - x: log1pmx near x = a, else the logarithm of the quotient (1 + u
  // would lose the relative accuracy of a small x / a).
  const double u = (x - a) / a;
  const double ratio = x / a;
  const double l = std::fabs(u) <= 0.3 ? a * log1pmx(u)
                   : ratio > 0     ? a * std::log(ratio) - (x - a)
                                   : a * (std::log(x) - std::log(a)) - (x - a);
  const double r = 1 / a, r2 = r * r;
  const double stirling =
      r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 / 1188))));
  constexpr double kInvTwoPi = 0.159154943091895335768883763372514362;
  return std::exp(l - stirling) * std::sqrt(a * kInvTwoPi);
}

double igamma_series(double a, double x) {
  double term = 1, sum = 1;
  for (int k = 1; k < 10000000; ++k) {
    term *= x / (a + k);
    sum += term;
    if (term <= kEps * sum) break;
  }
  return igamma_prefactor(a, x) / a * sum;
}

double igammac_fraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a;
  double c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < 10000000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) <= kEps) break;
  }
  return igamma_prefactor(a, x) * h;
}

// lgamma(1 + a) for |a| <= 0.5: -gamma a + sum over k >= 2 of (-1)^k zeta(k) a^k / k
// (1 + a rounds away a tiny a, which lgamma itself cannot see).
double zeta_impl(double s, double q);
double lgamma1p_small(double a) {
  constexpr double kEulerGamma = 0.57721566490153286060651209008240243;
  double sum = -kEulerGamma * a, power = -a;  // (-a)^k
  for (int k = 2; k < 80; ++k) {
    power *= -a;
    const double t = zeta_impl(k, 1) * power / k;
    sum += t;
    if (std::fabs(t) <= kEps * std::fabs(sum)) break;
  }
  return sum;
}

// Q(a, x) for a <= 1 and x < a + 1 (so x < 2), where 1 - P would cancel: from
//   P = x^a / Gamma(a) sum_n (-x)^n / (n! (a + n)),
// Q = -expm1(a log x - lgamma(1 + a)) - x^a / Gamma(a) sum over n >= 1 of (-x)^n / (n! (a + n)).
double igammac_small_a(double a, double x) {
  const double lg1p = std::fabs(a) <= 0.5 ? lgamma1p_small(a) : lgamma_of(1 + a);
  const double head = -std::expm1(a * std::log(x) - lg1p);
  double term = 1, sum = 0;
  for (int n = 1; n < 200; ++n) {
    term *= -x / n;
    const double t = term / (a + n);
    sum += t;
    if (std::fabs(t) <= kEps * std::fabs(sum)) break;
  }
  // x^a / Gamma(a) = a x^a / Gamma(1 + a).
  return head - a * std::exp(a * std::log(x) - lg1p) * sum;
}

// P(a, x) (upper = false) or Q(a, x) (upper = true), with PyTorch's edge values and their
// order (x == 0 gives P = 0 even for a NaN a, an infinite a gives P = 0 even for a NaN x).
double incomplete_gamma(double a, double x, bool upper) {
  if (x < 0 || a < 0) return kNaN;
  if (a == 0) {
    if (x > 0) return upper ? 0 : 1;
    return kNaN;
  }
  if (x == 0) return upper ? 1 : 0;
  if (std::isinf(a)) {
    if (std::isinf(x)) return kNaN;
    return upper ? 1 : 0;
  }
  if (std::isinf(x)) return upper ? 0 : 1;
  if (std::isnan(a) || std::isnan(x)) return kNaN;
  if (x < a + 1) {
    if (upper && a <= 1) return igammac_small_a(a, x);
    const double p = igamma_series(a, x);
    return upper ? 1 - p : p;
  }
  const double q = igammac_fraction(a, x);
  return upper ? q : 1 - q;
}

// Note [Hurwitz zeta]: zeta(s, q) = sum over k >= 0 of (q + k)^-s for s > 1 (and, for an
// integer s, any q that is not a non-positive integer), by the Euler-Maclaurin formula: the
// first N terms directly, until a = q + N is both >= 10 and past 1.2 (s + 20) (so the ten
// correction terms below decrease by a factor ~(s + 2j)^2 / (2 pi a)^2 < 0.02 each), then
//   a^(1-s) / (s - 1) + a^-s / 2 + sum_j B_2j / (2j)! s (s + 1) ... (s + 2j - 2) a^(-s-2j+1).
// The direct sum stops early once its terms no longer count (large s). Edge values are
// PyTorch's: s = 1 gives inf, s < 1 NaN, q a non-positive integer inf, q < 0 with a
// non-integer s NaN (and the infinite arguments below).
double zeta_impl(double s, double q) {
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return kNaN;  // NaN s included
  }
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  // PyTorch's values: zeta(inf, q) is 1 at q = 1, inf below, NaN above; zeta(s, inf) NaN.
  if (std::isinf(s)) return q == 1 ? 1 : (q < 1 ? kInf : kNaN);
  if (std::isinf(q)) return kNaN;
  // B_2j / (2j)!, j = 1..10.
  static constexpr double kB[] = {1.0 / 12,
                                  -1.0 / 720,
                                  1.0 / 30240,
                                  -1.0 / 1209600,
                                  1.0 / 47900160,
                                  -691.0 / 1307674368000.0,
                                  1.0 / 74724249600.0,
                                  -3617.0 / 10670622842880000.0,
                                  43867.0 / 5109094217170944000.0,
                                  -174611.0 / 802857662698291200000.0};
  const double threshold = std::fmax(10.0, 1.2 * (s + 20));
  double sum = 0, a = q;
  for (int64_t k = 0; k < 100000000; ++k) {
    if (a >= threshold) break;
    const double term = std::pow(a, -s);
    sum += term;
    a += 1;
    if (std::fabs(term) <= kEps * std::fabs(sum) && a > 0) return sum;
  }
  const double pa = std::pow(a, -s);
  double tail = a * pa / (s - 1) + pa / 2;
  double rising = s * pa / a;  // s (s + 1) ... (s + 2j - 2) a^(-s-2j+1), j = 1
  for (int j = 0; j < 10; ++j) {
    const double t = kB[j] * rising;
    tail += t;
    if (std::fabs(t) <= kEps * std::fabs(sum + tail)) break;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2) / (a * a);
  }
  return sum + tail;
}

// Note [polygamma]: psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1 (Note [Hurwitz
// zeta], which holds for every x but the non-positive integers, where it is inf); n = 0 is
// digamma's kernel.
double polygamma_impl(int64_t n, double x) {
  const double factorial = std::exp(lgamma_of(static_cast<double>(n) + 1));
  const double sign = n % 2 == 0 ? -1 : 1;
  return sign * factorial * zeta_impl(static_cast<double>(n) + 1, x);
}

struct Igamma {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Floating;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> x) {
    return static_cast<Acc<T>>(incomplete_gamma(static_cast<double>(a), static_cast<double>(x), false));
  }
};
struct Igammac {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Floating;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> x) {
    return static_cast<Acc<T>>(incomplete_gamma(static_cast<double>(a), static_cast<double>(x), true));
  }
};
struct Zeta {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::ToFloat;
  template <class T> static Acc<T> apply(Acc<T> s, Acc<T> q) {
    return static_cast<Acc<T>>(zeta_impl(static_cast<double>(s), static_cast<double>(q)));
  }
};

struct polygamma_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  int64_t n;
  template <class A>
  A operator()(A x) const {
    // PyTorch's trigamma reflects a negative x, psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x),
    // with sin(pi x) in the dtype: at the poles that is a large finite value, as there.
    if (n == 1 && x == std::numeric_limits<A>::infinity()) return A(0);  // PyTorch's trigamma
    if (n == 1 && x < 0) {
      const A s = std::sin(static_cast<A>(kPi) * x);
      return static_cast<A>(kPi * kPi) / (s * s) -
             static_cast<A>(zeta_impl(2, 1 - static_cast<double>(x)));
    }
    return static_cast<A>(polygamma_impl(n, static_cast<double>(x)));
  }
};

// zeta, as PyTorch, computes in float32 or float64 only.
void check_zeta_dtype(Operand a, Operand b) {
  const ScalarType t = binary_compute_type(BinaryDtypes::ToFloat, "special_zeta", a, b);
  EMBER_CHECK_NOT_IMPLEMENTED(t == ScalarType::Float || t == ScalarType::Double,
                              "special_zeta(): not implemented for '", t, "'");
}

}  // namespace

// F over the operands into out (its functors run in the baseline copy only: Note [Binary copies]).
template <class F>
void special_binary(const char* name, Operand a, Operand b, const Tensor& out) {
  binary_functor_cpu<F>(name, a, b, out, [] {});
}

void igamma_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  if (kWideCpuCopy) return ::ember::native::igamma_out_cpu(self, other, out);
  special_binary<Igamma>("igamma", self, other, out);
}

void igammac_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  if (kWideCpuCopy) return ::ember::native::igammac_out_cpu(self, other, out);
  special_binary<Igammac>("igammac", self, other, out);
}

void special_zeta_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  if (kWideCpuCopy) return ::ember::native::special_zeta_out_cpu(self, other, out);
  check_zeta_dtype(self, other);
  special_binary<Zeta>("special_zeta", self, other, out);
}

void special_zeta_other_scalar_out_cpu(const Tensor& self, const Scalar& other, const Tensor& out) {
  if (kWideCpuCopy) return ::ember::native::special_zeta_other_scalar_out_cpu(self, other, out);
  check_zeta_dtype(self, other);
  special_binary<Zeta>("special_zeta", self, other, out);
}

Tensor special_zeta_self_scalar_cpu(const Scalar& self, const Tensor& other) {
  check_zeta_dtype(self, other);
  if (kWideCpuCopy) return ::ember::native::special_zeta_self_scalar_cpu(self, other);
  Tensor out = make_output(binary_op_meta(Zeta::kDtypes, "special_zeta", self, other), other.device());
  binary_functor_cpu<Zeta>("special_zeta", self, other, out, [] {});
  return out;
}

void polygamma_out_cpu(int64_t n, const Tensor& self, const Tensor& out) {
  if (n == 0) {
    ember::digamma_out(out, self);
    return;
  }
  unary_run("polygamma", float_result_type(self.dtype()), self, out, polygamma_fn{n});
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
