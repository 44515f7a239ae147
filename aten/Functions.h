#pragma once
/// Typed entry points of the operators implemented so far. Until the generator emits
/// them (one header per operator), they are written here by hand, in the generated form:
/// a cached typed handle and one unboxed call.

#include <optional>

#include "c10/core/MemoryFormat.h"
#include "c10/dispatch/Dispatcher.h"

namespace ember {

namespace ops {
/// aten::empty.memory_format
inline const auto& empty_handle() {
  static const auto op =
      Dispatcher::singleton()
          .find_op_or_throw("aten::empty.memory_format")
          .typed<Tensor(IntArrayRef, std::optional<ScalarType>, std::optional<Layout>,
                        std::optional<Device>, std::optional<bool>, std::optional<MemoryFormat>)>();
  return op;
}
/// aten::view
inline const auto& view_handle() {
  static const auto op =
      Dispatcher::singleton().find_op_or_throw("aten::view").typed<Tensor(const Tensor&, IntArrayRef)>();
  return op;
}
}  // namespace ops

/// Returns an uninitialized tensor of the given size.
inline Tensor empty(IntArrayRef size, std::optional<ScalarType> dtype = std::nullopt,
                    std::optional<Layout> layout = std::nullopt,
                    std::optional<Device> device = std::nullopt,
                    std::optional<bool> pin_memory = std::nullopt,
                    std::optional<MemoryFormat> memory_format = std::nullopt) {
  return ops::empty_handle().call(size, dtype, layout, device, pin_memory, memory_format);
}

/// A tensor sharing self's storage with a new shape (one dim may be -1: inferred).
inline Tensor view(const Tensor& self, IntArrayRef size) { return ops::view_handle().call(self, size); }

}  // namespace ember
