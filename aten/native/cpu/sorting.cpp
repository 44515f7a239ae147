// Sorting and selection along a dimension on the CPU: sort, topk, kthvalue, median,
// nanmedian, mode; unique (sorted, by slices, consecutive); the positions of combinations.
// CPU copies: baseline only (comparison sorts and selections, not vector loops).
//
// Note [Slice loops]: each op works on the 1-d slices of self along `dim`. The offsets of
// every slice's first element are listed once (all dims but dim), and slices are handed
// out across threads. Within a slice, elements are (value, index) pairs compared by value
// (NaN above everything, as PyTorch orders them) and then by index, so every order is
// total: sort is stable, and ties in topk/kthvalue/median resolve to the lowest index.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <vector>

#include "aten/TensorOperators.h"
#include "aten/native/CpuCapability.h"
#include "aten/native/DimUtils.h"
#include "aten/native/Dispatch.h"
#include "aten/native/IndexUtils.h"
#include "aten/native/Parallel.h"
#include "aten/native/RangeFactories.h"
#include "aten/native/sorting.h"
#include "c10/core/Threads.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/movedim.h"
#include "ember/generated/ops/narrow.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// Offsets of the first element of every slice along dim (row-major over the other dims).
std::vector<int64_t> slice_starts(IntArrayRef sizes, IntArrayRef strides, int64_t dim) {
  DimVector first(sizes);  // dim held at its first position
  first[dim] = 1;
  return dim_offsets(first, strides, 0, static_cast<int64_t>(sizes.size()));
}

template <class T>
using Acc = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

template <class T>
struct Pair {
  Acc<T> v;
  int64_t i;
};

// Ascending (NaN last) or descending (NaN first); ties by index.
template <class T>
struct Before {
  bool descending;
  bool operator()(const Pair<T>& a, const Pair<T>& b) const {
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) {
      if (an && bn) return a.i < b.i;
      return an ? descending : !descending;
    }
    if (a.v == b.v) return a.i < b.i;
    return descending ? a.v > b.v : a.v < b.v;
  }
};
// Calls body(T tag, slice values pairs, slice number) for each slice (Note [Slice loops]).
template <class F>
void for_each_slice(const char* op, const Tensor& self, int64_t dim, F&& body) {
  const DimVector sizes = sizes_1d(self), strides = strides_1d(self);
  const std::vector<int64_t> starts = slice_starts(sizes, strides, dim);
  const int64_t n = sizes[dim], stride = strides[dim];
  const int64_t slices = static_cast<int64_t>(starts.size());
  dispatch_all_types(self.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!kIsComplex<T>) {
      const T* base = static_cast<const T*>(self.data_ptr());
      parallel_for(0, slices, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
        std::vector<Pair<T>> pairs(static_cast<size_t>(n));
        for (int64_t s = b; s < e; ++s) {
          const T* p = base + starts[s];
          for (int64_t i = 0; i < n; ++i) pairs[i] = {static_cast<Acc<T>>(p[i * stride]), i};
          body(tag, pairs, s);
        }
      });
    }
  });
}

// Sorts pairs; one long slice is sorted in parallel chunks, then merged.
template <class T>
void sort_pairs(std::vector<Pair<T>>& pairs, bool descending, bool parallel) {
  const Before<T> cmp{descending};
  const int64_t n = static_cast<int64_t>(pairs.size());
  const int64_t threads = parallel && !in_parallel_region() ? get_num_threads() : 1;
  if (threads < 2 || n < (1 << 16)) {
    std::sort(pairs.begin(), pairs.end(), cmp);
    return;
  }
  std::vector<int64_t> bounds(static_cast<size_t>(threads) + 1);
  for (int64_t t = 0; t <= threads; ++t) bounds[t] = n * t / threads;
  parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) std::sort(pairs.begin() + bounds[t], pairs.begin() + bounds[t + 1], cmp);
  });
  for (int64_t width = 1; width < threads; width *= 2) {
    for (int64_t t = 0; t + width < threads; t += 2 * width) {
      const int64_t end = bounds[std::min(threads, t + 2 * width)];
      std::inplace_merge(pairs.begin() + bounds[t], pairs.begin() + bounds[t + width], pairs.begin() + end, cmp);
    }
  }
}

