// The binary elementwise family on the CPU past add, sub, mul and div (those are
// cpu/binary_arith.cpp), over TensorIterator (Note [TensorIterator]): one functor per op
// (Note [Binary functors]): rounding division, remainder, fmod, pow, maximum, minimum, fmax,
// fmin, atan2, hypot, copysign, logaddexp (the bitwise, shift and logical ops are
// cpu/binary_bitwise.cpp; the machinery, cpu/BinaryFunctors.h). A number operand is a
// constant of the loop, never a tensor. Operands are converted to the compute dtype first
// (aten/native/binary.h); an out= of another dtype receives a converted copy.
// Integers wrap on overflow as in PyTorch; 16-bit floats compute in float32 and round once.
#include <atomic>
#include <climits>
#include <cmath>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/binary.h"
#include "aten/native/cpu/BinaryFunctors.h"
#include "aten/native/cpu/Loops.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/atan2_native.h"
#include "ember/generated/ops/copysign_native.h"
#include "ember/generated/ops/div_native.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/floor_divide_native.h"
#include "ember/generated/ops/fmax_native.h"
#include "ember/generated/ops/fmin_native.h"
#include "ember/generated/ops/fmod_native.h"
#include "ember/generated/ops/hypot_native.h"
#include "ember/generated/ops/logaddexp_native.h"
#include "ember/generated/ops/maximum_native.h"
#include "ember/generated/ops/minimum_native.h"
#include "ember/generated/ops/pow_native.h"
#include "ember/generated/ops/remainder_native.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

struct DivTrue {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::TrueDiv;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return a / b; }
};
struct DivTrunc {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Rounding;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return std::trunc(a / b);
    else return trunc_div<T>(a, b);
  }
};
struct DivFloor {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Rounding;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return floor_div_float(a, b);
    else return floor_div_int<T>(a, b);
  }
};
struct Remainder {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Rounding;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return remainder_float(a, b);
    else return remainder_int<T>(a, b);
  }
};
struct Fmod {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Rounding;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return std::fmod(a, b);
    else return fmod_int<T>(a, b);
  }
};
struct Pow {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Pow;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kInteger<T>) return powi<T>(a, b);
    else return std::pow(a, b);
  }
  template <class T> static void run(const Args<T>& x) {
    if (!x.b) pow_scalar_exponent(x);
    else loop<T>(x, [](Acc<T> a, Acc<T> b) { return apply<T>(a, b); });
  }
};
struct Maximum {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Ordered;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return nan_or<T>(a, b, a < b ? b : a); }
};
struct Minimum {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Ordered;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return nan_or<T>(a, b, b < a ? b : a); }
};
struct Fmax {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Ordered;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return std::fmax(a, b);
    else return a < b ? b : a;
  }
};
struct Fmin {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Ordered;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    if constexpr (kReal<T>) return std::fmin(a, b);
    else return b < a ? b : a;
  }
};
struct Atan2 {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::ToFloat;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return std::atan2(a, b); }
};
struct Hypot {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Floating;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return std::hypot(a, b); }
};
struct Copysign {
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::ToFloat;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) { return std::copysign(a, b); }
};
// log(exp(a) + exp(b)) without overflow: the larger (by real part) plus log1p(exp(the
// difference)); equal infinities give themselves, as PyTorch.
struct Logaddexp {
  static constexpr bool kScalarCalls = true;  // Note [Binary copies]
  static constexpr BinaryDtypes kDtypes = BinaryDtypes::Inexact;
  template <class T> static Acc<T> apply(Acc<T> a, Acc<T> b) {
    using A = Acc<T>;
    if constexpr (kIsComplex<A>) {
      const A m = a.real() >= b.real() ? a : b;
      const A n = a.real() >= b.real() ? b : a;
      if (std::isinf(m.real()) && m == n) return m;
      return m + std::log(A(1) + std::exp(n - m));
    } else {
      if (std::isinf(a) && a == b) return a;
      return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
    }
  }
};

// div(a, b, rounding_mode) as its functor.
template <class G>
void with_div_mode(std::optional<std::string_view> rounding_mode, const G& go) {
  switch (div_mode(rounding_mode)) {
    case DivMode::True: go(DivTrue{}); return;
    case DivMode::Trunc: go(DivTrunc{}); return;
    case DivMode::Floor: go(DivFloor{}); return;
  }
}

}  // namespace

