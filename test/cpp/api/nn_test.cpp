// ember::nn in libtorch's idioms: Module and the holder pattern, the modules' forward and
// backward against PyTorch's (cpp_api_reference.py's nn section), nn::functional, nn::init.

#include <sstream>

#include "test/cpp/api/api_test_util.h"

namespace F = torch::nn::functional;
using api_test::P;

namespace {

// A user's module, as libtorch programs write one.
struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(3, 4));
    bn = register_module("bn", torch::nn::BatchNorm1d(4));
    fc2 = register_module("fc2", torch::nn::Linear(torch::nn::LinearOptions(4, 2).bias(false)));
    scale = register_parameter("scale", torch::ones({1}));
    register_buffer("steps", torch::zeros({1}));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(bn(fc1(x)));
    return fc2(x) * scale;
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
  torch::Tensor scale;
};
TORCH_MODULE(Net);

// Copies values into a module's parameter or buffer (as a libtorch user sets weights).
void set(torch::Tensor& t, const torch::Tensor& value) {
  torch::NoGradGuard no_grad;
  t.copy_(value);
}

// forward, then backward of sum(y * y); checks y and the grads against case `name`.
template <class M>
void check_forward_backward(const std::string& name, M& module, const torch::Tensor& input,
                            double tol, std::initializer_list<const char*> params) {
  torch::Tensor x = input.clone().requires_grad_(true);
  torch::Tensor y = module->forward(x);
  (y * y).sum().backward();
  EXPECT_GOLDEN_NEAR(name + "_out", y, tol);
  EXPECT_GOLDEN_NEAR(name + "_grad_input", x.grad(), tol);
  auto named = module->named_parameters();
  for (const char* p : params) EXPECT_GOLDEN_NEAR(name + "_grad_" + p, named[p].grad(), tol);
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(NnModule, NamedParametersBuffersAndChildren) {
  Net net;
  auto params = net->named_parameters();
  std::vector<std::string> want = {"scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                                   "fc2.weight"};
  EXPECT_EQ(params.keys(), want);
  EXPECT_EQ(params.size(), 6u);
  EXPECT_EQ(net->parameters().size(), 6u);
  EXPECT_EQ(net->parameters(/*recurse=*/false).size(), 1u);
  EXPECT_TRUE(params["fc1.weight"].is_same(net->fc1->weight));
  EXPECT_EQ(params[1].key(), "fc1.weight");
  for (const auto& item : params) EXPECT_TRUE(item.value().requires_grad()) << item.key();
  std::vector<std::string> buffers = {"steps", "bn.running_mean", "bn.running_var",
                                      "bn.num_batches_tracked"};
  EXPECT_EQ(net->named_buffers().keys(), buffers);
  EXPECT_EQ(net->buffers().size(), 4u);
  EXPECT_EQ(net->children().size(), 3u);
  EXPECT_EQ(net->named_children().keys(), (std::vector<std::string>{"fc1", "bn", "fc2"}));
  EXPECT_EQ(net->modules().size(), 4u);
  EXPECT_EQ(net->named_modules().keys(), (std::vector<std::string>{"", "fc1", "bn", "fc2"}));
  EXPECT_EQ(net->modules(/*include_self=*/false).size(), 3u);
  EXPECT_EQ(net->name(), "(anonymous namespace)::NetImpl");
  EXPECT_NE(net->children()[0]->as<torch::nn::Linear>(), nullptr);
  EXPECT_EQ(net->children()[0]->as<torch::nn::BatchNorm1dImpl>(), nullptr);
  EXPECT_THROW(params["nope"], ember::IndexError);
}

TEST(NnModule, TrainEvalZeroGradToAndApply) {
  Net net;
  EXPECT_TRUE(net->is_training());
  net->eval();
  EXPECT_FALSE(net->is_training());
  EXPECT_FALSE(net->bn->is_training());
  net->train();
  EXPECT_TRUE(net->fc1->is_training());

  torch::Tensor y = net->forward(P({5, 3}));
  y.sum().backward();
  EXPECT_TRUE(net->fc1->weight.grad().defined());
  net->zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(net->fc1->weight.grad().defined());
  EXPECT_EQ(net->fc1->weight.grad().abs().sum().item<float>(), 0.0f);
  net->zero_grad();
  EXPECT_FALSE(net->fc1->weight.grad().defined());

  torch::Tensor weight = net->fc1->weight;
  net->to(torch::kDouble);
  EXPECT_EQ(weight.scalar_type(), torch::kDouble);  // the same tensor, converted in place
  EXPECT_EQ(net->fc1->weight.scalar_type(), torch::kDouble);
  EXPECT_EQ(net->bn->running_mean.scalar_type(), torch::kDouble);
  EXPECT_EQ(net->bn->num_batches_tracked.scalar_type(), torch::kLong);  // not floating point
  EXPECT_TRUE(net->fc1->weight.requires_grad());
  EXPECT_EQ(net->forward(P({2, 3}).to(torch::kDouble)).scalar_type(), torch::kDouble);
  net->to(torch::kCPU);

  int count = 0;
  net->apply([&](torch::nn::Module& m) { ++count; });
  EXPECT_EQ(count, 4);
  std::vector<std::string> names;
  net->apply([&](const std::string& name, torch::nn::Module&) { names.push_back(name); });
  EXPECT_EQ(names, (std::vector<std::string>{"", "fc1", "bn", "fc2"}));
  // Re-initialise every Linear as a user would.
  net->apply([](torch::nn::Module& m) {
    if (auto* linear = m.as<torch::nn::Linear>()) torch::nn::init::zeros_(linear->weight);
  });
  EXPECT_EQ(net->fc2->weight.abs().sum().item<double>(), 0.0);
}

TEST(NnModule, RegistrationErrors) {
  torch::nn::Module m;
  m.register_parameter("w", torch::ones({2}));
  EXPECT_THROW(m.register_parameter("w", torch::ones({2})), ember::ValueError);
  EXPECT_THROW(m.register_parameter("a.b", torch::ones({2})), ember::ValueError);
  EXPECT_THROW(m.register_module("", torch::nn::Linear(1, 1)), ember::ValueError);
  auto frozen = m.register_parameter("frozen", torch::ones({2}), /*requires_grad=*/false);
  EXPECT_FALSE(frozen.requires_grad());
  EXPECT_EQ(m.parameters().size(), 2u);
  torch::nn::Linear empty{nullptr};
  EXPECT_TRUE(empty.is_empty());
  EXPECT_THROW(empty->forward(torch::ones({1})), ember::Error);
  // A module on the stack has no shared_ptr to itself.
  EXPECT_THROW(m.modules(), ember::Error);
  EXPECT_EQ(m.modules(/*include_self=*/false).size(), 0u);
}

TEST(NnModule, PrettyPrint) {
  std::ostringstream s;
  s << torch::nn::Linear(3, 2);
  EXPECT_EQ(s.str(), "ember::nn::Linear(in_features=3, out_features=2, bias=true)");
  s.str("");
  s << torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 20, 5).stride(2).padding(1).bias(false));
  EXPECT_EQ(s.str(), "ember::nn::Conv2d(1, 20, kernel_size=[5, 5], stride=[2, 2], padding=[1, 1], bias=false)");
  s.str("");
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::ReLU(), torch::nn::Dropout(0.2));
  s << seq;
  EXPECT_EQ(s.str(),
            "ember::nn::Sequential(\n"
            "  (0): ember::nn::Linear(in_features=3, out_features=4, bias=true)\n"
            "  (1): ember::nn::ReLU()\n"
            "  (2): ember::nn::Dropout(p=0.2, inplace=false)\n"
            ")");
  s.str("");
  s << torch::nn::BatchNorm2d(3) << "|" << torch::nn::LSTM(torch::nn::LSTMOptions(3, 4).num_layers(2))
    << "|" << torch::nn::LayerNorm(torch::nn::LayerNormOptions({4}));
  EXPECT_EQ(s.str(),
            "ember::nn::BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)|"
            "ember::nn::LSTM(input_size=3, hidden_size=4, num_layers=2, bias=true, batch_first=false, "
            "dropout=0, bidirectional=false)|ember::nn::LayerNorm([4], eps=1e-05, elementwise_affine=true)");
}

