// The reduction loops on the CPU (Note [Reduction plan] in aten/native/Reduce.h): one op
// struct per ReduceKind (identity, step, combine, write), two walks over a plan, and the
// reductions written as functors over those op structs (Note [Reduction functors]). Plain
// loops over fixed lane arrays, which GCC vectorises at -O3; no global state.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Dispatch.h"
#include "aten/native/Parallel.h"
#include "aten/native/Reduce.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/frobenius_norm_native.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

template <class T>
constexpr bool kHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// What a sum of T accumulates in: float for the 16-bit floats, uint64 for integers and bool
// (wrapping, as PyTorch's int64 sums do), T otherwise.
template <class T>
using SumAcc = std::conditional_t<
    kHalfLike<T>, float,
    std::conditional_t<std::is_integral_v<T>, uint64_t, T>>;
// What a comparison of T compares in: float for the 16-bit floats, T otherwise.
template <class T>
using CmpAcc = std::conditional_t<kHalfLike<T>, float, T>;
// The real type a norm of T accumulates in.
template <class T>
using RealAcc = RealType<SumAcc<T>>;

template <class T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else if constexpr (kIsComplex<T>) return std::isnan(x.real()) || std::isnan(x.imag());
  else return false;
}

template <class T>
bool nonzero(T x) {
  if constexpr (kHalfLike<T>) return static_cast<float>(x) != 0.0f;
  else if constexpr (kIsComplex<T>) return x != T(0);
  else return x != T(0);
}

// An accumulated sum as the output type T (integers wrap, bool is "not zero").
template <class T, class A>
T from_acc(A a) {
  if constexpr (std::is_same_v<T, bool>) return a != A(0);
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(a);
  else return convert<T>(a);
}

struct NoCenter {};

// Members every op shares; an op overrides what differs.
template <class T, class A>
struct OpBase {
  using In = T;
  using acc_t = A;
  using center_t = NoCenter;
  static constexpr bool kAdditive = false;  // step adds a term: cascade summation applies
  center_t center(int64_t) const { return {}; }
};

// ---- the ops ---------------------------------------------------------------------------------

template <class T, bool kNan>
struct SumOp : OpBase<T, SumAcc<T>> {
  using A = SumAcc<T>;
  static constexpr bool kAdditive = true;
  T* out;
  A scale;
  A identity() const { return A(0); }
  A step(A a, T x, int64_t, NoCenter) const {
    if constexpr (std::is_integral_v<T>) return a + static_cast<A>(static_cast<int64_t>(x));
    else if constexpr (kNan) return is_nan(x) ? a : a + A(x);
    else return a + A(x);
  }
  A combine(A a, A b) const { return a + b; }
  void write(int64_t off, A a, NoCenter) const {
    if constexpr (!std::is_integral_v<T>) a = a * scale;
    out[off] = from_acc<T>(a);
  }
};

template <class T>
struct ProdOp : OpBase<T, SumAcc<T>> {
  using A = SumAcc<T>;
  T* out;
  A identity() const { return A(1); }
  A step(A a, T x, int64_t, NoCenter) const {
    if constexpr (std::is_integral_v<T>) return a * static_cast<A>(static_cast<int64_t>(x));
    else return a * A(x);
  }
  A combine(A a, A b) const { return a * b; }
  void write(int64_t off, A a, NoCenter) const { out[off] = from_acc<T>(a); }
};

// max (kMax) or min with NaN propagating.
template <class A, bool kMax>
A better_of(A a, A b) {
  if constexpr (kMax) return (b > a || is_nan(b)) ? b : a;
  else return (b < a || is_nan(b)) ? b : a;
}

template <class A, bool kMax>
constexpr A worst() {
  if constexpr (std::is_same_v<A, bool>) return !kMax;
  else if constexpr (std::is_floating_point_v<A>)
    return kMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
  else return kMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
}

template <class T, bool kMax>
struct MaxOp : OpBase<T, CmpAcc<T>> {
  using A = CmpAcc<T>;
  T* out;
  A identity() const { return worst<A, kMax>(); }
  A step(A a, T x, int64_t, NoCenter) const { return better_of<A, kMax>(a, A(x)); }
  A combine(A a, A b) const { return better_of<A, kMax>(a, b); }
  void write(int64_t off, A a, NoCenter) const { out[off] = convert<T>(a); }
};

