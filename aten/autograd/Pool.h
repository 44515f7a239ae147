#pragma once
/// Thread-local free lists for autograd's small objects (nodes and AutogradMeta): recording
/// an op allocates two of them, and a free list hands a block back in a few instructions
/// where malloc takes tens of nanoseconds. Note [Autograd pool]: blocks are grouped by size
/// (16-byte classes up to 512 bytes); a block freed on another thread joins that thread's
/// list; each list keeps at most kPoolKeep blocks and is freed when its thread ends. Under
/// AddressSanitizer the pool is off, so use-after-free stays visible.

#include <cstddef>
#include <memory>
#include <new>

#include "c10/macros/Export.h"

namespace ember::autograd {

/// A block of `size` bytes (aligned for any scalar type).
EMBER_API void* pool_allocate(size_t size);
/// Returns a block from pool_allocate(size).
EMBER_API void pool_free(void* p, size_t size) noexcept;

/// An allocator over the pool, for std::allocate_shared.
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(pool_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { pool_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const noexcept { return true; }
};

/// std::make_shared from the pool.
template <class T, class... Args>
std::shared_ptr<T> make_pooled(Args&&... args) {
  return std::allocate_shared<T>(PoolAllocator<T>(), std::forward<Args>(args)...);
}

}  // namespace ember::autograd
