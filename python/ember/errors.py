"""The exception classes Ember raises besides Python's own (Note [Exception classes] in
python/csrc/Exceptions.cpp): ValueError is also a RuntimeError, TypeError also a
NotImplementedError, so code written for PyTorch's exceptions keeps catching them."""
import builtins

from ember._C import _TypeError as TypeError  # noqa: A001
from ember._C import _ValueError as ValueError  # noqa: A001

NOT_COMPILED = "Ember not compiled with CUDA enabled"


class NotCompiledError(builtins.AssertionError, builtins.NotImplementedError):
    """What needs a backend this build lacks (CUDA) raises: an AssertionError, as PyTorch's
    CPU build raises there, and a NotImplementedError (so a RuntimeError), as Ember's
    dispatcher raises for a device without kernels."""


__all__ = ["NOT_COMPILED", "NotCompiledError", "TypeError", "ValueError"]
