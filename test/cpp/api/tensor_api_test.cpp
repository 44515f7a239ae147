// The everyday libtorch tensor idioms: constants and option helpers, factories with
// requires_grad, Scalar and item<T>(), data_ptr<T>(), accessor<T, N>(), from_blob,
// operators, allclose/equal, to(), grad_fn() and the grad-mode guards.
#include <complex>
#include <sstream>

#include "test/cpp/api/api_test_util.h"

namespace {

using api_test::B;
using api_test::I;
using api_test::X;
using api_test::Y;

TEST(ApiConstants, DtypeLayoutAndDeviceConstants) {
  EXPECT_EQ(torch::kFloat32, torch::kFloat);
  EXPECT_EQ(torch::kInt64, torch::kLong);
  EXPECT_EQ(torch::kFloat64, torch::kDouble);
  EXPECT_EQ(torch::kInt32, torch::kInt);
  EXPECT_EQ(torch::kFloat16, torch::kHalf);
  EXPECT_EQ(torch::kUInt8, torch::kByte);
  EXPECT_EQ(torch::kInt8, torch::kChar);
  EXPECT_EQ(torch::kInt16, torch::kShort);
  EXPECT_EQ(torch::zeros({2}, torch::kBool).dtype(), torch::kBool);
  EXPECT_EQ(torch::zeros({2}, torch::kBFloat16).dtype(), torch::kBFloat16);
  EXPECT_EQ(torch::zeros({2}, torch::kComplexFloat).dtype(), torch::kComplexFloat);
  EXPECT_EQ(torch::zeros({2}).layout(), torch::kStrided);
  EXPECT_EQ(torch::zeros({2}).device().type(), torch::kCPU);
  EXPECT_EQ(torch::zeros({2}, torch::kCPU).device(), torch::Device(torch::kCPU));
  EXPECT_EQ(torch::zeros({2}, torch::Device("meta")).device().type(), torch::kMeta);
}

TEST(ApiOptions, HelpersStartAChain) {
  const torch::Tensor a = torch::ones({2, 3}, torch::dtype(torch::kFloat64).requires_grad(true));
  EXPECT_EQ(a.dtype(), torch::kDouble);
  EXPECT_TRUE(a.requires_grad());
  EXPECT_TRUE(a.is_leaf());
  const torch::Tensor b = torch::zeros({2}, torch::device(torch::kCPU).dtype(torch::kInt32));
  EXPECT_EQ(b.dtype(), torch::kInt);
  EXPECT_EQ(b.device(), torch::Device(torch::kCPU));
  const auto opts = torch::TensorOptions().dtype(torch::kFloat32).layout(torch::kStrided)
                        .device(torch::kCPU).requires_grad(false);
  EXPECT_FALSE(torch::empty({1}, opts).requires_grad());
  EXPECT_TRUE(torch::requires_grad().requires_grad());
  EXPECT_EQ(torch::layout(torch::kStrided).layout(), torch::kStrided);
  EXPECT_EQ(X().options().dtype(), torch::kFloat);
  EXPECT_EQ(X().to(torch::kDouble).options().dtype_opt(), std::optional<torch::ScalarType>(torch::kDouble));
}

TEST(ApiOptions, GettersGiveTheDefaultsOfUnsetFields) {
  // libtorch: an unset field reads as its default; *_opt() tells whether it was set.
  const torch::TensorOptions none;
  EXPECT_EQ(none.dtype(), torch::kFloat);
  EXPECT_EQ(none.device(), torch::Device(torch::kCPU));
  EXPECT_EQ(none.layout(), torch::kStrided);
  EXPECT_FALSE(none.requires_grad());
  EXPECT_FALSE(none.pinned_memory());
  EXPECT_FALSE(none.dtype_opt().has_value());
  EXPECT_FALSE(none.device_opt().has_value());
  EXPECT_FALSE(none.requires_grad_opt().has_value());
  std::ostringstream os;
  os << std::boolalpha << torch::TensorOptions().requires_grad(true).requires_grad();
  EXPECT_EQ(os.str(), "true");
}

TEST(ApiAutograd, CustomFunctionKeepsNonTensorsInSavedData) {
  // libtorch's custom-function idiom: saved_data[...] = double; backward reads toDouble().
  struct MulConstant : public torch::autograd::Function<MulConstant> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor t, double c) {
      ctx->saved_data["constant"] = c;
      return t * c;
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
      EXPECT_TRUE(ctx->saved_data["constant"].isDouble());
      return {grads[0] * ctx->saved_data["constant"].toDouble(), torch::Tensor()};
    }
  };
  torch::Tensor x = torch::ones({3}, torch::requires_grad());
  MulConstant::apply(x, 5.5).sum().backward();
  EXPECT_TRUE(torch::allclose(x.grad(), torch::full({3}, 5.5)));
}

