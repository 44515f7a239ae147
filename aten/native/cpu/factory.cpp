// The range factories' CPU loops: arange, linspace, logspace (out= forms) and eye, computed
// with PyTorch's formulas and accumulation types so values match it (see each kernel).
// CPU copies: baseline only (per-element formulas of a few flops: wider vectors gain nothing).
#include <algorithm>
#include <cmath>
#include <complex>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/RangeFactories.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/fill_.h"
#include "ember/generated/ops/zero_.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// Writes f(i) for i in [0, numel) into out in row-major order (through a contiguous
// buffer when out is not contiguous).
template <class T, class F>
void write_linear(const Tensor& out, F&& f) {
  const int64_t n = out.numel();
  if (out.is_contiguous()) {
    T* p = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) p[i] = f(i);
    return;
  }
  Tensor buffer = ember::empty(out.sizes(), TensorOptions().dtype(out.scalar_type()));
  T* p = static_cast<T*>(buffer.data_ptr());
  for (int64_t i = 0; i < n; ++i) p[i] = f(i);
  out.copy_(buffer);
}

// Note [Range factories round like PyTorch]: arange and linspace compute `a + b * k` with
// one rounding (a fused multiply-add), as PyTorch's vectorised kernels do in the builds it
// ships (AVX2 and AVX-512, compiled with FMA contraction); logspace rounds the product first
// (PyTorch's plain loop is compiled without FMA). Both are spelt out with std::fma so every
// build of Ember gives the same values whatever the compiler's contraction flags. 16-bit
// floats round after each operation (c10's Half arithmetic), so they take no fusion.
template <class T, class R>
T mul_add(T a, T b, R k) {
  if constexpr (kIsComplex<T>) {
    return T(std::fma(b.real(), k, a.real()), std::fma(b.imag(), k, a.imag()));
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::fma(b, static_cast<T>(k), a);
  } else {
    return a + b * static_cast<T>(k);
  }
}

// a + b * k with the product rounded before the addition (see the Note above): std::fma(b, k,
// 0) is the rounded product, which the compiler cannot fuse with the addition.
inline double add_rounded_product(double a, double b, double k) { return a + std::fma(b, k, 0.0); }

}  // namespace

// PyTorch's arange kernel: value i is start + step * i computed in the accumulation type
// (int64 for integers, float for 16-bit floats, double for float and double).
Tensor& arange_out_cpu(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  const int64_t size = arange_size(start, end, step, out.scalar_type());
  dispatch_all_types(out.scalar_type(), "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool> && !kIsComplex<T>) {
      using Acc = std::conditional_t<std::is_integral_v<T>, int64_t,
                                     std::conditional_t<Float16<T>, float, double>>;
      const Acc xstart = scalar_to<Acc>(start);  // arange_size checked that they fit
      const Acc xstep = scalar_to<Acc>(step);
      resize_out_numel(out, size);
      write_linear<T>(out, [&](int64_t i) {  // Note [Range factories round like PyTorch]
        return static_cast<T>(mul_add(xstart, xstep, static_cast<Acc>(i)));
      });
    }
  });
  return out;
}

// PyTorch's symmetric linspace: the first half counts up from start, the second half down
// from end, so both ends are exact. Integers step in double; floats in their own type.
Tensor& linspace_out_cpu(const Scalar& start, const Scalar& end, int64_t steps, Tensor& out) {
  check_space_args("linspace", start, end, steps, out.scalar_type());
  dispatch_all_types(out.scalar_type(), "linspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      const T tstart = scalar_to<T>(start);  // check_space_args checked that they fit
      const T tend = scalar_to<T>(end);
      resize_out_numel(out, steps);
      if (steps == 0) return;
      if (steps == 1) {
        write_linear<T>(out, [&](int64_t) { return tstart; });
        return;
      }
      using Step = std::conditional_t<std::is_integral_v<T>, double, T>;
      using Real = RealType<Step>;
      const Step step = (static_cast<Step>(tend) - static_cast<Step>(tstart)) /
                        static_cast<Real>(steps - 1);
      const int64_t halfway = steps / 2;
      // Note [Range factories round like PyTorch]
      const Step first = static_cast<Step>(tstart), last = static_cast<Step>(tend);
      write_linear<T>(out, [&](int64_t i) -> T {
        if (i < halfway) return static_cast<T>(mul_add(first, step, static_cast<Real>(i)));
        return static_cast<T>(mul_add(last, -step, static_cast<Real>(steps - i - 1)));
      });
    }
  });
  return out;
}

