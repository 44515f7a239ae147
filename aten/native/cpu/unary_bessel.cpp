// The special unary functions of ember.special on the CPU: the modified Bessel functions
// (i0, i0e, i1, i1e, modified_bessel_i0/i1/k0/k1, scaled_modified_bessel_k0/k1), the
// Bessel functions of the first and second kind (bessel_j0/j1/y0/y1, spherical_bessel_j0),
// airy_ai, erfcx and log_ndtr. They compute in double and round once; i0, i0e, i1 and i1e
// take every floating dtype, the others float32 and float64 only, as PyTorch.
#include <cmath>
#include <limits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/cpu/unary_kernel.h"
#include "aten/native/unary.h"
#include "c10/util/Exception.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

constexpr double kPi = 3.14159265358979323846264338327950288;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEulerGamma = 0.57721566490153286060651209008240243;

// Note [Modified Bessel functions]: I_nu (nu = 0, 1) is its power series
//   I_nu(x) = sum_k (x/2)^(2k + nu) / (k! (k + nu)!)
// for |x| <= 20 (positive terms: no cancellation), and beyond, the asymptotic series
//   I_nu(x) ~ e^x / sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k,
//   a_k(nu) = (4nu^2 - 1)(4nu^2 - 9)...(4nu^2 - (2k - 1)^2) / (k! 8^k),
// whose smallest term there is below e^-40. K_nu is DLMF 10.31.1's series for x <= 2, the
// integral K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt by the trapezoidal rule (step
// 0.1: the integrand is analytic and decays doubly exponentially, so the error is below
// e^-50) up to x = 25, and the asymptotic series K_nu(x) ~ sqrt(pi / (2x)) e^-x sum_k a_k(nu) / x^k
// beyond. The scaled forms (e^-x I, e^x K) are computed directly, never as a quotient.

// sum_k (x/2)^(2k + nu) / (k! (k + nu)!), x >= 0.
double bessel_i_series(int nu, double x) {
  const double q = x * x / 4;
  double term = nu == 0 ? 1 : x / 2;
  double sum = term;
  for (int k = 1; k < 200; ++k) {
    term *= q / (k * static_cast<double>(k + nu));
    sum += term;
    if (term <= sum * 1e-17) break;
  }
  return sum;
}

// sum_k sign^k a_k(nu) / x^k while its terms decrease (sign -1 for I, +1 for K).
double bessel_asymptotic_sum(double nu, double x, double sign) {
  const double mu = 4 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 200; ++k) {
    const double odd = 2.0 * k - 1;
    const double next = sign * term * (mu - odd * odd) / (8.0 * k * x);
    if (std::fabs(next) >= std::fabs(term)) break;
    term = next;
    sum += term;
    if (std::fabs(term) <= 1e-17 * std::fabs(sum)) break;
  }
  return sum;
}

// e^-x I_nu(x), x >= 0.
double bessel_i_scaled(int nu, double x) {
  if (std::isinf(x)) return 0;
  if (x <= 20) return bessel_i_series(nu, x) * std::exp(-x);
  return bessel_asymptotic_sum(nu, x, -1) / std::sqrt(2 * kPi * x);
}

// I_nu(x), x >= 0. As PyTorch's, it overflows where e^x does (x > 709.78), and is NaN at inf.
double bessel_i(int nu, double x) {
  if (std::isinf(x)) return kNaN;
  if (x <= 20) return bessel_i_series(nu, x);
  return std::exp(x) * (bessel_asymptotic_sum(nu, x, -1) / std::sqrt(2 * kPi * x));
}

// e^x K_nu(x) for x > 2 (any real nu): the trapezoidal integral, or the asymptotic series.
double bessel_k_scaled_large(double nu, double x) {
  if (x > 25) return std::sqrt(kPi / (2 * x)) * bessel_asymptotic_sum(nu, x, 1);
  constexpr double h = 0.1;
  double sum = 0.5;  // the t = 0 end, halved
  for (int j = 1; j < 2000; ++j) {
    const double t = j * h;
    const double s = std::sinh(t / 2);
    const double f = std::exp(-2 * x * s * s) * std::cosh(nu * t);  // cosh t - 1 = 2 sinh^2(t/2)
    sum += f;
    if (f <= sum * 1e-18) break;
  }
  return sum * h;
}

