// Factories: empty and empty_strided per backend; zeros, ones, full, the _like forms,
// scalar_tensor, arange, linspace, logspace and eye written with other ops; the range
// factories' argument checks and Meta kernels. (BackendSelect, generated, picks the backend
// from the device argument; each backend allocates with its own allocator.)
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "aten/native/Dispatch.h"
#include "aten/native/MemoryFormats.h"
#include "aten/native/RangeFactories.h"
#include "c10/backend/Backend.h"
#include "c10/cuda/CudaRuntime.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/arange_native.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/empty_native.h"
#include "ember/generated/ops/empty_strided.h"
#include "ember/generated/ops/empty_strided_native.h"
#include "ember/generated/ops/eye.h"
#include "ember/generated/ops/eye_native.h"
#include "ember/generated/ops/fill_.h"
#include "ember/generated/ops/linspace.h"
#include "ember/generated/ops/logspace.h"
#include "ember/generated/ops/resize__native.h"

namespace ember {
namespace {

int64_t checked_numel(const char* op, IntArrayRef size) {
  int64_t n = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK_VALUE(size[i] >= 0, op, "(): expected 'size' to hold non-negative sizes, but got ",
                      size, " (dimension ", i, " is ", size[i], ")");
    EMBER_CHECK_VALUE(size[i] == 0 || n <= std::numeric_limits<int64_t>::max() / size[i], op,
                      "(): 'size' ", size, " has more elements than int64 can count");
    n *= size[i];
  }
  return n;
}

Tensor empty_with_keys(IntArrayRef size, ScalarType dtype, Device device, DispatchKeySet keys) {
  size_t nbytes = static_cast<size_t>(checked_numel("empty", size)) * itemsize(dtype);
  auto storage = make_intrusive<StorageImpl>(nbytes, get_allocator(device.type()));
  auto impl = make_intrusive<TensorImpl>(Storage(std::move(storage)), keys, dtype);
  impl->set_sizes_contiguous(size);
  return Tensor(std::move(impl));
}

// Bytes a tensor of these sizes and strides spans: 0 when empty, else
// (1 + sum((size - 1) * stride)) elements; errors name op (empty_strided, resize_).
size_t strided_nbytes(IntArrayRef size, IntArrayRef stride, ScalarType dtype,
                      const char* op = "empty_strided") {
  EMBER_CHECK_VALUE(size.size() == stride.size(), op, "(): expected 'size' and 'stride' "
                    "to have the same length, but got ", size.size(), " sizes and ", stride.size(),
                    " strides");
  checked_numel(op, size);
  int64_t last = 0;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK_VALUE(stride[i] >= 0, op, "(): expected 'stride' to hold non-negative "
                      "strides, but got ", stride);
    if (size[i] == 0) return 0;
    EMBER_CHECK_VALUE(stride[i] == 0 || size[i] - 1 <= (std::numeric_limits<int64_t>::max() -
                                                        last) / stride[i],
                      op, "(): sizes ", size, " with strides ", stride,
                      " span more elements than int64 can count");
    last += (size[i] - 1) * stride[i];
  }
  return static_cast<size_t>(last + 1) * itemsize(dtype);
}

Tensor empty_strided_with_keys(IntArrayRef size, IntArrayRef stride, ScalarType dtype,
                               Device device, DispatchKeySet keys) {
  const size_t nbytes = strided_nbytes(size, stride, dtype);
  auto storage = make_intrusive<StorageImpl>(nbytes, get_allocator(device.type()));
  auto impl = make_intrusive<TensorImpl>(Storage(std::move(storage)), keys, dtype);
  impl->set_sizes_and_strides(size, stride, 0);
  return Tensor(std::move(impl));
}


// ValueError unless value fits dtype (as fill_ would require), naming the factory.
void check_fill_value(const char* op, const char* arg, const Scalar& value, ScalarType dtype) {
  dispatch_all_types(dtype, op, [&](auto tag) {
    checked_scalar_to<typename decltype(tag)::type>(value, op, arg);
  });
}

