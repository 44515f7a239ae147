// The modules of frontend/nn/modules/{linear,activation,pooling,loss}.h.

#include <cmath>
#include <ios>

#include "aten/autograd/GradMode.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/sigmoid.h"
#include "ember/generated/ops/tanh.h"
#include "frontend/nn/functional.h"
#include "frontend/nn/init.h"
#include "frontend/nn/modules/activation.h"
#include "frontend/nn/modules/linear.h"
#include "frontend/nn/modules/loss.h"
#include "frontend/nn/modules/pooling.h"

namespace ember::nn {

namespace F = functional;
using detail::kModulePrefix;

namespace {
void check_module_dropout_p(const char* name, double p) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, name, ": dropout probability has to be between 0 ",
                    "and 1, but got ", p);
}
}  // namespace

// ---- Linear, Identity, Flatten -----------------------------------------------------------

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) { reset(); }

void LinearImpl::reset() {
  EMBER_CHECK_VALUE(options.in_features() >= 0 && options.out_features() >= 0,
                    "Linear: expected in_features and out_features to be non-negative, but got ",
                    options.in_features(), " and ", options.out_features());
  weight = register_parameter("weight", ::ember::empty({options.out_features(), options.in_features()}));
  if (options.bias()) {
    bias = register_parameter("bias", ::ember::empty({options.out_features()}));
  } else {
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << kModulePrefix << "Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

Tensor LinearImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 1 && input.size(-1) == options.in_features(),
              "Linear: expected input with last dim of size in_features=",
              options.in_features(), ", but got input of size ", input.sizes());
  return F::linear(input, weight, bias);
}

void IdentityImpl::pretty_print(std::ostream& stream) const {
  stream << kModulePrefix << "Identity()";
}
Tensor IdentityImpl::forward(const Tensor& input) { return input; }

FlattenImpl::FlattenImpl(const FlattenOptions& options_) : options(options_) {}
void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << kModulePrefix << "Flatten(start_dim=" << options.start_dim()
         << ", end_dim=" << options.end_dim() << ")";
}
Tensor FlattenImpl::forward(const Tensor& input) {
  return input.flatten(options.start_dim(), options.end_dim());
}

// ---- Dropout -----------------------------------------------------------------------------

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) { reset(); }
void DropoutImpl::reset() { check_module_dropout_p("Dropout", options.p()); }
void DropoutImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << kModulePrefix << "Dropout(p=" << options.p()
         << ", inplace=" << options.inplace() << ")";
}
Tensor DropoutImpl::forward(Tensor input) {
  return F::dropout(input,
                    F::DropoutFuncOptions().p(options.p()).inplace(options.inplace()).training(is_training()));
}

Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : options(options_) { reset(); }
void Dropout2dImpl::reset() { check_module_dropout_p("Dropout2d", options.p()); }
void Dropout2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << kModulePrefix << "Dropout2d(p=" << options.p()
         << ", inplace=" << options.inplace() << ")";
}
Tensor Dropout2dImpl::forward(Tensor input) {
  return F::dropout2d(
      input, F::Dropout2dFuncOptions().p(options.p()).inplace(options.inplace()).training(is_training()));
}

// ---- Embedding ---------------------------------------------------------------------------

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options_) : options(std::move(options_)) { reset(); }

void EmbeddingImpl::reset() {
  const int64_t rows = options.num_embeddings(), dim = options.embedding_dim();
  EMBER_CHECK_VALUE(rows >= 0 && dim >= 0, "Embedding: expected non-negative num_embeddings and ",
                    "embedding_dim, but got ", rows, " and ", dim);
  if (options.padding_idx()) {
    int64_t& idx = *options.padding_idx();
    EMBER_CHECK_VALUE(idx < rows && idx >= -rows, "Embedding: padding_idx must be within ",
                      "num_embeddings (", rows, "), but got ", idx);
    if (idx < 0) idx += rows;
  }
  EMBER_CHECK_NOT_IMPLEMENTED(!options.sparse(),
                              "Embedding: sparse gradients are not supported; use sparse(false)");
  if (options._weight().defined()) {
    EMBER_CHECK_VALUE(options._weight().sizes().vec() == std::vector<int64_t>({rows, dim}),
                      "Embedding: expected _weight of shape [", rows, ", ", dim, "], but got ",
                      options._weight().sizes());
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", ::ember::empty({rows, dim}));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    autograd::NoGradGuard no_grad;
    weight[*options.padding_idx()].fill_(0);
  }
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << kModulePrefix << "Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=true";
  stream << ")";
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return F::embedding(indices, weight,
                      F::EmbeddingFuncOptions()
                          .padding_idx(options.padding_idx())
                          .scale_grad_by_freq(options.scale_grad_by_freq()));
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  EMBER_CHECK_VALUE(embeddings.dim() == 2, "Embedding::from_pretrained(): expected a 2-D ",
                    "embeddings tensor, but got ", embeddings.dim(), "-D");
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings.detach().clone())
                          .padding_idx(options.padding_idx())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
  embedding->weight.requires_grad_(!options.freeze());
  return embedding;
}

