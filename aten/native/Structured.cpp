#include "aten/native/Structured.h"

#include "c10/cuda/CudaRuntime.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_native.h"
#include "ember/generated/ops/empty_strided.h"
#include "ember/generated/ops/empty_strided_native.h"

namespace ember {

DispatchKey select_backend_key(Device device, Layout layout) {
  if (EMBER_UNLIKELY(device.type() == DeviceType::CUDA)) {
    const int n = cuda::device_count();
    EMBER_CHECK_NOT_IMPLEMENTED(cuda::built(), "CUDA is not available: ", cuda::unavailable_reason());
    EMBER_CHECK(n > 0, "CUDA is not available: ", cuda::unavailable_reason());
    EMBER_CHECK_VALUE(!device.has_index() || device.index() < n, "expected a cuda device index below ", n,
                      ", but got ", device);
  }
  return backend_key_of(device, layout);
}

Device output_device_of(std::initializer_list<const Tensor*> inputs) {
  for (const Tensor* t : inputs)
    if (!(t->device().type() == DeviceType::CPU && t->dim() == 0)) return t->device();
  return (*inputs.begin())->device();
}

// CPU outputs are made by the CPU factories directly, as PyTorch's structured kernels do:
// the dispatcher has already chosen this backend, and a second trip through it
// (BackendSelect, then CPU) is pure per-op overhead.
Tensor make_output(const TensorMeta& meta, Device device) {
  if (device.type() == DeviceType::CPU) {
    if (!meta.strides.empty()) {
      return native::empty_strided_cpu(meta.sizes, meta.strides, meta.dtype, std::nullopt,
                                       std::nullopt, std::nullopt);
    }
    return native::empty_cpu(meta.sizes, meta.dtype, std::nullopt, std::nullopt, std::nullopt,
                             std::nullopt);
  }
  if (!meta.strides.empty()) {
    return empty_strided(meta.sizes, meta.strides, TensorOptions().dtype(meta.dtype).device(device));
  }
  return empty(meta.sizes, TensorOptions().dtype(meta.dtype).device(device));
}

void check_inplace(const TensorMeta& meta, const Tensor& self, const char* op) {
  EMBER_CHECK_VALUE(self.sizes() == meta.sizes.ref(), op, "(): expected 'self' to have the result's shape ",
                    meta.sizes.ref(), " (in-place ops cannot broadcast self), but got ", self.sizes());
  EMBER_CHECK_TYPE(can_cast(meta.dtype, self.scalar_type()), op, "(): result type ", meta.dtype,
                   " can't be cast to the desired output type ", self.scalar_type());
}

void prepare_out(const TensorMeta& meta, const Tensor& out, const char* op) {
  EMBER_CHECK(!meta.exact_out_dtype || out.scalar_type() == meta.dtype, "Expected out tensor to "
              "have dtype ", meta.dtype, ", but got ", out.scalar_type(), " instead");
  EMBER_CHECK_TYPE(can_cast(meta.dtype, out.scalar_type()), op, "(): result type ", meta.dtype,
                   " can't be cast to the desired output type ", out.scalar_type(), " of 'out'");
  if (out.sizes() == meta.sizes.ref()) return;
  out.impl()->resize(meta.sizes);
}

}  // namespace ember
