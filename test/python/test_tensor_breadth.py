"""The Tensor methods of ember/_tensor_breadth.py against torch on the same inputs: in-place
view ops, the *_scatter embeddings, random fills (moments and seeding, not torch's stream),
complex accessors, in-place composites, index_reduce, nextafter, frexp, hash_tensor,
as_subclass, hardshrink and prelu; values, gradients, non-contiguous, broadcast, empty and 0-d inputs, errors."""
import math

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "int64": np.int64,
          "int32": np.int32, "bool": np.bool_, "complex64": np.complex64, "complex128": np.complex128,
          "uint8": np.uint8, "int16": np.int16, "int8": np.int8}


def both(a, dtype=np.float64, grad=False):
    a = np.array(a, dtype=dtype)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def same(e, t, tol=1e-12):
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for x, y in zip(e, t):
            same(x, y, tol)
        return
    if not isinstance(t, torch.Tensor):
        assert e == t
        return
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol,
                               equal_nan=True)


def raises_like(e_call, t_call, exc=Exception):
    """Both calls raise (ember with exc)."""
    with pytest.raises(Exception):
        t_call()
    with pytest.raises(exc):
        e_call()


X = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7 - 1


# ---- in-place view ops ------------------------------------------------------------------------

@pytest.mark.parametrize("name,args", [
    ("t_", ()), ("transpose_", (0, 2)), ("swapaxes_", (1, -1)), ("swapdims_", (0, 1)),
    ("squeeze_", ()), ("squeeze_", (1,)), ("squeeze_", ((0, 1),)), ("unsqueeze_", (1,)),
    ("unsqueeze_", (-1,)),
])
def test_inplace_views(name, args):
    base = {"t_": X[0], "squeeze_": X.reshape(2, 1, 3, 1, 4)}.get(name, X)
    for transposed in (False, True):  # contiguous and not
        e, t = both(base)
        if transposed:
            e, t = e.transpose(0, -1), t.transpose(0, -1)
        ptr = e.data_ptr()
        if name == "squeeze_" and args == ((0, 1),):
            args = ((1, 3),)
        assert getattr(e, name)(*args) is e
        getattr(t, name)(*args)
        same(e, t)
        assert e.stride() == t.stride() and e.data_ptr() == ptr


def test_inplace_view_shares_storage_and_keeps_other_views():
    e = ember.arange(6.0).view(2, 3)
    alias = e.view(2, 3)
    ptr = e.data_ptr()
    e.t_()
    assert tuple(e.shape) == (3, 2) and e.data_ptr() == ptr
    assert tuple(alias.shape) == (2, 3)  # another view's geometry is its own
    e[0, 1] = 100.0
    assert alias[1, 0].item() == 100.0


def test_inplace_view_0d_and_empty():
    for name, args in (("t_", ()), ("squeeze_", ()), ("unsqueeze_", (0,))):
        e, t = both(3.5)
        same(getattr(e, name)(*args), getattr(t, name)(*args))
        e, t = both(np.zeros((0, 1)))
        same(getattr(e, name)(*args), getattr(t, name)(*args))


def test_inplace_view_errors():
    e, t = both(X)
    raises_like(lambda: e.t_(), lambda: t.t_())
    raises_like(lambda: e.transpose_(0, 5), lambda: t.transpose_(0, 5), IndexError)
    e, t = both(X[0], grad=True)
    raises_like(lambda: e.t_(), lambda: t.t_(), RuntimeError)  # a leaf that requires grad
    raises_like(lambda: e.as_strided_((2,), (1,)), lambda: t.as_strided_((2,), (1,)), RuntimeError)
    assert tuple(e.shape) == (3, 4)
    with ember.no_grad():
        e.t_()
    assert tuple(e.shape) == (4, 3)


@pytest.mark.parametrize("name,args", [("t_", ()), ("transpose_", (0, 1)), ("squeeze_", ()),
                                       ("unsqueeze_", (0,)), ("swapdims_", (1, 0)),
                                       ("as_strided_", ((2, 2), (1, 3), 1))])