// Note [Radix sort]: float32 slices of 256 elements or more are sorted by key with an LSD
// radix sort (4 passes of 8 bits), which is stable like the comparison sort and orders
// alike: keys map floats to unsigned integers in the order of Before (-0.0 as 0.0, every
// NaN to the top; descending complements the key, so NaN comes first and ties keep their
// index order).
inline uint32_t radix_key(float v, bool descending) {
  uint32_t bits;
  if (std::isnan(v)) {
    bits = 0xFFFFFFFFu;
  } else {
    if (v == 0.0f) v = 0.0f;
    std::memcpy(&bits, &v, sizeof(bits));
    bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  }
  return descending ? ~bits : bits;
}

void radix_sort_pairs(std::vector<Pair<float>>& pairs, bool descending) {
  const size_t n = pairs.size();
  std::vector<uint32_t> key(n), key2(n), idx(n), idx2(n);
  for (size_t i = 0; i < n; ++i) {
    key[i] = radix_key(pairs[i].v, descending);
    idx[i] = static_cast<uint32_t>(pairs[i].i);
  }
  for (int shift = 0; shift < 32; shift += 8) {
    size_t count[257] = {};
    for (size_t i = 0; i < n; ++i) ++count[((key[i] >> shift) & 0xFF) + 1];
    if (count[((key[0] >> shift) & 0xFF) + 1] == n) continue;  // one bucket: nothing moves
    for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
    for (size_t i = 0; i < n; ++i) {
      const size_t at = count[(key[i] >> shift) & 0xFF]++;
      key2[at] = key[i];
      idx2[at] = idx[i];
    }
    key.swap(key2);
    idx.swap(idx2);
  }
  std::vector<Pair<float>> sorted(n);
  for (size_t i = 0; i < n; ++i) sorted[i] = pairs[idx[i]];
  pairs.swap(sorted);
}

// Writes pair values/indices [0, k) of a slice into values/indices outputs (contiguous or
// strided) at slice s.
struct SliceOut {
  std::vector<int64_t> v_starts, i_starts;
  int64_t v_stride, i_stride;
  SliceOut(const Tensor& values, const Tensor& indices, int64_t dim) {
    const DimVector vs = sizes_1d(values), vt = strides_1d(values);
    const DimVector is = sizes_1d(indices), it = strides_1d(indices);
    v_starts = slice_starts(vs, vt, dim);
    i_starts = slice_starts(is, it, dim);
    v_stride = vt[dim];
    i_stride = it[dim];
  }
};

std::tuple<Tensor, Tensor> sort_impl(const Tensor& self, int64_t dim, bool descending) {
  check_sortable("sort", self);
  const int64_t d = wrap_dim("sort", "dim", dim, self.dim());
  Tensor values = ember::empty_like(self);
  Tensor indices = ember::empty_like(self, ScalarType::Long);
  if (self.numel() == 0) return {values, indices};
  const SliceOut out(values, indices, d);
  const bool one_slice = self.numel() == sizes_1d(self)[d];
  int64_t* ip = static_cast<int64_t*>(indices.data_ptr());
  for_each_slice("sort", self, d, [&](auto tag, auto& pairs, int64_t s) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float>) {
      if (pairs.size() >= 256 && pairs.size() < (size_t(1) << 32)) {
        radix_sort_pairs(pairs, descending);
      } else {
        sort_pairs<T>(pairs, descending, one_slice);
      }
    } else {
      sort_pairs<T>(pairs, descending, one_slice);
    }
    T* vp = static_cast<T*>(values.data_ptr()) + out.v_starts[s];
    int64_t* xp = ip + out.i_starts[s];
    for (size_t i = 0; i < pairs.size(); ++i) {
      vp[i * out.v_stride] = static_cast<T>(pairs[i].v);
      xp[i * out.i_stride] = pairs[i].i;
    }
  });
  return {values, indices};
}

