// Sparse COO tensors from C++ (aten/native/sparse/SparseTensor.h): construction and its
// checks, to_dense with duplicates, coalesce, to_sparse (plain and hybrid), and the clear
// error an op without a sparse kernel gives. The expected values are written out by hand
// from the coordinates (the Python API and the tests against torch.sparse come with the
// YAML entries, issue 24).
#include <gtest/gtest.h>

#include <vector>

#include "aten/native/sparse/SparseTensor.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/add.h"
#include "ember/generated/ops/cumsum.h"
#include "ember/generated/ops/flip.h"
#include "ember/generated/ops/clone.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/exp.h"
#include "ember/generated/ops/neg.h"
#include "ember/generated/ops/sqrt.h"
#include "ember/generated/ops/zeros.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

using native::_to_dense_sparse_cpu;
using native::_to_sparse_cpu;
using native::coalesce_sparse_cpu;
using native::make_sparse_coo;

Tensor longs(std::vector<int64_t> v, std::vector<int64_t> shape) {
  Tensor t = ember::empty(shape, TensorOptions().dtype(ScalarType::Long));
  for (size_t i = 0; i < v.size(); ++i) t.data_ptr<int64_t>()[i] = v[i];
  return t;
}

Tensor floats(std::vector<float> v, std::vector<int64_t> shape) {
  Tensor t = ember::empty(shape, TensorOptions().dtype(ScalarType::Float));
  for (size_t i = 0; i < v.size(); ++i) t.data_ptr<float>()[i] = v[i];
  return t;
}

