// Activations on the CPU: one functor per op over unary_run (cpu/unary_kernel.h). The
// real ones take the floating dtypes (16-bit floats compute in float32 and round once);
// silu also takes complex. Scalar parameters are converted to the computation type with
// PyTorch's overflow check before anything is written.
#include <cmath>
#include <complex>
#include <limits>
#include <string_view>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/cpu/ActivationFunctors.h"
#include "aten/native/cpu/Vectorized.h"
#include "aten/native/cpu/unary_kernel.h"
#include "c10/util/Exception.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// PyTorch's unary activation kernels write only into an out= of self's dtype.
void check_out_dtype(const char* op, const Tensor& self, const Tensor& out) {
  EMBER_CHECK(out.dtype() == self.dtype(), op, "(): expected 'out' to have self's dtype ",
              self.dtype(), ", but got ", out.dtype());
}

struct leaky_relu_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  double slope;
  template <class A>
  A operator()(A x) const {
    // Both sides first, then a select: branch-free, so the loop vectorises (the branchy
    // form ran one element at a time and mispredicted on mixed signs: 30x torch's time).
    const A scaled = x * A(slope);
    return x > A(0) ? x : scaled;
  }
};

struct elu_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  double alpha, scale, input_scale;
  template <class A>
  A operator()(A x) const {
    return x <= A(0) ? std::expm1(x * A(input_scale)) * A(alpha * scale) : x * A(scale);
  }
};

struct mish_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  template <class A>
  A operator()(A x) const { return x * std::tanh(std::log1p(std::exp(x))); }
};

struct softplus_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  double beta, threshold;
  template <class A>
  A operator()(A x) const {
    const A bx = x * A(beta);
    return bx > A(threshold) ? x : std::log1p(std::exp(bx)) / A(beta);
  }
};

// min(max(x + 3, 0), 6), NaN propagating (comparisons with NaN are false).
template <class A>
A relu6_shifted(A x) {
  const A y = x + A(3);
  return y < A(0) ? A(0) : (y > A(6) ? A(6) : y);
}

struct hardswish_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  template <class A>
  A operator()(A x) const { return x * relu6_shifted(x) / A(6); }
};

struct hardsigmoid_fn {
  template <class T>
  static constexpr bool kSupports = kFloating<T>;
  template <class A>
  A operator()(A x) const { return relu6_shifted(x) / A(6); }
};

// A Scalar parameter as a double, checked to fit the computation type of `dtype` (float
// for the 16-bit floats, as PyTorch's opmath type).
double param(const Scalar& s, ScalarType dtype, const char* op, const char* arg) {
  if (dtype == ScalarType::Double) return checked_scalar_to<double>(s, op, arg);
  if (is_floating_point(dtype)) return checked_scalar_to<float>(s, op, arg);
  return s.to_double();  // unsupported dtypes fail in unary_run
}

}  // namespace

void leaky_relu_out_cpu(const Tensor& self, const Scalar& negative_slope, const Tensor& out) {
  check_out_dtype("leaky_relu", self, out);
  const double slope = param(negative_slope, self.dtype(), "leaky_relu", "negative_slope");
  unary_run("leaky_relu", self.dtype(), self, out, leaky_relu_fn{slope});
}

void elu_out_cpu(const Tensor& self, const Scalar& alpha, const Scalar& scale,
                 const Scalar& input_scale, const Tensor& out) {
  check_out_dtype("elu", self, out);
  const ScalarType t = self.dtype();
  unary_run("elu", t, self, out,
            elu_fn{param(alpha, t, "elu", "alpha"), param(scale, t, "elu", "scale"),
                   param(input_scale, t, "elu", "input_scale")});
}

void gelu_out_cpu(const Tensor& self, std::string_view approximate, const Tensor& out) {
  check_out_dtype("gelu", self, out);
  if (approximate == "tanh") unary_run<gelu_tanh_fn>("gelu", self.dtype(), self, out);
  else unary_run<gelu_fn>("gelu", self.dtype(), self, out);
}

void silu_out_cpu(const Tensor& self, const Tensor& out) {
  check_out_dtype("silu", self, out);
  unary_run<silu_fn>("silu", self.dtype(), self, out);
}

void mish_out_cpu(const Tensor& self, const Tensor& out) {
  check_out_dtype("mish", self, out);
  unary_run<mish_fn>("mish", self.dtype(), self, out);
}

void softplus_out_cpu(const Tensor& self, const Scalar& beta, const Scalar& threshold, const Tensor& out) {
  check_out_dtype("softplus", self, out);
  const ScalarType t = self.dtype();
  unary_run("softplus", t, self, out,
            softplus_fn{param(beta, t, "softplus", "beta"), param(threshold, t, "softplus", "threshold")});
}

void hardswish_out_cpu(const Tensor& self, const Tensor& out) {
  check_out_dtype("hardswish", self, out);
  unary_run<hardswish_fn>("hardswish", self.dtype(), self, out);
}

void hardsigmoid_out_cpu(const Tensor& self, const Tensor& out) {
  check_out_dtype("hardsigmoid", self, out);
  unary_run<hardsigmoid_fn>("hardsigmoid", self.dtype(), self, out);
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
