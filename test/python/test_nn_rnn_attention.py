"""ember.nn recurrent and attention layers against torch.nn: RNN/LSTM/GRU and their cells,
scaled_dot_product_attention, MultiheadAttention, TransformerEncoder(Layer). Each check copies
torch's state into ember and compares outputs, final states and the gradients of every input
and parameter."""
import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn as enn
from ember.nn.functional import scaled_dot_product_attention

torch = pytest.importorskip("torch")
tnn = torch.nn

DTYPES = {"float32": (np.float32, torch.float32, ember.float32, 1e-4, 1e-5),
          "float64": (np.float64, torch.float64, ember.float64, 1e-9, 1e-10)}


def to_ember(t):
    return ember.from_numpy(t.detach().numpy().copy())


def to_np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach())


def make_pair(name, *args, dtype="float32", seed=0, **kwargs):
    """torch.nn.<name> and ember.nn.<name> built alike, torch's state copied into ember."""
    torch.manual_seed(seed)
    tm = getattr(tnn, name)(*args, dtype=DTYPES[dtype][1], **kwargs)
    em = getattr(enn, name)(*args, dtype=DTYPES[dtype][2], **kwargs)
    assert list(tm.state_dict().keys()) == list(em.state_dict().keys())
    assert [(n, tuple(p.shape)) for n, p in tm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in em.named_parameters()]
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    return tm, em


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [] if out is None else [out]


def check(tm, em, fn, arrays, dtype="float32", grads=None, seed=1):
    """Runs fn(module, lib, *tensors) on both sides, where arrays are numpy inputs and grads
    says which need a gradient (all floating ones by default); compares every output, then the
    gradients of a random weighted sum of the outputs w.r.t. the inputs and every parameter."""
    _, _, _, rtol, atol = DTYPES[dtype]
    grads = grads if grads is not None else [a.dtype.kind == "f" for a in arrays]
    tin = [torch.from_numpy(a.copy()).requires_grad_(g) for a, g in zip(arrays, grads)]
    ein = [ember.from_numpy(a.copy()).requires_grad_(g) for a, g in zip(arrays, grads)]
    tout, eout = _flat(fn(tm, torch, *tin)), _flat(fn(em, ember, *ein))
    assert len(tout) == len(eout)
    rng = np.random.default_rng(seed)
    tloss, eloss = 0, 0
    for t, e in zip(tout, eout):
        assert tuple(t.shape) == tuple(e.shape)
        np.testing.assert_allclose(to_np(e), to_np(t), rtol=rtol, atol=atol)
        w = rng.standard_normal(tuple(t.shape)).astype(to_np(t).dtype)
        tloss = tloss + (t * torch.from_numpy(w)).sum()
        eloss = eloss + (e * ember.from_numpy(w.copy())).sum()
    tloss.backward()
    eloss.backward()
    for i, (t, e) in enumerate(zip(tin, ein)):
        if t.requires_grad:
            assert e.grad is not None, f"input {i} has no grad"
            np.testing.assert_allclose(to_np(e.grad), to_np(t.grad), rtol=rtol, atol=atol, err_msg=f"input {i}")
    if tm is not None:
        for (n, tp), (_, ep) in zip(tm.named_parameters(), em.named_parameters()):
            assert ep.grad is not None, f"{n} has no grad"
            np.testing.assert_allclose(to_np(ep.grad), to_np(tp.grad), rtol=rtol, atol=atol, err_msg=n)
    return tout, eout


