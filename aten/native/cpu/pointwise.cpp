// The several-input pointwise ops on the CPU: where, clamp (and clamp_min, clamp_max),
// lerp, addcmul, addcdiv, isclose, over TensorIterator (Note [TensorIterator]). Operands
// are converted to the computation dtype first; 16-bit floats compute in float32 and round
// once; integers wrap.
#include <cmath>
#include <cstdint>
#include <limits>
#include <complex>
#include <optional>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/PointwiseOps.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/Select.h"
#include "aten/native/cpu/unary_kernel.h"
#include "aten/native/pointwise.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/select.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

Tensor as_dtype(const Tensor& t, ScalarType dtype) { return t.dtype() == dtype ? t : t.to(dtype); }

// Runs out[i] = f(inputs[i]...) in dtype `compute` (inputs converted first; an out= of
// another dtype receives a converted copy). `supported` is checked first, naming the dtype.
template <size_t N, class Make>
void pointwise_run(const char* name, ScalarType compute, const Tensor& out,
                   const std::array<const Tensor*, N>& inputs, const Make& make) {
  [&]<size_t... K>(std::index_sequence<K...>) { check_output_overlap(out, {inputs[K]...}); }(
      std::make_index_sequence<N>{});
  dispatch_all_types(compute, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto f = make(tag);  // checks the dtype and the scalar arguments before anything is written
    std::array<Tensor, N> in;
    for (size_t k = 0; k < N; ++k) in[k] = as_dtype(*inputs[k], compute);
    const bool direct = out.dtype() == compute;
    const Tensor dst = direct ? out : ember::empty_like(out, TensorOptions().dtype(compute));
    [&]<size_t... K>(std::index_sequence<K...>) {
      elementwise_loop<T, T, N>(TensorIterator({&dst}, {&in[K]...}, name), f);
    }(std::make_index_sequence<N>{});
    if (!direct) out.copy_(dst);
  });
}

void not_implemented(const char* name, ScalarType t) {
  EMBER_CHECK_TYPE(false, name, "(): not implemented for '", t, "'");
}

// ---- clamp --------------------------------------------------------------------------------

// NaN in x or a bound gives NaN; a lower bound above the upper one gives the upper one.
template <class A>
A clamp_value(A x, const A* lo, const A* hi) {
  if constexpr (std::is_floating_point_v<A>) {
    if (std::isnan(x)) return x;
    if (lo && std::isnan(*lo)) return *lo;
    if (hi && std::isnan(*hi)) return *hi;
  }
  if (lo && x < *lo) x = *lo;
  if (hi && x > *hi) x = *hi;
  return x;
}

void clamp_scalar_run(const char* name, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max, const Tensor& out) {
  const ScalarType compute = clamp_result_type(self, min, max);
  EMBER_CHECK(out.dtype() == compute, name, "(): expected 'out' to have the result dtype ", compute,
              ", but got ", out.dtype());
  pointwise_run<1>(name, compute, out, {&self}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Acc<T>;
    if constexpr (std::is_same_v<T, bool> || kIsComplex<T>) {
      not_implemented(name, compute);
      return [](A x) { return x; };
    } else {
      const ClampBounds<A> f = clamp_bounds<T, A>(min, max, name);
      return [f](A x) { return f(x); };
    }
  });
}