TEST(NnLinear, ForwardBackwardMatchesTorch) {
  torch::nn::Linear fc(3, 2);
  set(fc->weight, P({2, 3}));
  set(fc->bias, P({2}, 0.2));
  check_forward_backward("linear", fc, P({4, 3}, 0.3), 1e-6, {"weight", "bias"});
  EXPECT_THROW(fc(torch::ones({2, 4})), ember::Error);
  torch::nn::Linear no_bias(torch::nn::LinearOptions(3, 2).bias(false));
  EXPECT_FALSE(no_bias->bias.defined());
  EXPECT_EQ(no_bias->parameters().size(), 1u);
  // Default init: U(-1/sqrt(in), 1/sqrt(in)) bounds for the weight (kaiming_uniform, a=sqrt(5)).
  torch::nn::Linear big(100, 50);
  EXPECT_LE(big->weight.abs().max().item<double>(), 0.1 + 1e-6);
  EXPECT_GT(big->weight.abs().max().item<double>(), 0.09);
}

TEST(NnConv, Conv2dForwardBackwardMatchesTorch) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(2, 3, 3).padding(1));
  set(conv->weight, P({3, 2, 3, 3}, 0.05));
  set(conv->bias, P({3}));
  check_forward_backward("conv2d", conv, P({2, 2, 5, 5}), 1e-5, {"weight", "bias"});

  torch::nn::Conv2d grouped(torch::nn::Conv2dOptions(4, 4, 3).stride(2).groups(2).bias(false));
  EXPECT_EQ(grouped->weight.sizes(), torch::IntArrayRef({4, 2, 3, 3}));
  set(grouped->weight, P({4, 2, 3, 3}, 0.05));
  EXPECT_GOLDEN_NEAR("conv2d_strided_groups", grouped(P({1, 4, 7, 7})), 1e-6);

  torch::nn::Conv2d reflect(torch::nn::Conv2dOptions(1, 2, 3).padding(2).padding_mode(torch::kReflect));
  set(reflect->weight, P({2, 1, 3, 3}, 0.05));
  set(reflect->bias, P({2}));
  EXPECT_GOLDEN_NEAR("conv2d_reflect", reflect(P({1, 1, 4, 5})), 1e-6);

  torch::nn::Conv2d same(torch::nn::Conv2dOptions(1, 1, {2, 3}).padding(torch::kSame).bias(false));
  set(same->weight, P({1, 1, 2, 3}));
  EXPECT_GOLDEN_NEAR("conv2d_same", same(P({1, 1, 4, 4})), 1e-6);

  torch::nn::Conv1d conv1(torch::nn::Conv1dOptions(2, 3, 2).stride(2));
  set(conv1->weight, P({3, 2, 2}));
  set(conv1->bias, P({3}));
  EXPECT_GOLDEN_NEAR("conv1d", conv1(P({2, 2, 7})), 1e-6);

  torch::nn::ConvTranspose2d deconv(
      torch::nn::ConvTranspose2dOptions(2, 3, 3).stride(2).padding(1).output_padding(1));
  set(deconv->weight, P({2, 3, 3, 3}, 0.05));
  set(deconv->bias, P({3}));
  check_forward_backward("conv_transpose2d", deconv, P({1, 2, 3, 3}), 1e-5, {"weight", "bias"});
  // Unbatched input.
  EXPECT_EQ(conv(P({2, 5, 5})).sizes(), torch::IntArrayRef({3, 5, 5}));
}

