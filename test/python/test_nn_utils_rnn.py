"""ember.nn.utils.rnn (packing and padding of variable-length sequences) and the recurrent
layers on PackedSequence input, against torch with the same weights: outputs, final states
and gradients."""
import numpy as np
import pytest
import torch
import torch.nn.utils.rnn as trnn

import ember
import ember.nn as enn
import ember.nn.utils.rnn as ernn


def _np(t):
    return t.detach().numpy()


def _seqs(lengths, features=3, seed=0, grad=False):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal((n, features)) for n in lengths]
    e = [ember.tensor(a, requires_grad=grad) for a in arrs]
    t = [torch.tensor(a, requires_grad=grad) for a in arrs]
    return e, t


def _same_packed(e, t):
    np.testing.assert_allclose(_np(e.data), _np(t.data), rtol=1e-12)
    np.testing.assert_array_equal(_np(e.batch_sizes), t.batch_sizes.numpy())
    for a, b in ((e.sorted_indices, t.sorted_indices), (e.unsorted_indices, t.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(_np(a), b.numpy())


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_matches_torch(batch_first, padding_side):
    e, t = _seqs([2, 5, 3])
    got = ernn.pad_sequence(e, batch_first=batch_first, padding_value=-1.5, padding_side=padding_side)
    want = trnn.pad_sequence(t, batch_first=batch_first, padding_value=-1.5, padding_side=padding_side)
    np.testing.assert_array_equal(_np(got), want.numpy())


def test_pad_sequence_gradient_and_errors():
    e, t = _seqs([2, 4], grad=True)
    (ernn.pad_sequence(e) * 2).sum().backward()
    (trnn.pad_sequence(t) * 2).sum().backward()
    for a, b in zip(e, t):
        np.testing.assert_array_equal(_np(a.grad), b.grad.numpy())
    with pytest.raises(RuntimeError, match="padding_side"):
        ernn.pad_sequence(e, padding_side="up")
    with pytest.raises(RuntimeError, match="Expected iterable"):
        ernn.pad_sequence(3)


@pytest.mark.parametrize("enforce_sorted,lengths", [(True, [5, 3, 3, 1]), (False, [2, 5, 1, 4]),
                                                    (False, [3, 3, 1, 3])])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_padded_sequence_matches_torch(enforce_sorted, lengths, batch_first):
    e, t = _seqs(lengths, grad=True)
    ep = ernn.pad_sequence(e, batch_first=batch_first)
    tp = trnn.pad_sequence(t, batch_first=batch_first)
    pe = ernn.pack_padded_sequence(ep, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    pt = trnn.pack_padded_sequence(tp, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    assert isinstance(pe, ernn.PackedSequence) and isinstance(pe, tuple)
    _same_packed(pe, pt)
    # Round trip, with total_length padding, in the original order; gradient flows back.
    ue, le = ernn.pad_packed_sequence(pe, batch_first=batch_first, padding_value=9.0, total_length=7)
    ut, lt = trnn.pad_packed_sequence(pt, batch_first=batch_first, padding_value=9.0, total_length=7)
    np.testing.assert_array_equal(_np(ue), _np(ut))
    np.testing.assert_array_equal(_np(le), lt.numpy())
    w = np.arange(np.prod(ut.shape)).reshape(ut.shape) % 5
    (ue * ember.tensor(w)).sum().backward()
    (ut * torch.tensor(w)).sum().backward()
    for a, b in zip(e, t):
        np.testing.assert_array_equal(_np(a.grad), b.grad.numpy())


def test_pack_sequence_unpack_and_unpad():
    e, t = _seqs([2, 4, 1])
    pe = ernn.pack_sequence(e, enforce_sorted=False)
    pt = trnn.pack_sequence(t, enforce_sorted=False)
    _same_packed(pe, pt)
    for a, b in zip(ernn.unpack_sequence(pe), trnn.unpack_sequence(pt)):
        np.testing.assert_array_equal(_np(a), b.numpy())
    padded_e, padded_t = ernn.pad_sequence(e, batch_first=True), trnn.pad_sequence(t, batch_first=True)
    lengths = [2, 4, 1]
    got = ernn.unpad_sequence(padded_e, ember.tensor(lengths), batch_first=True)
    want = trnn.unpad_sequence(padded_t, torch.tensor(lengths), batch_first=True)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(_np(a), b.numpy())
    got = ernn.unpad_sequence(ernn.pad_sequence(e), ember.tensor(lengths))
    for a, b in zip(got, e):
        np.testing.assert_array_equal(_np(a), _np(b))


def test_packing_errors_match_torch():
    e, _ = _seqs([1, 3])
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        ernn.pack_sequence(e)
    with pytest.raises(RuntimeError, match="greater than 0"):
        ernn.pack_padded_sequence(ember.zeros((3, 2, 1)), [3, 0])
    with pytest.raises(ValueError, match="total_length"):
        ernn.pad_packed_sequence(ernn.pack_sequence(e, enforce_sorted=False), total_length=2)


def test_packed_sequence_methods():
    e, _ = _seqs([3, 1, 2])
    p = ernn.pack_sequence(e, enforce_sorted=False)
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert p.data is data and p.batch_sizes is batch_sizes
    q = p.to(ember.float32)
    assert q.data.dtype == ember.float32 and q.sorted_indices is p.sorted_indices
    assert type(q) is ernn.PackedSequence
    assert p.to(ember.float64) is p
    assert p.float().data.dtype == ember.float32 and p.double().data.dtype == ember.float64
    assert not p.is_cuda
    np.testing.assert_array_equal(_np(ernn.invert_permutation(ember.tensor([2, 0, 1]))), [1, 2, 0])
    assert ernn.invert_permutation(None) is None
    r = ernn.PackedSequence((data, batch_sizes), sorted_indices=sorted_indices)
    np.testing.assert_array_equal(_np(r.unsorted_indices), _np(unsorted_indices))
    assert ember.nn.utils.rnn.PackedSequence is ernn.PackedSequence


def _copy_weights(tm, em):
    for name, p in tm.named_parameters():
        with ember.no_grad():
            getattr(em, name).copy_(ember.tensor(p.detach().numpy()))


_LAYERS = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "num_layers": 2}), ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"proj_size": 2}),
    ("GRU", {}), ("GRU", {"bidirectional": True, "bias": False}), ("RNN", {"bidirectional": True, "num_layers": 2}),
    ("LSTM", {"batch_first": True}),
]


