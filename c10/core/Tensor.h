#pragma once
/// The Tensor handle: a refcounted pointer to a TensorImpl that is never null.

#include <complex>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string_view>
#include <utility>

#include "c10/core/Generator.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/Reduction.h"  // named by generated defaults (codegen/cpp.py)
#include "c10/core/Scalar.h"
#include "c10/core/TensorAccessor.h"
#include "c10/core/TensorImpl.h"
#include "c10/util/OptionalArrayRef.h"

namespace ember {

class Tensor;
class TensorOptions;
namespace autograd {
class Node;
}  // namespace autograd
namespace indexing {
class TensorIndex;
}  // namespace indexing
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
  Tensor& operator=(const Tensor& o) & noexcept {
    Tensor(o).swap(*this);
    return *this;
  }
  Tensor& operator=(Tensor&& o) & noexcept {
    Tensor(std::move(o)).swap(*this);
    return *this;
  }
  /// Assigning to a temporary writes into its elements, as libtorch's `t[0] = src` does:
  /// src is broadcast and copied in (defined in aten/TensorConversions.cpp).
  Tensor& operator=(const Tensor& src) &&;
  /// `t[0] = 1`: fills the temporary's elements with v.
  Tensor& operator=(const Scalar& v) &&;
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
  /// libtorch's spelling of data_ptr_as<T>().
  template <class T>
  T* data_ptr() const { return data_ptr_as<T>(); }
  template <class T>
  const T* const_data_ptr() const { return data_ptr_as<T>(); }
  template <class T>
  T* mutable_data_ptr() const { return data_ptr_as<T>(); }
  /// Rank-N element access (c10/core/TensorAccessor.h); throws ValueError unless the tensor
  /// has N dims, TypeError unless its dtype is T. Not on temporaries (it would dangle).
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    check_accessor(N);
    return TensorAccessor<T, N>(data_ptr_as<T>(), sizes().data(), strides().data());
  }
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;
  /// The value of a one-element tensor as T (item().to<T>()).
  template <class T>
  T item() const { return item().to<T>(); }
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
  /// The node that computed this tensor (null for leaves and tensors outside the graph).
  std::shared_ptr<autograd::Node> grad_fn() const;

  // libtorch's conversions (defined in aten/TensorConversions.cpp). A device other than
  // this tensor's throws NotImplementedError: Ember copies between devices nowhere yet.
  /// self with options' dtype and device (unset fields keep self's); `t.to(kCPU)` comes
  /// here, as in libtorch, which has no to(Device) alone.
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  /// self on device, with dtype.
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  /// self with other's dtype and device.
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  /// self on the CPU.
  Tensor cpu() const;
  /// Whether self and other have the same sizes and elements (ember::equal).
  bool equal(const Tensor& other) const;
  /// Whether |self - other| <= atol + rtol * |other| everywhere (ember::allclose).
  bool allclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;

  // Indexing with PyTorch's rules (aten/TensorIndexing.h, Note [Indexing]).
  /// self[indices]: `t.index({Slice(), 0, None, "..."})`.
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  /// self[indices] = values; returns self.
  const Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& values) const;
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                           const Tensor& values) const;
  const Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const;
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                           const Scalar& v) const;
  /// self[i]: the i-th entry of the first dim (a view).
  Tensor operator[](int64_t index) const;
  /// self[index] for an integer or boolean index tensor.
  Tensor operator[](const Tensor& index) const;

  // Special C++ overloads, as libtorch's: an int converts to bool by a standard conversion,
  // which beats the conversion to a dim list, so `t.std(1)` would pick `std(bool unbiased)`.
  /// The standard deviation over dim.
  Tensor std(int dim) const { return std(OptionalIntArrayRef(dim)); }
  /// The variance over dim.
  Tensor var(int dim) const { return var(OptionalIntArrayRef(dim)); }

  // The operator methods (t.add(u), t.fill_(1), ...), generated from native_functions.yaml.
#include "ember/generated/TensorMethods.h"

 private:
  // Throws ValueError unless dim() == n (accessor's check, out of line).
  void check_accessor(size_t n) const;

  TensorImpl* impl_;
};

/// Turns a tensor into text for Tensor::str() and operator<<.
using TensorPrinter = std::string (*)(const Tensor&);
/// Installs the printer Tensor::str() uses (aten installs PyTorch-style printing when
/// libember loads; see Note [Tensor printing hook]). Thread-safe.
EMBER_API void set_tensor_printer(TensorPrinter printer);

/// Writes t as libtorch's C++ API prints it (its rows of values, then
/// `[ CPUFloatType{2,3} ]`), not Python's repr (Tensor::str()): defined in aten/Formatting.cpp.
EMBER_API std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace ember