TEST(NnConv, BadInputAndOptionsRaiseTypedErrors) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 8, 3));
  const std::string msg = error_of([&] { conv(torch::ones({1, 4, 8, 8})); });
  EXPECT_NE(msg.find("expected input to have 3 channels"), std::string::npos) << msg;
  EXPECT_THROW(conv(torch::ones({8, 8})), ember::Error);
  EXPECT_THROW(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).groups(2)), ember::ValueError);
  EXPECT_THROW(torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 8, 0)), ember::ValueError);
  EXPECT_THROW(torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 8, 3).stride(2).padding(torch::kSame)),
               ember::ValueError);
  EXPECT_THROW(F::conv2d(torch::ones({1, 3, 4, 4}), torch::ones({2, 2, 3, 3})), ember::Error);
  EXPECT_THROW(torch::nn::Conv2dOptions(1, 1, {1, 2, 3}), ember::ValueError);
}

TEST(NnBatchNorm, TrainEvalAndRunningStatsMatchTorch) {
  torch::nn::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(3).momentum(0.2));
  set(bn->weight, P({3}, 0.5) + 1);
  set(bn->bias, P({3}));
  torch::Tensor x = P({4, 3, 2, 2}) + torch::arange(3.0, torch::kFloat).reshape({1, 3, 1, 1});
  check_forward_backward("batchnorm2d", bn, x, 1e-5, {"weight", "bias"});
  bn(x * 2);
  EXPECT_GOLDEN_NEAR("batchnorm2d_running_mean", bn->running_mean, 1e-6);
  EXPECT_GOLDEN_NEAR("batchnorm2d_running_var", bn->running_var, 1e-6);
  EXPECT_GOLDEN("batchnorm2d_num_batches_tracked", bn->num_batches_tracked);
  bn->eval();
  EXPECT_GOLDEN_NEAR("batchnorm2d_eval", bn(P({2, 3, 2, 2}, 0.3)), 1e-6);

  torch::nn::BatchNorm1d bn1(torch::nn::BatchNorm1dOptions(4).momentum(std::nullopt).affine(false));
  EXPECT_EQ(bn1->parameters().size(), 0u);
  bn1(P({5, 4}));
  bn1(P({5, 4}, 0.3) + 1);
  EXPECT_GOLDEN_NEAR("batchnorm1d_cumulative_mean", bn1->running_mean, 1e-6);
  EXPECT_GOLDEN_NEAR("batchnorm1d_cumulative_var", bn1->running_var, 1e-6);
  bn1->eval();
  EXPECT_GOLDEN_NEAR("batchnorm1d_eval", bn1(P({3, 4})), 1e-6);

  EXPECT_THROW(bn(torch::ones({2, 3})), ember::ValueError);
  const std::string msg = error_of([&] { bn(torch::ones({2, 5, 2, 2})); });
  EXPECT_NE(msg.find("3 channels"), std::string::npos) << msg;
  torch::nn::BatchNorm1d train_bn(2);
  EXPECT_THROW(train_bn(torch::ones({1, 2})), ember::ValueError);  // one value per channel
}

TEST(NnNorm, LayerNormAndGroupNormMatchTorch) {
  torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({4}));
  set(ln->weight, P({4}, 0.5) + 1);
  set(ln->bias, P({4}));
  check_forward_backward("layernorm", ln, P({3, 4}), 1e-5, {"weight", "bias"});
  torch::nn::GroupNorm gn(2, 4);
  EXPECT_GOLDEN_NEAR("groupnorm", gn(P({2, 4, 3})), 1e-5);
  EXPECT_THROW(torch::nn::GroupNorm(3, 4), ember::ValueError);
}