// full()'s dtype when none is given: bool, int64, the default float32, or complex64.
ScalarType full_dtype(const Scalar& value) {
  switch (value.kind()) {
    case Scalar::Kind::Bool: return ScalarType::Bool;
    case Scalar::Kind::Int: return ScalarType::Long;
    case Scalar::Kind::Double: return get_default_dtype();
    case Scalar::Kind::Complex: return get_default_complex_dtype();
  }
  return get_default_dtype();
}

Tensor filled(const char* op, IntArrayRef size, const Scalar& value, ScalarType dtype,
              std::optional<Layout> layout, std::optional<Device> device,
              std::optional<bool> pin_memory) {
  checked_numel(op, size);
  check_fill_value(op, "fill_value", value, dtype);
  Tensor t = ember::empty(size, dtype, layout, device, pin_memory, std::nullopt);
  return ember::fill_(t, value);
}

Tensor filled_like(const char* op, const Tensor& self, const Scalar& value,
                   std::optional<ScalarType> dtype, std::optional<Layout> layout,
                   std::optional<Device> device, std::optional<bool> pin_memory,
                   std::optional<MemoryFormat> memory_format) {
  check_fill_value(op, "fill_value", value, dtype.value_or(self.scalar_type()));
  Tensor t = ember::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  return ember::fill_(t, value);
}

void check_empty_args(std::optional<Layout> layout, std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == Layout::Strided,
                              "empty(): expected 'layout' torch.strided, but got ", *layout,
                              "; sparse factories come with the sparse backend");
  // As PyTorch: there is nothing to preserve when making a tensor from sizes.
  EMBER_CHECK(!memory_format || *memory_format != MemoryFormat::Preserve,
              "empty(): expected 'memory_format' other than preserve_format (there is no input "
              "whose format to preserve), but got preserve_format");
}

// A new tensor of `size` in memory_format (contiguous unless channels_last or _3d).
Tensor empty_in_format(IntArrayRef size, ScalarType dtype, Device device, DispatchKeySet keys,
                       std::optional<MemoryFormat> memory_format) {
  const MemoryFormat f = memory_format.value_or(MemoryFormat::Contiguous);
  if (f == MemoryFormat::Contiguous) return empty_with_keys(size, dtype, device, keys);
  native::check_channels_last_rank("empty", f, size.size());
  return empty_strided_with_keys(size, native::strides_for(size, f), dtype, device, keys);
}

}  // namespace

namespace native {

// resize_ on every device: the storage grows through its own allocator (Allocator::copy_data
// keeps the old bytes, on the device for a backend's), with the storage's device current.
Tensor& resize_(Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK(!self.requires_grad(), "resize_(): cannot resize variables that require grad");
  EMBER_CHECK(self.layout() == Layout::Strided, "resize_(): expected a strided tensor, but got a ",
              layout_name(self.layout()), " one");
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Contiguous);
  EMBER_CHECK(format != MemoryFormat::Preserve,
              "resize_(): memory_format=preserve_format is not supported (a new size has no "
              "layout to preserve); pass contiguous_format or channels_last");
  for (int64_t s : size) {
    EMBER_CHECK(s >= 0, "resize_(): expected non-negative sizes, but got ", size);
  }
  if (format != MemoryFormat::Contiguous) check_channels_last_rank("resize_", format, size.size());
  const DimVector strides = strides_for(size, format);
  TensorImpl* impl = self.impl();
  const size_t needed = strided_nbytes(size, strides, self.dtype(), "resize_") +
                        static_cast<size_t>(impl->storage_offset()) * itemsize(self.dtype());
  const Storage& storage = impl->storage();
  if (storage && needed > storage->nbytes()) {
    EMBER_CHECK(storage->resizable(), "resize_(): the tensor's storage is not resizable (it wraps memory "
                "Ember does not own); it needs ", needed, " bytes and has ", storage->nbytes(),
                "; clone() the tensor first");
    backend::DeviceGuard guard(self.device());
    storage->resize(needed);
  }
  impl->set_sizes_and_strides(size, strides, impl->storage_offset());
  return self;
}

Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  check_empty_args(layout, memory_format);
  static const DispatchKeySet cpu_keys = tensor_key_set(Device(DeviceType::CPU));
  return empty_in_format(size, dtype.value_or(get_default_dtype()), Device(DeviceType::CPU), cpu_keys,
                         memory_format);
}

