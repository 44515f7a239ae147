#pragma once
/// Element access with compile-time rank: `auto a = t.accessor<float, 2>(); a[i][j] = 1;`,
/// as libtorch's TensorAccessor. Indexing is unchecked, as there (the rank and dtype are
/// checked once, by Tensor::accessor).

#include <cstddef>
#include <cstdint>

#include "c10/util/ArrayRef.h"

namespace ember {

/// A view of N dims of a strided array of T: a pointer plus borrowed sizes and strides
/// (valid while the tensor it came from is alive).
template <class T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}

  /// The sub-array at index i of the first dim.
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(data_ + strides_[0] * i, sizes_ + 1, strides_ + 1);
  }
  /// Size of dim d (0 <= d < N).
  int64_t size(size_t d) const { return sizes_[d]; }
  /// Stride of dim d, in elements.
  int64_t stride(size_t d) const { return strides_[d]; }
  IntArrayRef sizes() const { return IntArrayRef(sizes_, N); }
  IntArrayRef strides() const { return IntArrayRef(strides_, N); }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

/// The last dim: indexing gives the element.
template <class T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}

  T& operator[](int64_t i) const { return data_[strides_[0] * i]; }
  int64_t size(size_t d) const { return sizes_[d]; }
  int64_t stride(size_t d) const { return strides_[d]; }
  IntArrayRef sizes() const { return IntArrayRef(sizes_, 1); }
  IntArrayRef strides() const { return IntArrayRef(strides_, 1); }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

}  // namespace ember
