// LSTM, GRU and RNN (frontend/nn/modules/rnn.h), as python/ember/nn/modules/rnn.py runs
// them: one input projection per layer and direction, then, for an LSTM without a
// projection, ember::_lstm_layer (Note [LSTM layer] in aten/native/cpu/rnn.cpp), else a
// loop of per-step ops.

#include <cmath>
#include <ios>

#include "aten/TensorFactories.h"
#include "aten/TensorOperators.h"
#include "c10/util/Exception.h"
#include "ember/generated/ops/_lstm_layer.h"
#include "ember/generated/ops/addmm.h"
#include "ember/generated/ops/cat.h"
#include "ember/generated/ops/empty.h"
#include "ember/generated/ops/matmul.h"
#include "ember/generated/ops/relu.h"
#include "ember/generated/ops/sigmoid.h"
#include "ember/generated/ops/stack.h"
#include "ember/generated/ops/tanh.h"
#include "ember/generated/ops/zeros.h"
#include "frontend/nn/functional.h"
#include "frontend/nn/init.h"
#include "frontend/nn/modules/rnn.h"

namespace ember::nn {

namespace F = functional;
using detail::kModulePrefix;

namespace {

enum class RnnMode { Lstm, Gru, RnnTanh, RnnRelu };

// What the three modules share: their options, spelled once.
struct RnnSpec {
  const char* name;
  RnnMode mode;
  int64_t input_size, hidden_size, num_layers;
  bool bias, batch_first;
  double dropout;
  bool bidirectional;
  int64_t proj_size;

