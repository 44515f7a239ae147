#pragma once
/// What the backends of the scan family share (scan.cpp): the op enum and the CPU kernel
/// the front ends call. The front ends (cumsum, cumprod, cummax, cummin, logcumsumexp and
/// their in-place and out= forms) check arguments, settle dtypes and size the outputs in
/// scan.cpp; the loops are in cpu/scan.cpp (Note [Scan walk]).

#include <cstdint>

#include "aten/native/CpuCapability.h"
#include "c10/core/Tensor.h"

namespace ember::native {

/// The running operation of a scan.
enum class ScanOp : uint8_t { Sum, Prod, Max, Min, LogSumExp };

/// Scans the contiguous `in` along dim into the contiguous `out` of the same sizes and
/// dtype (and, for Max and Min, the positions into the contiguous int64 `indices`). Sum and
/// Prod accumulate in the dtype's accumulation type (int64 for integers and bool, double
/// for float, float for the 16-bit floats, complex<double> for complex64). `out` may be
/// `in` itself. Neither tensor is empty.
EMBER_DECLARE_CPU_KERNEL(void, scan_kernel_cpu,
                         (ScanOp op, const Tensor& in, const Tensor& out, const Tensor& indices,
                          int64_t dim))

}  // namespace ember::native
