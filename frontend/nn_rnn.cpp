// LSTM (frontend/nn/modules/rnn.h), as python/ember/nn/modules/rnn.py runs it: one input
// projection per layer and direction, then ember::_lstm_layer (Note [LSTM layer] in
// aten/native/cpu/rnn.cpp) or, with a projection, a loop of addmm and the fused cell.

#include <cmath>
#include <ios>

#include "aten/TensorFactories.h"
#include "aten/TensorOperators.h"
#include "c10/util/Exception.h"
#include "ember/generated/Functions.h"
#include "frontend/nn/functional.h"
#include "frontend/nn/init.h"
#include "frontend/nn/modules/rnn.h"

namespace ember::nn {

namespace F = functional;
using detail::kModulePrefix;

LSTMImpl::LSTMImpl(const LSTMOptions& options_) : options(options_) { reset(); }

void LSTMImpl::reset() {
  const LSTMOptions& o = options;
  EMBER_CHECK_VALUE(o.input_size() > 0, "LSTM: input_size must be greater than zero, but got ",
                    o.input_size());
  EMBER_CHECK_VALUE(o.hidden_size() > 0, "LSTM: hidden_size must be greater than zero, but got ",
                    o.hidden_size());
  EMBER_CHECK_VALUE(o.num_layers() > 0, "LSTM: num_layers must be greater than zero, but got ",
                    o.num_layers());
  EMBER_CHECK_VALUE(o.dropout() >= 0 && o.dropout() <= 1, "LSTM: dropout should be a number in ",
                    "range [0, 1] representing the probability of an element being zeroed, but got ",
                    o.dropout());
  EMBER_CHECK_VALUE(o.proj_size() >= 0 && o.proj_size() < o.hidden_size(),
                    "LSTM: proj_size has to be a non-negative integer smaller than hidden_size, ",
                    "but got proj_size=", o.proj_size(), " and hidden_size=", o.hidden_size());
  const int64_t gate_size = 4 * o.hidden_size();
  const int64_t directions = o.bidirectional() ? 2 : 1;
  const int64_t real_hidden = o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
  weight_names_.clear();
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    for (int64_t direction = 0; direction < directions; ++direction) {
      const int64_t layer_input = layer == 0 ? o.input_size() : real_hidden * directions;
      const std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      std::vector<std::pair<std::string, std::vector<int64_t>>> shapes = {
          {"weight_ih", {gate_size, layer_input}}, {"weight_hh", {gate_size, real_hidden}}};
      if (o.bias()) {
        shapes.push_back({"bias_ih", {gate_size}});
        shapes.push_back({"bias_hh", {gate_size}});
      }
      if (o.proj_size() > 0) shapes.push_back({"weight_hr", {o.proj_size(), o.hidden_size()}});
      std::vector<std::string> names;
      for (auto& [stem, shape] : shapes) {
        names.push_back(stem + suffix);
        register_parameter(names.back(), ::ember::empty(shape));
      }
      weight_names_.push_back(std::move(names));
    }
  }
  reset_parameters();
}

void LSTMImpl::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options.hidden_size()));
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}

std::vector<Tensor> LSTMImpl::all_weights() const { return parameters(); }

void LSTMImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << kModulePrefix << "LSTM(input_size=" << options.input_size()
         << ", hidden_size=" << options.hidden_size() << ", num_layers=" << options.num_layers()
         << ", bias=" << options.bias() << ", batch_first=" << options.batch_first()
         << ", dropout=" << options.dropout() << ", bidirectional=" << options.bidirectional();
  if (options.proj_size() > 0) stream << ", proj_size=" << options.proj_size();
  stream << ")";
}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input_, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const LSTMOptions& o = options;
  EMBER_CHECK_VALUE(input_.dim() == 2 || input_.dim() == 3,
                    "LSTM: Expected input to be 2D or 3D, got ", input_.dim(), "D instead");
  const bool is_batched = input_.dim() == 3;
  const int64_t batch_dim = o.batch_first() ? 0 : 1;
  Tensor input = is_batched ? input_ : input_.unsqueeze(batch_dim);
  EMBER_CHECK(input.size(-1) == o.input_size(),
              "LSTM: input.size(-1) must be equal to input_size. Expected ", o.input_size(),
              ", got ", input.size(-1));
  const Tensor& w0 = parameters_["weight_ih_l0"];
  EMBER_CHECK_TYPE(input.scalar_type() == w0.scalar_type(), "LSTM: input dtype (",
                   scalar_type_name(input.scalar_type()), ") does not match weight dtype (",
                   scalar_type_name(w0.scalar_type()), "); convert the input or the model");
  const int64_t directions = o.bidirectional() ? 2 : 1;
  const int64_t real_hidden = o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
  const int64_t batch = input.size(batch_dim);
  const std::vector<int64_t> h_shape = {o.num_layers() * directions, batch, real_hidden};
  const std::vector<int64_t> c_shape = {o.num_layers() * directions, batch, o.hidden_size()};
  Tensor h0, c0;
  if (hx_opt) {
    std::tie(h0, c0) = *hx_opt;
    const int64_t want = is_batched ? 3 : 2;
    EMBER_CHECK(h0.dim() == want && c0.dim() == want, "LSTM: for ",
                is_batched ? "batched 3-D" : "unbatched 2-D", " input, hx and cx should also be ",
                want, "-D but got (", h0.dim(), "-D, ", c0.dim(), "-D) tensors");
    if (!is_batched) {
      h0 = h0.unsqueeze(1);
      c0 = c0.unsqueeze(1);
    }
    EMBER_CHECK(h0.sizes().vec() == h_shape, "LSTM: Expected hidden[0] size ",
                IntArrayRef(h_shape), ", got ", h0.sizes());
    EMBER_CHECK(c0.sizes().vec() == c_shape, "LSTM: Expected hidden[1] size ",
                IntArrayRef(c_shape), ", got ", c0.sizes());
  } else {
    h0 = ::ember::zeros(h_shape, TensorOptions().dtype(input.scalar_type()));
    c0 = ::ember::zeros(c_shape, TensorOptions().dtype(input.scalar_type()));
  }
  if (o.batch_first()) input = input.transpose(0, 1);
  const std::vector<Tensor> hs = h0.unbind(0), cs = c0.unbind(0);
  std::vector<Tensor> h_out, c_out;
  const int64_t steps = input.size(0);
  const bool fused_dtype =
      input.scalar_type() == ScalarType::Float || input.scalar_type() == ScalarType::Double;
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const int64_t k = layer * directions + direction;
      const std::vector<std::string>& names = weight_names_[static_cast<size_t>(k)];
      const Tensor& w_ih = parameters_[names[0]];
      const Tensor& w_hh = parameters_[names[1]];
      const Tensor bias = o.bias() ? parameters_[names[2]] + parameters_[names[3]] : Tensor();
      const Tensor w_hr = o.proj_size() > 0 ? parameters_[names.back()] : Tensor();
      const int64_t t_in = input.size(0), b = input.size(1);
      Tensor gx = F::linear(input.reshape({t_in * b, input.size(2)}), w_ih, bias);
      gx = gx.reshape({t_in, b, gx.size(-1)});
      Tensor h = hs[static_cast<size_t>(k)], c = cs[static_cast<size_t>(k)];
      if (!w_hr.defined() && fused_dtype && input.device().is_cpu()) {
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
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t t = direction == 1 ? steps - 1 - s : s;
        const Tensor gates = ::ember::addmm(gxs[static_cast<size_t>(t)], h, w_hh_t);
        const std::vector<Tensor> g = gates.chunk(4, 1);
        c = ::ember::sigmoid(g[1]) * c + ::ember::sigmoid(g[0]) * ::ember::tanh(g[2]);
        h = ::ember::sigmoid(g[3]) * ::ember::tanh(c);
        if (w_hr.defined()) h = ::ember::matmul(h, w_hr.t());
        ys[static_cast<size_t>(t)] = h;
      }
      outputs.push_back(steps > 0 ? ::ember::stack(ys, 0)
                                  : ::ember::zeros({0, b, real_hidden},
                                                   TensorOptions().dtype(input.scalar_type())));
      h_out.push_back(h);
      c_out.push_back(c);
    }
    input = directions == 1 ? outputs[0] : ::ember::cat(outputs, 2);
    if (o.dropout() > 0 && is_training() && layer < o.num_layers() - 1) {
      input = F::dropout(input, F::DropoutFuncOptions().p(o.dropout()).training(true));
    }
  }
  Tensor output = o.batch_first() ? input.transpose(0, 1) : input;
  Tensor h_n = ::ember::stack(h_out, 0), c_n = ::ember::stack(c_out, 0);
  if (!is_batched) {
    output = output.squeeze(batch_dim);
    h_n = h_n.squeeze(1);
    c_n = c_n.squeeze(1);
  }
  return {output, {h_n, c_n}};
}

}  // namespace ember::nn
