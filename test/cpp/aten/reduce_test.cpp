// Reductions (Note [Reduction plan]): the plan's walks, cascade-sum accuracy, results that
// do not depend on the thread count, and the vertical and inner paths against a plain loop.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "aten/native/Reduce.h"
#include "c10/core/Threads.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/full.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

// A [rows, cols] float32 tensor whose element (r, c) is ((r * 7 + c * 13) % 17 - 8) / 4.
Tensor pattern(int64_t rows, int64_t cols, ScalarType t = ScalarType::Float) {
  Tensor x = empty({rows, cols}, TensorOptions().dtype(ScalarType::Float));
  float* p = x.data_ptr_as<float>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) p[r * cols + c] = static_cast<float>((r * 7 + c * 13) % 17 - 8) / 4;
  }
  return x.to(t);
}

// Restores the thread count when a test ends.
struct ThreadsGuard {
  int saved = get_num_threads();
  ~ThreadsGuard() { set_num_threads(saved); }
};

TEST(ReducePlan, PicksTheWalkFromTheFastestDimension) {
  const Tensor x = pattern(8, 16);
  const auto inner = native::make_reduce_plan(x, 0b10);  // reduce dim 1 (stride 1)
  EXPECT_TRUE(inner.inner);
  EXPECT_EQ(inner.numel_reduced, 16);
  EXPECT_EQ(inner.numel_out, 8);
  const auto vertical = native::make_reduce_plan(x, 0b01);  // reduce dim 0: rows
  EXPECT_FALSE(vertical.inner);
  EXPECT_EQ(vertical.kept[0].in_stride, 1);
  // A full reduction of a contiguous tensor is one run.
  const auto full = native::make_reduce_plan(pattern(4, 5).view({2, 2, 5}), 0b111);
  EXPECT_EQ(full.n_reduced, 1);
  EXPECT_EQ(full.reduced[0].size, 20);
}