TEST(NnDropout, TrainDropsAndScalesEvalIsIdentity) {
  torch::nn::Dropout dropout(torch::nn::DropoutOptions().p(0.25));
  torch::Tensor x = torch::ones({1000});
  torch::Tensor y = dropout(x);
  const double zeros = (y == 0).sum().item<double>();
  EXPECT_GT(zeros, 150);
  EXPECT_LT(zeros, 350);
  EXPECT_TRUE(((y == 0) | ((y - 1 / 0.75).abs() < 1e-6)).all().item<bool>());
  dropout->eval();
  EXPECT_TRUE(dropout(x).equal(x));
  EXPECT_THROW(torch::nn::Dropout(1.5), ember::ValueError);
  EXPECT_THROW(F::dropout(x, F::DropoutFuncOptions().p(-0.1)), ember::ValueError);
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().p(0.5).training(false)).equal(x));
  torch::nn::Dropout2d d2(0.5);
  torch::Tensor z = d2(torch::ones({2, 8, 3, 3}));
  // Whole channels are zero or scaled.
  torch::Tensor per_channel = z.sum({2, 3});
  EXPECT_TRUE(((per_channel == 0) | (per_channel == 18)).all().item<bool>());
}

TEST(NnEmbedding, ForwardBackwardMatchesTorch) {
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(10, 3).padding_idx(0));
  EXPECT_EQ(emb->weight[0].abs().sum().item<float>(), 0.0f);  // the padding row starts at zero
  set(emb->weight, P({10, 3}));
  torch::Tensor y = emb(torch::tensor({{1, 2}, {0, 9}}));
  (y * y).sum().backward();
  EXPECT_GOLDEN("embedding_out", y);
  EXPECT_GOLDEN("embedding_grad_weight", emb->weight.grad());
  EXPECT_THROW(torch::nn::Embedding(torch::nn::EmbeddingOptions(10, 3).padding_idx(10)),
               ember::ValueError);
  auto frozen = torch::nn::Embedding::from_pretrained(P({10, 3}));
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_TRUE(frozen->weight.equal(P({10, 3})));
  EXPECT_GOLDEN("embedding_out", frozen(torch::tensor({{1, 2}, {0, 9}})));
  auto trainable = torch::nn::Embedding::from_pretrained(
      P({10, 3}), torch::nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(0));
  EXPECT_TRUE(trainable->weight.requires_grad());
}

TEST(NnLSTM, ParametersAndForwardBackwardMatchTorch) {
  torch::nn::LSTM lstm(3, 4);
  auto params = lstm->named_parameters();
  EXPECT_EQ(params.keys(), (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0",
                                                     "bias_hh_l0"}));
  EXPECT_EQ(params["weight_ih_l0"].sizes(), torch::IntArrayRef({16, 3}));
  int i = 0;
  for (auto& p : params) {
    set(p.value(), P(p.value().sizes().vec(), 0.1 + 0.05 * i));
    ++i;
  }
  torch::Tensor x = P({5, 2, 3}, 0.3).requires_grad_(true);
  auto [out, state] = lstm->forward(x);
  auto [h, c] = state;
  (out.sum() + h.sum() * 2 + c.sum()).backward();
  EXPECT_GOLDEN_NEAR("lstm_out", out, 1e-6);
  EXPECT_GOLDEN_NEAR("lstm_h", h, 1e-6);
  EXPECT_GOLDEN_NEAR("lstm_c", c, 1e-6);
  EXPECT_GOLDEN_NEAR("lstm_grad_input", x.grad(), 1e-5);
  EXPECT_GOLDEN_NEAR("lstm_grad_weight_ih_l0", params["weight_ih_l0"].grad(), 1e-5);
  EXPECT_GOLDEN_NEAR("lstm_grad_bias_hh_l0", params["bias_hh_l0"].grad(), 1e-5);

  torch::nn::LSTM deep(torch::nn::LSTMOptions(3, 2).num_layers(2).batch_first(true).bidirectional(true));
  auto deep_params = deep->named_parameters();
  EXPECT_EQ(deep_params.size(), 16u);
  EXPECT_EQ(deep_params[4].key(), "weight_ih_l0_reverse");
  EXPECT_EQ(deep_params["weight_ih_l1"].sizes(), torch::IntArrayRef({8, 4}));
  i = 0;
  for (auto& p : deep_params) {
    set(p.value(), P(p.value().sizes().vec(), 0.05 + 0.02 * i));
    ++i;
  }
  auto [out2, state2] = deep->forward(P({2, 4, 3}, 0.3),
                                      std::make_tuple(P({4, 2, 2}, 0.2), P({4, 2, 2}, 0.3)));
  EXPECT_GOLDEN_NEAR("lstm2_out", out2, 1e-6);
  EXPECT_GOLDEN_NEAR("lstm2_h", std::get<0>(state2), 1e-6);
  EXPECT_GOLDEN_NEAR("lstm2_c", std::get<1>(state2), 1e-6);

  EXPECT_THROW(lstm->forward(torch::ones({5, 2, 4})), ember::Error);
  EXPECT_THROW(lstm->forward(torch::ones({5})), ember::ValueError);
  EXPECT_THROW(lstm->forward(torch::ones({5, 2, 3}), std::make_tuple(torch::zeros({1, 3, 4}),
                                                                    torch::zeros({1, 2, 4}))),
               ember::Error);
  EXPECT_THROW(torch::nn::LSTM(torch::nn::LSTMOptions(3, 4).num_layers(0)), ember::ValueError);
}

