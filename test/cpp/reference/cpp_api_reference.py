"""Golden data for Ember's libtorch-style C++ API (test/cpp/api/), made with PyTorch.

Writes a JSON object to the path given as the only argument:

  {"values": {name: {"sizes", "dtype", "values": [numbers, row-major]}},
   "prints": [{"name", "sizes", "dtype", "values", "transpose", "text"}]}

`values` holds what PyTorch computes for each case of the C++ tests, which repeat the same
call in libtorch's C++ idioms on the same inputs (INPUTS below, spelled again in
test/cpp/api/api_test_util.h). `prints` holds what libtorch's `std::cout << t` writes for a
tensor built from `values` (cast to `dtype`, shaped `sizes`, transposed when `transpose`):
TorchScript's print() of a tensor goes through that same C++ printer, so the text is
libtorch's own, captured from Python.
"""

import contextlib
import io
import json
import math
import sys

import torch

DTYPES = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128,
}
NAMES = {v: k for k, v in DTYPES.items()}

# The inputs every value case reads (api_test_util.h builds the same tensors).
X = torch.tensor([[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]])
Y = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
B = torch.tensor([[True, False, True], [False, False, True]])
I = torch.tensor([[6, 3, 5], [12, 9, 10]])


def record(t):
    t = torch.as_tensor(t)
    flat = t.detach().reshape(-1)
    if t.dtype == torch.bool:
        values = [int(v) for v in flat.tolist()]
    elif t.dtype.is_floating_point:
        values = [float(v) for v in flat.double().tolist()]
    else:
        values = [int(v) for v in flat.tolist()]
    return {"sizes": list(t.shape), "dtype": NAMES[t.dtype], "values": values}


def value_cases():
    c = {}
    # Reductions with a single int dim (the dangling optional-array-ref cases) and the
    # overloads libtorch resolves (std/var over a dim, whole-tensor forms).
    c["sum_int_dim"] = X.sum(1)
    c["sum_braced_dim_keepdim"] = X.sum([1], keepdim=True)
    c["mean_int_dim"] = X.mean(0)
    c["sum_function_int_dim"] = torch.sum(X, 1)
    c["sum_two_dims"] = Y.sum([0, 2])
    c["mean_negative_dim"] = Y.mean(-1)
    c["nansum_int_dim"] = X.nansum(0)
    c["amax_int_dim"] = X.amax(1)
    c["sum_all"] = X.sum()
    c["std_int_dim"] = X.std(1)
    c["var_int_dim"] = X.var(1)
    c["std_function_int_dim"] = torch.std(X, 1)
    c["var_function_int_dim"] = torch.var(X, 0)
    c["std_all"] = X.std()
    c["var_all"] = X.var()
    c["std_biased"] = X.std(unbiased=False)
    c["std_dim_biased"] = X.std(1, unbiased=False)
    c["var_dim_keepdim"] = X.var(1, unbiased=True, keepdim=True)
    s, m = torch.std_mean(X, 1)
    c["std_mean_int_dim_std"], c["std_mean_int_dim_mean"] = s, m
    v, m = torch.var_mean(X, 0)
    c["var_mean_int_dim_var"], c["var_mean_int_dim_mean"] = v, m
    c["all_whole"] = B.all()
    c["any_whole"] = B.any()
    c["all_int_dim"] = B.all(1)
    c["any_int_dim_keepdim"] = B.any(0, keepdim=True)
    c["arange_end"] = torch.arange(5)
    c["arange_start_end"] = torch.arange(2, 7)
    c["arange_start_end_step"] = torch.arange(1, 2, 0.25)
    c["arange_float_options"] = torch.arange(3, dtype=torch.float64)
    # Operators.
    x = X.clone()
    x += 1
    x *= 2
    x -= X
    x /= 4
    c["compound_assignment"] = x
    c["less_than_scalar"] = X < 1
    c["equal_scalar"] = X == 4
    c["scalar_less_than"] = 1 < X
    c["greater_equal_tensor"] = X >= -X
    c["not_equal_tensor"] = X != X.flip(1)
    c["and_scalar"] = I & 6
    c["or_scalar"] = I | 1
    c["xor_tensor"] = I ^ I.flip(0)
    c["not"] = ~I
    c["shift_left"] = I << 1
    c["shift_right"] = I >> 1
    c["bool_and"] = B & B.flip(1)
    c["remainder"] = I % 4
    c["sum_of_mixed"] = (X * 2 + 1) / 2 - X
    # Indexing.
    c["index_slice_int_none_ellipsis"] = Y[:, 0, None, ...]
    c["index_ellipsis_int"] = Y[..., 1]
    c["index_int"] = Y[1]
    c["index_int_slice"] = Y[0, 1:3]
    c["index_slice_step"] = Y[:, ::2, 1:]
    c["index_mask"] = Y[Y > 20]
    c["index_tensor"] = Y[torch.tensor([1, 0, 1])]
    c["subscript_chain"] = Y[1][2]
    y = Y.clone()
    y[:, 0] = -1
    c["index_put_scalar"] = y
    y = Y.clone()
    y[..., 1] = torch.tensor([10.0, 20.0, 30.0])
    c["index_put_tensor"] = y
    y = Y.clone()
    y[Y < 3] = 0
    c["index_put_mask"] = y
    x = X.clone()
    x[0] = 7
    x[1][2] = 9
    c["subscript_assign"] = x
    # Conversions.
    c["to_double"] = X.to(torch.float64)
    c["to_int"] = X.to(torch.int32)
    c["to_options"] = X.to(dtype=torch.float64)
    c["item_float"] = torch.tensor(X[1][1].item())
    c["allclose_near"] = torch.tensor(torch.allclose(X, X + 1e-7))
    c["allclose_far"] = torch.tensor(torch.allclose(X, X + 1e-3))
    c["equal_same"] = torch.tensor(torch.equal(X, X.clone()))
    c["equal_different_sizes"] = torch.tensor(torch.equal(X, X.reshape(3, 2)))
    # Autograd from factory options.
    w = torch.ones(2, 3, requires_grad=True)
    (w * X).sum().backward()
    c["requires_grad_option_grad"] = w.grad
    c.update(nn_cases())
    c.update(optim_cases())
    return {k: record(v) for k, v in c.items()}