// ---- Activations -------------------------------------------------------------------------

namespace {
void print_inplace(std::ostream& stream, const char* name, bool inplace) {
  stream << kModulePrefix << name << "(";
  if (inplace) stream << "inplace=true";
  stream << ")";
}
}  // namespace

void ReLUImpl::pretty_print(std::ostream& s) const { print_inplace(s, "ReLU", options.inplace()); }
Tensor ReLUImpl::forward(Tensor input) { return F::relu(input, options); }
void ReLU6Impl::pretty_print(std::ostream& s) const { print_inplace(s, "ReLU6", options.inplace()); }
Tensor ReLU6Impl::forward(Tensor input) { return F::relu6(input, options); }
void SELUImpl::pretty_print(std::ostream& s) const { print_inplace(s, "SELU", options.inplace()); }
Tensor SELUImpl::forward(Tensor input) { return F::selu(input, options); }

void LeakyReLUImpl::pretty_print(std::ostream& s) const {
  s << std::boolalpha << kModulePrefix << "LeakyReLU(negative_slope=" << options.negative_slope();
  if (options.inplace()) s << ", inplace=true";
  s << ")";
}
Tensor LeakyReLUImpl::forward(Tensor input) { return F::leaky_relu(input, options); }

void ELUImpl::pretty_print(std::ostream& s) const {
  s << kModulePrefix << "ELU(alpha=" << options.alpha();
  if (options.inplace()) s << ", inplace=true";
  s << ")";
}
Tensor ELUImpl::forward(Tensor input) { return F::elu(input, options); }

void GELUImpl::pretty_print(std::ostream& s) const {
  s << kModulePrefix << "GELU(";
  if (options.approximate() != "none") s << "approximate=" << options.approximate();
  s << ")";
}
Tensor GELUImpl::forward(Tensor input) { return F::gelu(input, options); }

void SoftplusImpl::pretty_print(std::ostream& s) const {
  s << kModulePrefix << "Softplus(beta=" << options.beta() << ", threshold=" << options.threshold()
    << ")";
}
Tensor SoftplusImpl::forward(Tensor input) { return F::softplus(input, options); }

void HardtanhImpl::pretty_print(std::ostream& s) const {
  s << kModulePrefix << "Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val();
  if (options.inplace()) s << ", inplace=true";
  s << ")";
}
Tensor HardtanhImpl::forward(Tensor input) { return F::hardtanh(input, options); }

void SiLUImpl::pretty_print(std::ostream& s) const { s << kModulePrefix << "SiLU()"; }
Tensor SiLUImpl::forward(const Tensor& input) { return F::silu(input); }
void MishImpl::pretty_print(std::ostream& s) const { s << kModulePrefix << "Mish()"; }
Tensor MishImpl::forward(const Tensor& input) { return F::mish(input); }
void SigmoidImpl::pretty_print(std::ostream& s) const { s << kModulePrefix << "Sigmoid()"; }
Tensor SigmoidImpl::forward(const Tensor& input) { return ::ember::sigmoid(input); }
void TanhImpl::pretty_print(std::ostream& s) const { s << kModulePrefix << "Tanh()"; }
Tensor TanhImpl::forward(const Tensor& input) { return ::ember::tanh(input); }

void SoftmaxImpl::pretty_print(std::ostream& s) const {
  s << kModulePrefix << "Softmax(dim=" << options.dim() << ")";
}
Tensor SoftmaxImpl::forward(const Tensor& input) { return F::softmax(input, options.dim()); }
void LogSoftmaxImpl::pretty_print(std::ostream& s) const {
  s << kModulePrefix << "LogSoftmax(dim=" << options.dim() << ")";
}
Tensor LogSoftmaxImpl::forward(const Tensor& input) { return F::log_softmax(input, options.dim()); }