def randn(*shape, dtype="float32", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(DTYPES[dtype][0])


# ---- cells ---------------------------------------------------------------------------------

CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("RNNCell", {"bias": False}),
         ("LSTMCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {}), ("GRUCell", {"bias": False})]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CELLS)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
def test_cell(name, kwargs, dtype, batched, with_state):
    tm, em = make_pair(name, 4, 5, dtype=dtype, **kwargs)
    lead = (3,) if batched else ()
    x = randn(*lead, 4, dtype=dtype)
    states = [randn(*lead, 5, dtype=dtype, seed=s) for s in (1, 2)] if with_state else []
    lstm = name == "LSTMCell"

    def fn(m, lib, x, *s):
        if not s:
            return m(x)
        return m(x, (s[0], s[1])) if lstm else m(x, s[0])

    check(tm, em, fn, [x] + states[:2 if lstm else 1], dtype)


def test_cell_two_steps_share_weights():
    tm, em = make_pair("LSTMCell", 3, 4)

    def fn(m, lib, x0, x1):
        h = m(x0)
        return m(x1, h)

    check(tm, em, fn, [randn(2, 3), randn(2, 3, seed=1)])


def test_cell_errors_and_repr():
    em = enn.RNNCell(3, 4, bias=False, nonlinearity="relu")
    assert repr(em) == repr(tnn.RNNCell(3, 4, bias=False, nonlinearity="relu"))
    assert repr(enn.GRUCell(3, 4)) == "GRUCell(3, 4)"
    with pytest.raises(ValueError, match="Expected input to be 1D or 2D"):
        em(ember.zeros((1, 2, 3)))
    with pytest.raises(ValueError, match="LSTMCell: Expected hx\\[1\\] to be 1D or 2D"):
        enn.LSTMCell(3, 4)(ember.zeros((2, 3)), (ember.zeros((2, 4)), ember.zeros((1, 2, 4))))


# ---- layers --------------------------------------------------------------------------------

LAYER_CONFIGS = [
    {},
    {"num_layers": 2},
    {"batch_first": True},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"bias": False, "num_layers": 2},
]


def _layer_fn(name, hx_given):
    def fn(m, lib, x, *s):
        if not hx_given:
            return m(x)
        return m(x, (s[0], s[1])) if name == "LSTM" else m(x, s[0])
    return fn


def _run_layer(name, kwargs, dtype="float32", batched=True, hx_given=False, extra=None, seq=4, batch=3):
    extra = extra or {}
    kw = dict(kwargs, **extra)
    tm, em = make_pair(name, 5, 6, dtype=dtype, **kw)
    shape = ((batch, seq) if kw.get("batch_first") else (seq, batch)) if batched else (seq,)
    arrays = [randn(*shape, 5, dtype=dtype)]
    if hx_given:
        d = 2 if kw.get("bidirectional") else 1
        lead = (kw.get("num_layers", 1) * d,) + ((batch,) if batched else ())
        h_size = kw.get("proj_size") or 6
        arrays.append(randn(*lead, h_size, dtype=dtype, seed=2))
        if name == "LSTM":
            arrays.append(randn(*lead, 6, dtype=dtype, seed=3))
    return check(tm, em, _layer_fn(name, hx_given), arrays, dtype)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kwargs", LAYER_CONFIGS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()) or "default")
def test_layer(name, kwargs):
    _run_layer(name, kwargs)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batched", [True, False])
def test_layer_given_state(name, batched):
    _run_layer(name, {"num_layers": 2, "bidirectional": True}, hx_given=True, batched=batched)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_layer_unbatched(name, batch_first):
    _run_layer(name, {"batch_first": batch_first, "num_layers": 2}, batched=False)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_layer_float64(name):
    _run_layer(name, {"num_layers": 2, "bidirectional": True, "batch_first": True}, dtype="float64",
               hx_given=True)


def test_rnn_relu():
    _run_layer("RNN", {"nonlinearity": "relu", "num_layers": 2, "bidirectional": True})


@pytest.mark.parametrize("kwargs", [{"proj_size": 3}, {"proj_size": 2, "num_layers": 2, "bidirectional": True}])
def test_lstm_proj_size(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: "LSTM with projections is not supported with oneDNN"
        _run_layer("LSTM", kwargs)
        _run_layer("LSTM", kwargs, hx_given=True)


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_layer_dropout(name):
    """dropout=1 zeroes every layer's output but the last, deterministically; eval turns it off."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, em = make_pair(name, 5, 6, num_layers=3, dropout=1.0)
    check(tm, em, _layer_fn(name, False), [randn(4, 2, 5)])
    tm.eval()
    em.eval()
    check(tm, em, _layer_fn(name, False), [randn(4, 2, 5)])
    tm, em = make_pair(name, 5, 6, num_layers=2, dropout=0.5)
    em.train()
    out, _ = em(ember.from_numpy(randn(4, 2, 5)))
    assert out.shape == (4, 2, 6)


def test_layer_state_dict_and_repr():
    for name, kwargs in [("RNN", {"nonlinearity": "relu", "num_layers": 2, "bidirectional": True}),
                         ("LSTM", {"proj_size": 3, "num_layers": 2, "bidirectional": True, "batch_first": True}),
                         ("GRU", {"bias": False, "num_layers": 3, "dropout": 0.25})]:
        tm, em = make_pair(name, 5, 6, **kwargs)
        assert repr(tm) == repr(em)
        assert [[tuple(p.shape) for p in ps] for ps in tm.all_weights] == \
            [[tuple(p.shape) for p in ps] for ps in em.all_weights]
        assert list(tm._flat_weights_names) == list(em._flat_weights_names)
    assert list(enn.LSTM(2, 3, bidirectional=True).state_dict()) == [
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
        "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse"]
    # RNN's nonlinearity may come fourth positionally, as in PyTorch.
    assert enn.RNN(2, 3, 1, "relu").mode == "RNN_RELU"


def test_layer_errors():
    em = enn.LSTM(5, 6)
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D"):
        em(ember.zeros((1, 1, 1, 5)))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        em(ember.zeros((2, 3, 4)))
    with pytest.raises(RuntimeError, match="Expected hidden\\[0\\] size"):
        em(ember.zeros((2, 3, 5)), (ember.zeros((1, 2, 6)), ember.zeros((1, 3, 6))))
    with pytest.raises(RuntimeError, match="hx and cx should also be 3-D"):
        em(ember.zeros((2, 3, 5)), (ember.zeros((3, 6)), ember.zeros((3, 6))))
    with pytest.raises(ValueError, match="does not match weight dtype"):
        em(ember.zeros((2, 3, 5), dtype=ember.float64))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        enn.GRU(5, 6)(ember.zeros((2, 3, 5)), ember.zeros((2, 3, 6)))
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        enn.GRU(5, 6, proj_size=2)
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        enn.RNN(5, 6, nonlinearity="gelu")
    with pytest.raises(ValueError, match="proj_size has to be smaller"):
        enn.LSTM(5, 6, proj_size=6)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        enn.GRU(5, 6, dropout=0.5)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"])
def test_default_init(name):
    ember.manual_seed(0)
    m = getattr(enn, name)(16, 64, **({"num_layers": 2} if "Cell" not in name else {}))
    bound = 1 / math.sqrt(64)
    values = np.concatenate([to_np(p).ravel() for p in m.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert abs(values.mean()) < 0.05 * bound
    assert abs(values.std() - bound / math.sqrt(3)) < 0.05 * bound


# ---- scaled_dot_product_attention ----------------------------------------------------------

def _sdpa(m, lib, q, k, v, *mask, **kw):
    f = scaled_dot_product_attention if lib is ember else torch.nn.functional.scaled_dot_product_attention
    return f(q, k, v, *mask, **kw)


@pytest.mark.parametrize("case", ["plain", "bool", "float", "causal", "scale", "dead_row", "causal_rect"])
def test_sdpa(case):
    L = 3 if case == "causal_rect" else 4
    q, k, v = randn(2, 2, L, 8), randn(2, 2, 5, 8, seed=1), randn(2, 2, 5, 6, seed=2)
    arrays, kw = [q, k, v], {}
    if case == "bool":
        arrays.append(np.random.default_rng(3).random((4, 5)) > 0.3)
        arrays[-1][:, 0] = True
    elif case == "float":
        arrays.append(randn(2, 1, 4, 5, seed=3))
    elif case in ("causal", "causal_rect"):
        kw["is_causal"] = True
    elif case == "scale":
        kw["scale"] = 0.3
    elif case == "dead_row":
        mask = np.ones((4, 5), dtype=bool)
        mask[1] = False
        arrays.append(mask)
    check(None, None, lambda m, lib, *a: _sdpa(m, lib, *a, **kw), arrays)


def test_sdpa_errors_and_dropout():
    q = ember.from_numpy(randn(1, 3, 4))
    with pytest.raises(RuntimeError, match="attn_mask should not be set when is_causal=True"):
        scaled_dot_product_attention(q, q, q, ember.ones((3, 3), dtype=ember.bool), is_causal=True)
    out = scaled_dot_product_attention(q, q, q, dropout_p=1.0)
    assert float(out.abs().sum()) == 0.0


# ---- MultiheadAttention --------------------------------------------------------------------

def _mha_fn(self_attn, mask_names, **kw):
    """Calls m(q, k, v) (or m(q, q, q) for self-attention) with the masks as named keywords."""
    def fn(m, lib, q, k, v, *masks):
        named = dict(zip(mask_names, masks))
        if self_attn:
            return m(q, q, q, **named, **kw)
        return m(q, k, v, **named, **kw)
    return fn


def _run_mha(ctor=None, self_attn=False, batch_first=False, batched=True, masks=None, dtype="float32", **kw):
    ctor = dict(ctor or {})
    tm, em = make_pair("MultiheadAttention", 8, 2, batch_first=batch_first, dtype=dtype, **ctor)
    L, S, N = 3, 4, 2

    def shape(n, d):
        if not batched:
            return (n, d)
        return (N, n, d) if batch_first else (n, N, d)

    q = randn(*shape(L, 8), dtype=dtype)
    k = randn(*shape(L if self_attn else S, ctor.get("kdim", 8)), dtype=dtype, seed=1)
    v = randn(*shape(L if self_attn else S, ctor.get("vdim", 8)), dtype=dtype, seed=2)
    masks = masks or {}
    fn = _mha_fn(self_attn, tuple(masks), **kw)
    grads = [True, not self_attn, not self_attn] + [False] * len(masks)
    return check(tm, em, fn, [q, k, v] + list(masks.values()), dtype, grads=grads)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("self_attn", [False, True])
@pytest.mark.parametrize("average", [True, False])
def test_mha_basic(batch_first, self_attn, average):
    _run_mha(self_attn=self_attn, batch_first=batch_first, average_attn_weights=average)


def test_mha_no_weights_and_unbatched():
    tout, eout = _run_mha(need_weights=False)
    assert len(eout) == 1
    _run_mha(batched=False)
    _run_mha(batched=False, need_weights=False, self_attn=True)


def test_mha_float64_kdim_vdim():
    _run_mha({"kdim": 5, "vdim": 6}, dtype="float64", batch_first=True)
    _run_mha({"kdim": 5, "vdim": 6}, need_weights=False)


def test_mha_options():
    _run_mha({"bias": False})
    _run_mha({"add_bias_kv": True})
    _run_mha({"add_zero_attn": True}, need_weights=False)


KPM = np.array([[False, False, True, False], [False, True, False, True]])
CAUSAL = np.triu(np.ones((3, 3), dtype=bool), 1)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("case", ["kpm_bool", "kpm_float", "attn_bool", "attn_float", "attn_3d", "both", "causal"])
def test_mha_masks(case, need_weights):
    kw = {"need_weights": need_weights}
    if case == "kpm_bool":
        _run_mha(masks={"key_padding_mask": KPM}, **kw)
    elif case == "kpm_float":
        _run_mha(masks={"key_padding_mask": np.where(KPM, -1e4, 0.5).astype(np.float32)}, **kw)
    elif case == "attn_bool":
        _run_mha(masks={"attn_mask": np.random.default_rng(0).random((3, 4)) > 0.7}, **kw)
    elif case == "attn_float":
        _run_mha(masks={"attn_mask": randn(3, 4, seed=5)}, **kw)
    elif case == "attn_3d":
        _run_mha(masks={"attn_mask": randn(4, 3, 4, seed=5)}, batch_first=True, **kw)
    elif case == "both":
        _run_mha(masks={"key_padding_mask": KPM, "attn_mask": np.random.default_rng(0).random((3, 4)) > 0.8},
                 **kw)
    else:
        _run_mha(self_attn=True, masks={"attn_mask": CAUSAL}, is_causal=True, **kw)


def test_mha_state_dict_init_and_repr():
    tm = tnn.MultiheadAttention(16, 4, kdim=5, vdim=6, add_bias_kv=True)
    em = enn.MultiheadAttention(16, 4, kdim=5, vdim=6, add_bias_kv=True)
    assert list(tm.state_dict()) == list(em.state_dict())
    assert repr(tm) == repr(em)
    ember.manual_seed(0)
    em = enn.MultiheadAttention(64, 4)
    assert list(em.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    w = to_np(em.in_proj_weight)
    bound = math.sqrt(6 / (64 + 3 * 64))
    assert w.min() >= -bound and w.max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound
    assert not to_np(em.in_proj_bias).any() and not to_np(em.out_proj.bias).any()
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        enn.MultiheadAttention(10, 3)


# ---- Transformer encoder -------------------------------------------------------------------

@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("train", [False, True])
def test_encoder_layer(norm_first, activation, train):
    tm, em = make_pair("TransformerEncoderLayer", 8, 2, 16, dropout=0.0, activation=activation,
                       norm_first=norm_first, batch_first=True)
    tm.train(train)
    em.train(train)
    check(tm, em, lambda m, lib, x: m(x), [randn(2, 5, 8)])


def test_encoder_layer_masks_and_callable_activation():
    torch.manual_seed(0)
    tm = tnn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=torch.nn.functional.silu)
    em = enn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=ember.nn.functional.silu)
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    kpm = np.array([[False] * 5, [False, False, False, True, True]])
    check(tm, em, lambda m, lib, x, kpm: m(x, src_key_padding_mask=kpm), [randn(5, 2, 8), kpm],
          grads=[True, False])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_encoder(dtype):
    torch.manual_seed(0)
    t_dtype, e_dtype = DTYPES[dtype][1], DTYPES[dtype][2]
    tl = tnn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=t_dtype)
    el = enn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=e_dtype)
    tm = tnn.TransformerEncoder(tl, 2, norm=tnn.LayerNorm(8, dtype=t_dtype), enable_nested_tensor=False)
    em = enn.TransformerEncoder(el, 2, norm=enn.LayerNorm(8, dtype=e_dtype), enable_nested_tensor=False)
    assert list(tm.state_dict()) == list(em.state_dict())
    assert repr(tm) == repr(em)
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    causal = np.triu(np.full((5, 5), -np.inf), 1).astype(DTYPES[dtype][0])
    kpm = np.zeros((2, 5), dtype=DTYPES[dtype][0])
    kpm[1, 4] = -np.inf
    check(tm, em, lambda m, lib, x: m(x), [randn(2, 5, 8, dtype=dtype)], dtype)
    check(tm, em, lambda m, lib, x, mask, kpm: m(x, mask=mask, src_key_padding_mask=kpm),
          [randn(2, 5, 8, dtype=dtype), causal, kpm], dtype, grads=[True, False, False])
    tm.eval()
    em.eval()
    check(tm, em, lambda m, lib, x, mask: m(x, mask=mask, is_causal=True), [randn(2, 5, 8, dtype=dtype), causal],
          dtype, grads=[True, False])
