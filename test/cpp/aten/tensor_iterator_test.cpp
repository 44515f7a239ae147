// TensorIterator and ResultType (Note [TensorIterator]): promotion by category, broadcast
// errors, output strides in the inputs' memory order, dimension merging and the 2-D walk.
#include <gtest/gtest.h>

#include <vector>

#include "aten/native/TensorIterator.h"
#include "ember/generated/ops/add.h"
#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/div.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/empty_strided.h"
#include "ember/generated/ops/eq.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/sub.h"
#include "ember/generated/ops/zeros.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

Tensor of(std::initializer_list<int64_t> sizes, ScalarType t = ScalarType::Float) {
  return zeros(sizes, TensorOptions().dtype(t));
}

TEST(ResultType, CategoriesAndWeakOperands) {
  using S = ScalarType;
  EXPECT_EQ(ResultType().add(of({2}, S::Int)).add(of({2}, S::Long)).get(), S::Long);
  EXPECT_EQ(ResultType().add(of({2}, S::Float)).add(of({2}, S::Double)).get(), S::Double);
  // A 0-d tensor or a scalar raises the category, never the width within it.
  EXPECT_EQ(ResultType().add(of({2}, S::Float)).add(of({}, S::Double)).get(), S::Float);
  EXPECT_EQ(ResultType().add(of({2}, S::Int)).add(of({}, S::Double)).get(), S::Double);
  EXPECT_EQ(ResultType().add(of({2}, S::Byte)).add(Scalar(int64_t{300})).get(), S::Byte);
  EXPECT_EQ(ResultType().add(of({2}, S::Long)).add(Scalar(1.5)).get(), S::Float);
  EXPECT_EQ(ResultType().add(of({2}, S::Half)).add(Scalar(std::complex<double>(1, 1))).get(),
            S::ComplexFloat);
  EXPECT_EQ(ResultType().add(of({2}, S::Double)).add(Scalar(std::complex<double>(1, 1))).get(),
            S::ComplexDouble);
  EXPECT_EQ(ResultType().add(of({2}, S::Bool)).add(Scalar(true)).get(), S::Bool);
  EXPECT_EQ(ResultType().add(of({2}, S::Bool)).add(Scalar(int64_t{2})).get(), S::Long);
  EXPECT_EQ(ResultType().add(of({}, S::Int)).add(Scalar(int64_t{2})).get(), S::Int);
}

TEST(TensorIterator, BroadcastErrorsNameTheOp) {
  EXPECT_EQ(broadcast_shapes({3, 1}, {1, 4}, "add").ref(), IntArrayRef({3, 4}));
  EXPECT_EQ(broadcast_shapes({4}, {2, 3, 4}, "add").ref(), IntArrayRef({2, 3, 4}));
  try {
    broadcast_shapes({3}, {4}, "mul");
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("mul(): the size of tensor a (3)"), std::string::npos);
  }
}

TEST(TensorIterator, OutputFollowsTheInputsMemoryOrder) {
  Tensor t = empty_strided({3, 4}, {1, 3});  // a transposed layout
  TensorMeta m = elementwise_meta({&t}, ScalarType::Float, "exp");
  EXPECT_EQ(m.strides.ref(), IntArrayRef({1, 3}));
  Tensor c = of({3, 4});
  m = elementwise_meta({&c, &c}, ScalarType::Float, "add");
  EXPECT_TRUE(m.strides.empty());  // contiguous inputs: contiguous output
  m = elementwise_meta({&c, &t}, ScalarType::Float, "add");
  EXPECT_EQ(m.strides.ref(), IntArrayRef({4, 1}));  // the first input breaks the tie
}

TEST(TensorIterator, MergesDimensionsAndWalksEveryElementOnce) {
  // A contiguous 2x3x4 output and an input broadcast along dimension 1.
  Tensor out = of({2, 3, 4});
  Tensor in = arange(8, TensorOptions().dtype(ScalarType::Float)).view({2, 1, 4});
  TensorIterator it({&out}, {&in}, "test");
  EXPECT_EQ(it.numel(), 24);
  EXPECT_EQ(it.shape().size(), 3u);  // the broadcast dimension keeps the others apart
  std::vector<int> seen(24, 0);
  it.serial_for_each(
      [&](char** data, const int64_t* s, int64_t n, int64_t rows) {
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t i = 0; i < n; ++i) {
            auto* o = reinterpret_cast<float*>(data[0] + r * s[2] + i * s[0]);
            const int64_t index = o - static_cast<float*>(out.data_ptr());
            ++seen[static_cast<size_t>(index)];
            *o = *reinterpret_cast<const float*>(data[1] + r * s[3] + i * s[1]);
          }
        }
      },
      0, it.numel());
  for (int v : seen) EXPECT_EQ(v, 1);
  EXPECT_EQ(element(out, {1, 2, 3}).to_double(), 7.0);
  EXPECT_EQ(element(out, {0, 1, 2}).to_double(), 2.0);
  // Same shape, all contiguous: one run.
  Tensor a = of({5, 6});
  TensorIterator flat({&a}, {&a}, "test");
  EXPECT_EQ(flat.shape().size(), 1u);
  EXPECT_EQ(flat.shape()[0], 30);
}

TEST(TensorIterator, ArithmeticFromCpp) {
  Tensor a = arange(6, TensorOptions().dtype(ScalarType::Float)).view({2, 3});
  Tensor b = full({3}, 10.0);
  Tensor c = add(a, b, 2);
  EXPECT_EQ(element(c, {1, 2}).to_double(), 25.0);
  EXPECT_EQ(a.mul(b).dtype(), ScalarType::Float);
  EXPECT_EQ(div(arange(4), full({1}, 2, TensorOptions().dtype(ScalarType::Long))).dtype(),
            ScalarType::Float);
  Tensor out = empty({0}, TensorOptions().dtype(ScalarType::Double));
  add_out(out, a, b);
  EXPECT_EQ(out.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(out.dtype(), ScalarType::Double);
  EXPECT_THROW(add(a, full({4}, 1.0)), ValueError);
  EXPECT_THROW(sub(full({2}, true), full({2}, true)), TypeError);
  EXPECT_THROW(a.add_(full({2, 2, 3}, 1.0)), ValueError);  // in place: self cannot broadcast
  Tensor expanded = empty_strided({2, 3}, {0, 1});
  EXPECT_THROW(add_out(expanded, a, a), Error);  // writes one location twice
  EXPECT_EQ(element(eq(a, 4), {1, 1}).to<bool>(), true);
}

}  // namespace
}  // namespace ember