// CUDA's factories live here, not in libember_cuda: they need no CUDA code, only the CUDA
// allocator (c10/cuda/CudaRuntime.cpp) on the device asked for.
Tensor empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  check_empty_args(layout, memory_format);
  backend::DeviceGuard guard(device.value_or(Device(DeviceType::CUDA)));
  const Device d(DeviceType::CUDA, static_cast<int8_t>(cuda::current_device()));
  static const DispatchKeySet cuda_keys = tensor_key_set(Device(DeviceType::CUDA));
  return empty_in_format(size, dtype.value_or(get_default_dtype()), d, cuda_keys, memory_format);
}

Tensor empty_strided_cuda(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                          std::optional<Layout> layout, std::optional<Device> device,
                          std::optional<bool> pin_memory) {
  check_empty_args(layout, std::nullopt);
  backend::DeviceGuard guard(device.value_or(Device(DeviceType::CUDA)));
  const Device d(DeviceType::CUDA, static_cast<int8_t>(cuda::current_device()));
  static const DispatchKeySet cuda_keys = tensor_key_set(Device(DeviceType::CUDA));
  return empty_strided_with_keys(size, stride, dtype.value_or(get_default_dtype()), d, cuda_keys);
}

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  check_empty_args(layout, memory_format);
  static const DispatchKeySet meta_keys = tensor_key_set(Device(DeviceType::Meta));
  return empty_in_format(size, dtype.value_or(get_default_dtype()), Device(DeviceType::Meta), meta_keys,
                         memory_format);
}

Tensor empty_strided_cpu(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                         std::optional<Layout> layout, std::optional<Device> device,
                         std::optional<bool> pin_memory) {
  check_empty_args(layout, std::nullopt);
  static const DispatchKeySet cpu_keys = tensor_key_set(Device(DeviceType::CPU));
  return empty_strided_with_keys(size, stride, dtype.value_or(get_default_dtype()),
                                 Device(DeviceType::CPU), cpu_keys);
}

Tensor empty_strided_meta(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                          std::optional<Layout> layout, std::optional<Device> device,
                          std::optional<bool> pin_memory) {
  check_empty_args(layout, std::nullopt);
  static const DispatchKeySet meta_keys = tensor_key_set(Device(DeviceType::Meta));
  return empty_strided_with_keys(size, stride, dtype.value_or(get_default_dtype()),
                                 Device(DeviceType::Meta), meta_keys);
}

Tensor empty_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK_NOT_IMPLEMENTED(
      self.layout() == Layout::Strided && layout.value_or(Layout::Strided) == Layout::Strided,
      "empty_like(): only strided tensors are supported so far, but got layout ",
      layout.value_or(self.layout()));
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  const ScalarType dt = dtype.value_or(self.scalar_type());
  const Device dev = device.value_or(self.device());
  // preserve_format keeps a dense tensor's strides (a transposed input gives a transposed
  // result); anything else gets contiguous strides.
  if (format == MemoryFormat::Preserve && native::is_non_overlapping_and_dense(self.sizes(), self.strides())) {
    return ember::empty_strided(self.sizes(), self.strides(), dt, Layout::Strided, dev, pin_memory);
  }
  // preserve_format of a non-dense tensor laid out channels-last gives channels_last (PyTorch's
  // suggest_memory_format).
  MemoryFormat f = format;
  if (f == MemoryFormat::Preserve) {
    f = self.dim() == 4 && native::is_contiguous_in(self.sizes(), self.strides(), MemoryFormat::ChannelsLast) &&
                !self.is_contiguous()
            ? MemoryFormat::ChannelsLast
            : MemoryFormat::Contiguous;
  }
  return ember::empty(self.sizes(), dt, Layout::Strided, dev, pin_memory, f);
}

Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  return filled("zeros", size, 0, dtype.value_or(get_default_dtype()), layout, device, pin_memory);
}

