// copy_, fill_, zero_, clone, contiguous, to, item and the Half/BFloat16 helpers, checked
// bit for bit against PyTorch (golden data: test/cpp/reference/copy_reference.py).
#include <gtest/gtest.h>

#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "ember/generated/ops/_local_scalar_dense.h"
#include "ember/generated/ops/arange.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/fill_.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/ones.h"
#include "ember/generated/ops/zeros.h"
#include "test/cpp/aten/reference_util.h"
#include "test/cpp/ember_api.h"

namespace ember {
namespace {

using test::JsonValue;

const JsonValue& golden() {
  static const JsonValue doc = test::load_reference("copy_reference.json");
  return doc;
}

// Runs every case of one list and reports the failing ones (at most 20 in detail).
template <class F>
void for_each_case(const char* list, F&& check) {
  int failures = 0, count = 0;
  for (const JsonValue& c : golden()[list].as_array()) {
    ++count;
    std::string problem;
    try {
      problem = check(c);
    } catch (const std::exception& e) {
      problem = std::string("threw: ") + e.what();
    }
    if (!problem.empty() && ++failures <= 20) {
      ADD_FAILURE() << c["name"].as_string() << ": " << problem;
    }
  }
  EXPECT_EQ(failures, 0) << "of " << count << " cases";
  EXPECT_GT(count, 0);
}

TEST(CopyReference, EveryDtypePairAndLayoutMatchesTorch) {
  for_each_case("copy", [](const JsonValue& c) {
    const ScalarType src_t = test::dtype_named(c["src_dtype"].as_string());
    const ScalarType dst_t = test::dtype_named(c["dst_dtype"].as_string());
    Tensor src = test::tensor_from_view(c["src"], src_t);
    Tensor dst = test::tensor_from_view(c["dst"], dst_t);
    dst.copy_(src);
    return test::compare_elements(test::storage_bytes(dst), test::unhex(c["expected"].as_string()), dst_t);
  });
}

TEST(FillReference, EveryDtypeAndValueMatchesTorch) {
  for_each_case("fill", [](const JsonValue& c) -> std::string {
    const ScalarType t = test::dtype_named(c["dtype"].as_string());
    Tensor dst = test::tensor_from_view(c["dst"], t);
    const Scalar value = test::scalar_from(c["value"]);
    if (c["expected"].is_null()) {
      const std::vector<uint8_t> before = test::storage_bytes(dst);
      try {
        dst.fill_(value);
      } catch (const ValueError& e) {
        if (std::string(e.what()).find("fill_()") != 0) return std::string("message: ") + e.what();
        if (test::storage_bytes(dst) != before) return "dst changed before the error";
        return "";
      }
      return "expected a ValueError (PyTorch refuses the value)";
    }
    dst.fill_(value);
    return test::compare_elements(test::storage_bytes(dst), test::unhex(c["expected"].as_string()), t);
  });
}

// ---- copy_ -------------------------------------------------------------------------------

TEST(Copy, SameTensorAndAliasesAreNoOps) {
  Tensor a = tensor({1.5, 2.5, 3.5});
  a.copy_(a);
  EXPECT_EQ(to_vector<float>(a), (std::vector<float>{1.5f, 2.5f, 3.5f}));
  Tensor alias = a.view({3});
  a.copy_(alias);
  EXPECT_EQ(to_vector<float>(a), (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

TEST(Copy, OverlappingSourceIsReadBeforeWriting) {
  // a[1:] = a[:-1] (PyTorch refuses; Ember stages the source and gives numpy's answer).
  Tensor a = arange(6, ScalarType::Long);
  Tensor dst = a.view({6});
  dst.impl()->set_sizes_and_strides({5}, {1}, 1);
  Tensor src = a.view({6});
  src.impl()->set_sizes_and_strides({5}, {1}, 0);
  dst.copy_(src);
  EXPECT_EQ(to_vector<int64_t>(a), (std::vector<int64_t>{0, 0, 1, 2, 3, 4}));
  // Same storage, reversed direction.
  Tensor b = arange(6, ScalarType::Long);
  Tensor bd = b.view({6}), bs = b.view({6});
  bd.impl()->set_sizes_and_strides({5}, {1}, 0);
  bs.impl()->set_sizes_and_strides({5}, {1}, 1);
  bd.copy_(bs);
  EXPECT_EQ(to_vector<int64_t>(b), (std::vector<int64_t>{1, 2, 3, 4, 5, 5}));
}

TEST(Copy, LargeNonContiguousConversion) {
  Tensor src = arange(0, 3000, ScalarType::Double);
  Tensor t = src.view({30, 100});
  t.impl()->set_sizes_and_strides({100, 30}, {1, 100}, 0);  // transposed
  Tensor dst = empty({100, 30}, ScalarType::Int);
  dst.copy_(t);
  for (int64_t i : {0, 7, 99}) {
    for (int64_t j : {0, 13, 29}) EXPECT_EQ(element(dst, {i, j}).to_long(), j * 100 + i);
  }
}

TEST(Copy, BadShapesRaiseValueErrorNamingCopy) {
  Tensor dst = zeros({2, 3});
  const std::vector<float> before = to_vector<float>(dst);
  for (const std::vector<int64_t>& sizes :
       std::vector<std::vector<int64_t>>{{3, 2}, {2, 1, 3}, {1, 1, 3}, {4}, {2, 2}}) {
    try {
      dst.copy_(ones(sizes));
      ADD_FAILURE() << "no error for src sizes " << IntArrayRef(sizes);
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("copy_(): expected 'src' to be broadcastable"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(to_vector<float>(dst), before);
  // Broadcasting sources are fine.
  dst.copy_(tensor({1.0, 2.0, 3.0}));
  dst.copy_(tensor(7));
  EXPECT_EQ(to_vector<float>(dst), std::vector<float>(6, 7.0f));
}

TEST(Copy, SelfWithInternalOverlapRaises) {
  Tensor base = zeros({3});
  Tensor expanded = base.view({3});
  expanded.impl()->set_sizes_and_strides({2, 3}, {0, 1}, 0);
  EXPECT_THROW(expanded.copy_(ones({2, 3})), ValueError);
  EXPECT_EQ(to_vector<float>(base), std::vector<float>(3, 0.0f));
}

TEST(Copy, MetaChecksShapesOnly) {
  Tensor m = empty({2, 3}, Device("meta"));
  EXPECT_TRUE(m.copy_(ones({3})).device() == Device("meta"));
  EXPECT_TRUE(m.copy_(empty({2, 3}, TensorOptions(Device("meta")).dtype(ScalarType::Long))).device() ==
              Device("meta"));
  EXPECT_THROW(m.copy_(ones({4})), ValueError);
  // Out of a meta tensor into a CPU one: there is no data to copy.
  EXPECT_THROW(zeros({2, 3}).copy_(m), NotImplementedError);
}

// ---- fill_, zero_ ----------------------------------------------------------------------------

TEST(Fill, FunctionMethodAndZero) {
  Tensor t = empty({2, 2}, ScalarType::Short);
  EXPECT_TRUE(fill_(t, 5).is_same(t));
  EXPECT_EQ(to_vector<int16_t>(t), std::vector<int16_t>(4, 5));
  EXPECT_TRUE(t.zero_().is_same(t));
  EXPECT_EQ(to_vector<int16_t>(t), std::vector<int16_t>(4, 0));
  // Expanded (stride-0) tensors may be filled.
  Tensor base = zeros({3});
  Tensor expanded = base.view({3});
  expanded.impl()->set_sizes_and_strides({4, 3}, {0, 1}, 0);
  expanded.fill_(2.5);
  EXPECT_EQ(to_vector<float>(base), std::vector<float>(3, 2.5f));
  Tensor m = zeros({4, 5}, Device("meta"));
  EXPECT_TRUE(m.fill_(1).is_same(m));
  EXPECT_THROW(m.fill_(1e300), ValueError);
}

int replacement_calls = 0;

Tensor& fill_replacement_cpu(Tensor& self, const Scalar&) {
  ++replacement_calls;
  float* p = static_cast<float*>(self.data_ptr());
  for (int64_t i = 0; i < self.numel(); ++i) p[i] = -1.0f;
  return self;
}

// The generated entry points reach kernels only through the op's dispatch table: replacing
// fill_'s CPU kernel at run time changes both ember::fill_ and Tensor::fill_, and dropping
// the replacement restores the original.
TEST(Fill, EntryPointsReachTheKernelThroughTheTable) {
  Tensor t = zeros({3});
  {
    Library lib(Library::Kind::Impl, "aten", DispatchKey::CPU, __FILE__, __LINE__);
    lib.impl("fill_.Scalar", &fill_replacement_cpu);
    fill_(t, 5);
    EXPECT_EQ(to_vector<float>(t), std::vector<float>(3, -1.0f));
    t.fill_(6);
    EXPECT_EQ(to_vector<float>(t), std::vector<float>(3, -1.0f));
    EXPECT_EQ(replacement_calls, 2);
  }
  t.fill_(7);
  EXPECT_EQ(to_vector<float>(t), std::vector<float>(3, 7.0f));
  EXPECT_EQ(replacement_calls, 2);
}

// ---- clone, contiguous, to, item ---------------------------------------------------------

Tensor transposed_2x3() {  // values 0..5 of a [3, 2] tensor seen as its [2, 3] transpose
  Tensor t = arange(6, ScalarType::Float);
  t.impl()->set_sizes_and_strides({2, 3}, {1, 2}, 0);
  return t;
}

TEST(Clone, KeepsDenseStridesAndCopies) {
  Tensor t = transposed_2x3();
  Tensor c = t.clone();
  EXPECT_FALSE(c.storage().is_alias_of(t.storage()));
  EXPECT_EQ(c.strides(), IntArrayRef({1, 2}));  // PyTorch: preserve_format keeps them
  EXPECT_EQ(to_vector<float>(c), to_vector<float>(t));
  Tensor cc = t.clone(MemoryFormat::Contiguous);
  EXPECT_EQ(cc.strides(), IntArrayRef({3, 1}));
  EXPECT_EQ(to_vector<float>(cc), (std::vector<float>{0, 2, 4, 1, 3, 5}));
  // Not dense (every other column): contiguous.
  Tensor sparse = zeros({2, 4});
  sparse.impl()->set_sizes_and_strides({2, 2}, {4, 2}, 0);
  EXPECT_EQ(sparse.clone().strides(), IntArrayRef({2, 1}));
  Tensor m = empty({2, 3}, Device("meta")).clone();
  EXPECT_EQ(m.device(), Device("meta"));
  EXPECT_EQ(m.sizes(), IntArrayRef({2, 3}));
}

TEST(Contiguous, ReturnsSelfOrACopy) {
  Tensor a = zeros({2, 3});
  EXPECT_TRUE(a.contiguous().is_same(a));
  Tensor t = transposed_2x3();
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(to_vector<float>(c), (std::vector<float>{0, 2, 4, 1, 3, 5}));
  EXPECT_THROW(t.contiguous(MemoryFormat::Preserve), ValueError);
}

TEST(To, ConvertsOrAliases) {
  Tensor a = tensor({1.5, -2.5, 3.0});
  EXPECT_TRUE(a.to(ScalarType::Float).is_same(a));
  Tensor copy = a.to(ScalarType::Float, false, /*copy=*/true);
  EXPECT_FALSE(copy.is_same(a));
  EXPECT_FALSE(copy.storage().is_alias_of(a.storage()));
  Tensor i = a.to(ScalarType::Int);
  EXPECT_EQ(i.dtype(), ScalarType::Int);
  EXPECT_EQ(to_vector<int32_t>(i), (std::vector<int32_t>{1, -2, 3}));
  Tensor h = transposed_2x3().to(ScalarType::Half);
  EXPECT_EQ(h.strides(), IntArrayRef({1, 2}));
  EXPECT_EQ(to_vector<float>(h), (std::vector<float>{0, 2, 4, 1, 3, 5}));
  Tensor m = empty({4}, Device("meta")).to(ScalarType::ComplexDouble);
  EXPECT_EQ(m.dtype(), ScalarType::ComplexDouble);
  EXPECT_EQ(m.device(), Device("meta"));
}

TEST(Item, ReturnsTheScalarOfItsKind) {
  EXPECT_TRUE(tensor(true).item().is_bool());
  EXPECT_EQ(tensor(true).item().to_long(), 1);
  EXPECT_EQ(tensor(-7).item().kind(), Scalar::Kind::Int);
  EXPECT_EQ(tensor(-7).item().to_long(), -7);
  EXPECT_EQ(tensor({{2.5}}).item().kind(), Scalar::Kind::Double);
  EXPECT_EQ(tensor({{2.5}}).item().to_double(), 2.5);
  EXPECT_EQ(tensor(std::complex<double>(1, 2)).item().to_complex(), std::complex<double>(1, 2));
  EXPECT_EQ(full({1}, 3.0, ScalarType::Half).item().to_double(), 3.0);
  EXPECT_EQ(full({}, 200, ScalarType::Byte).item().to_long(), 200);
  Tensor col = arange(4, ScalarType::Long);
  col.impl()->set_sizes_and_strides({1}, {1}, 3);
  EXPECT_EQ(col.item().to_long(), 3);
}

TEST(Item, ErrorsNameTheOp) {
  try {
    tensor({1.0, 2.0}).item();
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("item(): expected a tensor with one element, but got 2", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(zeros({0}).item(), ValueError);
  EXPECT_THROW(zeros({1}, Device("meta")).item(), NotImplementedError);
  EXPECT_THROW(_local_scalar_dense(zeros({0})), ValueError);
}

// ---- Half and BFloat16 -------------------------------------------------------------------

TEST(Half, RoundsToNearestEven) {
  EXPECT_EQ(Half(1.0f).x, 0x3C00);
  EXPECT_EQ(Half(65504.0f).x, 0x7BFF);
  EXPECT_EQ(Half(65519.0f).x, 0x7BFF);
  EXPECT_EQ(Half(65520.0f).x, 0x7C00);
  EXPECT_EQ(Half(1.0f + 0x1p-11f).x, 0x3C00);           // tie to even (down)
  EXPECT_EQ(Half(1.0f + 0x1p-11f + 0x1p-23f).x, 0x3C01);  // above the tie
  EXPECT_EQ(Half(0x1p-24f).x, 0x0001);                  // smallest subnormal
  EXPECT_EQ(Half(0x1p-25f).x, 0x0000);                  // tie to even (zero)
  EXPECT_EQ(Half(-std::numeric_limits<float>::quiet_NaN()).x & 0x7E00, 0x7E00);
  EXPECT_EQ(float(Half(uint16_t{0x0001}, FromBits{})), 0x1p-24f);
  EXPECT_EQ(BFloat16(1.0f + 0x1p-8f).x, 0x3F80);  // tie to even (down)
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::quiet_NaN()).x, 0x7FC0);
  EXPECT_EQ(float(Half(2.0f) * 3), 6.0f);
  EXPECT_EQ(float(-Half(2.0f)), -2.0f);
}

}  // namespace
}  // namespace ember
