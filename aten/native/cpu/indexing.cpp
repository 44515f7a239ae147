// Indexing along one dimension on the CPU: index_select, index_add, index_copy,
// index_fill, and the loop of repeat_interleave.Tensor.
// CPU copies: baseline only (row copies at index values, not vector loops).
//
// Note [Index loops]: a tensor is split around the indexed dimension into outer dims, the
// dimension itself and inner dims. The element offsets of every outer and every inner
// position are listed once (dim_offsets, IndexUtils.h), so the loops below handle any
// strides with two table lookups per element, and copy whole inner runs with memcpy when
// they are contiguous.
#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/native/CpuCapability.h"
#include "aten/native/DimUtils.h"
#include "aten/native/Dispatch.h"
#include "aten/native/IndexUtils.h"
#include "aten/native/Parallel.h"
#include "aten/native/RangeFactories.h"
#include "aten/native/Reduce.h"
#include "aten/native/indexing.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/index_copy__native.h"
#include "ember/generated/ops/index_fill__native.h"
#include "ember/generated/ops/index_select_native.h"

namespace ember::native {
EMBER_CPU_NAMESPACE_BEGIN
namespace {

// The index as int64 values, each checked to lie in [0, size) (IndexError, or RuntimeError
// where PyTorch raises that: index_add).
std::vector<int64_t> read_index(const char* op, const Tensor& index, int64_t dim, int64_t size,
                                bool index_error = true) {
  EMBER_CHECK_TYPE(index.scalar_type() == ScalarType::Long || index.scalar_type() == ScalarType::Int,
                   op, "(): expected 'index' of dtype int64 or int32, but got ", index.scalar_type());
  EMBER_CHECK_INDEX(index.dim() <= 1, op, "(): expected 'index' to be a vector (0-d or 1-d), but "
                    "it has ", index.dim(), " dimensions");
  const Tensor flat = index.reshape({-1}).to(ScalarType::Long).contiguous();
  const int64_t* p = static_cast<const int64_t*>(flat.data_ptr());
  std::vector<int64_t> out(p, p + flat.numel());
  for (int64_t v : out) {
    if (v >= 0 && v < size) continue;
    if (index_error) {
      EMBER_THROW(IndexError, op, "(): index ", v, " is out of bounds for dimension ", dim,
                  " with size ", size);
    }
    EMBER_THROW(Error, op, "(): index ", v, " is out of bounds for dimension ", dim, " with size ", size);
  }
  return out;
}

// out[o, j, i] = self[o, idx[j], i] (Note [Index loops]); out is contiguous.
void index_select_into(const Tensor& self, int64_t dim, const std::vector<int64_t>& idx, Tensor& out) {
  const DimVector sizes = sizes_1d(self), strides = strides_1d(self);
  const int64_t nd = static_cast<int64_t>(sizes.size());
  const std::vector<int64_t> outer = dim_offsets(sizes, strides, 0, dim);
  const std::vector<int64_t> inner = dim_offsets(sizes, strides, dim + 1, nd);
  const int64_t n_inner = static_cast<int64_t>(inner.size());
  const int64_t n_idx = static_cast<int64_t>(idx.size());
  const int64_t stride = strides[dim];
  const bool inner_contiguous = is_row_major_run(sizes, strides, static_cast<size_t>(dim + 1),
                                                 static_cast<size_t>(nd));
  const size_t item = out.element_size();
  char* const dst = static_cast<char*>(out.data_ptr());
  const char* const src = static_cast<const char*>(self.data_ptr());
  const int64_t rows = static_cast<int64_t>(outer.size()) * n_idx;
  dispatch_by_size(item, [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_for(0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(n_inner, 1)),
                 [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t o = r / n_idx, j = r % n_idx;
        const T* s = reinterpret_cast<const T*>(src) + outer[o] + idx[j] * stride;
        T* d = reinterpret_cast<T*>(dst) + r * n_inner;
        if (inner_contiguous) {
          std::memcpy(d, s, static_cast<size_t>(n_inner) * sizeof(T));
        } else {
          for (int64_t i = 0; i < n_inner; ++i) d[i] = s[inner[i]];
        }
      }
    });
  });
}

}  // namespace

