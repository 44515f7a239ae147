// float32 GEMM on oneDNN's dnnl_sgemm (Note [float32 GEMM], aten/native/linalg/Blas.cpp).
#include "aten/native/onednn/Gemm.h"

#include <oneapi/dnnl/dnnl.h>

#include "c10/util/Exception.h"

namespace ember::native::onednn {

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const dnnl_status_t st =
      dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  EMBER_CHECK(st == dnnl_success, "matrix product: oneDNN's sgemm failed (status ", static_cast<int>(st),
              ") for [", m, ", ", k, "] x [", k, ", ", n, "]");
}

}  // namespace ember::native::onednn