TEST(NnRNN, GruAndRnnMatchTorch) {
  torch::nn::GRU gru(torch::nn::GRUOptions(3, 4).num_layers(2).bidirectional(true));
  auto params = gru->named_parameters();
  EXPECT_EQ(params.size(), 16u);
  EXPECT_EQ(params["weight_ih_l0"].sizes(), torch::IntArrayRef({12, 3}));
  EXPECT_EQ(params["weight_ih_l1_reverse"].sizes(), torch::IntArrayRef({12, 8}));
  int i = 0;
  for (auto& p : params) {
    set(p.value(), P(p.value().sizes().vec(), 0.1 + 0.03 * i));
    ++i;
  }
  torch::Tensor x = P({5, 2, 3}, 0.3).requires_grad_(true);
  auto [out, h] = gru->forward(x, P({4, 2, 4}, 0.2));
  (out.sum() + h.sum()).backward();
  EXPECT_GOLDEN_NEAR("gru_out", out, 1e-6);
  EXPECT_GOLDEN_NEAR("gru_h", h, 1e-6);
  EXPECT_GOLDEN_NEAR("gru_grad_input", x.grad(), 1e-5);
  EXPECT_GOLDEN_NEAR("gru_grad_weight_hh_l0", params["weight_hh_l0"].grad(), 1e-5);

  torch::nn::RNN rnn(torch::nn::RNNOptions(3, 4).nonlinearity(torch::kReLU).batch_first(true));
  i = 0;
  for (auto& p : rnn->named_parameters()) {
    set(p.value(), P(p.value().sizes().vec(), 0.1 + 0.05 * i));
    ++i;
  }
  auto [rout, rh] = rnn->forward(P({2, 5, 3}, 0.3));
  EXPECT_GOLDEN_NEAR("rnn_relu_out", rout, 1e-6);
  EXPECT_GOLDEN_NEAR("rnn_relu_h", rh, 1e-6);
  EXPECT_THROW(gru->forward(torch::ones({5, 2, 3}), torch::zeros({1, 2, 4})), ember::Error);
  std::ostringstream s;
  s << rnn;
  EXPECT_EQ(s.str(), "ember::nn::RNN(input_size=3, hidden_size=4, num_layers=1, bias=true, "
                     "batch_first=true, dropout=0, bidirectional=false, nonlinearity=kReLU)");
}

// Sets a cell's parameters as cpp_api_reference.py does.
template <class Cell>
void set_cell(Cell& cell) {
  int i = 0;
  for (auto& p : cell->named_parameters()) {
    set(p.value(), P(p.value().sizes().vec(), 0.1 + 0.05 * i));
    ++i;
  }
}

TEST(NnRNN, CellsMatchTorch) {
  const torch::Tensor h0 = P({2, 4}, 0.2);
  {
    torch::nn::LSTMCell cell(3, 4);
    set_cell(cell);
    torch::Tensor x = P({2, 3}, 0.3).requires_grad_(true);
    auto [h, c] = cell->forward(x, std::make_tuple(h0, P({2, 4}, 0.4)));
    (h * h).sum().backward();
    EXPECT_GOLDEN_NEAR("LSTMCell_h", h, 1e-6);
    EXPECT_GOLDEN_NEAR("LSTMCell_c", c, 1e-6);
    EXPECT_GOLDEN_NEAR("LSTMCell_grad_input", x.grad(), 1e-6);
    EXPECT_GOLDEN_NEAR("LSTMCell_grad_weight_hh", cell->weight_hh.grad(), 1e-6);
  }
  {
    torch::nn::GRUCell cell(3, 4);
    set_cell(cell);
    torch::Tensor x = P({2, 3}, 0.3).requires_grad_(true);
    torch::Tensor h = cell->forward(x, h0);
    (h * h).sum().backward();
    EXPECT_GOLDEN_NEAR("GRUCell_h", h, 1e-6);
    EXPECT_GOLDEN_NEAR("GRUCell_grad_input", x.grad(), 1e-6);
    EXPECT_GOLDEN_NEAR("GRUCell_grad_weight_hh", cell->weight_hh.grad(), 1e-6);
  }
  {
    torch::nn::RNNCell cell(3, 4);
    set_cell(cell);
    torch::Tensor x = P({2, 3}, 0.3).requires_grad_(true);
    torch::Tensor h = cell->forward(x, h0);
    (h * h).sum().backward();
    EXPECT_GOLDEN_NEAR("RNNCell_h", h, 1e-6);
    EXPECT_GOLDEN_NEAR("RNNCell_grad_input", x.grad(), 1e-6);
    EXPECT_GOLDEN_NEAR("RNNCell_grad_weight_hh", cell->weight_hh.grad(), 1e-6);
    EXPECT_EQ(cell->forward(torch::ones({3})).sizes(), torch::IntArrayRef({4}));  // unbatched
    EXPECT_THROW(cell->forward(torch::ones({2, 5})), ember::Error);
    EXPECT_THROW(cell->forward(torch::ones({2, 3}), torch::ones({3, 4})), ember::Error);
  }
}

