// libtorch's conversions and whole-tensor predicates on Tensor (declared in c10/core/Tensor.h):
// to(options | device | other), cpu(), equal, allclose, and assignment into a temporary.
#include "c10/core/Tensor.h"
#include "c10/core/TensorOptions.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/_to_copy.h"
#include "ember/generated/ops/all.h"
#include "ember/generated/ops/clone.h"
#include "ember/generated/ops/copy_.h"
#include "ember/generated/ops/eq.h"
#include "ember/generated/ops/fill_.h"
#include "ember/generated/ops/isclose.h"
#include "ember/generated/ops/to.h"

namespace ember {
namespace {

// self with dtype on device: self itself when nothing changes and no copy is asked for;
// between devices a _to_copy (the backends' copy_ kernels, as Python's Tensor.to).
Tensor convert(const Tensor& self, std::optional<Device> device, std::optional<ScalarType> dtype,
               bool non_blocking, bool copy, std::optional<MemoryFormat> memory_format) {
  if (device) {
    const bool same = device->type() == self.device().type() &&
                      (!device->has_index() || device->index() == std::max<int8_t>(self.device().index(), 0));
    if (!same) return ember::_to_copy(self, dtype, std::nullopt, *device, std::nullopt, non_blocking, memory_format);
  }
  if (!dtype) return copy ? self.clone(memory_format) : self;
  return self.to(*dtype, non_blocking, copy, memory_format);
}

}  // namespace

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  EMBER_CHECK_NOT_IMPLEMENTED(!options.layout_opt() || options.layout() == layout(),
                              "to(): changing the layout (to ", options.layout(),
                              ") is not supported; use to_sparse() or to_dense()");
  EMBER_CHECK_VALUE(!options.requires_grad(),
                    "to(): expected options without requires_grad (as libtorch), but got "
                    "requires_grad=true; call requires_grad_() on the result instead");
  return convert(*this, options.device_opt(), options.dtype_opt(), non_blocking, copy, memory_format);
}

Tensor Tensor::to(Device device, ScalarType dtype, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  return convert(*this, device, dtype, non_blocking, copy, memory_format);
}

Tensor Tensor::to(const Tensor& other, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  return convert(*this, other.device(), other.scalar_type(), non_blocking, copy, memory_format);
}

Tensor Tensor::cpu() const {
  return convert(*this, Device(DeviceType::CPU), std::nullopt, false, false, std::nullopt);
}

bool Tensor::equal(const Tensor& other) const {
  EMBER_CHECK_VALUE(defined() && other.defined(),
                    "equal(): expected two defined tensors, but got an undefined one");
  if (sizes() != other.sizes()) return false;
  return ember::eq(*this, other).all().item().to<bool>();
}

bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::isclose(*this, other, rtol, atol, equal_nan).all().item().to<bool>();
}

Tensor& Tensor::operator=(const Tensor& src) && {
  copy_(src);
  return *this;
}

Tensor& Tensor::operator=(const Scalar& v) && {
  fill_(v);
  return *this;
}

}  // namespace ember
