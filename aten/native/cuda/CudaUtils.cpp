#include "aten/native/cuda/CudaUtils.h"

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

}  // namespace ember::native::cuda
