"""Recurrent layers: RNNCell, LSTMCell, GRUCell and the multi-layer RNN, LSTM and GRU.

Parameter names, shapes, order, gate order and default initialisation are PyTorch's, so a
state_dict moves between the two unchanged. The layers run one time step at a time with
ember's differentiable ops; the input projection of a layer is one matmul over every step,
and in float32 and float64 an LSTM direction without projections is one op
(ember._lstm_layer, Note [LSTM layer] in aten/native/cpu/rnn.cpp), an LSTM step with them
one addmm and the fused cell (ember._fused_lstm_cell).
A PackedSequence input runs step by step over the sequences still active at each step
(Note [Packed recurrence]) and gives a PackedSequence output.
"""
from __future__ import annotations

import math
import numbers
import warnings

import ember
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.nn._packed_sequence import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ---- one time step -------------------------------------------------------------------------
# gx is the input's contribution to the gates (x W_ih^T + b_ih, plus b_hh where the cell allows
# folding it in); h, c the state; w_hh_t is W_hh^T.

def _rnn_step(gx, h, w_hh_t, relu):
    pre = ember.addmm(gx, h, w_hh_t)
    return ember.relu(pre) if relu else ember.tanh(pre)


_FUSED_LSTM_DTYPES = (ember.float32, ember.float64)


def _lstm_step(gx, h, c, w_hh_t, w_hr_t=None):
    gates = ember.addmm(gx, h, w_hh_t)
    if gates.dtype in _FUSED_LSTM_DTYPES and c.dtype == gates.dtype and gates.device.type == "cpu":
        # One kernel and one autograd node for the pointwise part (Note [Fused LSTM cell]).
        h, c, _ = ember._fused_lstm_cell(gates, c)
    else:
        i, f, g, o = gates.chunk(4, 1)
        c = ember.sigmoid(f) * c + ember.sigmoid(i) * ember.tanh(g)
        h = ember.sigmoid(o) * ember.tanh(c)
    if w_hr_t is not None:
        h = ember.matmul(h, w_hr_t)
    return h, c


def _gru_step(gx, h, w_hh_t, b_hh):
    # GRU keeps b_hn inside r * (W_hn h + b_hn), so b_hh is not folded into gx.
    gh = ember.matmul(h, w_hh_t) if b_hh is None else ember.addmm(b_hh, h, w_hh_t)
    x_r, x_z, x_n = gx.chunk(3, 1)
    h_r, h_z, h_n = gh.chunk(3, 1)
    r = ember.sigmoid(x_r + h_r)
    z = ember.sigmoid(x_z + h_z)
    n = ember.tanh(x_n + r * h_n)
    return n + z * (h - n)


# ---- cells ---------------------------------------------------------------------------------

class RNNCellBase(Module):
    """Holds weight_ih (chunks*hidden, input), weight_hh (chunks*hidden, hidden) and the two
    optional biases, all ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(ember.empty((num_chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(ember.empty((num_chunks * hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(ember.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(ember.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batch(self, name, input, states):
        """Checks dims, adds the batch dim to 1-D input and states; returns (input, states, batched)."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for idx, value in enumerate(states):
            if value is not None and value.dim() not in (1, 2):
                what = "hidden" if len(states) == 1 else f"hx[{idx}]"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        zeros = None
        out = []
        for value in states:
            if value is None:
                if zeros is None:
                    zeros = ember.zeros((input.size(0), self.hidden_size), dtype=input.dtype)
                out.append(zeros)
            else:
                out.append(value if batched else value.unsqueeze(0))
        return input, out, batched

    def _input_gates(self, input, fold_hh_bias):
        gx = F.linear(input, self.weight_ih, self.bias_ih)
        if fold_hh_bias and self.bias_hh is not None:
            gx = gx + self.bias_hh
        return gx


