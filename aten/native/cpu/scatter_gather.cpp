// gather, scatter (src, value, add, reduce), take and put on the CPU.
// CPU copies: baseline only (loads and stores at index values, not vector loops).
//
// Note [Scatter-gather loops]: gather and scatter pair each position of `index` with the
// same position of src/out and with self at index's value along `dim`. So self is given
// stride 0 along dim ("restrided"), and one StridedLoop over index's shape walks index,
// the other operand and restrided self together; the index value times self's stride along
// dim completes the address. gather splits index's first dimension across threads;
// scatter runs in index order on one thread (repeated targets are written in that order).
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <string_view>

#include "aten/TensorOperators.h"
#include "aten/native/CpuCapability.h"
#include "aten/native/DimUtils.h"
#include "aten/native/Dispatch.h"
#include "aten/native/IndexUtils.h"
#include "aten/native/Parallel.h"
#include "aten/native/RangeFactories.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/StridedLoop.h"
#include "aten/native/scatter_gather.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/div.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/gather_native.h"
#include "ember/generated/ops/logical_or.h"
#include "ember/generated/ops/nonzero.h"
#include "ember/generated/ops/ones.h"
#include "ember/generated/ops/put__native.h"
#include "ember/generated/ops/reshape.h"
#include "ember/generated/ops/scatter_reduce__native.h"
#include "ember/generated/ops/sum.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// Index values of `index` checked against size; throws RuntimeError as PyTorch does. A
// contiguous int64 index is scanned directly (threads split it); others go through ops.
void check_index_values(const char* op, const Tensor& index, int64_t dim, int64_t size) {
  if (index.numel() == 0) return;
  if (index.is_contiguous() && index.scalar_type() == ScalarType::Long) {
    const int64_t* p = static_cast<const int64_t*>(index.data_ptr());
    const int64_t n = index.numel();
    std::atomic<int64_t> first_bad{n};
    parallel_for(0, n, 1 << 16, [&](int64_t b, int64_t e) {
      bool bad = false;
      for (int64_t i = b; i < e; ++i) bad |= static_cast<uint64_t>(p[i]) >= static_cast<uint64_t>(size);
      if (!bad) return;
      for (int64_t i = b; i < e; ++i) {
        if (static_cast<uint64_t>(p[i]) >= static_cast<uint64_t>(size)) {
          int64_t cur = first_bad.load();
          while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {}
          return;
        }
      }
    });
    if (first_bad.load() == n) return;
    EMBER_THROW(Error, op, "(): index ", p[first_bad.load()], " is out of bounds for dimension ", dim,
                " with size ", size);
  }
  const Tensor bad = ember::logical_or(index.lt(0), index.ge(size));
  if (!ember::sum(bad).item().to_long()) return;
  const Tensor first = index.reshape({-1}).index_select(0, ember::nonzero(bad.reshape({-1})).select(1, 0).narrow(0, 0, 1));
  EMBER_THROW(Error, op, "(): index ", first.item().to_long(), " is out of bounds for dimension ",
              dim, " with size ", size);
}

// Calls body(self_offset, other_offset) for each position of index (Note [Scatter-gather
// loops]); `other` is out (gather) or src (scatter). threads: split index's first dim.
template <class Body>
void scatter_gather_loop(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& other,
                         bool threads, Body&& body) {
  const DimVector is = sizes_1d(index), it = strides_1d(index);
  const DimVector ot_ = strides_1d(other);
  DimVector st = strides_1d(self);
  const int64_t dim_stride = st[dim];
  st[dim] = 0;
  const int64_t* idx = static_cast<const int64_t*>(index.data_ptr());
  auto run = [&](int64_t begin, int64_t end) {
    DimVector sizes(is);
    sizes[0] = end - begin;
    const StridedLoop<3> loop(sizes, {it.ref(), st.ref(), ot_.ref()});
    const int64_t i0 = begin * it[0], s0 = begin * st[0], o0 = begin * ot_[0];
    loop.run([&](const std::array<int64_t, 3>& off, const std::array<int64_t, 3>& step, int64_t n) {
      for (int64_t k = 0; k < n; ++k) {
        const int64_t v = idx[i0 + off[0] + k * step[0]];
        body(s0 + off[1] + k * step[1] + v * dim_stride, o0 + off[2] + k * step[2]);
      }
    });
  };
  if (threads) {
    parallel_for(0, is[0], std::max<int64_t>(1, 65536 / std::max<int64_t>(index.numel() / std::max<int64_t>(is[0], 1), 1)), run);
  } else {
    run(0, is[0]);
  }
}

}  // namespace

