// The scan family's loops on the CPU: cumsum, cumprod, cummax, cummin and logcumsumexp.
//
// Note [Scan walk]: the contiguous input is viewed as [outer, n, inner] (n the scanned
// dimension). With inner == 1 each row of n elements is one running chain; chains wait on
// each add, so sums and products run kChains independent chains side by side: kChains
// rows at a time, or, for a long row left over, kChains pieces of it after a first pass
// that finds each piece's starting value. Streams a multiple of 4 KiB apart would collide
// in the cache, so such strides are avoided. With inner > 1 a block of inner columns is carried along n,
// one accumulator per column, so the loop over the block is a plain vector loop. Sums and
// products accumulate in the accumulation type (double for float: the same values as
// PyTorch's CPU kernels); every element is read before its output is written, so out may
// be in. The wide copies (Note [CPU capabilities]) keep only the float and double loops
// and send the other dtypes to the baseline copy.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/DimUtils.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/scan.h"
#include "c10/util/Exception.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// The type sums and products accumulate in (PyTorch's CPU acc_type).
template <class T> struct AccOf { using type = std::conditional_t<std::is_integral_v<T>, int64_t, T>; };
template <> struct AccOf<float> { using type = double; };
template <> struct AccOf<Half> { using type = float; };
template <> struct AccOf<BFloat16> { using type = float; };
template <> struct AccOf<std::complex<float>> { using type = std::complex<double>; };
template <class T> using Acc = typename AccOf<T>::type;

// The type cummax and cummin compare in: float for the 16-bit floats.
template <class T> using Cmp = std::conditional_t<Float16<T>, float, T>;

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

constexpr int64_t kChains = 8;
// Rows at least this long take the interleaved chains (shorter ones gain nothing).
constexpr int64_t kChainedRow = 64 * kChains;
// Columns carried together when inner > 1.
constexpr int64_t kBlock = 256;

template <ScanOp Op, class A>
A combine(A acc, A x) {
  if constexpr (Op == ScanOp::Sum) return acc + x;
  else return acc * x;
}

template <ScanOp Op, class A>
constexpr A identity() {
  return Op == ScanOp::Sum ? A(0) : A(1);
}

// One row of n elements, a single chain.
template <ScanOp Op, class T>
void sum_row(const T* x, T* y, int64_t n) {
  using A = Acc<T>;
  A acc = identity<Op, A>();
  for (int64_t j = 0; j < n; ++j) {
    acc = combine<Op>(acc, convert<A>(x[j]));
    y[j] = convert<T>(acc);
  }
}

// Whether streams `stride` elements of T apart would share cache sets and 4 KiB-aliased
// addresses (a stride of a multiple of 4 KiB, or close to one), which stalls interleaved
// loads and stores.
template <class T>
bool aliased_stride(int64_t stride) {
  const int64_t bytes = (stride * static_cast<int64_t>(sizeof(T))) % 4096;
  return bytes < 64 || bytes > 4096 - 64;
}

// One long row as kChains interleaved pieces (Note [Scan walk]): the first pass finds the
// total of each piece but the last, the second runs the pieces' chains side by side from
// their starting values; the tail past kChains * piece elements continues the last chain.
// The piece is shortened off a 4 KiB-aliased length.
template <ScanOp Op, class T>
void sum_row_chained(const T* x, T* y, int64_t n) {
  using A = Acc<T>;
  int64_t piece = n / kChains;
  while (piece > 64 && aliased_stride<T>(piece)) piece -= 16;
  A start[kChains];
  for (int64_t c = 0; c < kChains; ++c) start[c] = identity<Op, A>();
  for (int64_t j = 0; j < piece; ++j) {
    for (int64_t c = 0; c + 1 < kChains; ++c) start[c + 1] = combine<Op>(start[c + 1], convert<A>(x[c * piece + j]));
  }
  for (int64_t c = 1; c < kChains; ++c) start[c] = combine<Op>(start[c - 1], start[c]);
  for (int64_t j = 0; j < piece; ++j) {
    for (int64_t c = 0; c < kChains; ++c) {
      start[c] = combine<Op>(start[c], convert<A>(x[c * piece + j]));
      y[c * piece + j] = convert<T>(start[c]);
    }
  }
  A acc = start[kChains - 1];
  for (int64_t j = kChains * piece; j < n; ++j) {
    acc = combine<Op>(acc, convert<A>(x[j]));
    y[j] = convert<T>(acc);
  }
}

