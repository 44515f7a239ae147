#pragma once
/// float32 GEMM on oneDNN (Note [float32 GEMM], aten/native/linalg/Blas.cpp). No oneDNN type
/// appears here: only aten/native/onednn/ includes oneDNN's headers.

#include <cstdint>

namespace ember::native::onednn {

/// c = alpha * op(a) @ op(b) + beta * c for row-major float32 matrices: op(a) is m x k,
/// op(b) k x n, each transposed where asked; beta == 0 ignores c's values. Runs on the
/// calling thread's OpenMP thread count. Throws if oneDNN reports an error.
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace ember::native::onednn