Tensor ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  return filled("ones", size, 1, dtype.value_or(get_default_dtype()), layout, device, pin_memory);
}

Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device,
            std::optional<bool> pin_memory) {
  return filled("full", size, fill_value, dtype.value_or(full_dtype(fill_value)), layout, device,
                pin_memory);
}

Tensor zeros_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return filled_like("zeros_like", self, 0, dtype, layout, device, pin_memory, memory_format);
}

Tensor ones_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return filled_like("ones_like", self, 1, dtype, layout, device, pin_memory, memory_format);
}

Tensor full_like(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device,
                 std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  return filled_like("full_like", self, fill_value, dtype, layout, device, pin_memory,
                     memory_format);
}

Tensor scalar_tensor(const Scalar& s, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                     std::optional<Device> device, std::optional<bool> pin_memory) {
  const ScalarType dt = dtype.value_or(get_default_dtype());
  check_fill_value("scalar_tensor", "s", s, dt);
  Tensor t = ember::empty(IntArrayRef(), dt, layout, device, pin_memory, std::nullopt);
  return ember::fill_(t, s);
}

// ---- arange -----------------------------------------------------------------------------

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              std::optional<ScalarType> dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  auto integral = [](const Scalar& s) { return s.is_integral() || s.is_bool(); };
  const bool all_integral = integral(start) && integral(end) && integral(step);
  const ScalarType dt = dtype.value_or(all_integral ? ScalarType::Long : get_default_dtype());
  arange_size(start, end, step, dt);  // checks before allocating
  Tensor out = ember::empty({0}, dt, layout, device, pin_memory, std::nullopt);
  return ember::arange_out(out, start, end, step);
}

Tensor arange(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  return native::arange(0, end, 1, dtype, layout, device, pin_memory);
}

Tensor arange(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype,
              std::optional<Layout> layout, std::optional<Device> device,
              std::optional<bool> pin_memory) {
  return native::arange(start, end, 1, dtype, layout, device, pin_memory);
}

Tensor& arange_out(const Scalar& end, Tensor& out) {
  ember::arange_out(out, 0, end, 1);
  return out;
}

Tensor& arange_out_meta(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  resize_out_numel(out, arange_size(start, end, step, out.scalar_type()));
  return out;
}

int64_t arange_size(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype) {
  EMBER_CHECK_NOT_IMPLEMENTED(dtype != ScalarType::Bool && !is_complex(dtype),
                              "arange(): not implemented for dtype ", dtype);
  EMBER_CHECK_TYPE(!start.is_complex() && !end.is_complex() && !step.is_complex(),
                   "arange(): expected real 'start', 'end' and 'step', but got ", start, ", ", end,
                   ", ", step);
  // The kernel computes in the accumulation type (int64 for integers, float for 16-bit
  // floats, else double): start, end and step must fit it.
  dispatch_all_types(dtype, "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_integral_v<T>, int64_t,
                                   std::conditional_t<Float16<T>, float, double>>;
    checked_scalar_to<Acc>(start, "arange", "start");
    checked_scalar_to<Acc>(end, "arange", "end");
    checked_scalar_to<Acc>(step, "arange", "step");
  });
  const double dstart = start.to_double(), dend = end.to_double(), dstep = step.to_double();
  EMBER_CHECK_VALUE(dstep > 0 || dstep < 0, "arange(): expected 'step' to be nonzero, but got ",
                    step);
  EMBER_CHECK_VALUE(std::isfinite(dstart) && std::isfinite(dend),
                    "arange(): expected finite 'start' and 'end', but got ", start, " -> ", end);
  EMBER_CHECK_VALUE((dstep > 0 && dend >= dstart) || (dstep < 0 && dend <= dstart),
                    "arange(): expected 'step' to lead from 'start' to 'end', but got start=",
                    start, ", end=", end, ", step=", step);
  double size = 0;
  if (dtype == ScalarType::Long) {
    // int64 counts exactly, from the truncated values (PyTorch's rule).
    const int64_t xstart = start.to_long(), xend = end.to_long(), xstep = step.to_long();
    EMBER_CHECK_VALUE(xstep != 0, "arange(): expected 'step' to be nonzero as int64, but got ",
                      step);
    const int64_t sgn = (xstep > 0) - (xstep < 0);
    size = static_cast<double>((xend - xstart + xstep - sgn) / xstep);
  } else {
    size = std::ceil((dend - dstart) / dstep);
  }
  EMBER_CHECK_VALUE(size >= 0 && size <= static_cast<double>(std::numeric_limits<int64_t>::max()),
                    "arange(): the range ", start, " -> ", end, " by ", step,
                    " has too many elements");
  return static_cast<int64_t>(size);
}