// kChains whole rows of n elements side by side, one chain each (the same order of
// operations as one row at a time).
template <ScanOp Op, class T>
void sum_rows_interleaved(const T* x, T* y, int64_t n) {
  using A = Acc<T>;
  A acc[kChains];
  for (int64_t r = 0; r < kChains; ++r) acc[r] = identity<Op, A>();
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t r = 0; r < kChains; ++r) {
      acc[r] = combine<Op>(acc[r], convert<A>(x[r * n + j]));
      y[r * n + j] = convert<T>(acc[r]);
    }
  }
}

// Sum or Prod over [outer, n, inner].
template <ScanOp Op, class T>
void sum_scan(const T* in, T* out, const DimWalk& w) {
  using A = Acc<T>;
  if (w.inner == 1) {
    parallel_for(0, w.outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(w.n, 1)), [&](int64_t b, int64_t e) {
      int64_t r = b;
      if (!aliased_stride<T>(w.n)) {
        for (; r + kChains <= e; r += kChains) sum_rows_interleaved<Op>(in + r * w.n, out + r * w.n, w.n);
      }
      for (; r < e; ++r) {
        if (w.n >= kChainedRow) sum_row_chained<Op>(in + r * w.n, out + r * w.n, w.n);
        else sum_row<Op>(in + r * w.n, out + r * w.n, w.n);
      }
    });
    return;
  }
  const int64_t blocks = (w.inner + kBlock - 1) / kBlock;
  parallel_for(0, w.outer * blocks, std::max<int64_t>(1, 32768 / std::max<int64_t>(w.n * kBlock, 1)),
               [&](int64_t b, int64_t e) {
    A acc[kBlock];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / blocks, i0 = (t % blocks) * kBlock;
      const int64_t width = std::min(kBlock, w.inner - i0);
      const T* x = in + o * w.n * w.inner + i0;
      T* y = out + o * w.n * w.inner + i0;
      for (int64_t i = 0; i < width; ++i) acc[i] = identity<Op, A>();
      for (int64_t d = 0; d < w.n; ++d) {
        const T* xr = x + d * w.inner;
        T* yr = y + d * w.inner;
        for (int64_t i = 0; i < width; ++i) {
          acc[i] = combine<Op>(acc[i], convert<A>(xr[i]));
          yr[i] = convert<T>(acc[i]);
        }
      }
    }
  });
}

// Whether x replaces the running extreme cur (of cummax for Max, cummin for Min): a NaN
// always does and nothing replaces a NaN; among equal values the later one wins.
template <ScanOp Op, class C>
bool takes_over(C x, C cur) {
  if (is_nan(x)) return true;
  if (is_nan(cur)) return false;
  if constexpr (Op == ScanOp::Max) return x >= cur;
  else return x <= cur;
}

template <ScanOp Op, class T>
void minmax_scan(const T* in, T* out, int64_t* idx, const DimWalk& w) {
  using C = Cmp<T>;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(w.n, 1));
  parallel_for(0, w.outer * w.inner, grain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / w.inner, i = t % w.inner;
      const int64_t base = o * w.n * w.inner + i;
      C cur = static_cast<C>(in[base]);
      int64_t at = 0;
      for (int64_t d = 0; d < w.n; ++d) {
        const int64_t k = base + d * w.inner;
        const C x = static_cast<C>(in[k]);
        if (takes_over<Op>(x, cur)) {
          cur = x;
          at = d;
        }
        out[k] = in[base + at * w.inner];
        idx[k] = at;
      }
    }
  });
}

// log(exp(a) + exp(b)) without overflow; NaN if either is NaN; a when both are the same
// infinity.
template <class R>
R log_add_exp(R a, R b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<R>::quiet_NaN();
  const R hi = std::max(a, b), lo = std::min(a, b);
  if (lo == hi && std::isinf(lo)) return lo;
  return hi + std::log1p(std::exp(lo - hi));
}

