// The binary ops of issue 6 from C++: rounding modes, sign rules of floor division, remainder
// and fmod, pow's number-first form and integer rules, shifts past the width, and errors that
// leave the inputs unchanged (values checked against PyTorch in test/python/test_op_table.py).
#include <gtest/gtest.h>

#include <cmath>

#include "ember/generated/ops/bitwise_and.h"
#include "ember/generated/ops/bitwise_left_shift.h"
#include "ember/generated/ops/bitwise_right_shift.h"
#include "ember/generated/ops/bitwise_xor.h"
#include "ember/generated/ops/div.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/floor_divide.h"
#include "ember/generated/ops/fmod.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/logical_xor.h"
#include "ember/generated/ops/maximum.h"
#include "ember/generated/ops/pow.h"
#include "ember/generated/ops/remainder.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

Tensor longs(std::initializer_list<int64_t> v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(ScalarType::Long));
  int64_t i = 0;
  for (int64_t x : v) t.select(0, i++).fill_(x);
  return t;
}

int64_t at(const Tensor& t, int64_t i) { return element(t, {i}).to_long(); }

TEST(BinaryOps, RoundingDivisionSignRules) {
  const Tensor a = longs({7, -7, 7, -7});
  const Tensor b = longs({2, 2, -2, -2});
  const Tensor floor = div(a, b, "floor");
  const Tensor trunc = div(a, b, "trunc");
  const Tensor rem = remainder(a, b);
  const Tensor mod = fmod(a, b);
  const int64_t floor_expected[] = {3, -4, -4, 3};
  const int64_t trunc_expected[] = {3, -3, -3, 3};
  const int64_t rem_expected[] = {1, 1, -1, -1};  // the divisor's sign
  const int64_t mod_expected[] = {1, -1, 1, -1};  // the dividend's sign
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(at(floor, i), floor_expected[i]);
    EXPECT_EQ(at(trunc, i), trunc_expected[i]);
    EXPECT_EQ(at(rem, i), rem_expected[i]);
    EXPECT_EQ(at(mod, i), mod_expected[i]);
  }
  EXPECT_EQ(floor.dtype(), ScalarType::Long);
  EXPECT_EQ(div(a, b, std::nullopt).dtype(), ScalarType::Float);
  EXPECT_EQ(element(floor_divide(full({1}, -0.5), 4.0), {0}).to_double(), -1.0);
  EXPECT_THROW(div(a, b, "round"), Error);
}

TEST(BinaryOps, IntegerDivisionByZeroFailsBeforeWriting) {
  Tensor a = longs({4, 5, 6});
  EXPECT_THROW(a.floor_divide_(longs({1, 0, 1})), Error);
  EXPECT_EQ(at(a, 0), 4);
  EXPECT_THROW(remainder(a, int64_t{0}), Error);
  EXPECT_TRUE(std::isinf(element(floor_divide(full({1}, 1.0), 0.0), {0}).to_double()));
}

TEST(BinaryOps, PowRules) {
  EXPECT_EQ(at(pow(Scalar(int64_t{2}), longs({3, -1})), 0), 8);
  EXPECT_EQ(at(pow(Scalar(int64_t{2}), longs({3, -1})), 1), 0);  // 2 ** -1 truncates
  EXPECT_THROW(pow(longs({2}), -1), Error);  // integers to negative integer powers
  EXPECT_EQ(pow(longs({2}), 0.5).dtype(), ScalarType::Float);
  EXPECT_EQ(at(pow(full({1}, 3, TensorOptions().dtype(ScalarType::Char)), 5), 0), -13);  // wraps
  EXPECT_EQ(element(pow(full({2}, true), true), {0}).to<bool>(), true);  // x ** 1 for bool too
}

TEST(BinaryOps, ShiftsPastTheWidthAndBitwiseDtypes) {
  EXPECT_EQ(at(bitwise_left_shift(longs({1}), 64), 0), 0);
  EXPECT_EQ(at(bitwise_right_shift(longs({-8}), 70), 0), -1);
  EXPECT_EQ(at(bitwise_left_shift(longs({1}), -1), 0), 0);
  EXPECT_EQ(at(bitwise_xor(longs({6}), 3), 0), 5);
  EXPECT_THROW(bitwise_and(full({2}, 1.5), 1), NotImplementedError);
  EXPECT_THROW(maximum(full({2}, std::complex<double>(1, 1)), full({2}, 1.0)), Error);
  EXPECT_EQ(logical_xor(full({2}, 0.5), full({2}, 0.0)).dtype(), ScalarType::Bool);
}

}  // namespace
}  // namespace ember
