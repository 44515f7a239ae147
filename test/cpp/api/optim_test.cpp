// ember::optim in libtorch's idioms: several steps of each optimizer on a small
// least-squares problem, against torch.optim's results (cpp_api_reference.py), and the
// Optimizer base (param groups, state, zero_grad, option checks).

#include <memory>

#include "test/cpp/api/api_test_util.h"

using api_test::P;

namespace {

// w, b after `steps` steps, as cpp_api_reference.py's _optim_run.
template <class MakeOptimizer>
std::pair<torch::Tensor, torch::Tensor> run(MakeOptimizer make, int steps = 3) {
  torch::Tensor w = P({2, 3}).requires_grad_(true);
  torch::Tensor b = P({2}, 0.2).requires_grad_(true);
  auto optimizer = make(std::vector<torch::Tensor>{w, b});
  const torch::Tensor x = P({4, 3}, 0.3), target = P({4, 2}, 0.5);
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = (x.matmul(w.t()) + b - target).pow(2).mean();
    loss.backward();
    optimizer.step();
  }
  return {w.detach(), b.detach()};
}

#define EXPECT_OPTIM_GOLDEN(name, make)               \
  do {                                                \
    auto [w, b] = run(make);                          \
    EXPECT_GOLDEN_NEAR("optim_" name "_w", w, 1e-6);  \
    EXPECT_GOLDEN_NEAR("optim_" name "_b", b, 1e-6);  \
  } while (0)

}  // namespace

