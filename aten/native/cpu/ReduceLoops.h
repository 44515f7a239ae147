#pragma once
/// The walks of the CPU reductions over a ReducePlan (Note [Reduction plan] in
/// aten/native/Reduce.h): `run(op, ...)` reduces with one op struct of cpu/ReduceOps.h, and
/// the kernel groups of cpu/reduce*.cpp that reduce_kernel_cpu dispatches to.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "aten/native/CpuCapability.h"
#include "aten/native/Parallel.h"
#include "aten/native/Reduce.h"
#include "aten/native/cpu/ReduceOps.h"
#include "aten/native/cpu/Vectorized.h"
#include "aten/native/cpu/Widen.h"
#include "c10/util/Exception.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// Note [16-bit floats in reductions]: a reduction of Half or BFloat16 runs the float op
// (SumOp<float>, MaxOp<float>, ...) with no instantiation of its own. The walks widen the
// 16-bit input a block at a time into a float buffer (widen, cpu/Widen.h): kSumBlock
// elements of a run in the inner walk, a row's kColumns elements in the vertical walk. The
// op folds the buffer as it folds a float input, and its OutPtr<float> rounds each result
// once into the 16-bit output. The 16-bit ops computed in float before too (SumAcc, CmpAcc),
// with the same blocks and lanes, so the values are unchanged. What it saves: the 16-bit
// dtypes were half of the loop nests of each wide copy (Note [Reduction copies]), and their
// element-wise scalar conversions made float16 sums 7x slower than PyTorch's.

enum class Stored : uint8_t { Same, Half, BFloat16 };

// The input of a walk: elements of In, or (In = float only) 16-bit floats that the walk
// widens. Offsets and strides count elements.
template <class In>
struct Input {
  const void* data = nullptr;
  Stored stored = Stored::Same;
  bool widened() const { return std::is_same_v<In, float> && stored != Stored::Same; }
  const In* at(int64_t off) const { return static_cast<const In*>(data) + off; }
  // n 16-bit elements from `off`, `s` apart, as floats into buf.
  void widen_into(int64_t off, int64_t n, int64_t s, float* buf) const {
    const char* p = static_cast<const char*>(data) + off * 2;
    if (stored == Stored::Half) widen<Half>(p, s * 2, n, buf);
    else widen<BFloat16>(p, s * 2, n, buf);
  }
};

// A buffer of n widened elements where In is float; a placeholder otherwise.
template <class In, int64_t N>
using WidenBuffer = std::conditional_t<std::is_same_v<In, float>, float[N], char[1]>;

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

// The reduction of a run by an op with a vector step (kVectorStep: a max or min), blocks
// of it from block(b, m) as in reduce_run: four registers fold the contiguous stretches (GCC
// vectorises the sums' lane loops by itself, not a select's: amax over rows ran 19x
// PyTorch's time) and meet in registers, where a scalar combine tree would branch on every
// lane. A max is exact, so neither the lanes nor the order change the result.
template <class Op, class Block>
typename Op::acc_t reduce_run_vector(const Op& op, const Block& block, int64_t n, int64_t idx0) {
  using A = typename Op::acc_t;
  using R = typename VectorRaw<A>::type;
  constexpr int64_t W = Vectorized<A>::kSize;
  const R id = R{} + op.identity();
  R v[4] = {id, id, id, id};
  A rest = op.identity();
  for (int64_t b = 0; b < n; b += kSumBlock) {
    const int64_t m = std::min(kSumBlock, n - b);
    const auto [p, ps] = block(b, m);
    int64_t i = 0;
    if (ps == 1) {
      for (; i + 4 * W <= m; i += 4 * W) {
        for (int64_t k = 0; k < 4; ++k) {
          R x;
          std::memcpy(&x, p + i + k * W, sizeof x);
          v[k] = op.step_vec(v[k], x);
        }
      }
    }
    for (; i < m; ++i) rest = op.step(rest, p[i * ps], idx0 + b + i, NoCenter{});
  }
  R r = op.step_vec(op.step_vec(v[0], v[1]), op.step_vec(v[2], v[3]));
  using Perm = decltype(r < r);
  for (int64_t h = W / 2; h >= 1; h /= 2) {
    Perm perm;
    for (int64_t j = 0; j < W; ++j) perm[j] = static_cast<std::remove_cvref_t<decltype(perm[0])>>((j + h) % W);
    r = op.step_vec(r, __builtin_shuffle(r, perm));
  }
  return op.combine(r[0], rest);
}

