"""The float32 matmul precision setting (torch.set_float32_matmul_precision).

"highest" asks for full float32 products; "high" and "medium" allow TF32 or bfloat16 ones
where a backend has them. Ember's CPU matmuls always compute in full float32, which every
setting permits, so the setting is recorded (and read by ember.backends.cuda.matmul.allow_tf32)
without changing a result.
"""
from __future__ import annotations

import warnings

PRECISIONS = ("highest", "high", "medium")
_precision = "highest"


def set_float32_matmul_precision(precision: str) -> None:
    """Sets the internal precision of float32 matrix products: "highest", "high" or "medium";
    another string warns and changes nothing (as PyTorch)."""
    global _precision
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      f"set_float32_matmul_precision call has no effect.", stacklevel=2)
        return
    _precision = precision


def get_float32_matmul_precision() -> str:
    """The precision set_float32_matmul_precision last set ("highest" at start)."""
    return _precision
