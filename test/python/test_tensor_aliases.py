"""torch's alias names and small compositions (ember/_tensor_aliases.py) against torch on the
same inputs: values, dtypes, in-place forms, gradients through the aliases, and the errors."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def both(a, dtype=np.float64):
    a = np.array(a, dtype=dtype)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


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
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol, equal_nan=True)


X = np.array([[0.5, -0.25, 0.0], [0.75, -0.5, 0.125]])
Y = np.array([[2.0, 4.0, -1.0], [0.5, 1.0, 8.0]])
UNARY = ["absolute", "arccos", "arcsin", "arctan", "arctanh", "negative", "fix", "ravel", "positive",
         "isposinf", "isneginf", "isreal", "diagflat"]
BINARY = ["divide", "multiply", "subtract", "true_divide", "greater", "greater_equal", "less",
          "less_equal", "not_equal", "logaddexp2", "inner", "xlogy", "float_power"]


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    e, t = both(X)
    same(getattr(e, name)(), getattr(t, name)())
    same(getattr(ember, name)(e.t()), getattr(torch, name)(t.t()))


@pytest.mark.parametrize("name", ["arccosh", "arcsinh"])
def test_unary_domain(name):
    e, t = both(Y.clip(1.0))
    same(getattr(e, name)(), getattr(t, name)())


@pytest.mark.parametrize("name", BINARY)
def test_binary(name):
    (e, t), (f, u) = both(X), both(np.abs(Y))
    same(getattr(e, name)(f), getattr(t, name)(u))
    same(getattr(ember, name)(e, f[0]), getattr(torch, name)(t, u[0]))  # broadcast


@pytest.mark.parametrize("name", ["absolute_", "negative_", "fix_", "divide_", "multiply_",
                                  "subtract_", "eq_", "lt_", "ge_", "greater_", "not_equal_", "xlogy_"])
def test_inplace(name):
    (e, t), (f, u) = both(X), both(np.abs(Y))
    args = () if name in ("absolute_", "negative_", "fix_") else (f,)
    targs = () if not args else (u,)
    r, q = getattr(e, name)(*args), getattr(t, name)(*targs)
    assert r is e
    same(e, t)


def test_gradients_through_aliases():
    (e, t), (f, u) = both(X), both(np.abs(Y) + 0.5)
    for x in (e, t, f, u):
        x.requires_grad_(True)
    (e.arctan() * f.divide(e.absolute() + 1) + e.logaddexp2(f) + e.inner(f).sum()).sum().backward()
    (t.arctan() * u.divide(t.absolute() + 1) + t.logaddexp2(u) + t.inner(u).sum()).sum().backward()
    same(e.grad, t.grad)
    same(f.grad, u.grad)


def test_splits_and_shapes():
    a = np.arange(24.0).reshape(2, 3, 4)
    e, t = both(a)
    same(e.hsplit(3), t.hsplit(3))
    same(e.vsplit([1]), t.vsplit([1]))
    same(e.dsplit(2), t.dsplit(2))
    same(ember.hsplit(e[0, 0], 2), torch.hsplit(t[0, 0], 2))  # 1-D splits dim 0
    with pytest.raises(RuntimeError, match="divisible"):
        e.hsplit(2)
    with pytest.raises(RuntimeError, match="dimensions"):
        e[0, 0].vsplit(2)
    same(e.sum_to_size(3, 1), t.sum_to_size(3, 1))
    same(e.sum_to_size((1, 1, 4)), t.sum_to_size((1, 1, 4)))
    with pytest.raises(RuntimeError, match="expandable"):
        e.sum_to_size(5)
    same(e[0].H, t[0].H)
    same(e.mH, t.mH)
    same(e.adjoint(), t.adjoint())
    assert e.is_same_size(e.clone()) and not e.is_same_size(e[0])
    assert e.get_device() == t.get_device() == -1
    same(e.narrow_copy(2, 1, 2), t.narrow_copy(2, 1, 2))


def test_diff():
    e, t = both([[1.0, 4.0, 9.0, 16.0], [2.0, 3.0, 5.0, 7.0]])
    same(e.diff(), t.diff())
    same(e.diff(n=2, dim=1), t.diff(n=2, dim=1))
    same(e.diff(dim=0), t.diff(dim=0))
    p, q = both([[0.0], [1.0]])
    same(e.diff(prepend=p, append=p), t.diff(prepend=q, append=q))
    same(ember.tensor([True, False, False]).diff(), torch.tensor([True, False, False]).diff())
    with pytest.raises(RuntimeError, match="0-d"):
        ember.tensor(1.0).diff()


def test_integer_ops():
    a, b = np.array([12, -18, 0, 7, 0]), np.array([8, 12, 5, 0, 0])
    (e, t), (f, u) = both(a, np.int64), both(b, np.int64)
    same(e.gcd(f), t.gcd(u))
    same(ember.lcm(e, f), torch.lcm(t, u))
    with pytest.raises(RuntimeError, match="integer"):
        ember.gcd(ember.tensor([1.0]), ember.tensor([2.0]))
    same(e.is_signed(), t.is_signed())
    assert not ember.tensor([1], dtype=ember.uint8).is_signed()
    same(ember.ldexp(both([1.0, 3.0])[0], ember.tensor([2, 3])), torch.ldexp(torch.tensor([1.0, 3.0],
         dtype=torch.float64), torch.tensor([2, 3])))


def test_logaddexp2_extremes():
    (e, t), (f, u) = both([1e4, -1e4, float("inf"), float("-inf"), 3.0]), both([1e4 - 1, -1e4, float("inf"),
                                                                            float("-inf"), float("-inf")])
    same(e.logaddexp2(f), t.logaddexp2(u))


def test_heaviside_dist_nonzero():
    (e, t), (v, w) = both([-1.5, 0.0, 2.0]), both([0.5, 0.5, 0.5])
    same(e.heaviside(v), t.heaviside(w))
    with pytest.raises(RuntimeError, match="same dtype"):
        e.heaviside(ember.tensor([1.0, 1.0, 1.0], dtype=ember.float32))
    same(e.dist(v), t.dist(w))
    same(e.dist(v, 1), t.dist(w, 1))
    assert ember.tensor([3]).is_nonzero() and not ember.tensor([0.0]).is_nonzero()
    with pytest.raises(RuntimeError, match="more than one value"):
        ember.tensor([1, 2]).is_nonzero()
    with pytest.raises(RuntimeError, match="bool"):
        ember.tensor([True]).positive()
    e = ember.tensor([1.0, -2.0])
    assert (+e) is e


def test_aliases_are_listed_methods():
    for name in ("absolute", "divide", "greater_equal", "unsafe_chunk", "cfloat", "allclose", "equal"):
        assert hasattr(ember.Tensor, name)
    e = ember.tensor([1.0, 2.0])
    assert e.allclose(e + 1e-9) and e.equal(e.clone())
    assert e.cdouble().dtype == ember.complex128
    same(e.unsafe_chunk(2), torch.tensor([1.0, 2.0]).unsafe_chunk(2))
