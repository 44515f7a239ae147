#include "c10/core/Allocator.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <map>
#include <mutex>
#include <new>

#include <sys/mman.h>

#include "c10/util/Exception.h"

namespace ember {
namespace {

// Note [CPU allocator counters]: relaxed atomic adds per allocation and per free; bytes
// are the block's usable size, asked of malloc both ways, so the two always balance.
std::atomic<int64_t> allocations{0};
std::atomic<int64_t> live_blocks{0};
std::atomic<int64_t> live_bytes{0};

// Note [CPU caching allocator]: glibc returns large blocks to the kernel on free (they are
// mmap'ed), so an op that allocates its output pays a page fault per 4 KiB on every call:
// a 256 MiB result costs more than the arithmetic. Freed blocks of at least kLargeBlock
// are kept (up to a cap, EMBER_CPU_CACHE_LIMIT_MB, default 4 GiB) and handed out again for
// a request they exceed by at most 1/8 (1/8 and a huge page for huge requests: Note
// [Huge pages]); small blocks go straight to malloc, whose own bins serve them well.
// cpu_empty_cache() returns the kept blocks. kLargeBlock is glibc's mmap threshold
// (128 KiB): blocks from there up come fresh from the kernel unless kept (a 512 KiB
// pooling output paid 128 page faults, 400 us, on every call).
constexpr size_t kLargeBlock = size_t{128} << 10;

// Note [Huge pages]: blocks of kHugeBlock and more are aligned to 2 MiB, rounded up to a
// whole number of 2 MiB pages and marked MADV_HUGEPAGE (the kernel's transparent huge pages
// are opt-in here, "madvise"). A walk with a large stride, such as the tiles of M.t() + M2,
// then touches one TLB entry per 2 MiB instead of one per 4 KiB, and a fresh block faults
// once per 2 MiB. The rounding wastes under 1/4 of the block. The alignment leaves a fresh
// block up to 2 MiB more usable space than asked, depending on where the kernel put it: a
// reuse window of 1/8 of a 10 MiB request missed blocks 11.8 MB large, so every training
// step of pytorch/examples' mnist allocated (and zeroed) a fresh 10 MiB activation and
// cached another block it never reused. Huge requests therefore take a cached block up to
// one huge page beyond the 1/8 window.
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeBlock = size_t{8} << 20;

struct LargeBlockCache {
  std::mutex mutex;
  std::multimap<size_t, void*> blocks;  // usable size -> block
  size_t cached_bytes = 0;
  size_t limit = [] {
    const char* env = std::getenv("EMBER_CPU_CACHE_LIMIT_MB");
    return (env ? std::strtoull(env, nullptr, 10) : 4096ULL) << 20;
  }();
};

// Never destroyed: blocks may be freed by static tensors after main returns.
LargeBlockCache& cache() {
  static LargeBlockCache* c = new LargeBlockCache();
  return *c;
}

void* take_cached(size_t rounded, bool huge) {
  LargeBlockCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.blocks.lower_bound(rounded);
  const size_t slack = rounded / 8 + (huge ? kHugePage : 0);
  if (it == c.blocks.end() || it->first > rounded + slack) return nullptr;
  void* p = it->second;
  c.cached_bytes -= it->first;
  c.blocks.erase(it);
  return p;
}

// Keeps a large block for reuse; false when the cache is full.
bool keep_cached(void* p, size_t usable) {
  LargeBlockCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.cached_bytes + usable > c.limit) return false;
  c.blocks.emplace(usable, p);
  c.cached_bytes += usable;
  return true;
}

void cpu_free(void* p) {
  const size_t usable = malloc_usable_size(p);
  live_blocks.fetch_sub(1, std::memory_order_relaxed);
  live_bytes.fetch_sub(static_cast<int64_t>(usable), std::memory_order_relaxed);
  if (usable >= kLargeBlock && keep_cached(p, usable)) return;
  std::free(p);
}

// Note [Small CPU blocks]: below kLargeBlock a block is malloc'ed kCpuAlignment bytes
// larger and the data pointer aligned inside it (the DataPtr's context keeps the block).
// aligned_alloc took glibc's memalign path, which consolidates the fast bins on every call:
// it was a fifth of a 4-element add.
void cpu_free_small(void* block) {
  const size_t usable = malloc_usable_size(block);
  live_blocks.fetch_sub(1, std::memory_order_relaxed);
  live_bytes.fetch_sub(static_cast<int64_t>(usable), std::memory_order_relaxed);
  std::free(block);
}

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
    size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    if (rounded < kLargeBlock) {
      void* block = std::malloc(rounded + kCpuAlignment);
      EMBER_CHECK(block != nullptr, "CPU allocator: out of memory allocating ", nbytes, " bytes");
      const auto addr = reinterpret_cast<uintptr_t>(block);
      void* p = reinterpret_cast<void*>((addr + kCpuAlignment) & ~(uintptr_t{kCpuAlignment} - 1));
      allocations.fetch_add(1, std::memory_order_relaxed);
      live_blocks.fetch_add(1, std::memory_order_relaxed);
      live_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(block)), std::memory_order_relaxed);
      return DataPtr(p, block, &cpu_free_small, Device(DeviceType::CPU));
    }
    const bool huge = rounded >= kHugeBlock;
    if (huge) rounded = (rounded + kHugePage - 1) / kHugePage * kHugePage;
    void* p = take_cached(rounded, huge);
    if (!p && huge) {
      p = std::aligned_alloc(kHugePage, rounded);
      if (p) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
    }
    if (!p) p = std::aligned_alloc(kCpuAlignment, rounded);
    EMBER_CHECK(p != nullptr, "CPU allocator: out of memory allocating ", nbytes, " bytes");
    allocations.fetch_add(1, std::memory_order_relaxed);
    live_blocks.fetch_add(1, std::memory_order_relaxed);
    live_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
    return DataPtr(p, p, &cpu_free, Device(DeviceType::CPU));
  }
};