// ---- the kernels the YAML names ------------------------------------------------------------

void div_out_mode_cpu(const Tensor& self, const Tensor& other,
                      std::optional<std::string_view> rounding_mode, const Tensor& out) {
  with_div_mode(rounding_mode, [&](auto f) {
    binary_functor_cpu<decltype(f)>("div", self, other, out, [&] {
      ::ember::native::div_out_mode_cpu(self, other, rounding_mode, out);
    });
  });
}

void div_scalar_mode_out_cpu(const Tensor& self, const Scalar& other,
                             std::optional<std::string_view> rounding_mode, const Tensor& out) {
  with_div_mode(rounding_mode, [&](auto f) {
    binary_functor_cpu<decltype(f)>("div", self, other, out, [&] {
      ::ember::native::div_scalar_mode_out_cpu(self, other, rounding_mode, out);
    });
  });
}

void pow_tensor_tensor_out_cpu(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  binary_functor_cpu<Pow>("pow", self, exponent, out,
                          [&] { ::ember::native::pow_tensor_tensor_out_cpu(self, exponent, out); });
}

void pow_tensor_scalar_out_cpu(const Tensor& self, const Scalar& exponent, const Tensor& out) {
  if (pow_is_trivial(exponent)) {
    check_output_overlap(out, {&self});
    if (exponent.is_complex() ? exponent.to_complex() == std::complex<double>(0.0)
                              : exponent.to_double() == 0.0) {
      out.fill_(1);
    } else {
      out.copy_(self);
    }
    return;
  }
  binary_functor_cpu<Pow>("pow", self, exponent, out,
                          [&] { ::ember::native::pow_tensor_scalar_out_cpu(self, exponent, out); });
}

void pow_scalar_out_cpu(const Scalar& self, const Tensor& exponent, const Tensor& out) {
  // 1 ** anything is 1 (NaN and infinite exponents included), as in PyTorch.
  const bool one = self.is_complex() ? self.to_complex() == std::complex<double>(1.0)
                                     : self.to_double() == 1.0;
  if (one) {
    check_output_overlap(out, {&exponent});
    out.fill_(1);
    return;
  }
  binary_functor_cpu<Pow>("pow", self, exponent, out,
                          [&] { ::ember::native::pow_scalar_out_cpu(self, exponent, out); });
}

EMBER_BINARY_KERNEL(floor_divide_out_cpu, DivFloor, "floor_divide")
EMBER_SCALAR_KERNEL(floor_divide_scalar_out_cpu, DivFloor, "floor_divide")
EMBER_BINARY_KERNEL(remainder_out_cpu, Remainder, "remainder")
EMBER_SCALAR_KERNEL(remainder_scalar_out_cpu, Remainder, "remainder")
EMBER_SCALAR_TENSOR_KERNEL(remainder_scalar_tensor_cpu, Remainder, "remainder")
EMBER_BINARY_KERNEL(fmod_out_cpu, Fmod, "fmod")
EMBER_SCALAR_KERNEL(fmod_scalar_out_cpu, Fmod, "fmod")
EMBER_BINARY_KERNEL(maximum_out_cpu, Maximum, "maximum")
EMBER_BINARY_KERNEL(minimum_out_cpu, Minimum, "minimum")
EMBER_BINARY_KERNEL(fmax_out_cpu, Fmax, "fmax")
EMBER_BINARY_KERNEL(fmin_out_cpu, Fmin, "fmin")
EMBER_BINARY_KERNEL(atan2_out_cpu, Atan2, "atan2")
EMBER_BINARY_KERNEL(hypot_out_cpu, Hypot, "hypot")
EMBER_BINARY_KERNEL(copysign_out_cpu, Copysign, "copysign")
EMBER_BINARY_KERNEL(logaddexp_out_cpu, Logaddexp, "logaddexp")
EMBER_SCALAR_KERNEL(copysign_scalar_out_cpu, Copysign, "copysign")
#undef EMBER_BINARY_KERNEL
#undef EMBER_SCALAR_KERNEL
#undef EMBER_SCALAR_TENSOR_KERNEL

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
