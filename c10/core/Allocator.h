#pragma once
/// Memory for tensors: an owning DataPtr with its deleter, and per-device allocators.

#include <cstddef>
#include <utility>

#include "c10/core/Device.h"
#include "c10/macros/Export.h"

namespace ember {

/// Frees the memory a DataPtr owns; receives the DataPtr's context.
using DeleterFn = void (*)(void* context);

/// Owns a block of memory through (context, deleter); data may point inside it.
class EMBER_API DataPtr {
 public:
  DataPtr() = default;
  DataPtr(void* data, void* context, DeleterFn deleter, Device device)
      : data_(data), context_(context), deleter_(deleter), device_(device) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept { swap(o); }
  DataPtr& operator=(DataPtr&& o) noexcept {
    DataPtr(std::move(o)).swap(*this);
    return *this;
  }
  ~DataPtr() {
    if (deleter_) deleter_(context_);
  }
  void swap(DataPtr& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(context_, o.context_);
    std::swap(deleter_, o.deleter_);
    std::swap(device_, o.device_);
  }

  void* get() const { return data_; }
  void* context() const { return context_; }
  DeleterFn deleter() const { return deleter_; }
  Device device() const { return device_; }

 private:
  void* data_ = nullptr;
  void* context_ = nullptr;
  DeleterFn deleter_ = nullptr;
  Device device_ = Device(DeviceType::CPU);
};

/// Hands out memory for one device type.
class EMBER_API Allocator {
 public:
  virtual ~Allocator() = default;
  /// Allocates nbytes (nbytes == 0 gives a null, valid DataPtr); throws on exhaustion.
  virtual DataPtr allocate(size_t nbytes) = 0;
  /// Copies nbytes from one block of this allocator's to another (growing a storage keeps
  /// its bytes through it): a host memcpy by default; a device allocator copies on the
  /// device, ordered after the work queued there.
  virtual void copy_data(void* dst, const void* src, size_t nbytes) const;
};

/// Alignment of every CPU allocation (a cache line; the widest SIMD load).
inline constexpr size_t kCpuAlignment = 64;

/// The process-wide CPU allocator: 64-byte-aligned blocks.
EMBER_API Allocator* cpu_allocator();

/// The CPU allocator's counters: blocks held by tensors (leak tests read these) and freed
/// large blocks kept for reuse (Note [CPU caching allocator]).
struct CpuAllocatorStats {
  int64_t allocations = 0;  ///< non-empty allocations since the process started
  int64_t live_blocks = 0;
  int64_t live_bytes = 0;
  int64_t cached_blocks = 0;
  int64_t cached_bytes = 0;
};
/// The CPU allocator's counters now.
EMBER_API CpuAllocatorStats cpu_allocator_stats();
/// Returns the large blocks the CPU allocator keeps for reuse to the system.
EMBER_API void cpu_empty_cache();
/// The allocator registered for a device type; throws if none is.
EMBER_API Allocator* get_allocator(DeviceType t);
/// Registers the allocator for a device type (an out-of-tree device brings its own).
EMBER_API void set_allocator(DeviceType t, Allocator* allocator);

}  // namespace ember