def test_inplace_views_in_the_graph(name, args):
    base = np.arange(12.0).reshape(3, 1, 4)[:, 0] if name != "squeeze_" else np.arange(12.0).reshape(3, 1, 4)
    e, t = both(base, grad=True)
    ey, ty = e * 2, t * 2  # non-leaf: torch records the view, so does ember
    assert getattr(ey, name)(*args) is ey
    getattr(ty, name)(*args)
    same(ey, ty)
    w = np.cos(np.arange(ty.numel())).reshape(tuple(ty.shape))
    (ey * ember.from_numpy(w)).sum().backward()
    (ty * torch.from_numpy(w)).sum().backward()
    same(e.grad, t.grad)


def test_as_strided_():
    e, t = both(np.arange(12.0))
    same(e.as_strided_((3, 2), (2, 3), 1), t.as_strided_((3, 2), (2, 3), 1))
    same(e.as_strided_((2,), (1,)), t.as_strided_((2,), (1,)))  # keeps the offset
    assert e.storage_offset() == t.storage_offset() == 1
    raises_like(lambda: e.as_strided_((20,), (1,), 0), lambda: t.as_strided_((20,), (1,), 0))
    raises_like(lambda: e.as_strided_((2, 2), (1,)), lambda: t.as_strided_((2, 2), (1,)))
    same(ember.as_strided_(e, (4,), (2,), 0), torch.as_strided_(t, (4,), (2,), 0))


# ---- *_scatter --------------------------------------------------------------------------------

SCATTERS = [
    ("select_scatter", lambda x: x.select(1, 2), (1, 2), {}),
    ("select_scatter", lambda x: x.select(-1, -1), (-1, -1), {}),
    ("slice_scatter", lambda x: x[:, 1:3], (), {"dim": 1, "start": 1, "end": 3}),
    ("slice_scatter", lambda x: x[::2], (), {"dim": 0, "step": 2}),
    ("slice_scatter", lambda x: x[:, :, -3:], (2, -3), {}),
    ("diagonal_scatter", lambda x: x.diagonal(0, 1, 2), (0, 1, 2), {}),
    ("diagonal_scatter", lambda x: x.diagonal(1, 2, 1), (1, 2, 1), {}),
    ("as_strided_scatter", lambda x: x.as_strided((2, 2), (5, 1), 3), ((2, 2), (5, 1), 3), {}),
]


@pytest.mark.parametrize("name,view,args,kwargs", SCATTERS)
def test_scatters(name, view, args, kwargs):
    shape = np.asarray(view(torch.zeros(X.shape)).shape)
    e, t = both(X, grad=True)
    es, ts = both(np.linspace(-2, 2, int(np.prod(shape))).reshape(shape), grad=True)
    eo, to = getattr(ember, name)(e, es, *args, **kwargs), getattr(torch, name)(t, ts, *args, **kwargs)
    same(eo, to)
    same(getattr(e, name)(es, *args, **kwargs), getattr(t, name)(ts, *args, **kwargs))
    w = np.cos(np.arange(X.size)).reshape(X.shape)
    (eo * ember.from_numpy(w)).sum().backward()
    (to * torch.from_numpy(w)).sum().backward()
    same(es.grad, ts.grad)
    # input's gradient: w, zero where src was written (torch's as_strided_scatter backward
    # gets this wrong, so the reference is the definition)
    mask = torch.ones(X.shape, dtype=torch.bool)
    view(mask).fill_(False)
    same(e.grad, torch.from_numpy(w) * mask)
    if name != "as_strided_scatter":
        same(e.grad, t.grad)


