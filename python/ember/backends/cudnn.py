"""ember.backends.cudnn: torch.backends.cudnn's flags on a build without cuDNN.

The flags keep PyTorch's defaults and can be set (programs set `benchmark = True` as a
matter of course), but no Ember kernel reads them: there is no cuDNN to configure.
"""
import sys
from contextlib import contextmanager

from ember.backends._flags import module_class

_state = {"enabled": True, "benchmark": False, "deterministic": False, "allow_tf32": True}
benchmark_limit = 10


def is_available() -> bool:
    """Whether cuDNN can be used: not in a build without CUDA."""
    return False


def is_acceptable(tensor) -> bool:
    """Whether cuDNN could run on tensor: never here."""
    return False


def version():
    """cuDNN's version: None when it is not built."""
    return None


@contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    """Sets every flag for the block (PyTorch's defaults for those not given), restoring
    them after."""
    module = sys.modules[__name__]
    before = dict(_state), module.benchmark_limit
    try:
        for name, value in (("enabled", enabled), ("benchmark", benchmark),
                            ("deterministic", deterministic), ("allow_tf32", allow_tf32)):
            setattr(module, name, value)
        module.benchmark_limit = benchmark_limit
        yield
    finally:
        _state.update(before[0])
        module.benchmark_limit = before[1]


sys.modules[__name__].__class__ = module_class("cudnn", _state)