// Writes through uint8_t for both output dtypes: a bool holds 0 or 1 in one byte, as a
// uint8 does, so one instantiation serves both.
template <class T, bool kAll>
struct AllOp : OpBase<T, bool> {
  uint8_t* out;
  bool identity() const { return kAll; }
  bool step(bool a, T x, int64_t, NoCenter) const {
    if constexpr (kAll) return a && nonzero(x);
    else return a || nonzero(x);
  }
  bool combine(bool a, bool b) const { return kAll ? (a && b) : (a || b); }
  void write(int64_t off, bool a, NoCenter) const { out[off] = static_cast<uint8_t>(a); }
};

// Counts of elements: nonzero ones (into int64, scaled) or non-NaN ones (into T).
template <class T, bool kNotNan>
struct CountOp : OpBase<T, int64_t> {
  static constexpr bool kAdditive = true;
  void* out;
  double scale;
  int64_t identity() const { return 0; }
  int64_t step(int64_t a, T x, int64_t, NoCenter) const {
    if constexpr (kNotNan) return a + !is_nan(x);
    else return a + nonzero(x);
  }
  int64_t combine(int64_t a, int64_t b) const { return a + b; }
  void write(int64_t off, int64_t a, NoCenter) const {
    if constexpr (kNotNan) static_cast<T*>(out)[off] = convert<T>(static_cast<double>(a));
    else static_cast<int64_t*>(out)[off] = a;
  }
};

// A value and the index it was found at (-1: none yet).
template <class A>
struct ValueIndex {
  A value;
  int64_t index;
};

// The better of two candidates: NaN first, then the larger (smaller), then the lower index.
template <class A, bool kMax>
ValueIndex<A> better_indexed(ValueIndex<A> a, ValueIndex<A> b) {
  if (a.index < 0) return b;
  if (b.index < 0) return a;
  const bool na = is_nan(a.value), nb = is_nan(b.value);
  if (na || nb) return (na && (!nb || a.index < b.index)) ? a : b;
  if (kMax ? b.value > a.value : b.value < a.value) return b;
  if (b.value == a.value && b.index < a.index) return b;
  return a;
}

// argmax/argmin (values null) and max/min with indices.
template <class T, bool kMax>
struct ArgOp : OpBase<T, ValueIndex<CmpAcc<T>>> {
  using A = CmpAcc<T>;
  using V = ValueIndex<A>;
  T* values;
  int64_t* indices;
  V identity() const { return {worst<A, kMax>(), -1}; }
  V step(V a, T x, int64_t i, NoCenter) const {
    const A v = A(x);
    // Indices grow along a walk, so ties keep the earlier element.
    const bool take = a.index < 0 || (!is_nan(a.value) && (kMax ? v > a.value : v < a.value)) ||
                      (is_nan(v) && !is_nan(a.value));
    return take ? V{v, i} : a;
  }
  V combine(V a, V b) const { return better_indexed<A, kMax>(a, b); }
  void write(int64_t off, V a, NoCenter) const {
    if (values) values[off] = convert<T>(a.value);
    indices[off] = a.index;
  }
};

template <class A>
struct MinMax {
  A min;
  A max;
};

template <class T>
struct MinMaxOp : OpBase<T, MinMax<CmpAcc<T>>> {
  using A = CmpAcc<T>;
  using M = MinMax<A>;
  T* mins;
  T* maxs;
  M identity() const { return {worst<A, false>(), worst<A, true>()}; }
  M step(M a, T x, int64_t, NoCenter) const {
    return {better_of<A, false>(a.min, A(x)), better_of<A, true>(a.max, A(x))};
  }
  M combine(M a, M b) const {
    return {better_of<A, false>(a.min, b.min), better_of<A, true>(a.max, b.max)};
  }
  void write(int64_t off, M a, NoCenter) const {
    mins[off] = convert<T>(a.min);
    maxs[off] = convert<T>(a.max);
  }
};

template <class T>
RealAcc<T> magnitude(T x) {
  if constexpr (kIsComplex<T>) return std::abs(SumAcc<T>(x));
  else return std::abs(RealAcc<T>(x));
}

enum class Norm { Zero, One, Two, General };