def test_scatters_noncontiguous_empty_0d():
    e, t = both(X)
    e, t = e[:, :, ::2].transpose(0, 2), t[:, :, ::2].transpose(0, 2)
    es, ts = both(np.ones((2, 2)))
    same(ember.select_scatter(e, es, 1, 0), torch.select_scatter(t, ts, 1, 0))
    ed, td = both(np.ones((2, 2)) * 3)
    same(ember.diagonal_scatter(e, ed, 0, 1, 2), torch.diagonal_scatter(t, td, 0, 1, 2))
    e, t = both(X)
    e, t = e.transpose(0, 2), t.transpose(0, 2)  # as_strided reads the clone's storage, in input's stride order
    for size, stride, offset in (((2, 2), (1, 4), 1), ((3,), (5,), 2), ((2, 3), (12, 1), 0)):
        es, ts = both(np.arange(np.prod(size), dtype=float).reshape(size))
        same(ember.as_strided_scatter(e, es, size, stride, offset), torch.as_strided_scatter(t, ts, size, stride, offset))
    e, t = both(np.zeros((0, 3)))
    same(ember.slice_scatter(e, e[:, :1].clone(), 1, 0, 1), torch.slice_scatter(t, t[:, :1].clone(), 1, 0, 1))
    e, t = both(2.0)
    es, ts = both(5.0)
    same(ember.as_strided_scatter(e, es, (), ()), torch.as_strided_scatter(t, ts, (), ()))


def test_scatter_errors():
    e, t = both(X)
    raises_like(lambda: ember.select_scatter(e, ember.ones(3), 1, 0),
                lambda: torch.select_scatter(t, torch.ones(3), 1, 0), RuntimeError)
    raises_like(lambda: ember.select_scatter(e, ember.ones(2, 4), 1, 7),
                lambda: torch.select_scatter(t, torch.ones(2, 4), 1, 7), IndexError)
    same(ember.slice_scatter(e, ember.ones(2, 3, 4, dtype=ember.float32)),  # src cast to input's dtype
         torch.slice_scatter(t, torch.ones(2, 3, 4, dtype=torch.float32)))
    raises_like(lambda: ember.diagonal_scatter(e, ember.ones(3), 0, 0, 0),
                lambda: torch.diagonal_scatter(t, torch.ones(3), 0, 0, 0), RuntimeError)
    with pytest.raises(TypeError):
        ember.select_scatter(e, 1.0, 0, 0)


# ---- random fills -------------------------------------------------------------------------------

RANDOM = [  # name, args, mean, variance (None: infinite), support check
    ("exponential_", (2.0,), 0.5, 0.25, lambda v: (v >= 0).all()),
    ("log_normal_", (0.5, 0.25), math.exp(0.5 + 0.25 ** 2 / 2),
     (math.exp(0.25 ** 2) - 1) * math.exp(1 + 0.25 ** 2), lambda v: (v > 0).all()),
    ("geometric_", (0.25,), 4.0, 0.75 / 0.25 ** 2, lambda v: ((v >= 1) & (v == np.round(v))).all()),
    ("cauchy_", (1.0, 0.5), None, None, lambda v: np.isfinite(v).all()),
]


@pytest.mark.parametrize("name,args,mean,var,support", RANDOM)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_random_fill_moments_and_seed(name, args, mean, var, support, dtype):
    ember.manual_seed(7)
    x = ember.empty(200000, dtype=dtype)
    assert getattr(x, name)(*args) is x and x.dtype == dtype
    v = x.numpy().astype(np.float64)
    assert support(v)
    if mean is None:  # Cauchy: the median and the quartiles, median +- sigma
        med, sigma = args
        q = np.quantile(v, [0.25, 0.5, 0.75])
        np.testing.assert_allclose(q, [med - sigma, med, med + sigma], atol=0.03)
    else:
        assert abs(v.mean() - mean) < 4 * math.sqrt(var / v.size) + 1e-3
        assert abs(v.var() / var - 1) < 0.05
    ember.manual_seed(7)
    again = getattr(ember.empty(200000, dtype=dtype), name)(*args)
    np.testing.assert_array_equal(again.numpy(), x.numpy())
    g = ember.Generator().manual_seed(3)
    a = getattr(ember.empty(5, dtype=dtype), name)(*args, generator=g)
    g.manual_seed(3)
    b = getattr(ember.empty(5, dtype=dtype), name)(*args, generator=g)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_random_fill_shapes_and_errors():
    for name, args, *_ in RANDOM:
        e = ember.zeros(3, 4).t()
        getattr(e, name)(*args)
        assert tuple(e.shape) == (4, 3)
        assert getattr(ember.zeros(()), name)(*args).dim() == 0
        assert getattr(ember.zeros(0), name)(*args).numel() == 0
    assert ember.zeros(1000, dtype=ember.int64).geometric_(0.5).min().item() >= 1
    for call, tcall in (("exponential_", (-1.0,)), ("cauchy_", (0.0, 0.0)), ("log_normal_", (1.0, -1.0)),
                        ("geometric_", (1.5,)), ("geometric_", (0.0,))):
        raises_like(lambda: getattr(ember.zeros(2), call)(*tcall),
                    lambda: getattr(torch.zeros(2), call)(*tcall), RuntimeError)
    raises_like(lambda: ember.zeros(2, dtype=ember.int64).exponential_(),
                lambda: torch.zeros(2, dtype=torch.int64).exponential_(), RuntimeError)


