#pragma once
/// Linear, Identity, Flatten, Dropout, Dropout2d and Embedding.

#include <ostream>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/module.h"
#include "frontend/nn/options/linear.h"
#include "frontend/nn/pimpl.h"

namespace ember::nn {

/// y = x W^T + b, with W (out_features, in_features) and b (out_features) initialised as
/// PyTorch's: W ~ kaiming_uniform(a = sqrt(5)), b ~ U(-1/sqrt(in), 1/sqrt(in)).
class EMBER_API LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  void reset() override;
  /// Re-draws the weight and bias.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// input (*, in_features) -> (*, out_features).
  Tensor forward(const Tensor& input);

  /// The options the module was built with.
  LinearOptions options;
  /// The weight (out_features, in_features).
  Tensor weight;
  /// The bias (out_features), undefined without one.
  Tensor bias;
};
EMBER_MODULE(Linear);

/// Returns its input.
class EMBER_API IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Identity);

/// Flattens dims start_dim..end_dim into one.
class EMBER_API FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {});
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  FlattenOptions options;
};
EMBER_MODULE(Flatten);

/// Zeroes elements with probability p in training (scaling the rest by 1 / (1 - p));
/// the identity in eval mode.
class EMBER_API DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(double p) : DropoutImpl(DropoutOptions(p)) {}
  explicit DropoutImpl(const DropoutOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  DropoutOptions options;
};
EMBER_MODULE(Dropout);

/// Zeroes whole channels of (N, C, H, W) input with probability p in training.
class EMBER_API Dropout2dImpl : public Cloneable<Dropout2dImpl> {
 public:
  explicit Dropout2dImpl(double p) : Dropout2dImpl(Dropout2dOptions(p)) {}
  explicit Dropout2dImpl(const Dropout2dOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  Dropout2dOptions options;
};
EMBER_MODULE(Dropout2d);

/// A lookup table: the rows of weight (num_embeddings, embedding_dim), drawn from N(0, 1),
/// at integer indices.
class EMBER_API EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);
  void reset() override;
  /// Re-draws the weight (and zeroes the padding row).
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// Integer indices of any shape -> (*indices.shape, embedding_dim).
  Tensor forward(const Tensor& indices);

  EmbeddingOptions options;
  /// The table (num_embeddings, embedding_dim).
  Tensor weight;
};

/// The holder of EmbeddingImpl, with libtorch's from_pretrained.
class EMBER_API Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  /// An Embedding whose table is embeddings (2-D), frozen unless options.freeze(false).
  static Embedding from_pretrained(const Tensor& embeddings,
                                   const EmbeddingFromPretrainedOptions& options = {});
};

}  // namespace ember::nn
