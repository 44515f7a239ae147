#pragma once
/// Matrix products on strided tensors: the one place Ember calls a BLAS (Debian's OpenBLAS,
/// OpenMP-threaded; chosen by measurement: benchmarks/README.md, "BLAS choice").
///
/// Note [GEMM operands]: a [batch, rows, cols] operand is handed to the BLAS without a copy
/// when one of its two matrix strides is 1 and the other is at least the matching size
/// (a row-major matrix, or a transposed one); any batch stride is fine for inputs. Other
/// layouts (a sliced column, an expanded row) are copied to a contiguous buffer first. The
/// result is written in place when it is row- or column-major (a column-major result is
/// computed as the transposed product), else into a buffer that is then copied out.
/// float32 and float64 go to the BLAS; every other dtype (integers, float16, bfloat16)
/// to a blocked loop accumulating in int64 or float32.

#include <cstdint>

#include "c10/core/Scalar.h"
#include "c10/core/Tensor.h"

namespace ember::native {

/// out[b] = beta * out[b] + alpha * (a[b] @ bmat[b]) for 3-d a [B, M, K], bmat [B, K, N]
/// and out [B, M, N] of one dtype (a's batch stride may be 0). beta == 0 ignores out's
/// values (NaN included), as BLAS does. out must not overlap a or bmat.
/// CUDA tensors go to the CUDA GEMM (cuBLAS, aten/native/cuda/Blas.cpp).
EMBER_API void gemm_batched(const Tensor& out, const Tensor& a, const Tensor& bmat, const Scalar& alpha,
                            const Scalar& beta);

/// The CUDA GEMM, with gemm_batched's contract: libember_cuda installs it when it loads
/// (Note [The CUDA library]); libember does not link cuBLAS.
using GemmFn = void (*)(const Tensor& out, const Tensor& a, const Tensor& bmat, const Scalar& alpha,
                        const Scalar& beta);
EMBER_API void set_cuda_gemm(GemmFn gemm);

/// The BLAS library and version in use ("OpenBLAS 0.3.21 ... (Zen)"), for ember.__config__.show().
const char* blas_info();

/// Sets the threads of the next BLAS or LAPACK call on this thread to Ember's count.
/// OpenBLAS's OpenMP build runs on omp_get_max_threads() threads, and on one inside a
/// parallel region (it checks omp_in_parallel() itself), so only the outer count is set.
void set_blas_threads();

}  // namespace ember::native
