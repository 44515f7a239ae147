"""ember.nn.Transformer, TransformerDecoder(Layer) against torch.nn: torch's state is copied into
ember, then outputs and the gradients of every input and parameter are compared, in eval and train
mode (dropout 0), batch_first and norm_first both ways, with attention and key padding masks."""
import math

import numpy as np
import pytest

import ember
import ember.nn as enn

torch = pytest.importorskip("torch")
tnn = torch.nn

DTYPES = {"float32": (np.float32, torch.float32, ember.float32, 1e-4, 1e-5),
          "float64": (np.float64, torch.float64, ember.float64, 1e-9, 1e-10)}


def to_ember(t):
    return ember.from_numpy(t.detach().numpy().copy())


def to_np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach())


def randn(*shape, dtype="float32", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(DTYPES[dtype][0])


def copy_state(tm, em):
    """Checks that the key lists and parameter shapes agree, then loads torch's state into em."""
    assert list(tm.state_dict().keys()) == list(em.state_dict().keys())
    assert [(n, tuple(p.shape)) for n, p in tm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in em.named_parameters()]
    em.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})


def make_pair(name, *args, dtype="float32", seed=0, train=False, **kwargs):
    torch.manual_seed(seed)
    tm = getattr(tnn, name)(*args, dtype=DTYPES[dtype][1], **kwargs)
    em = getattr(enn, name)(*args, dtype=DTYPES[dtype][2], **kwargs)
    copy_state(tm, em)
    tm.train(train)
    em.train(train)
    return tm, em


def check(tm, em, fn, arrays, dtype="float32", grads=None, seed=1):
    """fn(module, lib, *tensors) on both sides; compares the output, then the gradients of a random
    weighted sum of it w.r.t. the inputs that need one (the floating ones by default) and every
    parameter."""
    _, _, _, rtol, atol = DTYPES[dtype]
    grads = grads if grads is not None else [a.dtype.kind == "f" for a in arrays]
    tin = [torch.from_numpy(a.copy()).requires_grad_(g) for a, g in zip(arrays, grads)]
    ein = [ember.from_numpy(a.copy()).requires_grad_(g) for a, g in zip(arrays, grads)]
    tout, eout = fn(tm, torch, *tin), fn(em, ember, *ein)
    assert tuple(tout.shape) == tuple(eout.shape)
    np.testing.assert_allclose(to_np(eout), to_np(tout), rtol=rtol, atol=atol)
    w = np.random.default_rng(seed).standard_normal(tuple(tout.shape)).astype(to_np(tout).dtype)
    (tout * torch.from_numpy(w)).sum().backward()
    (eout * ember.from_numpy(w.copy())).sum().backward()
    for i, (t, e) in enumerate(zip(tin, ein)):
        if t.requires_grad:
            assert e.grad is not None, f"input {i} has no grad"
            np.testing.assert_allclose(to_np(e.grad), to_np(t.grad), rtol=rtol, atol=atol, err_msg=f"input {i}")
    for (n, tp), (_, ep) in zip(tm.named_parameters(), em.named_parameters()):
        if tp.grad is None:
            assert ep.grad is None or not to_np(ep.grad).any(), n
            continue
        assert ep.grad is not None, f"{n} has no grad"
        np.testing.assert_allclose(to_np(ep.grad), to_np(tp.grad), rtol=rtol, atol=atol, err_msg=n)


def causal(n, dtype="float32"):
    return np.triu(np.full((n, n), -np.inf), 1).astype(DTYPES[dtype][0])


def padding(batch, n, pad_last):
    """Bool key padding mask: the last pad_last positions of the second sequence are padding."""
    m = np.zeros((batch, n), dtype=bool)
    if pad_last:
        m[1, n - pad_last:] = True
    return m


def seq(batch_first, b, s, e, dtype="float32", seed=0):
    return randn(*((b, s, e) if batch_first else (s, b, e)), dtype=dtype, seed=seed)


