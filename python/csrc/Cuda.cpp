// ember._C's CUDA entry points (c10/cuda/CudaRuntime.h): devices, streams, events, memory
// statistics and pinned memory; python/ember/cuda/ builds torch.cuda's API on them. A
// stream crosses into Python as (device, handle), an event as its handle. Without a device
// each call raises the runtime's ValueError saying why.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tuple>

#include "c10/core/Generator.h"
#include "c10/core/Storage.h"
#include "c10/core/TensorImpl.h"
#include "c10/cuda/CudaRuntime.h"
#include "python/csrc/Autograd.h"
#include "python/csrc/PyTensor.h"

namespace py = pybind11;

namespace ember::python {
namespace {

using StreamTuple = std::tuple<int, uintptr_t>;
StreamTuple as_tuple(DeviceStream s) { return {s.device, s.handle}; }
DeviceStream as_stream(int device, uintptr_t handle) { return {device, handle}; }
void* as_event(uintptr_t e) { return reinterpret_cast<void*>(e); }

const Tensor& tensor_arg(py::handle h, const char* op) {
  if (!is_tensor(h.ptr())) throw py::type_error(std::string(op) + "(): expected a Tensor");
  return unpack(h.ptr());
}

}  // namespace

void init_cuda(py::module_& m) {
  m.def("_cuda_built", &cuda::built);
  m.def("_cuda_arch_list", &cuda::arch_list);
  m.def("_cuda_device_count", &cuda::device_count);
  m.def("_cuda_unavailable_reason", &cuda::unavailable_reason);
  m.def("_cuda_current_device", &cuda::current_device);
  m.def("_cuda_set_device", &cuda::set_device);
  m.def("_cuda_synchronize", [](int device) {
    py::gil_scoped_release unlocked;
    cuda::synchronize(device);
  });
  m.def("_cuda_device_properties", [](int device) {
    const cuda::DeviceProperties p = cuda::device_properties(device);
    return std::make_tuple(p.name, p.major, p.minor, p.total_memory, p.multi_processor_count);
  });
  m.def("_cuda_mem_get_info", [](int device) {
    size_t free = 0, total = 0;
    cuda::mem_get_info(device, &free, &total);
    return std::make_tuple(free, total);
  });
  m.def("_cuda_memory_stats", [](int device) {
    const DeviceMemoryStats s = cuda::memory_stats(device);
    py::dict d;
    d["allocated_bytes.all.current"] = s.allocated_bytes;
    d["allocated_bytes.all.peak"] = s.peak_allocated_bytes;
    d["reserved_bytes.all.current"] = s.reserved_bytes;
    d["reserved_bytes.all.peak"] = s.peak_reserved_bytes;
    d["requested_bytes.all.current"] = s.requested_bytes;
    d["allocation.all.current"] = s.allocations;
    d["segment.all.current"] = s.segments;
    d["num_alloc_retries"] = s.alloc_retries;
    d["num_ooms"] = s.ooms;
    d["num_device_alloc"] = s.driver_mallocs;
    d["num_device_free"] = s.driver_frees;
    return d;
  });
  m.def("_cuda_reset_peak_memory_stats", &cuda::reset_peak_memory_stats);
  m.def("_cuda_empty_cache", &cuda::empty_cache);
  // CUDA's default generator (aten/PhiloxGenerator.cpp registers it in a CUDA build).
  m.def("_cuda_manual_seed", [](uint64_t seed) { default_generator(DeviceType::CUDA).manual_seed(seed); });
  m.def("_cuda_initial_seed", [] { return default_generator(DeviceType::CUDA).initial_seed(); });

  m.def("_cuda_current_stream", [](int device) { return as_tuple(cuda::current_stream(device)); });
  m.def("_cuda_default_stream", [](int device) { return as_tuple(cuda::default_stream(device)); });
  m.def("_cuda_set_stream", [](int device, uintptr_t handle) { cuda::set_current_stream(as_stream(device, handle)); });
  m.def("_cuda_stream_create", [](int device, int priority) {
    return as_tuple(cuda::create_stream(device, priority));
  });
  m.def("_cuda_stream_query", [](int device, uintptr_t h) { return cuda::stream_query(as_stream(device, h)); });
  m.def("_cuda_stream_synchronize", [](int device, uintptr_t h) {
    py::gil_scoped_release unlocked;
    cuda::stream_synchronize(as_stream(device, h));
  });

  m.def("_cuda_event_create", [](bool timing, bool blocking) {
    return reinterpret_cast<uintptr_t>(cuda::event_create(timing, blocking));
  });
  m.def("_cuda_event_destroy", [](uintptr_t e) { cuda::event_destroy(as_event(e)); });
  m.def("_cuda_event_record", [](uintptr_t e, int device, uintptr_t h) {
    cuda::event_record(as_event(e), as_stream(device, h));
  });
  m.def("_cuda_event_query", [](uintptr_t e) { return cuda::event_query(as_event(e)); });
  m.def("_cuda_event_synchronize", [](uintptr_t e) {
    py::gil_scoped_release unlocked;
    cuda::event_synchronize(as_event(e));
  });
  m.def("_cuda_event_wait", [](uintptr_t e, int device, uintptr_t h) {
    cuda::event_wait(as_event(e), as_stream(device, h));
  });
  m.def("_cuda_event_elapsed_ms", [](uintptr_t a, uintptr_t b) { return cuda::event_elapsed_ms(as_event(a), as_event(b)); });

  m.def("_cuda_record_stream", [](py::handle t, int device, uintptr_t h) {
    const Tensor& x = tensor_arg(t, "record_stream");
    if (x.device().type() != DeviceType::CUDA)
      throw py::value_error("record_stream(): expected a CUDA tensor, but got one on " + x.device().str());
    cuda::record_stream(x.storage() ? x.storage()->data_ptr().get() : nullptr, as_stream(device, h));
  });
  // Tensor.pin_memory(): a copy in page-locked memory (the same tensor if it is already).
  m.def("_cuda_is_pinned", [](py::handle t) {
    const Tensor& x = tensor_arg(t, "is_pinned");
    return x.storage() && cuda::pinned_allocator() && x.storage()->allocator() == cuda::pinned_allocator();
  });
  m.def("_cuda_pin_memory", [](py::handle t) {
    const Tensor& x = tensor_arg(t, "pin_memory");
    if (x.device().type() != DeviceType::CPU)
      throw py::value_error("pin_memory(): expected a CPU tensor, but got one on " + x.device().str());
    if (cuda::device_count() == 0) throw std::runtime_error("pin_memory(): CUDA is not available: " + cuda::unavailable_reason());
    const size_t nbytes = static_cast<size_t>(x.numel()) * x.element_size();
    auto storage = make_intrusive<StorageImpl>(nbytes, cuda::pinned_allocator());
    auto impl = make_intrusive<TensorImpl>(Storage(std::move(storage)), x.impl()->key_set(), x.scalar_type());
    impl->set_sizes_contiguous(x.sizes());
    Tensor out(std::move(impl));
    out.copy_(x);
    return py::reinterpret_steal<py::object>(wrap(std::move(out)));
  });
}

}  // namespace ember::python
