#include "c10/core/DeviceCachingAllocator.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace ember {

struct DeviceCachingAllocator::Block {
  size_t size = 0;       // bytes this block spans
  size_t requested = 0;  // what the live allocation asked for
  char* ptr = nullptr;
  Stream stream = 0;     // the stream it was allocated for
  bool small = false;    // its pool
  bool allocated = false;
  int pending_events = 0;         // freed, waiting for other streams' events
  std::set<Stream> other_streams;  // record_stream's, while allocated
  Block* prev = nullptr;  // neighbours within the segment (one driver allocation)
  Block* next = nullptr;

  bool is_free() const { return !allocated && pending_events == 0; }
};

bool DeviceCachingAllocator::BySize::operator()(const Block* a, const Block* b) const {
  return std::tie(a->stream, a->size, a->ptr) < std::tie(b->stream, b->size, b->ptr);
}

namespace {

size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

std::string mib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

DeviceCachingAllocator::DeviceCachingAllocator(DeviceMemoryDriver& driver, std::string device_name)
    : driver_(driver), name_(std::move(device_name)) {}

DeviceCachingAllocator::~DeviceCachingAllocator() {
  // Every segment goes back to the driver, live blocks' included: whoever destroys the
  // allocator says no memory of it is in use any more.
  std::vector<Block*> heads;
  auto add_head = [&](Block* b) {
    while (b->prev) b = b->prev;
    if (std::find(heads.begin(), heads.end(), b) == heads.end()) heads.push_back(b);
  };
  for (Block* b : small_) add_head(b);
  for (Block* b : large_) add_head(b);
  for (auto& [ptr, b] : live_) add_head(b);
  for (auto& [event, b] : pending_) {
    driver_.destroy_event(event);
    add_head(b);
  }
  for (Block* head : heads) {
    driver_.free(head->ptr);
    for (Block* b = head; b;) {
      Block* next = b->next;
      delete b;
      b = next;
    }
  }
}

size_t DeviceCachingAllocator::round_size(size_t nbytes) {
  return nbytes < kMinBlock ? kMinBlock : round_up(nbytes, kMinBlock);
}

void DeviceCachingAllocator::add_allocated(int64_t bytes, int64_t requested) {
  stats_.allocated_bytes += bytes;
  stats_.requested_bytes += requested;
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
}

DeviceCachingAllocator::Block* DeviceCachingAllocator::find_free(Pool& pool, size_t size, Stream stream) {
  Block key;
  key.stream = stream;
  key.size = size;
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* b = *it;
  pool.erase(it);
  return b;
}

DeviceCachingAllocator::Block* DeviceCachingAllocator::new_segment(Pool& pool, size_t size, size_t nbytes,
                                                                   Stream stream) {
  const bool small = &pool == &small_;
  const size_t segment = small ? kSmallSegment : size < kMinLargeAlloc ? kLargeSegment : round_up(size, kRoundLarge);
  void* p = driver_.malloc(segment);
  if (!p) {
    // Out of device memory: give the cache back and try once more.
    ++stats_.alloc_retries;
    collect_events();
    release_cached_segments();
    p = driver_.malloc(segment);
  }
  if (!p) {
    ++stats_.ooms;
    size_t free = 0, total = 0;
    driver_.mem_info(&free, &total);
    EMBER_THROW(OutOfMemoryError, name_, " out of memory: tried to allocate ", mib(nbytes), " (the device has ",
                mib(free), " free of ", mib(total), "; Ember reserves ", mib(static_cast<size_t>(stats_.reserved_bytes)),
                ", of which ", mib(static_cast<size_t>(stats_.allocated_bytes)), " are allocated and the rest cached)");
  }
  ++stats_.driver_mallocs;
  ++stats_.segments;
  stats_.reserved_bytes += static_cast<int64_t>(segment);
  stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
  auto* b = new Block;
  b->size = segment;
  b->ptr = static_cast<char*>(p);
  b->stream = stream;
  b->small = small;
  return b;
}

void* DeviceCachingAllocator::allocate(size_t nbytes, Stream stream) {
  if (nbytes == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  collect_events();
  const size_t size = round_size(nbytes);
  Pool& pool = pool_of(size);
  Block* b = find_free(pool, size, stream);
  if (!b) b = new_segment(pool, size, nbytes, stream);
  const size_t rest = b->size - size;
  if (b->small ? rest >= kMinBlock : rest > kSmallSize) {
    auto* r = new Block;
    r->size = rest;
    r->ptr = b->ptr + size;
    r->stream = stream;
    r->small = b->small;
    r->prev = b;
    r->next = b->next;
    if (b->next) b->next->prev = r;
    b->next = r;
    b->size = size;
    pool.insert(r);
  }
  b->allocated = true;
  b->requested = nbytes;
  live_[b->ptr] = b;
  ++stats_.allocations;
  add_allocated(static_cast<int64_t>(b->size), static_cast<int64_t>(nbytes));
  return b->ptr;
}

void DeviceCachingAllocator::free(void* ptr) {
  if (!ptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(ptr);
  EMBER_CHECK_VALUE(it != live_.end(), name_, " allocator: free() of a pointer it did not allocate, or freed already");
  Block* b = it->second;
  live_.erase(it);
  b->allocated = false;
  --stats_.allocations;
  add_allocated(-static_cast<int64_t>(b->size), -static_cast<int64_t>(b->requested));
  if (!b->other_streams.empty()) {
    // Work queued on the other streams may still read it: reuse waits for their events.
    for (Stream s : b->other_streams) {
      pending_.emplace_back(driver_.record_event(s), b);
      ++b->pending_events;
    }
    b->other_streams.clear();
    return;
  }
  release(b);
}

void DeviceCachingAllocator::record_stream(void* ptr, Stream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(ptr);
  EMBER_CHECK_VALUE(it != live_.end(), name_, " allocator: record_stream() of a pointer it did not allocate");
  if (stream != it->second->stream) it->second->other_streams.insert(stream);
}

namespace {

// Merges right, a free neighbour taken out of its pool, into left; right goes.
template <class Block>
void absorb(Block* left, Block* right) {
  left->size += right->size;
  left->next = right->next;
  if (right->next) right->next->prev = left;
  delete right;
}

}  // namespace

void DeviceCachingAllocator::release(Block* b) {
  Pool& pool = b->small ? small_ : large_;
  if (b->prev && b->prev->is_free()) {
    Block* p = b->prev;
    pool.erase(p);
    absorb(p, b);
    b = p;
  }
  if (b->next && b->next->is_free()) {
    pool.erase(b->next);
    absorb(b, b->next);
  }
  pool.insert(b);
}

void DeviceCachingAllocator::collect_events() {
  auto keep = pending_.begin();
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (driver_.query_event(it->first)) {
      driver_.destroy_event(it->first);
      if (--it->second->pending_events == 0) release(it->second);
    } else {
      *keep++ = *it;
    }
  }
  pending_.erase(keep, pending_.end());
}

void DeviceCachingAllocator::release_cached_segments() {
  for (Pool* pool : {&small_, &large_}) {
    std::vector<Block*> whole;
    for (Block* b : *pool) {
      if (!b->prev && !b->next) whole.push_back(b);
    }
    for (Block* b : whole) {
      pool->erase(b);
      driver_.free(b->ptr);
      ++stats_.driver_frees;
      --stats_.segments;
      stats_.reserved_bytes -= static_cast<int64_t>(b->size);
      delete b;
    }
  }
}

void DeviceCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  collect_events();
  release_cached_segments();
}

DeviceMemoryStats DeviceCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void DeviceCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
  stats_.peak_reserved_bytes = stats_.reserved_bytes;
}

}  // namespace ember