TEST(NnFunctional, ActivationsMatchTorch) {
  const torch::Tensor x = api_test::X();
  EXPECT_GOLDEN("relu", F::relu(x));
  EXPECT_GOLDEN("leaky_relu", F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)));
  EXPECT_GOLDEN("gelu", F::gelu(x));
  EXPECT_GOLDEN("gelu_tanh", F::gelu(x, F::GELUFuncOptions().approximate("tanh")));
  EXPECT_GOLDEN("elu", F::elu(x, F::ELUFuncOptions().alpha(0.5)));
  EXPECT_GOLDEN("silu", F::silu(x));
  EXPECT_GOLDEN("sigmoid", F::sigmoid(x));
  EXPECT_GOLDEN("tanh", F::tanh(x));
  EXPECT_GOLDEN("softmax", F::softmax(x, 1));
  EXPECT_GOLDEN("log_softmax", F::log_softmax(x, F::LogSoftmaxFuncOptions(1)));
  EXPECT_GOLDEN("log_softmax", torch::log_softmax(x, 1));
  EXPECT_GOLDEN("log_softmax_dim0_double", F::log_softmax(x, F::LogSoftmaxFuncOptions(0).dtype(torch::kDouble)));
  EXPECT_GOLDEN("hardtanh", F::hardtanh(x, F::HardtanhFuncOptions().min_val(-1).max_val(2)));
  EXPECT_GOLDEN("softplus", F::softplus(x, F::SoftplusFuncOptions().beta(2)));
  EXPECT_GOLDEN("normalize", F::normalize(x, F::NormalizeFuncOptions().p(2).dim(1)));
  EXPECT_GOLDEN("normalize_l1_dim0", F::normalize(x, F::NormalizeFuncOptions().p(1).dim(0)));
  EXPECT_GOLDEN("relu", torch::nn::ReLU()(x));
  EXPECT_GOLDEN("leaky_relu", torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2))(x));
  EXPECT_GOLDEN("softmax", torch::nn::Softmax(1)(x));
  EXPECT_GOLDEN("tanh", torch::nn::Tanh()(x));
  EXPECT_GOLDEN("sigmoid", torch::nn::Sigmoid()(x));
  EXPECT_GOLDEN("gelu", torch::nn::GELU()(x));
  torch::Tensor y = x.clone();
  F::relu(y, F::ReLUFuncOptions().inplace(true));
  EXPECT_GOLDEN("relu", y);
  EXPECT_THROW(F::gelu(x, F::GELUFuncOptions().approximate("fast")), ember::ValueError);
}

TEST(NnFunctional, PoolingPaddingAndFlattenMatchTorch) {
  const torch::Tensor y4 = api_test::Y().reshape({1, 2, 3, 4});
  EXPECT_GOLDEN("max_pool2d", F::max_pool2d(y4, F::MaxPool2dFuncOptions(2)));
  EXPECT_GOLDEN("max_pool2d", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2))(y4));
  EXPECT_GOLDEN("max_pool2d_strided",
                F::max_pool2d(y4, F::MaxPool2dFuncOptions({2, 3}).stride(1).padding(1)));
  EXPECT_GOLDEN("avg_pool2d", F::avg_pool2d(y4, F::AvgPool2dFuncOptions(2).stride(1).padding(1)));
  EXPECT_GOLDEN("avg_pool2d_no_pad_count",
                torch::nn::AvgPool2d(torch::nn::AvgPool2dOptions(2).stride(1).padding(1).count_include_pad(false))(y4));
  EXPECT_GOLDEN("max_pool1d", F::max_pool1d(api_test::Y(), F::MaxPool1dFuncOptions(2)));
  EXPECT_GOLDEN("avg_pool1d", F::avg_pool1d(api_test::Y(), F::AvgPool1dFuncOptions(3).stride(1)));
  EXPECT_GOLDEN("flatten", torch::nn::Flatten()(api_test::Y()));
  const torch::Tensor x = api_test::X();
  EXPECT_GOLDEN("pad_constant", F::pad(x, F::PadFuncOptions({1, 2}).value(0.5)));
  EXPECT_GOLDEN("pad_reflect", F::pad(y4, F::PadFuncOptions({2, 1, 1, 2}).mode(torch::kReflect)));
  EXPECT_GOLDEN("pad_replicate", F::pad(y4, F::PadFuncOptions({2, 1, 1, 2}).mode(torch::kReplicate)));
  EXPECT_GOLDEN("pad_circular", F::pad(y4, F::PadFuncOptions({2, 1, 1, 2}).mode(torch::kCircular)));
  EXPECT_GOLDEN("pad_negative", F::pad(x, F::PadFuncOptions({-1, 1})));
  EXPECT_THROW(F::pad(x, F::PadFuncOptions({1, 2, 3})), ember::ValueError);
  EXPECT_THROW(F::pad(x, F::PadFuncOptions({3, 3}).mode(torch::kReflect)), ember::ValueError);
}

