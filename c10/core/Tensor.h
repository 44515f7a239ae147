#pragma once
/// The Tensor handle: a refcounted pointer to a TensorImpl that is never null.

#include <complex>
#include <optional>
#include <ostream>
#include <string_view>
#include <utility>

#include "c10/core/Generator.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/Reduction.h"  // named by generated defaults (codegen/cpp.py)
#include "c10/core/Scalar.h"
#include "c10/core/TensorImpl.h"

namespace ember {

class Tensor;
class TensorOptions;
/// A borrowed list of tensors, as `Tensor[]` arguments are passed.
using TensorList = ArrayRef<Tensor>;

/// A handle to a tensor. Copies share the tensor (like torch.Tensor in Python); an
/// undefined Tensor (default-constructed) points to TensorImpl::undefined().
class EMBER_API Tensor {
 public:
  Tensor() noexcept : impl_(TensorImpl::undefined()) {}
  /// Takes shared ownership of impl (null gives an undefined tensor).
  explicit Tensor(IntrusivePtr<TensorImpl> impl) noexcept
      : impl_(impl ? impl.release() : TensorImpl::undefined()) {}
  Tensor(const Tensor& o) noexcept : impl_(o.impl_) { retain(impl_); }
  Tensor(Tensor&& o) noexcept : impl_(std::exchange(o.impl_, TensorImpl::undefined())) {}
  ~Tensor() { release(impl_); }
  Tensor& operator=(const Tensor& o) noexcept {
    Tensor(o).swap(*this);
    return *this;
  }
  Tensor& operator=(Tensor&& o) noexcept {
    Tensor(std::move(o)).swap(*this);
    return *this;
  }
  void swap(Tensor& o) noexcept { std::swap(impl_, o.impl_); }

  /// Adopts a raw impl that already carries one reference for this handle.
  static Tensor adopt(TensorImpl* impl) noexcept {
    Tensor t;
    t.impl_ = impl;
    return t;
  }
  /// Gives up this handle's reference without releasing it.
  TensorImpl* release() noexcept { return std::exchange(impl_, TensorImpl::undefined()); }

  /// Refcounting that skips the undefined impl (see Note [Undefined tensor]).
  static void retain(TensorImpl* impl) noexcept {
    if (impl->defined()) intrusive_retain(impl);
  }
  static void release(TensorImpl* impl) noexcept {
    if (impl->defined()) intrusive_release(impl);
  }

  TensorImpl* impl() const noexcept { return impl_; }
  bool defined() const { return impl_->defined(); }
  DispatchKeySet key_set() const { return impl_->key_set(); }
  int64_t dim() const { return impl_->dim(); }
  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  /// Size of dimension d; negative d counts from the end. Throws IndexError.
  int64_t size(int64_t d) const;
  /// Stride of dimension d; negative d counts from the end. Throws IndexError.
  int64_t stride(int64_t d) const;
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  ScalarType dtype() const { return impl_->dtype(); }
  size_t element_size() const { return itemsize(impl_->dtype()); }
  Device device() const { return impl_->device(); }
  Layout layout() const { return impl_->layout(); }
  /// dtype, device and layout as factory options (defined in TensorOptions.h).
  TensorOptions options() const;
  bool is_contiguous() const { return impl_->is_contiguous(); }
  const Storage& storage() const { return impl_->storage(); }
  void* data_ptr() const { return impl_->data(); }
  /// Typed pointer to the first element; throws TypeError when T is not the dtype.
  template <class T>
  T* data_ptr_as() const;
  uint32_t use_count() const { return impl_->use_count(); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  /// What PyTorch's repr() gives: "tensor([[1., 2.]], dtype=torch.float64)" (through the
  /// printer aten installs; see Note [Tensor printing hook]).
  std::string str() const;

  // Autograd (defined in aten/autograd/TensorAutograd.cpp, part of libember).
  /// Whether operations on this tensor are recorded for backward.
  bool requires_grad() const;
  /// Marks a leaf as requiring grad (or not); returns *this.
  const Tensor& requires_grad_(bool requires_grad = true) const;
  /// The gradient accumulated by backward (undefined when none).
  Tensor grad() const;
  /// Whether the tensor has no grad_fn (was not computed by a recorded op).
  bool is_leaf() const;
  /// Computes the gradients of this tensor with respect to the leaves of its graph.
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  /// A tensor sharing this one's data, outside the graph.
  Tensor detach() const;
  /// The number of in-place writes to this tensor and its views.
  uint32_t _version() const { return impl_->version(); }

  // The operator methods (t.add(u), t.fill_(1), ...), generated from native_functions.yaml.
#include "ember/generated/TensorMethods.h"

 private:
  TensorImpl* impl_;
};

/// Turns a tensor into text for Tensor::str() and operator<<.
using TensorPrinter = std::string (*)(const Tensor&);
/// Installs the printer Tensor::str() uses (aten installs PyTorch-style printing when
/// libember loads; see Note [Tensor printing hook]). Thread-safe.
EMBER_API void set_tensor_printer(TensorPrinter printer);

/// Writes t.str(): PyTorch's repr() of the tensor.
inline std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

}  // namespace ember
