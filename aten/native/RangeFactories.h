#pragma once
/// Argument checks and output sizing shared by the CPU and Meta kernels of arange,
/// linspace, logspace and eye (aten/native/factory.cpp, aten/native/cpu/factory.cpp).

#include "c10/core/Scalar.h"
#include "c10/core/Tensor.h"

namespace ember::native {

/// The number of arange values, by PyTorch's rule: ceil((end - start) / step) in double,
/// except for an int64 out, where start, end and step are first truncated to int64 and the
/// count is exact. Checks step (nonzero, and towards end), finiteness, out's dtype and that
/// start, end and step fit the dtype's accumulation type.
int64_t arange_size(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype);

/// Checks linspace's or logspace's steps (>= 0), that the dtype is supported and that start
/// and end fit it.
void check_space_args(const char* op, const Scalar& start, const Scalar& end, int64_t steps,
                      ScalarType dtype);

/// Checks eye's n and m (>= 0).
void check_eye_args(int64_t n, int64_t m);

/// Gives out `numel` elements as a 1-D tensor, unless it already has that many (then it
/// keeps its shape, as PyTorch's range factories do).
void resize_out_numel(const Tensor& out, int64_t numel);

/// Gives out the sizes (contiguous), unless it already has them.
void resize_out(const Tensor& out, IntArrayRef sizes);

}  // namespace ember::native
