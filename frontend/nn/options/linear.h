#pragma once
/// Options of Linear, Flatten, Dropout and Embedding (libtorch's names and defaults).

#include <cstdint>
#include <optional>

#include "c10/core/Tensor.h"
#include "frontend/nn/arg.h"

namespace ember::nn {

/// Linear(in_features, out_features).bias(true).
struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  /// The size of each input sample.
  EMBER_ARG(int64_t, in_features);
  /// The size of each output sample.
  EMBER_ARG(int64_t, out_features);
  /// Whether to learn an additive bias.
  EMBER_ARG(bool, bias) = true;
};

/// Flatten().start_dim(1).end_dim(-1).
struct FlattenOptions {
  /// The first dim to flatten.
  EMBER_ARG(int64_t, start_dim) = 1;
  /// The last dim to flatten.
  EMBER_ARG(int64_t, end_dim) = -1;
};

/// Dropout(p).inplace(false).
struct DropoutOptions {
  /*implicit*/ DropoutOptions(double p = 0.5) : p_(p) {}
  /// The probability of zeroing an element.
  EMBER_ARG(double, p);
  /// Whether to drop in place.
  EMBER_ARG(bool, inplace) = false;
};
using Dropout2dOptions = DropoutOptions;

/// Embedding(num_embeddings, embedding_dim).padding_idx(...).
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  /// The size of the dictionary.
  EMBER_ARG(int64_t, num_embeddings);
  /// The size of each embedding vector.
  EMBER_ARG(int64_t, embedding_dim);
  /// The row whose gradient is always zero (and which starts as zeros).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Scale gradients by the inverse frequency of the words in the batch.
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  /// Sparse gradients (not supported: Ember's embedding gradient is dense).
  EMBER_ARG(bool, sparse) = false;
  /// Weights to start from instead of N(0, 1).
  EMBER_ARG(Tensor, _weight) = Tensor();
};

/// Embedding::from_pretrained(weights, EmbeddingFromPretrainedOptions().freeze(false)).
struct EmbeddingFromPretrainedOptions {
  /// Whether the weights stay fixed (requires_grad false).
  EMBER_ARG(bool, freeze) = true;
  /// The row whose gradient is always zero.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Scale gradients by the inverse frequency of the words in the batch.
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  /// Sparse gradients (not supported).
  EMBER_ARG(bool, sparse) = false;
};

namespace functional {

/// F::normalize(x, NormalizeFuncOptions().p(2).dim(1).eps(1e-12)).
struct NormalizeFuncOptions {
  /// The order of the norm.
  EMBER_ARG(double, p) = 2.0;
  /// The dim normalised over.
  EMBER_ARG(int64_t, dim) = 1;
  /// The smallest norm divided by.
  EMBER_ARG(double, eps) = 1e-12;
};

/// F::dropout(x, DropoutFuncOptions().p(0.5).training(true)).
struct DropoutFuncOptions {
  /// The probability of zeroing an element.
  EMBER_ARG(double, p) = 0.5;
  /// Whether to drop (false: the identity).
  EMBER_ARG(bool, training) = true;
  /// Whether to drop in place.
  EMBER_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;

/// F::embedding(input, weight, EmbeddingFuncOptions().padding_idx(0)).
struct EmbeddingFuncOptions {
  /// The row whose gradient is always zero.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Scale gradients by the inverse frequency of the words in the batch.
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  /// Sparse gradients (not supported).
  EMBER_ARG(bool, sparse) = false;
};

}  // namespace functional
}  // namespace ember::nn