// sum |x|^p, then the p-th root (p = 0: the count of nonzeros).
template <class T, Norm kNorm>
struct NormOp : OpBase<T, RealAcc<T>> {
  using R = RealAcc<T>;
  using Out = RealType<T>;
  static constexpr bool kAdditive = true;
  Out* out;
  R p;
  R identity() const { return R(0); }
  R step(R a, T x, int64_t, NoCenter) const {
    if constexpr (kNorm == Norm::Zero) {
      return a + R(nonzero(x));
    } else if constexpr (kNorm == Norm::One) {
      return a + magnitude(x);
    } else if constexpr (kNorm == Norm::Two) {
      if constexpr (kIsComplex<T>) return a + std::norm(SumAcc<T>(x));
      else return a + R(x) * R(x);
    } else {
      return a + std::pow(magnitude(x), p);
    }
  }
  R combine(R a, R b) const { return a + b; }
  void write(int64_t off, R a, NoCenter) const {
    if constexpr (kNorm == Norm::Two) a = std::sqrt(a);
    else if constexpr (kNorm == Norm::General) a = std::pow(a, R(1) / p);
    out[off] = convert<Out>(a);
  }
};

// max |x| (kMax) or min |x|.
template <class T, bool kMax>
struct NormInfOp : OpBase<T, RealAcc<T>> {
  using R = RealAcc<T>;
  using Out = RealType<T>;
  Out* out;
  R identity() const { return kMax ? R(0) : std::numeric_limits<R>::infinity(); }
  R step(R a, T x, int64_t, NoCenter) const { return better_of<R, kMax>(a, magnitude(x)); }
  R combine(R a, R b) const { return better_of<R, kMax>(a, b); }
  void write(int64_t off, R a, NoCenter) const { out[off] = convert<Out>(a); }
};

// scale * sum |x - mean|^2 (var), its square root (std).
template <class T>
struct SquaredDeviationOp : OpBase<T, RealAcc<T>> {
  using R = RealAcc<T>;
  using C = SumAcc<T>;
  using Out = RealType<T>;
  using center_t = C;
  static constexpr bool kAdditive = true;
  Out* out;
  const C* centers;
  R scale;
  bool root;
  C center(int64_t off) const { return centers[off]; }
  R identity() const { return R(0); }
  R step(R a, T x, int64_t, C c) const {
    const C d = C(x) - c;
    if constexpr (kIsComplex<T>) return a + std::norm(d);
    else return a + d * d;
  }
  R combine(R a, R b) const { return a + b; }
  void write(int64_t off, R a, C) const {
    a = a * scale;
    out[off] = convert<Out>(root ? std::sqrt(a) : a);
  }
};

// log(sum exp(x - m)) + m with m the maximum (0 where it is infinite).
template <class T>
struct ExpShiftedOp : OpBase<T, SumAcc<T>> {
  using A = SumAcc<T>;
  using center_t = A;
  static constexpr bool kAdditive = true;
  T* out;
  const A* centers;
  A center(int64_t off) const {
    const A m = centers[off];
    return std::isinf(m) ? A(0) : m;
  }
  A identity() const { return A(0); }
  A step(A a, T x, int64_t, A m) const { return a + std::exp(A(x) - m); }
  A combine(A a, A b) const { return a + b; }
  void write(int64_t off, A a, A m) const {
    // 16-bit floats round the log before adding the maximum, as PyTorch's composite does
    // (log(sum) + m cancels: rounding only at the end would differ by a lot).
    if constexpr (kHalfLike<T>) out[off] = convert<T>(A(convert<T>(std::log(a))) + m);
    else out[off] = convert<T>(std::log(a) + m);
  }
};

// ---- walks --------------------------------------------------------------------------------

