"""torch's deprecated argument orders (Note [Deprecated signatures], codegen/gen_python.py),
which old programs still use (`p.data.add_(-lr, grad)`), against torch on the same inputs;
and that they only take calls no current signature matches."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def pair(*shape, seed=0):
    a = rand(*shape, seed=seed)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def check(e, t):
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)


CASES = [
    # (name, function form?, builder of the positional args after the op's tensor(s))
    ("add", lambda L, x, y, z, w: L.add(x, -2.5, y)),
    ("sub", lambda L, x, y, z, w: L.sub(x, 3, y)),
    ("addcmul", lambda L, x, y, z, w: L.addcmul(x, 0.5, y, z)),
    ("addcdiv", lambda L, x, y, z, w: L.addcdiv(x, 2, y, w)),
    ("add method", lambda L, x, y, z, w: x.add(-2.5, y)),
    ("sub method", lambda L, x, y, z, w: x.sub(3, y)),
    ("addcmul method", lambda L, x, y, z, w: x.addcmul(0.5, y, z)),
    ("add_", lambda L, x, y, z, w: x.clone().add_(-0.1, y)),
    ("sub_", lambda L, x, y, z, w: x.clone().sub_(0.1, y)),
    ("addcmul_", lambda L, x, y, z, w: x.clone().addcmul_(0.9, y, z)),
    ("addcdiv_", lambda L, x, y, z, w: x.clone().addcdiv_(-1, y, w)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_elementwise_deprecated_orders(name, fn):
    ex, tx = pair(3, 4)
    ey, ty = pair(3, 4, seed=1)
    ez, tz = pair(4, seed=2)          # broadcast
    ew, tw = (ember.from_numpy(np.abs(rand(3, 4, seed=3)) + 1), torch.from_numpy(np.abs(rand(3, 4, seed=3)) + 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = fn(torch, tx, ty, tz, tw)
    check(fn(ember, ex, ey, ez, ew), t)


def test_blas_deprecated_orders():
    eM, tM = pair(3, 5)
    ea, ta = pair(3, 4, seed=1)
    eb, tb = pair(4, 5, seed=2)
    ev, tv = pair(4, seed=3)
    em, tm = pair(3, seed=4)
    eB1, tB1 = pair(2, 3, 4, seed=5)
    eB2, tB2 = pair(2, 4, 5, seed=6)
    eBM, tBM = pair(2, 3, 5, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for e, t in [
            (ember.addmm(0.5, eM, 2, ea, eb), torch.addmm(0.5, tM, 2, ta, tb)),
            (ember.addmm(0.5, eM, ea, eb), torch.addmm(0.5, tM, ta, tb)),
            (eM.addmm(0.5, 2, ea, eb), tM.addmm(0.5, 2, ta, tb)),
            (eM.clone().addmm_(0.5, ea, eb), tM.clone().addmm_(0.5, ta, tb)),
            (ember.addmv(2, em, 3, ea, ev), torch.addmv(2, tm, 3, ta, tv)),
            (ember.addmv(2, em, ea, ev), torch.addmv(2, tm, ta, tv)),
            (ember.baddbmm(0.5, eBM, -1, eB1, eB2), torch.baddbmm(0.5, tBM, -1, tB1, tB2)),
            (eBM.clone().baddbmm_(0.5, eB1, eB2), tBM.clone().baddbmm_(0.5, tB1, tB2)),
            (ember.addbmm(0.5, eM, 2, eB1, eB2), torch.addbmm(0.5, tM, 2, tB1, tB2)),
        ]:
            check(e, t)


def test_deprecated_orders_keep_gradients():
    a, b = rand(3), rand(3, seed=1)
    ex, ey = (ember.from_numpy(v.copy()).requires_grad_() for v in (a, b))
    tx, ty = (torch.from_numpy(v.copy()).requires_grad_() for v in (a, b))
    ember.add(ex, -3, ey).pow(2).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.add(tx, -3, ty).pow(2).sum().backward()
    check(ex.grad, tx.grad), check(ey.grad, ty.grad)


def test_current_signatures_win_and_errors_list_both():
    x = ember.ones(3)
    # add(Scalar other, Scalar alpha): both numbers, not the deprecated order
    check(x.add(1, 2), torch.ones(3).add(1, 2))
    with pytest.raises(TypeError, match=r"(?s)add_\(\) received an invalid combination.*Scalar alpha, Tensor other"):
        x.add_("a", ember.ones(3))
    with pytest.raises(TypeError):
        ember.addmm(0.5, ember.ones(2, 2))   # too few tensors for any order