  int64_t gates() const { return mode == RnnMode::Lstm ? 4 : mode == RnnMode::Gru ? 3 : 1; }
  int64_t directions() const { return bidirectional ? 2 : 1; }
  int64_t real_hidden() const { return proj_size > 0 ? proj_size : hidden_size; }
};

// Checks the options and registers the parameters on module; returns each layer and
// direction's parameter names (weight_ih, weight_hh[, bias_ih, bias_hh][, weight_hr]).
std::vector<std::vector<std::string>> register_rnn_weights(Module& module, const RnnSpec& s) {
  EMBER_CHECK_VALUE(s.input_size > 0, s.name, ": input_size must be greater than zero, but got ",
                    s.input_size);
  EMBER_CHECK_VALUE(s.hidden_size > 0, s.name, ": hidden_size must be greater than zero, but got ",
                    s.hidden_size);
  EMBER_CHECK_VALUE(s.num_layers > 0, s.name, ": num_layers must be greater than zero, but got ",
                    s.num_layers);
  EMBER_CHECK_VALUE(s.dropout >= 0 && s.dropout <= 1, s.name, ": dropout should be a number in ",
                    "range [0, 1] representing the probability of an element being zeroed, but got ",
                    s.dropout);
  EMBER_CHECK_VALUE(s.proj_size >= 0 && s.proj_size < s.hidden_size, s.name,
                    ": proj_size has to be a non-negative integer smaller than hidden_size, ",
                    "but got proj_size=", s.proj_size, " and hidden_size=", s.hidden_size);
  const int64_t gate_size = s.gates() * s.hidden_size;
  std::vector<std::vector<std::string>> all;
  for (int64_t layer = 0; layer < s.num_layers; ++layer) {
    for (int64_t direction = 0; direction < s.directions(); ++direction) {
      const int64_t layer_input = layer == 0 ? s.input_size : s.real_hidden() * s.directions();
      const std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      std::vector<std::pair<std::string, std::vector<int64_t>>> shapes = {
          {"weight_ih", {gate_size, layer_input}}, {"weight_hh", {gate_size, s.real_hidden()}}};
      if (s.bias) {
        shapes.push_back({"bias_ih", {gate_size}});
        shapes.push_back({"bias_hh", {gate_size}});
      }
      if (s.proj_size > 0) shapes.push_back({"weight_hr", {s.proj_size, s.hidden_size}});
      std::vector<std::string> names;
      for (auto& [stem, shape] : shapes) {
        names.push_back(stem + suffix);
        module.register_parameter(names.back(), ::ember::empty(shape));
      }
      all.push_back(std::move(names));
    }
  }
  const double stdv = 1.0 / std::sqrt(static_cast<double>(s.hidden_size));
  for (Tensor& p : module.parameters()) init::uniform_(p, -stdv, stdv);
  return all;
}

void print_rnn(std::ostream& stream, const RnnSpec& s) {
  stream << std::boolalpha << kModulePrefix << s.name << "(input_size=" << s.input_size
         << ", hidden_size=" << s.hidden_size << ", num_layers=" << s.num_layers
         << ", bias=" << s.bias << ", batch_first=" << s.batch_first << ", dropout=" << s.dropout
         << ", bidirectional=" << s.bidirectional;
  if (s.mode == RnnMode::RnnRelu) stream << ", nonlinearity=kReLU";
  if (s.proj_size > 0) stream << ", proj_size=" << s.proj_size;
  stream << ")";
}

struct RnnResult {
  Tensor output, h_n, c_n;
};

// Checks the input and states, runs every layer and direction, and shapes the results
// as PyTorch does (batch_first, unbatched). c0 is used only by LSTMs.
RnnResult run_rnn(const RnnSpec& s, const OrderedDict<std::string, Tensor>& params,
                  const std::vector<std::vector<std::string>>& names, const Tensor& input_,
                  Tensor h0, Tensor c0, bool training) {
  const bool lstm = s.mode == RnnMode::Lstm;
  EMBER_CHECK_VALUE(input_.dim() == 2 || input_.dim() == 3, s.name,
                    ": Expected input to be 2D or 3D, got ", input_.dim(), "D instead");
  const bool is_batched = input_.dim() == 3;
  const int64_t batch_dim = s.batch_first ? 0 : 1;
  Tensor input = is_batched ? input_ : input_.unsqueeze(batch_dim);
  EMBER_CHECK(input.size(-1) == s.input_size, s.name,
              ": input.size(-1) must be equal to input_size. Expected ", s.input_size, ", got ",
              input.size(-1));
  const Tensor& w0 = params[names[0][0]];
  EMBER_CHECK_TYPE(input.scalar_type() == w0.scalar_type(), s.name, ": input dtype (",
                   scalar_type_name(input.scalar_type()), ") does not match weight dtype (",
                   scalar_type_name(w0.scalar_type()), "); convert the input or the model");
  const int64_t batch = input.size(batch_dim);
  const std::vector<int64_t> h_shape = {s.num_layers * s.directions(), batch, s.real_hidden()};
  const std::vector<int64_t> c_shape = {s.num_layers * s.directions(), batch, s.hidden_size};
  const TensorOptions like = TensorOptions().dtype(input.scalar_type());
  auto prepare = [&](Tensor& state, const std::vector<int64_t>& shape, int index) {
    if (!state.defined()) {
      state = ::ember::zeros(shape, like);
      return;
    }
    const int64_t want = is_batched ? 3 : 2;
    EMBER_CHECK(state.dim() == want, s.name, ": for ", is_batched ? "batched 3-D" : "unbatched 2-D",
                " input, the hidden state should also be ", want, "-D but got ", state.dim(), "-D");
    if (!is_batched) state = state.unsqueeze(1);
    EMBER_CHECK(state.sizes().vec() == shape, s.name, ": Expected hidden[", index, "] size ",
                IntArrayRef(shape), ", got ", state.sizes());
  };
  prepare(h0, h_shape, 0);
  if (lstm) prepare(c0, c_shape, 1);
  if (s.batch_first) input = input.transpose(0, 1);
  const std::vector<Tensor> hs = h0.unbind(0);
  const std::vector<Tensor> cs = lstm ? c0.unbind(0) : std::vector<Tensor>();
  std::vector<Tensor> h_out, c_out;
  const int64_t steps = input.size(0);
  const bool fused_dtype =
      input.scalar_type() == ScalarType::Float || input.scalar_type() == ScalarType::Double;
  for (int64_t layer = 0; layer < s.num_layers; ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t direction = 0; direction < s.directions(); ++direction) {
      const size_t k = static_cast<size_t>(layer * s.directions() + direction);
      const std::vector<std::string>& n = names[k];
      const Tensor& w_ih = params[n[0]];
      const Tensor& w_hh = params[n[1]];
      const Tensor b_ih = s.bias ? params[n[2]] : Tensor();
      const Tensor b_hh = s.bias ? params[n[3]] : Tensor();
      const Tensor w_hr = s.proj_size > 0 ? params[n.back()] : Tensor();
      // b_hh folds into the input projection except for GRU (it sits inside r * (...)).
      const Tensor bias = s.bias && s.mode != RnnMode::Gru ? b_ih + b_hh : b_ih;
      const int64_t t_in = input.size(0), b = input.size(1);
      Tensor gx = F::linear(input.reshape({t_in * b, input.size(2)}), w_ih, bias);
      gx = gx.reshape({t_in, b, gx.size(-1)});
      Tensor h = hs[k];
      Tensor c = lstm ? cs[k] : Tensor();
      if (lstm && !w_hr.defined() && fused_dtype && input.device().is_cpu()) {
        // The whole direction in one op (Note [LSTM layer]).
        auto result = ::ember::_lstm_layer(gx, h, c, w_hh, direction == 1);
        outputs.push_back(std::get<0>(result));
        h_out.push_back(std::get<1>(result));
        c_out.push_back(std::get<2>(result));
        continue;
      }
      const std::vector<Tensor> gxs = gx.unbind(0);
      const Tensor w_hh_t = w_hh.t();
      std::vector<Tensor> ys(static_cast<size_t>(steps));
      for (int64_t step = 0; step < steps; ++step) {
        const int64_t t = direction == 1 ? steps - 1 - step : step;
        const Tensor& x_t = gxs[static_cast<size_t>(t)];
        if (lstm) {
          const std::vector<Tensor> g = ::ember::addmm(x_t, h, w_hh_t).chunk(4, 1);
          c = ::ember::sigmoid(g[1]) * c + ::ember::sigmoid(g[0]) * ::ember::tanh(g[2]);
          h = ::ember::sigmoid(g[3]) * ::ember::tanh(c);
          if (w_hr.defined()) h = ::ember::matmul(h, w_hr.t());
        } else if (s.mode == RnnMode::Gru) {
          const Tensor gh = b_hh.defined() ? ::ember::addmm(b_hh, h, w_hh_t) : ::ember::matmul(h, w_hh_t);
          const std::vector<Tensor> xg = x_t.chunk(3, 1), hg = gh.chunk(3, 1);
          const Tensor r = ::ember::sigmoid(xg[0] + hg[0]);
          const Tensor z = ::ember::sigmoid(xg[1] + hg[1]);
          const Tensor nn = ::ember::tanh(xg[2] + r * hg[2]);
          h = (1 - z) * nn + z * h;
        } else {
          const Tensor pre = ::ember::addmm(x_t, h, w_hh_t);
          h = s.mode == RnnMode::RnnRelu ? ::ember::relu(pre) : ::ember::tanh(pre);
        }
        ys[static_cast<size_t>(t)] = h;
      }
      outputs.push_back(steps > 0 ? ::ember::stack(ys, 0)
                                  : ::ember::zeros({0, b, s.real_hidden()}, like));
      h_out.push_back(h);
      c_out.push_back(c);
    }
    input = s.directions() == 1 ? outputs[0] : ::ember::cat(outputs, 2);
    if (s.dropout > 0 && training && layer < s.num_layers - 1) {
      input = F::dropout(input, F::DropoutFuncOptions().p(s.dropout).training(true));
    }
  }
  RnnResult r;
  r.output = s.batch_first ? input.transpose(0, 1) : input;
  r.h_n = ::ember::stack(h_out, 0);
  if (lstm) r.c_n = ::ember::stack(c_out, 0);
  if (!is_batched) {
    r.output = r.output.squeeze(batch_dim);
    r.h_n = r.h_n.squeeze(1);
    if (lstm) r.c_n = r.c_n.squeeze(1);
  }
  return r;
}

RnnSpec lstm_spec(const LSTMOptions& o) {
  return {"LSTM", RnnMode::Lstm, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
          o.batch_first(), o.dropout(), o.bidirectional(), o.proj_size()};
}
RnnSpec gru_spec(const GRUOptions& o) {
  return {"GRU", RnnMode::Gru, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
          o.batch_first(), o.dropout(), o.bidirectional(), 0};
}
RnnSpec rnn_spec(const RNNOptions& o) {
  const RnnMode mode = std::holds_alternative<enumtype::kReLU>(o.nonlinearity()) ? RnnMode::RnnRelu
                                                                                 : RnnMode::RnnTanh;
  return {"RNN", mode, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
          o.batch_first(), o.dropout(), o.bidirectional(), 0};
}

}  // namespace