// ---- linspace, logspace ---------------------------------------------------------------------

void check_space_args(const char* op, const Scalar& start, const Scalar& end, int64_t steps,
                      ScalarType dtype) {
  EMBER_CHECK_VALUE(steps >= 0, op, "(): expected 'steps' to be non-negative, but got ", steps);
  EMBER_CHECK_NOT_IMPLEMENTED(dtype != ScalarType::Bool, op, "(): not implemented for dtype ",
                              dtype);
  dispatch_all_types(dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    checked_scalar_to<T>(start, op, "start");
    checked_scalar_to<T>(end, op, "end");
  });
}

namespace {
ScalarType space_dtype(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype) {
  return dtype.value_or(start.is_complex() || end.is_complex() ? get_default_complex_dtype()
                                                               : get_default_dtype());
}
}  // namespace

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory) {
  const ScalarType dt = space_dtype(start, end, dtype);
  check_space_args("linspace", start, end, steps, dt);
  Tensor out = ember::empty({steps}, dt, layout, device, pin_memory, std::nullopt);
  return ember::linspace_out(out, start, end, steps);
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base,
                std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory) {
  const ScalarType dt = space_dtype(start, end, dtype);
  check_space_args("logspace", start, end, steps, dt);
  Tensor out = ember::empty({steps}, dt, layout, device, pin_memory, std::nullopt);
  return ember::logspace_out(out, start, end, steps, base);
}

Tensor& linspace_out_meta(const Scalar& start, const Scalar& end, int64_t steps, Tensor& out) {
  check_space_args("linspace", start, end, steps, out.scalar_type());
  resize_out_numel(out, steps);
  return out;
}

Tensor& logspace_out_meta(const Scalar& start, const Scalar& end, int64_t steps, double base,
                          Tensor& out) {
  check_space_args("logspace", start, end, steps, out.scalar_type());
  resize_out_numel(out, steps);
  return out;
}

// ---- eye ------------------------------------------------------------------------------------

void check_eye_args(int64_t n, int64_t m) {
  EMBER_CHECK_VALUE(n >= 0, "eye(): expected 'n' to be non-negative, but got ", n);
  EMBER_CHECK_VALUE(m >= 0, "eye(): expected 'm' to be non-negative, but got ", m);
}

Tensor eye(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Layout> layout,
           std::optional<Device> device, std::optional<bool> pin_memory) {
  check_eye_args(n, m);
  Tensor out = ember::empty({0}, dtype, layout, device, pin_memory, std::nullopt);
  return ember::eye_out(out, n, m);
}

Tensor eye(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout,
           std::optional<Device> device, std::optional<bool> pin_memory) {
  return native::eye(n, n, dtype, layout, device, pin_memory);
}

Tensor& eye_out(int64_t n, Tensor& out) {
  ember::eye_out(out, n, n);
  return out;
}

Tensor& eye_out_meta(int64_t n, int64_t m, Tensor& out) {
  check_eye_args(n, m);
  resize_out(out, {n, m});
  return out;
}

// ---- out= sizing ----------------------------------------------------------------------------

void resize_out_numel(const Tensor& out, int64_t numel) {
  if (out.numel() != numel) out.impl()->resize({numel});
}

void resize_out(const Tensor& out, IntArrayRef sizes) {
  if (out.sizes() != sizes) out.impl()->resize(sizes);
}

}  // namespace native
}  // namespace ember
