// index.Tensor and index_put_: advanced indexing of a tensor's leading dimensions by integer
// tensors (broadcast together) and bool masks (each covering as many dims as it has).
//
// Both compute one element offset per position of the indices' broadcast shape (the sum of
// index value times stride over the indexed dims), then copy (or write, or add) whole rows
// of the remaining dims at those offsets, as index_select does (Note [Index loops]).
#include <cstring>
#include <vector>

#include "aten/TensorOperators.h"
#include "aten/native/DimUtils.h"
#include "aten/native/Dispatch.h"
#include "aten/native/IndexUtils.h"
#include "aten/native/Parallel.h"
#include "aten/native/TensorIterator.h"
#include "ember/generated/Functions.h"
#include "ember/generated/NativeFunctions.h"
#include "c10/util/Exception.h"

namespace ember::native {
namespace {

struct IndexPlan {
  Tensor self;                 // self, with a dim of size 1 for each 0-d bool index
  std::vector<Tensor> indices;  // int64, one per leading dim of self
  DimVector shape;              // the indices' broadcast shape
  Tensor offsets;               // int64 of `shape`: element offsets into self
  DimVector rest_sizes, rest_strides;
};

// Bool masks become the coordinates of their true elements; integer indices are checked
// and wrapped, broadcast together, and turned into element offsets.
IndexPlan plan_index(const char* op, const Tensor& self, TensorList indices) {
  IndexPlan p;
  p.self = self;
  int64_t dim = 0;
  for (size_t k = 0; k < indices.size(); ++k) {
    const Tensor& t = indices[k];
    const ScalarType st = t.scalar_type();
    EMBER_CHECK_INDEX(st == ScalarType::Long || st == ScalarType::Int || st == ScalarType::Bool ||
                      st == ScalarType::Byte, op, "(): tensors used as indices must be long, int, "
                      "byte or bool tensors, but index ", k, " is ", st);
    if (st == ScalarType::Bool || st == ScalarType::Byte) {
      const Tensor mask = st == ScalarType::Bool ? t : t.ne(0);
      if (mask.dim() == 0) {  // a 0-d mask adds a dim of size 1, kept (true) or emptied (false)
        p.self = p.self.unsqueeze(dim);
        p.indices.push_back(ember::arange(mask.item().to_long() ? 1 : 0, TensorOptions().dtype(ScalarType::Long)));
        ++dim;
        continue;
      }
      EMBER_CHECK_INDEX(dim + mask.dim() <= p.self.dim(), op, "(): too many indices for tensor of "
                        "dimension ", self.dim());
      for (int64_t j = 0; j < mask.dim(); ++j) {
        EMBER_CHECK_INDEX(mask.sizes()[j] == p.self.sizes()[dim + j], op, "(): the shape of the mask ",
                          mask.sizes(), " at index ", j, " does not match the shape of the indexed "
                          "tensor ", p.self.sizes(), " at index ", dim + j);
      }
      const Tensor nz = ember::nonzero(mask);
      for (int64_t j = 0; j < mask.dim(); ++j) p.indices.push_back(nz.select(1, j));
      dim += mask.dim();
      continue;
    }
    EMBER_CHECK_INDEX(dim < p.self.dim(), op, "(): too many indices for tensor of dimension ", self.dim());
    p.indices.push_back(t.to(ScalarType::Long));
    ++dim;
  }
  for (size_t k = 0; k < p.indices.size(); ++k) {
    p.shape = k == 0 ? DimVector(p.indices[0].sizes()) : [&] {
      const IntArrayRef a = p.shape, b = p.indices[k].sizes();
      const size_t n = std::max(a.size(), b.size());
      DimVector out(n, 1);
      for (size_t i = 0; i < n; ++i) {
        const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
        const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
        EMBER_CHECK_INDEX(x == y || x == 1 || y == 1, op, "(): shape mismatch: indexing tensors could "
                          "not be broadcast together with shapes ", a, " and ", b);
        out[i] = x == 1 ? y : x;
      }
      return out;
    }();
  }
  p.offsets = ember::zeros(p.shape, TensorOptions().dtype(ScalarType::Long));
  for (size_t k = 0; k < p.indices.size(); ++k) {
    const int64_t size = p.self.sizes()[k];
    Tensor idx = p.indices[k];
    if (idx.numel() > 0) {
      const Tensor bad = ember::logical_or(idx.lt(-size), idx.ge(size));
      if (ember::sum(bad).item().to_long()) {
        const Tensor at = ember::nonzero(bad.reshape({-1})).select(1, 0).narrow(0, 0, 1);
        EMBER_THROW(IndexError, op, "(): index ", idx.reshape({-1}).index_select(0, at).item().to_long(),
                    " is out of bounds for dimension ", k, " with size ", size);
      }
      idx = ember::where(idx.lt(0), idx + size, idx);
    }
    p.offsets = p.offsets + idx * p.self.strides()[k];
  }
  p.offsets = p.offsets.contiguous();
  for (int64_t d = static_cast<int64_t>(p.indices.size()); d < p.self.dim(); ++d) {
    p.rest_sizes.push_back(p.self.sizes()[d]);
    p.rest_strides.push_back(p.self.strides()[d]);
  }
  return p;
}

DimVector result_shape(const IndexPlan& p) {
  DimVector shape(p.shape);
  for (int64_t s : p.rest_sizes) shape.push_back(s);
  return shape;
}

}  // namespace

Tensor index_cpu(const Tensor& self, TensorList indices) {
  EMBER_CHECK_INDEX(!indices.empty(), "index(): expected at least one index tensor");
  const IndexPlan p = plan_index("index", self, indices);
  Tensor out = ember::empty(result_shape(p), TensorOptions().dtype(self.scalar_type()));
  if (out.numel() == 0) return out;
  const std::vector<int64_t> rest = dim_offsets(p.rest_sizes, p.rest_strides, 0, static_cast<int64_t>(p.rest_sizes.size()));
  const int64_t n_rest = static_cast<int64_t>(rest.size());
  const bool rest_contiguous = is_row_major_run(p.rest_sizes, p.rest_strides, 0, p.rest_sizes.size());
  const int64_t* off = static_cast<const int64_t*>(p.offsets.data_ptr());
  const char* src = static_cast<const char*>(p.self.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  dispatch_by_size(self.element_size(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_for(0, p.offsets.numel(), std::max<int64_t>(1, 32768 / n_rest), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T* s = reinterpret_cast<const T*>(src) + off[r];
        T* d = reinterpret_cast<T*>(dst) + r * n_rest;
        if (rest_contiguous) std::memcpy(d, s, static_cast<size_t>(n_rest) * sizeof(T));
        else for (int64_t i = 0; i < n_rest; ++i) d[i] = s[rest[i]];
      }
    });
  });
  return out;
}