# ---- complex accessors ---------------------------------------------------------------------------

Z = np.array([[1 + 2j, -3 - 0.5j, 0j], [-2 + 0j, 0.5j, 4 - 4j]])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_real_imag_views(dtype):
    e, t = both(Z, dtype)
    same(e.real, t.real, 1e-6)
    same(e.imag, t.imag, 1e-6)
    same(ember.real(e.t()), torch.real(t.t()), 1e-6)
    same(ember.imag(e.t()), torch.imag(t.t()), 1e-6)
    e.real[0, 0] = 10.0  # a view: writes reach the complex tensor
    t.real[0, 0] = 10.0
    e.imag = ember.zeros(2, 3)
    t.imag = torch.zeros(2, 3)
    same(e, t, 1e-6)


def test_real_imag_real_dtypes_and_grad():
    e, t = both(X)
    assert e.real is e and ember.real(e) is e
    raises_like(lambda: e.imag, lambda: t.imag, RuntimeError)
    e, t = both(Z, np.complex128, grad=True)
    (e.real * 2 + e.imag ** 2).sum().backward()
    (t.real * 2 + t.imag ** 2).sum().backward()
    same(e.grad, t.grad)
    e, t = both(np.zeros(0), np.complex64)
    same(e.real, t.real)
    e, t = both(1 - 1j, np.complex128)
    same(e.imag, t.imag)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex64", "complex128", "bool"])
def test_angle(dtype):
    data = {"complex64": Z, "complex128": Z, "bool": [[True, False]], "int64": [[-2, 0, 3]]}.get(
        dtype, [[-1.5, 0.0, -0.0, 2.0, np.nan, -np.inf]])
    e, t = both(data, DTYPES[dtype])
    same(e.angle(), t.angle(), 1e-6)
    same(ember.angle(e.t()), torch.angle(t.t()), 1e-6)
    e, t = both(3.0 - 1j if "complex" in dtype else -2, DTYPES[dtype])
    same(ember.angle(e), torch.angle(t), 1e-6)


def test_angle_grad():
    for data, dtype in ((Z, np.complex128), ([[-1.5, 2.0]], np.float64)):
        e, t = both(data, dtype, grad=True)
        (e.angle() * 3).sum().backward()
        (t.angle() * 3).sum().backward()
        same(e.grad, t.grad)


def test_conj_neg_bits_and_chalf():
    e, t = both(Z, np.complex64)
    for name in ("is_conj", "is_neg"):
        assert getattr(e, name)() is False and getattr(ember, name)(e) is False
    assert e.resolve_conj() is e and ember.resolve_neg(e) is e
    assert e.conj().resolve_conj().dtype == ember.complex64
    same(e.conj().resolve_conj(), t.conj().resolve_conj(), 1e-6)
    with pytest.raises(TypeError, match="complex32"):
        e.chalf()


# ---- in-place composites ----------------------------------------------------------------------------

