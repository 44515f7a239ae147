// Views and indexing from C++: view semantics (shared storage and version counter, writes
// through views of views), the TensorIndex API (indexing::get/set, NumPy's placement of
// advanced-index dims), and errors that name the dim, the index and the size (values are
// checked against PyTorch in test/python/test_indexing.py and test_op_table.py).
#include <gtest/gtest.h>

#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/argsort.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/gt.h"
#include "ember/generated/ops/ne.h"
#include "ember/generated/ops/sum.h"
#include "ember/generated/ops/zeros.h"
#include "ember/generated/ops/zeros_like.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

using indexing::Ellipsis;
using indexing::None;
using indexing::Slice;

Tensor iota(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return arange(n, TensorOptions().dtype(ScalarType::Float)).view(sizes);
}

float at(const Tensor& t, std::initializer_list<int64_t> idx) {
  return static_cast<float>(element(t, idx).to_double());
}

TEST(Views, ShareStorageAndVersionWithTheirBase) {
  Tensor base = iota({3, 4});
  Tensor v = base.t().slice(0, 1, 3).select(1, 2);  // a view of a view of a view
  EXPECT_TRUE(v.storage().is_alias_of(base.storage()));
  const int64_t before = base._version();
  v.fill_(-1);
  EXPECT_GT(base._version(), before);
  EXPECT_EQ(v._version(), base._version());
  EXPECT_EQ(at(base, {2, 1}), -1.0f);
  EXPECT_EQ(at(base, {2, 2}), -1.0f);
  EXPECT_EQ(at(base, {2, 0}), 8.0f);
}

TEST(Views, ViewRefusesIncompatibleStridesAndReshapeCopies) {
  Tensor t = iota({3, 4}).t();
  EXPECT_THROW(t.view({12}), Error);
  Tensor r = t.reshape({12});
  EXPECT_FALSE(r.storage().is_alias_of(t.storage()));
  EXPECT_EQ(at(r, {1}), 4.0f);
  Tensor c = iota({3, 4}).reshape({2, 6});
  EXPECT_EQ(c.strides()[0], 6);
}

TEST(Indexing, BasicIndicesAreViews) {
  Tensor t = iota({2, 3, 4});
  Tensor v = indexing::get(t, {1, Slice(None, None, 2), None, Ellipsis});
  EXPECT_EQ(v.sizes(), IntArrayRef({2, 1, 4}));
  EXPECT_TRUE(v.storage().is_alias_of(t.storage()));
  EXPECT_EQ(at(v, {1, 0, 3}), 12.0f + 8.0f + 3.0f);
}

TEST(Indexing, AdvancedDimsGoWhereNumPyPutsThem) {
  Tensor t = iota({2, 3, 4, 5});
  Tensor i = arange(2, TensorOptions().dtype(ScalarType::Long));
  // Adjacent tensor indices: their dims replace theirs in place.
  EXPECT_EQ(indexing::get(t, {Slice(), i, i}).sizes(), IntArrayRef({2, 2, 5}));
  // Separated by a slice: their dims lead.
  EXPECT_EQ(indexing::get(t, {i, Slice(), i}).sizes(), IntArrayRef({2, 3, 5}));
  Tensor mask = gt(iota({3, 4}), 5.0);
  EXPECT_EQ(indexing::get(t, {Slice(), mask}).sizes(), IntArrayRef({2, 6, 5}));
}

TEST(Indexing, AssignmentWritesThroughAndBroadcasts) {
  Tensor t = zeros({3, 4});
  indexing::set(t, {Slice(1, None), Slice(None, None, 2)}, 7);
  EXPECT_EQ(at(t, {2, 2}), 7.0f);
  EXPECT_EQ(at(t, {0, 0}), 0.0f);
  Tensor rows = arange(2, TensorOptions().dtype(ScalarType::Long));
  indexing::set(t, {rows}, iota({4}));
  EXPECT_EQ(at(t, {1, 3}), 3.0f);
}

TEST(Indexing, ErrorsNameTheDimIndexAndSize) {
  Tensor t = iota({4, 3});
  try {
    indexing::get(t, {Slice(), 3});
    FAIL() << "no error";
  } catch (const IndexError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("index 3 is out of bounds for dimension 1 with size 3"), std::string::npos) << msg;
  }
  EXPECT_THROW(indexing::get(t, {0, 0, 0}), IndexError);
  EXPECT_THROW(indexing::get(t, {Slice(None, None, -1)}), ValueError);
  Tensor big = full({1}, 9, TensorOptions().dtype(ScalarType::Long));
  EXPECT_THROW(indexing::get(t, {big}), IndexError);
}

TEST(Indexing, GatherScatterRoundTrip) {
  Tensor src = iota({3, 4});
  Tensor idx = argsort(src, -1, true);
  Tensor sorted = src.gather(1, idx);
  EXPECT_EQ(at(sorted, {0, 0}), 3.0f);
  Tensor back = zeros_like(src).scatter(1, idx, sorted);
  EXPECT_EQ(sum(ne(back, src)).item().to_long(), 0);
}

}  // namespace
}  // namespace ember
