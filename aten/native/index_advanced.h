#pragma once
/// What the backends of index.Tensor and index_put_ share (index_advanced.cpp): the plan of
/// an advanced index, in ember ops, so every backend checks and resolves indices alike.
/// The CPU kernels are in cpu/index_advanced.cpp.

#include <vector>

#include "c10/core/Tensor.h"
#include "c10/util/DimVector.h"

namespace ember::native {

/// An advanced index resolved to element offsets into self.
struct IndexPlan {
  Tensor self;                 // self, with a dim of size 1 for each 0-d bool index
  std::vector<Tensor> indices;  // int64, one per leading dim of self
  DimVector shape;              // the indices' broadcast shape
  Tensor offsets;               // int64 of `shape`: element offsets into self
  DimVector rest_sizes, rest_strides;
};

/// Checks `indices` against self (IndexError naming `op`) and resolves them: bool masks to
/// the coordinates of their true elements, negative integers wrapped, all broadcast
/// together and turned into contiguous element offsets.
IndexPlan plan_index(const char* op, const Tensor& self, TensorList indices);

/// The result's shape: the indices' broadcast shape, then the dims they do not index.
DimVector result_shape(const IndexPlan& p);

}  // namespace ember::native