# ---- ember::nn and ember::optim (test/cpp/api/nn_test.cpp, optim_test.cpp) ----------------
# Weights and inputs are P(shape, scale): exact small multiples of scale that the C++ tests
# build with the same ops (api_test_util.h), so both sides start from the same bits.

def P(*shape, scale=0.1):
    n = math.prod(shape)
    return ((((torch.arange(n) * 37) % 11) - 5).float() * scale).reshape(shape)


def _set(module, **params):
    with torch.no_grad():
        for name, value in params.items():
            getattr(module, name).copy_(value)


def _forward_backward(c, name, module, x, params):
    """Records module(x), and the grads of x and of params for loss = sum(y * y)."""
    x = x.clone().requires_grad_(True)
    y = module(x)
    (y * y).sum().backward()
    c[name + "_out"] = y
    c[name + "_grad_input"] = x.grad
    for p in params:
        c[name + "_grad_" + p] = getattr(module, p).grad


def nn_cases():
    F = torch.nn.functional
    nn = torch.nn
    c = {}
    fc = nn.Linear(3, 2)
    _set(fc, weight=P(2, 3), bias=P(2, scale=0.2))
    _forward_backward(c, "linear", fc, P(4, 3, scale=0.3), ["weight", "bias"])

    conv = nn.Conv2d(2, 3, 3, padding=1)
    _set(conv, weight=P(3, 2, 3, 3, scale=0.05), bias=P(3))
    _forward_backward(c, "conv2d", conv, P(2, 2, 5, 5), ["weight", "bias"])
    conv = nn.Conv2d(4, 4, 3, stride=2, groups=2, bias=False, dilation=1)
    _set(conv, weight=P(4, 2, 3, 3, scale=0.05))
    c["conv2d_strided_groups"] = conv(P(1, 4, 7, 7))
    conv = nn.Conv2d(1, 2, 3, padding=2, padding_mode="reflect")
    _set(conv, weight=P(2, 1, 3, 3, scale=0.05), bias=P(2))
    c["conv2d_reflect"] = conv(P(1, 1, 4, 5))
    conv = nn.Conv2d(1, 1, (2, 3), padding="same", bias=False)
    _set(conv, weight=P(1, 1, 2, 3))
    c["conv2d_same"] = conv(P(1, 1, 4, 4))
    conv = nn.Conv1d(2, 3, 2, stride=2)
    _set(conv, weight=P(3, 2, 2), bias=P(3))
    c["conv1d"] = conv(P(2, 2, 7))
    deconv = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)
    _set(deconv, weight=P(2, 3, 3, 3, scale=0.05), bias=P(3))
    _forward_backward(c, "conv_transpose2d", deconv, P(1, 2, 3, 3), ["weight", "bias"])

    bn = nn.BatchNorm2d(3, momentum=0.2)
    _set(bn, weight=P(3, scale=0.5) + 1, bias=P(3))
    x = P(4, 3, 2, 2) + torch.arange(3.0).reshape(1, 3, 1, 1)
    _forward_backward(c, "batchnorm2d", bn, x, ["weight", "bias"])
    bn(x * 2)
    c["batchnorm2d_running_mean"] = bn.running_mean
    c["batchnorm2d_running_var"] = bn.running_var
    c["batchnorm2d_num_batches_tracked"] = bn.num_batches_tracked
    bn.eval()
    c["batchnorm2d_eval"] = bn(P(2, 3, 2, 2, scale=0.3))
    bn1 = nn.BatchNorm1d(4, momentum=None, affine=False)
    bn1(P(5, 4))
    bn1(P(5, 4, scale=0.3) + 1)
    c["batchnorm1d_cumulative_mean"] = bn1.running_mean
    c["batchnorm1d_cumulative_var"] = bn1.running_var
    bn1.eval()
    c["batchnorm1d_eval"] = bn1(P(3, 4))

    ln = nn.LayerNorm([4])
    _set(ln, weight=P(4, scale=0.5) + 1, bias=P(4))
    _forward_backward(c, "layernorm", ln, P(3, 4), ["weight", "bias"])
    gn = nn.GroupNorm(2, 4)
    c["groupnorm"] = gn(P(2, 4, 3))

    emb = nn.Embedding(10, 3, padding_idx=0)
    _set(emb, weight=P(10, 3))
    y = emb(torch.tensor([[1, 2], [0, 9]]))
    (y * y).sum().backward()
    c["embedding_out"] = y
    c["embedding_grad_weight"] = emb.weight.grad

    lstm = nn.LSTM(3, 4)
    for i, (name, p) in enumerate(lstm.named_parameters()):
        _set(lstm, **{name: P(*p.shape, scale=0.1 + 0.05 * i)})
    x = P(5, 2, 3, scale=0.3).requires_grad_(True)
    out, (h, cell) = lstm(x)
    (out.sum() + h.sum() * 2 + cell.sum()).backward()
    c["lstm_out"], c["lstm_h"], c["lstm_c"] = out, h, cell
    c["lstm_grad_input"] = x.grad
    c["lstm_grad_weight_ih_l0"] = lstm.weight_ih_l0.grad
    c["lstm_grad_bias_hh_l0"] = lstm.bias_hh_l0.grad
    lstm = nn.LSTM(3, 2, num_layers=2, batch_first=True, bidirectional=True)
    for i, (name, p) in enumerate(lstm.named_parameters()):
        _set(lstm, **{name: P(*p.shape, scale=0.05 + 0.02 * i)})
    h0 = P(4, 2, 2, scale=0.2)
    c0 = P(4, 2, 2, scale=0.3)
    out, (h, cell) = lstm(P(2, 4, 3, scale=0.3), (h0, c0))
    c["lstm2_out"], c["lstm2_h"], c["lstm2_c"] = out, h, cell
    gru = nn.GRU(3, 4, num_layers=2, bidirectional=True)
    for i, (name, p) in enumerate(gru.named_parameters()):
        _set(gru, **{name: P(*p.shape, scale=0.1 + 0.03 * i)})
    x = P(5, 2, 3, scale=0.3).requires_grad_(True)
    out, h = gru(x, P(4, 2, 4, scale=0.2))
    (out.sum() + h.sum()).backward()
    c["gru_out"], c["gru_h"], c["gru_grad_input"] = out, h, x.grad
    c["gru_grad_weight_hh_l0"] = gru.weight_hh_l0.grad
    rnn = nn.RNN(3, 4, nonlinearity="relu", batch_first=True)
    for i, (name, p) in enumerate(rnn.named_parameters()):
        _set(rnn, **{name: P(*p.shape, scale=0.1 + 0.05 * i)})
    out, h = rnn(P(2, 5, 3, scale=0.3))
    c["rnn_relu_out"], c["rnn_relu_h"] = out, h
    for kind in ("LSTMCell", "GRUCell", "RNNCell"):
        cell = getattr(nn, kind)(3, 4)
        for i, (name, p) in enumerate(cell.named_parameters()):
            _set(cell, **{name: P(*p.shape, scale=0.1 + 0.05 * i)})
        x = P(2, 3, scale=0.3).requires_grad_(True)
        h0 = P(2, 4, scale=0.2)
        out = cell(x, (h0, P(2, 4, scale=0.4))) if kind == "LSTMCell" else cell(x, h0)
        h1 = out[0] if kind == "LSTMCell" else out
        (h1 * h1).sum().backward()
        c[kind + "_h"] = h1
        c[kind + "_grad_input"] = x.grad
        c[kind + "_grad_weight_hh"] = cell.weight_hh.grad
        if kind == "LSTMCell":
            c[kind + "_c"] = out[1]

    c["relu"] = F.relu(X)
    c["leaky_relu"] = F.leaky_relu(X, 0.2)
    c["gelu"] = F.gelu(X)
    c["gelu_tanh"] = F.gelu(X, approximate="tanh")
    c["elu"] = F.elu(X, 0.5)
    c["silu"] = F.silu(X)
    c["sigmoid"] = torch.sigmoid(X)
    c["tanh"] = torch.tanh(X)
    c["softmax"] = F.softmax(X, 1)
    c["log_softmax"] = F.log_softmax(X, 1)
    c["log_softmax_dim0_double"] = F.log_softmax(X, 0, dtype=torch.float64)
    c["hardtanh"] = F.hardtanh(X, -1.0, 2.0)
    c["softplus"] = F.softplus(X, beta=2.0)
    y4 = Y.reshape(1, 2, 3, 4)
    c["max_pool2d"] = F.max_pool2d(y4, 2)
    c["max_pool2d_strided"] = F.max_pool2d(y4, (2, 3), stride=1, padding=1)
    c["avg_pool2d"] = F.avg_pool2d(y4, 2, stride=1, padding=1)
    c["avg_pool2d_no_pad_count"] = F.avg_pool2d(y4, 2, stride=1, padding=1, count_include_pad=False)
    c["max_pool1d"] = F.max_pool1d(Y, 2)
    c["avg_pool1d"] = F.avg_pool1d(Y, 3, stride=1)
    c["flatten"] = nn.Flatten()(Y)
    c["adaptive_avg_pool2d"] = F.adaptive_avg_pool2d(P(1, 2, 5, 7), (2, 3))
    xi = P(1, 2, 3, 4)
    c["interpolate_nearest"] = F.interpolate(xi, size=(5, 7))
    c["interpolate_nearest_scale"] = F.interpolate(xi, scale_factor=2)
    c["interpolate_bilinear"] = F.interpolate(xi, size=(5, 7), mode="bilinear", align_corners=False)
    c["interpolate_bilinear_corners"] = F.interpolate(xi, scale_factor=(1.5, 2), mode="bilinear",
                                                      align_corners=True)
    c["interpolate_linear"] = F.interpolate(P(2, 3, 4), size=9, mode="linear")
    c["interpolate_trilinear"] = F.interpolate(P(1, 1, 2, 3, 2), size=(3, 4, 5), mode="trilinear")
    c["normalize"] = F.normalize(X, p=2.0, dim=1)
    c["normalize_l1_dim0"] = F.normalize(X, p=1.0, dim=0)
    c["pad_constant"] = F.pad(X, (1, 2), value=0.5)
    c["pad_reflect"] = F.pad(y4, (2, 1, 1, 2), mode="reflect")
    c["pad_replicate"] = F.pad(y4, (2, 1, 1, 2), mode="replicate")
    c["pad_circular"] = F.pad(y4, (2, 1, 1, 2), mode="circular")
    c["pad_negative"] = F.pad(X, (-1, 1))

    target = torch.tensor([2, 0])
    logp = F.log_softmax(X, 1)
    c["mse_loss"] = F.mse_loss(X, X.flip(1))
    c["mse_loss_sum"] = F.mse_loss(X, X.flip(1), reduction="sum")
    c["l1_loss_none"] = F.l1_loss(X, X.flip(0), reduction="none")
    c["smooth_l1_loss"] = F.smooth_l1_loss(X, X.flip(1), beta=0.5)
    c["nll_loss"] = F.nll_loss(logp, target)
    c["nll_loss_weight"] = F.nll_loss(logp, target, weight=torch.tensor([1.0, 2.0, 0.5]))
    c["cross_entropy"] = F.cross_entropy(X, target)
    c["cross_entropy_smoothing"] = F.cross_entropy(X, target, label_smoothing=0.1, reduction="sum")
    c["cross_entropy_ignore"] = F.cross_entropy(X, torch.tensor([2, -100]))
    prob = torch.sigmoid(X)
    bt = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    c["bce"] = F.binary_cross_entropy(prob, bt)
    c["bce_with_logits"] = F.binary_cross_entropy_with_logits(X, bt, pos_weight=torch.tensor([1.0, 2.0, 3.0]))
    xx = X.clone().requires_grad_(True)
    F.cross_entropy(xx, target).backward()
    c["cross_entropy_grad"] = xx.grad

    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2), nn.Tanh())
    _set(seq[0], weight=P(4, 3), bias=P(4))
    _set(seq[2], weight=P(2, 4, scale=0.3), bias=P(2))
    c["sequential"] = seq(X)
    return c


