"""ember.nn.attention: SDPBackend and the sdpa_kernel context manager that chooses which backends
scaled_dot_product_attention may use. On the CPU, MATH always applies and FLASH_ATTENTION applies
to 4-d query, key and value; the others are GPU backends."""
import contextlib
import enum
import warnings

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS", "register_flash_attention_impl",
           "activate_flash_attention_impl", "list_flash_attention_impls", "current_flash_attention_impl",
           "restore_flash_attention_impl"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The scaled_dot_product_attention implementations, numbered as PyTorch numbers them."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_ALL = [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
        SDPBackend.MATH, SDPBackend.OVERRIDEABLE]
_enabled = list(_ALL)


def _cur_sdpa_kernel_backends():
    """The backends sdpa may use now."""
    return list(_enabled)


def _check_sdpa_backend(query, key, value):
    """Raises as PyTorch's CPU dispatcher does when no enabled backend can run these inputs."""
    if SDPBackend.MATH in _enabled:
        return
    if SDPBackend.FLASH_ATTENTION in _enabled:
        if query.dim() == key.dim() == value.dim() == 4:
            return
        raise RuntimeError("No available kernel.  Aborting execution.")
    raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                       "turning off both the math kernel and the fused kernels.")


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Within the block, scaled_dot_product_attention uses only the given backend(s)."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    global _enabled
    previous = _enabled
    _enabled = list(dict.fromkeys(backends))
    try:
        yield {}
    finally:
        _enabled = previous


_impls = {}
_active = [None]


def register_flash_attention_impl(impl, *, register_fn):
    """Registers a named flash-attention implementation (a GPU feature; kept for the API's sake)."""
    _impls[impl] = register_fn


def activate_flash_attention_impl(impl):
    """Activates a registered flash-attention implementation."""
    if impl not in _impls:
        raise ValueError(f"Unknown flash attention impl {impl!r}; registered: {sorted(_impls)}")
    _impls[impl]()
    _active[0] = impl


def list_flash_attention_impls():
    """The names of the registered flash-attention implementations."""
    return sorted(_impls)


def current_flash_attention_impl():
    """The active flash-attention implementation's name, or None for the built-in one."""
    return _active[0]


def restore_flash_attention_impl(_raise_warn: bool = True):
    """Back to the built-in flash-attention implementation."""
    if _active[0] is None and _raise_warn:
        warnings.warn("Trying to restore default FA2 impl when no custom impl was activated", stacklevel=2)
    _active[0] = None