DimVector reduced(const Tensor& self, int64_t d, bool keepdim) {
  DimVector sizes(self.sizes());
  if (self.dim() == 0) return sizes;
  if (keepdim) sizes[d] = 1;
  else {
    DimVector out;
    for (int64_t k = 0; k < self.dim(); ++k) {
      if (k != d) out.push_back(sizes[k]);
    }
    return out;
  }
  return sizes;
}

// One element per slice chosen by pick(pairs) -> position in pairs (after pick reorders
// them), written as values and indices reduced along dim.
template <class Pick>
std::tuple<Tensor, Tensor> select_per_slice(const char* op, const Tensor& self, int64_t d, bool keepdim,
                                            Pick&& pick) {
  Tensor values = ember::empty(reduced(self, d, true), TensorOptions().dtype(self.scalar_type()));
  Tensor indices = ember::empty(reduced(self, d, true), TensorOptions().dtype(ScalarType::Long));
  const SliceOut out(values, indices, d);
  int64_t* ip = static_cast<int64_t*>(indices.data_ptr());
  for_each_slice(op, self, d, [&](auto tag, auto& pairs, int64_t s) {
    using T = typename decltype(tag)::type;
    const auto [value, index] = pick(tag, pairs);
    static_cast<T*>(values.data_ptr())[out.v_starts[s]] = static_cast<T>(value);
    ip[out.i_starts[s]] = index;
  });
  if (!keepdim && self.dim() > 0) {
    values = values.squeeze(d);
    indices = indices.squeeze(d);
  }
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> sort_cpu(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  (void)stable;  // always stable (Note [Slice loops])
  return sort_impl(self, dim, descending);
}

std::tuple<Tensor, Tensor> topk_cpu(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // the result is always sorted
  EMBER_CHECK(self.scalar_type() != ScalarType::Bool, "topk(): does not support bool dtypes on CPU");
  check_sortable("topk", self);
  const int64_t d = wrap_dim("topk", "dim", dim, self.dim());
  const int64_t n = sizes_1d(self)[d];
  EMBER_CHECK(k >= 0 && k <= n, "topk(): selected index k (", k, ") out of range for dimension ",
                    d, " of size ", n);
  DimVector sizes(self.sizes());
  if (self.dim() > 0) sizes[d] = k;
  Tensor values = ember::empty(sizes, TensorOptions().dtype(self.scalar_type()));
  Tensor indices = ember::empty(sizes, TensorOptions().dtype(ScalarType::Long));
  if (values.numel() == 0) return {values, indices};
  const SliceOut out(values, indices, d);
  int64_t* ip = static_cast<int64_t*>(indices.data_ptr());
  // One pass per slice keeping the best k in a heap whose top is the worst of them (for a
  // small k most elements are rejected by one comparison); the heap is sorted at the end.
  const DimVector in_sizes = sizes_1d(self), in_strides = strides_1d(self);
  const std::vector<int64_t> starts = slice_starts(in_sizes, in_strides, d);
  const int64_t stride = in_strides[d];
  dispatch_all_types(self.scalar_type(), "topk", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!kIsComplex<T>) {
      const Before<T> cmp{largest};
      const T* base = static_cast<const T*>(self.data_ptr());
      parallel_for(0, static_cast<int64_t>(starts.size()), std::max<int64_t>(1, 16384 / n), [&](int64_t b, int64_t e) {
        std::vector<Pair<T>> heap;
        heap.reserve(static_cast<size_t>(k));
        for (int64_t s = b; s < e; ++s) {
          heap.clear();
          const T* p = base + starts[s];
          int64_t i = 0;
          for (; i < n && static_cast<int64_t>(heap.size()) < k; ++i) {
            heap.push_back({static_cast<Acc<T>>(p[i * stride]), i});
            std::push_heap(heap.begin(), heap.end(), cmp);
          }
          // Full heap: an element enters only if it beats the worst kept one; a later index
          // never wins a tie, so most elements fail one comparison with that value.
          Acc<T> worst = k > 0 ? heap.front().v : Acc<T>{};
          auto scan = [&](auto largest_tag) {
            constexpr bool kLargest = decltype(largest_tag)::value;
            for (; i < n && k > 0; ++i) {
              const Acc<T> v = static_cast<Acc<T>>(p[i * stride]);
              // NaN counts as the largest value (Before's order).
              const bool enters = kLargest ? (v > worst || (is_nan(v) && !is_nan(worst)))
                                           : (is_nan(worst) ? !is_nan(v) : v < worst);
              if (!enters) continue;
              std::pop_heap(heap.begin(), heap.end(), cmp);
              heap.back() = {v, i};
              std::push_heap(heap.begin(), heap.end(), cmp);
              worst = heap.front().v;
            }
          };
          if (largest) scan(std::true_type{});
          else scan(std::false_type{});
          std::sort_heap(heap.begin(), heap.end(), cmp);
          T* vp = static_cast<T*>(values.data_ptr()) + out.v_starts[s];
          int64_t* xp = ip + out.i_starts[s];
          for (int64_t i = 0; i < k; ++i) {
            vp[i * out.v_stride] = static_cast<T>(heap[i].v);
            xp[i * out.i_stride] = heap[i].i;
          }
        }
      });
    }
  });
  return {values, indices};
}