# ---- TransformerDecoderLayer ------------------------------------------------------------------

@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_decoder_layer(norm_first, batch_first, train, activation):
    tm, em = make_pair("TransformerDecoderLayer", 8, 2, 16, dropout=0.0, activation=activation,
                       norm_first=norm_first, batch_first=batch_first, train=train)
    tgt, mem = seq(batch_first, 2, 4, 8), seq(batch_first, 2, 5, 8, seed=1)
    check(tm, em, lambda m, lib, t, s: m(t, s), [tgt, mem])


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_decoder_layer_masks(norm_first, batch_first):
    tm, em = make_pair("TransformerDecoderLayer", 8, 2, 16, dropout=0.0, norm_first=norm_first,
                       batch_first=batch_first, train=True)
    tgt, mem = seq(batch_first, 2, 4, 8), seq(batch_first, 2, 5, 8, seed=1)
    mem_mask = np.zeros((4, 5), dtype=bool)
    mem_mask[0, 3:] = True

    def fn(m, lib, t, s, tmask, mmask, tkpm, mkpm):
        return m(t, s, tgt_mask=tmask, memory_mask=mmask, tgt_key_padding_mask=tkpm, memory_key_padding_mask=mkpm,
                 tgt_is_causal=True)
    check(tm, em, fn, [tgt, mem, causal(4), mem_mask, padding(2, 4, 1), padding(2, 5, 2)],
          grads=[True, True, False, False, False, False])


def test_decoder_layer_callable_activation_no_bias_float64():
    torch.manual_seed(0)
    tm = tnn.TransformerDecoderLayer(8, 4, 12, dropout=0.0, activation=torch.nn.functional.silu, bias=False,
                                     layer_norm_eps=1e-3, dtype=torch.float64)
    em = enn.TransformerDecoderLayer(8, 4, 12, dropout=0.0, activation=ember.nn.functional.silu, bias=False,
                                     layer_norm_eps=1e-3, dtype=ember.float64)
    copy_state(tm, em)
    assert em.norm1.eps == 1e-3 and em.linear1.bias is None
    check(tm, em, lambda m, lib, t, s: m(t, s), [randn(3, 2, 8, dtype="float64"),
                                                 randn(6, 2, 8, dtype="float64", seed=1)], "float64")


def test_decoder_layer_module_activation_unbatched_and_noncontiguous():
    torch.manual_seed(0)
    tm = tnn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation=tnn.GELU())
    em = enn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation=enn.GELU())
    copy_state(tm, em)
    check(tm, em, lambda m, lib, t, s: m(t, s), [randn(4, 8), randn(5, 8, seed=1)])
    # Inputs given as transposes of contiguous (batch, seq, feature) tensors.
    check(tm, em, lambda m, lib, t, s: m(t.transpose(0, 1), s.transpose(0, 1)),
          [randn(2, 4, 8), randn(2, 5, 8, seed=1)])


def test_decoder_layer_bad_activation():
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        enn.TransformerDecoderLayer(8, 2, activation="tanh")


# ---- TransformerDecoder -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_decoder(dtype, batch_first):
    torch.manual_seed(0)
    t_dtype, e_dtype = DTYPES[dtype][1], DTYPES[dtype][2]
    tl = tnn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first, dtype=t_dtype)
    el = enn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first, dtype=e_dtype)
    tm = tnn.TransformerDecoder(tl, 3, norm=tnn.LayerNorm(8, dtype=t_dtype))
    em = enn.TransformerDecoder(el, 3, norm=enn.LayerNorm(8, dtype=e_dtype))
    assert repr(tm) == repr(em)
    copy_state(tm, em)
    tgt, mem = seq(batch_first, 2, 4, 8, dtype), seq(batch_first, 2, 5, 8, dtype, seed=1)
    check(tm, em, lambda m, lib, t, s: m(t, s), [tgt, mem], dtype)
    # A causal float tgt_mask is detected (tgt_is_causal=None) and gives the same result as torch.
    check(tm, em, lambda m, lib, t, s, mask: m(t, s, tgt_mask=mask), [tgt, mem, causal(4, dtype)], dtype,
          grads=[True, True, False])
    tm.train()
    em.train()
    kpm = np.zeros((2, 5), dtype=DTYPES[dtype][0])
    kpm[0, 4] = -np.inf
    check(tm, em, lambda m, lib, t, s, mask, kpm: m(t, s, tgt_mask=mask, memory_key_padding_mask=kpm,
                                                    tgt_is_causal=False),
          [tgt, mem, causal(4, dtype), kpm], dtype, grads=[True, True, False, False])