def test_inplace_composites():
    ints = [[12, -18, 0, 7], [5, 0, -9, 21]]
    other = [4, 6, 0, -14]
    for name in ("gcd_", "lcm_"):
        for dt in (np.int64, np.int32, np.int16, np.uint8 if name == "gcd_" else np.int8):
            e, t = both(np.abs(ints) if dt == np.uint8 else ints, dt)
            f, u = both(np.abs(other) if dt == np.uint8 else other, dt)
            same(getattr(e, name)(f), getattr(t, name)(u))
            same(e, t)
            same(getattr(ember, name)(e.t()[:2].t().contiguous(), f[:2]),
                 getattr(torch, name)(t.t()[:2].t().contiguous(), u[:2]))
    e, t = both([[-1.0, 0.0, 2.0]])
    f, u = both([0.5, 0.25, 0.75])
    same(e.heaviside_(f), t.heaviside_(u))
    for dt in (np.float32, np.float64):
        e, t = both([[1.5, -2.0], [0.0, 3.0]], dt)
        f, u = both([2, -1], np.int64)
        same(e.ldexp_(f), t.ldexp_(u), 1e-6)
        same(ember.ldexp_(e.t(), f), torch.ldexp_(t.t(), u), 1e-6)
    e, t = both([[1.5, -2.0], [0.0, 3.0]])
    same(e.float_power_(2), t.float_power_(2))
    f, u = both([0.5, 2.0])
    same(e.abs().float_power_(f), t.abs().float_power_(u))
    e, t = both([[1 + 1j]], np.complex128)
    same(e.float_power_(2), t.float_power_(2))
    e, t = both(3.0)
    same(e.float_power_(0.5), t.float_power_(0.5))


def test_inplace_composite_errors():
    e, t = both([1, 2, 3], np.int64)
    f, u = both([1.0, 2.0, 3.0])
    raises_like(lambda: e.ldexp_(f), lambda: t.ldexp_(u), RuntimeError)
    raises_like(lambda: e.gcd_(f), lambda: t.gcd_(u), RuntimeError)
    raises_like(lambda: e.gcd_(ember.ones(2, 3, dtype=ember.int64)),
                lambda: t.gcd_(torch.ones(2, 3, dtype=torch.int64)), RuntimeError)
    before = e.clone()
    e2, t2 = both([1.0, 2.0], np.float32)
    raises_like(lambda: e2.float_power_(2), lambda: t2.float_power_(2), RuntimeError)
    raises_like(lambda: e2.heaviside_(ember.ones(2, dtype=ember.float64)), lambda: t2.heaviside_(torch.ones(2, dtype=torch.float64)),
                RuntimeError)
    assert ember.equal(e, before)  # a failed call leaves self unchanged


# ---- index_reduce ----------------------------------------------------------------------------------

@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    base = np.linspace(-1, 2, 15).reshape(5, 3)
    src = np.cos(np.arange(12.0)).reshape(4, 3) * 2
    e, t = both(base, grad=True)
    es, ts = both(src, grad=True)
    ei, ti = both([0, 4, 0, 2], np.int64)
    eo = e.index_reduce(0, ei, es, reduce, include_self=include_self)
    to = t.index_reduce(0, ti, ts, reduce, include_self=include_self)
    same(eo, to)
    w = np.sin(np.arange(15.0)).reshape(5, 3)
    (eo * ember.from_numpy(w)).sum().backward()
    (to * torch.from_numpy(w)).sum().backward()
    same(e.grad, t.grad, 1e-10)
    same(es.grad, ts.grad, 1e-10)
    # along dim 1, non-contiguous source, in place, integers
    e, t = both(base.T.copy())
    es, ts = both(src)
    same(ember.index_reduce(e, 1, ei, es.t(), reduce, include_self=include_self),
         torch.index_reduce(t, 1, ti, ts.t(), reduce, include_self=include_self))
    e, t = both(base * 10, np.int64)
    es, ts = both(src * 10, np.int64)
    same(e.index_reduce_(0, ei, es, reduce, include_self=include_self),
         t.index_reduce_(0, ti, ts, reduce, include_self=include_self))
    same(e, t)


