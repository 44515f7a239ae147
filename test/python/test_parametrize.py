"""ember.nn.utils.parametrize, nn.utils.parametrizations (weight_norm, spectral_norm,
orthogonal) and the legacy weight_norm / spectral_norm hooks, against torch with the same
weights: values, gradients, state_dict keys and the module surgery."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.utils.parametrizations as TPZ
import torch.nn.utils.parametrize as TP

import ember
import ember.nn as enn
import ember.nn.utils.parametrizations as EPZ
import ember.nn.utils.parametrize as EP


def _np(t):
    return t.detach().numpy()


def _e(t):
    return ember.tensor(t.detach().numpy())


def _linear_pair(shape=(4, 3), conv=False):
    torch.manual_seed(0)
    if conv:
        t = torch.nn.Conv2d(2, 3, 3).double()
        e = enn.Conv2d(2, 3, 3).double()
    else:
        t = torch.nn.Linear(shape[1], shape[0]).double()
        e = enn.Linear(shape[1], shape[0]).double()
    with ember.no_grad():
        e.weight.copy_(_e(t.weight))
        e.bias.copy_(_e(t.bias))
    return e, t


def _inputs(shape):
    x = np.random.default_rng(1).standard_normal(shape)
    return ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


def _check_forward_backward(e, t, shape, leaves):
    """Same output and gradients (input and the named leaves) for e and t."""
    xe, xt = _inputs(shape)
    ye, yt = e(xe), t(xt)
    np.testing.assert_allclose(_np(ye), _np(yt), rtol=1e-10, atol=1e-12)
    (ye * ye).sum().backward()
    (yt * yt).sum().backward()
    np.testing.assert_allclose(_np(xe.grad), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    for getter in leaves:
        np.testing.assert_allclose(_np(getter(e).grad), getter(t).grad.numpy(), rtol=1e-9, atol=1e-12)


class _Symmetric:
    """Factory of the same parametrization class for either library."""

    @staticmethod
    def make(nn):
        class Symmetric(nn.Module):
            def forward(self, X):
                return X.triu() + X.triu(1).mT

            def right_inverse(self, A):
                return A.triu()

        return Symmetric()


def _scale(nn, lib):
    class Scale(nn.Module):
        def forward(self, X):
            return X * 2.0

        def right_inverse(self, A):
            return A / 2.0

    return Scale()


def test_register_parametrization_values_gradients_and_surgery():
    e, t = _linear_pair((3, 3))
    EP.register_parametrization(e, "weight", _Symmetric.make(enn))
    TP.register_parametrization(t, "weight", _Symmetric.make(torch.nn))
    assert type(e).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert isinstance(e, enn.Linear) and EP.type_before_parametrizations(e) is enn.Linear
    assert EP.is_parametrized(e) and EP.is_parametrized(e, "weight") and not EP.is_parametrized(e, "bias")
    assert list(e.state_dict()) == list(t.state_dict())
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    np.testing.assert_allclose(_np(e.weight), _np(t.weight), rtol=1e-12)
    _check_forward_backward(e, t, (5, 3), [lambda m: m.parametrizations.weight.original, lambda m: m.bias])
    # A second parametrization chains after the first.
    EP.register_parametrization(e, "weight", _scale(enn, ember))
    TP.register_parametrization(t, "weight", _scale(torch.nn, torch))
    np.testing.assert_allclose(_np(e.weight), _np(t.weight), rtol=1e-12)
    assert len(e.parametrizations.weight) == 2
    # Assigning goes through the right inverses, into the same original tensor.
    original = e.parametrizations.weight.original
    a = np.arange(9.0).reshape(3, 3)
    a = a + a.T
    e.weight = ember.tensor(a)
    t.weight = torch.tensor(a)
    assert e.parametrizations.weight.original is original
    np.testing.assert_allclose(_np(e.weight), a, rtol=1e-12)
    np.testing.assert_allclose(_np(original), _np(t.parametrizations.weight.original), rtol=1e-12)


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_remove_parametrizations(leave_parametrized):
    e, t = _linear_pair((3, 3))
    EP.register_parametrization(e, "weight", _scale(enn, ember))
    TP.register_parametrization(t, "weight", _scale(torch.nn, torch))
    EP.remove_parametrizations(e, "weight", leave_parametrized=leave_parametrized)
    TP.remove_parametrizations(t, "weight", leave_parametrized=leave_parametrized)
    assert type(e) is enn.Linear and not EP.is_parametrized(e)
    assert list(e.state_dict()) == list(t.state_dict()) == ["bias", "weight"]
    assert isinstance(e.weight, enn.Parameter)
    np.testing.assert_allclose(_np(e.weight), _np(t.weight), rtol=1e-12)


def test_parametrize_errors_match_torch():
    class Grow(enn.Module):
        def forward(self, X):
            return ember.cat([X, X], 0)

    class TGrow(torch.nn.Module):
        def forward(self, X):
            return torch.cat([X, X], 0)

    e, t = _linear_pair()
    with pytest.raises(ValueError, match="may not change the shape"):
        TP.register_parametrization(t, "weight", TGrow())
    with pytest.raises(ValueError, match="may not change the shape"):
        EP.register_parametrization(e, "weight", Grow())
    # unsafe allows it.
    EP.register_parametrization(e, "weight", Grow(), unsafe=True)
    assert tuple(e.weight.shape) == (8, 3)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        EP.register_parametrization(e, "nope", Grow())
    with pytest.raises(ValueError, match="does not have a parametrization on bias"):
        EP.remove_parametrizations(e, "bias")
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        e.weight = ember.zeros((8, 3), dtype=ember.float64)


def test_cached_computes_each_parametrization_once():
    calls = []

    class Counted(enn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 3

    e, _ = _linear_pair()
    EP.register_parametrization(e, "weight", Counted())
    calls.clear()
    with EP.cached():
        a, b = e.weight, e.weight
        assert a is b
        with EP.cached():
            assert e.weight is a
    assert len(calls) == 1
    c = e.weight
    assert c is not a and len(calls) == 2


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_parametrization_matches_torch(dim):
    e, t = _linear_pair()
    EPZ.weight_norm(e, dim=dim)
    TPZ.weight_norm(t, dim=dim)
    assert list(e.state_dict()) == list(t.state_dict())
    for k in ("original0", "original1"):
        np.testing.assert_allclose(_np(getattr(e.parametrizations.weight, k)),
                                   _np(getattr(t.parametrizations.weight, k)), rtol=1e-12)
    _check_forward_backward(e, t, (5, 3), [lambda m: m.parametrizations.weight.original0,
                                           lambda m: m.parametrizations.weight.original1])


def test_weight_norm_parametrization_loads_legacy_state_dict():
    _, t = _linear_pair()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(t)
    legacy = {k: _e(v) for k, v in t.state_dict().items()}
    e = EPZ.weight_norm(enn.Linear(3, 4).double())
    e.load_state_dict(legacy)
    np.testing.assert_allclose(_np(e.weight), _np(t.weight), rtol=1e-12)


@pytest.mark.parametrize("conv", [False, True])
@pytest.mark.parametrize("training", [True, False])
def test_spectral_norm_parametrization_matches_torch_with_same_u_v(conv, training):
    e, t = _linear_pair(conv=conv)
    EPZ.spectral_norm(e)
    TPZ.spectral_norm(t)
    assert list(e.state_dict()) == list(t.state_dict())
    sn_e, sn_t = e.parametrizations.weight[0], t.parametrizations.weight[0]
    with ember.no_grad():
        sn_e._u.copy_(_e(sn_t._u))
        sn_e._v.copy_(_e(sn_t._v))
    e.train(training)
    t.train(training)
    shape = (2, 2, 5, 5) if conv else (5, 3)
    _check_forward_backward(e, t, shape, [lambda m: m.parametrizations.weight.original, lambda m: m.bias])
    np.testing.assert_allclose(_np(sn_e._u), _np(sn_t._u), rtol=1e-10)
    np.testing.assert_allclose(_np(sn_e._v), _np(sn_t._v), rtol=1e-10)


def test_spectral_norm_converges_to_unit_spectral_norm():
    ember.manual_seed(0)
    e = EPZ.spectral_norm(enn.Linear(6, 5).double(), n_power_iterations=200)
    w = e.weight
    np.testing.assert_allclose(float(ember.linalg.svdvals(w.detach())[0]), 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        EPZ.spectral_norm(enn.Linear(2, 2), n_power_iterations=0)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_orthogonal_matches_torch_with_same_originals(orthogonal_map, shape):
    e, t = _linear_pair(shape)
    EPZ.orthogonal(e, orthogonal_map=orthogonal_map)
    TPZ.orthogonal(t, orthogonal_map=orthogonal_map)
    pe, pt = e.parametrizations.weight, t.parametrizations.weight
    with ember.no_grad():
        pe.original.copy_(_e(pt.original))
    pe[0].base = _e(pt[0].base)
    np.testing.assert_allclose(_np(e.weight), _np(t.weight), rtol=1e-9, atol=1e-12)
    w = _np(e.weight)
    gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-10)
    _check_forward_backward(e, t, (2, shape[1]), [lambda m: m.parametrizations.weight.original])


def test_orthogonal_assignment_and_errors():
    e = EPZ.orthogonal(enn.Linear(3, 3).double())
    q = np.linalg.qr(np.random.default_rng(0).standard_normal((3, 3)))[0]
    e.weight = ember.tensor(q)
    np.testing.assert_allclose(_np(e.weight), q, atol=1e-10)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        EPZ.orthogonal(enn.Linear(3, 3), "bias")
    with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
        EPZ.orthogonal(enn.Linear(3, 3), orthogonal_map="qr")


@pytest.mark.parametrize("dim", [0, 1, None])
def test_legacy_weight_norm_matches_torch(dim):
    e, t = _linear_pair()
    with pytest.warns(FutureWarning, match="deprecated"):
        enn.utils.weight_norm(e, dim=dim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(t, dim=dim)
    assert list(e.state_dict()) == list(t.state_dict())
    _check_forward_backward(e, t, (5, 3), [lambda m: m.weight_g, lambda m: m.weight_v])
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            enn.utils.weight_norm(e, dim=dim)
    enn.utils.remove_weight_norm(e)
    torch.nn.utils.remove_weight_norm(t)
    assert list(e.state_dict()) == list(t.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(_np(e.weight), _np(t.weight), rtol=1e-12)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        enn.utils.remove_weight_norm(e)


@pytest.mark.parametrize("training", [True, False])
def test_legacy_spectral_norm_matches_torch_with_same_u_v(training):
    e, t = _linear_pair()
    enn.utils.spectral_norm(e, n_power_iterations=2)
    torch.nn.utils.spectral_norm(t, n_power_iterations=2)
    assert list(e.state_dict()) == list(t.state_dict())
    with ember.no_grad():
        e.weight_u.copy_(_e(t.weight_u))
        e.weight_v.copy_(_e(t.weight_v))
    e.train(training)
    t.train(training)
    _check_forward_backward(e, t, (5, 3), [lambda m: m.weight_orig, lambda m: m.bias])
    np.testing.assert_allclose(_np(e.weight_u), _np(t.weight_u), rtol=1e-10)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        enn.utils.spectral_norm(e)
    enn.utils.remove_spectral_norm(e)
    torch.nn.utils.remove_spectral_norm(t)
    assert list(e.state_dict()) == list(t.state_dict())
    np.testing.assert_allclose(_np(e.weight), _np(t.weight), rtol=1e-10)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        enn.utils.remove_spectral_norm(e)