def test_decoder_layers_are_independent_copies():
    el = enn.TransformerDecoderLayer(8, 2, 16)
    em = enn.TransformerDecoder(el, 2)
    assert em.num_layers == 2 and em.norm is None
    assert em.layers[0].linear1.weight is not em.layers[1].linear1.weight
    assert em.layers[0].linear1.weight is not el.linear1.weight
    np.testing.assert_array_equal(to_np(em.layers[1].linear1.weight), to_np(el.linear1.weight))


# ---- Transformer -------------------------------------------------------------------------------

def make_transformer(dtype="float32", train=False, **kwargs):
    kwargs = {"d_model": 8, "nhead": 2, "num_encoder_layers": 2, "num_decoder_layers": 2, "dim_feedforward": 16,
              "dropout": 0.0, **kwargs}
    return make_pair("Transformer", dtype=dtype, train=train, **kwargs)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("train", [False, True])
def test_transformer(norm_first, batch_first, train):
    tm, em = make_transformer(norm_first=norm_first, batch_first=batch_first, train=train)
    assert repr(tm) == repr(em)
    src, tgt = seq(batch_first, 2, 5, 8), seq(batch_first, 2, 4, 8, seed=1)
    check(tm, em, lambda m, lib, s, t: m(s, t), [src, tgt])


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_masks(norm_first, batch_first):
    tm, em = make_transformer(norm_first=norm_first, batch_first=batch_first, train=True)
    src, tgt = seq(batch_first, 2, 5, 8), seq(batch_first, 2, 4, 8, seed=1)
    src_mask = np.zeros((5, 5), dtype=bool)
    src_mask[1, 4] = True
    mem_mask = np.zeros((4, 5), dtype=bool)
    mem_mask[2, :2] = True

    def fn(m, lib, s, t, smask, tmask, mmask, skpm, tkpm, mkpm):
        return m(s, t, src_mask=smask, tgt_mask=tmask, memory_mask=mmask, src_key_padding_mask=skpm,
                 tgt_key_padding_mask=tkpm, memory_key_padding_mask=mkpm)
    check(tm, em, fn, [src, tgt, src_mask, np.triu(np.ones((4, 4), bool), 1),
                       mem_mask, padding(2, 5, 1), padding(2, 4, 1), padding(2, 5, 1)],
          grads=[True, True] + [False] * 6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_transformer_causal_hints(dtype):
    tm, em = make_transformer(dtype=dtype, batch_first=True)
    mask = tnn.Transformer.generate_square_subsequent_mask(4, dtype=DTYPES[dtype][1]).numpy()
    src, tgt = randn(2, 5, 8, dtype=dtype), randn(2, 4, 8, dtype=dtype, seed=1)
    check(tm, em, lambda m, lib, s, t, mask: m(s, t, tgt_mask=mask, tgt_is_causal=True), [src, tgt, mask], dtype,
          grads=[True, True, False])
    check(tm, em, lambda m, lib, s, t, mask: m(s, t, src_mask=mask, src_is_causal=True),
          [randn(2, 4, 8, dtype=dtype), tgt, mask], dtype, grads=[True, True, False])
    check(tm, em, lambda m, lib, s, t, mask: m(s, t, memory_mask=mask, memory_is_causal=True),
          [randn(2, 4, 8, dtype=dtype), tgt, mask], dtype, grads=[True, True, False])


def test_transformer_unbatched_activation_bias_eps():
    tm, em = make_transformer(activation="gelu", bias=False, layer_norm_eps=1e-6, num_decoder_layers=1)
    assert len(em.decoder.layers) == 1 and em.encoder.norm.eps == 1e-6
    check(tm, em, lambda m, lib, s, t: m(s, t), [randn(5, 8), randn(3, 8, seed=1)])


def test_transformer_noncontiguous_and_empty_batch():
    tm, em = make_transformer()
    check(tm, em, lambda m, lib, s, t: m(s.transpose(0, 1), t.transpose(0, 1)),
          [randn(2, 5, 8), randn(2, 4, 8, seed=1)])
    out = em(ember.zeros(5, 0, 8), ember.zeros(4, 0, 8))
    assert tuple(out.shape) == tuple(tm(torch.zeros(5, 0, 8), torch.zeros(4, 0, 8)).shape) == (4, 0, 8)


def test_transformer_custom_encoder_decoder():
    torch.manual_seed(0)
    t_enc = tnn.TransformerEncoder(tnn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 1,
                                   enable_nested_tensor=False)
    t_dec = tnn.TransformerDecoder(tnn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 1)
    tm = tnn.Transformer(8, 2, custom_encoder=t_enc, custom_decoder=t_dec)
    e_enc = enn.TransformerEncoder(enn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 1)
    e_dec = enn.TransformerDecoder(enn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 1)
    em = enn.Transformer(8, 2, custom_encoder=e_enc, custom_decoder=e_dec)
    assert em.encoder is e_enc and em.decoder is e_dec
    copy_state(tm, em)
    tm.eval()
    em.eval()
    check(tm, em, lambda m, lib, s, t: m(s, t), [randn(5, 2, 8), randn(4, 2, 8, seed=1)])


def test_transformer_init():
    ember.manual_seed(0)
    em = enn.Transformer(16, 2, 1, 1, 32)
    assert em.d_model == 16 and em.nhead == 2 and em.batch_first is False
    for name, p in em.named_parameters():
        w = to_np(p)
        if p.dim() > 1:
            bound = math.sqrt(6.0 / (p.shape[0] + p.shape[1]))
            assert np.abs(w).max() <= bound, name
            assert abs(w.std() - bound / math.sqrt(3)) < 0.2 * bound, name
        elif name.endswith("in_proj_bias") or name.endswith("out_proj.bias"):
            assert not w.any(), name
        elif "norm" in name:
            np.testing.assert_array_equal(w, np.ones_like(w) if name.endswith("weight") else np.zeros_like(w))


@pytest.mark.parametrize("sz", [0, 1, 4])
def test_generate_square_subsequent_mask(sz):
    e = enn.Transformer.generate_square_subsequent_mask(sz)
    t = tnn.Transformer.generate_square_subsequent_mask(sz)
    assert e.dtype == ember.float32
    np.testing.assert_array_equal(to_np(e), t.numpy())
    e64 = enn.Transformer.generate_square_subsequent_mask(sz, dtype=ember.float64)
    assert e64.dtype == ember.float64
    np.testing.assert_array_equal(to_np(e64), t.numpy().astype(np.float64))


def test_transformer_errors():
    em = enn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    with pytest.raises(RuntimeError, match=r"Transformer.forward\(\): expected src and tgt to have the same batch"):
        em(ember.zeros(5, 2, 8), ember.zeros(4, 3, 8))
    with pytest.raises(RuntimeError, match=r"Transformer.forward\(\): expected the feature number .* d_model=8"):
        em(ember.zeros(5, 2, 8), ember.zeros(4, 2, 6))
    eb = enn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True)
    with pytest.raises(RuntimeError, match="same batch size"):
        eb(ember.zeros(2, 5, 8), ember.zeros(3, 4, 8))
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        enn.Transformer(10, 3)