def test_index_reduce_empty_0d_errors():
    e, t = both(np.ones((3, 2)))
    ei, ti = both([], np.int64)
    same(e.index_reduce(0, ei, ember.ones(0, 2, dtype=ember.float64), "prod"),
         t.index_reduce(0, ti, torch.ones(0, 2, dtype=torch.float64), "prod"))
    e, t = both(2.0)
    same(e.index_reduce(0, ember.tensor([0]), ember.tensor(3.0, dtype=ember.float64), "amax"),
         t.index_reduce(0, torch.tensor([0]), torch.tensor(3.0, dtype=torch.float64), "amax"))
    e, t = both(np.ones((3, 2)))
    raises_like(lambda: e.index_reduce(0, ember.tensor([0]), ember.ones(1, 2, dtype=ember.float64), "sum"),
                lambda: t.index_reduce(0, torch.tensor([0]), torch.ones(1, 2, dtype=torch.float64), "sum"),
                RuntimeError)
    raises_like(lambda: e.index_reduce(0, ember.tensor([0.0]), ember.ones(1, 2, dtype=ember.float64), "prod"),
                lambda: t.index_reduce(0, torch.tensor([0.0]), torch.ones(1, 2, dtype=torch.float64), "prod"),
                RuntimeError)
    raises_like(lambda: e.index_reduce(0, ember.tensor([0, 1]), ember.ones(1, 2, dtype=ember.float64), "prod"),
                lambda: t.index_reduce(0, torch.tensor([0, 1]), torch.ones(1, 2, dtype=torch.float64), "prod"),
                RuntimeError)
    raises_like(lambda: e.index_reduce(0, ember.tensor([5]), ember.ones(1, 2, dtype=ember.float64), "prod"),
                lambda: t.index_reduce(0, torch.tensor([5]), torch.ones(1, 2, dtype=torch.float64), "prod"),
                IndexError)


# ---- nextafter, frexp, hash_tensor ------------------------------------------------------------------

FLOATS = [[0.0, -0.0, 1.0, -1.5, 1e-310, np.inf, -np.inf, np.nan, 3.0, 65504.0]]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nextafter(dtype):
    e, t = both(FLOATS, dtype)
    f, u = both([[1.0, -1.0, 0.0, -1.5, np.inf, 0.0, 1.0, 2.0, np.nan, -np.inf]], dtype)
    same(ember.nextafter(e, f), torch.nextafter(t, u), 0)
    same(e.nextafter(f[:, :1]), t.nextafter(u[:, :1]), 0)  # broadcast
    same(e.t().nextafter(f.t()), t.t().nextafter(u.t()), 0)
    same(e.nextafter_(f), t.nextafter_(u), 0)
    same(e, t, 0)
    e, t = both(1.0, dtype)
    same(ember.nextafter(e, e * 2), torch.nextafter(t, t * 2), 0)
    e, t = both(np.zeros(0), dtype)
    same(ember.nextafter(e, e), torch.nextafter(t, t))


def test_nextafter_errors():
    e, t = both([1, 2], np.int64)
    raises_like(lambda: ember.nextafter(e, e), lambda: torch.nextafter(t, t), RuntimeError)
    f, u = both([1.0, 2.0])
    raises_like(lambda: ember.nextafter(f, ember.ones(3, dtype=ember.float64)),
                lambda: torch.nextafter(u, torch.ones(3, dtype=torch.float64)), RuntimeError)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_frexp(dtype):
    data = np.array([[0.0, -0.0, 1.0, -3.0, 0.375, 6e-5, 1e-30, 1e-310, np.inf, -np.inf, np.nan, 1000.0]])
    e, t = both(data, dtype)
    em, ee = ember.frexp(e)
    tm, te = torch.frexp(t)
    same(em, tm, 0)
    same(ee, te, 0)
    r = e.t().frexp()
    assert r.mantissa.dtype == e.dtype and r.exponent.dtype == ember.int32
    same(tuple(r), tuple(t.t().frexp()), 0)
    e, t = both(-6.0, dtype)
    same(tuple(ember.frexp(e)), tuple(torch.frexp(t)))
    e, t = both(np.zeros((0, 2)), dtype)
    same(tuple(ember.frexp(e)), tuple(torch.frexp(t)))


def test_frexp_grad_and_errors():
    e, t = both([[0.3, -7.0, 100.0]], grad=True)
    (ember.frexp(e).mantissa * 2).sum().backward()
    (torch.frexp(t).mantissa * 2).sum().backward()
    same(e.grad, t.grad)
    e, t = both([1, 2], np.int64)
    raises_like(lambda: ember.frexp(e), lambda: torch.frexp(t), RuntimeError)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"])
