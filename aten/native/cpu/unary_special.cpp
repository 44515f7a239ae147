// The special unary functions on the CPU: sgn, square, logit, erfinv, lgamma, digamma,
// round with decimals, nan_to_num. erfinv and digamma are Ember's own (Note [erfinv] and
// Note [digamma]); they, lgamma and the 16-bit floats compute in double and round once.
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/cpu/unary_kernel.h"
#include "aten/native/unary.h"
#include "c10/util/Exception.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

constexpr double kPi = 3.14159265358979323846264338327950288;

// Note [erfinv]: a first guess within ~2e-3 (relative) from the closed form
//   x0 = sign(y) sqrt(sqrt(b^2 - l / a) - b),  l = log(1 - y^2),  b = 2 / (pi a) + l / 2,
// with a = 0.147, then Newton steps on erf(x) = y, or, for |y| > 0.5, on erfc(x) = 1 - |y|,
// which keeps its relative accuracy as |y| approaches 1 (1 - |y| is exact there). Newton
// converges quadratically from that guess: four steps reach double precision.
double erfinv_impl(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1) return std::numeric_limits<double>::infinity();
  if (y == -1) return -std::numeric_limits<double>::infinity();
  if (y == 0) return y;  // keeps -0.0
  const double ay = std::fabs(y);
  constexpr double a = 0.147;
  const double l = std::log1p(-ay * ay);
  const double b = 2 / (kPi * a) + l / 2;
  double x = std::sqrt(std::sqrt(b * b - l / a) - b);
  constexpr double kTwoOverSqrtPi = 1.12837916709551257389615890312154517;
  const double tail = 1 - ay;
  for (int i = 0; i < 4; ++i) {
    const double slope = kTwoOverSqrtPi * std::exp(-x * x);
    if (slope == 0) break;
    const double step = ay > 0.5 ? (std::erfc(x) - tail) / slope : (ay - std::erf(x)) / slope;
    x += step;
  }
  return std::copysign(x, y);
}

// Note [digamma]: PyTorch's conventions: digamma(+-0) = -+inf, a negative integer (and
// -inf) gives NaN. Negative x reflects, psi(x) = psi(1 - x) - pi / tan(pi frac(x)); small x
// climbs by psi(x) = psi(x + 1) - 1 / x to x >= 10, where the asymptotic series
//   psi(x) ~ log(x) - 1 / (2x) - sum_k B_2k / (2k x^2k)
// (Bernoulli numbers B_2..B_14) is accurate to double precision.
double digamma_impl(double x) {
  if (x == 0) return std::copysign(std::numeric_limits<double>::infinity(), -x);
  if (x < 0) {
    if (x == std::trunc(x)) return std::numeric_limits<double>::quiet_NaN();
    double whole;
    const double frac = std::modf(x, &whole);
    return digamma_impl(1 - x) - kPi / std::tan(kPi * frac);
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (std::isinf(x)) return x;
  // -B_2k / (2k): B_2 = 1/6, B_4 = -1/30, B_6 = 1/42, B_8 = -1/30, B_10 = 5/66,
  // B_12 = -691/2730, B_14 = 7/6.
  static constexpr double kCoef[] = {-1.0 / 12, 1.0 / 120, -1.0 / 252, 1.0 / 240, -1.0 / 132,
                                     691.0 / 32760, -1.0 / 12};
  const double z = 1 / (x * x);
  double series = 0;
  for (int k = 6; k >= 0; --k) series = series * z + kCoef[k];
  return result + std::log(x) - 0.5 / x + series * z;
}

struct sgn_fn {
  template <class T>
  static constexpr bool kSupports = true;
  template <class A>
  A operator()(A x) const {
    if constexpr (kIsComplex<A>) {
      const auto r = std::abs(x);
      return r == 0 ? A(0) : x / A(r);
    } else if constexpr (std::is_same_v<A, bool>) {
      return x;
    } else {
      return static_cast<A>((A(0) < x) - (x < A(0)));
    }
  }
};

struct square_fn {
  template <class T>
  static constexpr bool kSupports = !std::is_same_v<T, bool>;
  template <class A>
  A operator()(A x) const {
    if constexpr (kIntegral<A>) {
      using U = std::make_unsigned_t<A>;
      return static_cast<A>(static_cast<U>(x) * static_cast<U>(x));
    } else {
      return x * x;
    }
  }
};

struct logit_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  double eps;  // < 0: no clamping
  template <class A>
  A operator()(A x) const {
    if (eps >= 0) {
      const A lo = A(eps), hi = A(1) - A(eps);
      x = x < lo ? lo : (x > hi ? hi : x);
    }
    return std::log(x / (A(1) - x));
  }
};

