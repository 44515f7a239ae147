// gather, scatter (src, value, add, reduce), take and put: the checks and reduce names
// their backends share (scatter_gather.h), and take_along_dim (composite, through gather).
// The CPU kernels are in cpu/scatter_gather.cpp.
#include "aten/native/scatter_gather.h"

#include <algorithm>

#include "aten/TensorOperators.h"
#include "aten/native/DimUtils.h"
#include "aten/native/IndexUtils.h"
#include "aten/native/TensorIterator.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/logical_or.h"
#include "ember/generated/ops/nonzero.h"
#include "ember/generated/ops/reshape.h"
#include "ember/generated/ops/sum.h"
#include "ember/generated/ops/where.h"

namespace ember::native {

// PyTorch's gather/scatter shape rules: index has self's number of dims (0-d counts as 1-d)
// and, except along dim, is no larger than self (and src, for scatter).
void check_index_shape(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                       const Tensor* src) {
  EMBER_CHECK(index.scalar_type() == ScalarType::Long || index.scalar_type() == ScalarType::Int, op,
              "(): expected 'index' of dtype int64 or int32, but got ", index.scalar_type());
  const DimVector ss = sizes_1d(self), is = sizes_1d(index);
  EMBER_CHECK(std::max<int64_t>(index.dim(), 1) == std::max<int64_t>(self.dim(), 1), op,
              "(): 'index' must have the same number of dimensions as self (", self.dim(),
              "), but has ", index.dim());
  if (index.numel() == 0) return;
  for (size_t d = 0; d < ss.size(); ++d) {
    EMBER_CHECK(static_cast<int64_t>(d) == dim || is[d] <= ss[d], op, "(): size does not match at "
                "dimension ", d, ": expected index ", index.sizes(), " to be no larger than self ",
                self.sizes(), " apart from dimension ", dim);
  }
  if (src) {
    const DimVector rs = sizes_1d(*src);
    EMBER_CHECK(std::max<int64_t>(src->dim(), 1) == static_cast<int64_t>(ss.size()), op,
                "(): 'src' must have the same number of dimensions as self (", self.dim(),
                "), but has ", src->dim());
    for (size_t d = 0; d < ss.size(); ++d) {
      EMBER_CHECK(is[d] <= rs[d], op, "(): expected index ", index.sizes(), " to be no larger "
                  "than src ", src->sizes());
    }
  }
}

ScatterReduce parse_scatter_reduce(std::string_view r) {
  if (r == "sum") return ScatterReduce::Sum;
  if (r == "prod") return ScatterReduce::Prod;
  if (r == "mean") return ScatterReduce::Mean;
  if (r == "amax" || r == "max") return ScatterReduce::Max;  // PyTorch accepts max and min too
  if (r == "amin" || r == "min") return ScatterReduce::Min;
  EMBER_THROW(Error, "scatter_reduce(): expected 'reduce' to be sum, prod, mean, amax or amin, but got '",
              r, "'");
}

// index with negative values wrapped, checked against n (IndexError, as PyTorch's take/put).
Tensor flat_index(const char* op, const Tensor& index, int64_t n) {
  EMBER_CHECK(index.scalar_type() == ScalarType::Long, op, "(): expected 'index' of dtype int64, "
              "but got ", index.scalar_type());
  const Tensor flat = index.reshape({-1});
  if (flat.numel() == 0) return flat;
  const Tensor bad = ember::logical_or(flat.lt(-n), flat.ge(n));
  if (ember::sum(bad).item().to_long()) {
    const Tensor at = ember::nonzero(bad).select(1, 0).narrow(0, 0, 1);
    EMBER_THROW(IndexError, op, "(): out of range: tried to access index ",
                flat.index_select(0, at).item().to_long(), " on a tensor of ", n, " elements");
  }
  return ember::where(flat.lt(0), flat + n, flat);
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  if (!dim) return ember::reshape(self, {-1}).gather(0, ember::reshape(indices, {-1}));
  EMBER_CHECK(indices.scalar_type() == ScalarType::Long, "take_along_dim(): expected 'indices' of "
              "dtype int64, but got ", indices.scalar_type());
  EMBER_CHECK(self.dim() == indices.dim(), "take_along_dim(): 'indices' must have the same number of "
              "dimensions as self (", self.dim(), "), but has ", indices.dim());
  const int64_t d = wrap_dim("take_along_dim", "dim", *dim, self.dim());
  DimVector self_sizes(self.sizes()), index_sizes(indices.sizes());
  if (self.dim() > 0) {
    self_sizes[d] = 1;
    index_sizes[d] = 1;
  }
  DimVector shape = broadcast_shapes(self_sizes, index_sizes, "take_along_dim");
  DimVector s_shape(shape), i_shape(shape);
  if (self.dim() > 0) {
    s_shape[d] = self.sizes()[d];
    i_shape[d] = indices.sizes()[d];
  }
  return self.expand(s_shape).gather(d, indices.expand(i_shape));
}

}  // namespace ember::native