// Calls f(in_offset, out_offset, n, position) for the runs along dims[0] that cover the
// positions [begin, end) of the space dims[0..nd) (fastest first); position is the first
// element's flat index in that space. No dimensions: one element at offset 0.
template <class F>
void for_each_run(const ReduceDim* dims, int nd, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  if (nd == 0) {
    f(int64_t(0), int64_t(0), end - begin, begin);
    return;
  }
  int64_t coord[kMaxReduceDims];
  int64_t rest = begin;
  for (int d = 0; d < nd; ++d) {
    coord[d] = rest % dims[d].size;
    rest /= dims[d].size;
  }
  int64_t pos = begin;
  while (pos < end) {
    int64_t in = 0, out = 0;
    for (int d = 0; d < nd; ++d) {
      in += coord[d] * dims[d].in_stride;
      out += coord[d] * dims[d].out_stride;
    }
    const int64_t n = std::min(dims[0].size - coord[0], end - pos);
    f(in, out, n, pos);
    pos += n;
    coord[0] = 0;
    for (int d = 1; d < nd; ++d) {
      if (++coord[d] < dims[d].size) break;
      coord[d] = 0;
    }
  }
}

// Input and output offsets of flat position `pos` of the space dims[first..nd).
std::pair<int64_t, int64_t> offsets_of(const ReduceDim* dims, int first, int nd, int64_t pos) {
  int64_t in = 0, out = 0;
  for (int d = first; d < nd; ++d) {
    const int64_t c = pos % dims[d].size;
    pos /= dims[d].size;
    in += c * dims[d].in_stride;
    out += c * dims[d].out_stride;
  }
  return {in, out};
}

// Combines a[0..n) pairwise (a fixed tree: the same result for any thread count).
template <class Op>
typename Op::acc_t combine_pairwise(const Op& op, typename Op::acc_t* a, int64_t n) {
  if (n == 0) return op.identity();
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t i = 0; i + width < n; i += 2 * width) a[i] = op.combine(a[i], a[i + width]);
  }
  return a[0];
}

constexpr int64_t kSumLanes = 32;    // independent partial sums of a cascade block
constexpr int64_t kSumBlock = 512;   // elements per cascade block
constexpr int64_t kLanes = 16;       // partial results of the other ops
constexpr int64_t kChunk = 1 << 16;  // reduced elements per chunk of a split reduction
constexpr int64_t kGrain = 32768;    // elements below which a reduction stays on one thread

// Folds n elements p[0], p[s], ... into lanes[0..L) (element i into lane i % L).
template <int64_t L, class Op>
void fold_lanes(const Op& op, typename Op::acc_t* lanes, const typename Op::In* p, int64_t n,
                int64_t s, int64_t idx0, typename Op::center_t c) {
  // A local copy: `lanes` may alias `p` as far as the compiler knows, which would keep
  // the lanes in memory (a store per step) instead of in registers.
  typename Op::acc_t acc[L];
  for (int64_t j = 0; j < L; ++j) acc[j] = lanes[j];
  int64_t i = 0;
  if (s == 1) {
    for (; i + L <= n; i += L) {
      for (int64_t j = 0; j < L; ++j) acc[j] = op.step(acc[j], p[i + j], idx0 + i + j, c);
    }
  } else {
    for (; i + L <= n; i += L) {
      for (int64_t j = 0; j < L; ++j) acc[j] = op.step(acc[j], p[(i + j) * s], idx0 + i + j, c);
    }
  }
  for (int64_t j = 0; i < n; ++i, ++j) acc[j] = op.step(acc[j], p[i * s], idx0 + i, c);
  for (int64_t j = 0; j < L; ++j) lanes[j] = acc[j];
}

// The reduction of one run p[0], p[s], ..., p[(n-1)s] whose first element has index idx0.
// Sums cascade: each block of kSumBlock elements folds into kSumLanes lane sums, and the
// blocks' lane arrays are combined lane by lane through a binary counter (stack[k] holds
// the sum of 2^level[k] blocks), so rounding errors grow with log(n), not n. The lanes
// meet once, pairwise, at the end of the run: combining them per block cost as much as
// the block itself (sum of 64M ran 1.65x PyTorch's time).
template <class Op>
typename Op::acc_t reduce_run(const Op& op, const typename Op::In* p, int64_t n, int64_t s,
                              int64_t idx0, typename Op::center_t c) {
  using A = typename Op::acc_t;
  if constexpr (Op::kAdditive) {
    A stack[64][kSumLanes];
    int64_t level[64];
    int top = 0;
    for (int64_t b = 0; b < n; b += kSumBlock) {
      A* cur = stack[top];
      for (int64_t j = 0; j < kSumLanes; ++j) cur[j] = op.identity();
      fold_lanes<kSumLanes>(op, cur, p + b * s, std::min(kSumBlock, n - b), s, idx0 + b, c);
      int64_t lv = 0;
      while (top > 0 && level[top - 1] == lv) {
        A* prev = stack[--top];
        for (int64_t j = 0; j < kSumLanes; ++j) prev[j] = op.combine(prev[j], cur[j]);
        cur = prev;
        ++lv;
      }
      level[top++] = lv;
    }
    if (top == 0) return op.identity();
    A* total = stack[--top];
    while (top > 0) {
      A* prev = stack[--top];
      for (int64_t j = 0; j < kSumLanes; ++j) prev[j] = op.combine(prev[j], total[j]);
      total = prev;
    }
    return combine_pairwise(op, total, kSumLanes);
  } else {
    A lanes[kLanes];
    for (A& l : lanes) l = op.identity();
    fold_lanes<kLanes>(op, lanes, p, n, s, idx0, c);
    return combine_pairwise(op, lanes, kLanes);
  }
}

