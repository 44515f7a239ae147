"""The exception classes Ember raises besides Python's own (Note [Exception classes] in
python/csrc/Exceptions.cpp): ValueError is also a RuntimeError, TypeError also a
NotImplementedError, so code written for PyTorch's exceptions keeps catching them."""
from ember._C import _TypeError as TypeError  # noqa: A001
from ember._C import _ValueError as ValueError  # noqa: A001

__all__ = ["TypeError", "ValueError"]
