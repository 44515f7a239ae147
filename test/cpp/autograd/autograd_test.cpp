// Autograd from C++: recording, the engine, grad modes, hooks, custom functions, saved
// tensor checks, and a chain of a million nodes (built, run and freed without recursion;
// the sanitizer build runs this too).
#include <gtest/gtest.h>

#include <vector>

#include "ember/generated/ops/add.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/ones.h"
#include "test/cpp/ember_api.h"

namespace {

using namespace ember;
using ember::autograd::variable_list;

std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(ScalarType::Double).contiguous();
  const double* p = c.data_ptr_as<double>();
  return std::vector<double>(p, p + c.numel());
}

TEST(Autograd, RecordsAndRunsBackward) {
  Tensor x = ember::tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor w = ember::tensor({4.0, 5.0, 6.0});
  Tensor y = (x * w + x.exp()).sum();
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(autograd::grad_fn(y)->name(), "SumBackward0");
  y.backward();
  const auto g = values(x.grad());
  ASSERT_EQ(g.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(g[i], 4.0 + i + std::exp(1.0 + i), 1e-4);
  EXPECT_FALSE(w.grad().defined());
}

TEST(Autograd, BroadcastGradientsAreSummedToTheInputShape) {
  Tensor a = ember::ones({3, 1}).requires_grad_();
  Tensor b = ember::ones({4}).requires_grad_();
  (a * b).sum().backward();
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({3, 1}));
  EXPECT_EQ(values(a.grad()), std::vector<double>(3, 4.0));
  EXPECT_EQ(values(b.grad()), std::vector<double>(4, 3.0));
}

TEST(Autograd, GradReturnsGradientsWithoutAccumulating) {
  Tensor x = ember::tensor({2.0, 3.0}).requires_grad_();
  Tensor y = (x * x).sum();
  variable_list g = autograd::grad({y}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true);
  EXPECT_EQ(values(g[0]), (std::vector<double>{4.0, 6.0}));
  EXPECT_TRUE(g[0].requires_grad());
  EXPECT_FALSE(x.grad().defined());
  variable_list g2 = autograd::grad({g[0].sum()}, {x});
  EXPECT_EQ(values(g2[0]), (std::vector<double>{2.0, 2.0}));
  EXPECT_THROW(autograd::grad({y * 2}, {ember::ones({2}).requires_grad_()}), Error);
}

TEST(Autograd, SecondBackwardWithoutRetainGraphFails) {
  Tensor x = ember::tensor({1.0}).requires_grad_();
  Tensor y = x.exp().sum();
  y.backward();
  try {
    y.backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("backward through the graph a second time"), std::string::npos);
  }
}

TEST(Autograd, NoGradAndInferenceMode) {
  Tensor x = ember::ones({2}).requires_grad_();
  {
    autograd::NoGradGuard no_grad;
    EXPECT_FALSE((x * 2).requires_grad());
  }
  EXPECT_TRUE((x * 2).requires_grad());
  Tensor y = ember::ones({2});
  {
    autograd::InferenceMode guard;
    const uint32_t v = y._version();
    y.add_(1);
    EXPECT_EQ(y._version(), v);  // no version counting
    EXPECT_FALSE((x * 2).requires_grad());
  }
  const uint32_t v = y._version();
  y.add_(1);
  EXPECT_EQ(y._version(), v + 1);
}

TEST(Autograd, InPlaceChecks) {
  Tensor leaf = ember::ones({2}).requires_grad_();
  EXPECT_THROW(leaf.mul_(2), Error);
  Tensor a = ember::tensor({1.0, 2.0}).requires_grad_();
  Tensor c = a.sin();
  Tensor d = c.cos();
  c.mul_(2);
  try {
    d.sum().backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("modified by an inplace operation"), std::string::npos);
  }
}

TEST(Autograd, OutFormsRefuseInputsThatRequireGrad) {
  Tensor x = ember::ones({2}).requires_grad_();
  Tensor out = ember::empty({2});
  EXPECT_THROW(ember::add_out(out, x, x), Error);
  autograd::NoGradGuard no_grad;
  ember::add_out(out, x, x);
  EXPECT_EQ(values(out), (std::vector<double>{2.0, 2.0}));
}

TEST(Autograd, HooksAndRetainGrad) {
  Tensor x = ember::tensor({1.0, 2.0}).requires_grad_();
  Tensor y = x * 3;
  autograd::retain_grad(y);
  int calls = 0;
  autograd::register_hook(y, [&](const Tensor& g) {
    ++calls;
    return g * 2;
  });
  autograd::register_hook(x, [](const Tensor& g) { return g + 1; });
  y.sum().backward();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(values(y.grad()), (std::vector<double>{2.0, 2.0}));
  EXPECT_EQ(values(x.grad()), (std::vector<double>{7.0, 7.0}));
}

struct Cube : autograd::Function<Cube> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, double k) {
    ctx->save_for_backward({x});
    ctx->saved_data["k"] = k;
    return x * x * x * k;
  }
  static variable_list backward(autograd::AutogradContext* ctx, variable_list grads) {
    Tensor x = ctx->get_saved_variables()[0];
    const double k = ctx->saved_data["k"].to_double();
    return {grads[0] * x * x * (3 * k), Tensor()};
  }
};

TEST(Autograd, CustomFunction) {
  Tensor x = ember::tensor({1.0, 2.0}).requires_grad_();
  Tensor y = Cube::apply(x, 2.0);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_EQ(autograd::grad_fn(y)->name(), "CppNode");
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{6.0, 24.0}));
}

TEST(Autograd, MillionNodeChainWithoutRecursion) {
  Tensor x = ember::ones({4}).requires_grad_();
  Tensor y = x;
  for (int i = 0; i < 1000000; ++i) y = y * 1.0;
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>(4, 1.0));
  y = Tensor();  // frees the chain
  Tensor z = x;
  for (int i = 0; i < 500000; ++i) z = z.exp().log();  // saved tensors along the chain
  z = Tensor();
}

}  // namespace
