// Whole libtorch programs on ember::nn and ember::optim: the model and training loop of
// pytorch/examples' cpp/mnist and cpp/dcgan, spelled as there, with `namespace torch =
// ember;` the only change (random data stands in for the datasets).

#include <cmath>

#include "test/cpp/api/api_test_util.h"

namespace F = torch::nn::functional;
using api_test::P;

namespace {

// cpp/mnist's Net (renamed: the suite is a unity build, and nn_test.cpp has a Net).
struct MnistNet : torch::nn::Module {
  MnistNet()
      : conv1(torch::nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(torch::nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.5, /*train=*/is_training());
    x = fc2->forward(x);
    return torch::log_softmax(x, /*dim=*/1);
  }

  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Dropout2d conv2_drop;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};

// cpp/dcgan's generator.
struct DCGANGeneratorImpl : torch::nn::Module {
  DCGANGeneratorImpl(int kNoiseSize)
      : conv1(torch::nn::ConvTranspose2dOptions(kNoiseSize, 256, 4).bias(false)),
        batch_norm1(256),
        conv2(torch::nn::ConvTranspose2dOptions(256, 128, 3).stride(2).padding(1).bias(false)),
        batch_norm2(128),
        conv3(torch::nn::ConvTranspose2dOptions(128, 64, 4).stride(2).padding(1).bias(false)),
        batch_norm3(64),
        conv4(torch::nn::ConvTranspose2dOptions(64, 1, 4).stride(2).padding(1).bias(false)) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
    register_module("conv4", conv4);
    register_module("batch_norm1", batch_norm1);
    register_module("batch_norm2", batch_norm2);
    register_module("batch_norm3", batch_norm3);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(batch_norm1(conv1(x)));
    x = torch::relu(batch_norm2(conv2(x)));
    x = torch::relu(batch_norm3(conv3(x)));
    x = torch::tanh(conv4(x));
    return x;
  }

  torch::nn::ConvTranspose2d conv1, conv2, conv3, conv4;
  torch::nn::BatchNorm2d batch_norm1, batch_norm2, batch_norm3;
};
TORCH_MODULE(DCGANGenerator);

}  // namespace

TEST(NnProgram, MnistTrainAndTest) {
  torch::manual_seed(1);
  torch::Device device(torch::kCPU);
  auto model = std::make_shared<MnistNet>();
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));
  EXPECT_EQ(model->parameters().size(), 8u);

  const torch::Tensor data = torch::randn({16, 1, 28, 28});
  const torch::Tensor targets = torch::randint(0, 10, {16});
  model->train();
  float first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    optimizer.zero_grad();
    auto output = model->forward(data);
    auto loss = torch::nll_loss(output, targets);
    ASSERT_FALSE(std::isnan(loss.template item<float>()));
    loss.backward();
    optimizer.step();
    (step == 0 ? first : last) = loss.template item<float>();
  }
  EXPECT_LT(last, first);

  model->eval();
  torch::NoGradGuard no_grad;
  auto output = model->forward(data);
  EXPECT_EQ(output.sizes(), torch::IntArrayRef({16, 10}));
  const double test_loss = torch::nll_loss(output, targets, /*weight=*/{}, torch::Reduction::Sum)
                               .template item<float>();
  EXPECT_GT(test_loss, 0);
  auto pred = output.argmax(1);
  const int64_t correct = pred.eq(targets).sum().template item<int64_t>();
  EXPECT_GE(correct, 0);
  // Eval mode is deterministic (the dropouts are off).
  EXPECT_TRUE(model->forward(data).equal(output));
}

