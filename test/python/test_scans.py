"""The scan family (cumsum, cumprod, cummax, cummin, logcumsumexp) against PyTorch: result
dtypes, ties and NaN, cumprod's gradient through zeros, logcumsumexp at large magnitudes and
-inf, out=, in-place forms, 0-d, empty and non-contiguous inputs, and bad arguments."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
          "bool", "complex64", "complex128")
VALUES = [[1, 2, 0, 3], [2, 1, 1, 2], [0, 3, 2, 1]]


def pair(values, dtype: str, requires_grad: bool = False):
    """The same values as an (ember, torch) pair of tensors."""
    return (ember.tensor(values, dtype=getattr(ember, dtype), requires_grad=requires_grad),
            torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=requires_grad))


def to_numpy(t):
    t = t.detach()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return np.asarray(t.numpy())


def assert_same(e, t, rtol=1e-6, atol=1e-6):
    """Equal dtype, shape and values (NaN equal to NaN)."""
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    a, b = to_numpy(e), to_numpy(t)
    if a.dtype.kind in "fc":
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, b)


def same_error(fn_e, fn_t, match: str | None = None):
    """Both raise, the same class (Ember's message matching `match`)."""
    with pytest.raises(Exception) as te:
        fn_t()
    with pytest.raises(type(te.value), match=match):
        fn_e()


# ---- dtypes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_like_result_dtypes(op, dtype):
    e, t = pair(VALUES, dtype)
    for dim in (0, 1, -1):
        assert_same(getattr(ember, op)(e, dim), getattr(torch, op)(t, dim), rtol=1e-2)
        assert_same(getattr(e, op)(dim), getattr(t, op)(dim), rtol=1e-2)


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int8", "complex64", "float16"])
def test_sum_like_dtype_argument(op, dtype):
    e, t = pair(VALUES, "int64")
    assert_same(getattr(ember, op)(e, 1, dtype=getattr(ember, dtype)),
                getattr(torch, op)(t, 1, dtype=getattr(torch, dtype)), rtol=1e-2)
    e, t = pair(VALUES, "float16")
    assert_same(getattr(ember, op)(e, 1, dtype=getattr(ember, dtype)),
                getattr(torch, op)(t, 1, dtype=getattr(torch, dtype)), rtol=1e-2)


def test_float32_accumulates_in_double():
    # As PyTorch's CPU kernel: 1e30 * 1e30 overflows float32, not the running product.
    e, t = pair([1e30, 1e30, 1e-30, 1e-30], "float32")
    assert_same(ember.cumprod(e, 0), torch.cumprod(t, 0))
    e, t = pair([1.0, 1e8, 1.0, -1e8, 1.0], "float32")
    assert_same(ember.cumsum(e, 0), torch.cumsum(t, 0))


def test_16_bit_floats_accumulate_in_float():
    e, t = pair([0.1] * 3000, "float16")
    assert_same(ember.cumsum(e, 0), torch.cumsum(t, 0))
    e, t = pair([0.01] * 3000, "bfloat16")
    assert_same(ember.cumsum(e, 0), torch.cumsum(t, 0))


def test_integer_overflow_wraps_as_pytorch():
    e, t = pair([100, 100, 100], "int8")
    assert_same(ember.cumsum(e, 0, dtype=ember.int8), torch.cumsum(t, 0, dtype=torch.int8))
    assert_same(ember.cumprod(e, 0, dtype=ember.int8), torch.cumprod(t, 0, dtype=torch.int8))


def test_bool_result_is_refused():
    e, t = pair([True, False], "bool")
    same_error(lambda: ember.cumsum(e, 0, dtype=ember.bool), lambda: torch.cumsum(t, 0, dtype=torch.bool),
               "cumsum")


# ---- long rows and blocks ---------------------------------------------------------------------

@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp"])
@pytest.mark.parametrize("shape,dim", [((100003,), 0), ((7, 1031), 1), ((1031, 7), 0), ((3, 600, 5), 1),
                                       ((600, 300), 0)])
def test_large_inputs(op, shape, dim):
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 1.5, shape) if op == "cumprod" else rng.standard_normal(shape)
    for dtype in ("float32", "float64"):
        e, t = ember.tensor(a, dtype=getattr(ember, dtype)), torch.tensor(a, dtype=getattr(torch, dtype))
        tol = 1e-5 if dtype == "float32" else 1e-10
        assert_same(getattr(ember, op)(e, dim), getattr(torch, op)(t, dim), rtol=tol, atol=tol)