TEST(ApiAutograd, CustomFunctionMayReturnUndefinedGradsForDefaultedArguments) {
  // pytorch/examples' LinearFunction: forward's bias defaults to Tensor(), apply() passes two
  // tensors, backward returns three gradients, the last undefined: libtorch drops it.
  struct LinearFunction : public torch::autograd::Function<LinearFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor input,
                                 torch::Tensor weight, torch::Tensor bias = torch::Tensor()) {
      ctx->save_for_backward({input, weight, bias});
      torch::Tensor out = input.mm(weight.t());
      if (bias.defined()) out += bias.unsqueeze(0).expand_as(out);
      return out;
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list grads) {
      auto saved = ctx->get_saved_variables();
      torch::Tensor grad_bias;
      if (saved[2].defined()) grad_bias = grads[0].sum(0);
      return {grads[0].mm(saved[1]), grads[0].t().mm(saved[0]), grad_bias};
    }
  };
  torch::Tensor x = torch::ones({2, 3}, torch::requires_grad());
  torch::Tensor w = torch::ones({4, 3}, torch::requires_grad());
  LinearFunction::apply(x, w).sum().backward();
  EXPECT_TRUE(torch::allclose(x.grad(), torch::full({2, 3}, 4.0)));
  EXPECT_TRUE(torch::allclose(w.grad(), torch::full({4, 3}, 2.0)));
  // A defined extra gradient is still an error naming the counts.
  struct TooMany : public torch::autograd::Function<TooMany> {
    static torch::Tensor forward(torch::autograd::AutogradContext*, torch::Tensor t) { return t * 2; }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext*,
                                                 torch::autograd::tensor_list grads) {
      return {grads[0] * 2, grads[0]};
    }
  };
  torch::Tensor y = torch::ones({2}, torch::requires_grad());
  EXPECT_THROW(TooMany::apply(y).sum().backward(), torch::Error);
}

TEST(ApiOptions, RequiresGradInEveryFactory) {
  const auto rg = torch::TensorOptions().requires_grad(true);
  std::vector<torch::Tensor> made = {
      torch::ones({2}, rg), torch::zeros({2}, rg), torch::empty({2}, rg),
      torch::full({2}, 1.5, rg), torch::rand({2}, rg), torch::randn({2}, rg),
      torch::arange(3, torch::dtype(torch::kFloat).requires_grad(true)),
      torch::linspace(0, 1, 3, rg), torch::eye(2, rg), torch::ones_like(X(), rg),
      torch::zeros_like(X(), rg), torch::randn_like(X(), rg), torch::empty_like(X(), rg),
      torch::tensor({1.0, 2.0}, rg), torch::tensor(3.0, rg)};
  for (const torch::Tensor& t : made) {
    EXPECT_TRUE(t.requires_grad());
    EXPECT_TRUE(t.is_leaf());
  }
  // The libtorch-documented case, then a backward through it against torch.
  torch::Tensor w = torch::ones({2, 3}, torch::TensorOptions().requires_grad(true));
  (w * X()).sum().backward();
  EXPECT_GOLDEN("requires_grad_option_grad", w.grad());
}

TEST(ApiOptions, RequiresGradOnIntegersThrows) {
  // PyTorch: "Only Tensors of floating point and complex dtype can require gradients".
  EXPECT_THROW(torch::ones({2}, torch::dtype(torch::kLong).requires_grad(true)), torch::Error);
  EXPECT_THROW(torch::arange(3, torch::requires_grad()), torch::Error);
}