TEST(OptimSGD, StepsMatchTorch) {
  EXPECT_OPTIM_GOLDEN("sgd", [](std::vector<torch::Tensor> p) {
    return torch::optim::SGD(p, torch::optim::SGDOptions(0.1));
  });
  EXPECT_OPTIM_GOLDEN("sgd_momentum", [](std::vector<torch::Tensor> p) {
    return torch::optim::SGD(
        p, torch::optim::SGDOptions(0.1).momentum(0.9).dampening(0.1).weight_decay(0.01));
  });
  EXPECT_OPTIM_GOLDEN("sgd_nesterov", [](std::vector<torch::Tensor> p) {
    return torch::optim::SGD(p, torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
  });
}

TEST(OptimAdam, StepsMatchTorch) {
  EXPECT_OPTIM_GOLDEN("adam", [](std::vector<torch::Tensor> p) {
    return torch::optim::Adam(p, torch::optim::AdamOptions(0.01));
  });
  EXPECT_OPTIM_GOLDEN("adam_amsgrad_wd", [](std::vector<torch::Tensor> p) {
    return torch::optim::Adam(p, torch::optim::AdamOptions(0.01)
                                     .betas(std::make_tuple(0.8, 0.9))
                                     .weight_decay(0.1)
                                     .amsgrad(true));
  });
  EXPECT_OPTIM_GOLDEN("adamw", [](std::vector<torch::Tensor> p) {
    return torch::optim::AdamW(p, torch::optim::AdamWOptions(0.01));
  });
  EXPECT_OPTIM_GOLDEN("adamw_amsgrad", [](std::vector<torch::Tensor> p) {
    return torch::optim::AdamW(
        p, torch::optim::AdamWOptions(0.02).weight_decay(0.1).amsgrad(true).eps(1e-6));
  });
}

TEST(OptimRMSprop, StepsMatchTorch) {
  EXPECT_OPTIM_GOLDEN("rmsprop", [](std::vector<torch::Tensor> p) {
    return torch::optim::RMSprop(p, torch::optim::RMSpropOptions(0.01));
  });
  EXPECT_OPTIM_GOLDEN("rmsprop_centered_momentum", [](std::vector<torch::Tensor> p) {
    return torch::optim::RMSprop(p, torch::optim::RMSpropOptions(0.01)
                                        .alpha(0.9)
                                        .momentum(0.5)
                                        .centered(true)
                                        .weight_decay(0.1));
  });
}

TEST(OptimOptimizer, ModelParametersGroupsStateAndZeroGrad) {
  torch::nn::Linear model(3, 2);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.5));
  EXPECT_EQ(optimizer.param_groups().size(), 1u);
  EXPECT_EQ(optimizer.size(), 2u);
  EXPECT_EQ(optimizer.parameters().size(), 2u);
  auto& options = static_cast<torch::optim::SGDOptions&>(optimizer.param_groups()[0].options());
  EXPECT_DOUBLE_EQ(options.lr(), 0.1);
  EXPECT_DOUBLE_EQ(options.momentum(), 0.5);

  const torch::Tensor before = model->weight.clone();
  torch::Tensor loss = model(P({4, 3})).pow(2).sum();
  loss.backward();
  const torch::Tensor grad = model->weight.grad().clone();
  optimizer.step();
  EXPECT_TRUE(model->weight.allclose(before - 0.1 * grad));
  EXPECT_EQ(optimizer.state().size(), 2u);
  auto& state = static_cast<torch::optim::SGDParamState&>(*optimizer.state().at(model->weight.impl()));
  EXPECT_TRUE(state.momentum_buffer().allclose(grad));

  optimizer.zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(model->weight.grad().defined());
  EXPECT_EQ(model->weight.grad().abs().sum().item<float>(), 0.0f);
  optimizer.zero_grad();
  EXPECT_FALSE(model->weight.grad().defined());
  // A step with no gradients changes nothing.
  const torch::Tensor now = model->weight.clone();
  optimizer.step();
  EXPECT_TRUE(model->weight.equal(now));

  // Groups: the second has its own lr; options().set_lr() as a scheduler does.
  torch::Tensor a = torch::ones({2}).requires_grad_(true);
  torch::Tensor c = torch::ones({2}).requires_grad_(true);
  torch::optim::Adam adam(std::vector<torch::optim::OptimizerParamGroup>{
                              torch::optim::OptimizerParamGroup({a})},
                          torch::optim::AdamOptions(0.1));
  adam.add_param_group(torch::optim::OptimizerParamGroup(
      {c}, std::make_unique<torch::optim::AdamOptions>(0.5)));
  EXPECT_EQ(adam.param_groups().size(), 2u);
  EXPECT_DOUBLE_EQ(adam.param_groups()[1].options().get_lr(), 0.5);
  adam.param_groups()[0].options().set_lr(0.2);
  EXPECT_DOUBLE_EQ(static_cast<torch::optim::AdamOptions&>(adam.param_groups()[0].options()).lr(), 0.2);
  (a.sum() + c.sum()).backward();
  adam.step();
  // Adam's first step moves each element by lr (the normalised gradient is 1).
  EXPECT_NEAR(a[0].item<float>(), 1 - 0.2, 1e-5);
  EXPECT_NEAR(c[0].item<float>(), 1 - 0.5, 1e-5);
  auto& adam_state = static_cast<torch::optim::AdamParamState&>(*adam.state().at(c.impl()));
  EXPECT_EQ(adam_state.step(), 1);
  EXPECT_THROW(adam.add_param_group(torch::optim::OptimizerParamGroup({a})), ember::ValueError);

  // The closure form returns the loss.
  torch::Tensor w = torch::ones({2}).requires_grad_(true);
  torch::optim::SGD sgd({w}, 0.5);
  torch::Tensor closure_loss = sgd.step([&] {
    sgd.zero_grad();
    torch::Tensor l = (w * w).sum();
    l.backward();
    return l;
  });
  EXPECT_FLOAT_EQ(closure_loss.item<float>(), 2.0f);
  EXPECT_FLOAT_EQ(w[0].item<float>(), 0.0f);
}

