// The CUDA GEMM (gemm_batched's contract, aten/native/linalg/Blas.h) on cuBLAS, from
// NVIDIA's nvidia-cublas wheel (opened on first use: Note [Loading cuBLAS]). Note [CUDA GEMM]:
//  - cuBLAS is column-major: the row-major product out = a @ b is computed as the
//    column-major out^T = b^T a^T, so out's rows are cuBLAS's columns.
//  - An operand goes in without a copy when each matrix is row-major (unit column stride,
//    row stride >= cols: op N) or column-major (the transposed case: op T), with any batch
//    stride; anything else is made contiguous first. out is written in place when each of
//    its matrices is row-major with batch stride >= rows * cols (or one matrix), else
//    through a contiguous buffer.
//  - float32 computes in float32 (CUBLAS_COMPUTE_32F: no TF32, as PyTorch's default),
//    float16 and bfloat16 in float32 with 16-bit storage, float64 in float64. Integers and
//    complex dtypes have no CUDA GEMM (NotImplementedError, as PyTorch's for integers).
//  - One cuBLAS handle per thread and device, on the thread's current stream.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "aten/native/cuda/CudaUtils.h"
#include "aten/native/linalg/Blas.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"

namespace ember::native::cuda {
namespace {

// Note [Loading cuBLAS]: as libember opens the CUDA runtime (Note [Loading cudart]),
// libember_cuda opens cuBLAS on the first GEMM rather than linking it: NVIDIA ships it only
// in the nvidia-cublas wheel, outside the loader's paths, so a linked libember_cuda would
// need a RUNPATH into one Python environment. It is looked for on the library path, then in
// the wheel's place beside an installed ember package (site-packages/nvidia/cu13/lib).
using GemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                                int, const void*, const void*, cudaDataType, int, long long,
                                                const void*, cudaDataType, int, long long, const void*, void*,
                                                cudaDataType, int, long long, int, cublasComputeType_t,
                                                cublasGemmAlgo_t);
struct Cublas {
  cublasStatus_t (*Create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*SetStream)(cublasHandle_t, cudaStream_t) = nullptr;
  const char* (*GetStatusName)(cublasStatus_t) = nullptr;
  const char* (*GetStatusString)(cublasStatus_t) = nullptr;
  GemmStridedBatchedEx GemmStridedBatched = nullptr;
  std::string error;
};

const Cublas& cublas() {
  static const Cublas* c = [] {
    auto* r = new Cublas;
    std::string tried;
    void* h = ember::cuda::open_nvidia_library("libcublas.so.13", &tried);
    if (!h) {
      r->error = "cuBLAS was not found (tried " + tried + "); install the nvidia-cublas wheel (13.x) or put its "
                 "lib folder on LD_LIBRARY_PATH";
      return r;
    }
    auto get = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (!fn && r->error.empty()) r->error = std::string("libcublas.so.13 has no ") + name;
    };
    get(r->Create, "cublasCreate_v2");
    get(r->SetStream, "cublasSetStream_v2");
    get(r->GetStatusName, "cublasGetStatusName");
    get(r->GetStatusString, "cublasGetStatusString");
    get(r->GemmStridedBatched, "cublasGemmStridedBatchedEx");
    return r;
  }();
  EMBER_CHECK(c->error.empty(), "matmul on CUDA: ", c->error);
  return *c;
}

void check_cublas(cublasStatus_t s, const char* call) {
  EMBER_CHECK(s == CUBLAS_STATUS_SUCCESS, "matmul on CUDA: ", call, " failed: ", cublas().GetStatusName(s), " (",
              cublas().GetStatusString(s), ")");
}

cublasHandle_t handle_for(int device, cudaStream_t stream) {
  thread_local std::vector<cublasHandle_t> handles;
  if (handles.size() <= static_cast<size_t>(device)) handles.resize(static_cast<size_t>(device) + 1, nullptr);
  cublasHandle_t& h = handles[static_cast<size_t>(device)];
  if (!h) check_cublas(cublas().Create(&h), "cublasCreate");  // never destroyed: threads may outlive the driver
  check_cublas(cublas().SetStream(h, stream), "cublasSetStream");
  return h;
}