// The reduction of one run in[off], in[off + s], ..., in[off + (n-1)s] whose first element
// has index idx0.
// Sums cascade: each block of kSumBlock elements folds into kSumLanes lane sums, and the
// blocks' lane arrays are combined lane by lane through a binary counter (stack[k] holds
// the sum of 2^level[k] blocks), so rounding errors grow with log(n), not n. The lanes
// meet once, pairwise, at the end of the run: combining them per block cost as much as
// the block itself (sum of 64M ran 1.65x PyTorch's time).
template <class Op>
typename Op::acc_t reduce_run(const Op& op, const Input<typename Op::In>& in, int64_t off,
                              int64_t n, int64_t s, int64_t idx0, typename Op::center_t c) {
  using A = typename Op::acc_t;
  using In = typename Op::In;
  [[maybe_unused]] alignas(64) WidenBuffer<In, kSumBlock> buf;
  // Elements [b, b + m) of the run: in place, or widened into buf.
  auto block = [&](int64_t b, int64_t m) -> std::pair<const In*, int64_t> {
    if constexpr (std::is_same_v<In, float>) {
      if (in.widened()) {
        in.widen_into(off + b * s, m, s, buf);
        return {buf, 1};
      }
    }
    return {in.at(off + b * s), s};
  };
  if constexpr (Op::kAdditive) {
    A stack[64][kSumLanes];
    int64_t level[64];
    int top = 0;
    for (int64_t b = 0; b < n; b += kSumBlock) {
      A* cur = stack[top];
      for (int64_t j = 0; j < kSumLanes; ++j) cur[j] = op.identity();
      const int64_t m = std::min(kSumBlock, n - b);
      const auto [p, ps] = block(b, m);
      fold_lanes<kSumLanes>(op, cur, p, m, ps, idx0 + b, c);
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
  } else if constexpr (Op::kVectorStep) {
    return reduce_run_vector(op, block, n, idx0);
  } else {
    constexpr int64_t L = kLanes;
    A lanes[L];
    for (A& l : lanes) l = op.identity();
    if (!in.widened()) {
      fold_lanes<L>(op, lanes, in.at(off), n, s, idx0, c);
    } else {
      // Blocks of a multiple of L elements: element i still folds into lane i % L.
      for (int64_t b = 0; b < n; b += kSumBlock) {
        const int64_t m = std::min(kSumBlock, n - b);
        const auto [p, ps] = block(b, m);
        fold_lanes<L>(op, lanes, p, m, ps, idx0 + b, c);
      }
    }
    return combine_pairwise(op, lanes, L);
  }
}

// The inner walk: each output reduces runs along the fastest (reduced) input dimension.
template <class Op>
void inner_walk(const Op& op, const Input<typename Op::In>& in, const ReducePlan& plan) {
  using A = typename Op::acc_t;
  const int64_t rs = plan.n_reduced > 0 ? plan.reduced[0].in_stride : 1;
  auto reduce_range = [&](int64_t in_off, int64_t begin, int64_t end, typename Op::center_t c) {
    A acc = op.identity();
    for_each_run(plan.reduced.data(), plan.n_reduced, begin, end,
                 [&](int64_t roff, int64_t, int64_t n, int64_t pos) {
                   acc = op.combine(acc, reduce_run(op, in, in_off + roff, n, rs, pos, c));
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
void vertical_walk(const Op& op, const Input<typename Op::In>& in, const ReducePlan& plan) {
  using A = typename Op::acc_t;
  using C = typename Op::center_t;
  using In = typename Op::In;
  const ReduceDim k0 = plan.kept[0];
  const int64_t blocks = (k0.size + kColumns - 1) / kColumns;
  const int64_t outer = plan.numel_out / k0.size;
  const int64_t rs = plan.n_reduced > 0 ? plan.reduced[0].in_stride : 0;
  const int64_t si = k0.in_stride;
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(plan.numel_reduced * kColumns, 1));
  parallel_for(0, outer * blocks, grain, [&](int64_t b, int64_t e) {
    A level0[kColumns], level1[kColumns], level2[kColumns];
    C centers[kColumns];
    [[maybe_unused]] alignas(64) WidenBuffer<In, kColumns> buf;
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
          const In* row = nullptr;
          int64_t cs = si;  // the columns' stride in row
          if constexpr (std::is_same_v<In, float>) {
            if (in.widened()) {
              in.widen_into(in_off + roff + i * rs, w, si, buf);
              row = buf;
              cs = 1;
            }
          }
          if (row == nullptr) row = in.at(in_off + roff + i * rs);
          const int64_t idx = pos + i;
          if (cs == 1) {
            for (int64_t j = 0; j < w; ++j) level0[j] = op.step(level0[j], row[j], idx, centers[j]);
          } else {
            for (int64_t j = 0; j < w; ++j) level0[j] = op.step(level0[j], row[j * cs], idx, centers[j]);
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
  Input<typename Op::In> in{self.impl()->data()};
  if constexpr (std::is_same_v<typename Op::In, float>) {
    if (self.dtype() == ScalarType::Half) in.stored = Stored::Half;
    else if (self.dtype() == ScalarType::BFloat16) in.stored = Stored::BFloat16;
  }
  if (plan.inner || plan.n_kept == 0) inner_walk(op, in, plan);
  else vertical_walk(op, in, plan);
}

template <class Op>
void run(const Op& op, const ReduceArgs& args, const ReducePlan& plan) {
  run(op, *args.self, plan);
}

template <class T>
OutPtr<T> out_ptr(const ReduceArgs& args, int i) {
  return out_of<T>(*args.outs[static_cast<size_t>(i)]);
}

inline void unsupported(const char* what, ScalarType t) {
  EMBER_INTERNAL_ASSERT(false, "reduce_kernel_cpu(): ", what, " has no kernel for ", t);
}

}  // namespace

// The kernel groups reduce_kernel_cpu (cpu/reduce.cpp) hands each ReduceKind to, one file
// each so that a touched reduction rebuilds one group: sums, products, counts and all/any
// (cpu/reduce_sum.cpp); max, min, their indices and aminmax (cpu/reduce_minmax.cpp); norms,
// squared deviations and logsumexp's shifted exponentials (cpu/reduce_norm.cpp).
void reduce_sums(const ReduceArgs& args, const ReducePlan& plan);
void reduce_extrema(const ReduceArgs& args, const ReducePlan& plan);
void reduce_norms(const ReduceArgs& args, const ReducePlan& plan);

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
