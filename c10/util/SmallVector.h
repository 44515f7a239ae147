#pragma once
/// A vector that keeps its first N elements inline (no heap allocation while it stays
/// that small): the edges and input metadata of an autograd node, one or two of each.

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace ember {

template <class T, size_t N>
class SmallVector {
 public:
  SmallVector() = default;
  SmallVector(const SmallVector& o) {
    for (const T& x : o) push_back(x);
  }
  SmallVector(SmallVector&& o) noexcept { take(std::move(o)); }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      clear();
      take(std::move(o));
    }
    return *this;
  }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      clear();
      for (const T& x : o) push_back(x);
    }
    return *this;
  }
  ~SmallVector() { clear(); }

  size_t size() const { return heap_mode_ ? heap_.size() : size_; }
  bool empty() const { return size() == 0; }
  T* data() { return heap_mode_ ? heap_.data() : inline_data(); }
  const T* data() const { return heap_mode_ ? heap_.data() : inline_data(); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size(); }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size(); }
  T& back() { return data()[size() - 1]; }

  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (!heap_mode_ && size_ < N) {
      T* p = new (inline_data() + size_) T(std::forward<Args>(args)...);
      ++size_;
      return *p;
    }
    if (!heap_mode_) spill();
    return heap_.emplace_back(std::forward<Args>(args)...);
  }
  void push_back(const T& x) { emplace_back(x); }
  void push_back(T&& x) { emplace_back(std::move(x)); }

  void clear() {
    if (heap_mode_) {
      heap_.clear();
      heap_.shrink_to_fit();
      heap_mode_ = false;
    } else {
      for (size_t i = 0; i < size_; ++i) inline_data()[i].~T();
    }
    size_ = 0;
  }

 private:
  T* inline_data() { return std::launder(reinterpret_cast<T*>(storage_)); }
  const T* inline_data() const { return std::launder(reinterpret_cast<const T*>(storage_)); }
  void spill() {
    heap_.reserve(2 * N + 2);
    for (size_t i = 0; i < size_; ++i) {
      heap_.push_back(std::move(inline_data()[i]));
      inline_data()[i].~T();
    }
    size_ = 0;
    heap_mode_ = true;
  }
  void take(SmallVector&& o) {
    if (o.heap_mode_) {
      heap_ = std::move(o.heap_);
      heap_mode_ = true;
      o.heap_mode_ = false;
      o.heap_.clear();
    } else {
      for (size_t i = 0; i < o.size_; ++i) {
        new (inline_data() + i) T(std::move(o.inline_data()[i]));
        o.inline_data()[i].~T();
      }
      size_ = o.size_;
    }
    o.size_ = 0;
  }

  alignas(T) unsigned char storage_[N * sizeof(T)];
  size_t size_ = 0;
  bool heap_mode_ = false;
  std::vector<T> heap_;
};

}  // namespace ember
