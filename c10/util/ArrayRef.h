#pragma once
/// A non-owning view of a contiguous array, constructible from a braced list.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "c10/macros/Export.h"

namespace ember {

/// Like std::span<const T>, but also binds to `{1, 2, 3}` for the call's duration.
template <class T>
class ArrayRef {
 public:
  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}
  template <size_t N>
  constexpr ArrayRef(const T (&a)[N]) : data_(a), size_(N) {}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  /// Binds to a braced list; valid until the end of the full expression (the call).
  constexpr ArrayRef(std::initializer_list<T> list)
      : data_(list.begin() == list.end() ? nullptr : list.begin()), size_(list.size()) {}
#pragma GCC diagnostic pop

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(ArrayRef a, ArrayRef b) {
    if (a.size_ != b.size_) return false;
    for (size_t i = 0; i < a.size_; ++i) {
      if (!(a.data_[i] == b.data_[i])) return false;
    }
    return true;
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;

/// Writes "[2, 3]": the printer of shapes (and of any list) in messages.
template <class T>
std::ostream& operator<<(std::ostream& os, ArrayRef<T> a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

/// The spellings of a shape: operator<<'s, and the two PyTorch uses besides it.
enum class ShapeStyle : uint8_t {
  List,   ///< "[2, 3]", as operator<< writes it
  Tuple,  ///< "(2, 3)", "(4,)", "()": Python's str(tuple(t.shape)), as reprs write it
  Times,  ///< "2x3" ("()" for no sizes): PyTorch's matmul messages ("(2x3 and 4x5)")
};

/// A shape as text, in one of the spellings.
EMBER_API std::string shape_str(ArrayRef<int64_t> sizes, ShapeStyle style = ShapeStyle::List);

}  // namespace ember