TEST(OptimOptimizer, TrainsASmallModel) {
  torch::nn::Sequential model(torch::nn::Linear(3, 8), torch::nn::Tanh(), torch::nn::Linear(8, 1));
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.05));
  const torch::Tensor x = P({16, 3}, 0.3);
  const torch::Tensor y = x.sum(1, /*keepdim=*/true).sin();
  double first = 0, last = 0;
  for (int epoch = 0; epoch < 100; ++epoch) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(model->forward(x), y);
    loss.backward();
    optimizer.step();
    (epoch == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first * 0.1);
}

TEST(OptimOptimizer, BadOptionsRaiseValueError) {
  torch::Tensor w = torch::ones({2}).requires_grad_(true);
  EXPECT_THROW(torch::optim::SGD({w}, torch::optim::SGDOptions(-0.1)), ember::ValueError);
  EXPECT_THROW(torch::optim::SGD({w}, torch::optim::SGDOptions(0.1).nesterov(true)), ember::ValueError);
  EXPECT_THROW(torch::optim::Adam({w}, torch::optim::AdamOptions(0.1).betas(std::make_tuple(1.0, 0.9))),
               ember::ValueError);
  EXPECT_THROW(torch::optim::AdamW({w}, torch::optim::AdamWOptions(0.1).eps(-1)), ember::ValueError);
  EXPECT_THROW(torch::optim::RMSprop({w}, torch::optim::RMSpropOptions(0.1).momentum(-1)),
               ember::ValueError);
  // A non-leaf can't be optimised.
  torch::Tensor non_leaf = w * 2;
  EXPECT_THROW(torch::optim::SGD({non_leaf}, 0.1), ember::ValueError);
  EXPECT_THROW(torch::optim::SGD({w, w}, 0.1), ember::ValueError);
}

TEST(OptimClipGrad, NormAndValueMatchTorch) {
  torch::Tensor w = P({2, 3}).requires_grad_(true);
  torch::Tensor b = P({2}, 0.2).requires_grad_(true);
  (P({4, 3}, 0.3).matmul(w.t()) + b - P({4, 2}, 0.5)).pow(2).mean().backward();
  const double total = torch::nn::utils::clip_grad_norm_({w, b}, 0.1);
  EXPECT_GOLDEN_NEAR("clip_grad_norm_total", torch::tensor(total, torch::kFloat), 1e-6);
  EXPECT_GOLDEN_NEAR("clip_grad_norm_w", w.grad(), 1e-6);
  EXPECT_GOLDEN_NEAR("clip_grad_norm_b", b.grad(), 1e-6);
  torch::nn::utils::clip_grad_value_({w, b}, 0.01);
  EXPECT_LE(w.grad().abs().max().item<float>(), 0.01f);
  const torch::Tensor flat = torch::nn::utils::parameters_to_vector({w, b});
  EXPECT_EQ(flat.numel(), 8);
  torch::nn::utils::vector_to_parameters(flat * 2, {w, b});
  EXPECT_TRUE(w.allclose(P({2, 3}) * 2));
  EXPECT_THROW(torch::nn::utils::vector_to_parameters(flat.narrow(0, 0, 3), {w, b}), ember::ValueError);
}

TEST(OptimScheduler, StepLRDecaysEveryStepSizeSteps) {
  torch::Tensor w = torch::ones({2}).requires_grad_(true);
  torch::optim::SGD optimizer({w}, torch::optim::SGDOptions(1.0));
  torch::optim::StepLR scheduler(optimizer, /*step_size=*/2, /*gamma=*/0.5);
  std::vector<double> lrs;
  for (int epoch = 0; epoch < 5; ++epoch) {
    optimizer.step();
    scheduler.step();
    lrs.push_back(optimizer.param_groups()[0].options().get_lr());
  }
  // libtorch's counting: the decay comes at the calls after 2 and 4 steps were counted.
  EXPECT_EQ(lrs, (std::vector<double>{1.0, 1.0, 0.5, 0.5, 0.25}));
  EXPECT_THROW(torch::optim::StepLR(optimizer, 0), ember::ValueError);
}
