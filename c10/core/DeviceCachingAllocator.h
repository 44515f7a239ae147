#pragma once
/// A caching allocator for device memory (Note [Device caching allocator]): what the CUDA
/// backend's allocator is built on, written against a small driver interface so that its
/// logic is tested on the CPU with a fake device (test/cpp/c10/device_caching_allocator_test.cpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "c10/macros/Export.h"
#include "c10/util/Exception.h"

namespace ember {

/// Raised when the device has no memory left for a request, even after the cache was
/// returned to it; the message says how much was asked, free, reserved and allocated.
class EMBER_API OutOfMemoryError : public Error {
  using Error::Error;
};

/// The driver calls the allocator needs. A stream is an opaque handle (a cudaStream_t);
/// an event marks the point a stream has reached when it was recorded.
class EMBER_API DeviceMemoryDriver {
 public:
  using Stream = uintptr_t;
  virtual ~DeviceMemoryDriver() = default;
  /// nbytes of fresh device memory, or null when the device has none left.
  virtual void* malloc(size_t nbytes) = 0;
  virtual void free(void* ptr) = 0;
  /// The device's free and total bytes, for the out-of-memory message.
  virtual void mem_info(size_t* free, size_t* total) = 0;
  /// An event recorded on `stream` now; query says whether the stream has passed it.
  virtual void* record_event(Stream stream) = 0;
  virtual bool query_event(void* event) = 0;
  virtual void destroy_event(void* event) = 0;
};

/// torch.cuda.memory_stats()'s main counters (bytes and counts), current and peak.
struct DeviceMemoryStats {
  int64_t allocated_bytes = 0;       ///< held by live allocations (rounded sizes)
  int64_t peak_allocated_bytes = 0;  ///< since the last reset_peak_stats
  int64_t reserved_bytes = 0;        ///< held from the driver: allocated plus cached
  int64_t peak_reserved_bytes = 0;
  int64_t requested_bytes = 0;       ///< the sizes asked for by live allocations
  int64_t allocations = 0;           ///< live allocations
  int64_t segments = 0;              ///< driver allocations held
  int64_t alloc_retries = 0;         ///< driver mallocs retried after freeing the cache
  int64_t ooms = 0;                  ///< out-of-memory errors raised
  int64_t driver_mallocs = 0;        ///< driver mallocs since the start
  int64_t driver_frees = 0;
};

// Note [Device caching allocator]: PyTorch's design, smaller.
//  - Sizes round up to 512 bytes. Requests up to 1 MiB come from the small pool, whose
//    segments are 2 MiB; larger ones from the large pool, whose segments are the request
//    rounded to 2 MiB (20 MiB for requests under 10 MiB, so that they can be split).
//  - A free block is found best-fit among the free blocks of its pool allocated on the same
//    stream (a stream's work is ordered, so reuse on the same stream needs no sync); when it
//    is larger than asked by more than a minimum (512 bytes small, 1 MiB large), it is split
//    and the rest stays free. A freed block merges with free neighbours of its segment.
//  - A block used on other streams (record_stream) goes back to the pool only when events
//    recorded on those streams at free time have passed; until then it is held.
//  - When the driver has no memory: blocks waiting on events are collected, every fully
//    free segment is returned to the driver (empty_cache), and the malloc is retried once;
//    then OutOfMemoryError.
class EMBER_API DeviceCachingAllocator {
 public:
  using Stream = DeviceMemoryDriver::Stream;
  static constexpr size_t kMinBlock = 512;
  static constexpr size_t kSmallSize = size_t{1} << 20;
  static constexpr size_t kSmallSegment = size_t{2} << 20;
  static constexpr size_t kLargeSegment = size_t{20} << 20;
  static constexpr size_t kRoundLarge = size_t{2} << 20;
  static constexpr size_t kMinLargeAlloc = size_t{10} << 20;

  /// `device_name` ("cuda:0") is what errors name.
  DeviceCachingAllocator(DeviceMemoryDriver& driver, std::string device_name);
  ~DeviceCachingAllocator();
  DeviceCachingAllocator(const DeviceCachingAllocator&) = delete;
  DeviceCachingAllocator& operator=(const DeviceCachingAllocator&) = delete;

  /// nbytes for work on `stream` (null for 0 bytes); throws OutOfMemoryError.
  void* allocate(size_t nbytes, Stream stream);
  /// Returns a block from allocate (null is ignored); throws ValueError for any other pointer.
  void free(void* ptr);
  /// Marks ptr's block as used on `stream` too: freeing it waits for that stream's work.
  void record_stream(void* ptr, Stream stream);
  /// Returns every fully free segment to the driver.
  void empty_cache();
  DeviceMemoryStats stats() const;
  void reset_peak_stats();
  /// The rounded size an allocation of nbytes takes.
  static size_t round_size(size_t nbytes);

 private:
  struct Block;
  struct BySize {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BySize>;

  Block* find_free(Pool& pool, size_t size, Stream stream);
  Block* new_segment(Pool& pool, size_t size, size_t nbytes, Stream stream);
  void release(Block* b);  // back to its pool, merged with its free neighbours
  void collect_events();
  void release_cached_segments();
  Pool& pool_of(size_t size) { return size <= kSmallSize ? small_ : large_; }
  void add_allocated(int64_t bytes, int64_t requested);

  DeviceMemoryDriver& driver_;
  std::string name_;
  mutable std::mutex mutex_;
  Pool small_, large_;
  std::unordered_map<void*, Block*> live_;
  std::vector<std::pair<void*, Block*>> pending_;  // (event, block) waiting for other streams
  DeviceMemoryStats stats_;
};

}  // namespace ember