@pytest.mark.parametrize("name,kwargs", _LAYERS, ids=[f"{n}-{k}" for n, k in _LAYERS])
@pytest.mark.parametrize("with_state", [False, True])
def test_layer_on_packed_input_matches_torch(name, kwargs, with_state):
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(3, 4, dtype=torch.float64, **kwargs)
    em = getattr(enn, name)(3, 4, dtype=ember.float64, **kwargs)
    _copy_weights(tm, em)
    lengths = [2, 5, 1, 4]
    e, t = _seqs(lengths, grad=True)
    batch_first = kwargs.get("batch_first", False)
    pe = ernn.pack_padded_sequence(ernn.pad_sequence(e, batch_first=batch_first), lengths,
                                   batch_first=batch_first, enforce_sorted=False)
    pt = trnn.pack_padded_sequence(trnn.pad_sequence(t, batch_first=batch_first), lengths,
                                   batch_first=batch_first, enforce_sorted=False)
    layers = tm.num_layers * (2 if tm.bidirectional else 1)
    hx_e = hx_t = None
    if with_state:
        rng = np.random.default_rng(1)
        out_size = tm.proj_size or 4
        shapes = [(layers, 4, out_size)] + ([(layers, 4, 4)] if name == "LSTM" else [])
        arrs = [rng.standard_normal(s) for s in shapes]
        hx_e = [ember.tensor(a, requires_grad=True) for a in arrs]
        hx_t = [torch.tensor(a, requires_grad=True) for a in arrs]
        if name != "LSTM":
            hx_e, hx_t = hx_e[0], hx_t[0]
        else:
            hx_e, hx_t = tuple(hx_e), tuple(hx_t)
    out_e, h_e = em(pe, hx_e)
    out_t, h_t = tm(pt, hx_t)
    assert isinstance(out_e, ernn.PackedSequence)
    _same_packed_close(out_e, out_t)
    states_e = list(h_e) if name == "LSTM" else [h_e]
    states_t = list(h_t) if name == "LSTM" else [h_t]
    for a, b in zip(states_e, states_t):
        np.testing.assert_allclose(_np(a), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    # Gradients of a weighted sum of the packed output and the final states.
    rng = np.random.default_rng(2)
    w = rng.standard_normal(tuple(out_t.data.shape))
    loss_e = (out_e.data * ember.tensor(w)).sum() + sum((s * s).sum() for s in states_e)
    loss_t = (out_t.data * torch.tensor(w)).sum() + sum((s * s).sum() for s in states_t)
    loss_e.backward()
    loss_t.backward()
    for (n, p) in tm.named_parameters():
        np.testing.assert_allclose(_np(getattr(em, n).grad), p.grad.numpy(), rtol=1e-9, atol=1e-11, err_msg=n)
    for a, b in zip(e, t):
        np.testing.assert_allclose(_np(a.grad), b.grad.numpy(), rtol=1e-9, atol=1e-11)
    if with_state:
        for a, b in zip(hx_e if name == "LSTM" else [hx_e], hx_t if name == "LSTM" else [hx_t]):
            np.testing.assert_allclose(_np(a.grad), b.grad.numpy(), rtol=1e-9, atol=1e-11)


def _same_packed_close(e, t):
    np.testing.assert_allclose(_np(e.data), t.data.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(_np(e.batch_sizes), t.batch_sizes.numpy())
    np.testing.assert_array_equal(_np(e.unsorted_indices), t.unsorted_indices.numpy())


def test_packed_output_equals_per_sequence_runs():
    """Each sequence of a packed batch gets the output and final state it gets alone."""
    em = enn.GRU(3, 4, dtype=ember.float64, bidirectional=True)
    lengths = [3, 6, 2]
    e, _ = _seqs(lengths)
    out, h = em(ernn.pack_sequence(e, enforce_sorted=False))
    per_seq = ernn.unpack_sequence(out)
    for i, s in enumerate(e):
        o, hi = em(s.unsqueeze(1))
        np.testing.assert_allclose(_np(per_seq[i]), _np(o.squeeze(1)), rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(_np(h[:, i]), _np(hi[:, 0]), rtol=1e-12, atol=1e-13)


def test_packed_input_errors():
    em = enn.LSTM(3, 4, dtype=ember.float64)
    e, _ = _seqs([3, 2])
    p = ernn.pack_sequence(e)
    with pytest.raises(RuntimeError, match="Expected hidden\\[0\\] size"):
        em(p, (ember.zeros((1, 3, 4), dtype=ember.float64), ember.zeros((1, 3, 4), dtype=ember.float64)))
    with pytest.raises(ValueError, match="dtype"):
        em(p.float())
    with pytest.raises(RuntimeError, match="input_size"):
        enn.LSTM(2, 4, dtype=ember.float64)(p)
