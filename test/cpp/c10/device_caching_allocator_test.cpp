// Note [Device caching allocator] (c10/core/DeviceCachingAllocator.h), on a fake device: a
// driver over host memory with a capacity, streams whose progress the test controls, and
// counts of what is live, so that rounding, pools, splitting, merging, stream-aware reuse,
// record_stream, the out-of-memory retry and error, and the statistics are checked here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "c10/core/DeviceCachingAllocator.h"

namespace ember {
namespace {

class FakeDriver final : public DeviceMemoryDriver {
 public:
  explicit FakeDriver(size_t capacity) : capacity_(capacity) {}
  ~FakeDriver() override {
    for (auto& [p, n] : live_) std::free(p);
    for (auto* e : events_) delete e;
  }
  void* malloc(size_t n) override {
    ++mallocs;
    if (used_ + n > capacity_) return nullptr;
    void* p = std::malloc(n);
    live_[p] = n;
    used_ += n;
    return p;
  }
  void free(void* p) override {
    auto it = live_.find(p);
    ASSERT_NE(it, live_.end()) << "the allocator freed a pointer the driver did not give";
    used_ -= it->second;
    live_.erase(it);
    std::free(p);
  }
  void mem_info(size_t* free, size_t* total) override {
    *free = capacity_ - used_;
    *total = capacity_;
  }
  // An event passes once its stream has completed past it (complete()).
  struct Event {
    Stream stream;
    int position;
  };
  void* record_event(Stream s) override {
    auto* e = new Event{s, ++queued_[s]};
    events_.insert(e);
    return e;
  }
  bool query_event(void* e) override {
    auto* ev = static_cast<Event*>(e);
    return done_[ev->stream] >= ev->position;
  }
  void destroy_event(void* e) override {
    events_.erase(static_cast<Event*>(e));
    delete static_cast<Event*>(e);
  }
  void complete(Stream s) { done_[s] = queued_[s]; }

  size_t used() const { return used_; }
  size_t live_segments() const { return live_.size(); }
  size_t live_events() const { return events_.size(); }
  int mallocs = 0;