std::tuple<Tensor, Tensor> kthvalue_cpu(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim("kthvalue", "dim", dim, self.dim());
  const int64_t n = sizes_1d(self)[d];
  EMBER_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k (", k, ") out of range for "
              "dimension ", d, " of size ", n);
  // (PyTorch orders a 0-d tensor, and only it, before its dtype dispatch.)
  check_sortable("kthvalue", self, self.dim() == 0);
  return select_per_slice("kthvalue", self, d, keepdim, [&](auto tag, auto& pairs) {
    using T = typename decltype(tag)::type;
    std::nth_element(pairs.begin(), pairs.begin() + (k - 1), pairs.end(), Before<T>{false});
    return std::make_pair(pairs[k - 1].v, pairs[k - 1].i);
  });
}

std::tuple<Tensor, Tensor> median_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim("median", "dim", dim, self.dim());
  const int64_t n = sizes_1d(self)[d];
  EMBER_CHECK_INDEX(n > 0, "median(): Expected reduction dim ", d, " to have non-zero size.");
  check_sortable("median", self, false);
  return select_per_slice("median", self, d, keepdim, [&](auto tag, auto& pairs) {
    using T = typename decltype(tag)::type;
    // NaN sorts last: a slice with NaN has its first NaN last; report it (PyTorch's median).
    const auto nan = std::find_if(pairs.begin(), pairs.end(), [](const auto& p) { return is_nan(p.v); });
    if (nan != pairs.end()) return std::make_pair(nan->v, nan->i);
    const int64_t m = (n - 1) / 2;
    std::nth_element(pairs.begin(), pairs.begin() + m, pairs.end(), Before<T>{false});
    return std::make_pair(pairs[m].v, pairs[m].i);
  });
}

namespace {

Tensor median_all(const char* op, const Tensor& self, bool ignore_nan) {
  check_sortable(op, self, self.numel() == 0);  // (PyTorch's empty input returns first)
  const Tensor flat = self.reshape({-1});
  if (flat.numel() == 0) {
    return ember::full({}, std::nan(""), TensorOptions().dtype(self.scalar_type()));
  }
  auto [v, i] = select_per_slice(op, flat, 0, false, [&](auto tag, auto& pairs) {
    using T = typename decltype(tag)::type;
    const int64_t nan_count = std::count_if(pairs.begin(), pairs.end(), [](const auto& p) { return is_nan(p.v); });
    if (nan_count > 0 && !ignore_nan) {
      const auto nan = std::find_if(pairs.begin(), pairs.end(), [](const auto& p) { return is_nan(p.v); });
      return std::make_pair(nan->v, nan->i);
    }
    const int64_t valid = static_cast<int64_t>(pairs.size()) - nan_count;
    if (valid == 0) return std::make_pair(pairs[0].v, pairs[0].i);
    const int64_t m = (valid - 1) / 2;
    std::nth_element(pairs.begin(), pairs.begin() + m, pairs.end(), Before<T>{false});
    return std::make_pair(pairs[m].v, pairs[m].i);
  });
  (void)i;
  return v;
}

}  // namespace

Tensor median_cpu(const Tensor& self) { return median_all("median", self, false); }
Tensor nanmedian_cpu(const Tensor& self) { return median_all("nanmedian", self, true); }

