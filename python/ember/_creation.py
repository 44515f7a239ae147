"""Module-level functions of ember that are not operators: tensor(), seeds, predicates."""
from __future__ import annotations

import builtins

import numpy as np

from ember import _C
from ember._tensor import Tensor


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new tensor copied from data: nested sequences of numbers, a tensor or an array."""
    return _C.tensor(data, dtype=dtype, device=device, requires_grad=requires_grad,
                     pin_memory=pin_memory)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """data as a tensor, sharing memory where it can (tensors, numpy arrays)."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype or data.dtype, device=device)
    if isinstance(data, np.ndarray) and (data.dtype.isnative or data.dtype.itemsize == 1):
        try:
            t = _C.from_numpy(data)
        except (TypeError, ValueError):
            return tensor(data, dtype=dtype, device=device)
        return t.to(dtype=dtype or t.dtype, device=device)
    return tensor(data, dtype=dtype, device=device)


def is_tensor(obj) -> builtins.bool:
    """Whether obj is an ember.Tensor."""
    return isinstance(obj, _C.TensorBase)


def is_floating_point(t: Tensor) -> builtins.bool:
    return t.is_floating_point()


def is_complex(t: Tensor) -> builtins.bool:
    return t.is_complex()


def numel(t: Tensor) -> builtins.int:
    """The number of elements of t."""
    return t.numel()


def manual_seed(seed) -> _C.Generator:
    """Seeds the default CPU generator and, as torch's, every loaded backend's device
    generator (ember.<backend>.manual_seed); returns the CPU one."""
    seed = builtins.int(seed)
    g = _C.default_generator.manual_seed(seed)
    for name in _C._backend_loaded():
        try:
            _C._backend_manual_seed(name, seed)
        except TypeError:  # a backend without a generator hook: nothing to seed
            pass
    return g


def seed() -> builtins.int:
    """Seeds the default generator non-deterministically; returns the seed."""
    return _C.default_generator.seed()


def initial_seed() -> builtins.int:
    return _C.default_generator.initial_seed()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None) -> None:
    """torch.set_printoptions: precision, threshold, edgeitems, linewidth, profile, sci_mode."""
    o = _C._get_printoptions()
    if profile == "default":
        o.update(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    elif profile == "short":
        o.update(precision=2, threshold=1000, edgeitems=2, linewidth=80)
    elif profile == "full":
        o.update(precision=4, threshold=float("inf"), edgeitems=3, linewidth=80)
    elif profile is not None:
        raise ValueError(f"set_printoptions(): unknown profile '{profile}'")
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("linewidth", linewidth)):
        if v is not None:
            o[k] = v
    o["sci_mode"] = sci_mode
    _C._set_printoptions(o["precision"], o["threshold"], o["edgeitems"], o["linewidth"],
                         o["sci_mode"])


def _numpy_view(t: Tensor) -> np.ndarray:
    if t.dtype == _C.bfloat16:
        t = t.float()
    return t.numpy(force=True)


def equal(a: Tensor, b: Tensor) -> builtins.bool:
    """Whether a and b have the same size and elements (torch.equal)."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(f"equal(): expected two Tensors, but got {type(a).__name__} and "
                        f"{type(b).__name__}")
    if a.shape != b.shape:
        return False
    # Until the comparison kernels land, numpy compares the shared memory.
    return builtins.bool(np.array_equal(_numpy_view(a), _numpy_view(b)))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: builtins.bool = False) -> builtins.bool:
    """Whether |input - other| <= atol + rtol * |other| elementwise, with broadcasting."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(f"allclose(): expected two Tensors, but got {type(input).__name__} and "
                        f"{type(other).__name__}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"allclose(): expected both inputs to have the same dtype, but got "
                           f"{input.dtype} and {other.dtype}")
    try:
        return builtins.bool(np.allclose(_numpy_view(input), _numpy_view(other), rtol=rtol,
                                         atol=atol, equal_nan=equal_nan))
    except ValueError as e:
        raise RuntimeError(f"allclose(): the shapes {tuple(input.shape)} and "
                           f"{tuple(other.shape)} do not broadcast") from e
