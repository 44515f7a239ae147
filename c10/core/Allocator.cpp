#include "c10/core/Allocator.h"

#include <atomic>
#include <cstdlib>
#include <malloc.h>
#include <new>

#include "c10/util/Exception.h"

namespace ember {
namespace {

// Note [CPU allocator counters]: relaxed atomic adds per allocation and per free; bytes
// are the block's usable size, asked of malloc both ways, so the two always balance.
std::atomic<int64_t> live_blocks{0};
std::atomic<int64_t> live_bytes{0};

void cpu_free(void* p) {
  live_blocks.fetch_sub(1, std::memory_order_relaxed);
  live_bytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
    size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    void* p = std::aligned_alloc(kCpuAlignment, rounded);
    EMBER_CHECK(p != nullptr, "CPU allocator: out of memory allocating ", nbytes, " bytes");
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
};

CpuAllocator cpu_alloc;
MetaAllocator meta_alloc;
std::atomic<Allocator*> allocators[] = {&cpu_alloc, nullptr, &meta_alloc, nullptr};

}  // namespace

Allocator* cpu_allocator() { return &cpu_alloc; }

CpuAllocatorStats cpu_allocator_stats() {
  return {live_blocks.load(std::memory_order_relaxed), live_bytes.load(std::memory_order_relaxed)};
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
