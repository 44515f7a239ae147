#include "c10/core/Storage.h"

#include <algorithm>
#include <cstring>

#include "c10/util/Exception.h"

namespace ember {

StorageImpl::StorageImpl(size_t nbytes, Allocator* allocator)
    : data_(allocator->allocate(nbytes)), nbytes_(nbytes), allocator_(allocator) {}

StorageImpl::StorageImpl(DataPtr data, size_t nbytes)
    : data_(std::move(data)), nbytes_(nbytes), allocator_(nullptr) {}

void StorageImpl::resize(size_t nbytes) {
  EMBER_CHECK(allocator_ != nullptr,
              "Storage.resize(): this storage wraps memory Ember did not allocate and "
              "cannot be resized; copy the tensor first (clone())");
  if (nbytes == nbytes_) return;
  DataPtr fresh = allocator_->allocate(nbytes);
  size_t keep = std::min(nbytes, nbytes_);
  if (keep > 0) allocator_->copy_data(fresh.get(), data_.get(), keep);
  data_ = std::move(fresh);
  nbytes_ = nbytes;
}

DataPtr StorageImpl::set_data_ptr(DataPtr data, size_t nbytes) {
  std::swap(data_, data);
  nbytes_ = nbytes;
  return data;
}

}  // namespace ember