// K_nu(x) for 0 < x <= 2, nu = 0, 1 (DLMF 10.31.1, psi(k + 1) = -gamma + H_k).
double bessel_k_series(int nu, double x) {
  const double q = x * x / 4;
  const double l = std::log(x / 2);
  double psi = -kEulerGamma;  // psi(k + 1)
  if (nu == 0) {
    double term = 1, sum = psi;
    for (int k = 1; k < 100; ++k) {
      term *= q / (static_cast<double>(k) * k);
      psi += 1.0 / k;
      sum += term * psi;
      if (term <= 1e-18) break;
    }
    return -l * bessel_i_series(0, x) + sum;
  }
  double term = 1, sum = 2 * psi + 1;  // psi(1) + psi(2)
  for (int k = 1; k < 100; ++k) {
    term *= q / (static_cast<double>(k) * (k + 1));
    psi += 1.0 / k;
    sum += term * (2 * psi + 1.0 / (k + 1));
    if (term <= 1e-18) break;
  }
  return 1 / x + l * bessel_i_series(1, x) - x / 4 * sum;
}

double modified_bessel_k(int nu, double x, bool scaled) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0;
  if (x <= 2) return scaled ? bessel_k_series(nu, x) * std::exp(x) : bessel_k_series(nu, x);
  const double k = bessel_k_scaled_large(nu, x);
  return scaled ? k : k * std::exp(-x);
}

double i0_impl(double x) { return std::isnan(x) ? x : bessel_i(0, std::fabs(x)); }
double i0e_impl(double x) { return std::isnan(x) ? x : bessel_i_scaled(0, std::fabs(x)); }
double i1_impl(double x) {
  return std::isnan(x) ? x : std::copysign(bessel_i(1, std::fabs(x)), x);
}
double i1e_impl(double x) {
  return std::isnan(x) ? x : std::copysign(bessel_i_scaled(1, std::fabs(x)), x);
}
double k0_impl(double x) { return modified_bessel_k(0, x, false); }
double k1_impl(double x) { return modified_bessel_k(1, x, false); }
double k0e_impl(double x) { return modified_bessel_k(0, x, true); }
double k1e_impl(double x) { return modified_bessel_k(1, x, true); }

// The Bessel functions of the first and second kind are the C library's (POSIX j0, j1, y0,
// y1), with PyTorch's values off their domain: Y(0) = -inf, Y(x < 0) = NaN, and NaN at
// +-inf (where the limit is 0, PyTorch returns NaN).
double j0_impl(double x) { return std::isinf(x) ? kNaN : ::j0(x); }
double j1_impl(double x) { return std::isinf(x) ? kNaN : ::j1(x); }
double y0_impl(double x) {
  if (std::isnan(x) || x < 0 || std::isinf(x)) return kNaN;
  return x == 0 ? -kInf : ::y0(x);
}
double y1_impl(double x) {
  if (std::isnan(x) || x < 0 || std::isinf(x)) return kNaN;
  return x == 0 ? -kInf : ::y1(x);
}

// sin(x) / x, and its Taylor polynomial near 0 (where the quotient loses nothing but is 0/0).
double spherical_j0_impl(double x) {
  if (std::isinf(x)) return 0;
  if (std::fabs(x) < 0.5) {
    const double z = x * x;
    // 1 - z/3! + z^2/5! - ... to z^7 (the next term is below 1e-17 for |x| < 0.5).
    return 1 + z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880 +
           z * (-1.0 / 39916800 + z * (1.0 / 6227020800 + z * (-1.0 / 1307674368000.0)))))));
  }
  return std::sin(x) / x;
}

