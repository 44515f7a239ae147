// The orthogonal polynomials of ember.special on the CPU: Chebyshev T, U, V, W (and their
// shifted forms, of 2x - 1), Hermite H and He, Laguerre L and Legendre P, each of (x, n)
// with n truncated to an integer (0 for n < 0), for float32 and float64 as PyTorch. They
// compute in the dtype itself, as PyTorch, so that overflow to inf happens where it does there.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/binary.h"
#include "aten/native/cpu/BinaryFunctors.h"
#include "aten/native/cpu/Loops.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/special_chebyshev_polynomial_t_native.h"
#include "ember/generated/ops/special_chebyshev_polynomial_u_native.h"
#include "ember/generated/ops/special_chebyshev_polynomial_v_native.h"
#include "ember/generated/ops/special_chebyshev_polynomial_w_native.h"
#include "ember/generated/ops/special_hermite_polynomial_h_native.h"
#include "ember/generated/ops/special_hermite_polynomial_he_native.h"
#include "ember/generated/ops/special_laguerre_polynomial_l_native.h"
#include "ember/generated/ops/special_legendre_polynomial_p_native.h"
#include "ember/generated/ops/special_shifted_chebyshev_polynomial_t_native.h"
#include "ember/generated/ops/special_shifted_chebyshev_polynomial_u_native.h"
#include "ember/generated/ops/special_shifted_chebyshev_polynomial_v_native.h"
#include "ember/generated/ops/special_shifted_chebyshev_polynomial_w_native.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// Note [Orthogonal polynomials]: each is its three-term recurrence
//   p_(k+1) = (alpha_k x + beta_k) p_k - gamma_k p_(k-1)
// from p_0 = 1 and its p_1 (DLMF 18.9), in PyTorch's order (an overflow may become NaN there
// as it does in PyTorch), stopped early only once the value is NaN. The
// Chebyshev kinds take, for |x| < 1 and n > 6, the trigonometric forms with x = cos(theta)
// (T = cos(n theta), U = sin((n + 1) theta) / sin(theta), V = cos((n + 1/2) theta) / cos(theta / 2),
// W = sin((n + 1/2) theta) / sin(theta / 2)), whose error does not grow with n; their values
// at x = +-1 are exact (T(1) = 1, U(1) = n + 1, V(1) = 1, W(1) = 2n + 1; at -1 by parity).
enum class Poly { T, U, V, W, H, He, L, P };

// The degree n as an integer, truncated. An n with no int64 value (NaN, an infinity, beyond
// 2^63) gives -1, so the polynomial is 0 there: what PyTorch's cast to int64 gives on x86
// (the "integer indefinite" value, INT64_MIN). A finite n costs O(n) steps, as in PyTorch,
// except where a closed form below applies.
template <class A>
int64_t degree_of(A n) {
  if (!(std::fabs(n) < A(9.2e18))) return -1;
  return static_cast<int64_t>(n);
}

template <class A>
A recurrence(Poly kind, A x, int64_t n) {
  A p = 1;
  A q;
  switch (kind) {
    case Poly::T: q = x; break;
    case Poly::U: q = 2 * x; break;
    case Poly::V: q = 2 * x - 1; break;
    case Poly::W: q = 2 * x + 1; break;
    case Poly::H: q = 2 * x; break;
    case Poly::He: q = x; break;
    case Poly::L: q = 1 - x; break;
    case Poly::P: q = x; break;
  }
  if (n == 0) return p;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {  // NaN stays NaN
    const A kk = static_cast<A>(k);
    A r;
    switch (kind) {
      case Poly::H: r = 2 * x * q - 2 * kk * p; break;
      case Poly::He: r = x * q - kk * p; break;
      case Poly::L: r = ((2 * kk + 1 - x) * q - kk * p) / (kk + 1); break;
      case Poly::P: r = ((2 * kk + 1) * x * q - kk * p) / (kk + 1); break;
      default: r = 2 * x * q - p; break;
    }
    p = q;
    q = r;
  }
  return q;
}

template <class A>
A chebyshev(Poly kind, A x, int64_t n) {
  const bool odd = n % 2 != 0;
  const A nn = static_cast<A>(n);
  if (std::fabs(x) == A(1)) {
    const bool pos = x > 0;
    switch (kind) {
      case Poly::T: return pos || !odd ? A(1) : A(-1);
      case Poly::U: return pos || !odd ? nn + 1 : -(nn + 1);
      case Poly::V: return pos ? A(1) : (odd ? -(2 * nn + 1) : 2 * nn + 1);
      default: return pos ? 2 * nn + 1 : (odd ? A(-1) : A(1));  // W
    }
  }
  if (n > 6 && std::fabs(x) < A(1)) {
    const A theta = std::acos(x);
    switch (kind) {
      case Poly::T: return std::cos(nn * theta);
      case Poly::U: {
        const A s = std::sin(theta);
        if (s != 0) return std::sin((nn + 1) * theta) / s;
        break;
      }
      case Poly::V: {
        const A c = std::cos(theta / 2);
        if (c != 0) return std::cos((nn + A(0.5)) * theta) / c;
        break;
      }
      default: {
        const A s = std::sin(theta / 2);
        if (s != 0) return std::sin((nn + A(0.5)) * theta) / s;
        break;
      }
    }
  }
  return recurrence(kind, x, n);
}

