// Indexing as libtorch users write it: `using namespace torch::indexing;`, then
// t.index({Slice(), 0, None, "..."}), index_put_, t[i] and assignment through t[i].
#include "test/cpp/api/api_test_util.h"

namespace {

using namespace torch::indexing;
using api_test::X;
using api_test::Y;

TEST(ApiIndexing, IndexWithSlicesIntsNoneAndEllipsis) {
  const torch::Tensor y = Y();
  EXPECT_GOLDEN("index_slice_int_none_ellipsis", y.index({Slice(), 0, None, "..."}));
  EXPECT_GOLDEN("index_slice_int_none_ellipsis", y.index({Slice(), 0, None, Ellipsis}));
  EXPECT_GOLDEN("index_ellipsis_int", y.index({"...", 1}));
  EXPECT_GOLDEN("index_ellipsis_int", y.index({Ellipsis, 1}));
  EXPECT_GOLDEN("index_int", y.index({1}));
  EXPECT_GOLDEN("index_int_slice", y.index({0, Slice(1, 3)}));
  EXPECT_GOLDEN("index_slice_step", y.index({Slice(), Slice(None, None, 2), Slice(1, None)}));
  EXPECT_GOLDEN("index_mask", y.index({y > 20}));
  EXPECT_GOLDEN("index_tensor", y.index({torch::tensor({1, 0, 1})}));
  // The list form, as built at run time.
  std::vector<torch::indexing::TensorIndex> indices = {Slice(), 0, None, "..."};
  EXPECT_GOLDEN("index_slice_int_none_ellipsis", y.index(indices));
}

TEST(ApiIndexing, SubscriptOperator) {
  const torch::Tensor y = Y();
  EXPECT_GOLDEN("index_int", y[1]);
  EXPECT_GOLDEN("subscript_chain", y[1][2]);
  EXPECT_GOLDEN("index_tensor", y[torch::tensor({1, 0, 1})]);
  EXPECT_GOLDEN("index_mask", y[y > 20]);
  EXPECT_EQ(y[-1][0][0].item<float>(), 12.0f);
  EXPECT_THROW(y[2], torch::IndexError);
  EXPECT_THROW(torch::tensor(1.0)[0], torch::IndexError);
}

TEST(ApiIndexing, IndexPut) {
  torch::Tensor a = Y().clone();
  a.index_put_({Slice(), 0}, -1);
  EXPECT_GOLDEN("index_put_scalar", a);
  torch::Tensor b = Y().clone();
  b.index_put_({"...", 1}, torch::tensor({10.0, 20.0, 30.0}));
  EXPECT_GOLDEN("index_put_tensor", b);
  torch::Tensor c = Y().clone();
  c.index_put_({c < 3}, 0);
  EXPECT_GOLDEN("index_put_mask", c);
  // Assignment through t[i], as libtorch programs write it.
  torch::Tensor x = X().clone();
  x[0] = 7;
  x[1][2] = 9;
  EXPECT_GOLDEN("subscript_assign", x);
  torch::Tensor z = torch::zeros({2, 3});
  z[1] = torch::tensor({1.0, 2.0, 3.0});
  z[0] += 5;
  EXPECT_TRUE(torch::equal(z, torch::tensor({{5.0, 5.0, 5.0}, {1.0, 2.0, 3.0}})));
}

TEST(ApiIndexing, StringIndicesOtherThanEllipsisThrowValueError) {
  const torch::Tensor y = Y();
  // A string never becomes `true` (the old bug: "..." indexed t[True, 0]).
  EXPECT_THROW(y.index({"..", 0}), torch::ValueError);
  EXPECT_THROW(y.index({"ellipsis"}), torch::ValueError);
  EXPECT_THROW(y.index({""}), torch::ValueError);
  EXPECT_THROW(torch::indexing::TensorIndex(static_cast<const char*>(nullptr)), torch::ValueError);
  EXPECT_THROW(torch::indexing::get(y, {"...", "x"}), torch::ValueError);
  EXPECT_EQ(torch::indexing::get(y, {"...", 0}).sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(torch::indexing::TensorIndex("...").is_ellipsis());
}

TEST(ApiIndexing, BadIndicesThrowTypedErrors) {
  torch::Tensor y = Y();
  EXPECT_THROW(y.index({0, 0, 0, 0}), torch::IndexError);
  EXPECT_THROW(y.index({5}), torch::IndexError);
  EXPECT_THROW(y.index({Slice(None, None, -1)}), torch::ValueError);
  EXPECT_THROW(y.index_put_({Slice(), 0}, torch::ones({5})), torch::Error);
  const torch::Tensor before = y.clone();
  EXPECT_THROW(y.index_put_({7}, 1), torch::IndexError);
  EXPECT_TRUE(torch::equal(y, before));  // a failed call leaves self unchanged
}

}  // namespace
