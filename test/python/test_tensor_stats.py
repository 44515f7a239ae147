"""The statistics methods of ember/_tensor_stats.py (cov, corrcoef, quantile, nanquantile,
histogram, renorm, fill_diagonal_) against torch on the same inputs: values, gradients,
non-contiguous, empty and 0-d inputs, every dtype each accepts, and the errors."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def both(a, dtype=np.float64, grad=False):
    a = np.array(a, dtype=dtype)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def same(e, t, tol=1e-10):
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for x, y in zip(e, t):
            same(x, y, tol)
        return
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol,
                               equal_nan=True)


def raises_like(e_call, t_call, exc=Exception):
    with pytest.raises(Exception):
        t_call()
    with pytest.raises(exc):
        e_call()


def grads_match(e_fn, t_fn, e_inputs, t_inputs, tol=1e-10):
    eo, to = e_fn(*e_inputs), t_fn(*t_inputs)
    same(eo, to, tol)
    w = np.cos(np.arange(max(to.numel(), 1)))[: to.numel()].reshape(tuple(to.shape))
    (eo * ember.from_numpy(w.copy()).to(eo.dtype)).sum().backward()
    (to * torch.from_numpy(w.copy()).to(to.dtype)).sum().backward()
    for a, b in zip(e_inputs, t_inputs):
        if isinstance(b, torch.Tensor) and b.requires_grad:
            same(a.grad, b.grad, tol)


OBS = np.array([[0.5, -1.0, 2.0, 0.25, 3.0], [1.0, 0.0, -2.0, 4.0, 0.5], [2.0, 2.5, 1.0, -1.0, 0.0]])


# ---- cov, corrcoef --------------------------------------------------------------------------------

@pytest.mark.parametrize("correction", [1, 0, 2])
def test_cov(correction):
    e, t = both(OBS, grad=True)
    grads_match(lambda x: ember.cov(x, correction=correction), lambda x: torch.cov(x, correction=correction),
                [e], [t])
    fw = [1, 2, 1, 3, 1]
    aw = [0.5, 1.0, 2.0, 0.25, 1.5]
    ef, tf = both(fw, np.int64)
    ea, ta = both(aw, grad=True)
    e, t = both(OBS, grad=True)
    grads_match(lambda x, a: x.cov(correction=correction, fweights=ef, aweights=a),
                lambda x, a: x.cov(correction=correction, fweights=tf, aweights=a), [e, ea], [t, ta])
    e, t = both(OBS)
    same(ember.cov(e, fweights=ef), torch.cov(t, fweights=tf))
    same(ember.cov(e.t().contiguous().t()), torch.cov(t.t().contiguous().t()))  # non-contiguous
    same(ember.cov(e[0]), torch.cov(t[0]))  # 1-D: a 0-d variance
    same(ember.cov(e[:1]), torch.cov(t[:1]))


def test_cov_dtypes_and_edges():
    for dt in (np.float32, np.int64, np.complex128):
        e, t = both(OBS * (1 + 1j) if dt == np.complex128 else OBS * 2, dt)
        same(ember.cov(e), torch.cov(t), 1e-5)
    e, t = both(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(ember.cov(e), torch.cov(t))  # one observation: nan (0 degrees of freedom)
    e, t = both(OBS)
    raises_like(lambda: ember.cov(ember.ones(2, 2, 2)), lambda: torch.cov(torch.ones(2, 2, 2)), RuntimeError)
    raises_like(lambda: e.cov(fweights=ember.ones(5)), lambda: t.cov(fweights=torch.ones(5)), RuntimeError)
    raises_like(lambda: e.cov(fweights=ember.ones(4, dtype=ember.int64)),
                lambda: t.cov(fweights=torch.ones(4, dtype=torch.int64)), RuntimeError)
    raises_like(lambda: e.cov(aweights=-ember.ones(5, dtype=ember.float64)),
                lambda: t.cov(aweights=-torch.ones(5, dtype=torch.float64)), RuntimeError)
    raises_like(lambda: e.cov(aweights=ember.ones(5, dtype=ember.int64)),
                lambda: t.cov(aweights=torch.ones(5, dtype=torch.int64)), RuntimeError)


def test_corrcoef():
    e, t = both(OBS, grad=True)
    grads_match(ember.corrcoef, torch.corrcoef, [e], [t])
    e, t = both(OBS)
    same(e.t().contiguous().t().corrcoef(), t.t().contiguous().t().corrcoef())
    same(ember.corrcoef(e[1]), torch.corrcoef(t[1]))
    e, t = both(OBS * (1 - 0.5j), np.complex128)
    same(ember.corrcoef(e), torch.corrcoef(t))
    e, t = both(OBS, np.float32)
    same(ember.corrcoef(e), torch.corrcoef(t), 1e-5)
    e, t = both(OBS.astype(np.int64), np.int64)
    # (integers give float32, the default dtype: float32's tolerance; the summation order of
    # the CPU's vector width moves the last bit)
    same(ember.corrcoef(e), torch.corrcoef(t), 1e-6)


# ---- quantile, nanquantile -------------------------------------------------------------------------

DATA = np.array([[0.3, -1.0, 2.5, 0.7, 1.9, -0.2], [4.0, 0.1, -3.0, 2.2, 0.9, 1.4]])
INTERPOLATIONS = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_values_and_grads(name, interpolation):
    e, t = both(DATA, grad=True)
    eq, tq = both([0.0, 0.25, 0.5, 0.9, 1.0])
    for q_e, q_t in ((0.4, 0.4), (eq, tq), (ember.tensor(0.3, dtype=ember.float64),
                                             torch.tensor(0.3, dtype=torch.float64))):
        for dim, keepdim in ((None, False), (None, True), (1, False), (0, True), (-1, True)):
            e.grad = None
            t.grad = None
            grads_match(lambda x: getattr(ember, name)(x, q_e, dim, keepdim, interpolation=interpolation),
                        lambda x: getattr(torch, name)(x, q_t, dim, keepdim, interpolation=interpolation),
                        [e], [t])
    e, t = both(DATA)
    same(getattr(e.t(), name)(eq, 0, interpolation=interpolation),
         getattr(t.t(), name)(tq, 0, interpolation=interpolation))
    e, t = both(DATA, np.float32)
    same(getattr(e, name)(0.6, 1), getattr(t, name)(0.6, 1), 1e-6)
    e, t = both(2.5)
    same(getattr(e, name)(0.5), getattr(t, name)(0.5))
    same(getattr(e, name)(0.5, 0, True), getattr(t, name)(0.5, 0, True))


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_quantile_nan(interpolation):
    data = DATA.copy()
    data[0, 2] = np.nan
    data[1] = np.nan
    e, t = both(data)
    for name in ("quantile", "nanquantile"):
        for dim in (None, 0, 1):
            same(getattr(ember, name)(e, 0.3, dim, interpolation=interpolation),
                 getattr(torch, name)(t, 0.3, dim, interpolation=interpolation))


def test_quantile_errors():
    e, t = both(DATA)
    for name in ("quantile", "nanquantile"):
        raises_like(lambda: getattr(e, name)(1.5), lambda: getattr(t, name)(1.5), RuntimeError)
        raises_like(lambda: getattr(e, name)(ember.tensor([0.5, 2.0], dtype=ember.float64)),
                    lambda: getattr(t, name)(torch.tensor([0.5, 2.0], dtype=torch.float64)), RuntimeError)
        raises_like(lambda: getattr(e, name)(ember.tensor([0.5])), lambda: getattr(t, name)(torch.tensor([0.5])),
                    RuntimeError)  # q of another dtype
        raises_like(lambda: getattr(e, name)(ember.ones(2, 2, dtype=ember.float64) / 2),
                    lambda: getattr(t, name)(torch.ones(2, 2, dtype=torch.float64) / 2), RuntimeError)
        raises_like(lambda: getattr(e, name)(0.5, interpolation="cubic"),
                    lambda: getattr(t, name)(0.5, interpolation="cubic"), RuntimeError)
        raises_like(lambda: getattr(ember.zeros(0), name)(0.5), lambda: getattr(torch.zeros(0), name)(0.5),
                    RuntimeError)
        raises_like(lambda: getattr(ember.ones(3, dtype=ember.int64), name)(0.5),
                    lambda: getattr(torch.ones(3, dtype=torch.int64), name)(0.5), RuntimeError)
        raises_like(lambda: getattr(e, name)(0.5, 2), lambda: getattr(t, name)(0.5, 2), IndexError)


# ---- histogram ---------------------------------------------------------------------------------------

HIST = np.array([[0.1, 2.5, -1.0, 3.0], [0.7, 0.7, 1.9, -0.4]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram(dtype):
    e, t = both(HIST, dtype)
    ew, tw = both(np.abs(HIST) + 0.5, dtype)
    for kwargs in ({}, {"range": (-0.5, 2.0)}, {"density": True}, {"range": (0.0, 3.0), "density": True}):
        for bins in (1, 4, 7):
            same(ember.histogram(e, bins, **kwargs), torch.histogram(t, bins, **kwargs), 1e-6)
            same(e.t().histogram(bins, weight=ew.t(), **kwargs),
                 t.t().histogram(bins, weight=tw.t(), **kwargs), 1e-6)
    eb, tb = both([-1.0, 0.0, 0.7, 1.0, 3.0], dtype)
    same(ember.histogram(e, eb), torch.histogram(t, tb), 1e-6)
    same(ember.histogram(e, eb, weight=ew, density=True), torch.histogram(t, tb, weight=tw, density=True), 1e-6)
    r = e.histogram(3)
    assert type(r).__name__ == "histogram" and r.hist is r[0] and r.bin_edges is r[1]


def test_histogram_edges_and_errors():
    for data in ([1.0, 1.0, 1.0], [], 2.0, [np.nan, 1.0, 2.0]):
        e, t = both(data)
        if np.isnan(np.asarray(data, dtype=float)).any():
            same(ember.histogram(e, 3, range=(0.0, 2.0)), torch.histogram(t, 3, range=(0.0, 2.0)))
            continue
        same(ember.histogram(e, 3), torch.histogram(t, 3))
    e, t = both(HIST)
    raises_like(lambda: e.histogram(0), lambda: t.histogram(0), RuntimeError)
    raises_like(lambda: e.histogram(3, range=(2.0, 1.0)), lambda: t.histogram(3, range=(2.0, 1.0)), RuntimeError)
    raises_like(lambda: e.histogram(3, weight=ember.ones(3, dtype=ember.float64)),
                lambda: t.histogram(3, weight=torch.ones(3, dtype=torch.float64)), RuntimeError)
    raises_like(lambda: ember.ones(3, dtype=ember.int64).histogram(2),
                lambda: torch.ones(3, dtype=torch.int64).histogram(2), RuntimeError)
    raises_like(lambda: e.histogram(ember.ones(2, 2, dtype=ember.float64)),
                lambda: t.histogram(torch.ones(2, 2, dtype=torch.float64)), RuntimeError)


# ---- renorm ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 2.0), (3.5, -1, 0.5), (2, 2, 10.0)])
def test_renorm(p, dim, maxnorm):
    data = np.sin(np.arange(24.0)).reshape(2, 3, 4) * 3
    e, t = both(data, grad=True)
    grads_match(lambda x: x.renorm(p, dim, maxnorm), lambda x: x.renorm(p, dim, maxnorm), [e], [t])
    e, t = both(data)
    same(ember.renorm(e.transpose(0, 2), p, dim, maxnorm), torch.renorm(t.transpose(0, 2), p, dim, maxnorm))
    same(e.renorm_(p, dim, maxnorm), t.renorm_(p, dim, maxnorm))
    same(e, t)
    e, t = both(data, np.float32)
    same(e.renorm(p, dim, maxnorm), t.renorm(p, dim, maxnorm), 1e-5)


def test_renorm_empty_and_errors():
    e, t = both(np.zeros((0, 3)))
    same(e.renorm(2, 1, 1.0), t.renorm(2, 1, 1.0))
    e, t = both(np.ones((2, 3)))
    raises_like(lambda: e.renorm(0, 0, 1.0), lambda: t.renorm(0, 0, 1.0), RuntimeError)
    raises_like(lambda: e.renorm(2, 0, -1.0), lambda: t.renorm(2, 0, -1.0), RuntimeError)
    raises_like(lambda: e[0].renorm(2, 0, 1.0), lambda: t[0].renorm(2, 0, 1.0), RuntimeError)
    raises_like(lambda: ember.ones(2, 2, dtype=ember.int64).renorm(2, 0, 1.0),
                lambda: torch.ones(2, 2, dtype=torch.int64).renorm(2, 0, 1.0), RuntimeError)


# ---- fill_diagonal_ ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (7, 3), (8, 2), (3, 3, 3), (2, 2, 2, 2), (0, 3), (1, 1)])
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal(shape, wrap):
    for dt in (np.float64, np.int64, np.bool_):
        e, t = both(np.zeros(shape), dt)
        same(e.fill_diagonal_(1, wrap=wrap), t.fill_diagonal_(1, wrap=wrap))
    if len(shape) == 2:  # a non-contiguous self
        e, t = both(np.zeros(shape[::-1]))
        same(e.t().fill_diagonal_(2.5), t.t().fill_diagonal_(2.5))
        same(e, t)


def test_fill_diagonal_grad_and_errors():
    e, t = both(np.ones((3, 4)), grad=True)
    grads_match(lambda x: (x * 2).fill_diagonal_(0.5), lambda x: (x * 2).fill_diagonal_(0.5), [e], [t])
    raises_like(lambda: ember.zeros(3).fill_diagonal_(1), lambda: torch.zeros(3).fill_diagonal_(1), RuntimeError)
    raises_like(lambda: ember.zeros(2, 3, 2).fill_diagonal_(1), lambda: torch.zeros(2, 3, 2).fill_diagonal_(1),
                RuntimeError)