template <class A>
A polynomial(Poly kind, bool shifted, A x, A n_value) {
  const int64_t n = degree_of(n_value);
  if (n < 0) return 0;
  if (n == 0) return 1;  // even for a NaN x, as PyTorch
  if (std::isnan(x)) return x;
  if (shifted) x = 2 * x - 1;
  switch (kind) {
    case Poly::T:
    case Poly::U:
    case Poly::V:
    case Poly::W: return chebyshev(kind, x, n);
    case Poly::L:
      if (x == 0) return 1;
      return recurrence(kind, x, n);
    case Poly::P:
      if (std::fabs(x) == A(1)) return x > 0 || n % 2 == 0 ? A(1) : A(-1);
      return recurrence(kind, x, n);
    default: return recurrence(kind, x, n);
  }
}

template <Poly K, bool Shifted>
struct PolyFn {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::ToFloat;
  template <class T> static Acc<T> apply(Acc<T> x, Acc<T> n) { return polynomial<Acc<T>>(K, Shifted, x, n); }
};

using ChebyshevT = PolyFn<Poly::T, false>;
using ChebyshevU = PolyFn<Poly::U, false>;
using ChebyshevV = PolyFn<Poly::V, false>;
using ChebyshevW = PolyFn<Poly::W, false>;
using ShiftedChebyshevT = PolyFn<Poly::T, true>;
using ShiftedChebyshevU = PolyFn<Poly::U, true>;
using ShiftedChebyshevV = PolyFn<Poly::V, true>;
using ShiftedChebyshevW = PolyFn<Poly::W, true>;
using HermiteH = PolyFn<Poly::H, false>;
using HermiteHe = PolyFn<Poly::He, false>;
using LaguerreL = PolyFn<Poly::L, false>;
using LegendreP = PolyFn<Poly::P, false>;

// The polynomials, as PyTorch, compute in float32 or float64 only.
ScalarType check_polynomial_dtype(const char* name, Operand a, Operand b) {
  const ScalarType t = binary_compute_type(BinaryDtypes::ToFloat, name, a, b);
  EMBER_CHECK_NOT_IMPLEMENTED(t == ScalarType::Float || t == ScalarType::Double, name,
                              "(): not implemented for '", t, "'");
  return t;
}

}  // namespace

// The three kernels of polynomial `op` (functor F): Tensor x and n, a number n, a number x
// (the functors run in the baseline copy only: Note [Binary copies]).
#define EMBER_POLYNOMIAL_KERNELS(op, F)                                                         \
  void op##_out_cpu(const Tensor& x, const Tensor& n, const Tensor& out) {                    \
    if (kWideCpuCopy) return ::ember::native::op##_out_cpu(x, n, out);                         \
    check_polynomial_dtype(#op, x, n);                                                         \
    binary_functor_cpu<F>(#op, x, n, out, [] {});                                              \
  }                                                                                            \
  void op##_n_scalar_out_cpu(const Tensor& x, const Scalar& n, const Tensor& out) {           \
    if (kWideCpuCopy) return ::ember::native::op##_n_scalar_out_cpu(x, n, out);                \
    check_polynomial_dtype(#op, x, n);                                                         \
    binary_functor_cpu<F>(#op, x, n, out, [] {});                                              \
  }                                                                                            \
  Tensor op##_x_scalar_cpu(const Scalar& x, const Tensor& n) {                                 \
    if (kWideCpuCopy) return ::ember::native::op##_x_scalar_cpu(x, n);                         \
    check_polynomial_dtype(#op, x, n);                                                         \
    Tensor out = make_output(binary_op_meta(F::kDtypes, #op, x, n), n.device());               \
    binary_functor_cpu<F>(#op, x, n, out, [] {});                                              \
    return out;                                                                                \
  }

EMBER_POLYNOMIAL_KERNELS(special_chebyshev_polynomial_t, ChebyshevT)
EMBER_POLYNOMIAL_KERNELS(special_chebyshev_polynomial_u, ChebyshevU)
EMBER_POLYNOMIAL_KERNELS(special_chebyshev_polynomial_v, ChebyshevV)
EMBER_POLYNOMIAL_KERNELS(special_chebyshev_polynomial_w, ChebyshevW)
EMBER_POLYNOMIAL_KERNELS(special_shifted_chebyshev_polynomial_t, ShiftedChebyshevT)
EMBER_POLYNOMIAL_KERNELS(special_shifted_chebyshev_polynomial_u, ShiftedChebyshevU)
EMBER_POLYNOMIAL_KERNELS(special_shifted_chebyshev_polynomial_v, ShiftedChebyshevV)
EMBER_POLYNOMIAL_KERNELS(special_shifted_chebyshev_polynomial_w, ShiftedChebyshevW)
EMBER_POLYNOMIAL_KERNELS(special_hermite_polynomial_h, HermiteH)
EMBER_POLYNOMIAL_KERNELS(special_hermite_polynomial_he, HermiteHe)
EMBER_POLYNOMIAL_KERNELS(special_laguerre_polynomial_l, LaguerreL)
EMBER_POLYNOMIAL_KERNELS(special_legendre_polynomial_p, LegendreP)
#undef EMBER_POLYNOMIAL_KERNELS

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