def test_several_threads_give_the_same_values():
    a = np.random.default_rng(1).standard_normal((64, 2000))
    e = ember.tensor(a)
    threads = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        one = [ember.cumsum(e, d).numpy() for d in (0, 1)]
        ember.set_num_threads(max(2, threads))
        many = [ember.cumsum(e, d).numpy() for d in (0, 1)]
    finally:
        ember.set_num_threads(threads)
    for x, y in zip(one, many):
        np.testing.assert_array_equal(x, y)


# ---- cummax / cummin --------------------------------------------------------------------------

NAN = float("nan")


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int8",
                                   "uint8", "bool"])
def test_ties_keep_the_last_index(op, dtype):
    values = [[1, 3, 3, 2, 3, 1], [2, 2, 0, 0, 2, 3]]
    if dtype == "bool":
        values = [[True, False, True, True, False, False], [False, False, True, False, True, True]]
    e, t = pair(values, dtype)
    for dim in (0, 1):
        ev, ei = getattr(ember, op)(e, dim)
        tv, ti = getattr(torch, op)(t, dim)
        assert_same(ev, tv)
        assert_same(ei, ti)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_nan_propagates_and_takes_the_index(op, dtype):
    e, t = pair([1.0, 3.0, NAN, 5.0, NAN, -1.0, float("inf"), float("-inf")], dtype)
    ev, ei = getattr(ember, op)(e, 0)
    tv, ti = getattr(torch, op)(t, 0)
    assert_same(ev, tv)
    assert_same(ei, ti)


def test_named_tuples():
    e = ember.tensor([[1.0, 3.0], [2.0, 0.0]])
    r = e.cummax(0)
    assert type(r).__name__ == "cummax" and r.values is r[0] and r.indices is r[1]
    r = ember.cummin(e, 1)
    assert type(r).__name__ == "cummin"
    assert r.indices.tolist() == [[0, 0], [0, 1]]


def test_minmax_refuses_complex():
    e, t = pair([1 + 1j, 2], "complex64")
    for op in ("cummax", "cummin"):
        same_error(lambda: getattr(ember, op)(e, 0), lambda: getattr(torch, op)(t, 0), op)


# ---- logcumsumexp -----------------------------------------------------------------------------

def test_logcumsumexp_large_magnitudes_and_infinities():
    inf = float("inf")
    for values in ([1e4, 1e4 + 1, -1e4, 3.0], [-inf, -inf, 0.0, inf, 1.0], [NAN, 0.0], [-inf, 2.0, -inf],
                   [1e38, 1e38, -1e38]):
        for dtype in ("float32", "float64"):
            e, t = pair(values, dtype)
            assert_same(ember.logcumsumexp(e, 0), torch.logcumsumexp(t, 0))


def test_logcumsumexp_complex():
    inf = float("inf")
    for values in ([1 + 1j, complex(-inf, 0), 2 - 3j], [0.5 + 0.25j, -1 - 2j, 3 + 0.5j, 1j],
                   [complex(-inf, 0), complex(-inf, 0), 1 + 0j]):
        e, t = pair(values, "complex64")
        assert_same(ember.logcumsumexp(e, 0), torch.logcumsumexp(t, 0), rtol=1e-5, atol=1e-5)
        e, t = pair(values, "complex128")
        assert_same(ember.logcumsumexp(e, 0), torch.logcumsumexp(t, 0))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_logcumsumexp_16_bit(dtype):
    e, t = pair([[0.5, 1.0, -2.0], [3.0, 0.25, 8.0]], dtype)
    assert_same(ember.logcumsumexp(e, 1), torch.logcumsumexp(t, 1), rtol=1e-2)


