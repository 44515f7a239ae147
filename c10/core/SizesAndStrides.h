#pragma once
/// A tensor's sizes and strides, stored inline for up to kInlineDims dimensions.

#include <cstdint>
#include <cstring>

#include "c10/util/ArrayRef.h"

namespace ember {

/// Sizes and strides of one tensor: no heap allocation for tensors of up to 5 dims.
class SizesAndStrides {
 public:
  static constexpr size_t kInlineDims = 5;

  SizesAndStrides() = default;
  SizesAndStrides(const SizesAndStrides& o) { copy_from(o); }
  SizesAndStrides& operator=(const SizesAndStrides& o) {
    if (this != &o) {
      resize(o.dim_);
      std::memcpy(data(), o.data(), 2 * dim_ * sizeof(int64_t));
    }
    return *this;
  }
  ~SizesAndStrides() {
    if (!is_inline()) delete[] heap_;
  }

  size_t dim() const { return dim_; }
  IntArrayRef sizes() const { return IntArrayRef(data(), dim_); }
  IntArrayRef strides() const { return IntArrayRef(data() + dim_, dim_); }
  int64_t* sizes_data() { return data(); }
  int64_t* strides_data() { return data() + dim_; }

  /// Changes the number of dimensions; existing entries are not preserved.
  void resize(size_t dim) {
    if (dim == dim_) return;
    if (!is_inline()) delete[] heap_;
    dim_ = dim;
    if (!is_inline()) heap_ = new int64_t[2 * dim];
  }
  /// Sets both at once; sizes.size() must equal strides.size().
  void set(IntArrayRef sizes, IntArrayRef strides) {
    resize(sizes.size());
    if (dim_ == 0) return;
    std::memcpy(sizes_data(), sizes.data(), dim_ * sizeof(int64_t));
    std::memcpy(strides_data(), strides.data(), dim_ * sizeof(int64_t));
  }

 private:
  bool is_inline() const { return dim_ <= kInlineDims; }
  int64_t* data() { return is_inline() ? inline_ : heap_; }
  const int64_t* data() const { return is_inline() ? inline_ : heap_; }
  void copy_from(const SizesAndStrides& o) {
    dim_ = o.dim_;
    if (!is_inline()) heap_ = new int64_t[2 * dim_];
    std::memcpy(data(), o.data(), 2 * dim_ * sizeof(int64_t));
  }

  size_t dim_ = 0;
  union {
    int64_t inline_[2 * kInlineDims];
    int64_t* heap_;
  };
};

}  // namespace ember