LSTMImpl::LSTMImpl(const LSTMOptions& options_) : options(options_) { reset(); }
void LSTMImpl::reset() { weight_names_ = register_rnn_weights(*this, lstm_spec(options)); }
void LSTMImpl::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options.hidden_size()));
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}
std::vector<Tensor> LSTMImpl::all_weights() const { return parameters(); }
void LSTMImpl::pretty_print(std::ostream& stream) const { print_rnn(stream, lstm_spec(options)); }
std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  Tensor h0, c0;
  if (hx_opt) {
    std::tie(h0, c0) = *hx_opt;
    EMBER_CHECK(h0.defined() && c0.defined(), "LSTM: expected defined (h_0, c_0)");
  }
  RnnResult r = run_rnn(lstm_spec(options), parameters_, weight_names_, input, h0, c0, is_training());
  return {r.output, {r.h_n, r.c_n}};
}

GRUImpl::GRUImpl(const GRUOptions& options_) : options(options_) { reset(); }
void GRUImpl::reset() { weight_names_ = register_rnn_weights(*this, gru_spec(options)); }
void GRUImpl::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options.hidden_size()));
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}
void GRUImpl::pretty_print(std::ostream& stream) const { print_rnn(stream, gru_spec(options)); }
std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  RnnResult r = run_rnn(gru_spec(options), parameters_, weight_names_, input, hx, Tensor(), is_training());
  return {r.output, r.h_n};
}