#define EMBER_DOUBLE_FN(name, impl)                                         \
  struct name##_fn {                                                        \
    template <class T>                                                      \
    static constexpr bool kSupports = kFloating<T>;                         \
    template <class A>                                                      \
    A operator()(A x) const { return static_cast<A>(impl(static_cast<double>(x))); } \
  };

double lgamma_impl(double x) {
#if defined(__GLIBC__) || defined(__APPLE__)
  int sign = 0;
  return ::lgamma_r(x, &sign);  // the reentrant form: std::lgamma writes the global signgam
#else
  return std::lgamma(x);
#endif
}

EMBER_DOUBLE_FN(erfinv, erfinv_impl)
EMBER_DOUBLE_FN(lgamma, lgamma_impl)
EMBER_DOUBLE_FN(digamma, digamma_impl)
#undef EMBER_DOUBLE_FN

struct round_decimals_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  int64_t decimals;
  template <class A>
  A operator()(A x) const {
    // As PyTorch: scale by 10^|decimals| (rounded to A), round, scale back.
    const A ten_pow = static_cast<A>(std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals)));
    return decimals < 0 ? std::nearbyint(x / ten_pow) * ten_pow : std::nearbyint(x * ten_pow) / ten_pow;
  }
};

struct nan_to_num_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T> || kIsComplex<T>;
  double nan, posinf, neginf;
  template <class R>
  R fix(R x) const {
    if (std::isnan(x)) return R(nan);
    if (std::isinf(x)) return x > 0 ? R(posinf) : R(neginf);
    return x;
  }
  template <class A>
  A operator()(A x) const {
    if constexpr (kIsComplex<A>) return A(fix(x.real()), fix(x.imag()));
    else return fix(x);
  }
};

// The largest finite value of a floating dtype (for complex, of its real part).
double max_finite_of(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return detail::max_finite<Half>();
    case ScalarType::BFloat16: return detail::max_finite<BFloat16>();
    case ScalarType::Float:
    case ScalarType::ComplexFloat: return detail::max_finite<float>();
    default: return detail::max_finite<double>();
  }
}

// Ops whose out= must have self's dtype (PyTorch's same-dtype unary iterators).
void check_out_dtype(const char* op, const Tensor& self, const Tensor& out) {
  EMBER_CHECK(out.dtype() == self.dtype(), op, "(): expected 'out' to have self's dtype ",
              self.dtype(), ", but got ", out.dtype());
}

}  // namespace

void sgn_out_cpu(const Tensor& self, const Tensor& out) {
  check_out_dtype("sgn", self, out);
  unary_run<sgn_fn>("sgn", self.dtype(), self, out);
}

void square_out_cpu(const Tensor& self, const Tensor& out) {
  unary_run<square_fn>("square", ResultType().add(self).add(Scalar(2)).get(), self, out);
}

void logit_out_cpu(const Tensor& self, std::optional<double> eps, const Tensor& out) {
  unary_run("logit", float_result_type(self.dtype()), self, out, logit_fn{eps.value_or(-1.0)});
}

void erfinv_out_cpu(const Tensor& self, const Tensor& out) {
  unary_run<erfinv_fn>("erfinv", float_result_type(self.dtype()), self, out);
}

void lgamma_out_cpu(const Tensor& self, const Tensor& out) {
  unary_run<lgamma_fn>("lgamma", float_result_type(self.dtype()), self, out);
}

void digamma_out_cpu(const Tensor& self, const Tensor& out) {
  unary_run<digamma_fn>("digamma", float_result_type(self.dtype()), self, out);
}

void round_decimals_out_cpu(const Tensor& self, int64_t decimals, const Tensor& out) {
  check_out_dtype("round", self, out);
  unary_run("round", self.dtype(), self, out, round_decimals_fn{decimals});
}

void nan_to_num_out_cpu(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                        std::optional<double> neginf, const Tensor& out) {
  EMBER_CHECK(out.dtype() == self.dtype(), "nan_to_num(): expected 'out' to have self's dtype ",
              self.dtype(), ", but got ", out.dtype());
  if (is_integral(self.dtype(), /*include_bool=*/true)) {
    if (out.impl() == self.impl()) return;  // in place: nothing to replace
    check_output_overlap(out, {&self});
    out.copy_(self);
    return;
  }
  const double max = max_finite_of(self.dtype());
  unary_run("nan_to_num", self.dtype(), self, out,
            nan_to_num_fn{nan.value_or(0.0), posinf.value_or(max), neginf.value_or(-max)});
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
