// The generated C++ API: per-op headers stand alone, defaults and TensorOptions overloads
// work, methods and free functions reach the same operator, ops:: structs redispatch.
#include "ember/generated/ops/view.h"  // first: an op header compiles on its own

#include <gtest/gtest.h>

#include <ember/ember.h>

namespace ember {
namespace {

TEST(GeneratedApi, FactoryFormsAndDefaults) {
  Tensor a = empty({2, 3});
  EXPECT_EQ(a.scalar_type(), ScalarType::Float);
  EXPECT_EQ(empty({2}, ScalarType::Double).scalar_type(), ScalarType::Double);
  EXPECT_EQ(empty({2}, TensorOptions().device(Device("meta")).dtype(ScalarType::Half)).device(),
            Device("meta"));
  // The explicit form takes every option, as PyTorch's C++ API does.
  Tensor b = empty({4}, ScalarType::Long, Layout::Strided, Device("cpu"), false, MemoryFormat::Contiguous);
  EXPECT_EQ(b.scalar_type(), ScalarType::Long);
  // requires_grad in the options makes the result a leaf that requires grad.
  EXPECT_TRUE(empty({1}, TensorOptions().requires_grad(true)).requires_grad());
  EXPECT_THROW(empty({1}, TensorOptions().dtype(ScalarType::Long).requires_grad(true)), Error);
}

TEST(GeneratedApi, MethodAndFunctionReachTheSameOperator) {
  Tensor t = empty({6});
  Tensor v1 = view(t, {2, 3});
  Tensor v2 = t.view({3, 2});
  EXPECT_EQ(v1.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(v2.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(std::string(ops::view::name), "aten::view");
  // redispatch with an explicit key set goes straight to that key's kernel.
  Tensor m = ops::view::redispatch(DispatchKeySet(DispatchKey::Meta), empty({6}, Device("meta")), {6});
  EXPECT_EQ(m.device(), Device("meta"));
}

// Note: a kernel registered at run time replaces what both entry points reach, since they
// call through the op's table (no direct calls into kernels).
int replaced_calls = 0;
Tensor counting_view(const Tensor& self, IntArrayRef size) {
  ++replaced_calls;
  return self;
}

TEST(GeneratedApi, EntryPointsGoThroughTheDispatchTable) {
  Tensor t = empty({4});
  {
    Library lib(Library::Kind::Impl, "aten", DispatchKey::CPU, __FILE__, __LINE__);
    lib.impl("view", EMBER_FN(counting_view));
    EXPECT_TRUE(view(t, {2, 2}).is_same(t));
    EXPECT_TRUE(t.view({4}).is_same(t));
    EXPECT_EQ(replaced_calls, 2);
  }
  EXPECT_EQ(view(t, {2, 2}).sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(replaced_calls, 2);
}

}  // namespace
}  // namespace ember
