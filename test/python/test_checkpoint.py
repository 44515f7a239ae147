"""ember.utils.checkpoint: gradients equal the unchecked ones (and torch's), the function
runs once in forward and once more in backward, RNG state is replayed for the recompute."""
import warnings

import numpy as np
import pytest
import torch
import torch.utils.checkpoint as tcp

import ember
import ember.nn as enn
from ember.utils import checkpoint as ecp


def _np(t):
    return t.detach().numpy()


class _Counted:
    """fn(x, y) = exp(sin(x) * w) + y * w, counting its calls; w is a closed-over leaf."""

    def __init__(self, lib, w):
        self.lib, self.w, self.calls = lib, w, 0

    def __call__(self, x, y, scale=1.0):
        self.calls += 1
        return (self.lib.exp(self.lib.sin(x) * self.w) + y * self.w) * scale


def _inputs(lib, grad_y=True):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    y = lib.tensor(rng.standard_normal((3, 4)), requires_grad=grad_y)
    w = lib.tensor(rng.standard_normal(4), requires_grad=True)
    return x, y, w


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_gradients_match_unchecked_and_torch(use_reentrant):
    x, y, w = _inputs(ember)
    fn = _Counted(ember, w)
    out = ecp.checkpoint(fn, x, y, use_reentrant=use_reentrant)
    assert fn.calls == 1
    assert out.requires_grad
    (out * out).sum().backward()
    assert fn.calls == 2
    # The same computation without checkpointing.
    x2, y2, w2 = _inputs(ember)
    ref = _Counted(ember, w2)(x2, y2)
    np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-12)
    (ref * ref).sum().backward()
    for a, b in ((x, x2), (y, y2), (w, w2)):
        np.testing.assert_allclose(_np(a.grad), _np(b.grad), rtol=1e-12)
    # And torch's checkpoint.
    tx, ty, tw = _inputs(torch)
    tout = tcp.checkpoint(_Counted(torch, tw), tx, ty, use_reentrant=use_reentrant)
    (tout * tout).sum().backward()
    for a, b in ((x, tx), (y, ty), (w, tw)):
        np.testing.assert_allclose(_np(a.grad), b.grad.numpy(), rtol=1e-10)


def test_default_use_reentrant_warns_and_is_reentrant_like_torch():
    x, y, w = _inputs(ember)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        out = ecp.checkpoint(_Counted(ember, w), x, y)
    out.sum().backward()
    assert x.grad is not None
    # Reentrant mode rejects keyword arguments, as torch does.
    tx, ty, tw = _inputs(torch)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        tcp.checkpoint(_Counted(torch, tw), tx, ty, use_reentrant=True, scale=2.0)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        ecp.checkpoint(_Counted(ember, w), x, y, use_reentrant=True, scale=2.0)


def test_non_reentrant_kwargs_and_inputs_without_grad():
    x, y, w = _inputs(ember, grad_y=False)
    x.requires_grad_(False)
    fn = _Counted(ember, w)
    out = ecp.checkpoint(fn, x, y, use_reentrant=False, scale=2.0)
    out.sum().backward()
    assert fn.calls == 2
    tx, ty, tw = _inputs(torch, grad_y=False)
    tx.requires_grad_(False)
    tcp.checkpoint(_Counted(torch, tw), tx, ty, use_reentrant=False, scale=2.0).sum().backward()
    np.testing.assert_allclose(_np(w.grad), tw.grad.numpy(), rtol=1e-10)
    # Reentrant with no input requiring grad: torch warns and parameters get no gradient.
    x, y, w = _inputs(ember, grad_y=False)
    x.requires_grad_(False)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        out = ecp.checkpoint(_Counted(ember, w), x, y, use_reentrant=True)
    assert not out.requires_grad


def test_no_grad_mode_runs_once_without_graph():
    x, y, w = _inputs(ember)
    fn = _Counted(ember, w)
    with ember.no_grad():
        out = ecp.checkpoint(fn, x, y, use_reentrant=False)
    assert fn.calls == 1 and not out.requires_grad