TEST(Reduce, CascadeSumOfTenMillionIsAccurate) {
  // A naive float32 loop is ~9% off here; the cascade stays within 1e-6 of float64.
  const double expected = full({10'000'000}, 0.1, TensorOptions().dtype(ScalarType::Float))
                              .to(ScalarType::Double).sum().item().to_double();
  const double got = full({10'000'000}, 0.1, TensorOptions().dtype(ScalarType::Float))
                         .sum().item().to_double();
  EXPECT_NEAR(got / expected, 1.0, 1e-6);
  // 16-bit floats accumulate in float32 and round once.
  const double half = full({100'000}, 0.5, TensorOptions().dtype(ScalarType::BFloat16))
                          .sum().item().to_double();
  EXPECT_EQ(half, 49'920.0);  // 50000 rounded to bfloat16 (a step of 256 there)
}

TEST(Reduce, VerticalAndInnerWalksMatchAPlainLoop) {
  const int64_t rows = 300, cols = 1000;
  const Tensor x = pattern(rows, cols);
  const float* p = x.data_ptr_as<float>();
  const Tensor by_col = x.sum(std::vector<int64_t>{0});  // vertical: rows streamed
  const Tensor by_row = x.sum(std::vector<int64_t>{1});  // inner: each row a run
  for (int64_t c = 0; c < cols; c += 37) {
    double s = 0;
    for (int64_t r = 0; r < rows; ++r) s += p[r * cols + c];
    EXPECT_NEAR(by_col.data_ptr_as<float>()[c], s, 1e-3) << "column " << c;
  }
  for (int64_t r = 0; r < rows; r += 29) {
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += p[r * cols + c];
    EXPECT_NEAR(by_row.data_ptr_as<float>()[r], s, 1e-3) << "row " << r;
  }
  // argmax along rows (inner) and down columns (vertical) find the first maximum.
  const Tensor am = x.argmax(1);
  const Tensor am0 = x.argmax(0);
  for (int64_t r = 0; r < rows; r += 31) {
    int64_t best = 0;
    for (int64_t c = 1; c < cols; ++c) {
      if (p[r * cols + c] > p[r * cols + best]) best = c;
    }
    EXPECT_EQ(am.data_ptr_as<int64_t>()[r], best);
  }
  for (int64_t c = 0; c < cols; c += 41) {
    int64_t best = 0;
    for (int64_t r = 1; r < rows; ++r) {
      if (p[r * cols + c] > p[best * cols + c]) best = r;
    }
    EXPECT_EQ(am0.data_ptr_as<int64_t>()[c], best);
  }
}

TEST(Reduce, ResultsDoNotDependOnTheThreadCount) {
  ThreadsGuard guard;
  const Tensor f = pattern(1000, 700).mul(Scalar(0.1));
  const Tensor i = pattern(1000, 700, ScalarType::Long);
  auto run = [&](int threads) {
    set_num_threads(threads);
    return std::vector<Tensor>{f.sum(),
                               f.sum(std::vector<int64_t>{0}),
                               f.sum(std::vector<int64_t>{1}),
                               f.var(true),
                               i.sum(),
                               i.sum(std::vector<int64_t>{0}),
                               i.prod(1),
                               f.argmax(),
                               f.amax(std::vector<int64_t>{0})};
  };
  const auto one = run(1);
  const auto two = run(2);
  for (size_t k = 0; k < one.size(); ++k) {
    const Tensor a = one[k].to(ScalarType::Double);
    const Tensor b = two[k].to(ScalarType::Double);
    ASSERT_EQ(a.numel(), b.numel());
    for (int64_t j = 0; j < a.numel(); ++j) {
      EXPECT_EQ(a.data_ptr_as<double>()[j], b.data_ptr_as<double>()[j]) << "result " << k << "[" << j << "]";
    }
  }
}

TEST(Reduce, ErrorsNameTheOpAndTheDim) {
  const Tensor x = pattern(2, 3);
  EXPECT_THROW(x.sum(std::vector<int64_t>{5}), IndexError);
  EXPECT_THROW(x.sum(std::vector<int64_t>{0, -2}), Error);
  EXPECT_THROW(empty({0}).max(), Error);
  EXPECT_THROW(empty({0}).argmax(), IndexError);
  EXPECT_THROW(pattern(2, 3, ScalarType::Long).mean(), Error);
  EXPECT_TRUE(std::isnan(empty({0}).mean().item().to_double()));
  EXPECT_EQ(empty({0}).prod().item().to_double(), 1.0);
}

TEST(Reduce, FunctorMetaFollowsItsDtypeRule) {
  // Note [Reduction functors]: sizes as the front ends' (keepdim's 1s), dtype by rule, and
  // an out= held to that dtype.
  using native::ReduceDtypes;
  using native::reduce_op_meta;
  const Tensor c = pattern(2, 3).to(ScalarType::ComplexFloat);
  const TensorMeta real = reduce_op_meta(ReduceDtypes::ToReal, "r", c, std::vector<int64_t>{1}, true);
  const std::vector<int64_t> kept{2, 1};
  EXPECT_EQ(real.sizes.ref(), IntArrayRef(kept));
  EXPECT_EQ(real.dtype, ScalarType::Float);
  EXPECT_TRUE(real.exact_out_dtype);
  EXPECT_EQ(reduce_op_meta(ReduceDtypes::ToReal, "r", pattern(2, 3, ScalarType::Half), {}, false).dtype,
            ScalarType::Half);
  EXPECT_THROW(reduce_op_meta(ReduceDtypes::ToReal, "r", pattern(2, 3, ScalarType::Long), {}, false),
               Error);
  const TensorMeta same = reduce_op_meta(ReduceDtypes::Same, "r", pattern(2, 3, ScalarType::Long),
                                         std::vector<int64_t>{-1, 0}, false);
  EXPECT_TRUE(same.sizes.empty());
  EXPECT_EQ(same.dtype, ScalarType::Long);
  EXPECT_THROW(reduce_op_meta(ReduceDtypes::Same, "r", c, std::vector<int64_t>{2}, false), IndexError);
}

}  // namespace
}  // namespace ember