TEST(ApiScalar, ToAndLibtorchSpellings) {
  const torch::Scalar d = 2.5, i = int64_t{7}, b = true;
  const torch::Scalar c = std::complex<double>(1.0, -2.0);
  EXPECT_EQ(d.to<double>(), 2.5);
  EXPECT_EQ(d.to<int>(), 2);
  EXPECT_EQ(d.toDouble(), 2.5);
  EXPECT_EQ(d.toFloat(), 2.5f);
  EXPECT_EQ(i.toLong(), 7);
  EXPECT_EQ(i.toInt(), 7);
  EXPECT_EQ(i.toDouble(), 7.0);
  EXPECT_TRUE(b.toBool());
  EXPECT_TRUE(torch::Scalar(0.5).toBool());
  EXPECT_EQ(c.toComplexDouble(), std::complex<double>(1.0, -2.0));
  EXPECT_TRUE(d.isFloatingPoint());
  EXPECT_TRUE(i.isIntegral(false));
  EXPECT_FALSE(b.isIntegral(false));
  EXPECT_TRUE(b.isIntegral(true));
  EXPECT_TRUE(b.isBoolean());
  EXPECT_TRUE(c.isComplex());
  EXPECT_EQ(d.type(), torch::kDouble);
}

TEST(ApiElements, ItemAndDataPtr) {
  const torch::Tensor x = X();
  EXPECT_GOLDEN("item_float", torch::tensor(x[1][1].item<float>()));
  EXPECT_EQ(x[1][1].item<double>(), 4.0);
  EXPECT_EQ(x[0][2].item().toDouble(), 3.25);
  EXPECT_EQ(torch::tensor(7).item<int64_t>(), 7);
  EXPECT_EQ(torch::tensor(7).item<int>(), 7);
  EXPECT_TRUE(torch::tensor(true).item<bool>());
  EXPECT_THROW(x.item<float>(), torch::Error);  // more than one element

  torch::Tensor t = torch::zeros({2, 3});
  float* p = t.data_ptr<float>();
  for (int k = 0; k < 6; ++k) p[k] = static_cast<float>(k);
  EXPECT_EQ(t[1][2].item<float>(), 5.0f);
  EXPECT_EQ(t.const_data_ptr<float>(), p);
  EXPECT_EQ(static_cast<float>(torch::ones({1}, torch::kHalf).data_ptr<torch::Half>()[0]), 1.0f);
  EXPECT_THROW(t.data_ptr<double>(), torch::TypeError);
  EXPECT_THROW(t.data_ptr<int64_t>(), torch::TypeError);
}

TEST(ApiElements, Accessor) {
  torch::Tensor t = torch::zeros({2, 3});
  auto a = t.accessor<float, 2>();
  EXPECT_EQ(a.size(0), 2);
  EXPECT_EQ(a.size(1), 3);
  for (int64_t i = 0; i < a.size(0); ++i) {
    for (int64_t j = 0; j < a.size(1); ++j) a[i][j] = static_cast<float>(10 * i + j);
  }
  EXPECT_EQ(t[1][2].item<float>(), 12.0f);
  // Through a transposed view's strides.
  const torch::Tensor tt = t.t();
  auto b = tt.accessor<float, 2>();
  EXPECT_EQ(b[2][1], 12.0f);
  EXPECT_EQ(b.stride(0), 1);
  auto y = Y();
  EXPECT_EQ((y.accessor<float, 3>()[1][2][3]), 23.0f);
  EXPECT_THROW((t.accessor<float, 3>()), torch::ValueError);
  EXPECT_THROW((t.accessor<double, 2>()), torch::TypeError);
}

TEST(ApiElements, FromBlob) {
  float data[6] = {1.5f, -2.0f, 3.25f, 0.5f, 4.0f, -1.0f};
  const torch::Tensor t = torch::from_blob(data, {2, 3});
  EXPECT_EQ(t.dtype(), torch::kFloat);
  EXPECT_TRUE(torch::equal(t, X()));
  EXPECT_EQ(t.data_ptr<float>(), data);  // no copy
  data[0] = 9.0f;
  EXPECT_EQ(t[0][0].item<float>(), 9.0f);

  double column[3] = {1.0, 2.0, 3.0};
  const torch::Tensor d = torch::from_blob(column, {3}, torch::kDouble);
  EXPECT_EQ(d.sum().item<double>(), 6.0);

  // With strides: every other element of a buffer (a transposed view of it).
  int64_t buf[6] = {0, 1, 2, 3, 4, 5};
  const torch::Tensor s = torch::from_blob(buf, {3, 2}, {1, 3}, torch::kLong);
  EXPECT_TRUE(torch::equal(s, torch::tensor({{0, 3}, {1, 4}, {2, 5}})));

  // With a deleter: called once, when the last tensor viewing the memory goes.
  int calls = 0;
  {
    float* heap = new float[4]{1, 2, 3, 4};
    torch::Tensor owner = torch::from_blob(heap, {4}, [&calls](void* p) {
      ++calls;
      delete[] static_cast<float*>(p);
    });
    torch::Tensor view = owner.slice(0, 1, 3);
    owner = torch::Tensor();
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(view.sum().item<float>(), 5.0f);
  }
  EXPECT_EQ(calls, 1);
  int strided_calls = 0;
  {
    static float storage[4] = {1, 2, 3, 4};
    auto t2 = torch::from_blob(storage, {2}, {2}, [&](void*) { ++strided_calls; }, torch::kFloat);
    EXPECT_EQ(t2[1].item<float>(), 3.0f);
  }
  EXPECT_EQ(strided_calls, 1);

  const torch::Tensor g = torch::from_blob(data, {6}, torch::requires_grad());
  EXPECT_TRUE(g.requires_grad());
}