// Note [airy_ai]: the Maclaurin series Ai(x) = Ai(0) f(x) + Ai'(0) g(x) on [-8, 1] (its
// terms grow to e^8 / 3 at x = -8, a loss of five digits of absolute accuracy at most); for
// x > 1, Ai(x) = sqrt(x / 3) K_{1/3}(zeta) / pi, zeta = 2/3 x^(3/2) (K by Note [Modified
// Bessel functions]); for x < -8, DLMF 9.7.9's asymptotic expansion
//   Ai(-z) ~ (cos(zeta - pi/4) sum_k (-1)^k u_2k / zeta^2k
//            + sin(zeta - pi/4) sum_k (-1)^k u_2k+1 / zeta^(2k+1)) / (sqrt(pi) z^(1/4)),
//   u_k = u_(k-1) (6k - 5)(6k - 3)(6k - 1) / ((2k - 1) 216 k).
double airy_ai_impl(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;  // PyTorch's value at +-inf
  constexpr double kAi0 = 0.355028053887817239260063186004183176;   // Ai(0)
  constexpr double kDAi0 = 0.258819403792806798405183560189203963;  // -Ai'(0)
  if (x >= -8 && x <= 1) {
    const double c = x * x * x;
    double f = 1, g = x, tf = 1, tg = x;
    for (int k = 1; k < 200; ++k) {
      tf *= c / ((3.0 * k - 1) * (3.0 * k));
      tg *= c / ((3.0 * k) * (3.0 * k + 1));
      f += tf;
      g += tg;
      if (std::fabs(tf) + std::fabs(tg) <= 1e-18 * (std::fabs(f) + std::fabs(g))) break;
    }
    return kAi0 * f - kDAi0 * g;
  }
  if (x > 1) {
    const double zeta = 2.0 / 3 * x * std::sqrt(x);
    if (zeta > 760) return 0;
    return std::sqrt(x / 3) / kPi * bessel_k_scaled_large(1.0 / 3, zeta) * std::exp(-zeta);
  }
  const double z = -x;
  const double zeta = 2.0 / 3 * z * std::sqrt(z);
  double even = 1, odd = 0, u = 1, power = 1;
  for (int k = 1; k < 60; ++k) {
    const double next = u * (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / ((2.0 * k - 1) * 216 * k);
    const double next_power = power / zeta;
    if (next * next_power >= u * power && k > 1) break;
    u = next;
    power = next_power;
    // u_k / zeta^k with the sign (-1)^(k/2) of its sum: k = 1, 2, 3, 4 -> +odd, -even, -odd, +even.
    const double term = ((k / 2) % 2 == 0 ? 1 : -1) * u * power;
    if (k % 2 == 0) even += term;
    else odd += term;
    if (u * power <= 1e-17) break;
  }
  const double phase = zeta - kPi / 4;
  return (std::cos(phase) * even + std::sin(phase) * odd) / (std::sqrt(kPi) * std::sqrt(std::sqrt(z)));
}

// Note [erfcx]: e^(x^2) erfc(x). For x < 26 the product, with x^2 split into its rounded
// value and the rounding error (an fma), so e^(x^2) keeps its relative accuracy; beyond,
// where erfc underflows, the asymptotic series 1 / (x sqrt(pi)) sum_k (-1)^k (2k - 1)!! / (2x^2)^k.
double erfcx_impl(double x) {
  if (std::isnan(x)) return x;
  if (x < 26) {
    if (x < -26.7) return kInf;
    const double sq = x * x;
    const double err = std::fma(x, x, -sq);
    return std::exp(sq) * std::erfc(x) * (1 + err);
  }
  if (std::isinf(x)) return 0;
  constexpr double kRsqrtPi = 0.564189583547756286948079451560772586;
  const double z = 1 / (2 * x * x);
  double term = 1, sum = 1;
  for (int k = 1; k < 12; ++k) {
    term *= -(2.0 * k - 1) * z;
    sum += term;
  }
  return kRsqrtPi / x * sum;
}

// log(ndtr(x)): log1p(-erfc(x / sqrt 2) / 2) where ndtr is near 1, and for x < -1
// log(erfcx(t) / 2) - t^2 with t = -x / sqrt 2, which holds where ndtr underflows.
double log_ndtr_impl(double x) {
  constexpr double kRsqrt2 = 0.707106781186547524400844362104849039;
  if (std::isnan(x)) return x;
  if (x < -1) {
    if (std::isinf(x)) return -kInf;
    const double t = -x * kRsqrt2;
    return std::log(erfcx_impl(t) / 2) - t * t;
  }
  return std::log1p(-std::erfc(x * kRsqrt2) / 2);
}

#define EMBER_BESSEL_FN(name, impl, types)                                                  \
  struct name##_fn {                                                                        \
    template <class T>                                                                      \
    static constexpr bool kSupports = types;                                                \
    template <class A>                                                                      \
    A operator()(A x) const { return static_cast<A>(impl(static_cast<double>(x))); }        \
  };

// I0 and I1 overflow where e^|x| does in the dtype PyTorch computes them in: float32 (and
// bfloat16, through float) past |x| = log(FLT_MAX), as PyTorch's; the double value would
// still be finite there.
template <class A>
A overflowing_i(double x, double value) {
  if constexpr (std::is_same_v<A, float> || std::is_same_v<A, BFloat16>) {
    if (std::fabs(x) > 88.72283905206835 && !std::isnan(value)) return static_cast<A>(value * kInf);
  }
  return static_cast<A>(value);
}

#define EMBER_BESSEL_I_FN(name, impl, types)                                                \
  struct name##_fn {                                                                        \
    template <class T>                                                                      \
    static constexpr bool kSupports = types;                                                \
    template <class A>                                                                      \
    A operator()(A x) const {                                                               \
      const double d = static_cast<double>(x);                                              \
      return overflowing_i<A>(d, impl(d));                                                  \
    }                                                                                       \
  };

