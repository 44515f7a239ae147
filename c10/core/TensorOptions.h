#pragma once
/// The options of a factory call (dtype, layout, device, pinned memory, requires_grad),
/// built fluently: `ember::zeros({2, 3}, TensorOptions().dtype(ScalarType::Double))`.

#include <optional>

#include "c10/core/Device.h"
#include "c10/core/Layout.h"
#include "c10/core/ScalarType.h"
#include "c10/core/Tensor.h"

namespace ember {

/// Factory options; unset fields take the factory's defaults (float32, strided, CPU).
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType dtype) : dtype_(dtype) {}
  TensorOptions(Device device) : device_(device) {}
  TensorOptions(DeviceType type) : device_(Device(type)) {}
  TensorOptions(Layout layout) : layout_(layout) {}

  TensorOptions dtype(std::optional<ScalarType> d) const { auto o = *this; o.dtype_ = d; return o; }
  TensorOptions device(std::optional<Device> d) const { auto o = *this; o.device_ = d; return o; }
  TensorOptions layout(std::optional<Layout> l) const { auto o = *this; o.layout_ = l; return o; }
  TensorOptions pinned_memory(std::optional<bool> p) const { auto o = *this; o.pinned_ = p; return o; }
  TensorOptions requires_grad(std::optional<bool> r) const { auto o = *this; o.requires_grad_ = r; return o; }

  /// Each field, or its default when unset (libtorch's getters: the default dtype, CPU,
  /// strided, false); the *_opt() forms say whether it was set.
  ScalarType dtype() const { return dtype_ ? *dtype_ : get_default_dtype(); }
  Device device() const { return device_.value_or(Device(DeviceType::CPU)); }
  Layout layout() const { return layout_.value_or(Layout::Strided); }
  bool pinned_memory() const { return pinned_.value_or(false); }
  bool requires_grad() const { return requires_grad_.value_or(false); }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  std::optional<Layout> layout_opt() const { return layout_; }
  std::optional<bool> pinned_memory_opt() const { return pinned_; }
  std::optional<bool> requires_grad_opt() const { return requires_grad_; }

  /// Whether any field is set to something other than the factories' defaults' "unset".
  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  bool has_layout() const { return layout_.has_value(); }
  bool has_requires_grad() const { return requires_grad_.has_value(); }

  /// Applies what the factory's schema has no argument for (requires_grad) to its result.
  EMBER_API Tensor finish(Tensor t) const;

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Layout> layout_;
  std::optional<Device> device_;
  std::optional<bool> pinned_;
  std::optional<bool> requires_grad_;
};

/// `ember::dtype(kDouble).requires_grad(true)`: options helpers that start a chain, as
/// libtorch's torch::dtype(), torch::device(), torch::layout(), torch::requires_grad().
inline TensorOptions dtype(ScalarType d) { return TensorOptions().dtype(d); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

inline TensorOptions Tensor::options() const {
  return TensorOptions().dtype(scalar_type()).device(device()).layout(layout());
}

}  // namespace ember