RNNImpl::RNNImpl(const RNNOptions& options_) : options(options_) { reset(); }
void RNNImpl::reset() { weight_names_ = register_rnn_weights(*this, rnn_spec(options)); }
void RNNImpl::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options.hidden_size()));
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}
void RNNImpl::pretty_print(std::ostream& stream) const { print_rnn(stream, rnn_spec(options)); }
std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  RnnResult r = run_rnn(rnn_spec(options), parameters_, weight_names_, input, hx, Tensor(), is_training());
  return {r.output, r.h_n};
}

// ---- Cells -------------------------------------------------------------------------------

namespace {

// Registers a cell's weight_ih (gates*H, in), weight_hh (gates*H, H) and biases, all
// ~ U(-1/sqrt(H), 1/sqrt(H)).
void register_cell(Module& m, const char* name, const RNNCellOptionsBase& o, int64_t gates,
                   Tensor& w_ih, Tensor& w_hh, Tensor& b_ih, Tensor& b_hh) {
  EMBER_CHECK_VALUE(o.input_size() > 0 && o.hidden_size() > 0, name,
                    ": input_size and hidden_size must be greater than zero, but got ",
                    o.input_size(), " and ", o.hidden_size());
  const int64_t g = gates * o.hidden_size();
  w_ih = m.register_parameter("weight_ih", ::ember::empty({g, o.input_size()}));
  w_hh = m.register_parameter("weight_hh", ::ember::empty({g, o.hidden_size()}));
  if (o.bias()) {
    b_ih = m.register_parameter("bias_ih", ::ember::empty({g}));
    b_hh = m.register_parameter("bias_hh", ::ember::empty({g}));
  } else {
    b_ih = m.register_parameter("bias_ih", Tensor(), /*requires_grad=*/false);
    b_hh = m.register_parameter("bias_hh", Tensor(), /*requires_grad=*/false);
  }
  const double stdv = 1.0 / std::sqrt(static_cast<double>(o.hidden_size()));
  for (Tensor& p : m.parameters()) init::uniform_(p, -stdv, stdv);
}

void print_cell(std::ostream& stream, const char* name, const RNNCellOptionsBase& o) {
  stream << std::boolalpha << kModulePrefix << name << "(" << o.input_size() << ", "
         << o.hidden_size();
  if (!o.bias()) stream << ", bias=false";
  stream << ")";
}

// input (B, in) or (in) as (B, in), and whether it was unbatched; checks its size.
std::pair<Tensor, bool> cell_input(const char* name, const Tensor& input, int64_t input_size) {
  EMBER_CHECK_VALUE(input.dim() == 1 || input.dim() == 2, name,
                    ": Expected input to be 1D or 2D, got ", input.dim(), "D instead");
  EMBER_CHECK(input.size(-1) == input_size, name, ": input has inconsistent input_size: got ",
              input.size(-1), " expected ", input_size);
  return {input.dim() == 1 ? input.unsqueeze(0) : input, input.dim() == 1};
}

// A state given for a cell (or zeros), batched like the input.
Tensor cell_state(const char* name, Tensor h, bool unbatched, int64_t batch, int64_t hidden,
                  const Tensor& like) {
  if (!h.defined()) return ::ember::zeros({batch, hidden}, TensorOptions().dtype(like.scalar_type()));
  if (unbatched) h = h.unsqueeze(0);
  EMBER_CHECK(h.dim() == 2 && h.size(0) == batch && h.size(1) == hidden, name,
              ": expected a hidden state of size [", batch, ", ", hidden, "], but got ", h.sizes());
  return h;
}

}  // namespace

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options_) : options(options_) { reset(); }
void LSTMCellImpl::reset() {
  register_cell(*this, "LSTMCell", options, 4, weight_ih, weight_hh, bias_ih, bias_hh);
}
void LSTMCellImpl::pretty_print(std::ostream& s) const { print_cell(s, "LSTMCell", options); }
std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  auto [x, unbatched] = cell_input("LSTMCell", input, options.input_size());
  Tensor h0, c0;
  if (hx_opt) std::tie(h0, c0) = *hx_opt;
  Tensor h = cell_state("LSTMCell", h0, unbatched, x.size(0), options.hidden_size(), x);
  Tensor c = cell_state("LSTMCell", c0, unbatched, x.size(0), options.hidden_size(), x);
  const Tensor gates = F::linear(x, weight_ih, bias_ih) + F::linear(h, weight_hh, bias_hh);
  const std::vector<Tensor> g = gates.chunk(4, 1);
  c = ::ember::sigmoid(g[1]) * c + ::ember::sigmoid(g[0]) * ::ember::tanh(g[2]);
  h = ::ember::sigmoid(g[3]) * ::ember::tanh(c);
  if (unbatched) return {h.squeeze(0), c.squeeze(0)};
  return {h, c};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options_) : options(options_) { reset(); }
