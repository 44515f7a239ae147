"""ember.accelerator: torch.accelerator's API on a build without an accelerator (the CPU is not
one): nothing is available, and what needs a device raises RuntimeError, as PyTorch's CPU
build does."""
from __future__ import annotations

NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def _none_available(*args, **kwargs):
    raise RuntimeError(NONE_AVAILABLE)


def is_available() -> bool:
    """Whether an accelerator (CUDA, an out-of-tree device) can be used: not in this build."""
    return False


def device_count() -> int:
    """The number of accelerator devices: 0."""
    return 0


def current_accelerator(check_available: bool = False):
    """The accelerator's device type as an ember.device, or None when there is none."""
    return None


class device_index:
    """Context manager selecting an accelerator device; None selects nothing."""

    def __init__(self, device, /) -> None:
        self.idx = device

    def __enter__(self) -> None:
        if self.idx is not None:
            _none_available()

    def __exit__(self, *exc) -> bool:
        return False


current_device_index = current_device_idx = set_device_index = set_device_idx = _none_available
synchronize = current_stream = set_stream = empty_cache = _none_available
memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _none_available
memory_stats = reset_peak_memory_stats = get_memory_info = _none_available
