#include "c10/core/TensorImpl.h"

#include "c10/util/Exception.h"

namespace ember {

TensorImpl::TensorImpl(Storage storage, DispatchKeySet key_set, ScalarType dtype)
    : storage_(std::move(storage)), key_set_(key_set), dtype_(dtype) {
  EMBER_CHECK_VALUE(dtype != ScalarType::Undefined, "TensorImpl(): expected a dtype, but got undefined");
  if (storage_) device_ = storage_->device();
  if (key_set_.has(DispatchKey::SparseCPU) || key_set_.has(DispatchKey::SparseCUDA)) {
    layout_ = Layout::Sparse;
  } else if (key_set_.has(DispatchKey::SparseCsrCPU) || key_set_.has(DispatchKey::SparseCsrCUDA)) {
    layout_ = Layout::SparseCsr;
  } else if (key_set_.has(DispatchKey::MkldnnCPU)) {
    layout_ = Layout::Mkldnn;
  }
  const int64_t zero = 0;
  set_sizes_contiguous(IntArrayRef(&zero, 1));
}

TensorImpl::TensorImpl(UndefinedTag) : dtype_(ScalarType::Undefined) {}

TensorImpl TensorImpl::undefined_{UndefinedTag{}};

TensorImpl::~TensorImpl() {
  if (VersionCounter* v = version_.load(std::memory_order_acquire)) intrusive_release(v);
}

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  sizes_and_strides_.resize(sizes.size());
  int64_t* sz = sizes_and_strides_.sizes_data();
  int64_t* st = sizes_and_strides_.strides_data();
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    sz[i] = sizes[i];
    st[i] = stride;
    stride *= sizes[i] > 1 ? sizes[i] : 1;
  }
  refresh_numel_and_contiguity();
}

void TensorImpl::resize(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK_VALUE(s >= 0, "resize_(): expected non-negative sizes, but got ", sizes);
    n *= s;
  }
  const size_t needed = static_cast<size_t>(n + storage_offset_) * itemsize(dtype_);
  if (storage_ && needed > storage_->nbytes()) {
    EMBER_CHECK(storage_->resizable(), "resize_(): the tensor's storage is not resizable (it wraps "
                "memory Ember does not own); needed ", needed, " bytes, have ", storage_->nbytes());
    storage_->resize(needed);
  }
  set_sizes_contiguous(sizes);
}

void TensorImpl::set_data(const TensorImpl& src) {
  if (&src == this) return;
  storage_ = src.storage_;
  storage_offset_ = src.storage_offset_;
  sizes_and_strides_ = src.sizes_and_strides_;
  dtype_ = src.dtype_;
  refresh_numel_and_contiguity();
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides,
                                       int64_t storage_offset) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size());
  sizes_and_strides_.set(sizes, strides);
  storage_offset_ = storage_offset;
  refresh_numel_and_contiguity();
}

void TensorImpl::refresh_numel_and_contiguity() {
  IntArrayRef sz = sizes(), st = strides();
  int64_t n = 1;
  for (int64_t s : sz) n *= s;
  numel_ = n;
  // As in PyTorch: size-1 dimensions may have any stride; an empty tensor is contiguous.
  bool contiguous = true;
  if (n != 0) {
    int64_t expected = 1;
    for (size_t i = sz.size(); i-- > 0;) {
      if (sz[i] == 1) continue;
      if (st[i] != expected) {
        contiguous = false;
        break;
      }
      expected *= sz[i];
    }
  }
  is_contiguous_ = contiguous;
}

VersionCounter* TensorImpl::version_counter() const {
  VersionCounter* v = version_.load(std::memory_order_acquire);
  if (v) return v;
  auto* fresh = new VersionCounter();
  intrusive_retain(fresh);
  // Two threads may race to create it; the loser frees its own.
  if (version_.compare_exchange_strong(v, fresh, std::memory_order_acq_rel)) return fresh;
  intrusive_release(fresh);
  return v;
}

void TensorImpl::share_version_counter(const TensorImpl& other) {
  VersionCounter* shared = other.version_counter();
  intrusive_retain(shared);
  VersionCounter* old = version_.exchange(shared, std::memory_order_acq_rel);
  if (old) intrusive_release(old);
}

}  // namespace ember