void clamp_tensor_run(const char* name, const Tensor& self, const Tensor* min, const Tensor* max,
                      const Tensor& out) {
  const ScalarType compute = clamp_tensor_result_type(
      self, min ? std::optional<Tensor>(*min) : std::nullopt, max ? std::optional<Tensor>(*max) : std::nullopt);
  // With both bounds bool has no clamp in PyTorch; with one it is max / min.
  auto check = [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (kIsComplex<T> || (std::is_same_v<T, bool> && min && max)) not_implemented(name, compute);
  };
  if (min && max) {
    pointwise_run<3>(name, compute, out, {&self, min, max}, [&](auto tag) {
      check(tag);
      using A = Acc<typename decltype(tag)::type>;
      if constexpr (kIsComplex<A>) return [](A x, A, A) { return x; };
      else return [](A x, A lo, A hi) { return clamp_value<A>(x, &lo, &hi); };
    });
  } else {
    const bool lower = min != nullptr;
    pointwise_run<2>(name, compute, out, {&self, lower ? min : max}, [&](auto tag) {
      check(tag);
      using A = Acc<typename decltype(tag)::type>;
      if constexpr (kIsComplex<A>) {
        return [](A x, A) { return x; };
      } else {
        return [lower](A x, A bound) {
          return lower ? clamp_value<A>(x, &bound, nullptr) : clamp_value<A>(x, nullptr, &bound);
        };
      }
    });
  }
}

// ---- lerp ---------------------------------------------------------------------------------

// PyTorch's form: from self for small weights, from end otherwise (exact at both ends).
template <class T>
constexpr bool kLerpable = kFloating<T> || kIsComplex<T>;

}  // namespace

// ---- kernels ------------------------------------------------------------------------------

namespace {

// An operand of the where fast path: contiguous over out's elements, or one element.
bool one_value(const Tensor& t) {
  if (t.numel() == 1) return true;
  for (int64_t st : t.strides())
    if (st != 0) return false;
  return true;  // expanded from one element (the gradient of a sum, say)
}

bool flat_or_scalar(const Tensor& t, int64_t n) {
  return one_value(t) || (t.numel() == n && t.is_contiguous());
}

// where() over a contiguous out whose operands are each contiguous with out's shape or a
// single element (the autograd formulas' where(mask, grad, 0) among them), in self's dtype,
// with a bool condition read as bytes: one pass, no dtype conversion of the mask, selects the
// compiler vectorises. False where the general loop is needed.
bool where_fast(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  const int64_t n = out.numel();
  if (!out.is_contiguous() || condition.scalar_type() != ScalarType::Bool || self.dtype() != out.dtype() ||
      other.dtype() != out.dtype() || n < 2)
    return false;
  for (const Tensor* t : {&condition, &self, &other}) {
    if (!flat_or_scalar(*t, n) || t->dim() > out.dim()) return false;
    // Same shape as out (up to leading 1s), or one element.
    if (!one_value(*t)) {
      for (int64_t d = 1; d <= t->dim(); ++d)
        if (t->sizes()[t->dim() - d] != out.sizes()[out.dim() - d]) return false;
    }
  }
  check_output_overlap(out, {&condition, &self, &other});
  dispatch_all_types(out.scalar_type(), "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Bytes, not bools: the compiler may assume a bool is 0 or 1 but not vectorise its loads.
    const uint8_t* __restrict c = static_cast<const uint8_t*>(condition.data_ptr());
    const T* __restrict a = static_cast<const T*>(self.data_ptr());
    const T* __restrict b = static_cast<const T*>(other.data_ptr());
    T* __restrict o = static_cast<T*>(out.data_ptr());
    const bool cs = !one_value(condition), as = !one_value(self), bs = !one_value(other);
    parallel_for(0, n, TensorIterator::kGrainSize, [&](int64_t i0, int64_t i1) {
      if (cs && as && !bs) {
        const T bv = b[0];
        for (int64_t i = i0; i < i1; ++i) o[i] = select(c[i] != 0, a[i], bv);
      } else if (cs && !as && bs) {
        const T av = a[0];
        for (int64_t i = i0; i < i1; ++i) o[i] = select(c[i] != 0, av, b[i]);
      } else if (cs && as && bs) {
        for (int64_t i = i0; i < i1; ++i) o[i] = select(c[i] != 0, a[i], b[i]);
      } else if (cs) {
        const T av = a[0], bv = b[0];
        for (int64_t i = i0; i < i1; ++i) o[i] = select(c[i] != 0, av, bv);
      } else {
        for (int64_t i = i0; i < i1; ++i) o[i] = c[cs ? i : 0] ? a[as ? i : 0] : b[bs ? i : 0];
      }
    });
  });
  return true;
}

}  // namespace