Tensor& index_select_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  const int64_t d = wrap_dim("index_select", "dim", dim, self.dim());
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  EMBER_CHECK(out.scalar_type() == self.scalar_type(), "index_select(): expected 'out' of dtype ",
              self.scalar_type(), " (self's), but got ", out.scalar_type());
  EMBER_CHECK(self.dim() > 0 || index.numel() == 1, "index_select(): a 0-d self takes an index of "
              "one element, but 'index' has ", index.numel());
  EMBER_CHECK(size > 0 || index.numel() == 0, "index_select(): cannot select from dimension ", d,
              " of size 0 (the index has ", index.numel(), " elements)");
  const std::vector<int64_t> idx = read_index("index_select", index, d, size);
  DimVector sizes(self.sizes());
  if (self.dim() > 0) sizes[d] = static_cast<int64_t>(idx.size());
  resize_out(out, sizes);
  check_no_internal_overlap("index_select", out.sizes(), out.strides());
  if (out.numel() == 0) return out;
  if (out.is_contiguous() && !out.storage().is_alias_of(self.storage())) {
    index_select_into(self, d, idx, out);
  } else {
    Tensor tmp = ember::empty(sizes, TensorOptions().dtype(self.scalar_type()));
    index_select_into(self, d, idx, tmp);
    out.copy_(tmp);
  }
  return out;
}

Tensor index_select_cpu(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor out = ember::empty({0}, TensorOptions().dtype(self.scalar_type()).device(self.device()));
  return index_select_out_cpu(self, dim, index, out);
}

namespace {

// self[o, index[j], i] = source[o, j, i] (copy) or += alpha * source[o, j, i] (add), in index
// order (Note [Index loops]).
Tensor& index_write(const char* op, Tensor& self, int64_t dim, const Tensor& index,
                    const Tensor& source, const Scalar& alpha, bool add, bool index_error = false) {
  check_no_internal_overlap(op, self.sizes(), self.strides());
  const int64_t d = wrap_dim(op, "dim", dim, self.dim());
  if (!add && index_error) {
    EMBER_CHECK_INDEX(index.scalar_type() == ScalarType::Long, op, "(): expected 'index' of dtype "
                      "int64, but got ", index.scalar_type());
  }
  EMBER_CHECK(add || index.scalar_type() == ScalarType::Long, op, "(): expected 'index' of dtype "
              "int64, but got ", index.scalar_type());
  EMBER_CHECK(source.dim() == self.dim() || (source.dim() <= 1 && self.dim() <= 1), op,
              "(): 'source' must have as many dimensions as self (", self.dim(), "), but has ",
              source.dim());
  EMBER_CHECK(source.scalar_type() == self.scalar_type(), op, "(): expected 'source' of dtype ",
              self.scalar_type(), " (self's), but got ", source.scalar_type());
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  const DimVector ss = sizes_1d(self), rs = sizes_1d(source);
  for (size_t k = 0; k < ss.size(); ++k) {
    const int64_t want = static_cast<int64_t>(k) == d ? index.numel() : ss[k];
    if (rs.size() == ss.size() && rs[k] == want) continue;
    if (index_error && static_cast<int64_t>(k) == d) {
      EMBER_THROW(IndexError, op, "(): the number of indices (", index.numel(), ") should be equal "
                  "to source.size(dim) (", rs[k], ")");
    }
    EMBER_THROW(Error, op, "(): expected 'source' of self's sizes with dimension ", d, " of size ",
                index.numel(), " (the index's length), but self's sizes are ", self.sizes(),
                " and source's ", source.sizes());
  }
  const std::vector<int64_t> idx = read_index(op, index, d, size, index_error);
  if (self.numel() == 0 || source.numel() == 0) return self;
  const Tensor src = source.storage().is_alias_of(self.storage()) ? source.clone() : source;
  const int64_t nd = static_cast<int64_t>(ss.size());
  const DimVector st = strides_1d(self), rt = strides_1d(src);
  const std::vector<int64_t> outer = dim_offsets(ss, st, 0, d);
  const std::vector<int64_t> inner = dim_offsets(ss, st, d + 1, nd);
  const std::vector<int64_t> src_outer = dim_offsets(rs, rt, 0, d);
  const std::vector<int64_t> src_inner = dim_offsets(rs, rt, d + 1, nd);
  dispatch_all_types(self.scalar_type(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T a = add ? checked_scalar_to<T>(alpha, op, "alpha") : T(1);
    T* const dst = static_cast<T*>(self.data_ptr());
    const T* const s = static_cast<const T*>(src.data_ptr());
    // Repeated indices write one row: rows go in index order on one thread; the inner
    // positions are split across threads instead.
    parallel_for(0, static_cast<int64_t>(inner.size()), 4096, [&](int64_t begin, int64_t end) {
      for (size_t o = 0; o < outer.size(); ++o) {
        for (size_t j = 0; j < idx.size(); ++j) {
          T* drow = dst + outer[o] + idx[j] * st[d];
          const T* srow = s + src_outer[o] + static_cast<int64_t>(j) * rt[d];
          for (int64_t i = begin; i < end; ++i) {
            T& x = drow[inner[i]];
            const T v = srow[src_inner[i]];
            if (!add) x = v;
            else if constexpr (std::is_same_v<T, bool>) x = x || (a && v);
            else x = static_cast<T>(x + a * v);
          }
        }
      }
    });
  });
  return self;
}

}  // namespace