std::vector<float> elements(const Tensor& t) {
  Tensor c = t.contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// A 3x4 matrix with coordinates (2,1), (0,3), (2,1) again and (1,0): uncoalesced.
Tensor sample() {
  return make_sparse_coo(longs({2, 0, 2, 1, 1, 3, 1, 0}, {2, 4}), floats({1, 2, 3, 4}, {4}), {3, 4}, false);
}

TEST(SparseCoo, HasTheLayoutKeyAndGeometry) {
  Tensor s = sample();
  EXPECT_EQ(s.layout(), Layout::Sparse);
  EXPECT_TRUE(s.key_set().has(DispatchKey::SparseCPU));
  EXPECT_EQ(s.sizes(), IntArrayRef({3, 4}));
  SparseTensorImpl& impl = sparse_coo_impl(s, "test");
  EXPECT_EQ(impl.sparse_dim(), 2);
  EXPECT_EQ(impl.dense_dim(), 0);
  EXPECT_EQ(impl.nnz(), 4);
  EXPECT_FALSE(impl.coalesced());
  EXPECT_EQ(s.data_ptr(), nullptr);  // no storage of its own: the members hold the data
}

TEST(SparseCoo, ToDenseAddsDuplicates) {
  Tensor d = _to_dense_sparse_cpu(sample());
  EXPECT_EQ(d.layout(), Layout::Strided);
  EXPECT_EQ(elements(d), (std::vector<float>{0, 0, 0, 2, 4, 0, 0, 0, 0, 4, 0, 0}));
  EXPECT_EQ(_to_dense_sparse_cpu(sample(), ScalarType::Double).dtype(), ScalarType::Double);
}

TEST(SparseCoo, CoalesceSortsAndSums) {
  Tensor c = coalesce_sparse_cpu(sample());
  SparseTensorImpl& impl = sparse_coo_impl(c, "test");
  EXPECT_TRUE(impl.coalesced());
  EXPECT_EQ(impl.nnz(), 3);
  Tensor idx = impl.indices().contiguous();
  EXPECT_EQ(std::vector<int64_t>(idx.data_ptr<int64_t>(), idx.data_ptr<int64_t>() + 6),
            (std::vector<int64_t>{0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(elements(impl.values()), (std::vector<float>{2, 4, 4}));
  EXPECT_EQ(elements(_to_dense_sparse_cpu(c)), elements(_to_dense_sparse_cpu(sample())));
  EXPECT_EQ(coalesce_sparse_cpu(c).impl(), c.impl());  // coalesced already: itself
}

TEST(SparseCoo, ToSparseRoundTripsPlainAndHybrid) {
  Tensor d = floats({0, 5, 0, 0, 0, 0, 7, 8}, {2, 2, 2});
  Tensor s = _to_sparse_cpu(d);
  EXPECT_EQ(sparse_coo_impl(s, "test").nnz(), 3);
  EXPECT_TRUE(sparse_coo_impl(s, "test").coalesced());
  EXPECT_EQ(elements(_to_dense_sparse_cpu(s)), elements(d));
  // sparse_dim 1: a [2] coordinate per row of [2, 2] values; row 0 and row 1 both non-zero.
  Tensor h = _to_sparse_cpu(d, 1);
  SparseTensorImpl& hi = sparse_coo_impl(h, "test");
  EXPECT_EQ(hi.sparse_dim(), 1);
  EXPECT_EQ(hi.dense_dim(), 2);
  EXPECT_EQ(hi.nnz(), 2);
  EXPECT_EQ(elements(_to_dense_sparse_cpu(h)), elements(d));
  // All zeros, and empty.
  EXPECT_EQ(sparse_coo_impl(_to_sparse_cpu(ember::zeros({3, 2})), "test").nnz(), 0);
  EXPECT_EQ(elements(_to_dense_sparse_cpu(_to_sparse_cpu(ember::zeros({0, 2})))).size(), 0u);
  EXPECT_THROW(_to_sparse_cpu(d, 4), ValueError);
  EXPECT_THROW(_to_sparse_cpu(d, 0), ValueError);  // as PyTorch: one sparse dim at least
}

TEST(SparseCoo, BadMembersAreRefusedBeforeTheTensorExists) {
  const Tensor v = floats({1, 2}, {2});
  EXPECT_THROW(make_sparse_coo(longs({0, 3, 0, 1}, {2, 2}), v, {3, 4}, false), ValueError);   // 3 >= size 3
  EXPECT_THROW(make_sparse_coo(longs({0, -1, 0, 1}, {2, 2}), v, {3, 4}, false), ValueError);  // negative
  EXPECT_THROW(make_sparse_coo(longs({0, 1, 0, 1}, {2, 2}), v, {3, 4, 5}, false), ValueError);  // size's rank
  EXPECT_THROW(make_sparse_coo(longs({0, 1, 0, 1}, {2, 2}), floats({1, 2, 3}, {3}), {3, 4}, false), ValueError);
  EXPECT_THROW(make_sparse_coo(longs({0, 1, 0, 1}, {4}), v, {3, 4}, false), ValueError);  // 1-d indices
  EXPECT_THROW(make_sparse_coo(floats({0, 1, 0, 1}, {2, 2}), v, {3, 4}, false), TypeError);  // float indices
  try {
    make_sparse_coo(longs({0, 1, 0, 9}, {2, 2}), v, {3, 4}, false);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("index 9 in row 1 of 'indices' is out of bounds for size 4"), std::string::npos)
        << e.what();
  }
}

TEST(SparseCoo, AnOpWithoutASparseKernelIsOneClearError) {
  // Neither has a sparse kernel: a sparse tensor reaches no dense code (Note [Layout keys]).
  for (auto call : {+[](const Tensor& s) { (void)ember::flip(s, {0}); }, +[](const Tensor& s) { (void)ember::cumsum(s, 0); }}) {
    try {
      call(sample());
      FAIL() << "no error";
    } catch (const NotImplementedError& e) {
      EXPECT_NE(std::string(e.what()).find("not supported for sparse_coo tensors (dispatch key SparseCPU)"), std::string::npos)
          << e.what();
    }
  }
}

TEST(SparseCoo, ZeroPreservingOpsActOnTheCoalescedValues) {
  // Note [Sparse on values]: the YAML's `sparse: values` ops, one generic boxed kernel.
  const Tensor s = sample();  // (2, 1) twice: 1 + 3
  for (const Tensor& r : {ember::neg(s), ember::sqrt(s)}) {
    EXPECT_EQ(r.layout(), Layout::Sparse);
    EXPECT_TRUE(sparse_coo_impl(r, "test").coalesced());
    EXPECT_EQ(sparse_coo_impl(r, "test").nnz(), 3);
  }
  EXPECT_EQ(elements(_to_dense_sparse_cpu(ember::neg(s))), elements(ember::neg(_to_dense_sparse_cpu(s))));
  // sqrt(1) + sqrt(3) would be wrong: the duplicates add first.
  EXPECT_EQ(elements(_to_dense_sparse_cpu(ember::sqrt(s))), elements(ember::sqrt(_to_dense_sparse_cpu(s))));
  Tensor t = sample();
  const Tensor& same = t.neg_();
  EXPECT_EQ(same.impl(), t.impl());
  EXPECT_EQ(elements(_to_dense_sparse_cpu(t)), elements(ember::neg(_to_dense_sparse_cpu(s))));
}

TEST(SparseCoo, OpsThatDoNotKeepZerosGiveTheDenseResult) {
  const Tensor s = sample();
  const Tensor r = ember::exp(s);  // `sparse: dense`
  EXPECT_EQ(r.layout(), Layout::Strided);
  EXPECT_EQ(elements(r), elements(ember::exp(_to_dense_sparse_cpu(s))));
}

}  // namespace
}  // namespace ember