// The inner walk: each output reduces runs along the fastest (reduced) input dimension.
template <class Op>
void inner_walk(const Op& op, const typename Op::In* base, const ReducePlan& plan) {
  using A = typename Op::acc_t;
  const int64_t rs = plan.n_reduced > 0 ? plan.reduced[0].in_stride : 1;
  auto reduce_range = [&](int64_t in_off, int64_t begin, int64_t end, typename Op::center_t c) {
    A acc = op.identity();
    for_each_run(plan.reduced.data(), plan.n_reduced, begin, end,
                 [&](int64_t roff, int64_t, int64_t n, int64_t pos) {
                   acc = op.combine(acc, reduce_run(op, base + in_off + roff, n, rs, pos, c));
                 });
    return acc;
  };
  const int64_t nr = plan.numel_reduced;
  if (nr >= 2 * kChunk && plan.numel_out < 16) {
    // Few long reductions: fixed chunks on any threads, partials combined pairwise.
    const int64_t chunks = (nr + kChunk - 1) / kChunk;
    // Not std::vector: vector<bool> has no data().
    std::unique_ptr<A[]> partial(new A[static_cast<size_t>(plan.numel_out * chunks)]);
    parallel_for(0, plan.numel_out * chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const auto [in_off, out_off] = offsets_of(plan.kept.data(), 0, plan.n_kept, t / chunks);
        const int64_t c0 = (t % chunks) * kChunk;
        partial[t] = reduce_range(in_off, c0, std::min(nr, c0 + kChunk), op.center(out_off));
      }
    });
    for (int64_t o = 0; o < plan.numel_out; ++o) {
      const auto [in_off, out_off] = offsets_of(plan.kept.data(), 0, plan.n_kept, o);
      op.write(out_off, combine_pairwise(op, partial.get() + o * chunks, chunks), op.center(out_off));
    }
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(nr, 1));
  const ReduceDim k0 = plan.n_kept > 0 ? plan.kept[0] : ReduceDim{};
  parallel_for(0, plan.numel_out, grain, [&](int64_t b, int64_t e) {
    for_each_run(plan.kept.data(), plan.n_kept, b, e,
                 [&](int64_t in_off, int64_t out_off, int64_t n, int64_t) {
                   for (int64_t i = 0; i < n; ++i) {
                     const int64_t o = out_off + i * k0.out_stride;
                     const auto c = op.center(o);
                     op.write(o, reduce_range(in_off + i * k0.in_stride, 0, nr, c), c);
                   }
                 });
  });
}

constexpr int64_t kColumns = 256;  // outputs a vertical block accumulates at once
constexpr int64_t kRows = 256;     // rows a cascade level takes before it flushes upwards

