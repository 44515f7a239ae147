// The unary ops on the CPU that compute in self's dtype (Note [TensorIterator]): abs, neg, conj,
// sign, the roundings (floor, ceil, trunc, round), frac, and the predicates isnan, isinf,
// isfinite and signbit. One functor per op, saying which element types it takes. The float
// family (exp, log, ...) is cpu/unary.cpp and cpu/unary_trig.cpp.
#include <cmath>
#include <complex>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/unary_kernel.h"
#include "aten/native/unary.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/ones_like.h"
#include "ember/generated/ops/zeros_like.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

// As PyTorch: these ops write only into an out= of self's dtype.
#define EMBER_SAME_UNARY_KERNEL(op)                                         \
  void op##_out_cpu(const Tensor& self, const Tensor& out) {                \
    EMBER_CHECK(out.dtype() == self.dtype(), #op "(): Found dtype ", out.dtype(), \
                " but expected ", self.dtype(), " (out= must have self's dtype)"); \
    unary_run<op##_fn>(#op, self.dtype(), self, out);                       \
  }

namespace {

struct abs_fn {
  // Bool has no abs in PyTorch; complex abs (real-valued) is abs_out_cpu's own loop.
  template <class T>
  static constexpr bool kSupports = !kIsComplex<T> && !std::is_same_v<T, bool>;
  template <class A>
  A operator()(A x) const {
    if constexpr (std::is_unsigned_v<A>) return x;
    else if constexpr (kIntegral<A>) return x < 0 ? static_cast<A>(0 - static_cast<std::make_unsigned_t<A>>(x)) : x;
    else return std::abs(x);
  }
};

struct neg_fn {
  template <class T>
  static constexpr bool kSupports = !std::is_same_v<T, bool>;
  template <class A>
  A operator()(A x) const {
    if constexpr (kIntegral<A>) return static_cast<A>(0 - static_cast<std::make_unsigned_t<A>>(x));
    else return -x;
  }
};

struct conj_physical_fn {
  template <class T>
  static constexpr bool kSupports = true;
  template <class A>
  A operator()(A x) const {
    if constexpr (kIsComplex<A>) return std::conj(x);
    else return x;
  }
};

struct sign_fn {
  template <class T>
  static constexpr bool kSupports = !kIsComplex<T>;
  template <class A>
  A operator()(A x) const {
    if constexpr (std::is_same_v<A, bool>) return x;
    else return static_cast<A>((A(0) < x) - (x < A(0)));
  }
};

// floor, ceil, trunc, round: identity on integers, as PyTorch.
#define EMBER_ROUNDING_FN(name, expr)                        \
  struct name##_fn {                                         \
    template <class T>                                       \
    static constexpr bool kSupports = !kIsComplex<T> && !std::is_same_v<T, bool>; \
    template <class A>                                       \
    A operator()(A x) const {                                \
      if constexpr (std::is_integral_v<A>) return x;         \
      else return expr;                                      \
    }                                                        \
  };
EMBER_ROUNDING_FN(floor, std::floor(x))
EMBER_ROUNDING_FN(ceil, std::ceil(x))
EMBER_ROUNDING_FN(trunc, std::trunc(x))
EMBER_ROUNDING_FN(round, std::nearbyint(x))
#undef EMBER_ROUNDING_FN

struct frac_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  template <class A>
  A operator()(A x) const { return x - std::trunc(x); }
};

// The bool-valued predicates.
template <class P>
Tensor predicate(const char* name, const Tensor& self, P p) {
  Tensor out = make_output(elementwise_meta({&self}, ScalarType::Bool, name), self.device());
  dispatch_all_types(self.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    elementwise_loop<bool, T, 1>(TensorIterator({&out}, {&self}, name), p);
  });
  return out;
}

}  // namespace

EMBER_SAME_UNARY_KERNEL(neg)
EMBER_SAME_UNARY_KERNEL(conj_physical)
EMBER_SAME_UNARY_KERNEL(sign)
EMBER_SAME_UNARY_KERNEL(floor)
EMBER_SAME_UNARY_KERNEL(ceil)
EMBER_SAME_UNARY_KERNEL(trunc)
EMBER_SAME_UNARY_KERNEL(frac)
EMBER_SAME_UNARY_KERNEL(round)
#undef EMBER_SAME_UNARY_KERNEL


void abs_out_cpu(const Tensor& self, const Tensor& out) {
  if (!is_complex(self.dtype())) {
    EMBER_CHECK(out.dtype() == self.dtype(), "abs(): Found dtype ", out.dtype(), " but expected ",
                self.dtype(), " (out= must have self's dtype)");
    unary_run<abs_fn>("abs", self.dtype(), self, out);
    return;
  }
  // As PyTorch: a complex out= receives |x| + 0i; a real one needs only to hold the real dtype.
  EMBER_CHECK(!is_complex(out.dtype()) || out.dtype() == self.dtype(), "abs(): Found dtype ",
              out.dtype(), " but expected ", self.dtype());
  check_output_overlap(out, {&self});
  const ScalarType real = self.dtype() == ScalarType::ComplexFloat ? ScalarType::Float : ScalarType::Double;
  const bool direct = out.dtype() == real;
  const Tensor dst = direct ? out : ember::empty_like(out, TensorOptions().dtype(real));
  dispatch_all_types(self.dtype(), "abs", [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (kIsComplex<C>) {
      using R = typename C::value_type;
      elementwise_loop<R, C, 1>(TensorIterator({&dst}, {&self}, "abs"), [](C x) { return std::abs(x); });
    }
  });
  if (!direct) out.copy_(dst);
}

Tensor isnan_cpu(const Tensor& self) {
  return predicate("isnan", self, [](auto x) {
    if constexpr (kIsComplex<decltype(x)>) return std::isnan(x.real()) || std::isnan(x.imag());
    else if constexpr (std::is_floating_point_v<decltype(x)>) return std::isnan(x);
    else return false;
  });
}

Tensor isinf_cpu(const Tensor& self) {
  // As PyTorch: integers are never infinite (a zeros_like, keeping self's strides).
  if (is_integral(self.dtype(), true)) return ember::zeros_like(self, TensorOptions().dtype(ScalarType::Bool));
  return predicate("isinf", self, [](auto x) {
    if constexpr (kIsComplex<decltype(x)>) return std::isinf(x.real()) || std::isinf(x.imag());
    else if constexpr (std::is_floating_point_v<decltype(x)>) return std::isinf(x);
    else return false;
  });
}

Tensor isfinite_cpu(const Tensor& self) {
  if (is_integral(self.dtype(), true)) return ember::ones_like(self, TensorOptions().dtype(ScalarType::Bool));
  return predicate("isfinite", self, [](auto x) {
    if constexpr (kIsComplex<decltype(x)>) return std::isfinite(x.real()) && std::isfinite(x.imag());
    else if constexpr (std::is_floating_point_v<decltype(x)>) return std::isfinite(x);
    else return true;
  });
}

Tensor signbit_cpu(const Tensor& self) {
  EMBER_CHECK_TYPE(!is_complex(self.dtype()), "signbit(): is not implemented for complex tensors.");
  return predicate("signbit", self, [](auto x) {
    if constexpr (kIsComplex<decltype(x)>) return false;
    // copysign, not std::signbit: GCC 12 fails (an internal error) vectorising the latter.
    else if constexpr (std::is_floating_point_v<decltype(x)>) return std::copysign(decltype(x)(1), x) < 0;
    else if constexpr (std::is_signed_v<decltype(x)>) return x < 0;
    else return false;
  });
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