class RNNCell(RNNCellBase):
    """h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu with nonlinearity='relu')."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (hx,), batched = self._batch("RNNCell", input, (hx,))
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h = _rnn_step(self._input_gates(input, True), hx, self.weight_hh.t(), self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step with gates (i, f, g, o): returns (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        states = (None, None) if hx is None else tuple(hx)
        input, (h, c), batched = self._batch("LSTMCell", input, states)
        h, c = _lstm_step(self._input_gates(input, True), h, c, self.weight_hh.t())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step with gates (r, z, n), n = tanh(W_in x + b_in + r * (W_hn h + b_hn))."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (hx,), batched = self._batch("GRUCell", input, (hx,))
        h = _gru_step(self._input_gates(input, False), hx, self.weight_hh.t(), self.bias_hh)
        return h if batched else h.squeeze(0)


# ---- layers --------------------------------------------------------------------------------

class RNNBase(Module):
    """The stacked, optionally bidirectional recurrence behind RNN, LSTM and GRU.

    Parameters per layer and direction, in order: weight_ih_l{k}{suffix}, weight_hh_l{k}{suffix},
    bias_ih_l{k}{suffix}, bias_hh_l{k}{suffix}, weight_hr_l{k}{suffix} (LSTM with proj_size),
    suffix "_reverse" for the backward direction.
    """

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size

        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input_size)), ("weight_hh", (gate_size, real_hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                names = []
                for stem, shape in shapes:
                    name = f"{stem}_l{layer}{suffix}"
                    setattr(self, name, Parameter(ember.empty(shape, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """A no-op: there is no fused weight buffer to compact (kept for PyTorch scripts)."""

    @property
    def _flat_weights(self):
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ---- forward helpers ----

    def _check_input(self, input):
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
                             f"Convert input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def _state_shape(self, input, size):
        batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    @staticmethod
    def _check_hidden(hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def _run(self, input, hs, cs):
        """input (T, B, I) (time-major), hs/cs lists of (B, H) states per layer*direction;
        returns the output (T, B, D*H_out) and the lists of final states."""
        num_directions = 2 if self.bidirectional else 1
        steps = input.size(0)
        h_out, c_out = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(k)
                # b_hh folds into the input projection except for GRU (see _gru_step).
                bias = b_ih + b_hh if b_ih is not None and self.mode != "GRU" else b_ih
                t_in, batch, features = input.shape
                gx = F.linear(input.reshape(t_in * batch, features), w_ih, bias)
                gx = gx.reshape(t_in, batch, gx.size(-1))
                h = hs[k]
                c = cs[k] if cs is not None else None
                if (self.mode == "LSTM" and w_hr is None and gx.dtype in _FUSED_LSTM_DTYPES
                        and gx.device.type == "cpu" and h.dtype == c.dtype == w_hh.dtype == gx.dtype):
                    # The whole direction in one op (Note [LSTM layer], aten/native/cpu/rnn.cpp).
                    out, h, c, _, _ = ember._lstm_layer(gx, h, c, w_hh, direction == 1)
                    outputs.append(out)
                    h_out.append(h)
                    c_out.append(c)
                    continue
                gx = gx.unbind(0)
                w_hh_t = w_hh.t()
                w_hr_t = None if w_hr is None else w_hr.t()
                ys = [None] * steps
                order = range(steps - 1, -1, -1) if direction == 1 else range(steps)
                for t in order:
                    if self.mode == "LSTM":
                        h, c = _lstm_step(gx[t], h, c, w_hh_t, w_hr_t)
                    elif self.mode == "GRU":
                        h = _gru_step(gx[t], h, w_hh_t, b_hh)
                    else:
                        h = _rnn_step(gx[t], h, w_hh_t, self.mode == "RNN_RELU")
                    ys[t] = h
                outputs.append(ember.stack(ys, 0) if steps > 0 else
                               ember.zeros((0, input.size(1), h.size(-1)), dtype=input.dtype))
                h_out.append(h)
                c_out.append(c)
            input = outputs[0] if num_directions == 1 else ember.cat(outputs, 2)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                input = F.dropout(input, self.dropout, True)
        return input, h_out, c_out

    def _layer_weights(self, k):
        names = self._all_weights[k]
        w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
        b_ih = getattr(self, names[2]) if self.bias else None
        b_hh = getattr(self, names[3]) if self.bias else None
        w_hr = getattr(self, names[-1]) if self.proj_size > 0 else None
        return w_ih, w_hh, b_ih, b_hh, w_hr

    # Note [Packed recurrence]
    # Packed data holds step t of the batch_sizes[t] longest sequences, and the batch is sorted
    # by decreasing length, so the sequences active at step t are always the first
    # batch_sizes[t] rows of the state. Each step updates those rows and keeps the rest: going
    # forward a sequence's state stops changing after its last step (so the final state is
    # the one at its true length); going backward the rows that join at step t still hold the
    # initial state, so each sequence starts from its own last element. The step outputs,
    # concatenated in time order, are already the packed output.
    def _run_packed(self, data, batch_sizes, hs, cs):
        """data (N, I) packed, batch_sizes a list; returns packed output (N, D*H_out) and the
        lists of final states (B, H) per layer*direction."""
        num_directions = 2 if self.bidirectional else 1
        offsets = [0]
        for bs in batch_sizes:
            offsets.append(offsets[-1] + bs)
        h_out, c_out = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(k)
                bias = b_ih + b_hh if b_ih is not None and self.mode != "GRU" else b_ih
                gx = F.linear(data, w_ih, bias)
                w_hh_t = w_hh.t()
                w_hr_t = None if w_hr is None else w_hr.t()
                h = hs[k]
                c = cs[k] if cs is not None else None
                ys = [None] * len(batch_sizes)
                order = range(len(batch_sizes) - 1, -1, -1) if direction == 1 else range(len(batch_sizes))
                for t in order:
                    bs = batch_sizes[t]
                    g = gx[offsets[t]:offsets[t + 1]]
                    if self.mode == "LSTM":
                        h_t, c_t = _lstm_step(g, h[:bs], c[:bs], w_hh_t, w_hr_t)
                        c = c_t if bs == c.size(0) else ember.cat([c_t, c[bs:]], 0)
                    elif self.mode == "GRU":
                        h_t = _gru_step(g, h[:bs], w_hh_t, b_hh)
                    else:
                        h_t = _rnn_step(g, h[:bs], w_hh_t, self.mode == "RNN_RELU")
                    h = h_t if bs == h.size(0) else ember.cat([h_t, h[bs:]], 0)
                    ys[t] = h_t
                outputs.append(ember.cat(ys, 0))
                h_out.append(h)
                c_out.append(c)
            data = outputs[0] if num_directions == 1 else ember.cat(outputs, 1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                data = F.dropout(data, self.dropout, True)
        return data, h_out, c_out

    def _forward_packed(self, packed, hx):
        """The forward of a PackedSequence: hx (in the caller's batch order) or None."""
        lstm = self.mode == "LSTM"
        data = packed.data
        batch_sizes = [int(b) for b in packed.batch_sizes.tolist()]
        batch = batch_sizes[0]
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        sizes = (real_hidden, self.hidden_size) if lstm else (real_hidden,)
        layers = self.num_layers * (2 if self.bidirectional else 1)
        if hx is None:
            hx = tuple(ember.zeros((layers, batch, s), dtype=data.dtype) for s in sizes)
        elif packed.sorted_indices is not None:
            hx = tuple(s.index_select(1, packed.sorted_indices) for s in hx)
        if data.dtype != self.weight_ih_l0.dtype:
            raise ValueError(f"RNN input dtype ({data.dtype}) does not match weight dtype ({self.weight_ih_l0.dtype}). "
                             f"Convert input: input.to({self.weight_ih_l0.dtype}), or convert model: "
                             f"model.to({data.dtype})")
        if data.dim() != 2:
            raise RuntimeError(f"packed input must have 2 dimensions, got {data.dim()}")
        if self.input_size != data.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {data.size(-1)}")
        for i, (s, size) in enumerate(zip(hx, sizes)):
            msg = f"Expected hidden[{i}] size {{}}, got {{}}" if lstm else "Expected hidden size {}, got {}"
            self._check_hidden(s, (layers, batch, size), msg)
        cs = list(hx[1].unbind(0)) if lstm else None
        out, h_n, c_n = self._run_packed(data, batch_sizes, list(hx[0].unbind(0)), cs)
        states = [ember.stack(h_n, 0)] + ([ember.stack(c_n, 0)] if lstm else [])
        if packed.unsorted_indices is not None:
            states = [s.index_select(1, packed.unsorted_indices) for s in states]
        output = PackedSequence(out, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        return output, states

    def _forward(self, input, hx, name):
        """Shared forward: hx is a tuple of state tensors (or None); returns (output, [h_n, (c_n)])."""
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        lstm = self.mode == "LSTM"
        if input.dim() not in (2, 3):
            got = "D tensor instead" if not lstm and self.mode != "GRU" else "D instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}{got}")
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        sizes = (real_hidden, self.hidden_size) if lstm else (real_hidden,)
        if hx is None:
            hx = tuple(ember.zeros(self._state_shape(input, s), dtype=input.dtype) for s in sizes)
        else:
            want = 3 if batched else 2
            if any(s.dim() != want for s in hx):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                if lstm:
                    dims = ", ".join(f"{s.dim()}-D" for s in hx)
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got ({dims}) "
                                       "tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {hx[0].dim()}-D tensor")
            if not batched:
                hx = tuple(s.unsqueeze(1) for s in hx)
        self._check_input(input)
        for i, (s, size) in enumerate(zip(hx, sizes)):
            msg = f"Expected hidden[{i}] size {{}}, got {{}}" if lstm else "Expected hidden size {}, got {}"
            self._check_hidden(s, self._state_shape(input, size), msg)
        if self.batch_first:
            input = input.transpose(0, 1)
        cs = list(hx[1].unbind(0)) if lstm else None
        output, h_n, c_n = self._run(input, list(hx[0].unbind(0)), cs)
        if self.batch_first:
            output = output.transpose(0, 1)
        states = [ember.stack(h_n, 0)] + ([ember.stack(c_n, 0)] if lstm else [])
        if not batched:
            output = output.squeeze(batch_dim)
            states = [s.squeeze(1) for s in states]
        return output, states


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu), stacked
    num_layers deep; returns (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.__dict__["nonlinearity"] = args[3]
            args = args[:3] + args[4:]
        else:
            self.__dict__["nonlinearity"] = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        output, states = self._forward(input, None if hx is None else (hx,), "RNN")
        return output, states[0]


class LSTM(RNNBase):
    """Long short-term memory with gates (i, f, g, o) and an optional projection of h
    (proj_size); returns (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        output, states = self._forward(input, None if hx is None else tuple(hx), "LSTM")
        return output, (states[0], states[1])


class GRU(RNNBase):
    """Gated recurrent unit with gates (r, z, n); returns (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        output, states = self._forward(input, None if hx is None else (hx,), "GRU")
        return output, states[0]