@pytest.mark.parametrize("dtype", ["int64", "bool", "int8"])
def test_logcumsumexp_refuses_integers(dtype):
    e, t = pair([1, 0, 1], dtype)
    same_error(lambda: ember.logcumsumexp(e, 0), lambda: torch.logcumsumexp(t, 0), "logcumsumexp")


# ---- gradients --------------------------------------------------------------------------------

ZERO_CASES = [
    [2.0, 3.0, 0.0, 4.0, 5.0],     # one zero
    [0.0, 2.0, 3.0],                # a leading zero
    [2.0, 3.0, 0.0],                # a trailing zero
    [2.0, 0.0, 3.0, 0.0, 4.0],      # two zeros
    [0.0, 0.0, 0.0],                # only zeros
    [1.5, -2.0, 0.5, 3.0],          # none
]


@pytest.mark.parametrize("values", ZERO_CASES)
def test_cumprod_gradient_through_zeros(values):
    g = [1.0, -2.0, 0.5, 3.0, 0.25][:len(values)]
    e, t = pair(values, "float64", requires_grad=True)
    ember.cumprod(e, 0).backward(ember.tensor(g, dtype=ember.float64))
    torch.cumprod(t, 0).backward(torch.tensor(g, dtype=torch.float64))
    assert_same(e.grad, t.grad, rtol=1e-12, atol=1e-12)
    x = ember.tensor(values, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda v: ember.cumprod(v, 0), (x,))


def test_cumprod_gradient_2d_with_zeros():
    a = np.array([[0.0, 2.0, 1.5, 0.0], [1.0, 0.0, -2.0, 3.0], [0.5, 2.0, 0.0, 0.0]])
    for dim in (0, 1):
        e = ember.tensor(a, requires_grad=True)
        t = torch.tensor(a, requires_grad=True)
        ember.cumprod(e, dim).sum().backward()
        torch.cumprod(t, dim).sum().backward()
        assert_same(e.grad, t.grad, rtol=1e-12, atol=1e-12)
        x = ember.tensor(a, requires_grad=True)
        assert ember.autograd.gradcheck(lambda v: ember.cumprod(v, dim), (x,))
        # A transposed input takes the same derivative.
        xt = ember.tensor(a.T.copy(), requires_grad=True)
        assert ember.autograd.gradcheck(lambda v: ember.cumprod(v.t(), dim), (xt,))


@pytest.mark.parametrize("op", ["cumsum", "logcumsumexp", "cummax", "cummin"])
def test_gradients_against_pytorch(op):
    a = np.array([[0.5, 2.0, 2.0, -1.0], [1.0, 1.0, -2.0, 3.0], [0.25, 3.0, 0.0, 3.0]])
    g = np.array([[1.0, -2.0, 0.5, 3.0], [0.5, 0.25, -1.0, 2.0], [1.5, 1.0, -0.5, 0.0]])
    for dim in (0, 1, -1):
        e = ember.tensor(a, requires_grad=True)
        t = torch.tensor(a, requires_grad=True)
        ye, yt = getattr(ember, op)(e, dim), getattr(torch, op)(t, dim)
        if op.startswith("cumm"):
            ye, yt = ye.values, yt.values
        ye.backward(ember.tensor(g))
        yt.backward(torch.tensor(g))
        assert_same(e.grad, t.grad, rtol=1e-12, atol=1e-12)
        x = ember.tensor(a, requires_grad=True)
        fn = (lambda v: getattr(ember, op)(v, dim)[0]) if op.startswith("cumm") else \
            (lambda v: getattr(ember, op)(v, dim))
        if not op.startswith("cumm"):  # cummax/cummin have ties here (no derivative)
            assert ember.autograd.gradcheck(fn, (x,))