Tensor& index_add__cpu(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                       const Scalar& alpha) {
  return index_write("index_add_", self, dim, index, source, alpha, true);
}

Tensor index_add_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                     const Scalar& alpha) {
  Tensor out = self.clone(MemoryFormat::Contiguous);
  return index_write("index_add", out, dim, index, source, alpha, true);
}

Tensor& index_copy__cpu(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  EMBER_CHECK(index.scalar_type() == ScalarType::Long, "index_copy_(): expected 'index' of dtype "
              "int64, but got ", index.scalar_type());
  return index_write("index_copy_", self, dim, index, source, 1, false, /*index_error=*/true);
}

Tensor index_copy_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  Tensor out = self.clone(MemoryFormat::Contiguous);
  return index_copy__cpu(out, dim, index, source);
}

Tensor& index_fill__cpu(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "index_fill_(): only supports a 0-dimensional value tensor, but got "
              "a tensor with ", value.dim(), " dimension(s)");
  const int64_t d = wrap_dim("index_fill_", "dim", dim, self.dim());
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_fill_(): expected 'index' to be a vector (0-d or 1-d), "
                    "but it has ", index.dim(), " dimensions");
  DimVector sizes = sizes_1d(self);
  sizes[d] = index.numel();
  const Tensor v = value.to(self.scalar_type());
  const Tensor source = v.reshape(DimVector(sizes.size(), 1)).expand(sizes);
  return index_write("index_fill_", self, d, index, self.dim() == 0 ? v.expand(index.sizes()) : source, 1,
                     false, /*index_error=*/true);
}

Tensor& index_fill__cpu(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor v = ember::empty({}, TensorOptions().dtype(self.scalar_type()));
  v.fill_(value);
  return index_fill__cpu(self, dim, index, v);
}

Tensor index_fill_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  Tensor out = self.clone();
  return index_fill__cpu(out, dim, index, value);
}

Tensor index_fill_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = self.clone();
  return index_fill__cpu(out, dim, index, value);
}

Tensor repeat_interleave_kernel_cpu(const Tensor& repeats, std::optional<int64_t> output_size) {
  const Tensor counts = repeats.to(ScalarType::Long).contiguous();
  const int64_t* c = static_cast<const int64_t*>(counts.data_ptr());
  int64_t total = 0;
  for (int64_t i = 0; i < counts.numel(); ++i) {
    EMBER_CHECK(c[i] >= 0, "repeat_interleave(): 'repeats' can not be negative, but got ", c[i]);
    total += c[i];
  }
  EMBER_CHECK(!output_size || *output_size == total, "repeat_interleave(): 'output_size' is ",
              *output_size, " but the repeats add up to ", total);
  Tensor out = ember::empty({total}, TensorOptions().dtype(repeats.scalar_type()));
  dispatch_all_types(repeats.scalar_type(), "repeat_interleave", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      T* p = static_cast<T*>(out.data_ptr());
      for (int64_t i = 0; i < counts.numel(); ++i) p = std::fill_n(p, c[i], static_cast<T>(i));
    }
  });
  return out;
}

EMBER_CPU_NAMESPACE_END
}  // namespace ember::native
