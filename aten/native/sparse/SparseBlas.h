#pragma once
/// The inner loops of the sparse products (aten/native/cpu/sparse_blas.cpp, compiled once per
/// CPU capability; Note [CPU capabilities]). The callers (SparseProducts.cpp) have checked
/// shapes and dtypes and give contiguous members; the compressed indices come from a checked
/// tensor (Note [Sparse invariants]), so every index read is in bounds.

#include "aten/native/CpuCapability.h"
#include "c10/core/Tensor.h"

namespace ember::native {

/// out [M, N] = A @ dense, A the CSR matrix [M, K] of crow [M + 1], col [nnz], values [nnz]
/// and dense [K, N] contiguous, all of out's dtype (out is written whole). Rows run in parallel.
EMBER_DECLARE_CPU_KERNEL(void, csr_dense_mm_kernel,
                         (const Tensor& crow, const Tensor& col, const Tensor& values, const Tensor& dense,
                          const Tensor& out))
/// out [M, N] += A @ dense for the CSC matrix A [M, K] of ccol [K + 1], row [nnz], values;
/// out zeroed by the caller. Column blocks of out run in parallel.
EMBER_DECLARE_CPU_KERNEL(void, csc_dense_mm_kernel,
                         (const Tensor& ccol, const Tensor& row, const Tensor& values, const Tensor& dense,
                          const Tensor& out))
/// out [M, N] += dense @ A, dense [M, K] contiguous and A the CSR matrix [K, N]. Rows of
/// dense (and out) run in parallel.
EMBER_DECLARE_CPU_KERNEL(void, dense_csr_mm_kernel,
                         (const Tensor& dense, const Tensor& crow, const Tensor& col, const Tensor& values,
                          const Tensor& out))
/// sums[slot[i]] = the sum of values[compressed[i]:compressed[i + 1]] for every non-empty line
/// i (a CSR's row sums); compressed int32 or int64, values contiguous of sums' dtype, slot
/// [lines + 1] the caller's numbering of the non-empty lines. Lines run in parallel.
EMBER_DECLARE_CPU_KERNEL(void, compressed_line_sum_kernel,
                         (const Tensor& compressed, const Tensor& values, const int64_t* slot, const Tensor& sums))

}  // namespace ember::native
