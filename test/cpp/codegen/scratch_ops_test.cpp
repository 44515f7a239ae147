// The three-file path: scratch_ops.yaml + scratch_kernels.cpp, generated, registered and
// callable (functional, in-place, out=, boxed, Meta) with no other file touched.
#include <gtest/gtest.h>

#include "ember/generated/ops/empty.h"
#include "test/cpp/ember_api.h"

#include "scratch/generated/Functions.h"

namespace ember {
namespace {

Tensor filled(IntArrayRef sizes, float start) {
  Tensor t = empty(sizes);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_ptr_as<float>()[i] = start + static_cast<float>(i);
  return t;
}

TEST(ScratchOps, FunctionalInPlaceAndOutForms) {
  Tensor x = filled({2, 3}, 1), y = filled({2, 3}, 10);
  Tensor r = scratch_axpy(x, y, 2);
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 3}));
  EXPECT_FLOAT_EQ(r.data_ptr_as<float>()[5], 6 + 2 * 15);
  Tensor out = empty({0});
  scratch_axpy_out(out, x, y);
  EXPECT_EQ(out.sizes(), IntArrayRef({2, 3})) << "out= is resized to the meta shape";
  EXPECT_FLOAT_EQ(out.data_ptr_as<float>()[0], 1 + 10);
  scratch_axpy_(x, y, -1);
  EXPECT_FLOAT_EQ(x.data_ptr_as<float>()[4], 5 - 14);
  EXPECT_FLOAT_EQ(scratch_double(y).data_ptr_as<float>()[1], 22);
}

TEST(ScratchOps, MetaRunsTheMetaFunctionOnly) {
  Tensor m = empty({4, 5}, Device("meta"));
  Tensor r = scratch_axpy(m, m);
  EXPECT_EQ(r.device(), Device("meta"));
  EXPECT_EQ(r.sizes(), IntArrayRef({4, 5}));
  EXPECT_THROW(scratch_axpy(m, empty({5, 4}, Device("meta"))), ValueError);
}

TEST(ScratchOps, MetaChecksRunBeforeAnythingIsWritten) {
  Tensor x = filled({3}, 1);
  EXPECT_THROW(scratch_axpy_(x, filled({4}, 0)), ValueError);
  EXPECT_FLOAT_EQ(x.data_ptr_as<float>()[0], 1);
  EXPECT_THROW(scratch_axpy(x, empty({3}, ScalarType::Double)), TypeError);
  Tensor int_out = empty({3}, ScalarType::Long);
  EXPECT_THROW(scratch_axpy_out(int_out, x, x), TypeError) << "float result cannot go to int64";
}

TEST(ScratchOps, RegisteredInTheDispatcherWithTheirSchemas) {
  auto op = Dispatcher::singleton().find_op_or_throw("scratch::scratch_axpy");
  EXPECT_EQ(op.schema().str(), "scratch::scratch_axpy(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  const std::string table = op.entry().dump_table();
  EXPECT_NE(table.find("CPU: kernel"), std::string::npos) << table;
  EXPECT_NE(table.find("Meta: kernel"), std::string::npos) << table;
  Stack stack{IValue(filled({2}, 1)), IValue(filled({2}, 1)), IValue(3)};
  op.call_boxed(&stack);
  EXPECT_FLOAT_EQ(stack[0].to_tensor().data_ptr_as<float>()[1], 2 + 3 * 2);
  auto twice = Dispatcher::singleton().find_op_or_throw("scratch::scratch_double");
  EXPECT_NE(twice.entry().dump_table().find("AutogradCPU: kernel"), std::string::npos)
      << "no dispatch: a CompositeImplicitAutograd kernel";
}

// Note [Typed defaults] (c10/dispatch/FunctionSchema.h), end to end: the generated C++
// default arguments and the boxed call's defaults give the kernel the same values.
TEST(ScratchOps, EnumLikeDefaultsReachTheKernel) {
  auto values = [](const Tensor& t) {
    const int64_t* p = t.data_ptr_as<int64_t>();
    return std::vector<int64_t>(p, p + t.numel());
  };
  const std::vector<int64_t> expected = {Reduction::Mean,
                                         static_cast<int64_t>(MemoryFormat::Contiguous),
                                         static_cast<int64_t>(ScalarType::Long), 1, 1};
  EXPECT_EQ(values(scratch_defaults(filled({2}, 0))), expected);
  auto op = Dispatcher::singleton().find_op_or_throw("scratch::scratch_defaults");
  Stack stack{IValue(filled({2}, 0))};
  op.call_boxed(&stack);
  EXPECT_EQ(values(stack[0].to_tensor()), expected);
  EXPECT_EQ(values(scratch_defaults(filled({2}, 0), Reduction::Sum, MemoryFormat::ChannelsLast))[0],
            Reduction::Sum);
}

}  // namespace
}  // namespace ember