Tensor& gather_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad, Tensor& out) {
  (void)sparse_grad;
  const int64_t d = wrap_dim("gather", "dim", dim, self.dim());
  check_index_shape("gather", self, d, index, nullptr);
  EMBER_CHECK(out.scalar_type() == self.scalar_type(), "gather(): expected 'out' of dtype ",
              self.scalar_type(), " (self's), but got ", out.scalar_type());
  check_index_values("gather", index, d, sizes_1d(self)[d]);
  const Tensor index64 = index.to(ScalarType::Long);
  resize_out(out, index.sizes());
  check_no_internal_overlap("gather", out.sizes(), out.strides());
  if (index.numel() == 0) return out;
  const bool fresh = !out.storage().is_alias_of(self.storage()) && !out.storage().is_alias_of(index.storage());
  Tensor dst = fresh ? out : ember::empty(index.sizes(), TensorOptions().dtype(self.scalar_type()));
  const char* src = static_cast<const char*>(self.data_ptr());
  char* o = static_cast<char*>(dst.data_ptr());
  dispatch_by_size(self.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    scatter_gather_loop(self, d, index64, dst, true, [&](int64_t s, int64_t w) {
      reinterpret_cast<T*>(o)[w] = reinterpret_cast<const T*>(src)[s];
    });
  });
  if (!fresh) out.copy_(dst);
  return out;
}

Tensor gather_cpu(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  Tensor out = ember::empty({0}, TensorOptions().dtype(self.scalar_type()));
  return gather_out_cpu(self, dim, index, sparse_grad, out);
}

namespace {

// Writes (or reduces) src into self along dim at index; src may be a 0-d value tensor
// broadcast (stride 0) to index's shape.
void scatter_into(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  ScatterReduce reduce) {
  check_no_internal_overlap(op, self.sizes(), self.strides());
  if (index.numel() == 0 || self.numel() == 0) return;
  Tensor source = src;
  if (src.storage().is_alias_of(self.storage())) source = src.clone();
  const Tensor index64 = index.to(ScalarType::Long);
  dispatch_all_types(self.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* const dst = static_cast<T*>(self.data_ptr());
    const T* const s = static_cast<const T*>(source.data_ptr());
    scatter_gather_loop(self, dim, index64, source, false, [&](int64_t at, int64_t from) {
      T& x = dst[at];
      const T v = s[from];
      switch (reduce) {
        case ScatterReduce::None: x = v; break;
        case ScatterReduce::Sum: case ScatterReduce::Mean:
          if constexpr (std::is_same_v<T, bool>) x = x || v;
          else x = static_cast<T>(x + v);
          break;
        case ScatterReduce::Prod:
          if constexpr (std::is_same_v<T, bool>) x = x && v;
          else x = static_cast<T>(x * v);
          break;
        case ScatterReduce::Max: case ScatterReduce::Min:
          if constexpr (!kIsComplex<T>) {
            if constexpr (!std::is_integral_v<T>) {
              if (x != x) break;  // NaN stays
              if (v != v) { x = v; break; }
            }
            x = reduce == ScatterReduce::Max ? (v > x ? v : x) : (v < x ? v : x);
          }
          break;
      }
    });
  });
}

Tensor& scatter_checked(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        ScatterReduce reduce, bool src_is_value) {
  const int64_t d = wrap_dim(op, "dim", dim, self.dim());
  check_index_shape(op, self, d, index, src_is_value ? nullptr : &src);
  EMBER_CHECK(src.scalar_type() == self.scalar_type(), op, "(): expected 'src' of dtype ",
              self.scalar_type(), " (self's), but got ", src.scalar_type());
  check_index_values(op, index, d, sizes_1d(self)[d]);
  const Tensor source = src_is_value ? src.reshape(DimVector(static_cast<size_t>(std::max<int64_t>(index.dim(), 1)), 1))
                                           .expand(sizes_1d(index))
                                     : src;
  scatter_into(op, self, d, index, source, reduce);
  return self;
}

Tensor value_tensor(const Tensor& self, const Scalar& value, const char* op) {
  Tensor v = ember::empty({}, TensorOptions().dtype(self.scalar_type()));
  v.fill_(value);
  (void)op;
  return v;
}

}  // namespace

Tensor& scatter__cpu(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_checked("scatter_", self, dim, index, src, ScatterReduce::None, false);
}

Tensor& scatter__cpu(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_checked("scatter_", self, dim, index, value_tensor(self, value, "scatter_"), ScatterReduce::None,
                         true);
}

Tensor scatter_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = self.clone(MemoryFormat::Contiguous);
  return scatter_checked("scatter", out, dim, index, src, ScatterReduce::None, false);
}

Tensor scatter_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = self.clone(MemoryFormat::Contiguous);
  return scatter_checked("scatter", out, dim, index, value_tensor(self, value, "scatter"), ScatterReduce::None, true);
}

Tensor& scatter_add__cpu(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_checked("scatter_add_", self, dim, index, src, ScatterReduce::Sum, false);
}

Tensor scatter_add_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = self.clone(MemoryFormat::Contiguous);
  return scatter_checked("scatter_add", out, dim, index, src, ScatterReduce::Sum, false);
}