TEST(NnProgram, DcganStep) {
  torch::manual_seed(1);
  const int64_t kNoiseSize = 100, batch = 2;
  DCGANGenerator generator(kNoiseSize);
  torch::nn::Sequential discriminator(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 64, 4).stride(2).padding(1).bias(false)),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(64, 128, 4).stride(2).padding(1).bias(false)),
      torch::nn::BatchNorm2d(128),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(128, 256, 4).stride(2).padding(1).bias(false)),
      torch::nn::BatchNorm2d(256),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(256, 1, 3).stride(1).padding(0).bias(false)),
      torch::nn::Sigmoid());
  torch::optim::Adam generator_optimizer(
      generator->parameters(), torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5)));
  torch::optim::Adam discriminator_optimizer(
      discriminator->parameters(), torch::optim::AdamOptions(5e-4).betas(std::make_tuple(0.5, 0.5)));

  const torch::Tensor real_images = torch::randn({batch, 1, 28, 28}).tanh();
  // Train discriminator with real images.
  discriminator->zero_grad();
  torch::Tensor real_labels = torch::empty(batch).uniform_(0.8, 1.0);
  torch::Tensor real_output = discriminator->forward(real_images).reshape(real_labels.sizes());
  torch::Tensor d_loss_real = torch::binary_cross_entropy(real_output, real_labels);
  d_loss_real.backward();
  // Train discriminator with fake images.
  torch::Tensor noise = torch::randn({batch, kNoiseSize, 1, 1});
  torch::Tensor fake_images = generator->forward(noise);
  EXPECT_EQ(fake_images.sizes(), torch::IntArrayRef({batch, 1, 28, 28}));
  torch::Tensor fake_labels = torch::zeros(batch);
  torch::Tensor fake_output = discriminator->forward(fake_images.detach()).reshape(fake_labels.sizes());
  torch::Tensor d_loss_fake = torch::binary_cross_entropy(fake_output, fake_labels);
  d_loss_fake.backward();
  torch::Tensor d_loss = d_loss_real + d_loss_fake;
  discriminator_optimizer.step();
  // Train generator.
  generator->zero_grad();
  fake_labels.fill_(1);
  fake_output = discriminator->forward(fake_images).reshape(fake_labels.sizes());
  torch::Tensor g_loss = torch::binary_cross_entropy(fake_output, fake_labels);
  g_loss.backward();
  generator_optimizer.step();
  EXPECT_FALSE(std::isnan(d_loss.item<float>()));
  EXPECT_FALSE(std::isnan(g_loss.item<float>()));
  EXPECT_TRUE(generator->conv1->weight.grad().defined());
}

TEST(NnProgram, TopLevelOpsAndAdaptivePooling) {
  const torch::Tensor x = P({1, 2, 5, 7});
  EXPECT_GOLDEN_NEAR("adaptive_avg_pool2d", F::adaptive_avg_pool2d(x, {2, 3}), 1e-6);
  EXPECT_GOLDEN_NEAR("adaptive_avg_pool2d", torch::adaptive_avg_pool2d(x, {2, 3}), 1e-6);
  EXPECT_GOLDEN_NEAR("adaptive_avg_pool2d",
                     torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions({2, 3}))(x), 1e-6);
  const torch::Tensor xi = P({1, 2, 3, 4});
  EXPECT_GOLDEN_NEAR("interpolate_nearest", F::interpolate(xi, F::InterpolateFuncOptions().size(std::vector<int64_t>{5, 7})), 1e-6);
  EXPECT_GOLDEN_NEAR("interpolate_nearest_scale",
                     torch::nn::Upsample(torch::nn::UpsampleOptions().scale_factor(std::vector<double>{2}))(xi), 1e-6);
  EXPECT_GOLDEN_NEAR("interpolate_bilinear",
                     F::interpolate(xi, F::InterpolateFuncOptions()
                                            .size(std::vector<int64_t>{5, 7})
                                            .mode(torch::kBilinear)
                                            .align_corners(false)),
                     1e-6);
  EXPECT_GOLDEN_NEAR("interpolate_bilinear_corners",
                     F::interpolate(xi, F::InterpolateFuncOptions()
                                            .scale_factor(std::vector<double>{1.5, 2})
                                            .mode(torch::kBilinear)
                                            .align_corners(true)),
                     1e-6);
  EXPECT_GOLDEN_NEAR("interpolate_linear",
                     F::interpolate(P({2, 3, 4}), F::InterpolateFuncOptions().size(std::vector<int64_t>{9}).mode(torch::kLinear)),
                     1e-6);
  EXPECT_GOLDEN_NEAR("interpolate_trilinear",
                     F::interpolate(P({1, 1, 2, 3, 2}), F::InterpolateFuncOptions()
                                                            .size(std::vector<int64_t>{3, 4, 5})
                                                            .mode(torch::kTrilinear)),
                     1e-6);
  EXPECT_THROW(F::interpolate(xi, F::InterpolateFuncOptions()), ember::ValueError);
  EXPECT_THROW(F::interpolate(xi, F::InterpolateFuncOptions().size(std::vector<int64_t>{5, 7}).mode(torch::kBicubic)),
               ember::NotImplementedError);
  EXPECT_THROW(F::interpolate(xi, F::InterpolateFuncOptions().size(std::vector<int64_t>{5}).mode(torch::kLinear)),
               ember::ValueError);
  const torch::Tensor w = P({3, 2, 3, 3}, 0.05), b = P({3});
  EXPECT_TRUE(torch::conv2d(x, w, b, 2, 1).equal(
      F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1))));
  EXPECT_TRUE(torch::max_pool2d(x, 2).equal(F::max_pool2d(x, F::MaxPool2dFuncOptions(2))));
  EXPECT_TRUE(torch::max_pool2d(x, {2, 3}, {1, 2}).equal(
      F::max_pool2d(x, F::MaxPool2dFuncOptions({2, 3}).stride({1, 2}))));
  EXPECT_THROW(torch::max_pool2d(x, {1, 2, 3}), ember::ValueError);
}