std::tuple<Tensor, Tensor> mode_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  check_sortable("mode", self);
  const int64_t d = wrap_dim("mode", "dim", dim, self.dim());
  EMBER_CHECK_INDEX(sizes_1d(self)[d] > 0, "mode(): Expected reduction dim ", d, " to have non-zero size.");
  return select_per_slice("mode", self, d, keepdim, [&](auto tag, auto& pairs) {
    using T = typename decltype(tag)::type;
    std::sort(pairs.begin(), pairs.end(), Before<T>{false});
    // The longest run of equal values (the first such run: the smallest value); its last
    // element has the largest index.
    size_t best = 0, best_len = 0;
    for (size_t i = 0; i < pairs.size();) {
      size_t j = i + 1;
      while (j < pairs.size() && pairs[j].v == pairs[i].v) ++j;
      if (j - i > best_len) {
        best_len = j - i;
        best = j - 1;
      }
      i = j;
    }
    return std::make_pair(pairs[best].v, pairs[best].i);
  });
}

// ---- unique -------------------------------------------------------------------------------

namespace {

Tensor empty_long() { return ember::empty({0}, TensorOptions().dtype(ScalarType::Long)); }

// Groups of equal rows of a [n, m] contiguous tensor in sorted (or given) order: the order of
// the rows and where each group starts.
template <class T>
bool row_less(const T* a, const T* b, int64_t m) {
  for (int64_t k = 0; k < m; ++k) {
    const Acc<T> x = static_cast<Acc<T>>(a[k]), y = static_cast<Acc<T>>(b[k]);
    if (x < y) return true;
    if (y < x) return false;
  }
  return false;
}

template <class T>
bool row_equal(const T* a, const T* b, int64_t m) {
  for (int64_t k = 0; k < m; ++k) {
    if (!(static_cast<Acc<T>>(a[k]) == static_cast<Acc<T>>(b[k]))) return false;
  }
  return true;
}

// Unique rows of `rows` ([n, m], contiguous): first row of each group, inverse, counts.
std::tuple<std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>> unique_rows(
    const Tensor& rows, bool sort_first) {
  const int64_t n = rows.sizes()[0], m = rows.dim() > 1 ? rows.sizes()[1] : 1;
  std::vector<int64_t> order(static_cast<size_t>(n)), firsts, inverse(static_cast<size_t>(n)), counts;
  std::iota(order.begin(), order.end(), 0);
  dispatch_all_types(rows.scalar_type(), "unique", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!kIsComplex<T>) {
      const T* p = static_cast<const T*>(rows.data_ptr());
      if (sort_first) {
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          if (m == 1) {
            const Acc<T> x = static_cast<Acc<T>>(p[a]), y = static_cast<Acc<T>>(p[b]);
            if (is_nan(x) || is_nan(y)) return !is_nan(x) && is_nan(y);
            return x < y;
          }
          return row_less(p + a * m, p + b * m, m);
        });
      }
      for (int64_t k = 0; k < n; ++k) {
        const int64_t r = order[k];
        if (k == 0 || !row_equal(p + order[k - 1] * m, p + r * m, m)) {
          firsts.push_back(r);
          counts.push_back(0);
        }
        ++counts.back();
        inverse[r] = static_cast<int64_t>(firsts.size()) - 1;
      }
    }
  });
  return {firsts, inverse, counts};
}

Tensor long_tensor(const std::vector<int64_t>& v) {
  Tensor t = ember::empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(ScalarType::Long));
  if (!v.empty()) std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(int64_t));
  return t;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique2_cpu(const Tensor& self, bool sorted, bool return_inverse,
                                               bool return_counts) {
  (void)sorted;  // always sorted
  check_sortable("unique", self);
  const Tensor flat = self.reshape({-1}).contiguous();
  auto [firsts, inverse, counts] = unique_rows(flat, true);
  Tensor values = flat.index_select(0, long_tensor(firsts));
  Tensor inv = return_inverse ? long_tensor(inverse).view(self.sizes()) : empty_long();
  Tensor cnt = return_counts ? long_tensor(counts) : empty_long();
  return {values, inv, cnt};
}

