// A toy out-of-tree device for Ember: PrivateUse1 renamed "toy", tensors in host memory,
// kernels for aten::empty.memory_format and aten::view, and a boxed fallback that names
// every other operator a toy tensor reaches. Everything is registered from static
// initializers when the .so is loaded and undone by static destructors when it unloads.
#include <ember/ember.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <vector>

#define TOY_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using ember::Device;
using ember::DeviceType;
using ember::IntArrayRef;
using ember::Tensor;

constexpr const char* kDeviceName = "toy";

std::atomic<int64_t> empty_calls{0};
std::atomic<int64_t> view_calls{0};
std::atomic<int64_t> fallback_calls{0};
std::atomic<int64_t> live_allocations{0};

void toy_free(void* p) {
  std::free(p);
  live_allocations.fetch_sub(1, std::memory_order_relaxed);
}

// Host memory standing in for device memory; counts live blocks so that a host can check
// that no toy tensor is left before it unloads the plugin.
class ToyAllocator final : public ember::Allocator {
 public:
  ember::DataPtr allocate(size_t nbytes) override {
    const Device device(DeviceType::PrivateUse1);
    if (nbytes == 0) return ember::DataPtr(nullptr, nullptr, nullptr, device);
    void* p = std::malloc(nbytes);
    EMBER_CHECK(p != nullptr, "toy allocator: out of memory allocating ", nbytes, " bytes");
    live_allocations.fetch_add(1, std::memory_order_relaxed);
    return ember::DataPtr(p, p, &toy_free, device);
  }
};

ToyAllocator toy_allocator;

// Names the device and installs its allocator on load. The allocator registry keeps a raw
// pointer into this .so, so unloading must take it out again.
struct ToyDevice {
  ToyDevice() {
    try {
      ember::rename_privateuse1_backend(kDeviceName);
      ember::set_allocator(DeviceType::PrivateUse1, &toy_allocator);
    } catch (const std::exception& e) {
      // An exception cannot leave a static initializer; report it as libraries do.
      ember::Dispatcher::singleton().record_library_error(
          ember::str(__FILE__, ": toy device setup failed: ", e.what()));
    }
  }
  ~ToyDevice() { ember::set_allocator(DeviceType::PrivateUse1, nullptr); }
};

ToyDevice toy_device;

int64_t checked_numel(IntArrayRef size) {
  int64_t n = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK_VALUE(size[i] >= 0, "empty(): expected 'size' to hold non-negative sizes, but got ",
                      size);
    EMBER_CHECK_VALUE(size[i] == 0 || n <= std::numeric_limits<int64_t>::max() / size[i],
                      "empty(): 'size' ", size, " has more elements than int64 can count");
    n *= size[i];
  }
  return n;
}

Tensor empty_toy(IntArrayRef size, std::optional<ember::ScalarType> dtype,
                 std::optional<ember::Layout> layout, std::optional<Device> device,
                 std::optional<bool> pin_memory, std::optional<ember::MemoryFormat> memory_format) {
  empty_calls.fetch_add(1, std::memory_order_relaxed);
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == ember::Layout::Strided,
                              "empty(): the toy device supports only strided tensors, but got "
                              "layout ", *layout);
  EMBER_CHECK_NOT_IMPLEMENTED(!memory_format || *memory_format == ember::MemoryFormat::Contiguous ||
                                  *memory_format == ember::MemoryFormat::Preserve,
                              "empty(): the toy device supports only "
                              "memory_format=torch.contiguous_format");
  const ember::ScalarType st = dtype.value_or(ember::ScalarType::Float);
  const size_t nbytes = static_cast<size_t>(checked_numel(size)) * ember::itemsize(st);
  auto storage = ember::make_intrusive<ember::StorageImpl>(
      nbytes, ember::get_allocator(DeviceType::PrivateUse1));
  auto impl = ember::make_intrusive<ember::TensorImpl>(
      ember::Storage(std::move(storage)), ember::tensor_key_set(Device(DeviceType::PrivateUse1)),
      st);
  impl->set_sizes_contiguous(size);
  return Tensor(std::move(impl));
}

// A view of a contiguous tensor: same storage and offset, new contiguous sizes (one -1
// inferred). Strided inputs are left to a real backend.
Tensor view_toy(const Tensor& self, IntArrayRef size) {
  view_calls.fetch_add(1, std::memory_order_relaxed);
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_contiguous(), "view(): the toy device views only "
                              "contiguous tensors, but got strides ", self.strides());
  std::vector<int64_t> sizes(size.begin(), size.end());
  int64_t known = 1;
  std::optional<size_t> infer_at;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK_VALUE(!infer_at, "view(): expected at most one -1 in 'size', but got ", size);
      infer_at = i;
    } else {
      EMBER_CHECK_VALUE(sizes[i] >= 0, "view(): expected 'size' to hold sizes >= -1, but got ",
                        size);
      known *= sizes[i];
    }
  }
  if (infer_at) {
    EMBER_CHECK_VALUE(known != 0 && self.numel() % known == 0, "view(): shape ", size,
                      " is invalid for input of size ", self.numel());
    sizes[*infer_at] = self.numel() / known;
  } else {
    EMBER_CHECK_VALUE(known == self.numel(), "view(): shape ", size,
                      " is invalid for input of size ", self.numel());
  }
  ember::TensorImpl* src = self.impl();
  auto impl = ember::make_intrusive<ember::TensorImpl>(src->storage(), src->key_set(), src->dtype());
  impl->set_sizes_contiguous(sizes);
  impl->set_storage_offset(src->storage_offset());
  impl->share_version_counter(*src);
  return Tensor(std::move(impl));
}

// Every operator without a toy kernel lands here instead of the dispatcher's generic
// missing-kernel error, so the message can say what the toy device does support.
void toy_fallback(const ember::OperatorHandle& op, ember::DispatchKeySet keys, ember::Stack* stack) {
  fallback_calls.fetch_add(1, std::memory_order_relaxed);
  EMBER_THROW(ember::NotImplementedError, op.name().str(), "(): the '", kDeviceName,
              "' device has no kernel for this operator (it implements aten::empty.memory_format "
              "and aten::view); move the tensors to the CPU first, or add a kernel with "
              "EMBER_LIBRARY_IMPL(", op.name().ns, ", PrivateUse1, m)");
}

}  // namespace

EMBER_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", &empty_toy);
  m.impl("view", &view_toy);
}

EMBER_LIBRARY_IMPL(_, PrivateUse1, m) { m.fallback(ember::CppFunction::boxed(&toy_fallback)); }

/// Calls of the toy empty kernel since the plugin was loaded.
TOY_EXPORT int64_t toy_empty_calls() { return empty_calls.load(); }
/// Calls of the toy view kernel since the plugin was loaded.
TOY_EXPORT int64_t toy_view_calls() { return view_calls.load(); }
/// Operators that reached the toy fallback since the plugin was loaded.
TOY_EXPORT int64_t toy_fallback_calls() { return fallback_calls.load(); }
/// Blocks the toy allocator handed out that are not freed yet (toy storages alive).
TOY_EXPORT int64_t toy_live_allocations() { return live_allocations.load(); }
