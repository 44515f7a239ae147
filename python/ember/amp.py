"""ember.amp: torch.autocast. A CPU region casts as PyTorch's does: the AutocastCPU dispatch
layer (aten/amp/Autocast.h) casts the floating inputs of the ops on PyTorch's CPU lists
(matmul, linear, convolution, ... to the region's dtype; the losses, prod, the LAPACK and FFT
ops to float32; cat and stack to their widest dtype). The state is per thread, as PyTorch's.
Other device types keep their state only: this build has no such device, and an enabled
region for one warns and disables itself, as PyTorch's does without the device.
"""
from __future__ import annotations

import functools
import threading
import warnings

from ember import _C

DEVICE_TYPES = ("cpu", "cuda", "meta", "xpu", "mps", "hpu", "mtia", "privateuseone")
DEFAULT_DTYPES = {"cpu": _C.bfloat16}
CPU_DTYPES = (_C.bfloat16, _C.float16)
_local = threading.local()  # .state: device type -> (enabled, dtype), for the non-CPU types


def _states() -> dict:
    if not hasattr(_local, "state"):
        _local.state = {}
    return _local.state


def _get(name: str):
    if name == "cpu":
        enabled, dtype = _C._get_autocast_cpu()
        return (enabled, dtype)
    return _states().get(name, (False, DEFAULT_DTYPES.get(name, _C.float16)))


def _set(name: str, state) -> None:
    if name == "cpu":
        _C._set_autocast_cpu(*state)
    else:
        _states()[name] = state


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
    return _get(_device_type(device_type or "cuda"))[0]


def get_autocast_dtype(device_type: str) -> _C.dtype:
    """The dtype autocast regions of device_type cast to (bfloat16 on the CPU, else float16)."""
    return _get(_device_type(device_type))[1]


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None): a region
    (or decorator) of mixed precision: inside an enabled CPU region, the ops on PyTorch's
    lists run in the region's dtype (or float32). cache_enabled is accepted; Ember casts
    afresh at each call (the same numbers as PyTorch's weight cache gives)."""

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
        self._before = _get(self.device)
        _set(self.device, (self._enabled, self.fast_dtype))
        return self

    def __exit__(self, *exc) -> bool:
        _set(self.device, self._before)
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled):
                return function(*args, **kwargs)
        return wrapper
