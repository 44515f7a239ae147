// copy_, fill_ and _local_scalar_dense on CUDA. copy_ goes every way between the host and
// the devices: a transfer of contiguous bytes (cudaMemcpyAsync on the current stream), with
// any conversion, broadcast or scatter done on the device by the elementwise launcher
// (Note [CUDA elementwise]) with the CPU's conversion rules (convert() in Dispatch.h).
// A copy to the host returns once the bytes are there; non_blocking=True from or to pinned
// memory only queues it.
#include <cstdint>
#include <cstring>

#include "aten/native/Structured.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cuda/CudaDispatch.h"
#include "aten/native/cuda/Loops.cuh"
#include "ember/generated/ops/_local_scalar_dense.h"
#include "ember/generated/ops/empty.h"

namespace ember::native {
namespace {

template <class To>
struct Convert {
  template <class V>
  EMBER_HOST_DEVICE To operator()(V v) const {
    return convert<To>(v);
  }
};

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

template <class T>
struct Identity {
  EMBER_HOST_DEVICE T operator()(T v) const { return v; }
};

template <class T>
struct Constant {
  T v;
  EMBER_HOST_DEVICE T operator()() const { return v; }
};

template <size_t N>
using BytesOf = std::conditional_t<N == 1, uint8_t,
                std::conditional_t<N == 2, uint16_t,
                std::conditional_t<N == 4, uint32_t, std::conditional_t<N == 8, uint64_t, Bytes16>>>>;

bool cpu_or_cuda(Device d) { return d.type() == DeviceType::CUDA || d.type() == DeviceType::CPU; }

size_t nbytes(const Tensor& t) { return static_cast<size_t>(t.numel()) * t.element_size(); }

Tensor empty_on(const Tensor& like, ScalarType dtype, Device device) {
  return ember::empty(like.sizes(), TensorOptions().dtype(dtype).device(device));
}

// dst = src (broadcast to dst's shape, converted to dst's dtype), both on one device.
void device_copy(const Tensor& dst, const Tensor& src) {
  cuda::DeviceGuard guard(dst.device());
  if (dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && dst.is_contiguous() && src.is_contiguous()) {
    ember::cuda::memcpy_async(dst.data_ptr(), src.data_ptr(), nbytes(dst), ember::cuda::CopyDirection::DeviceToDevice,
                              ember::cuda::current_stream(dst.device().index()));
    return;
  }
  const TensorIterator it({&dst}, {&src}, "copy_");
  if (dst.dtype() == src.dtype()) {
    auto go = [&](auto tag) {
      using B = typename decltype(tag)::type;
      cuda::launch<B, B, 1>(it, Identity<B>{}, "copy_");
    };
    switch (dst.element_size()) {
      case 1: go(TypeTag<BytesOf<1>>{}); return;
      case 2: go(TypeTag<BytesOf<2>>{}); return;
      case 4: go(TypeTag<BytesOf<4>>{}); return;
      case 8: go(TypeTag<BytesOf<8>>{}); return;
      default: go(TypeTag<BytesOf<16>>{}); return;
    }
  }
  cuda::dispatch_types(dst.scalar_type(), "copy_", [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    cuda::dispatch_types(src.scalar_type(), "copy_", [&](auto stag) {
      using S = typename decltype(stag)::type;
      cuda::launch<D, S, 1>(it, Convert<D>{}, "copy_");
    });
  });
}

bool is_pinned(const Tensor& t) { return t.storage() && t.storage()->allocator() == ember::cuda::pinned_allocator(); }

}  // namespace

Tensor& copy_cuda(Tensor& self, const Tensor& src, bool non_blocking) {
  EMBER_CHECK_VALUE(cpu_or_cuda(self.device()) && cpu_or_cuda(src.device()), "copy_(): cannot copy between ",
                    src.device(), " and ", self.device());
  const DimVector shape = broadcast_shapes(self.sizes(), src.sizes(), "copy_");
  EMBER_CHECK_VALUE(shape.ref() == self.sizes(), "copy_(): the source of sizes ", src.sizes(),
                    " does not broadcast to the destination's ", self.sizes());
  if (self.numel() == 0 || self.is_same(src)) return self;
  const bool to_device = self.device().type() == DeviceType::CUDA;
  const bool from_device = src.device().type() == DeviceType::CUDA;
  if (to_device && from_device) {
    if (self.device() == src.device()) {
      device_copy(self, src);
      return self;
    }
    // Between devices: src's bytes, contiguous, once src's queued work is done; then the
    // conversion and scatter on self's device.
    const Tensor packed = src.contiguous();
    Tensor staged = empty_on(src, src.scalar_type(), self.device());
    ember::cuda::stream_synchronize(ember::cuda::current_stream(src.device().index()));
    ember::cuda::memcpy_async(staged.data_ptr(), packed.data_ptr(), nbytes(packed),
                              ember::cuda::CopyDirection::DeviceToDevice,
                              ember::cuda::current_stream(self.device().index()));
    device_copy(self, staged);
    return self;
  }
  if (to_device) {
    // host -> device: one transfer of src's contiguous bytes, then the conversion and
    // scatter on the device when self needs them.
    const Tensor host = src.contiguous();
    const bool direct = self.is_contiguous() && self.dtype() == src.dtype() && self.sizes() == src.sizes();
    Tensor staged = direct ? self : empty_on(src, src.scalar_type(), self.device());
    const DeviceStream stream = ember::cuda::current_stream(self.device().index());
    ember::cuda::memcpy_async(staged.data_ptr(), host.data_ptr(), nbytes(host), ember::cuda::CopyDirection::HostToDevice,
                              stream);
    // A pageable source is copied before the call returns; a pinned one only when the
    // stream gets there, so a temporary must not be freed before (and without
    // non_blocking, the caller may write src right after).
    if (is_pinned(host) && (!non_blocking || !host.is_same(src))) ember::cuda::stream_synchronize(stream);
    if (!direct) device_copy(self, staged);
    return self;
  }
  // device -> host: the conversion on the device, one transfer, the scatter on the host.
  const bool direct = src.is_contiguous() && src.dtype() == self.dtype() && src.sizes() == self.sizes();
  Tensor staged = src;
  if (!direct) {
    staged = empty_on(self, self.scalar_type(), src.device());
    device_copy(staged, src);
  }
  const bool host_direct = self.is_contiguous();
  Tensor host = host_direct ? self : empty_on(self, self.scalar_type(), Device(DeviceType::CPU));
  const DeviceStream stream = ember::cuda::current_stream(src.device().index());
  ember::cuda::memcpy_async(host.data_ptr(), staged.data_ptr(), nbytes(host), ember::cuda::CopyDirection::DeviceToHost,
                            stream);
  if (!(non_blocking && host_direct && is_pinned(self))) ember::cuda::stream_synchronize(stream);
  if (!host_direct) self.copy_(host);
  return self;
}

Tensor& fill_scalar_cuda(Tensor& self, const Scalar& value) {
  cuda::dispatch_types(self.scalar_type(), "fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = checked_scalar_to<T>(value, "fill_", "value");
    if (self.numel() == 0) return;
    cuda::DeviceGuard guard(self.device());
    cuda::launch<T, T, 0>(TensorIterator({&self}, {}, "fill_"), Constant<T>{v}, "fill_");
  });
  return self;
}

Scalar _local_scalar_dense_cuda(const Tensor& self) {
  EMBER_CHECK_VALUE(self.numel() > 0, "_local_scalar_dense(): expected a non-empty tensor, but got sizes ", self.sizes());
  Tensor host = ember::empty({}, TensorOptions().dtype(self.scalar_type()));
  copy_cuda(host, self.reshape({-1}).slice(0, 0, 1).reshape({}), false);
  return ember::_local_scalar_dense(host);
}

}  // namespace ember::native