TEST(NnFunctional, LossesMatchTorch) {
  const torch::Tensor x = api_test::X();
  const torch::Tensor target = torch::tensor({2, 0});
  const torch::Tensor logp = F::log_softmax(x, 1);
  EXPECT_GOLDEN("mse_loss", F::mse_loss(x, x.flip(1)));
  EXPECT_GOLDEN("mse_loss", torch::mse_loss(x, x.flip(1)));
  EXPECT_GOLDEN("mse_loss_sum", F::mse_loss(x, x.flip(1), F::MSELossFuncOptions(torch::kSum)));
  EXPECT_GOLDEN("mse_loss_sum", torch::nn::MSELoss(torch::nn::MSELossOptions().reduction(torch::kSum))(x, x.flip(1)));
  EXPECT_GOLDEN("l1_loss_none", F::l1_loss(x, x.flip(0), F::L1LossFuncOptions().reduction(torch::kNone)));
  EXPECT_GOLDEN("smooth_l1_loss", F::smooth_l1_loss(x, x.flip(1), F::SmoothL1LossFuncOptions().beta(0.5)));
  EXPECT_GOLDEN("nll_loss", F::nll_loss(logp, target));
  EXPECT_GOLDEN("nll_loss", torch::nll_loss(logp, target));
  EXPECT_GOLDEN("nll_loss", torch::nn::NLLLoss()(logp, target));
  EXPECT_GOLDEN("nll_loss_weight",
                F::nll_loss(logp, target, F::NLLLossFuncOptions().weight(torch::tensor({1.0, 2.0, 0.5}))));
  EXPECT_GOLDEN("cross_entropy", F::cross_entropy(x, target));
  EXPECT_GOLDEN("cross_entropy", torch::nn::CrossEntropyLoss()(x, target));
  EXPECT_GOLDEN("cross_entropy_smoothing",
                F::cross_entropy(x, target, F::CrossEntropyFuncOptions().label_smoothing(0.1).reduction(torch::kSum)));
  EXPECT_GOLDEN("cross_entropy_ignore", F::cross_entropy(x, torch::tensor({2, -100})));
  const torch::Tensor bt = torch::tensor({{1.0, 0.0, 1.0}, {0.0, 0.0, 1.0}});
  EXPECT_GOLDEN("bce", F::binary_cross_entropy(torch::sigmoid(x), bt));
  EXPECT_GOLDEN("bce", torch::nn::BCELoss()(torch::sigmoid(x), bt));
  EXPECT_GOLDEN("bce_with_logits",
                torch::nn::BCEWithLogitsLoss(torch::nn::BCEWithLogitsLossOptions().pos_weight(torch::tensor({1.0, 2.0, 3.0})))(x, bt));
  torch::Tensor xx = x.clone().requires_grad_(true);
  F::cross_entropy(xx, target).backward();
  EXPECT_GOLDEN("cross_entropy_grad", xx.grad());
  EXPECT_THROW(F::nll_loss(logp, torch::tensor({5, 0})), ember::Error);
}

