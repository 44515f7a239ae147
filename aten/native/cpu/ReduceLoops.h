#pragma once
/// The walks of the CPU reductions over a ReducePlan (Note [Reduction plan] in
/// aten/native/Reduce.h): `run(op, ...)` reduces with one op struct of cpu/ReduceOps.h, and
/// the kernel groups of cpu/reduce*.cpp that reduce_kernel_cpu dispatches to.

#include <algorithm>
#include <cstdint>
#include <memory>

#include "aten/native/CpuCapability.h"
#include "aten/native/Parallel.h"
#include "aten/native/Reduce.h"
#include "aten/native/cpu/ReduceOps.h"
#include "c10/util/Exception.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

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