// The vertical walk: blocks of neighbouring outputs (along the fastest kept dimension)
// accumulate rows of the input; sums flush through three levels (a cascade over rows).
template <class Op>
void vertical_walk(const Op& op, const typename Op::In* base, const ReducePlan& plan) {
  using A = typename Op::acc_t;
  using C = typename Op::center_t;
  const ReduceDim k0 = plan.kept[0];
  const int64_t blocks = (k0.size + kColumns - 1) / kColumns;
  const int64_t outer = plan.numel_out / k0.size;
  const int64_t rs = plan.n_reduced > 0 ? plan.reduced[0].in_stride : 0;
  const int64_t si = k0.in_stride;
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(plan.numel_reduced * kColumns, 1));
  parallel_for(0, outer * blocks, grain, [&](int64_t b, int64_t e) {
    A level0[kColumns], level1[kColumns], level2[kColumns];
    C centers[kColumns];
    for (int64_t t = b; t < e; ++t) {
      auto [in_off, out_off] = offsets_of(plan.kept.data(), 1, plan.n_kept, t / blocks);
      const int64_t first = (t % blocks) * kColumns;
      const int64_t w = std::min(kColumns, k0.size - first);
      in_off += first * si;
      out_off += first * k0.out_stride;
      for (int64_t j = 0; j < w; ++j) {
        level0[j] = level1[j] = level2[j] = op.identity();
        centers[j] = op.center(out_off + j * k0.out_stride);
      }
      int64_t rows0 = 0, rows1 = 0;
      for_each_run(plan.reduced.data(), plan.n_reduced, 0, plan.numel_reduced,
                   [&](int64_t roff, int64_t, int64_t n, int64_t pos) {
        for (int64_t i = 0; i < n; ++i) {
          const typename Op::In* row = base + in_off + roff + i * rs;
          const int64_t idx = pos + i;
          if (si == 1) {
            for (int64_t j = 0; j < w; ++j) level0[j] = op.step(level0[j], row[j], idx, centers[j]);
          } else {
            for (int64_t j = 0; j < w; ++j) level0[j] = op.step(level0[j], row[j * si], idx, centers[j]);
          }
          if constexpr (Op::kAdditive) {
            if (++rows0 == kRows) {
              rows0 = 0;
              for (int64_t j = 0; j < w; ++j) {
                level1[j] = op.combine(level1[j], level0[j]);
                level0[j] = op.identity();
              }
              if (++rows1 == kRows) {
                rows1 = 0;
                for (int64_t j = 0; j < w; ++j) {
                  level2[j] = op.combine(level2[j], level1[j]);
                  level1[j] = op.identity();
                }
              }
            }
          }
        }
      });
      for (int64_t j = 0; j < w; ++j) {
        const A a = op.combine(level2[j], op.combine(level1[j], level0[j]));
        op.write(out_off + j * k0.out_stride, a, centers[j]);
      }
    }
  });
}

template <class Op>
void run(const Op& op, const Tensor& self, const ReducePlan& plan) {
  if (plan.numel_out == 0) return;
  const auto* base = static_cast<const typename Op::In*>(self.impl()->data());
  if (plan.inner || plan.n_kept == 0) inner_walk(op, base, plan);
  else vertical_walk(op, base, plan);
}

template <class Op>
void run(const Op& op, const ReduceArgs& args, const ReducePlan& plan) {
  run(op, *args.self, plan);
}

template <class T>
T* out_ptr(const ReduceArgs& args, int i) {
  return static_cast<T*>(args.outs[static_cast<size_t>(i)]->impl()->data());
}

template <class T>
constexpr bool kOrdered = !kIsComplex<T>;
template <class T>
constexpr bool kFloating = std::is_floating_point_v<T> || kHalfLike<T> || kIsComplex<T>;

void unsupported(const char* what, ScalarType t) {
  EMBER_INTERNAL_ASSERT(false, "reduce_kernel_cpu(): ", what, " has no kernel for ", t);
}

