"""ember.testing.assert_close: torch.testing.assert_close's checks and messages."""
from __future__ import annotations

import math

import numpy as np

from ember import _C

# PyTorch's default (rtol, atol) per dtype.
_TOLERANCES = {
    _C.float16: (1e-3, 1e-5), _C.bfloat16: (1.6e-2, 1e-5), _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7), _C.complex64: (1.3e-6, 1e-5), _C.complex128: (1e-7, 1e-7),
}


def _as_array(t) -> np.ndarray:
    if t.dtype == _C.bfloat16:
        t = t.float()
    return np.asarray(t.numpy(force=True))


def assert_close(actual, expected, *, rtol=None, atol=None, equal_nan=False, check_device=True,
                 check_dtype=True, check_layout=True, check_stride=False, msg=None) -> None:
    """Raises AssertionError unless actual and expected are close: same type, shape, dtype
    and device (unless told otherwise), and |actual - expected| <= atol + rtol * |expected|."""
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_device=check_device, check_dtype=check_dtype, msg=msg)
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        if actual.keys() != expected.keys():
            raise AssertionError(f"The keys of the mappings do not match: {sorted(actual)} != {sorted(expected)}")
        for k in actual:
            assert_close(actual[k], expected[k], rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_device=check_device, check_dtype=check_dtype, msg=msg)
        return
    is_t = isinstance(actual, _C.TensorBase)
    if is_t != isinstance(expected, _C.TensorBase):
        raise TypeError(f"No comparison pair was able to handle inputs of type "
                        f"{type(actual)} and {type(expected)}.")
    if not is_t:
        if not all(isinstance(x, (int, float, complex, bool)) for x in (actual, expected)):
            raise TypeError(f"No comparison pair was able to handle inputs of type "
                            f"{type(actual)} and {type(expected)}.")
        if type(actual) is not type(expected) and check_dtype:
            raise AssertionError(f"The values for attribute 'type' do not match: "
                                 f"{type(actual)} != {type(expected)}.")
        r, a = (rtol, atol) if rtol is not None else ((1e-7, 1e-7) if isinstance(expected, (float, complex)) else (0.0, 0.0))
        if equal_nan and isinstance(actual, float) and math.isnan(actual) and math.isnan(expected):
            return
        if not abs(actual - expected) <= a + r * abs(expected):
            raise AssertionError(msg or f"Scalars are not close!\n\nExpected {expected} but got "
                                 f"{actual}.\nAbsolute difference: {abs(actual - expected)} "
                                 f"(up to {a} allowed)\nRelative difference: "
                                 f"{abs(actual - expected) / abs(expected) if expected else math.inf} "
                                 f"(up to {r} allowed)")
        return
    if actual.shape != expected.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: "
                             f"{actual.shape} != {expected.shape}.")
    if check_device and actual.device != expected.device:
        raise AssertionError(msg or f"The values for attribute 'device' do not match: "
                             f"{actual.device} != {expected.device}.")
    if check_dtype and actual.dtype != expected.dtype:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: "
                             f"{actual.dtype} != {expected.dtype}.")
    if check_stride and actual.stride() != expected.stride():
        raise AssertionError(msg or f"The values for attribute 'stride()' do not match: "
                             f"{actual.stride()} != {expected.stride()}.")
    if rtol is None:
        ra = [_TOLERANCES.get(t, (0.0, 0.0)) for t in (actual.dtype, expected.dtype)]
        rtol, atol = max(r for r, _ in ra), max(a for _, a in ra)
    a, e = _as_array(actual), _as_array(expected)
    if a.dtype == np.bool_:
        a, e = a.astype(np.int64), e.astype(np.int64)
    common = np.promote_types(a.dtype, e.dtype)
    if common.kind in "iu":
        common = np.dtype(np.float64)
    a, e = a.astype(common), e.astype(common)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - e)
        ok = diff <= atol + rtol * np.abs(e)
        ok |= a == e  # equal infinities
        if equal_nan:
            ok |= np.isnan(a) & np.isnan(e)
    if ok.all():
        return
    bad = ~ok
    n_bad, n = int(bad.sum()), ok.size
    diff = np.where(np.isnan(diff), np.inf, diff)
    i_abs = np.unravel_index(int(np.argmax(np.where(bad, diff, -1))), ok.shape) if ok.ndim else ()
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(np.abs(e) > 0, diff / np.abs(e), np.inf)
    i_rel = np.unravel_index(int(np.argmax(np.where(bad, rel, -1))), ok.shape) if ok.ndim else ()
    where = (lambda i: f" at index {tuple(int(x) for x in i)}") if ok.ndim else (lambda i: "")
    text = (f"Tensor-likes are not close!\n\nMismatched elements: {n_bad} / {n} "
            f"({100.0 * n_bad / n:.1f}%)\n"
            f"Greatest absolute difference: {diff[i_abs] if ok.ndim else float(diff)}{where(i_abs)} "
            f"(up to {atol} allowed)\n"
            f"Greatest relative difference: {rel[i_rel] if ok.ndim else float(rel)}{where(i_rel)} "
            f"(up to {rtol} allowed)")
    raise AssertionError(msg or text)
