#pragma once
/// What the backends of gather, scatter, take and put share (scatter_gather.cpp): the
/// reductions of scatter_reduce and the argument checks, so every backend rejects the same
/// calls with the same messages before anything is written. The CPU kernels are in
/// cpu/scatter_gather.cpp.

#include <cstdint>
#include <string_view>

#include "c10/core/Tensor.h"

namespace ember::native {

/// How scatter combines src with what self holds at a target: overwrite (None) or reduce.
enum class ScatterReduce { None, Sum, Prod, Mean, Max, Min };

/// scatter_reduce's `reduce`: sum, prod, mean, amax or amin (max and min too, as PyTorch).
ScatterReduce parse_scatter_reduce(std::string_view r);

/// Checks index's dtype (int64 or int32) and shape against self (and src, when given) by
/// PyTorch's gather/scatter rules; `dim` is already wrapped.
void check_index_shape(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                       const Tensor* src);

/// take/put's index (int64) flattened, checked against n elements (IndexError) and with
/// negative values wrapped.
Tensor flat_index(const char* op, const Tensor& index, int64_t n);

}  // namespace ember::native
