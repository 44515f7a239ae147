#pragma once
/// LSTM, GRU and RNN: PyTorch's multi-layer recurrent layers (gates (i, f, g, o) and
/// (r, z, n)), with PyTorch's parameter names, shapes and initialisation.

#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "c10/core/Tensor.h"
#include "c10/macros/Export.h"
#include "frontend/nn/module.h"
#include "frontend/nn/options/rnn.h"
#include "frontend/nn/pimpl.h"

namespace ember::nn {

/// A stack of LSTM layers. Parameters per layer k (and direction, "_reverse"):
/// weight_ih_lk (4H, in), weight_hh_lk (4H, H_out), bias_ih_lk, bias_hh_lk (4H),
/// weight_hr_lk (proj_size, H) with a projection; all ~ U(-1/sqrt(H), 1/sqrt(H)).
class EMBER_API LSTMImpl : public Cloneable<LSTMImpl> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);
  void reset() override;
  /// Re-draws every parameter.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// input (T, B, in) (batch_first: (B, T, in); unbatched: (T, in)) and optional (h_0, c_0)
  /// -> (output, (h_n, c_n)).
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  /// Does nothing: there is no fused weight buffer to compact.
  void flatten_parameters() {}
  /// The parameters in PyTorch's flat order.
  std::vector<Tensor> all_weights() const;

  LSTMOptions options;

 private:
  // The names of layer*direction k's parameters, in order.
  std::vector<std::vector<std::string>> weight_names_;
};
EMBER_MODULE(LSTM);

/// A stack of GRU layers; parameters as LSTM's with 3H gate rows.
class EMBER_API GRUImpl : public Cloneable<GRUImpl> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size)
      : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  void reset() override;
  /// Re-draws every parameter ~ U(-1/sqrt(H), 1/sqrt(H)).
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// input and optional h_0 (undefined: zeros) -> (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  void flatten_parameters() {}

  GRUOptions options;

 private:
  std::vector<std::vector<std::string>> weight_names_;
};
EMBER_MODULE(GRU);

/// A stack of Elman RNN layers: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu).
class EMBER_API RNNImpl : public Cloneable<RNNImpl> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size)
      : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  void reset() override;
  /// Re-draws every parameter ~ U(-1/sqrt(H), 1/sqrt(H)).
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// input and optional h_0 (undefined: zeros) -> (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  void flatten_parameters() {}

  RNNOptions options;

 private:
  std::vector<std::vector<std::string>> weight_names_;
};
EMBER_MODULE(RNN);

/// One LSTM step: (input (B, in) or (in), optional (h, c)) -> (h', c').
class EMBER_API LSTMCellImpl : public Cloneable<LSTMCellImpl> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMCellOptions options;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
};
EMBER_MODULE(LSTMCell);

/// One GRU step: (input, optional h) -> h'.
class EMBER_API GRUCellImpl : public Cloneable<GRUCellImpl> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, Tensor hx = {});

  GRUCellOptions options;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
};
EMBER_MODULE(GRUCell);

/// One Elman RNN step: (input, optional h) -> h'.
class EMBER_API RNNCellImpl : public Cloneable<RNNCellImpl> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, Tensor hx = {});

  RNNCellOptions options;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
};
EMBER_MODULE(RNNCell);

}  // namespace ember::nn