TEST(NnContainer, SequentialModuleListAndFunctional) {
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::ReLU(), torch::nn::Linear(4, 2),
                            torch::nn::Functional(torch::tanh));
  EXPECT_EQ(seq->size(), 4u);
  set(seq[0]->as<torch::nn::Linear>()->weight, P({4, 3}));
  set(seq->ptr<torch::nn::LinearImpl>(0)->bias, P({4}));
  set(seq[2]->as<torch::nn::Linear>()->weight, P({2, 4}, 0.3));
  set(seq->at<torch::nn::LinearImpl>(2).bias, P({2}));
  EXPECT_GOLDEN("sequential", seq->forward(api_test::X()));
  EXPECT_GOLDEN("sequential", seq(api_test::X()));
  EXPECT_EQ(seq->named_parameters().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  EXPECT_THROW(seq->ptr<torch::nn::ReLUImpl>(0), ember::TypeError);
  EXPECT_THROW(seq[7], ember::IndexError);

  torch::nn::Sequential named({{"fc", torch::nn::Linear(3, 2)}, {"act", torch::nn::Sigmoid()}});
  EXPECT_EQ(named->named_parameters().keys(), (std::vector<std::string>{"fc.weight", "fc.bias"}));
  named->push_back("drop", torch::nn::Dropout(0.1));
  EXPECT_EQ(named->named_children().keys(), (std::vector<std::string>{"fc", "act", "drop"}));
  torch::nn::Sequential with_lstm(torch::nn::LSTM(3, 4));
  EXPECT_THROW(with_lstm->forward(torch::ones({1, 1, 3})), ember::TypeError);

  torch::nn::ModuleList list(torch::nn::Linear(3, 3), torch::nn::Linear(3, 2));
  list->push_back(torch::nn::ReLU());
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(list->named_parameters().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias"}));
  torch::Tensor h = api_test::X();
  for (const auto& m : *list) {
    if (auto* linear = m->as<torch::nn::Linear>()) h = linear->forward(h);
  }
  EXPECT_EQ(h.sizes(), torch::IntArrayRef({2, 2}));

  torch::nn::Functional leaky(torch::leaky_relu, 0.2);
  EXPECT_GOLDEN("leaky_relu", leaky(api_test::X()));
  torch::nn::Functional lambda([](torch::Tensor t) { return t * 2; });
  EXPECT_TRUE(lambda(api_test::X()).equal(api_test::X() * 2));
}

TEST(NnModule, CloneIsDeep) {
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::BatchNorm1d(4), torch::nn::ReLU(),
                            torch::nn::Linear(4, 2));
  seq->eval();
  auto copy = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(seq->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_FALSE(copy->is_training());
  auto original = seq->named_parameters(), cloned = copy->named_parameters();
  EXPECT_EQ(original.keys(), cloned.keys());
  EXPECT_EQ(seq->named_buffers().keys(), copy->named_buffers().keys());
  for (const auto& p : original) {
    EXPECT_TRUE(p.value().equal(cloned[p.key()])) << p.key();
    EXPECT_FALSE(p.value().is_same(cloned[p.key()])) << p.key();
    EXPECT_TRUE(cloned[p.key()].requires_grad()) << p.key();
  }
  EXPECT_TRUE(copy->forward(api_test::X()).equal(seq->forward(api_test::X())));
  // The copy's modules are its own: changing one leaves the other.
  set(copy->at<torch::nn::LinearImpl>(0).weight, torch::zeros({4, 3}));
  EXPECT_FALSE(seq->at<torch::nn::LinearImpl>(0).weight.equal(torch::zeros({4, 3})));
  EXPECT_TRUE(copy->ptr<torch::nn::LinearImpl>(0)->weight.is_same(copy->named_parameters()["0.weight"]));

  torch::nn::LSTM lstm(torch::nn::LSTMOptions(3, 4).bidirectional(true));
  auto lstm_copy = std::dynamic_pointer_cast<torch::nn::LSTMImpl>(lstm->clone());
  auto [a, sa] = lstm->forward(P({2, 1, 3}));
  auto [b, sb] = lstm_copy->forward(P({2, 1, 3}));
  EXPECT_TRUE(a.equal(b));
  // A module that does not derive from Cloneable says so.
  Net net;
  EXPECT_THROW(net->clone(), ember::NotImplementedError);
}

TEST(NnInit, GainsBoundsAndFills) {
  EXPECT_DOUBLE_EQ(torch::nn::init::calculate_gain(torch::kReLU), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(torch::nn::init::calculate_gain(torch::kTanh), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(torch::nn::init::calculate_gain(torch::kLeakyReLU, 0.2), std::sqrt(2.0 / 1.04));
  EXPECT_DOUBLE_EQ(torch::nn::init::calculate_gain(torch::kLinear), 1.0);
  torch::Tensor w = torch::empty({200, 300});
  torch::nn::init::xavier_uniform_(w);
  EXPECT_LE(w.abs().max().item<double>(), std::sqrt(6.0 / 500) + 1e-6);
  torch::nn::init::kaiming_normal_(w, 0, torch::kFanOut, torch::kReLU);
  EXPECT_NEAR(w.std().item<double>(), std::sqrt(2.0 / 200), 0.003);
  torch::nn::init::kaiming_uniform_(w, std::sqrt(5.0));
  EXPECT_LE(w.abs().max().item<double>(), 1 / std::sqrt(300.0) + 1e-6);
  torch::nn::init::xavier_normal_(w, 2.0);
  EXPECT_NEAR(w.std().item<double>(), 2 * std::sqrt(2.0 / 500), 0.003);
  torch::nn::init::normal_(w, 1.0, 0.5);
  EXPECT_NEAR(w.mean().item<double>(), 1.0, 0.01);
  torch::nn::init::uniform_(w, -2, -1);
  EXPECT_LE(w.max().item<double>(), -1);
  torch::nn::init::constant_(w, 0.25);
  EXPECT_EQ(w.min().item<double>(), 0.25);
  torch::nn::init::ones_(w);
  EXPECT_EQ(w.sum().item<double>(), 60000);
  // A parameter that requires grad is filled without recording history.
  torch::Tensor p = torch::empty({3, 3}).requires_grad_(true);
  torch::nn::init::eye_(p);
  EXPECT_TRUE(p.is_leaf());
  EXPECT_EQ(p.diagonal().sum().item<float>(), 3.0f);
  EXPECT_THROW(torch::nn::init::xavier_uniform_(torch::empty({3})), ember::ValueError);
}
