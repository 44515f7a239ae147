// The CUDA elementwise launcher's index maths (aten/native/cuda/OffsetCalc.h) on the CPU:
// for operands of many layouts (transposed, sliced, broadcast, expanded, 0-d, empty), the
// per-operand byte offsets OffsetCalc computes from each linear index, in 32-bit and 64-bit
// arithmetic, are exactly the element positions TensorIterator's own walk visits.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <tuple>
#include <vector>

#include "aten/native/TensorIterator.h"
#include "aten/native/cuda/OffsetCalc.h"
#include "ember/generated/ops/empty.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

using Offsets = std::tuple<int64_t, int64_t, int64_t>;  // (out, a, b) byte offsets

// What TensorIterator's walk visits: each element's byte offsets from the operands' bases.
std::vector<Offsets> walked(const TensorIterator& it) {
  std::vector<Offsets> got;
  const char* base[3] = {static_cast<const char*>(it.operand(0).impl()->data()),
                         static_cast<const char*>(it.operand(1).impl()->data()),
                         static_cast<const char*>(it.operand(2).impl()->data())};
  it.serial_for_each(
      [&](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        for (int64_t j = 0; j < size1; ++j) {
          for (int64_t i = 0; i < size0; ++i) {
            int64_t off[3];
            for (int k = 0; k < 3; ++k) off[k] = (data[k] + i * strides[k] + j * strides[3 + k]) - base[k];
            got.emplace_back(off[0], off[1], off[2]);
          }
        }
      },
      0, it.numel());
  std::sort(got.begin(), got.end());
  return got;
}

template <class Index>
std::vector<Offsets> calculated(const TensorIterator& it) {
  const auto calc = native::cuda::offset_calc<3, Index>(it, "test");
  std::vector<Offsets> got;
  for (int64_t i = 0; i < it.numel(); ++i) {
    Index off[3];
    calc.get(static_cast<Index>(i), off);
    got.emplace_back(static_cast<int64_t>(off[0]), static_cast<int64_t>(off[1]), static_cast<int64_t>(off[2]));
  }
  std::sort(got.begin(), got.end());
  return got;
}

void check(const Tensor& a, const Tensor& b, const char* what) {
  SCOPED_TRACE(what);
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), "test");
  const Tensor out = ember::empty(shape);
  const TensorIterator it({&out}, {&a, &b}, "test");
  const std::vector<Offsets> want = walked(it);
  ASSERT_EQ(static_cast<int64_t>(want.size()), out.numel());
  EXPECT_TRUE(native::cuda::fits_32bit(it, 3));
  EXPECT_EQ(calculated<uint32_t>(it), want);
  EXPECT_EQ(calculated<int64_t>(it), want);
}

TEST(CudaOffsets, EveryLayoutMapsAsTensorIteratorWalks) {
  const Tensor x = ember::randn({4, 5, 6}), y = ember::randn({6, 5, 4});
  check(x, x, "contiguous");
  check(x, y.permute({2, 1, 0}), "transposed operand");
  check(x.slice(2, 1, 6, 2), x.slice(2, 0, 5, 2), "sliced with steps");
  check(x, ember::randn({6}), "broadcast row");
  check(x, ember::randn({4, 1, 1}), "broadcast column");
  check(ember::randn({1, 5, 1}).expand({4, 5, 6}), x.transpose(0, 1).contiguous().transpose(0, 1), "expanded");
  check(x.select(1, 2), ember::randn({}), "a 0-d operand");
  check(ember::randn({0, 3}), ember::randn({3}), "empty");
  check(ember::randn({2, 3, 4, 5, 6}).permute({4, 2, 0, 3, 1}), ember::randn({6, 4, 2, 5, 3}), "five dims permuted");
}

TEST(CudaOffsets, TooManyDimensionsIsAClearError) {
  std::vector<int64_t> sizes(18, 2);
  const Tensor a = ember::randn(sizes);
  std::vector<int64_t> perm(18);
  for (int i = 0; i < 18; ++i) perm[static_cast<size_t>(i)] = 17 - i;
  const Tensor b = a.permute(perm);  // against a's order: the iterator cannot merge dims
  const Tensor out = ember::empty(b.sizes());
  const TensorIterator it({&out}, {&b, &a}, "test");
  if (it.shape().size() <= static_cast<size_t>(native::cuda::kMaxDims)) GTEST_SKIP() << "the iterator merged the dims";
  EXPECT_THROW((native::cuda::offset_calc<3, int64_t>(it, "add")), Error);
}

}  // namespace
}  // namespace ember
