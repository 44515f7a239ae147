"""ember.amp: torch.autocast's context manager, which validates its arguments and keeps the
per-device state (is_autocast_enabled, get_autocast_dtype) as PyTorch does, but does not cast
yet: ops inside run in their inputs' dtypes, and entering an enabled region warns so.

Casting needs an Autocast dispatch key in C++ (ops of PyTorch's lower-precision list, such as
matmul, mm, addmm, linear and conv, to cast their floating inputs first), not yet built.
"""
from __future__ import annotations

import functools
import warnings

from ember import _C

DEVICE_TYPES = ("cpu", "cuda", "meta", "xpu", "mps", "hpu", "mtia", "privateuseone")
DEFAULT_DTYPES = {"cpu": _C.bfloat16}
CPU_DTYPES = (_C.bfloat16, _C.float16)
_state: dict[str, tuple[bool, object]] = {}  # device type -> (enabled, dtype)


def _device_type(device_type) -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    name = device_type.split(":")[0]
    if name not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of "
                           f"device string: {device_type}")
    return name


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether an enabled autocast region for device_type ("cuda" when None) is open."""
    return _state.get(_device_type(device_type or "cuda"), (False, None))[0]


def get_autocast_dtype(device_type: str) -> _C.dtype:
    """The dtype autocast regions of device_type cast to (bfloat16 on the CPU, else float16)."""
    name = _device_type(device_type)
    return _state.get(name, (False, DEFAULT_DTYPES.get(name, _C.float16)))[1]


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None): a region
    (or decorator) of mixed precision. Records the region's state only: no op casts yet."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        self.device = _device_type(device_type)
        if dtype is not None and not isinstance(dtype, _C.dtype):
            raise TypeError(f"autocast(): expected 'dtype' to be an ember.dtype, but got "
                            f"{type(dtype).__name__}")
        self.fast_dtype = dtype if dtype is not None else get_autocast_dtype(self.device)
        self._enabled = bool(enabled)
        if self._enabled and self.device == "cpu" and self.fast_dtype not in CPU_DTYPES:
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                          "autocast.\nCPU Autocast only supports dtypes of ember.bfloat16, "
                          "ember.float16 currently.", stacklevel=2)
            self._enabled = False
        elif self._enabled and self.device != "cpu":
            what = "CUDA is" if self.device == "cuda" else f"no {self.device} device is"
            warnings.warn(f"autocast(): {what} not available (Ember was built without it). "
                          f"Disabling autocast.", stacklevel=2)
            self._enabled = False

    def __enter__(self) -> "autocast":
        if self._enabled:
            warnings.warn("autocast(): Ember does not cast inside autocast regions yet; ops run "
                          "in their inputs' dtypes", stacklevel=2)
        self._before = _state.get(self.device)
        _state[self.device] = (self._enabled, self.fast_dtype)
        return self

    def __exit__(self, *exc) -> bool:
        if self._before is None:
            del _state[self.device]
        else:
            _state[self.device] = self._before
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled):
                return function(*args, **kwargs)
        return wrapper
