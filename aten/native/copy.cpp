// Copy and conversion ops written with other ops: zero_, clone, contiguous, to, item.
#include "aten/native/MemoryFormats.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/_local_scalar_dense.h"
#include "ember/generated/ops/_to_copy_native.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_like.h"
#include "ember/generated/ops/fill_.h"

namespace ember::native {
namespace {

void check_memory_format(const char* op, const Tensor& self, MemoryFormat memory_format) {
  if (memory_format == MemoryFormat::ChannelsLast || memory_format == MemoryFormat::ChannelsLast3d) {
    check_channels_last_rank(op, memory_format, static_cast<size_t>(self.dim()));
  }
}

}  // namespace

Tensor& zero_(Tensor& self) {
  ember::fill_(self, 0);
  return self;
}

Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  check_memory_format("clone", self, memory_format.value_or(MemoryFormat::Preserve));
  Tensor out = ember::empty_like(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                 memory_format);
  out.copy_(self);
  return out;
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  EMBER_CHECK_VALUE(memory_format != MemoryFormat::Preserve,
                    "contiguous(): expected 'memory_format' to name a layout, but got "
                    "torch.preserve_format");
  check_memory_format("contiguous", self, memory_format);
  if (memory_format == MemoryFormat::Contiguous ? self.is_contiguous()
                                                : is_contiguous_in(self.sizes(), self.strides(), memory_format)) {
    return self;
  }
  return self.clone(memory_format);
}

Tensor to(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  check_memory_format("to", self, format);
  // As PyTorch: no copy when nothing changes. (Asking for contiguous_format does not force a
  // copy of a non-contiguous tensor either: PyTorch compares the suggested format, which is
  // contiguous_format for every layout Ember has.)
  if (self.scalar_type() == dtype && !copy) return self;
  Tensor out = ember::empty_like(self, dtype, std::nullopt, std::nullopt, std::nullopt, format);
  out.copy_(self, non_blocking);
  return out;
}

Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking,
                std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK_NOT_IMPLEMENTED(!layout || *layout == self.layout(), "_to_copy(): changing the layout (to ", *layout,
                              ") is not supported; use to_dense() / to_sparse()");
  EMBER_CHECK_NOT_IMPLEMENTED(!pin_memory || !*pin_memory, "_to_copy(): pin_memory=True needs a CUDA build");
  const ScalarType want = dtype.value_or(self.scalar_type());
  const Device to = device.value_or(self.device());
  const Device from = self.device();
  if (to.type() == from.type() && (!to.has_index() || to.index() == std::max<int8_t>(from.index(), 0))) {
    return ember::native::to(self, want, non_blocking, true, memory_format);
  }
  // Between devices: the element conversion happens on the CPU side (before a copy to a
  // device, after a copy from one), so a backend's copy_ only moves bytes of one dtype.
  const Tensor src = from.is_cpu() && self.scalar_type() != want ? ember::native::to(self, want, false, false, std::nullopt)
                                                                 : self;
  Tensor out = ember::empty(src.sizes(), TensorOptions().dtype(src.scalar_type()).device(to));
  out.copy_(src, non_blocking);
  if (out.scalar_type() != want) out = ember::native::to(out, want, false, false, std::nullopt);
  return out;
}

Scalar item(const Tensor& self) {
  EMBER_CHECK_VALUE(self.numel() == 1, "item(): expected a tensor with one element, but got ",
                    self.numel(), " elements (sizes ", self.sizes(), ")");
  return ember::_local_scalar_dense(self);
}

}  // namespace ember::native
