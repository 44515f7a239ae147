#pragma once
/// Options of LSTM (libtorch's LSTMOptions).

#include <cstdint>

#include <variant>

#include "frontend/nn/arg.h"
#include "frontend/nn/enum.h"

namespace ember::nn {

/// LSTM(LSTMOptions(input_size, hidden_size).num_layers(2).batch_first(true)).
struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  /// The features of each input step.
  EMBER_ARG(int64_t, input_size);
  /// The features of the hidden state.
  EMBER_ARG(int64_t, hidden_size);
  /// The number of stacked layers.
  EMBER_ARG(int64_t, num_layers) = 1;
  /// Whether the layers have biases b_ih and b_hh.
  EMBER_ARG(bool, bias) = true;
  /// Whether input and output are (batch, seq, feature) rather than (seq, batch, feature).
  EMBER_ARG(bool, batch_first) = false;
  /// The dropout applied to the outputs of every layer but the last (in training).
  EMBER_ARG(double, dropout) = 0.0;
  /// Whether each layer also runs backwards in time.
  EMBER_ARG(bool, bidirectional) = false;
  /// The size of a projection of h (0: none).
  EMBER_ARG(int64_t, proj_size) = 0;
};

/// GRU(GRUOptions(input_size, hidden_size).num_layers(2)).
struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  /// The features of each input step.
  EMBER_ARG(int64_t, input_size);
  /// The features of the hidden state.
  EMBER_ARG(int64_t, hidden_size);
  /// The number of stacked layers.
  EMBER_ARG(int64_t, num_layers) = 1;
  /// Whether to learn an additive bias.
  EMBER_ARG(bool, bias) = true;
  /// Whether input and output are (batch, seq, feature).
  EMBER_ARG(bool, batch_first) = false;
  /// The dropout applied to the outputs of every layer but the last (in training).
  EMBER_ARG(double, dropout) = 0.0;
  /// Whether each layer also runs backwards in time.
  EMBER_ARG(bool, bidirectional) = false;
};

/// RNN(RNNOptions(input_size, hidden_size).nonlinearity(torch::kReLU)).
struct RNNOptions {
  using nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;
  RNNOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  /// The features of each input step.
  EMBER_ARG(int64_t, input_size);
  /// The features of the hidden state.
  EMBER_ARG(int64_t, hidden_size);
  /// The number of stacked layers.
  EMBER_ARG(int64_t, num_layers) = 1;
  /// tanh or relu after each step.
  EMBER_ARG(nonlinearity_t, nonlinearity) = enumtype::kTanh{};
  /// Whether to learn an additive bias.
  EMBER_ARG(bool, bias) = true;
  /// Whether input and output are (batch, seq, feature).
  EMBER_ARG(bool, batch_first) = false;
  /// The dropout applied to the outputs of every layer but the last (in training).
  EMBER_ARG(double, dropout) = 0.0;
  /// Whether each layer also runs backwards in time.
  EMBER_ARG(bool, bidirectional) = false;
};

/// LSTMCell(LSTMCellOptions(input_size, hidden_size).bias(true)); GRUCell's and RNNCell's
/// options are the same fields (RNNCell's adds nonlinearity).
struct RNNCellOptionsBase {
  RNNCellOptionsBase(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  /// The features of the input.
  EMBER_ARG(int64_t, input_size);
  /// The features of the hidden state.
  EMBER_ARG(int64_t, hidden_size);
  /// Whether the cell has biases b_ih and b_hh.
  EMBER_ARG(bool, bias) = true;
};

/// LSTMCell's options.
struct LSTMCellOptions : RNNCellOptionsBase {
  using RNNCellOptionsBase::RNNCellOptionsBase;
};
/// GRUCell's options.
struct GRUCellOptions : RNNCellOptionsBase {
  using RNNCellOptionsBase::RNNCellOptionsBase;
};
/// RNNCell's options.
struct RNNCellOptions : RNNCellOptionsBase {
  using nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;
  using RNNCellOptionsBase::RNNCellOptionsBase;
  /// tanh or relu.
  EMBER_ARG(nonlinearity_t, nonlinearity) = enumtype::kTanh{};
};

}  // namespace ember::nn