def _optim_run(make, steps=3):
    """w, b after `steps` steps of the optimizer on a small least-squares problem."""
    w = P(2, 3).requires_grad_(True)
    b = P(2, scale=0.2).requires_grad_(True)
    opt = make([w, b])
    x, target = P(4, 3, scale=0.3), P(4, 2, scale=0.5)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w.t() + b - target) ** 2).mean()
        loss.backward()
        opt.step()
    return w.detach(), b.detach()


OPTIM_CASES = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.1),
    "sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01),
    "sgd_nesterov": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "adam": lambda p: torch.optim.Adam(p, lr=0.01),
    "adam_amsgrad_wd": lambda p: torch.optim.Adam(p, lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True),
    "adamw": lambda p: torch.optim.AdamW(p, lr=0.01),
    "adamw_amsgrad": lambda p: torch.optim.AdamW(p, lr=0.02, weight_decay=0.1, amsgrad=True, eps=1e-6),
    "rmsprop": lambda p: torch.optim.RMSprop(p, lr=0.01),
    "rmsprop_centered_momentum": lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5, centered=True,
                                                               weight_decay=0.1),
}


def optim_cases():
    c = {}
    w = P(2, 3).requires_grad_(True)
    b = P(2, scale=0.2).requires_grad_(True)
    ((P(4, 3, scale=0.3) @ w.t() + b - P(4, 2, scale=0.5)) ** 2).mean().backward()
    c["clip_grad_norm_total"] = torch.nn.utils.clip_grad_norm_([w, b], 0.1)
    c["clip_grad_norm_w"], c["clip_grad_norm_b"] = w.grad, b.grad
    for name, make in OPTIM_CASES.items():
        c["optim_" + name + "_w"], c["optim_" + name + "_b"] = _optim_run(make)
    return c


