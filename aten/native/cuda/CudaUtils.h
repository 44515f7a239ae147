#pragma once
/// What the CUDA kernels share: the stream of a tensor's device, launch checks, and the
/// device rule of an op's operands.
#include <cuda_runtime.h>

#include <initializer_list>

#include "c10/core/Tensor.h"
#include "c10/cuda/CudaRuntime.h"
#include "c10/util/Exception.h"

namespace ember::native::cuda {

/// The calling thread's current stream on t's device.
inline cudaStream_t current_stream_of(const Tensor& t) {
  return reinterpret_cast<cudaStream_t>(ember::cuda::current_stream(t.device().index()).handle);
}

/// Raises the launch's error (a kernel that could not start), naming op.
inline void check_launch(const char* op) {
  const cudaError_t e = cudaGetLastError();
  EMBER_CHECK(e == cudaSuccess, op, "(): the CUDA kernel did not launch: ", cudaGetErrorName(e), " (",
              cudaGetErrorString(e), ")");
}

/// Raises a CUDA runtime call's error, naming op and the call.
inline void check_cuda(cudaError_t e, const char* op, const char* call) {
  if (e == cudaSuccess) return;
  cudaGetLastError();
  EMBER_THROW(Error, op, "(): ", call, " failed: ", cudaGetErrorName(e), " (", cudaGetErrorString(e), ")");
}

/// PyTorch's device rule: every tensor operand on one CUDA device; a CPU tensor only as a
/// 0-d operand (a number). ValueError naming op and both devices otherwise. Returns the
/// CUDA device.
Device check_same_device(const char* op, std::initializer_list<const Tensor*> tensors);

/// Makes t's device current for a scope (CUDA kernels run on the current device).
class DeviceGuard {
 public:
  explicit DeviceGuard(Device d) {
    previous_ = ember::cuda::current_device();
    if (d.has_index() && d.index() != previous_) {
      ember::cuda::set_device(d.index());
      index_ = d.index();
    } else {
      index_ = previous_;
    }
  }
  ~DeviceGuard() {
    if (index_ != previous_) ember::cuda::set_device(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0, index_ = 0;
};

}  // namespace ember::native::cuda
