// The scan family (Note [Scan walk]): the C++ entry points and methods, and the kernel's
// interleaved chains and column blocks against a plain running loop.
#include <gtest/gtest.h>

#include <vector>

#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/cummax.h"
#include "ember/generated/ops/cumprod.h"
#include "ember/generated/ops/cumsum.h"
#include "ember/generated/ops/empty.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

TEST(Scan, CumsumFunctionAndMethodAgree) {
  const Tensor x = arange(6, TensorOptions().dtype(ScalarType::Float)).view({2, 3});
  const Tensor a = cumsum(x, 1);
  const Tensor b = x.cumsum(1);
  const std::vector<float> expected = {0, 1, 3, 3, 7, 12};
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(a.view({6})[i].item().to_double(), expected[i]);
    EXPECT_EQ(b.view({6})[i].item().to_double(), expected[i]);
  }
  // Integers accumulate as int64 unless dtype is given.
  EXPECT_EQ(cumsum(x.to(ScalarType::Int), 0).scalar_type(), ScalarType::Long);
  EXPECT_EQ(cumsum(x.to(ScalarType::Int), 0, ScalarType::Int).scalar_type(), ScalarType::Int);
}

TEST(Scan, LongRowsMatchAPlainLoop) {
  // Rows long enough for the interleaved chains, with a tail, and a column block.
  for (int64_t n : {4096, 4099, 513}) {
    Tensor x = empty({n}, TensorOptions().dtype(ScalarType::Double));
    double* p = x.data_ptr_as<double>();
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<double>((i * 7) % 11) - 5;
    const Tensor y = cumsum(x, 0);
    const double* q = y.data_ptr_as<double>();
    double acc = 0;
    for (int64_t i = 0; i < n; ++i) {
      acc += p[i];
      ASSERT_EQ(q[i], acc) << "n " << n << " at " << i;
    }
  }
  // Rows side by side (eight at a time, and one left over), at a 4 KiB-aliased row length
  // (taken one at a time) and not.
  for (int64_t n : {1000, 1024, 300}) {
    Tensor x = empty({9, n}, TensorOptions().dtype(ScalarType::Float));
    float* p = x.data_ptr_as<float>();
    for (int64_t i = 0; i < 9 * n; ++i) p[i] = static_cast<float>((i * 5) % 7) - 3;
    const Tensor y = x.cumsum(1);
    const float* q = y.data_ptr_as<float>();
    for (int64_t r = 0; r < 9; ++r) {
      double acc = 0;
      for (int64_t j = 0; j < n; ++j) {
        acc += p[r * n + j];
        ASSERT_EQ(q[r * n + j], static_cast<float>(acc)) << "n " << n << " row " << r << " at " << j;
      }
    }
  }
  const Tensor cols = arange(3 * 300, TensorOptions().dtype(ScalarType::Long)).view({3, 300});
  const Tensor s = cols.cumsum(0);
  EXPECT_EQ(s[2][299].item().to_long(), 299 + 599 + 899);
  EXPECT_EQ(cumprod(cols.narrow(1, 1, 2), 0)[2][1].item().to_long(), 2 * 302 * 602);
}

TEST(Scan, CummaxKeepsTheLastOfEqualValues) {
  Tensor x = empty({5}, TensorOptions().dtype(ScalarType::Float));
  float* p = x.data_ptr_as<float>();
  const float v[] = {1, 3, 3, 2, 3};
  for (int i = 0; i < 5; ++i) p[i] = v[i];
  const auto [values, indices] = x.cummax(0);
  const int64_t expected[] = {0, 1, 2, 2, 4};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(indices[i].item().to_long(), expected[i]);
  EXPECT_EQ(values[3].item().to_double(), 3.0);
}

}  // namespace
}  // namespace ember
