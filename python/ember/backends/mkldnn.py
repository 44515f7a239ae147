"""ember.backends.mkldnn: whether float32 convolutions run on oneDNN (as torch.backends.mkldnn).

`ember.backends.mkldnn.enabled = False` routes them to the im2col + GEMM path every other
dtype takes; `with ember.backends.mkldnn.flags(enabled=False):` does so for a block."""
import sys
import types
from contextlib import contextmanager

from ember import _C


def is_available() -> bool:
    """Whether this build has oneDNN (CMake's EMBER_ONEDNN, on by default)."""
    return _C._has_onednn()


@contextmanager
def flags(enabled=False):
    """Sets `enabled` for the block, restoring the previous value after."""
    before = _C._get_mkldnn_enabled()
    _C._set_mkldnn_enabled(bool(enabled))
    try:
        yield
    finally:
        _C._set_mkldnn_enabled(before)


class _Module(types.ModuleType):
    @property
    def enabled(self) -> bool:
        return _C._get_mkldnn_enabled()

    @enabled.setter
    def enabled(self, value) -> None:
        _C._set_mkldnn_enabled(bool(value))


sys.modules[__name__].__class__ = _Module
