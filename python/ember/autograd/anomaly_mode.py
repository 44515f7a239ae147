"""Anomaly detection: backward checks every gradient for NaN and names the node (and so the
forward op) that produced it."""
from __future__ import annotations

from ember import _C
from ember.autograd.grad_mode import _DecoratorContextManager

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]

is_anomaly_enabled = _C.is_anomaly_enabled


class detect_anomaly(_DecoratorContextManager):
    """Context manager and decorator that turns anomaly detection on in its scope."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _C.is_anomaly_enabled()
        _C._set_anomaly_enabled(self.check_nan)

    def __exit__(self, *exc) -> None:
        _C._set_anomaly_enabled(self.prev)

    def clone(self):
        return detect_anomaly(self.check_nan)


class set_detect_anomaly:
    """Sets anomaly detection on or off (at once; restored when used as a context manager)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _C.is_anomaly_enabled()
        _C._set_anomaly_enabled(bool(mode) and check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _C._set_anomaly_enabled(self.prev)