// One dtype's reduction kernels.
template <class T>
void reduce_typed(const ReduceArgs& args, const ReducePlan& plan) {
  const ScalarType dtype = args.self->dtype();
  using A = SumAcc<T>;
  switch (args.kind) {
    case ReduceKind::Sum:
      run(SumOp<T, false>{{}, out_ptr<T>(args, 0), static_cast<A>(convert<A>(args.scale))}, args, plan);
      return;
    case ReduceKind::NanSum:
      // Without NaN (integers, bool) a nansum is a sum; complex inputs are refused earlier.
      if constexpr (kFloating<T> && !kIsComplex<T>) {
        run(SumOp<T, true>{{}, out_ptr<T>(args, 0), static_cast<A>(convert<A>(args.scale))}, args, plan);
      } else {
        run(SumOp<T, false>{{}, out_ptr<T>(args, 0), static_cast<A>(convert<A>(args.scale))}, args, plan);
      }
      return;
    case ReduceKind::Prod:
      run(ProdOp<T>{{}, out_ptr<T>(args, 0)}, args, plan);
      return;
    case ReduceKind::All:
    case ReduceKind::Any: {
      const bool all = args.kind == ReduceKind::All;
      if (all) run(AllOp<T, true>{{}, out_ptr<uint8_t>(args, 0)}, args, plan);
      else run(AllOp<T, false>{{}, out_ptr<uint8_t>(args, 0)}, args, plan);
      return;
    }
    case ReduceKind::CountNonzero:
      run(CountOp<T, false>{{}, out_ptr<int64_t>(args, 0), args.scale}, args, plan);
      return;
    case ReduceKind::NotNanCount:
      // nanmean's count: its front end takes floating dtypes only.
      if constexpr (kFloating<T> && !kIsComplex<T>) {
        run(CountOp<T, true>{{}, out_ptr<T>(args, 0), 1.0}, args, plan);
        return;
      }
      break;
    default: break;
  }
  if constexpr (kOrdered<T>) {
    switch (args.kind) {
      case ReduceKind::Max: run(MaxOp<T, true>{{}, out_ptr<T>(args, 0)}, args, plan); return;
      case ReduceKind::Min: run(MaxOp<T, false>{{}, out_ptr<T>(args, 0)}, args, plan); return;
      case ReduceKind::ArgMax:
        run(ArgOp<T, true>{{}, nullptr, out_ptr<int64_t>(args, 0)}, args, plan);
        return;
      case ReduceKind::ArgMin:
        run(ArgOp<T, false>{{}, nullptr, out_ptr<int64_t>(args, 0)}, args, plan);
        return;
      case ReduceKind::MaxWithIndex:
        run(ArgOp<T, true>{{}, out_ptr<T>(args, 0), out_ptr<int64_t>(args, 1)}, args, plan);
        return;
      case ReduceKind::MinWithIndex:
        run(ArgOp<T, false>{{}, out_ptr<T>(args, 0), out_ptr<int64_t>(args, 1)}, args, plan);
        return;
      case ReduceKind::MinMax:
        run(MinMaxOp<T>{{}, out_ptr<T>(args, 0), out_ptr<T>(args, 1)}, args, plan);
        return;
      default: break;
    }
  }
  if constexpr (kFloating<T>) {
    using R = RealType<T>;
    using RA = RealAcc<T>;
    const RA p = static_cast<RA>(args.p);
    switch (args.kind) {
      case ReduceKind::NormP:
        if (std::isinf(args.p)) {
          if (args.p > 0) run(NormInfOp<T, true>{{}, out_ptr<R>(args, 0)}, args, plan);
          else run(NormInfOp<T, false>{{}, out_ptr<R>(args, 0)}, args, plan);
        } else if (args.p == 0) {
          run(NormOp<T, Norm::Zero>{{}, out_ptr<R>(args, 0), p}, args, plan);
        } else if (args.p == 1) {
          run(NormOp<T, Norm::One>{{}, out_ptr<R>(args, 0), p}, args, plan);
        } else if (args.p == 2) {
          run(NormOp<T, Norm::Two>{{}, out_ptr<R>(args, 0), p}, args, plan);
        } else {
          run(NormOp<T, Norm::General>{{}, out_ptr<R>(args, 0), p}, args, plan);
        }
        return;
      case ReduceKind::SquaredDeviation:
        run(SquaredDeviationOp<T>{{}, out_ptr<R>(args, 0),
                                  static_cast<const A*>(args.center->impl()->data()),
                                  static_cast<RA>(args.scale), args.root},
            args, plan);
        return;
      case ReduceKind::ExpShifted:
        if constexpr (!kIsComplex<T>) {
          run(ExpShiftedOp<T>{{}, out_ptr<T>(args, 0),
                              static_cast<const A*>(args.center->impl()->data())},
              args, plan);
          return;
        }
        break;
      default: break;
    }
  }
  unsupported("this reduction", dtype);
}

}  // namespace

