// index.Tensor and index_put_: advanced indexing of a tensor's leading dimensions by integer
// tensors (broadcast together) and bool masks (each covering as many dims as it has).
//
// The plan (index_advanced.h, shared by the backends) computes one element offset per
// position of the indices' broadcast shape (the sum of index value times stride over the
// indexed dims); the kernels (cpu/index_advanced.cpp) copy (or write, or add) whole rows
// of the remaining dims at those offsets.
#include "aten/native/index_advanced.h"

#include "aten/TensorOperators.h"
#include "aten/native/TensorIterator.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/logical_or.h"
#include "ember/generated/ops/nonzero.h"
#include "ember/generated/ops/sum.h"
#include "ember/generated/ops/where.h"
#include "ember/generated/ops/zeros.h"

namespace ember::native {

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

}  // namespace ember::native