def test_logcumsumexp_gradient_large_magnitudes():
    inf = float("inf")
    for values in ([1e4, 1e4 + 1, -1e4, 3.0], [800.0, 801.0, -800.0], [-inf, 1.0, 2.0]):
        g = [1.0, -2.0, 0.5, 3.0][:len(values)]
        e, t = pair(values, "float64", requires_grad=True)
        ember.logcumsumexp(e, 0).backward(ember.tensor(g, dtype=ember.float64))
        torch.logcumsumexp(t, 0).backward(torch.tensor(g, dtype=torch.float64))
        assert_same(e.grad, t.grad, rtol=1e-10, atol=1e-12)
    x = ember.tensor([800.0, 801.0, -800.0, 799.5], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda v: ember.logcumsumexp(v, 0), (x,))


def test_cumsum_gradient_with_dtype_and_0d():
    e, t = pair([[1.0, 2.0], [3.0, 4.0]], "float32", requires_grad=True)
    ember.cumsum(e, 1, dtype=ember.float64).sum().backward()
    torch.cumsum(t, 1, dtype=torch.float64).sum().backward()
    assert_same(e.grad, t.grad)
    for op in ("cumsum", "cumprod", "logcumsumexp"):
        e, t = pair(2.5, "float64", requires_grad=True)
        getattr(ember, op)(e, 0).backward()
        getattr(torch, op)(t, 0).backward()
        assert_same(e.grad, t.grad)


def test_double_backward_of_cumprod():
    a = [[0.5, 2.0, 0.0], [1.5, -1.0, 2.0]]
    x = ember.tensor(a, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda v: ember.cumprod(v, 1), (x,))


def test_inplace_gradient():
    e, t = pair([[1.0, 2.0, 3.0], [4.0, 0.0, 6.0]], "float64", requires_grad=True)
    ye, yt = e * 1, t * 1
    ye.cumprod_(1)
    yt.cumprod_(1)
    ye.sum().backward()
    yt.sum().backward()
    assert_same(e.grad, t.grad)


# ---- shapes and layouts -----------------------------------------------------------------------

@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"])
def test_0d_empty_and_noncontiguous(op):
    def check(e, t, dim):
        re, rt = getattr(ember, op)(e, dim), getattr(torch, op)(t, dim)
        if op.startswith("cumm"):
            assert_same(re[0], rt[0])
            assert_same(re[1], rt[1])
        else:
            assert_same(re, rt)

    e, t = pair(2.5, "float32")
    check(e, t, 0)
    check(e, t, -1)
    same_error(lambda: getattr(ember, op)(e, 1), lambda: getattr(torch, op)(t, 1), op)
    for shape, dim in (((0,), 0), ((3, 0), 0), ((3, 0), 1), ((0, 4), 1)):
        check(ember.zeros(shape), torch.zeros(shape), dim)
    a = np.arange(24, dtype=np.float32).reshape(4, 6) / 4 - 2
    e, t = ember.tensor(a), torch.tensor(a)
    for view in (lambda x: x.t(), lambda x: x[:, ::2], lambda x: x[1:3], lambda x: x[:1].expand(5, 6)):
        for dim in (0, 1, -2):
            check(view(e), view(t), dim)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"])
def test_bad_dims(op):
    e, t = pair([[1.0, 2.0], [3.0, 4.0]], "float32")
    for dim in (2, -3):
        same_error(lambda: getattr(ember, op)(e, dim), lambda: getattr(torch, op)(t, dim),
                   rf"{op}\(\).*Dimension out of range")
    same_error(lambda: getattr(ember, op)(e, 0.5), lambda: getattr(torch, op)(t, 0.5))
    same_error(lambda: getattr(ember, op)(e), lambda: getattr(torch, op)(t))


