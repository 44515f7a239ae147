"""ember.special against torch.special: the aliases, and the compositions' values and
gradients (float32/float64, broadcast, non-contiguous, empty, 0-d), with their errors."""
import numpy as np
import pytest

import ember
import ember.special as es

torch = pytest.importorskip("torch")
ts = torch.special

ALIASES = ["digamma", "psi", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln",
           "log1p", "logit", "round", "ndtr", "ndtri", "sinc", "entr"]


def pair(a, dtype=np.float64, grad=False):
    e = ember.from_numpy(np.array(a, dtype=dtype))
    t = torch.from_numpy(np.array(a, dtype=dtype))
    if grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def close(e, t, tol):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("name", ALIASES)
@pytest.mark.parametrize("dtype,tol", [(np.float32, 2e-6), (np.float64, 1e-12)])
def test_unary_values(name, dtype, tol):
    rng = np.random.default_rng(0)
    x = rng.uniform(0.05, 0.95, (3, 4)) if name in ("ndtri", "logit", "erfinv") else rng.normal(0, 2, (3, 4))
    if name in ("digamma", "psi", "gammaln"):
        x = np.abs(x) + 0.1
    if name == "sinc":
        x[0, 0] = 0.0
    e, t = pair(x, dtype)
    close(getattr(es, name)(e), getattr(ts, name)(t), tol)
    # non-contiguous, empty, 0-d
    close(getattr(es, name)(e.t()), getattr(ts, name)(t.t()), tol)
    close(getattr(es, name)(e[:0]), getattr(ts, name)(t[:0]), tol)
    close(getattr(es, name)(e[1, 2]), getattr(ts, name)(t[1, 2]), tol)


@pytest.mark.parametrize("name", ["ndtr", "ndtri", "sinc", "entr"])
def test_unary_gradients(name):
    rng = np.random.default_rng(1)
    x = rng.uniform(0.05, 0.95, (5,)) if name in ("ndtri", "entr") else rng.normal(0, 2, (5,))
    if name == "sinc":
        x[2] = 0.0
    e, t = pair(x, grad=True)
    getattr(es, name)(e).sum().backward()
    getattr(ts, name)(t).sum().backward()
    close(e.grad, t.grad, 1e-10)


def test_edge_values():
    e, t = pair([0.0, -1.0, 2.0, float("nan"), float("inf")])
    close(es.entr(e), ts.entr(t), 0)
    e, t = pair([0.0, 1.0, -0.5, 1.5, 0.5])
    close(es.ndtri(e), ts.ndtri(t), 1e-12)
    e, t = pair([0.0, 1e-9, -3.0, 3.5])
    close(es.sinc(e), ts.sinc(t), 1e-12)
    # integer input computes in the default dtype
    ei, ti = ember.tensor([0, 1, 2]), torch.tensor([0, 1, 2])
    assert es.ndtr(ei).dtype == ember.float32 and ts.ndtr(ti).dtype == torch.float32
    close(es.sinc(ei), ts.sinc(ti), 1e-7)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_binary(name):
    x = np.array([[0.0, 1.0, 2.0, 0.0], [3.0, -1.0, 0.0, 0.5]])
    y = np.array([0.0, 2.0, float("nan"), 0.5])  # broadcast over rows
    (ex, tx), (ey, ty) = pair(x), pair(y)
    close(getattr(es, name)(ex, ey), getattr(ts, name)(tx, ty), 1e-12)
    close(getattr(es, name)(ex.t(), 2.5), getattr(ts, name)(tx.t(), 2.5), 1e-12)
    close(getattr(es, name)(3.0, ey), getattr(ts, name)(3.0, ty), 1e-12)
    # gradients where both are defined (y > 0), and the x == 0 gradient of x: log(y) * 0
    (ex, tx), (ey, ty) = pair([0.0, 1.5, -2.0], grad=True), pair([0.5, 2.0, 3.0], grad=True)
    getattr(es, name)(ex, ey).sum().backward()
    getattr(ts, name)(tx, ty).sum().backward()
    close(ex.grad, tx.grad, 1e-12)
    close(ey.grad, ty.grad, 1e-12)
    with pytest.raises(TypeError, match=name):
        getattr(es, name)(1.0, 2.0)


def test_multigammaln():
    e, t = pair([[2.5, 3.0], [4.0, 10.0]], grad=True)
    for p in (1, 2, 4):
        close(es.multigammaln(e, p), ts.multigammaln(t, p), 1e-12)
    es.multigammaln(e, 3).sum().backward()
    ts.multigammaln(t, 3).sum().backward()
    close(e.grad, t.grad, 1e-12)
    # torch 2.13 no longer refuses elements outside the domain: the sum's value.
    close(es.multigammaln(ember.tensor([0.4, 0.75]), 2), ts.multigammaln(torch.tensor([0.4, 0.75]), 2), 1e-6)
    with pytest.raises(RuntimeError, match="'p'"):
        es.multigammaln(ember.tensor([3.0]), 0)


def test_softmax_family():
    e, t = pair(np.random.default_rng(2).normal(size=(3, 4)), np.float32)
    close(es.softmax(e, 1), ts.softmax(t, 1), 1e-6)
    close(es.log_softmax(e, 0, dtype=ember.float64), ts.log_softmax(t, 0, dtype=torch.float64), 1e-6)
    close(es.logsumexp(e, 1), ts.logsumexp(t, 1), 1e-6)


def test_complex_refused():
    with pytest.raises(NotImplementedError, match="ndtr"):
        es.ndtr(ember.tensor([1 + 1j]))


def test_binary_dtypes():
    ei, ti = ember.tensor([0, 1, 3]), torch.tensor([0, 1, 3])
    for other in (2.5, 0):
        r, q = es.xlogy(ei, other), ts.xlogy(ti, other)
        assert str(r.dtype).split(".")[-1] == str(q.dtype).split(".")[-1]
        close(r, q, 1e-6)
    ef, tf = ember.tensor([1.0, 2.0], dtype=ember.float64), torch.tensor([1.0, 2.0], dtype=torch.float64)
    assert es.xlogy(ef, ember.tensor([2.0, 3.0])).dtype == ember.float64
    close(es.xlogy(ef, ember.tensor([2.0, 3.0])), ts.xlogy(tf, torch.tensor([2.0, 3.0])), 1e-7)