Tensor& scatter_reduce__cpu(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                            std::string_view reduce, bool include_self) {
  const ScatterReduce r = parse_scatter_reduce(reduce);
  const int64_t d = wrap_dim("scatter_reduce_", "dim", dim, self.dim());
  check_index_shape("scatter_reduce_", self, d, index, &src);
  EMBER_CHECK(src.scalar_type() == self.scalar_type(), "scatter_reduce_(): expected 'src' of dtype ",
              self.scalar_type(), " (self's), but got ", src.scalar_type());
  EMBER_CHECK_NOT_IMPLEMENTED(!is_complex(self.scalar_type()) || r == ScatterReduce::Sum ||
                              r == ScatterReduce::Prod || r == ScatterReduce::Mean,
                              "scatter_reduce_(): reduce='", reduce, "' is not supported for complex tensors");
  check_index_values("scatter_reduce_", index, d, sizes_1d(self)[d]);
  if (index.numel() == 0) return self;
  // Counts per target (mean), and the identity written first where self is excluded.
  Tensor counts;
  if (r == ScatterReduce::Mean) {
    counts = ember::full(self.sizes(), include_self ? 1 : 0, TensorOptions().dtype(self.scalar_type()));
    scatter_into("scatter_reduce_", counts, d, index,
                 ember::ones({}, TensorOptions().dtype(self.scalar_type())).reshape(DimVector(sizes_1d(index).size(), 1)).expand(sizes_1d(index)),
                 ScatterReduce::Sum);
  }
  if (!include_self) {
    Tensor identity = ember::empty({}, TensorOptions().dtype(self.scalar_type()));
    dispatch_all_types(self.scalar_type(), "scatter_reduce_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T v{};
      if (r == ScatterReduce::Prod) v = T(1);
      if constexpr (!kIsComplex<T> && !std::is_same_v<T, bool>) {
        if (r == ScatterReduce::Max) {
          v = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
        }
        if (r == ScatterReduce::Min) {
          v = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
        }
      } else if constexpr (std::is_same_v<T, bool>) {
        if (r == ScatterReduce::Min) v = true;
      }
      *static_cast<T*>(identity.data_ptr()) = v;
    });
    scatter_into("scatter_reduce_", self, d, index,
                 identity.reshape(DimVector(sizes_1d(index).size(), 1)).expand(sizes_1d(index)), ScatterReduce::None);
  }
  scatter_into("scatter_reduce_", self, d, index, src, r);
  if (r == ScatterReduce::Mean) {
    const Tensor safe = counts.masked_fill(counts.eq(0), 1);
    const bool integral = is_integral(self.scalar_type(), true);
    self.copy_(integral ? ember::div(self, safe, "floor") : self / safe);
  }
  return self;
}

Tensor scatter_reduce_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self) {
  Tensor out = self.clone(MemoryFormat::Contiguous);
  return scatter_reduce__cpu(out, dim, index, src, reduce, include_self);
}

// ---- take / put: self read as 1-d (row-major) -------------------------------------------

Tensor take_cpu(const Tensor& self, const Tensor& index) {
  const Tensor idx = flat_index("take", index, self.numel());
  EMBER_CHECK_INDEX(self.numel() > 0 || idx.numel() == 0, "take(): tried to take from an empty tensor");
  if (idx.numel() == 0) return ember::empty(index.sizes(), TensorOptions().dtype(self.scalar_type()));
  return ember::reshape(self, {-1}).index_select(0, idx).view(index.sizes());
}

Tensor& put__cpu(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  EMBER_CHECK(source.scalar_type() == self.scalar_type(), "put_(): expected 'source' of dtype ",
              self.scalar_type(), " (self's), but got ", source.scalar_type());
  check_no_internal_overlap("put_", self.sizes(), self.strides());
  EMBER_CHECK_INDEX(source.numel() == index.numel(), "put_(): expected 'source' and 'index' to have the "
              "same number of elements, but got ", source.numel(), " and ", index.numel());
  const Tensor idx = flat_index("put_", index, self.numel());
  if (idx.numel() == 0) return self;
  EMBER_CHECK_INDEX(self.numel() > 0, "put_(): tried to put into an empty tensor");
  const Tensor src = source.reshape({-1});
  if (self.is_contiguous()) {
    Tensor flat = self.view({-1});
    if (accumulate) flat.index_add_(0, idx, src);
    else flat.index_copy_(0, idx, src);
  } else {
    Tensor flat = self.reshape({-1}).clone();
    if (accumulate) flat.index_add_(0, idx, src);
    else flat.index_copy_(0, idx, src);
    self.copy_(flat.view(self.sizes()));
  }
  return self;
}

Tensor put_cpu(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  Tensor out = self.clone();
  return put__cpu(out, index, source, accumulate);
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
