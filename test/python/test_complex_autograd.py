"""Autograd through complex tensors, against torch: PyTorch's convention (the gradient of a
holomorphic f is grad * conj(f'(z))), complex leaves, and real leaves whose graph passes
through complex values (view_as_complex, abs, view_as_real)."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(7)


def _c(shape, scale=1.0, shift=0.0):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)) * scale + shift


def _pair(a, requires_grad=True):
    t = torch.tensor(a, requires_grad=requires_grad)
    e = ember.tensor(a, requires_grad=requires_grad)
    return t, e


def _np(x):
    return np.asarray(x.detach().tolist() if hasattr(x, "tolist") else x)


def _close(e, t, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.array(e.tolist()), t.detach().resolve_conj().numpy(), rtol=rtol,
                               atol=atol)


UNARY = {
    "exp": lambda m, z: m.exp(z), "log": lambda m, z: m.log(z), "sqrt": lambda m, z: m.sqrt(z),
    "sin": lambda m, z: m.sin(z), "cos": lambda m, z: m.cos(z), "tan": lambda m, z: m.tan(z),
    "sinh": lambda m, z: m.sinh(z), "cosh": lambda m, z: m.cosh(z), "tanh": lambda m, z: m.tanh(z),
    "reciprocal": lambda m, z: m.reciprocal(z), "rsqrt": lambda m, z: m.rsqrt(z),
    "sigmoid": lambda m, z: m.sigmoid(z), "square": lambda m, z: m.square(z),
    "log1p": lambda m, z: m.log1p(z), "expm1": lambda m, z: m.expm1(z),
    "asin": lambda m, z: m.asin(z), "acos": lambda m, z: m.acos(z), "atan": lambda m, z: m.atan(z),
    "asinh": lambda m, z: m.asinh(z), "acosh": lambda m, z: m.acosh(z),
    "atanh": lambda m, z: m.atanh(z), "log2": lambda m, z: m.log2(z),
    "log10": lambda m, z: m.log10(z), "exp2": lambda m, z: m.exp2(z), "neg": lambda m, z: -z,
    "sgn": lambda m, z: m.sgn(z), "conj_physical": lambda m, z: m.conj_physical(z),
    "conj": lambda m, z: m.conj(z),
    "pow_2": lambda m, z: z ** 2, "pow_half": lambda m, z: z ** 0.5,
    "pow_complex": lambda m, z: z ** (1.5 - 0.5j),
    "mul_scalar": lambda m, z: z * (2 - 3j), "div_scalar": lambda m, z: z / (0.5 + 1j),
    "sum": lambda m, z: z.sum(), "mean": lambda m, z: z.mean(1), "prod": lambda m, z: z.prod(1),
    "cumsum": lambda m, z: m.cumsum(z, 1), "cumprod": lambda m, z: m.cumprod(z, 1),
    "flip": lambda m, z: m.flip(z, [0]), "transpose": lambda m, z: z.t() * 1,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient_matches_torch(name):
    f = UNARY[name]
    a = _c((3, 4), 0.6, 0.1 + 0.2j)
    tz, ez = _pair(a)
    tout, eout = f(torch, tz), f(ember, ez)
    _close(eout, tout)
    g = _c(tuple(tout.shape))
    tout.backward(torch.tensor(g))
    eout.backward(ember.tensor(g))
    _close(ez.grad, tz.grad, rtol=1e-9, atol=1e-11)


BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "pow": lambda a, b: a ** b,
    "add_alpha": lambda a, b: a.add(b, alpha=2.0), "where": None,
}


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "add_alpha"])
@pytest.mark.parametrize("other_kind", ["complex", "real", "broadcast"])
def test_binary_gradient_matches_torch(name, other_kind):
    f = BINARY[name]
    a = _c((3, 4), 0.6, 0.5 + 0.2j)
    if other_kind == "complex":
        b = _c((3, 4), 0.6, 0.7 - 0.1j)
    elif other_kind == "real":
        b = RNG.uniform(0.5, 1.5, (3, 4))
    else:
        b = _c((4,), 0.6, 0.7 - 0.1j)
    ta, ea = _pair(a)
    tb, eb = _pair(b)
    tout, eout = f(ta, tb), f(ea, eb)
    _close(eout, tout)
    g = _c(tuple(tout.shape))
    tout.backward(torch.tensor(g))
    eout.backward(ember.tensor(g))
    _close(ea.grad, ta.grad, rtol=1e-9, atol=1e-11)
    _close(eb.grad, tb.grad, rtol=1e-9, atol=1e-11)
    assert str(eb.grad.dtype).split(".")[-1] == str(tb.grad.dtype).split(".")[-1]


def test_addcmul_addcdiv_lerp_complex():
    a, b, c = _c((5,), 0.5, 0.3), _c((5,), 0.5, 1.0), _c((5,), 0.5, 1.0 + 0.5j)
    for fn in ("addcmul", "addcdiv"):
        t = [torch.tensor(x, requires_grad=True) for x in (a, b, c)]
        e = [ember.tensor(x, requires_grad=True) for x in (a, b, c)]
        tout = getattr(torch, fn)(*t, value=0.5)
        eout = getattr(ember, fn)(*e, value=0.5)
        g = _c((5,))
        tout.backward(torch.tensor(g))
        eout.backward(ember.tensor(g))
        for te, ee in zip(t, e):
            _close(ee.grad, te.grad)
    w = _c((5,), 0.3)
    t = [torch.tensor(x, requires_grad=True) for x in (a, b, w)]
    e = [ember.tensor(x, requires_grad=True) for x in (a, b, w)]
    g = _c((5,))
    torch.lerp(*t).backward(torch.tensor(g))
    ember.lerp(*e).backward(ember.tensor(g))
    for te, ee in zip(t, e):
        _close(ee.grad, te.grad)


def test_abs_and_norm_of_complex_give_real_losses():
    a = _c((4, 3))
    for loss in (lambda m, z: z.abs().sum(), lambda m, z: m.linalg.vector_norm(z),
                 lambda m, z: m.linalg.vector_norm(z, 1), lambda m, z: m.linalg.vector_norm(z, 3.0),
                 lambda m, z: m.linalg.vector_norm(z, float("inf")),
                 lambda m, z: (z * z.conj()).abs().sum()):
        tz, ez = _pair(a)
        tl, el = loss(torch, tz), loss(ember, ez)
        _close(el, tl)
        tl.backward()
        el.backward()
        _close(ez.grad, tz.grad)


def test_real_leaf_through_complex_values():
    x = RNG.standard_normal((3, 4, 2))
    w = _c((3, 4))
    tx, ex = _pair(x)
    tw, ew = torch.tensor(w), ember.tensor(w)
    tl = (torch.view_as_complex(tx) * tw).abs().pow(2).sum()
    el = (ember.view_as_complex(ex) * ew).abs().pow(2).sum()
    _close(el, tl)
    tl.backward()
    el.backward()
    _close(ex.grad, tx.grad)
    assert ex.grad.dtype == ember.float64
    # real * complex constant: the real leaf's gradient is the real part
    y = RNG.standard_normal((3, 4))
    ty, ey = _pair(y)
    g = _c((3, 4))
    (ty * tw).backward(torch.tensor(g))
    (ey * ew).backward(ember.tensor(g))
    _close(ey.grad, ty.grad)
    assert ey.grad.dtype == ember.float64


def test_view_as_real_of_a_complex_leaf():
    a = _c((2, 3))
    tz, ez = _pair(a)
    g = RNG.standard_normal((2, 3, 2))
    torch.view_as_real(tz).backward(torch.tensor(g))
    ember.view_as_real(ez).backward(ember.tensor(g))
    _close(ez.grad, tz.grad)


def test_complex_leaf_float32_and_second_order():
    a = _c((4,)).astype(np.complex64)
    tz, ez = _pair(a)
    tl = (tz.exp() * tz).abs().sum()
    el = (ez.exp() * ez).abs().sum()
    tl.backward()
    el.backward()
    _close(ez.grad, tz.grad, rtol=2e-5, atol=1e-6)
    assert ez.grad.dtype == ember.complex64
    # second order through a complex intermediate, real leaf
    x = RNG.standard_normal(5)
    tx, ex = _pair(x)
    c = _c((5,))
    (tg,) = torch.autograd.grad((tx * torch.tensor(c)).exp().abs().sum(), tx, create_graph=True)
    (eg,) = ember.autograd.grad((ex * ember.tensor(c)).exp().abs().sum(), ex, create_graph=True)
    _close(eg, tg)
    tg.sum().backward()
    eg.sum().backward()
    _close(ex.grad, tx.grad, rtol=1e-9, atol=1e-11)


def test_conj_ops():
    a = _c((2, 3))
    e = ember.tensor(a)
    np.testing.assert_array_equal(np.array(ember.conj(e).tolist()), a.conj())
    np.testing.assert_array_equal(np.array(e.conj_physical().tolist()), a.conj())
    r = ember.tensor([1.0, 2.0])
    assert ember.conj(r) is r or ember.conj(r).data_ptr() == r.data_ptr()
    out = ember.empty((2, 3), dtype=ember.complex128)
    ember.conj_physical(e, out=out)
    np.testing.assert_array_equal(np.array(out.tolist()), a.conj())
    e.conj_physical_()
    np.testing.assert_array_equal(np.array(e.tolist()), a.conj())
    with pytest.raises(RuntimeError, match="conj_physical"):
        ember.conj_physical(e, out=ember.empty((2, 3), dtype=ember.float64))


def test_integer_leaves_still_refused():
    with pytest.raises(RuntimeError, match="floating point and complex"):
        ember.tensor([1, 2]).requires_grad_()


PRODUCTS = {
    "mm": ((3, 4), (4, 2), lambda m, a, b: m.mm(a, b)),
    "mm_transposed": ((4, 3), (2, 4), lambda m, a, b: m.mm(a.t(), b.t())),
    "bmm": ((2, 3, 4), (2, 4, 5), lambda m, a, b: m.bmm(a, b)),
    "matmul_broadcast": ((2, 3, 4), (4, 5), lambda m, a, b: a @ b),
    "mv": ((3, 4), (4,), lambda m, a, b: m.mv(a, b)),
    "dot": ((5,), (5,), lambda m, a, b: m.dot(a, b)),
    "vdot": ((5,), (5,), lambda m, a, b: m.vdot(a, b)),
    "addmm": ((3, 4), (4, 2), lambda m, a, b: m.addmm(m.ones(3, 2, dtype=a.dtype), a, b,
                                                        beta=0.5, alpha=2.0)),
    "einsum": ((2, 3, 4), (3, 4, 5), lambda m, a, b: m.einsum("bij,ijk->bk", a, b)),
    "linear": ((3, 4), (2, 4), lambda m, a, b: m.nn.functional.linear(a, b)),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_matrix_products_and_gradients(name, dtype):
    sa, sb, f = PRODUCTS[name]
    a, b = _c(sa).astype(dtype), _c(sb).astype(dtype)
    ta, ea = _pair(a)
    tb, eb = _pair(b)
    tout, eout = f(torch, ta, tb), f(ember, ea, eb)
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == "complex128" else dict(rtol=1e-5, atol=1e-5)
    _close(eout, tout, **tol)
    assert str(eout.dtype).split(".")[-1] == dtype
    g = _c(tuple(tout.shape)).astype(dtype)
    tout.backward(torch.tensor(g))
    eout.backward(ember.tensor(g))
    _close(ea.grad, ta.grad, **tol)
    _close(eb.grad, tb.grad, **tol)


def test_complex_matmul_of_mixed_dtypes_is_refused():
    with pytest.raises(RuntimeError, match="mm"):
        ember.mm(ember.ones(2, 2, dtype=ember.complex64), ember.ones(2, 2))