Tensor& index_put__cpu(Tensor& self, TensorList indices, const Tensor& values, bool accumulate) {
  EMBER_CHECK_INDEX(!indices.empty(), "index_put_(): expected at least one index tensor");
  check_no_internal_overlap("index_put_", self.sizes(), self.strides());
  const IndexPlan p = plan_index("index_put_", self, indices);
  EMBER_CHECK(values.scalar_type() == self.scalar_type(), "index_put_(): requires the source and "
              "destination dtypes to match, got ", self.scalar_type(), " for the destination and ",
              values.scalar_type(), " for the source");
  const DimVector shape = result_shape(p);
  {
    bool ok = values.dim() <= static_cast<int64_t>(shape.size());
    for (int64_t i = 0; ok && i < values.dim(); ++i) {
      const int64_t v = values.sizes()[values.dim() - 1 - i], s = shape[shape.size() - 1 - i];
      ok = v == s || v == 1;
    }
    EMBER_CHECK(ok, "index_put_(): shape mismatch: value tensor of shape ", values.sizes(),
                " cannot be broadcast to indexing result of shape ", IntArrayRef(shape));
  }
  if (p.offsets.numel() == 0 || self.numel() == 0) return self;
  const Tensor v = values.storage().is_alias_of(self.storage()) ? values.expand(shape).clone(MemoryFormat::Contiguous)
                                                               : values.expand(shape).contiguous();
  const std::vector<int64_t> rest = dim_offsets(p.rest_sizes, p.rest_strides, 0, static_cast<int64_t>(p.rest_sizes.size()));
  const int64_t n_rest = static_cast<int64_t>(rest.size());
  const int64_t* off = static_cast<const int64_t*>(p.offsets.data_ptr());
  dispatch_all_types(self.scalar_type(), "index_put_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = static_cast<T*>(p.self.data_ptr());
    const T* src = static_cast<const T*>(v.data_ptr());
    for (int64_t r = 0; r < p.offsets.numel(); ++r) {
      T* d = dst + off[r];
      const T* s = src + r * n_rest;
      for (int64_t i = 0; i < n_rest; ++i) {
        if (!accumulate) d[rest[i]] = s[i];
        else if constexpr (std::is_same_v<T, bool>) d[rest[i]] = d[rest[i]] || s[i];
        else d[rest[i]] = static_cast<T>(d[rest[i]] + s[i]);
      }
    }
  });
  return self;
}

Tensor index_put_cpu(const Tensor& self, TensorList indices, const Tensor& values, bool accumulate) {
  Tensor out = self.clone();
  return index_put__cpu(out, indices, values, accumulate);
}

}  // namespace ember::native