namespace {

std::tuple<Tensor, Tensor, Tensor> unique_by_dim(const char* op, const Tensor& self, int64_t dim,
                                                 bool sort_first, bool return_inverse, bool return_counts) {
  check_sortable(op, self);
  const int64_t d = wrap_dim(op, "dim", dim, self.dim());
  EMBER_CHECK_INDEX(self.dim() > 0, op, "(): cannot be applied to a 0-dim tensor along a dimension");
  const int64_t n = self.sizes()[d];
  if (n == 0 || self.numel() == 0) {
    // PyTorch: no slices (or empty slices) give themselves.
    Tensor inv = return_inverse ? ember::zeros({n}, TensorOptions().dtype(ScalarType::Long)) : empty_long();
    Tensor cnt = return_counts ? (n == 0 ? empty_long() : ember::full({1}, n, TensorOptions().dtype(ScalarType::Long)))
                               : empty_long();
    return {n == 0 ? self.clone(MemoryFormat::Contiguous)
                   : ember::narrow(self, d, 0, std::min<int64_t>(n, 1)).clone(MemoryFormat::Contiguous),
            inv, cnt};
  }
  const Tensor moved = ember::movedim(self, d, 0);
  const Tensor rows = moved.reshape({n, -1}).contiguous();
  auto [firsts, inverse, counts] = unique_rows(rows, sort_first);
  // Selected as rows, then moved back (PyTorch's layout: dim d outermost in memory).
  DimVector shape(moved.sizes());
  shape[0] = static_cast<int64_t>(firsts.size());
  Tensor values = ember::movedim(rows.index_select(0, long_tensor(firsts)).view(shape), 0, d);
  // unique_dim always gives the inverse and counts (as PyTorch's); unique_consecutive only
  // those asked for.
  const bool all = sort_first;
  Tensor inv = return_inverse || all ? long_tensor(inverse) : empty_long();
  Tensor cnt = return_counts || all ? long_tensor(counts) : empty_long();
  return {values, inv, cnt};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique_dim_cpu(const Tensor& self, int64_t dim, bool sorted,
                                                  bool return_inverse, bool return_counts) {
  (void)sorted;
  return unique_by_dim("unique_dim", self, dim, true, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive_cpu(const Tensor& self, bool return_inverse,
                                                          bool return_counts, std::optional<int64_t> dim) {
  if (dim) return unique_by_dim("unique_consecutive", self, *dim, false, return_inverse, return_counts);
  check_sortable("unique_consecutive", self);
  const Tensor flat = self.reshape({-1}).contiguous();
  if (flat.numel() == 0) {
    return {flat.clone(), return_inverse ? ember::empty(self.sizes(), TensorOptions().dtype(ScalarType::Long)) : empty_long(),
            empty_long()};
  }
  auto [firsts, inverse, counts] = unique_rows(flat.view({-1, 1}), false);
  Tensor values = flat.index_select(0, long_tensor(firsts));
  Tensor inv = return_inverse ? long_tensor(inverse).view(self.sizes()) : empty_long();
  Tensor cnt = return_counts ? long_tensor(counts) : empty_long();
  return {values, inv, cnt};
}

// ---- combinations' positions ----------------------------------------------------------------

std::vector<Tensor> combinations_indices_kernel_cpu(int64_t n, int64_t r, bool with_replacement) {
  std::vector<std::vector<int64_t>> columns(static_cast<size_t>(r));
  std::vector<int64_t> pick(static_cast<size_t>(r));
  // Lexicographic enumeration of non-decreasing (with replacement) or increasing positions.
  std::function<void(int64_t, int64_t)> rec = [&](int64_t depth, int64_t start) {
    if (depth == r) {
      for (int64_t k = 0; k < r; ++k) columns[k].push_back(pick[k]);
      return;
    }
    for (int64_t i = start; i < n; ++i) {
      pick[depth] = i;
      rec(depth + 1, with_replacement ? i : i + 1);
    }
  };
  rec(0, 0);
  std::vector<Tensor> cols;
  for (const std::vector<int64_t>& c : columns) cols.push_back(long_tensor(c));
  return cols;
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
