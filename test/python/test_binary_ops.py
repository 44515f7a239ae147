"""Python operators of the binary ops (//, %, **, &, |, ^, <<, >>, ~ and their reflected and
in-place forms) against PyTorch: values, dtype and the class of any error."""
from __future__ import annotations

import operator

import numpy as np
import pytest
import torch

import ember

INT = [7, -7, 3, 0, -1, 5]
FLOAT = [7.5, -7.5, 0.25, -0.0, float("inf"), float("nan")]
DIVISOR_INT = [2, -2, 3, -3, 1, -1]
DIVISOR_FLOAT = [2.0, -2.0, 0.5, -0.25, 0.0, float("nan")]


def pair(values, dtype: str):
    """The same values as an (ember, torch) pair of tensors."""
    return (ember.tensor(values, dtype=getattr(ember, dtype)),
            torch.tensor(values, dtype=getattr(torch, dtype)))


def outcome(fn, *args):
    """(result, None) or (None, error) of fn(*args)."""
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return None, e


def assert_same(e_result, t_result):
    """Equal dtype and values (NaN equal to NaN, floats within 1e-6)."""
    assert str(e_result.dtype).split(".")[1] == str(t_result.dtype).split(".")[1]
    a = np.asarray(e_result.float().numpy() if e_result.dtype == ember.bfloat16 else e_result.numpy())
    b = t_result.float().numpy() if t_result.dtype == torch.bfloat16 else t_result.numpy()
    if a.dtype.kind in "fc":
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, b)


def check(fn, e_args, t_args):
    """fn over Ember's arguments does what it does over PyTorch's."""
    e, e_err = outcome(fn, *e_args)
    t, t_err = outcome(fn, *t_args)
    if t_err is not None:
        assert e_err is not None, f"Ember returned {e!r}; PyTorch raised {t_err!r}"
        cls = next(c for c in (TypeError, NotImplementedError, RuntimeError, ValueError)
                   if isinstance(t_err, c))
        assert isinstance(e_err, cls), f"Ember raised {e_err!r}; PyTorch raised {t_err!r}"
        return
    assert e_err is None, f"Ember raised {e_err!r}; PyTorch returned {t!r}"
    assert_same(e, t)


BINARY = [operator.floordiv, operator.mod, operator.pow, operator.and_, operator.or_,
          operator.xor, operator.lshift, operator.rshift]


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("int32", "int8"), ("float32", "float32"),
                                    ("float64", "int64"), ("bool", "bool"), ("uint8", "int64"),
                                    ("float16", "float32")])
def test_tensor_tensor(op, dtypes):
    a_values = FLOAT if dtypes[0].startswith("float") else INT
    b_values = DIVISOR_FLOAT if dtypes[1].startswith("float") else DIVISOR_INT
    if dtypes[0] == "bool":
        a_values = [True, False, True, True, False, False]
    if dtypes[1] == "bool":
        b_values = [True, True, True, True, True, True]
    if dtypes[0] == "uint8":
        a_values = [abs(v) for v in INT]
    ea, ta = pair(a_values, dtypes[0])
    eb, tb = pair(b_values, dtypes[1])
    check(op, (ea, eb), (ta, tb))


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("number", [2, -3, 0.5, True, 0])
@pytest.mark.parametrize("dtype", ["int64", "float32", "int16", "bool"])
def test_tensor_number_and_reflected(op, number, dtype):
    values = {"bool": [True, False, True, False, True, True], "float32": FLOAT}.get(dtype, INT)
    e, t = pair(values, dtype)
    check(op, (e, number), (t, number))
    check(lambda x, n: op(n, x), (e, number), (t, number))


@pytest.mark.parametrize("name", ["ifloordiv", "imod", "ipow", "iand", "ior", "ixor", "ilshift",
                                  "irshift"])
@pytest.mark.parametrize("other", [2, 3, 1.5, "tensor"])
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_inplace(name, other, dtype):
    """a op= b changes a in place (the same object) or raises before writing anything."""
    e, t = pair(INT, dtype)
    eo, to = (pair(DIVISOR_INT, "int32") if other == "tensor" else (other, other))
    fn = getattr(operator, name)
    e_before = e.clone()
    e_result, e_err = outcome(fn, e, eo)
    t_result, t_err = outcome(fn, t, to)
    assert (e_err is None) == (t_err is None), (e_err, t_err)
    if t_err is None:
        assert e_result is e
        assert_same(e, t)
    else:
        assert np.array_equal(e.numpy(), e_before.numpy()), "a failed in-place op wrote to a"


@pytest.mark.parametrize("dtype", ["int64", "uint8", "int8", "bool", "float32", "complex64"])
def test_invert(dtype):
    values = [True, False, True] if dtype == "bool" else [0, 5, 100]
    e, t = pair(values, dtype)
    check(operator.invert, (e,), (t,))


def test_integer_division_by_zero_raises_before_writing():
    e = ember.tensor([4, 5, 6])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        e //= ember.tensor([1, 0, 1])
    assert e.tolist() == [4, 5, 6]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        e % 0


def test_integer_negative_power_refused():
    with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
        ember.tensor([2, 3]) ** -1
    assert (ember.tensor([2, 3]) ** -1.0).dtype == ember.float32


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.parametrize("number", [1, 2.5, -3, True, 1 + 1j])
@pytest.mark.parametrize("dtype", ["float16", "int8", "float64", "bool"])
def test_reflected_floordiv_promotes_like_a_number(number, dtype):
    """`number // t` has PyTorch's dtype (the number stays weak, also for 0-d tensors)."""
    for values in ([3, 1, 2], 2):
        e, t = pair(values if dtype != "bool" else [True, True, True] if values != 2 else True, dtype)
        check(lambda x, n: n // x, (e, number), (t, number))


@pytest.mark.parametrize("op", [operator.sub, operator.truediv], ids=lambda f: f.__name__)
@pytest.mark.parametrize("number", [2, -3, 0.5, True, 1 + 2j])
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "uint8", "bool", "complex64"])
def test_number_first_sub_and_div(op, number, dtype):
    """number - tensor and number / tensor: dtype, values and refusals as PyTorch's. (Complex
    zeros and NaN are left out: 1/(0+0j) times a number is inf+infj here, C++'s complex
    product, and nan+nanj in PyTorch.)"""
    values = {"bool": [True, False, True, False, True, True], "float32": FLOAT,
              "float64": FLOAT, "complex64": [2.0, -2.0, 0.5, -0.25, 3.0, -1.5], "uint8": [abs(v) for v in DIVISOR_INT]
              }.get(dtype, DIVISOR_INT)
    e, t = pair(values, dtype)
    check(lambda x, n: op(n, x), (e, number), (t, number))