// ---- Pooling -----------------------------------------------------------------------------

void MaxPool1dImpl::pretty_print(std::ostream& s) const {
  s << std::boolalpha << kModulePrefix << "MaxPool1d(kernel_size=" << options.kernel_size()
    << ", stride=" << options.stride() << ", padding=" << options.padding()
    << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}
Tensor MaxPool1dImpl::forward(const Tensor& input) { return F::max_pool1d(input, options); }

void MaxPool2dImpl::pretty_print(std::ostream& s) const {
  s << std::boolalpha << kModulePrefix << "MaxPool2d(kernel_size=" << options.kernel_size()
    << ", stride=" << options.stride() << ", padding=" << options.padding()
    << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}
Tensor MaxPool2dImpl::forward(const Tensor& input) { return F::max_pool2d(input, options); }
std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return F::max_pool2d_with_indices(input, options);
}

void AvgPool1dImpl::pretty_print(std::ostream& s) const {
  s << kModulePrefix << "AvgPool1d(kernel_size=" << options.kernel_size()
    << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}
Tensor AvgPool1dImpl::forward(const Tensor& input) { return F::avg_pool1d(input, options); }

void AvgPool2dImpl::pretty_print(std::ostream& s) const {
  s << kModulePrefix << "AvgPool2d(kernel_size=" << options.kernel_size()
    << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}
Tensor AvgPool2dImpl::forward(const Tensor& input) { return F::avg_pool2d(input, options); }

void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& s) const {
  s << kModulePrefix << "AdaptiveAvgPool2d(output_size=" << options.output_size() << ")";
}
Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return F::adaptive_avg_pool2d(input, options.output_size());
}

void UpsampleImpl::pretty_print(std::ostream& s) const {
  s << kModulePrefix << "Upsample(";
  if (options.scale_factor()) {
    s << "scale_factor=" << ArrayRef<double>(*options.scale_factor());
  } else if (options.size()) {
    s << "size=" << ArrayRef<int64_t>(*options.size());
  }
  s << ", mode=" << get_enum_name(options.mode()) << ")";
}
Tensor UpsampleImpl::forward(const Tensor& input) {
  F::InterpolateFuncOptions o;
  o.size(options.size()).scale_factor(options.scale_factor()).align_corners(options.align_corners());
  std::visit([&](const auto& mode) { o.mode(mode); }, options.mode());
  return F::interpolate(input, o);
}

// ---- Losses ------------------------------------------------------------------------------

#define EMBER_LOSS_BOILERPLATE(Name)                                              \
  Name##Impl::Name##Impl(Name##Options options_) : options(std::move(options_)) { \
    reset();                                                                      \
  }                                                                               \
  void Name##Impl::pretty_print(std::ostream& s) const {                          \
    s << kModulePrefix << #Name "()";                                             \
  }

EMBER_LOSS_BOILERPLATE(MSELoss)
void MSELossImpl::reset() {}
Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target, options);
}

EMBER_LOSS_BOILERPLATE(L1Loss)
void L1LossImpl::reset() {}
Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::l1_loss(input, target, options);
}

EMBER_LOSS_BOILERPLATE(SmoothL1Loss)
void SmoothL1LossImpl::reset() {}
Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, options);
}

EMBER_LOSS_BOILERPLATE(NLLLoss)
void NLLLossImpl::reset() { register_buffer("weight", options.weight()); }
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::nll_loss(input, target, options);
}

EMBER_LOSS_BOILERPLATE(CrossEntropyLoss)
void CrossEntropyLossImpl::reset() { register_buffer("weight", options.weight()); }
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::cross_entropy(input, target, options);
}

EMBER_LOSS_BOILERPLATE(BCELoss)
void BCELossImpl::reset() { register_buffer("weight", options.weight()); }
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy(input, target, options);
}

EMBER_LOSS_BOILERPLATE(BCEWithLogitsLoss)
void BCEWithLogitsLossImpl::reset() {
  register_buffer("weight", options.weight());
  register_buffer("pos_weight", options.pos_weight());
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy_with_logits(input, target, options);
}

#undef EMBER_LOSS_BOILERPLATE

}  // namespace ember::nn