TEST(ApiElements, FromBlobBadInput) {
  float data[4] = {};
  EXPECT_THROW(torch::from_blob(nullptr, {2}), torch::ValueError);
  EXPECT_THROW(torch::from_blob(data, {2, 2}, {1}), torch::ValueError);
  EXPECT_THROW(torch::from_blob(data, {-1}), torch::ValueError);
  EXPECT_THROW(torch::from_blob(data, {2}, {-1}), torch::ValueError);
  EXPECT_THROW(torch::from_blob(data, {2}, torch::Device("meta")), torch::NotImplementedError);
  EXPECT_NO_THROW(torch::from_blob(nullptr, {0}));
}

TEST(ApiOperators, ArithmeticAndCompoundAssignment) {
  torch::Tensor x = X().clone();
  x += 1;
  x *= 2;
  x -= X();
  x /= 4;
  EXPECT_GOLDEN("compound_assignment", x);
  EXPECT_GOLDEN("sum_of_mixed", (X() * 2 + 1) / 2 - X());
  torch::Tensor i = I().clone();
  i &= 6;
  EXPECT_GOLDEN("and_scalar", i);
  torch::Tensor j = I().clone();
  j |= 1;
  EXPECT_GOLDEN("or_scalar", j);
  torch::Tensor k = I().clone();
  k ^= I().flip(0);
  EXPECT_GOLDEN("xor_tensor", k);
}

TEST(ApiOperators, ComparisonsGiveBoolTensors) {
  const torch::Tensor x = X();
  EXPECT_GOLDEN("less_than_scalar", x < 1);
  EXPECT_GOLDEN("equal_scalar", x == 4);
  EXPECT_GOLDEN("scalar_less_than", 1 < x);
  EXPECT_GOLDEN("greater_equal_tensor", x >= -x);
  EXPECT_GOLDEN("not_equal_tensor", x != x.flip(1));
  EXPECT_EQ((x <= 0.5).sum().item<int64_t>(), 3);
  EXPECT_EQ((x > 0).dtype(), torch::kBool);
  EXPECT_THROW(x < torch::ones({4}), torch::Error);  // shapes that do not broadcast
}

TEST(ApiOperators, BitwiseAndShifts) {
  const torch::Tensor i = I();
  EXPECT_GOLDEN("and_scalar", i & 6);
  EXPECT_GOLDEN("or_scalar", i | 1);
  EXPECT_GOLDEN("xor_tensor", i ^ i.flip(0));
  EXPECT_GOLDEN("not", ~i);
  EXPECT_GOLDEN("shift_left", i << 1);
  EXPECT_GOLDEN("shift_right", i >> 1);
  EXPECT_GOLDEN("bool_and", B() & B().flip(1));
  EXPECT_GOLDEN("remainder", i % 4);
  EXPECT_THROW(X() & 1, torch::Error);  // bitwise ops on floats
}

TEST(ApiOperators, AllcloseAndEqual) {
  const torch::Tensor x = X();
  EXPECT_GOLDEN("allclose_near", torch::tensor(torch::allclose(x, x + 1e-7)));
  EXPECT_GOLDEN("allclose_far", torch::tensor(torch::allclose(x, x + 1e-3)));
  EXPECT_GOLDEN("equal_same", torch::tensor(torch::equal(x, x.clone())));
  EXPECT_GOLDEN("equal_different_sizes", torch::tensor(torch::equal(x, x.reshape({3, 2}))));
  EXPECT_TRUE(x.allclose(x + 1e-9));
  EXPECT_TRUE(x.equal(x));
  EXPECT_TRUE(torch::allclose(x, x + 0.01, /*rtol=*/0, /*atol=*/0.1));
  const torch::Tensor n = torch::tensor({1.0, std::nan("")});
  EXPECT_FALSE(torch::allclose(n, n));
  EXPECT_TRUE(torch::allclose(n, n, 1e-5, 1e-8, /*equal_nan=*/true));
  EXPECT_THROW(torch::allclose(x, torch::ones({4})), torch::Error);
  EXPECT_THROW(torch::equal(x, torch::Tensor()), torch::ValueError);
}