def test_hash_tensor(dtype):
    data = np.array([[1.5, -2.0, 0.0, 3.0], [7.0, 1.0, 1.0, 2.0]])
    if dtype == "bool":
        data = data > 1
    elif dtype == "uint8":
        data = np.abs(data)
    e, t = both(data, DTYPES[dtype])

    def bits(x):
        return x.view(torch.int64)
    same(ember.hash_tensor(e), bits(torch.hash_tensor(t)))
    same(e.t().hash_tensor(), bits(t.t().hash_tensor()))
    for dim, keepdim in ((0, False), (1, True), ((0, 1), False)):
        same(ember.hash_tensor(e, dim, keepdim=keepdim), bits(torch.hash_tensor(t, dim, keepdim=keepdim)))
    e, t = both(2.5 if dtype.startswith("float") else 3, DTYPES[dtype])
    same(ember.hash_tensor(e), bits(torch.hash_tensor(t)))
    e, t = both(np.zeros((2, 0)), DTYPES[dtype])
    raises_like(lambda: ember.hash_tensor(e), lambda: torch.hash_tensor(t), RuntimeError)
    raises_like(lambda: ember.hash_tensor(e, 1), lambda: torch.hash_tensor(t, 1), IndexError)
    raises_like(lambda: ember.hash_tensor(e, mode=1), lambda: torch.hash_tensor(t, mode=1))


# ---- as_subclass, hardshrink, prelu -----------------------------------------------------------------

def test_as_subclass():
    class Mine(ember.Tensor):
        pass
    x = ember.ones(2, requires_grad=True)
    y = (x * 3).as_subclass(Mine)
    assert type(y) is Mine and y.requires_grad
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    base = ember.zeros(2)
    view = base.as_subclass(Mine)
    view[0] = 1.0
    assert base[0].item() == 1.0
    with pytest.raises(TypeError):
        base.as_subclass(int)


def test_hardshrink_prelu():
    e, t = both([[-1.0, -0.25, 0.0, 0.3, 2.0]], grad=True)
    for lambd in (0.5, 0.1):
        same(e.hardshrink(lambd), t.hardshrink(lambd))
        same(ember.hardshrink(e.t(), lambd), torch.hardshrink(t.t(), lambd))
    w, v = both([0.25], grad=True)
    eo, to = e.prelu(w), t.prelu(v)
    same(eo, to)
    (eo * eo).sum().backward()
    (to * to).sum().backward()
    same(e.grad, t.grad)
    same(w.grad, v.grad)
    same(ember.prelu(e.detach(), w.detach()), torch.prelu(t.detach(), v.detach()))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "bool", "complex64"])
def test_strided_layout_answers(dtype):
    # to_dense / dense_dim / sparse_dim / dequantize of strided tensors, as torch: to_dense is
    # self (or a conversion), dequantize converts to float32 (self when already float32).
    for shape in ((3, 4), (), (0, 2)):
        a = (np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(DTYPES[dtype])
        e, t = both(a, DTYPES[dtype])
        assert e.to_dense() is e and t.to_dense() is t
        same(e.to_dense(dtype=ember.float64), t.to_dense(dtype=torch.float64))
        assert e.to_dense(masked_grad=False) is e
        assert e.dense_dim() == t.dense_dim() == len(shape)
        assert e.sparse_dim() == t.sparse_dim() == 0
        if dtype != "complex64":
            same(e.dequantize(), t.dequantize())
            same(ember.dequantize(e), torch.dequantize(t))
            raises_like(lambda: ember.dequantize([e, e]), lambda: torch.dequantize([t, t]),
                        NotImplementedError)
    e = ember.ones(2, 3, dtype=ember.float32)
    assert e.dequantize() is e
    et = ember.ones(4, 3).t()
    assert et.to_dense() is et and et.dense_dim() == 2
    g, gt = both([1.0, 2.0], np.float64, grad=True)
    assert g.to_dense() is g and g.to_dense(dtype=ember.float32).requires_grad
