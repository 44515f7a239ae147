// Sparse CSR and CSC tensors from C++ (aten/native/sparse/SparseTensor.h): construction and
// its checks (Note [Sparse invariants]), conversions both ways, the products' kernels against
// a dense product written out by hand, the transpose that flips the layout, and an op that
// reaches its COO kernel through the conversion (Note [Compressed through COO]).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aten/native/sparse/SparseTensor.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/coalesce.h"
#include "ember/generated/ops/cumsum.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/mm.h"
#include "ember/generated/ops/t.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

template <class T>
Tensor make_t(std::vector<T> v, std::vector<int64_t> shape, ScalarType dt) {
  Tensor t = ember::empty(shape, TensorOptions().dtype(dt));
  for (size_t i = 0; i < v.size(); ++i) t.data_ptr<T>()[i] = v[i];
  return t;
}

// [[1, 0, 2], [0, 0, 0], [0, 3, 0]] as CSR with int32 indices.
Tensor csr_sample() {
  return native::make_sparse_compressed(make_t<int32_t>({0, 2, 2, 3}, {4}, ScalarType::Int),
                                        make_t<int32_t>({0, 2, 1}, {3}, ScalarType::Int),
                                        make_t<float>({1, 2, 3}, {3}, ScalarType::Float), {3, 3}, Layout::SparseCsr,
                                        true, "test");
}

std::vector<float> csr_dense_of(const Tensor& s) {
  const Tensor d = native::sparse_to_dense(s).contiguous();
  return std::vector<float>(d.data_ptr<float>(), d.data_ptr<float>() + d.numel());
}

void expect_csr_refused(std::vector<int32_t> crow, std::vector<int32_t> col, bool check, const std::string& what) {
  try {
    (void)native::make_sparse_compressed(make_t<int32_t>(crow, {static_cast<int64_t>(crow.size())}, ScalarType::Int),
                                         make_t<int32_t>(col, {static_cast<int64_t>(col.size())}, ScalarType::Int),
                                         make_t<float>(std::vector<float>(col.size(), 1.0f), {static_cast<int64_t>(col.size())},
                                                     ScalarType::Float),
                                         {2, 2}, Layout::SparseCsr, check, "sparse_csr_tensor");
    FAIL() << "accepted: " << what;
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(SparseCompressed, MembersAreCheckedBeforeTheTensorExists) {
  expect_csr_refused({1, 1, 2}, {0, 1}, false, "crow_indices[..., 0] == 0");
  expect_csr_refused({0, 1, 3}, {0, 1}, false, "crow_indices[..., -1] == nnz");
  expect_csr_refused({0, 2, 1}, {0}, false, "non-decreasing crow_indices");
  expect_csr_refused({0, 1, 2}, {0, 2}, false, "col_indices[1] = 2 is out of bounds");
  expect_csr_refused({0, 2, 2}, {1, 0}, true, "sorted and unique along each row");
  const Tensor unsorted = native::make_sparse_compressed(
      make_t<int32_t>({0, 2, 2}, {3}, ScalarType::Int), make_t<int32_t>({1, 0}, {2}, ScalarType::Int),
      make_t<float>({5, 7}, {2}, ScalarType::Float), {2, 2}, Layout::SparseCsr, false, "test");
  EXPECT_FALSE(sparse_compressed_impl(unsorted, "test").canonical());
  EXPECT_EQ(csr_dense_of(unsorted), (std::vector<float>{7, 5, 0, 0}));
}

TEST(SparseCompressed, ConversionsRoundTrip) {
  const Tensor s = csr_sample();
  EXPECT_EQ(csr_dense_of(s), (std::vector<float>{1, 0, 2, 0, 0, 0, 0, 3, 0}));
  const Tensor coo = native::compressed_to_coo(s);
  EXPECT_TRUE(sparse_coo_impl(coo, "test").coalesced());
  const Tensor csc = native::to_sparse_compressed(s, Layout::SparseCsc, std::nullopt, "test");
  EXPECT_EQ(csc.layout(), Layout::SparseCsc);
  const Tensor& ccol = sparse_compressed_impl(csc, "test").compressed_indices();
  EXPECT_EQ(ccol.dtype(), ScalarType::Int);  // the index dtype is kept
  const std::vector<int32_t> want{0, 1, 2, 3};
  EXPECT_EQ(std::vector<int32_t>(ccol.data_ptr<int32_t>(), ccol.data_ptr<int32_t>() + 4), want);
  EXPECT_EQ(csr_dense_of(csc), csr_dense_of(s));
  const Tensor back = native::to_sparse_compressed(native::sparse_to_dense(csc), Layout::SparseCsr, std::nullopt, "test");
  EXPECT_EQ(csr_dense_of(back), csr_dense_of(s));
}

TEST(SparseCompressed, ProductsMatchTheDenseProduct) {
  const Tensor s = csr_sample();
  const Tensor b = make_t<float>({1, 2, 3, 4, 5, 6}, {3, 2}, ScalarType::Float);
  // [[1, 0, 2], [0, 0, 0], [0, 3, 0]] @ [[1, 2], [3, 4], [5, 6]]
  const std::vector<float> want{11, 14, 0, 0, 9, 12};
  for (const Tensor& a : {s, native::compressed_to_coo(s), native::to_sparse_compressed(s, Layout::SparseCsc, std::nullopt, "t")}) {
    const Tensor r = ember::mm(a, b).contiguous();
    EXPECT_EQ(std::vector<float>(r.data_ptr<float>(), r.data_ptr<float>() + 6), want) << a.layout();
  }
  const Tensor ss = ember::mm(s, s);  // SpGEMM: row 0 is 1 * row 0 + 2 * row 2
  EXPECT_EQ(ss.layout(), Layout::SparseCsr);
  EXPECT_EQ(csr_dense_of(ss), (std::vector<float>{1, 6, 2, 0, 0, 0, 0, 0, 0}));
}

TEST(SparseCompressed, TransposeFlipsTheLayoutOverTheSameMembers) {
  const Tensor s = csr_sample();
  const Tensor tr = ember::t(s);
  EXPECT_EQ(tr.layout(), Layout::SparseCsc);
  EXPECT_TRUE(sparse_compressed_impl(tr, "t").plain_indices().is_same(sparse_compressed_impl(s, "t").plain_indices()));
  EXPECT_EQ(csr_dense_of(tr), (std::vector<float>{1, 0, 0, 0, 0, 3, 2, 0, 0}));
}

TEST(SparseCompressed, OpsReachTheirCooKernelOrOneClearError) {
  // Duplicates in a row: coalesce has a COO kernel only, and the result comes back as CSR.
  const Tensor dup = native::make_sparse_compressed(
      make_t<int32_t>({0, 2}, {2}, ScalarType::Int), make_t<int32_t>({1, 1}, {2}, ScalarType::Int),
      make_t<float>({1, -3}, {2}, ScalarType::Float), {1, 2}, Layout::SparseCsr, false, "test");
  const Tensor c = dup.coalesce();
  EXPECT_EQ(c.layout(), Layout::SparseCsr);
  EXPECT_EQ(sparse_compressed_impl(c, "t").nnz(), 1);
  EXPECT_EQ(csr_dense_of(c), (std::vector<float>{0, -2}));
  try {
    (void)ember::cumsum(csr_sample(), 0);
    FAIL() << "no error";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("not supported for sparse_csr and sparse_csc tensors"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ember
