// c10/cuda/CudaRuntime.h: on a machine without a GPU (or a build without CUDA) there are no
// devices and nothing fails; with a GPU, its caching allocator serves CUDA tensors' memory.
#include <gtest/gtest.h>

#include <string>

#include "c10/core/Allocator.h"
#include "c10/cuda/CudaRuntime.h"
#include "c10/util/Exception.h"

namespace ember {
namespace {

TEST(CudaRuntime, NoDeviceIsAnAnswerNotAnError) {
  const int n = cuda::device_count();
  ASSERT_GE(n, 0);
  EXPECT_EQ(cuda::device_count(), n);  // asked once, the same answer
  if (n > 0) GTEST_SKIP() << "a GPU is present: the device tests below run";
  EXPECT_FALSE(cuda::unavailable_reason().empty());
  try {
    cuda::memory_stats(0);
    FAIL() << "expected a ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:0: "), std::string::npos) << e.what();
  }
  cuda::empty_cache(0);  // nothing cached: nothing to do
  if (cuda::built()) {
    // The allocator is installed, and says there is no device before touching anything.
    Allocator* a = get_allocator(DeviceType::CUDA);
    ASSERT_NE(a, nullptr);
    EXPECT_THROW(a->allocate(16), ValueError);
  }
}

TEST(CudaRuntime, TheCachingAllocatorServesTheDevice) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device: " << cuda::unavailable_reason();
  Allocator* a = get_allocator(DeviceType::CUDA);
  const int64_t before = cuda::memory_stats(0).allocated_bytes;
  {
    DataPtr p = a->allocate(1000);
    ASSERT_NE(p.get(), nullptr);
    EXPECT_EQ(p.device(), Device(DeviceType::CUDA, 0));
    EXPECT_EQ(cuda::memory_stats(0).allocated_bytes, before + 1024);
    DataPtr q = a->allocate(1000);
    a->copy_data(q.get(), p.get(), 1000);
    cuda::synchronize(0);
  }
  EXPECT_EQ(cuda::memory_stats(0).allocated_bytes, before);
  cuda::empty_cache(0);
}

}  // namespace
}  // namespace ember
