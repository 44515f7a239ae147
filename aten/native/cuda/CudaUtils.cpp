#include "aten/native/cuda/CudaUtils.h"

#include "aten/BackendFallback.h"

namespace ember::native::cuda {

Device check_same_device(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (t->device().type() == DeviceType::CUDA) {
      if (!first) first = t;
      EMBER_CHECK_VALUE(t->device() == first->device(), op,
                        "(): expected all tensors to be on the same device, but found at least two devices, ",
                        first->device(), " and ", t->device());
    }
  }
  EMBER_INTERNAL_ASSERT(first, op, "(): a CUDA kernel ran without a CUDA operand");
  for (const Tensor* t : tensors) {
    EMBER_CHECK_VALUE(t->device().type() == DeviceType::CUDA || (t->device().type() == DeviceType::CPU && t->dim() == 0),
                      op, "(): expected all tensors to be on the same device, but found at least two devices, ",
                      first->device(), " and ", t->device(), " (a CPU tensor takes part only when it is 0-d)");
  }
  return first->device();
}

// Note [CUDA fallback]: the CUDA kernels cover a part of the operators so far (copies,
// factories, the arithmetic, the unary float family, the reductions, the matrix products).
// Every other operator runs through the CPU fallback of out-of-tree backends (Note [CPU
// fallback]): its CUDA tensors are copied to the host, the CPU kernel runs, the results go
// back. It is correct and slow, and says so: the first call of each operator warns, and
// ember.backends.fallback_stats()["cuda"] counts the calls, so a program's missing kernels
// are a list to work through rather than an error.
namespace {
[[maybe_unused]] const bool fallback_enabled = (backend::enable_cuda_cpu_fallback(), true);
}  // namespace

}  // namespace ember::native::cuda