// log(1 + z) for complex z, accurate for small z.
template <class R>
std::complex<R> log1p_complex(std::complex<R> z) {
  const R x = z.real(), y = z.imag();
  return {R(0.5) * std::log1p(x * (R(2) + x) + y * y), std::atan2(y, R(1) + x)};
}

// The complex form, ordering by real parts (PyTorch's rule): the element x wins ties for
// the larger; -inf real parts on both sides give the smaller, +inf ones the direct sum.
template <class R>
std::complex<R> log_add_exp(std::complex<R> x, std::complex<R> acc) {
  const R nan = std::numeric_limits<R>::quiet_NaN();
  if (std::isnan(x.real()) || std::isnan(x.imag()) || std::isnan(acc.real()) || std::isnan(acc.imag())) {
    return {nan, nan};
  }
  const bool x_high = x.real() >= acc.real();
  const std::complex<R> hi = x_high ? x : acc;
  const std::complex<R> lo = x.real() < acc.real() ? x : acc;
  if (!std::isfinite(lo.real()) && lo.real() == hi.real()) {
    if (lo.real() < 0) return lo;
    return std::log(std::exp(lo) + std::exp(hi));
  }
  return log1p_complex(std::exp(lo - hi)) + hi;
}

template <class T>
void logcumsumexp_scan(const T* in, T* out, const DimWalk& w) {
  using A = Acc<T>;
  const A init = A(-std::numeric_limits<RealType<A>>::infinity());
  const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(w.n, 1));
  parallel_for(0, w.outer * w.inner, grain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / w.inner, i = t % w.inner;
      const int64_t base = o * w.n * w.inner + i;
      A acc = init;
      for (int64_t d = 0; d < w.n; ++d) {
        const int64_t k = base + d * w.inner;
        acc = log_add_exp(convert<A>(in[k]), acc);
        out[k] = convert<T>(acc);
      }
    }
  });
}

template <class T>
void scan_typed(ScanOp op, const Tensor& in, const Tensor& out, const Tensor& indices, const DimWalk& w) {
  const T* x = static_cast<const T*>(in.data_ptr());
  T* y = static_cast<T*>(out.data_ptr());
  switch (op) {
    case ScanOp::Sum: return sum_scan<ScanOp::Sum>(x, y, w);
    case ScanOp::Prod: return sum_scan<ScanOp::Prod>(x, y, w);
    case ScanOp::Max:
    case ScanOp::Min:
      if constexpr (!kIsComplex<T>) {
        int64_t* idx = static_cast<int64_t*>(indices.data_ptr());
        if (op == ScanOp::Max) return minmax_scan<ScanOp::Max>(x, y, idx, w);
        return minmax_scan<ScanOp::Min>(x, y, idx, w);
      }
      break;
    case ScanOp::LogSumExp:
      if constexpr (std::is_floating_point_v<RealType<T>> || Float16<T>) return logcumsumexp_scan(x, y, w);
      break;
  }
  EMBER_INTERNAL_ASSERT(false, "scan_kernel_cpu: op ", static_cast<int>(op), " has no loop for ",
                        in.scalar_type());
}

}  // namespace

void scan_kernel_cpu(ScanOp op, const Tensor& in, const Tensor& out, const Tensor& indices, int64_t dim) {
  const ScalarType dt = in.scalar_type();
  if constexpr (kWideCpuCopy) {
    if (dt != ScalarType::Float && dt != ScalarType::Double) {
      return ::ember::native::scan_kernel_cpu(op, in, out, indices, dim);
    }
  }
  const DimWalk w = dim_walk(in.sizes(), in.dim() == 0 ? 0 : dim);
  dispatch_all_types(dt, "scan", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kWideCpuCopy && !std::is_same_v<T, float> && !std::is_same_v<T, double>) {
      EMBER_INTERNAL_ASSERT(false, "scan_kernel_cpu: unreachable dtype");
    } else {
      scan_typed<T>(op, in, out, indices, w);
    }
  });
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