// Meta tensors have shapes but no data: every allocation is empty.
class MetaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t) override {
    return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::Meta));
  }
  void copy_data(void*, const void*, size_t) const override {}  // no bytes to keep
};

CpuAllocator cpu_alloc;
MetaAllocator meta_alloc;
std::atomic<Allocator*> allocators[kNumDeviceTypes] = {&cpu_alloc, nullptr, &meta_alloc};

}  // namespace

void Allocator::copy_data(void* dst, const void* src, size_t nbytes) const {
  if (nbytes > 0) std::memcpy(dst, src, nbytes);
}

Allocator* cpu_allocator() { return &cpu_alloc; }

CpuAllocatorStats cpu_allocator_stats() {
  CpuAllocatorStats s;
  s.allocations = allocations.load(std::memory_order_relaxed);
  s.live_blocks = live_blocks.load(std::memory_order_relaxed);
  s.live_bytes = live_bytes.load(std::memory_order_relaxed);
  LargeBlockCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  s.cached_blocks = static_cast<int64_t>(c.blocks.size());
  s.cached_bytes = static_cast<int64_t>(c.cached_bytes);
  return s;
}

void cpu_empty_cache() {
  LargeBlockCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto& [size, p] : c.blocks) std::free(p);
  c.blocks.clear();
  c.cached_bytes = 0;
}

Allocator* get_allocator(DeviceType t) {
  Allocator* a = allocators[static_cast<int>(t)].load(std::memory_order_acquire);
  EMBER_CHECK(a != nullptr, "no allocator is registered for device type '",
              device_type_name(t), "'; register one with ember::set_allocator()");
  return a;
}

void set_allocator(DeviceType t, Allocator* allocator) {
  allocators[static_cast<int>(t)].store(allocator, std::memory_order_release);
}

}  // namespace ember
