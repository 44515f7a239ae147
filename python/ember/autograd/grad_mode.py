"""Grad modes as context managers and decorators: no_grad, enable_grad, set_grad_enabled,
inference_mode (thread-local, as in PyTorch)."""
from __future__ import annotations

import functools
import inspect

from ember import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]

is_grad_enabled = _C.is_grad_enabled
is_inference_mode_enabled = _C.is_inference_mode_enabled


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generator functions)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError(f"{type(self).__name__} cannot decorate a class")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen(*args, **kwargs):
                # Each step of the generator runs in the mode, not the caller's code between.
                with self.clone():
                    g = func(*args, **kwargs)
                request = None
                while True:
                    try:
                        with self.clone():
                            response = g.send(request)
                    except StopIteration as e:
                        return e.value
                    request = yield response
            return gen

        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapped

    def clone(self):
        return type(self)()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator (@ember.no_grad, without parentheses)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class _GradModeScope(_NoParamDecoratorContextManager):
    """Sets grad mode to `mode` for its scope and restores the previous mode after."""

    mode = True

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self.mode)

    def __exit__(self, *exc) -> None:
        _C._set_grad_enabled(self.prev)


class no_grad(_GradModeScope):
    """Disables gradient recording in its scope (results do not require grad)."""

    mode = False


class enable_grad(_GradModeScope):
    """Enables gradient recording in its scope (inside no_grad, for example)."""

    mode = True


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode: at once when called (as torch.set_grad_enabled does), and back to the
    previous mode when used as a context manager and the scope ends."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): expected 'mode' to be a bool, but got "
                            f"{type(mode).__name__}")
        self.prev = _C.is_grad_enabled()
        self.mode = mode
        _C._set_grad_enabled(mode)

    def __enter__(self) -> None:
        _C._set_grad_enabled(self.mode)

    def __exit__(self, *exc) -> None:
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_DecoratorContextManager):
    """No recording and no version counting in its scope (faster than no_grad);
    inference_mode(False) turns it off inside an enabled scope."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):  # used as a bare decorator
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self) -> None:
        _C._enter_inference_mode(self.mode)

    def __exit__(self, *exc) -> None:
        _C._exit_inference_mode()

    def clone(self):
        return inference_mode(self.mode)