#define EMBER_ALL_FLOATS kFloating<T>
#define EMBER_F32_F64 std::is_floating_point_v<T>
EMBER_BESSEL_I_FN(i0, i0_impl, EMBER_ALL_FLOATS)
EMBER_BESSEL_FN(i0e, i0e_impl, EMBER_ALL_FLOATS)
EMBER_BESSEL_I_FN(i1, i1_impl, EMBER_ALL_FLOATS)
EMBER_BESSEL_FN(i1e, i1e_impl, EMBER_ALL_FLOATS)
EMBER_BESSEL_FN(k0, k0_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(k1, k1_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(k0e, k0e_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(k1e, k1e_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(j0, j0_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(j1, j1_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(y0, y0_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(y1, y1_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(spherical_j0, spherical_j0_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(airy_ai, airy_ai_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(erfcx, erfcx_impl, EMBER_F32_F64)
EMBER_BESSEL_FN(log_ndtr, log_ndtr_impl, EMBER_F32_F64)
EMBER_BESSEL_I_FN(modified_i0, i0_impl, EMBER_F32_F64)
EMBER_BESSEL_I_FN(modified_i1, i1_impl, EMBER_F32_F64)
#undef EMBER_ALL_FLOATS
#undef EMBER_F32_F64
#undef EMBER_BESSEL_FN
#undef EMBER_BESSEL_I_FN

// Runs F over self into out in self's float result type (complex refused, as PyTorch).
template <class F>
void special_run(const char* name, const Tensor& self, const Tensor& out) {
  const ScalarType result = float_result_type(self.dtype());
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(result), "special.", name,
                              "(): not implemented for complex tensors (got ", result, ")");
  unary_run<F>(name, result, self, out);
}

}  // namespace

void i0_out_cpu(const Tensor& self, const Tensor& out) { special_run<i0_fn>("i0", self, out); }
void special_i0e_out_cpu(const Tensor& self, const Tensor& out) { special_run<i0e_fn>("i0e", self, out); }
void special_i1_out_cpu(const Tensor& self, const Tensor& out) { special_run<i1_fn>("i1", self, out); }
void special_i1e_out_cpu(const Tensor& self, const Tensor& out) { special_run<i1e_fn>("i1e", self, out); }
void special_modified_bessel_i0_out_cpu(const Tensor& self, const Tensor& out) {
  special_run<modified_i0_fn>("modified_bessel_i0", self, out);
}
void special_modified_bessel_i1_out_cpu(const Tensor& self, const Tensor& out) {
  special_run<modified_i1_fn>("modified_bessel_i1", self, out);
}
void special_modified_bessel_k0_out_cpu(const Tensor& self, const Tensor& out) {
  special_run<k0_fn>("modified_bessel_k0", self, out);
}
void special_modified_bessel_k1_out_cpu(const Tensor& self, const Tensor& out) {
  special_run<k1_fn>("modified_bessel_k1", self, out);
}
void special_scaled_modified_bessel_k0_out_cpu(const Tensor& self, const Tensor& out) {
  special_run<k0e_fn>("scaled_modified_bessel_k0", self, out);
}
void special_scaled_modified_bessel_k1_out_cpu(const Tensor& self, const Tensor& out) {
  special_run<k1e_fn>("scaled_modified_bessel_k1", self, out);
}
void special_bessel_j0_out_cpu(const Tensor& self, const Tensor& out) { special_run<j0_fn>("bessel_j0", self, out); }
void special_bessel_j1_out_cpu(const Tensor& self, const Tensor& out) { special_run<j1_fn>("bessel_j1", self, out); }
void special_bessel_y0_out_cpu(const Tensor& self, const Tensor& out) { special_run<y0_fn>("bessel_y0", self, out); }
void special_bessel_y1_out_cpu(const Tensor& self, const Tensor& out) { special_run<y1_fn>("bessel_y1", self, out); }
void special_spherical_bessel_j0_out_cpu(const Tensor& self, const Tensor& out) {
  special_run<spherical_j0_fn>("spherical_bessel_j0", self, out);
}
void special_airy_ai_out_cpu(const Tensor& self, const Tensor& out) { special_run<airy_ai_fn>("airy_ai", self, out); }
void special_erfcx_out_cpu(const Tensor& self, const Tensor& out) { special_run<erfcx_fn>("erfcx", self, out); }
void special_log_ndtr_out_cpu(const Tensor& self, const Tensor& out) {
  special_run<log_ndtr_fn>("log_ndtr", self, out);
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
