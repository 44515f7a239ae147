// select (a view), the default dtype, empty tensors with zero strides, and the process-wide
// settings the Python module exposes (thread count, allocator counters). The op table
// (test/python/test_op_table.py) checks the same ops against PyTorch through Python.
#include <gtest/gtest.h>

#include <vector>

#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/bernoulli.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_strided.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/linspace.h"
#include "ember/generated/ops/randn.h"
#include "ember/generated/ops/scalar_tensor.h"
#include "ember/generated/ops/select.h"
#include "ember/generated/ops/zeros.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

Tensor arange_2x3x4() { return arange(24, TensorOptions().dtype(ScalarType::Long)).view({2, 3, 4}); }

TEST(Select, IsAViewWithTheDimensionRemoved) {
  Tensor t = arange_2x3x4();
  Tensor s = t.select(1, 2);
  EXPECT_EQ(s.sizes(), IntArrayRef({2, 4}));
  EXPECT_EQ(s.strides(), IntArrayRef({12, 1}));
  EXPECT_EQ(s.storage_offset(), 8);
  EXPECT_EQ(s.impl()->storage().impl(), t.impl()->storage().impl());
  EXPECT_EQ(element(s, {1, 3}).to_long(), 12 + 8 + 3);
  Tensor neg = t.select(-1, -1);  // the last element of the last dimension
  EXPECT_EQ(neg.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(element(neg, {1, 2}).to_long(), 23);
  s.fill_(-1);  // writes show through in the base, whose version moves
  EXPECT_EQ(element(t, {0, 2, 0}).to_long(), -1);
  EXPECT_EQ(t.impl()->version(), s.impl()->version());
  EXPECT_EQ(select(t, 0, 1).dim(), 2);  // the function form
}

TEST(Select, BadArgumentsRaiseIndexError) {
  Tensor t = arange_2x3x4();
  EXPECT_THROW(t.select(3, 0), IndexError);
  EXPECT_THROW(t.select(0, 2), IndexError);
  EXPECT_THROW(t.select(1, -4), IndexError);
  EXPECT_THROW(scalar_tensor(1).select(0, 0), IndexError);
}

TEST(DefaultDtype, DrivesFloatFactoriesAndPrinting) {
  EXPECT_EQ(get_default_dtype(), ScalarType::Float);
  set_default_dtype(ScalarType::Double);
  EXPECT_EQ(zeros({2}).dtype(), ScalarType::Double);
  EXPECT_EQ(full({2}, 1.5).dtype(), ScalarType::Double);
  EXPECT_EQ(full({2}, Scalar(std::complex<double>(1, 1))).dtype(), ScalarType::ComplexDouble);
  EXPECT_EQ(linspace(0, 1, 3).dtype(), ScalarType::Double);
  EXPECT_EQ(randn({2}).dtype(), ScalarType::Double);
  EXPECT_EQ(full({2}, 3).dtype(), ScalarType::Long);
  EXPECT_EQ(to_string(zeros({1})), "tensor([0.])");
  EXPECT_THROW(set_default_dtype(ScalarType::Long), TypeError);
  set_default_dtype(ScalarType::Float);
  EXPECT_EQ(zeros({2}).dtype(), ScalarType::Float);
  EXPECT_EQ(to_string(zeros({1}, TensorOptions().dtype(ScalarType::Double))),
            "tensor([0.], dtype=torch.float64)");
}

TEST(EmptyTensors, ZeroStridesAreNoOverlap) {
  Tensor e = empty_strided({0, 4}, {0, 0});
  EXPECT_EQ(e.clone().numel(), 0);
  EXPECT_NO_THROW(e.uniform_());
  EXPECT_NO_THROW(e.fill_(1));
  EXPECT_NO_THROW(e.copy_(zeros({0, 4})));
  EXPECT_THROW(empty_strided({2, 4}, {0, 1}).copy_(zeros({2, 4})), ValueError);
}

TEST(Empty, RejectsPreserveFormat) {
  EXPECT_THROW(empty({2, 3}, TensorOptions(), MemoryFormat::Preserve), Error);
  EXPECT_NO_THROW(empty({2, 3}, TensorOptions(), MemoryFormat::Contiguous));
}

TEST(Bernoulli, ResultIsContiguousWhateverTheInputStrides) {
  Tensor probs = empty_strided({2, 3}, {1, 2}).fill_(0.5);
  EXPECT_TRUE(bernoulli(probs).is_contiguous());
  EXPECT_TRUE(bernoulli(probs, 0.25).is_contiguous());
}

TEST(Settings, ThreadCountAndAllocatorCounters) {
  const int n = get_num_threads();
  EXPECT_GE(n, 1);
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  EXPECT_THROW(set_num_threads(0), ValueError);
  set_num_threads(n);
  const CpuAllocatorStats before = cpu_allocator_stats();
  {
    Tensor t = empty({1024});
    const CpuAllocatorStats during = cpu_allocator_stats();
    EXPECT_EQ(during.live_blocks, before.live_blocks + 1);
    EXPECT_GE(during.live_bytes, before.live_bytes + 4096);
  }
  const CpuAllocatorStats after = cpu_allocator_stats();
  EXPECT_EQ(after.live_blocks, before.live_blocks);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
}

TEST(Settings, LargeFreedBlocksAreReused) {
  cpu_empty_cache();
  EXPECT_EQ(cpu_allocator_stats().cached_blocks, 0);
  void* first = nullptr;
  {
    Tensor big = empty({1 << 20});  // 4 MiB
    first = big.data_ptr();
  }
  const CpuAllocatorStats kept = cpu_allocator_stats();
  EXPECT_EQ(kept.cached_blocks, 1);
  EXPECT_GE(kept.cached_bytes, 4 << 20);
  {
    Tensor again = empty({(1 << 20) - 16});  // fits the kept block: no new pages
    EXPECT_EQ(again.data_ptr(), first);
    EXPECT_EQ(cpu_allocator_stats().cached_blocks, 0);
    Tensor other = empty({1 << 22});  // 16 MiB: too large for it, a new block
    EXPECT_NE(other.data_ptr(), first);
  }
  EXPECT_EQ(cpu_allocator_stats().cached_blocks, 2);
  {
    Tensor small = empty({1 << 10});  // small blocks bypass the cache
    EXPECT_EQ(cpu_allocator_stats().cached_blocks, 2);
  }
  cpu_empty_cache();
  EXPECT_EQ(cpu_allocator_stats().cached_blocks, 0);
  EXPECT_EQ(cpu_allocator_stats().cached_bytes, 0);
}

// Huge blocks (8 MiB and more) are 2 MiB aligned, which leaves each fresh one up to 2 MiB
// more usable space than asked, by where the kernel placed it (Note [Huge pages]): every
// such block must serve the same request again. A 1/8 window once missed the larger ones,
// so a training loop allocated a fresh 10 MiB activation each step and the cache grew.
TEST(Settings, HugeFreedBlocksServeTheirSizeAgain) {
  cpu_empty_cache();
  const int64_t n = 9437184 / 4;  // 9 MiB of floats, rounded to 10 MiB
  for (int round = 0; round < 3; ++round) {
    {
      std::vector<Tensor> live;
      for (int i = 0; i < 8; ++i) live.push_back(empty({n}));
    }
    EXPECT_EQ(cpu_allocator_stats().cached_blocks, 8) << "round " << round;
  }
  cpu_empty_cache();
}

}  // namespace
}  // namespace ember