 private:
  size_t capacity_, used_ = 0;
  std::map<void*, size_t> live_;
  std::set<Event*> events_;
  std::map<Stream, int> queued_, done_;
};

constexpr size_t KiB = 1024, MiB = 1024 * 1024;
constexpr DeviceMemoryDriver::Stream s1 = 1, s2 = 2;

char* at(void* p) { return static_cast<char*>(p); }

TEST(DeviceCachingAllocator, RoundsTo512AndReusesFreedBlocksOnTheSameStream) {
  FakeDriver d(1024 * MiB);
  DeviceCachingAllocator a(d, "fake:0");
  EXPECT_EQ(DeviceCachingAllocator::round_size(1), 512u);
  EXPECT_EQ(DeviceCachingAllocator::round_size(512), 512u);
  EXPECT_EQ(DeviceCachingAllocator::round_size(513), 1024u);
  EXPECT_EQ(a.allocate(0, s1), nullptr);
  void* p = a.allocate(1000, s1);
  EXPECT_EQ(d.used(), 2 * MiB);  // a small segment
  a.free(p);
  EXPECT_EQ(a.allocate(900, s1), p);  // the cached block, no driver call
  EXPECT_EQ(d.mallocs, 1);
  const DeviceMemoryStats st = a.stats();
  EXPECT_EQ(st.allocated_bytes, 1024);
  EXPECT_EQ(st.requested_bytes, 900);
  EXPECT_EQ(st.reserved_bytes, static_cast<int64_t>(2 * MiB));
  EXPECT_EQ(st.segments, 1);
  EXPECT_EQ(st.allocations, 1);
}

TEST(DeviceCachingAllocator, SplitsSegmentsAndMergesFreedNeighbours) {
  FakeDriver d(1024 * MiB);
  DeviceCachingAllocator a(d, "fake:0");
  void* x = a.allocate(1 * KiB, s1);
  void* y = a.allocate(1 * KiB, s1);
  void* z = a.allocate(1 * KiB, s1);
  EXPECT_EQ(at(y), at(x) + KiB);  // split from one 2 MiB segment
  EXPECT_EQ(at(z), at(y) + KiB);
  a.free(y);
  a.free(x);  // merges with y
  EXPECT_EQ(a.allocate(2 * KiB, s1), x);
  a.free(x);
  a.free(z);  // the whole segment is free again: one block from its start
  void* w = a.allocate(1 * MiB, s1);
  EXPECT_EQ(w, x);
  EXPECT_EQ(d.mallocs, 1);
  a.free(w);
  a.empty_cache();
  EXPECT_EQ(d.used(), 0u);
  EXPECT_EQ(a.stats().reserved_bytes, 0);
}

TEST(DeviceCachingAllocator, LargeRequestsUseTheLargePool) {
  FakeDriver d(1024 * MiB);
  DeviceCachingAllocator a(d, "fake:0");
  void* p = a.allocate(3 * MiB, s1);
  EXPECT_EQ(d.used(), 20 * MiB);  // under 10 MiB: a 20 MiB segment, to be split
  void* q = a.allocate(3 * MiB, s1);
  EXPECT_EQ(at(q), at(p) + 3 * MiB);
  EXPECT_EQ(d.mallocs, 1);
  void* r = a.allocate(11 * MiB, s1);  // best fit: the first segment's free 14 MiB, split
  EXPECT_EQ(at(r), at(q) + 3 * MiB);
  void* t = a.allocate(15 * MiB, s1);  // over 10 MiB: a segment of its own, rounded to 2 MiB
  EXPECT_EQ(d.used(), 20 * MiB + 16 * MiB);
  EXPECT_EQ(d.mallocs, 2);
  void* u = a.allocate(2 * MiB, s1);  // the first segment's last 3 MiB
  EXPECT_EQ(at(u), at(r) + 11 * MiB);
  a.free(u);
  for (void* v : {p, q, r, t}) a.free(v);
  a.empty_cache();
  EXPECT_EQ(d.live_segments(), 0u);
}

TEST(DeviceCachingAllocator, BlocksAreNotSharedAcrossStreams) {
  FakeDriver d(1024 * MiB);
  DeviceCachingAllocator a(d, "fake:0");
  void* p = a.allocate(4 * KiB, s1);
  a.free(p);
  void* q = a.allocate(4 * KiB, s2);  // s1's free block is not reused on s2
  EXPECT_NE(q, p);
  EXPECT_EQ(d.mallocs, 2);
  a.free(q);
  EXPECT_EQ(a.allocate(4 * KiB, s1), p);
}

TEST(DeviceCachingAllocator, RecordStreamHoldsAFreedBlockUntilTheOtherStreamPasses) {
  FakeDriver d(1024 * MiB);
  DeviceCachingAllocator a(d, "fake:0");
  void* p = a.allocate(8 * KiB, s1);
  a.record_stream(p, s2);
  a.record_stream(p, s1);  // its own stream: nothing to wait for
  a.free(p);
  EXPECT_EQ(d.live_events(), 1u);
  void* q = a.allocate(8 * KiB, s1);
  EXPECT_NE(q, p);  // s2 may still be reading p
  a.free(q);
  d.complete(s2);
  void* r = a.allocate(16 * KiB, s1);  // p (merged with its free neighbour q) is back
  EXPECT_EQ(r, p);
  EXPECT_EQ(d.live_events(), 0u);
  EXPECT_THROW(a.record_stream(at(r) + 1, s2), ValueError);
}

TEST(DeviceCachingAllocator, OutOfMemoryRetriesAfterFreeingTheCacheThenSaysWhy) {
  FakeDriver d(64 * MiB);
  DeviceCachingAllocator a(d, "fake:0");
  void* big = a.allocate(40 * MiB, s1);
  a.free(big);  // cached: 40 MiB reserved, none allocated
  void* other = a.allocate(50 * MiB, s1);  // needs the cache back
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(a.stats().alloc_retries, 1);
  EXPECT_EQ(a.stats().reserved_bytes, static_cast<int64_t>(50 * MiB));
  try {
    a.allocate(100 * MiB, s1);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("fake:0 out of memory: tried to allocate 100.00 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("the device has 14.00 MiB free of 64.00 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("Ember reserves 50.00 MiB, of which 50.00 MiB are allocated"), std::string::npos) << m;
  }
  EXPECT_EQ(a.stats().ooms, 1);
  a.free(other);  // the allocator goes on working
  void* again = a.allocate(60 * MiB, s1);
  EXPECT_NE(again, nullptr);
  a.free(again);
}

TEST(DeviceCachingAllocator, StatsPeaksAndBadFrees) {
  FakeDriver d(1024 * MiB);
  DeviceCachingAllocator a(d, "fake:0");
  void* p = a.allocate(1 * MiB, s1);
  void* q = a.allocate(3 * MiB, s1);
  a.free(p);
  DeviceMemoryStats st = a.stats();
  EXPECT_EQ(st.allocated_bytes, static_cast<int64_t>(3 * MiB));
  EXPECT_EQ(st.peak_allocated_bytes, static_cast<int64_t>(4 * MiB));
  a.reset_peak_stats();
  EXPECT_EQ(a.stats().peak_allocated_bytes, static_cast<int64_t>(3 * MiB));
  EXPECT_THROW(a.free(p), ValueError);  // freed already
  int local = 0;
  EXPECT_THROW(a.free(&local), ValueError);
  a.free(nullptr);
  a.free(q);
  EXPECT_EQ(a.stats().allocated_bytes, 0);
  EXPECT_EQ(a.stats().allocations, 0);
}

TEST(DeviceCachingAllocator, DestroyingItReturnsEveryByte) {
  FakeDriver d(1024 * MiB);
  {
    DeviceCachingAllocator a(d, "fake:0");
    a.allocate(100, s1);                   // live
    a.free(a.allocate(5 * MiB, s1));       // cached
    void* p = a.allocate(100, s2);
    a.record_stream(p, s1);
    a.free(p);                             // waiting on an event
  }
  EXPECT_EQ(d.used(), 0u);
  EXPECT_EQ(d.live_events(), 0u);
}

// Random allocations and frees on three streams: live blocks never overlap, each lies in
// one driver segment, the counters add up, and everything goes back at the end.
TEST(DeviceCachingAllocator, RandomTrafficKeepsTheInvariants) {
  FakeDriver d(2048 * MiB);
  DeviceCachingAllocator a(d, "fake:0");
  std::mt19937 rng(7);
  std::map<char*, size_t> live;  // ptr -> rounded size
  std::map<char*, size_t> asked;  // ptr -> requested bytes
  for (int i = 0; i < 4000; ++i) {
    const bool alloc = live.empty() || (live.size() < 100 && rng() % 2 == 0);
    if (alloc) {
      static const size_t sizes[] = {1, 700, 4 * KiB, 100 * KiB, 1 * MiB, 1 * MiB + 1, 3 * MiB, 12 * MiB};
      const size_t n = sizes[rng() % 8] + rng() % 2048;
      const auto s = static_cast<DeviceMemoryDriver::Stream>(1 + rng() % 3);
      char* p = at(a.allocate(n, s));
      const size_t size = DeviceCachingAllocator::round_size(n);
      auto next = live.lower_bound(p);
      ASSERT_TRUE(next == live.end() || p + size <= next->first) << "overlaps the next live block";
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second, p) << "overlaps the previous live block";
      }
      live[p] = size;
      asked[p] = n;
      if (rng() % 10 == 0) a.record_stream(p, static_cast<DeviceMemoryDriver::Stream>(1 + rng() % 3));
    } else {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      a.free(it->first);
      asked.erase(it->first);
      live.erase(it);
    }
    if (i % 97 == 0) d.complete(static_cast<DeviceMemoryDriver::Stream>(1 + rng() % 3));
    if (i % 501 == 0) a.empty_cache();
    // A block keeps a remainder too small to split off, so allocated may exceed the rounded sizes.
    int64_t rounded = 0, requested = 0;
    for (auto& [p, n] : live) rounded += static_cast<int64_t>(n);
    for (auto& [p, n] : asked) requested += static_cast<int64_t>(n);
    ASSERT_EQ(a.stats().requested_bytes, requested);
    ASSERT_GE(a.stats().allocated_bytes, rounded);
    ASSERT_EQ(a.stats().allocations, static_cast<int64_t>(live.size()));
    ASSERT_EQ(a.stats().reserved_bytes, static_cast<int64_t>(d.used()));
  }
  for (auto& [p, n] : live) a.free(p);
  for (DeviceMemoryDriver::Stream s : {1, 2, 3}) d.complete(s);
  a.empty_cache();
  EXPECT_EQ(d.used(), 0u);
  EXPECT_EQ(a.stats().segments, 0);
  EXPECT_EQ(a.stats().allocated_bytes, 0);
}

}  // namespace
}  // namespace ember
