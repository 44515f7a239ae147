#pragma once
/// ExpandingArray<D>: libtorch's fixed-size list of D values that a single value expands
/// into (a kernel size `3` is {3, 3} for a 2-d convolution).

#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"

namespace ember {

/// D values of T, built from one value (repeated) or exactly D values.
template <size_t D, class T = int64_t>
class ExpandingArray {
 public:
  /*implicit*/ ExpandingArray(std::initializer_list<T> list)
      : ExpandingArray(ArrayRef<T>(list.begin(), list.size())) {}
  /*implicit*/ ExpandingArray(const std::vector<T>& values)
      : ExpandingArray(ArrayRef<T>(values.data(), values.size())) {}
  /*implicit*/ ExpandingArray(ArrayRef<T> values) {
    EMBER_CHECK_VALUE(values.size() == D, "ExpandingArray: expected ", D,
                      " values, but got ", values.size());
    for (size_t i = 0; i < D; ++i) values_[i] = values[i];
  }
  /*implicit*/ ExpandingArray(T single_size) { values_.fill(single_size); }
  /*implicit*/ ExpandingArray(const std::array<T, D>& values) : values_(values) {}

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  /// The values as an ArrayRef (what the ops take).
  operator ArrayRef<T>() const { return ArrayRef<T>(values_.data(), D); }
  /// The values as a vector.
  std::vector<T> vec() const { return std::vector<T>(values_.begin(), values_.end()); }
  T operator[](size_t i) const { return values_[i]; }
  static constexpr size_t size() { return D; }

 private:
  std::array<T, D> values_{};
};

template <size_t D, class T>
std::ostream& operator<<(std::ostream& os, const ExpandingArray<D, T>& a) {
  if (D == 1) return os << a[0];
  os << '[';
  for (size_t i = 0; i < D; ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}

}  // namespace ember
