#pragma once
/// The memory behind one or more tensors (views share a Storage).

#include <cstddef>

#include "c10/core/Allocator.h"
#include "c10/util/IntrusivePtr.h"

namespace ember {

/// A refcounted block of bytes; resizable when it came from an Allocator.
class EMBER_API StorageImpl : public IntrusiveTarget {
 public:
  /// nbytes from allocator (resizable).
  StorageImpl(size_t nbytes, Allocator* allocator);
  /// Wraps memory owned elsewhere (numpy, DLPack): freed through data's deleter; fixed size.
  StorageImpl(DataPtr data, size_t nbytes);

  void* data() const { return data_.get(); }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device(); }
  bool resizable() const { return allocator_ != nullptr; }
  /// The allocator the bytes came from (null for wrapped memory).
  Allocator* allocator() const { return allocator_; }
  const DataPtr& data_ptr() const { return data_; }
  /// Grows or shrinks to nbytes, keeping the first min(old, new) bytes; throws if the
  /// storage wraps foreign memory.
  void resize(size_t nbytes);
  /// Replaces the memory (nbytes stays as given); returns the old DataPtr.
  DataPtr set_data_ptr(DataPtr data, size_t nbytes);

 private:
  DataPtr data_;
  size_t nbytes_;
  Allocator* allocator_;
};

/// A handle to a StorageImpl.
class EMBER_API Storage {
 public:
  Storage() = default;
  explicit Storage(IntrusivePtr<StorageImpl> impl) : impl_(std::move(impl)) {}
  StorageImpl* impl() const { return impl_.get(); }
  StorageImpl* operator->() const { return impl_.get(); }
  explicit operator bool() const { return static_cast<bool>(impl_); }
  bool is_alias_of(const Storage& o) const { return impl_.get() == o.impl_.get(); }
  uint32_t use_count() const { return impl_.use_count(); }

 private:
  IntrusivePtr<StorageImpl> impl_;
};

}  // namespace ember