void where_out_cpu(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType compute = ResultType().add(self).add(other).get();
  EMBER_CHECK(out.dtype() == compute, "where(): expected 'out' to have the result dtype ", compute,
              ", but got ", out.dtype());
  if (where_fast(condition, self, other, out)) return;
  // The condition joins the loop as 0/1 of the computation dtype.
  const Tensor mask = as_dtype(as_dtype(condition, ScalarType::Bool), compute);
  pointwise_run<3>("where", compute, out, {&mask, &self, &other}, [&](auto tag) {
    using A = Acc<typename decltype(tag)::type>;
    return [](A c, A a, A b) { return where_value<A>(c, a, b); };
  });
}

void clamp_out_cpu(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                   const Tensor& out) {
  clamp_scalar_run("clamp", self, min, max, out);
}

void clamp_min_out_cpu(const Tensor& self, const Scalar& min, const Tensor& out) {
  clamp_scalar_run("clamp_min", self, min, std::nullopt, out);
}

void clamp_max_out_cpu(const Tensor& self, const Scalar& max, const Tensor& out) {
  clamp_scalar_run("clamp_max", self, std::nullopt, max, out);
}

void clamp_tensor_out_cpu(const Tensor& self, const std::optional<Tensor>& min,
                          const std::optional<Tensor>& max, const Tensor& out) {
  clamp_tensor_run("clamp", self, min && min->defined() ? &*min : nullptr,
                   max && max->defined() ? &*max : nullptr, out);
}

void clamp_min_tensor_out_cpu(const Tensor& self, const Tensor& min, const Tensor& out) {
  clamp_tensor_run("clamp_min", self, &min, nullptr, out);
}

void clamp_max_tensor_out_cpu(const Tensor& self, const Tensor& max, const Tensor& out) {
  clamp_tensor_run("clamp_max", self, nullptr, &max, out);
}

void lerp_scalar_out_cpu(const Tensor& self, const Tensor& end, const Scalar& weight, const Tensor& out) {
  pointwise_run<2>("lerp", self.dtype(), out, {&self, &end}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Acc<T>;
    if constexpr (!kLerpable<T>) {
      not_implemented("lerp", self.dtype());
      return [](A a, A) { return a; };
    } else {
      const A w = checked_scalar_to<A>(weight, "lerp", "weight");
      return [w](A a, A b) { return lerp_value<A, A>(a, b, w); };
    }
  });
}

void lerp_tensor_out_cpu(const Tensor& self, const Tensor& end, const Tensor& weight, const Tensor& out) {
  const ScalarType compute = lerp_tensor_result_type(self, end, weight);
  // Only a 0-d weight promotes (and then out= may be any dtype the result casts to).
  EMBER_CHECK(weight.dim() == 0 || out.dtype() == compute, "lerp(): expected 'out' to have self's dtype ",
              compute, ", but got ", out.dtype());
  pointwise_run<3>("lerp", compute, out, {&self, &end, &weight}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Acc<T>;
    if constexpr (!kLerpable<T>) {
      not_implemented("lerp", compute);
      return [](A a, A, A) { return a; };
    } else {
      return [](A a, A b, A w) { return lerp_value<A, A>(a, b, w); };
    }
  });
}