# ---- out= and in-place ------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_sum_like_out(op):
    e, t = pair(VALUES, "int8")
    # out's dtype is the computation's; a wrong size is resized.
    for dtype, size in (("int32", (3, 4)), ("float64", (0,)), ("int64", (2,))):
        oe, ot = ember.empty(size, dtype=getattr(ember, dtype)), torch.empty(size, dtype=getattr(torch, dtype))
        re = getattr(ember, op)(e, 1, out=oe)
        with pytest.warns(UserWarning) if size == (2,) else _nothing():
            rt = getattr(torch, op)(t, 1, out=ot)
        assert re is oe
        assert_same(oe, ot)
        assert_same(re, rt)
    # A non-contiguous out keeps its strides.
    oe = ember.empty((4, 3)).t()
    ot = torch.empty((4, 3)).t()
    getattr(ember, op)(e, 0, out=oe)
    getattr(torch, op)(t, 0, out=ot)
    assert_same(oe, ot)
    assert oe.stride() == ot.stride()
    # dtype= must be out's.
    same_error(lambda: getattr(ember, op)(e, 0, dtype=ember.int32, out=ember.empty(3)),
               lambda: getattr(torch, op)(t, 0, dtype=torch.int32, out=torch.empty(3)), "dtype")


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_minmax_out(op):
    e, t = pair([[1.0, 3.0, 3.0], [2.0, 0.0, 5.0]], "float32")
    ve, ie = ember.empty(0), ember.empty(0, dtype=ember.int64)
    vt, it = torch.empty(0), torch.empty(0, dtype=torch.int64)
    re = getattr(ember, op)(e, 1, out=(ve, ie))
    rt = getattr(torch, op)(t, 1, out=(vt, it))
    assert re[0] is ve and re[1] is ie
    assert_same(ve, vt)
    assert_same(ie, it)
    for bad in ((ember.empty(0, dtype=ember.float64), ember.empty(0, dtype=ember.int64)),
                (ember.empty(0), ember.empty(0, dtype=ember.int32))):
        tbad = tuple(torch.empty(0, dtype=getattr(torch, str(b.dtype).split(".")[1])) for b in bad)
        same_error(lambda: getattr(ember, op)(e, 1, out=bad), lambda: getattr(torch, op)(t, 1, out=tbad),
                   "scalar_type")
    same_error(lambda: getattr(ember, op)(e, 1, out=(ve,)), lambda: getattr(torch, op)(t, 1, out=(vt,)))


def test_logcumsumexp_out():
    e, t = pair([[1.0, 3.0, 3.0], [2.0, 0.0, 5.0]], "float32")
    oe, ot = ember.empty(0), torch.empty(0)
    ember.logcumsumexp(e, 0, out=oe)
    torch.logcumsumexp(t, 0, out=ot)
    assert_same(oe, ot)
    same_error(lambda: ember.logcumsumexp(e, 0, out=ember.empty(0, dtype=ember.float64)),
               lambda: torch.logcumsumexp(t, 0, out=torch.empty(0, dtype=torch.float64)), "scalar_type")


@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "int8", "float16", "complex64"])
def test_inplace(op, dtype):
    e, t = pair(VALUES, dtype)
    for view in (lambda x: x, lambda x: x.t(), lambda x: x[:, 1:]):
        ve, vt = view(e), view(t)
        re = getattr(ve, op)(0)
        getattr(vt, op)(0)
        assert re is ve
        assert_same(e, t, rtol=1e-2)
    same_error(lambda: getattr(e, op)(0, dtype=ember.float64), lambda: getattr(t, op)(0, dtype=torch.float64),
               "in-place")
    same_error(lambda: getattr(e, op)(3), lambda: getattr(t, op)(3), "Dimension out of range")


def test_inplace_refuses_overlapping_self():
    e = ember.ones(1).expand(4)
    with pytest.raises(RuntimeError, match="more than one element"):
        e.cumsum_(0)
