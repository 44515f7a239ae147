"""Padding modules over ember.nn.functional.pad: constant, zero, reflection, replication, circular."""
from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _pad_tuple(padding, n):
    """An int as 2n equal pads, a sequence (of length 2n) as is."""
    if isinstance(padding, (list, tuple)):
        if len(padding) != 2 * n:
            raise ValueError(f"padding must be an int or a {2 * n}-tuple, got {padding}")
        return tuple(padding)
    return (padding,) * (2 * n)


class _PadNd(Module):
    _mode = "constant"
    _n = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _pad_tuple(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with value."""
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with value."""
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dimensions with value."""
    _n = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pads the last dimension with zeros."""
    _n = 1


class ZeroPad2d(_ZeroPadNd):
    """Pads the last two dimensions with zeros."""
    _n = 2


class ZeroPad3d(_ZeroPadNd):
    """Pads the last three dimensions with zeros."""
    _n = 3


class ReflectionPad1d(_PadNd):
    """Pads the last dimension with its reflection."""
    _mode, _n = "reflect", 1


class ReflectionPad2d(_PadNd):
    """Pads the last two dimensions with their reflection."""
    _mode, _n = "reflect", 2


class ReflectionPad3d(_PadNd):
    """Pads the last three dimensions with their reflection."""
    _mode, _n = "reflect", 3


class ReplicationPad1d(_PadNd):
    """Pads the last dimension by repeating its edges."""
    _mode, _n = "replicate", 1


class ReplicationPad2d(_PadNd):
    """Pads the last two dimensions by repeating their edges."""
    _mode, _n = "replicate", 2


class ReplicationPad3d(_PadNd):
    """Pads the last three dimensions by repeating their edges."""
    _mode, _n = "replicate", 3


class CircularPad1d(_PadNd):
    """Pads the last dimension by wrapping around."""
    _mode, _n = "circular", 1


class CircularPad2d(_PadNd):
    """Pads the last two dimensions by wrapping around."""
    _mode, _n = "circular", 2


class CircularPad3d(_PadNd):
    """Pads the last three dimensions by wrapping around."""
    _mode, _n = "circular", 3
