// Factories: empty. (BackendSelect, generated, picks the backend from the device argument;
// each backend allocates with its own allocator.)
#include <limits>

#include "ember/generated/NativeFunctions.h"
#include "c10/util/Exception.h"

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

void check_empty_args(std::optional<Layout> layout, std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == Layout::Strided,
                              "empty(): expected 'layout' torch.strided, but got ", *layout,
                              "; sparse factories come with the sparse backend");
  EMBER_CHECK_NOT_IMPLEMENTED(
      !memory_format || *memory_format == MemoryFormat::Contiguous ||
          *memory_format == MemoryFormat::Preserve,
      "empty(): only memory_format=torch.contiguous_format is supported so far");
}

}  // namespace

namespace native {

Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  check_empty_args(layout, memory_format);
  static const DispatchKeySet cpu_keys = tensor_key_set(Device(DeviceType::CPU));
  return empty_with_keys(size, dtype.value_or(ScalarType::Float), Device(DeviceType::CPU), cpu_keys);
}

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  check_empty_args(layout, memory_format);
  static const DispatchKeySet meta_keys = tensor_key_set(Device(DeviceType::Meta));
  return empty_with_keys(size, dtype.value_or(ScalarType::Float), Device(DeviceType::Meta),
                         meta_keys);
}

}  // namespace native
}  // namespace ember
