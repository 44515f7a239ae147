#pragma once
/// Reference counting kept inside the object (one allocation, one atomic per copy).

#include <atomic>
#include <cstdint>
#include <utility>

#include "c10/macros/Export.h"

namespace ember {

template <class T>
class IntrusivePtr;

/// Base for objects owned through IntrusivePtr. Starts at refcount 0; the first
/// IntrusivePtr takes it to 1.
class EMBER_API IntrusiveTarget {
 public:
  IntrusiveTarget() = default;
  IntrusiveTarget(const IntrusiveTarget&) = delete;
  IntrusiveTarget& operator=(const IntrusiveTarget&) = delete;
  virtual ~IntrusiveTarget() = default;

  uint32_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

 private:
  template <class T>
  friend class IntrusivePtr;
  template <class T, class... Args>
  friend IntrusivePtr<T> make_intrusive(Args&&... args);
  friend void intrusive_retain(IntrusiveTarget* p);
  friend void intrusive_release(IntrusiveTarget* p);
  mutable std::atomic<uint32_t> refcount_{0};
};

inline void intrusive_retain(IntrusiveTarget* p) {
  p->refcount_.fetch_add(1, std::memory_order_relaxed);
}
inline void intrusive_release(IntrusiveTarget* p) {
  if (p->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p;
}

/// An owning pointer to an IntrusiveTarget; copies bump the count inside the object.
template <class T>
class IntrusivePtr {
 public:
  constexpr IntrusivePtr() noexcept = default;
  constexpr IntrusivePtr(std::nullptr_t) noexcept {}
  /// Takes shared ownership of p (retains it).
  explicit IntrusivePtr(T* p) noexcept : p_(p) {
    if (p_) intrusive_retain(p_);
  }
  IntrusivePtr(const IntrusivePtr& o) noexcept : p_(o.p_) {
    if (p_) intrusive_retain(p_);
  }
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  IntrusivePtr(IntrusivePtr<U>&& o) noexcept : p_(o.release()) {}
  ~IntrusivePtr() {
    if (p_) intrusive_release(p_);
  }
  IntrusivePtr& operator=(const IntrusivePtr& o) noexcept {
    IntrusivePtr(o).swap(*this);
    return *this;
  }
  IntrusivePtr& operator=(IntrusivePtr&& o) noexcept {
    IntrusivePtr(std::move(o)).swap(*this);
    return *this;
  }
  void swap(IntrusivePtr& o) noexcept { std::swap(p_, o.p_); }

  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  uint32_t use_count() const noexcept { return p_ ? p_->use_count() : 0; }
  /// Gives up ownership without releasing; the caller owns one count.
  T* release() noexcept { return std::exchange(p_, nullptr); }
  /// Adopts a pointer that already carries one count for us.
  static IntrusivePtr adopt(T* p) noexcept {
    IntrusivePtr r;
    r.p_ = p;
    return r;
  }

 private:
  T* p_ = nullptr;
};

/// Allocates a T and returns the first owner.
template <class T, class... Args>
IntrusivePtr<T> make_intrusive(Args&&... args) {
  T* p = new T(std::forward<Args>(args)...);
  // Nobody else can see a fresh object: no atomic read-modify-write needed.
  p->refcount_.store(1, std::memory_order_relaxed);
  return IntrusivePtr<T>::adopt(p);
}

}  // namespace ember