// c10::complex division (numpy's algorithm), which rounds differently from std::complex's.
template <class R>
std::complex<R> c10_divide(std::complex<R> x, std::complex<R> y) {
  const R a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  if (std::abs(c) >= std::abs(d)) {
    if (c == R(0) && d == R(0)) return {a / std::abs(c), b / std::abs(d)};
    const R rat = d / c;
    const R scl = R(1) / (c + d * rat);
    return {(a + b * rat) * scl, (b - a * rat) * scl};
  }
  const R rat = c / d;
  const R scl = R(1) / (d + c * rat);
  return {(a * rat + b) * scl, (b * rat - a) * scl};
}

// PyTorch's logspace: base ** (symmetric linspace of the exponents). Real outputs (integers
// and 16-bit floats included) step and raise in double; complex outputs compute in their
// own precision (base, step and pow all complex<float> for complex64).
Tensor& logspace_out_cpu(const Scalar& start, const Scalar& end, int64_t steps, double base,
                         Tensor& out) {
  check_space_args("logspace", start, end, steps, out.scalar_type());
  dispatch_all_types(out.scalar_type(), "logspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      const T tstart = scalar_to<T>(start);  // check_space_args checked that they fit
      const T tend = scalar_to<T>(end);
      if (steps == 1) {
        // PyTorch fills with pow(base, start) computed from the Scalar itself.
        const Scalar v = start.is_complex()
                             ? Scalar(std::pow(std::complex<double>(base), start.to_complex()))
                             : Scalar(std::pow(base, start.to_double()));
        checked_scalar_to<T>(v, "logspace", "start");
        resize_out_numel(out, steps);
        ember::fill_(out, v);
        return;
      }
      resize_out_numel(out, steps);
      if (steps == 0) return;
      const int64_t halfway = steps / 2;
      if constexpr (kIsComplex<T>) {
        using R = typename T::value_type;
        const T tbase(static_cast<R>(base), R(0));
        const T step = c10_divide(tend - tstart, T(static_cast<R>(steps - 1), R(0)));
        write_linear<T>(out, [&](int64_t i) -> T {
          const T e = i < halfway ? tstart + step * T(static_cast<R>(i), R(0))
                                  : tend - step * T(static_cast<R>(steps - i - 1), R(0));
          return std::pow(tbase, e);
        });
      } else {
        const double dstart = static_cast<double>(tstart), dend = static_cast<double>(tend);
        const double step = static_cast<double>(tend - tstart) / static_cast<double>(steps - 1);
        write_linear<T>(out, [&](int64_t i) -> T {  // Note [Range factories round like PyTorch]
          const double e =
              i < halfway ? add_rounded_product(dstart, step, static_cast<double>(i))
                          : add_rounded_product(dend, -step, static_cast<double>(steps - i - 1));
          return convert<T>(std::pow(base, e));
        });
      }
    }
  });
  return out;
}

Tensor& eye_out_cpu(int64_t n, int64_t m, Tensor& out) {
  check_eye_args(n, m);
  resize_out(out, {n, m});
  ember::zero_(out);
  dispatch_all_types(out.scalar_type(), "eye", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(out.data_ptr());
    const int64_t diagonal_stride = out.strides()[0] + out.strides()[1];
    const T one = convert<T>(int64_t{1});
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * diagonal_stride] = one;
  });
  return out;
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
