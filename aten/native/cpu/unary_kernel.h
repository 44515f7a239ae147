#pragma once
/// unary_run: the driver of the CPU unary kernels (cpu/unary.cpp, cpu/activation.cpp,
/// cpu/unary_special.cpp) over TensorIterator (Note [TensorIterator]).

#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/UnaryOps.h"
#include "aten/native/cpu/Loops.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty_like.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN

/// Element-type families a functor's kSupports is written with.
template <class T>
constexpr bool kReduced = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <class T>
constexpr bool kFloating = std::is_floating_point_v<T> || kReduced<T>;
template <class T>
constexpr bool kIntegral = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// Writes f(x) of each element of self into out, computing in `compute` (self converted to
/// it first; an out= of another dtype receives a converted copy). F::kSupports<T> says
/// which element types f takes; any other raises "<name>(): not implemented for '<dtype>'"
/// (NotImplementedError) before anything is written.
template <class F>
void unary_run(const char* name, ScalarType compute, const Tensor& self, const Tensor& out,
               const F& f = F{}) {
  dispatch_all_types(compute, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!F::template kSupports<T>) {
      EMBER_CHECK_TYPE(false, name, "(): not implemented for '", compute, "'");
    } else {
      check_output_overlap(out, {&self});
      const Tensor in = self.dtype() == compute ? self : self.to(compute);
      const bool direct = out.dtype() == compute;
      const Tensor dst = direct ? out : ember::empty_like(out, TensorOptions().dtype(compute));
      elementwise_loop<T, T, 1>(TensorIterator({&dst}, {&in}, name), f);
      if (!direct) out.copy_(dst);
    }
  });
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native

// The float family's ops, one line each (cpu/unary.cpp, cpu/unary_trig.cpp): a functor and
// its structured kernel `<op>_out_cpu`, computing in the float result type of self.
#define EMBER_FLOAT_UNARY_KERNEL(op)                                        \
  void op##_out_cpu(const Tensor& self, const Tensor& out) {                \
    unary_run<op##_fn>(#op, float_result_type(self.dtype()), self, out);    \
  }

// Ops of the float family, one line each (the functor and its kernel): real floating types,
// and complex ones when the op has a complex form (Complex = true, complex_expr). The real
// form is the op's shared functor (aten/native/UnaryOps.h, which the CUDA kernels run too).
// EMBER_FLOAT_VEC_FN adds the Vectorized<T> form (Vectorized.h) that float and double (and
// the 16-bit floats, through float) run through. Their meta is the YAML's
// `meta: float_unary_meta`.
#define EMBER_FLOAT_FN_BODY(name, Complex, complex_expr)                   \
    template <class T>                                                      \
    static constexpr bool kSupports = kFloating<T> || (Complex && kIsComplex<T>); \
    template <class A>                                                      \
    A operator()(A x) const {                                               \
      if constexpr (kIsComplex<A>) {                                        \
        using R = typename A::value_type;                                   \
        static_cast<void>(R{});                                             \
        return complex_expr;                                                \
      } else {                                                              \
        return real_ops::name{}(x);                                         \
      }                                                                     \
    }
#define EMBER_FLOAT_FN(name, Complex, complex_expr)                         \
  namespace {                                                               \
  struct name##_fn {                                                        \
    EMBER_FLOAT_FN_BODY(name, Complex, complex_expr)                        \
  };                                                                        \
  }                                                                         \
  EMBER_FLOAT_UNARY_KERNEL(name)
#define EMBER_FLOAT_VEC_FN(name, Complex, complex_expr, vec_expr)           \
  namespace {                                                               \
  struct name##_fn {                                                        \
    EMBER_FLOAT_FN_BODY(name, Complex, complex_expr)                        \
    template <class V>                                                      \
    V vec(V x) const { return vec_expr; }                                   \
  };                                                                        \
  }                                                                         \
  EMBER_FLOAT_UNARY_KERNEL(name)