void reduce_kernel_cpu(const ReduceArgs& args, const ReducePlan& plan) {
  // Note [Reduction copies]: the wide-vector copies hold the floating real dtypes only
  // (what float workloads reduce); integers, bool and complex run the baseline copy. Each
  // (dtype, kind) pair is a whole loop nest, and those eight dtypes took 60% of the
  // file's compile time in every copy.
  if (kWideCpuCopy && !is_floating_point(args.self->dtype())) {
    ::ember::native::reduce_kernel_cpu(args, plan);
    return;
  }
  dispatch_all_types(args.self->dtype(), "reduce", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!kWideCpuCopy || std::is_floating_point_v<T> || kHalfLike<T>) reduce_typed<T>(args, plan);
  });
}

// ---- the functor path ------------------------------------------------------------------------

// Note [Reduction functors]: a reduction whose result dtype is a rule of its input's
// (Reduce.h's ReduceDtypes) and whose loop is one of the op structs above is one functor
// here: its rule `kDtypes`, the op struct `Op<T>` that reduces an input of type T, and
// optionally `kMaxDims`, the most dimensions one call may name. EMBER_REDUCE_KERNEL makes
// the functor the structured kernel the YAML names for `(Tensor self, int[1] dim, bool
// keepdim=False)`; the entry's `meta:` is the rule's helper (reduce_to_real_meta for ToReal),
// which checks the dtype and sizes out (out= must have the result dtype exactly). The kernel
// builds the plan, runs Op<T> over the walks into out (through a contiguous temporary where
// out is not contiguous) and, like reduce_kernel_cpu, leaves all but the floating real
// dtypes to the baseline copy (Note [Reduction copies]). The op struct's output pointer `out`
// is set here; its other members keep their default values.

namespace {

// sqrt(sum |x|^2) over at most two dimensions, real for complex inputs.
struct FrobeniusNorm {
  static constexpr ReduceDtypes kDtypes = ReduceDtypes::ToReal;
  static constexpr int64_t kMaxDims = 2;
  template <class T>
  using Op = NormOp<T, Norm::Two>;
};

// Whether rule R takes inputs of type T.
template <ReduceDtypes R, class T>
constexpr bool kTakes = R == ReduceDtypes::Same || (R == ReduceDtypes::ToReal && kFloating<T>);

// Runs functor F over self's dimensions in dim into out (of the meta's sizes, with or
// without keepdim's 1s: the plan writes the same elements). `baseline` runs the same
// kernel's baseline copy.
template <class F, class Baseline>
void reduce_functor_cpu(const char* name, const Tensor& self, IntArrayRef dim, const Tensor& out,
                        const Baseline& baseline) {
  if constexpr (requires { F::kMaxDims; }) {
    EMBER_CHECK(static_cast<int64_t>(dim.size()) <= F::kMaxDims, name, "(): Expected at most ",
                F::kMaxDims, " dimensions, but got ", dim.size(), " dimensions instead.");
  }
  if (kWideCpuCopy && !is_floating_point(self.dtype())) {
    baseline();
    return;
  }
  const ScalarType result = reduce_result_type(F::kDtypes, name, self.dtype());
  const ReducePlan plan = make_reduce_plan(self, dim_mask(self, dim));
  const bool direct = out.is_contiguous() && out.dtype() == result;
  const Tensor target =
      direct ? out : ember::empty(out.sizes(), TensorOptions().dtype(result).device(out.device()));
  dispatch_all_types(self.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kTakes<F::kDtypes, T> && (!kWideCpuCopy || std::is_floating_point_v<T> || kHalfLike<T>)) {
      typename F::template Op<T> op{};
      op.out = static_cast<decltype(op.out)>(target.impl()->data());
      run(op, self, plan);
    } else {
      unsupported(name, self.dtype());
    }
  });
  if (!direct) copy_into_out(out, target);
}

}  // namespace

// The structured kernel `kernel` the YAML names, running reduction functor F.
#define EMBER_REDUCE_KERNEL(kernel, F, name)                                                \
  void kernel(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {       \
    reduce_functor_cpu<F>(name, self, dim, out,                                             \
                          [&] { ::ember::native::kernel(self, dim, keepdim, out); });       \
  }
EMBER_REDUCE_KERNEL(frobenius_norm_out_cpu, FrobeniusNorm, "frobenius_norm")
#undef EMBER_REDUCE_KERNEL

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
