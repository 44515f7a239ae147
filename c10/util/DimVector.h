#pragma once
/// A vector of dimension sizes with inline room for kInline entries (no heap allocation
/// for the common case), used for shapes computed on the hot path.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "c10/util/ArrayRef.h"

namespace ember {

/// Sizes (or strides) of a tensor being built; converts to IntArrayRef.
class DimVector {
 public:
  static constexpr size_t kInline = 6;

  DimVector() = default;
  explicit DimVector(size_t n, int64_t value = 0) { assign(n, value); }
  DimVector(IntArrayRef a) { assign(a); }
  DimVector(std::initializer_list<int64_t> l) { assign(IntArrayRef(l)); }
  DimVector(const DimVector& o) { assign(o.ref()); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.ref());
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return heap_.empty() ? inline_ : heap_.data(); }
  const int64_t* data() const { return heap_.empty() ? inline_ : heap_.data(); }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  IntArrayRef ref() const { return IntArrayRef(data(), size_); }
  operator IntArrayRef() const { return ref(); }

  void push_back(int64_t v) {
    resize(size_ + 1);
    data()[size_ - 1] = v;
  }
  /// Inserts v before position i (i <= size()).
  void insert(size_t i, int64_t v) {
    push_back(0);
    int64_t* d = data();
    for (size_t j = size_ - 1; j > i; --j) d[j] = d[j - 1];
    d[i] = v;
  }
  void resize(size_t n, int64_t value = 0) {
    if (n > kInline && heap_.empty()) {
      // Moving to the heap: the inline elements first (none when empty), then room for n.
      heap_.assign(inline_, inline_ + size_);
      heap_.resize(n, value);
    } else if (!heap_.empty()) {
      heap_.resize(std::max(n, kInline + 1), value);
    }
    for (size_t i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  void assign(size_t n, int64_t value) {
    size_ = 0;
    heap_.clear();
    resize(n, value);
  }
  void assign(IntArrayRef a) {
    assign(a.size(), 0);
    std::copy(a.begin(), a.end(), data());
  }
  friend bool operator==(const DimVector& a, const DimVector& b) { return a.ref() == b.ref(); }

 private:
  size_t size_ = 0;
  int64_t inline_[kInline] = {};
  std::vector<int64_t> heap_;
};

}  // namespace ember
