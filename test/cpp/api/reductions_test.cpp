// Reductions called as libtorch users call them: a single int dim (Note [Optional array
// refs]: these read a dangling dim before OptionalArrayRef), and the overloads libtorch
// resolves (std/var over an int dim, the whole-tensor forms, arange(start, end)).
#include "test/cpp/api/api_test_util.h"

namespace {

using api_test::B;
using api_test::I;
using api_test::X;
using api_test::Y;

TEST(ApiReductions, IntDimIsAOneElementList) {
  const torch::Tensor x = X();
  EXPECT_GOLDEN("sum_int_dim", x.sum(1));
  EXPECT_GOLDEN("sum_braced_dim_keepdim", x.sum({1}, true));
  EXPECT_GOLDEN("mean_int_dim", x.mean(0));
  EXPECT_GOLDEN("sum_function_int_dim", torch::sum(x, 1));
  EXPECT_GOLDEN("sum_two_dims", Y().sum({0, 2}));
  EXPECT_GOLDEN("mean_negative_dim", Y().mean(-1));
  EXPECT_GOLDEN("nansum_int_dim", x.nansum(0));
  EXPECT_GOLDEN("amax_int_dim", x.amax(1));
  EXPECT_GOLDEN("sum_all", x.sum());
}

TEST(ApiReductions, IntDimThroughAVariableAndAnInt64) {
  // The dim in a variable that outlives nothing, and as int64_t: the same one-element list.
  const torch::Tensor x = X();
  for (int64_t d : {int64_t{1}, int64_t{-1}}) EXPECT_GOLDEN("sum_int_dim", x.sum(d));
  const int dim = 1;
  EXPECT_GOLDEN("sum_int_dim", torch::sum(x, dim, /*keepdim=*/false));
}

TEST(ApiReductions, OptionalArrayRefOwnsItsElement) {
  // Regression for the dangling dim: the optional built from an int must keep its element
  // after the temporary it came from is gone, and copies must point at their own copy.
  torch::OptionalIntArrayRef one = 2;
  torch::OptionalIntArrayRef copy = one;
  one = torch::OptionalIntArrayRef(5);
  ASSERT_TRUE(copy.has_value());
  EXPECT_EQ((*copy).size(), 1u);
  EXPECT_EQ((*copy)[0], 2);
  EXPECT_NE((*copy).data(), (*one).data());
  EXPECT_EQ((*one)[0], 5);
  const std::optional<torch::IntArrayRef> canonical = copy;
  ASSERT_TRUE(canonical.has_value());
  EXPECT_EQ(canonical->vec(), (std::vector<int64_t>{2}));
  EXPECT_FALSE(torch::OptionalIntArrayRef().has_value());
  EXPECT_FALSE(torch::OptionalIntArrayRef(std::nullopt).has_value());
  const std::vector<int64_t> dims{0, 1};
  EXPECT_EQ((*torch::OptionalIntArrayRef(dims)).vec(), dims);
  torch::OptionalArrayRef<double> scales = 2.5;
  EXPECT_EQ((*scales)[0], 2.5);
  EXPECT_THROW(torch::OptionalIntArrayRef().value(), torch::Error);
}

TEST(ApiReductions, StdAndVarOverAnIntDim) {
  const torch::Tensor x = X();
  EXPECT_GOLDEN("std_int_dim", x.std(1));
  EXPECT_GOLDEN("var_int_dim", x.var(1));
  EXPECT_GOLDEN("std_function_int_dim", torch::std(x, 1));
  EXPECT_GOLDEN("var_function_int_dim", torch::var(x, 0));
  EXPECT_GOLDEN("std_dim_biased", x.std({1}, false));
  EXPECT_GOLDEN("std_dim_biased", x.std(1, false));
  EXPECT_GOLDEN("var_dim_keepdim", x.var({1}, true, true));
  auto [s, m] = torch::std_mean(x, 1);
  EXPECT_GOLDEN("std_mean_int_dim_std", s);
  EXPECT_GOLDEN("std_mean_int_dim_mean", m);
  auto [v, m0] = torch::var_mean(x, 0);
  EXPECT_GOLDEN("var_mean_int_dim_var", v);
  EXPECT_GOLDEN("var_mean_int_dim_mean", m0);
}

TEST(ApiReductions, WholeTensorForms) {
  const torch::Tensor x = X();
  EXPECT_GOLDEN("std_all", x.std());
  EXPECT_GOLDEN("var_all", x.var());
  EXPECT_GOLDEN("std_all", torch::std(x));
  EXPECT_GOLDEN("std_biased", x.std(false));
  EXPECT_GOLDEN("all_whole", B().all());
  EXPECT_GOLDEN("any_whole", B().any());
  EXPECT_GOLDEN("all_whole", torch::all(B()));
  EXPECT_GOLDEN("all_int_dim", B().all(1));
  EXPECT_GOLDEN("any_int_dim_keepdim", B().any(0, true));
  EXPECT_EQ(B().all().dim(), 0);
}

TEST(ApiReductions, ArangeOverloads) {
  EXPECT_GOLDEN("arange_end", torch::arange(5));
  EXPECT_GOLDEN("arange_start_end", torch::arange(2, 7));
  EXPECT_GOLDEN("arange_start_end_step", torch::arange(1, 2, 0.25));
  EXPECT_GOLDEN("arange_float_options", torch::arange(3, torch::kDouble));
  EXPECT_GOLDEN("arange_float_options", torch::arange(3, torch::dtype(torch::kFloat64)));
}

TEST(ApiReductions, BadDimsThrowIndexError) {
  const torch::Tensor x = X();
  EXPECT_THROW(x.sum(2), torch::IndexError);
  EXPECT_THROW(x.mean(-3), torch::IndexError);
  EXPECT_THROW(x.std(5), torch::IndexError);
  EXPECT_THROW(torch::sum(x, {0, 0}), torch::Error);
  EXPECT_THROW(I().mean(0), torch::Error);  // mean of integers: PyTorch's RuntimeError
}

}  // namespace