void GRUCellImpl::reset() {
  register_cell(*this, "GRUCell", options, 3, weight_ih, weight_hh, bias_ih, bias_hh);
}
void GRUCellImpl::pretty_print(std::ostream& s) const { print_cell(s, "GRUCell", options); }
Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  auto [x, unbatched] = cell_input("GRUCell", input, options.input_size());
  const Tensor h = cell_state("GRUCell", hx, unbatched, x.size(0), options.hidden_size(), x);
  const std::vector<Tensor> xg = F::linear(x, weight_ih, bias_ih).chunk(3, 1);
  const std::vector<Tensor> hg = F::linear(h, weight_hh, bias_hh).chunk(3, 1);
  const Tensor r = ::ember::sigmoid(xg[0] + hg[0]);
  const Tensor z = ::ember::sigmoid(xg[1] + hg[1]);
  const Tensor n = ::ember::tanh(xg[2] + r * hg[2]);
  const Tensor out = (1 - z) * n + z * h;
  return unbatched ? out.squeeze(0) : out;
}

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options_) : options(options_) { reset(); }
void RNNCellImpl::reset() {
  register_cell(*this, "RNNCell", options, 1, weight_ih, weight_hh, bias_ih, bias_hh);
}
void RNNCellImpl::pretty_print(std::ostream& s) const { print_cell(s, "RNNCell", options); }
Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  auto [x, unbatched] = cell_input("RNNCell", input, options.input_size());
  const Tensor h = cell_state("RNNCell", hx, unbatched, x.size(0), options.hidden_size(), x);
  const Tensor pre = F::linear(x, weight_ih, bias_ih) + F::linear(h, weight_hh, bias_hh);
  const Tensor out = std::holds_alternative<enumtype::kReLU>(options.nonlinearity()) ? ::ember::relu(pre)
                                                                                      : ::ember::tanh(pre);
  return unbatched ? out.squeeze(0) : out;
}

}  // namespace ember::nn
