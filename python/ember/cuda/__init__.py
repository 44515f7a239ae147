"""ember.cuda: torch.cuda's API on a build without CUDA (the only build so far).

Queries answer as PyTorch's CPU build does (no devices, nothing allocated), the seeding
calls do nothing, and whatever needs a device raises ember.errors.NotCompiledError("Ember not
compiled with CUDA enabled"): an AssertionError, as PyTorch raises there.
"""
from __future__ import annotations

import builtins

from ember import _C
from ember.cuda import amp  # noqa: F401
from ember.errors import NOT_COMPILED, NotCompiledError


def _no_cuda(*args, **kwargs):
    raise NotCompiledError(NOT_COMPILED)


def is_available() -> bool:
    """Whether a CUDA device can be used: the driver reports one (never in a build without
    CUDA; ember._C._cuda_unavailable_reason() says why not)."""
    return _C._cuda_device_count() > 0


def is_initialized() -> bool:
    return False


def device_count() -> int:
    """The number of CUDA devices the driver reports: 0 without a driver or a CUDA build."""
    return _C._cuda_device_count()


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_tf32_supported() -> bool:
    return False


def get_arch_list() -> list:
    return []


def manual_seed(seed) -> None:
    """Seeds the current CUDA device's generator: nothing to seed here (as PyTorch's CPU build)."""
    builtins.int(seed)


def manual_seed_all(seed) -> None:
    """Seeds every CUDA device's generator: nothing to seed here."""
    builtins.int(seed)


def seed() -> None:
    """Seeds the current CUDA device non-deterministically: nothing to seed here."""


def seed_all() -> None:
    """Seeds every CUDA device non-deterministically: nothing to seed here."""


def empty_cache() -> None:
    """Releases the cached CUDA memory: none is held."""


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


def memory_stats(device=None) -> dict:
    return {}


def reset_peak_memory_stats(device=None) -> None:
    """Resets the peak counters: all zero already."""


def get_rng_state_all() -> list:
    return []


def set_rng_state_all(new_states) -> None:
    """Sets each device's generator state: there are no devices."""


def set_device(device) -> None:
    """Selects the current CUDA device; a negative index does nothing (as PyTorch)."""
    if isinstance(device, (str, _C.device)):
        d = _C.device(device)
        if d.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {d}")
        index = 0 if d.index is None else d.index
    else:
        index = builtins.int(device)
    if index >= 0:
        _no_cuda()


class device:
    """Context manager selecting a CUDA device; device -1 (or None) selects nothing."""

    def __init__(self, device) -> None:
        self.idx = -1 if device is None else (
            _C.device(device).index if isinstance(device, (str, _C.device)) else builtins.int(device))
        if self.idx is None:
            self.idx = 0

    def __enter__(self) -> None:
        if self.idx >= 0:
            _no_cuda()

    def __exit__(self, *exc) -> bool:
        return False


class device_of(device):
    """Context manager selecting the device of a tensor: nothing for a CPU tensor."""

    def __init__(self, obj) -> None:
        super().__init__(obj.get_device() if obj.is_cuda else -1)


# What needs a device (all of it raises NotCompiledError, an AssertionError as in PyTorch).
current_device = get_device_name = get_device_capability = get_device_properties = _no_cuda
init = synchronize = initial_seed = get_rng_state = set_rng_state = _no_cuda
current_stream = default_stream = mem_get_info = ipc_collect = _no_cuda
