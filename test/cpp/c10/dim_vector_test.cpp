// DimVector: inline storage for up to kInline dims, the heap beyond, whichever way it grows.
#include <gtest/gtest.h>

#include <vector>

#include "c10/util/DimVector.h"

namespace ember {
namespace {

TEST(DimVector, BuiltLargerThanInlineFromNothing) {
  // Regression: assigning more than kInline elements to an empty vector wrote past inline_.
  const size_t n = DimVector::kInline + 3;
  DimVector filled(n, 7);
  ASSERT_EQ(filled.size(), n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(filled[i], 7);
  std::vector<int64_t> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<int64_t>(i);
  const DimVector copied{IntArrayRef(values)};
  EXPECT_EQ(copied.ref(), IntArrayRef(values));
}

TEST(DimVector, GrowsAndInsertsAcrossTheInlineLimit) {
  DimVector v;
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 10; ++i) {
    v.push_back(i);
    expected.push_back(i);
  }
  v.insert(0, -1);
  expected.insert(expected.begin(), -1);
  EXPECT_EQ(v.ref(), IntArrayRef(expected));
  v.resize(2);
  EXPECT_EQ(v.ref(), IntArrayRef(std::vector<int64_t>{-1, 0}));
  DimVector w = v;
  EXPECT_EQ(w, v);
}

}  // namespace
}  // namespace ember
