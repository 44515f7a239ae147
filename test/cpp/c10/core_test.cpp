// c10 core types: dtypes and promotion, devices, storage, tensor geometry and lifetimes,
// scalars and IValues.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/view.h"
#include "test/cpp/ember_api.h"

// Counts heap allocations made by this thread (to prove small tensors keep sizes inline).
namespace {
thread_local long allocations = 0;
}
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t n) {
  ++allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  ++allocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace ember {
namespace {

TEST(ScalarType, SizesAndNames) {
  EXPECT_EQ(itemsize(ScalarType::Bool), 1u);
  EXPECT_EQ(itemsize(ScalarType::Short), 2u);
  EXPECT_EQ(itemsize(ScalarType::BFloat16), 2u);
  EXPECT_EQ(itemsize(ScalarType::Half), 2u);
  EXPECT_EQ(itemsize(ScalarType::Int), 4u);
  EXPECT_EQ(itemsize(ScalarType::Double), 8u);
  EXPECT_EQ(itemsize(ScalarType::ComplexFloat), 8u);
  EXPECT_EQ(itemsize(ScalarType::ComplexDouble), 16u);
  EXPECT_STREQ(scalar_type_name(ScalarType::Float), "float32");
  EXPECT_STREQ(scalar_type_name(ScalarType::ComplexDouble), "complex128");
  EXPECT_EQ(parse_scalar_type("long"), ScalarType::Long);
  EXPECT_EQ(parse_scalar_type("bfloat16"), ScalarType::BFloat16);
  EXPECT_EQ(parse_scalar_type("float8"), std::nullopt);
}

TEST(ScalarType, PromotionMatchesPyTorch) {
  using S = ScalarType;
  // Rows checked against torch.promote_types in PyTorch 2.13.
  EXPECT_EQ(promote_types(S::Byte, S::Char), S::Short);
  EXPECT_EQ(promote_types(S::Bool, S::Byte), S::Byte);
  EXPECT_EQ(promote_types(S::Int, S::Float), S::Float);
  EXPECT_EQ(promote_types(S::Long, S::Half), S::Half);
  EXPECT_EQ(promote_types(S::Half, S::BFloat16), S::Float);
  EXPECT_EQ(promote_types(S::BFloat16, S::Long), S::BFloat16);
  EXPECT_EQ(promote_types(S::Float, S::Double), S::Double);
  EXPECT_EQ(promote_types(S::ComplexFloat, S::Double), S::ComplexDouble);
  EXPECT_EQ(promote_types(S::ComplexFloat, S::Half), S::ComplexFloat);
  EXPECT_EQ(promote_types(S::Bool, S::Bool), S::Bool);
  // Symmetric for every pair.
  for (int a = 0; a < kNumScalarTypes; ++a) {
    for (int b = 0; b < kNumScalarTypes; ++b) {
      EXPECT_EQ(promote_types(S(a), S(b)), promote_types(S(b), S(a)));
    }
  }
  EXPECT_THROW(promote_types(S::Undefined, S::Float), TypeError);
}

TEST(Device, ParseAndPrint) {
  EXPECT_EQ(Device("cpu"), Device(DeviceType::CPU));
  Device d("cuda:1");
  EXPECT_EQ(d.type(), DeviceType::CUDA);
  EXPECT_EQ(d.index(), 1);
  EXPECT_EQ(d.str(), "cuda:1");
  EXPECT_EQ(Device("meta").str(), "meta");
  EXPECT_EQ(Device("privateuseone:0").type(), DeviceType::PrivateUse1);
  for (const char* bad : {"", "gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:1000", "cpu:0:1"}) {
    EXPECT_THROW(Device{bad}, ValueError) << bad;
  }
  try {
    Device("tpu");
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("expected a device type"), std::string::npos);
  }
}

TEST(Device, PrivateUse1RenameRules) {
  EXPECT_THROW(rename_privateuse1_backend("Bad Name"), ValueError);
  EXPECT_THROW(rename_privateuse1_backend("cuda"), ValueError);
  // The rename itself is once per process; the out-of-tree plugin test exercises it.
}

TEST(Storage, AllocatesAlignedAndResizes) {
  auto s = make_intrusive<StorageImpl>(10, cpu_allocator());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(s->data()) % kCpuAlignment, 0u);
  static_cast<char*>(s->data())[3] = 42;
  s->resize(1000);
  EXPECT_EQ(s->nbytes(), 1000u);
  EXPECT_EQ(static_cast<char*>(s->data())[3], 42);
  EXPECT_TRUE(s->resizable());
  auto empty = make_intrusive<StorageImpl>(0, cpu_allocator());
  EXPECT_EQ(empty->data(), nullptr);
}

std::atomic<int> foreign_frees{0};

TEST(Storage, WrapsForeignMemoryWithItsDeleter) {
  static float buffer[4] = {1, 2, 3, 4};
  {
    DataPtr ptr(buffer, buffer, [](void*) { ++foreign_frees; }, Device("cpu"));
    auto s = make_intrusive<StorageImpl>(std::move(ptr), sizeof(buffer));
    EXPECT_EQ(s->data(), buffer);
    EXPECT_FALSE(s->resizable());
    EXPECT_THROW(s->resize(100), Error);
    EXPECT_EQ(foreign_frees.load(), 0);
  }
  EXPECT_EQ(foreign_frees.load(), 1);
}

TEST(TensorImpl, SizesUpToFiveDimsAreInline) {
  long probe = allocations;
  ::operator delete(::operator new(sizeof(int)));  // explicit calls: never elided
  if (allocations == probe) GTEST_SKIP() << "operator new is taken over by a sanitizer runtime";
  SizesAndStrides s;
  long before = allocations;
  s.resize(5);
  EXPECT_EQ(allocations, before);
  s.resize(6);
  EXPECT_EQ(allocations, before + 1);
  SizesAndStrides copy = s;
  EXPECT_EQ(copy.dim(), 6u);
}

TEST(TensorImpl, GeometryAndContiguity) {
  Tensor t = empty({2, 3, 4});
  EXPECT_EQ(t.sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_EQ(t.strides(), IntArrayRef({12, 4, 1}));
  EXPECT_EQ(t.numel(), 24);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_THROW(t.size(3), IndexError);
  t.impl()->set_sizes_and_strides({3, 2}, {1, 3}, 0);  // a transpose
  EXPECT_FALSE(t.is_contiguous());
  t.impl()->set_sizes_and_strides({1, 4}, {100, 1}, 0);  // size-1 dims may have any stride
  EXPECT_TRUE(t.is_contiguous());
  Tensor scalar = empty({});
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.numel(), 1);
  Tensor none = empty({0, 3});
  EXPECT_EQ(none.numel(), 0);
  EXPECT_TRUE(none.is_contiguous());
}

TEST(TensorImpl, EmptyChecksItsArguments) {
  EXPECT_THROW(empty({2, -1}), ValueError);
  EXPECT_THROW(empty({int64_t{1} << 40, int64_t{1} << 40}), ValueError);
  EXPECT_THROW(empty({2}, TensorOptions().layout(Layout::Sparse)), NotImplementedError);
  Tensor d = empty({3}, ScalarType::Double);
  EXPECT_EQ(d.scalar_type(), ScalarType::Double);
  EXPECT_EQ(d.storage()->nbytes(), 24u);
  EXPECT_THROW(d.data_ptr_as<float>(), TypeError);
  Tensor m = empty({1000, 1000}, Device("meta"));
  EXPECT_EQ(m.device(), Device("meta"));
  EXPECT_EQ(m.data_ptr(), nullptr);
}

TEST(Tensor, RefcountAndUndefined) {
  Tensor u;
  EXPECT_FALSE(u.defined());
  EXPECT_EQ(u.key_set(), DispatchKeySet());
  Tensor t = empty({2});
  EXPECT_EQ(t.use_count(), 1u);
  {
    Tensor c = t;
    EXPECT_EQ(t.use_count(), 2u);
    Tensor m = std::move(c);
    EXPECT_EQ(t.use_count(), 2u);
    EXPECT_FALSE(c.defined());
  }
  EXPECT_EQ(t.use_count(), 1u);
  t = Tensor();
  EXPECT_FALSE(t.defined());
}

TEST(Tensor, ViewsShareStorageAndVersion) {
  Tensor base = empty({2, 6});
  Tensor v = view(base, {3, -1});
  EXPECT_EQ(v.sizes(), IntArrayRef({3, 4}));
  EXPECT_TRUE(v.storage().is_alias_of(base.storage()));
  EXPECT_EQ(base.impl()->version(), 0u);
  v.impl()->bump_version();
  EXPECT_EQ(base.impl()->version(), 1u);
  Tensor t = empty({4, 3});
  t.impl()->set_sizes_and_strides({3, 4}, {1, 3}, 0);  // transposed: not viewable as [12]
  EXPECT_THROW(view(t, {12}), Error);
  EXPECT_THROW(view(base, {5, -1}), ValueError);
  EXPECT_THROW(view(base, {-1, -1}), ValueError);
  EXPECT_EQ(view(t, {3, 2, 2}).strides(), IntArrayRef({1, 6, 3}));
}

TEST(Scalar, KindsAndConversions) {
  Scalar i = 3, d = 2.5, b = true, c = std::complex<double>(1, 2);
  EXPECT_TRUE(i.is_integral());
  EXPECT_TRUE(d.is_floating_point());
  EXPECT_TRUE(b.is_bool());
  EXPECT_TRUE(c.is_complex());
  EXPECT_EQ(d.to<int>(), 2);
  EXPECT_EQ(c.to_complex(), std::complex<double>(1, 2));
  EXPECT_EQ(i.default_dtype(), ScalarType::Long);
  EXPECT_EQ(d.default_dtype(), ScalarType::Double);
  EXPECT_EQ(str(b), "True");
}

TEST(IValue, HoldsEveryArgumentKind) {
  Tensor t = empty({1});
  std::vector<IValue> values = {IValue(), IValue(t), IValue(int64_t{4}), IValue(1.5), IValue(true),
                                IValue(std::complex<double>(0, 1)), IValue("s"),
                                IValue(std::vector<int64_t>{1, 2}), IValue(std::vector<double>{1.0}),
                                IValue(std::vector<bool>{true}), IValue(std::vector<Tensor>{t}),
                                IValue(Device("cuda:0")), IValue(ScalarType::Half), IValue(Layout::Sparse)};
  EXPECT_EQ(sizeof(IValue), 16u);
  EXPECT_TRUE(values[0].is_none());
  EXPECT_TRUE(values[1].to_tensor().is_same(t));
  EXPECT_EQ(values[2].to_int(), 4);
  EXPECT_EQ(values[2].to_double(), 4.0);
  EXPECT_EQ(values[3].to_scalar().to_double(), 1.5);
  EXPECT_TRUE(values[4].to_bool());
  EXPECT_EQ(values[5].to_complex(), std::complex<double>(0, 1));
  EXPECT_EQ(values[6].to_string(), "s");
  EXPECT_EQ(values[7].to_int_list(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(values[10].to_tensor_list().size(), 1u);
  EXPECT_EQ(values[11].to_device(), Device("cuda:0"));
  EXPECT_EQ(values[12].to_scalar_type(), ScalarType::Half);
  EXPECT_EQ(values[13].to_layout(), Layout::Sparse);
  EXPECT_EQ(t.use_count(), 3u);  // t, values[1], the list
  std::vector<IValue> copies = values;
  EXPECT_EQ(t.use_count(), 4u);  // + copies[1]; the copied list shares its box
  copies.clear();
  values.clear();
  EXPECT_EQ(t.use_count(), 1u);
  EXPECT_THROW(IValue(3.0).to_int(), TypeError);
  EXPECT_THROW(IValue("x").to_scalar(), TypeError);
  try {
    IValue(true).to_tensor();
  } catch (const TypeError& e) {
    EXPECT_EQ(std::string(e.what()), "expected an IValue holding Tensor, but it holds bool");
  }
  IValue moved(t);
  Tensor out = std::move(moved).to_tensor();
  EXPECT_TRUE(moved.is_none());
  EXPECT_EQ(t.use_count(), 2u);
}

TEST(Errors, CheckMacrosCarryMessageAndLocation) {
  try {
    EMBER_CHECK_INDEX(1 + 1 == 3, "op(): expected 'dim' to be ", 3, ", but got ", 2);
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_EQ(e.message(), "op(): expected 'dim' to be 3, but got 2");
    EXPECT_NE(e.where().find("core_test.cpp"), std::string::npos);
  }
  // The message is not built when the check passes.
  int built = 0;
  auto expensive = [&] { ++built; return "x"; };
  EMBER_CHECK(true, expensive());
  EXPECT_EQ(built, 0);
}

}  // namespace
}  // namespace ember