def test_non_tensor_arguments_and_tuple_outputs():
    x, _, w = _inputs(ember)

    def fn(a, power, b):
        return a.pow(power) * w, b * w

    b = ember.tensor([1.0, 2.0, 3.0, 4.0], dtype=ember.float64, requires_grad=True)
    p, q = ecp.checkpoint(fn, x, 3, b, use_reentrant=True)
    (p.sum() + (q * q).sum()).backward()
    tx, _, tw = _inputs(torch)
    tb = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64, requires_grad=True)
    tp, tq = tx.pow(3) * tw, tb * tw
    (tp.sum() + (tq * tq).sum()).backward()
    for a, t in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(_np(a.grad), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_preserve_rng_state_replays_dropout(use_reentrant):
    x = ember.ones((200,), dtype=ember.float64, requires_grad=True)
    ember.manual_seed(0)

    def fn(a):
        return ember.nn.functional.dropout(a, 0.5, True) * 3

    out = ecp.checkpoint(fn, x, use_reentrant=use_reentrant)
    out.sum().backward()
    # out = mask * 2 * 3 for x = 1, and so is the gradient when the recompute drew the same mask.
    np.testing.assert_array_equal(_np(x.grad), _np(out))
    assert 0 < int((x.grad == 0).sum()) < 200


def test_without_preserved_rng_state_the_recompute_draws_a_new_mask():
    x = ember.ones((200,), dtype=ember.float64, requires_grad=True)
    ember.manual_seed(0)

    def fn(a):
        return ember.nn.functional.dropout(a, 0.5, True)

    out = ecp.checkpoint(fn, x, use_reentrant=False, preserve_rng_state=False)
    out.sum().backward()
    assert not np.array_equal(_np(x.grad), _np(out))


@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential_matches_torch(use_reentrant, segments):
    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 5), torch.nn.Sigmoid(),
                                 torch.nn.Linear(5, 2)).double()
    emodel = enn.Sequential(enn.Linear(4, 5), enn.Tanh(), enn.Linear(5, 5), enn.Sigmoid(), enn.Linear(5, 2)).double()
    for (n, p) in tmodel.named_parameters():
        with ember.no_grad():
            dict(emodel.named_parameters())[n].copy_(ember.tensor(p.detach().numpy()))
    rng = np.random.default_rng(1)
    data = rng.standard_normal((6, 4))
    ex, tx = ember.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    eo = ecp.checkpoint_sequential(emodel, segments, ex, use_reentrant=use_reentrant)
    to = tcp.checkpoint_sequential(tmodel, segments, tx, use_reentrant=use_reentrant)
    np.testing.assert_allclose(_np(eo), to.detach().numpy(), rtol=1e-12)
    (eo ** 2).sum().backward()
    (to ** 2).sum().backward()
    np.testing.assert_allclose(_np(ex.grad), tx.grad.numpy(), rtol=1e-10)
    for (n, p) in tmodel.named_parameters():
        np.testing.assert_allclose(_np(dict(emodel.named_parameters())[n].grad), p.grad.numpy(), rtol=1e-10)


def test_checkpoint_sequential_counts_and_warnings():
    calls = []

    def make(i):
        def f(x):
            calls.append(i)
            return x * 2
        return f

    x = ember.ones(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ecp.checkpoint_sequential([make(i) for i in range(4)], 2, x, use_reentrant=False)
    assert calls == [0, 1, 2, 3]
    out.sum().backward()
    # Only the checkpointed first segment runs again.
    assert calls == [0, 1, 2, 3, 0, 1]
    np.testing.assert_allclose(_np(x.grad), [16.0] * 3)
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant"):
        ecp.checkpoint_sequential([make(0)], 1, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments"):
        ecp.checkpoint_sequential([make(0)], 1, x, use_reentrant=True, foo=1)