TEST(ApiConversions, ToDtypeDeviceOptionsAndOther) {
  const torch::Tensor x = X();
  EXPECT_GOLDEN("to_double", x.to(torch::kFloat64));
  EXPECT_GOLDEN("to_int", x.to(torch::kInt32));
  EXPECT_GOLDEN("to_options", x.to(torch::TensorOptions().dtype(torch::kDouble)));
  EXPECT_GOLDEN("to_options", x.to(torch::dtype(torch::kDouble)));
  EXPECT_GOLDEN("to_double", x.to(torch::kCPU, torch::kDouble));
  EXPECT_GOLDEN("to_double", x.to(torch::ones({1}, torch::kDouble)));
  EXPECT_TRUE(x.to(torch::kCPU).is_same(x));  // nothing changes: self
  EXPECT_TRUE(x.to(torch::Device("cpu")).is_same(x));
  EXPECT_TRUE(x.to(torch::kFloat).is_same(x));
  EXPECT_FALSE(x.to(torch::kFloat, false, /*copy=*/true).is_same(x));
  EXPECT_FALSE(x.to(torch::kCPU, false, /*copy=*/true).is_same(x));
  EXPECT_TRUE(x.cpu().is_same(x));
  // Another device: a copy there (libtorch's to(meta) gives a meta tensor of x's shape).
  const torch::Tensor m = x.to(torch::Device("meta"));
  EXPECT_EQ(m.device(), torch::Device("meta"));
  EXPECT_EQ(m.sizes(), x.sizes());
  EXPECT_EQ(m.scalar_type(), x.scalar_type());
  EXPECT_THROW(x.to(torch::TensorOptions().layout(torch::kSparse)), torch::NotImplementedError);
}

TEST(ApiAutograd, GradFnAndGuards) {
  const torch::Tensor w = torch::randn({3}, torch::requires_grad());
  EXPECT_EQ(w.grad_fn(), nullptr);
  const torch::Tensor y = (w * 2).sum();
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_FALSE(y.is_leaf());
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor z = w * 2;
    EXPECT_FALSE(z.requires_grad());
    EXPECT_EQ(z.grad_fn(), nullptr);
    {
      torch::AutoGradMode enable(true);
      EXPECT_TRUE((w * 2).requires_grad());
    }
    EXPECT_FALSE((w * 2).requires_grad());
  }
  EXPECT_TRUE((w * 2).requires_grad());
  {
    torch::InferenceMode guard;
    EXPECT_FALSE((w * 2).requires_grad());
  }
  {
    torch::AutoGradMode disable(false);
    EXPECT_FALSE(torch::GradMode::is_enabled());
  }
  EXPECT_TRUE(torch::GradMode::is_enabled());
  y.backward();
  EXPECT_TRUE(torch::allclose(w.grad(), torch::full({3}, 2.0)));
}

}  // namespace

namespace {

TEST(ApiCompat, CudaQueriesAndCheckMacros) {
  // What libtorch programs take from <torch/torch.h> besides tensors: no CUDA device here
  // (as Python's ember.cuda), and c10's check macros throwing ember::Error.
  EXPECT_FALSE(torch::cuda::is_available());
  EXPECT_EQ(torch::cuda::device_count(), 0);
  EXPECT_FALSE(torch::cuda::cudnn_is_available());
  EXPECT_NO_THROW(TORCH_CHECK(1 + 1 == 2, "arithmetic"));
  EXPECT_NO_THROW(AT_ASSERT(true));
  try {
    TORCH_CHECK(2 < 1, "two is not below ", 1);
    FAIL() << "TORCH_CHECK did not throw";
  } catch (const torch::Error& e) {
    EXPECT_NE(std::string(e.what()).find("two is not below 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(AT_ASSERT(!std::isnan(std::nan(""))), torch::Error);
}

}  // namespace
