#pragma once
/// The state behind a Tensor handle: storage, geometry, dtype, device and dispatch keys.

#include <atomic>
#include <cstdint>
#include <memory>

#include "c10/core/DispatchKeySet.h"
#include "c10/core/Layout.h"
#include "c10/core/ScalarType.h"
#include "c10/core/SizesAndStrides.h"
#include "c10/core/Storage.h"
#include "c10/util/IntrusivePtr.h"

namespace ember {

/// Counts in-place writes to a tensor and all its views (autograd checks saved tensors
/// against it). Shared by a base and its views.
class EMBER_API VersionCounter : public IntrusiveTarget {
 public:
  uint32_t get() const { return version_.load(std::memory_order_relaxed); }
  void bump() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::atomic<uint32_t> version_{0};
};

/// Whatever autograd keeps on a tensor (requires_grad, grad, grad_fn...); defined by the
/// autograd layer, owned by the TensorImpl.
class EMBER_API AutogradMetaInterface {
 public:
  virtual ~AutogradMetaInterface() = default;
};

/// One tensor's state. Views share the Storage and the VersionCounter of their base.
class EMBER_API TensorImpl : public IntrusiveTarget {
 public:
  /// A tensor over storage with the given dtype and key set; sizes [0], contiguous.
  TensorImpl(Storage storage, DispatchKeySet key_set, ScalarType dtype);
  ~TensorImpl() override;

  int64_t dim() const { return static_cast<int64_t>(sizes_and_strides_.dim()); }
  IntArrayRef sizes() const { return sizes_and_strides_.sizes(); }
  IntArrayRef strides() const { return sizes_and_strides_.strides(); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  Layout layout() const { return layout_; }
  Device device() const { return device_; }
  DispatchKeySet key_set() const { return key_set_; }
  bool is_contiguous() const { return is_contiguous_; }
  const Storage& storage() const { return storage_; }
  /// False only for the impl undefined Tensors point to.
  bool defined() const { return this != &undefined_; }

  /// Address of the first element (storage data + offset * itemsize).
  void* data() const {
    return storage_ ? static_cast<char*>(storage_->data()) + storage_offset_ * itemsize(dtype_)
                    : nullptr;
  }

  /// Sets contiguous (row-major) strides for sizes; recomputes numel and contiguity.
  void set_sizes_contiguous(IntArrayRef sizes);
  /// Sets sizes, strides and offset (a view's geometry); recomputes numel and contiguity.
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  void set_storage_offset(int64_t offset) { storage_offset_ = offset; }
  /// resize_(): makes the tensor contiguous with `sizes`, growing its storage if needed
  /// (old elements keep their place in memory). Throws if the storage cannot grow.
  void resize(IntArrayRef sizes);
  /// `tensor.data = src`: takes src's storage, geometry and dtype, keeping this tensor's
  /// identity, autograd state and version counter. The caller checks the key sets match.
  void set_data(const TensorImpl& src);

  /// The number of in-place writes seen by this tensor and its views.
  uint32_t version() const {
    VersionCounter* v = version_.load(std::memory_order_acquire);
    return v ? v->get() : 0;
  }
  /// Records an in-place write.
  void bump_version() { version_counter()->bump(); }
  /// The shared counter, created on first use.
  VersionCounter* version_counter() const;
  /// Makes this tensor share other's counter (a view shares its base's).
  void share_version_counter(const TensorImpl& other);

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> meta) {
    autograd_meta_ = std::move(meta);
  }

  /// The Python object wrapping this tensor, if one is alive (python/csrc/PyTensor.cpp);
  /// not owned. Read and written only with the GIL held.
  void* pyobj() const { return pyobj_; }
  void set_pyobj(void* obj) { pyobj_ = obj; }

  /// The impl every undefined Tensor points to: never null, never refcounted.
  static TensorImpl* undefined() { return &undefined_; }

 protected:
  /// For layouts that share a key set (sparse_csc has sparse_csr's keys).
  void set_layout(Layout l) { layout_ = l; }

 private:
  struct UndefinedTag {};
  explicit TensorImpl(UndefinedTag);
  // Note [Undefined tensor]: compared by address only, so it is usable before its
  // constructor has run (static initialisation in other libraries).
  static TensorImpl undefined_;
  void refresh_numel_and_contiguity();

  Storage storage_;
  int64_t storage_offset_ = 0;
  SizesAndStrides sizes_and_strides_;
  int64_t numel_ = 0;
  DispatchKeySet key_set_;
  ScalarType dtype_;
  Layout layout_ = Layout::Strided;
  bool is_contiguous_ = true;
  Device device_ = Device(DeviceType::CPU);
  mutable std::atomic<VersionCounter*> version_{nullptr};
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  void* pyobj_ = nullptr;
};

}  // namespace ember