void addcmul_out_cpu(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                     const Scalar& value, const Tensor& out) {
  const ScalarType compute = ResultType().add(self).add(tensor1).add(tensor2).get();
  pointwise_run<3>("addcmul", compute, out, {&self, &tensor1, &tensor2}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Acc<T>;
    if constexpr (std::is_same_v<T, bool>) {
      not_implemented("addcmul", compute);
      return [](A a, A, A) { return a; };
    } else if constexpr (kIntegral<T>) {
      using U = std::make_unsigned_t<T>;
      const A v = static_cast<A>(static_cast<U>(checked_scalar_to<T>(value, "addcmul", "value")));
      return [v](A a, A b, A c) { return addcmul_value<A>(a, b, c, v); };
    } else {
      const A v = checked_scalar_to<A>(value, "addcmul", "value");
      return [v](A a, A b, A c) { return addcmul_value<A>(a, b, c, v); };
    }
  });
}

void addcdiv_out_cpu(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                     const Scalar& value, const Tensor& out) {
  const ScalarType compute = ResultType().add(self).add(tensor1).add(tensor2).get();
  pointwise_run<3>("addcdiv", compute, out, {&self, &tensor1, &tensor2}, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Acc<T>;
    if constexpr (!kFloating<T> && !kIsComplex<T>) {
      not_implemented("addcdiv", compute);  // the meta function refuses integer division first
      return [](A a, A, A) { return a; };
    } else {
      const A v = checked_scalar_to<A>(value, "addcdiv", "value");
      return [v](A a, A b, A c) { return addcdiv_value<A>(a, b, c, v); };
    }
  });
}

// ---- isclose ------------------------------------------------------------------------------

Tensor isclose_cpu(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK_TYPE(self.dtype() == other.dtype(), "isclose(): expected 'other' to have self's dtype ",
                   self.dtype(), ", but got ", other.dtype());
  EMBER_CHECK_VALUE(rtol >= 0, "isclose(): expected 'rtol' to be >= 0, but got ", rtol);
  EMBER_CHECK_VALUE(atol >= 0, "isclose(): expected 'atol' to be >= 0, but got ", atol);
  Tensor out = make_output(elementwise_meta({&self, &other}, ScalarType::Bool, "isclose"), self.device());
  dispatch_all_types(self.dtype(), "isclose", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = Acc<T>;
    // PyTorch's formula: equal, or (NaN and NaN with equal_nan), or a finite
    // |self - other| <= atol + rtol * |other|, computed in the default float dtype for bool
    // and integers (their difference in their own type), in self's type otherwise.
    auto f = [=](A a, A b) -> bool {
      if constexpr (std::is_same_v<T, bool>) {
        if (a == b) return true;
        const float diff = std::abs(float(a) - float(b));
        return diff <= float(atol) + float(rtol) * std::abs(float(b));
      } else if constexpr (kIntegral<T>) {
        if (a == b) return true;
        using U = std::make_unsigned_t<T>;
        const T d = static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
        const float diff = std::abs(static_cast<float>(d));
        return diff <= float(atol) + std::abs(float(rtol) * float(b));
      } else {
        if (a == b) return true;
        if constexpr (!kIsComplex<A>) {
          if (equal_nan && std::isnan(a) && std::isnan(b)) return true;
        } else {
          const bool na = std::isnan(a.real()) || std::isnan(a.imag());
          const bool nb = std::isnan(b.real()) || std::isnan(b.imag());
          if (equal_nan && na && nb) return true;
        }
        using R = RealType<A>;
        const R diff = std::abs(a - b);
        if (!std::isfinite(diff)) return false;
        return diff <= R(atol) + std::abs(R(rtol) * b);
      }
    };
    TensorIterator it({&out}, {&self, &other}, "isclose");
    it.for_each([&](char** data, const int64_t* s, int64_t n, int64_t rows) {
      for (int64_t r = 0; r < rows; ++r) {
        char* o = data[0] + r * s[3];
        const char* x = data[1] + r * s[4];
        const char* y = data[2] + r * s[5];
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<bool*>(o + i * s[0]) =
              f(A(*reinterpret_cast<const T*>(x + i * s[1])), A(*reinterpret_cast<const T*>(y + i * s[2])));
        }
      }
    });
  });
  return out;
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