@torch.jit.script
def _print_with_libtorch(t: torch.Tensor):
    print(t)


def libtorch_text(t):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _print_with_libtorch(t)
    text = out.getvalue()
    return text[:-1] if text.endswith("\n") else text


def print_case(name, sizes, dtype, values, transpose=False):
    t = torch.tensor(values, dtype=torch.float64).reshape(sizes).to(DTYPES[dtype])
    if transpose:
        t = t.transpose(0, 1)
    return {"name": name, "sizes": sizes, "dtype": dtype, "values": values,
            "transpose": transpose, "text": libtorch_text(t)}


def print_cases():
    inf, nan = math.inf, math.nan
    r = [float(i) for i in range(30)]
    return [
        print_case("float_matrix", [2, 3], "float32", r[:6]),
        print_case("long_matrix", [2, 3], "int64", r[:6]),
        print_case("float_scalar", [], "float32", [3.5]),
        print_case("long_scalar", [], "int64", [7]),
        print_case("double_scalar_digits", [], "float64", [3.14159265358979]),
        print_case("float_vector", [3], "float32", [1.5, 2.25, -3.0]),
        print_case("bool_vector", [2], "bool", [1, 0]),
        print_case("bool_matrix", [2, 2], "bool", [1, 0, 0, 1]),
        print_case("double_3d", [2, 3, 4], "float64", [float(i) for i in range(24)]),
        print_case("float_4d", [1, 3, 1, 1], "float32", [1.0, 2.0, 3.0]),
        print_case("float_4d_two", [2, 2, 1, 2], "float32", r[:8]),
        print_case("empty_vector", [0], "float32", []),
        print_case("empty_matrix", [2, 0], "float32", []),
        print_case("wide_range_scientific", [3], "float32", [1e-5, 1e5, 3.0]),
        print_case("large_float", [2], "float32", [1e10, 1.0]),
        print_case("fractions", [2], "float32", [0.1, 0.25]),
        print_case("half", [2], "float16", [1.0, 1.0]),
        print_case("bfloat16", [2], "bfloat16", [1.0, 1.0]),
        print_case("int_matrix", [2, 2], "int32", [1.0, 1.0, 1.0, 1.0]),
        print_case("uint8", [2], "uint8", [1.0, 1.0]),
        print_case("inf_nan", [3], "float32", [inf, nan, 1.0]),
        print_case("large_ints_exact", [2], "float32", [123456.0, 1.0]),
        print_case("negative_ints", [3], "int64", [-1.0, 20.0, 300.0]),
        print_case("column_blocks", [3, 10], "float32", [i * 1000.5 for i in range(30)]),
        print_case("scaled_large", [2], "float32", [123456.5, 100000.25]),
        print_case("scaled_large_matrix", [2, 2], "float64", [123456.5, 100000.25, 200000.0, 3e5]),
        print_case("scaled_small", [2], "float64", [0.00123, 0.00456]),
        print_case("scaled_small_matrix", [2, 2], "float64", [0.00123, 0.00456, 0.00789, 0.001]),
        print_case("negative_large_later", [2], "float32", [1.5, -1000.5]),
        print_case("negative_large_first", [2], "float32", [-1000.5, 1.5]),
        print_case("zeros_float", [2], "float32", [0.0, 0.0]),
        print_case("long_big_values", [2], "int64", [12345678901.0, 2.0]),
        print_case("nine_digit_ints", [2], "int64", [123456789.0, 2.0]),
        print_case("transposed", [2, 3], "float32", [1.5, -2.0, 3.25, 0.5, 4.0, -1.0], True),
        print_case("complex_real_part", [2], "complex64", [1.5, -2.0]),
        print_case("wide_int_matrix", [2, 30], "int64", [float(i * 37) for i in range(60)]),
        print_case("sci_3d", [2, 1, 2], "float64", [1e-8, 1.0, 1e8, 2.0]),
        print_case("huge_exponents", [2], "float64", [1e-150, 1e150]),
        print_case("float_scalar_pi", [], "float32", [math.pi]),
        print_case("scalar_hundred_thousand", [], "float64", [100000.0]),
        print_case("scalar_small", [], "float64", [1e-5]),
        print_case("scalar_1e16", [], "float64", [1e16]),
        print_case("scalar_1e22", [], "float64", [1e22]),
        print_case("scalar_tenth", [], "float64", [0.1]),
        print_case("scalar_negative_zero", [], "float64", [-0.0]),
        print_case("scalar_nan", [], "float32", [nan]),
        print_case("scalar_inf", [], "float64", [-inf]),
        print_case("scalar_big_long", [], "int64", [123456789012.0]),
        print_case("scalar_bool", [], "bool", [1]),
        print_case("scalar_half", [], "float16", [0.1]),
    ]


def main(path):
    torch.manual_seed(0)
    with open(path, "w") as f:
        json.dump({"values": value_cases(), "prints": print_cases()}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