// How a [batch, rows, cols] operand is read: its (possibly copied) tensor, the cuBLAS op that
// gives its transpose in column-major terms, the leading dimension and the batch stride.
struct Operand {
  Tensor t;
  cublasOperation_t op;
  int64_t ld;
  int64_t batch_stride;
};

Operand operand(const Tensor& x) {
  const int64_t rows = x.sizes()[1], cols = x.sizes()[2];
  const int64_t s1 = x.strides()[1], s2 = x.strides()[2];
  if (s2 == 1 && s1 >= std::max<int64_t>(cols, 1)) return {x, CUBLAS_OP_N, s1, x.strides()[0]};
  if (s1 == 1 && s2 >= std::max<int64_t>(rows, 1)) return {x, CUBLAS_OP_T, s2, x.strides()[0]};
  const Tensor c = x.contiguous();
  return {c, CUBLAS_OP_N, std::max<int64_t>(cols, 1), rows * cols};
}

cudaDataType_t data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return CUDA_R_32F;
    case ScalarType::Double: return CUDA_R_64F;
    case ScalarType::Half: return CUDA_R_16F;
    case ScalarType::BFloat16: return CUDA_R_16BF;
    default: break;
  }
  EMBER_THROW(NotImplementedError, "matmul on CUDA: not implemented for dtype ", t,
              " (float32, float64, float16 and bfloat16 have cuBLAS kernels)");
}

int32_t checked_int(int64_t v, const char* what) {
  EMBER_CHECK(v <= INT32_MAX, "matmul on CUDA: ", what, " ", v, " exceeds cuBLAS's 32-bit sizes");
  return static_cast<int32_t>(v);
}

void gemm_cuda(const Tensor& out, const Tensor& a, const Tensor& bmat, const Scalar& alpha, const Scalar& beta) {
  check_same_device("matmul", {&out, &a, &bmat});
  const cudaDataType_t type = data_type(out.scalar_type());
  const int64_t batch = out.sizes()[0], m = out.sizes()[1], n = out.sizes()[2], k = a.sizes()[2];
  if (out.numel() == 0) return;
  DeviceGuard guard(out.device());
  if (k == 0) {  // an empty sum: beta * out
    if (beta.to_double() == 0.0) out.fill_(0);
    else out.mul_(beta);
    return;
  }
  const Operand oa = operand(a), ob = operand(bmat);
  const bool direct = out.strides()[2] == 1 && out.strides()[1] >= std::max<int64_t>(n, 1) &&
                      (batch == 1 || out.strides()[0] >= m * n);
  const Tensor c = direct ? out : (beta.to_double() == 0.0 ? ember::empty(out.sizes(), out.options()) : out.contiguous());
  const int64_t ldc = c.strides()[1];
  const cudaStream_t stream = current_stream_of(out);
  cublasHandle_t h = handle_for(out.device().index(), stream);
  const bool f64 = out.scalar_type() == ScalarType::Double;
  const double al64 = alpha.to_double(), be64 = beta.to_double();
  const float al32 = static_cast<float>(al64), be32 = static_cast<float>(be64);
  const void* al = f64 ? static_cast<const void*>(&al64) : static_cast<const void*>(&al32);
  const void* be = f64 ? static_cast<const void*>(&be64) : static_cast<const void*>(&be32);
  // out^T (n x m) = op(b) (n x k) . op(a) (k x m), column-major.
  check_cublas(cublas().GemmStridedBatched(
                   h, ob.op, oa.op, checked_int(n, "size"), checked_int(m, "size"), checked_int(k, "size"), al,
                   ob.t.data_ptr(), type, checked_int(ob.ld, "stride"), ob.batch_stride, oa.t.data_ptr(), type,
                   checked_int(oa.ld, "stride"), oa.batch_stride, be, c.data_ptr(), type, checked_int(ldc, "stride"),
                   batch == 1 ? m * n : c.strides()[0], checked_int(batch, "batch"),
                   f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
  if (!direct) out.copy_(c);
}

[[maybe_unused]] const bool installed = (set_cuda_gemm(&gemm_cuda), true);

}  // namespace
}  // namespace ember::native::cuda
